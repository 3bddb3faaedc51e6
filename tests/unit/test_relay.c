/*
 * test_relay.c - server/cluster/relay.c on a real PostgreSQL (CHAMELEON_TEST_PG,
 * set by tests/pg/run.sh; every case is skipped without it, as in the
 * unit suite on SQLite). Two relays on one loop stand for two nodes:
 *   - messages go both ways, 1,000 each way, none lost, none twice, in
 *     order; identical messages in a row all arrive (PostgreSQL folds them
 *     within one transaction: a batch never holds two);
 *   - a node's own messages come back to it and are told apart by
 *     relay_own_pid;
 *   - bad input is refused at once and queues nothing: a payload of 8000
 *     bytes (7999 goes through whole), channel names with quotes or too
 *     long, NUL and bad UTF-8 in a payload, a bad node name or URL;
 *   - the queue is bounded: the 10,001st publish while PostgreSQL cannot
 *     be reached is refused (RELAY_EFULL) and counted;
 *   - after pg_terminate_backend of the listener's backend it connects
 *     again, LISTENs again and later messages arrive (those sent during
 *     the outage may be lost: at most once);
 *   - after pg_terminate_backend of the publisher's backend, what it
 *     publishes while down is kept and sent, in order, once it is back;
 *   - a host name is looked up (off the loop) and the relay connects by
 *     it; one that does not resolve leaves the relay trying, and closing
 *     it then is clean;
 *   - /metrics shows chameleon_relay_* only while a relay is set.
 * No timing is asserted: the loop runs until a condition holds, failing
 * only after a generous limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "metrics.h"
#include "pg_fixture.h"
#include "relay.h"

enum { INBOX_MAX = 4096, WAIT_MS = 60000 };

typedef struct inbox {
    int n;
    char *payload[INBOX_MAX];
    size_t len[INBOX_MAX];
    char chan[INBOX_MAX][RELAY_NAME_MAX + 1];
    int pid[INBOX_MAX];
} inbox;

static uv_loop_t loop;
static uv_timer_t tick;
static char url[600];
static inbox in_a, in_b;
/* The relays a case opened: closed by teardown if a failed assertion left
 * them open (the loop would run for ever). */
static relay *opened[4];

static relay *track(relay *r)
{
    for (int i = 0; i < 4; i++)
        if (opened[i] == NULL) {
            opened[i] = r;
            break;
        }
    return r;
}

static void close_relay(relay *r)
{
    for (int i = 0; i < 4; i++)
        if (opened[i] == r)
            opened[i] = NULL;
    relay_close(r);
}

static void on_tick(uv_timer_t *t)
{
    (void)t; /* only wakes the loop: uv_run(UV_RUN_ONCE) returns */
}

static void record(void *arg, const char *channel, const char *payload, size_t len, int pid)
{
    inbox *in = arg;
    assert_true(in->n < INBOX_MAX);
    assert_int_equal(strlen(payload), len);
    in->payload[in->n] = strndup(payload, len);
    in->len[in->n] = len;
    snprintf(in->chan[in->n], sizeof in->chan[0], "%s", channel);
    in->pid[in->n] = pid;
    in->n++;
}

static void inbox_clear(inbox *in)
{
    for (int i = 0; i < in->n; i++)
        free(in->payload[i]);
    memset(in, 0, sizeof *in);
}

static int setup(void **state)
{
    (void)state;
    if (!pg_fixture_wanted())
        return 0;
    static int count;
    char name[64];
    snprintf(name, sizeof name, "chameleon_relay_%d", ++count);
    if (!pg_fixture_db(url, sizeof url, name))
        return -1;
    if (uv_loop_init(&loop) != 0)
        return -1;
    uv_timer_init(&loop, &tick);
    uv_timer_start(&tick, on_tick, 5, 5);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    inbox_clear(&in_a);
    inbox_clear(&in_b);
    if (!pg_fixture_wanted())
        return 0;
    for (int i = 0; i < 4; i++)
        if (opened[i] != NULL) {
            relay_close(opened[i]);
            opened[i] = NULL;
        }
    metrics_set_relay(NULL);
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(&loop, UV_RUN_DEFAULT); /* every relay closed frees itself */
    return uv_loop_close(&loop) == 0 ? 0 : -1;
}

#define NEED_PG()                                                                                  \
    do {                                                                                           \
        if (!pg_fixture_wanted())                                                                  \
            skip();                                                                                \
    } while (0)

/* Run the loop until cond(arg) holds; fail after WAIT_MS. */
#define WAIT_FOR(cond)                                                                             \
    do {                                                                                           \
        uint64_t end_ = uv_hrtime() + (uint64_t)WAIT_MS * 1000000u;                                \
        while (!(cond)) {                                                                          \
            if (uv_hrtime() > end_)                                                                \
                fail_msg("waited %d ms for %s", WAIT_MS, #cond);                                   \
            uv_run(&loop, UV_RUN_ONCE);                                                            \
        }                                                                                          \
    } while (0)

static relay *open_node(const char *node, inbox *in)
{
    char why[300];
    relay *r = relay_open(&loop, url, node, record, in, why, sizeof why);
    if (r == NULL)
        fail_msg("relay_open: %s", why);
    return track(r);
}

static relay_stats stats(relay *r)
{
    relay_stats s;
    relay_get_stats(r, &s);
    return s;
}

/* The backend pid terminated from a separate connection (as an operator,
 * or a restart of PostgreSQL, would end it). */
static void terminate(int pid)
{
    assert_true(pid > 0);
    PGconn *c = PQconnectdb(url);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%d)", pid);
    PGresult *res = PQexec(c, sql);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    PQfinish(c);
}

static void publish(relay *r, const char *channel, const char *fmt, int i)
{
    char p[64];
    int n = snprintf(p, sizeof p, fmt, i);
    assert_int_equal(relay_publish(r, channel, p, (size_t)n), 0);
}

static void test_both_ways_in_order(void **state)
{
    (void)state;
    NEED_PG();
    relay *a = open_node("node_a", &in_a), *b = open_node("node_b", &in_b);
    assert_int_equal(relay_listen(a, "to_a"), 0);
    assert_int_equal(relay_listen(b, "to_b"), 0);
    WAIT_FOR(relay_ready(a) && relay_ready(b));
    assert_int_not_equal(relay_own_pid(a), relay_own_pid(b));
    for (int i = 0; i < 1000; i++) {
        publish(a, "to_b", "a%d", i);
        publish(b, "to_a", "b%d", i);
    }
    /* The same message five times: PostgreSQL would fold them in one
     * transaction. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(relay_publish(a, "to_b", "same", 4), 0);
    WAIT_FOR(in_b.n >= 1005 && in_a.n >= 1000);
    /* Nothing more comes: a last message is the next one. */
    assert_int_equal(relay_publish(a, "to_b", "end", 3), 0);
    WAIT_FOR(in_b.n >= 1006);
    assert_int_equal(in_b.n, 1006);
    assert_int_equal(in_a.n, 1000);
    char want[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(want, sizeof want, "a%d", i);
        assert_string_equal(in_b.payload[i], want);
        assert_string_equal(in_b.chan[i], "to_b");
        assert_int_equal(in_b.pid[i], relay_own_pid(a));
        snprintf(want, sizeof want, "b%d", i);
        assert_string_equal(in_a.payload[i], want);
        assert_string_equal(in_a.chan[i], "to_a");
        assert_int_equal(in_a.pid[i], relay_own_pid(b));
    }
    for (int i = 1000; i < 1005; i++)
        assert_string_equal(in_b.payload[i], "same");
    assert_string_equal(in_b.payload[1005], "end");
    /* A publisher reads its commit's answer on its own socket: perhaps
     * after the listener has the messages. */
    WAIT_FOR(stats(a).published == 1006 && stats(b).published == 1000);
    relay_stats sa = stats(a), sb = stats(b);
    assert_int_equal(sa.published, 1006);
    assert_int_equal(sb.published, 1000);
    assert_int_equal(sa.received, 1000);
    assert_int_equal(sb.received, 1006);
    assert_int_equal(sa.queued, 0);
    assert_true(sa.connected);
    assert_int_equal(sa.reconnects + sa.dropped_full + sa.dropped_in_flight + sa.dropped_refused,
                     0);
    close_relay(a);
    close_relay(b);
}

static void test_own_messages_recognised(void **state)
{
    (void)state;
    NEED_PG();
    relay *a = open_node("node_a", &in_a), *b = open_node("node_b", &in_b);
    assert_int_equal(relay_listen(a, "shared"), 0);
    assert_int_equal(relay_listen(b, "shared"), 0);
    WAIT_FOR(relay_ready(a) && relay_ready(b));
    assert_int_equal(relay_publish(a, "shared", "from a", 6), 0);
    WAIT_FOR(in_a.n == 1 && in_b.n == 1);
    assert_int_equal(relay_publish(b, "shared", "from b", 6), 0);
    WAIT_FOR(in_a.n == 2 && in_b.n == 2);
    /* At a: its own first, then b's; at b the other way round. */
    assert_string_equal(in_a.payload[0], "from a");
    assert_int_equal(in_a.pid[0], relay_own_pid(a));
    assert_string_equal(in_a.payload[1], "from b");
    assert_int_not_equal(in_a.pid[1], relay_own_pid(a));
    assert_string_equal(in_b.payload[0], "from a");
    assert_int_not_equal(in_b.pid[0], relay_own_pid(b));
    assert_string_equal(in_b.payload[1], "from b");
    assert_int_equal(in_b.pid[1], relay_own_pid(b));
    /* Unlistened: b's next message reaches a only (a's own marker after
     * it proves the order). */
    assert_int_equal(relay_unlisten(b, "shared"), 0);
    WAIT_FOR(relay_ready(b));
    assert_int_equal(relay_publish(b, "shared", "late", 4), 0);
    /* Two publishers' messages come in the order of their commits, and
     * b's own notification would have come with its commit's answer. */
    WAIT_FOR(stats(b).published == 2);
    assert_int_equal(relay_publish(a, "shared", "mark", 4), 0);
    WAIT_FOR(in_a.n == 4);
    assert_string_equal(in_a.payload[2], "late");
    assert_string_equal(in_a.payload[3], "mark");
    assert_int_equal(in_b.n, 2);
    close_relay(a);
    close_relay(b);
}

static void test_bad_input_refused(void **state)
{
    (void)state;
    NEED_PG();
    char why[300];
    assert_null(relay_open(&loop, url, "no\"de", record, &in_a, why, sizeof why));
    assert_non_null(strstr(why, "node name"));
    assert_null(
        relay_open(&loop, "host=127.0.0.1 no_such_option=1", "n", record, &in_a, why, sizeof why));
    assert_non_null(strstr(why, "no_such_option"));

    relay *a = open_node("node_a", &in_a);
    assert_int_equal(relay_listen(a, "big"), 0);
    WAIT_FOR(relay_ready(a));
    static char big[8001];
    memset(big, 'x', sizeof big);
    assert_int_equal(relay_publish(a, "big", big, 8000), RELAY_ETOO_LARGE);
    assert_int_equal(relay_publish(a, "big", big, 8001), RELAY_ETOO_LARGE);
    const char *bad[] = {
        "a\"b", "a'b",        "",
        "a b",  "x;LISTEN y", "c123456789012345678901234567890123456789012345678901234567890123"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(relay_listen(a, bad[i]), RELAY_EINVAL);
        assert_int_equal(relay_unlisten(a, bad[i]), RELAY_EINVAL);
        assert_int_equal(relay_publish(a, bad[i], "p", 1), RELAY_EINVAL);
    }
    assert_int_equal(relay_publish(a, "big", "a\0b", 3), RELAY_EINVAL);
    assert_int_equal(relay_publish(a, "big", "\xff", 1), RELAY_EINVAL);
    assert_int_equal(relay_publish(a, "big", "\xc3", 1), RELAY_EINVAL);         /* cut short */
    assert_int_equal(relay_publish(a, "big", "\xed\xa0\x80", 3), RELAY_EINVAL); /* surrogate */
    assert_int_equal(stats(a).queued, 0);
    assert_string_equal(relay_err_text(RELAY_ETOO_LARGE),
                        "payload of 8000 bytes or more (PostgreSQL's NOTIFY limit)");
    /* The largest payload PostgreSQL takes, quotes and backslashes and
     * UTF-8 in it, goes through whole. */
    big[0] = '\'';
    big[1] = '\\';
    memcpy(big + 2, "\xc3\xa9", 2);
    assert_int_equal(relay_publish(a, "big", big, RELAY_PAYLOAD_MAX), 0);
    WAIT_FOR(in_a.n == 1);
    assert_int_equal(in_a.len[0], RELAY_PAYLOAD_MAX);
    assert_memory_equal(in_a.payload[0], big, RELAY_PAYLOAD_MAX);
    relay_stats s = stats(a);
    assert_int_equal(s.published, 1);
    assert_int_equal(s.dropped_refused, 0);
    close_relay(a);
}

static void test_queue_bounded(void **state)
{
    (void)state;
    NEED_PG();
    /* Port 1: nothing listens; the relay keeps trying and queues. */
    char why[300];
    relay *r = relay_open(&loop, "postgresql://nobody@127.0.0.1:1/none", "lonely", record, &in_a,
                          why, sizeof why);
    assert_non_null(track(r));
    assert_int_equal(relay_listen(r, "c"), 0);
    for (int i = 0; i < RELAY_QUEUE_MAX; i++)
        publish(r, "c", "m%d", i);
    assert_int_equal(relay_publish(r, "c", "one more", 8), RELAY_EFULL);
    uv_run(&loop, UV_RUN_ONCE);
    relay_stats s = stats(r);
    assert_int_equal(s.queued, RELAY_QUEUE_MAX);
    assert_int_equal(s.dropped_full, 1);
    assert_false(s.connected);
    assert_false(relay_ready(r));
    assert_int_equal(relay_own_pid(r), 0);
    close_relay(r); /* the queue is freed (ASan would say otherwise) */
}

static void test_listener_reconnects(void **state)
{
    (void)state;
    NEED_PG();
    relay *a = open_node("node_a", &in_a), *b = open_node("node_b", &in_b);
    assert_int_equal(relay_listen(b, "events"), 0);
    WAIT_FOR(relay_ready(a) && relay_ready(b));
    for (int i = 0; i < 10; i++)
        publish(a, "events", "before%d", i);
    WAIT_FOR(in_b.n == 10);
    int old_pid = relay_own_pid(b);
    terminate(old_pid);
    WAIT_FOR(stats(b).reconnects == 1 && relay_ready(b));
    assert_int_not_equal(relay_own_pid(b), old_pid);
    /* LISTENing again: later messages arrive, in order. */
    for (int i = 0; i < 100; i++)
        publish(a, "events", "after%d", i);
    WAIT_FOR(in_b.n == 110);
    char want[64];
    for (int i = 0; i < 100; i++) {
        snprintf(want, sizeof want, "after%d", i);
        assert_string_equal(in_b.payload[10 + i], want);
    }
    assert_true(stats(b).connected);
    assert_int_equal(stats(a).reconnects, 0);
    close_relay(a);
    close_relay(b);
}

static void test_publisher_queue_kept(void **state)
{
    (void)state;
    NEED_PG();
    relay *a = open_node("node_a", &in_a), *b = open_node("node_b", &in_b);
    assert_int_equal(relay_listen(b, "events"), 0);
    WAIT_FOR(relay_ready(a) && relay_ready(b));
    publish(a, "events", "first%d", 0);
    WAIT_FOR(in_b.n == 1);
    terminate(relay_own_pid(a));
    /* Down for at least the back-off (100 ms); the loop is checked every
     * few ms, and nothing runs between this check and the publishes. */
    WAIT_FOR(!relay_ready(a));
    for (int i = 0; i < 50; i++)
        publish(a, "events", "queued%d", i);
    relay_stats s = stats(a);
    assert_int_equal(s.queued, 50);
    assert_false(s.connected);
    WAIT_FOR(in_b.n == 51 && stats(a).published == 51);
    char want[64];
    for (int i = 0; i < 50; i++) {
        snprintf(want, sizeof want, "queued%d", i);
        assert_string_equal(in_b.payload[1 + i], want);
        assert_int_equal(in_b.pid[1 + i], relay_own_pid(a));
    }
    s = stats(a);
    assert_int_equal(s.reconnects, 1);
    assert_int_equal(s.published, 51);
    assert_int_equal(s.queued, 0);
    assert_int_equal(s.dropped_in_flight, 0);
    close_relay(a);
    close_relay(b);
}

static void test_host_name_looked_up(void **state)
{
    (void)state;
    NEED_PG();
    /* The fixture's URL names 127.0.0.1; the same server by name. */
    char byname[700], why[300];
    char *at = strstr(url, "@127.0.0.1:");
    assert_non_null(at);
    snprintf(byname, sizeof byname, "%.*s@localhost:%s", (int)(at - url), url, at + 11);
    relay *a = relay_open(&loop, byname, "by_name", record, &in_a, why, sizeof why);
    assert_non_null(track(a));
    assert_int_equal(relay_listen(a, "named"), 0);
    WAIT_FOR(relay_ready(a));
    assert_int_equal(relay_publish(a, "named", "hi", 2), 0);
    WAIT_FOR(in_a.n == 1);
    assert_string_equal(in_a.payload[0], "hi");
    assert_int_equal(in_a.pid[0], relay_own_pid(a));
    close_relay(a);

    relay *b = relay_open(&loop, "postgresql://nobody@no-such-host.invalid/none", "nowhere", record,
                          &in_b, why, sizeof why);
    assert_non_null(track(b));
    assert_int_equal(relay_publish(b, "c", "kept", 4), 0);
    for (int i = 0; i < 20; i++)
        uv_run(&loop, UV_RUN_ONCE);
    assert_false(relay_ready(b));
    assert_int_equal(stats(b).queued, 1);
    close_relay(b); /* perhaps while its look-up runs: freed after it */
}

static void test_metrics_only_with_a_relay(void **state)
{
    (void)state;
    NEED_PG();
    net_stats ns = {0};
    store_stats ss = {0};
    proto_out o;
    proto_out_init(&o, 0);
    metrics_write(&o, &ns, &ss);
    assert_false(o.oom);
    assert_null(strstr(proto_out_data(&o), "chameleon_relay_"));
    proto_out_free(&o);

    relay *a = open_node("node_a", &in_a);
    assert_int_equal(relay_listen(a, "m"), 0);
    WAIT_FOR(relay_ready(a));
    assert_int_equal(relay_publish(a, "m", "x", 1), 0);
    WAIT_FOR(in_a.n == 1);
    metrics_set_relay(a);
    proto_out_init(&o, 0);
    metrics_write(&o, &ns, &ss);
    const char *text = proto_out_data(&o);
    assert_non_null(strstr(text, "\nchameleon_relay_connected 1\n"));
    assert_non_null(strstr(text, "\nchameleon_relay_published_total 1\n"));
    assert_non_null(strstr(text, "\nchameleon_relay_received_total 1\n"));
    assert_non_null(strstr(text, "\nchameleon_relay_reconnects_total 0\n"));
    assert_non_null(strstr(text, "\nchameleon_relay_dropped_total{reason=\"queue_full\"} 0\n"));
    proto_out_free(&o);
    metrics_set_relay(NULL);
    close_relay(a);
}

int main(void)
{
    if (!pg_fixture_wanted())
        fprintf(stderr, "test_relay: CHAMELEON_TEST_PG is not set: skipped (tests/pg/run.sh runs "
                        "it)\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_both_ways_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_messages_recognised, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listener_reconnects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_publisher_queue_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_name_looked_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics_only_with_a_relay, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
