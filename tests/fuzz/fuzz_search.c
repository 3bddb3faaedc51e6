/*
 * fuzz_search.c - libFuzzer target: the bots' search (common/search.h) on
 * positions the bytes choose, in every game, with players who left.
 * Input: one byte naming the game, one byte of settings (bits 0-1: the
 * three-player method, paranoid, best-reply or max^n; bits 2-3: depth 1-4;
 * bits 4-6: the level, 1-8), then two bytes per ply choosing the move among
 * the legal ones (0xff00 and up, in a game with a leave hook, make the
 * player to move leave instead, as a resignation does in a room). The search then
 * runs from that position with short limits, and its answer must be one of
 * the position's legal moves, the root untouched; a position whose game is
 * over is refused (RULES_EGAME_OVER) and nothing else is. The sanitizer
 * build asserts in the games' hooks (a turn given to a player who left:
 * the crash that once stopped the server) and catches every memory error.
 */
#include "fuzz.h"

#include "search.h"

enum { MAX_PLIES = 160 };

static search_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return -1;
    if (ctx == NULL && (ctx = search_new(1 << 20)) == NULL)
        abort();
    const rules_variant *v = fuzz_variant(data[0]);
    uint8_t set = data[1];
    data += 2;
    size -= 2;
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT];
    FUZZ_CHECK(rules_game_new(&g, v->id, NULL, why, sizeof why) == 0);
    for (int ply = 0; ply < MAX_PLIES && size >= 2 && !g->result.over; ply++) {
        unsigned choice = (unsigned)(data[0] << 8) | data[1];
        data += 2;
        size -= 2;
        if (choice >= 0xff00 && v->leave != NULL) {
            FUZZ_CHECK(rules_game_leave(g, rules_game_to_move(g), RULES_REASON_RESIGNATION) == 0);
            continue;
        }
        if (g->nlegal == 0)
            break;
        char text[RULES_MOVE_TEXT];
        FUZZ_CHECK(
            v->print_move(&g->pos, g->legal[choice % (unsigned)g->nlegal], text, sizeof text) > 0);
        rules_move m;
        FUZZ_CHECK(rules_game_play_text(g, rules_game_to_move(g), text, &m, why, sizeof why) == 0);
    }

    search_limits l;
    search_level_limits(&l, 1 + (set >> 4 & 7), 0, set);
    l.multi = (search_multi)(set & 3) == 3 ? SEARCH_MULTI_BRS : (search_multi)(set & 3);
    l.depth = 1 + (set >> 2 & 3);
    l.nodes = 800;
    l.ms = 0;
    rules_pos root = g->pos;
    search_report r;
    search_clear(ctx);
    int err = search_run(ctx, &root, g->hashes, g->nmoves, &l, NULL, NULL, &r);
    FUZZ_CHECK(memcmp(&root, &g->pos, sizeof root) == 0);
    /* The search judges the position by the rules (a game over by
     * repetition or agreement is the caller's to see). */
    rules_move legal[RULES_MAX_MOVES];
    int n = v->legal_moves(&g->pos, legal);
    rules_result res = {0};
    res.winner = -1;
    v->status(&g->pos, n, &res);
    if (res.over || n == 0) {
        FUZZ_CHECK(err == RULES_EGAME_OVER);
    } else {
        FUZZ_CHECK(err == 0);
        bool found = false;
        for (int i = 0; i < n && !found; i++)
            found = legal[i] == r.best;
        FUZZ_CHECK(found);
    }
    rules_game_free(g);
    return 0;
}
