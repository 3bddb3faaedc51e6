/*
 * pg_fixture.h - for the unit tests: a fresh PostgreSQL database per case.
 *
 * CHAMELEON_TEST_PG names a running server (a postgresql:// URL whose
 * user may create databases: tests/pg/run.sh starts one with
 * tests/tools/pg.sh and sets it). pg_fixture_start() starts one itself
 * when it is not set (for a test that must always run against
 * PostgreSQL), stopped at exit. pg_fixture_db(name) drops and creates
 * database "name" and returns its URL. Store tests that run against both
 * engines ask pg_fixture_wanted() whether the variable is set.
 */
#ifndef PG_FIXTURE_H
#define PG_FIXTURE_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pg_fixture_dir[64];
static char pg_fixture_admin[512];

static inline bool pg_fixture_wanted(void)
{
    const char *u = getenv("CHAMELEON_TEST_PG");
    return u != NULL && u[0] != '\0';
}

static inline void pg_fixture_stop(void)
{
    if (pg_fixture_dir[0] == '\0')
        return;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh tests/tools/pg.sh stop %s", pg_fixture_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "pg_fixture: stopping %s failed\n", pg_fixture_dir);
    pg_fixture_dir[0] = '\0';
}

/* The server's admin URL ("" if none could be had). */
static inline const char *pg_fixture_start(void)
{
    if (pg_fixture_admin[0])
        return pg_fixture_admin;
    if (pg_fixture_wanted()) {
        snprintf(pg_fixture_admin, sizeof pg_fixture_admin, "%s", getenv("CHAMELEON_TEST_PG"));
        return pg_fixture_admin;
    }
    snprintf(pg_fixture_dir, sizeof pg_fixture_dir, "/tmp/chameleon-pg-XXXXXX");
    if (mkdtemp(pg_fixture_dir) == NULL)
        return "";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh tests/tools/pg.sh start %s", pg_fixture_dir);
    FILE *p = popen(cmd, "r");
    if (p == NULL || fgets(pg_fixture_admin, sizeof pg_fixture_admin, p) == NULL)
        pg_fixture_admin[0] = '\0';
    if (p)
        pclose(p);
    pg_fixture_admin[strcspn(pg_fixture_admin, "\n")] = '\0';
    atexit(pg_fixture_stop);
    return pg_fixture_admin;
}

/* The URL of the admin URL's server with another database name. */
static inline void pg_fixture_url(char *out, size_t n, const char *name)
{
    const char *admin = pg_fixture_start();
    const char *q = strchr(admin, '?');
    size_t hostlen = q ? (size_t)(q - admin) : strlen(admin);
    /* the last '/' after "postgresql://" ends the host part */
    size_t cut = hostlen;
    for (size_t i = hostlen; i > 13; i--)
        if (admin[i - 1] == '/') {
            cut = i - 1;
            break;
        }
    snprintf(out, n, "%.*s/%s%s", (int)cut, admin, name, q ? q : "");
}

/* Drop and create database name; its URL into out. false on failure (why
 * on stderr). */
static inline bool pg_fixture_db(char *out, size_t n, const char *name)
{
    const char *admin = pg_fixture_start();
    if (admin[0] == '\0')
        return false;
    PGconn *c = PQconnectdb(admin);
    bool ok = PQstatus(c) == CONNECTION_OK;
    if (ok)
        PQclear(PQexec(c, "SET client_min_messages = warning"));
    char sql[256];
    for (int i = 0; ok && i < 2; i++) {
        snprintf(sql, sizeof sql,
                 i == 0 ? "DROP DATABASE IF EXISTS \"%s\" WITH (FORCE)" : "CREATE DATABASE \"%s\"",
                 name);
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    if (!ok)
        fprintf(stderr, "pg_fixture: %s: %s\n", name, PQerrorMessage(c));
    PQfinish(c);
    pg_fixture_url(out, n, name);
    return ok;
}

/* SQL that takes the store's write lock on another connection until its
 * COMMIT: SQLite's database lock; on PostgreSQL, the tables a game's
 * writes and the store's probe touch, locked against writes (reads go on),
 * so that the store's statements wait past their lock_timeout and fail. */
static inline const char *pg_fixture_write_lock_sql(void)
{
    return pg_fixture_wanted() ? "BEGIN; LOCK TABLE games, game_players, moves, leaves, cond_lines,"
                                 " chameleon_schema IN EXCLUSIVE MODE"
                               : "BEGIN IMMEDIATE";
}

/* The database a store test opens: a fresh PostgreSQL database when
 * CHAMELEON_TEST_PG is set (named after the process and a counter), else
 * the SQLite file sqlite_path. */
static inline void pg_fixture_target(char *out, size_t n, const char *sqlite_path)
{
    if (!pg_fixture_wanted()) {
        snprintf(out, n, "%s", sqlite_path);
        return;
    }
    static unsigned count;
    char name[64];
    snprintf(name, sizeof name, "t_%ld_%u", (long)getpid(), ++count);
    if (!pg_fixture_db(out, n, name)) {
        fprintf(stderr, "pg_fixture: no database %s\n", name);
        abort();
    }
}

#endif
