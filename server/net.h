/*
 * net.h - libwebsockets on the libuv loop: HTTP (static files, /healthz,
 * /metrics) and the one WebSocket endpoint.
 *
 * A connection (struct conn) lives in libwebsockets' per-session storage:
 * it exists from ESTABLISHED to CLOSED, and net calls hub_conn_open /
 * hub_receive / hub_conn_closed (hub.h) at those points. net_send writes
 * at once when nothing is queued here or buffered in lws (measured:
 * it removes every epoll_ctl of the write path); otherwise it appends a
 * reference to the shared message to the connection's bounded queue, which
 * the WRITEABLE callback flushes one message per call. A connection whose
 * queue overflows is closed (a slow reader must not grow memory).
 */
#ifndef NET_H
#define NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto.h"

/* A message ready to send, shared by every connection it is queued on. */
typedef struct net_msg {
    int refs;
    size_t head, len; /* head = LWS_PRE bytes before the payload */
    char *buf;
} net_msg;

/* Take the buffer of o (written with net_headroom()) into a new message with
 * one reference; o is left empty. NULL if o ran out of memory. */
net_msg *net_msg_from(proto_out *o);
void net_msg_ref(net_msg *m);
void net_msg_unref(net_msg *m);
/* The headroom proto_out_init must reserve for net_msg_from. */
size_t net_headroom(void);

enum { NET_QUEUE_MAX = 128 }; /* messages queued per connection */

struct ident;
struct room;

typedef struct conn {
    struct lws *wsi;
    bool is_ws, closing;
    /* Reassembly of a fragmented message. */
    char *rx;
    size_t rxlen, rxcap;
    /* Send queue: a ring of message references. */
    net_msg *q[NET_QUEUE_MAX];
    unsigned qhead, qcount;
    /* HTTP reply body waiting for HTTP_WRITEABLE. */
    char *http_buf;
    size_t http_head, http_len;
    /* HTTP POST: its URI while the body arrives (in rx). */
    char post_uri[64];
    bool posting;
    struct hub_http_req *http_req; /* an answer being computed (hub.c) */
    /* WebSocket upgrade: the account of the session cookie (0: none). */
    int64_t account;
    char account_name[32];

    /* Owned by hub.c. */
    struct ident *who;   /* NULL before hello */
    struct conn *inext;  /* next connection of the same identity */
    bool board;          /* wants board fields in events */
    int lobby_index;     /* index in the lobby watchers, -1 if none */
    bool turns_watch;    /* asked for "turns": gets its pushes */
    struct room **rooms; /* rooms watched */
    int nrooms, caprooms;
    uint64_t chat_times[5]; /* chat rate limit: last send times (ms) */
    int chat_i;
    double msg_tokens; /* message rate limit: token bucket */
    uint64_t msg_refill_ms;
} conn;

/* Queue a message on c (takes a reference). */
void net_send(conn *c, net_msg *m);
/* Queue the message written in o (consumes o). */
void net_send_out(conn *c, proto_out *o);
/* Close c after what is queued is sent. */
void net_close(conn *c);

/* Answer an HTTP request of c (from its callbacks or later, on the loop
 * thread): status, content type, body (copied), and a Set-Cookie value or
 * NULL. */
void net_http_reply(conn *c, unsigned status, const char *ctype, const char *body, size_t len,
                    const char *set_cookie);
/* Answer an HTTP request of c later with a bare status and the page
 * libwebsockets sends with one (404, 500). */
void net_http_status(conn *c, unsigned status);
/* The Cookie header of c's request into buf; its length, or -1 if none. */
int net_cookie(conn *c, char *buf, size_t len);

typedef struct net_config {
    const char *host;
    int port; /* 0: any free port */
    const char *web_root;
} net_config;

/* Create the libwebsockets context on loop and listen. Returns the port
 * listened on, or -1 with a sentence in why. */
int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen);
/* Close every connection and destroy the context (runs the loop). */
void net_stop(uv_loop_t *loop);

#endif
