/*
 * sql.h - one connection to an SQL database and its prepared statements,
 * whatever the engine: SQLite (a file path) or PostgreSQL (a
 * "postgresql://" or "postgres://" URL, libpq). The seam under the store:
 * the store's modules speak only this, never sqlite3 or libpq, but for the
 * engine-specific set-up (locks, pragmas, checkpoints, backup) reached
 * through sql_sqlite_handle / sql_pg_handle.
 *
 * Owns: the connection and the statements it prepared. May call: sqlite3
 * (sql_sqlite.c), libpq (sql_pg.c). Used by server/store/store_*.c only.
 *
 * Conventions, those of SQLite's C API so that the store reads the same:
 * parameters are numbered from 1, columns from 0; a statement is bound,
 * stepped (SQL_ROW per row, then SQL_DONE) and reset; reset keeps the
 * bindings, sql_clear_bindings drops them. Text and blobs given to a bind
 * are copied. What a column accessor returns stays valid until the next
 * step, reset or finalize of that statement. The SQL text is the engine's
 * own ("?"/"?N" for SQLite, "$N" for PostgreSQL): the store keeps one
 * statement table per engine.
 *
 * Threads: a connection and its statements belong to one thread at a time.
 * Every call waits for the database (disk or network): the loop thread
 * makes only the rare synchronous calls store.h lists.
 */
#ifndef SQL_H
#define SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { SQL_SQLITE, SQL_POSTGRES } sql_engine;

typedef struct sql_conn sql_conn;
typedef struct sql_stmt sql_stmt;

enum {
    SQL_OK = 0,
    SQL_DONE = 0,        /* sql_step: no more rows */
    SQL_ROW = 1,         /* sql_step: a row is ready */
    SQL_ERROR = -1,      /* any failure; sql_errmsg says why */
    SQL_GONE = -2,       /* a reconnection hook: never connect again */
    SQL_UNKNOWABLE = -3, /* sql_commit_outcome: cannot be told */
};

/* Which engine a target names: PostgreSQL for a "postgresql://" or
 * "postgres://" URL, SQLite for anything else (a file path). */
sql_engine sql_engine_of(const char *target);

/* Open flags (SQLite; PostgreSQL ignores them). */
enum {
    SQL_OPEN_READONLY = 1,
    SQL_OPEN_CREATE = 2, /* create the file if it does not exist */
};

/* Connect: 0 and *out, or SQL_ERROR with the reason in why (and *out
 * NULL). */
int sql_open(sql_conn **out, const char *target, int flags, char *why, size_t whylen);
/* Finalize what is left and disconnect; NULL is a no-op. */
void sql_close(sql_conn *c);
sql_engine sql_conn_engine(const sql_conn *c);

/* Run SQL text that may hold several statements and returns no rows
 * (migrations, BEGIN/COMMIT, settings): 0 or SQL_ERROR. */
int sql_exec(sql_conn *c, const char *sql);
/* The connection's last error, in words. */
const char *sql_errmsg(const sql_conn *c);
/* The last error broke a UNIQUE constraint (a username taken). */
bool sql_unique_violation(const sql_conn *c);
/* Rows changed by the last INSERT, UPDATE or DELETE on the connection. */
int64_t sql_changes(const sql_conn *c);
/* A transaction is open on the connection (after a failed batch: roll
 * back before anything else). */
bool sql_in_transaction(const sql_conn *c);

/* Prepare one statement (kept for the connection's life): 0 and *out, or
 * SQL_ERROR. */
int sql_prepare(sql_conn *c, const char *sql, sql_stmt **out);
void sql_finalize(sql_stmt *st);
/* Back to before its first step (the bindings stay). */
void sql_reset(sql_stmt *st);
void sql_clear_bindings(sql_stmt *st);

/* 0 or SQL_ERROR. A NULL text or blob binds SQL NULL; n < 0: up to the
 * NUL. */
int sql_bind_int(sql_stmt *st, int i, int v);
int sql_bind_i64(sql_stmt *st, int i, int64_t v);
int sql_bind_double(sql_stmt *st, int i, double v);
int sql_bind_text(sql_stmt *st, int i, const char *s, int n);
int sql_bind_blob(sql_stmt *st, int i, const void *p, int n);
int sql_bind_null(sql_stmt *st, int i);

/* SQL_ROW, SQL_DONE or SQL_ERROR. */
int sql_step(sql_stmt *st);

/* The current row's columns. NULL reads as 0, 0.0 or a NULL pointer. */
bool sql_column_null(sql_stmt *st, int col);
int sql_column_int(sql_stmt *st, int col);
int64_t sql_column_i64(sql_stmt *st, int col);
double sql_column_double(sql_stmt *st, int col);
const char *sql_column_text(sql_stmt *st, int col);
const void *sql_column_blob(sql_stmt *st, int col);
int sql_column_bytes(sql_stmt *st, int col); /* of the text or blob */

/* Reconnection (PostgreSQL; SQLite has no connection to lose). A
 * connection found broken is opened again by the next call made outside a
 * transaction, at most once per back-off (the calls in between fail): a
 * new session, the SET statements run through sql_exec replayed, every
 * statement prepared again, then fn(c, arg, why, whylen) if set, which
 * returns 0, SQL_ERROR (the reconnection failed: try later) or SQL_GONE
 * (never again: every call fails from then on, with why). Inside a
 * transaction every call fails until the owner's ROLLBACK or COMMIT. */
typedef int (*sql_session_fn)(sql_conn *c, void *arg, char *why, size_t whylen);
void sql_on_reconnect(sql_conn *c, sql_session_fn fn, void *arg);
/* The last error was the loss of the connection (or a failed reconnection):
 * the same call may work later. */
bool sql_conn_lost(const sql_conn *c);
/* After a COMMIT that failed: 1 it committed all the same (its answer was
 * lost with the connection), 0 it did not, SQL_ERROR not known yet (the
 * database is away: ask again), SQL_UNKNOWABLE. SQLite: 0. */
int sql_commit_outcome(sql_conn *c);
/* Sessions opened again since the process started (every connection). */
uint64_t sql_reconnects(void);

/* The engine's own handle, for what only that engine has (SQLite's
 * pragmas, WAL hook, checkpoints and backup; PostgreSQL's advisory locks):
 * NULL if the connection is of the other engine. */
struct sqlite3 *sql_sqlite_handle(sql_conn *c);
struct pg_conn *sql_pg_handle(sql_conn *c); /* libpq's PGconn */

#endif
