/*
 * net.c - libwebsockets on the libuv loop (see net.h and ../shared/STACK.md).
 *
 * One protocol, at index 0, serves both HTTP and WebSocket: a client that
 * names no subprotocol lands on protocol 0, so it must be the real one.
 *
 * HTTP goes through libwebsockets' mounts: one callback mount per first
 * path segment of the routes ("/api", "/healthz", ...) sends those requests
 * to this protocol, where the route table picks the handler; the mount "/"
 * serves the web root as files (lws's MIME table plus ours, index.html for
 * "/"). A file that does not exist falls back to this protocol too, which
 * answers 404.
 */
#include "net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <libwebsockets.h>

_Static_assert(NET_HEADROOM >= LWS_PRE, "NET_HEADROOM must leave room for LWS_PRE");

static struct lws_context *context;
static const net_config *config;
static net_stats stats;
static char web_root[4096];

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
    if (c->closing)
        return;
    c->closing = true;
    lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"send queue full",
                     15);
    lws_callback_on_writable(c->wsi);
}

static void queue_clear(net_conn *c)
{
    while (c->qcount) {
        net_msg_unref(c->q[c->qhead]);
        c->qhead = (c->qhead + 1) % NET_QUEUE_MAX;
        c->qcount--;
    }
}

/* ------------------------------------------------------------------------ */
/* HTTP. */

static int retry_after_header(struct lws *wsi, unsigned seconds, unsigned char **p,
                              unsigned char *end)
{
    char v[16];
    int n = snprintf(v, sizeof v, "%u", seconds);
    return lws_add_http_header_by_name(
        wsi, (const unsigned char *)"retry-after:", (const unsigned char *)v, n, p, end);
}

void net_http_retry_after(net_conn *c, unsigned seconds)
{
    c->retry_after = seconds;
}

/* Send headers now and keep the body (o, consumed) for HTTP_WRITEABLE. */
static int http_reply(struct lws *wsi, net_conn *c, unsigned status, const char *ctype,
                      proto_out *o, const char *set_cookie)
{
    unsigned char hdr[LWS_PRE + 1024];
    unsigned char *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr - 1;
    if (o->oom || o->head < LWS_PRE) {
        proto_out_free(o);
        return -1;
    }
    if (lws_add_http_common_headers(wsi, status, ctype, o->len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        (set_cookie && lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:",
                                                   (const unsigned char *)set_cookie,
                                                   (int)strlen(set_cookie), &p, end)) ||
        (c->retry_after && retry_after_header(wsi, c->retry_after, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end)) {
        proto_out_free(o);
        return -1;
    }
    c->retry_after = 0;
    proto_out_free(&c->http_out);
    c->http_out = *o;
    o->buf = NULL;
    o->len = o->cap = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

void net_http_reply_out(net_conn *c, unsigned status, const char *ctype, proto_out *o,
                        const char *set_cookie)
{
    if (!o->oom && o->head < NET_HEADROOM) {
        proto_out copy;
        proto_out_init(&copy, NET_HEADROOM);
        proto_out_append(&copy, proto_out_data(o), o->len);
        proto_out_free(o);
        *o = copy;
    }
    if (http_reply(c->wsi, c, status, ctype, o, set_cookie) < 0)
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

void net_http_reply(net_conn *c, unsigned status, const char *ctype, const char *body, size_t len,
                    const char *set_cookie)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_out_append(&o, body, len);
    net_http_reply_out(c, status, ctype, &o, set_cookie);
}

int net_cookie(net_conn *c, const char *name, char *buf, size_t len)
{
    size_t max = len;
    if (len == 0 || lws_http_cookie_get(c->wsi, name, buf, &max) != 0)
        return -1;
    return (int)max;
}

/* An empty page with this status; -1 when the connection must close. */
static int http_status(struct lws *wsi, unsigned status)
{
    if (lws_return_http_status(wsi, status, NULL))
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

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

enum { POST_MAX = 4096, PATH_MAX_LEN = 512 };

/* The peer's address into c->addr ("" if lws cannot tell). */
static void peer_address(struct lws *wsi, net_conn *c)
{
    c->addr[0] = '\0';
    if (lws_get_peer_simple(wsi, c->addr, sizeof c->addr) == NULL)
        c->addr[0] = '\0';
}

static int http_request(struct lws *wsi, net_conn *c)
{
    stats.http_requests++;
    c->wsi = wsi;
    peer_address(wsi, c);
    char *uri = NULL;
    int ulen = 0;
    int meth = lws_http_get_uri_and_method(wsi, &uri, &ulen);
    char path[PATH_MAX_LEN];
    if (meth < 0 || uri == NULL || ulen <= 0 || ulen >= (int)sizeof path)
        return http_status(wsi, HTTP_STATUS_NOT_FOUND);
    memcpy(path, uri, (size_t)ulen);
    path[ulen] = '\0';
    unsigned method = meth == LWSHUMETH_GET ? NET_GET : meth == LWSHUMETH_POST ? NET_POST : 0;
    const char *arg = "";
    const net_route *r = route_find(method, path, &arg);
    if (method == NET_POST) {
        /* Wait for the body (HTTP_BODY, then BODY_COMPLETION); a POST no
         * route takes is answered 404 then. */
        if (r != NULL && strlen(arg) >= sizeof c->post_arg)
            r = NULL;
        c->post_route = r;
        snprintf(c->post_arg, sizeof c->post_arg, "%s", r ? arg : "");
        proto_out_free(&c->rx);
        return 0;
    }
    if (r == NULL)
        return http_status(wsi, HTTP_STATUS_NOT_FOUND);
    int status = r->handler(c, arg, NULL, 0);
    return status == 0 ? 0 : http_status(wsi, (unsigned)status);
}

/* The HTTP part of c is over (closed, or lws rebinds it to serve the next
 * request of a keep-alive connection): free its buffers, tell the owner. */
static void http_done(net_conn *c)
{
    proto_out_free(&c->http_out);
    proto_out_free(&c->rx);
    c->post_route = NULL;
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
        if (c == NULL || c->http_out.buf == NULL)
            break;
        int n = lws_write(wsi, (unsigned char *)proto_out_data(&c->http_out), c->http_out.len,
                          LWS_WRITE_HTTP_FINAL);
        proto_out_free(&c->http_out);
        if (n < 0 || lws_http_transaction_completed(wsi))
            return -1;
        return 0;
    }

    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;

    case LWS_CALLBACK_HTTP_BODY:
        if (c == NULL || c->is_ws)
            break;
        if (c->rx.len + len > POST_MAX) {
            lws_return_http_status(wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, NULL);
            return -1;
        }
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
        return http_status(wsi, (unsigned)status);
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
        stats.connections++;
        config->callbacks->open(c);
        return 0;

    case LWS_CALLBACK_RECEIVE:
        if (c->closing)
            return 0;
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
        return c->closing ? -1 : 0;
    }

    case LWS_CALLBACK_CLOSED:
        if (!c->is_ws)
            break;
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

/* ------------------------------------------------------------------------ */
/* Mounts. */

/* Types lws's own table lacks or gets otherwise; "*" (anything else) must
 * stay last. lws looks at its table first, then at this list. */
static const struct lws_protocol_vhost_options mime_any = {NULL, NULL, "*",
                                                           "application/octet-stream"};
static const struct lws_protocol_vhost_options mime_woff2 = {&mime_any, NULL, ".woff2",
                                                             "font/woff2"};
static const struct lws_protocol_vhost_options mime_md = {&mime_woff2, NULL, ".md",
                                                          "text/plain; charset=utf-8"};
static const struct lws_protocol_vhost_options mime_json = {&mime_md, NULL, ".json",
                                                            "application/json"};
static const struct lws_protocol_vhost_options mime_mjs = {&mime_json, NULL, ".mjs",
                                                           "text/javascript; charset=utf-8"};

enum { MOUNTS_MAX = 16, MOUNT_POINT_MAX = 64 };
static struct lws_http_mount mounts[MOUNTS_MAX];
static char mount_points[MOUNTS_MAX][MOUNT_POINT_MAX];

/* One callback mount per distinct first segment of the route paths, then
 * the files. Returns the number of mounts, or -1 if they do not fit. */
static int mounts_build(const net_config *cfg)
{
    int n = 0;
    for (int i = 0; i < cfg->nroutes; i++) {
        const char *p = cfg->routes[i].path;
        size_t len = 1 + strcspn(p + 1, "/");
        if (p[0] != '/' || len < 2 || len >= MOUNT_POINT_MAX)
            return -1;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = strlen(mount_points[j]) == len && strncmp(mount_points[j], p, len) == 0;
        if (seen)
            continue;
        if (n + 1 >= MOUNTS_MAX)
            return -1;
        memcpy(mount_points[n], p, len);
        mount_points[n][len] = '\0';
        mounts[n] = (struct lws_http_mount){
            .mountpoint = mount_points[n],
            .origin = protocols[0].name,
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = (unsigned char)len,
        };
        n++;
    }
    mounts[n] = (struct lws_http_mount){
        .mountpoint = "/",
        .origin = web_root,
        .def = "index.html",
        .extra_mimetypes = &mime_mjs,
        .origin_protocol = LWSMPRO_FILE,
        .mountpoint_len = 1,
    };
    n++;
    for (int i = 0; i + 1 < n; i++)
        mounts[i].mount_next = &mounts[i + 1];
    return n;
}

static void lws_log(int level, const char *line)
{
    fprintf(stderr, "lws: %s", line);
}

int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen)
{
    config = cfg;
    snprintf(web_root, sizeof web_root, "%s", cfg->web_root);
    size_t wl = strlen(web_root);
    while (wl > 1 && web_root[wl - 1] == '/')
        web_root[--wl] = '\0';
    if (mounts_build(cfg) < 0) {
        snprintf(why, whylen, "too many routes, or a route path that is not /segment...");
        return -1;
    }

    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[] = {loop};
    info.port = cfg->port;
    info.iface = cfg->host;
    info.protocols = protocols;
    info.mounts = mounts;
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
    lws_context_destroy(context);
    uv_run(loop, UV_RUN_DEFAULT);
    lws_context_destroy(context);
    uv_run(loop, UV_RUN_DEFAULT);
    context = NULL;
}
