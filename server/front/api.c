/*
 * api.c - the HTTP routes (see api.h).
 */
#include "api.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sodium.h>

#include "accounts.h"
#include "totp.h"
#include "archive.h"
#include "metrics.h"
#include "lessons.h"
#include "prefs.h"
#include "proto.h"
#include "store.h"
#include "throttle.h"

static uv_loop_t *loop;
static store *db;
static bool secure_cookie;

void api_init(uv_loop_t *l, store *s, bool secure)
{
    loop = l;
    db = s;
    secure_cookie = secure;
}

/* The Set-Cookie value for token (NULL: clear it) into buf, Secure behind
 * https; NULL if it does not fit. */
static const char *set_cookie(char *buf, size_t len, const char *token)
{
    int n = accounts_set_cookie(buf, len, token);
    if (n <= 0)
        return NULL;
    if (secure_cookie && snprintf(buf + n, len - (size_t)n, "; Secure") >= (int)(len - (size_t)n))
        return NULL;
    return buf;
}

/* ------------------------------------------------------------------------ */
/* The tables, health and metrics. */

int api_tables(net_conn *c, const char *arg, const char *body, size_t len)
{
    /* The tables never change while the server runs: written once. */
    static proto_out tables;
    if (tables.buf == NULL || tables.oom) {
        proto_out_free(&tables);
        proto_out_init(&tables, 0);
        proto_write_tables(&tables);
        if (tables.oom)
            return 500;
    }
    net_http_reply(c, 200, "application/json", proto_out_data(&tables), tables.len, NULL);
    return 0;
}

/* The module's bytes, read before the loop starts: serving it never waits
 * on the disk. Its ETag is a hash of the bytes (a new build, a new tag,
 * whatever the file's dates), its Last-Modified the file's mtime. */
static char *wasm_bytes;
static size_t wasm_len;
static char wasm_etag[40];
static time_t wasm_mtime;

int api_wasm_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 18;
            char *nb = realloc(buf, cap);
            if (nb == NULL)
                break;
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool ok = !ferror(f) && len > 0;
    struct stat st;
    time_t mtime = fstat(fileno(f), &st) == 0 ? st.st_mtime : 0;
    fclose(f);
    if (!ok) {
        free(buf);
        return -1;
    }
    free(wasm_bytes);
    wasm_bytes = buf;
    wasm_len = len;
    wasm_mtime = mtime;
    unsigned char h[16];
    char hex[sizeof h * 2 + 1];
    crypto_generichash(h, sizeof h, (const unsigned char *)buf, len, NULL, 0);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    snprintf(wasm_etag, sizeof wasm_etag, "\"%s\"", hex);
    return 0;
}

int api_wasm(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (wasm_bytes == NULL)
        return 404;
    return net_http_reply_validated(c, "application/wasm", wasm_bytes, wasm_len, wasm_etag,
                                    wasm_mtime);
}

int api_healthz(net_conn *c, const char *arg, const char *body, size_t len)
{
    const net_stats *ns = net_get_stats();
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    uint64_t up = uv_now(loop) - metrics_now.started_ms;
    /* Not ready while the store cannot write: moves would not be stored. */
    store_stats ss;
    store_get_stats(db, &ss);
    if (!ss.writable) {
        char why[200];
        snprintf(why, sizeof why, "cannot write the database: %s",
                 ss.error[0] ? ss.error : "the last write failed");
        proto_write_unhealthy(&o, (int64_t)(up / 1000), why);
        net_http_reply_out(c, 503, "application/json", &o, NULL);
        return 0;
    }
    proto_write_health(&o, (int64_t)(up / 1000), ns->connections, metrics_now.rooms);
    net_http_reply_out(c, 200, "application/json", &o, NULL);
    return 0;
}

int api_metrics(net_conn *c, const char *arg, const char *body, size_t len)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    store_stats ss;
    store_get_stats(db, &ss);
    metrics_write(&o, net_get_stats(), &ss);
    net_http_reply_out(c, 200, "text/plain; version=0.0.4; charset=utf-8", &o, NULL);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Requests answered later: the store's reads and the password work. */

typedef api_pending pending;

/* A request whose answer comes later hangs off its connection (c->data),
 * so that api_http_closed can tell it the connection went. */
static pending *pending_new(net_conn *c)
{
    pending *p = calloc(1, sizeof *p);
    if (p != NULL) {
        p->c = c;
        c->data = p;
    }
    return p;
}

/* Take the answer's request off its connection: the connection, or NULL if
 * it closed meanwhile. */
static net_conn *pending_done(pending *p)
{
    net_conn *c = p->c;
    free(p);
    if (c != NULL)
        c->data = NULL;
    return c;
}

api_pending *api_pending_new(net_conn *c)
{
    return (api_pending *)pending_new(c);
}

net_conn *api_pending_done(api_pending *p)
{
    return pending_done((pending *)p);
}

api_pending *api_account_pending(net_conn *c, const store_account *who, const char *why)
{
    if (c == NULL)
        return NULL;
    if (who == NULL) {
        api_reply_error(c, 401, "account_required", why);
        return NULL;
    }
    api_pending *p = api_pending_new(c);
    if (p == NULL)
        api_reply_error(c, 500, "internal_error", "out of memory");
    return p;
}

/* api_with_session's wait: the pending request first (api_http_closed
 * sees a pending). */
typedef struct session_wait {
    pending p;
    api_session_fn then;
    void *ctx;
} session_wait;

static void session_found(void *arg, int status, const store_account *a)
{
    session_wait *w = arg;
    api_session_fn then = w->then;
    void *ctx = w->ctx;
    net_conn *c = pending_done(&w->p); /* frees w */
    then(c, status == 0 ? a : NULL, ctx);
}

int api_with_session(net_conn *c, api_session_fn then, void *ctx)
{
    char token[128];
    if (net_cookie(c, ACCOUNTS_COOKIE, token, sizeof token) <= 0) {
        then(c, NULL, ctx);
        return 0;
    }
    session_wait *w = calloc(1, sizeof *w);
    if (w == NULL)
        return STORE_ENOMEM;
    w->p.c = c;
    c->data = &w->p;
    w->then = then;
    w->ctx = ctx;
    int err = accounts_login_find(db, token, session_found, w);
    if (err == STORE_ENOT_FOUND) { /* a token of the wrong shape */
        pending_done(&w->p);
        then(c, NULL, ctx);
        return 0;
    }
    if (err < 0)
        pending_done(&w->p);
    return err;
}

/* Reply with the JSON written in o (consumed). */
static void reply_json(net_conn *c, unsigned status, proto_out *o, const char *cookie)
{
    net_http_reply_out(c, status, "application/json", o, cookie);
}

int api_reply_error(net_conn *c, unsigned status, const char *code, const char *reason)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_http_error(&o, code, reason);
    reply_json(c, status, &o, NULL);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The archive, read by the store off the loop (queued behind its writes). */

/* body (malloc'd, consumed) with 200, or the store error's status. */
static void reply_read(net_conn *c, int status, char *body, const char *ctype)
{
    if (body != NULL)
        net_http_reply(c, 200, ctype, body, strlen(body), NULL);
    else if (status == STORE_ENOT_FOUND)
        api_reply_error(c, 404, store_err_code(status), "no such game or player");
    else
        api_reply_error(c, 500, store_err_code(status < 0 ? status : STORE_ENOMEM),
                        store_err_text(status < 0 ? status : STORE_ENOMEM));
    free(body);
}

static void on_game_read(void *arg, int status, const record_game *g)
{
    bool pgn = ((pending *)arg)->pgn;
    net_conn *c = pending_done(arg);
    if (c == NULL)
        return;
    char *body = status < 0 ? NULL : pgn ? archive_game_pgn(g) : archive_game_view_json(g);
    if (pgn && body != NULL) {
        char name[40];
        snprintf(name, sizeof name, "chameleon-%lld.pgn", (long long)g->id);
        net_http_attachment(c, name);
    }
    reply_read(c, status, body, pgn ? "application/x-chess-pgn" : "application/json");
}

static void on_profile_read(void *arg, int status, const record_profile *p)
{
    net_conn *c = pending_done(arg);
    if (c != NULL)
        reply_read(c, status, status < 0 ? NULL : archive_profile_json(p), "application/json");
}

int api_game(net_conn *c, const char *arg, const char *body, size_t len)
{
    char *end;
    long long n = strtoll(arg, &end, 10);
    bool pgn = strcmp(end, ".pgn") == 0;
    if (end == arg || n <= 0 || (*end && !pgn))
        return 404;
    pending *p = pending_new(c);
    if (p == NULL)
        return 500;
    p->pgn = pgn;
    if (store_game_get(db, n, on_game_read, p) < 0) {
        pending_done(p);
        return 500;
    }
    return 0;
}

int api_profile(net_conn *c, const char *arg, const char *body, size_t len)
{
    pending *p = pending_new(c);
    if (p == NULL)
        return 500;
    if (store_profile_get(db, arg, on_profile_read, p) < 0) {
        pending_done(p);
        return 500;
    }
    return 0;
}

static void on_board_read(void *arg, int status, const record_board *b)
{
    net_conn *c = pending_done(arg);
    if (c != NULL)
        reply_read(c, status, status < 0 ? NULL : archive_board_json(b), "application/json");
}

static void on_archive_read(void *arg, int status, const record_archive *a)
{
    net_conn *c = pending_done(arg);
    if (c != NULL)
        reply_read(c, status, status < 0 ? NULL : archive_list_json(a), "application/json");
}

/* The filters of the archive and the export, by name. */
static const char *const filter_keys[] = {"game",   "kind",  "result", "vs",
                                          "before", "limit", "format", "aborted"};
enum { NFILTERS = sizeof filter_keys / sizeof filter_keys[0], FILTER_VALUE_MAX = 64 };

/* One filter key=value into f (v stays referenced): 0, or a sentence in why. */
static int filter_set(store_archive_filter *f, const char *seg, const char *v, bool *ndjson,
                      char *why, size_t whylen)
{
    char *end;
    if (*v == '\0') {
        snprintf(why, whylen, "filters are key=value");
        return -1;
    }
    if (strcmp(seg, "game") == 0 && rules_find(v) != NULL) {
        f->variant = v;
    } else if (strcmp(seg, "kind") == 0 && strcmp(v, "live") == 0) {
        f->kind = STORE_LIVE;
    } else if (strcmp(seg, "kind") == 0 && strcmp(v, "correspondence") == 0) {
        f->kind = STORE_CORR;
    } else if (strcmp(seg, "result") == 0 && strcmp(v, "win") == 0) {
        f->outcome = RULES_OUTCOME_WIN;
    } else if (strcmp(seg, "result") == 0 && strcmp(v, "loss") == 0) {
        f->outcome = RULES_OUTCOME_LOSS;
    } else if (strcmp(seg, "result") == 0 && strcmp(v, "draw") == 0) {
        f->outcome = RULES_OUTCOME_DRAW;
    } else if (strcmp(seg, "aborted") == 0 &&
               (strcmp(v, "include") == 0 || strcmp(v, "exclude") == 0)) {
        f->aborted = strcmp(v, "include") == 0;
    } else if (strcmp(seg, "vs") == 0 && strlen(v) < RECORD_NAME_MAX) {
        f->opponent = v;
    } else if (ndjson != NULL && strcmp(seg, "format") == 0 &&
               (strcmp(v, "pgn") == 0 || strcmp(v, "ndjson") == 0)) {
        *ndjson = strcmp(v, "ndjson") == 0;
    } else if (strcmp(seg, "before") == 0 && (f->before = strtoll(v, &end, 10)) > 0 &&
               *end == '\0') {
    } else if (strcmp(seg, "limit") == 0 && (f->limit = (int)strtol(v, &end, 10)) >= 1 &&
               f->limit <= STORE_ARCHIVE_MAX && *end == '\0') {
    } else {
        snprintf(why, whylen, "bad filter %s=%s", seg, v);
        return -1;
    }
    return 0;
}

/* "<name>[/key=value]..." and the query's ?key=value&...: the filters of an
 * archive page or an export (the query as lichess's API; the path segments
 * are the older form, still taken; the query wins). Values point into arg
 * and qv. 0, or a sentence in why. */
static int archive_args(net_conn *c, char *arg, char (*qv)[FILTER_VALUE_MAX],
                        store_archive_filter *f, const char **name, bool *ndjson, char *why,
                        size_t whylen)
{
    *f = (store_archive_filter){.kind = -1, .limit = 20};
    char *save = NULL;
    *name = strtok_r(arg, "/", &save);
    if (*name == NULL || **name == '\0') {
        snprintf(why, whylen, "no username");
        return -1;
    }
    for (char *seg; (seg = strtok_r(NULL, "/", &save)) != NULL;) {
        char *v = strchr(seg, '=');
        if (v == NULL) {
            snprintf(why, whylen, "filters are key=value");
            return -1;
        }
        *v++ = '\0';
        if (filter_set(f, seg, v, ndjson, why, whylen) < 0)
            return -1;
    }
    for (int i = 0; i < NFILTERS; i++) {
        if (net_query(c, filter_keys[i], qv[i], FILTER_VALUE_MAX) < 0)
            continue;
        if (filter_set(f, filter_keys[i], qv[i], ndjson, why, whylen) < 0)
            return -1;
    }
    return 0;
}

int api_archive(net_conn *c, const char *arg, const char *body, size_t len)
{
    char buf[512], why[128], qv[NFILTERS][FILTER_VALUE_MAX];
    snprintf(buf, sizeof buf, "%s", arg);
    store_archive_filter f;
    const char *name;
    if (archive_args(c, buf, qv, &f, &name, NULL, why, sizeof why) < 0) {
        api_reply_error(c, 400, "bad_argument", why);
        return 0;
    }
    pending *p = pending_new(c);
    if (p == NULL)
        return 500;
    if (store_archive_get(db, name, &f, on_archive_read, p) < 0) {
        pending_done(p);
        return 500;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Export: every game of a player matching the filters, as PGN or NDJSON,
 * streamed. The archive is read a page of ids at a time and each game in
 * full, every read queued to the store (the loop never waits); each page's
 * text goes as one part of a chunked body, and the next page is read only
 * once net has written it (api_http_sent): a slow reader holds one page.
 * An export of one page is sent whole, with its length. */

typedef struct export_job {
    pending p; /* first: api_http_closed sees a pending */
    bool ndjson, started;
    bool sent; /* its last part is with net: freed once written (api_http_closed) */
    int slot;  /* in exports[] */
    char name[RECORD_NAME_MAX], variant[RECORD_VARIANT_MAX], opponent[RECORD_NAME_MAX];
    store_archive_filter f;
    int64_t ids[API_EXPORT_PAGE];
    int nids, at, total;
    bool more;
    int64_t next;
    proto_out out;
} export_job;

/* The exports under way, by the address (IPv6: its /64) each came from. */
static struct {
    bool used;
    char addr[THROTTLE_KEY_MAX]; /* throttle_addr_key's */
} exports[API_EXPORTS_MAX];

/* A free slot for an export from addr, or -1 when the server's or the
 * address's are all taken. */
static int export_slot_take(const char *addr)
{
    char key[THROTTLE_KEY_MAX];
    throttle_addr_key(addr, key, sizeof key);
    int free_slot = -1, same = 0;
    for (int i = 0; i < API_EXPORTS_MAX; i++) {
        if (!exports[i].used)
            free_slot = free_slot < 0 ? i : free_slot;
        else if (strcmp(exports[i].addr, key) == 0)
            same++;
    }
    if (free_slot < 0 || same >= API_EXPORTS_PER_ADDRESS)
        return -1;
    exports[free_slot].used = true;
    snprintf(exports[free_slot].addr, sizeof exports[free_slot].addr, "%s", key);
    metrics_now.exports_running++;
    return free_slot;
}

static void export_free(export_job *j)
{
    exports[j->slot].used = false;
    metrics_now.exports_running--;
    if (j->p.c != NULL)
        j->p.c->data = NULL;
    proto_out_free(&j->out);
    free(j);
}

/* The connection, taken off the job before it is answered. */
static net_conn *export_take(export_job *j)
{
    net_conn *c = j->p.c;
    c->data = NULL;
    j->p.c = NULL;
    return c;
}

/* A store error: its status if nothing was sent yet; else the body is cut
 * short (the connection closes: the reader sees no final chunk). */
static void export_fail(export_job *j, int err)
{
    net_conn *c = export_take(j);
    if (!j->started) {
        reply_read(c, err, NULL, "application/json");
    } else {
        proto_out o;
        proto_out_init(&o, 0);
        o.oom = true;
        net_http_stream_part(c, &o, true);
    }
    export_free(j);
}

static void on_export_page(void *arg, int status, const record_archive *a);
static void on_export_game(void *arg, int status, const record_game *g);

/* The next read, or the page's text once its games are in. */
static void export_next(export_job *j)
{
    if (j->at < j->nids) {
        int err = store_game_get(db, j->ids[j->at++], on_export_game, j);
        if (err < 0)
            export_fail(j, err);
        return;
    }
    if (j->out.oom) {
        export_fail(j, STORE_ENOMEM);
        return;
    }
    const char *ctype = j->ndjson ? "application/x-ndjson" : "application/x-chess-pgn";
    if (!j->started && !j->more) {
        /* Held until the reply is written whole (api_http_closed). */
        j->sent = j->p.idle = true;
        net_http_reply_out(j->p.c, 200, ctype, &j->out, NULL);
        return;
    }
    if (!j->started) {
        if (net_http_stream(j->p.c, 200, ctype) < 0) {
            export_take(j);
            export_free(j);
            return;
        }
        j->started = true;
    }
    proto_out part = j->out;
    proto_out_init(&j->out, NET_HEADROOM);
    if (!j->more) {
        j->sent = j->p.idle = true;
        net_http_stream_part(j->p.c, &part, true);
    } else {
        j->p.idle = true; /* api_http_sent reads on */
        net_http_stream_part(j->p.c, &part, false);
    }
}

void api_http_sent(net_conn *c)
{
    export_job *j = c->data;
    if (j == NULL || j->sent)
        return;
    j->p.idle = false;
    j->f.before = j->next;
    int err = store_archive_get(db, j->name, &j->f, on_export_page, j);
    if (err < 0)
        export_fail(j, err);
}

static void on_export_page(void *arg, int status, const record_archive *a)
{
    export_job *j = arg;
    if (j->p.c == NULL) {
        export_free(j);
        return;
    }
    if (status < 0) {
        export_fail(j, status);
        return;
    }
    j->nids = a->n < API_EXPORT_PAGE ? a->n : API_EXPORT_PAGE;
    for (int i = 0; i < j->nids; i++)
        j->ids[i] = a->games[i].id;
    j->at = 0;
    j->more = a->more && j->nids > 0;
    j->next = j->nids > 0 ? j->ids[j->nids - 1] : 0;
    export_next(j);
}

static void on_export_game(void *arg, int status, const record_game *g)
{
    export_job *j = arg;
    if (j->p.c == NULL) {
        export_free(j);
        return;
    }
    if (status == 0) {
        char *text = j->ndjson ? archive_game_json(g) : archive_game_pgn(g);
        if (text == NULL) {
            j->out.oom = true;
        } else {
            size_t n = strlen(text);
            if (!j->ndjson && j->total > 0)
                proto_out_append(&j->out, "\n", 1); /* a blank line between games */
            proto_out_append(&j->out, text, n);
            if (n == 0 || text[n - 1] != '\n')
                proto_out_append(&j->out, "\n", 1);
            free(text);
            j->total++;
        }
    }
    export_next(j);
}

int api_export(net_conn *c, const char *arg, const char *body, size_t len)
{
    char buf[512], why[128], qv[NFILTERS][FILTER_VALUE_MAX];
    snprintf(buf, sizeof buf, "%s", arg);
    export_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return 500;
    const char *name;
    j->ndjson = net_accepts(c, "application/x-ndjson");
    if (archive_args(c, buf, qv, &j->f, &name, &j->ndjson, why, sizeof why) < 0) {
        free(j);
        api_reply_error(c, 400, "bad_argument", why);
        return 0;
    }
    if ((j->slot = export_slot_take(c->addr)) < 0) {
        free(j);
        metrics_now.exports_refused++;
        net_http_retry_after(c, 10);
        api_reply_error(c, 429, "too_many_exports",
                        "too many exports under way: try again in a few seconds");
        return 0;
    }
    snprintf(j->name, sizeof j->name, "%s", name);
    /* What an unread export holds stays here, in its slot's count, rather
     * than megabytes of it in the kernel. */
    net_http_send_buffer(c, API_EXPORT_SNDBUF);
    if (j->f.variant) {
        snprintf(j->variant, sizeof j->variant, "%s", j->f.variant);
        j->f.variant = j->variant;
    }
    if (j->f.opponent) {
        snprintf(j->opponent, sizeof j->opponent, "%s", j->f.opponent);
        j->f.opponent = j->opponent;
    }
    j->f.limit = API_EXPORT_PAGE;
    proto_out_init(&j->out, NET_HEADROOM);
    j->p.c = c;
    c->data = &j->p;
    int err = store_archive_get(db, j->name, &j->f, on_export_page, j);
    if (err < 0) {
        c->data = NULL;
        j->p.c = NULL;
        export_free(j);
        return 500;
    }
    return 0;
}

int api_leaderboard(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (rules_find(arg) == NULL)
        return 404;
    pending *p = pending_new(c);
    if (p == NULL)
        return 500;
    if (store_leaderboard_get(db, arg, on_board_read, p) < 0) {
        pending_done(p);
        return 500;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Accounts: register, log in (password work off the loop), log out. The
 * answer sets or clears the session cookie. */

static void on_account(void *arg, int status, int64_t account, const char *username,
                       const char *token, const char *why)
{
    net_conn *c = pending_done(arg);
    if (c == NULL)
        return;
    if (status < 0) {
        unsigned http =
            status == STORE_ETAKEN ? 409
            : status == STORE_ELOGIN || status == STORE_ETOTP_REQUIRED || status == STORE_EBAD_TOTP
                ? 401
                : 400;
        api_reply_error(c, http, store_err_code(status),
                        why && *why ? why : store_err_text(status));
        return;
    }
    char cookie[512];
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_account(&o, username);
    reply_json(c, 200, &o, set_cookie(cookie, sizeof cookie, token));
}

static int credentials(net_conn *c, bool reg, const char *body, size_t len)
{
    char user[64], pass[ACCOUNTS_PASSWORD_BYTES + 1], code[TOTP_CODE_MAX + 1], why[RULES_WHY_TEXT];
    if (proto_decode_credentials(body, len, user, sizeof user, pass, sizeof pass, code, sizeof code,
                                 why, sizeof why) != 0) {
        sodium_memzero(pass, sizeof pass);
        api_reply_error(c, 400, "bad_message", why);
        return 0;
    }
    pending *p = pending_new(c);
    if (p == NULL)
        return 500;
    unsigned retry_s = 0;
    char agent[STORE_AGENT_MAX + 1];
    if (net_user_agent(c, agent, sizeof agent) < 0)
        agent[0] = '\0';
    int err = reg ? accounts_register(db, c->addr, agent, user, pass, on_account, p, &retry_s)
                  : accounts_login(db, c->addr, agent, user, pass, code, on_account, p, &retry_s);
    sodium_memzero(pass, sizeof pass);
    sodium_memzero(code, sizeof code);
    if (err < 0) {
        pending_done(p);
        /* Throttled (429) or the hashing queue full (503): refused before
         * any password work, with the seconds to wait. */
        unsigned http = err == STORE_ETHROTTLED ? 429
                        : err == STORE_EBUSY    ? 503
                        : err == STORE_ELOGIN   ? 401
                                                : 400;
        const char *reason = err == STORE_EUSERNAME   ? ACCOUNTS_USERNAME_RULES
                             : err == STORE_EPASSWORD ? ACCOUNTS_PASSWORD_RULES
                                                      : store_err_text(err);
        if (http == 429 || http == 503)
            net_http_retry_after(c, retry_s ? retry_s : 1);
        api_reply_error(c, http, store_err_code(err), reason);
        return 0;
    }
    return 0;
}

int api_register(net_conn *c, const char *arg, const char *body, size_t len)
{
    return credentials(c, true, body, len);
}

int api_login(net_conn *c, const char *arg, const char *body, size_t len)
{
    return credentials(c, false, body, len);
}

int api_logout(net_conn *c, const char *arg, const char *body, size_t len)
{
    char token[128], clear[256];
    /* The session ends with the next batch; the answer need not wait: the
     * cookie is cleared either way. */
    if (net_cookie(c, ACCOUNTS_COOKIE, token, sizeof token) > 0)
        accounts_logout(db, token, NULL, NULL);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_account(&o, NULL);
    reply_json(c, 200, &o, set_cookie(clear, sizeof clear, NULL));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Preferences and progress in the lessons (PROTOCOL.md, "Preferences",
 * "Lessons"): the session cookie's account's small JSON objects, read and
 * written by queued calls of the store. */

typedef struct blob_kind {
    const char *key;  /* of the answer: {"<key>": ...} */
    const char *what; /* in sentences */
    int (*get)(store *, int64_t, store_prefs_cb, void *);
    int (*put)(store *, int64_t, const char *, store_done_cb, void *);
    /* A body checked into its canonical object (protocol/), and the code
     * of a refusal. */
    int (*check)(const char *, size_t, char *, size_t, char *, size_t);
    const char *bad;
} blob_kind;

_Static_assert((int)PREFS_JSON_MAX <= (int)LESSONS_JSON_MAX, "a request holds either object");
static const blob_kind PREFS = {"prefs",         "preferences", store_prefs_get,
                                store_prefs_put, prefs_check,   "bad_prefs"};
static const blob_kind LESSONS = {"lessons",         "lessons",     store_lessons_get,
                                  store_lessons_put, lessons_check, "bad_argument"};

static void reply_blob(net_conn *c, const blob_kind *k, const char *json)
{
    char head[32];
    int n = snprintf(head, sizeof head, "{\"%s\":", k->key);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_out_append(&o, head, (size_t)n);
    proto_out_append(&o, json, strlen(json));
    proto_out_append(&o, "}", 1);
    reply_json(c, 200, &o, NULL);
}

/* A request between its steps: the checked object (a put) or nothing (a
 * get). */
typedef struct prefs_req {
    pending p; /* first: api_http_closed sees a pending */
    const blob_kind *k;
    char json[LESSONS_JSON_MAX]; /* the larger of the two (PREFS_JSON_MAX 256) */
    bool put;
} prefs_req;

static void unavailable(net_conn *c, const blob_kind *k, const char *how)
{
    char why[96];
    snprintf(why, sizeof why, "the %s could not be %s; try again", k->what, how);
    api_reply_error(c, 503, "unavailable", why);
}

static void prefs_read(void *arg, int status, const char *json)
{
    prefs_req *r = arg;
    const blob_kind *k = r->k;
    net_conn *c = pending_done(arg);
    if (c == NULL)
        return;
    if (status < 0)
        unavailable(c, k, "read");
    else
        reply_blob(c, k, json);
}

static void prefs_written(void *arg, int status)
{
    prefs_req *r = arg;
    const blob_kind *k = r->k;
    char json[sizeof r->json];
    snprintf(json, sizeof json, "%s", r->json);
    net_conn *c = pending_done(&r->p);
    if (c == NULL)
        return;
    if (status < 0)
        unavailable(c, k, "written");
    else
        reply_blob(c, k, json);
}

static void prefs_with_account(net_conn *c, const store_account *who, void *ctx)
{
    prefs_req *r = ctx;
    if (c == NULL || who == NULL) {
        if (c != NULL) {
            char why[96];
            snprintf(why, sizeof why,
                     "log in to keep %s for an account (guests keep them in the browser)",
                     r->k->what);
            api_reply_error(c, 401, "account_required", why);
        }
        free(r);
        return;
    }
    r->p.c = c;
    c->data = &r->p;
    int err = r->put ? r->k->put(db, who->id, r->json, prefs_written, r)
                     : r->k->get(db, who->id, prefs_read, r);
    if (err < 0) {
        pending_done(&r->p);
        unavailable(c, r->k, "reached");
    }
}

/* Look the session up, then read or write. */
static int prefs_request(net_conn *c, const blob_kind *k, const char *json)
{
    prefs_req *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 500;
    r->k = k;
    r->put = json != NULL;
    if (json)
        snprintf(r->json, sizeof r->json, "%s", json);
    if (api_with_session(c, prefs_with_account, r) < 0) {
        free(r);
        return 500;
    }
    return 0;
}

/* A write: the body checked before the session (a bad body is a 400
 * whoever sends it), then stored. */
static int blob_set(net_conn *c, const blob_kind *k, const char *body, size_t len)
{
    char json[LESSONS_JSON_MAX], why[RULES_WHY_TEXT];
    if (k->check(body, len, json, sizeof json, why, sizeof why) != 0) {
        api_reply_error(c, 400, k->bad, why);
        return 0;
    }
    return prefs_request(c, k, json);
}

int api_prefs_get(net_conn *c, const char *arg, const char *body, size_t len)
{
    return prefs_request(c, &PREFS, NULL);
}

int api_prefs_set(net_conn *c, const char *arg, const char *body, size_t len)
{
    return blob_set(c, &PREFS, body, len);
}

int api_lessons_get(net_conn *c, const char *arg, const char *body, size_t len)
{
    return prefs_request(c, &LESSONS, NULL);
}

int api_lessons_set(net_conn *c, const char *arg, const char *body, size_t len)
{
    return blob_set(c, &LESSONS, body, len);
}

void api_http_closed(net_conn *c)
{
    pending *p = c->data;
    p->c = NULL;
    c->data = NULL;
    if (p->idle) /* no read will come back to free it */
        export_free((export_job *)p);
}
