/*
 * relay.c - LISTEN/NOTIFY between nodes on a session of its own (see
 * relay.h).
 *
 * One session does both: it LISTENs and it publishes (a notification is
 * then its own exactly when its sender is this session's backend). The
 * session is a small state machine on the loop:
 *
 *   DOWN --timer--> CONNECTING --PQconnectPoll OK--> UP --lost--> DOWN
 *
 * In UP one query is in flight at a time: first the LISTEN/UNLISTEN
 * statements that bring the server's set of channels to the wanted one,
 * then batches of NOTIFY statements taken from the head of the queue (one
 * multi-statement query: one transaction; the channel quoted with
 * PQescapeIdentifier, the payload with PQescapeLiteral). A message leaves the queue
 * once its batch's answer says committed; a batch PostgreSQL refuses is
 * sent again one message at a time, so that only the bad one is dropped.
 */
#include "relay.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "log.h"

enum {
    BATCH_MSGS = 200,        /* messages in one transaction at most */
    BATCH_BYTES = 256 << 10, /* and about this much SQL */
    ADDRS_MAX = 8,           /* a host name's addresses tried */
};

enum state { R_DOWN, R_RESOLVING, R_CONNECTING, R_UP };
enum query { Q_NONE, Q_CHANNELS, Q_PUBLISH };

typedef struct chan {
    char name[RELAY_NAME_MAX + 1];
    bool want;      /* the caller wants it listened to */
    bool on_server; /* the live session listens to it */
    bool sending;   /* a LISTEN/UNLISTEN of it is in flight, setting on_server to want_sent */
    bool want_sent;
} chan;

typedef struct msg {
    struct msg *next;
    size_t len;
    char chan[RELAY_NAME_MAX + 1];
    char payload[]; /* len bytes and a NUL */
} msg;

struct relay {
    uv_loop_t *loop;
    char node[RELAY_NAME_MAX + 1];
    char *url;
    char *host;       /* the URL's host name when libpq would look it up itself */
    unsigned attempt; /* which attempt a name look-up belongs to */
    relay_cb on_message;
    void *arg;

    enum state state;
    PGconn *conn;
    uv_poll_t *poll; /* watching poll_fd; a new one when libpq changes sockets */
    int poll_fd;
    uv_timer_t timer; /* DOWN: the back-off; CONNECTING: the time-out */
    unsigned backoff_ms;
    bool ever_up, closing;
    int handles; /* handles whose close is pending: freed at 0 once closing */
    int own_pid;

    chan *chans;
    size_t nchans, capchans;

    msg *head, *tail;
    size_t queued;
    enum query query;
    bool query_failed;
    char query_why[200];
    size_t flight; /* the first `flight` messages are the batch in flight */
    size_t solo;   /* send this many next messages one per transaction */

    char *sql;
    size_t sqlcap;

    relay_stats st;
};

static void on_poll(uv_poll_t *h, int status, int events);
static void pump(relay *r);

const char *relay_err_text(int err)
{
    switch (err) {
    case 0:
        return "ok";
#define RELAY_TEXT(name, value, text)                                                              \
    case name:                                                                                     \
        return text;
        RELAY_ERRORS(RELAY_TEXT)
#undef RELAY_TEXT
    }
    return "unknown relay error";
}

/* Only these characters: safe quoted or not, and kept as they are
 * (NOTIFY and LISTEN quote it, so case counts). */
bool relay_valid_name(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        if (n >= RELAY_NAME_MAX || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return n > 0;
}

/* Well-formed UTF-8 without NUL (PostgreSQL's text refuses the rest, and
 * a refused statement would fail its whole batch). */
static bool valid_text(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c == 0)
            return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xe0) == 0xc0)
            n = 1, min = 0x80, c &= 0x1f;
        else if ((c & 0xf0) == 0xe0)
            n = 2, min = 0x800, c &= 0x0f;
        else if ((c & 0xf8) == 0xf0)
            n = 3, min = 0x10000, c &= 0x07;
        else
            return false;
        if (i + n >= len)
            return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            c = (c << 6) | (s[i + k] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

/* ---- handles ------------------------------------------------------------ */

static void free_relay(relay *r)
{
    free(r->chans);
    free(r->sql);
    free(r->url);
    free(r->host);
    free(r);
}

static void handle_closed(uv_handle_t *h)
{
    relay *r = h->data;
    if (h != (uv_handle_t *)&r->timer)
        free(h);
    if (--r->handles == 0 && r->closing)
        free_relay(r);
}

/* Stop watching the socket. Done before libpq closes it (PQfinish), and
 * when libpq moved to another socket while connecting: uv_close stops
 * the watch at once, so a new socket with the same number is safe. */
static void unwatch(relay *r)
{
    if (r->poll == NULL)
        return;
    r->handles++;
    uv_close((uv_handle_t *)r->poll, handle_closed);
    r->poll = NULL;
}

/* false when the socket cannot be watched (the session is then lost). */
static bool watch(relay *r, int events)
{
    int fd = PQsocket(r->conn);
    if (fd < 0)
        return false;
    if (r->poll != NULL && r->poll_fd != fd)
        unwatch(r);
    if (r->poll == NULL) {
        uv_poll_t *p = malloc(sizeof *p);
        if (p == NULL || uv_poll_init(r->loop, p, fd) != 0) {
            free(p);
            return false;
        }
        p->data = r;
        r->poll = p;
        r->poll_fd = fd;
    }
    return uv_poll_start(r->poll, events, on_poll) == 0;
}

/* ---- the queue ---------------------------------------------------------- */

static void pop(relay *r, size_t n)
{
    while (n-- > 0 && r->head != NULL) {
        msg *m = r->head;
        r->head = m->next;
        if (r->head == NULL)
            r->tail = NULL;
        r->queued--;
        free(m);
    }
}

static bool sql_room(relay *r, size_t need)
{
    if (need <= r->sqlcap)
        return true;
    size_t cap = r->sqlcap ? r->sqlcap : 4096;
    while (cap < need)
        cap *= 2;
    char *p = realloc(r->sql, cap);
    if (p == NULL)
        return false;
    r->sql = p;
    r->sqlcap = cap;
    return true;
}

/* Append s to the query text at *len; false on no memory. */
static bool sql_add(relay *r, size_t *len, const char *a, const char *b, const char *c,
                    const char *d, const char *e)
{
    const char *parts[] = {a, b, c, d, e};
    size_t add = 0;
    for (int i = 0; i < 5; i++)
        add += parts[i] ? strlen(parts[i]) : 0;
    if (!sql_room(r, *len + add + 1))
        return false;
    for (int i = 0; i < 5; i++) {
        if (parts[i] == NULL)
            continue;
        size_t n = strlen(parts[i]);
        memcpy(r->sql + *len, parts[i], n);
        *len += n;
    }
    r->sql[*len] = '\0';
    return true;
}

/* ---- the session -------------------------------------------------------- */

static void on_timer(uv_timer_t *t);

/* The session is gone (or could not be had): what was in flight is
 * dropped, the channels are to be LISTENed again, and another session is
 * tried after the back-off. */
static void lost(relay *r, const char *why)
{
    char text[240];
    snprintf(text, sizeof text, "%s", why && why[0] ? why : "connection lost");
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\t' || *p == '"')
            *p = *p == '"' ? '\'' : *p == '\t' || p[1] ? ' ' : '\0';
    if (r->query == Q_PUBLISH && r->flight > 0) {
        r->st.dropped_in_flight += r->flight;
        pop(r, r->flight);
    }
    r->query = Q_NONE;
    r->flight = 0;
    for (size_t i = 0; i < r->nchans; i++)
        r->chans[i].on_server = r->chans[i].sending = false;
    unwatch(r);
    if (r->conn != NULL)
        PQfinish(r->conn);
    r->conn = NULL;
    r->own_pid = 0;
    r->attempt++;
    log_kv(r->state == R_UP ? LOG_WARN : LOG_INFO, "relay session lost",
           "node=%s retry_ms=%u why=\"%s\"", r->node, r->backoff_ms, text);
    r->state = R_DOWN;
    uv_timer_start(&r->timer, on_timer, r->backoff_ms, 0);
    r->backoff_ms =
        r->backoff_ms * 2 > RELAY_BACKOFF_MAX_MS ? RELAY_BACKOFF_MAX_MS : r->backoff_ms * 2;
}

static void no_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* hosts and addrs: NULL, or the host name once per address and its
 * addresses (libpq then tries each in turn, without looking up). */
static void connect_pg(relay *r, const char *hosts, const char *addrs)
{
    char app[RELAY_NAME_MAX + 32];
    snprintf(app, sizeof app, "chameleon relay %s", r->node);
    /* The URL's own values (expanded from dbname, after these) win;
     * keepalives notice a peer that vanished without a word; a NOTIFY
     * needs no fsync (nothing of it is kept: at most once). */
    const char *keys[] = {"application_name",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "options",
                          "dbname",
                          "host",
                          "hostaddr",
                          NULL};
    const char *vals[] = {app,    "10",  "5",   "3", "-c synchronous_commit=off",
                          r->url, hosts, addrs, NULL};
    if (hosts == NULL)
        keys[6] = NULL;
    r->state = R_CONNECTING;
    r->conn = PQconnectStartParams(keys, vals, 1);
    if (r->conn == NULL) {
        lost(r, "out of memory");
        return;
    }
    PQsetNoticeProcessor(r->conn, no_notices, NULL);
    if (PQstatus(r->conn) == CONNECTION_BAD) {
        lost(r, PQerrorMessage(r->conn));
        return;
    }
    if (!watch(r, UV_WRITABLE))
        lost(r, "cannot watch the connection's socket");
}

typedef struct lookup {
    uv_getaddrinfo_t req;
    relay *r;
    unsigned attempt;
} lookup;

/* Whether ip is one of the comma-separated list. */
static bool listed(const char *list, const char *ip)
{
    size_t n = strlen(ip);
    for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
        if (strncmp(p, ip, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    lookup *l = req->data;
    relay *r = l->r;
    bool current = !r->closing && r->state == R_RESOLVING && l->attempt == r->attempt;
    free(l);
    if (current && status < 0) {
        lost(r, uv_strerror(status));
    } else if (current) {
        char hosts[ADDRS_MAX * (RELAY_HOST_MAX + 1)] = "", addrs[ADDRS_MAX * 48] = "";
        int n = 0;
        for (struct addrinfo *a = res; a != NULL && n < ADDRS_MAX; a = a->ai_next) {
            char ip[46];
            if (uv_ip_name(a->ai_addr, ip, sizeof ip) != 0 || listed(addrs, ip))
                continue;
            snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%s", n ? "," : "",
                     r->host);
            snprintf(addrs + strlen(addrs), sizeof addrs - strlen(addrs), "%s%s", n ? "," : "", ip);
            n++;
        }
        if (n == 0)
            lost(r, "the host name has no address");
        else
            connect_pg(r, hosts, addrs);
    }
    uv_freeaddrinfo(res);
    if (--r->handles == 0 && r->closing)
        free_relay(r);
}

/* A new attempt: the host name looked up off the loop first (libpq would
 * look it up with a blocking call), then PQconnectStart. */
static void connect_start(relay *r)
{
    /* PQconnectPoll does not time out by itself. */
    uv_timer_start(&r->timer, on_timer, RELAY_CONNECT_TIMEOUT_MS, 0);
    if (r->host == NULL) {
        connect_pg(r, NULL, NULL);
        return;
    }
    lookup *l = malloc(sizeof *l);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    r->state = R_RESOLVING;
    if (l == NULL) {
        lost(r, "out of memory");
        return;
    }
    l->r = r;
    l->attempt = r->attempt;
    l->req.data = l;
    int e = uv_getaddrinfo(r->loop, &l->req, on_resolved, r->host, NULL, &hints);
    if (e < 0) {
        free(l);
        lost(r, uv_strerror(e));
        return;
    }
    r->handles++; /* the relay outlives the look-up */
}

static void on_timer(uv_timer_t *t)
{
    relay *r = t->data;
    if (r->state == R_DOWN)
        connect_start(r);
    else if (r->state == R_CONNECTING || r->state == R_RESOLVING)
        lost(r, "no session after 10 s");
}

static void connected(relay *r)
{
    uv_timer_stop(&r->timer);
    if (PQsetnonblocking(r->conn, 1) != 0) {
        lost(r, PQerrorMessage(r->conn));
        return;
    }
    r->state = R_UP;
    r->own_pid = PQbackendPID(r->conn);
    r->backoff_ms = RELAY_BACKOFF_MIN_MS;
    if (r->ever_up) {
        r->st.reconnects++;
        log_kv(LOG_INFO, "relay session back", "node=%s pid=%d queued=%zu", r->node, r->own_pid,
               r->queued);
    }
    r->ever_up = true;
    if (!watch(r, UV_READABLE)) {
        lost(r, "cannot watch the connection's socket");
        return;
    }
    pump(r);
}

static void connect_step(relay *r)
{
    PostgresPollingStatusType s = PQconnectPoll(r->conn);
    if (s == PGRES_POLLING_FAILED)
        lost(r, PQerrorMessage(r->conn));
    else if (s == PGRES_POLLING_OK)
        connected(r);
    else if (!watch(r, s == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE))
        lost(r, "cannot watch the connection's socket");
}

static bool channels_synced(const relay *r)
{
    for (size_t i = 0; i < r->nchans; i++)
        if (r->chans[i].want != r->chans[i].on_server)
            return false;
    return true;
}

/* Forget the channels neither wanted nor listened to. */
static void prune(relay *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nchans; i++)
        if (r->chans[i].want || r->chans[i].on_server || r->chans[i].sending)
            r->chans[k++] = r->chans[i];
    r->nchans = k;
}

static bool send_query(relay *r, enum query q)
{
    if (!PQsendQuery(r->conn, r->sql)) {
        lost(r, PQerrorMessage(r->conn));
        return false;
    }
    r->query = q;
    r->query_failed = false;
    r->query_why[0] = '\0';
    int f = PQflush(r->conn);
    if (f < 0) {
        lost(r, PQerrorMessage(r->conn));
        return false;
    }
    if (!watch(r, UV_READABLE | (f == 1 ? UV_WRITABLE : 0))) {
        lost(r, "cannot watch the connection's socket");
        return false;
    }
    return true;
}

/* LISTEN and UNLISTEN what differs; false when there was nothing. */
static bool send_channels(relay *r)
{
    size_t len = 0;
    bool any = false;
    for (size_t i = 0; i < r->nchans; i++) {
        chan *c = &r->chans[i];
        if (c->want == c->on_server)
            continue;
        char *id = PQescapeIdentifier(r->conn, c->name, strlen(c->name));
        bool ok =
            id != NULL && sql_add(r, &len, c->want ? "LISTEN " : "UNLISTEN ", id, ";", NULL, NULL);
        PQfreemem(id);
        if (!ok) {
            log_kv(LOG_WARN, "relay out of memory", "node=%s", r->node);
            return false;
        }
        c->sending = true;
        c->want_sent = c->want;
        any = true;
    }
    return any && send_query(r, Q_CHANNELS);
}

/* The next batch from the head of the queue: at most BATCH_MSGS, and
 * never the same (channel, payload) twice (PostgreSQL would deliver it
 * once). */
static void send_batch(relay *r)
{
    size_t len = 0, n = 0, max = r->solo > 0 ? 1 : BATCH_MSGS;
    for (msg *m = r->head; m != NULL && n < max && len < BATCH_BYTES; m = m->next) {
        bool twice = false;
        for (msg *p = r->head; p != m && !twice; p = p->next)
            twice = p->len == m->len && strcmp(p->chan, m->chan) == 0 &&
                    memcmp(p->payload, m->payload, m->len) == 0;
        if (twice)
            break;
        /* NOTIFY statements: 1.7 times the messages/s of SELECT
         * pg_notify(...) ones (no plan each). */
        char *c = PQescapeIdentifier(r->conn, m->chan, strlen(m->chan));
        char *p = c ? PQescapeLiteral(r->conn, m->payload, m->len) : NULL;
        bool ok = p != NULL && sql_add(r, &len, "NOTIFY ", c, ", ", p, ";");
        PQfreemem(c);
        PQfreemem(p);
        if (!ok)
            break;
        n++;
    }
    if (n == 0) {
        log_kv(LOG_WARN, "relay out of memory", "node=%s queued=%zu", r->node, r->queued);
        return;
    }
    r->flight = n;
    send_query(r, Q_PUBLISH);
}

/* Send what is due if the session is free. */
static void pump(relay *r)
{
    if (r->closing || r->state != R_UP || r->query != Q_NONE)
        return;
    if (!channels_synced(r)) {
        send_channels(r);
        return;
    }
    if (r->head != NULL)
        send_batch(r);
}

/* The query in flight has given all its results. */
static void query_done(relay *r)
{
    enum query q = r->query;
    r->query = Q_NONE;
    if (PQstatus(r->conn) == CONNECTION_BAD) {
        r->query = q; /* lost() drops a batch in flight */
        lost(r, r->query_why);
        return;
    }
    if (q == Q_CHANNELS) {
        if (r->query_failed) {
            /* Not for a valid name: a broken session; start afresh. */
            lost(r, r->query_why);
            return;
        }
        for (size_t i = 0; i < r->nchans; i++)
            if (r->chans[i].sending) {
                r->chans[i].on_server = r->chans[i].want_sent;
                r->chans[i].sending = false;
            }
        prune(r);
        return;
    }
    size_t n = r->flight;
    r->flight = 0;
    if (!r->query_failed) {
        r->st.published += n;
        pop(r, n);
        if (r->solo > 0)
            r->solo--;
    } else if (n > 1) {
        r->solo = n; /* find the message PostgreSQL refuses */
    } else {
        log_kv(LOG_WARN, "relay message refused", "node=%s channel=%s why=\"%s\"", r->node,
               r->head->chan, r->query_why);
        r->st.dropped_refused++;
        pop(r, 1);
        if (r->solo > 0)
            r->solo--;
    }
}

static bool alive(const relay *r)
{
    return !r->closing && r->state == R_UP;
}

static void deliver(relay *r)
{
    PGnotify *n;
    while (alive(r) && (n = PQnotifies(r->conn)) != NULL) {
        r->st.received++;
        r->on_message(r->arg, n->relname, n->extra, strlen(n->extra), n->be_pid);
        PQfreemem(n);
    }
}

static void read_results(relay *r)
{
    while (alive(r) && r->query != Q_NONE && !PQisBusy(r->conn)) {
        PGresult *res = PQgetResult(r->conn);
        if (res == NULL) {
            query_done(r);
            return;
        }
        ExecStatusType s = PQresultStatus(res);
        if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && !r->query_failed) {
            r->query_failed = true;
            const char *e = PQresultErrorMessage(res);
            snprintf(r->query_why, sizeof r->query_why, "%s", e && e[0] ? e : "query failed");
            r->query_why[strcspn(r->query_why, "\n")] = '\0';
        }
        PQclear(res);
    }
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    relay *r = h->data;
    if (r->closing || h != r->poll)
        return;
    if (r->state == R_CONNECTING) {
        /* libpq's error says more than the poll's. */
        connect_step(r);
        return;
    }
    if (status < 0) {
        lost(r, uv_strerror(status));
        return;
    }
    if (events & UV_WRITABLE) {
        int f = PQflush(r->conn);
        if (f < 0) {
            lost(r, PQerrorMessage(r->conn));
            return;
        }
        if (f == 0 && !watch(r, UV_READABLE)) {
            lost(r, "cannot watch the connection's socket");
            return;
        }
    }
    if (events & UV_READABLE) {
        bool ok = PQconsumeInput(r->conn) != 0;
        /* What arrived before the session broke is delivered. */
        deliver(r);
        if (!alive(r))
            return;
        if (!ok) {
            lost(r, PQerrorMessage(r->conn));
            return;
        }
        read_results(r);
        deliver(r);
        if (!alive(r))
            return;
        if (PQstatus(r->conn) == CONNECTION_BAD) {
            lost(r, PQerrorMessage(r->conn));
            return;
        }
    }
    pump(r);
}

/* ---- the interface ------------------------------------------------------ */

relay *relay_open(uv_loop_t *loop, const char *pg_url, const char *node, relay_cb on_message,
                  void *arg, char *why, size_t whylen)
{
    if (!relay_valid_name(node)) {
        snprintf(why, whylen, "relay: the node name '%s' is not 1..63 letters, digits and _", node);
        return NULL;
    }
    char *err = NULL;
    PQconninfoOption *opts = PQconninfoParse(pg_url, &err);
    if (opts == NULL) {
        snprintf(why, whylen, "relay: not a PostgreSQL URL: %s", err ? err : "out of memory");
        if (err)
            for (char *p = why; *p; p++)
                if (*p == '\n')
                    *p = p[1] ? ' ' : '\0';
        PQfreemem(err);
        return NULL;
    }
    /* One host given by name (not an address, not a socket directory):
     * looked up by the relay. */
    const char *host = NULL, *hostaddr = NULL;
    for (PQconninfoOption *o = opts; o->keyword != NULL; o++) {
        if (strcmp(o->keyword, "host") == 0)
            host = o->val;
        else if (strcmp(o->keyword, "hostaddr") == 0)
            hostaddr = o->val;
    }
    unsigned char ip[16];
    bool by_name = host != NULL && host[0] != '\0' && host[0] != '/' && host[0] != '@' &&
                   strchr(host, ',') == NULL && strlen(host) <= RELAY_HOST_MAX &&
                   (hostaddr == NULL || hostaddr[0] == '\0') && inet_pton(AF_INET, host, ip) != 1 &&
                   inet_pton(AF_INET6, host, ip) != 1;
    relay *r = calloc(1, sizeof *r);
    if (r == NULL || (r->url = strdup(pg_url)) == NULL ||
        (by_name && (r->host = strdup(host)) == NULL)) {
        PQconninfoFree(opts);
        if (r != NULL)
            free(r->url);
        free(r);
        snprintf(why, whylen, "relay: out of memory");
        return NULL;
    }
    PQconninfoFree(opts);
    r->loop = loop;
    snprintf(r->node, sizeof r->node, "%s", node);
    r->on_message = on_message;
    r->arg = arg;
    r->backoff_ms = RELAY_BACKOFF_MIN_MS;
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    connect_start(r);
    return r;
}

static chan *find_chan(relay *r, const char *name)
{
    for (size_t i = 0; i < r->nchans; i++)
        if (strcmp(r->chans[i].name, name) == 0)
            return &r->chans[i];
    return NULL;
}

int relay_listen(relay *r, const char *channel)
{
    if (!relay_valid_name(channel))
        return RELAY_EINVAL;
    chan *c = find_chan(r, channel);
    if (c == NULL) {
        if (r->nchans >= RELAY_CHANNELS_MAX)
            return RELAY_ETOO_MANY;
        if (r->nchans == r->capchans) {
            size_t cap = r->capchans ? r->capchans * 2 : 8;
            chan *p = realloc(r->chans, cap * sizeof *p);
            if (p == NULL)
                return RELAY_ENOMEM;
            r->chans = p;
            r->capchans = cap;
        }
        c = &r->chans[r->nchans++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", channel);
    }
    c->want = true;
    pump(r);
    return 0;
}

int relay_unlisten(relay *r, const char *channel)
{
    if (!relay_valid_name(channel))
        return RELAY_EINVAL;
    chan *c = find_chan(r, channel);
    if (c != NULL) {
        c->want = false;
        if (!c->on_server && !c->sending)
            prune(r);
    }
    pump(r);
    return 0;
}

int relay_publish(relay *r, const char *channel, const char *payload, size_t len)
{
    if (!relay_valid_name(channel))
        return RELAY_EINVAL;
    if (len > RELAY_PAYLOAD_MAX)
        return RELAY_ETOO_LARGE;
    if (!valid_text((const unsigned char *)payload, len))
        return RELAY_EINVAL;
    if (r->queued >= RELAY_QUEUE_MAX) {
        r->st.dropped_full++;
        return RELAY_EFULL;
    }
    msg *m = malloc(sizeof *m + len + 1);
    if (m == NULL)
        return RELAY_ENOMEM;
    m->next = NULL;
    m->len = len;
    snprintf(m->chan, sizeof m->chan, "%s", channel);
    memcpy(m->payload, payload, len);
    m->payload[len] = '\0';
    if (r->tail != NULL)
        r->tail->next = m;
    else
        r->head = m;
    r->tail = m;
    r->queued++;
    pump(r);
    return 0;
}

bool relay_ready(const relay *r)
{
    return r->state == R_UP && r->query != Q_CHANNELS && channels_synced(r);
}

int relay_own_pid(const relay *r)
{
    return r->own_pid;
}

const char *relay_node(const relay *r)
{
    return r->node;
}

void relay_get_stats(const relay *r, relay_stats *out)
{
    *out = r->st;
    out->queued = r->queued;
    out->connected = relay_ready(r);
}

void relay_close(relay *r)
{
    if (r == NULL || r->closing)
        return;
    r->closing = true;
    unwatch(r);
    if (r->conn != NULL)
        PQfinish(r->conn);
    r->conn = NULL;
    pop(r, r->queued);
    r->handles++;
    uv_close((uv_handle_t *)&r->timer, handle_closed);
}
