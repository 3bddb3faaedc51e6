/*
 * test_store_pages.c - SQLite's cache pages in their own region
 * (store_pages.c): once a store has opened, the pages of every connection
 * of the process take slots of the region (counted by
 * sqlite3_memory_used), a closed connection gives its slots back, and the
 * next connection reuses them: the same work on a second database touches
 * no new slot. Counted through store_page_region, never timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

static char dir[64];

/* A store opened and closed: from then on the region holds the pages. */
static void open_store_once(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    char db[128], why[256] = "";
    snprintf(db, sizeof db, "%s/store.db", dir);
    store_options o = {.migrations_dir = "migrations"};
    store *s = NULL;
    if (store_open(&s, &loop, db, &o, why, sizeof why) != 0)
        fail_msg("store_open: %s", why);
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* About 4 MB of rows into a new database on one connection with a cache
 * that holds them all; returns the open connection. */
static sqlite3 *fill(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    const char *sql = "PRAGMA cache_size = -65536;"
                      " CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB);"
                      " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                      " WHERE i < 4000) INSERT INTO t SELECT i, randomblob(1000) FROM n;";
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s", err);
    return db;
}

static void test_pages_in_region_and_reused(void **state)
{
    (void)state;
    open_store_once();
    int64_t in_use0, touched0;
    store_page_region(&in_use0, &touched0);
    assert_int_equal(in_use0, 0); /* the store's connections are closed */

    int64_t mem0 = sqlite3_memory_used();
    sqlite3 *a = fill("a.db");
    int64_t in_use1, touched1;
    store_page_region(&in_use1, &touched1);
    /* 4 MB of rows: at least 900 pages of 4 kB, all in the region. */
    assert_true(in_use1 >= 900 * 4096);
    assert_true(touched1 >= in_use1);
    /* Counted as SQLite's memory (xSize). */
    assert_true(sqlite3_memory_used() - mem0 >= in_use1);
    sqlite3_close(a);

    int64_t in_use2, touched2;
    store_page_region(&in_use2, &touched2);
    assert_int_equal(in_use2, 0); /* every slot back */
    assert_int_equal(touched2, touched1);

    /* The same work again: the freed slots serve it, none is new. */
    sqlite3 *b = fill("b.db");
    int64_t in_use3, touched3;
    store_page_region(&in_use3, &touched3);
    assert_true(in_use3 >= 900 * 4096);
    assert_int_equal(touched3, touched1);
    sqlite3_close(b);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_store_pages.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages_in_region_and_reused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
