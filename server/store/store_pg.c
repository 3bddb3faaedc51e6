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
 * PostgreSQL restarted, a backend terminated: sql_pg.c opens each
 * connection again (and replays its SET statements: application_name,
 * lock_timeout); then pg_claim takes the advisory lock back, on whichever
 * of our connections comes back first (the lock dies with its session): if
 * it is held by a session of another server, that connection is gone for
 * good (SQL_GONE: every call fails, and the log says why): never two
 * servers writing. Our sessions are told from another server's by their
 * application_name, unique per store ("chameleon[pid]-nonce"). A window
 * remains: were only the holding session of ours to die (a terminated
 * backend), another server started in the next instant would get the
 * lock while our other sessions live; they learn it at their own next
 * reconnection at the latest.
 *
 * Node mode (--node, store_lease.c): several nodes share the database,
 * so each takes the same advisory lock SHARED (pg_try_advisory_lock_shared):
 * nodes coexist, and a single server (which wants it exclusive) cannot
 * join them, nor a node a single server. Their start-ups (migrations, the
 * node's row) take turns under a second advisory lock, released once the
 * node is up (pg_startup_done).
 *
 * Known gap: the store's rare synchronous calls (accounts, sessions,
 * vacation, preferences: store.h lists them) run on the loop thread; on
 * PostgreSQL each is a network round trip on the loop (on loopback, well
 * under a millisecond; on another machine, the network's latency).
 */
#include "store_impl.h"
#include "log.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The advisory lock's key ("cham" in ASCII): advisory locks are per
 * database, so one key serves every database of a PostgreSQL server. */
#define PG_LOCK_KEY 0x6368616dLL
/* Node mode: the start-ups of nodes one at a time ("chst"). */
#define PG_START_KEY 0x63687374LL

/* The lock's function: exclusive for a single server, shared for a node. */
static const char *lock_fn(const store *s)
{
    return s->node ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock";
}

/* One statement's first value as text into out ("" if none). */
static void first_value(sql_conn *c, const char *sql, char *out, size_t n)
{
    out[0] = '\0';
    PGresult *r = PQexec(sql_pg_handle(c), sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
        snprintf(out, n, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

static int pg_claim(sql_conn *c, void *arg, char *why, size_t whylen);

int pg_connect(store *s, unsigned busy_ms, sql_conn **out, char *why, size_t whylen)
{
    *out = NULL;
    if (s->pg_name[0] == '\0') {
        /* Unique among the servers of one database: pid and a nonce. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long nonce = ((unsigned long long)ts.tv_sec * 1000000007ULL) ^
                                   (unsigned long long)ts.tv_nsec ^
                                   ((unsigned long long)(uintptr_t)s << 16);
        snprintf(s->pg_name, sizeof s->pg_name, "chameleon[%ld]-%llx", (long)getpid(), nonce);
    }
    if (sql_open(out, s->path, 0, why, whylen) < 0)
        return STORE_EDB;
    /* Named, so that pg_stat_activity (and the lock's message) tells
     * which server holds a connection. A statement that waits for a lock
     * longer than busy_ms fails (and the writer retries its batch), as
     * SQLite's busy timeout does: a write never waits for ever. */
    char sql[200];
    snprintf(sql, sizeof sql, "SET application_name = '%s'; SET lock_timeout = %u", s->pg_name,
             busy_ms);
    if (sql_exec(*out, sql) < 0) {
        rules_why(why, whylen, "%s", sql_errmsg(*out));
        return STORE_EDB;
    }
    sql_on_reconnect(*out, pg_claim, s);
    return 0;
}

/* A new session of ours (sql_on_reconnect): the advisory lock taken back,
 * or seen held by another session of ours; held by another server: this
 * connection is gone for good (SQL_GONE). */
static int pg_claim(sql_conn *c, void *arg, char *why, size_t whylen)
{
    store *s = arg;
    char got[24], sql[600];
    for (int i = 0; i < 30; i++) {
        snprintf(sql, sizeof sql, "SELECT %s(%lld)", lock_fn(s), PG_LOCK_KEY);
        first_value(c, sql, got, sizeof got);
        if (got[0] == '\0') {
            rules_why(why, whylen, "cannot take the database's lock again: %s",
                      PQerrorMessage(sql_pg_handle(c)));
            return SQL_ERROR; /* the connection broke again: later */
        }
        if (strcmp(got, "t") == 0) {
            log_info("store: a PostgreSQL connection is back (it holds the lock now)");
            return 0;
        }
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                 " WHERE l.locktype = 'advisory' AND l.granted AND l.objid = %lld"
                 " AND l.database = (SELECT oid FROM pg_database"
                 " WHERE datname = current_database()) AND a.application_name = '%s'",
                 PG_LOCK_KEY, s->pg_name);
        first_value(c, sql, got, sizeof got);
        if (atoi(got) > 0) {
            log_info("store: a PostgreSQL connection is back");
            return 0;
        }
        /* Held by a session that may be going away: a moment's patience. */
        usleep(100 * 1000);
    }
    rules_why(why, whylen,
              "another server took the database's advisory lock while PostgreSQL was away: "
              "this server writes no more (one server per database); restart it once the "
              "other one is stopped");
    log_kv(LOG_ERROR, "store: the database's lock is lost to another server", "why=\"%s\"", why);
    return SQL_GONE;
}

/* The lock, or STORE_ELOCKED with who holds it. */
static int pg_lock(store *s, char *why, size_t whylen)
{
    char got[8], sql[400];
    snprintf(sql, sizeof sql, "SELECT %s(%lld)", lock_fn(s), PG_LOCK_KEY);
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
    if (s->node)
        rules_why(why, whylen,
                  "the database is in use by a single server (%s holds its advisory lock); "
                  "nodes (--node) share a database only with other nodes",
                  who[0] ? who : "?");
    else
        rules_why(why, whylen,
                  "the database is in use by another server (%s holds its advisory lock); "
                  "one server per database (or several nodes: --node)",
                  who[0] ? who : "?");
    return STORE_ELOCKED;
}

/* Node mode: wait for the start-up of any other node to end (30 s at
 * most: a migration may take a while). */
static int pg_startup_lock(store *s, char *why, size_t whylen)
{
    char got[8], sql[100];
    snprintf(sql, sizeof sql, "SELECT pg_try_advisory_lock(%lld)", PG_START_KEY);
    for (int i = 0; i < 300; i++) {
        first_value(s->db, sql, got, sizeof got);
        if (strcmp(got, "t") == 0)
            return 0;
        if (got[0] == '\0')
            break;
        usleep(100 * 1000);
    }
    rules_why(why, whylen, "cannot take the nodes' start-up lock: %s",
              got[0] ? "another node is starting for too long"
                     : PQerrorMessage(sql_pg_handle(s->db)));
    return STORE_EDB;
}

void pg_startup_done(store *s)
{
    char sql[100], got[8];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(%lld)", PG_START_KEY);
    first_value(s->db, sql, got, sizeof got);
}

int pg_open(store *s, const char *url, unsigned busy_ms, char *why, size_t whylen)
{
    (void)url;
    int err = pg_connect(s, busy_ms, &s->db, why, whylen);
    if (err < 0)
        return err;
    if ((err = pg_lock(s, why, whylen)) < 0)
        return err;
    if (s->node && (err = pg_startup_lock(s, why, whylen)) < 0)
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
    (void)url;
    return pg_connect(s, busy_ms, &s->wdb, why, whylen);
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
