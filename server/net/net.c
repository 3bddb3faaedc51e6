/*
 * net.c - libwebsockets on the libuv loop (see net.h and ../shared/STACK.md).
 *
 * One protocol, at index 0, serves both HTTP and WebSocket: a client that
 * names no subprotocol lands on protocol 0, so it must be the real one.
 *
 * HTTP: one callback mount "/" sends every request to this protocol, where
 * the route table picks the handler and other GETs are files of the web
 * root, served by serve_file (lws's file mount follows symlinks out of the
 * root and cannot be told not to).
 *
 * Before anything reaches a route or a session: a connection is counted
 * against its address's cap and the descriptor limit when it is accepted
 * (over either: closed at once); a request's size is checked (414, 431); a
 * POST needs a Content-Length (411), a JSON body (415) and, from a browser,
 * the site's Origin (403), as does a WebSocket upgrade.
 */
#include "net.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <libwebsockets.h>

_Static_assert(NET_HEADROOM >= LWS_PRE, "NET_HEADROOM must leave room for LWS_PRE");

static struct lws_context *context;
static const struct lws_protocols *ws_protocol; /* protocols[0], for net_close_all */
static const net_config *config;
static net_stats stats;
static char web_root[PATH_MAX]; /* its realpath */
/* net_drain: no new connection, no new message; net_close_all: the
 * reason each WebSocket is closed with (1001) once its queue is sent. */
static bool draining;
static const char *going_away;
static uv_timer_t hello_timer;
static net_conn *hello_head, *hello_tail; /* waiting for hello, oldest first */

const net_stats *net_get_stats(void)
{
    return &stats;
}

/* ------------------------------------------------------------------------ */
/* WebSocket sending. */

void net_send(net_conn *c, net_msg *m)
{
    if (m == NULL || c->closing)
        return;
    if (c->qcount == NET_QUEUE_MAX) {
        /* A reader this slow would grow memory without bound: drop it. */
        lwsl_notice("closing a connection whose send queue is full\n");
        net_close(c);
        return;
    }
    stats.messages_out++;
    if (c->qcount == 0 && !lws_partial_buffered(c->wsi)) {
        /* Nothing waiting here or in lws: write now, saving a loop
         * iteration and two epoll_ctl calls per message. What the kernel
         * does not take, lws keeps (one message at most, since the next
         * ones queue here while it is buffered) and sends when writable. */
        int n = lws_write(c->wsi, (unsigned char *)m->buf + m->head, m->len, LWS_WRITE_TEXT);
        if (n < (int)m->len) {
            c->closing = true;
            lws_callback_on_writable(c->wsi);
        }
        return;
    }
    net_msg_ref(m);
    c->q[(c->qhead + c->qcount) % NET_QUEUE_MAX] = m;
    c->qcount++;
    lws_callback_on_writable(c->wsi);
}

void net_send_out(net_conn *c, proto_out *o)
{
    net_msg *m = net_msg_from(o);
    net_send(c, m);
    net_msg_unref(m);
}

void net_close(net_conn *c)
{
    net_close_why(c, "send queue full");
}

/* Mark c closing with a close frame (status, reason) to send after what
 * is queued; see WRITEABLE. */
static void close_with(net_conn *c, unsigned status, const char *reason)
{
    c->closing = true;
    size_t n = strlen(reason);
    if (n > sizeof c->close_frame - NET_HEADROOM - 2)
        n = sizeof c->close_frame - NET_HEADROOM - 2;
    unsigned char *p = (unsigned char *)c->close_frame + NET_HEADROOM;
    p[0] = (unsigned char)(status >> 8);
    p[1] = (unsigned char)(status & 0xff);
    memcpy(p + 2, reason, n);
    c->close_len = 2 + n;
}

void net_close_why(net_conn *c, const char *reason)
{
    if (c->closing)
        return;
    close_with(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, reason);
    lws_callback_on_writable(c->wsi);
}

void net_close_going_away(net_conn *c, const char *reason)
{
    if (c->closing)
        return;
    close_with(c, LWS_CLOSE_STATUS_GOINGAWAY, reason);
    lws_callback_on_writable(c->wsi);
}

void net_drain(void)
{
    draining = true;
}

void net_close_all(const char *reason)
{
    draining = true;
    going_away = reason;
    if (context != NULL)
        lws_callback_on_writable_all_protocol(context, ws_protocol);
}

/* ------------------------------------------------------------------------ */
/* The hello timeout: connections waiting for hello form a list in the
 * order they opened (the timeout is the same for all), so the timer looks
 * at its head only. */

static void hello_unlink(net_conn *c)
{
    if (!c->waiting_hello)
        return;
    c->waiting_hello = false;
    if (c->hprev)
        c->hprev->hnext = c->hnext;
    else
        hello_head = c->hnext;
    if (c->hnext)
        c->hnext->hprev = c->hprev;
    else
        hello_tail = c->hprev;
    c->hprev = c->hnext = NULL;
}

void net_ready(net_conn *c)
{
    hello_unlink(c);
}

static void on_hello_timer(uv_timer_t *t)
{
    uint64_t now = uv_now(t->loop);
    while (hello_head && now - hello_head->opened_ms >= config->hello_timeout_ms) {
        net_conn *c = hello_head;
        hello_unlink(c);
        stats.hello_timeouts++;
        /* Close now, with a close frame (1008): this timer runs outside
         * any lws callback, and the close callback runs before the
         * connection is freed. */
        c->closing = true;
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                         (unsigned char *)"no hello in time", 16);
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
}

static void queue_clear(net_conn *c)
{
    while (c->qcount) {
        net_msg_unref(c->q[c->qhead]);
        c->qhead = (c->qhead + 1) % NET_QUEUE_MAX;
        c->qcount--;
    }
}

/* A connection was accepted on fd: -1 closes it at once (nothing read,
 * nothing allocated for it) when its address or the server is full. */
static int accept_filter(int fd)
{
    if (draining)
        return -1;
    if (stats.sockets >= stats.max_sockets) {
        stats.refused_full++;
        return -1;
    }
    int r =
        net_guard_accept(fd, net_guard_is_proxy(fd, config) ? INT_MAX : config->max_per_address);
    if (r != 0) {
        if (r > 0)
            stats.refused_address++;
        else
            stats.refused_full++;
        return -1;
    }
    stats.sockets++;
    return 0;
}

/* Size the tables and the caps from the descriptor limit. */
static int caps_init(const net_config *cfg, char *why, size_t whylen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 2 * NET_FD_RESERVE) {
        snprintf(why, whylen, "the descriptor limit (ulimit -n) is below %d", 2 * NET_FD_RESERVE);
        return -1;
    }
    int fd_max = rl.rlim_cur > (1 << 20) ? 1 << 20 : (int)rl.rlim_cur;
    stats.max_sockets = fd_max - NET_FD_RESERVE;
    /* WebSockets leave room for plain HTTP (/healthz) when they are full:
     * a quarter of the descriptors on a small limit. */
    int64_t http = fd_max / 4 < NET_HTTP_RESERVE ? fd_max / 4 : NET_HTTP_RESERVE;
    int64_t ws = stats.max_sockets - http;
    stats.max_ws = cfg->max_ws > 0 && cfg->max_ws < ws ? cfg->max_ws : ws;
    if (net_guard_init(fd_max) < 0) {
        snprintf(why, whylen, "out of memory for the connection tables");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* HTTP. */

/* The first route for this method and path, and the rest of the path. */
static const net_route *route_find(unsigned method, const char *path, const char **arg)
{
    for (int i = 0; i < config->nroutes; i++) {
        const net_route *r = &config->routes[i];
        size_t n = strlen(r->path);
        if (!(r->methods & method))
            continue;
        if (r->prefix ? strncmp(path, r->path, n) == 0 : strcmp(path, r->path) == 0) {
            *arg = path + n;
            return r;
        }
    }
    return NULL;
}

enum { POST_MAX = 4096 };

/* The peer's address into c->addr ("" if unknown); from the trusted proxy,
 * X-Forwarded-For's (without one, the proxy's own: a health check). */
static void peer_address(struct lws *wsi, net_conn *c)
{
    char xff[512];
    c->addr[0] = '\0';
    if (net_guard_is_proxy(lws_get_socket_fd(wsi), config) &&
        lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) > 0 &&
        net_guard_forwarded(xff, c->addr, sizeof c->addr) == 0)
        return;
    if (lws_get_peer_simple(wsi, c->addr, sizeof c->addr) == NULL)
        c->addr[0] = '\0';
}

/* 414 or 431 for a request larger than any of ours, else 0. lws itself
 * holds at most HEADER_DATA bytes of a request and drops one over that. */
static unsigned size_check(struct lws *wsi, int ulen)
{
    if (ulen + lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) > NET_URI_MAX) {
        stats.uri_too_long++;
        return HTTP_STATUS_REQ_URI_TOO_LONG;
    }
    int total = 0;
    for (int t = 0; t < (int)WSI_TOKEN_COUNT; t++)
        total += lws_hdr_total_length(wsi, (enum lws_token_indexes)t);
    if (total > NET_HEADERS_MAX) {
        stats.headers_too_large++;
        return 431;
    }
    return 0;
}

/* A browser's upgrade or POST carries the site's Origin: --public-url's,
 * or one whose host is the Host header. No Origin: not a browser (they
 * send it on every upgrade and POST), so no cookie of a visitor to abuse. */
static bool origin_ok(struct lws *wsi)
{
    char origin[256], host[256];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) == 0)
        return true;
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
        return false;
    if (config->public_origin != NULL)
        return strcasecmp(origin, config->public_origin) == 0;
    const char *h = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                    : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                              : NULL;
    return h != NULL && lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0 &&
           strcasecmp(h, host) == 0;
}

/* A POST is answered before its body when it cannot be one of ours: a
 * foreign Origin (403), no Content-Length (411: lws would wait for a body
 * that has no end), not JSON (415: forms and text/plain are what a foreign
 * page can send without asking). The connection closes after the answer
 * (the body, if any, is not read). 1: go on. */
static int post_check(struct lws *wsi, const net_route *r)
{
    char ctype[64];
    if (r != NULL && (r->methods & NET_ANY_ORIGIN)) {
        if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0)
            return 1;
        stats.no_length++;
        return net_http_refuse(wsi, 411, "length_required", "a POST needs a Content-Length");
    }
    if (!origin_ok(wsi)) {
        stats.bad_origin++;
        return net_http_refuse(wsi, HTTP_STATUS_FORBIDDEN, "bad_origin",
                               "this request must come from the site's own pages");
    }
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0) {
        stats.no_length++;
        return net_http_refuse(wsi, 411, "length_required", "a POST needs a Content-Length");
    }
    if (lws_hdr_copy(wsi, ctype, sizeof ctype, WSI_TOKEN_HTTP_CONTENT_TYPE) < 16 ||
        strncasecmp(ctype, "application/json", 16) != 0 ||
        (ctype[16] != '\0' && ctype[16] != ';' && ctype[16] != ' ')) {
        stats.bad_type++;
        return net_http_refuse(wsi, HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE, "bad_content_type",
                               "the body must be JSON (Content-Type: application/json)");
    }
    return 1;
}

/* Types lws's own table lacks or gets otherwise; "*" (anything else) must
 * stay last. lws looks at its table first, then at this list. */
static const struct lws_protocol_vhost_options mime_any = {NULL, NULL, "*",
                                                           "application/octet-stream"};
static const struct lws_protocol_vhost_options mime_ogg = {&mime_any, NULL, ".ogg", "audio/ogg"};
static const struct lws_protocol_vhost_options mime_woff2 = {&mime_ogg, NULL, ".woff2",
                                                             "font/woff2"};
static const struct lws_protocol_vhost_options mime_md = {&mime_woff2, NULL, ".md",
                                                          "text/plain; charset=utf-8"};
static const struct lws_protocol_vhost_options mime_json = {&mime_md, NULL, ".json",
                                                            "application/json"};
static const struct lws_protocol_vhost_options mime_mjs = {&mime_json, NULL, ".mjs",
                                                           "text/javascript; charset=utf-8"};

/* lws looks at its own MIME table first, then at this mount's list. */
static const struct lws_http_mount mime_mount = {.extra_mimetypes = &mime_mjs};

/* 304: If-None-Match names the file's ETag (browsers revalidate, nginx.conf). */
int net_http_not_modified(struct lws *wsi, const char *etag)
{
    unsigned char buf[LWS_PRE + 512];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    stats.not_modified++;
    if (lws_add_http_header_status(wsi, HTTP_STATUS_NOT_MODIFIED, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"etag:",
                                    (const unsigned char *)etag, (int)strlen(etag), &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* A GET no route takes: the web root's file at path (net_guard_file), or
 * 304. 0 when served, -1 to close, else the status to answer. */
static int serve_file(struct lws *wsi, const char *path)
{
    char real[PATH_MAX], etag[48], inm[256], extra[1024], date[32];
    time_t mtime = 0;
    int found = net_guard_file(web_root, path, real, etag, sizeof etag, &mtime);
    if (found != 0) {
        stats.outside_root += found > 0;
        return HTTP_STATUS_NOT_FOUND;
    }
    if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
        net_guard_etag_match(inm, etag))
        return net_http_not_modified(wsi, etag);
    /* no-cache: kept, and revalidated at each use (a 304 while unchanged). */
    net_http_date(mtime, date, sizeof date);
    int n = snprintf(extra, sizeof extra,
                     "cache-control: no-cache\r\netag: %s\r\nlast-modified: %s\r\n%s", etag, date,
                     net_security_headers);
    const char *mime = lws_get_mimetype(real, &mime_mount);
    n = lws_serve_http_file(wsi, real, mime ? mime : "application/octet-stream", extra, n);
    return n < 0 || (n > 0 && lws_http_transaction_completed(wsi)) ? -1 : 0;
}

static int http_request(struct lws *wsi, net_conn *c)
{
    stats.http_requests++;
    c->wsi = wsi;
    peer_address(wsi, c);
    char *uri = NULL;
    int ulen = 0;
    int meth = lws_http_get_uri_and_method(wsi, &uri, &ulen);
    if (meth < 0 || uri == NULL || ulen <= 0)
        return net_http_status(wsi, c, HTTP_STATUS_NOT_FOUND);
    unsigned too_big = size_check(wsi, ulen);
    if (too_big)
        return net_http_refuse(wsi, too_big, too_big == 431 ? "headers_too_large" : "uri_too_long",
                               too_big == 431 ? "the request's headers are too large"
                                              : "the request's URL is too long");
    char path[NET_URI_MAX + 1];
    memcpy(path, uri, (size_t)ulen);
    path[ulen] = '\0';
    unsigned method = meth == LWSHUMETH_GET ? NET_GET : meth == LWSHUMETH_POST ? NET_POST : 0;
    const char *arg = "";
    const net_route *r = route_find(method, path, &arg);
    if (method == NET_POST) {
        int ok = post_check(wsi, r);
        if (ok <= 0)
            return ok;
        /* Wait for the body (HTTP_BODY, then BODY_COMPLETION); a POST no
         * route takes is answered 404 then. */
        if (r != NULL && strlen(arg) >= sizeof c->post_arg)
            r = NULL;
        c->post_route = r;
        snprintf(c->post_arg, sizeof c->post_arg, "%s", r ? arg : "");
        proto_out_free(&c->rx);
        return 0;
    }
    int status = r != NULL           ? r->handler(c, arg, NULL, 0)
                 : method == NET_GET ? serve_file(wsi, path)
                                     : HTTP_STATUS_NOT_FOUND;
    return status <= 0 ? status : net_http_status(wsi, c, (unsigned)status);
}

/* The HTTP part of c is over (closed, or lws rebinds it to serve the next
 * request of a keep-alive connection): free its buffers, tell the owner. */
static void http_done(net_conn *c)
{
    proto_out_free(&c->http_out);
    proto_out_free(&c->rx);
    c->post_route = NULL;
    c->streaming = c->stream_last = false;
    if (!c->is_ws && c->data != NULL && config->callbacks->http_closed != NULL)
        config->callbacks->http_closed(c);
    if (!c->is_ws)
        c->data = NULL;
}

/* ------------------------------------------------------------------------ */
/* The protocol callback. */

/* Returns -1 when the connection must close now. */
static int receive(struct lws *wsi, net_conn *c, const char *in, size_t len)
{
    bool final = lws_is_final_fragment(wsi);
    if (final && c->rx.len == 0) {
        /* The common case: a whole message in one piece, no copy. */
        stats.messages_in++;
        config->callbacks->message(c, in, len);
        return 0;
    }
    if (c->rx.len + len > config->max_message) {
        stats.too_large++;
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)"too_large", 9);
        c->closing = true;
        return -1;
    }
    proto_out_append(&c->rx, in, len);
    if (c->rx.oom)
        return -1;
    if (final) {
        stats.messages_in++;
        config->callbacks->message(c, proto_out_data(&c->rx), c->rx.len);
        c->rx.len = 0;
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    net_conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        return accept_filter((int)(lws_intptr_t)in);

    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        /* The connection counted by accept_filter: its descriptor is gone
         * by WSI_DESTROY, so the wsi keeps it. */
        lws_set_opaque_user_data(wsi, (void *)(intptr_t)(lws_get_socket_fd(wsi) + 1));
        return 0;

    case LWS_CALLBACK_WSI_DESTROY:
        if (net_guard_release((int)(intptr_t)lws_get_opaque_user_data(wsi) - 1))
            stats.sockets--;
        return 0;

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* A WebSocket upgrade: refused with a status, before a session. */
        unsigned status = size_check(wsi, lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI));
        if (status == 0 && !origin_ok(wsi)) {
            stats.bad_origin++;
            status = HTTP_STATUS_FORBIDDEN;
        }
        if (status == 0 && stats.connections >= stats.max_ws) {
            stats.refused_ws++;
            status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        }
        if (status == 0)
            return 0;
        lws_return_http_status(wsi, status, NULL);
        return -1;
    }

    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        /* No hidden files ("/.git"): the file mount would serve them. */
        if (in != NULL && strstr((const char *)in, "/.") != NULL) {
            lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
            return -1;
        }
        return 0;

    case LWS_CALLBACK_HTTP:
        return http_request(wsi, c);

    case LWS_CALLBACK_HTTP_WRITEABLE: {
        unsigned stall = config->http_stall_s ? config->http_stall_s : NET_HTTP_STALL_SECONDS;
        int n = c == NULL ? 0 : net_http_writeable(wsi, c, stall);
        if (n == 1 && config->callbacks->http_sent != NULL)
            config->callbacks->http_sent(c);
        if (n == 2) { /* the reply's last part is with lws */
            http_done(c);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        return n < 0 ? -1 : 0;
    }

    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;

    case LWS_CALLBACK_HTTP_BODY:
        if (c == NULL || c->is_ws)
            break;
        if (c->rx.len + len > POST_MAX)
            return net_http_refuse(wsi, 413, "too_large", "a request body is at most 4096 bytes");
        proto_out_append(&c->rx, in, len);
        return c->rx.oom ? -1 : 0;

    case LWS_CALLBACK_HTTP_BODY_COMPLETION: {
        if (c == NULL || c->is_ws)
            break;
        const net_route *r = c->post_route;
        c->post_route = NULL;
        int status = HTTP_STATUS_NOT_FOUND;
        if (r != NULL)
            status = r->handler(c, c->post_arg, c->rx.buf ? proto_out_data(&c->rx) : "", c->rx.len);
        /* The body was read: its buffer goes now (keep-alive connections
         * may never see CLOSED_HTTP). */
        proto_out_free(&c->rx);
        if (status == 0)
            return 0; /* answered, or being answered */
        return net_http_status(wsi, c, (unsigned)status);
    }

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
        /* lws calls these with no session data for a connection that closed
         * before any was allocated (seen as a SIGSEGV in the e2e suite). */
        if (c != NULL)
            http_done(c);
        break;

    case LWS_CALLBACK_ESTABLISHED:
        proto_out_free(&c->rx); /* a POST body buffer of the same connection */
        proto_out_free(&c->http_out);
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->is_ws = true;
        peer_address(wsi, c);
        {
            /* Small messages, each awaited by someone: no Nagle delay. */
            int one = 1;
            setsockopt(lws_get_socket_fd(wsi), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        net_guard_scan(lws_get_socket_fd(wsi), true);
        stats.connections++;
        c->opened_ms = uv_now(hello_timer.loop);
        c->waiting_hello = true;
        c->hprev = hello_tail;
        if (hello_tail)
            hello_tail->hnext = c;
        else
            hello_head = c;
        hello_tail = c;
        config->callbacks->open(c);
        return 0;

    case LWS_CALLBACK_RECEIVE:
        if (c->closing || draining)
            return 0;
        if (net_guard_unmasked(lws_get_socket_fd(wsi))) {
            stats.unmasked++;
            lws_close_reason(wsi, LWS_CLOSE_STATUS_PROTOCOL_ERR, (unsigned char *)"unmasked frame",
                             14);
            c->closing = true;
            return -1;
        }
        if (lws_frame_is_binary(wsi)) {
            /* Answered as bad_json, once per message (not per fragment). */
            if (lws_is_final_fragment(wsi))
                config->callbacks->message(c, "", 0);
            return 0;
        }
        return receive(wsi, c, in, len);

    case LWS_CALLBACK_SERVER_WRITEABLE: {
        if (c->qcount) {
            net_msg *m = c->q[c->qhead];
            c->qhead = (c->qhead + 1) % NET_QUEUE_MAX;
            c->qcount--;
            int n = lws_write(wsi, (unsigned char *)m->buf + m->head, m->len, LWS_WRITE_TEXT);
            bool short_write = n < (int)m->len;
            net_msg_unref(m);
            if (short_write)
                return -1;
            if (c->qcount) {
                lws_callback_on_writable(wsi);
                return 0;
            }
        }
        if (going_away != NULL && !c->closing)
            close_with(c, LWS_CLOSE_STATUS_GOINGAWAY, going_away);
        if (c->closing && c->close_len > 0 && !c->close_sent) {
            /* Send the close frame ourselves and keep reading (RECEIVE
             * drops what comes) until the peer answers it: closing the
             * socket while a flooding peer's frames are still unread
             * would reset it, and the peer would lose what was sent
             * before (it sees 1006). lws's own way (lws_close_reason,
             * return -1) closes at once. The peer's close, or the
             * timeout, ends it. */
            c->close_sent = true;
            lws_write(wsi, (unsigned char *)c->close_frame + NET_HEADROOM, c->close_len,
                      (enum lws_write_protocol)4 /* LWS_WRITE_CLOSE */);
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, 5);
            return 0;
        }
        return c->closing && !c->close_sent ? -1 : 0;
    }

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* The answer to our close frame: close without echoing it. */
        return c != NULL && c->close_sent ? 1 : 0;

    case LWS_CALLBACK_CLOSED:
        if (!c->is_ws)
            break;
        hello_unlink(c);
        net_guard_scan(lws_get_socket_fd(wsi), false);
        config->callbacks->close(c);
        queue_clear(c);
        proto_out_free(&c->rx);
        c->is_ws = false;
        c->data = NULL;
        stats.connections--;
        return 0;

    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    /* rx 1024: client messages are small (longer ones arrive in pieces);
     * tx: a whole message per send (lws caps a send at this size). */
    {"chameleon", callback, sizeof(net_conn), 1024, 0, NULL, 256 * 1024},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* Every request goes to the protocol callback: routes, then serve_file. */
static const struct lws_http_mount mount_all = {
    .mountpoint = "/",
    .origin = "chameleon",
    .origin_protocol = LWSMPRO_CALLBACK,
    .mountpoint_len = 1,
};

static void lws_log(int level, const char *line)
{
    int lv = level & LLL_ERR ? NET_LOG_ERROR : level & LLL_WARN ? NET_LOG_WARN : NET_LOG_INFO;
    if (config != NULL && config->log != NULL) {
        char b[512];
        snprintf(b, sizeof b, "lws: %s", line);
        config->log(lv, b);
    } else {
        fprintf(stderr, "lws: %s", line);
    }
}

int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen)
{
    config = cfg;
    ws_protocol = &protocols[0];
    if (realpath(cfg->web_root, web_root) == NULL) {
        char b[PATH_MAX + 64];
        snprintf(b, sizeof b, "web root %s: %s: no files served", cfg->web_root, strerror(errno));
        if (cfg->log != NULL)
            cfg->log(NET_LOG_WARN, b);
        else
            fprintf(stderr, "chameleon: %s\n", b);
        web_root[0] = '\0';
    }
    if (caps_init(cfg, why, whylen) < 0)
        return -1;
    uv_timer_init(loop, &hello_timer);
    uint64_t tick = cfg->hello_timeout_ms / 4 < 1000 ? cfg->hello_timeout_ms / 4 + 1 : 1000;
    uv_timer_start(&hello_timer, on_hello_timer, tick, tick);

    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);

    struct lws_context_creation_info info = {0};
    void *loops[] = {loop};
    info.port = cfg->port;
    info.iface = cfg->host;
    info.protocols = protocols;
    info.mounts = &mount_all;
    /* Room for an 8 KiB URL or header, answered 414 or 431 by size_check
     * rather than dropped by lws (it drops what does not fit here). */
    info.max_http_header_data = 16 * 1024;
    info.options =
        LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = loops;
    info.count_threads = 1;
    info.pt_serv_buf_size = 32 * 1024;
    /* lws sizes its fd tables from this; 10k+ connections need room. */
    info.fd_limit_per_thread = 1 << 16;
    info.timeout_secs = 30;
    /* Ping a connection idle for 30 s, hang up one silent for 60 s: a dead
     * peer must not hold a seat "connected" forever. */
    static const lws_retry_bo_t idle_policy = {
        .secs_since_valid_ping = 30,
        .secs_since_valid_hangup = 60,
    };
    info.retry_and_idle_policy = &idle_policy;

    context = lws_create_context(&info);
    if (context == NULL) {
        snprintf(why, whylen,
                 "cannot listen on %s:%d (port in use, bad address, or "
                 "libwebsockets-evlib-uv missing)",
                 cfg->host, cfg->port);
        return -1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(context, "default");
    int port = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (port <= 0) {
        snprintf(why, whylen, "cannot listen on %s:%d (port in use?)", cfg->host, cfg->port);
        /* The caller exits at once: tearing lws down from here crashes. */
        return -1;
    }
    return port;
}

void net_stop(uv_loop_t *loop)
{
    if (context == NULL)
        return;
    uv_close((uv_handle_t *)&hello_timer, NULL);
    lws_context_destroy(context);
    uv_run(loop, UV_RUN_DEFAULT);
    lws_context_destroy(context);
    uv_run(loop, UV_RUN_DEFAULT);
    context = NULL;
    net_guard_free();
}
