/*
 * sql_pg.c - the PostgreSQL engine of sql.h, over libpq (sql_impl.h).
 *
 * Each statement is prepared on the server once (PQprepare, a name per
 * connection) and run with PQexecPrepared. Parameters go in text format
 * (what SQLite would print: %lld, %.17g) but blobs in binary, so that no
 * escaping is needed; results come in text format and bytea columns are
 * decoded on demand (kept in the statement until its next step or reset).
 * A statement's whole result is fetched at its first step: the store's
 * queries are small (a game, a page of an archive) and a connection runs
 * one statement at a time.
 *
 * Durability: synchronous_commit is set on at connect, whatever the
 * server's default, so that a COMMIT returns only once it is on disk (a
 * move is acknowledged only after that).
 *
 * Pipelining: inside a transaction, a statement that returns no rows
 * (INSERT, UPDATE, DELETE without RETURNING) is only sent (libpq's
 * pipeline mode) and its step returns SQL_DONE at once; the results are
 * read at the next call that needs the server (a query, COMMIT, exec,
 * sql_changes, sql_in_transaction), which fails with the first deferred
 * error, if any. A transaction fails as a whole all the same (the store's
 * writer rolls its batch back), but a batch of moves costs one round trip
 * and its COMMIT, not one per statement.
 *
 * Reconnection: a connection found broken (CONNECTION_BAD after a failure:
 * PostgreSQL restarted, the backend was terminated, the network dropped)
 * is opened again by the next call made outside a transaction, at most
 * once per back-off (PG_BACKOFF_MIN_MS doubling up to PG_BACKOFF_MAX_MS;
 * the calls in between fail at once). A new session: synchronous_commit
 * and the SET statements run on the old one (sql_exec: application_name,
 * lock_timeout) again, every live statement prepared again under its
 * name, then the owner's hook (sql_on_reconnect: the store takes its
 * advisory lock back). Inside a transaction nothing reconnects: every call
 * fails until the owner's ROLLBACK (which then succeeds: the server rolled
 * the transaction back when the session died) or COMMIT.
 *
 * A COMMIT whose answer never came (the connection died while it ran) may
 * or may not have committed: each transaction's id is read just before
 * its COMMIT is sent (txid_current_if_assigned(), in the pipeline with the
 * deferred statements: no round trip of its own for a batch of writes),
 * and sql_commit_outcome asks the server, once reconnected, txid_status of
 * that id (a transaction without one wrote nothing).
 *
 * Owns: the libpq connection and its prepared statements (the opening and
 * reconnection: sql_pg_conn.c). May call: sql_pg_impl.h, libpq.
 */
#include "sql_pg_impl.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* Errors */

/* One line: libpq's messages end with a newline and may hold a DETAIL. */
void pg__set_err(pg_conn_s *c, const char *what, const PGresult *res)
{
    /* The server's own sentence ("duplicate key value violates ..."),
     * without libpq's "ERROR:  " and its DETAIL lines; else libpq's. */
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (msg == NULL || msg[0] == '\0')
        msg = res ? PQresultErrorMessage(res) : "";
    if (msg == NULL || msg[0] == '\0')
        msg = PQerrorMessage(c->pg);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(c->sqlstate, sizeof c->sqlstate, "%s", state ? state : "");
    snprintf(c->err, sizeof c->err, "%s%s%s", what ? what : "", what ? ": " : "",
             msg && msg[0] ? msg : "unknown PostgreSQL error");
    for (char *p = c->err; *p; p++)
        if (*p == '\n')
            *p = p[1] ? ' ' : '\0';
    /* The session is over when libpq says so, or when the server said so
     * before closing (57P01 terminated by an administrator or a shutdown,
     * 57P02/57P03, class 08: connection exceptions). */
    if (PQstatus(c->pg) == CONNECTION_BAD || strncmp(c->sqlstate, "57P", 3) == 0 ||
        strncmp(c->sqlstate, "08", 2) == 0)
        c->broken = true;
    c->lost = c->broken && !c->gone;
}

/* The session is gone (or going): calls need a new one. */
bool pg__down(const pg_conn_s *c)
{
    return c->broken || PQstatus(c->pg) != CONNECTION_OK;
}

void pg__clear_err(pg_conn_s *c)
{
    c->sqlstate[0] = '\0';
    c->err[0] = '\0';
    c->lost = false;
}

/* An INSERT, UPDATE or DELETE sets the count of changes (as SQLite's
 * sqlite3_changes does; a SELECT leaves it). */
static void note_changes(pg_conn_s *c, PGresult *res)
{
    const char *cmd = PQcmdStatus(res);
    if (cmd && (strncmp(cmd, "INSERT", 6) == 0 || strncmp(cmd, "UPDATE", 6) == 0 ||
                strncmp(cmd, "DELETE", 6) == 0 || strncmp(cmd, "MERGE", 5) == 0))
        c->changes = strtoll(PQcmdTuples(res), NULL, 10);
}

/* Notices ("table exists, skipping") are not errors: dropped. */
void pg__no_notices(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

/* What a statement's first word does to the transaction (K_). */
static int kind_of(const char *sql)
{
    static const struct {
        const char *word;
        int kind;
    } words[] = {{"BEGIN", K_BEGIN}, {"START", K_BEGIN},       {"COMMIT", K_COMMIT},
                 {"END", K_COMMIT},  {"ROLLBACK", K_ROLLBACK}, {"ABORT", K_ROLLBACK},
                 {"SET", K_SET}};
    sql += strspn(sql, " \t\r\n(");
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i].word);
        if (strncasecmp(sql, words[i].word, n) == 0 && !isalnum((unsigned char)sql[n]) &&
            sql[n] != '_')
            return words[i].kind;
    }
    return K_OTHER;
}

/* ------------------------------------------------------------------------ */
/* The pipeline */

/* Results of a pipeline this long are read before more is sent: the
 * server's replies must never fill the socket while we only write. */
#define PG_PIPE_MAX 256

/* Read every deferred statement's result and leave pipeline mode: 0, or
 * SQL_ERROR with the first failure's error (then the transaction is
 * aborted: only ROLLBACK works). */
static int drain(pg_conn_s *c)
{
    if (!c->piped)
        return SQL_OK;
    int rc = SQL_OK;
    if (PQpipelineSync(c->pg) != 1) {
        pg__set_err(c, "pipeline", NULL);
        rc = SQL_ERROR;
    }
    for (int nulls = 0;;) {
        PGresult *r = PQgetResult(c->pg);
        if (r == NULL) {
            /* One NULL ends each statement's results; two in a row: the
             * connection has nothing more to say (it broke). */
            if (++nulls >= 2) {
                if (rc == SQL_OK)
                    pg__set_err(c, "pipeline", NULL);
                rc = SQL_ERROR;
                break;
            }
            continue;
        }
        nulls = 0;
        ExecStatusType t = PQresultStatus(r);
        if (t == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            break;
        }
        if (t == PGRES_TUPLES_OK && c->xid_waiting) {
            /* The first result after a BEGIN: the transaction's id. */
            c->xid_waiting = false;
            if (PQntuples(r) == 1)
                c->xid = PQgetisnull(r, 0, 0) ? -1 : strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        } else if (t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK)
            note_changes(c, r);
        else if (t != PGRES_PIPELINE_ABORTED && rc == SQL_OK) {
            pg__set_err(c, NULL, r); /* the first failure; the rest were skipped */
            rc = SQL_ERROR;
        }
        PQclear(r);
    }
    PQexitPipelineMode(c->pg);
    c->piped = false;
    c->pending = 0;
    c->xid_waiting = false;
    return rc;
}

/* drain for a call that cannot report an error (sql_changes, finalize):
 * the next statement's step does. */
static void drain_quiet(pg_conn_s *c)
{
    if (drain(c) < 0)
        c->unreported = true;
}

/* Before a call that needs the server: the pipeline drained, and a failure
 * not told yet told now. 0 or SQL_ERROR. */
static int settle(pg_conn_s *c)
{
    if (c->unreported) {
        c->unreported = false;
        return SQL_ERROR; /* c->err still holds it */
    }
    return drain(c);
}

/* ------------------------------------------------------------------------ */
/* The connection */

struct pg_conn *sql_pg_handle(sql_conn *c)
{
    return c && c->engine == SQL_POSTGRES ? ((pg_conn_s *)c)->pg : NULL;
}

static void pg_close(sql_conn *base)
{
    pg_conn_s *c = (pg_conn_s *)base;
    PQfinish(c->pg); /* the server drops the prepared statements with it */
    free(c->url);
    free(c->settings);
    free(c);
}

static int pg_exec(sql_conn *base, const char *sql)
{
    pg_conn_s *c = (pg_conn_s *)base;
    int kind = kind_of(sql);
    int pre = pg__before_call(c, kind);
    if (pre != 0)
        return pre > 0 ? SQL_OK : SQL_ERROR;
    if (settle(c) < 0)
        return SQL_ERROR;
    pg__clear_err(c);
    /* Several statements in one string run in one round trip; the last
     * result, or the first error, comes back. */
    PGresult *res = PQexec(c->pg, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
        pg__set_err(c, NULL, res);
        PQclear(res);
        pg__after_call(c, kind, false, sql);
        return SQL_ERROR;
    }
    note_changes(c, res);
    PQclear(res);
    pg__after_call(c, kind, true, sql);
    return SQL_OK;
}

static const char *pg_errmsg(const sql_conn *base)
{
    const pg_conn_s *c = (const pg_conn_s *)base;
    return c->err[0] ? c->err : "not an error";
}

static bool pg_unique_violation(const sql_conn *base)
{
    return strcmp(((const pg_conn_s *)base)->sqlstate, "23505") == 0;
}

static int64_t pg_changes(const sql_conn *base)
{
    pg_conn_s *c = (pg_conn_s *)base; /* drained: the connection's own state */
    drain_quiet(c);
    return c->changes;
}

static bool pg_in_transaction(const sql_conn *base)
{
    pg_conn_s *c = (pg_conn_s *)base;
    if (pg__down(c))
        return c->txn; /* the owner must still say ROLLBACK */
    drain_quiet(c);
    if (pg__down(c))
        return c->txn;
    PGTransactionStatusType t = PQtransactionStatus(c->pg);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

/* ------------------------------------------------------------------------ */
/* Statements */

static void drop_blobs(pg_stmt_s *st)
{
    for (int i = 0; i < st->ncols; i++) {
        PQfreemem(st->blob[i]);
        st->blob[i] = NULL;
    }
}

static void drop_result(pg_stmt_s *st)
{
    drop_blobs(st);
    free(st->blob);
    free(st->bloblen);
    st->blob = NULL;
    st->bloblen = NULL;
    st->ncols = 0;
    PQclear(st->res);
    st->res = NULL;
    st->row = 0;
}

/* BEGIN, COMMIT and the like change the transaction: never deferred. */
static bool is_control(const char *sql)
{
    static const char *const words[] = {"BEGIN", "COMMIT", "ROLLBACK",  "END",
                                        "START", "ABORT",  "SAVEPOINT", "RELEASE",
                                        "SET",   "LOCK",   "PREPARE",   "DEALLOCATE"};
    sql += strspn(sql, " \t\r\n(");
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i]);
        if (strncasecmp(sql, words[i], n) == 0 && !isalnum((unsigned char)sql[n]) && sql[n] != '_')
            return true;
    }
    return false;
}

static int pg_prepare(sql_conn *base, const char *sql, sql_stmt **out)
{
    pg_conn_s *c = (pg_conn_s *)base;
    *out = NULL;
    if (pg__ensure(c) < 0 || settle(c) < 0)
        return SQL_ERROR;
    pg__clear_err(c);
    pg_stmt_s *st = calloc(1, sizeof *st);
    if (st != NULL && (st->sql = strdup(sql)) == NULL) {
        free(st);
        st = NULL;
    }
    if (st == NULL) {
        snprintf(c->err, sizeof c->err, "out of memory");
        return SQL_ERROR;
    }
    st->base.ops = &pg__ops;
    st->c = c;
    snprintf(st->name, sizeof st->name, "s%u", ++c->next_name);
    PGresult *res = PQprepare(c->pg, st->name, sql, 0, NULL);
    if (PQresultStatus(res) == PGRES_COMMAND_OK) {
        PQclear(res);
        /* How many parameters the server found ($1..$N). */
        res = PQdescribePrepared(c->pg, st->name);
    }
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        pg__set_err(c, NULL, res);
        PQclear(res);
        free(st->sql);
        free(st);
        return SQL_ERROR;
    }
    st->nparams = PQnparams(res);
    st->deferrable = PQnfields(res) == 0 && !is_control(sql);
    PQclear(res);
    if (st->nparams > 0) {
        st->vals = calloc((size_t)st->nparams, sizeof *st->vals);
        st->lens = calloc((size_t)st->nparams, sizeof *st->lens);
        st->fmts = calloc((size_t)st->nparams, sizeof *st->fmts);
        if (st->vals == NULL || st->lens == NULL || st->fmts == NULL) {
            free(st->vals);
            free(st->lens);
            free(st->fmts);
            free(st->sql);
            free(st);
            snprintf(c->err, sizeof c->err, "out of memory");
            return SQL_ERROR;
        }
    }
    st->kind = kind_of(sql);
    st->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = st;
    c->stmts = st;
    *out = &st->base;
    return SQL_OK;
}

static void pg_clear_bindings(sql_stmt *base)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    for (int i = 0; i < st->nparams; i++) {
        free(st->vals[i]);
        st->vals[i] = NULL;
        st->lens[i] = 0;
        st->fmts[i] = 0;
    }
}

static void pg_reset(sql_stmt *base)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    drop_result(st);
    st->done = false;
}

static void pg_finalize(sql_stmt *base)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    drop_result(st);
    pg_clear_bindings(base);
    drain_quiet(st->c);
    /* Drop it on the server too, unless the connection is gone or stuck in
     * a failed transaction (the server drops it with the connection). */
    if (PQstatus(st->c->pg) == CONNECTION_OK && PQtransactionStatus(st->c->pg) == PQTRANS_IDLE) {
        char sql[40];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
        PQclear(PQexec(st->c->pg, sql));
    }
    if (st->prev)
        st->prev->next = st->next;
    else
        st->c->stmts = st->next;
    if (st->next)
        st->next->prev = st->prev;
    free(st->vals);
    free(st->lens);
    free(st->fmts);
    free(st->sql);
    free(st);
}

/* Parameter i (from 1) takes a copy of n bytes of p; text is NUL-ended. */
static int set_param(pg_stmt_s *st, int i, const void *p, int n, int fmt)
{
    if (i < 1 || i > st->nparams) {
        snprintf(st->c->err, sizeof st->c->err, "parameter %d out of range (1..%d)", i,
                 st->nparams);
        return SQL_ERROR;
    }
    char *v = NULL;
    if (p != NULL) {
        v = malloc((size_t)n + 1);
        if (v == NULL) {
            snprintf(st->c->err, sizeof st->c->err, "out of memory");
            return SQL_ERROR;
        }
        memcpy(v, p, (size_t)n);
        v[n] = '\0';
    }
    free(st->vals[i - 1]);
    st->vals[i - 1] = v;
    st->lens[i - 1] = n;
    st->fmts[i - 1] = fmt;
    return SQL_OK;
}

static int pg_bind_i64(sql_stmt *base, int i, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return set_param((pg_stmt_s *)base, i, buf, n, 0);
}

static int pg_bind_double(sql_stmt *base, int i, double v)
{
    char buf[40];
    int n = snprintf(buf, sizeof buf, "%.17g", v);
    return set_param((pg_stmt_s *)base, i, buf, n, 0);
}

static int pg_bind_text(sql_stmt *base, int i, const char *s, int n)
{
    if (n < 0)
        n = (int)strlen(s);
    return set_param((pg_stmt_s *)base, i, s, n, 0);
}

static int pg_bind_blob(sql_stmt *base, int i, const void *p, int n)
{
    static const char empty[1];
    return set_param((pg_stmt_s *)base, i, n > 0 ? p : empty, n > 0 ? n : 0, 1);
}

static int pg_bind_null(sql_stmt *base, int i)
{
    return set_param((pg_stmt_s *)base, i, NULL, 0, 0);
}

static int pg_step(sql_stmt *base)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    pg_conn_s *c = st->c;
    if (st->done) /* stepping after the end starts it again (as SQLite) */
        pg_reset(base);
    if (st->res == NULL && st->deferrable &&
        (c->piped || PQtransactionStatus(c->pg) == PQTRANS_INTRANS)) {
        /* Sent, not waited for (see the top of the file). */
        st->done = true;
        if (c->unreported) {
            c->unreported = false;
            return SQL_ERROR;
        }
        if (!c->piped && PQenterPipelineMode(c->pg) != 1) {
            pg__set_err(c, "pipeline", NULL);
            return SQL_ERROR;
        }
        c->piped = true;
        if (PQsendQueryPrepared(c->pg, st->name, st->nparams, (const char *const *)st->vals,
                                st->lens, st->fmts, 0) != 1) {
            pg__set_err(c, NULL, NULL);
            char why[sizeof c->err];
            memcpy(why, c->err, sizeof why);
            drain(c);
            memcpy(c->err, why, sizeof why);
            return SQL_ERROR;
        }
        if (++c->pending >= PG_PIPE_MAX && drain(c) < 0)
            return SQL_ERROR;
        return SQL_DONE;
    }
    if (st->res == NULL) {
        int pre = pg__before_call(c, st->kind);
        if (pre == 0 && settle(c) < 0)
            pre = SQL_ERROR;
        if (pre != 0) {
            st->done = true;
            return pre > 0 ? SQL_DONE : SQL_ERROR;
        }
        pg__clear_err(c);
        st->res = PQexecPrepared(c->pg, st->name, st->nparams, (const char *const *)st->vals,
                                 st->lens, st->fmts, 0);
        ExecStatusType rs = PQresultStatus(st->res);
        if (rs != PGRES_TUPLES_OK && rs != PGRES_COMMAND_OK) {
            pg__set_err(c, NULL, st->res);
            drop_result(st);
            st->done = true;
            pg__after_call(c, st->kind, false, NULL);
            return SQL_ERROR;
        }
        note_changes(c, st->res);
        pg__after_call(c, st->kind, true, NULL);
        st->ncols = PQnfields(st->res);
        if (st->ncols > 0) {
            st->blob = calloc((size_t)st->ncols, sizeof *st->blob);
            st->bloblen = calloc((size_t)st->ncols, sizeof *st->bloblen);
            if (st->blob == NULL || st->bloblen == NULL) {
                snprintf(c->err, sizeof c->err, "out of memory");
                drop_result(st);
                st->done = true;
                return SQL_ERROR;
            }
        }
        st->row = 0;
    } else {
        drop_blobs(st);
    }
    if (st->row < PQntuples(st->res)) {
        st->row++;
        return SQL_ROW;
    }
    st->done = true;
    return SQL_DONE;
}

/* The current row's value, or NULL for SQL NULL or no row. */
static const char *value(pg_stmt_s *st, int col)
{
    if (st->res == NULL || st->row < 1 || col < 0 || col >= st->ncols ||
        PQgetisnull(st->res, st->row - 1, col))
        return NULL;
    return PQgetvalue(st->res, st->row - 1, col);
}

static bool pg_column_null(sql_stmt *base, int col)
{
    return value((pg_stmt_s *)base, col) == NULL;
}

static int64_t pg_column_i64(sql_stmt *base, int col)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    const char *v = value(st, col);
    if (v == NULL)
        return 0;
    if (PQftype(st->res, col) == BOOL_OID)
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

static double pg_column_double(sql_stmt *base, int col)
{
    const char *v = value((pg_stmt_s *)base, col);
    return v ? strtod(v, NULL) : 0.0;
}

/* A bytea column decoded from its text form ("\x..."), kept until the
 * next step or reset. */
static const unsigned char *bytea(pg_stmt_s *st, int col)
{
    const char *v = value(st, col);
    if (v == NULL)
        return NULL;
    if (st->blob[col] == NULL) {
        size_t n = 0;
        st->blob[col] = PQunescapeBytea((const unsigned char *)v, &n);
        st->bloblen[col] = st->blob[col] ? n : 0;
    }
    return st->blob[col];
}

static const char *pg_column_text(sql_stmt *base, int col)
{
    return value((pg_stmt_s *)base, col);
}

static const void *pg_column_blob(sql_stmt *base, int col)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    if (value(st, col) == NULL)
        return NULL;
    if (PQftype(st->res, col) == BYTEA_OID)
        return bytea(st, col);
    return PQgetvalue(st->res, st->row - 1, col);
}

static int pg_column_bytes(sql_stmt *base, int col)
{
    pg_stmt_s *st = (pg_stmt_s *)base;
    if (value(st, col) == NULL)
        return 0;
    if (PQftype(st->res, col) == BYTEA_OID)
        return bytea(st, col) ? (int)st->bloblen[col] : 0;
    return PQgetlength(st->res, st->row - 1, col);
}

const sql_ops pg__ops = {
    .close = pg_close,
    .exec = pg_exec,
    .errmsg = pg_errmsg,
    .unique_violation = pg_unique_violation,
    .changes = pg_changes,
    .in_transaction = pg_in_transaction,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .reset = pg_reset,
    .clear_bindings = pg_clear_bindings,
    .bind_i64 = pg_bind_i64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_blob = pg_bind_blob,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .column_null = pg_column_null,
    .column_i64 = pg_column_i64,
    .column_double = pg_column_double,
    .column_text = pg_column_text,
    .column_blob = pg_column_blob,
    .column_bytes = pg_column_bytes,
};
