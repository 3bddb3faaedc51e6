/*
 * fuzz_position.c - libFuzzer target: every game's position string parser
 * (rules_variant.parse_position; the server takes position strings from
 * storage and the bots, PGN imports them from [FEN]). Input: one byte
 * naming the game, then the text. A refused text gets RULES_EBAD_POSITION
 * and a reason; an accepted one keeps every property of fuzz_check_position
 * (round trip, make/unmake, move text) and starts a game (rules_game_new)
 * whose first legal move plays by its text.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 2 * RULES_POS_TEXT)
        return -1; /* longer texts add nothing the parser's bound does not */
    const rules_variant *v = fuzz_variant(data[0]);
    char *text = fuzz_string(data + 1, size - 1);
    rules_pos p;
    rules_pos_init(&p, v);
    char why[RULES_WHY_TEXT] = "";
    int err = v->parse_position(&p, text, why, sizeof why);
    if (err != 0) {
        FUZZ_CHECK(err == RULES_EBAD_POSITION && why[0] != '\0');
        free(text);
        return 0;
    }
    FUZZ_CHECK(p.variant == v);
    rules_move legal[RULES_MAX_MOVES];
    int n = fuzz_check_position(&p, legal, true);

    rules_game *g = NULL;
    FUZZ_CHECK(rules_game_new(&g, v->id, text, why, sizeof why) == 0);
    fuzz_check_same(&g->pos, &p);
    FUZZ_CHECK(g->nlegal == n || g->result.over);
    if (!g->result.over && n > 0) {
        char mt[RULES_MOVE_TEXT];
        FUZZ_CHECK(v->print_move(&g->pos, legal[0], mt, sizeof mt) > 0);
        rules_move m = 0;
        FUZZ_CHECK(rules_game_play_text(g, -1, mt, &m, why, sizeof why) == 0 && m == legal[0]);
        FUZZ_CHECK(g->nmoves == 1);
    }
    rules_game_free(g);
    free(text);
    return 0;
}
