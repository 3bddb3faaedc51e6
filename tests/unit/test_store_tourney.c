/*
 * test_store_tourney.c - tournaments on a real SQLite file (migration
 * 0008): creation with an invitation list, entrants put and removed, the
 * start with its games, a result (queued, committed by the writer), a
 * withdrawal, and all of it loaded back
 * after the store is closed and opened again. Every write is a queued
 * call answered through its callback (store_sync.h checks it is not
 * answered before the loop runs); a start that fails (a statement the
 * database refuses) answers STORE_EDB and leaves nothing on disk, not even
 * the game created in its batch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_sync.h"
#include "pg_fixture.h"
#include "store_tourney.h"

static uv_loop_t loop;
static char dir[] = "/tmp/test_store_tourney.XXXXXX";
static char db[300];

typedef struct seen {
    int ntourneys, nentrants, ngames;
    store_tourney t[4];
    store_entrant e[16];
    int64_t e_of[16];
    store_tourney_game g[16];
} seen;

static void on_t(void *arg, const store_tourney *t)
{
    seen *s = arg;
    s->t[s->ntourneys++] = *t;
}

static void on_e(void *arg, int64_t tourney, const store_entrant *e)
{
    seen *s = arg;
    s->e_of[s->nentrants] = tourney;
    s->e[s->nentrants++] = *e;
}

static void on_g(void *arg, int64_t tourney, const store_tourney_game *g)
{
    seen *s = arg;
    (void)tourney;
    s->g[s->ngames++] = *g;
}

static void on_written(void *arg, int status)
{
    *(int *)arg = status;
}

static void test_round_trip(void **state)
{
    (void)state;
    store *s;
    char why[200];
    assert_int_equal(store_open(&s, &loop, db, NULL, why, sizeof why), 0);
    int64_t acct[4];
    const char *names[] = {"dora", "ed", "flo", "gus"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sync_account_insert(s, names[i], "x", &acct[i]), 0);
    store_tourney t = {.director = acct[0],
                       .size = 3,
                       .twice = true,
                       .tc = {3 * STORE_DAY_MS, 0, 0},
                       .invite_only = true};
    snprintf(t.name, sizeof t.name, "Postal cup");
    snprintf(t.variant, sizeof t.variant, "ultima");
    int64_t inv[] = {acct[1], acct[2]};
    assert_int_equal(sync_tourney_create(s, &t, inv, 2), 0);
    assert_true(t.id > 0);
    assert_int_equal(t.state, STORE_TOURNEY_OPEN);
    store_entrant e = {.account = acct[1], .status = STORE_ENTRANT_JOINED, .idx = -1, .at_ms = 5};
    assert_int_equal(sync_tourney_entrant_put(s, t.id, &e), 0);
    e = (store_entrant){.account = acct[3], .status = STORE_ENTRANT_JOINED, .idx = -1, .at_ms = 6};
    assert_int_equal(sync_tourney_entrant_put(s, t.id, &e), 0);
    e = (store_entrant){.account = acct[0], .status = STORE_ENTRANT_JOINED, .idx = -1, .at_ms = 7};
    assert_int_equal(sync_tourney_entrant_put(s, t.id, &e), 0);
    assert_int_equal(sync_tourney_entrant_del(s, t.id, acct[2]), 0); /* invitation withdrawn */
    int64_t order[] = {acct[1], acct[3], acct[0]};
    store_tourney_game g[] = {{101, 1, {0, 1, -1}, false, {0}}, {102, 2, {2, 0, -1}, false, {0}}};
    assert_int_equal(sync_tourney_start(s, t.id, 1000, order, 3, g, 2), 0);
    int rank[] = {1, 0};
    int written = 1;
    assert_int_equal(store_tourney_result(s, 102, rank, 2, on_written, &written), 0);
    while (written == 1) /* queued: the writer commits it */
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(written, 0);
    e = (store_entrant){.account = acct[3],
                        .status = STORE_ENTRANT_WITHDRAWN,
                        .idx = 1,
                        .at_ms = 6,
                        .played_at = 0};
    assert_int_equal(sync_tourney_entrant_put(s, t.id, &e), 0);
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);

    assert_int_equal(store_open(&s, &loop, db, NULL, why, sizeof why), 0);
    seen *v = calloc(1, sizeof *v);
    store_tourney_loader l = {on_t, on_e, on_g, v};
    assert_int_equal(store_tourney_load(s, &l), 0);
    assert_int_equal(v->ntourneys, 1);
    assert_string_equal(v->t[0].name, "Postal cup");
    assert_string_equal(v->t[0].director_name, "dora");
    assert_int_equal(v->t[0].state, STORE_TOURNEY_RUNNING);
    assert_true(v->t[0].twice && v->t[0].invite_only && !v->t[0].rated);
    assert_int_equal(v->t[0].tc.base_ms, 3 * STORE_DAY_MS);
    assert_int_equal(v->nentrants, 3);
    assert_string_equal(v->e[0].name, "ed"); /* in order of joining */
    assert_int_equal(v->e[0].idx, 0);
    assert_int_equal(v->e[1].status, STORE_ENTRANT_WITHDRAWN);
    assert_int_equal(v->e[2].idx, 2);
    assert_int_equal(v->ngames, 2);
    assert_false(v->g[0].finished);
    assert_int_equal(v->g[0].player[2], -1);
    assert_true(v->g[1].finished);
    assert_int_equal(v->g[1].rank[0], 1);
    assert_int_equal(v->g[1].rank[1], 0);
    assert_int_equal(sync_tourney_set_state(s, t.id, STORE_TOURNEY_FINISHED, 2000), 0);
    free(v);
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);
}

/* The games' creations and the start share one batch: a start the
 * database refuses (the same game twice) fails through its callback, and
 * neither it nor the game queued before it is on disk; the tournament is
 * still open and can start afterwards. The calls answer STORE_ECLOSED at
 * once after store_close. */
static void test_start_fails(void **state)
{
    (void)state;
    store *s;
    char why[200];
    store_options o = {.retries = STORE_NO_RETRY};
    assert_int_equal(store_open(&s, &loop, db, &o, why, sizeof why), 0);
    int64_t acct[3];
    const char *names[] = {"hal", "ida", "jo"};
    for (int i = 0; i < 3; i++)
        assert_int_equal(sync_account_insert(s, names[i], "x", &acct[i]), 0);
    store_tourney t = {.director = acct[0], .size = 3, .tc = {3 * STORE_DAY_MS, 0, 0}};
    snprintf(t.name, sizeof t.name, "Doomed start");
    snprintf(t.variant, sizeof t.variant, "ultima");
    assert_int_equal(sync_tourney_create(s, &t, NULL, 0), 0);
    for (int i = 0; i < 3; i++) {
        store_entrant e = {
            .account = acct[i], .status = STORE_ENTRANT_JOINED, .idx = -1, .at_ms = 10 + i};
        assert_int_equal(sync_tourney_entrant_put(s, t.id, &e), 0);
    }
    store_new_game ng = {
        .variant = "ultima", .kind = STORE_LIVE, .nplayers = 2, .tc = {60000, 0, 0}};
    snprintf(ng.players[0].name, STORE_NAME_MAX, "hal");
    snprintf(ng.players[1].name, STORE_NAME_MAX, "ida");
    int64_t gid = 0;
    sync_call made = {0};
    assert_int_equal(store_game_create(s, &ng, &gid, sync_done_cb, &made, why, sizeof why), 0);
    store_tourney_game twice[] = {{gid, 1, {0, 1, -1}, false, {0}},
                                  {gid, 1, {1, 2, -1}, false, {0}}};
    assert_int_equal(sync_tourney_start(s, t.id, 3000, acct, 3, twice, 2), STORE_EDB);
    assert_true(made.fired);
    assert_int_equal(made.status, STORE_EDB); /* the same transaction */
    char *json = NULL;
    assert_int_equal(sync_game_json(s, gid, &json), STORE_ENOT_FOUND);
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);

    assert_int_equal(store_open(&s, &loop, db, &o, why, sizeof why), 0);
    seen *v = calloc(1, sizeof *v);
    store_tourney_loader l = {on_t, on_e, on_g, v};
    assert_int_equal(store_tourney_load(s, &l), 0);
    const store_tourney *back = NULL;
    for (int i = 0; i < v->ntourneys; i++)
        if (v->t[i].id == t.id)
            back = &v->t[i];
    assert_non_null(back);
    assert_int_equal(back->state, STORE_TOURNEY_OPEN);
    for (int i = 0; i < v->nentrants; i++)
        if (v->e_of[i] == t.id)
            assert_int_equal(v->e[i].idx, -1);
    int before = v->ngames;
    /* Once refused, the same start with distinct games commits. */
    store_tourney_game ok[] = {{9001, 1, {0, 1, -1}, false, {0}}};
    assert_int_equal(sync_tourney_start(s, t.id, 4000, acct, 3, ok, 1), 0);
    memset(v, 0, sizeof *v);
    assert_int_equal(store_tourney_load(s, &l), 0);
    assert_int_equal(v->ngames, before + 1);
    free(v);
    store_close(s);
    sync_call late = {0};
    assert_int_equal(
        store_tourney_set_state(s, t.id, STORE_TOURNEY_CANCELLED, 5000, sync_done_cb, &late),
        STORE_ECLOSED);
    assert_false(late.fired);
    uv_run(&loop, UV_RUN_DEFAULT);
}

static int group_setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/t.db", dir);
    pg_fixture_target(db, sizeof db, path);
    return uv_loop_init(&loop);
}

static int group_teardown(void **state)
{
    (void)state;
    uv_loop_close(&loop);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip),
                                       cmocka_unit_test(test_start_fails)};
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
