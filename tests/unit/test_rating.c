/*
 * test_rating.c - Glicko-2: the worked example of Glickman's paper, the
 * deviation growing with idle time (capped), lichess's clamps, paces,
 * pairwise scores from a finishing order, places from who lost and when
 * they left, and a game's whole update (two players and three).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "rating.h"

static void test_paper_example(void **state)
{
    (void)state;
    rating_glicko p = {1500, 200, 0.06};
    rating_game g[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
    rating_glicko q = rating_period(p, g, 3, 0.5);
    /* The paper prints 1464.06, 151.52, 0.05999 (rounded intermediates);
     * double precision gives 1464.0507, 151.5165, 0.059996. */
    assert_true(fabs(q.r - 1464.06) < 0.02);
    assert_true(fabs(q.rd - 151.52) < 0.01);
    assert_true(fabs(q.vol - 0.05999) < 1e-5);
}

/* Lichess's own test values (scalachess, GlickoCalculatorTest: a game
 * rated with skipDeviationIncrease, no colour advantage, tau 0.75): two
 * players, white's result 1, 0.5 or 0; rating and deviation within 0.005,
 * volatility as closely as lichess checks it. None has played before, so
 * no idle time ages a deviation. */
static void test_lichess_vectors(void **state)
{
    (void)state;
    static const struct {
        rating_glicko w, b;
        double score; /* white's */
        rating_glicko want_w, want_b;
        double vol_within;
    } cases[] = {
        {{1500, 350, 0.06},
         {1500, 350, 0.06},
         1,
         {1662.21, 290.23, 0.0599993},
         {1337.79, 290.23, 0.0599993},
         1e-7},
        {{1500, 350, 0.06},
         {1500, 350, 0.06},
         0,
         {1337.79, 290.23, 0.0599993},
         {1662.21, 290.23, 0.0599993},
         1e-7},
        {{1500, 350, 0.06},
         {1500, 350, 0.06},
         0.5,
         {1500, 290.23, 0.0599977},
         {1500, 290.23, 0.0599977},
         1e-7},
        {{1400, 79, 0.06},
         {1550, 110, 0.065},
         1,
         {1422.63, 77.50, 0.06},
         {1506.32, 105.87, 0.065},
         1e-5},
        {{1400, 79, 0.06},
         {1550, 110, 0.065},
         0,
         {1389.99, 77.50, 0.06},
         {1568.90, 105.87, 0.065},
         1e-5},
        {{1400, 79, 0.06},
         {1550, 110, 0.065},
         0.5,
         {1406.31, 77.50, 0.06},
         {1537.61, 105.87, 0.065},
         1e-5},
        {{1200, 60, 0.053},
         {1850, 200, 0.062},
         1,
         {1216.73, 59.90, 0.053013},
         {1635.99, 196.99, 0.062028},
         1e-6},
        {{1200, 60, 0.053},
         {1850, 200, 0.062},
         0,
         {1199.29, 59.90, 0.052999},
         {1855.42, 196.99, 0.061999},
         1e-6},
        {{1200, 60, 0.053},
         {1850, 200, 0.062},
         0.5,
         {1208.01, 59.90056, 0.053002},
         {1745.71, 196.98729, 0.062006},
         1e-6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rating_game gw = {cases[i].b.r, cases[i].b.rd, cases[i].score};
        rating_game gb = {cases[i].w.r, cases[i].w.rd, 1 - cases[i].score};
        rating_glicko w = rating_after(cases[i].w, 0, 1000, &gw, 1);
        rating_glicko b = rating_after(cases[i].b, 0, 1000, &gb, 1);
        if (fabs(w.r - cases[i].want_w.r) > 0.005 || fabs(w.rd - cases[i].want_w.rd) > 0.005 ||
            fabs(w.vol - cases[i].want_w.vol) > cases[i].vol_within ||
            fabs(b.r - cases[i].want_b.r) > 0.005 || fabs(b.rd - cases[i].want_b.rd) > 0.005 ||
            fabs(b.vol - cases[i].want_b.vol) > cases[i].vol_within)
            fail_msg("case %zu: white %.4f/%.4f/%.7f black %.4f/%.4f/%.7f", i, w.r, w.rd, w.vol,
                     b.r, b.rd, b.vol);
    }
    /* Lichess's new players (1500/500/0.09), white wins: 1741 and 1258
     * within 1, both deviations 396 within 1 (its earlier test). */
    rating_glicko n = rating_new();
    rating_game beat = {n.r, n.rd, 1}, lost = {n.r, n.rd, 0};
    rating_glicko w = rating_after(n, 0, 1000, &beat, 1), b = rating_after(n, 0, 1000, &lost, 1);
    assert_true(fabs(w.r - 1741) <= 1 && fabs(b.r - 1258) <= 1);
    assert_true(fabs(w.rd - 396) <= 1 && fabs(b.rd - 396) <= 1);
}

static void test_no_games_grows_rd(void **state)
{
    (void)state;
    rating_glicko p = {1500, 200, 0.06};
    rating_glicko q = rating_period(p, NULL, 0, 0.5);
    assert_true(q.r == 1500);
    assert_true(q.rd > 200 && q.rd < 201);
    /* Idle time: more periods, more deviation, never past the cap. */
    double a = rating_rd_aged(60, 0.09, 1), b = rating_rd_aged(60, 0.09, 100);
    assert_true(a > 60 && b > a);
    assert_true(rating_rd_aged(60, 0.09, 1e9) == RATING_RD_MAX);
    assert_true(rating_rd_aged(60, 0.09, 0) == 60);
}

static void test_after_one_game(void **state)
{
    (void)state;
    rating_glicko a = rating_new(), b = rating_new();
    rating_game ga = {b.r, b.rd, 1}, gb = {a.r, a.rd, 0};
    rating_glicko a2 = rating_after(a, 0, 1000, &ga, 1), b2 = rating_after(b, 0, 1000, &gb, 1);
    assert_true(a2.r > 1500 && b2.r < 1500);
    assert_true(fabs((a2.r - 1500) - (1500 - b2.r)) < 1e-9);
    assert_true(a2.rd < 500 && a2.rd >= RATING_RD_MIN);
    assert_true(rating_provisional(a2.rd));
    /* Many games against a steady opponent: no longer provisional. */
    rating_glicko c = rating_new();
    for (int i = 0; i < 2000; i++) {
        rating_game g = {1500, 60, i % 2 ? 1 : 0};
        c = rating_after(c, i * 1000, (i + 1) * 1000, &g, 1);
    }
    assert_true(c.rd >= RATING_RD_MIN && c.rd < RATING_PROVISIONAL_RD);
    assert_false(rating_provisional(c.rd));
    /* A year away and the deviation is back up. */
    rating_game g = {1500, 60, 1};
    rating_glicko d = rating_after(c, 1000, 1000 + 365LL * 86400000, &g, 1);
    assert_true(d.rd > c.rd + 50);
}

static void test_paces(void **state)
{
    (void)state;
    assert_int_equal(rating_pace_of(false, 60000, 0), RATING_BULLET);
    assert_int_equal(rating_pace_of(false, 120000, 1000), RATING_BULLET); /* 160 s */
    assert_int_equal(rating_pace_of(false, 180000, 0), RATING_BLITZ);
    assert_int_equal(rating_pace_of(false, 300000, 3000), RATING_BLITZ); /* 420 s */
    assert_int_equal(rating_pace_of(false, 600000, 0), RATING_RAPID);
    assert_int_equal(rating_pace_of(false, 900000, 15000), RATING_CLASSICAL); /* 1500 s */
    assert_int_equal(rating_pace_of(true, 0, 0), RATING_CORR);
    assert_string_equal(rating_pace_name(RATING_RAPID), "rapid");
    assert_int_equal(rating_pace_parse("correspondence"), RATING_CORR);
    assert_int_equal(rating_pace_parse("nope"), -1);
}

static void test_pairwise(void **state)
{
    (void)state;
    double s[3][RATING_MAX_OPPONENTS];
    int rank[3] = {1, 0, 1};
    rating_pairwise(rank, 3, s);
    assert_true(s[1][0] == 1 && s[1][2] == 1);
    assert_true(s[0][1] == 0 && s[0][2] == 0.5 && s[2][0] == 0.5);
}

static void test_ffa(void **state)
{
    (void)state;
    rating_glicko p[3] = {rating_ffa_new(), rating_ffa_new(), rating_ffa_new()};
    int64_t last[3] = {0, 0, 0};
    int rank[3] = {2, 0, 1};
    rating_ffa(p, last, 1000, rank, 3);
    /* Equal players: the winner gains what the last loses, the middle
     * stays; every deviation shrinks. */
    assert_true(p[1].r > 1500 && p[0].r < 1500);
    assert_true(fabs(p[2].r - 1500) < 1e-9);
    assert_true(fabs((p[1].r - 1500) + (p[0].r - 1500)) < 1e-9);
    for (int i = 0; i < 3; i++)
        assert_true(p[i].rd < rating_ffa_new().rd);
    /* A draw between equals changes no rating. */
    rating_glicko q[3] = {rating_ffa_new(), rating_ffa_new(), rating_ffa_new()};
    int tie[3] = {0, 0, 0};
    rating_ffa(q, last, 1000, tie, 3);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(q[i].r - 1500) < 1e-9);
}

static void test_places(void **state)
{
    (void)state;
    const int64_t SEATED = INT64_MAX;
    int rank[3];
    /* A winner first; the loser still seated above the one who left. */
    bool lost[3] = {false, true, true};
    int64_t ply[3] = {SEATED, SEATED, 7}, ms[3] = {SEATED, SEATED, 5000};
    rating_places(lost, ply, ms, 3, rank);
    assert_int_equal(rank[0], 0);
    assert_int_equal(rank[1], 1);
    assert_int_equal(rank[2], 2);
    /* Two leavers: the later (a later move, or the same move later) above. */
    int64_t ply2[3] = {SEATED, 9, 9}, ms2[3] = {SEATED, 4000, 6000};
    rating_places(lost, ply2, ms2, 3, rank);
    assert_int_equal(rank[2], 1);
    assert_int_equal(rank[1], 2);
    /* The same move and millisecond: level. */
    int64_t ms3[3] = {SEATED, 6000, 6000};
    rating_places(lost, ply2, ms3, 3, rank);
    assert_int_equal(rank[1], 1);
    assert_int_equal(rank[2], 1);
    /* A draw: nobody lost, all first. */
    bool none[2] = {false, false};
    rating_places(none, ply, ms, 2, rank);
    assert_int_equal(rank[0], 0);
    assert_int_equal(rank[1], 0);
}

static void test_game_update(void **state)
{
    (void)state;
    int64_t now = 100 * 86400000LL;
    /* Two players: each side's Glicko-2 step from the other's rating before. */
    rating_glicko two[2] = {{1600, 80, 0.06}, {1500, 120, 0.06}};
    int64_t last[2] = {now - 86400000LL, 0};
    int rank[2] = {1, 0};
    rating_game g0 = {1500, 120, 0}, g1 = {1600, 80, 1};
    rating_glicko want0 = rating_after(two[0], last[0], now, &g0, 1);
    rating_glicko want1 = rating_after(two[1], last[1], now, &g1, 1);
    rating_game_update(two, last, now, rank, 2);
    assert_true(memcmp(&two[0], &want0, sizeof want0) == 0);
    assert_true(memcmp(&two[1], &want1, sizeof want1) == 0);
    assert_true(two[0].r < 1600 && two[1].r > 1500);
    /* Three: pairwise Glicko-2, each player's period holding a game
     * against each of the others scored by place, all from the ratings
     * before; the winner up, the last down. */
    rating_glicko three[3] = {{1500, 500, 0.09}, {1620, 90, 0.06}, {1480, 200, 0.07}}, want[3];
    int64_t last3[3] = {0, now - 3 * 86400000LL, now - 86400000LL};
    int rank3[3] = {2, 0, 1};
    rating_game p0[2] = {{1620, 90, 0}, {1480, 200, 0}};
    rating_game p1[2] = {{1500, 500, 1}, {1480, 200, 1}};
    rating_game p2[2] = {{1500, 500, 1}, {1620, 90, 0}};
    want[0] = rating_after(three[0], last3[0], now, p0, 2);
    want[1] = rating_after(three[1], last3[1], now, p1, 2);
    want[2] = rating_after(three[2], last3[2], now, p2, 2);
    rating_game_update(three, last3, now, rank3, 3);
    assert_true(memcmp(three, want, sizeof want) == 0);
    assert_true(three[1].r > 1620 && three[0].r < 1500);
    /* A first rating: Glicko-2's, whatever the number of players. */
    assert_true(rating_first(2).rd == rating_new().rd);
    assert_true(rating_first(3).rd == rating_new().rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_lichess_vectors),
        cmocka_unit_test(test_no_games_grows_rd),
        cmocka_unit_test(test_after_one_game),
        cmocka_unit_test(test_paces),
        cmocka_unit_test(test_pairwise),
        cmocka_unit_test(test_ffa),
        cmocka_unit_test(test_places),
        cmocka_unit_test(test_game_update),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
