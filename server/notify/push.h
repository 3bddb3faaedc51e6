/*
 * push.h - Web Push (RFC 8030) to the browsers of players who have no tab
 * open: "your move" and the low-time alarm (PROTOCOL.md, "Web Push and
 * in-tab notices").
 *
 * Owns: the server's VAPID key pair (made at the first start, kept by the
 * store), checking and keeping subscriptions, and the sender: one thread
 * of its own that encrypts each message (push_crypto.h), signs its VAPID
 * token and POSTs it with libcurl, retrying with back-off on 429, 5xx and
 * network errors; a subscription is deleted when its push service answers
 * 404 or 410. Results come back to the loop (a uv_async) where the store
 * is told and the counters (metrics.h) move.
 * May call: store.h (store_push_*), push_crypto.h, push_msg.h, metrics.h,
 * log.h, libcurl, libuv.
 *
 * Everything here but the sender thread runs on the loop thread. The loop
 * never waits on the network nor the database: push_your_move and
 * push_low_time queue a read of the account's subscriptions in the store
 * (answered on the loop), then queue a message for each; the queue is
 * bounded (PUSH_QUEUE_MAX; past it a message is dropped and counted as
 * failed).
 *
 * Who is "away" is the caller's to decide (room_notify.c: the seat's
 * identity has no open connection).
 */
#ifndef PUSH_H
#define PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct store;

enum {
    PUSH_SUBS_MAX = 8,         /* subscriptions kept per account (newest) */
    PUSH_TRIES = 4,            /* sends of one message at most */
    PUSH_RETRY_MS = 1000,      /* the first back-off; doubles each time */
    PUSH_RETRY_MAX_MS = 60000, /* no back-off (nor Retry-After) is longer */
    PUSH_QUEUE_MAX = 1024,     /* messages waiting or being sent */
    PUSH_TTL_S = 86400,        /* how long a push service keeps a message */
    PUSH_TIMEOUT_MS = 10000,   /* one POST, connection included */
    PUSH_CONNECT_MS = 3000,    /* its connection */
    PUSH_SENDERS = 4,          /* POSTs at once (threads) */
    PUSH_ACCOUNT_JOBS = 32,    /* messages one account may have queued or in flight */
    PUSH_ANSWER_MAX = 4096,    /* bytes of a push service's answer read; more ends it */
};

typedef struct push_config {
    const char *subject; /* --vapid-subject ("mailto:..." or "https://..."); NULL: push off */
    bool allow_http;     /* --push-allow-http: http:// endpoints too (tests) */
    bool allow_loopback; /* --push-allow-loopback: 127/8, ::1, localhost too (tests);
                            never any other private address (push_addr.h) */
    unsigned retry_ms;   /* first back-off; 0: PUSH_RETRY_MS */
} push_config;

/*
 * Read the VAPID key pair from the store, or make one and keep it; start
 * the sender. With no subject push stays off (push_enabled false) and
 * nothing is read. 0, or -1 with a sentence in why (a bad subject, the
 * store failing).
 */
int push_init(uv_loop_t *loop, struct store *db, const push_config *cfg, char *why, size_t whylen);
/* Stop the sender (a message in flight is abandoned; queued ones are
 * dropped) and close the async handle; run the loop after. */
void push_stop(void);
bool push_enabled(void);
/* The VAPID public key, base64url (the applicationServerKey), or NULL when
 * push is off. */
const char *push_public_key(void);

/* Errors of push_subscribe (HTTP statuses of the API). */
enum { PUSH_EOFF = 404, PUSH_EBAD = 400, PUSH_EDB = 500 };
/* The answer of a subscription kept or forgotten, on the loop once the
 * store has written it: status 0 (kept), 1 or 0 (forgotten: there was one
 * or not), or a negative store error (store.h: not written). */
typedef void (*push_done_cb)(void *arg, int status);
/* Keep the subscription of a browser for account (the endpoint is checked:
 * https, or http with allow_http; the keys decoded and the point checked).
 * The account keeps its PUSH_SUBS_MAX newest. 0: queued, cb (may be NULL)
 * answers later; or a PUSH_E* with why now (cb is not called). */
int push_subscribe(int64_t account, const char *endpoint, const char *p256dh_b64,
                   const char *auth_b64, push_done_cb cb, void *arg, char *why, size_t whylen);
/* Forget the account's subscription of endpoint. 0: queued, cb answers
 * later; PUSH_EOFF (push is off: there is none) or PUSH_EDB now (cb is not
 * called). */
int push_unsubscribe(int64_t account, const char *endpoint, push_done_cb cb, void *arg);

/* It is account's turn in game (variant id, the opponent who moved). */
void push_your_move(int64_t account, int64_t game, const char *variant, const char *opponent);
/* account has used 80% of its time for the move in game: ms_left remain. */
void push_low_time(int64_t account, int64_t game, const char *variant, int64_t ms_left);

#endif
