/*
 * api_mail.c - the e-mail routes (see api_mail.h).
 */
#include "api_mail.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>
#include <utlist.h>

#include "accounts.h"
#include "api.h"
#include "ident.h"
#include "mail.h"
#include "mailmsg.h"
#include "proto.h"
#include "store.h"
#include "throttle.h"

enum {
    LINK_TOKEN_HEX = 64,
    FORGOT_PER_ADDRESS = 10, /* reset requests from one peer before delays */
    FORGOT_PER_LOGIN = 3,    /* about one name or address */
    CONFIRM_PER_ACCOUNT = 5, /* confirmation mails of one account */
    THROTTLE_BASE_MS = 60000,
    THROTTLE_MAX_MS = 3600000,
    THROTTLE_QUIET_MS = 3600000,
    TABLE_ENTRIES = 4096,
    RESET_ACCOUNTS_MAX = 8, /* accounts one address may reset at once */
};

static store *db;
static throttle forgot_addr, forgot_login, confirm_acct;
static bool ready;

/* Reset requests answered but not yet looked up: the look-up (and the
 * token's synced write when the account exists) runs after the answer has
 * gone, so that its time says nothing about the name. */
enum { FORGOT_PENDING = 64, FORGOT_DELAY_MS = 20 };
static char forgot_queue[FORGOT_PENDING][MAILMSG_TEXT_MAX];
static int forgot_n;
static uv_timer_t forgot_timer;
static bool timer_on;

int api_mail_init(store *s)
{
    db = s;
    throttle_rule addr = {FORGOT_PER_ADDRESS, THROTTLE_BASE_MS, THROTTLE_MAX_MS, THROTTLE_QUIET_MS};
    throttle_rule login = {FORGOT_PER_LOGIN, THROTTLE_BASE_MS, THROTTLE_MAX_MS, THROTTLE_QUIET_MS};
    throttle_rule acct = {CONFIRM_PER_ACCOUNT, THROTTLE_BASE_MS, THROTTLE_MAX_MS,
                          THROTTLE_QUIET_MS};
    uint64_t seed[3];
    randombytes_buf(seed, sizeof seed);
    if (throttle_init(&forgot_addr, &addr, TABLE_ENTRIES, seed[0]) < 0)
        return -1;
    if (throttle_init(&forgot_login, &login, TABLE_ENTRIES, seed[1]) < 0)
        goto out_addr;
    if (throttle_init(&confirm_acct, &acct, TABLE_ENTRIES, seed[2]) < 0)
        goto out_login;
    uv_timer_init(store_loop(s), &forgot_timer);
    timer_on = true;
    ready = true;
    return 0;
out_login:
    throttle_free(&forgot_login);
out_addr:
    throttle_free(&forgot_addr);
    return -1;
}

void api_mail_stop(void)
{
    /* Requests not looked up yet are dropped (the player asks again). */
    forgot_n = 0;
    if (timer_on) {
        uv_timer_stop(&forgot_timer);
        uv_close((uv_handle_t *)&forgot_timer, NULL);
        timer_on = false;
    }
}

void api_mail_shutdown(void)
{
    if (!ready)
        return;
    throttle_free(&forgot_addr);
    throttle_free(&forgot_login);
    throttle_free(&confirm_acct);
    ready = false;
}

/* ------------------------------------------------------------------------ */
/* Small helpers */

static void reply_json(net_conn *c, unsigned status, proto_out *o)
{
    net_http_reply_out(c, status, "application/json", o, NULL);
}

static int reply_error(net_conn *c, unsigned status, const char *code, const char *reason)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_http_error(&o, code, reason);
    reply_json(c, status, &o);
    return 0;
}

static int reply_ok(net_conn *c, const char *extra_key, const char *extra)
{
    char b[600];
    if (extra_key != NULL)
        snprintf(b, sizeof b, "{\"ok\":true,\"%s\":\"%s\"}", extra_key, extra);
    else
        snprintf(b, sizeof b, "{\"ok\":true}");
    net_http_reply(c, 200, "application/json", b, strlen(b), NULL);
    return 0;
}

/* The account of the request's session cookie, or 0. */
static int64_t logged_in(net_conn *c)
{
    char token[128];
    int64_t account = 0;
    if (net_cookie(c, ACCOUNTS_COOKIE, token, sizeof token) <= 0 ||
        accounts_session_now(db, token, &account, NULL, 0) < 0)
        return 0;
    return account;
}

/* Random bytes as hex (2 * n digits and a NUL into out). */
static void random_hex(char *out, size_t n)
{
    unsigned char raw[32];
    randombytes_buf(raw, n);
    sodium_bin2hex(out, 2 * n + 1, raw, n);
}

static void hash_token(const char *token, unsigned char out[32])
{
    crypto_generichash(out, 32, (const unsigned char *)token, strlen(token), NULL, 0);
}

static bool is_hex(const char *s, size_t n)
{
    if (strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* A plausible address: ASCII without spaces, quotes, angle brackets or
 * control characters, one '@', a local part, a domain with a dot. */
static bool address_ok(const char *a)
{
    size_t n = strlen(a);
    const char *at = strchr(a, '@');
    if (n < 5 || n > 254 || at == NULL || at == a || strchr(at + 1, '@') != NULL)
        return false;
    for (const char *p = a; *p; p++)
        if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("<>()[],;:\\\"", *p))
            return false;
    const char *dot = strrchr(at + 1, '.');
    return dot != NULL && dot > at + 1 && dot[1] != '\0';
}

/* Decode the body, or answer 400: 0 or -1 (answered). */
static int decode(net_conn *c, const char *body, size_t len, mailmsg_body *m)
{
    char why[160];
    if (mailmsg_decode(body, len, m, why, sizeof why) == 0)
        return 0;
    reply_error(c, 400, "bad_message", why);
    return -1;
}

/* A throttled request: 429 with Retry-After. */
static int throttled(net_conn *c, uint64_t wait_ms)
{
    uint64_t s = (wait_ms + 999) / 1000;
    net_http_retry_after(c, s == 0 ? 1 : s > 86400 ? 86400 : (unsigned)s);
    return reply_error(c, 429, "too_many_attempts", "too many requests: wait and try again");
}

static int mail_off(net_conn *c)
{
    return reply_error(c, 503, "mail_off", "e-mail is off on this server");
}

/* ------------------------------------------------------------------------ */
/* The address and the preferences */

static int write_settings(net_conn *c, int64_t account)
{
    store_mail_prefs p;
    if (store_mail_prefs_get(db, account, &p) < 0)
        return 500;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    mailmsg_write_settings(&o, mail_on(), p.address, p.prefs & STORE_MAIL_MOVE,
                           p.prefs & STORE_MAIL_DIGEST, p.prefs & STORE_MAIL_LOW_TIME,
                           p.prefs & STORE_MAIL_START_END, p.remind_days);
    reply_json(c, 200, &o);
    return 0;
}

int api_mail_settings(net_conn *c, const char *arg, const char *body, size_t len)
{
    int64_t account = logged_in(c);
    if (account == 0)
        return reply_error(c, 401, "account_required", "log in first");
    return write_settings(c, account);
}

/* The account's row with a fresh unsubscribe token if it has none. */
static int ensure_row(int64_t account, store_mail_prefs *p)
{
    if (store_mail_prefs_get(db, account, p) < 0)
        return -1;
    if (p->known)
        return 0;
    char unsub[STORE_MAIL_UNSUB_HEX + 1];
    random_hex(unsub, STORE_MAIL_UNSUB_HEX / 2);
    if (store_mail_prefs_set(db, account, STORE_MAIL_DEFAULT, 0, unsub) < 0)
        return -1;
    return store_mail_prefs_get(db, account, p);
}

int api_mail_address(net_conn *c, const char *arg, const char *body, size_t len)
{
    int64_t account = logged_in(c);
    if (account == 0)
        return reply_error(c, 401, "account_required", "log in first");
    if (!mail_on())
        return mail_off(c);
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    if (!m.has_address || !address_ok(m.address))
        return reply_error(c, 400, "bad_address",
                           "an e-mail address looks like name@example.org (at most 254 "
                           "characters, no spaces)");
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)account);
    uint64_t now = uv_now(store_loop(db)), wait = throttle_wait(&confirm_acct, key, now);
    if (wait > 0)
        return throttled(c, wait);
    store_mail_prefs p;
    char token[LINK_TOKEN_HEX + 1], name[STORE_NAME_MAX], subject[160], text[1400];
    unsigned char h[32];
    if (ensure_row(account, &p) < 0 || accounts_name_now(db, account, name, sizeof name) < 0)
        return 500;
    random_hex(token, LINK_TOKEN_HEX / 2);
    hash_token(token, h);
    if (store_mail_token_insert(db, h, sizeof h, account, STORE_TOKEN_CONFIRM, m.address,
                                store_now(db) + (int64_t)API_MAIL_CONFIRM_HOURS * 3600000) < 0)
        return 500;
    snprintf(subject, sizeof subject, "Confirm your e-mail address for %s", name);
    snprintf(text, sizeof text,
             "Hello %s,\n\nto receive chameleon's e-mail at this address, open this link "
             "within %d hours:\n\n%s/#/confirm/%s\n\nIf you did not ask for this, ignore this "
             "mail: nothing will be sent to this address.\n",
             name, API_MAIL_CONFIRM_HOURS, mail_link_base(), token);
    store_mail_new mail = {
        .account = account, .kind = "confirm", .to = m.address, .subject = subject, .body = text};
    if (mail_queue(&mail) < 0)
        return 500;
    throttle_hit(&confirm_acct, key, now);
    return reply_ok(c, "address", m.address);
}

int api_mail_confirm(net_conn *c, const char *arg, const char *body, size_t len)
{
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    int64_t account;
    char address[STORE_MAIL_ADDR_MAX], unsub[STORE_MAIL_UNSUB_HEX + 1];
    unsigned char h[32];
    if (!m.has_token || !is_hex(m.token, LINK_TOKEN_HEX))
        return reply_error(c, 400, "bad_token", "this link is not one of ours");
    hash_token(m.token, h);
    if (store_mail_token_take(db, h, sizeof h, STORE_TOKEN_CONFIRM, &account, address,
                              sizeof address) < 0)
        return reply_error(c, 400, "bad_token", "this link is unknown, used or expired");
    random_hex(unsub, STORE_MAIL_UNSUB_HEX / 2);
    if (store_mail_address_set(db, account, address, unsub) < 0)
        return 500;
    return reply_ok(c, "address", address);
}

int api_mail_prefs(net_conn *c, const char *arg, const char *body, size_t len)
{
    int64_t account = logged_in(c);
    if (account == 0)
        return reply_error(c, 401, "account_required", "log in first");
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    store_mail_prefs p;
    if (ensure_row(account, &p) < 0)
        return 500;
    const struct {
        int v;
        unsigned bit;
    } set[] = {{m.move, STORE_MAIL_MOVE},
               {m.digest, STORE_MAIL_DIGEST},
               {m.low_time, STORE_MAIL_LOW_TIME},
               {m.start_end, STORE_MAIL_START_END}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (set[i].v >= 0)
            p.prefs = set[i].v ? p.prefs | set[i].bit : p.prefs & ~set[i].bit;
    if (m.remind_days >= 0)
        p.remind_days = m.remind_days;
    if (store_mail_prefs_set(db, account, p.prefs, p.remind_days, p.unsub) < 0)
        return 500;
    return write_settings(c, account);
}

/* ------------------------------------------------------------------------ */
/* One-click unsubscribe (RFC 8058): the link in a mail's body opens a page
 * with a button (a GET changes nothing: link checkers open links); the
 * button, like a mail program's List-Unsubscribe-Post, POSTs. */

static int html(net_conn *c, unsigned status, const char *title, const char *text,
                const char *form_token)
{
    char b[1400];
    int n = snprintf(b, sizeof b,
                     "<!doctype html>\n<html lang=\"en\"><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width\">"
                     "<title>%s - chameleon</title>\n<h1>%s</h1>\n<p>%s</p>\n",
                     title, title, text);
    if (form_token != NULL)
        n += snprintf(b + n, sizeof b - (size_t)n,
                      "<form method=\"post\" action=\"/api/mail/unsubscribe/%s\">"
                      "<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">"
                      "<button type=\"submit\">Stop every notice</button></form>\n",
                      form_token);
    snprintf(b + n, sizeof b - (size_t)n, "<p><a href=\"/#/profile\">Your settings</a></p>\n");
    net_http_reply(c, status, "text/html; charset=utf-8", b, strlen(b), NULL);
    return 0;
}

int api_mail_unsubscribe_page(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (!is_hex(arg, STORE_MAIL_UNSUB_HEX))
        return html(c, 404, "Unknown link", "This unsubscribe link is not one of ours.", NULL);
    return html(c, 200, "Stop e-mail notices",
                "Stop every notice chameleon sends you by e-mail (your moves, digests, "
                "alarms, reminders)? You can turn them on again on your profile.",
                arg);
}

int api_mail_unsubscribe(net_conn *c, const char *arg, const char *body, size_t len)
{
    int err =
        is_hex(arg, STORE_MAIL_UNSUB_HEX) ? store_mail_unsubscribe(db, arg) : STORE_ENOT_FOUND;
    if (err == STORE_ENOT_FOUND)
        return html(c, 404, "Unknown link", "This unsubscribe link is not one of ours.", NULL);
    if (err < 0)
        return 500;
    return html(c, 200, "Unsubscribed",
                "You will get no more notices by e-mail. Password resets you ask for still "
                "come.",
                NULL);
}

/* ------------------------------------------------------------------------ */
/* Password reset */

/* A reset link for account, to its confirmed address (none: nothing). */
static void send_reset(int64_t account)
{
    store_mail_prefs p;
    char name[STORE_NAME_MAX], token[LINK_TOKEN_HEX + 1], subject[160], text[1400];
    unsigned char h[32];
    if (store_mail_prefs_get(db, account, &p) < 0 || p.address[0] == '\0' ||
        accounts_name_now(db, account, name, sizeof name) < 0)
        return;
    random_hex(token, LINK_TOKEN_HEX / 2);
    hash_token(token, h);
    if (store_mail_token_insert(db, h, sizeof h, account, STORE_TOKEN_RESET, NULL,
                                store_now(db) + (int64_t)API_MAIL_RESET_MINUTES * 60000) < 0)
        return;
    snprintf(subject, sizeof subject, "Reset the password of %s", name);
    snprintf(text, sizeof text,
             "Hello %s,\n\nsomeone (you, we hope) asked to reset your chameleon password. "
             "Choose a new one within %d minutes with this link (it works once):\n\n"
             "%s/#/reset/%s\n\nEvery session of your account ends when the password "
             "changes. If you did not ask, ignore this mail: your password stays as it is.\n",
             name, API_MAIL_RESET_MINUTES, mail_link_base(), token);
    store_mail_new mail = {.account = account, .kind = "reset", .subject = subject, .body = text};
    mail_queue(&mail);
}

/* The timer: look up each request answered since. */
static void forgot_run(uv_timer_t *t)
{
    (void)t;
    for (int k = 0; k < forgot_n; k++) {
        const char *login = forgot_queue[k];
        if (strchr(login, '@') != NULL) {
            int64_t ids[RESET_ACCOUNTS_MAX];
            int n = store_mail_accounts_of(db, login, ids, RESET_ACCOUNTS_MAX);
            for (int i = 0; i < n; i++)
                send_reset(ids[i]);
        } else {
            int64_t account;
            if (accounts_find_now(db, login, &account) == 0)
                send_reset(account);
        }
    }
    forgot_n = 0;
}

int api_password_forgot(net_conn *c, const char *arg, const char *body, size_t len)
{
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    if (!m.has_login || m.login[0] == '\0')
        return reply_error(c, 400, "bad_message", "'login' (a username or an address) is required");
    char akey[THROTTLE_KEY_MAX] = "", lkey[THROTTLE_KEY_MAX];
    size_t kl = strnlen(m.login, sizeof lkey - 1); /* a longer one is cut: its key */
    memcpy(lkey, m.login, kl);
    lkey[kl] = '\0';
    for (char *p = lkey; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (c->addr[0])
        throttle_addr_key(c->addr, akey, sizeof akey);
    uint64_t now = uv_now(store_loop(db));
    uint64_t wait = throttle_wait(&forgot_login, lkey, now);
    uint64_t wa = akey[0] ? throttle_wait(&forgot_addr, akey, now) : 0;
    if (wa > wait)
        wait = wa;
    if (wait > 0)
        return throttled(c, wait);
    throttle_hit(&forgot_login, lkey, now);
    if (akey[0])
        throttle_hit(&forgot_addr, akey, now);
    if (!mail_on())
        return mail_off(c);
    /* The same answer, at once, whether anything matches or not. */
    if (forgot_n == FORGOT_PENDING || !timer_on)
        return reply_error(c, 503, "busy", "the server is busy: try again in a moment");
    snprintf(forgot_queue[forgot_n++], MAILMSG_TEXT_MAX, "%s", m.login);
    if (!uv_is_active((uv_handle_t *)&forgot_timer))
        uv_timer_start(&forgot_timer, forgot_run, FORGOT_DELAY_MS, 0);
    return reply_ok(c, NULL, NULL);
}

static void on_reset(void *arg, int status, int64_t account, const char *username,
                     const char *token, const char *why)
{
    net_conn *c = api_pending_done(arg);
    if (c == NULL)
        return;
    if (status < 0) {
        reply_error(c, 500, store_err_code(status), why ? why : store_err_text(status));
        return;
    }
    /* The account's open WebSockets end too: they come back as guests. */
    ident *who = ident_find_account(account);
    session *s;
    if (who != NULL) {
        DL_FOREACH2(who->sessions, s, inext)
        {
            if (s->conn != NULL)
                net_close_why(s->conn, "the password changed: log in again");
        }
    }
    reply_ok(c, NULL, NULL);
}

int api_password_reset(net_conn *c, const char *arg, const char *body, size_t len)
{
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    int err = 0;
    if (!m.has_password || accounts_password_check(m.password) < 0) {
        sodium_memzero(m.password, sizeof m.password);
        return reply_error(c, 400, store_err_code(STORE_EPASSWORD), ACCOUNTS_PASSWORD_RULES);
    }
    unsigned char h[32];
    int64_t account;
    if (!m.has_token || !is_hex(m.token, LINK_TOKEN_HEX))
        err = STORE_ENOT_FOUND;
    if (err == 0) {
        hash_token(m.token, h);
        err = store_mail_token_take(db, h, sizeof h, STORE_TOKEN_RESET, &account, NULL, 0);
    }
    if (err < 0) {
        sodium_memzero(m.password, sizeof m.password);
        return reply_error(c, 400, "bad_token", "this link is unknown, used or expired");
    }
    api_pending *p = api_pending_new(c);
    if (p == NULL) {
        sodium_memzero(m.password, sizeof m.password);
        return 500;
    }
    unsigned retry_s = 0;
    err = accounts_set_password(db, account, m.password, on_reset, p, &retry_s);
    sodium_memzero(m.password, sizeof m.password);
    if (err < 0) {
        api_pending_done(p);
        if (err == STORE_EBUSY)
            net_http_retry_after(c, retry_s ? retry_s : 1);
        return reply_error(c, err == STORE_EBUSY ? 503 : 500, store_err_code(err),
                           store_err_text(err));
    }
    return 0;
}
