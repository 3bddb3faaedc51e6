/*
 * net.c - libwebsockets on the libuv loop (see net.h and ../shared/STACK.md).
 *
 * One protocol, at index 0, serves both HTTP and WebSocket: a client that
 * names no subprotocol lands on protocol 0, so it must be the real one.
 */
#include "net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <libwebsockets.h>

#include "hub.h"
#include "metrics.h"

static struct lws_context *context;
static char web_root[4096];

/* ------------------------------------------------------------------------ */
/* Messages. */

size_t net_headroom(void)
{
    return LWS_PRE;
}

net_msg *net_msg_from(proto_out *o)
{
    if (o->oom || o->buf == NULL) {
        proto_out_free(o);
        return NULL;
    }
    net_msg *m = malloc(sizeof *m);
    if (m == NULL) {
        proto_out_free(o);
        return NULL;
    }
    m->refs = 1;
    m->head = o->head;
    m->len = o->len;
    m->buf = o->buf;
    o->buf = NULL;
    o->len = o->cap = 0;
    return m;
}

void net_msg_ref(net_msg *m)
{
    m->refs++;
}

void net_msg_unref(net_msg *m)
{
    if (m != NULL && --m->refs == 0) {
        free(m->buf);
        free(m);
    }
}

void net_send(conn *c, net_msg *m)
{
    if (m == NULL || c->closing)
        return;
    if (c->qcount == NET_QUEUE_MAX) {
        /* A reader this slow would grow memory without bound: drop it. */
        lwsl_notice("closing a connection whose send queue is full\n");
        net_close(c);
        return;
    }
    metrics_now.messages_out++;
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

void net_send_out(conn *c, proto_out *o)
{
    net_msg *m = net_msg_from(o);
    net_send(c, m);
    net_msg_unref(m);
}

void net_close(conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"send queue full",
                     15);
    lws_callback_on_writable(c->wsi);
}

static void queue_clear(conn *c)
{
    while (c->qcount) {
        net_msg_unref(c->q[c->qhead]);
        c->qhead = (c->qhead + 1) % NET_QUEUE_MAX;
        c->qcount--;
    }
}

/* ------------------------------------------------------------------------ */
/* HTTP. */

static const struct {
    const char *ext, *mime;
} mimes[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".json", "application/json"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".md", "text/plain; charset=utf-8"},
    {".woff2", "font/woff2"},
};

static const char *mime_of(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof mimes / sizeof mimes[0]; i++) {
        size_t e = strlen(mimes[i].ext);
        if (n >= e && strcmp(path + n - e, mimes[i].ext) == 0)
            return mimes[i].mime;
    }
    return "application/octet-stream";
}

/* Send headers now and keep body (from o) for HTTP_WRITEABLE. */
static int http_reply_cookie(struct lws *wsi, conn *c, unsigned status, const char *ctype,
                             proto_out *o, const char *set_cookie)
{
    unsigned char hdr[LWS_PRE + 1024];
    unsigned char *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr - 1;
    if (o->oom) {
        proto_out_free(o);
        return -1;
    }
    if (lws_add_http_common_headers(wsi, status, ctype, o->len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        (set_cookie && lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:",
                                                   (const unsigned char *)set_cookie,
                                                   (int)strlen(set_cookie), &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end)) {
        proto_out_free(o);
        return -1;
    }
    c->http_buf = o->buf;
    c->http_head = o->head;
    c->http_len = o->len;
    o->buf = NULL;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_reply(struct lws *wsi, conn *c, unsigned status, const char *ctype, proto_out *o)
{
    return http_reply_cookie(wsi, c, status, ctype, o, NULL);
}

void net_http_reply(conn *c, unsigned status, const char *ctype, const char *body, size_t len,
                    const char *set_cookie)
{
    proto_out o;
    proto_out_init(&o, LWS_PRE);
    proto_out_append(&o, body, len);
    if (http_reply_cookie(c->wsi, c, status, ctype, &o, set_cookie) < 0)
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

void net_http_status(conn *c, unsigned status)
{
    /* The page lws_return_http_status sends. */
    char body[256];
    int n = snprintf(body, sizeof body,
                     "<html><head><meta charset=utf-8 http-equiv=\"Content-Language\" "
                     "content=\"en\"/><link rel=\"stylesheet\" type=\"text/css\" "
                     "href=\"/error.css\"/></head><body><h1>%u</h1></body></html>",
                     status);
    net_http_reply(c, status, "text/html", body, (size_t)n, NULL);
}

int net_cookie(conn *c, char *buf, size_t len)
{
    if (lws_hdr_total_length(c->wsi, WSI_TOKEN_HTTP_COOKIE) <= 0)
        return -1;
    return lws_hdr_copy(c->wsi, buf, (int)len, WSI_TOKEN_HTTP_COOKIE);
}

enum { POST_MAX = 4096 };

static int http_request(struct lws *wsi, conn *c, const char *uri)
{
    metrics_now.http_requests++;
    c->wsi = wsi;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0) {
        /* A POST: wait for its body (HTTP_BODY, then BODY_COMPLETION). */
        snprintf(c->post_uri, sizeof c->post_uri, "%s", uri);
        c->posting = true;
        c->rxlen = 0;
        return 0;
    }
    if (strcmp(uri, "/healthz") == 0) {
        proto_out o;
        proto_out_init(&o, LWS_PRE);
        uint64_t up = uv_now(hub_loop()) - metrics_now.started_ms;
        proto_write_health(&o, (int64_t)(up / 1000), metrics_now.connections, metrics_now.rooms);
        return http_reply(wsi, c, HTTP_STATUS_OK, "application/json", &o);
    }
    if (strcmp(uri, "/metrics") == 0) {
        proto_out o;
        proto_out_init(&o, LWS_PRE);
        metrics_write(&o);
        return http_reply(wsi, c, HTTP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8", &o);
    }

    int status = hub_http_api(c, uri);
    if (status == 0)
        return 0; /* answered later (net_http_reply, net_http_status) */
    if (status > 0) {
        if (lws_return_http_status(wsi, (unsigned)status, NULL))
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }

    /* A static file under web_root: no "..", no hidden files. */
    char path[4096 + 512];
    if (uri[0] != '/' || strstr(uri, "..") != NULL || strstr(uri, "/.") != NULL ||
        strlen(uri) > 500)
        goto not_found;
    int n = snprintf(path, sizeof path, "%s%s%s", web_root, uri,
                     uri[strlen(uri) - 1] == '/' ? "index.html" : "");
    if (n < 0 || (size_t)n >= sizeof path)
        goto not_found;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        goto not_found;
    n = lws_serve_http_file(wsi, path, mime_of(path), NULL, 0);
    if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi)))
        return -1;
    return 0;

not_found:
    if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL))
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* The protocol callback. */

/* Append to the reassembly buffer (the caller bounds the size). */
static int rx_append(conn *c, const void *in, size_t len)
{
    if (c->rxlen + len > c->rxcap) {
        size_t cap = c->rxcap ? c->rxcap : 1024;
        while (cap < c->rxlen + len)
            cap *= 2;
        char *b = realloc(c->rx, cap);
        if (b == NULL)
            return -1;
        c->rx = b;
        c->rxcap = cap;
    }
    memcpy(c->rx + c->rxlen, in, len);
    c->rxlen += len;
    return 0;
}

/* Returns -1 when the connection must close now. */
static int receive(struct lws *wsi, conn *c, const char *in, size_t len)
{
    bool final = lws_is_final_fragment(wsi);
    if (final && c->rxlen == 0) {
        /* The common case: a whole message in one piece, no copy. */
        metrics_now.messages_in++;
        hub_receive(c, in, len);
        return 0;
    }
    if (c->rxlen + len > PROTO_MAX_MESSAGE) {
        metrics_now.errors[PROTO_ETOO_LARGE]++;
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)"too_large", 9);
        c->closing = true;
        return -1;
    }
    if (rx_append(c, in, len) < 0)
        return -1;
    if (final) {
        metrics_now.messages_in++;
        hub_receive(c, c->rx, c->rxlen);
        c->rxlen = 0;
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return http_request(wsi, c, (const char *)in);

    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (c->http_buf == NULL)
            break;
        int n = lws_write(wsi, (unsigned char *)c->http_buf + c->http_head, c->http_len,
                          LWS_WRITE_HTTP_FINAL);
        free(c->http_buf);
        c->http_buf = NULL;
        if (n < 0 || lws_http_transaction_completed(wsi))
            return -1;
        return 0;
    }

    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;

    case LWS_CALLBACK_HTTP_BODY:
        if (!c->posting)
            break;
        if (c->rxlen + len > POST_MAX) {
            c->posting = false;
            lws_return_http_status(wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, NULL);
            return -1;
        }
        return rx_append(c, in, len);

    case LWS_CALLBACK_HTTP_BODY_COMPLETION: {
        if (!c->posting)
            break;
        c->posting = false;
        int status = hub_http_post(c, c->post_uri, c->rx ? c->rx : "", c->rxlen);
        /* The body was read: its buffer goes now (keep-alive connections
         * may never see CLOSED_HTTP). */
        free(c->rx);
        c->rx = NULL;
        c->rxlen = c->rxcap = 0;
        if (status == 0)
            return 0; /* answered, or being answered */
        if (lws_return_http_status(wsi, (unsigned)status, NULL))
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }

    case LWS_CALLBACK_CLOSED_HTTP:
        /* lws calls this with no session data for a connection that closed
         * before any was allocated (seen as a SIGSEGV in the e2e suite). */
        if (c == NULL)
            break;
        free(c->http_buf);
        c->http_buf = NULL;
        free(c->rx);
        c->rx = NULL;
        c->rxlen = c->rxcap = 0;
        if (c->http_req)
            hub_http_closed(c);
        break;

    case LWS_CALLBACK_ESTABLISHED:
        free(c->rx); /* a POST body buffer of the same connection */
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->is_ws = true;
        c->lobby_index = -1;
        {
            /* Small messages, each awaited by someone: no Nagle delay. */
            int one = 1;
            setsockopt(lws_get_socket_fd(wsi), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        metrics_now.connections++;
        hub_conn_open(c);
        return 0;

    case LWS_CALLBACK_RECEIVE:
        if (c->closing)
            return 0;
        if (lws_frame_is_binary(wsi)) {
            hub_receive(c, "", 0); /* answered as bad_json */
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
        hub_conn_closed(c);
        queue_clear(c);
        free(c->rx);
        c->rx = NULL;
        c->is_ws = false;
        metrics_now.connections--;
        return 0;

    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    /* rx 1024: client messages are small (longer ones arrive in pieces);
     * tx: a whole message per send (lws caps a send at this size). */
    {"chameleon", callback, sizeof(conn), 1024, 0, NULL, 256 * 1024},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void lws_log(int level, const char *line)
{
    fprintf(stderr, "lws: %s", line);
}

int net_start(uv_loop_t *loop, const net_config *cfg, char *why, size_t whylen)
{
    snprintf(web_root, sizeof web_root, "%s", cfg->web_root);
    size_t wl = strlen(web_root);
    while (wl > 1 && web_root[wl - 1] == '/')
        web_root[--wl] = '\0';

    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[] = {loop};
    info.port = cfg->port;
    info.iface = cfg->host;
    info.protocols = protocols;
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
        rules_why(why, whylen,
                  "cannot listen on %s:%d (port in use, bad address, or "
                  "libwebsockets-evlib-uv missing)",
                  cfg->host, cfg->port);
        return -1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(context, "default");
    int port = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (port <= 0) {
        rules_why(why, whylen, "cannot listen on %s:%d (port in use?)", cfg->host, cfg->port);
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
