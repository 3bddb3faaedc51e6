/*
 * test_ident.c - identities alone: the guests' table is bounded (a new
 * guest takes the place of the oldest unused one, none is taken while in
 * use), unused identities are forgotten after the idle time, accounts and
 * bots are not guests, and making room never walks the table.
 *
 * Linked without libwebsockets; sessions are bare structs (ident.c only
 * links them in its lists).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ident.h"
#include "counters.h"

static uv_loop_t loop;

static int up(void **state)
{
    memset(&metrics_now, 0, sizeof metrics_now);
    assert_int_equal(uv_loop_init(&loop), 0);
    return 0;
}

static int down(void **state)
{
    ident_stop();
    uv_run(&loop, UV_RUN_DEFAULT);
    ident_shutdown();
    assert_int_equal(uv_loop_close(&loop), 0);
    return 0;
}

/* A guest with a session (s), as hello makes it. */
static ident *guest(session *s)
{
    ident *i = ident_new();
    assert_non_null(i);
    ident_attach(i, s);
    return i;
}

static bool known(const char *token)
{
    return ident_by_token(token) != NULL;
}

static void test_full_table_takes_the_oldest_unused(void **state)
{
    ident_init(&loop, 3, 0);
    session s[3];
    memset(s, 0, sizeof s);
    ident *g[3];
    char tok[3][PROTO_TOKEN_MAX + 1];
    for (int i = 0; i < 3; i++) {
        g[i] = guest(&s[i]);
        strcpy(tok[i], g[i]->token);
    }
    assert_int_equal(metrics_now.identities_guest, 3);
    /* Every one in use: a fourth is refused. */
    assert_true(ident_guests_full());
    assert_null(ident_new());
    /* g1 leaves, then g0: g1 is the oldest unused and goes first. */
    assert_true(ident_detach(&s[1]));
    assert_true(ident_detach(&s[0]));
    assert_false(ident_guests_full());
    ident *n = ident_new();
    assert_non_null(n);
    assert_false(known(tok[1]));
    assert_true(known(tok[0]));
    assert_int_equal(metrics_now.guests_evicted, 1);
    assert_int_equal(metrics_now.identities_guest, 3);
    /* g0 comes back (in use again): n, unused, is the one to go next. */
    session s0 = {0};
    ident_attach(ident_by_token(tok[0]), &s0);
    char ntok[PROTO_TOKEN_MAX + 1];
    strcpy(ntok, n->token);
    assert_non_null(ident_new());
    assert_false(known(ntok));
    assert_true(known(tok[0]));
    assert_true(known(tok[2]));
    assert_int_equal(metrics_now.guests_evicted, 2);
}

static void test_a_seat_keeps_a_guest(void **state)
{
    ident_init(&loop, 1, 0);
    session s = {0};
    ident *g = guest(&s);
    int room; /* ident.c keeps the pointer, never looks inside */
    assert_int_equal(ident_seat(g, (struct room *)&room), 0);
    ident_detach(&s);
    /* No session but a seat: in use, not taken. */
    assert_true(ident_guests_full());
    assert_null(ident_new());
    ident_unseat(g, (struct room *)&room);
    assert_non_null(ident_new());
    assert_int_equal(metrics_now.guests_evicted, 1);
}

static void test_accounts_and_bots_are_not_guests(void **state)
{
    ident_init(&loop, 1, 0);
    session s = {0}, t = {0};
    guest(&s);
    /* The guests' table is full, yet an account and a bot come in. */
    ident *acc = ident_account(42, "alice");
    assert_non_null(acc);
    ident_attach(acc, &t);
    assert_non_null(ident_bot(3));
    assert_int_equal(metrics_now.identities_guest, 1);
    assert_int_equal(metrics_now.identities_account, 1);
    assert_int_equal(metrics_now.identities_bot, 1);
    assert_null(ident_new());
    /* An unused account is never taken for a guest. */
    ident_detach(&t);
    assert_null(ident_new());
    assert_ptr_equal(ident_find_account(42), acc);
    /* A bot keeps no list of rooms (it sits in every bot game). */
    int room;
    assert_int_equal(ident_seat(ident_bot(3), (struct room *)&room), 0);
    assert_int_equal(ident_bot(3)->nrooms, 0);
}

static bool expired(int64_t want)
{
    return (int64_t)metrics_now.identities_expired >= want;
}

static void test_unused_identities_expire(void **state)
{
    ident_init(&loop, 0, 1000); /* idle 1 s: the timer looks every second */
    session s[3];
    memset(s, 0, sizeof s);
    ident *g = guest(&s[0]);
    char tok[PROTO_TOKEN_MAX + 1];
    strcpy(tok, g->token);
    ident *kept = guest(&s[1]);
    ident *acc = ident_account(7, "bob");
    ident_attach(acc, &s[2]);
    ident_detach(&s[0]);
    ident_detach(&s[2]);
    /* Run the loop until both unused identities are forgotten (~2 s). */
    for (int i = 0; i < 10000 && !expired(2); i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    assert_int_equal(metrics_now.identities_expired, 2);
    assert_false(known(tok));
    assert_null(ident_find_account(7));
    assert_ptr_equal(ident_by_token(kept->token), kept);
    assert_int_equal(metrics_now.identities_guest, 1);
    assert_int_equal(metrics_now.identities_account, 0);
}

/* Making room takes the head of a list: 100,000 new guests in a full table
 * of 100,000 unused ones cost about as much as the first 100,000. A walk of
 * the table per new guest would cost 10^10 steps (hours). */
static void test_making_room_walks_nothing(void **state)
{
    enum { N = 100000 };
    ident_init(&loop, N, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 2 * N; i++)
        assert_non_null(ident_new()); /* unused at once: no session */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(metrics_now.identities_guest, N);
    assert_int_equal(metrics_now.guests_evicted, N);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    /* Generous: well under a second here even with the sanitizers. */
    assert_true(s < 60.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_full_table_takes_the_oldest_unused, up, down),
        cmocka_unit_test_setup_teardown(test_a_seat_keeps_a_guest, up, down),
        cmocka_unit_test_setup_teardown(test_accounts_and_bots_are_not_guests, up, down),
        cmocka_unit_test_setup_teardown(test_unused_identities_expire, up, down),
        cmocka_unit_test_setup_teardown(test_making_room_walks_nothing, up, down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
