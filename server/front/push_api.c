/*
 * push_api.c - the HTTP routes of Web Push (see push_api.h).
 */
#include "push_api.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "api.h"
#include "proto.h"
#include "push.h"
#include "push_msg.h"
#include "store.h"

static store *db;

void push_api_init(store *s)
{
    db = s;
}

static void reply_ok(net_conn *c, const char *json)
{
    net_http_reply(c, 200, "application/json", json, strlen(json), NULL);
}

/* A request's body, kept while its session cookie is looked up. */
typedef struct body_wait {
    bool subscribe;
    size_t len;
    char body[]; /* len bytes, then a NUL */
} body_wait;

static void subscribe_as(net_conn *c, int64_t account, const char *body, size_t len);
static void unsubscribe_as(net_conn *c, int64_t account, const char *body, size_t len);

static void with_account(net_conn *c, const store_account *who, void *ctx)
{
    body_wait *w = ctx;
    if (c != NULL && (who == NULL || who->id <= 0))
        api_reply_error(c, 401, "account_required", "log in to get notifications on this device");
    else if (c != NULL && w->subscribe)
        subscribe_as(c, who->id, w->body, w->len);
    else if (c != NULL)
        unsubscribe_as(c, who->id, w->body, w->len);
    free(w);
}

/* Look the session cookie's account up, then go on with the body (a
 * missing session is answered 401 before the body is read). */
static int after_session(net_conn *c, bool subscribe, const char *body, size_t len)
{
    body_wait *w = malloc(sizeof *w + len + 1);
    if (w == NULL)
        return 500;
    w->subscribe = subscribe;
    w->len = len;
    if (len)
        memcpy(w->body, body, len);
    w->body[len] = '\0';
    if (api_with_session(c, with_account, w) < 0) {
        free(w);
        return 500;
    }
    return 0;
}

/* The store answers a subscription kept or forgotten: reply, if the
 * connection is still open (arg: its api_pending). */
static void answer(void *arg, int status, const char *ok)
{
    net_conn *c = api_pending_done(arg);
    if (c == NULL)
        return;
    if (status < 0)
        api_reply_error(c, 500, "db_error", "database error");
    else
        reply_ok(c, ok);
}

static void on_subscribed(void *arg, int status)
{
    answer(arg, status, "{\"ok\":true}");
}

static void on_unsubscribed(void *arg, int status)
{
    answer(arg, status,
           status > 0 ? "{\"ok\":true,\"removed\":true}" : "{\"ok\":true,\"removed\":false}");
}

/* The request's answer comes later: hung off c (api.h), or NULL (answered
 * 500 now). */
static api_pending *pending_of(net_conn *c)
{
    api_pending *p = api_pending_new(c);
    if (p == NULL)
        api_reply_error(c, 500, "internal", "out of memory");
    return p;
}

int push_api_key(net_conn *c, const char *arg, const char *body, size_t len)
{
    const char *key = push_public_key();
    if (key == NULL) {
        api_reply_error(c, 404, "push_off", "push notifications are off on this server");
        return 0;
    }
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    push_msg_key(&o, key);
    net_http_reply_out(c, 200, "application/json", &o, NULL);
    return 0;
}

int push_api_subscribe(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (!push_enabled()) {
        api_reply_error(c, 404, "push_off", "push notifications are off on this server");
        return 0;
    }
    return after_session(c, true, body, len);
}

static void subscribe_as(net_conn *c, int64_t account, const char *body, size_t len)
{
    char endpoint[STORE_PUSH_ENDPOINT_MAX + 1], p256dh[128], auth[64], why[200];
    if (push_msg_decode_sub(body, len, 1, endpoint, sizeof endpoint, p256dh, sizeof p256dh, auth,
                            sizeof auth, why, sizeof why) < 0) {
        api_reply_error(c, 400, "bad_message", why);
        return;
    }
    api_pending *p = pending_of(c);
    if (p == NULL)
        return;
    int err = push_subscribe(account, endpoint, p256dh, auth, on_subscribed, p, why, sizeof why);
    if (err != 0) {
        api_pending_done(p);
        api_reply_error(c, (unsigned)err,
                        err == PUSH_EBAD  ? "bad_argument"
                        : err == PUSH_EDB ? "db_error"
                                          : "push_off",
                        why);
    }
    return;
}

int push_api_unsubscribe(net_conn *c, const char *arg, const char *body, size_t len)
{
    return after_session(c, false, body, len);
}

static void unsubscribe_as(net_conn *c, int64_t account, const char *body, size_t len)
{
    char endpoint[STORE_PUSH_ENDPOINT_MAX + 1], why[200];
    if (push_msg_decode_sub(body, len, 0, endpoint, sizeof endpoint, NULL, 0, NULL, 0, why,
                            sizeof why) < 0) {
        api_reply_error(c, 400, "bad_message", why);
        return;
    }
    api_pending *p = pending_of(c);
    if (p == NULL)
        return;
    int err = push_unsubscribe(account, endpoint, on_unsubscribed, p);
    if (err != 0) {
        api_pending_done(p);
        if (err == PUSH_EOFF)
            reply_ok(c, "{\"ok\":true,\"removed\":false}"); /* push off: none kept */
        else
            api_reply_error(c, 500, "db_error", "database error");
    }
    return;
}
