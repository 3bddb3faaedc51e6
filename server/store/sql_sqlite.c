/*
 * sql_sqlite.c - the SQLite engine of sql.h: a thin layer over sqlite3's
 * own API, whose conventions sql.h takes.
 *
 * Owns: its connections and statements. May call: sql_impl.h, sqlite3.
 */
#include "sql_impl.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    sql_conn base; /* first: a sql_conn * is a lite_conn * */
    sqlite3 *db;
} lite_conn;

typedef struct {
    sql_stmt base;
    sqlite3_stmt *st;
} lite_stmt;

static const sql_ops lite_ops;

static sqlite3 *db_of(const sql_conn *c)
{
    return ((const lite_conn *)c)->db;
}

static sqlite3_stmt *st_of(sql_stmt *st)
{
    return ((lite_stmt *)st)->st;
}

static int rc_of(int rc)
{
    return rc == SQLITE_OK ? SQL_OK : SQL_ERROR;
}

int sql_sqlite_open(sql_conn **out, const char *path, int flags, char *why, size_t whylen)
{
    *out = NULL;
    lite_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(why, whylen, "%s: out of memory", path);
        return SQL_ERROR;
    }
    c->base.ops = &lite_ops;
    c->base.engine = SQL_SQLITE;
    int f = (flags & SQL_OPEN_READONLY) ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (!(flags & SQL_OPEN_READONLY) && (flags & SQL_OPEN_CREATE))
        f |= SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &c->db, f, NULL) != SQLITE_OK) {
        snprintf(why, whylen, "%s: %s", path, c->db ? sqlite3_errmsg(c->db) : "out of memory");
        sqlite3_close(c->db);
        free(c);
        return SQL_ERROR;
    }
    *out = &c->base;
    return SQL_OK;
}

struct sqlite3 *sql_sqlite_handle(sql_conn *c)
{
    return c != NULL && c->engine == SQL_SQLITE ? db_of(c) : NULL;
}

static void lite_close(sql_conn *c)
{
    sqlite3_close(db_of(c)); /* after the store finalized its statements */
    free(c);
}

static int lite_exec(sql_conn *c, const char *sql)
{
    return rc_of(sqlite3_exec(db_of(c), sql, NULL, NULL, NULL));
}

static const char *lite_errmsg(const sql_conn *c)
{
    return sqlite3_errmsg(db_of(c));
}

static bool lite_unique_violation(const sql_conn *c)
{
    return sqlite3_extended_errcode(db_of(c)) == SQLITE_CONSTRAINT_UNIQUE;
}

static int64_t lite_changes(const sql_conn *c)
{
#if SQLITE_VERSION_NUMBER >= 3037000
    return (int64_t)sqlite3_changes64(db_of(c));
#else
    return sqlite3_changes(db_of(c));
#endif
}

static bool lite_in_transaction(const sql_conn *c)
{
    return !sqlite3_get_autocommit(db_of(c));
}

static int lite_prepare(sql_conn *c, const char *sql, sql_stmt **out)
{
    lite_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        return SQL_ERROR;
    s->base.ops = &lite_ops;
    /* Kept for the connection's life: SQLite keeps them out of its
     * lookaside memory. */
    if (sqlite3_prepare_v3(db_of(c), sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL) !=
            SQLITE_OK ||
        s->st == NULL) {
        sqlite3_finalize(s->st);
        free(s);
        return SQL_ERROR;
    }
    *out = &s->base;
    return SQL_OK;
}

static void lite_finalize(sql_stmt *st)
{
    sqlite3_finalize(st_of(st));
    free(st);
}

static void lite_reset(sql_stmt *st)
{
    sqlite3_reset(st_of(st));
}

static void lite_clear_bindings(sql_stmt *st)
{
    sqlite3_clear_bindings(st_of(st));
}

static int lite_bind_i64(sql_stmt *st, int i, int64_t v)
{
    return rc_of(sqlite3_bind_int64(st_of(st), i, v));
}

static int lite_bind_double(sql_stmt *st, int i, double v)
{
    return rc_of(sqlite3_bind_double(st_of(st), i, v));
}

static int lite_bind_text(sql_stmt *st, int i, const char *s, int n)
{
    return rc_of(sqlite3_bind_text(st_of(st), i, s, n, SQLITE_TRANSIENT));
}

static int lite_bind_blob(sql_stmt *st, int i, const void *p, int n)
{
    return rc_of(sqlite3_bind_blob(st_of(st), i, p, n, SQLITE_TRANSIENT));
}

static int lite_bind_null(sql_stmt *st, int i)
{
    return rc_of(sqlite3_bind_null(st_of(st), i));
}

static int lite_step(sql_stmt *st)
{
    int rc = sqlite3_step(st_of(st));
    return rc == SQLITE_ROW ? SQL_ROW : rc == SQLITE_DONE ? SQL_DONE : SQL_ERROR;
}

static bool lite_column_null(sql_stmt *st, int col)
{
    return sqlite3_column_type(st_of(st), col) == SQLITE_NULL;
}

static int64_t lite_column_i64(sql_stmt *st, int col)
{
    return sqlite3_column_int64(st_of(st), col);
}

static double lite_column_double(sql_stmt *st, int col)
{
    return sqlite3_column_double(st_of(st), col);
}

static const char *lite_column_text(sql_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st_of(st), col);
}

static const void *lite_column_blob(sql_stmt *st, int col)
{
    return sqlite3_column_blob(st_of(st), col);
}

static int lite_column_bytes(sql_stmt *st, int col)
{
    return sqlite3_column_bytes(st_of(st), col);
}

static const sql_ops lite_ops = {
    .close = lite_close,
    .exec = lite_exec,
    .errmsg = lite_errmsg,
    .unique_violation = lite_unique_violation,
    .changes = lite_changes,
    .in_transaction = lite_in_transaction,
    .prepare = lite_prepare,
    .finalize = lite_finalize,
    .reset = lite_reset,
    .clear_bindings = lite_clear_bindings,
    .bind_i64 = lite_bind_i64,
    .bind_double = lite_bind_double,
    .bind_text = lite_bind_text,
    .bind_blob = lite_bind_blob,
    .bind_null = lite_bind_null,
    .step = lite_step,
    .column_null = lite_column_null,
    .column_i64 = lite_column_i64,
    .column_double = lite_column_double,
    .column_text = lite_column_text,
    .column_blob = lite_column_blob,
    .column_bytes = lite_column_bytes,
};
