/*
 * test_store_mail.c - e-mail in the store (store_mail_*): an account's
 * address and notice preferences, the unsubscribe token and the links'
 * tokens, all queued calls answered through their callbacks on the loop
 * (store_sync.h checks none answers before the loop runs), refusals that
 * are answers (an unknown token) as well as a real SQL failure. On a real
 * SQLite file, or on PostgreSQL when CHAMELEON_TEST_PG is set
 * (tests/pg/run.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_fixture.h"
#include "store_sync.h"

static uv_loop_t loop;
static store *s;
static char dir[] = "/tmp/test_store_mail.XXXXXX";
static char db[300];
static int64_t ann, bob, cid; /* three accounts */

#define UNSUB_A "0123456789abcdef0123456789abcdef"
#define UNSUB_B "fedcba9876543210fedcba9876543210"
#define UNSUB_C "00112233445566778899aabbccddeeff"

static int group_setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/m.db", dir);
    pg_fixture_target(db, sizeof db, path);
    uv_loop_init(&loop);
    char why[200];
    /* A failed batch fails at once (a refused statement is tried again
     * otherwise, with back-off). */
    store_options o = {.retries = STORE_NO_RETRY};
    if (store_open(&s, &loop, db, &o, why, sizeof why) < 0) {
        fprintf(stderr, "store_open: %s\n", why);
        return -1;
    }
    if (sync_account_insert(s, "Ann", "$argon2id$a", &ann) < 0 ||
        sync_account_insert(s, "Bob", "$argon2id$b", &bob) < 0 ||
        sync_account_insert(s, "Cid", "$argon2id$c", &cid) < 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return sync_store_down(s, &loop, dir);
}

/* Preferences: the defaults until the account has a row; ensure makes it
 * once (a second ensure keeps the first token); set changes the bits (only
 * known ones) and the reminder. */
static void test_prefs(void **state)
{
    (void)state;
    store_mail_prefs p;
    assert_int_equal(sync_mail_prefs_get(s, ann, &p), 0);
    assert_false(p.known);
    assert_int_equal(p.prefs, STORE_MAIL_DEFAULT);
    assert_string_equal(p.address, "");
    assert_string_equal(p.unsub, "");

    assert_int_equal(sync_mail_prefs_ensure(s, ann, UNSUB_A, &p), 0);
    assert_true(p.known);
    assert_string_equal(p.unsub, UNSUB_A);
    assert_int_equal(p.prefs, STORE_MAIL_DEFAULT);
    assert_int_equal(p.remind_days, 0);
    assert_int_equal(sync_mail_prefs_ensure(s, ann, UNSUB_C, &p), 0);
    assert_string_equal(p.unsub, UNSUB_A);

    assert_int_equal(sync_mail_prefs_set(s, ann, STORE_MAIL_MOVE | 0xf0, 7, UNSUB_A), 0);
    assert_int_equal(sync_mail_prefs_get(s, ann, &p), 0);
    assert_true(p.known);
    assert_int_equal(p.prefs, STORE_MAIL_MOVE);
    assert_int_equal(p.remind_days, 7);
    assert_string_equal(p.unsub, UNSUB_A);

    /* Set makes the row too, with its token. */
    assert_int_equal(sync_mail_prefs_set(s, bob, STORE_MAIL_DIGEST, 0, UNSUB_B), 0);
    assert_int_equal(sync_mail_prefs_get(s, bob, &p), 0);
    assert_true(p.known);
    assert_int_equal(p.prefs, STORE_MAIL_DIGEST);
    assert_string_equal(p.unsub, UNSUB_B);
}

/* Confirmed addresses, and the accounts of an address whatever its case,
 * in order, at most max. */
static void test_addresses(void **state)
{
    (void)state;
    store_mail_prefs p;
    assert_int_equal(sync_mail_address_set(s, ann, "Ann@Example.org", UNSUB_A), 0);
    assert_int_equal(sync_mail_prefs_get(s, ann, &p), 0);
    assert_string_equal(p.address, "Ann@Example.org");
    assert_int_equal(p.prefs, STORE_MAIL_MOVE); /* kept */
    assert_int_equal(sync_mail_address_set(s, bob, "ann@example.org", UNSUB_B), 0);
    /* A row made by the address: the defaults and its token. */
    assert_int_equal(sync_mail_address_set(s, cid, "cid@example.org", UNSUB_C), 0);
    assert_int_equal(sync_mail_prefs_get(s, cid, &p), 0);
    assert_int_equal(p.prefs, STORE_MAIL_DEFAULT);
    assert_string_equal(p.unsub, UNSUB_C);

    int64_t ids[16];
    assert_int_equal(sync_mail_accounts_of(s, "ANN@example.ORG", ids, 8), 2);
    assert_int_equal(ids[0], ann < bob ? ann : bob);
    assert_int_equal(ids[1], ann < bob ? bob : ann);
    assert_int_equal(sync_mail_accounts_of(s, "ann@example.org", ids, 1), 1);
    assert_int_equal(sync_mail_accounts_of(s, "nobody@example.org", ids, 8), 0);
    /* A bad max is refused at once: no callback. */
    sync_mail m = {0};
    assert_int_equal(store_mail_accounts_of(s, "ann@example.org", 0, sync_mail_accounts_cb, &m),
                     STORE_EBAD_ARG);
    assert_false(m.c.fired);
}

/* Unsubscribe: every notice off for the token's account; an unknown token
 * is an answer (STORE_ENOT_FOUND), not a failed statement: a write in the
 * same batch commits. */
static void test_unsubscribe(void **state)
{
    (void)state;
    store_mail_prefs p;
    assert_int_equal(sync_mail_unsubscribe(s, UNSUB_B), 0);
    assert_int_equal(sync_mail_prefs_get(s, bob, &p), 0);
    assert_int_equal(p.prefs, 0);
    assert_int_equal(p.remind_days, 0);
    assert_string_equal(p.address, "ann@example.org");
    assert_int_equal(sync_mail_prefs_get(s, ann, &p), 0);
    assert_int_equal(p.prefs, STORE_MAIL_MOVE); /* others keep theirs */

    sync_call u = {0}, w = {0};
    assert_int_equal(
        store_mail_unsubscribe(s, "ffffffffffffffffffffffffffffffff", sync_done_cb, &u), 0);
    assert_int_equal(store_mail_prefs_set(s, bob, STORE_MAIL_ALL, 3, UNSUB_B, sync_done_cb, &w), 0);
    assert_false(u.fired);
    assert_int_equal(sync_call_wait(s, &w, 0), 0);
    assert_true(u.fired);
    assert_int_equal(u.status, STORE_ENOT_FOUND);
    assert_int_equal(sync_mail_prefs_get(s, bob, &p), 0);
    assert_int_equal(p.prefs, STORE_MAIL_ALL);
    assert_int_equal(p.remind_days, 3);
}

/* Link tokens: taken once, with their account and address; a new one of
 * the same purpose replaces the last; another purpose, an expired one or an
 * unknown one is STORE_ENOT_FOUND, through the callback. */
static void test_tokens(void **state)
{
    (void)state;
    unsigned char h1[32], h2[32], h3[32], h4[32];
    memset(h1, 0x11, sizeof h1);
    memset(h2, 0x22, sizeof h2);
    memset(h3, 0x33, sizeof h3);
    memset(h4, 0x44, sizeof h4);
    int64_t now = store_now(s), acc = 0;
    char addr[STORE_MAIL_ADDR_MAX];
    assert_int_equal(sync_mail_token_insert(s, h1, sizeof h1, ann, STORE_TOKEN_CONFIRM,
                                            "new@example.org", now + 60000),
                     0);
    assert_int_equal(
        sync_mail_token_take(s, h1, sizeof h1, STORE_TOKEN_RESET, &acc, addr, sizeof addr),
        STORE_ENOT_FOUND);
    assert_int_equal(
        sync_mail_token_take(s, h1, sizeof h1, STORE_TOKEN_CONFIRM, &acc, addr, sizeof addr), 0);
    assert_int_equal(acc, ann);
    assert_string_equal(addr, "new@example.org");
    assert_int_equal(
        sync_mail_token_take(s, h1, sizeof h1, STORE_TOKEN_CONFIRM, &acc, addr, sizeof addr),
        STORE_ENOT_FOUND);

    /* One live link per purpose and account. */
    assert_int_equal(
        sync_mail_token_insert(s, h2, sizeof h2, bob, STORE_TOKEN_RESET, NULL, now + 60000), 0);
    assert_int_equal(
        sync_mail_token_insert(s, h3, sizeof h3, bob, STORE_TOKEN_RESET, NULL, now + 60000), 0);
    assert_int_equal(sync_mail_token_take(s, h2, sizeof h2, STORE_TOKEN_RESET, &acc, NULL, 0),
                     STORE_ENOT_FOUND);
    acc = 0;
    assert_int_equal(
        sync_mail_token_take(s, h3, sizeof h3, STORE_TOKEN_RESET, &acc, addr, sizeof addr), 0);
    assert_int_equal(acc, bob);
    assert_string_equal(addr, ""); /* a reset's token has no address */

    /* Expired. */
    assert_int_equal(
        sync_mail_token_insert(s, h4, sizeof h4, cid, STORE_TOKEN_RESET, NULL, now - 1), 0);
    assert_int_equal(sync_mail_token_take(s, h4, sizeof h4, STORE_TOKEN_RESET, &acc, NULL, 0),
                     STORE_ENOT_FOUND);
}

/* A real SQL failure answers through the callback: a row whose
 * unsubscribe token is another account's breaks the unique constraint, the
 * batch fails (STORE_EDB) and nothing of it is written; every call queued
 * in the same batch (reads too) is answered STORE_EDB; the calls after it
 * work again. */
static void test_sql_failure(void **state)
{
    (void)state;
    int64_t dan = 0;
    assert_int_equal(sync_account_insert(s, "Dan", "$argon2id$d", &dan), 0);
    store_mail_prefs p;
    assert_int_equal(sync_mail_prefs_ensure(s, dan, UNSUB_A, &p), STORE_EDB);
    assert_int_equal(sync_mail_prefs_set(s, dan, 0, 0, UNSUB_B), STORE_EDB);
    assert_int_equal(sync_mail_address_set(s, dan, "dan@example.org", UNSUB_C), STORE_EDB);
    assert_int_equal(sync_mail_prefs_get(s, dan, &p), 0);
    assert_false(p.known);

    /* One batch: the failing write first, then one call of each kind. */
    unsigned char h[32];
    memset(h, 0x55, sizeof h);
    sync_call bad = {0}, u = {0}, w = {0};
    sync_mail g = {0}, a = {0}, t = {0};
    assert_int_equal(store_mail_prefs_set(s, dan, 0, 0, UNSUB_B, sync_done_cb, &bad), 0);
    assert_int_equal(store_mail_prefs_get(s, ann, sync_mail_prefs_cb, &g), 0);
    assert_int_equal(store_mail_accounts_of(s, "ann@example.org", 4, sync_mail_accounts_cb, &a), 0);
    assert_int_equal(store_mail_unsubscribe(s, UNSUB_A, sync_done_cb, &u), 0);
    assert_int_equal(store_mail_token_insert(s, h, sizeof h, ann, STORE_TOKEN_RESET, NULL,
                                             store_now(s) + 60000, sync_done_cb, &w),
                     0);
    assert_int_equal(
        store_mail_token_take(s, h, sizeof h, STORE_TOKEN_RESET, sync_mail_token_cb, &t), 0);
    assert_int_equal(sync_call_wait(s, &t.c, 0), STORE_EDB);
    assert_true(bad.fired && g.c.fired && a.c.fired && u.fired && w.fired);
    assert_int_equal(bad.status, STORE_EDB);
    assert_int_equal(g.c.status, STORE_EDB);
    assert_int_equal(a.c.status, STORE_EDB);
    assert_int_equal(a.n, 0);
    assert_int_equal(u.status, STORE_EDB);
    assert_int_equal(w.status, STORE_EDB);
    assert_int_equal(t.account, 0);
    /* Nothing of it was written: Ann's notices are on, no token is left. */
    assert_int_equal(sync_mail_prefs_get(s, ann, &p), 0);
    assert_int_equal(p.prefs, STORE_MAIL_MOVE);
    int64_t acc;
    assert_int_equal(sync_mail_token_take(s, h, sizeof h, STORE_TOKEN_RESET, &acc, NULL, 0),
                     STORE_ENOT_FOUND);

    assert_int_equal(sync_mail_prefs_ensure(s, dan, "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0", &p), 0);
    assert_true(p.known);
}

/* Calls queued when the store closes are answered by store_close (it
 * writes what is queued), through their callbacks; after, a call is
 * refused at once with STORE_ECLOSED. */
static void test_closed(void **state)
{
    (void)state;
    char file[96], path[300], why[200];
    snprintf(file, sizeof file, "%s/closing.db", dir);
    pg_fixture_target(path, sizeof path, file);
    store *s2;
    assert_int_equal(store_open(&s2, &loop, path, NULL, why, sizeof why), 0);
    int64_t eve = 0;
    assert_int_equal(sync_account_insert(s2, "Eve", "$argon2id$e", &eve), 0);
    unsigned char h[32] = {0};
    sync_mail g = {0}, t = {0};
    sync_call u = {0}, w = {0};
    assert_int_equal(store_mail_token_insert(s2, h, sizeof h, eve, STORE_TOKEN_CONFIRM,
                                             "eve@example.org", store_now(s2) + 60000, sync_done_cb,
                                             &w),
                     0);
    assert_int_equal(
        store_mail_token_take(s2, h, sizeof h, STORE_TOKEN_CONFIRM, sync_mail_token_cb, &t), 0);
    assert_int_equal(store_mail_unsubscribe(s2, UNSUB_A, sync_done_cb, &u), 0);
    assert_int_equal(store_mail_prefs_ensure(s2, eve, UNSUB_A, sync_mail_prefs_cb, &g), 0);
    assert_false(g.c.fired || t.c.fired || u.fired || w.fired);
    store_close(s2);
    assert_true(g.c.fired && t.c.fired && u.fired && w.fired);
    assert_int_equal(w.status, 0);
    assert_int_equal(t.c.status, 0);
    assert_int_equal(t.account, eve);
    assert_string_equal(t.c.text, "eve@example.org");
    assert_int_equal(u.status, STORE_ENOT_FOUND); /* before the row was made */
    assert_int_equal(g.c.status, 0);
    assert_string_equal(g.p.unsub, UNSUB_A);
    sync_call late = {0};
    assert_int_equal(store_mail_prefs_set(s2, eve, 0, 0, UNSUB_A, sync_done_cb, &late),
                     STORE_ECLOSED);
    assert_false(late.fired);
    uv_run(&loop, UV_RUN_DEFAULT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefs),       cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_unsubscribe), cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_sql_failure), cmocka_unit_test(test_closed),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
