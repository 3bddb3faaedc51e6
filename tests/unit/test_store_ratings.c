/*
 * test_store_ratings.c - ratings in the store: a rated two-player result
 * gives both players rating_after's values, written with the result and
 * kept in memory; a three-player result rating_game_update's from the finishing
 * order (the first to leave last); aborted and unrated games change
 * nothing; the deviation ages with the store's clock between games; the
 * ratings are read back from the disk after a reopen; the leaderboard
 * leaves out provisional players.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_sync.h"
#include "pg_fixture.h"
#include "rating.h"
#include "store.h"

static uv_loop_t loop;
static store *s;
static char dir[] = "/tmp/test_store_ratings.XXXXXX";
static char db[300];
static int64_t clock_ms = 1767225600000; /* 2026-01-01 */
static int64_t accts[4];

static int64_t now_fn(void *arg)
{
    (void)arg;
    return clock_ms;
}

static void open_store(void)
{
    store_options o = {.migrations_dir = "migrations", .now_ms = now_fn};
    char why[256] = "";
    assert_int_equal(store_open(&s, &loop, db, &o, why, sizeof why), 0);
}

static void close_store(void)
{
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    s = NULL;
}

static int group_setup(void **state)
{
    (void)state;
    if (mkdtemp(dir) == NULL)
        return -1;
    char path[96];
    snprintf(path, sizeof path, "%s/r.db", dir);
    pg_fixture_target(db, sizeof db, path);
    uv_loop_init(&loop);
    open_store();
    static const char *const names[] = {"ann", "bob", "cid", "dee"};
    for (int i = 0; i < 4; i++)
        if (sync_account_insert(s, names[i], "h", &accts[i]) != 0)
            return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    close_store();
    uv_loop_close(&loop);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A game between seats (account indexes), created and finished at once. */
static int64_t play(const char *variant, bool rated, const int *seats, int n,
                    const int *leave_order, int nleaves, const rules_result *r)
{
    store_new_game ng = {.variant = variant,
                         .kind = STORE_LIVE,
                         .rated = rated,
                         .nplayers = n,
                         .tc = {180000, 0, 0}};
    for (int i = 0; i < n; i++) {
        ng.players[i].account = accts[seats[i]];
        snprintf(ng.players[i].name, sizeof ng.players[i].name, "p%d", seats[i]);
    }
    int64_t id;
    char why[128];
    assert_int_equal(store_game_create(s, &ng, &id, NULL, NULL, why, sizeof why), 0);
    for (int k = 0; k < nleaves; k++, clock_ms += 1000)
        assert_int_equal(store_game_leave(s, id, leave_order[k], RULES_REASON_RESIGNATION,
                                          (leave_order[k] + 1) % n, NULL, NULL),
                         0);
    assert_int_equal(store_game_finish(s, id, r, NULL, NULL), 0);
    assert_int_equal(store_flush(s), 0);
    return id;
}

static store_rating get(int who, const char *variant)
{
    store_rating r;
    assert_int_equal(store_rating_get(s, accts[who], variant, RATING_BLITZ, &r), 0);
    return r;
}

static void test_two_players(void **state)
{
    (void)state;
    store_rating none;
    int seats[2] = {0, 1};
    /* Aborted, then unrated: nothing. */
    rules_result ab = {.over = true, .winner = -1, .reason = RULES_REASON_ABORTED};
    play("ultima", true, seats, 2, NULL, 0, &ab);
    rules_result win = {.over = true, .winner = 0, .reason = RULES_REASON_RESIGNATION};
    win.outcome[0] = RULES_OUTCOME_WIN;
    win.outcome[1] = RULES_OUTCOME_LOSS;
    play("ultima", false, seats, 2, NULL, 0, &win);
    assert_int_equal(store_rating_get(s, accts[0], "ultima", RATING_BLITZ, &none),
                     STORE_ENOT_FOUND);

    /* Rated: rating_after from new ratings. */
    play("ultima", true, seats, 2, NULL, 0, &win);
    rating_game g0 = {RATING_DEFAULT, RATING_RD_DEFAULT, 1},
                g1 = {RATING_DEFAULT, RATING_RD_DEFAULT, 0};
    rating_glicko w0 = rating_after(rating_new(), 0, clock_ms, &g0, 1);
    rating_glicko w1 = rating_after(rating_new(), 0, clock_ms, &g1, 1);
    store_rating r0 = get(0, "ultima"), r1 = get(1, "ultima");
    assert_true(r0.rating == w0.r && r0.rd == w0.rd && r0.vol == w0.vol);
    assert_true(r1.rating == w1.r && r1.rd == w1.rd);
    assert_int_equal(r0.games, 1);
    assert_true(r0.last_ms == clock_ms);

    /* Ten days later: the deviation aged first. */
    int64_t t0 = clock_ms;
    clock_ms += 10LL * 86400000;
    play("ultima", true, seats, 2, NULL, 0, &win);
    rating_game h0 = {w1.r, w1.rd, 1};
    rating_glicko x0 = rating_after(w0, t0, clock_ms, &h0, 1);
    store_rating q0 = get(0, "ultima");
    assert_true(fabs(q0.rating - x0.r) < 1e-9 && fabs(q0.rd - x0.rd) < 1e-9);
    assert_int_equal(q0.games, 2);
    /* Another variant is another rating. */
    assert_int_equal(store_rating_get(s, accts[0], "rollerball", RATING_BLITZ, &none),
                     STORE_ENOT_FOUND);

    /* Read back from the disk. */
    close_store();
    open_store();
    store_rating z0 = get(0, "ultima");
    assert_true(z0.rating == q0.rating && z0.rd == q0.rd && z0.games == 2);
}

static void test_three_players(void **state)
{
    (void)state;
    /* Seat 2 leaves first, then seat 0: seat 1 wins. */
    int seats[3] = {1, 2, 3}, order[2] = {2, 0};
    rules_result r = {.over = true, .winner = 1, .reason = RULES_REASON_RESIGNATION};
    r.outcome[0] = RULES_OUTCOME_LOSS;
    r.outcome[1] = RULES_OUTCOME_WIN;
    r.outcome[2] = RULES_OUTCOME_LOSS;
    play("yalta", true, seats, 3, order, 2, &r);
    rating_glicko p[3] = {rating_first(3), rating_first(3), rating_first(3)};
    int64_t last[3] = {0, 0, 0};
    int rank[3] = {1, 0, 2};
    rating_game_update(p, last, clock_ms, rank, 3);
    for (int i = 0; i < 3; i++) {
        store_rating g = get(seats[i], "yalta");
        assert_true(fabs(g.rating - p[i].r) < 1e-9 && fabs(g.rd - p[i].rd) < 1e-9);
    }
    assert_true(get(2, "yalta").rating > get(1, "yalta").rating);
    assert_true(get(1, "yalta").rating > get(3, "yalta").rating);
}

static void board_cb(void *arg, int status, const record_board *b)
{
    int *n = arg;
    *n = status < 0 ? status : b->n;
}

static void test_leaderboard(void **state)
{
    (void)state;
    int n = -1000;
    assert_int_equal(store_leaderboard_get(s, "ultima", board_cb, &n), 0);
    while (n == -1000)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(n, 0); /* everyone is provisional */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_players),
        cmocka_unit_test(test_three_players),
        cmocka_unit_test(test_leaderboard),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
