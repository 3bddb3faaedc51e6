/*
 * test_tourney.c - round-robin sections: the schedule of every size
 * (balance checked), points per place, scores and tie-breaks against
 * crosstables computed by hand, withdrawals before and after half.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "tourney.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* Every pair of a two-player schedule meets once (twice: once with each
 * colour), nobody plays twice in a round, whites differ by at most one. */
static void test_schedule_two_players(void **state)
{
    (void)state;
    tourney_pairing p[TOURNEY_MAX_GAMES];
    for (int twice = 0; twice < 2; twice++)
        for (int n = TOURNEY_MIN_PLAYERS; n <= TOURNEY_MAX_PLAYERS; n++) {
            int k = tourney_schedule(n, 2, twice, p, TOURNEY_MAX_GAMES);
            assert_int_equal(k, n * (n - 1) / 2 * (twice ? 2 : 1));
            int colour[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS] = {{0}};
            for (int i = 0; i < k; i++) {
                assert_true(p[i].player[0] != p[i].player[1]);
                colour[p[i].player[0]][p[i].player[1]]++;
                for (int j = 0; j < k; j++)
                    if (j != i && p[j].round == p[i].round)
                        for (int s = 0; s < 2; s++)
                            for (int t = 0; t < 2; t++)
                                assert_true(p[i].player[s] != p[j].player[t]);
            }
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++)
                    if (a != b)
                        assert_int_equal(colour[a][b] + colour[b][a], twice ? 2 : 1);
            if (twice) /* once with each colour */
                for (int a = 0; a < n; a++)
                    for (int b = 0; b < n; b++)
                        if (a != b)
                            assert_int_equal(colour[a][b], 1);
            tourney_balance bal;
            tourney_balance_of(p, k, n, 2, &bal);
            assert_int_equal(bal.games_min, (n - 1) * (twice ? 2 : 1));
            assert_int_equal(bal.games_max, bal.games_min);
            assert_true(bal.seat_max - bal.seat_min <= (twice ? 0 : 1));
        }
}

/* Three players: same games each, every pair meets, pair counts and seat
 * counts within one of each other; exact where a design exists (n = 3, 7,
 * 9 once; n = 4 twice; n = 5 three times when double). */
static void test_schedule_three_players(void **state)
{
    (void)state;
    tourney_pairing p[TOURNEY_MAX_GAMES];
    for (int twice = 0; twice < 2; twice++)
        for (int n = TOURNEY_MIN_PLAYERS; n <= TOURNEY_MAX_PLAYERS; n++) {
            int k = tourney_schedule(n, 3, twice, p, TOURNEY_MAX_GAMES);
            assert_true(k > 0);
            for (int i = 0; i < k; i++) {
                assert_true(p[i].player[0] != p[i].player[1]);
                assert_true(p[i].player[1] != p[i].player[2]);
                assert_true(p[i].player[0] != p[i].player[2]);
            }
            tourney_balance b;
            tourney_balance_of(p, k, n, 3, &b);
            assert_int_equal(b.games_min, b.games_max);
            assert_int_equal(b.games_min * n, 3 * k);
            assert_true(b.games_min * 2 >= n - 1); /* everyone can be met */
            assert_true(b.meet_min >= 1);
            assert_true(b.meet_max - b.meet_min <= 1);
            assert_true(b.seat_max - b.seat_min <= 1);
            if (!twice && (n == 3 || n == 7 || n == 9))
                assert_int_equal(b.meet_max, 1); /* Steiner triple systems */
            if (!twice && n == 4)
                assert_true(b.meet_min == 2 && b.meet_max == 2);
            if (twice && n == 5)
                assert_true(b.meet_min == 3 && b.meet_max == 3);
            if (b.games_min % 3 == 0)
                assert_int_equal(b.seat_min, b.seat_max);
        }
    assert_int_equal(tourney_schedule(2, 3, false, p, TOURNEY_MAX_GAMES), -1);
    assert_int_equal(tourney_schedule(13, 2, false, p, TOURNEY_MAX_GAMES), -1);
    assert_int_equal(tourney_schedule(5, 4, false, p, TOURNEY_MAX_GAMES), -1);
}

static void test_points(void **state)
{
    (void)state;
    tourney_game g2 = {2, {0, 1}, true, {0, 1}};
    NEAR(tourney_points(&g2, 0), 1);
    NEAR(tourney_points(&g2, 1), 0);
    g2.rank[1] = 0;
    NEAR(tourney_points(&g2, 0), 0.5);
    tourney_game g3 = {3, {0, 1, 2}, true, {1, 0, 2}};
    NEAR(tourney_points(&g3, 1), 1);
    NEAR(tourney_points(&g3, 0), 0.5);
    NEAR(tourney_points(&g3, 2), 0);
    g3 = (tourney_game){3, {0, 1, 2}, true, {0, 0, 0}};
    NEAR(tourney_points(&g3, 2), 0.5);
    g3 = (tourney_game){3, {0, 1, 2}, true, {0, 1, 1}};
    NEAR(tourney_points(&g3, 1), 0.25);
    g3 = (tourney_game){3, {0, 1, 2}, true, {0, 0, 2}};
    NEAR(tourney_points(&g3, 0), 0.75);
    g3.finished = false;
    NEAR(tourney_points(&g3, 0), 0);
}

/* Four players, single round robin, by hand:
 *        A    B    C    D   score  SB
 *   A    .    1    ½    1   2.5    1.5 + 0.25 + 1.5 = 3.25
 *   B    0    .    1    ½   1.5    0.5 + 0.75       = 1.25
 *   C    ½    0    .    0   0.5    1.25
 *   D    0    ½    1    .   1.5    0.75 + 0.5       = 1.25
 * B and D are level on everything (one win each): both second. */
static const tourney_game four[] = {
    {2, {0, 1}, true, {0, 1}}, {2, {2, 0}, true, {0, 0}}, {2, {0, 3}, true, {0, 1}},
    {2, {1, 2}, true, {0, 1}}, {2, {3, 1}, true, {0, 0}}, {2, {2, 3}, true, {1, 0}},
};

static void test_crosstable_two_players(void **state)
{
    (void)state;
    tourney_standing st[4];
    double cross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    int ncross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    tourney_standings(four, 6, 4, NULL, NULL, st, cross, ncross);
    NEAR(st[0].score, 2.5);
    NEAR(st[1].score, 1.5);
    NEAR(st[2].score, 0.5);
    NEAR(st[3].score, 1.5);
    NEAR(st[0].tiebreak, 3.25);
    NEAR(st[1].tiebreak, 1.25);
    NEAR(st[2].tiebreak, 1.25);
    NEAR(st[3].tiebreak, 1.25);
    assert_int_equal(st[0].place, 1);
    assert_int_equal(st[1].place, 2);
    assert_int_equal(st[3].place, 2);
    assert_int_equal(st[2].place, 4);
    NEAR(cross[0][2], 0.5);
    NEAR(cross[2][0], 0.5);
    NEAR(cross[3][2], 1);
    assert_int_equal(ncross[0][1], 1);
    assert_int_equal(st[0].played, 3);
    assert_int_equal(st[0].wins, 2);
}

/* Three players a game, four entrants (every triple once), by hand:
 *   game (0,1,2) places 1,2,3      points 1, ½, 0
 *   game (0,1,3) all drawn         ½ each
 *   game (0,2,3) 2 first, 0 and 3 level second: ¼ each
 *   game (1,2,3) 3, 2, 1           1 (3), ½ (2), 0 (1)
 * scores 0: 1.75, 1: 1, 2: 1.5, 3: 1.75; pairwise SB
 *   0: 1*1 + 1*1.5 + ½*1 + ½*1.75 + 0 + ½*1.75 = 4.75
 *   3: ½*1.75 + ½*1 + ½*1.75 + 0 + 1*1 + 1*1.5 = 4.75 (one win each: both first)
 *   2: 0 + 0 + 1.75 + 1.75 + 1 + 0 = 4.5;  1: 1.5 + 0.875 + 0.875 = 3.25 */
static void test_crosstable_three_players(void **state)
{
    (void)state;
    const tourney_game g[] = {
        {3, {0, 1, 2}, true, {0, 1, 2}},
        {3, {1, 3, 0}, true, {0, 0, 0}},
        {3, {3, 2, 0}, true, {1, 0, 1}},
        {3, {2, 3, 1}, true, {1, 0, 2}},
    };
    tourney_standing st[4];
    double cross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    int ncross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    tourney_standings(g, 4, 4, NULL, NULL, st, cross, ncross);
    NEAR(st[0].score, 1.75);
    NEAR(st[1].score, 1);
    NEAR(st[2].score, 1.5);
    NEAR(st[3].score, 1.75);
    NEAR(st[0].tiebreak, 4.75);
    NEAR(st[3].tiebreak, 4.75);
    NEAR(st[2].tiebreak, 4.5);
    NEAR(st[1].tiebreak, 3.25);
    assert_int_equal(st[0].place, 1);
    assert_int_equal(st[3].place, 1);
    assert_int_equal(st[2].place, 3);
    assert_int_equal(st[1].place, 4);
    NEAR(cross[0][1], 1.5); /* above in game 1, level in game 2 */
    assert_int_equal(ncross[0][1], 2);
    NEAR(cross[2][3], 1);
}

/* D withdraws having finished one of three games (fewer than half): every
 * game with D counts for nobody. Having finished two, nothing is struck
 * (the unfinished one is a real forfeit result in the games). */
static void test_withdrawal(void **state)
{
    (void)state;
    tourney_standing st[4];
    bool withdrawn[4] = {false, false, false, true};
    int played_at[4] = {0, 0, 0, 1};
    assert_true(tourney_struck(four, 6, 3, withdrawn, played_at));
    tourney_standings(four, 6, 4, withdrawn, played_at, st, NULL, NULL);
    assert_true(st[3].struck);
    NEAR(st[0].score, 1.5);
    NEAR(st[1].score, 1);
    NEAR(st[2].score, 0.5);
    NEAR(st[3].score, 0);
    assert_int_equal(st[3].played, 0);
    NEAR(st[0].tiebreak, 1 * 1 + 0.5 * 0.5);
    assert_int_equal(st[0].place, 1);
    assert_int_equal(st[3].place, 4);

    /* Struck last even level on points with another (C would be level
     * with a struck D on 0 if C lost everything). */
    tourney_game lost[6];
    memcpy(lost, four, sizeof lost);
    lost[1].rank[0] = 1; /* C loses to A */
    tourney_standings(lost, 6, 4, withdrawn, played_at, st, NULL, NULL);
    NEAR(st[2].score, 0);
    assert_int_equal(st[2].place, 3);
    assert_int_equal(st[3].place, 4);

    played_at[3] = 2; /* 2 of 3: at least half */
    assert_false(tourney_struck(four, 6, 3, withdrawn, played_at));
    tourney_standings(four, 6, 4, withdrawn, played_at, st, NULL, NULL);
    assert_false(st[3].struck);
    NEAR(st[3].score, 1.5);
    NEAR(st[0].score, 2.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule_two_players),
        cmocka_unit_test(test_schedule_three_players),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_crosstable_two_players),
        cmocka_unit_test(test_crosstable_three_players),
        cmocka_unit_test(test_withdrawal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
