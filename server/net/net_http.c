/*
 * net_http.c - the HTTP replies of the transport (see net.h): headers,
 * bodies written on HTTP_WRITEABLE, streamed bodies in chunks, and what a
 * route handler reads of its request (query, cookies, Accept).
 *
 * Apart from net.c, which accepts connections and routes requests, to keep
 * each file short; it is part of the net module.
 */
#include "net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <libwebsockets.h>

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

void net_http_attachment(net_conn *c, const char *name)
{
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof c->attachment; n++) {
        char ch = name[n];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_';
        c->attachment[n] = ok ? ch : '_'; /* nothing to quote in the header */
    }
    c->attachment[n] = '\0';
}

static int attachment_header(struct lws *wsi, const char *name, unsigned char **p,
                             unsigned char *end)
{
    char v[sizeof((net_conn *)0)->attachment + 32];
    int n = snprintf(v, sizeof v, "attachment; filename=\"%s\"", name);
    return lws_add_http_header_by_name(
        wsi, (const unsigned char *)"content-disposition:", (const unsigned char *)v, n, p, end);
}

/* On every reply: no script but the site's own files (WebAssembly
 * compiled from them is allowed), no framing, no MIME sniffing, no
 * referrer outside the site. Raw header lines (lws_serve_http_file). */
const char net_security_headers[] =
    "content-security-policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
    "style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'\r\n"
    "x-content-type-options: nosniff\r\n"
    "x-frame-options: DENY\r\n"
    "referrer-policy: same-origin\r\n";

/* The same through lws's header writer (HTTP/1 or 2 alike). */
static int security_headers(struct lws *wsi, unsigned char **p, unsigned char *end)
{
    const char *h = net_security_headers;
    while (*h) {
        const char *colon = strchr(h, ':'), *eol = strstr(h, "\r\n");
        char name[40];
        size_t nl = (size_t)(colon - h) + 1;
        if (nl >= sizeof name)
            return -1;
        memcpy(name, h, nl);
        name[nl] = '\0';
        const char *v = colon + 2;
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)v,
                                        (int)(eol - v), p, end))
            return -1;
        h = eol + 2;
    }
    return 0;
}

void net_http_date(time_t t, char *buf, size_t len)
{
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%a, %d %b %Y %H:%M:%S GMT", &tm) == 0)
        snprintf(buf, len, "Thu, 01 Jan 1970 00:00:00 GMT");
}

/* The cache headers of a reply: the validators net_http_reply_validated
 * set (kept, revalidated), else none kept at all. */
static int cache_headers(struct lws *wsi, net_conn *c, unsigned char **p, unsigned char *end)
{
    if (c->etag[0] == '\0')
        return lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                           (const unsigned char *)"no-store", 8, p, end);
    char date[32];
    net_http_date(c->last_modified, date, sizeof date);
    return lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                       (const unsigned char *)"no-cache", 8, p, end) ||
           lws_add_http_header_by_name(
               wsi, (const unsigned char *)"etag:", (const unsigned char *)c->etag,
               (int)strlen(c->etag), p, end) ||
           (c->last_modified > 0 &&
            lws_add_http_header_by_name(wsi, (const unsigned char *)"last-modified:",
                                        (const unsigned char *)date, (int)strlen(date), p, end));
}

/* Send headers now and keep the body (o, consumed) for HTTP_WRITEABLE. */
static int http_reply(struct lws *wsi, net_conn *c, unsigned status, const char *ctype,
                      proto_out *o, const char *set_cookie)
{
    unsigned char hdr[LWS_PRE + 2048];
    unsigned char *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr - 1;
    if (o->oom || o->head < LWS_PRE) {
        proto_out_free(o);
        return -1;
    }
    if (lws_add_http_common_headers(wsi, status, ctype, o->len, &p, end) ||
        cache_headers(wsi, c, &p, end) || security_headers(wsi, &p, end) ||
        (set_cookie && lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:",
                                                   (const unsigned char *)set_cookie,
                                                   (int)strlen(set_cookie), &p, end)) ||
        (c->retry_after && retry_after_header(wsi, c->retry_after, &p, end)) ||
        (status == 200 && c->attachment[0] && attachment_header(wsi, c->attachment, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end)) {
        proto_out_free(o);
        return -1;
    }
    c->retry_after = 0;
    c->attachment[0] = '\0';
    c->etag[0] = '\0';
    c->last_modified = 0;
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

int net_http_reply_validated(net_conn *c, const char *ctype, const char *body, size_t len,
                             const char *etag, time_t mtime)
{
    char inm[256];
    if (lws_hdr_copy(c->wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
        net_guard_etag_match(inm, etag))
        return net_http_not_modified(c->wsi, etag);
    snprintf(c->etag, sizeof c->etag, "%s", etag);
    c->last_modified = mtime;
    net_http_reply(c, 200, ctype, body, len, NULL);
    return 0;
}

int net_cookie(net_conn *c, const char *name, char *buf, size_t len)
{
    size_t max = len;
    if (len == 0 || lws_http_cookie_get(c->wsi, name, buf, &max) != 0)
        return -1;
    return (int)max;
}

int net_user_agent(net_conn *c, char *buf, size_t len)
{
    if (len == 0)
        return -1;
    buf[0] = '\0';
    /* lws_hdr_copy refuses a value longer than buf: take the whole header
     * into a bigger buffer, then cut. */
    char whole[1024];
    int n = lws_hdr_copy(c->wsi, whole, sizeof whole, WSI_TOKEN_HTTP_USER_AGENT);
    if (n <= 0)
        return -1;
    snprintf(buf, len, "%s", whole);
    return (int)strlen(buf);
}

/* A short page with this status (its security headers too); -1 when the
 * connection must close. */
int net_http_status(struct lws *wsi, net_conn *c, unsigned status)
{
    char body[64];
    int n = snprintf(body, sizeof body, "%u\n", status);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_out_append(&o, body, (size_t)n);
    return http_reply(wsi, c, status, "text/plain; charset=utf-8", &o, NULL);
}

/* Refuse a request at once, before its body: the whole reply (a JSON error
 * {"error":code,"reason":..}; code and reason are constants of this file,
 * nothing to escape) in one write, then -1: the connection closes (what is
 * left of the request is not read). */
int net_http_refuse(struct lws *wsi, unsigned status, const char *code, const char *reason)
{
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    char body[256];
    int n = snprintf(body, sizeof body, "{\"error\":\"%s\",\"reason\":\"%s\"}", code, reason);
    if (lws_add_http_common_headers(wsi, status, "application/json", (lws_filepos_t)n, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
                                    (const unsigned char *)"close", 5, &p, end) ||
        security_headers(wsi, &p, end) || lws_finalize_http_header(wsi, &p, end) || end - p < n)
        return -1;
    memcpy(p, body, (size_t)n);
    p += n;
    lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
    return -1;
}

int net_query(net_conn *c, const char *name, char *buf, size_t len)
{
    char key[64], tmp[NET_URI_MAX + 1];
    int kl = snprintf(key, sizeof key, "%s=", name);
    if (len == 0 || kl < 0 || (size_t)kl >= sizeof key)
        return -1;
    const char *v = lws_get_urlarg_by_name(c->wsi, key, tmp, (int)sizeof tmp);
    if (v == NULL)
        return -1;
    size_t n = strlen(v);
    if (n >= len)
        return -1;
    memcpy(buf, v, n + 1);
    return (int)n;
}

bool net_accepts(net_conn *c, const char *ctype)
{
    char accept[512];
    if (lws_hdr_copy(c->wsi, accept, sizeof accept, WSI_TOKEN_HTTP_ACCEPT) <= 0)
        return false;
    /* Each media range of the list, parameters (";q=...") aside. */
    size_t n = strlen(ctype);
    for (const char *p = accept; *p;) {
        p += strspn(p, " ,");
        size_t l = strcspn(p, ",;");
        while (l > 0 && p[l - 1] == ' ')
            l--;
        if (l == n && strncasecmp(p, ctype, n) == 0)
            return true;
        p += strcspn(p, ",");
    }
    return false;
}

void net_http_send_buffer(net_conn *c, int bytes)
{
    int fd = lws_get_socket_fd(c->wsi);
    if (fd >= 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

int net_http_stream(net_conn *c, unsigned status, const char *ctype)
{
    unsigned char hdr[LWS_PRE + 2048];
    unsigned char *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr - 1;
    struct lws *wsi = c->wsi;
    if (lws_add_http_common_headers(wsi, status, ctype, LWS_ILLEGAL_HTTP_CONTENT_LEN, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"transfer-encoding:",
                                    (const unsigned char *)"chunked", 7, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        security_headers(wsi, &p, end) || lws_finalize_write_http_header(wsi, start, &p, end)) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
        return -1;
    }
    c->streaming = true;
    c->stream_last = false;
    return 0;
}

/* A part in HTTP/1.1 chunked framing: "<hex length>\r\n<data>\r\n", and
 * the closing "0\r\n\r\n" after the last. */
void net_http_stream_part(net_conn *c, proto_out *o, bool last)
{
    proto_out f;
    proto_out_init(&f, NET_HEADROOM);
    char size[24];
    if (o->len > 0) {
        int n = snprintf(size, sizeof size, "%zx\r\n", o->len);
        proto_out_append(&f, size, (size_t)n);
        proto_out_append(&f, proto_out_data(o), o->len);
        proto_out_append(&f, "\r\n", 2);
    }
    if (last)
        proto_out_append(&f, "0\r\n\r\n", 5);
    f.oom = f.oom || o->oom;
    proto_out_free(o);
    if (!c->streaming || f.oom) {
        proto_out_free(&f);
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
        return;
    }
    proto_out_free(&c->http_out);
    c->http_out = f;
    c->stream_last = last;
    lws_callback_on_writable(c->wsi);
}

int net_http_writeable(struct lws *wsi, net_conn *c, unsigned stall_s)
{
    if (c->http_out.buf == NULL)
        return 0;
    bool part = c->streaming && !c->stream_last;
    int n = lws_write(wsi, (unsigned char *)proto_out_data(&c->http_out), c->http_out.len,
                      part ? LWS_WRITE_HTTP : LWS_WRITE_HTTP_FINAL);
    proto_out_free(&c->http_out);
    if (n < 0)
        return -1;
    /* lws keeps what the socket did not take (at most this part): a reader
     * that takes nothing more for a while is dropped, and what is kept with
     * it. */
    if (lws_partial_buffered(wsi))
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, (int)stall_s);
    else
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
    if (part)
        return 1;
    /* The last part is with lws: the transaction is completed now, and lws
     * defers it itself until what it kept is written. Waiting instead for
     * a writeable callback once lws has written it does not work: lws
     * 4.1.6 sometimes never makes that call, and the connection's next
     * request was then answered with this reply again (seen in chromium:
     * a module worker got rules.wasm for its script, and the analysis
     * board's engine never started). */
    c->streaming = false;
    return 2;
}
