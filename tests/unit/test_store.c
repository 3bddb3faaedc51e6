/*
 * test_store.c - the store on real SQLite files in a temporary directory:
 * migrations (from empty, from each earlier version, a newer database
 * refused), durable acknowledgement, restart in the middle of games, timeouts
 * across a restart, vacation (its queued calls' answers, errors and a
 * failed write included), the increment clock, conditional moves, the
 * "your turn" list, a seat's games in progress, the archive, Web Push's
 * subscription calls, and storage faults (a write retried, then failed and
 * recovered from; one store per file; a corrupt file refused).
 *
 * With CHAMELEON_TEST_PG set (tests/pg/run.sh) every case runs on a fresh
 * PostgreSQL database instead (tests/unit/pg_fixture.h), but for the few
 * that test what only SQLite has (its busy lock, a corrupt file).
 *
 * Expected clock values come from the rules stated in store.h (days per
 * move, increment up to a cap, vacation stops the clock), computed by hand
 * in each test's comment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "cond.h"
#include "pg_fixture.h"
#include "proto.h"
#include "store.h"
#include "sql.h"
#include "store_sync.h"

#define DAY ((int64_t)STORE_DAY_MS)
#define T0 ((int64_t)1767225600000) /* 2026-01-01T00:00:00Z */

static int64_t fake_now;
static int64_t clock_fn(void *arg)
{
    (void)arg;
    return fake_now;
}

typedef struct fixture {
    char dir[256];
    char db[300];
    uv_loop_t loop;
    store *s;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_store.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char path[300];
    snprintf(path, sizeof path, "%s/chameleon.db", f->dir);
    pg_fixture_target(f->db, sizeof f->db, path);
    uv_loop_init(&f->loop);
    fake_now = T0;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->s) {
        store_close(f->s);
        uv_run(&f->loop, UV_RUN_DEFAULT);
    }
    assert_int_equal(uv_loop_close(&f->loop), 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static store *open_dir(fixture *f, const char *migrations)
{
    store_options o = {.migrations_dir = migrations, .now_ms = clock_fn};
    char why[256] = "";
    store *s = NULL;
    int err = store_open(&s, &f->loop, f->db, &o, why, sizeof why);
    if (err != 0)
        fail_msg("store_open: %s", why);
    return s;
}

static void reopen(fixture *f)
{
    if (f->s) {
        store_close(f->s);
        uv_run(&f->loop, UV_RUN_DEFAULT);
    }
    f->s = open_dir(f, "migrations");
}

/* Run a statement on a separate connection: sees only committed data. */
static sql_conn *t_connect(fixture *f)
{
    sql_conn *db = NULL;
    char why[256] = "";
    if (sql_open(&db, f->db, SQL_OPEN_CREATE, why, sizeof why) != SQL_OK)
        fail_msg("%s: %s", f->db, why);
    return db;
}

static int64_t sql_int(fixture *f, const char *sql)
{
    sql_conn *db = t_connect(f);
    sql_stmt *st;
    if (sql_prepare(db, sql, &st) != SQL_OK)
        fail_msg("%s: %s", sql, sql_errmsg(db));
    int64_t v = sql_step(st) == SQL_ROW ? sql_column_i64(st, 0) : -1;
    sql_finalize(st);
    sql_close(db);
    return v;
}

static void t_exec(fixture *f, const char *sql)
{
    sql_conn *db = t_connect(f);
    if (sql_exec(db, sql) != SQL_OK)
        fail_msg("%s: %s", sql, sql_errmsg(db));
    sql_close(db);
}

/* The schema version written as a server of version v leaves it. */
static void set_version(fixture *f, int v)
{
    char sql[160];
    if (pg_fixture_wanted())
        snprintf(sql, sizeof sql,
                 "CREATE TABLE IF NOT EXISTS chameleon_schema (version BIGINT NOT NULL);"
                 " DELETE FROM chameleon_schema; INSERT INTO chameleon_schema VALUES (%d)",
                 v);
    else
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    t_exec(f, sql);
}

static int64_t add_account(fixture *f, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO accounts (username, pwhash, created_ms) VALUES "
             "('%s', 'x', 0)",
             name);
    t_exec(f, sql);
    snprintf(sql, sizeof sql, "SELECT id FROM accounts WHERE username = '%s'", name);
    return sql_int(f, sql);
}

static int64_t new_game(fixture *f, store_kind kind, int nplayers, const int64_t *accounts,
                        store_tc tc)
{
    /* The store records move text as given: these games need no rules. */
    store_new_game g = {.variant = nplayers == 3 ? "three" : "ultima",
                        .kind = kind,
                        .nplayers = nplayers,
                        .tc = tc};
    for (int p = 0; p < nplayers; p++) {
        g.players[p].account = accounts ? accounts[p] : 0;
        snprintf(g.players[p].name, STORE_NAME_MAX, "p%d", p);
    }
    int64_t id = 0;
    char why[160];
    int err = store_game_create(f->s, &g, &id, NULL, NULL, why, sizeof why);
    if (err != 0)
        fail_msg("create: %s", why);
    return id;
}

/* A done callback that checks, on another connection, that the move is on
 * disk when it is acknowledged. */
typedef struct ack {
    fixture *f;
    int64_t game;
    int ply;
    int status;
    bool fired;
    bool on_disk;
} ack;

static void ack_cb(void *arg, int status)
{
    ack *a = arg;
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM moves WHERE game = %lld AND ply = %d",
             (long long)a->game, a->ply);
    a->on_disk = sql_int(a->f, sql) == 1;
    a->status = status;
    a->fired = true;
}

static void play(fixture *f, int64_t game, int ply, int player, int next, const char *text,
                 const int64_t *clocks)
{
    store_move m = {.ply = ply, .player = player, .next = next, .text = text};
    if (clocks)
        memcpy(m.clock_ms, clocks, sizeof m.clock_ms);
    ack a = {.f = f, .game = game, .ply = ply};
    assert_int_equal(store_move_append(f->s, game, &m, ack_cb, &a), 0);
    while (!a.fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    assert_int_equal(a.status, 0);
    assert_true(a.on_disk);
}

/* ------------------------------------------------------------------------ */

/* The newest migration in migrations/sqlite/ (NNNN_name.sql): every new
 * migration moves it, and the schema must reach it. */
static int latest_migration(void)
{
    DIR *d = opendir("migrations/sqlite");
    assert_non_null(d);
    int latest = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int n = atoi(e->d_name);
        if (n > latest && strstr(e->d_name, ".sql") != NULL)
            latest = n;
    }
    closedir(d);
    return latest;
}

static void test_migrations_from_empty(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    assert_int_equal(store_schema_version(f->s), latest_migration());
    if (pg_fixture_wanted()) {
        assert_int_equal(sql_int(f, "SELECT version FROM chameleon_schema"), latest_migration());
        assert_int_equal(sql_int(f, "SELECT count(*) FROM pg_class WHERE relname "
                                    "IN ('games','moves','accounts','sessions',"
                                    "'cond_lines','games_deadline','ratings','rating_history',"
                                    "'push_vapid','push_subs',"
                                    "'mail_addresses','mail_tokens','mail_outbox')"),
                         13);
        return; /* no WAL file of ours */
    }
    assert_int_equal(sql_int(f, "PRAGMA user_version"), latest_migration());
    assert_int_equal(sql_int(f, "SELECT count(*) FROM sqlite_master WHERE name "
                                "IN ('games','moves','accounts','sessions',"
                                "'cond_lines','games_deadline','ratings','rating_history',"
                                "'push_vapid','push_subs',"
                                "'mail_addresses','mail_tokens','mail_outbox')"),
                     13);
    /* WAL persists in the file. */
    assert_int_equal(sql_int(f, "SELECT count(*) FROM pragma_journal_mode "
                                "WHERE journal_mode = 'wal'"),
                     1);
}

static char *slurp(const char *path)
{
    FILE *a = fopen(path, "rb");
    assert_non_null(a);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, a);
    buf[n] = '\0';
    fclose(a);
    return buf;
}

/* Upgrade from versions 1, 2 and 3 with data written by those versions:
 * the data survives and the schema reaches the newest. */
static void test_migrations_from_each_version(void **state)
{
    fixture *f = *state;
    static const char *const files[] = {"0001_games.sql", "0002_accounts.sql",
                                        "0003_correspondence.sql"};
    for (int k = 1; k <= 3; k++) {
        /* The database as a server of version k left it: its migrations
         * applied and user_version = k. */
        char path[300];
        snprintf(path, sizeof path, "%s/v%d.db", f->dir, k);
        pg_fixture_target(f->db, sizeof f->db, path);
        for (int i = 0; i < k; i++) {
            snprintf(path, sizeof path, "migrations/%s/%s",
                     pg_fixture_wanted() ? "postgresql" : "sqlite", files[i]);
            t_exec(f, slurp(path));
        }
        set_version(f, k);
        /* Data as that version wrote it. */
        t_exec(f, "INSERT INTO games (id, variant, kind, nplayers, created_ms,"
                  " last_move_ms, nmoves, to_move) VALUES (7, 'ultima', 0, 2, 1,"
                  " 2, 1, 1);"
                  "INSERT INTO game_players (game, seat, name) VALUES (7, 0,"
                  " 'ann'), (7, 1, 'bob');"
                  "INSERT INTO moves (game, ply, player, text, at_ms) VALUES"
                  " (7, 0, 0, 'b1-b6', 2);");
        if (k >= 2)
            t_exec(f, "INSERT INTO accounts (username, pwhash, created_ms) "
                      "VALUES ('ann', 'h', 1)");
        f->s = open_dir(f, "migrations");
        assert_int_equal(store_schema_version(f->s), latest_migration());
        char *json = NULL;
        assert_int_equal(sync_game_json(f->s, 7, &json), 0);
        json_t *o = json_loads(json, 0, NULL);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(o, "moves"), 0), "move")),
                            "b1-b6");
        json_decref(o);
        free(json);
        if (k >= 2)
            assert_int_equal(sql_int(f, "SELECT vacation_used FROM accounts "
                                        "WHERE username = 'ann'"),
                             0);
        /* The game in progress is restored with its turn. */
        store_turn t[4];
        assert_int_equal(store_your_turn(f->s, 0, t, 4), 0);
        store_close(f->s);
        uv_run(&f->loop, UV_RUN_DEFAULT);
        f->s = NULL;
    }
}

static void test_refuses_newer_database(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    store_close(f->s);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = NULL;
    set_version(f, 99);
    store_options o = {.now_ms = clock_fn};
    char why[256] = "";
    store *s = NULL;
    assert_int_equal(store_open(&s, &f->loop, f->db, &o, why, sizeof why), STORE_ETOO_NEW);
    assert_null(s);
    assert_non_null(strstr(why, "99"));
    assert_non_null(strstr(why, "newer"));
}

typedef struct restored {
    int n;
    store_game_info g[4];
    char texts[4][8][RULES_MOVE_TEXT];
} restored;

static void restore_cb(void *arg, const store_game_info *g)
{
    restored *r = arg;
    assert_true(r->n < 4);
    r->g[r->n] = *g;
    for (int i = 0; i < g->nmoves && i < 8; i++)
        snprintf(r->texts[r->n][i], RULES_MOVE_TEXT, "%s", g->moves[i].text);
    r->g[r->n].moves = NULL;
    r->g[r->n].variant = NULL;
    r->n++;
}

/* A live and a correspondence game interrupted: after a restart both come
 * back with their moves, turn and clocks. */
static void test_restart_mid_game(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t live = new_game(f, STORE_LIVE, 2, NULL, (store_tc){300000, 2000, 0});
    int64_t corr = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, 0, 0});
    int64_t c1[3] = {298000, 300000, 0}, c2[3] = {298000, 291500, 0};
    play(f, live, 0, 0, 1, "b1-b6", c1);
    play(f, live, 1, 1, 0, "c8-c5", c2);
    fake_now = T0 + 5000;
    play(f, corr, 0, 0, 1, "a2-a4", NULL);
    /* A wrong ply is refused at once. */
    store_move bad = {.ply = 5, .player = 1, .next = 0, .text = "x"};
    assert_int_equal(store_move_append(f->s, corr, &bad, NULL, NULL), STORE_EBAD_PLY);

    reopen(f);
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 2);
    const store_game_info *gl = r.g[0].id == live ? &r.g[0] : &r.g[1];
    const store_game_info *gc = r.g[0].id == live ? &r.g[1] : &r.g[0];
    const char(*tl)[RULES_MOVE_TEXT] = r.g[0].id == live ? r.texts[0] : r.texts[1];
    assert_int_equal(gl->nmoves, 2);
    assert_string_equal(tl[0], "b1-b6");
    assert_string_equal(tl[1], "c8-c5");
    assert_int_equal(gl->to_move, 0);
    assert_int_equal(gl->clock_ms[0], 298000);
    assert_int_equal(gl->clock_ms[1], 291500);
    assert_int_equal(gc->kind, STORE_CORR);
    assert_int_equal(gc->nmoves, 1);
    assert_int_equal(gc->to_move, 1);
    /* Bob's 3 days started when Ann moved. */
    assert_int_equal(gc->deadline_ms, T0 + 5000 + 3 * DAY);
    /* Play goes on after the restart. */
    play(f, corr, 1, 1, 0, "h7-h5", NULL);
}

static int64_t deadline_of(fixture *f, int64_t game)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT deadline_ms FROM games WHERE id = %lld", (long long)game);
    store_flush(f->s);
    return sql_int(f, sql);
}

/* Restart in the middle of a correspondence game of every variant the core
 * knows: the restored records replay through the rules core to the same
 * position, player to move and deadline. */
typedef struct replayed {
    int64_t id;
    char pos[RULES_POS_TEXT];
    int to_move;
    int64_t deadline;
    bool found;
} replayed;

static void replay_cb(void *arg, const store_game_info *gi)
{
    replayed *r = arg;
    if (gi->id != r->id)
        return;
    rules_game *g;
    char why[RULES_WHY_TEXT];
    if (record_replay(gi, &g, why, sizeof why) != 0)
        fail_msg("replay: %s", why);
    assert_true(g->variant->print_position(&g->pos, r->pos, sizeof r->pos) > 0);
    assert_int_equal(rules_game_to_move(g), gi->to_move);
    r->to_move = gi->to_move;
    r->deadline = gi->deadline_ms;
    r->found = true;
    rules_game_free(g);
}

static void test_restart_every_variant(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[3] = {add_account(f, "ann"), add_account(f, "bob"), add_account(f, "cid")};
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        const rules_variant *v = *vp;
        store_new_game ng = {
            .variant = v->id, .kind = STORE_CORR, .nplayers = v->nplayers, .tc = {2 * DAY, 0, 0}};
        for (int p = 0; p < v->nplayers; p++) {
            ng.players[p].account = acc[p];
            snprintf(ng.players[p].name, STORE_NAME_MAX, "p%d", p);
        }
        int64_t id;
        char why[RULES_WHY_TEXT];
        assert_int_equal(store_game_create(f->s, &ng, &id, NULL, NULL, why, sizeof why), 0);
        rules_game *g;
        assert_int_equal(rules_game_new(&g, v->id, NULL, why, sizeof why), 0);
        unsigned x = 12345;
        for (int ply = 0; ply < 15 && !g->result.over; ply++) {
            fake_now += 3600000;
            if (ply == 6 && v->nplayers == 3 && v->leave) {
                assert_int_equal(rules_game_leave(g, 1, RULES_REASON_TIMEOUT), 0);
                assert_int_equal(store_game_leave(f->s, id, 1, RULES_REASON_TIMEOUT,
                                                  rules_game_to_move(g), NULL, NULL),
                                 0);
            }
            x = x * 1103515245u + 12345u;
            rules_move m = g->legal[(x >> 8) % (unsigned)g->nlegal];
            char text[RULES_MOVE_TEXT];
            assert_true(v->print_move(&g->pos, m, text, sizeof text) > 0);
            int player = g->pos.to_move;
            assert_int_equal(rules_game_play(g, m), 0);
            play(f, id, (int)g->nmoves - 1, player, rules_game_to_move(g), text, NULL);
        }
        replayed want = {.id = id};
        assert_true(v->print_position(&g->pos, want.pos, sizeof want.pos) > 0);
        int64_t deadline = deadline_of(f, id);
        reopen(f);
        replayed got = {.id = id};
        assert_true(store_load_in_progress(f->s, replay_cb, &got) >= 1);
        assert_true(got.found);
        assert_string_equal(got.pos, want.pos);
        assert_int_equal(got.to_move, rules_game_to_move(g));
        assert_int_equal(got.deadline, deadline);
        assert_int_equal(deadline, fake_now + 2 * DAY);
        rules_game_free(g);
    }
}

static int timeouts_seen;
static int64_t timeout_game;
static int timeout_player;
static void timeout_cb(void *arg, int64_t game, int player)
{
    (void)arg;
    timeouts_seen++;
    timeout_game = game;
    timeout_player = player;
}

/* A 1-day game: the server is down when the deadline passes; at start-up the
 * timeout is reported, once. */
static void test_timeout_across_restart(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){1 * DAY, 0, 0});
    play(f, g, 0, 0, 1, "a2-a4", NULL);
    timeouts_seen = 0;
    store_set_timeout_cb(f->s, timeout_cb, NULL);
    fake_now = T0 + DAY - 1;
    store_check_deadlines(f->s);
    assert_int_equal(timeouts_seen, 0);
    store_close(f->s);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = NULL;

    fake_now = T0 + DAY + 3600000;
    f->s = open_dir(f, "migrations");
    store_set_timeout_cb(f->s, timeout_cb, NULL);
    assert_int_equal(timeouts_seen, 1);
    assert_int_equal(timeout_game, g);
    assert_int_equal(timeout_player, 1);
    store_check_deadlines(f->s);
    assert_int_equal(timeouts_seen, 1); /* once */
    rules_result r = {.over = true,
                      .winner = 0,
                      .outcome = {RULES_OUTCOME_WIN, RULES_OUTCOME_LOSS},
                      .reason = RULES_REASON_TIMEOUT};
    assert_int_equal(store_game_finish(f->s, g, &r, NULL, NULL), 0);
    reopen(f);
    restored rs = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &rs), 0);
    char *json = NULL;
    assert_int_equal(sync_game_json(f->s, g, &json), 0);
    json_t *o = json_loads(json, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "finished");
    json_t *res = json_object_get(o, "result");
    assert_string_equal(json_string_value(json_object_get(res, "reason")), "timeout");
    assert_int_equal(json_integer_value(json_object_get(res, "winner")), 0);
    json_decref(o);
    free(json);
}

/* Closing writes what is queued: the callbacks fire (status 0) during
 * store_close, before the loop runs again, and a reopen finds the moves. */
static void test_close_writes_queue(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    ack a[3];
    static const char *const texts[] = {"b1-b6", "c8-c5", "a1-a2"};
    for (int i = 0; i < 3; i++) {
        a[i] = (ack){.f = f, .game = g, .ply = i};
        store_move m = {.ply = i, .player = i % 2, .next = (i + 1) % 2, .text = texts[i]};
        assert_int_equal(store_move_append(f->s, g, &m, ack_cb, &a[i]), 0);
        assert_false(a[i].fired);
    }
    store_close(f->s);
    for (int i = 0; i < 3; i++) {
        assert_true(a[i].fired);
        assert_int_equal(a[i].status, 0);
        assert_true(a[i].on_disk);
    }
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = open_dir(f, "migrations");
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 1);
    assert_int_equal(r.g[0].nmoves, 3);
    assert_string_equal(r.texts[0][2], "a1-a2");
}

/* Three-player correspondence: the player to move times out; as the server
 * does, it leaves (rules_game_leave) and the others play on; the next
 * player's clock starts at the timeout. */
static void test_three_player_timeout(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[3] = {add_account(f, "ann"), add_account(f, "bob"), add_account(f, "cid")};
    int64_t g = new_game(f, STORE_CORR, 3, acc, (store_tc){2 * DAY, 0, 0});
    play(f, g, 0, 0, 1, "a1-a2", NULL);
    timeouts_seen = 0;
    store_set_timeout_cb(f->s, timeout_cb, NULL);
    fake_now = T0 + 2 * DAY + 1;
    store_check_deadlines(f->s);
    assert_int_equal(timeouts_seen, 1);
    assert_int_equal(timeout_player, 1);
    assert_int_equal(store_game_leave(f->s, g, 1, RULES_REASON_TIMEOUT, 2, NULL, NULL), 0);
    assert_int_equal(deadline_of(f, g), T0 + 4 * DAY + 1);
    store_turn t[2];
    assert_int_equal(store_your_turn(f->s, acc[2], t, 2), 1);
    assert_int_equal(t[0].deadline_ms, T0 + 4 * DAY + 1);
    play(f, g, 1, 2, 0, "b1-b2", NULL);
    reopen(f);
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 1);
    assert_int_equal(r.g[0].to_move, 0);
    assert_int_equal(r.g[0].nleaves, 1);
    char *json;
    assert_int_equal(sync_game_json(f->s, g, &json), 0);
    assert_non_null(strstr(json, "\"reason\":\"timeout\""));
    free(json);
    char *pgn;
    assert_int_equal(sync_game_pgn(f->s, g, &pgn), 0);
    assert_non_null(strstr(pgn, "1. a1-a2 {leave 1 timeout} b1-b2"));
    free(pgn);
}

/* A vacation call's answer, waited for on the loop. */
typedef struct vac_ans {
    bool fired;
    int status, left;
    int64_t until;
    char why[160];
} vac_ans;

static void vac_cb(void *arg, int status, int64_t until, int left, const char *why)
{
    vac_ans *a = arg;
    assert_false(a->fired); /* once */
    a->fired = true;
    a->status = status;
    a->until = until;
    a->left = left;
    snprintf(a->why, sizeof a->why, "%s", why);
}

/* The answer of the call that returned err (queued if 0). */
static int vac_wait(fixture *f, int err, vac_ans *a)
{
    if (err < 0) {
        assert_false(a->fired);
        return err;
    }
    while (!a->fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    return a->status;
}

static int vac_start(fixture *f, int64_t account, int days, vac_ans *a)
{
    *a = (vac_ans){0};
    return vac_wait(f, store_vacation_start(f->s, account, days, vac_cb, a), a);
}

static int vac_end(fixture *f, int64_t account, vac_ans *a)
{
    *a = (vac_ans){0};
    return vac_wait(f, store_vacation_end(f->s, account, vac_cb, a), a);
}

static int vac_status(fixture *f, int64_t account, vac_ans *a)
{
    *a = (vac_ans){0};
    return vac_wait(f, store_vacation_status(f->s, account, vac_cb, a), a);
}

/* The deadline of a game in memory (the store's, ahead of the disk). */
static int64_t mem_deadline(fixture *f, int64_t game)
{
    int64_t d, clocks[RULES_MAX_PLAYERS];
    assert_int_equal(store_corr_clock(f->s, game, &d, clocks), 0);
    return d;
}

/* Vacation: 5 days push a running deadline back by 5 days; a turn reaching
 * the player during the vacation starts at its end; ending early after 2.5
 * days charges 3 days and moves deadlines forward. */
static void test_vacation(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t g1 = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, 0, 0});
    int64_t g2 = new_game(f, STORE_CORR, 2, acc, (store_tc){2 * DAY, 0, 0});
    play(f, g1, 0, 0, 1, "a2-a4", NULL); /* bob to move: T0 + 3d */
    assert_int_equal(deadline_of(f, g1), T0 + 3 * DAY);

    fake_now = T0 + DAY;
    vac_ans a;
    assert_int_equal(vac_start(f, acc[1], 31, &a), STORE_EVACATION);
    assert_non_null(strstr(a.why, "30"));
    assert_int_equal(vac_start(f, acc[1], 5, &a), 0);
    assert_int_equal(a.until, T0 + 6 * DAY);
    assert_int_equal(a.left, 25);
    assert_int_equal(deadline_of(f, g1), T0 + 8 * DAY);
    assert_int_equal(mem_deadline(f, g1), T0 + 8 * DAY);
    assert_int_equal(vac_status(f, acc[1], &a), 0);
    assert_int_equal(a.until, T0 + 6 * DAY);
    assert_int_equal(a.left, 25);
    assert_int_equal(vac_start(f, acc[1], 1, &a), STORE_EBAD_ARG);

    /* Ann moves in g2 during bob's vacation: bob's 2 days start at T0 + 6d. */
    fake_now = T0 + 2 * DAY;
    play(f, g2, 0, 0, 1, "a2-a4", NULL);
    assert_int_equal(deadline_of(f, g2), T0 + 8 * DAY);

    /* A restart keeps it. */
    reopen(f);
    timeouts_seen = 0;
    store_set_timeout_cb(f->s, timeout_cb, NULL);
    fake_now = T0 + 7 * DAY;
    store_check_deadlines(f->s);
    assert_int_equal(timeouts_seen, 0);

    /* Back to T0 + 3.5d and end early: 2.5 days started -> 3 charged. */
    fake_now = T0 + 3 * DAY + DAY / 2;
    assert_int_equal(vac_end(f, acc[1], &a), 0);
    assert_int_equal(a.until, 0);
    assert_int_equal(a.left, 27);
    assert_int_equal(vac_status(f, acc[1], &a), 0);
    assert_int_equal(a.until, 0);
    assert_int_equal(a.left, 27);
    /* g1: 8d - (6d - 3.5d) = 5.5d; g2: 3.5d + 2d. */
    assert_int_equal(deadline_of(f, g1), T0 + 5 * DAY + DAY / 2);
    assert_int_equal(deadline_of(f, g2), T0 + 5 * DAY + DAY / 2);
    assert_int_equal(vac_end(f, acc[1], &a), STORE_ENOT_FOUND);

    /* A new year gives 30 days again. */
    fake_now = T0 + 370 * DAY;
    assert_int_equal(vac_status(f, acc[1], &a), 0);
    assert_int_equal(a.left, 30);
}

/* The vacation calls answer through their callback, errors included: an
 * unknown account (each call), a start while one of the account's is still
 * being written (refused at once, STORE_EBUSY; the first is answered), days
 * below 1 (at once), and the moves queued between the read and the write
 * count the vacation (memory has it from the decision on). */
static void test_vacation_answers(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    vac_ans a;
    assert_int_equal(vac_status(f, 999999, &a), STORE_ENOT_FOUND);
    assert_string_not_equal(a.why, "");
    assert_int_equal(vac_start(f, 999999, 3, &a), STORE_ENOT_FOUND);
    assert_int_equal(vac_end(f, 999999, &a), STORE_ENOT_FOUND);
    assert_int_equal(vac_start(f, acc[0], 0, &a), STORE_EBAD_ARG);

    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, 0, 0});
    play(f, g, 0, 0, 1, "a2-a4", NULL); /* bob to move: T0 + 3d */
    vac_ans first = {0}, second = {0};
    assert_int_equal(store_vacation_start(f->s, acc[1], 2, vac_cb, &first), 0);
    assert_int_equal(store_vacation_start(f->s, acc[1], 2, vac_cb, &second), STORE_EBUSY);
    assert_int_equal(store_vacation_end(f->s, acc[1], vac_cb, &second), STORE_EBUSY);
    /* Another account's is not held up. */
    assert_int_equal(vac_status(f, acc[0], &a), 0);
    assert_int_equal(a.left, 30);
    assert_int_equal(vac_wait(f, 0, &first), 0);
    assert_false(second.fired);
    assert_int_equal(first.until, T0 + 2 * DAY);
    assert_int_equal(mem_deadline(f, g), T0 + 5 * DAY);
    assert_int_equal(deadline_of(f, g), T0 + 5 * DAY);
    /* Done: the next change is taken. */
    assert_int_equal(vac_end(f, acc[1], &a), 0);
    assert_int_equal(mem_deadline(f, g), T0 + 3 * DAY + 0); /* 1 day charged, 0 started */
    assert_int_equal(a.left, 29);
}

/* A vacation that cannot be written (the database refuses: another
 * connection holds the write lock) is answered STORE_EDB, and the store's
 * memory is the disk's again: no vacation, the deadline where it was. */
static sql_conn *hold_write_lock(fixture *f);
static void release_write_lock(sql_conn *db);
static store *open_faulty(fixture *f, unsigned retries, unsigned retry_ms);

static void test_vacation_write_fails(void **state)
{
    fixture *f = *state;
    f->s = open_faulty(f, 0, 10);
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, 0, 0});
    play(f, g, 0, 0, 1, "a2-a4", NULL);
    sql_conn *lock = hold_write_lock(f);
    vac_ans a;
    assert_int_equal(vac_start(f, acc[1], 4, &a), STORE_EDB);
    assert_string_not_equal(a.why, "");
    assert_int_equal(mem_deadline(f, g), T0 + 3 * DAY);
    release_write_lock(lock);
    assert_int_equal(vac_status(f, acc[1], &a), 0);
    assert_int_equal(a.until, 0);
    assert_int_equal(a.left, 30);
    assert_int_equal(deadline_of(f, g), T0 + 3 * DAY);
    /* And the store takes it once the lock is gone. */
    assert_int_equal(vac_start(f, acc[1], 4, &a), 0);
    assert_int_equal(mem_deadline(f, g), T0 + 7 * DAY);
}

/* A takeback (store_takeback): the moves from a ply on go, the clocks given
 * become the last move's, and a restart restores the game without them;
 * refused for correspondence games and a ply not below the moves recorded. */
static void test_takeback(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){300000, 0, 0});
    int64_t c1[RULES_MAX_PLAYERS] = {299000, 300000, 0},
            c2[RULES_MAX_PLAYERS] = {299000, 298000, 0},
            c3[RULES_MAX_PLAYERS] = {297000, 298000, 0};
    play(f, g, 0, 0, 1, "a2-a4", c1);
    play(f, g, 1, 1, 0, "h7-h5", c2);
    play(f, g, 2, 0, 1, "a4-a5", c3);
    int64_t now[RULES_MAX_PLAYERS] = {297000, 296500, 0};
    assert_int_equal(store_takeback(f->s, g, 3, 1, now, NULL, NULL), STORE_EBAD_PLY);
    assert_int_equal(store_takeback(f->s, 999, 1, 1, now, NULL, NULL), STORE_ENOT_FOUND);
    ack a = {.f = f, .game = g, .ply = 1};
    assert_int_equal(store_takeback(f->s, g, 1, 1, now, ack_cb, &a), 0);
    while (!a.fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    assert_int_equal(a.status, 0);
    assert_false(a.on_disk); /* ply 1 is gone when it is acknowledged */
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM moves WHERE game = %lld", (long long)g);
    assert_int_equal(sql_int(f, sql), 1);
    /* The next move is ply 1 again. */
    store_move bad = {.ply = 3, .player = 1, .next = 0, .text = "x"};
    assert_int_equal(store_move_append(f->s, g, &bad, NULL, NULL), STORE_EBAD_PLY);
    reopen(f);
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 1);
    assert_int_equal(r.g[0].nmoves, 1);
    assert_string_equal(r.texts[0][0], "a2-a4");
    assert_int_equal(r.g[0].to_move, 1);
    assert_int_equal(r.g[0].clock_ms[0], 297000);
    assert_int_equal(r.g[0].clock_ms[1], 296500);
    play(f, g, 1, 1, 0, "h7-h6", now);

    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t corr = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, 0, 0});
    play(f, corr, 0, 0, 1, "a2-a4", NULL);
    assert_int_equal(store_takeback(f->s, corr, 0, 0, now, NULL, NULL), STORE_EBAD_ARG);
}

/* Increment mode 3 days + 1 day per move, cap 4 days. */
static void test_increment_clock(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    char why[160];
    store_tc badtc = {4 * DAY, 0, 0};
    assert_int_equal(store_tc_check(&badtc, why, sizeof why), STORE_EBAD_TC);
    store_tc cap_too_low = {3 * DAY, DAY, 2 * DAY};
    assert_int_equal(store_tc_check(&cap_too_low, why, sizeof why), STORE_EBAD_TC);
    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){3 * DAY, DAY, 4 * DAY});
    /* Ann to move with 3d: deadline T0 + 3d. */
    assert_int_equal(deadline_of(f, g), T0 + 3 * DAY);
    /* Ann uses 2d: 1d left + 1d = 2d. Bob's 3d start now. */
    fake_now = T0 + 2 * DAY;
    play(f, g, 0, 0, 1, "a2-a4", NULL);
    assert_int_equal(deadline_of(f, g), T0 + 5 * DAY);
    /* Bob uses 0.5d: 2.5d + 1d = 3.5d. Ann has 2d from now. */
    fake_now = T0 + 2 * DAY + DAY / 2;
    play(f, g, 1, 1, 0, "h7-h5", NULL);
    assert_int_equal(deadline_of(f, g), T0 + 4 * DAY + DAY / 2);
    /* Ann at once: 2d + 1d = 3d. Bob has 3.5d. */
    play(f, g, 2, 0, 1, "a4-a5", NULL);
    assert_int_equal(deadline_of(f, g), T0 + 6 * DAY);
    /* Bob at once: 3.5d + 1d capped at 4d. Ann 3d. */
    play(f, g, 3, 1, 0, "h5-h4", NULL);
    assert_int_equal(deadline_of(f, g), T0 + 5 * DAY + DAY / 2);
    reopen(f);
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 1);
    assert_int_equal(r.g[0].clock_ms[0], 3 * DAY);
    assert_int_equal(r.g[0].clock_ms[1], 4 * DAY);
    /* Restored banks drive the next deadline: Ann moves at once, 3d+1d = 4d;
     * Bob has his 4d bank. */
    play(f, g, 4, 0, 1, "a5-a6", NULL);
    assert_int_equal(deadline_of(f, g), T0 + 6 * DAY + DAY / 2);
}

/* store_cond_set and _clear, waited for: queued like a move, answered
 * once written. */
static int cond_set(store *s, int64_t g, int p, const char *const *lines, int n, char *why,
                    size_t whylen)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_cond_set(s, g, p, lines, n, sync_done_cb, &c, why, whylen));
}

static int cond_clear(store *s, int64_t g, int p)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_cond_clear(s, g, p, sync_done_cb, &c));
}

/* What the room does after each move (room_game.c, cond_answer): the lines
 * of the player now to move answer it (cond_match) if they wait for this
 * ply, and what is left of them goes back to the store. */
static int cond_answer(store *s, int64_t g, int player, int ply, const char *move,
                       char reply[RULES_MOVE_TEXT])
{
    record_lines cl;
    int at = -1, nrest = 0, found = 0;
    assert_int_equal(store_cond_get(s, g, player, &cl, &at), 0);
    const char *rest[STORE_COND_MAX_LINES];
    if (ply == at)
        found = cond_match(cl.lines, cl.n, move, reply, rest, &nrest);
    assert_int_equal(store_cond_replace(s, g, player, rest, nrest, ply + 2), 0);
    return found;
}

static void test_conditional_moves(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){7 * DAY, 0, 0});
    const char *const lines[] = {"e2-e4 e7-e5 g1-f3 b8-c6", "e2-e4 e7-e5 f1-c4 g8-f6",
                                 "e2-e4 c7-c5 d2-d4 c5-d4", "d2-d4 d7-d5"};
    char why[160];
    /* Ann is to move: she cannot set lines, Bob can. */
    assert_int_equal(cond_set(f->s, g, 0, lines, 4, why, sizeof why), STORE_ENOT_YOUR_TURN);
    const char *const short_line[] = {"e2-e4"};
    assert_int_equal(cond_set(f->s, g, 1, short_line, 1, why, sizeof why), STORE_EBAD_ARG);
    assert_int_equal(cond_set(f->s, g, 1, lines, 4, why, sizeof why), 0);

    /* Stored durably: a restart keeps them. */
    reopen(f);
    char *json;
    assert_int_equal(sync_cond_json(f->s, g, 1, &json), 0);
    json_t *a = json_loads(json, 0, NULL);
    assert_int_equal(json_array_size(a), 4);
    json_decref(a);
    free(json);

    /* Ann plays e2-e4: the first matching line answers e7-e5; the c7-c5 line
     * and the d2-d4 line can no longer happen. */
    play(f, g, 0, 0, 1, "e2-e4", NULL);
    char reply[RULES_MOVE_TEXT];
    assert_int_equal(cond_answer(f->s, g, 1, 0, "e2-e4", reply), 1);
    assert_string_equal(reply, "e7-e5");
    play(f, g, 1, 1, 0, reply, NULL);
    reopen(f);
    assert_int_equal(sync_cond_json(f->s, g, 1, &json), 0);
    assert_string_equal(json, "[\"g1-f3 b8-c6\",\"f1-c4 g8-f6\"]");
    free(json);

    /* Ann plays something else: no answer, every line dropped. */
    play(f, g, 2, 0, 1, "b1-c3", NULL);
    assert_int_equal(cond_answer(f->s, g, 1, 2, "b1-c3", reply), 0);
    reopen(f);
    assert_int_equal(sync_cond_json(f->s, g, 1, &json), 0);
    assert_string_equal(json, "[]");
    free(json);

    /* Lines skipped over: set, then moves the store is not asked about
     * (Ann d2-d4, Bob's own d7-d5), then Ann's next move matches a line's
     * first move but the line is out of date: dropped, no answer. */
    const char *const again[] = {"d2-d4 d7-d5", "g1-f3 g8-f6"};
    play(f, g, 3, 1, 0, "d7-d6", NULL);
    assert_int_equal(cond_set(f->s, g, 1, again, 2, why, sizeof why), 0);
    play(f, g, 4, 0, 1, "d2-d4", NULL);
    play(f, g, 5, 1, 0, "d6-d5", NULL);
    play(f, g, 6, 0, 1, "g1-f3", NULL);
    assert_int_equal(cond_answer(f->s, g, 1, 6, "g1-f3", reply), 0);
    assert_int_equal(sync_cond_json(f->s, g, 1, &json), 0);
    assert_string_equal(json, "[]");
    free(json);
    /* store_cond_clear. */
    play(f, g, 7, 1, 0, "e7-e6", NULL);
    assert_int_equal(cond_set(f->s, g, 1, again, 2, why, sizeof why), 0);
    assert_int_equal(cond_clear(f->s, g, 1), 0);
    reopen(f);
    assert_int_equal(sync_cond_json(f->s, g, 1, &json), 0);
    assert_string_equal(json, "[]");
    free(json);

    /* Two-player correspondence only. */
    int64_t live = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    play(f, live, 0, 0, 1, "e2-e4", NULL);
    assert_int_equal(cond_set(f->s, live, 0, lines, 1, why, sizeof why), STORE_EBAD_ARG);
}

/* cond_check_line against the rules core: a line of legal moves from the
 * set-up after one move passes, and comes back in the core's own move
 * texts; a line whose answer is illegal fails and names it; a line of one
 * move is too short. Every two-player variant the core knows. */
static void test_cond_check_every_variant(void **state)
{
    (void)state;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        const rules_variant *v = *vp;
        if (v->nplayers != 2)
            continue;
        rules_game *g, *walk;
        char why[RULES_WHY_TEXT];
        assert_int_equal(rules_game_new(&g, v->id, NULL, why, sizeof why), 0);
        assert_int_equal(rules_game_play(g, g->legal[0]), 0);
        /* The waiting player's line: 4 moves played on a second game. */
        assert_int_equal(rules_game_new(&walk, v->id, NULL, why, sizeof why), 0);
        assert_int_equal(rules_game_play(walk, g->moves[0]), 0);
        char line[4 * RULES_MOVE_TEXT] = "", text[RULES_MOVE_TEXT];
        for (int i = 0; i < 4 && !walk->result.over; i++) {
            rules_move m = walk->legal[walk->nlegal / 2];
            assert_true(v->print_move(&walk->pos, m, text, sizeof text) > 0);
            strcat(line, i ? " " : "");
            strcat(line, text);
            assert_int_equal(rules_game_play(walk, m), 0);
        }
        int waiting = 1 - rules_game_to_move(g);
        char canon[4 * RULES_MOVE_TEXT];
        assert_int_equal(cond_check_line(g, waiting, line, canon, sizeof canon, why, sizeof why),
                         0);
        assert_string_equal(canon, line);
        char spaced[4 * RULES_MOVE_TEXT + 8];
        snprintf(spaced, sizeof spaced, "  %s ", line);
        assert_int_equal(cond_check_line(g, waiting, spaced, canon, sizeof canon, why, sizeof why),
                         0);
        assert_string_equal(canon, line);
        char one[RULES_MOVE_TEXT];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(line, " "), line);
        assert_int_equal(cond_check_line(g, waiting, one, canon, sizeof canon, why, sizeof why),
                         COND_ESHORT);
        assert_string_equal(cond_err_code(COND_ESHORT), "bad_message");
        char bad[4 * RULES_MOVE_TEXT];
        snprintf(bad, sizeof bad, "%.*s zz-zz", (int)strcspn(line, " "), line);
        assert_true(cond_check_line(g, waiting, bad, canon, sizeof canon, why, sizeof why) < 0);
        assert_non_null(strstr(why, "zz-zz"));
        /* A text too long to be a move: said, not cut to a move. */
        char huge[RULES_MOVE_TEXT + 2];
        memset(huge, 'a', sizeof huge - 1);
        huge[sizeof huge - 1] = '\0';
        snprintf(bad, sizeof bad, "%.*s %s", (int)strcspn(line, " "), line, huge);
        assert_int_equal(cond_check_line(g, waiting, bad, canon, sizeof canon, why, sizeof why),
                         RULES_EBAD_MOVE_TEXT);
        assert_non_null(strstr(why, "move 2 of line"));
        /* The line starts with the opponent's move, not the waiting one's. */
        assert_true(cond_check_line(g, 1 - waiting, line, canon, sizeof canon, why, sizeof why) <
                    0);
        rules_game_free(walk);
        rules_game_free(g);
    }
}

static int64_t turn_notified[16];
static int nturn_notified;
static void turn_cb(void *arg, int64_t account)
{
    (void)arg;
    if (nturn_notified < 16)
        turn_notified[nturn_notified++] = account;
}

static bool notified(int64_t account)
{
    for (int i = 0; i < nturn_notified; i++)
        if (turn_notified[i] == account)
            return true;
    return false;
}

/* Most urgent first; three-player games too; changes are pushed. */
static void test_your_turn(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[3] = {add_account(f, "ann"), add_account(f, "bob"), add_account(f, "cid")};
    store_set_turn_cb(f->s, turn_cb, NULL);
    int64_t g7 = new_game(f, STORE_CORR, 2, acc, (store_tc){7 * DAY, 0, 0});
    int64_t g1 = new_game(f, STORE_CORR, 2, acc, (store_tc){1 * DAY, 0, 0});
    int64_t acc3[3] = {acc[2], acc[1], acc[0]};
    int64_t g3 = new_game(f, STORE_CORR, 3, acc3, (store_tc){3 * DAY, 0, 0});
    nturn_notified = 0;
    play(f, g3, 0, 0, 1, "a1-a2", NULL); /* cid moved, bob to move */
    assert_true(notified(acc[1]));
    assert_true(notified(acc[2]));
    store_turn t[8];
    assert_int_equal(store_your_turn(f->s, acc[0], t, 8), 2);
    assert_int_equal(t[0].game, g1);
    assert_int_equal(t[1].game, g7);
    assert_int_equal(store_your_turn(f->s, acc[1], t, 8), 1);
    assert_int_equal(t[0].game, g3);
    nturn_notified = 0;
    play(f, g3, 1, 1, 2, "b1-b2", NULL);
    assert_true(notified(acc[1]));
    assert_true(notified(acc[0])); /* ann is seat 2 of g3 */
    assert_int_equal(store_your_turn(f->s, acc[0], t, 8), 3);
    assert_int_equal(t[0].game, g1);
    assert_int_equal(t[1].game, g3);
    char *json;
    assert_int_equal(sync_turns_json(f->s, acc[0], &json), 0);
    json_t *a = json_loads(json, 0, NULL);
    assert_int_equal(json_array_size(a), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "id")), g1);
    json_decref(a);
    free(json);
    /* Ann (seat 2) times out in g3 while the others play on: the leave is
     * recorded and the turn passes to cid (seat 0). */
    assert_int_equal(store_game_leave(f->s, g3, 2, RULES_REASON_TIMEOUT, 0, NULL, NULL), 0);
    assert_int_equal(store_your_turn(f->s, acc[0], t, 8), 2);
    assert_int_equal(store_your_turn(f->s, acc[2], t, 8), 1);
    assert_int_equal(t[0].game, g3);
    assert_int_equal(store_your_turn(f->s, acc[1], t, 8), 0);
    /* Guests can't play correspondence. */
    store_new_game ng = {.variant = "ultima", .kind = STORE_CORR, .nplayers = 2, .tc = {DAY, 0, 0}};
    ng.players[0].account = acc[0];
    int64_t id;
    char why[160];
    assert_int_equal(store_game_create(f->s, &ng, &id, NULL, NULL, why, sizeof why),
                     STORE_ENEED_ACCOUNT);
    ng.kind = STORE_LIVE;
    ng.rated = true;
    assert_int_equal(store_game_create(f->s, &ng, &id, NULL, NULL, why, sizeof why),
                     STORE_ENEED_ACCOUNT);
}

/* store_seated_games: an account's games in progress, and a guest's by
 * its seat key (the options a room writes), without the seats left and
 * the games over, oldest first; reads queued behind the writes. */
typedef struct seated {
    bool fired;
    int status, n;
    int64_t games[STORE_SEATED_MAX];
} seated;

static void seated_cb(void *arg, int status, const int64_t *games, int n)
{
    seated *r = arg;
    r->fired = true;
    r->status = status;
    r->n = n;
    if (n > 0)
        memcpy(r->games, games, (size_t)n * sizeof *games);
}

/* The ids as "1,2,3", or the store's error code. */
static const char *seated_of(fixture *f, int64_t account, const char *key, char *buf, size_t len)
{
    seated r = {0};
    int err = store_seated_games(f->s, account, key, seated_cb, &r);
    if (err < 0)
        return store_err_code(err);
    while (!r.fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    if (r.status < 0)
        return store_err_code(r.status);
    buf[0] = '\0';
    for (int i = 0, n = 0; i < r.n; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%lld", i ? "," : "", (long long)r.games[i]);
    return buf;
}

static int64_t keyed_game(fixture *f, int nplayers, const int64_t *accounts,
                          const char *const *keys)
{
    char options[256];
    int n = snprintf(options, sizeof options, "{\"seat_keys\":[");
    for (int p = 0; p < nplayers; p++)
        n += snprintf(options + n, sizeof options - (size_t)n, "%s\"%s\"", p ? "," : "", keys[p]);
    snprintf(options + n, sizeof options - (size_t)n, "]}");
    store_new_game g = {.variant = nplayers == 3 ? "three" : "ultima",
                        .kind = STORE_LIVE,
                        .nplayers = nplayers,
                        .options = options};
    for (int p = 0; p < nplayers; p++) {
        g.players[p].account = accounts[p];
        snprintf(g.players[p].name, STORE_NAME_MAX, "p%d", p);
    }
    int64_t id = 0;
    char why[160];
    if (store_game_create(f->s, &g, &id, NULL, NULL, why, sizeof why) != 0)
        fail_msg("create: %s", why);
    return id;
}

static void test_seated_games(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t ann = add_account(f, "ann"), bob = add_account(f, "bob");
    const char *k1 = "11111111111111111111111111111111", *k2 = "22222222222222222222222222222222",
               *ka = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", *kb = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    /* The newest game is created first: the oldest is listed first. */
    fake_now = T0 + 5000;
    int64_t g3 = keyed_game(f, 3, (int64_t[]){0, 0, bob}, (const char *[]){k1, k2, kb});
    fake_now = T0;
    int64_t g1 = keyed_game(f, 2, (int64_t[]){ann, bob}, (const char *[]){ka, kb});
    fake_now = T0 + 1000;
    int64_t g2 = keyed_game(f, 2, (int64_t[]){ann, 0}, (const char *[]){ka, k1});
    int64_t g4 = keyed_game(f, 2, (int64_t[]){ann, bob}, (const char *[]){ka, kb});
    assert_int_equal(store_game_leave(f->s, g3, 1, RULES_REASON_RESIGNATION, 2, NULL, NULL), 0);
    rules_result r = {.over = true,
                      .winner = 0,
                      .outcome = {RULES_OUTCOME_WIN, RULES_OUTCOME_LOSS},
                      .reason = RULES_REASON_RESIGNATION};
    assert_int_equal(store_game_finish(f->s, g4, &r, NULL, NULL), 0);
    char want[128], buf[256];
    snprintf(want, sizeof want, "%lld,%lld", (long long)g1, (long long)g2);
    assert_string_equal(seated_of(f, ann, NULL, buf, sizeof buf), want);
    snprintf(want, sizeof want, "%lld,%lld", (long long)g1, (long long)g3);
    assert_string_equal(seated_of(f, bob, NULL, buf, sizeof buf), want);
    snprintf(want, sizeof want, "%lld,%lld", (long long)g2, (long long)g3);
    assert_string_equal(seated_of(f, 0, k1, buf, sizeof buf), want);
    /* k2 left g3; ka sits as an account, never as a guest. */
    assert_string_equal(seated_of(f, 0, k2, buf, sizeof buf), "");
    assert_string_equal(seated_of(f, 0, ka, buf, sizeof buf), "");
    assert_string_equal(seated_of(f, add_account(f, "cid"), NULL, buf, sizeof buf), "");
    assert_string_equal(seated_of(f, 0, "1%", buf, sizeof buf), "bad_argument");
    assert_string_equal(seated_of(f, 0, NULL, buf, sizeof buf), "bad_argument");
}

/* The archive and the profile of a finished game. */
static void test_archive_and_profile(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    int64_t g = new_game(f, STORE_CORR, 2, acc, (store_tc){2 * DAY, 0, 0});
    int64_t other = new_game(f, STORE_CORR, 2, acc, (store_tc){2 * DAY, 0, 0});
    play(f, g, 0, 0, 1, "b1-b6", NULL);
    play(f, g, 1, 1, -1, "c8-c5", NULL);
    rules_result r = {.over = true,
                      .winner = 1,
                      .outcome = {RULES_OUTCOME_LOSS, RULES_OUTCOME_WIN},
                      .reason = RULES_REASON_CHECKMATE};
    ack a = {.f = f, .game = g, .ply = 1};
    assert_int_equal(store_game_finish(f->s, g, &r, ack_cb, &a), 0);
    while (!a.fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM games WHERE finished = 1"), 1);
    /* A finished game takes no more moves. */
    store_move m = {.ply = 2, .player = 0, .next = 1, .text = "a1-a2"};
    assert_int_equal(store_move_append(f->s, g, &m, NULL, NULL), STORE_ENOT_FOUND);

    char *json;
    assert_int_equal(sync_game_json(f->s, g, &json), 0);
    json_t *o = json_loads(json, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(o, "variant")), "ultima");
    assert_string_equal(json_string_value(json_object_get(o, "kind")), "correspondence");
    json_t *pl = json_object_get(o, "players");
    assert_string_equal(json_string_value(json_object_get(json_array_get(pl, 1), "outcome")),
                        "win");
    assert_int_equal(json_array_size(json_object_get(o, "moves")), 2);
    json_decref(o);
    free(json);

    char *pgn;
    assert_int_equal(sync_game_pgn(f->s, g, &pgn), 0);
    assert_non_null(strstr(pgn, "[Variant \"ultima\"]"));
    assert_non_null(strstr(pgn, "[Result \"0-1\"]"));
    assert_non_null(strstr(pgn, "1. b1-b6 c8-c5 0-1"));
    free(pgn);
    assert_int_equal(sync_game_json(f->s, 999, &json), STORE_ENOT_FOUND);

    assert_int_equal(sync_profile_json(f->s, "BOB", &json), 0);
    o = json_loads(json, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(o, "username")), "bob");
    assert_int_equal(json_array_size(json_object_get(o, "in_progress")), 1);
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(json_object_get(o, "in_progress"), 0), "id")),
                     other);
    json_t *u = json_object_get(json_object_get(o, "finished"), "ultima");
    assert_int_equal(json_integer_value(json_object_get(u, "wins")), 1);
    assert_int_equal(json_integer_value(json_object_get(u, "losses")), 0);
    json_decref(o);
    free(json);
    assert_int_equal(sync_profile_json(f->s, "nobody", &json), STORE_ENOT_FOUND);
}

/* One error space: store errors that mean what a protocol error means map
 * to it by code; the others fall back; the account codes the HTTP API
 * sends are unchanged. Conditional-line errors map the same way. */
static void test_error_codes(void **state)
{
    (void)state;
    static const struct {
        int store;
        proto_err proto;
    } same[] = {
        {STORE_ENOT_FOUND, PROTO_ENOT_FOUND},
        {STORE_EBAD_ARG, PROTO_EBAD_ARGUMENT},
        {STORE_ENEED_ACCOUNT, PROTO_EACCOUNT_REQUIRED},
        {STORE_EVACATION, PROTO_EVACATION},
        {STORE_EBAD_TC, PROTO_EBAD_TIME_CONTROL},
        {STORE_ENOT_YOUR_TURN, PROTO_ENOT_YOUR_TURN},
        {STORE_EFINISHED, PROTO_EGAME_OVER},
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        assert_int_equal(proto_err_from_code(store_err_code(same[i].store), PROTO_EINTERNAL),
                         same[i].proto);
    static const int other[] = {STORE_EDB,       STORE_ETOO_NEW,  STORE_EBAD_PLY,
                                STORE_EUSERNAME, STORE_EPASSWORD, STORE_ETAKEN,
                                STORE_ELOGIN,    STORE_ENOMEM,    STORE_ECLOSED};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        assert_int_equal(proto_err_from_code(store_err_code(other[i]), PROTO_EINTERNAL),
                         PROTO_EINTERNAL);
    assert_string_equal(store_err_code(STORE_ETAKEN), "username_taken");
    assert_string_equal(store_err_code(STORE_ELOGIN), "bad_login");
    assert_string_equal(store_err_code(STORE_EUSERNAME), "bad_username");
    assert_string_equal(store_err_code(STORE_EPASSWORD), "bad_password");
    assert_int_equal(proto_err_from_code(cond_err_code(COND_ESHORT), PROTO_EINTERNAL),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(proto_err_from_code(cond_err_code(COND_ETOO_LONG), PROTO_EINTERNAL),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(proto_err_from_code(cond_err_code(RULES_ESELF_CHECK), PROTO_EINTERNAL),
                     PROTO_ESELF_CHECK);
    assert_int_equal(proto_err_from_code(cond_err_code(RULES_ENOMEM), PROTO_EINTERNAL),
                     PROTO_EINTERNAL);
}

/* Reads of whole games and profiles are queued behind the writes queued
 * before them: they see those writes, their callback comes after the
 * writes' callbacks, and nothing is committed on the loop to answer them. */
typedef struct order {
    int seen[8];
    int n;
    int nmoves;
    int status;
    int in_progress;
} order;

static void order_write_cb(void *arg, int status)
{
    order *o = arg;
    assert_int_equal(status, 0);
    o->seen[o->n++] = 1;
}

static void order_game_cb(void *arg, int status, const store_game_info *g)
{
    order *o = arg;
    o->seen[o->n++] = 2;
    o->status = status;
    o->nmoves = status == 0 ? g->nmoves : -1;
}

static void order_profile_cb(void *arg, int status, const record_profile *p)
{
    order *o = arg;
    o->seen[o->n++] = 3;
    o->status = status;
    o->in_progress = status == 0 ? p->nplaying : -1;
}

static void test_reads_after_queued_writes(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    int64_t acc[2] = {add_account(f, "ann"), add_account(f, "bob")};
    order o = {0};
    store_new_game ng = {
        .variant = "ultima", .kind = STORE_CORR, .nplayers = 2, .tc = {2 * DAY, 0, 0}};
    for (int p = 0; p < 2; p++) {
        ng.players[p].account = acc[p];
        snprintf(ng.players[p].name, STORE_NAME_MAX, "p%d", p);
    }
    int64_t g;
    char why[160];
    assert_int_equal(store_game_create(f->s, &ng, &g, order_write_cb, &o, why, sizeof why), 0);
    static const char *const texts[] = {"b1-b6", "c8-c5", "a1-a2"};
    for (int i = 0; i < 3; i++) {
        store_move m = {.ply = i, .player = i % 2, .next = (i + 1) % 2, .text = texts[i]};
        assert_int_equal(store_move_append(f->s, g, &m, order_write_cb, &o), 0);
    }
    /* Nothing is on disk yet, and the read does not force it. */
    assert_int_equal(store_game_get(f->s, g, order_game_cb, &o), 0);
    assert_int_equal(store_profile_get(f->s, "ANN", order_profile_cb, &o), 0);
    assert_int_equal(o.n, 0);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves"), 0);
    while (o.n < 6)
        uv_run(&f->loop, UV_RUN_ONCE);
    /* create, 3 moves, then the game (with its 3 moves), then the profile. */
    const int want[6] = {1, 1, 1, 1, 2, 3};
    for (int i = 0; i < 6; i++)
        assert_int_equal(o.seen[i], want[i]);
    assert_int_equal(o.nmoves, 3);
    assert_int_equal(o.status, 0);
    assert_int_equal(o.in_progress, 1);

    /* A finish queued before a read is in what it reads. */
    rules_result r = {.over = true,
                      .winner = 0,
                      .outcome = {RULES_OUTCOME_WIN, RULES_OUTCOME_LOSS},
                      .reason = RULES_REASON_RESIGNATION};
    assert_int_equal(store_game_finish(f->s, g, &r, NULL, NULL), 0);
    char *json;
    assert_int_equal(sync_game_json(f->s, g, &json), 0);
    assert_non_null(strstr(json, "\"status\":\"finished\""));
    free(json);
    assert_int_equal(sync_profile_json(f->s, "bob", &json), 0);
    assert_non_null(strstr(json, "\"in_progress\":[]"));
    assert_non_null(strstr(json, "\"losses\":1"));
    free(json);

    /* Unknown ids and names answer through the callback. */
    o = (order){0};
    assert_int_equal(store_game_get(f->s, 12345, order_game_cb, &o), 0);
    assert_int_equal(store_profile_get(f->s, "nobody", order_profile_cb, &o), 0);
    while (o.n < 2)
        uv_run(&f->loop, UV_RUN_ONCE);
    assert_int_equal(o.nmoves, -1);
    assert_int_equal(o.in_progress, -1);
    assert_int_equal(o.status, STORE_ENOT_FOUND);

    /* A read still queued when the store closes is answered then. */
    o = (order){0};
    assert_int_equal(store_game_get(f->s, g, order_game_cb, &o), 0);
    store_close(f->s);
    assert_int_equal(o.n, 1);
    assert_int_equal(o.status, 0);
    assert_int_equal(o.nmoves, 3);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = NULL;
}

/* ------------------------------------------------------------------------ */
/* Storage faults: a write the database refuses (here a write lock held by
 * another connection: a real SQLITE_BUSY, or on PostgreSQL a table lock
 * past the store's lock_timeout, gone when it commits) is retried,
 * then failed; the store recovers by itself once the cause is gone. */

static store *open_faulty(fixture *f, unsigned retries, unsigned retry_ms)
{
    store_options o = {.migrations_dir = "migrations",
                       .now_ms = clock_fn,
                       .retries = retries,
                       .retry_ms = retry_ms,
                       .busy_ms = 5};
    char why[256] = "";
    store *s = NULL;
    if (store_open(&s, &f->loop, f->db, &o, why, sizeof why) != 0)
        fail_msg("store_open: %s", why);
    return s;
}

/* Another connection holding the database's write lock. */
static sql_conn *hold_write_lock(fixture *f)
{
    sql_conn *db = t_connect(f);
    if (sql_exec(db, pg_fixture_write_lock_sql()) != SQL_OK)
        fail_msg("%s", sql_errmsg(db));
    return db;
}

static void release_write_lock(sql_conn *db)
{
    assert_int_equal(sql_exec(db, "COMMIT"), SQL_OK);
    sql_close(db);
}

static store_stats stats_of(fixture *f)
{
    store_stats st;
    store_get_stats(f->s, &st);
    return st;
}

/* Run the loop until the writer reports a failed try (it is retrying). */
static void wait_failing(fixture *f)
{
    for (int i = 0; i < 20000 && stats_of(f).writable; i++) {
        uv_run(&f->loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    assert_false(stats_of(f).writable);
}

static void run_until(fixture *f, const bool *fired)
{
    for (int i = 0; i < 20000 && !*fired; i++) {
        uv_run(&f->loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    assert_true(*fired);
}

static void noop_timer(uv_timer_t *t)
{
    (void)t;
}

static void test_retry_delay(void **state)
{
    (void)state;
    static const unsigned want[] = {50, 100, 200, 400, 800, 1600, 2000, 2000};
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(store_retry_delay_ms(50, i), want[i]);
    assert_int_equal(store_retry_delay_ms(3000, 0), STORE_RETRY_MAX_MS);
    assert_int_equal(store_retry_delay_ms(1, 40), STORE_RETRY_MAX_MS); /* no overflow */
}

/* The cause goes away while the batch is retried: the move is written and
 * acknowledged (late), nothing fails. */
static void test_write_retried(void **state)
{
    fixture *f = *state;
    f->s = open_faulty(f, 20, 10); /* 10, 20, 40, ... ms: seconds in all */
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    play(f, g, 0, 0, 1, "b1-b6", NULL);
    store_stats st = stats_of(f);
    assert_true(st.writable);
    assert_int_equal(st.write_failures, 0);

    sql_conn *lock = hold_write_lock(f);
    ack a = {.f = f, .game = g, .ply = 1};
    store_move m = {.ply = 1, .player = 1, .next = 0, .text = "c8-c5"};
    assert_int_equal(store_move_append(f->s, g, &m, ack_cb, &a), 0);
    wait_failing(f);
    assert_false(a.fired); /* not acknowledged while it is not on disk */
    assert_true(stats_of(f).error[0] != '\0');
    release_write_lock(lock);
    run_until(f, &a.fired);
    assert_int_equal(a.status, 0);
    assert_true(a.on_disk);
    st = stats_of(f);
    assert_true(st.writable);
    assert_int_equal(st.write_failures, 0);
    assert_true(st.write_retries >= 1);
    assert_string_equal(st.error, "");
}

/* Every try fails: the batch's move and the ops queued behind it fail and
 * are not on disk; the store's games follow the disk again (the move can be
 * queued again at the same ply, a game whose creation failed is gone); a
 * probe finds out by itself that writes commit again. */
static void test_write_fails_then_recovers(void **state)
{
    fixture *f = *state;
    /* 200 + 400 ms of retries: time enough to queue behind the batch out. */
    f->s = open_faulty(f, 2, 200);
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    play(f, g, 0, 0, 1, "b1-b6", NULL);

    sql_conn *lock = hold_write_lock(f);
    ack a1 = {.f = f, .game = g, .ply = 1}, a2 = {.f = f, .game = g, .ply = 2};
    store_move m1 = {.ply = 1, .player = 1, .next = 0, .text = "c8-c5"};
    store_move m2 = {.ply = 2, .player = 0, .next = 1, .text = "a1-a2"};
    assert_int_equal(store_move_append(f->s, g, &m1, ack_cb, &a1), 0);
    wait_failing(f);
    /* Behind the batch out: checked against memory that counts m1. */
    assert_int_equal(store_move_append(f->s, g, &m2, ack_cb, &a2), 0);
    int64_t g2 = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    run_until(f, &a2.fired);
    assert_true(a1.fired);
    assert_int_equal(a1.status, STORE_EDB);
    assert_false(a1.on_disk);
    assert_int_equal(a2.status, STORE_EDB);
    assert_false(a2.on_disk);
    store_stats st = stats_of(f);
    assert_false(st.writable);
    assert_int_equal(st.write_failures, 1);
    assert_int_equal(st.write_retries, 2);
    /* The memory is the disk's: one move, the second game unknown. */
    store_move again = {.ply = 2, .player = 0, .next = 1, .text = "a1-a2"};
    assert_int_equal(store_move_append(f->s, g, &again, NULL, NULL), STORE_EBAD_PLY);
    assert_int_equal(store_move_append(f->s, g2, &m1, NULL, NULL), STORE_ENOT_FOUND);

    /* The cause goes away; no move is queued: the probe (every second)
     * commits and the store is writable again. */
    release_write_lock(lock);
    /* The store's timers do not keep a loop alive: a server's sockets do,
     * this timer here. */
    uv_timer_t alive;
    uv_timer_init(&f->loop, &alive);
    uv_timer_start(&alive, noop_timer, 10, 10);
    for (int i = 0; i < 10000 && !stats_of(f).writable; i++) {
        uv_run(&f->loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    uv_close((uv_handle_t *)&alive, NULL);
    st = stats_of(f);
    if (!st.writable)
        fail_msg("not writable after the lock went: %s (failures %llu)", st.error,
                 (unsigned long long)st.write_failures);
    assert_true(st.write_failures >= 1);
    play(f, g, 1, 1, 0, "c8-c5", NULL);
    play(f, g, 2, 0, 1, "a1-a2", NULL);
    reopen(f);
    restored r = {0};
    assert_int_equal(store_load_in_progress(f->s, restore_cb, &r), 1);
    assert_int_equal(r.g[0].nmoves, 3);
    assert_string_equal(r.texts[0][1], "c8-c5");
}

/* One store per database file: a second open is refused while the first
 * is open, and allowed once it is closed. */
static void test_lock(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    store_options o = {.migrations_dir = "migrations", .now_ms = clock_fn};
    char why[256] = "";
    store *second = NULL;
    assert_int_equal(store_open(&second, &f->loop, f->db, &o, why, sizeof why), STORE_ELOCKED);
    assert_non_null(strstr(why, "in use by another server"));
    reopen(f); /* closed, then opened again */
}

/* PostgreSQL: the store's sessions terminated and the database's lock
 * taken by another server meanwhile: the writer's new session sees the
 * lock held by a stranger and writes no more (never two writers); the
 * move is refused, not acknowledged, and not on disk. */
static void test_lock_lost_to_another_server(void **state)
{
    fixture *f = *state;
    if (!pg_fixture_wanted())
        skip();
    f->s = open_faulty(f, 1, 50);
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    play(f, g, 0, 0, 1, "b1-b6", NULL);

    PGconn *intruder = PQconnectdb(f->db);
    assert_int_equal(PQstatus(intruder), CONNECTION_OK);
    PQclear(PQexec(intruder, "SET application_name = 'another server'"));
    PGresult *r = PQexec(intruder, "SELECT count(pg_terminate_backend(pid)) FROM"
                                   " pg_stat_activity WHERE application_name LIKE 'chameleon[%'");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_true(atoi(PQgetvalue(r, 0, 0)) >= 2);
    PQclear(r);
    /* Blocks until the store's loop session, which held it, is gone. */
    r = PQexec(intruder, "SELECT pg_advisory_lock(1667785069)"); /* 0x6368616d */
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    PQclear(r);

    ack a = {.f = f, .game = g, .ply = 1};
    store_move m = {.ply = 1, .player = 1, .next = 0, .text = "c8-c5"};
    assert_int_equal(store_move_append(f->s, g, &m, ack_cb, &a), 0);
    run_until(f, &a.fired);
    assert_true(a.fired);
    assert_true(a.status < 0);
    assert_false(a.on_disk);
    store_stats st = stats_of(f);
    assert_false(st.writable);
    assert_non_null(strstr(st.error, "another server"));
    assert_int_equal(sql_int(f, "SELECT count(*) FROM moves"), 1);
    PQfinish(intruder);
}

/* A corrupt file is refused with STORE_ECORRUPT and not written to. */
static void test_corrupt_refused(void **state)
{
    fixture *f = *state;
    /* A file's pages overwritten: PostgreSQL checks its own pages. */
    if (pg_fixture_wanted())
        skip();
    f->s = open_dir(f, "migrations");
    int64_t g = new_game(f, STORE_LIVE, 2, NULL, (store_tc){60000, 0, 0});
    play(f, g, 0, 0, 1, "b1-b6", NULL);
    store_close(f->s);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = NULL;
    /* Pages 2 to 5 overwritten (the header page spared). */
    FILE *fp = fopen(f->db, "r+b");
    assert_non_null(fp);
    char junk[4 * 4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 7 + 3);
    assert_int_equal(fseek(fp, 4096, SEEK_SET), 0);
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
    fp = fopen(f->db, "rb");
    char before[8 * 4096];
    size_t n = fread(before, 1, sizeof before, fp);
    fclose(fp);

    store_options o = {.migrations_dir = "migrations", .now_ms = clock_fn};
    char why[256] = "";
    store *s = NULL;
    assert_int_equal(store_open(&s, &f->loop, f->db, &o, why, sizeof why), STORE_ECORRUPT);
    assert_non_null(strstr(why, "corrupt"));
    char after[sizeof before];
    fp = fopen(f->db, "rb");
    assert_int_equal(fread(after, 1, sizeof after, fp), n);
    fclose(fp);
    assert_memory_equal(before, after, n);
}

/* Web Push's subscriptions: each call's answer, waited for on the loop. */
typedef struct push_ans {
    bool fired;
    int status, n;
    store_push_sub subs[8];
} push_ans;

static void push_done_cb(void *arg, int status)
{
    push_ans *a = arg;
    assert_false(a->fired);
    a->fired = true;
    a->status = status;
}

static void push_subs_cb(void *arg, int status, const store_push_sub *subs, int n)
{
    push_ans *a = arg;
    assert_false(a->fired);
    a->fired = true;
    a->status = status;
    a->n = n;
    assert_true(n >= 0 && n <= 8);
    memcpy(a->subs, subs, (size_t)n * sizeof *subs);
}

static int push_wait(fixture *f, int err, push_ans *a)
{
    if (err < 0)
        return err;
    while (!a->fired)
        uv_run(&f->loop, UV_RUN_ONCE);
    return a->status;
}

static int sub_put(fixture *f, int64_t account, const store_push_sub *sub, int keep)
{
    push_ans a = {0};
    return push_wait(f, store_push_sub_put(f->s, account, sub, keep, push_done_cb, &a), &a);
}

static int sub_delete(fixture *f, int64_t account, const char *endpoint)
{
    push_ans a = {0};
    return push_wait(f, store_push_sub_delete(f->s, account, endpoint, push_done_cb, &a), &a);
}

static int sub_gone(fixture *f, const char *endpoint)
{
    push_ans a = {0};
    return push_wait(f, store_push_sub_gone(f->s, endpoint, push_done_cb, &a), &a);
}

/* The account's subscriptions into out (a push_ans): their number. */
static int subs_of(fixture *f, int64_t account, int max, push_ans *out)
{
    *out = (push_ans){0};
    int err = push_wait(f, store_push_subs(f->s, account, max, push_subs_cb, out), out);
    return err < 0 ? err : out->n;
}

/* Web Push's tables (store_push.c): the VAPID pair kept once; an account
 * keeps its `keep` newest subscriptions; an endpoint moves to the account
 * that subscribes it last; delete (the account's own) and gone (anyone's);
 * all of it after a restart. Each subscription call answers through its
 * callback. */
static void test_push_tables(void **state)
{
    fixture *f = *state;
    f->s = open_dir(f, "migrations");
    uint8_t priv[32], pub[65], p2[32], q2[65];
    assert_int_equal(store_push_vapid_get(f->s, priv, pub), STORE_ENOT_FOUND);
    memset(priv, 7, sizeof priv);
    memset(pub, 4, sizeof pub);
    assert_int_equal(store_push_vapid_put(f->s, priv, pub), 0);
    assert_int_equal(store_push_vapid_put(f->s, priv, pub), STORE_EDB); /* once */
    int64_t ann = add_account(f, "ann"), bob = add_account(f, "bob");
    store_push_sub sub;
    memset(&sub, 0, sizeof sub);
    for (int i = 0; i < 5; i++) {
        fake_now += 1000;
        snprintf(sub.endpoint, sizeof sub.endpoint, "https://push.example/%d", i);
        sub.p256dh[0] = (uint8_t)i;
        assert_int_equal(sub_put(f, ann, &sub, 3), 0);
    }
    reopen(f);
    assert_int_equal(store_push_vapid_get(f->s, p2, q2), 0);
    assert_memory_equal(p2, priv, 32);
    assert_memory_equal(q2, pub, 65);
    push_ans out;
    assert_int_equal(subs_of(f, ann, 8, &out), 3); /* the 3 newest */
    assert_string_equal(out.subs[0].endpoint, "https://push.example/4");
    assert_string_equal(out.subs[2].endpoint, "https://push.example/2");
    assert_int_equal(out.subs[0].p256dh[0], 4);
    assert_int_equal(subs_of(f, ann, 1, &out), 1); /* max */
    assert_string_equal(out.subs[0].endpoint, "https://push.example/4");
    /* Bob subscribes ann's endpoint 4: it is his now. */
    snprintf(sub.endpoint, sizeof sub.endpoint, "https://push.example/4");
    assert_int_equal(sub_put(f, bob, &sub, 3), 0);
    assert_int_equal(subs_of(f, ann, 8, &out), 2);
    assert_int_equal(subs_of(f, bob, 8, &out), 1);
    /* Delete: only the account's own; gone: anyone's. */
    assert_int_equal(sub_delete(f, ann, "https://push.example/4"), 0);
    assert_int_equal(sub_delete(f, ann, "https://push.example/3"), 1);
    assert_int_equal(sub_gone(f, "https://push.example/4"), 1);
    assert_int_equal(sub_gone(f, "https://push.example/4"), 0);
    assert_int_equal(subs_of(f, bob, 8, &out), 0);
    assert_int_equal(subs_of(f, ann, 8, &out), 1);
    /* Refused at once: no callback. */
    assert_int_equal(store_push_subs(f->s, ann, 0, push_subs_cb, &out), STORE_EBAD_ARG);
}

/* The subscription calls' error answers: queued together while the
 * database refuses writes (another connection holds the write lock; on
 * PostgreSQL push_subs is locked too), each callback gets STORE_EDB, the
 * read's too (its batch failed); nothing was written. Once the lock is
 * gone they answer again. A call on a closing store is refused at once. */
static void test_push_calls_fail(void **state)
{
    fixture *f = *state;
    f->s = open_faulty(f, 0, 10);
    int64_t ann = add_account(f, "ann");
    store_push_sub sub;
    memset(&sub, 0, sizeof sub);
    snprintf(sub.endpoint, sizeof sub.endpoint, "https://push.example/kept");
    assert_int_equal(sub_put(f, ann, &sub, 3), 0);

    sql_conn *lock = t_connect(f);
    if (sql_exec(lock, pg_fixture_wanted() ? "BEGIN; LOCK TABLE push_subs IN EXCLUSIVE MODE"
                                           : "BEGIN IMMEDIATE") != SQL_OK)
        fail_msg("%s", sql_errmsg(lock));
    push_ans put = {0}, del = {0}, gone = {0}, read = {0};
    snprintf(sub.endpoint, sizeof sub.endpoint, "https://push.example/new");
    assert_int_equal(store_push_sub_put(f->s, ann, &sub, 3, push_done_cb, &put), 0);
    assert_int_equal(
        store_push_sub_delete(f->s, ann, "https://push.example/kept", push_done_cb, &del), 0);
    assert_int_equal(store_push_sub_gone(f->s, "https://push.example/kept", push_done_cb, &gone),
                     0);
    assert_int_equal(store_push_subs(f->s, ann, 8, push_subs_cb, &read), 0);
    assert_int_equal(push_wait(f, 0, &read), STORE_EDB);
    assert_true(put.fired && del.fired && gone.fired);
    assert_int_equal(put.status, STORE_EDB);
    assert_int_equal(del.status, STORE_EDB);
    assert_int_equal(gone.status, STORE_EDB);
    assert_int_equal(read.n, 0);
    release_write_lock(lock);

    push_ans out;
    assert_int_equal(subs_of(f, ann, 8, &out), 1);
    assert_string_equal(out.subs[0].endpoint, "https://push.example/kept");
    store_close(f->s);
    assert_int_equal(store_push_sub_gone(f->s, "https://push.example/kept", push_done_cb, &gone),
                     STORE_ECLOSED);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    f->s = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrations_from_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrations_from_each_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_newer_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_mid_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_every_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_across_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_three_player_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_writes_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vacation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vacation_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vacation_write_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_increment_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_takeback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conditional_moves, setup, teardown),
        cmocka_unit_test(test_cond_check_every_variant),
        cmocka_unit_test_setup_teardown(test_your_turn, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seated_games, setup, teardown),
        cmocka_unit_test_setup_teardown(test_archive_and_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_after_queued_writes, setup, teardown),
        cmocka_unit_test(test_error_codes),
        cmocka_unit_test(test_retry_delay),
        cmocka_unit_test_setup_teardown(test_write_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_fails_then_recovers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_lost_to_another_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_push_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_push_calls_fail, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
