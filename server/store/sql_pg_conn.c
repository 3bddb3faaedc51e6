/*
 * sql_pg_conn.c - the PostgreSQL engine's connection (sql_pg_impl.h):
 * opening it, opening it again after it broke (with back-off; the SET
 * statements replayed, every statement prepared again, the owner's hook),
 * the transaction as we track it (it must survive the session's loss), and
 * the outcome of a COMMIT whose answer was lost. See sql_pg.c's opening
 * comment ("Reconnection").
 *
 * Owns: the reconnection's state in pg_conn_s. May call: sql_pg_impl.h,
 * libpq.
 */
#include "sql_pg_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sessions opened again, for /metrics (any thread). */
static atomic_uint_fast64_t reconnects;

/* One line of libpq's error of a connection (or of its absence). */
static void conn_why(PGconn *pg, char *why, size_t whylen)
{
    snprintf(why, whylen, "%s", pg ? PQerrorMessage(pg) : "out of memory");
    for (char *p = why; *p; p++)
        if (*p == '\n')
            *p = p[1] ? ' ' : '\0';
}

/* A new session to url with our settings (and `settings`, the SET
 * statements of the session it replaces): the connection, or NULL and
 * why. */
static PGconn *session_open(const char *url, const char *settings, char *why, size_t whylen)
{
    /* A connection attempt gives up after 5 s (the loop's connection
     * reconnects on the loop), and a peer that vanished without a word is
     * noticed by TCP keepalives within about 25 s; the URL's own values,
     * expanded after these, win. */
    static const char *const keys[] = {"connect_timeout",  "keepalives_idle", "keepalives_interval",
                                       "keepalives_count", "dbname",          NULL};
    const char *vals[] = {"5", "10", "5", "3", url, NULL};
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (pg == NULL || PQstatus(pg) != CONNECTION_OK) {
        char msg[400];
        conn_why(pg, msg, sizeof msg);
        snprintf(why, whylen, "cannot connect to PostgreSQL: %s", msg);
        PQfinish(pg);
        return NULL;
    }
    PQsetNoticeProcessor(pg, pg__no_notices, NULL);
    /* A commit returns once it is durable (the server's default may say
     * otherwise); integers and floats print as the store reads them. */
    for (int i = 0; i < 2; i++) {
        const char *sql = i == 0 ? "SET synchronous_commit = on; SET extra_float_digits = 3;"
                                   " SET client_min_messages = warning"
                                 : settings;
        if (sql == NULL || sql[0] == '\0')
            continue;
        PGresult *res = PQexec(pg, sql);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            char msg[400];
            const char *m = PQresultErrorMessage(res);
            snprintf(msg, sizeof msg, "%s", m && m[0] ? m : PQerrorMessage(pg));
            for (char *p = msg; *p; p++)
                if (*p == '\n')
                    *p = p[1] ? ' ' : '\0';
            snprintf(why, whylen, "setting up the connection: %s", msg);
            PQclear(res);
            PQfinish(pg);
            return NULL;
        }
        PQclear(res);
    }
    return pg;
}

int sql_pg_open(sql_conn **out, const char *url, char *why, size_t whylen)
{
    *out = NULL;
    pg_conn_s *c = calloc(1, sizeof *c);
    if (c == NULL || (c->url = strdup(url)) == NULL) {
        free(c);
        snprintf(why, whylen, "out of memory");
        return SQL_ERROR;
    }
    c->base.ops = &pg__ops;
    c->base.engine = SQL_POSTGRES;
    c->pg = session_open(url, NULL, why, whylen);
    if (c->pg == NULL) {
        free(c->url);
        free(c);
        return SQL_ERROR;
    }
    *out = &c->base;
    return SQL_OK;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The connection again (see the top of the file): 0, or SQL_ERROR with
 * why. */
static int reconnect(pg_conn_s *c, char *why, size_t whylen)
{
    PGconn *pg = session_open(c->url, c->settings, why, whylen);
    if (pg == NULL)
        return SQL_ERROR;
    /* Prepared statements die with their session: each again, same name. */
    for (struct pg_stmt_s *st = c->stmts; st != NULL; st = st->next) {
        PGresult *res = PQprepare(pg, st->name, st->sql, 0, NULL);
        bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
        if (!ok)
            snprintf(why, whylen, "preparing %s again: %s", st->name, PQresultErrorMessage(res));
        PQclear(res);
        if (!ok) {
            PQfinish(pg);
            return SQL_ERROR;
        }
    }
    PQfinish(c->pg);
    c->pg = pg;
    c->broken = false;
    c->piped = false;
    c->pending = 0;
    c->unreported = false;
    c->xid_waiting = false;
    if (c->hook) {
        int rc = c->hook(&c->base, c->hook_arg, why, whylen);
        if (rc == SQL_GONE) {
            PQfinish(c->pg);
            c->pg = NULL;
            c->gone = true;
            return SQL_ERROR;
        }
        if (rc < 0) {
            PQfinish(c->pg);
            c->pg = NULL;
            return SQL_ERROR;
        }
    }
    atomic_fetch_add(&reconnects, 1);
    return SQL_OK;
}

/* Before a call that needs the server: the connection, opened again if it
 * broke and the back-off allows. 0 or SQL_ERROR (c->err says why). */
int pg__ensure(pg_conn_s *c)
{
    if (c->gone) {
        if (c->err[0] == '\0' || c->lost)
            snprintf(c->err, sizeof c->err, "%s", c->gone_why);
        c->lost = false;
        return SQL_ERROR;
    }
    if (!pg__down(c))
        return SQL_OK;
    if (c->txn) {
        snprintf(c->err, sizeof c->err,
                 "the connection to PostgreSQL was lost during a transaction");
        c->lost = true;
        return SQL_ERROR;
    }
    uint64_t now = mono_ms();
    if (now < c->retry_at_ms) {
        /* The reason, cut to fit. */
        snprintf(c->err, sizeof c->err, "PostgreSQL is unreachable (next try in %u ms): %.400s",
                 (unsigned)(c->retry_at_ms - now), c->lost_why);
        c->lost = true;
        return SQL_ERROR;
    }
    char why[sizeof c->err];
    if (reconnect(c, why, sizeof why) < 0) {
        if (c->gone) {
            snprintf(c->gone_why, sizeof c->gone_why, "%s", why);
            snprintf(c->err, sizeof c->err, "%s", why);
            c->lost = false;
            return SQL_ERROR;
        }
        c->backoff_ms = c->backoff_ms == 0                      ? PG_BACKOFF_MIN_MS
                        : c->backoff_ms * 2 > PG_BACKOFF_MAX_MS ? PG_BACKOFF_MAX_MS
                                                                : c->backoff_ms * 2;
        c->retry_at_ms = mono_ms() + c->backoff_ms;
        snprintf(c->lost_why, sizeof c->lost_why, "%s", why);
        snprintf(c->err, sizeof c->err, "%s", why);
        c->lost = true;
        return SQL_ERROR;
    }
    c->backoff_ms = 0;
    c->retry_at_ms = 0;
    return SQL_OK;
}

uint64_t sql_pg_reconnects(void)
{
    return atomic_load(&reconnects);
}

void sql_pg_on_reconnect(sql_conn *base, sql_session_fn fn, void *arg)
{
    pg_conn_s *c = (pg_conn_s *)base;
    c->hook = fn;
    c->hook_arg = arg;
}

bool sql_pg_lost(const sql_conn *base)
{
    const pg_conn_s *c = (const pg_conn_s *)base;
    return c->lost && !c->gone;
}

int sql_pg_commit_outcome(sql_conn *base)
{
    pg_conn_s *c = (pg_conn_s *)base;
    if (!c->commit_unknown)
        return 0;
    if (c->commit_xid < 0) {
        c->commit_unknown = false;
        return 0; /* it wrote nothing */
    }
    if (c->commit_xid == 0)
        return SQL_UNKNOWABLE;
    if (pg__ensure(c) < 0)
        return SQL_ERROR;
    char xid[24];
    snprintf(xid, sizeof xid, "%lld", (long long)c->commit_xid);
    const char *vals[1] = {xid};
    PGresult *res =
        PQexecParams(c->pg, "SELECT txid_status($1::bigint)", 1, NULL, vals, NULL, NULL, 0);
    int rc = SQL_ERROR;
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
        pg__set_err(c, "asking whether a COMMIT committed", res);
    else if (PQgetisnull(res, 0, 0))
        rc = SQL_UNKNOWABLE; /* too old to tell: never here */
    else if (strcmp(PQgetvalue(res, 0, 0), "committed") == 0)
        rc = 1;
    else if (strcmp(PQgetvalue(res, 0, 0), "aborted") == 0)
        rc = 0;
    else
        snprintf(c->err, sizeof c->err, "the transaction is still in progress");
    PQclear(res);
    if (rc != SQL_ERROR)
        c->commit_unknown = false;
    return rc;
}

/* Before a COMMIT: the transaction's id (none if it wrote nothing: no id
 * is assigned for reads alone), asked in the pipeline, read with the
 * deferred statements (no round trip of its own when there are some), so
 * that it is known before the COMMIT is sent. */
static void ask_xid(pg_conn_s *c)
{
    c->xid = 0;
    if (!c->piped) {
        if (PQenterPipelineMode(c->pg) != 1)
            return;
        c->piped = true;
        c->pending = 0;
    }
    if (PQsendQueryParams(c->pg, "SELECT txid_current_if_assigned()", 0, NULL, NULL, NULL, NULL,
                          0) == 1) {
        c->pending++;
        c->xid_waiting = true;
    }
}

/* Before a statement that is not deferred: 0 to go on; 1 when it is a
 * ROLLBACK with nothing to roll back (the session, and its transaction,
 * died); SQL_ERROR when the connection is not there (a COMMIT then: its
 * transaction died with the session, nothing was committed). */
int pg__before_call(pg_conn_s *c, int kind)
{
    if (c->txn && (kind == K_ROLLBACK || kind == K_COMMIT) && pg__down(c)) {
        c->txn = false;
        c->piped = false;
        c->pending = 0;
        c->unreported = false;
        c->xid_waiting = false;
        c->commit_unknown = false;
        if (kind == K_ROLLBACK) {
            pg__clear_err(c);
            return 1;
        }
        snprintf(c->err, sizeof c->err,
                 "the connection to PostgreSQL was lost before COMMIT: nothing was committed");
        c->lost = !c->gone;
        return SQL_ERROR;
    }
    if (pg__ensure(c) < 0)
        return SQL_ERROR;
    if (kind == K_COMMIT && c->txn)
        ask_xid(c);
    return 0;
}

/* After a statement that was sent (ok: it succeeded): the transaction as
 * we track it, and a COMMIT whose answer never came. */
void pg__after_call(pg_conn_s *c, int kind, bool ok, const char *sql)
{
    if (kind == K_BEGIN && ok) {
        c->txn = true;
        c->xid = 0;
        c->commit_unknown = false;
    } else if (kind == K_COMMIT || kind == K_ROLLBACK) {
        if (kind == K_COMMIT && !ok && pg__down(c)) {
            c->commit_unknown = true; /* sent; the answer never came */
            c->commit_xid = c->xid;
        }
        c->txn = false;
        c->xid = 0;
    } else if (kind == K_SET && ok && !c->txn && sql != NULL) {
        /* A session setting: replayed on a new session. */
        size_t have = c->settings ? strlen(c->settings) : 0;
        char *n = realloc(c->settings, have + strlen(sql) + 3);
        if (n != NULL) {
            snprintf(n + have, strlen(sql) + 3, "%s%s", have ? "; " : "", sql);
            c->settings = n;
        }
    }
}
