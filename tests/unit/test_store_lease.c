/*
 * test_store_lease.c - node mode (store.h, "Leases"): two stores on one
 * PostgreSQL database as nodes "a" and "b", each on a loop of its own (so
 * that one node's queue can be held while the other commits), sharing a
 * test clock (so that a lease expires when the test says, not when a
 * loaded machine happens to be slow).
 *
 * What it shows: a node's creation holds the new game's lease and another
 * node is refused it; nodes exclude a single server; a node whose renewal
 * stopped refuses its writes once the ttl has passed; another node finds
 * the game expired, takes it with a higher fence, adopts it and plays on;
 * the move the first node had queued before the take-over is answered
 * STORE_ELEASE_LOST and is not in the database; in one batch, a fenced-out
 * move of one game does not stop a good move of another; a node started
 * again loads no game and writes none before it takes its lease; a
 * vacation's deadlines are fenced like moves; nodes on a database a single
 * server wrote number their games past its ids and may take its games
 * (no lease row). Node mode on SQLite is refused.
 *
 * Runs with CHAMELEON_TEST_PG (tests/pg/run.sh); skipped otherwise but for
 * the SQLite refusal.
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

#include "pg_fixture.h"
#include "sql.h"
#include "store.h"

#define T0 ((int64_t)1767225600000) /* 2026-01-01T00:00:00Z */
#define TTL 3000                    /* ms of the test clock */

static int64_t fake_now;
static int64_t clock_fn(void *arg)
{
    (void)arg;
    return fake_now;
}

typedef struct fixture {
    char db[300];
    uv_loop_t la, lb;
    store *a, *b;
} fixture;

static store *open_node(fixture *f, uv_loop_t *loop, const char *node)
{
    store_options o = {
        .migrations_dir = "migrations", .now_ms = clock_fn, .node = node, .lease_ttl_ms = TTL};
    char why[256] = "";
    store *s = NULL;
    if (store_open(&s, loop, f->db, &o, why, sizeof why) != 0)
        fail_msg("store_open %s: %s", node, why);
    return s;
}

static int setup(void **state)
{
    if (!pg_fixture_wanted()) {
        *state = NULL;
        return 0;
    }
    fixture *f = calloc(1, sizeof *f);
    pg_fixture_target(f->db, sizeof f->db, "unused");
    uv_loop_init(&f->la);
    uv_loop_init(&f->lb);
    fake_now = T0;
    f->a = open_node(f, &f->la, "a");
    f->b = open_node(f, &f->lb, "b");
    *state = f;
    return 0;
}

static void close_store(store **s, uv_loop_t *loop)
{
    if (*s) {
        store_close(*s);
        uv_run(loop, UV_RUN_DEFAULT);
        *s = NULL;
    }
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        return 0;
    close_store(&f->a, &f->la);
    close_store(&f->b, &f->lb);
    assert_int_equal(uv_loop_close(&f->la), 0);
    assert_int_equal(uv_loop_close(&f->lb), 0);
    free(f);
    return 0;
}

/* One value of a query on a connection of the test's own (committed data
 * only), -1 if no row. */
static int64_t sql_int(fixture *f, const char *fmt, ...)
{
    char sql[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sql_conn *db = NULL;
    char why[256] = "";
    if (sql_open(&db, f->db, 0, why, sizeof why) != SQL_OK)
        fail_msg("%s: %s", f->db, why);
    sql_stmt *st;
    if (sql_prepare(db, sql, &st) != SQL_OK)
        fail_msg("%s: %s", sql, sql_errmsg(db));
    int64_t v = sql_step(st) == SQL_ROW ? sql_column_i64(st, 0) : -1;
    sql_finalize(st);
    sql_close(db);
    return v;
}

/* ------------------------------------------------------------------------ */
/* Answers, waited for on one node's loop */

typedef struct done_ans {
    bool fired;
    int status;
} done_ans;

static void done_cb(void *arg, int status)
{
    done_ans *a = arg;
    a->fired = true;
    a->status = status;
}

static void wait_done(uv_loop_t *loop, done_ans *a)
{
    while (!a->fired)
        uv_run(loop, UV_RUN_ONCE);
}

typedef struct lease_ans {
    bool fired;
    int status;
    int64_t fence;
    char holder[64];
} lease_ans;

static void lease_cb(void *arg, int status, int64_t fence, const char *holder)
{
    lease_ans *a = arg;
    a->fired = true;
    a->status = status;
    a->fence = fence;
    snprintf(a->holder, sizeof a->holder, "%s", holder ? holder : "");
}

static lease_ans take(store *s, uv_loop_t *loop, int64_t game)
{
    lease_ans a = {0};
    assert_int_equal(store_lease_take(s, game, lease_cb, &a), 0);
    while (!a.fired)
        uv_run(loop, UV_RUN_ONCE);
    return a;
}

typedef struct ids_ans {
    bool fired;
    int status, n;
    int64_t ids[16];
} ids_ans;

static void ids_cb(void *arg, int status, const int64_t *ids, int n)
{
    ids_ans *a = arg;
    a->fired = true;
    a->status = status;
    for (int i = 0; i < n && a->n < 16; i++)
        a->ids[a->n++] = ids[i];
}

static bool expired_has(store *s, uv_loop_t *loop, int64_t game)
{
    ids_ans a = {0};
    assert_int_equal(store_lease_expired(s, ids_cb, &a), 0);
    while (!a.fired)
        uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(a.status, 0);
    for (int i = 0; i < a.n; i++)
        if (a.ids[i] == game)
            return true;
    return false;
}

typedef struct game_ans {
    bool fired;
    int status, nmoves;
} game_ans;

static void game_cb(void *arg, int status, const store_game_info *g)
{
    game_ans *a = arg;
    a->fired = true;
    a->status = status;
    a->nmoves = g ? g->nmoves : -1;
}

static game_ans adopt(store *s, uv_loop_t *loop, int64_t game)
{
    game_ans a = {0};
    assert_int_equal(store_game_adopt(s, game, game_cb, &a), 0);
    while (!a.fired)
        uv_run(loop, UV_RUN_ONCE);
    return a;
}

static int64_t lost_game;
static void lost_cb(void *arg, int64_t game)
{
    (void)arg;
    lost_game = game;
}

/* A new live game of two guests, created by node s, its creation waited
 * for. */
static int64_t create(store *s, uv_loop_t *loop)
{
    store_new_game g = {.variant = "ultima", .kind = STORE_LIVE, .nplayers = 2};
    snprintf(g.players[0].name, STORE_NAME_MAX, "ann");
    snprintf(g.players[1].name, STORE_NAME_MAX, "bob");
    int64_t id = 0;
    char why[160];
    done_ans d = {0};
    if (store_game_create(s, &g, &id, done_cb, &d, why, sizeof why) != 0)
        fail_msg("create: %s", why);
    wait_done(loop, &d);
    assert_int_equal(d.status, 0);
    return id;
}

/* Queue move ply of game on node s (not waited for): its answer in *d. */
static int queue_move(store *s, int64_t game, int ply, const char *text, done_ans *d)
{
    store_move m = {.ply = ply, .player = ply % 2, .next = 1 - ply % 2, .text = text};
    return store_move_append(s, game, &m, done_cb, d);
}

static void play(store *s, uv_loop_t *loop, int64_t game, int ply, const char *text)
{
    done_ans d = {0};
    assert_int_equal(queue_move(s, game, ply, text, &d), 0);
    wait_done(loop, &d);
    assert_int_equal(d.status, 0);
}

/* ------------------------------------------------------------------------ */

static void test_take_over(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        skip();
    store_set_lease_lost_cb(f->a, lost_cb, NULL);
    lost_game = 0;

    /* Nodes share the database; a single server cannot join them. */
    store_options single = {.migrations_dir = "migrations", .now_ms = clock_fn};
    store *third = NULL;
    char why[256] = "";
    assert_int_equal(store_open(&third, &f->lb, f->db, &single, why, sizeof why), STORE_ELOCKED);
    assert_non_null(strstr(why, "--node"));

    /* a creates a game: it holds its lease; b is refused it. */
    int64_t x = create(f->a, &f->la);
    assert_true(store_lease_held(f->a, x));
    assert_false(store_lease_held(f->b, x));
    lease_ans refused = take(f->b, &f->lb, x);
    assert_int_equal(refused.status, STORE_ELEASED);
    assert_string_equal(refused.holder, "a");
    assert_false(expired_has(f->b, &f->lb, x));
    /* b cannot write it either (it has no lease). */
    done_ans nope = {0};
    assert_int_equal(queue_move(f->b, x, 0, "x1", &nope), STORE_ELEASE_LOST);

    /* a's moves commit. */
    play(f->a, &f->la, x, 0, "a1");
    play(f->a, &f->la, x, 1, "a2");
    int64_t fence_a = sql_int(f, "SELECT fence FROM room_leases WHERE game = %lld", (long long)x);
    assert_true(fence_a > 0);

    /* a stops renewing (frozen, or cut from the database) with a move
     * queued that its loop will not send before b takes over. */
    store_lease_pause(f->a, true);
    done_ans raced = {0};
    assert_int_equal(queue_move(f->a, x, 2, "a3", &raced), 0);
    fake_now += TTL + 1000;
    /* A ttl later, a refuses its own next write at once. */
    done_ans late = {0};
    assert_int_equal(queue_move(f->a, x, 3, "a4", &late), STORE_ELEASE_LOST);
    assert_false(store_lease_held(f->a, x));

    /* b finds the game expired, takes it with a higher fence, adopts it
     * (a's queued move is not in the database) and plays on. */
    assert_true(expired_has(f->b, &f->lb, x));
    lease_ans got = take(f->b, &f->lb, x);
    assert_int_equal(got.status, 0);
    assert_true(got.fence > fence_a);
    game_ans g = adopt(f->b, &f->lb, x);
    assert_int_equal(g.status, 0);
    assert_int_equal(g.nmoves, 2);
    play(f->b, &f->lb, x, 2, "b3");
    play(f->b, &f->lb, x, 3, "b4");
    /* Taken again while alive: renewed, the same fence. */
    lease_ans again = take(f->b, &f->lb, x);
    assert_int_equal(again.status, 0);
    assert_int_equal(again.fence, got.fence);

    /* a's loop runs again: its raced move is fenced out, alone refused;
     * the game leaves a's memory. */
    wait_done(&f->la, &raced);
    assert_int_equal(raced.status, STORE_ELEASE_LOST);
    assert_int_equal(lost_game, x);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves WHERE game = %lld", (long long)x), 4);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves WHERE game = %lld AND text LIKE 'a%%'",
                             (long long)x),
                     2);
    assert_int_equal(
        sql_int(f, "SELECT count(*) FROM moves WHERE game = %lld AND text = 'b3'", (long long)x),
        1);

    /* b gives it up; a takes it back: a higher fence again, and a sees
     * b's moves. */
    done_ans rel = {0};
    assert_int_equal(store_lease_release(f->b, x, done_cb, &rel), 0);
    wait_done(&f->lb, &rel);
    assert_int_equal(rel.status, 0);
    assert_false(store_lease_held(f->b, x));
    lease_ans back = take(f->a, &f->la, x);
    assert_int_equal(back.status, 0);
    assert_true(back.fence > got.fence);
    g = adopt(f->a, &f->la, x);
    assert_int_equal(g.status, 0);
    assert_int_equal(g.nmoves, 4);
    play(f->a, &f->la, x, 4, "a5");

    /* a started again: no game loaded, none written before its take;
     * its old lease is expired, so the take gets a new fence. */
    close_store(&f->a, &f->la);
    f->a = open_node(f, &f->la, "a");
    assert_false(store_lease_held(f->a, x));
    done_ans none = {0};
    assert_int_equal(queue_move(f->a, x, 5, "a6", &none), STORE_ELEASE_LOST);
    assert_true(expired_has(f->a, &f->la, x));
    lease_ans fresh = take(f->a, &f->la, x);
    assert_int_equal(fresh.status, 0);
    assert_true(fresh.fence > back.fence);
    assert_int_equal(adopt(f->a, &f->la, x).nmoves, 5);
    play(f->a, &f->la, x, 5, "a6");

    /* A finished game's lease row goes with its result. */
    rules_result r = {.over = true, .winner = 0, .reason = RULES_REASON_RESIGNATION};
    r.outcome[0] = RULES_OUTCOME_WIN;
    r.outcome[1] = RULES_OUTCOME_LOSS;
    done_ans fin = {0};
    assert_int_equal(store_game_finish(f->a, x, &r, done_cb, &fin), 0);
    wait_done(&f->la, &fin);
    assert_int_equal(fin.status, 0);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM room_leases WHERE game = %lld", (long long)x),
                     0);
    assert_false(expired_has(f->b, &f->lb, x));
}

/* One batch of node a: a move of x, whose lease b has taken, and a move of
 * y, still a's: y's commits, x's alone is refused. */
static void test_batch_keeps_good_moves(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        skip();
    int64_t x = create(f->a, &f->la);
    /* From now on a renews nothing (a renewal would move x's end). */
    store_lease_pause(f->a, true);
    fake_now += TTL / 2;
    int64_t y = create(f->a, &f->la); /* its lease ends TTL / 2 later than x's */
    assert_true(y > x);
    done_ans mx = {0}, my = {0};
    assert_int_equal(queue_move(f->a, x, 0, "x1", &mx), 0);
    assert_int_equal(queue_move(f->a, y, 0, "y1", &my), 0);

    fake_now += TTL / 2 + 500; /* x expired, y not */
    assert_true(expired_has(f->b, &f->lb, x));
    assert_false(expired_has(f->b, &f->lb, y));
    assert_int_equal(take(f->b, &f->lb, x).status, 0);
    assert_int_equal(take(f->b, &f->lb, y).status, STORE_ELEASED);

    wait_done(&f->la, &mx);
    wait_done(&f->la, &my);
    assert_int_equal(mx.status, STORE_ELEASE_LOST);
    assert_int_equal(my.status, 0);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves WHERE game = %lld", (long long)x), 0);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves WHERE game = %lld", (long long)y), 1);
    assert_int_equal(sql_int(f, "SELECT nmoves FROM games WHERE id = %lld", (long long)x), 0);
    assert_true(store_lease_held(f->a, y));
    assert_false(store_lease_held(f->a, x));
}

static void nothing_cb(uv_timer_t *t)
{
    (void)t;
}

static void keep_closed(uv_handle_t *h)
{
    *(bool *)h->data = true;
}

/* The renewal keeps a lease alive past its first ttl, and stops keeping
 * it once paused. */
static void test_renewal(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        skip();
    int64_t x = create(f->a, &f->la);
    int64_t before =
        sql_int(f, "SELECT expires_ms FROM room_leases WHERE game = %lld", (long long)x);
    fake_now += TTL / 2;
    /* Wait (on a's loop: its renewal timer ticks every TTL / 3 ms of real
     * time, but holds no reference to the loop: a timer of ours does) for
     * a renewal to commit. */
    uv_timer_t keep;
    uv_timer_init(&f->la, &keep);
    uv_timer_start(&keep, nothing_cb, 50, 50);
    while (sql_int(f, "SELECT expires_ms FROM room_leases WHERE game = %lld", (long long)x) <=
           before)
        uv_run(&f->la, UV_RUN_ONCE);
    bool closed = false;
    keep.data = &closed;
    uv_close((uv_handle_t *)&keep, keep_closed);
    while (!closed) /* before the handle leaves the stack */
        uv_run(&f->la, UV_RUN_ONCE);
    assert_true(sql_int(f, "SELECT heartbeat_ms FROM nodes WHERE name = 'a'") >= T0 + TTL / 2);
    fake_now += TTL / 2 + 100; /* past the first ttl, within the renewed one */
    assert_true(store_lease_held(f->a, x));
    play(f->a, &f->la, x, 0, "a1");
    assert_int_equal(take(f->b, &f->lb, x).status, STORE_ELEASED);
}

static void t_exec(fixture *f, const char *sql)
{
    sql_conn *db = NULL;
    char why[256] = "";
    if (sql_open(&db, f->db, 0, why, sizeof why) != SQL_OK || sql_exec(db, sql) != SQL_OK)
        fail_msg("%s: %s", sql, db ? sql_errmsg(db) : why);
    sql_close(db);
}

typedef struct vac_ans {
    bool fired;
    int status;
} vac_ans;

static void vac_cb(void *arg, int status, int64_t until_ms, int days_left, const char *why)
{
    (void)until_ms;
    (void)days_left;
    (void)why;
    vac_ans *a = arg;
    a->fired = true;
    a->status = status;
}

/* A vacation moves the deadlines of its account's games in a node's
 * memory: written only under the node's fence, like a move. */
static void test_vacation_fenced(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        skip();
    t_exec(f, "INSERT INTO accounts (username, pwhash, created_ms) VALUES ('ann', 'x', 0),"
              " ('bob', 'x', 0)");
    int64_t ann = sql_int(f, "SELECT id FROM accounts WHERE username = 'ann'");
    int64_t bob = sql_int(f, "SELECT id FROM accounts WHERE username = 'bob'");
    store_new_game ng = {.variant = "ultima",
                         .kind = STORE_CORR,
                         .nplayers = 2,
                         .tc = {.base_ms = 3 * (int64_t)STORE_DAY_MS}};
    ng.players[0].account = ann;
    ng.players[1].account = bob;
    snprintf(ng.players[0].name, STORE_NAME_MAX, "ann");
    snprintf(ng.players[1].name, STORE_NAME_MAX, "bob");
    int64_t x = 0, y = 0;
    char why[160];
    done_ans dx = {0}, dy = {0};
    assert_int_equal(store_game_create(f->a, &ng, &x, done_cb, &dx, why, sizeof why), 0);
    wait_done(&f->la, &dx);
    /* From now on a renews nothing (a renewal would move x's end). */
    store_lease_pause(f->a, true);
    fake_now += TTL / 2;
    assert_int_equal(store_game_create(f->a, &ng, &y, done_cb, &dy, why, sizeof why), 0);
    wait_done(&f->la, &dy);
    int64_t dl_x = sql_int(f, "SELECT deadline_ms FROM games WHERE id = %lld", (long long)x);
    int64_t dl_y = sql_int(f, "SELECT deadline_ms FROM games WHERE id = %lld", (long long)y);

    /* x expires and b takes it; y is still a's. */
    fake_now += TTL / 2 + 500;
    assert_int_equal(take(f->b, &f->lb, x).status, 0);

    /* ann (to move in both) starts a vacation on a: y's deadline moves,
     * x's stays as b has it. */
    vac_ans v = {0};
    assert_int_equal(store_vacation_start(f->a, ann, 2, vac_cb, &v), 0);
    while (!v.fired)
        uv_run(&f->la, UV_RUN_ONCE);
    assert_int_equal(v.status, 0);
    assert_int_equal(sql_int(f, "SELECT deadline_ms FROM games WHERE id = %lld", (long long)x),
                     dl_x);
    assert_true(sql_int(f, "SELECT deadline_ms FROM games WHERE id = %lld", (long long)y) > dl_y);
    assert_false(store_lease_held(f->a, x));
}

/* A database a single server wrote, then nodes: their game ids pass the
 * server's, its game in progress (no lease row) is free to take and
 * adopt. */
static void test_after_single_server(void **state)
{
    fixture *f = *state;
    if (f == NULL)
        skip();
    close_store(&f->a, &f->la);
    close_store(&f->b, &f->lb);
    store_options single = {.migrations_dir = "migrations", .now_ms = clock_fn};
    char why[256] = "";
    store *s = NULL;
    assert_int_equal(store_open(&s, &f->la, f->db, &single, why, sizeof why), 0);
    int64_t old = 0;
    for (int i = 0; i < 3; i++)
        old = create(s, &f->la);
    done_ans d = {0};
    store_move m = {.ply = 0, .player = 0, .next = 1, .text = "s1"};
    assert_int_equal(store_move_append(s, old, &m, done_cb, &d), 0);
    wait_done(&f->la, &d);
    close_store(&s, &f->la);

    f->a = open_node(f, &f->la, "a");
    f->b = open_node(f, &f->lb, "b");
    int64_t ga = create(f->a, &f->la), gb = create(f->b, &f->lb);
    assert_true(ga > old && gb > old && ga != gb);
    assert_true(expired_has(f->b, &f->lb, old));
    assert_int_equal(take(f->b, &f->lb, old).status, 0);
    game_ans g = adopt(f->b, &f->lb, old);
    assert_int_equal(g.status, 0);
    assert_int_equal(g.nmoves, 1);
    play(f->b, &f->lb, old, 1, "b2");
    /* No such game in progress: not found, and no row. */
    assert_int_equal(take(f->a, &f->la, old + 100000).status, STORE_ENOT_FOUND);
}

/* Several nodes need PostgreSQL. */
static void test_sqlite_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_store_lease.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/chameleon.db", dir);
    uv_loop_t loop;
    uv_loop_init(&loop);
    store_options o = {.migrations_dir = "migrations", .node = "a"};
    store *s = NULL;
    char why[256] = "";
    assert_int_equal(store_open(&s, &loop, path, &o, why, sizeof why), STORE_EBAD_ARG);
    assert_non_null(strstr(why, "several nodes need PostgreSQL"));
    assert_int_equal(access(path, F_OK), -1); /* nothing created */
    assert_int_equal(uv_loop_close(&loop), 0);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlite_refused),
        cmocka_unit_test_setup_teardown(test_take_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_keeps_good_moves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_renewal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vacation_fenced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_after_single_server, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
