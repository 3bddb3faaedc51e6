/*
 * test_sql.c - the seam under the store (server/store/sql.h) on a real database:
 * every bind type (NULL, a blob holding a zero byte), rows then done,
 * columns and NULL columns, reset keeping the bindings, clear_bindings,
 * changes, a unique violation, transactions, errors in words. The same
 * cases run on SQLite (a temporary file) and, when CHAMELEON_TEST_PG holds
 * a postgresql:// URL, on that PostgreSQL database (skipped otherwise).
 * The SQL text is written with "$N" parameters, turned into SQLite's "?N"
 * when the connection is SQLite's.
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

#include "sql.h"

typedef struct {
    sql_conn *c; /* NULL: the engine is not tested here (skip) */
    char dir[64];
    char text[512]; /* the last SQL text q() wrote */
} fixture;

/* The SQL text for the fixture's engine: "$N" as SQLite's "?N". */
static const char *q(fixture *f, const char *sql)
{
    snprintf(f->text, sizeof f->text, "%s", sql);
    if (sql_conn_engine(f->c) == SQL_SQLITE)
        for (char *p = f->text; *p; p++)
            if (*p == '$')
                *p = '?';
    return f->text;
}

static sql_stmt *prep(fixture *f, const char *sql)
{
    sql_stmt *st = NULL;
    if (sql_prepare(f->c, q(f, sql), &st) != SQL_OK)
        fail_msg("prepare %s: %s", f->text, sql_errmsg(f->c));
    assert_non_null(st);
    return st;
}

static void run(fixture *f, const char *sql)
{
    if (sql_exec(f->c, q(f, sql)) != SQL_OK)
        fail_msg("exec %s: %s", f->text, sql_errmsg(f->c));
}

static int group_sqlite(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_sql.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char path[128], why[256] = "";
    snprintf(path, sizeof path, "%s/seam.db", f->dir);
    assert_int_equal(sql_engine_of(path), SQL_SQLITE);
    if (sql_open(&f->c, path, SQL_OPEN_CREATE, why, sizeof why) != SQL_OK)
        fail_msg("sql_open %s: %s", path, why);
    assert_int_equal(sql_conn_engine(f->c), SQL_SQLITE);
    assert_non_null(sql_sqlite_handle(f->c));
    *state = f;
    return 0;
}

static int group_pg(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    const char *url = getenv("CHAMELEON_TEST_PG");
    if (url != NULL && url[0] != '\0') {
        char why[256] = "";
        assert_int_equal(sql_engine_of(url), SQL_POSTGRES);
        if (sql_open(&f->c, url, 0, why, sizeof why) != SQL_OK)
            fail_msg("sql_open %s: %s", url, why);
        assert_int_equal(sql_conn_engine(f->c), SQL_POSTGRES);
        assert_null(sql_sqlite_handle(f->c));
    }
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    if (f->c != NULL)
        sql_exec(f->c, "DROP TABLE IF EXISTS seam_t");
    sql_close(f->c);
    if (f->dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
        assert_int_equal(system(cmd), 0);
    }
    free(f);
    return 0;
}

/* A fresh table before each case (skipped where there is no connection). */
static int setup(void **state)
{
    fixture *f = *state;
    if (f->c == NULL)
        return 0;
    run(f, "DROP TABLE IF EXISTS seam_t");
    run(f, sql_conn_engine(f->c) == SQL_SQLITE
               ? "CREATE TABLE seam_t (id BIGINT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION,"
                 " s TEXT, b BLOB, u BIGINT UNIQUE)"
               : "CREATE TABLE seam_t (id BIGINT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION,"
                 " s TEXT, b BYTEA, u BIGINT UNIQUE)");
    return 0;
}

#define NEED_CONN(f)                                                                               \
    do {                                                                                           \
        if ((f)->c == NULL)                                                                        \
            skip();                                                                                \
    } while (0)

/* Rows (id, i, u, s) inserted through one statement, bound again each time. */
static void insert_rows(fixture *f, int n)
{
    sql_stmt *st = prep(f, "INSERT INTO seam_t (id, i, u, s) VALUES ($1, $2, $3, $4)");
    for (int k = 1; k <= n; k++) {
        char s[16];
        snprintf(s, sizeof s, "row %d", k);
        sql_reset(st);
        assert_int_equal(sql_bind_int(st, 1, k), SQL_OK);
        assert_int_equal(sql_bind_i64(st, 2, (int64_t)k * 10), SQL_OK);
        assert_int_equal(sql_bind_int(st, 3, 100 + k), SQL_OK);
        assert_int_equal(sql_bind_text(st, 4, s, -1), SQL_OK);
        assert_int_equal(sql_step(st), SQL_DONE);
    }
    sql_finalize(st);
}

static void test_every_type(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    static const unsigned char blob[] = {'a', 0, 'b', 0xff};
    const int64_t big = ((int64_t)1 << 40) + 7;
    sql_stmt *st =
        prep(f, "INSERT INTO seam_t (id, i, d, s, b, u) VALUES ($1, $2, $3, $4, $5, $6)");
    assert_int_equal(sql_bind_int(st, 1, 1), SQL_OK);
    assert_int_equal(sql_bind_i64(st, 2, big), SQL_OK);
    assert_int_equal(sql_bind_double(st, 3, 2.5), SQL_OK);
    /* Copied by the bind: the buffer changes before the step. */
    char text[] = "héllo, wörld";
    assert_int_equal(sql_bind_text(st, 4, text, 5 + 1), SQL_OK); /* "héllo": 6 bytes */
    text[0] = 'X';
    assert_int_equal(sql_bind_blob(st, 5, blob, (int)sizeof blob), SQL_OK);
    assert_int_equal(sql_bind_int(st, 6, -7), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    /* A second row of NULLs: a NULL text and blob bind NULL. */
    sql_reset(st);
    assert_int_equal(sql_bind_int(st, 1, 2), SQL_OK);
    assert_int_equal(sql_bind_null(st, 2), SQL_OK);
    assert_int_equal(sql_bind_null(st, 3), SQL_OK);
    assert_int_equal(sql_bind_text(st, 4, NULL, -1), SQL_OK);
    assert_int_equal(sql_bind_blob(st, 5, NULL, 3), SQL_OK);
    assert_int_equal(sql_bind_null(st, 6), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    sql_finalize(st);

    st = prep(f, "SELECT id, i, d, s, b, u FROM seam_t ORDER BY id");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_false(sql_column_null(st, 1));
    assert_int_equal(sql_column_int(st, 0), 1);
    assert_true(sql_column_i64(st, 1) == big);
    assert_true(sql_column_double(st, 2) == 2.5);
    assert_string_equal(sql_column_text(st, 3), "héllo");
    assert_int_equal(sql_column_bytes(st, 3), 6);
    const void *b = sql_column_blob(st, 4);
    assert_non_null(b);
    assert_int_equal(sql_column_bytes(st, 4), (int)sizeof blob);
    assert_memory_equal(b, blob, sizeof blob);
    assert_int_equal(sql_column_int(st, 5), -7);
    assert_true(sql_column_i64(st, 5) == -7);

    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    for (int col = 1; col <= 5; col++)
        assert_true(sql_column_null(st, col));
    assert_false(sql_column_null(st, 0));
    /* NULL reads as 0, 0.0 or a NULL pointer. */
    assert_true(sql_column_i64(st, 1) == 0);
    assert_int_equal(sql_column_int(st, 5), 0);
    assert_true(sql_column_double(st, 2) == 0.0);
    assert_null(sql_column_text(st, 3));
    assert_null(sql_column_blob(st, 4));
    assert_int_equal(sql_column_bytes(st, 4), 0);

    assert_int_equal(sql_step(st), SQL_DONE);
    sql_finalize(st);
}

static void test_rows_then_done(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    insert_rows(f, 3);
    sql_stmt *st = prep(f, "SELECT id, s FROM seam_t WHERE id >= $1 ORDER BY id");
    assert_int_equal(sql_bind_int(st, 1, 2), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    assert_string_equal(sql_column_text(st, 1), "row 2");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 3);
    assert_int_equal(sql_step(st), SQL_DONE);
    /* Reset: from the first row again, the binding kept. */
    sql_reset(st);
    int n = 0, rc;
    while ((rc = sql_step(st)) == SQL_ROW)
        n++;
    assert_int_equal(rc, SQL_DONE);
    assert_int_equal(n, 2);
    /* A reset in the middle of the rows, then a new binding. */
    sql_reset(st);
    assert_int_equal(sql_step(st), SQL_ROW);
    sql_reset(st);
    assert_int_equal(sql_bind_int(st, 1, 3), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 3);
    assert_int_equal(sql_step(st), SQL_DONE);
    sql_finalize(st);
}

static void test_reset_keeps_bindings_clear_drops_them(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    insert_rows(f, 2);
    sql_stmt *st = prep(f, "SELECT count(*) FROM seam_t WHERE id = $1 OR $1 IS NULL");
    sql_reset(st);
    assert_int_equal(sql_bind_int(st, 1, 2), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 1);
    sql_reset(st);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 1);
    /* Unbound parameters are NULL: every row counts. */
    sql_reset(st);
    sql_clear_bindings(st);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    sql_finalize(st);
}

static void test_changes(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    insert_rows(f, 4);
    sql_stmt *st = prep(f, "UPDATE seam_t SET i = $1 WHERE id <= $2");
    assert_int_equal(sql_bind_i64(st, 1, 0), SQL_OK);
    assert_int_equal(sql_bind_int(st, 2, 3), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    assert_true(sql_changes(f->c) == 3);
    sql_reset(st);
    assert_int_equal(sql_bind_int(st, 2, 0), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    assert_true(sql_changes(f->c) == 0);
    sql_finalize(st);
    st = prep(f, "DELETE FROM seam_t WHERE id > $1");
    assert_int_equal(sql_bind_int(st, 1, 2), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    assert_true(sql_changes(f->c) == 2);
    sql_finalize(st);
}

static void test_insert_returning(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    sql_stmt *st = prep(f, "INSERT INTO seam_t (id, s) VALUES ($1, $2) RETURNING id");
    assert_int_equal(sql_bind_int(st, 1, 41), SQL_OK);
    assert_int_equal(sql_bind_text(st, 2, "r", -1), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 41);
    sql_reset(st); /* read as a row, then reset: the row stays */
    sql_finalize(st);
    st = prep(f, "SELECT s FROM seam_t WHERE id = 41");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_string_equal(sql_column_text(st, 0), "r");
    sql_finalize(st);
}

static void test_unique_violation(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    insert_rows(f, 1); /* u = 101 */
    sql_stmt *st = prep(f, "INSERT INTO seam_t (id, u) VALUES ($1, $2)");
    assert_int_equal(sql_bind_int(st, 1, 2), SQL_OK);
    assert_int_equal(sql_bind_int(st, 2, 101), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ERROR);
    assert_true(sql_unique_violation(f->c));
    assert_true(strlen(sql_errmsg(f->c)) > 0);
    /* The statement works again with another value. */
    sql_reset(st);
    assert_int_equal(sql_bind_int(st, 2, 102), SQL_OK);
    assert_int_equal(sql_step(st), SQL_DONE);
    sql_finalize(st);
    /* Another error is no unique violation. */
    assert_int_equal(sql_exec(f->c, "INSERT INTO no_such_table VALUES (1)"), SQL_ERROR);
    assert_false(sql_unique_violation(f->c));
}

static void test_transactions(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    assert_false(sql_in_transaction(f->c));
    run(f, "BEGIN");
    assert_true(sql_in_transaction(f->c));
    insert_rows(f, 2);
    run(f, "ROLLBACK");
    assert_false(sql_in_transaction(f->c));
    sql_stmt *st = prep(f, "SELECT count(*) FROM seam_t");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 0);
    sql_finalize(st);
    run(f, "BEGIN");
    insert_rows(f, 2);
    run(f, "COMMIT");
    assert_false(sql_in_transaction(f->c));
    st = prep(f, "SELECT count(*) FROM seam_t");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    sql_finalize(st);
    /* Several statements in one exec. */
    run(f, "DELETE FROM seam_t WHERE id = 1; DELETE FROM seam_t WHERE id = 2");
    st = prep(f, "SELECT count(*) FROM seam_t");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 0);
    sql_finalize(st);
}

static void test_errors_in_words(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    assert_int_equal(sql_exec(f->c, "SELEC nothing FROM"), SQL_ERROR);
    assert_non_null(strstr(sql_errmsg(f->c), "syntax"));
    /* A bad statement fails when prepared, or at the latest at its first
     * step (an engine may prepare lazily); then with a message. */
    sql_stmt *st = NULL;
    int rc = sql_prepare(f->c, "SELECT * FROM no_such_table", &st);
    if (rc == SQL_OK) {
        assert_non_null(st);
        assert_int_equal(sql_step(st), SQL_ERROR);
        sql_finalize(st);
    } else {
        assert_int_equal(rc, SQL_ERROR);
        assert_null(st);
    }
    assert_non_null(strstr(sql_errmsg(f->c), "no_such_table"));
    /* The connection works on. */
    insert_rows(f, 1);
}

/* Targets: which engine, and a target that cannot be opened. */
static void test_targets(void **state)
{
    fixture *f = *state;
    NEED_CONN(f);
    assert_int_equal(sql_engine_of("postgresql://u@127.0.0.1:5432/db"), SQL_POSTGRES);
    assert_int_equal(sql_engine_of("postgres://127.0.0.1/db"), SQL_POSTGRES);
    assert_int_equal(sql_engine_of("/var/lib/chameleon/chameleon.db"), SQL_SQLITE);
    assert_int_equal(sql_engine_of("postgresql.db"), SQL_SQLITE);
    assert_int_equal(sql_engine_of("./postgres://x"), SQL_SQLITE);
    sql_conn *c = (sql_conn *)1;
    char why[256] = "";
    assert_int_equal(sql_open(&c, "/nonexistent-dir/x.db", 0, why, sizeof why), SQL_ERROR);
    assert_null(c);
    assert_true(strlen(why) > 0);
    c = (sql_conn *)1;
    why[0] = '\0';
    /* Nothing listens on port 1. */
    assert_int_equal(
        sql_open(&c, "postgresql://127.0.0.1:1/none?connect_timeout=5", 0, why, sizeof why),
        SQL_ERROR);
    assert_null(c);
    assert_true(strlen(why) > 0);
    sql_close(NULL);
    sql_finalize(NULL);
}

#define CASES                                                                                      \
    cmocka_unit_test_setup(test_every_type, setup),                                                \
        cmocka_unit_test_setup(test_rows_then_done, setup),                                        \
        cmocka_unit_test_setup(test_reset_keeps_bindings_clear_drops_them, setup),                 \
        cmocka_unit_test_setup(test_changes, setup),                                               \
        cmocka_unit_test_setup(test_insert_returning, setup),                                      \
        cmocka_unit_test_setup(test_unique_violation, setup),                                      \
        cmocka_unit_test_setup(test_transactions, setup),                                          \
        cmocka_unit_test_setup(test_errors_in_words, setup),                                       \
        cmocka_unit_test_setup(test_targets, setup)

int main(void)
{
    const struct CMUnitTest sqlite_cases[] = {CASES};
    const struct CMUnitTest pg_cases[] = {CASES};
    int failed =
        cmocka_run_group_tests_name("sql on SQLite", sqlite_cases, group_sqlite, group_teardown);
    failed += cmocka_run_group_tests_name("sql on PostgreSQL (CHAMELEON_TEST_PG)", pg_cases,
                                          group_pg, group_teardown);
    return failed;
}
