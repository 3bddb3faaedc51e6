/*
 * net.h - the transport: libwebsockets on the libuv loop, one WebSocket
 * endpoint and HTTP.
 *
 * Owns: the libwebsockets context; each connection's transport record
 * (net_conn: send queue, reassembly of fragmented messages, the HTTP reply
 * waiting to be written); the shared outgoing message (net_msg); static
 * files (a libwebsockets mount of the web root); the counters of what it
 * carried (net_stats).
 * May call: libwebsockets, libuv, protocol/proto_out.h. Nothing else of the
 * server: net reports what happens through the callbacks and routes it is
 * given at start, and the owner of a connection keeps its own state behind
 * net_conn.data (as libuv handles have `data`).
 *
 * Sending: net_send writes at once when nothing is queued here or buffered
 * in lws (measured: it removes every epoll_ctl of the write path);
 * otherwise it appends a reference to the shared message to the
 * connection's bounded queue, which the WRITEABLE callback flushes one
 * message per call. A connection whose queue overflows is closed (a slow
 * reader must not grow memory).
 *
 * Everything runs on the loop thread.
 */
#ifndef NET_H
#define NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto_out.h"

enum {
    /* Bytes every outgoing message keeps free in front of it (lws's
     * LWS_PRE, checked in net.c): write messages with
     * proto_out_init(&o, NET_HEADROOM). */
    NET_HEADROOM = 16,
    NET_QUEUE_MAX = 128, /* messages queued per connection */
    NET_ADDR_MAX = 48,   /* an IPv6 address as text, and its NUL */
};

/* A message ready to send, shared by every connection it is queued on. */
typedef struct net_msg {
    int refs;
    size_t head, len; /* head = NET_HEADROOM bytes before the payload */
    char *buf;
} net_msg;

/* Take the buffer of o (written with NET_HEADROOM) into a new message with
 * one reference; o is left empty. NULL if o ran out of memory. */
net_msg *net_msg_from(proto_out *o);
void net_msg_ref(net_msg *m);
/* Drop a reference (m may be NULL); the last one frees the message. */
void net_msg_unref(net_msg *m);

struct lws;
struct net_route;

/*
 * A connection, WebSocket or HTTP. It lives in libwebsockets' per-session
 * storage: a WebSocket connection from the open callback to the close
 * callback. Only `data` is the owner's; the rest is net's own.
 */
typedef struct net_conn {
    void *data;              /* the owner's: set by the open callback (WebSocket) or by a
                                route handler that answers later (HTTP) */
    char addr[NET_ADDR_MAX]; /* the peer's address as text ("127.0.0.1",
                                "::1"), set before the open callback or a
                                route handler runs */

    /* Private to net.c. */
    struct lws *wsi;
    bool is_ws, closing;
    proto_out rx;              /* a fragmented message, or the body of an HTTP POST */
    net_msg *q[NET_QUEUE_MAX]; /* send queue: a ring of references */
    unsigned qhead, qcount;
    proto_out http_out;                 /* an HTTP reply body waiting for HTTP_WRITEABLE */
    const struct net_route *post_route; /* a POST waiting for its body */
    char post_arg[64];
    unsigned retry_after; /* seconds for the next HTTP reply's Retry-After (0: none) */
    char close_frame[NET_HEADROOM + 2 + 123]; /* net_close_why: status, reason */
    size_t close_len;
    bool close_sent;
} net_conn;

/* Queue a message on c (takes a reference; m may be NULL: nothing). */
void net_send(net_conn *c, net_msg *m);
/* Queue the message written in o (consumes o). */
void net_send_out(net_conn *c, proto_out *o);
/* Close c once what is queued is sent (close reason: policy violation,
 * 1008, "send queue full"). */
void net_close(net_conn *c);
/* The same with another reason text (at most 123 bytes). */
void net_close_why(net_conn *c, const char *reason);

/* Answer the HTTP request of c (from a route handler or later, on the loop
 * thread): status, content type, body (copied), and a Set-Cookie value or
 * NULL. */
void net_http_reply(net_conn *c, unsigned status, const char *ctype, const char *body, size_t len,
                    const char *set_cookie);
/* The same with the body written in o (consumed). */
void net_http_reply_out(net_conn *c, unsigned status, const char *ctype, proto_out *o,
                        const char *set_cookie);
/* Give the next HTTP reply of c a Retry-After: seconds header (429, 503). */
void net_http_retry_after(net_conn *c, unsigned seconds);
/* The value of the cookie `name` of c's request (HTTP, or the WebSocket
 * upgrade while the open callback runs) into buf; its length, or -1 if
 * there is none (or it does not fit). */
int net_cookie(net_conn *c, const char *name, char *buf, size_t len);

/* What net tells the owner of the connections. */
typedef struct net_callbacks {
    /* A WebSocket connection is established: set c->data. */
    void (*open)(net_conn *c);
    /* One whole text message (len bytes, not NUL-terminated). A binary
     * message is reported as an empty one. */
    void (*message)(net_conn *c, const char *buf, size_t len);
    /* The WebSocket connection is closed: nothing may be sent on c any more
     * and c is gone when this returns. */
    void (*close)(net_conn *c);
    /* An HTTP connection whose data was set by a route handler closed
     * before it was answered: forget c. */
    void (*http_closed)(net_conn *c);
} net_callbacks;

enum { NET_GET = 1 << 0, NET_POST = 1 << 1 };

/*
 * A route: requests whose method is in `methods` and whose path is `path`
 * (or starts with it, if prefix) go to handler. arg is the rest of the path
 * after `path` ("" for an exact route); body/len the body of a POST (NULL/0
 * for a GET). The handler returns 0 when it answered (net_http_reply), now
 * or later, or an HTTP status for net to send with an empty page (404...).
 */
typedef int (*net_handler)(net_conn *c, const char *arg, const char *body, size_t len);
typedef struct net_route {
    unsigned methods;
    const char *path;
    bool prefix;
    net_handler handler;
} net_route;

typedef struct net_config {
    const char *host;
    int port; /* 0: any free port */
    const char *web_root;
    size_t max_message; /* longer client messages close with 1009 */
    const net_callbacks *callbacks;
    const net_route *routes; /* first match wins; other paths are files */
    int nroutes;
} net_config;

/* What net carried since start (metrics.c shows them). */
typedef struct net_stats {
    int64_t connections; /* open WebSocket connections */
    uint64_t messages_in, messages_out;
    uint64_t http_requests;
    uint64_t too_large; /* connections closed for a message over max_message */
} net_stats;

const net_stats *net_get_stats(void);

/* Create the libwebsockets context on loop and listen (cfg and what it
 * points to must outlive the context). Returns the port listened on, or -1
 * with a sentence in why. */
int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen);
/* Close every connection (close callbacks run) and destroy the context
 * (runs the loop). */
void net_stop(uv_loop_t *loop);

#endif
