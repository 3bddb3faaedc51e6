/*
 * mail.c - the SMTP transport and the outbox worker (see mail.h).
 */
#include "mail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "log.h"
#include "proto_out.h"

static struct {
    bool on;
    store *s;
    char url[512], user[256], password[256], from[STORE_MAIL_ADDR_MAX], links[512];
    bool has_user;
    store_mailbox *mb;
    CURL *curl;
    uv_thread_t thread;
    bool started;
    uv_mutex_t mu; /* quit, kicked, stats */
    uv_cond_t cv;
    bool quit, kicked;
    mail_stats st;
} g;

bool mail_on(void)
{
    return g.on;
}

const char *mail_link_base(void)
{
    return g.links;
}

mail_stats mail_get_stats(void)
{
    if (!g.started)
        return g.st;
    uv_mutex_lock(&g.mu);
    mail_stats st = g.st;
    uv_mutex_unlock(&g.mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* The message's text */

__attribute__((format(printf, 2, 3))) static void out_printf(proto_out *o, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    proto_out_append(o, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* A header's value on one line: CR and LF become spaces (no header can be
 * injected through a subject). */
static void header(proto_out *o, const char *name, const char *value)
{
    proto_out_append(o, name, strlen(name));
    proto_out_append(o, ": ", 2);
    for (const char *p = value; *p; p++) {
        char c = *p == '\r' || *p == '\n' ? ' ' : *p;
        proto_out_append(o, &c, 1);
    }
    proto_out_append(o, "\r\n", 2);
}

/* Text with its lines ended by CRLF (a lone \n or \r\n in). */
static void text_crlf(proto_out *o, const char *t)
{
    for (const char *p = t; *p; p++) {
        if (*p == '\r')
            continue;
        if (*p == '\n')
            proto_out_append(o, "\r\n", 2);
        else
            proto_out_append(o, p, 1);
    }
}

char *mail_format(const store_mail_row *r, const char *from, const char *link_base, int64_t date_ms)
{
    proto_out o;
    proto_out_init(&o, 0);
    char v[1024], date[64];
    time_t t = (time_t)(date_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    header(&o, "Date", date);
    snprintf(v, sizeof v, "chameleon <%s>", from);
    header(&o, "From", v);
    snprintf(v, sizeof v, "<%s>", r->to);
    header(&o, "To", v);
    header(&o, "Subject", r->subject);
    /* The same for every try of this row: a copy sent again after a crash
     * (mail.h) is a duplicate mail systems can recognise. */
    const char *at = strchr(from, '@');
    snprintf(v, sizeof v, "<chameleon.%lld.%lld@%s>", (long long)r->id, (long long)r->created_ms,
             at && at[1] ? at + 1 : "localhost");
    header(&o, "Message-ID", v);
    header(&o, "MIME-Version", "1.0");
    header(&o, "Content-Type", "text/plain; charset=UTF-8");
    header(&o, "Content-Transfer-Encoding", "8bit");
    header(&o, "Auto-Submitted", "auto-generated");
    if (r->unsub[0]) {
        /* RFC 8058: a POST to this URL with List-Unsubscribe=One-Click
         * turns every notice off, no log-in needed. */
        snprintf(v, sizeof v, "<%s/api/mail/unsubscribe/%s>", link_base, r->unsub);
        header(&o, "List-Unsubscribe", v);
        header(&o, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
    }
    proto_out_append(&o, "\r\n", 2);
    text_crlf(&o, r->body);
    if (o.len < 2 || memcmp(o.buf + o.len - 2, "\r\n", 2) != 0)
        proto_out_append(&o, "\r\n", 2);
    out_printf(&o, "\r\n-- \r\nchameleon, %s/\r\n", link_base);
    out_printf(&o, "Your e-mail settings: %s/#/profile\r\n", link_base);
    if (r->unsub[0])
        out_printf(&o, "Stop every notice with one click: %s/api/mail/unsubscribe/%s\r\n",
                   link_base, r->unsub);
    if (o.oom) {
        proto_out_free(&o);
        return NULL;
    }
    proto_out_append(&o, "", 1); /* the NUL */
    return o.oom ? (proto_out_free(&o), NULL) : o.buf;
}

/* ------------------------------------------------------------------------ */
/* SMTP through libcurl (worker thread) */

typedef struct upload {
    const char *p;
    size_t left;
} upload;

static size_t read_cb(char *buf, size_t size, size_t n, void *arg)
{
    upload *u = arg;
    size_t k = size * n < u->left ? size * n : u->left;
    memcpy(buf, u->p, k);
    u->p += k;
    u->left -= k;
    return k;
}

/* Hand one message to the relay: 0 once it accepted it, else -1 with the
 * reason in err and *permanent set for a 5xx answer. */
static int smtp_send(const store_mail_row *r, const char *msg, char *err, size_t errlen,
                     bool *permanent)
{
    CURL *c = g.curl;
    upload u = {msg, strlen(msg)};
    char ebuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *rcpt = curl_slist_append(NULL, r->to);
    if (rcpt == NULL) {
        snprintf(err, errlen, "out of memory");
        *permanent = false;
        return -1;
    }
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, g.url);
    /* STARTTLS when the relay offers it (smtps:// is TLS from the start). */
    curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    if (g.has_user) {
        curl_easy_setopt(c, CURLOPT_USERNAME, g.user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, g.password);
    }
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, g.from);
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
    curl_easy_setopt(c, CURLOPT_READDATA, &u);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(rcpt);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    if (rc == CURLE_OK)
        return 0;
    *permanent = code >= 500 && code <= 599;
    snprintf(err, errlen, "%s (%ld)", ebuf[0] ? ebuf : curl_easy_strerror(rc), code);
    return -1;
}

/* The wait before try number `tries` + 1. */
static int64_t retry_delay(int tries)
{
    int64_t ms = MAIL_RETRY_MS;
    for (int i = 1; i < tries && ms < MAIL_RETRY_MAX_MS; i++)
        ms *= 2;
    return ms < MAIL_RETRY_MAX_MS ? ms : MAIL_RETRY_MAX_MS;
}

/* Send one row and record what came of it. */
static void send_row(const store_mail_row *r, int64_t now)
{
    char *msg = mail_format(r, g.from, g.links, now);
    char err[CURL_ERROR_SIZE + 32] = "out of memory";
    bool permanent = false;
    int rc = msg ? smtp_send(r, msg, err, sizeof err, &permanent) : -1;
    free(msg);
    if (rc == 0) {
        /* Marked at once: the crash window of mail.h is this one commit. */
        if (store_mailbox_sent(g.mb, r->id, now) < 0)
            log_kv(LOG_ERROR, "mail: sent but not marked (it may go again)", "id=%lld",
                   (long long)r->id);
        uv_mutex_lock(&g.mu);
        g.st.sent++;
        uv_mutex_unlock(&g.mu);
        log_kv(LOG_INFO, "mail sent", "id=%lld kind=%s tries=%d", (long long)r->id, r->kind,
               r->tries + 1);
        return;
    }
    bool give_up = permanent || r->tries + 1 >= MAIL_TRIES;
    int64_t next = give_up ? 0 : now + retry_delay(r->tries + 1);
    store_mailbox_failed(g.mb, r->id, next, err, now);
    uv_mutex_lock(&g.mu);
    if (give_up)
        g.st.failed++;
    else
        g.st.retries++;
    uv_mutex_unlock(&g.mu);
    log_kv(give_up ? LOG_ERROR : LOG_WARN, give_up ? "mail given up" : "mail not sent: retrying",
           "id=%lld kind=%s tries=%d why=\"%s\"", (long long)r->id, r->kind, r->tries + 1, err);
}

static void worker_main(void *arg)
{
    (void)arg;
    int64_t purged = 0;
    for (;;) {
        uv_mutex_lock(&g.mu);
        bool quit = g.quit;
        g.kicked = false;
        uv_mutex_unlock(&g.mu);
        if (quit)
            break;
        int64_t now = store_now(g.s), next = 0;
        store_mail_row r;
        int rc = store_mailbox_next(g.mb, now, &r, &next);
        if (rc == 1)
            send_row(&r, now);
        /* Old rows go once an hour (a write); the count is a read. */
        int64_t before = 0;
        if (now - purged >= 3600000) {
            before = now - (int64_t)MAIL_KEEP_DAYS * STORE_DAY_MS;
            purged = now;
        }
        int64_t depth = store_mailbox_depth(g.mb, before);
        uv_mutex_lock(&g.mu);
        if (depth >= 0)
            g.st.depth = depth;
        if (rc != 1 && !g.quit && !g.kicked) {
            /* Nothing due: sleep until the next is due, a kick, or the
             * poll (the store's clock may jump: tests). */
            int64_t wait = MAIL_POLL_MS;
            if (next > now && next - now < wait)
                wait = next - now;
            uv_cond_timedwait(&g.cv, &g.mu, (uint64_t)wait * 1000000);
        }
        uv_mutex_unlock(&g.mu);
    }
}

/* ------------------------------------------------------------------------ */
/* The loop's side */

static void on_queued(void *arg, int status)
{
    (void)arg;
    if (status <= 0 || !g.started)
        return;
    uv_mutex_lock(&g.mu);
    g.st.queued++;
    g.st.depth++;
    g.kicked = true;
    uv_cond_signal(&g.cv);
    uv_mutex_unlock(&g.mu);
}

int mail_queue(const store_mail_new *m)
{
    if (!g.on)
        return 0;
    return store_mail_queue(g.s, m, on_queued, NULL);
}

/* The first line of a file into out. 0 or -1. */
static int read_secret(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    bool ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

int mail_init(uv_loop_t *loop, store *s, const mail_config *cfg, char *why, size_t whylen)
{
    (void)loop;
    memset(&g, 0, sizeof g);
    g.s = s;
    if (cfg == NULL || cfg->smtp_url == NULL || cfg->smtp_url[0] == '\0') {
        log_kv(LOG_INFO, "mail is off",
               "why=\"no --smtp-url: no address confirmation, "
               "password reset or notice by e-mail\"");
        return 0;
    }
    if (strncmp(cfg->smtp_url, "smtp://", 7) != 0 && strncmp(cfg->smtp_url, "smtps://", 8) != 0) {
        snprintf(why, whylen, "--smtp-url wants smtp://HOST:PORT or smtps://HOST:PORT");
        return -1;
    }
    if (cfg->from == NULL || strchr(cfg->from, '@') == NULL || strpbrk(cfg->from, "<>\r\n ")) {
        snprintf(why, whylen, "--smtp-url needs --mail-from ADDRESS (the sender)");
        return -1;
    }
    if (cfg->public_url == NULL) {
        snprintf(why, whylen, "--smtp-url needs --public-url (the links in mail)");
        return -1;
    }
    snprintf(g.url, sizeof g.url, "%s", cfg->smtp_url);
    snprintf(g.from, sizeof g.from, "%s", cfg->from);
    snprintf(g.links, sizeof g.links, "%s", cfg->public_url);
    size_t l = strlen(g.links);
    while (l > 0 && g.links[l - 1] == '/')
        g.links[--l] = '\0';
    if (cfg->user != NULL) {
        g.has_user = true;
        snprintf(g.user, sizeof g.user, "%s", cfg->user);
        if (cfg->password_file != NULL &&
            read_secret(cfg->password_file, g.password, sizeof g.password) < 0) {
            snprintf(why, whylen, "cannot read --smtp-password-file %s", cfg->password_file);
            return -1;
        }
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (g.curl = curl_easy_init()) == NULL) {
        snprintf(why, whylen, "libcurl failed to start");
        return -1;
    }
    int err = store_mailbox_open(s, &g.mb, why, whylen);
    if (err < 0)
        goto out_curl;
    if (uv_mutex_init(&g.mu) != 0)
        goto out_mailbox;
    if (uv_cond_init(&g.cv) != 0)
        goto out_mutex;
    if (uv_thread_create(&g.thread, worker_main, NULL) != 0) {
        uv_cond_destroy(&g.cv);
        goto out_mutex;
    }
    g.started = g.on = g.st.on = true;
    log_kv(LOG_INFO, "mail is on", "relay=%s from=%s", g.url, g.from);
    return 0;

out_mutex:
    uv_mutex_destroy(&g.mu);
out_mailbox:
    store_mailbox_close(g.mb);
    if (err == 0)
        snprintf(why, whylen, "cannot start the mail worker");
out_curl:
    curl_easy_cleanup(g.curl);
    curl_global_cleanup();
    return -1;
}

void mail_stop(void)
{
    if (!g.started)
        return;
    uv_mutex_lock(&g.mu);
    g.quit = true;
    uv_cond_signal(&g.cv);
    uv_mutex_unlock(&g.mu);
    uv_thread_join(&g.thread);
    uv_cond_destroy(&g.cv);
    uv_mutex_destroy(&g.mu);
    store_mailbox_close(g.mb);
    curl_easy_cleanup(g.curl);
    curl_global_cleanup();
    g.started = g.on = false;
}
