/*
 * api_totp.c - two-factor sign-in on the profile (see api_totp.h). Each
 * request: the session's account, then its TOTP row (store_totp_get),
 * then what the request does with it, each step a queued call of the
 * store answered on the loop.
 */
#include "api_totp.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "api.h"
#include "throttle.h"
#include "proto.h"
#include "totp.h"

#define ISSUER "chameleon"

/* Codes tried to turn two-factor sign-in on or off, per account: a few
 * free, then a second's wait doubling up to 15 minutes (a code has a
 * million values); a success clears the account's count. */
enum {
    CODES_FREE = 5,
    CODES_BASE_MS = 1000,
    CODES_MAX_MS = 15 * 60 * 1000,
    CODES_QUIET_MS = 3600000,
    CODES_TABLE = 4096,
};

static store *db;
static throttle tries;
static bool tries_ready;

int api_totp_init(store *s)
{
    db = s;
    throttle_rule rule = {CODES_FREE, CODES_BASE_MS, CODES_MAX_MS, CODES_QUIET_MS};
    uint64_t seed;
    if (totp_init() < 0)
        return -1;
    randombytes_buf(&seed, sizeof seed);
    if (throttle_init(&tries, &rule, CODES_TABLE, seed) < 0)
        return -1;
    tries_ready = true;
    return 0;
}

void api_totp_shutdown(void)
{
    if (tries_ready)
        throttle_free(&tries);
    tries_ready = false;
}

static void account_key(int64_t account, char key[24])
{
    snprintf(key, 24, "%lld", (long long)account);
}

typedef enum { TOTP_STATE, TOTP_SETUP, TOTP_ENABLE, TOTP_DISABLE } totp_op;

/* One request between its steps. */
typedef struct totp_req {
    api_pending *p;
    totp_op op;
    int64_t account;
    char username[STORE_NAME_MAX];
    char code[TOTP_CODE_MAX + 1];
    unsigned char secret[TOTP_SECRET_BYTES];
    char recovery[TOTP_RECOVERY_CODES][TOTP_RECOVERY_LEN + 2];
} totp_req;

static void req_free(totp_req *r)
{
    sodium_memzero(r, sizeof *r);
    free(r);
}

/* The connection back (NULL if it closed) and r freed. */
static net_conn *req_done(totp_req *r)
{
    net_conn *c = api_pending_done(r->p);
    req_free(r);
    return c;
}

static void reply(net_conn *c, proto_out *o)
{
    net_http_reply_out(c, 200, "application/json", o, NULL);
}

static void fail(net_conn *c, int status)
{
    if (c == NULL)
        return;
    if (status == STORE_EBAD_TOTP)
        api_reply_error(c, 400, "bad_totp", store_err_text(STORE_EBAD_TOTP));
    else if (status == STORE_ETAKEN)
        api_reply_error(c, 409, "totp_on", "two-factor sign-in is already on: turn it off first");
    else if (status == STORE_ENOT_FOUND)
        api_reply_error(c, 409, "totp_off", "two-factor sign-in is off: set it up first");
    else
        api_reply_error(c, 503, "unavailable",
                        "two-factor sign-in could not be reached; try again");
}

/* The end of a write: the state, the setup or the recovery codes. */
static void written(void *arg, int status)
{
    totp_req *r = arg;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    if (r->op == TOTP_SETUP) {
        char b32[TOTP_BASE32_MAX + 1], uri[TOTP_URI_MAX];
        totp_base32(r->secret, b32);
        totp_uri(ISSUER, r->username, r->secret, uri);
        proto_write_totp_setup(&o, b32, uri);
    } else if (r->op == TOTP_ENABLE) {
        const char *codes[TOTP_RECOVERY_CODES];
        for (int i = 0; i < TOTP_RECOVERY_CODES; i++)
            codes[i] = r->recovery[i];
        proto_write_recovery_codes(&o, codes, TOTP_RECOVERY_CODES);
    } else {
        proto_write_totp_state(&o, false, false, 0);
    }
    if (status == 0 && (r->op == TOTP_ENABLE || r->op == TOTP_DISABLE)) {
        char key[24];
        account_key(r->account, key);
        throttle_clear(&tries, key);
    }
    net_conn *c = req_done(r);
    if (c != NULL && status == 0)
        reply(c, &o);
    else
        proto_out_free(&o);
    if (status < 0)
        fail(c, status);
}

/* A code taken to turn it off (a recovery code used, or none needed): off. */
static void disable_taken(void *arg, int status)
{
    totp_req *r = arg;
    if (status == 0)
        status = store_totp_off(db, r->account, written, r);
    if (status < 0)
        fail(req_done(r), status == STORE_ENOT_FOUND ? STORE_EBAD_TOTP : status);
}

/* The account's row: what the request does with it. */
static void found(void *arg, int status, const store_totp *t)
{
    totp_req *r = arg;
    if (status < 0 && status != STORE_ENOT_FOUND) {
        fail(req_done(r), status);
        return;
    }
    bool on = status == 0 && t->enabled, pending = status == 0 && !t->enabled;
    int64_t now_s = store_now(db) / 1000, step = 0;
    int err = 0;
    if (r->op == TOTP_ENABLE || r->op == TOTP_DISABLE) {
        /* Every try counts (those in flight too); a success clears. */
        char key[24];
        account_key(r->account, key);
        uint64_t now = uv_now(store_loop(db)), wait = throttle_wait(&tries, key, now);
        if (wait > 0) {
            net_conn *c = req_done(r);
            if (c != NULL) {
                net_http_retry_after(c, (unsigned)((wait + 999) / 1000));
                api_reply_error(c, 429, "too_many_attempts", store_err_text(STORE_ETHROTTLED));
            }
            return;
        }
        throttle_hit(&tries, key, now);
    }
    switch (r->op) {
    case TOTP_STATE: {
        proto_out o;
        proto_out_init(&o, NET_HEADROOM);
        proto_write_totp_state(&o, on, pending, on ? t->recovery_left : 0);
        net_conn *c = req_done(r);
        if (c != NULL)
            reply(c, &o);
        else
            proto_out_free(&o);
        return;
    }
    case TOTP_SETUP:
        if (on) {
            err = STORE_ETAKEN;
            break;
        }
        totp_new_secret(r->secret);
        err = store_totp_pending(db, r->account, r->secret, sizeof r->secret, written, r);
        break;
    case TOTP_ENABLE:
        if (!pending) {
            err = on ? STORE_ETAKEN : STORE_ENOT_FOUND;
            break;
        }
        if (t->secret_len != TOTP_SECRET_BYTES ||
            !totp_check(t->secret, now_s, r->code, 0, &step)) {
            err = STORE_EBAD_TOTP;
            break;
        }
        unsigned char hashes[TOTP_RECOVERY_CODES][32];
        totp_recovery_new(r->recovery, TOTP_RECOVERY_CODES);
        for (int i = 0; i < TOTP_RECOVERY_CODES; i++)
            totp_recovery_hash(r->recovery[i], hashes[i]);
        err = store_totp_enable(db, r->account, step, (const unsigned char(*)[32])hashes,
                                TOTP_RECOVERY_CODES, written, r);
        break;
    case TOTP_DISABLE: {
        unsigned char hash[32];
        if (!on)
            err = STORE_ENOT_FOUND;
        else if (t->secret_len == TOTP_SECRET_BYTES &&
                 totp_check(t->secret, now_s, r->code, t->last_step, &step))
            err = store_totp_use(db, r->account, step, disable_taken, r);
        else if (totp_recovery_hash(r->code, hash) == 0)
            err = store_recovery_use(db, r->account, hash, disable_taken, r);
        else
            err = STORE_EBAD_TOTP;
        break;
    }
    }
    if (err < 0)
        fail(req_done(r), err);
}

static void with_account(net_conn *c, const store_account *who, void *ctx)
{
    totp_req *r = ctx;
    r->p = api_account_pending(c, who, "log in to set up two-factor sign-in");
    if (r->p == NULL) {
        req_free(r);
        return;
    }
    r->account = who->id;
    snprintf(r->username, sizeof r->username, "%s", who->username);
    if (store_totp_get(db, r->account, found, r) < 0)
        fail(req_done(r), STORE_EDB);
}

/* Start a request of op; a body with the code for enable and disable. */
static int start(net_conn *c, totp_op op, const char *body, size_t len)
{
    totp_req *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 500;
    r->op = op;
    if (op == TOTP_ENABLE || op == TOTP_DISABLE) {
        char why[128];
        if (proto_decode_code(body, len, r->code, sizeof r->code, why, sizeof why) != 0) {
            req_free(r);
            return api_reply_error(c, 400, "bad_message", why);
        }
    }
    if (api_with_session(c, with_account, r) < 0) {
        req_free(r);
        return 500;
    }
    return 0;
}

int api_totp_state(net_conn *c, const char *arg, const char *body, size_t len)
{
    return start(c, TOTP_STATE, body, len);
}

int api_totp_setup(net_conn *c, const char *arg, const char *body, size_t len)
{
    return start(c, TOTP_SETUP, body, len);
}

int api_totp_enable(net_conn *c, const char *arg, const char *body, size_t len)
{
    return start(c, TOTP_ENABLE, body, len);
}

int api_totp_disable(net_conn *c, const char *arg, const char *body, size_t len)
{
    return start(c, TOTP_DISABLE, body, len);
}
