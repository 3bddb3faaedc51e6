/*
 * test_search.c - the bots' search (common/search.c) on every registered
 * game, whatever evaluation the game has: a legal best move from thousands
 * of random positions, every immediate win found, node and time limits kept,
 * the stop flag honoured, the same seed giving the same move, the three
 * three-player methods, the levels and the time per move.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "rules.h"
#include "search.h"
#include "search_fixture.h"

static bool is_legal(const rules_pos *p, rules_move m)
{
    rules_move mv[RULES_MAX_MOVES];
    int n = p->variant->legal_moves(p, mv);
    for (int i = 0; i < n; i++)
        if (mv[i] == m)
            return true;
    return false;
}

/* Play `plies` random moves from the set-up (stopping before the end). */
static int random_position(const rules_variant *v, rules_pos *p, uint64_t *rng, int plies)
{
    rules_pos_init(p, v);
    rules_move mv[RULES_MAX_MOVES];
    int played = 0;
    for (; played < plies; played++) {
        int n = v->legal_moves(p, mv);
        rules_result r = {0};
        r.winner = -1;
        v->status(p, n, &r);
        if (r.over || n == 0)
            break;
        rules_undo u;
        rules_pos before = *p;
        v->make(p, mv[rules_splitmix64(rng) % (uint64_t)n], &u);
        n = v->legal_moves(p, mv);
        v->status(p, n, &r);
        if (r.over) {
            *p = before;
            break;
        }
    }
    return played;
}

/* Does move m win at once for the player who makes it? */
static bool wins_at_once(rules_pos *p, rules_move m)
{
    const rules_variant *v = p->variant;
    int me = p->to_move;
    rules_undo u;
    v->make(p, m, &u);
    rules_move mv[RULES_MAX_MOVES];
    int n = v->legal_moves(p, mv);
    rules_result r = {0};
    r.winner = -1;
    v->status(p, n, &r);
    v->unmake(p, m, &u);
    return r.over && r.winner == me;
}

static void test_legal_best_moves(void **state)
{
    (void)state;
    uint64_t rng = 7;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        /* Deeper searches on a few positions, then 200 shallow ones
         * per game below (1,200 in all; fuzz_search tries many more). */
        for (int k = 0; k < 12; k++) {
            rules_pos p;
            random_position(*vp, &p, &rng, (int)(rules_splitmix64(&rng) % 80));
            rules_pos copy = p;
            search_limits l = {.depth = 2, .nodes = 20000};
            search_report r;
            int err = search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r);
            assert_int_equal(err, 0);
            assert_true(is_legal(&p, r.best));
            assert_true(r.npv >= 1);
            assert_int_equal(r.pv[0], r.best);
            /* The root is the caller's and untouched. */
            assert_memory_equal(&copy, &p, sizeof p);
        }
        for (int k = 0; k < 200; k++) {
            rules_pos p;
            random_position(*vp, &p, &rng, (int)(rules_splitmix64(&rng) % 160));
            search_limits l = {.depth = 1, .nodes = 200, .multi = (search_multi)(k % 3)};
            search_report r;
            if (search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r) == RULES_EGAME_OVER)
                continue;
            assert_true(is_legal(&p, r.best));
        }
    }
}

/* In every game, from random positions that have a winning move, a depth 2
 * search plays one (by every three-player method too). */
static void test_immediate_wins(void **state)
{
    (void)state;
    uint64_t rng = 11;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        int found = 0;
        for (int k = 0; k < 600 && found < 4; k++) {
            rules_pos p;
            random_position(*vp, &p, &rng, 20 + (int)(rules_splitmix64(&rng) % 200));
            rules_move mv[RULES_MAX_MOVES];
            int n = (*vp)->legal_moves(&p, mv);
            bool any = false;
            for (int i = 0; i < n && !any; i++)
                any = wins_at_once(&p, mv[i]);
            if (!any)
                continue;
            found++;
            for (int multi = 0; multi < ((*vp)->nplayers == 3 ? 3 : 1); multi++) {
                search_limits l = {.depth = 2, .multi = (search_multi)multi};
                search_report r;
                clock_t t0 = clock();
                assert_int_equal(search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r), 0);
                double ms = (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC;
                if (!wins_at_once(&p, r.best)) {
                    char pos[RULES_POS_TEXT];
                    (*vp)->print_position(&p, pos, sizeof pos);
                    fail_msg("%s (%s): missed a win in one in %s", (*vp)->id,
                             search_multi_name((search_multi)multi), pos);
                }
                assert_true(r.score >= SEARCH_WIN_BOUND);
                /* Generous for sanitizer builds. */
                assert_true(ms < 2000);
            }
        }
        printf("%s: %d positions with a win in one\n", (*vp)->id, found);
    }
}

static void test_node_limit_and_determinism(void **state)
{
    (void)state;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        rules_pos p;
        rules_pos_init(&p, *vp);
        search_limits l = {.nodes = 3000};
        search_report a, b;
        search_clear(ctx);
        assert_int_equal(search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &a), 0);
        /* Checked every 1024 nodes, and the node that crosses finishes. */
        assert_true(a.nodes <= 3000 + 1100);
        search_clear(ctx);
        assert_int_equal(search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &b), 0);
        assert_int_equal(a.best, b.best);
        assert_int_equal(a.nodes, b.nodes);

        /* A weak level chooses at random, the same way for a seed. */
        search_limits w1, w2;
        search_level_limits(&w1, 2, 0, 42);
        search_level_limits(&w2, 2, 0, 42);
        search_clear(ctx);
        assert_int_equal(search_run(ctx, &p, NULL, 0, &w1, NULL, NULL, &a), 0);
        search_clear(ctx);
        assert_int_equal(search_run(ctx, &p, NULL, 0, &w2, NULL, NULL, &b), 0);
        assert_int_equal(a.best, b.best);
        assert_true(is_legal(&p, a.best));
    }
}

static int64_t fake_clock;
static int64_t fake_now(void)
{
    /* Each reading advances the clock: time passes as the search runs. */
    return fake_clock += 5;
}

static void test_time_limit(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, rules_find("ultima"));
    search_limits l = {.ms = 100, .now_ms = fake_now};
    search_report r;
    assert_int_equal(search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r), 0);
    assert_true(r.ms <= 100 + 5);
    assert_true(is_legal(&p, r.best));
    assert_true(r.depth >= 1);
}

static void stop_at_depth(void *arg, const search_report *r)
{
    if (r->depth >= 2)
        search_stop(arg);
}

static void test_stop(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, rules_find("rollerball"));
    search_limits l = {0};
    search_report r;
    search_clear(ctx);
    assert_int_equal(search_run(ctx, &p, NULL, 0, &l, stop_at_depth, ctx, &r), 0);
    assert_true(r.depth >= 2 && r.depth <= 3);
    assert_true(is_legal(&p, r.best));
}

static void test_game_over(void **state)
{
    (void)state;
    rules_game *g = NULL;
    assert_int_equal(rules_game_new(&g, "ultima", NULL, NULL, 0), 0);
    rules_game_end_draw(g, RULES_REASON_AGREEMENT);
    /* A position with moves is searched even if the game was agreed
     * drawn: the search judges by the rules, the caller by the game. */
    search_limits l = {.depth = 1};
    search_report r;
    assert_int_equal(search_run(ctx, &g->pos, NULL, 0, &l, NULL, NULL, &r), 0);
    rules_game_free(g);
}

/* Three-player games once a player has left (resigned, timed out): every
 * method searches the two left in the game, at depths where best-reply
 * search gives every opponent the move, and never the one who left (the
 * sanitizer build asserts in set_to_move if it does). The game that
 * aborted the server: Yalta, two moves, a resignation, a bot to move. */
static void test_players_who_left(void **state)
{
    (void)state;
    uint64_t rng = 31;
    int searched = 0;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        const rules_variant *v = *vp;
        if (v->nplayers < 3 || v->leave == NULL)
            continue;
        assert_non_null(v->players_left);
        for (int k = 0; k < 16; k++) {
            rules_pos p;
            random_position(v, &p, &rng, k < 4 ? 2 : (int)(rules_splitmix64(&rng) % 60));
            int who = (int)(rules_splitmix64(&rng) % 3);
            v->leave(&p, who);
            assert_true(v->players_left(&p) >> who & 1);
            for (int m = 0; m < 3; m++) {
                search_limits l = {.depth = 2 + k % 2, .nodes = 3000, .multi = (search_multi)m};
                search_report r;
                search_clear(ctx);
                if (search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r) == RULES_EGAME_OVER)
                    continue;
                assert_true(is_legal(&p, r.best));
                searched++;
            }
            /* A root whose mover has left is refused, not searched. */
            rules_pos q = p;
            if (q.to_move != who && v->set_to_move != NULL) {
                q.to_move = (uint8_t)who;
                search_limits l = {.depth = 2};
                search_report r;
                assert_int_equal(search_run(ctx, &q, NULL, 0, &l, NULL, NULL, &r),
                                 RULES_EGAME_OVER);
            }
        }
    }
    assert_true(searched > 40);
}

static void test_repetition_is_a_draw(void **state)
{
    (void)state;
    /* With the root's successor in the history, every line that goes back
     * to it scores 0: the search still returns a legal move. */
    rules_pos p;
    rules_pos_init(&p, rules_find("ultima"));
    uint64_t hist[3] = {1, 2, p.hash};
    search_limits l = {.depth = 3};
    search_report r;
    assert_int_equal(search_run(ctx, &p, hist, 3, &l, NULL, NULL, &r), 0);
    assert_true(is_legal(&p, r.best));
}

static void test_time_for_move(void **state)
{
    (void)state;
    assert_true(search_time_for_move(60000, 0, 0) <= 60000 / 15);
    assert_true(search_time_for_move(60000, 0, 0) >= 1000);
    assert_true(search_time_for_move(1000, 2000, 10) <= 250);
    assert_int_equal(search_time_for_move(0, 0, 10), 10);
    assert_string_equal(search_multi_name(SEARCH_MULTI_BRS), "brs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legal_best_moves),
        cmocka_unit_test(test_immediate_wins),
        cmocka_unit_test(test_node_limit_and_determinism),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_game_over),
        cmocka_unit_test(test_players_who_left),
        cmocka_unit_test(test_repetition_is_a_draw),
        cmocka_unit_test(test_time_for_move),
    };
    return cmocka_run_group_tests(tests, ctx_setup, ctx_teardown);
}
