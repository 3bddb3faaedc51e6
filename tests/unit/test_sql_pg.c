/*
 * test_sql_pg.c - the PostgreSQL engine of sql.h (sql_pg.c) and the
 * PostgreSQL statement table (store_sql_pg.c), on a real server: the one
 * CHAMELEON_TEST_PG names, else one this test starts (tests/tools/pg.sh).
 *
 * Every statement of db_sql_of(SQL_POSTGRES) prepares on a database migrated from
 * migrations/postgresql (a dialect mistake, a wrong column or a parameter
 * whose type cannot be inferred fails here); values of each kind make the
 * round trip (64-bit integers, doubles, text, bytea with NUL bytes, NULL);
 * the count of changes, a unique violation, the transaction state and
 * RETURNING id read as the store reads them; in a transaction, writes are
 * pipelined and a failed one fails the COMMIT with its own error; a
 * terminated backend: the call that finds it fails (sql_conn_lost), the
 * next reconnects, its prepared statements, SET statements and hook
 * included; a transaction that lost its session fails until its ROLLBACK;
 * a COMMIT whose answer was lost is told aborted by sql_commit_outcome; a
 * hook that says SQL_GONE ends the connection for good.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_fixture.h"
#include "sql_impl.h"
#include "store_impl.h"

static sql_conn *connect_db(const char *name)
{
    char url[600], why[512] = "";
    if (!pg_fixture_db(url, sizeof url, name))
        fail_msg("no PostgreSQL database %s", name);
    sql_conn *c = NULL;
    if (sql_pg_open(&c, url, why, sizeof why) != SQL_OK)
        fail_msg("sql_pg_open %s: %s", url, why);
    return c;
}

static int cmp_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_sql(const struct dirent *e)
{
    size_t l = strlen(e->d_name);
    return l > 4 && strcmp(e->d_name + l - 4, ".sql") == 0;
}

/* migrations/postgresql/NNNN_*.sql in order, each in a transaction. */
static int migrate(sql_conn *c)
{
    struct dirent **names;
    int n = scandir("migrations/postgresql", &names, is_sql, cmp_name);
    assert_true(n >= 8);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "migrations/postgresql/%s", names[i]->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static char sql[1 << 16];
        size_t len = fread(sql, 1, sizeof sql - 1, f);
        fclose(f);
        sql[len] = '\0';
        assert_int_equal(atoi(names[i]->d_name), i + 1);
        if (sql_exec(c, "BEGIN") != SQL_OK || sql_exec(c, sql) != SQL_OK)
            fail_msg("%s: %s", path, sql_errmsg(c));
        assert_int_equal(sql_exec(c, "COMMIT"), SQL_OK);
        free(names[i]);
    }
    free(names);
    return n;
}

static void test_every_statement_prepares(void **state)
{
    (void)state;
    sql_conn *c = connect_db("chameleon_sql_pg_prep");
    migrate(c);
    for (int i = 0; i < ST_COUNT; i++) {
        const char *sql = db_sql_of(SQL_POSTGRES, (enum db_stmt)i);
        if (sql == NULL)
            fail_msg("statement %d has no PostgreSQL text", i);
        sql_stmt *st = NULL;
        if (sql_prepare(c, sql, &st) != SQL_OK)
            fail_msg("statement %d does not prepare: %s\n  %s", i, sql_errmsg(c), sql);
        sql_finalize(st);
    }
    sql_close(c);
}

/* The store's own statements, run as the store runs them. */
static sql_stmt *prep(sql_conn *c, enum db_stmt which)
{
    sql_stmt *st = NULL;
    if (sql_prepare(c, db_sql_of(SQL_POSTGRES, which), &st) != SQL_OK)
        fail_msg("%s", sql_errmsg(c));
    return st;
}

static void test_values_round_trip(void **state)
{
    (void)state;
    sql_conn *c = connect_db("chameleon_sql_pg_values");
    migrate(c);
    assert_false(sql_in_transaction(c));

    /* RETURNING id, twice: identity ids 1 and 2. */
    sql_stmt *ins = prep(c, ST_ACCOUNT_INSERT);
    const char *names[] = {"Alice", "bob"};
    for (int i = 0; i < 2; i++) {
        sql_reset(ins);
        assert_int_equal(sql_bind_text(ins, 1, names[i], -1), SQL_OK);
        assert_int_equal(sql_bind_text(ins, 2, "$argon2id$x", -1), SQL_OK);
        assert_int_equal(sql_bind_i64(ins, 3, INT64_C(1) << 42), SQL_OK);
        assert_int_equal(sql_step(ins), SQL_ROW);
        assert_int_equal(sql_column_i64(ins, 0), i + 1);
        assert_int_equal(sql_step(ins), SQL_DONE);
        assert_int_equal(sql_changes(c), 1);
    }
    /* A name taken whatever its case: no row (ON CONFLICT DO NOTHING: a
     * refusal that does not abort the batch's transaction). */
    sql_reset(ins);
    assert_int_equal(sql_bind_text(ins, 1, "ALICE", -1), SQL_OK);
    assert_int_equal(sql_bind_text(ins, 2, "$argon2id$x", -1), SQL_OK);
    assert_int_equal(sql_bind_i64(ins, 3, 1), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE);
    sql_finalize(ins);
    /* Without it, a unique violation, told as such. */
    sql_stmt *plain = NULL;
    assert_int_equal(sql_prepare(c,
                                 "INSERT INTO accounts (username, pwhash, created_ms)"
                                 " VALUES ($1, 'h', 1)",
                                 &plain),
                     SQL_OK);
    assert_int_equal(sql_bind_text(plain, 1, "ALICE", -1), SQL_OK);
    assert_int_equal(sql_step(plain), SQL_ERROR);
    assert_true(sql_unique_violation(c));
    assert_non_null(strstr(sql_errmsg(c), "accounts_username"));
    sql_finalize(plain);

    /* Case-insensitive look-up; text and int64 columns. */
    sql_stmt *by = prep(c, ST_ACCOUNT_BY_NAME);
    assert_int_equal(sql_bind_text(by, 1, "aLiCe", 5), SQL_OK);
    assert_int_equal(sql_step(by), SQL_ROW);
    assert_int_equal(sql_column_i64(by, 0), 1);
    assert_string_equal(sql_column_text(by, 1), "Alice");
    assert_int_equal(sql_column_bytes(by, 1), 5);
    assert_int_equal(sql_step(by), SQL_DONE);
    sql_finalize(by);

    /* bytea with NUL bytes in and out; NULL columns. */
    assert_int_equal(sql_exec(c, "BEGIN"), SQL_OK);
    assert_true(sql_in_transaction(c));
    sql_stmt *tok = prep(c, ST_MAIL_TOKEN_INSERT);
    const unsigned char hash[8] = {0, 1, 2, 0, 255, 0x5c, 'x', 0};
    assert_int_equal(sql_bind_blob(tok, 1, hash, sizeof hash), SQL_OK);
    assert_int_equal(sql_bind_i64(tok, 2, 2), SQL_OK);
    assert_int_equal(sql_bind_i64(tok, 3, 1), SQL_OK);
    assert_int_equal(sql_bind_null(tok, 4), SQL_OK);
    assert_int_equal(sql_bind_i64(tok, 5, INT64_MAX), SQL_OK);
    assert_int_equal(sql_step(tok), SQL_DONE);
    sql_finalize(tok);
    assert_int_equal(sql_exec(c, "COMMIT"), SQL_OK);
    assert_false(sql_in_transaction(c));

    sql_stmt *find = prep(c, ST_MAIL_TOKEN_FIND);
    assert_int_equal(sql_bind_blob(find, 1, hash, sizeof hash), SQL_OK);
    assert_int_equal(sql_bind_i64(find, 2, 1), SQL_OK);
    assert_int_equal(sql_bind_i64(find, 3, INT64_MAX - 1), SQL_OK);
    assert_int_equal(sql_step(find), SQL_ROW);
    assert_int_equal(sql_column_i64(find, 0), 2);
    assert_true(sql_column_null(find, 1));
    assert_null(sql_column_text(find, 1));
    assert_int_equal(sql_step(find), SQL_DONE);
    sql_finalize(find);

    /* The VAPID keys: blobs read back byte for byte. */
    sql_stmt *vp = prep(c, ST_PUSH_VAPID_PUT);
    unsigned char key[65];
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (unsigned char)(i * 37);
    assert_int_equal(sql_bind_blob(vp, 1, key, 32), SQL_OK);
    assert_int_equal(sql_bind_blob(vp, 2, key, 65), SQL_OK);
    assert_int_equal(sql_bind_i64(vp, 3, 5), SQL_OK);
    assert_int_equal(sql_step(vp), SQL_DONE);
    sql_finalize(vp);
    sql_stmt *vg = prep(c, ST_PUSH_VAPID_GET);
    assert_int_equal(sql_step(vg), SQL_ROW);
    assert_int_equal(sql_column_bytes(vg, 0), 32);
    assert_memory_equal(sql_column_blob(vg, 0), key, 32);
    assert_int_equal(sql_column_bytes(vg, 1), 65);
    assert_memory_equal(sql_column_blob(vg, 1), key, 65);
    sql_finalize(vg);

    /* Doubles to the last bit; ON CONFLICT replaces (INSERT OR REPLACE). */
    sql_stmt *rp = prep(c, ST_RATING_PUT);
    for (int round = 0; round < 2; round++) {
        sql_reset(rp);
        assert_int_equal(sql_bind_i64(rp, 1, 1), SQL_OK);
        assert_int_equal(sql_bind_text(rp, 2, "ultima", -1), SQL_OK);
        assert_int_equal(sql_bind_text(rp, 3, "blitz", -1), SQL_OK);
        assert_int_equal(sql_bind_double(rp, 4, 1500.0 + round / 3.0), SQL_OK);
        assert_int_equal(sql_bind_double(rp, 5, 0.1), SQL_OK);
        assert_int_equal(sql_bind_double(rp, 6, 1e-300), SQL_OK);
        assert_int_equal(sql_bind_i64(rp, 7, round), SQL_OK);
        assert_int_equal(sql_bind_i64(rp, 8, 7), SQL_OK);
        assert_int_equal(sql_step(rp), SQL_DONE);
    }
    sql_finalize(rp);
    sql_stmt *rg = prep(c, ST_RATING_GET);
    assert_int_equal(sql_bind_i64(rg, 1, 1), SQL_OK);
    assert_int_equal(sql_bind_text(rg, 2, "ultima", -1), SQL_OK);
    assert_int_equal(sql_bind_text(rg, 3, "blitz", -1), SQL_OK);
    assert_int_equal(sql_step(rg), SQL_ROW);
    assert_true(sql_column_double(rg, 0) == 1500.0 + 1 / 3.0);
    assert_true(sql_column_double(rg, 1) == 0.1);
    assert_true(sql_column_double(rg, 2) == 1e-300);
    assert_int_equal(sql_column_i64(rg, 3), 1);
    assert_int_equal(sql_step(rg), SQL_DONE);
    sql_finalize(rg);

    /* The archive's optional filters: NULL text and -1/0 numbers. */
    sql_stmt *ar = prep(c, ST_ARCHIVE);
    assert_int_equal(sql_bind_i64(ar, 1, 1), SQL_OK);
    assert_int_equal(sql_bind_null(ar, 2), SQL_OK);
    assert_int_equal(sql_bind_i64(ar, 3, -1), SQL_OK);
    assert_int_equal(sql_bind_i64(ar, 4, 0), SQL_OK);
    assert_int_equal(sql_bind_i64(ar, 5, 0), SQL_OK);
    assert_int_equal(sql_bind_text(ar, 6, "BOB", -1), SQL_OK);
    assert_int_equal(sql_bind_i64(ar, 7, 10), SQL_OK);
    assert_int_equal(sql_step(ar), SQL_DONE);
    sql_finalize(ar);

    /* The outbox's INSERT OR IGNORE: a second row with one dedupe key is
     * not written and is no error. */
    sql_stmt *ob = prep(c, ST_MAIL_OUTBOX_INSERT);
    for (int i = 0; i < 2; i++) {
        sql_reset(ob);
        assert_int_equal(sql_bind_i64(ob, 1, 1), SQL_OK);
        assert_int_equal(sql_bind_text(ob, 2, "turn", -1), SQL_OK);
        assert_int_equal(sql_bind_text(ob, 3, "low:1:2:1", -1), SQL_OK);
        for (int p = 4; p <= 6; p++)
            assert_int_equal(sql_bind_text(ob, p, "x", -1), SQL_OK);
        assert_int_equal(sql_bind_i64(ob, 7, 1), SQL_OK);
        assert_int_equal(sql_bind_i64(ob, 8, 1), SQL_OK);
        assert_int_equal(sql_step(ob), SQL_DONE);
        assert_int_equal(sql_changes(c), i == 0 ? 1 : 0);
    }
    sql_finalize(ob);
    sql_stmt *mf = prep(c, ST_MAIL_FAILED);
    assert_int_equal(sql_bind_i64(mf, 1, 1), SQL_OK);
    assert_int_equal(sql_bind_text(mf, 2, "550 no", -1), SQL_OK);
    assert_int_equal(sql_bind_i64(mf, 3, 0), SQL_OK);
    assert_int_equal(sql_bind_i64(mf, 4, 99), SQL_OK);
    assert_int_equal(sql_step(mf), SQL_DONE);
    assert_int_equal(sql_changes(c), 1);
    sql_finalize(mf);

    /* A failed statement in a transaction: in_transaction until rollback. */
    assert_int_equal(sql_exec(c, "BEGIN"), SQL_OK);
    assert_int_equal(sql_exec(c, "SELECT no_such_column FROM accounts"), SQL_ERROR);
    assert_non_null(strstr(sql_errmsg(c), "no_such_column"));
    assert_false(sql_unique_violation(c));
    assert_true(sql_in_transaction(c));
    assert_int_equal(sql_exec(c, "ROLLBACK"), SQL_OK);
    assert_false(sql_in_transaction(c));
    sql_close(c);
}

/* Writes in a transaction are only sent (pipelined); a failure among
 * them is told by the next call that waits for the server, with its own
 * error, and the transaction rolls back as a whole. */
static void test_pipelined_writes(void **state)
{
    (void)state;
    sql_conn *c = connect_db("chameleon_sql_pg_pipe");
    migrate(c);
    sql_stmt *ins = prep(c, ST_LOGIN_INSERT);
    sql_stmt *acc = prep(c, ST_ACCOUNT_INSERT);
    assert_int_equal(sql_bind_text(acc, 1, "ann", -1), SQL_OK);
    assert_int_equal(sql_bind_text(acc, 2, "h", -1), SQL_OK);
    assert_int_equal(sql_bind_i64(acc, 3, 1), SQL_OK);
    assert_int_equal(sql_step(acc), SQL_ROW);
    sql_finalize(acc);

    /* 600 inserts (more than one pipeline's worth), then COMMIT. */
    assert_int_equal(sql_exec(c, "BEGIN"), SQL_OK);
    for (int i = 0; i < 600; i++) {
        unsigned char h[4] = {(unsigned char)(i >> 8), (unsigned char)i, 1, 2};
        sql_reset(ins);
        sql_clear_bindings(ins);
        assert_int_equal(sql_bind_blob(ins, 1, h, sizeof h), SQL_OK);
        assert_int_equal(sql_bind_i64(ins, 2, 1), SQL_OK);
        assert_int_equal(sql_bind_i64(ins, 3, i), SQL_OK);
        assert_int_equal(sql_bind_i64(ins, 4, i), SQL_OK);
        assert_int_equal(sql_bind_text(ins, 5, "", -1), SQL_OK);
        assert_int_equal(sql_step(ins), SQL_DONE);
    }
    assert_int_equal(sql_changes(c), 1); /* the last one's, once read */
    assert_true(sql_in_transaction(c));
    assert_int_equal(sql_exec(c, "COMMIT"), SQL_OK);
    sql_stmt *n = NULL;
    assert_int_equal(sql_prepare(c, "SELECT count(*) FROM sessions", &n), SQL_OK);
    assert_int_equal(sql_step(n), SQL_ROW);
    assert_int_equal(sql_column_i64(n, 0), 600);

    /* A duplicate key in the middle: the step says nothing, the COMMIT
     * fails with the duplicate's error, and nothing of it stays. */
    assert_int_equal(sql_exec(c, "BEGIN"), SQL_OK);
    for (int i = 0; i < 3; i++) {
        unsigned char h[4] = {(unsigned char)(i == 1 ? 0 : 9), (unsigned char)i, 1, 2};
        sql_reset(ins);
        assert_int_equal(sql_bind_blob(ins, 1, h, sizeof h), SQL_OK);
        assert_int_equal(sql_step(ins), SQL_DONE);
    }
    assert_int_equal(sql_exec(c, "COMMIT"), SQL_ERROR);
    assert_true(sql_unique_violation(c));
    assert_non_null(strstr(sql_errmsg(c), "duplicate key"));
    assert_true(sql_in_transaction(c));
    assert_int_equal(sql_exec(c, "ROLLBACK"), SQL_OK);
    assert_false(sql_in_transaction(c));
    sql_reset(n);
    assert_int_equal(sql_step(n), SQL_ROW);
    assert_int_equal(sql_column_i64(n, 0), 600);

    /* A failure read by sql_changes is told by the next step. */
    assert_int_equal(sql_exec(c, "BEGIN"), SQL_OK);
    unsigned char dup[4] = {0, 0, 1, 2};
    sql_reset(ins);
    assert_int_equal(sql_bind_blob(ins, 1, dup, sizeof dup), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE);
    sql_changes(c);
    sql_reset(n);
    assert_int_equal(sql_step(n), SQL_ERROR);
    assert_true(sql_unique_violation(c));
    assert_int_equal(sql_exec(c, "ROLLBACK"), SQL_OK);
    sql_finalize(n);
    sql_finalize(ins);
    sql_close(c);
}

static void test_bad_url_is_a_clear_error(void **state)
{
    (void)state;
    char why[512] = "";
    sql_conn *c = (sql_conn *)1;
    assert_int_equal(
        sql_pg_open(&c, "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", why, sizeof why),
        SQL_ERROR);
    assert_null(c);
    assert_non_null(strstr(why, "cannot connect to PostgreSQL"));
}

/* The backend of c terminated from another connection (as an operator's
 * pg_terminate_backend, or PostgreSQL's restart, would). */
static void terminate(sql_conn *c, const char *url)
{
    PGconn *admin = PQconnectdb(url);
    assert_int_equal(PQstatus(admin), CONNECTION_OK);
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%d)", PQbackendPID(sql_pg_handle(c)));
    PGresult *r = PQexec(admin, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    PQfinish(admin);
    /* The backend is gone once the server says so. */
    for (int i = 0; i < 100; i++) {
        admin = PQconnectdb(url);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE pid = %d",
                 PQbackendPID(sql_pg_handle(c)));
        r = PQexec(admin, sql);
        bool gone = PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "0") == 0;
        PQclear(r);
        PQfinish(admin);
        if (gone)
            return;
        usleep(20 * 1000);
    }
    fail_msg("the backend did not go");
}

static int hook_calls, hook_answer;

static int hook(sql_conn *c, void *arg, char *why, size_t whylen)
{
    (void)c;
    assert_ptr_equal(arg, &hook_calls);
    hook_calls++;
    if (hook_answer == SQL_GONE)
        snprintf(why, whylen, "another server took it");
    return hook_answer;
}

static void test_reconnects_after_a_terminated_backend(void **state)
{
    (void)state;
    char url[600];
    sql_conn *c = connect_db("chameleon_sql_pg_re");
    pg_fixture_url(url, sizeof url, "chameleon_sql_pg_re");
    assert_int_equal(sql_exec(c, "CREATE TABLE t (k BIGINT PRIMARY KEY, v TEXT)"), SQL_OK);
    assert_int_equal(sql_exec(c, "SET application_name = 'reconnect-test'"), SQL_OK);
    sql_on_reconnect(c, hook, &hook_calls);
    sql_stmt *ins = NULL, *get = NULL, *name = NULL, *begin = NULL, *commit = NULL;
    assert_int_equal(sql_prepare(c, "INSERT INTO t (k, v) VALUES ($1, $2)", &ins), SQL_OK);
    assert_int_equal(sql_prepare(c, "SELECT v FROM t WHERE k = $1", &get), SQL_OK);
    assert_int_equal(sql_prepare(c, "SELECT current_setting('application_name')", &name), SQL_OK);
    assert_int_equal(sql_prepare(c, "BEGIN", &begin), SQL_OK);
    assert_int_equal(sql_prepare(c, "COMMIT", &commit), SQL_OK);
    assert_int_equal(sql_bind_i64(ins, 1, 1), SQL_OK);
    assert_int_equal(sql_bind_text(ins, 2, "one", -1), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE);
    uint64_t before = sql_reconnects();

    /* Idle: the call that finds the backend gone fails, saying so. */
    terminate(c, url);
    sql_reset(get);
    assert_int_equal(sql_bind_i64(get, 1, 1), SQL_OK);
    assert_int_equal(sql_step(get), SQL_ERROR);
    assert_true(sql_conn_lost(c));
    /* The next reconnects: its statements, its settings, the hook. */
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ROW);
    assert_string_equal(sql_column_text(get, 0), "one");
    assert_false(sql_conn_lost(c));
    assert_int_equal(sql_reconnects(), before + 1);
    assert_int_equal(hook_calls, 1);
    sql_reset(name);
    assert_int_equal(sql_step(name), SQL_ROW);
    assert_string_equal(sql_column_text(name, 0), "reconnect-test");

    /* In a transaction: every call fails until the ROLLBACK, which works
     * (the server rolled back), and nothing of it stays. */
    assert_int_equal(sql_step(begin), SQL_DONE);
    sql_reset(ins);
    assert_int_equal(sql_bind_i64(ins, 1, 2), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE); /* pipelined */
    terminate(c, url);
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ERROR);
    assert_true(sql_conn_lost(c));
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ERROR); /* still in it */
    assert_true(sql_in_transaction(c));
    assert_int_equal(sql_exec(c, "ROLLBACK"), SQL_OK);
    assert_false(sql_in_transaction(c));
    assert_int_equal(sql_commit_outcome(c), 0); /* no COMMIT was lost */
    sql_reset(get);
    assert_int_equal(sql_bind_i64(get, 1, 2), SQL_OK);
    assert_int_equal(sql_step(get), SQL_DONE);
    assert_int_equal(hook_calls, 2);

    /* A COMMIT after the session died: the pipeline read before it fails,
     * the COMMIT is not sent, nothing was committed. */
    sql_reset(begin);
    assert_int_equal(sql_step(begin), SQL_DONE);
    sql_reset(ins);
    assert_int_equal(sql_bind_i64(ins, 1, 3), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE);
    terminate(c, url);
    sql_reset(commit);
    assert_int_equal(sql_step(commit), SQL_ERROR);
    assert_true(sql_conn_lost(c));
    assert_true(sql_in_transaction(c));
    assert_int_equal(sql_exec(c, "ROLLBACK"), SQL_OK);
    assert_int_equal(sql_commit_outcome(c), 0);
    sql_reset(get);
    assert_int_equal(sql_bind_i64(get, 1, 3), SQL_OK);
    assert_int_equal(sql_step(get), SQL_DONE);

    /* A session that dies during its COMMIT (a deferred trigger ends it):
     * the answer is lost; the outcome, asked once reconnected with the
     * transaction's id, is what the table says. */
    assert_int_equal(sql_exec(c, "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
                                 " $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid());"
                                 " PERFORM pg_sleep(0.2); RETURN NULL; END $$;"
                                 " CREATE CONSTRAINT TRIGGER boom AFTER INSERT ON t"
                                 " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                                 " WHEN (NEW.v = 'boom') EXECUTE FUNCTION boom()"),
                     SQL_OK);
    sql_reset(begin);
    assert_int_equal(sql_step(begin), SQL_DONE);
    sql_reset(ins);
    assert_int_equal(sql_bind_i64(ins, 1, 4), SQL_OK);
    assert_int_equal(sql_bind_text(ins, 2, "boom", -1), SQL_OK);
    assert_int_equal(sql_step(ins), SQL_DONE);
    sql_reset(commit);
    assert_int_equal(sql_step(commit), SQL_ERROR);
    assert_true(sql_conn_lost(c));
    assert_false(sql_in_transaction(c));
    int outcome = sql_commit_outcome(c);
    assert_true(outcome == 0 || outcome == 1);
    assert_int_equal(sql_commit_outcome(c), 0); /* once told, no COMMIT is unknown */
    sql_reset(get);
    assert_int_equal(sql_bind_i64(get, 1, 4), SQL_OK);
    assert_int_equal(sql_step(get), outcome == 1 ? SQL_ROW : SQL_DONE);
    print_message("a COMMIT that killed its session: %s\n", outcome == 1 ? "committed" : "aborted");

    /* A hook that says never again: every call fails, not as a loss. */
    hook_answer = SQL_GONE;
    terminate(c, url);
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ERROR);
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ERROR);
    assert_non_null(strstr(sql_errmsg(c), "another server took it"));
    assert_false(sql_conn_lost(c));
    sql_reset(get);
    assert_int_equal(sql_step(get), SQL_ERROR);
    hook_answer = 0;

    sql_finalize(ins);
    sql_finalize(get);
    sql_finalize(name);
    sql_finalize(begin);
    sql_finalize(commit);
    sql_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_statement_prepares),
        cmocka_unit_test(test_values_round_trip),
        cmocka_unit_test(test_pipelined_writes),
        cmocka_unit_test(test_bad_url_is_a_clear_error),
        cmocka_unit_test(test_reconnects_after_a_terminated_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
