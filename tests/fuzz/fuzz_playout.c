/*
 * fuzz_playout.c - libFuzzer target: random play of every game through the
 * rules core, the bytes choosing. Input: one byte naming the game, one
 * byte of flags, then two bytes per ply choosing the move among the legal
 * ones (a choice of 0xffff, in a game with a leave hook, makes the player
 * to move leave instead). Flag 1: start from a random position instead of
 * the set-up (the set-up after random plies, printed and parsed back, so
 * the game goes on from text). At every position of the game: every
 * property of fuzz_check_position (make/unmake of every legal move restores
 * text and hash; text -> position -> text; the same legal moves after the
 * round trip). At the end, the game replays from its move texts
 * (rules_game_replay) to the same position and result, and its walk
 * (rules_game_walk) ends there too.
 */
#include "fuzz.h"

enum { MAX_PLIES = 400 };

static int last_visit(void *arg, const rules_walk_step *s)
{
    *(rules_pos *)arg = *s->after;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return -1;
    const rules_variant *v = fuzz_variant(data[0]);
    uint8_t flags = data[1];
    data += 2;
    size -= 2;
    char why[RULES_WHY_TEXT] = "", start[RULES_POS_TEXT];
    const char *position = NULL;
    if (flags & 1) {
        /* A random position: plies from the set-up chosen by the bytes. */
        rules_pos p;
        rules_pos_init(&p, v);
        rules_move legal[RULES_MAX_MOVES];
        while (size >= 2 && data[0] != 0xff) {
            int n = v->legal_moves(&p, legal);
            rules_result r;
            v->status(&p, n, &r);
            if (n == 0 || r.over)
                break;
            rules_undo u;
            v->make(&p, legal[((data[0] << 8) | data[1]) % n], &u);
            data += 2;
            size -= 2;
        }
        if (size >= 2) { /* the 0xff.. that ended the walk */
            data += 2;
            size -= 2;
        }
        fuzz_print(&p, start);
        position = start;
    }
    rules_game *g = NULL;
    int err = rules_game_new(&g, v->id, position, why, sizeof why);
    if (err != 0)
        fprintf(stderr, "%s: %s: %s\n", v->id, position ? position : "set-up", why);
    FUZZ_CHECK(err == 0);

    rules_step steps[MAX_PLIES];
    char texts[MAX_PLIES][RULES_MOVE_TEXT];
    size_t nsteps = 0;
    rules_move legal[RULES_MAX_MOVES];
    while (nsteps < MAX_PLIES) {
        int n = fuzz_check_position(&g->pos, legal, false);
        FUZZ_CHECK(n == g->nlegal || g->result.over);
        if (g->result.over || size < 2)
            break;
        unsigned choice = (unsigned)(data[0] << 8) | data[1];
        data += 2;
        size -= 2;
        int mover = rules_game_to_move(g);
        FUZZ_CHECK(mover >= 0 && mover < v->nplayers);
        if (choice == 0xffff && v->leave != NULL) {
            FUZZ_CHECK(rules_game_leave(g, mover, RULES_REASON_RESIGNATION) == 0);
            steps[nsteps++] = (rules_step){NULL, mover, RULES_REASON_RESIGNATION};
            continue;
        }
        FUZZ_CHECK(n > 0);
        rules_move m = legal[choice % (unsigned)n];
        FUZZ_CHECK(v->print_move(&g->pos, m, texts[nsteps], RULES_MOVE_TEXT) > 0);
        FUZZ_CHECK(rules_game_play(g, m) == 0);
        steps[nsteps] = (rules_step){texts[nsteps], mover, RULES_REASON_NONE};
        nsteps++;
    }

    /* The same game again from its record, as storage and PGN rebuild it. */
    rules_game *r = NULL;
    err = rules_game_replay(&r, v->id, position, steps, nsteps, why, sizeof why);
    if (err != 0)
        fprintf(stderr, "%s: replay: %s\n", v->id, why);
    FUZZ_CHECK(err == 0);
    fuzz_check_same(&r->pos, &g->pos);
    FUZZ_CHECK(r->nmoves == g->nmoves && r->result.over == g->result.over);
    FUZZ_CHECK(r->result.reason == g->result.reason && r->result.winner == g->result.winner);
    rules_pos end = g->start;
    FUZZ_CHECK(rules_game_walk(g, g->nmoves, last_visit, &end) == 0);
    if (nsteps > 0)
        fuzz_check_same(&end, &g->pos);
    rules_game_free(r);
    rules_game_free(g);
    return 0;
}
