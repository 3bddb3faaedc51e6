/*
 * api_logins.c - an account's logins (see api_logins.h).
 */
#include "api_logins.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "accounts.h"
#include "api.h"
#include "dispatch.h"
#include "proto.h"

static store *db;

void api_logins_init(store *s)
{
    db = s;
}

/* One request between its steps. */
typedef struct logins_req {
    api_pending *p;
    unsigned char mine[32]; /* the hash of the asker's own login */
    unsigned char end[32];  /* POST: the login to end (others: the asker's) */
    bool others;
    int64_t account;
} logins_req;

static void reply_out(net_conn *c, proto_out *o, const char *cookie)
{
    net_http_reply_out(c, 200, "application/json", o, cookie);
}

static void unavailable(net_conn *c)
{
    api_reply_error(c, 503, "unavailable", "the sessions could not be reached; try again");
}

/* The asker's token's hash into r->mine: false without a cookie. */
static bool own_login(net_conn *c, logins_req *r)
{
    char token[128];
    if (net_cookie(c, ACCOUNTS_COOKIE, token, sizeof token) <= 0)
        return false;
    accounts_token_hash(token, r->mine);
    sodium_memzero(token, sizeof token);
    return true;
}

/* Look the account up, then go on with then; r is freed on failure. */
static int with_account(net_conn *c, logins_req *r, api_session_fn then)
{
    if (!own_login(c, r)) {
        free(r);
        return api_reply_error(c, 401, "account_required", "log in to see your sessions");
    }
    if (api_with_session(c, then, r) < 0) {
        free(r);
        return 500;
    }
    return 0;
}

/* Past the session's look-up: the account, or answered (r freed). */
static bool logged_in(net_conn *c, const store_account *who, logins_req *r)
{
    r->p = api_account_pending(c, who, "log in to see your sessions");
    if (r->p == NULL) {
        free(r);
        return false;
    }
    r->account = who->id;
    return true;
}

/* ------------------------------------------------------------------------ */
/* GET /api/sessions */

static void listed(void *arg, int status, const store_login *l, size_t n)
{
    logins_req *r = arg;
    net_conn *c = api_pending_done(r->p);
    if (c == NULL) {
        free(r);
        return;
    }
    if (status < 0) {
        free(r);
        unavailable(c);
        return;
    }
    char ids[STORE_LOGINS_MAX][PROTO_LOGIN_ID_HEX + 1];
    proto_login out[STORE_LOGINS_MAX];
    for (size_t i = 0; i < n; i++) {
        sodium_bin2hex(ids[i], sizeof ids[i], l[i].hash, sizeof l[i].hash);
        out[i] = (proto_login){.id = ids[i],
                               .created_ms = l[i].created_ms,
                               .expires_ms = l[i].expires_ms,
                               .agent = l[i].agent,
                               .current = sodium_memcmp(l[i].hash, r->mine, sizeof r->mine) == 0};
    }
    free(r);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_logins(&o, out, n);
    reply_out(c, &o, NULL);
}

static void list_with_account(net_conn *c, const store_account *who, void *ctx)
{
    logins_req *r = ctx;
    if (!logged_in(c, who, r))
        return;
    if (store_logins_of(db, r->account, listed, r) < 0) {
        net_conn *gone = api_pending_done(r->p);
        free(r);
        if (gone != NULL)
            unavailable(gone);
    }
}

int api_logins_list(net_conn *c, const char *arg, const char *body, size_t len)
{
    logins_req *r = calloc(1, sizeof *r);
    return r == NULL ? 500 : with_account(c, r, list_with_account);
}

/* ------------------------------------------------------------------------ */
/* POST /api/sessions/end */

static void ended(void *arg, int status, int64_t n)
{
    logins_req *r = arg;
    net_conn *c = api_pending_done(r->p);
    if (status == 0)
        dispatch_logins_ended(r->account, r->end, r->others, "signed out");
    bool self = !r->others && sodium_memcmp(r->end, r->mine, sizeof r->mine) == 0;
    free(r);
    if (c == NULL)
        return;
    if (status < 0) {
        unavailable(c);
        return;
    }
    /* Ending one's own login is logging out: the cookie goes too. */
    char cookie[256], body[48];
    int len = snprintf(body, sizeof body, "{\"ended\":%lld}", (long long)n);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_out_append(&o, body, (size_t)len);
    reply_out(c, &o, self && accounts_set_cookie(cookie, sizeof cookie, NULL) > 0 ? cookie : NULL);
}

static void end_with_account(net_conn *c, const store_account *who, void *ctx)
{
    logins_req *r = ctx;
    if (!logged_in(c, who, r))
        return;
    if (r->others)
        memcpy(r->end, r->mine, sizeof r->end);
    if (store_logins_end(db, r->account, r->end, r->others, ended, r) < 0) {
        net_conn *gone = api_pending_done(r->p);
        free(r);
        if (gone != NULL)
            unavailable(gone);
    }
}

/* The body into r: 0, or a 400 sent. */
static int decode_end(net_conn *c, const char *body, size_t len, logins_req *r)
{
    char id[PROTO_LOGIN_ID_HEX + 1], why[128];
    size_t bin = 0;
    int err = proto_decode_login_end(body, len, id, &r->others, why, sizeof why);
    if (err == 0 && !r->others &&
        (sodium_hex2bin(r->end, sizeof r->end, id, PROTO_LOGIN_ID_HEX, NULL, &bin, NULL) != 0 ||
         bin != sizeof r->end))
        err = PROTO_EBAD_ARGUMENT;
    if (err == 0)
        return 0;
    api_reply_error(c, 400, err == PROTO_EBAD_JSON ? "bad_message" : "bad_argument", why);
    return -1;
}

int api_logins_end(net_conn *c, const char *arg, const char *body, size_t len)
{
    logins_req *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 500;
    if (decode_end(c, body, len, r) < 0) {
        free(r);
        return 0;
    }
    return with_account(c, r, end_with_account);
}
