/*
 * net.h - the transport: libwebsockets on the libuv loop, one WebSocket
 * endpoint and HTTP.
 *
 * Owns: the libwebsockets context; each connection's transport record
 * (net_conn: send queue, reassembly of fragmented messages, the HTTP reply
 * or the part of a streamed (chunked) reply waiting to be written, one at
 * a time); the shared outgoing message (net_msg); static
 * files (served from the web root by its own handler, which never leaves
 * it); the connection caps (per address and in total, from the descriptor
 * limit); the checks every request passes before a route or a session sees
 * it (Origin, Content-Type and Content-Length of a POST, size of the request
 * line and headers, the hello timeout); the security headers of every
 * reply; what a route reads of its request (query parameters, cookies,
 * the Accept header); the counters of what it carried and refused
 * (net_stats). Files: net.c (connections, routing, checks), net_http.c
 * (replies and what a route reads), net_guard.c, net_msg.c.
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
#include <time.h>

#include <uv.h>

#include "proto_out.h"

enum {
    /* An HTTP reply whose reader takes none of its bytes for this long is
     * closed (what is held for it goes); net_config.http_stall_s. */
    NET_HTTP_STALL_SECONDS = 60,
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
    bool streaming, stream_last;        /* net_http_stream: a part is the last */
    const struct net_route *post_route; /* a POST waiting for its body */
    char post_arg[64];
    unsigned retry_after; /* seconds for the next HTTP reply's Retry-After (0: none) */
    char attachment[40];  /* the next HTTP reply's download file name ("": none) */
    char etag[72];        /* the next HTTP reply's ETag ("": none, and no-store) */
    time_t last_modified; /* and its Last-Modified (0: none) */
    char close_frame[NET_HEADROOM + 2 + 123]; /* net_close_why: status, reason */
    size_t close_len;
    bool close_sent;
    /* WebSocket connections that have not said hello yet, oldest first
     * (closed after the hello timeout). */
    struct net_conn *hprev, *hnext;
    uint64_t opened_ms;
    bool waiting_hello;
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
/* Close c with 1001 (going away) and reason once what is queued is sent:
 * the client connects again (to any node) and finds what moved. */
void net_close_going_away(net_conn *c, const char *reason);
/* Graceful stop, first step: new connections are closed at once and
 * messages that arrive are dropped (what was received is answered). */
void net_drain(void);
/* Second step: every WebSocket is closed with 1001 and reason once what
 * is queued to it is sent (net_get_stats()->connections falls to 0 as
 * the peers answer; net_stop ends the others). */
void net_close_all(const char *reason);
/* c said hello: it is no longer closed after the hello timeout. */
void net_ready(net_conn *c);

/* Answer the HTTP request of c (from a route handler or later, on the loop
 * thread): status, content type, body (copied), and a Set-Cookie value or
 * NULL. */
void net_http_reply(net_conn *c, unsigned status, const char *ctype, const char *body, size_t len,
                    const char *set_cookie);
/* Answer a GET whose body changes only with etag (a quoted tag, under 72
 * bytes; e.g. of a file read at start): 304 with the ETag and no body when
 * the request's If-None-Match names it (counted as the static files'
 * 304s); else 200 with the body (copied), the ETag, Last-Modified (mtime,
 * if > 0) and Cache-Control: no-cache (browsers keep it and revalidate it
 * at each use, so a reload fetches nothing new). For a route handler to
 * return: 0, or -1 (the connection closes). */
int net_http_reply_validated(net_conn *c, const char *ctype, const char *body, size_t len,
                             const char *etag, time_t mtime);
/* The same with the body written in o (consumed). */
void net_http_reply_out(net_conn *c, unsigned status, const char *ctype, proto_out *o,
                        const char *set_cookie);
/* Give the next HTTP reply of c a Retry-After: seconds header (429, 503). */
void net_http_retry_after(net_conn *c, unsigned seconds);
/* Make the next 200 reply of c a download: Content-Disposition: attachment;
 * filename="<name>" (name: letters, digits, '-', '.' and '_' only; a
 * longer one than fits is cut). */
void net_http_attachment(net_conn *c, const char *name);
/* The value of the cookie `name` of c's request (HTTP, or the WebSocket
 * upgrade while the open callback runs) into buf; its length, or -1 if
 * there is none (or it does not fit). */
int net_cookie(net_conn *c, const char *name, char *buf, size_t len);
/* The User-Agent of c's request (while the route handler runs) into buf,
 * cut to fit; its length, or -1 if there is none. */
int net_user_agent(net_conn *c, char *buf, size_t len);
/* The value of the query parameter `name` of c's request (URL-decoded,
 * while the route handler runs) into buf; its length, or -1 if there is
 * none (or it does not fit). */
int net_query(net_conn *c, const char *name, char *buf, size_t len);
/* Does the Accept header of c's request (while the route handler runs)
 * name this media type (e.g. "application/x-ndjson")? */
bool net_accepts(net_conn *c, const char *ctype);
/* The connection's kernel send buffer (SO_SNDBUF; Linux doubles it), for
 * a long reply: by default the kernel grows it to megabytes for a reader
 * that reads nothing; with this, the rest waits in lws, where its owner
 * counts it (http_closed comes once it is written). */
void net_http_send_buffer(net_conn *c, int bytes);
/* A body of unknown length, streamed: send the headers now (chunked
 * transfer encoding): 0, or -1 (the connection closes). Then give its
 * parts one at a time with net_http_stream_part; net calls
 * callbacks->http_sent when a part is written and it wants the next, so a
 * slow reader holds at most one part in memory. */
int net_http_stream(net_conn *c, unsigned status, const char *ctype);
/* The next part (o consumed; may be empty); last: the body ends with it. */
void net_http_stream_part(net_conn *c, proto_out *o, bool last);

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
    /* The HTTP exchange of a connection whose data a route handler set is
     * over: its reply's last part handed to lws (which holds at most that
     * part, and drops a reader who stops taking it) or the connection
     * closed first. Forget c. */
    void (*http_closed)(net_conn *c);
    /* A part of a streamed reply (net_http_stream) is written: give the
     * next with net_http_stream_part. */
    void (*http_sent)(net_conn *c);
} net_callbacks;

/* NET_ANY_ORIGIN, with NET_POST in a route's methods: a POST any page or
 * program may send, whatever its Origin and Content-Type (RFC 8058's
 * one-click unsubscribe comes from mail providers as a form); its handler
 * needs no cookie and takes any body. Only its Content-Length is checked. */
enum { NET_GET = 1 << 0, NET_POST = 1 << 1, NET_ANY_ORIGIN = 1 << 2 };

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
    /* The site's origin ("https://host[:port]", from --public-url): the
     * Origin a browser's WebSocket upgrade or POST must carry. NULL: the
     * Origin's host must be the request's Host header. */
    const char *public_origin;
    int max_per_address;       /* connections at once from one address (IPv6: its /64) */
    int max_ws;                /* WebSocket connections at once; 0: from the descriptor limit */
    unsigned hello_timeout_ms; /* a WebSocket without hello this long is closed */
    unsigned http_stall_s;     /* an HTTP reply none of whose bytes are taken this long is
                                * dropped (0: NET_HTTP_STALL_SECONDS) */
    /* Where net's own lines and libwebsockets' go (level: NET_LOG_*);
     * NULL: stderr as they are. */
    void (*log)(int level, const char *text);
    /* --trust-proxy: a peer with this address (IPv4 mapped into IPv6) is
     * the reverse proxy: the address of its requests is the last of their
     * X-Forwarded-For, and its connections are not capped per address. */
    bool trust_proxy_on;
    unsigned char trust_proxy[16];
} net_config;

/* Set cfg's trusted proxy from an IPv4 or IPv6 address: 0, or -1 if the
 * text is not one. */
int net_trust_proxy(net_config *cfg, const char *text);

enum { NET_LOG_ERROR, NET_LOG_WARN, NET_LOG_INFO };

enum {
    NET_PER_ADDRESS_DEFAULT = 256,
    NET_HELLO_TIMEOUT_MS = 30000,
    /* Descriptors never given to connections (the database and its WAL,
     * the listener, libuv, stdio, a file being served). */
    NET_FD_RESERVE = 32,
    /* Descriptors kept for plain HTTP (/healthz, logins) when WebSockets
     * are at their cap. */
    NET_HTTP_RESERVE = 128,
    NET_URI_MAX = 2048,     /* request line's path and query: longer is 414 */
    NET_HEADERS_MAX = 8192, /* headers in total: more is 431 */
};

/* What net carried since start (metrics.c shows them). */
typedef struct net_stats {
    int64_t connections; /* open WebSocket connections */
    uint64_t messages_in, messages_out;
    uint64_t http_requests;
    uint64_t too_large;         /* connections closed for a message over max_message */
    int64_t max_ws;             /* the WebSocket cap in force */
    uint64_t refused_address;   /* connections closed at once: their address's cap */
    uint64_t refused_full;      /* connections closed at once: every descriptor in use */
    uint64_t refused_ws;        /* upgrades answered 503: the WebSocket cap */
    uint64_t bad_origin;        /* upgrades and POSTs answered 403: foreign Origin */
    uint64_t no_length;         /* POSTs answered 411 */
    uint64_t bad_type;          /* POSTs answered 415 */
    uint64_t uri_too_long;      /* requests answered 414 */
    uint64_t headers_too_large; /* requests answered 431 */
    uint64_t hello_timeouts;    /* WebSockets closed for saying no hello in time */
    uint64_t unmasked;          /* WebSockets closed with 1002 for an unmasked frame */
    uint64_t outside_root;      /* file requests answered 404: resolved outside the web root */
    uint64_t not_modified;      /* file requests answered 304: If-None-Match names the ETag */
    int64_t sockets;            /* accepted connections open (HTTP and WebSocket) */
    int64_t max_sockets;        /* their cap, from the descriptor limit */
} net_stats;

const net_stats *net_get_stats(void);

/*
 * Private to the net module (net.c, net_http.c, and net_guard.c, which
 * needs no libwebsockets). Descriptors are below the max_fd given to init.
 */
/* Tables for descriptors 0..max_fd-1; -1 if out of memory. */
int net_guard_init(int max_fd);
void net_guard_free(void);
/* Count a connection accepted on fd against its address (IPv6: its /64):
 * 0, 1 if the address already has max_per_address, -1 if fd cannot be
 * counted (its address unknown). */
int net_guard_accept(int fd, int max_per_address);
/* Is the peer on fd the trusted proxy (cfg's trust_proxy)? */
bool net_guard_is_proxy(int fd, const net_config *cfg);
/* The last address of an X-Forwarded-For value (the one the proxy itself
 * added) into out as text: 0, or -1 if there is none or it is no address. */
int net_guard_forwarded(const char *xff, char *out, size_t len);
/* The connection on fd ended: true if it was counted. */
bool net_guard_release(int fd);
/* The file of the web root (root: a realpath) at path (index.html for a
 * path ending in "/"): its realpath into real (PATH_MAX bytes), its ETag
 * ("size-mtime" in hex, quoted; the mtime in nanoseconds) into etag and its
 * mtime (seconds). 0 when found; 1 when it resolves outside the root
 * (symlinks included); -1 when no such file. */
int net_guard_file(const char *root, const char *path, char *real, char *etag, size_t etag_len,
                   time_t *mtime);
/* Does an If-None-Match value (entity tags, weak or strong, or "*") name
 * etag? Compared weakly (RFC 9110, 13.1.2): W/"x" names "x". */
bool net_guard_etag_match(const char *if_none_match, const char *etag);
/* Follow (on) or stop following the client frames read on fd. */
void net_guard_scan(int fd, bool on);
/* Has the client on fd sent an unmasked frame? */
bool net_guard_unmasked(int fd);

/* net_http.c, for net.c: the security headers as raw header lines; a
 * short page with this status (-1: close); a JSON error at once, before
 * the request's body (always -1: the connection closes); the
 * HTTP_WRITEABLE step (-1: close, 1: a streamed part went, want more,
 * 2: the reply's last part went). */
extern const char net_security_headers[];
/* t as an HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT") into buf (32 bytes). */
void net_http_date(time_t t, char *buf, size_t len);
/* net.c, for net_http.c: answer 304 with etag now (0, or -1: close). */
int net_http_not_modified(struct lws *wsi, const char *etag);
int net_http_status(struct lws *wsi, net_conn *c, unsigned status);
int net_http_refuse(struct lws *wsi, unsigned status, const char *code, const char *reason);
int net_http_writeable(struct lws *wsi, net_conn *c, unsigned stall_s);

/* Create the libwebsockets context on loop and listen (cfg and what it
 * points to must outlive the context). Returns the port listened on, or -1
 * with a sentence in why. */
int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen);
/* Close every connection (close callbacks run) and destroy the context
 * (runs the loop). */
void net_stop(uv_loop_t *loop);

#endif
