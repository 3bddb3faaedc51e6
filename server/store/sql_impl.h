/*
 * sql_impl.h - PRIVATE to sql_dispatch.c and the engines (sql_sqlite.c, sql_pg.c):
 * the table of one engine's functions. sql_dispatch.c's public functions (sql.h)
 * call through the table of the connection or statement they are given.
 *
 * Owns: the engine table. May call: sql.h.
 */
#ifndef SQL_IMPL_H
#define SQL_IMPL_H

#include "sql.h"

typedef struct sql_ops {
    void (*close)(sql_conn *c);
    int (*exec)(sql_conn *c, const char *sql);
    const char *(*errmsg)(const sql_conn *c);
    bool (*unique_violation)(const sql_conn *c);
    int64_t (*changes)(const sql_conn *c);
    bool (*in_transaction)(const sql_conn *c);
    int (*prepare)(sql_conn *c, const char *sql, sql_stmt **out);
    void (*finalize)(sql_stmt *st);
    void (*reset)(sql_stmt *st);
    void (*clear_bindings)(sql_stmt *st);
    int (*bind_i64)(sql_stmt *st, int i, int64_t v);
    int (*bind_double)(sql_stmt *st, int i, double v);
    int (*bind_text)(sql_stmt *st, int i, const char *s, int n); /* s != NULL */
    int (*bind_blob)(sql_stmt *st, int i, const void *p, int n); /* p != NULL */
    int (*bind_null)(sql_stmt *st, int i);
    int (*step)(sql_stmt *st);
    bool (*column_null)(sql_stmt *st, int col);
    int64_t (*column_i64)(sql_stmt *st, int col);
    double (*column_double)(sql_stmt *st, int col);
    const char *(*column_text)(sql_stmt *st, int col);
    const void *(*column_blob)(sql_stmt *st, int col);
    int (*column_bytes)(sql_stmt *st, int col);
} sql_ops;

/* The first member of each engine's connection and statement structs. */
struct sql_conn {
    const sql_ops *ops;
    sql_engine engine;
};
struct sql_stmt {
    const sql_ops *ops;
};

/* Each engine's opening (sql_open calls the one sql_engine_of names). */
int sql_sqlite_open(sql_conn **out, const char *path, int flags, char *why, size_t whylen);
int sql_pg_open(sql_conn **out, const char *url, char *why, size_t whylen);

/* PostgreSQL's reconnection (sql.h; sql_dispatch.c calls these for its engine). */
void sql_pg_on_reconnect(sql_conn *c, sql_session_fn fn, void *arg);
bool sql_pg_lost(const sql_conn *c);
int sql_pg_commit_outcome(sql_conn *c);
uint64_t sql_pg_reconnects(void);

#endif
