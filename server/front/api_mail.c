/*
 * api_mail.c - the e-mail routes (see api_mail.h).
 */
#include "api_mail.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "accounts.h"
#include "api.h"
#include "dispatch.h"
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

/* Reset requests answered but not yet looked up: the look-up (queued
 * calls of the store, and the token's write when the account exists) runs
 * after the answer has gone, so that its time says nothing about the
 * name. */
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

/* {"ok":true}, or with "extra_key":"extra" (extra: nothing to escape, a
 * checked address). */
static void write_ok(proto_out *o, const char *extra_key, const char *extra)
{
    char b[600];
    if (extra_key != NULL)
        snprintf(b, sizeof b, "{\"ok\":true,\"%s\":\"%s\"}", extra_key, extra);
    else
        snprintf(b, sizeof b, "{\"ok\":true}");
    proto_out_append(o, b, strlen(b));
}

static int reply_ok(net_conn *c, const char *extra_key, const char *extra)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    write_ok(&o, extra_key, extra);
    reply_json(c, 200, &o);
    return 0;
}

/* A plain 500, as net answers a handler's status. */
static void reply_500(net_conn *c)
{
    net_http_reply(c, 500, "text/plain; charset=utf-8", "500\n", 4, NULL);
}

/* A request answered after one or more queued calls of the store: between
 * its steps it hangs off its connection (api.h), and each step first checks
 * that the connection is still there. */
typedef struct mail_req {
    api_pending p; /* first: api_pending_done frees the whole */
    int64_t account;
    char name[STORE_NAME_MAX];
    mailmsg_body m;
    bool bad; /* the body did not decode: why */
    char why[160];
    store_mail_prefs prefs;
    char address[STORE_MAIL_ADDR_MAX];
    char token[LINK_TOKEN_HEX + 1];
} mail_req;

/* A request with its body decoded (a failure kept for its turn: the answers
 * keep their order), not yet on its connection; NULL if out of memory. */
static mail_req *req_new(const char *body, size_t len)
{
    mail_req *r = calloc(1, sizeof *r);
    if (r != NULL && body != NULL)
        r->bad = mailmsg_decode(body, len, &r->m, r->why, sizeof r->why) != 0;
    return r;
}

/* A request not on its connection, dropped. */
static void req_drop(mail_req *r)
{
    sodium_memzero(r, sizeof *r); /* a password */
    free(r);
}

/* Hang r off c until its answer. */
static void req_hook(mail_req *r, net_conn *c)
{
    r->p.c = c;
    c->data = &r->p;
}

/* The last step: r off its connection and freed; the connection, or NULL
 * if it closed meanwhile. */
static net_conn *req_end(mail_req *r)
{
    sodium_memzero(r->m.password, sizeof r->m.password);
    return api_pending_done(&r->p);
}

/* A step that failed: 500, r freed. */
static void req_fail(mail_req *r)
{
    net_conn *c = req_end(r);
    if (c != NULL)
        reply_500(c);
}

/* A step's result: false to go on; true if it failed (status < 0) or the
 * connection went meanwhile: r ended, a connection still there answered
 * 500. */
static bool req_stopped(mail_req *r, int status)
{
    if (r->p.c != NULL && status >= 0)
        return false;
    req_fail(r);
    return true;
}

/* Writes a request's JSON answer from `what` into o. */
typedef void (*req_write_fn)(proto_out *o, const void *what);

/* The last step: r ended and its connection, if still there, answered: 500
 * if the step failed (status < 0), else 200 and what put writes (what may
 * point into r: it is written before r ends). */
static void req_answer(mail_req *r, int status, req_write_fn put, const void *what)
{
    if (req_stopped(r, status))
        return;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    put(&o, what);
    reply_json(req_end(r), 200, &o);
}

/* {"ok":true,"address":what}. */
static void write_address(proto_out *o, const void *what)
{
    write_ok(o, "address", what);
}

/* Random bytes as hex (2 * n digits and a NUL into out). */
static void random_hex(char *out, size_t n)
{
    unsigned char raw[32];
    randombytes_buf(raw, n);
    sodium_bin2hex(out, 2 * n + 1, raw, n);
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
    api_reply_error(c, 400, "bad_message", why);
    return -1;
}

/* A throttled request: 429 with Retry-After. */
static int throttled(net_conn *c, uint64_t wait_ms)
{
    uint64_t s = (wait_ms + 999) / 1000;
    net_http_retry_after(c, s == 0 ? 1 : s > 86400 ? 86400 : (unsigned)s);
    return api_reply_error(c, 429, "too_many_attempts", "too many requests: wait and try again");
}

static int mail_off(net_conn *c)
{
    return api_reply_error(c, 503, "mail_off", "e-mail is off on this server");
}

/* ------------------------------------------------------------------------ */
/* The address and the preferences */

/* The settings of GET /api/mail from what, a store_mail_prefs. */
static void write_settings(proto_out *o, const void *what)
{
    const store_mail_prefs *p = what;
    mailmsg_write_settings(o, mail_on(), p->address, p->prefs & STORE_MAIL_MOVE,
                           p->prefs & STORE_MAIL_DIGEST, p->prefs & STORE_MAIL_LOW_TIME,
                           p->prefs & STORE_MAIL_START_END, p->remind_days);
}

/* Look the session up, then then(c, who, r); r is dropped if that cannot
 * start. 0 (answered, now or later) or 500. */
static int with_session(net_conn *c, mail_req *r, api_session_fn then)
{
    if (r == NULL)
        return 500;
    if (api_with_session(c, then, r) < 0) {
        req_drop(r);
        return 500;
    }
    return 0;
}

/* The session's step of a request that needs one: true and the account
 * (id, name) into r; or false, answered (401) or gone, r dropped. */
static bool req_logged_in(mail_req *r, net_conn *c, const store_account *who)
{
    if (c == NULL || who == NULL) {
        if (c != NULL)
            api_reply_error(c, 401, "account_required", "log in first");
        req_drop(r);
        return false;
    }
    r->account = who->id;
    snprintf(r->name, sizeof r->name, "%s", who->username);
    return true;
}

static void settings_read(void *arg, int status, const store_mail_prefs *p)
{
    req_answer(arg, status, write_settings, p);
}

static void settings_with_account(net_conn *c, const store_account *who, void *ctx)
{
    mail_req *r = ctx;
    if (!req_logged_in(r, c, who))
        return;
    req_hook(r, c);
    if (store_mail_prefs_get(db, r->account, settings_read, r) < 0)
        req_fail(r);
}

int api_mail_settings(net_conn *c, const char *arg, const char *body, size_t len)
{
    return with_session(c, req_new(NULL, 0), settings_with_account);
}

/* POST /api/mail/address/delete: the address forgotten (the notices'
 * choices kept for a new one), whether or not mail is on. */
static void address_deleted(void *arg, int status)
{
    mail_req *r = arg;
    if (req_stopped(r, status))
        return;
    net_conn *c = req_end(r);
    if (c != NULL)
        reply_ok(c, NULL, NULL);
}

static void delete_with_account(net_conn *c, const store_account *who, void *ctx)
{
    mail_req *r = ctx;
    if (!req_logged_in(r, c, who))
        return;
    req_hook(r, c);
    if (store_mail_address_delete(db, r->account, address_deleted, r) < 0)
        req_fail(r);
}

int api_mail_address_delete(net_conn *c, const char *arg, const char *body, size_t len)
{
    return with_session(c, req_new(NULL, 0), delete_with_account);
}

/* The account's row, made with a fresh unsubscribe token if it has none:
 * then cb(r, status, p). */
static int ensure_row(mail_req *r, store_mail_prefs_cb cb)
{
    char unsub[STORE_MAIL_UNSUB_HEX + 1];
    random_hex(unsub, STORE_MAIL_UNSUB_HEX / 2);
    return store_mail_prefs_ensure(db, r->account, unsub, cb, r);
}

/* POST /api/mail/address, last step: the confirmation link's token is
 * stored; the mail goes to the outbox. */
static void address_token(void *arg, int status)
{
    mail_req *r = arg;
    if (req_stopped(r, status))
        return;
    char subject[160], text[1400], address[MAILMSG_TEXT_MAX];
    snprintf(subject, sizeof subject, "Confirm your e-mail address for %s", r->name);
    snprintf(text, sizeof text,
             "Hello %s,\n\nto receive chameleon's e-mail at this address, open this link "
             "within %d hours:\n\n%s/#/confirm/%s\n\nIf you did not ask for this, ignore this "
             "mail: nothing will be sent to this address.\n",
             r->name, API_MAIL_CONFIRM_HOURS, mail_link_base(), r->token);
    snprintf(address, sizeof address, "%s", r->m.address);
    store_mail_new mail = {
        .account = r->account, .kind = "confirm", .to = address, .subject = subject, .body = text};
    req_answer(r, mail_queue(&mail) < 0 ? -1 : 0, write_address, address);
}

/* The account's row is there: store the link's token. */
static void address_row(void *arg, int status, const store_mail_prefs *p)
{
    (void)p;
    mail_req *r = arg;
    if (req_stopped(r, status))
        return;
    unsigned char h[32];
    random_hex(r->token, LINK_TOKEN_HEX / 2);
    accounts_token_hash(r->token, h);
    if (store_mail_token_insert(db, h, sizeof h, r->account, STORE_TOKEN_CONFIRM, r->m.address,
                                store_now(db) + (int64_t)API_MAIL_CONFIRM_HOURS * 3600000,
                                address_token, r) < 0)
        req_fail(r);
}

static void address_with_account(net_conn *c, const store_account *who, void *ctx)
{
    mail_req *r = ctx;
    if (!req_logged_in(r, c, who))
        return;
    if (!mail_on()) {
        mail_off(c);
        req_drop(r);
        return;
    }
    if (r->bad || !r->m.has_address || !address_ok(r->m.address)) {
        if (r->bad)
            api_reply_error(c, 400, "bad_message", r->why);
        else
            api_reply_error(c, 400, "bad_address",
                            "an e-mail address looks like name@example.org (at most 254 "
                            "characters, no spaces)");
        req_drop(r);
        return;
    }
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)r->account);
    uint64_t now = uv_now(store_loop(db)), wait = throttle_wait(&confirm_acct, key, now);
    if (wait > 0) {
        throttled(c, wait);
        req_drop(r);
        return;
    }
    /* Counted now, so that the requests in flight count too. */
    throttle_hit(&confirm_acct, key, now);
    req_hook(r, c);
    if (ensure_row(r, address_row) < 0)
        req_fail(r);
}

int api_mail_address(net_conn *c, const char *arg, const char *body, size_t len)
{
    return with_session(c, req_new(body, len), address_with_account);
}

static void confirm_set(void *arg, int status)
{
    mail_req *r = arg;
    req_answer(r, status, write_address, r->address);
}

/* A link's token could not be taken (unknown, used, expired: 400; the
 * database failed: req_fail): answered, r ended; true. */
static bool token_refused(mail_req *r, int status)
{
    net_conn *c = r->p.c;
    if (c != NULL && status == STORE_ENOT_FOUND) {
        req_end(r);
        api_reply_error(c, 400, "bad_token", "this link is unknown, used or expired");
        return true;
    }
    if (status < 0) {
        req_fail(r);
        return true;
    }
    return false;
}

/* The link's token taken: its address becomes the account's, even if the
 * connection went meanwhile (the link works once). */
static void confirm_taken(void *arg, int status, int64_t account, const char *address)
{
    mail_req *r = arg;
    if (token_refused(r, status))
        return;
    char unsub[STORE_MAIL_UNSUB_HEX + 1];
    random_hex(unsub, STORE_MAIL_UNSUB_HEX / 2);
    snprintf(r->address, sizeof r->address, "%s", address);
    if (store_mail_address_set(db, account, r->address, unsub, confirm_set, r) < 0)
        req_fail(r);
}

int api_mail_confirm(net_conn *c, const char *arg, const char *body, size_t len)
{
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    unsigned char h[32];
    if (!m.has_token || !is_hex(m.token, LINK_TOKEN_HEX))
        return api_reply_error(c, 400, "bad_token", "this link is not one of ours");
    accounts_token_hash(m.token, h);
    mail_req *r = req_new(NULL, 0);
    if (r == NULL)
        return 500;
    req_hook(r, c);
    if (store_mail_token_take(db, h, sizeof h, STORE_TOKEN_CONFIRM, confirm_taken, r) < 0) {
        req_end(r);
        return 500;
    }
    return 0;
}

static void prefs_set_done(void *arg, int status)
{
    mail_req *r = arg;
    req_answer(r, status, write_settings, &r->prefs); /* as now stored */
}

static void prefs_row(void *arg, int status, const store_mail_prefs *row)
{
    mail_req *r = arg;
    if (req_stopped(r, status))
        return;
    store_mail_prefs *p = &r->prefs;
    *p = *row;
    const struct {
        int v;
        unsigned bit;
    } set[] = {{r->m.move, STORE_MAIL_MOVE},
               {r->m.digest, STORE_MAIL_DIGEST},
               {r->m.low_time, STORE_MAIL_LOW_TIME},
               {r->m.start_end, STORE_MAIL_START_END}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (set[i].v >= 0)
            p->prefs = set[i].v ? p->prefs | set[i].bit : p->prefs & ~set[i].bit;
    p->prefs &= STORE_MAIL_ALL;
    if (r->m.remind_days >= 0)
        p->remind_days = r->m.remind_days;
    if (store_mail_prefs_set(db, r->account, p->prefs, p->remind_days, p->unsub, prefs_set_done,
                             r) < 0)
        req_fail(r);
}

static void prefs_with_account(net_conn *c, const store_account *who, void *ctx)
{
    mail_req *r = ctx;
    if (!req_logged_in(r, c, who))
        return;
    if (r->bad) {
        api_reply_error(c, 400, "bad_message", r->why);
        req_drop(r);
        return;
    }
    req_hook(r, c);
    if (ensure_row(r, prefs_row) < 0)
        req_fail(r);
}

int api_mail_prefs(net_conn *c, const char *arg, const char *body, size_t len)
{
    return with_session(c, req_new(body, len), prefs_with_account);
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

static void unsubscribed(void *arg, int status)
{
    net_conn *c = api_pending_done(arg);
    if (c == NULL)
        return;
    if (status == STORE_ENOT_FOUND)
        html(c, 404, "Unknown link", "This unsubscribe link is not one of ours.", NULL);
    else if (status < 0)
        reply_500(c);
    else
        html(c, 200, "Unsubscribed",
             "You will get no more notices by e-mail. Password resets you ask for still "
             "come.",
             NULL);
}

int api_mail_unsubscribe(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (!is_hex(arg, STORE_MAIL_UNSUB_HEX))
        return html(c, 404, "Unknown link", "This unsubscribe link is not one of ours.", NULL);
    api_pending *p = api_pending_new(c);
    if (p == NULL)
        return 500;
    if (store_mail_unsubscribe(db, arg, unsubscribed, p) < 0) {
        api_pending_done(p);
        return 500;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Password reset */

/* A reset link on its way to an account, after the request's answer (no
 * connection), step by step: the account's address, its name, the link's
 * token, then the mail (queued once the token is durable). */
typedef struct reset_job {
    int64_t account;
    char name[STORE_NAME_MAX];
    char token[LINK_TOKEN_HEX + 1];
} reset_job;

/* Look-ups and reset links in flight: with the requests waiting, at most
 * FORGOT_PENDING (then a request is answered 503 busy). */
static int forgot_busy;

static void reset_end(reset_job *j)
{
    sodium_memzero(j, sizeof *j);
    free(j);
    forgot_busy--;
}

static void reset_stored(void *arg, int status)
{
    reset_job *j = arg;
    if (status == 0 && timer_on) {
        char subject[160], text[1400];
        snprintf(subject, sizeof subject, "Reset the password of %s", j->name);
        snprintf(text, sizeof text,
                 "Hello %s,\n\nsomeone (you, we hope) asked to reset your chameleon password. "
                 "Choose a new one within %d minutes with this link (it works once):\n\n"
                 "%s/#/reset/%s\n\nEvery session of your account ends when the password "
                 "changes. If you did not ask, ignore this mail: your password stays as it "
                 "is.\n",
                 j->name, API_MAIL_RESET_MINUTES, mail_link_base(), j->token);
        store_mail_new mail = {
            .account = j->account, .kind = "reset", .subject = subject, .body = text};
        mail_queue(&mail);
    }
    reset_end(j);
}

/* The account's name known: its link's token. */
static void reset_named(reset_job *j)
{
    unsigned char h[32];
    random_hex(j->token, LINK_TOKEN_HEX / 2);
    accounts_token_hash(j->token, h);
    if (!timer_on ||
        store_mail_token_insert(db, h, sizeof h, j->account, STORE_TOKEN_RESET, NULL,
                                store_now(db) + (int64_t)API_MAIL_RESET_MINUTES * 60000,
                                reset_stored, j) < 0)
        reset_end(j);
}

static void reset_name(void *arg, int status, const store_account *a)
{
    reset_job *j = arg;
    if (status < 0) {
        reset_end(j);
        return;
    }
    snprintf(j->name, sizeof j->name, "%s", a->username);
    reset_named(j);
}

/* The account's address: none, nothing is sent. */
static void reset_prefs(void *arg, int status, const store_mail_prefs *p)
{
    reset_job *j = arg;
    if (status < 0 || p->address[0] == '\0' || !timer_on) {
        reset_end(j);
        return;
    }
    if (j->name[0] != '\0')
        reset_named(j);
    else if (accounts_name(db, j->account, reset_name, j) < 0)
        reset_end(j);
}

/* A reset link for account (name: its name, or NULL to look it up), to its
 * confirmed address (none: nothing). */
static void send_reset(int64_t account, const char *name)
{
    reset_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return;
    forgot_busy++;
    j->account = account;
    snprintf(j->name, sizeof j->name, "%s", name ? name : "");
    if (store_mail_prefs_get(db, account, reset_prefs, j) < 0)
        reset_end(j);
}

/* A look-up's answer: one account (by name) or several (by address). */
static void forgot_found(void *arg, int status, const store_account *a)
{
    (void)arg;
    forgot_busy--;
    if (status == 0 && timer_on)
        send_reset(a->id, a->username);
}

static void forgot_addressed(void *arg, int status, const int64_t *ids, int n)
{
    (void)arg;
    forgot_busy--;
    for (int i = 0; status == 0 && timer_on && i < n; i++)
        send_reset(ids[i], NULL);
}

/* The timer: look up each request answered since (queued calls). */
static void forgot_run(uv_timer_t *t)
{
    (void)t;
    for (int k = 0; k < forgot_n; k++) {
        const char *login = forgot_queue[k];
        int err = strchr(login, '@') != NULL ? store_mail_accounts_of(db, login, RESET_ACCOUNTS_MAX,
                                                                      forgot_addressed, NULL)
                                             : accounts_find(db, login, forgot_found, NULL);
        if (err == 0)
            forgot_busy++;
    }
    forgot_n = 0;
}

int api_password_forgot(net_conn *c, const char *arg, const char *body, size_t len)
{
    mailmsg_body m;
    if (decode(c, body, len, &m) < 0)
        return 0;
    if (!m.has_login || m.login[0] == '\0')
        return api_reply_error(c, 400, "bad_message",
                               "'login' (a username or an address) is required");
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
    if (forgot_n + forgot_busy >= FORGOT_PENDING || !timer_on)
        return api_reply_error(c, 503, "busy", "the server is busy: try again in a moment");
    snprintf(forgot_queue[forgot_n++], MAILMSG_TEXT_MAX, "%s", m.login);
    if (!uv_is_active((uv_handle_t *)&forgot_timer))
        uv_timer_start(&forgot_timer, forgot_run, FORGOT_DELAY_MS, 0);
    return reply_ok(c, NULL, NULL);
}

static void on_reset(void *arg, int status, int64_t account, const char *username,
                     const char *token, const char *why)
{
    net_conn *c = api_pending_done(arg);
    if (status == 0) {
        /* The account's open WebSockets end too (whether or not the reset's
         * own connection is still there): they come back as guests. */
        dispatch_logins_ended(account, NULL, true, "the password changed: log in again");
    }
    if (c == NULL)
        return;
    if (status < 0)
        api_reply_error(c, 500, store_err_code(status), why ? why : store_err_text(status));
    else
        reply_ok(c, NULL, NULL);
}

/* The reset link's token taken: the new password's hashing (off the loop),
 * then on_reset; even if the connection went meanwhile (the link works
 * once). */
static void reset_taken(void *arg, int status, int64_t account, const char *address)
{
    (void)address;
    mail_req *r = arg;
    if (token_refused(r, status))
        return;
    /* r stays on c: on_reset ends it. */
    unsigned retry_s = 0;
    int err = accounts_set_password(db, account, r->m.password, on_reset, &r->p, &retry_s);
    sodium_memzero(r->m.password, sizeof r->m.password);
    if (err < 0) {
        net_conn *c = req_end(r);
        if (c == NULL)
            return;
        if (err == STORE_EBUSY)
            net_http_retry_after(c, retry_s ? retry_s : 1);
        api_reply_error(c, err == STORE_EBUSY ? 503 : 500, store_err_code(err),
                        store_err_text(err));
    }
}

int api_password_reset(net_conn *c, const char *arg, const char *body, size_t len)
{
    mail_req *r = req_new(body, len);
    if (r == NULL)
        return 500;
    mailmsg_body *m = &r->m;
    if (r->bad) {
        api_reply_error(c, 400, "bad_message", r->why);
        req_drop(r);
        return 0;
    }
    if (!m->has_password || accounts_password_check(m->password) < 0) {
        req_drop(r);
        return api_reply_error(c, 400, store_err_code(STORE_EPASSWORD), ACCOUNTS_PASSWORD_RULES);
    }
    if (!m->has_token || !is_hex(m->token, LINK_TOKEN_HEX)) {
        req_drop(r);
        return api_reply_error(c, 400, "bad_token", "this link is unknown, used or expired");
    }
    unsigned char h[32];
    accounts_token_hash(m->token, h);
    req_hook(r, c);
    if (store_mail_token_take(db, h, sizeof h, STORE_TOKEN_RESET, reset_taken, r) < 0) {
        req_end(r);
        return 500;
    }
    return 0;
}
