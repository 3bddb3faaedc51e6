/*
 * fuzz_pgn.c - libFuzzer target: PGN import (pgn_parse, then pgn_replay
 * through the rules core). Any text: no crash, no leak; a refusal has a
 * reason. A game that imports is written back (pgn_write) and imports again
 * to the same position, moves and result.
 */
#include "fuzz.h"
#include "pgn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024)
        return -1;
    char *text = fuzz_string(data, size);
    pgn_game pg = {0};
    char why[RULES_WHY_TEXT] = "";
    if (pgn_parse(text, &pg, why, sizeof why) != 0) {
        pgn_free(&pg);
        free(text);
        return 0;
    }
    rules_game *g = NULL;
    why[0] = '\0';
    int err = pgn_replay(&pg, &g, why, sizeof why);
    if (err != 0) {
        FUZZ_CHECK(err < 0 && why[0] != '\0');
        FUZZ_CHECK(g == NULL);
    } else {
        char *out = NULL;
        FUZZ_CHECK(pgn_write(&pg, g->variant->nplayers, &out) == 0);
        pgn_game back = {0};
        int perr = pgn_parse(out, &back, why, sizeof why);
        if (perr != 0)
            fprintf(stderr, "written PGN refused: %s\n%s\n", why, out);
        FUZZ_CHECK(perr == 0);
        rules_game *g2 = NULL;
        err = pgn_replay(&back, &g2, why, sizeof why);
        if (err != 0)
            fprintf(stderr, "written PGN does not replay: %s\n%s\n", why, out);
        FUZZ_CHECK(err == 0);
        fuzz_check_same(&g2->pos, &g->pos);
        FUZZ_CHECK(g2->nmoves == g->nmoves && g2->result.over == g->result.over);
        rules_game_free(g2);
        pgn_free(&back);
        free(out);
        rules_game_free(g);
    }
    pgn_free(&pg);
    free(text);
    return 0;
}
