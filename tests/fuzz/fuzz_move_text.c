/*
 * fuzz_move_text.c - libFuzzer target: every game's move text parser
 * (rules_variant.parse_move, which reads what a client sends in "move" and
 * what conditional lines and PGN hold). Input: one byte naming the game,
 * a position string up to the first newline (empty or refused: the
 * set-up), then the move text. A refused text gets a rules error and a
 * reason; an accepted one is a legal move whose own text parses back to it,
 * and a game in that position takes the text with the same answer. The same
 * text as a conditional line ("their move, my answer ...", cond_check_line
 * of server/game/cond.c, what cond_set sends) in two-player games: a refusal has
 * a reason; an accepted line's canonical text is accepted again, unchanged.
 */
#include "cond.h"
#include "fuzz.h"

static void check_cond_line(const rules_game *g, const char *line)
{
    if (g->variant->nplayers != 2 || g->result.over)
        return;
    int player = 1 - rules_game_to_move(g);
    char canon[512], again[512], why[RULES_WHY_TEXT] = "";
    int err = cond_check_line(g, player, line, canon, sizeof canon, why, sizeof why);
    if (err != 0) {
        FUZZ_CHECK(err < 0 && why[0] != '\0');
        return;
    }
    FUZZ_CHECK(cond_check_line(g, player, canon, again, sizeof again, why, sizeof why) == 0);
    FUZZ_CHECK(strcmp(canon, again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > RULES_POS_TEXT + 4 * RULES_MOVE_TEXT)
        return -1;
    const rules_variant *v = fuzz_variant(data[0]);
    char *input = fuzz_string(data + 1, size - 1);
    char *text = input, *position = NULL;
    char *nl = strchr(input, '\n');
    if (nl != NULL) {
        *nl = '\0';
        position = input;
        text = nl + 1;
    }
    char why[RULES_WHY_TEXT] = "";
    rules_pos p;
    rules_pos_init(&p, v);
    if (position == NULL || *position == '\0' ||
        v->parse_position(&p, position, why, sizeof why) != 0) {
        position = NULL;
        rules_pos_init(&p, v);
    }
    rules_move legal[RULES_MAX_MOVES];
    int n = v->legal_moves(&p, legal);
    rules_move m = 0;
    why[0] = '\0';
    int err = v->parse_move(&p, text, &m, why, sizeof why);
    if (err != 0) {
        FUZZ_CHECK(err < 0 && err >= RULES_ENOMEM && why[0] != '\0');
        FUZZ_CHECK(strcmp(rules_err_code(err), "ok") != 0);
    } else {
        int i = 0;
        while (i < n && legal[i] != m)
            i++;
        FUZZ_CHECK(i < n);
        char own[RULES_MOVE_TEXT], shown[RULES_MOVE_TEXT];
        FUZZ_CHECK(v->print_move(&p, m, own, sizeof own) > 0);
        rules_move again = 0;
        FUZZ_CHECK(v->parse_move(&p, own, &again, why, sizeof why) == 0 && again == m);
        FUZZ_CHECK(rules_display_move(&p, m, shown, sizeof shown) > 0);
    }
    /* The game's door for a client's move: the same verdict, and on a
     * refusal nothing changes. */
    rules_game *g = NULL;
    FUZZ_CHECK(rules_game_new(&g, v->id, position, why, sizeof why) == 0);
    check_cond_line(g, text);
    if (!g->result.over) {
        rules_move gm = 0;
        int gerr = rules_game_play_text(g, -1, text, &gm, why, sizeof why);
        FUZZ_CHECK(gerr == err);
        FUZZ_CHECK(err != 0 || (gm == m && g->nmoves == 1));
        if (err != 0)
            fuzz_check_same(&g->pos, &p);
    }
    rules_game_free(g);
    free(input);
    return 0;
}
