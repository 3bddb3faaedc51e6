/*
 * sql_dispatch.c - sql.h's public functions: each calls through the table of the
 * engine its connection or statement belongs to (sql_impl.h); sql_open
 * picks the engine from the target.
 *
 * Owns: nothing of its own. May call: sql_impl.h (sql_sqlite_open,
 * sql_pg_open).
 */
#include "sql_impl.h"

#include <stdio.h>
#include <string.h>

sql_engine sql_engine_of(const char *target)
{
    if (target != NULL &&
        (strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0))
        return SQL_POSTGRES;
    return SQL_SQLITE;
}

int sql_open(sql_conn **out, const char *target, int flags, char *why, size_t whylen)
{
    *out = NULL;
    if (sql_engine_of(target) == SQL_POSTGRES)
        return sql_pg_open(out, target, why, whylen);
    return sql_sqlite_open(out, target, flags, why, whylen);
}

void sql_close(sql_conn *c)
{
    if (c != NULL)
        c->ops->close(c);
}

sql_engine sql_conn_engine(const sql_conn *c)
{
    return c->engine;
}

int sql_exec(sql_conn *c, const char *sql)
{
    return c->ops->exec(c, sql);
}

const char *sql_errmsg(const sql_conn *c)
{
    return c != NULL ? c->ops->errmsg(c) : "out of memory";
}

bool sql_unique_violation(const sql_conn *c)
{
    return c->ops->unique_violation(c);
}

int64_t sql_changes(const sql_conn *c)
{
    return c->ops->changes(c);
}

bool sql_in_transaction(const sql_conn *c)
{
    return c->ops->in_transaction(c);
}

void sql_on_reconnect(sql_conn *c, sql_session_fn fn, void *arg)
{
    if (c->engine == SQL_POSTGRES)
        sql_pg_on_reconnect(c, fn, arg);
}

bool sql_conn_lost(const sql_conn *c)
{
    return c != NULL && c->engine == SQL_POSTGRES && sql_pg_lost(c);
}

int sql_commit_outcome(sql_conn *c)
{
    return c->engine == SQL_POSTGRES ? sql_pg_commit_outcome(c) : 0;
}

uint64_t sql_reconnects(void)
{
    return sql_pg_reconnects();
}

int sql_prepare(sql_conn *c, const char *sql, sql_stmt **out)
{
    *out = NULL;
    return c->ops->prepare(c, sql, out);
}

void sql_finalize(sql_stmt *st)
{
    if (st != NULL)
        st->ops->finalize(st);
}

void sql_reset(sql_stmt *st)
{
    st->ops->reset(st);
}

void sql_clear_bindings(sql_stmt *st)
{
    st->ops->clear_bindings(st);
}

int sql_bind_int(sql_stmt *st, int i, int v)
{
    return st->ops->bind_i64(st, i, v);
}

int sql_bind_i64(sql_stmt *st, int i, int64_t v)
{
    return st->ops->bind_i64(st, i, v);
}

int sql_bind_double(sql_stmt *st, int i, double v)
{
    return st->ops->bind_double(st, i, v);
}

int sql_bind_text(sql_stmt *st, int i, const char *s, int n)
{
    if (s == NULL)
        return st->ops->bind_null(st, i);
    return st->ops->bind_text(st, i, s, n < 0 ? (int)strlen(s) : n);
}

int sql_bind_blob(sql_stmt *st, int i, const void *p, int n)
{
    if (p == NULL)
        return st->ops->bind_null(st, i);
    return st->ops->bind_blob(st, i, p, n < 0 ? 0 : n);
}

int sql_bind_null(sql_stmt *st, int i)
{
    return st->ops->bind_null(st, i);
}

int sql_step(sql_stmt *st)
{
    return st->ops->step(st);
}

bool sql_column_null(sql_stmt *st, int col)
{
    return st->ops->column_null(st, col);
}

int sql_column_int(sql_stmt *st, int col)
{
    return (int)st->ops->column_i64(st, col);
}

int64_t sql_column_i64(sql_stmt *st, int col)
{
    return st->ops->column_i64(st, col);
}

double sql_column_double(sql_stmt *st, int col)
{
    return st->ops->column_double(st, col);
}

const char *sql_column_text(sql_stmt *st, int col)
{
    return st->ops->column_text(st, col);
}

const void *sql_column_blob(sql_stmt *st, int col)
{
    return st->ops->column_blob(st, col);
}

int sql_column_bytes(sql_stmt *st, int col)
{
    return st->ops->column_bytes(st, col);
}
