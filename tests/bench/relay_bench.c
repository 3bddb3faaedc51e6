/*
 * relay_bench.c - the relay hop between two nodes (issue 20, "Several
 * nodes"), measured on Redis pub/sub and on PostgreSQL LISTEN/NOTIFY.
 *
 * Two "nodes", each a thread with its own libuv loop and its own two
 * connections to the broker (one to publish, one to listen): node A
 * publishes room events (a move event of protocol/PROTOCOL.md, ~300 bytes)
 * on channel "room_events"; node B listens there and publishes an
 * acknowledgement carrying the event's seq on "room_acks", which A listens
 * to. One round trip is the forward + relay hop of a move. Neither loop ever
 * blocks on the broker: hiredis async on its libuv adapter, libpq
 * non-blocking (PQconnectStart/PQconnectPoll, PQsendQuery, PQsocket watched
 * by uv_poll, PQconsumeInput/PQnotifies).
 *
 *   relay_bench redis HOST PORT MODE ...
 *   relay_bench pg CONNINFO MODE ...
 *     MODE = latency RATE SECONDS     RATE events/s for SECONDS (open loop)
 *          | throughput WINDOW SECONDS  as fast as acknowledged with at
 *                                       most WINDOW events in flight
 *   options after the mode's numbers:
 *     --size BYTES      the event's size (default 300)
 *     --store           (pg) A writes each event durably (INSERT into a table
 *                       relay_events of the broker's database, emptied at the
 *                       start) in the transaction that NOTIFYs it
 *     --store CONNINFO  (redis) A writes each event to that PostgreSQL as
 *                       above, and PUBLISHes it once its batch has committed
 *   --store is the owner's move: durable, then relayed (the round trip then
 *   includes the commit).
 *
 * Prints one line: "<broker> <mode> ... sent N acked N lost N dup N
 * reordered N b_reordered N msgs/s X p50_ms X p99_ms X max_ms X size N store 0|1".
 * lost = sent and never acknowledged within 5 s after the last send; dup =
 * acknowledged twice; reordered = acknowledgements that came after a later
 * seq's (b_reordered: events B saw out of order). Exit 0 once measured
 * (losses are reported, not failed), 1 on a broker error.
 *
 * PostgreSQL: NOTIFYs queued while the previous query is in flight go
 * together in the next one (one multi-statement query = one transaction,
 * delivered at its commit), as the store groups commits.
 */
#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define EVENTS_CHAN "room_events"
#define ACKS_CHAN "room_acks"
#define GRACE_NS 5000000000ull
#define CONNECT_NS 15000000000ull

enum broker { REDIS, PG };

typedef struct node node;

/* One PostgreSQL connection on a loop. */
typedef struct pgc {
    node *n;
    PGconn *conn;
    uv_poll_t poll;
    bool polling, connected, in_flight, closing, init_done;
    int events;
    const char *init_sql; /* sent once connected; its end makes the connection ready */
    char *batch;          /* statements waiting for the query in flight */
    size_t len, cap;
    /* Events written (--store) in the batch waiting and in the one in flight. */
    unsigned long b_first, b_n, f_first, f_n;
    void (*on_done)(struct pgc *c, unsigned long first, unsigned long n);
} pgc;

struct node {
    char name;
    uv_loop_t loop;
    uv_timer_t timer;
    enum broker broker;
    const char *listen_chan, *publish_chan;
    /* Redis */
    redisAsyncContext *rpub, *rsub;
    /* PostgreSQL */
    pgc ppub, psub, pstore; /* pstore: Redis with --store, the durable writes */
    bool store;             /* node A with --store: write each event, then relay it */
    int ready, need;        /* connections ready, and how many there are */
    void (*on_message)(node *n, const char *payload, size_t len);
    void (*on_ready)(node *n);
    uint64_t start_ns;
    bool closed;
};

static struct {
    enum broker broker;
    const char *host, *conninfo;
    int port;
    bool latency;
    double rate;
    unsigned window;
    double seconds;
    size_t size;
    bool store;
    const char *store_conninfo;
} cfg;

#define CREATE_SQL                                                                                 \
    "SET client_min_messages = warning;"                                                           \
    "CREATE TABLE IF NOT EXISTS relay_events (seq bigint, body text); TRUNCATE relay_events;"

static void node_ready_one(node *n)
{
    if (++n->ready == n->need)
        n->on_ready(n);
}

/* Shared between the threads. */
static atomic_bool b_ready, stop_b;
static atomic_ulong b_received, b_reordered;
static atomic_bool failed;

/* Node A's measurement. */
static struct {
    uint64_t *sent_ns;
    uint8_t *acked;
    uint64_t *lat;
    size_t cap, sent, nacked, nlat, dup, reordered, total;
    uint64_t t0, last_send, last_ack;
    long max_seq;
    bool started, sending_done;
} m;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "relay_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    atomic_store(&failed, true);
    exit(1);
}

static uint64_t now_ns(void)
{
    return uv_hrtime();
}

/* A move event as PROTOCOL.md shows it, padded in "position" to `size`. */
static size_t make_event(char *buf, size_t cap, unsigned long seq, size_t size)
{
    int n = snprintf(buf, cap,
                     "{\"type\":\"event\",\"room\":1,\"seq\":%lu,\"kind\":\"move\",\"ply\":%lu,"
                     "\"seat\":0,\"move\":\"a2-a3\",\"display\":\"Pa2-a3\",\"captures\":[],"
                     "\"changes\":[[\"a2\",null],[\"a3\",{\"letter\":\"P\",\"owner\":0}]],"
                     "\"clocks\":[60300,60000],\"clock_running\":true,\"to_move\":1,"
                     "\"result\":null,\"check\":[],\"position\":\"",
                     seq, seq + 1);
    size_t len = (size_t)n;
    for (; len + 2 < size && len + 3 < cap; len++)
        buf[len] = (char)('a' + len % 26);
    buf[len++] = '"';
    buf[len++] = '}';
    buf[len] = 0;
    return len;
}

static long seq_of(const char *payload)
{
    const char *p = strstr(payload, "\"seq\":");
    return p ? strtol(p + 6, NULL, 10) : -1;
}

/* ---- PostgreSQL -------------------------------------------------------- */

static void pg_on_poll(uv_poll_t *h, int status, int events);

static void pg_watch(pgc *c, int events)
{
    if (c->closing)
        return;
    if (!c->polling) {
        if (PQsocket(c->conn) < 0)
            die("connect", PQerrorMessage(c->conn));
        if (uv_poll_init(&c->n->loop, &c->poll, PQsocket(c->conn)) != 0)
            die("uv_poll_init", NULL);
        c->poll.data = c;
        c->polling = true;
    }
    c->events = events;
    uv_poll_start(&c->poll, events, pg_on_poll);
}

static void pg_send_batch(pgc *c)
{
    if (c->in_flight || c->len == 0 || !c->connected)
        return;
    if (!PQsendQuery(c->conn, c->batch))
        die("PQsendQuery", PQerrorMessage(c->conn));
    c->len = 0;
    c->in_flight = true;
    c->f_first = c->b_first;
    c->f_n = c->b_n;
    c->b_n = 0;
    int r = PQflush(c->conn);
    if (r < 0)
        die("PQflush", PQerrorMessage(c->conn));
    pg_watch(c, UV_READABLE | (r == 1 ? UV_WRITABLE : 0));
}

/* Queues a NOTIFY on chan (if any) and, with seq >= 0, an INSERT of the
 * event before it: one transaction with the batch. */
static void pg_append(pgc *c, const char *chan, const char *payload, size_t len, long seq)
{
    char *lit = PQescapeLiteral(c->conn, payload, len);
    if (!lit)
        die("PQescapeLiteral", PQerrorMessage(c->conn));
    size_t need = 2 * strlen(lit) + 128 + (chan ? strlen(chan) : 0);
    if (c->len + need + 1 > c->cap) {
        c->cap = (c->len + need + 1) * 2;
        c->batch = realloc(c->batch, c->cap);
        if (!c->batch)
            die("out of memory", NULL);
    }
    if (seq >= 0) {
        c->len += (size_t)sprintf(
            c->batch + c->len, "INSERT INTO relay_events (seq, body) VALUES (%ld, %s);", seq, lit);
        if (c->b_n++ == 0)
            c->b_first = (unsigned long)seq;
    }
    if (chan)
        c->len += (size_t)sprintf(c->batch + c->len, "NOTIFY %s, %s;", chan, lit);
    PQfreemem(lit);
    pg_send_batch(c);
}

static void pg_connected(pgc *c)
{
    c->connected = true;
    if (PQsetnonblocking(c->conn, 1) != 0)
        die("PQsetnonblocking", PQerrorMessage(c->conn));
    if (c->init_sql) {
        c->len = strlen(c->init_sql);
        c->cap = c->len + 1;
        c->batch = strdup(c->init_sql);
        pg_send_batch(c);
    } else {
        c->init_done = true;
        pg_watch(c, UV_READABLE);
        node_ready_one(c->n);
    }
}

static void pg_on_poll(uv_poll_t *h, int status, int events)
{
    pgc *c = h->data;
    node *n = c->n;
    /* While connecting, libpq's error says more than the poll's. */
    if (status < 0 && c->connected)
        die("uv_poll", uv_strerror(status));
    if (!c->connected) {
        PostgresPollingStatusType r = PQconnectPoll(c->conn);
        if (r == PGRES_POLLING_FAILED)
            die("connect", PQerrorMessage(c->conn));
        uv_os_fd_t fd;
        if (uv_fileno((uv_handle_t *)h, &fd) != 0 || PQsocket(c->conn) != fd)
            die("connect", "the socket changed while connecting (give one host)");
        if (r == PGRES_POLLING_OK)
            pg_connected(c);
        else
            pg_watch(c, r == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE);
        return;
    }
    if (events & UV_WRITABLE) {
        int r = PQflush(c->conn);
        if (r < 0)
            die("PQflush", PQerrorMessage(c->conn));
        if (r == 0)
            pg_watch(c, UV_READABLE);
    }
    if (!(events & UV_READABLE))
        return;
    if (!PQconsumeInput(c->conn))
        die("PQconsumeInput", PQerrorMessage(c->conn));
    while (c->in_flight && !PQisBusy(c->conn)) {
        PGresult *res = PQgetResult(c->conn);
        if (!res) {
            c->in_flight = false;
            if (!c->init_done) {
                c->init_done = true;
                node_ready_one(n);
            } else if (c->on_done && c->f_n) {
                c->on_done(c, c->f_first, c->f_n);
            }
            pg_send_batch(c);
            break;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            die("query", PQresultErrorMessage(res));
        PQclear(res);
    }
    PGnotify *nt;
    while ((nt = PQnotifies(c->conn)) != NULL) {
        n->on_message(n, nt->extra, strlen(nt->extra));
        PQfreemem(nt);
    }
}

static void pg_open(node *n, pgc *c, const char *conninfo, const char *init_sql)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->init_sql = init_sql;
    c->conn = PQconnectStart(conninfo);
    if (!c->conn || PQstatus(c->conn) == CONNECTION_BAD)
        die("PQconnectStart", c->conn ? PQerrorMessage(c->conn) : "out of memory");
    pg_watch(c, UV_WRITABLE);
}

static void pg_closed(uv_handle_t *h)
{
    pgc *c = h->data;
    PQfinish(c->conn);
    free(c->batch);
    c->conn = NULL;
}

static void pg_close(pgc *c)
{
    c->closing = true;
    if (c->polling)
        uv_close((uv_handle_t *)&c->poll, pg_closed);
}

/* ---- Redis ------------------------------------------------------------- */

static void redis_on_connect(const redisAsyncContext *ac, int status)
{
    if (status != REDIS_OK)
        die("redis connect", ac->errstr);
}

static void redis_on_disconnect(const redisAsyncContext *ac, int status)
{
    node *n = ac->data;
    if (status != REDIS_OK && !n->closed)
        die("redis disconnected", ac->errstr);
}

static void redis_on_sub(redisAsyncContext *ac, void *r, void *priv)
{
    node *n = priv;
    redisReply *reply = r;
    if (!reply || n->closed)
        return;
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 3)
        die("redis", "unexpected subscription reply");
    const char *kind = reply->element[0]->str;
    if (strcmp(kind, "subscribe") == 0) {
        node_ready_one(n);
    } else if (strcmp(kind, "message") == 0) {
        n->on_message(n, reply->element[2]->str, reply->element[2]->len);
    }
}

static void redis_on_pub(redisAsyncContext *ac, void *r, void *priv)
{
    redisReply *reply = r;
    if (reply && reply->type == REDIS_REPLY_ERROR)
        die("redis PUBLISH", reply->str);
}

static redisAsyncContext *redis_open(node *n)
{
    redisAsyncContext *ac = redisAsyncConnect(cfg.host, cfg.port);
    if (!ac || ac->err)
        die("redis connect", ac ? ac->errstr : "out of memory");
    ac->data = n;
    redisLibuvAttach(ac, &n->loop);
    redisAsyncSetConnectCallback(ac, redis_on_connect);
    redisAsyncSetDisconnectCallback(ac, redis_on_disconnect);
    return ac;
}

/* ---- a node, whatever the broker ---------------------------------------- */

static void redis_publish(node *n, const char *payload, size_t len)
{
    if (redisAsyncCommand(n->rpub, redis_on_pub, n, "PUBLISH %s %b", n->publish_chan, payload,
                          len) != REDIS_OK)
        die("redis PUBLISH", n->rpub->errstr);
}

static size_t make_event(char *buf, size_t cap, unsigned long seq, size_t size);

/* Redis with --store: the events of a committed batch, published. */
static void redis_after_commit(pgc *c, unsigned long first, unsigned long count)
{
    static char buf[1 << 16];
    for (unsigned long s = first; s < first + count; s++)
        redis_publish(c->n, buf, make_event(buf, sizeof buf, s, cfg.size));
}

static void node_open(node *n)
{
    static char listen_sql[2][64];
    n->need = 2;
    if (n->broker == REDIS) {
        n->rpub = redis_open(n);
        n->rsub = redis_open(n);
        redisAsyncCommand(n->rsub, redis_on_sub, n, "SUBSCRIBE %s", n->listen_chan);
        /* The publishing connection is usable at once (commands queue). */
        node_ready_one(n);
        if (n->store) {
            n->need++;
            pg_open(n, &n->pstore, cfg.store_conninfo, CREATE_SQL);
            n->pstore.on_done = redis_after_commit;
        }
    } else {
        char *ls = listen_sql[n->name == 'a'];
        snprintf(ls, sizeof listen_sql[0], "LISTEN %s;", n->listen_chan);
        pg_open(n, &n->ppub, cfg.conninfo, n->store ? CREATE_SQL : NULL);
        pg_open(n, &n->psub, cfg.conninfo, ls);
    }
}

/* seq: the event's number, written first with --store. */
static void node_publish(node *n, const char *payload, size_t len, long seq)
{
    if (n->broker == REDIS) {
        if (n->store)
            pg_append(&n->pstore, NULL, payload, len, seq);
        else
            redis_publish(n, payload, len);
    } else {
        pg_append(&n->ppub, n->publish_chan, payload, len, n->store ? seq : -1);
    }
}

static void node_close(node *n)
{
    if (n->closed)
        return;
    n->closed = true;
    uv_close((uv_handle_t *)&n->timer, NULL);
    if (n->broker == REDIS) {
        redisAsyncDisconnect(n->rpub);
        redisAsyncDisconnect(n->rsub);
        if (n->store)
            pg_close(&n->pstore);
    } else {
        pg_close(&n->ppub);
        pg_close(&n->psub);
    }
}

static void node_init(node *n, char name, const char *listen, const char *publish)
{
    memset(n, 0, sizeof *n);
    n->name = name;
    n->broker = cfg.broker;
    n->listen_chan = listen;
    n->publish_chan = publish;
    if (uv_loop_init(&n->loop) != 0)
        die("uv_loop_init", NULL);
    uv_timer_init(&n->loop, &n->timer);
    n->timer.data = n;
    n->start_ns = now_ns();
}

/* ---- node B: acknowledges every event ---------------------------------- */

static long b_last = -1;

static void b_on_message(node *n, const char *payload, size_t len)
{
    long seq = seq_of(payload);
    if (seq <= b_last)
        atomic_fetch_add(&b_reordered, 1);
    else
        b_last = seq;
    atomic_fetch_add(&b_received, 1);
    char ack[96];
    int alen =
        snprintf(ack, sizeof ack, "{\"type\":\"ack\",\"room\":1,\"seq\":%ld,\"node\":\"b\"}", seq);
    node_publish(n, ack, (size_t)alen, -1);
}

static void b_on_ready(node *n)
{
    atomic_store(&b_ready, true);
}

static void b_tick(uv_timer_t *t)
{
    node *n = t->data;
    if (atomic_load(&stop_b))
        node_close(n);
    else if (n->ready < n->need && now_ns() - n->start_ns > CONNECT_NS)
        die("node B", "not connected after 15 s");
}

static void *b_main(void *arg)
{
    node *n = arg;
    n->on_message = b_on_message;
    n->on_ready = b_on_ready;
    node_open(n);
    uv_timer_start(&n->timer, b_tick, 5, 5);
    uv_run(&n->loop, UV_RUN_DEFAULT);
    uv_loop_close(&n->loop);
    return NULL;
}

/* ---- node A: publishes and times the acknowledgements ------------------ */

static void a_send(node *n)
{
    if (m.sent == m.cap) {
        m.cap = m.cap ? m.cap * 2 : 65536;
        m.sent_ns = realloc(m.sent_ns, m.cap * sizeof *m.sent_ns);
        m.acked = realloc(m.acked, m.cap);
        m.lat = realloc(m.lat, m.cap * sizeof *m.lat);
        if (!m.sent_ns || !m.acked || !m.lat)
            die("out of memory", NULL);
    }
    static char buf[1 << 16];
    size_t len = make_event(buf, sizeof buf, m.sent, cfg.size);
    m.acked[m.sent] = 0;
    m.sent_ns[m.sent] = m.last_send = now_ns();
    m.sent++;
    node_publish(n, buf, len, (long)(m.sent - 1));
}

static void a_fill_window(node *n)
{
    while (!m.sending_done && m.sent - m.nacked < cfg.window)
        a_send(n);
}

static void a_on_message(node *n, const char *payload, size_t len)
{
    uint64_t t = now_ns();
    long seq = seq_of(payload);
    if (seq < 0 || (size_t)seq >= m.sent)
        die("node A", "an acknowledgement for an event never sent");
    if (m.acked[seq]) {
        m.dup++;
        return;
    }
    m.acked[seq] = 1;
    if (seq < m.max_seq)
        m.reordered++;
    else
        m.max_seq = seq;
    m.nacked++;
    m.last_ack = t;
    m.lat[m.nlat++] = t - m.sent_ns[seq];
    if (!cfg.latency)
        a_fill_window(n);
}

static void a_tick(uv_timer_t *t)
{
    node *n = t->data;
    uint64_t now = now_ns();
    if (!m.started) {
        if (n->ready < n->need || !atomic_load(&b_ready)) {
            if (now - n->start_ns > CONNECT_NS)
                die("node A", "the nodes are not connected to the broker after 15 s");
            return;
        }
        m.started = true;
        m.t0 = now;
        m.total = cfg.latency ? (size_t)(cfg.rate * cfg.seconds) : 0;
    }
    double elapsed = (double)(now - m.t0) / 1e9;
    if (!m.sending_done) {
        if (cfg.latency) {
            size_t due = (size_t)(elapsed * cfg.rate);
            if (due > m.total)
                due = m.total;
            while (m.sent < due)
                a_send(n);
            m.sending_done = m.sent >= m.total;
        } else {
            a_fill_window(n);
            m.sending_done = elapsed >= cfg.seconds;
        }
        return;
    }
    if (m.nacked == m.sent || now - m.last_send > GRACE_NS) {
        node_close(n);
        atomic_store(&stop_b, true);
    }
}

static void a_on_ready(node *n)
{
    (void)n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct_ms(double p)
{
    if (m.nlat == 0)
        return 0;
    size_t i = (size_t)(p * (double)(m.nlat - 1) + 0.5);
    return (double)m.lat[i] / 1e6;
}

static void usage(void)
{
    fprintf(stderr, "usage: relay_bench redis HOST PORT MODE ... | pg CONNINFO MODE ...\n"
                    "  MODE: latency RATE SECONDS | throughput WINDOW SECONDS\n"
                    "  then optionally --size BYTES (event size, default 300)\n"
                    "  and --store (pg) or --store CONNINFO (redis): write each event first\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int i = 1;
    if (argc < 2)
        usage();
    if (strcmp(argv[1], "redis") == 0 && argc >= 7) {
        cfg.broker = REDIS;
        cfg.host = argv[2];
        cfg.port = atoi(argv[3]);
        i = 4;
    } else if (strcmp(argv[1], "pg") == 0 && argc >= 6) {
        cfg.broker = PG;
        cfg.conninfo = argv[2];
        i = 3;
    } else {
        usage();
    }
    if (strcmp(argv[i], "latency") == 0)
        cfg.latency = true;
    else if (strcmp(argv[i], "throughput") != 0)
        usage();
    double x = atof(argv[i + 1]);
    cfg.seconds = atof(argv[i + 2]);
    cfg.size = 300;
    for (int j = i + 3; j < argc; j++) {
        if (strcmp(argv[j], "--size") == 0 && j + 1 < argc) {
            cfg.size = (size_t)atol(argv[++j]);
            if (cfg.size < 300 || cfg.size > 60000) {
                fprintf(stderr, "relay_bench: --size is 300 to 60000 bytes\n");
                return 2;
            }
        } else if (strcmp(argv[j], "--store") == 0) {
            cfg.store = true;
            if (cfg.broker == REDIS) {
                if (j + 1 >= argc)
                    usage();
                cfg.store_conninfo = argv[++j];
            }
        } else {
            usage();
        }
    }
    if (x <= 0 || cfg.seconds <= 0)
        usage();
    if (cfg.latency)
        cfg.rate = x;
    else
        cfg.window = (unsigned)x;

    node a, b;
    node_init(&a, 'a', ACKS_CHAN, EVENTS_CHAN);
    node_init(&b, 'b', EVENTS_CHAN, ACKS_CHAN);
    pthread_t tb;
    if (pthread_create(&tb, NULL, b_main, &b) != 0)
        die("pthread_create", NULL);

    a.store = cfg.store;
    m.max_seq = -1;
    a.on_message = a_on_message;
    a.on_ready = a_on_ready;
    node_open(&a);
    uv_timer_start(&a.timer, a_tick, 1, 1);
    uv_run(&a.loop, UV_RUN_DEFAULT);
    pthread_join(tb, NULL);
    uv_loop_close(&a.loop);

    qsort(m.lat, m.nlat, sizeof *m.lat, cmp_u64);
    double span = (double)((m.last_ack > m.t0 ? m.last_ack : m.last_send) - m.t0) / 1e9;
    static char ev[1 << 16];
    size_t evlen = make_event(ev, sizeof ev, 0, cfg.size);
    printf("%s %s %s %g seconds %g sent %zu acked %zu lost %zu dup %zu reordered %zu "
           "b_reordered %lu msgs/s %.1f p50_ms %.3f p99_ms %.3f max_ms %.3f size %zu store %d\n",
           cfg.broker == REDIS ? "redis" : "pg", cfg.latency ? "latency" : "throughput",
           cfg.latency ? "rate" : "window", x, cfg.seconds, m.sent, m.nacked, m.sent - m.nacked,
           m.dup, m.reordered, atomic_load(&b_reordered), span > 0 ? (double)m.nacked / span : 0,
           pct_ms(0.5), pct_ms(0.99), m.nlat ? (double)m.lat[m.nlat - 1] / 1e6 : 0, evlen,
           cfg.store);
    return 0;
}
