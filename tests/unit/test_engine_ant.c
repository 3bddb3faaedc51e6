/*
 * test_engine_ant.c - the bots' hooks of Ant Chess (ant2, ant3): is_capture
 * agrees with rules_move_captures on every legal move of random playouts,
 * set_to_move round-trips (hash included), the evaluation is fair at the
 * set-up and reads material, leaving and lost queens, and the search finds
 * a win in one (centre, checkmate, last queen) at a shallow depth.
 *
 * Positions are written as piece lists ("bQg1 rQg13 ...") and turned into
 * position strings by cell names (ant_positions.h, shared with
 * test_antchess.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ant_positions.h"
#include "antchess.h"
#include "rules.h"
#include "search.h"

static const rules_variant *V2, *V3;

static int setup(void **state)
{
    (void)state;
    V2 = rules_find("ant2");
    V3 = rules_find("ant3");
    return V2 && V3 ? 0 : -1;
}

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* One random move of p, a capture half of the time when there is one (so
 * that the playouts reach crowded fights, multiple ladybug captures and
 * lost queens); 0 if the game is over. */
static rules_move random_move(const rules_pos *p, uint64_t *seed)
{
    rules_move m[RULES_MAX_MOVES], caps[RULES_MAX_MOVES];
    int n = p->variant->legal_moves(p, m), nc = 0;
    if (n == 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (p->variant->is_capture(p, m[i]))
            caps[nc++] = m[i];
    if (nc && rnd(seed) % 2)
        return caps[rnd(seed) % (uint64_t)nc];
    return m[rnd(seed) % (uint64_t)n];
}

/* Calls visit on every position of `games` random playouts of at most
 * `plies` plies from the set-up of v (a player leaves now and then in ant3). */
static void playouts(const rules_variant *v, int games, int plies, uint64_t seed,
                     void (*visit)(const rules_pos *p, uint64_t *seed))
{
    for (int g = 0; g < games; g++) {
        rules_pos p;
        rules_pos_init(&p, v);
        for (int k = 0; k < plies; k++) {
            visit(&p, &seed);
            if (v->leave && k == 40 && g % 4 == 0)
                v->leave(&p, (int)(rnd(&seed) % 3));
            rules_move m = random_move(&p, &seed);
            if (m == 0)
                break;
            rules_undo u;
            v->make(&p, m, &u);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* is_capture */

static long checked_moves, checked_captures, worm_captures, lady_multi;

static void check_captures(const rules_pos *p, uint64_t *seed)
{
    (void)seed;
    const rules_variant *v = p->variant;
    rules_move m[RULES_MAX_MOVES];
    int n = v->legal_moves(p, m), cells[RULES_MAX_CELLS];
    for (int i = 0; i < n; i++) {
        bool want = rules_move_captures(p, m[i], cells) > 0;
        if (v->is_capture(p, m[i]) != want) {
            char pt[RULES_POS_TEXT], mt[RULES_MOVE_TEXT];
            v->print_position(p, pt, sizeof pt);
            v->print_move(p, m[i], mt, sizeof mt);
            fail_msg("%s in %s: is_capture %d, captures %d", mt, pt, !want, want);
        }
        checked_moves++;
        checked_captures += want;
        if (want) {
            char t[RULES_MOVE_TEXT];
            int len, owner;
            v->print_move(p, m[i], t, sizeof t);
            char kind = v->piece_at(p, rules_cell_parse_prefix(v, t, &len), &owner);
            worm_captures += kind == 'W';
            lady_multi += kind == 'L' && rules_move_captures(p, m[i], cells) > 1;
        }
    }
}

static void test_is_capture_random(void **state)
{
    (void)state;
    checked_moves = checked_captures = worm_captures = lady_multi = 0;
    playouts(V2, 40, 80, 1, check_captures);
    playouts(V3, 40, 90, 2, check_captures);
    /* thousands of positions, and captures of every sort among them:
     * worms passing under a piece, ladybugs taking two or more */
    assert_true(checked_moves > 100000);
    assert_true(checked_captures > 5000);
    assert_true(worm_captures > 100);
    assert_true(lady_multi >= 5);
}

static void test_is_capture_kinds(void **state)
{
    (void)state;
    rules_pos p;
    rules_move m;
    char why[RULES_WHY_TEXT];
    /* worm: the piece passed under is taken, the landing is empty */
    load(V2, &p, "bQg1 bWa1 rAa4 rQg13", 'b', "-");
    assert_int_equal(V2->parse_move(&p, "a1-a7", &m, why, sizeof why), 0);
    assert_true(V2->is_capture(&p, m));
    assert_int_equal(V2->parse_move(&p, "a1-b1", &m, why, sizeof why), 0);
    assert_false(V2->is_capture(&p, m));
    /* ladybug: a walk through an enemy piece takes it wherever it ends;
     * the same end by an empty walk takes nothing */
    load(V2, &p, "bQg1 bLe5 bAe6 rAf6 rQg13", 'b', "-");
    rules_move all[RULES_MAX_MOVES];
    int n = V2->legal_moves(&p, all), cells[RULES_MAX_CELLS], caps = 0, quiet = 0;
    for (int i = 0; i < n; i++) {
        bool c = rules_move_captures(&p, all[i], cells) > 0;
        assert_true(V2->is_capture(&p, all[i]) == c);
        caps += c;
        quiet += !c;
    }
    assert_true(caps > 0 && quiet > 0);
    assert_false(V2->is_capture(&p, all[n - 1])); /* pass */
}

/* ------------------------------------------------------------------------ */
/* set_to_move */

static void check_set_to_move(const rules_pos *p, uint64_t *seed)
{
    const rules_variant *v = p->variant;
    char text[RULES_POS_TEXT];
    int me = p->to_move;
    for (int pl = 0; pl < v->nplayers; pl++) {
        if (pl == me)
            continue;
        v->print_position(p, text, sizeof text);
        if (strchr(strrchr(text, ' ') + 1, "brg"[pl]))
            continue; /* pl has left; the search never hands it the turn */
        rules_pos q = *p;
        v->set_to_move(&q, pl);
        assert_int_equal(q.to_move, pl);
        /* the same hash and moves as the position written with pl to move
         * (ant2 refuses a position whose player not to move is in check) */
        v->print_position(&q, text, sizeof text);
        rules_pos r;
        rules_pos_init(&r, v);
        if (v->parse_position(&r, text, NULL, 0) == 0) {
            assert_true(r.hash == q.hash);
            rules_move a[RULES_MAX_MOVES], b[RULES_MAX_MOVES];
            int na = v->legal_moves(&q, a), nb = v->legal_moves(&r, b);
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, sizeof a[0] * (size_t)na);
        }
        /* a move and its unmake there, then back: exactly p again */
        rules_move m = random_move(&q, seed);
        if (m) {
            rules_undo u;
            uint64_t h = q.hash;
            v->make(&q, m, &u);
            v->unmake(&q, m, &u);
            assert_true(q.hash == h);
        }
        v->set_to_move(&q, me);
        assert_memory_equal(&q, p, sizeof q);
    }
}

static void test_set_to_move(void **state)
{
    (void)state;
    playouts(V2, 10, 60, 3, check_set_to_move);
    playouts(V3, 20, 90, 4, check_set_to_move);
}

/* ------------------------------------------------------------------------ */
/* evaluate */

static void test_evaluate_setup(void **state)
{
    (void)state;
    int32_t s[3];
    rules_pos p;
    rules_pos_init(&p, V2);
    V2->evaluate(&p, s);
    assert_int_equal(s[0], s[1]);
    assert_true(s[0] > 1000); /* material counted */
    rules_pos_init(&p, V3);
    V3->evaluate(&p, s);
    assert_int_equal(s[0], s[1]);
    assert_int_equal(s[1], s[2]);
    /* the same in the others' turns */
    V3->set_to_move(&p, 1);
    int32_t t[3];
    V3->evaluate(&p, t);
    assert_memory_equal(s, t, sizeof s);
}

static void test_evaluate_terms(void **state)
{
    (void)state;
    int32_t s[3], t[3];
    rules_pos p;
    /* a beetle up */
    load(V2, &p, "bQg1 bBc4 bAc1 rQg13 rAc9", 'b', "-");
    V2->evaluate(&p, s);
    assert_true(s[0] > s[1] + 300);
    /* a queen nearer the centre stands better */
    load(V2, &p, "bQg3 rQg13", 'r', "-");
    V2->evaluate(&p, s);
    assert_true(s[0] > s[1]);
    /* next to an open centre with the move: nearly won */
    load(V2, &p, "bQg6 rQg13", 'b', "-");
    V2->evaluate(&p, s);
    load(V2, &p, "bQg6 rQg13", 'r', "-");
    V2->evaluate(&p, t);
    assert_true(s[0] - s[1] > t[0] - t[1]);
    assert_true(s[0] - s[1] > 1000);
    /* in check, worse than not */
    load(V3, &p, "bQg1 rQa7 rBg10 gQn7", 'b', "-");
    V3->evaluate(&p, s);
    load(V3, &p, "bQg1 rQa7 rBf10 gQn7", 'b', "-");
    V3->evaluate(&p, t);
    assert_true(s[0] < t[0]);
    /* ant3: a player without its queen can no longer win: far below the
     * others, who stand better for it; a player who left is left out */
    load(V3, &p, "bQg1 bAc1 rQa7 gQn7", 'b', "-");
    V3->evaluate(&p, s);
    assert_true(s[0] > INT32_MIN && s[1] > INT32_MIN && s[2] > INT32_MIN);
    load(V3, &p, "bQg1 bAc1 rAa3 gQn7", 'b', "-");
    V3->evaluate(&p, t);
    assert_true(t[1] > INT32_MIN && t[1] < t[0] - 5000 && t[1] < t[2] - 5000);
    assert_true(2 * t[0] - t[1] - t[2] > 2 * s[0] - s[1] - s[2] + 5000);
    load(V3, &p, "bQg1 bAc1 rQa7 gQn7", 'b', "r");
    V3->evaluate(&p, t);
    assert_int_equal(t[1], INT32_MIN);
    assert_true(t[0] > INT32_MIN && t[2] > INT32_MIN);
}

/* Evaluations per second from the set-up and a middle game position:
 * printed, checked only to be sane (it is a unit test under sanitizers). */
static void test_evaluate_speed(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V3);
    int32_t s[3];
    int64_t sum = 0;
    for (int i = 0; i < 20000; i++) {
        V3->evaluate(&p, s);
        sum += s[i % 3];
    }
    assert_true(sum != 0);
}

/* ------------------------------------------------------------------------ */
/* The search finds a win in one. */

static search_ctx *S;

static void expect_win(const rules_variant *v, const char *list, char tomove, int depth)
{
    rules_pos p;
    load(v, &p, list, tomove, "-");
    search_limits lim = {.depth = depth, .multi = SEARCH_MULTI_PARANOID};
    search_report r;
    search_clear(S);
    assert_int_equal(search_run(S, &p, NULL, 0, &lim, NULL, NULL, &r), 0);
    assert_true(r.best != 0);
    assert_true(r.score >= SEARCH_WIN_BOUND);
    /* Found at once: in a few nodes (254 at most here), counted, not timed
     * (wall time depends on the machine's load). */
    assert_true(r.nodes < 2000);
    /* the move wins at once */
    rules_undo u;
    rules_move m[RULES_MAX_MOVES];
    rules_result res;
    int me = p.to_move;
    v->make(&p, r.best, &u);
    v->status(&p, v->legal_moves(&p, m), &res);
    assert_true(res.over);
    assert_int_equal(res.winner, me);
}

static void test_search_wins_in_one(void **state)
{
    (void)state;
    S = search_new(1 << 20);
    assert_non_null(S);
    /* ant2: the centre, among pieces; a checkmate (beetle to g4, as in
     * test_antchess.c) */
    expect_win(V2, "bQg6 bAf4 bBc4 bLh3 rQg13 rAg9 rBk5 rGi10 rWd10", 'b', 2);
    expect_win(V2, "bQg6 bAf4 bBc4 bLh3 rQg13 rAg9 rBk5 rGi10 rWd10", 'b', 3);
    expect_win(V2, "bQg1 bBe2 bGf10 bGh10 rQg13 rAa4", 'b', 2);
    expect_win(V2, "bQg1 bBe2 bGf10 bGh10 rQg13 rAa4", 'b', 3);
    /* red to move reaches the centre */
    expect_win(V2, "bQg1 bAf4 rQh7 rAg9 rLh10", 'r', 3);
    /* ant3: the centre; the last queen (green's is gone, black's beetle
     * takes red's); a worm takes the last rival queen */
    expect_win(V3, "bQg6 bAf4 rQa7 rBd8 gQn7 gBk8", 'b', 2);
    expect_win(V3, "bQg6 bAf4 rQa7 rBd8 gQn7 gBk8", 'b', 3);
    expect_win(V3, "bQg1 bBg5 rQg9 rAa3 gAn3", 'b', 3);
    expect_win(V3, "bAc1 rQa7 rWn1 gQn4 gAi5", 'r', 3);
    search_free(S);
}

/* ant3: taking a rival's queen (not yet the last one) is worth more than
 * a beetle, whichever three-player method searches. (The green ant on i7
 * shuts the row g7-n7: a beetle on g7 would fork both queens, which
 * best-reply search, where one opponent replies, values as highly.) */
static void test_search_takes_queen(void **state)
{
    (void)state;
    S = search_new(1 << 20);
    assert_non_null(S);
    rules_pos p;
    load(V3, &p, "bQg1 bBg5 bGc4 rQg9 rAa3 gQn7 gBc6 gAi5 gAi7", 'b', "-");
    rules_move want;
    assert_int_equal(V3->parse_move(&p, "g5-g9", &want, NULL, 0), 0);
    for (int multi = SEARCH_MULTI_PARANOID; multi <= SEARCH_MULTI_MAXN; multi++) {
        search_limits lim = {.depth = 2, .multi = (search_multi)multi};
        search_report r;
        search_clear(S);
        assert_int_equal(search_run(S, &p, NULL, 0, &lim, NULL, NULL, &r), 0);
        if (r.best != want) {
            char t[RULES_MOVE_TEXT];
            V3->print_move(&p, r.best, t, sizeof t);
            fail_msg("%s plays %s", search_multi_name((search_multi)multi), t);
        }
    }
    search_free(S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_capture_random),  cmocka_unit_test(test_is_capture_kinds),
        cmocka_unit_test(test_set_to_move),        cmocka_unit_test(test_evaluate_setup),
        cmocka_unit_test(test_evaluate_terms),     cmocka_unit_test(test_evaluate_speed),
        cmocka_unit_test(test_search_wins_in_one), cmocka_unit_test(test_search_takes_queen),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
