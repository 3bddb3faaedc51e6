/*
 * store_pg.c - the PostgreSQL engine's set-up (the twin of store_lite.c):
 * its connections (the loop's, the writer's, the mail worker's), one
 * server per database, the schema version. See store_impl.h.
 *
 * One server per database: a session-level advisory lock
 * (pg_try_advisory_lock) taken on the loop's connection before anything
 * is written, held while that connection lives. PostgreSQL drops it with
 * the connection, even when the server was killed, as the kernel drops
 * SQLite's flock.
 *
 * What SQLite needs and PostgreSQL does not: no checkpoints (the server
 * checkpoints its own WAL), no quick_check (the server checks its pages:
 * a corrupt relation fails the query that reads it), no page cache of our
 * own (shared_buffers is the server's). Durability: synchronous_commit is
 * set on by sql_pg_open on every connection, so that a COMMIT returns once
 * its WAL is flushed: a move is acknowledged only after that.
 *
 * Known gap: the store's rare synchronous calls (accounts, sessions,
 * vacation, preferences: store.h lists them) run on the loop thread; on
 * PostgreSQL each is a network round trip on the loop (on loopback, well
 * under a millisecond; on another machine, the network's latency).
 */
#include "store_impl.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The advisory lock's key ("cham" in ASCII): advisory locks are per
 * database, so one key serves every database of a PostgreSQL server. */
#define PG_LOCK_KEY 0x6368616dLL

/* One statement's first value as text into out ("" if none). */
static void first_value(sql_conn *c, const char *sql, char *out, size_t n)
{
    out[0] = '\0';
    PGresult *r = PQexec(sql_pg_handle(c), sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
        snprintf(out, n, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

int pg_connect(const char *url, unsigned busy_ms, sql_conn **out, char *why, size_t whylen)
{
    *out = NULL;
    if (sql_open(out, url, 0, why, whylen) < 0)
        return STORE_EDB;
    /* Named, so that pg_stat_activity (and the lock's message) tells
     * which server holds a connection. A statement that waits for a lock
     * longer than busy_ms fails (and the writer retries its batch), as
     * SQLite's busy timeout does: a write never waits for ever. */
    char sql[160];
    snprintf(sql, sizeof sql, "SET application_name = 'chameleon[%ld]'; SET lock_timeout = %u",
             (long)getpid(), busy_ms);
    if (sql_exec(*out, sql) < 0) {
        rules_why(why, whylen, "%s", sql_errmsg(*out));
        return STORE_EDB;
    }
    return 0;
}

/* The lock, or STORE_ELOCKED with who holds it. */
static int pg_lock(store *s, char *why, size_t whylen)
{
    char got[8], sql[400];
    snprintf(sql, sizeof sql, "SELECT pg_try_advisory_lock(%lld)", PG_LOCK_KEY);
    /* A server killed a moment ago holds the lock until PostgreSQL sees
     * its connection gone (at once when it was idle, after its statement
     * when not): a few seconds' patience before refusing. */
    for (int i = 0; i < 30; i++) {
        first_value(s->db, sql, got, sizeof got);
        if (strcmp(got, "t") != 0 && got[0] != '\0')
            usleep(100 * 1000);
        else
            break;
    }
    if (strcmp(got, "t") == 0)
        return 0;
    if (got[0] == '\0') {
        rules_why(why, whylen, "cannot take the database's lock: %s",
                  PQerrorMessage(sql_pg_handle(s->db)));
        return STORE_EDB;
    }
    char who[160];
    snprintf(sql, sizeof sql,
             "SELECT a.application_name || ' from ' || coalesce(host(a.client_addr), 'a socket')"
             " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
             " WHERE l.locktype = 'advisory' AND l.granted AND l.objid = %lld"
             " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
             PG_LOCK_KEY);
    first_value(s->db, sql, who, sizeof who);
    rules_why(why, whylen,
              "the database is in use by another server (%s holds its advisory lock); "
              "one server per database",
              who[0] ? who : "?");
    return STORE_ELOCKED;
}

int pg_open(store *s, const char *url, unsigned busy_ms, char *why, size_t whylen)
{
    int err = pg_connect(url, busy_ms, &s->db, why, whylen);
    if (err < 0)
        return err;
    if ((err = pg_lock(s, why, whylen)) < 0)
        return err;
    /* The schema version: one row, written in each migration's
     * transaction (SQLite keeps it in user_version). */
    if (sql_exec(s->db, "CREATE TABLE IF NOT EXISTS chameleon_schema (version BIGINT NOT NULL);"
                        " INSERT INTO chameleon_schema (version) SELECT 0"
                        " WHERE NOT EXISTS (SELECT 1 FROM chameleon_schema)") < 0) {
        rules_why(why, whylen, "creating the schema version's table: %s", sql_errmsg(s->db));
        return STORE_EDB;
    }
    return 0;
}

int pg_open_writer(store *s, const char *url, unsigned busy_ms, char *why, size_t whylen)
{
    return pg_connect(url, busy_ms, &s->wdb, why, whylen);
}

int pg_version_get(sql_conn *c, int *v)
{
    char got[24];
    first_value(c, "SELECT max(version) FROM chameleon_schema", got, sizeof got);
    if (got[0] == '\0')
        return STORE_EDB;
    *v = atoi(got);
    return 0;
}

int pg_version_set(sql_conn *c, int v)
{
    char sql[80];
    snprintf(sql, sizeof sql, "UPDATE chameleon_schema SET version = %d", v);
    return sql_exec(c, sql) < 0 ? STORE_EDB : 0;
}
