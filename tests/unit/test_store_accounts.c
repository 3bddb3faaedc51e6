/*
 * test_store_accounts.c - accounts and sessions on a real SQLite file:
 * registration rules, argon2id off the loop, login, sessions stored only as
 * hashes, logout, the cookie, and the store functions they are built on.
 * On PostgreSQL instead when CHAMELEON_TEST_PG is set (tests/pg/run.sh).
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

#include "accounts.h"
#include "pg_fixture.h"
#include "sql.h"
#include "store_sync.h"

typedef struct result {
    bool fired;
    int status;
    int64_t account;
    char username[STORE_NAME_MAX];
    char token[ACCOUNTS_TOKEN_LEN + 1];
    char why[160];
} result;

static void cb(void *arg, int status, int64_t account, const char *username, const char *token,
               const char *why)
{
    result *r = arg;
    r->fired = true;
    r->status = status;
    r->account = account;
    snprintf(r->username, sizeof r->username, "%s", username ? username : "");
    snprintf(r->token, sizeof r->token, "%s", token ? token : "");
    snprintf(r->why, sizeof r->why, "%s", why ? why : "");
}

/* Another connection to the store's database (SQLite file or PostgreSQL
 * URL), to see what is committed. */
static sql_conn *raw_open(const char *target)
{
    sql_conn *c = NULL;
    char why[256] = "";
    if (sql_open(&c, target, 0, why, sizeof why) != SQL_OK)
        fail_msg("%s: %s", target, why);
    return c;
}

static sql_stmt *raw_prepare(sql_conn *c, const char *sql)
{
    sql_stmt *st = NULL;
    if (sql_prepare(c, sql, &st) != SQL_OK)
        fail_msg("%s: %s", sql, sql_errmsg(c));
    return st;
}

static uv_loop_t loop;
static store *s;
static char dir[] = "/tmp/test_accounts.XXXXXX";
static char db[300];

/* accounts_login_find, _name and _find waited for (queued calls). */
static int session_of(const char *token, int64_t *acc, char *name, size_t len)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, accounts_login_find(s, token, sync_account_cb, &c));
    if (err == 0) {
        *acc = c.a.id;
        if (name)
            snprintf(name, len, "%s", c.a.username);
    }
    return err;
}

static int name_of(int64_t id, char *name, size_t len)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, accounts_name(s, id, sync_account_cb, &c));
    if (err == 0)
        snprintf(name, len, "%s", c.a.username);
    return err;
}

static int find(const char *username, int64_t *acc)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, accounts_find(s, username, sync_account_cb, &c));
    if (err == 0) {
        *acc = c.a.id;
        assert_string_equal(c.a.pwhash, ""); /* never handed out */
    }
    return err;
}

static int logout(const char *token)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, accounts_logout(s, token, sync_done_cb, &c));
}

static void wait_for(result *r)
{
    while (!r->fired)
        uv_run(&loop, UV_RUN_ONCE);
}

static result do_register(const char *u, const char *p)
{
    result r = {0};
    assert_int_equal(accounts_register(s, NULL, NULL, u, p, cb, &r, NULL), 0);
    /* Hashing runs on the pool: the loop is free while it does. */
    assert_false(r.fired);
    wait_for(&r);
    return r;
}

static result do_login(const char *u, const char *p)
{
    result r = {0};
    assert_int_equal(accounts_login(s, NULL, NULL, u, p, NULL, cb, &r, NULL), 0);
    wait_for(&r);
    return r;
}

static int group_setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/a.db", dir);
    pg_fixture_target(db, sizeof db, path);
    uv_loop_init(&loop);
    char why[200];
    return store_open(&s, &loop, db, NULL, why, sizeof why);
}

static int group_teardown(void **state)
{
    (void)state;
    return sync_store_down(s, &loop, dir);
}

static void test_username_rules(void **state)
{
    (void)state;
    char why[200];
    assert_int_equal(accounts_username_check("ann", why, sizeof why), 0);
    assert_int_equal(accounts_username_check("A_b-9", why, sizeof why), 0);
    const char *bad[] = {"ab", "9lives", "_x1", "has space", "émile", "abcdefghijklmnopqrstu", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        assert_int_equal(accounts_username_check(bad[i], why, sizeof why), STORE_EUSERNAME);
        /* The error states the rule. */
        assert_non_null(strstr(why, "3 to 20 characters"));
    }
    result r = {0};
    assert_int_equal(accounts_register(s, NULL, NULL, "x", "password1", cb, &r, NULL),
                     STORE_EUSERNAME);
    assert_int_equal(accounts_register(s, NULL, NULL, "zoe", "short", cb, &r, NULL),
                     STORE_EPASSWORD);
    assert_false(r.fired);
}

static void test_register_login_logout(void **state)
{
    (void)state;
    result r = do_register("Ann", "correct horse");
    assert_int_equal(r.status, 0);
    assert_true(r.account > 0);
    assert_int_equal(strlen(r.token), ACCOUNTS_TOKEN_LEN);
    int64_t ann = r.account;

    /* Taken, whatever the case. */
    result dup = do_register("ann", "another one");
    assert_int_equal(dup.status, STORE_ETAKEN);
    assert_string_equal(dup.token, "");

    /* Log in, case-insensitive name, the name as registered comes back. */
    result in = do_login("ANN", "correct horse");
    assert_int_equal(in.status, 0);
    assert_int_equal(in.account, ann);
    assert_string_equal(in.username, "Ann");
    assert_string_not_equal(in.token, r.token);

    result wrong = do_login("ann", "wrong horse");
    assert_int_equal(wrong.status, STORE_ELOGIN);
    result nobody = do_login("nobody", "correct horse");
    assert_int_equal(nobody.status, STORE_ELOGIN);
    assert_string_equal(wrong.why, nobody.why);

    /* Sessions: both tokens work; only hashes are stored. */
    int64_t acc = 0;
    char name[STORE_NAME_MAX];
    assert_int_equal(session_of(in.token, &acc, name, sizeof name), 0);
    assert_int_equal(acc, ann);
    assert_string_equal(name, "Ann");
    assert_int_equal(session_of(r.token, &acc, NULL, 0), 0);
    sql_conn *raw = raw_open(db);
    sql_stmt *st =
        raw_prepare(raw, pg_fixture_wanted()
                             ? "SELECT count(*) FROM sessions WHERE octet_length(token_hash) = 32"
                               " AND encode(token_hash, 'hex') <> lower($1)"
                             : "SELECT count(*) FROM sessions WHERE length(token_hash) = 32 AND "
                               "hex(token_hash) <> upper(?)");
    sql_bind_text(st, 1, in.token, -1);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    sql_finalize(st);
    st = raw_prepare(raw, "SELECT count(*) FROM accounts WHERE pwhash LIKE '$argon2id$%'");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 1);
    sql_finalize(st);
    sql_close(raw);

    assert_int_equal(logout(in.token), 0);
    assert_int_equal(session_of(in.token, &acc, NULL, 0), STORE_ENOT_FOUND);
    assert_int_equal(session_of(r.token, &acc, NULL, 0), 0);
    assert_int_equal(session_of("short", &acc, NULL, 0), STORE_ENOT_FOUND);

    assert_int_equal(name_of(ann, name, sizeof name), 0);
    assert_string_equal(name, "Ann");
    assert_int_equal(find("aNN", &acc), 0);
    assert_int_equal(acc, ann);
    assert_int_equal(find("zed", &acc), STORE_ENOT_FOUND);
}

static void test_cookie(void **state)
{
    (void)state;
    char tok[ACCOUNTS_TOKEN_LEN + 1], hdr[300], set[200];
    const char *t = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    snprintf(hdr, sizeof hdr, "theme=dark; " ACCOUNTS_COOKIE "=%s; other=1", t);
    assert_int_equal(accounts_cookie_token(hdr, tok, sizeof tok), 0);
    assert_string_equal(tok, t);
    assert_int_equal(accounts_cookie_token("theme=dark", tok, sizeof tok), STORE_ENOT_FOUND);
    assert_int_equal(accounts_cookie_token("x" ACCOUNTS_COOKIE "=abc", tok, sizeof tok),
                     STORE_ENOT_FOUND);
    assert_true(accounts_set_cookie(set, sizeof set, t) > 0);
    assert_non_null(strstr(set, "HttpOnly"));
    assert_non_null(strstr(set, "SameSite=Lax"));
    assert_non_null(strstr(set, t));
    assert_true(accounts_set_cookie(set, sizeof set, NULL) > 0);
    assert_non_null(strstr(set, "Max-Age=0"));
    assert_int_equal(accounts_set_cookie(set, 10, t), -1);
}

/* The store's own account and session functions (what accounts.c builds
 * on): names case-insensitive and unique, sessions found by their hash
 * until they expire, an account's expired sessions deleted at its next. */
static void test_store_functions(void **state)
{
    (void)state;
    int64_t id = 0, id2 = 0, acc = 0;
    assert_int_equal(sync_account_insert(s, "Zed_9", "$argon2id$h1", &id), 0);
    assert_true(id > 0);
    assert_int_equal(sync_account_insert(s, "zED_9", "$argon2id$h2", &id2), STORE_ETAKEN);
    store_account a;
    assert_int_equal(sync_account_by_name(s, "ZED_9", &a), 0);
    assert_int_equal(a.id, id);
    assert_string_equal(a.username, "Zed_9");
    assert_string_equal(a.pwhash, "$argon2id$h1");
    assert_int_equal(sync_account_by_name(s, "nobody", &a), STORE_ENOT_FOUND);
    char name[STORE_NAME_MAX];
    assert_int_equal(sync_account_name(s, id, name, sizeof name), 0);
    assert_string_equal(name, "Zed_9");
    assert_int_equal(sync_account_name(s, id + 1000, name, sizeof name), STORE_ENOT_FOUND);

    unsigned char h1[32], h2[32], h3[32];
    memset(h1, 1, sizeof h1);
    memset(h2, 2, sizeof h2);
    memset(h3, 3, sizeof h3);
    int64_t now = store_now(s);
    assert_int_equal(sync_session_insert(s, h1, sizeof h1, id, now + 60000), 0);
    /* An expired session, as one left from earlier. */
    sql_conn *raw = raw_open(db);
    sql_stmt *st = raw_prepare(raw, pg_fixture_wanted()
                                        ? "INSERT INTO sessions (token_hash, account, created_ms,"
                                          " expires_ms) VALUES ($1, $2, 0, 1)"
                                        : "INSERT INTO sessions (token_hash, account, created_ms,"
                                          " expires_ms) VALUES (?, ?, 0, 1)");
    sql_bind_blob(st, 1, h2, sizeof h2);
    sql_bind_i64(st, 2, id);
    assert_int_equal(sql_step(st), SQL_DONE);
    sql_finalize(st);
    assert_int_equal(sync_session_find(s, h1, sizeof h1, &acc, name, sizeof name), 0);
    assert_int_equal(acc, id);
    assert_string_equal(name, "Zed_9");
    assert_int_equal(sync_session_find(s, h2, sizeof h2, &acc, NULL, 0), STORE_ENOT_FOUND);
    assert_int_equal(sync_session_find(s, h3, sizeof h3, &acc, NULL, 0), STORE_ENOT_FOUND);
    /* A new session of the account takes the expired one away. */
    st = raw_prepare(raw, pg_fixture_wanted() ? "SELECT count(*) FROM sessions WHERE account = $1"
                                              : "SELECT count(*) FROM sessions WHERE account = ?");
    sql_bind_i64(st, 1, id);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    assert_int_equal(sync_session_insert(s, h3, sizeof h3, id, now + 60000), 0);
    sql_reset(st);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 2);
    sql_finalize(st);
    sql_close(raw);
    assert_int_equal(sync_session_delete(s, h1, sizeof h1), 0);
    assert_int_equal(sync_session_find(s, h1, sizeof h1, &acc, NULL, 0), STORE_ENOT_FOUND);
    assert_int_equal(sync_session_find(s, h3, sizeof h3, &acc, NULL, 0), 0);
    assert_int_equal(sync_session_delete(s, h1, sizeof h1), 0); /* unknown: no-op */
}

/* What the logins' calls answer. */
typedef struct logins_seen {
    bool fired;
    int status;
    size_t n;
    store_login l[STORE_LOGINS_MAX];
    int64_t ended;
} logins_seen;

static void on_logins(void *arg, int status, const store_login *l, size_t n)
{
    logins_seen *w = arg;
    w->fired = true;
    w->status = status;
    w->n = n;
    for (size_t i = 0; i < n; i++)
        w->l[i] = l[i];
}

static void on_ended(void *arg, int status, int64_t n)
{
    logins_seen *w = arg;
    w->fired = true;
    w->status = status;
    w->ended = n;
}

static int logins_wait(logins_seen *w, int err)
{
    if (err < 0)
        return err;
    while (!w->fired)
        uv_run(store_loop(s), UV_RUN_ONCE);
    w->fired = false;
    return w->status;
}

/* An account's logins: listed newest first with their browser (cut to
 * printable ASCII), ended one by one or all but one, never another
 * account's. */
static void test_logins_list_and_end(void **state)
{
    (void)state;
    int64_t id = 0, other = 0;
    assert_int_equal(sync_account_insert(s, "lister", "$argon2id$h", &id), 0);
    assert_int_equal(sync_account_insert(s, "bystander", "$argon2id$h", &other), 0);
    unsigned char h[4][32];
    for (int i = 0; i < 4; i++)
        memset(h[i], 0x40 + i, sizeof h[i]);
    int64_t now = store_now(s);
    sync_call c = {0};
    assert_int_equal(sync_call_wait(s, &c,
                                    store_login_insert(s, h[0], 32, id, now + 60000,
                                                       "Mozilla/5.0 (X11; Linux) Firefox/140.0",
                                                       sync_done_cb, &c)),
                     0);
    usleep(5000); /* created_ms apart: the list is newest first */
    c = (sync_call){0};
    assert_int_equal(
        sync_call_wait(s, &c,
                       store_login_insert(s, h[1], 32, id, now + 60000, "bad\x01\x7f\xc3\xa9 agent",
                                          sync_done_cb, &c)),
        0);
    usleep(5000);
    assert_int_equal(sync_session_insert(s, h[2], 32, id, now + 60000), 0);
    assert_int_equal(sync_session_insert(s, h[3], 32, other, now + 60000), 0);

    logins_seen w = {0};
    assert_int_equal(logins_wait(&w, store_logins_of(s, id, on_logins, &w)), 0);
    assert_int_equal(w.n, 3);
    assert_memory_equal(w.l[2].hash, h[0], 32); /* the oldest last */
    assert_string_equal(w.l[2].agent, "Mozilla/5.0 (X11; Linux) Firefox/140.0");
    assert_true(w.l[2].expires_ms == now + 60000);
    bool seen_bad = false;
    for (size_t i = 0; i < w.n; i++)
        seen_bad |= strcmp(w.l[i].agent, "bad agent") == 0;
    assert_true(seen_bad);

    /* One ended; another account's login of the same hash is not. */
    assert_int_equal(logins_wait(&w, store_logins_end(s, id, h[3], false, on_ended, &w)), 0);
    assert_int_equal(w.ended, 0);
    assert_int_equal(logins_wait(&w, store_logins_end(s, id, h[1], false, on_ended, &w)), 0);
    assert_int_equal(w.ended, 1);
    assert_int_equal(logins_wait(&w, store_logins_of(s, id, on_logins, &w)), 0);
    assert_int_equal(w.n, 2);
    /* Every one but h[2]. */
    assert_int_equal(logins_wait(&w, store_logins_end(s, id, h[2], true, on_ended, &w)), 0);
    assert_int_equal(w.ended, 1);
    assert_int_equal(logins_wait(&w, store_logins_of(s, id, on_logins, &w)), 0);
    assert_int_equal(w.n, 1);
    assert_memory_equal(w.l[0].hash, h[2], 32);
    int64_t acc = 0;
    assert_int_equal(sync_session_find(s, h[0], 32, &acc, NULL, 0), STORE_ENOT_FOUND);
    assert_int_equal(sync_session_find(s, h[3], 32, &acc, NULL, 0), 0);
    assert_int_equal(acc, other);
}

/* A password hash still running when its store closes: the callback comes
 * later with STORE_ECLOSED and nothing is written. */
static void test_close_while_hashing(void **state)
{
    (void)state;
    char file[96], path[300], why[200];
    snprintf(file, sizeof file, "%s/closing.db", dir);
    pg_fixture_target(path, sizeof path, file);
    store *s2;
    assert_int_equal(store_open(&s2, &loop, path, NULL, why, sizeof why), 0);
    result r = {0};
    assert_int_equal(accounts_register(s2, NULL, NULL, "late", "password1", cb, &r, NULL), 0);
    store_close(s2);
    wait_for(&r);
    assert_int_equal(r.status, STORE_ECLOSED);
    assert_string_equal(r.token, "");
    uv_run(&loop, UV_RUN_DEFAULT);
    sql_conn *raw = raw_open(path);
    sql_stmt *st = raw_prepare(raw, "SELECT count(*) FROM accounts");
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 0);
    sql_finalize(st);
    sql_close(raw);
}

/* One hash at a time and one waiting: a third request is refused at once
 * with STORE_EBUSY; the waiting one runs when the first ends. Throttling
 * per address comes before the queue. */
static void test_queue_and_throttle(void **state)
{
    (void)state;
    accounts_limits l = {.hashes_running = 1, .hashes_queued = 1, .register_per_address = 2};
    assert_int_equal(accounts_init(&l), 0);
    result a = {0}, b = {0}, c = {0};
    unsigned retry = 0;
    assert_int_equal(accounts_register(s, "10.0.0.1", NULL, "qax", "password1", cb, &a, &retry), 0);
    assert_int_equal(accounts_register(s, "10.0.0.2", NULL, "qbx", "password1", cb, &b, &retry), 0);
    assert_int_equal(accounts_get_stats().hashes_running, 1);
    assert_int_equal(accounts_get_stats().hashes_queued, 1);
    assert_int_equal(accounts_register(s, "10.0.0.3", NULL, "qcx", "password1", cb, &c, &retry),
                     STORE_EBUSY);
    assert_int_equal(retry, 1);
    assert_int_equal(accounts_get_stats().busy, 1);
    wait_for(&a);
    wait_for(&b);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_false(c.fired);
    assert_int_equal(accounts_get_stats().hashes_queued, 0);

    /* Two registrations from one address, then 429 with the wait. */
    result d = {0}, e = {0};
    assert_int_equal(accounts_register(s, "10.0.0.1", NULL, "qdx", "password1", cb, &d, &retry), 0);
    wait_for(&d);
    retry = 0;
    assert_int_equal(accounts_register(s, "10.0.0.1", NULL, "qex", "password1", cb, &e, &retry),
                     STORE_ETHROTTLED);
    assert_true(retry >= 1 && retry <= 60);
    /* Five failed logins of one name, then even the right password waits;
     * the name's case does not matter. */
    for (int i = 0; i < 5; i++) {
        result f = {0};
        assert_int_equal(
            accounts_login(s, "10.0.0.9", NULL, "qax", "wrong-pass", NULL, cb, &f, NULL), 0);
        wait_for(&f);
        assert_int_equal(f.status, STORE_ELOGIN);
    }
    retry = 0;
    assert_int_equal(accounts_login(s, "10.0.0.8", NULL, "QAX", "password1", NULL, cb, &e, &retry),
                     STORE_ETHROTTLED);
    assert_int_equal(retry, 1);
    assert_int_equal(accounts_get_stats().login_throttled, 1);
    /* Invalid UTF-8 at login: bad_password, no hashing. */
    assert_int_equal(accounts_login(s, NULL, NULL, "qbx", "abcdefg\xff", NULL, cb, &e, NULL),
                     STORE_EPASSWORD);
    assert_false(e.fired);
    assert_int_equal(accounts_init(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_username_rules),
        cmocka_unit_test(test_register_login_logout),
        cmocka_unit_test(test_cookie),
        cmocka_unit_test(test_store_functions),
        cmocka_unit_test(test_logins_list_and_end),
        cmocka_unit_test(test_close_while_hashing),
        cmocka_unit_test(test_queue_and_throttle),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
