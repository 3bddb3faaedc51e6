/*
 * session.h - one WebSocket connection as the server sees it.
 *
 * Owns: struct session (hung off net_conn.data): the identity it speaks for
 * after hello, the rooms it watches, its flags (board, lobby, turns), its
 * rate limits, the account of its session cookie; the sink through which
 * rooms, the lobby and identities reach a client (session_send,
 * session_send_out, session_send_error); freeing closed sessions at one
 * safe point (a libuv check handle, after the loop's I/O), never inside a
 * callback of their own.
 * May call: net.h (the transport under it), metrics.h (errors sent),
 * proto.h. Rooms (room.h), the lobby (lobby.h) and identities (ident.h)
 * read and link the fields below, and send only through the sink: they
 * link without net.c (the unit tests give them a fake sink).
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "net.h"
#include "proto.h"

struct ident;
struct room;

enum {
    SESSION_BOARD = 1 << 0, /* wants the board fields in events (hello) */
    SESSION_LOBBY = 1 << 1, /* watches the lobby (lobby_index is valid) */
    SESSION_TURNS = 1 << 2, /* asked for "turns": gets the pushes */
    SESSION_SHUT = 1 << 3,  /* closed for excess: what it still sends is dropped */
    /* A queued store call that what follows depends on is out (the
     * session cookie's account; in node mode the welcome's rooms): what
     * the client sends waits in `early` until it is answered. */
    SESSION_WAIT = 1 << 4,
};

enum {
    SESSION_CHAT_BURST = 5, /* chat lines per window, per identity */
    SESSION_CHAT_WINDOW_MS = 10000,
    SESSION_MSG_BURST = 200, /* messages at once, */
    SESSION_MSG_RATE = 200,  /* and per second on average */
    SESSION_ACCOUNT_NAME = 32,
    /* Bytes of messages kept during SESSION_WAIT (a hello and what a
     * client sends right after it fit many times over). */
    SESSION_EARLY_BYTES = 16384,
    /* Messages refused for excess (decaying by one a second) past which
     * the connection is closed with 1008: a client that stops at the first
     * rate_limited never gets there. */
    SESSION_EXCESS_CLOSE = 10,
};

/* A token bucket: `burst` tokens at most, refilled at `per_s` a second.
 * All zero is a full bucket (calloc'ed records need no set-up). */
typedef struct session_bucket {
    double used;    /* tokens spent and not yet refilled */
    uint64_t at_ms; /* when `used` was last brought up to date */
} session_bucket;

/* Take one token at now_ms: false (nothing taken) when the bucket is
 * empty. */
static inline bool session_bucket_take(session_bucket *b, double burst, double per_s,
                                       uint64_t now_ms)
{
    if (now_ms > b->at_ms) {
        b->used -= (double)(now_ms - b->at_ms) * per_s / 1000.0;
        if (b->used < 0)
            b->used = 0;
    }
    b->at_ms = now_ms;
    if (b->used + 1 > burst)
        return false;
    b->used += 1;
    return true;
}

/* A chat window: the last SESSION_CHAT_BURST send times (ms). */
typedef struct session_chat {
    uint64_t times[SESSION_CHAT_BURST];
    int i;
} session_chat;

/* May one more chat line go now (at most SESSION_CHAT_BURST per
 * SESSION_CHAT_WINDOW_MS)? If so it is counted. */
static inline bool session_chat_take(session_chat *c, uint64_t now_ms)
{
    /* The oldest of the last SESSION_CHAT_BURST must be outside the
     * window. */
    uint64_t oldest = c->times[c->i];
    if (oldest != 0 && now_ms - oldest < SESSION_CHAT_WINDOW_MS)
        return false;
    c->times[c->i] = now_ms ? now_ms : 1;
    c->i = (c->i + 1) % SESSION_CHAT_BURST;
    return true;
}

typedef struct session {
    net_conn *conn;                /* the transport; NULL once closed (the sink then
                                      drops what it is given) */
    uint64_t serial;               /* never reused: an answer that comes later (a
                                      store callback) finds its session by it among
                                      its identity's (dispatch.c), or finds it gone */
    struct ident *who;             /* NULL before hello */
    struct session *iprev, *inext; /* the identity's sessions (ident.c) */
    unsigned flags;                /* SESSION_* */
    int lobby_index;               /* index in the lobby watchers (lobby.c), -1 if none */
    struct room **rooms;           /* rooms watched (room_events.c) */
    size_t nrooms, caprooms;
    /* Upgrade request: the account of the session cookie (0: none), and
     * the hash of its login's token (has_login), so that ending a login
     * ends its connections (dispatch_logins_ended). */
    int64_t account;
    unsigned char login[32];
    bool has_login;
    char account_name[SESSION_ACCOUNT_NAME];
    /* Rate limit: a token bucket of messages; the messages refused for
     * excess, decaying by one a second. */
    session_bucket msgs;
    double excess;
    uint64_t excess_ms;
    /* Messages received during SESSION_WAIT, in order: each a
     * size_t length then its bytes. */
    char *early;
    size_t nearly, capearly;
    int holds; /* callbacks still to come (session_hold) */
    /* Node mode (forward.c): a remote session speaks here for a client
     * connected to another node (conn is NULL, what it is sent goes to the
     * remote sink); a local one whose requests went to other nodes has
     * their record. Owned by forward.c. */
    struct forward_remote *remote;
    struct forward_link *forwarded;
    struct session *dead_next; /* closed, waiting for the sweep */
} session;

/* Start the sweep on loop (before any session). */
void session_init(uv_loop_t *loop);
/* Free the sessions still waiting for the sweep and close its handle. */
void session_shutdown(void);

/* A session for the WebSocket connection c (c->data points to it). NULL if
 * out of memory. */
session *session_new(net_conn *c);
/* A remote session (node mode): no connection; what rooms send it goes to
 * the sink given to session_set_remote_sink, as the message's bytes. */
session *session_new_remote(struct forward_remote *remote);
typedef void (*session_remote_sink)(session *s, const char *bytes, size_t len);
void session_set_remote_sink(session_remote_sink sink);
/* Ask the client of s (a local session) to connect again: closed with 1001
 * and why once what is queued is sent. */
void session_reconnect(session *s, const char *why);
/* c is closing: the session is cut from it and freed at the next sweep.
 * The caller has taken it out of rooms, the lobby and its identity. */
void session_close(session *s);

/* A callback of s is still to come (a queued store call): a closed s is
 * not freed until each hold is released. session_release tells whether s
 * is still open (its connection there, or a remote session not ended). */
void session_hold(session *s);
bool session_release(session *s);

/* One message more from s now: false when over the rate (token bucket of
 * SESSION_MSG_BURST, SESSION_MSG_RATE per second). */
bool session_rate_ok(session *s, uint64_t now_ms);

/* s sent one message too many (refused, any limit): true when it has gone
 * on past SESSION_EXCESS_CLOSE and is to be closed (counted in the
 * metrics when that happens). */
bool session_excess(session *s, uint64_t now_ms);

/* The sink. Queue a shared message on s (takes a reference). */
void session_send(session *s, net_msg *m);
/* Queue the message written in o (written with NET_HEADROOM; consumed). */
void session_send_out(session *s, proto_out *o);
/* Send an error reply (counted in the metrics); req may be NULL for an
 * error that answers no request, typed says whether req->type is known. */
void session_send_error(session *s, const proto_req *req, bool typed, proto_err e, const char *why);

#endif
