/*
 * test_bot.c - the bots' thinking pool (bot.h) on a real libuv loop: never
 * more searches at once than threads (the rest wait in a queue, first come
 * first served), answers come back on the loop with a legal move, a
 * cancelled job (queued or running) never calls back, a job waiting past
 * its time is answered by the loop (overdue), shutdown with work under way
 * stops cleanly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "bot.h"

enum { JOBS = 6 };

typedef struct probe {
    int answered[JOBS];
    rules_move best[JOBS];
    int order[JOBS], norder;
    int max_running;
    int want; /* stop the loop after this many answers */
    int got;
    bool overdue[JOBS];
    bool failed[JOBS];
    uint64_t at_ms[JOBS];
    uv_loop_t *loop;
} probe;

static probe P;
/* The loop and the game of the test running: the teardown's to close, so
 * that a failed assertion (which leaves its test at once) never leaves
 * worker threads running into the next test. */
static uv_loop_t loop;
static rules_game *game;

static void on_answer(void *arg, const bot_answer *a)
{
    int i = (int)(intptr_t)arg;
    P.answered[i]++;
    P.best[i] = a->best;
    P.overdue[i] = a->overdue;
    P.failed[i] = a->failed;
    P.at_ms[i] = uv_now(P.loop);
    P.order[P.norder++] = i;
    if (++P.got >= P.want)
        uv_stop(P.loop);
}

/* Sample the counters while waiting: the bound must hold at every look. */
static void on_tick(uv_timer_t *t)
{
    bot_stats s = bot_get_stats();
    if (s.running > P.max_running)
        P.max_running = s.running;
    assert_true(s.running <= s.threads);
}

static uv_timer_t tick; /* open between run_until and its end, or finish */

static void run_until(int answers)
{
    uv_timer_init(&loop, &tick);
    uv_timer_start(&tick, on_tick, 1, 1);
    P.want = answers;
    if (P.got < answers)
        uv_run(&loop, UV_RUN_DEFAULT);
    uv_timer_stop(&tick);
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(&loop, UV_RUN_NOWAIT);
}

/* Run the loop for `ms` (the bot module's own handles do not keep it
 * running: they are unreferenced, as a server's would be). */
static void on_pause(uv_timer_t *t)
{
    (void)t;
}

static void run_for(int ms)
{
    uv_timer_t pause;
    uv_timer_init(&loop, &pause);
    uv_timer_start(&pause, on_pause, (uint64_t)ms, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&pause, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
}

/* Run the loop until `cond` holds, for at most `ms`: the workers run at
 * idle priority (bot.c), so on a busy machine they start, stop and answer
 * late; a test waits for what it checks instead of sleeping a fixed time. */
#define RUN_UNTIL(cond, ms)                                                                        \
    for (int waited_ = 0; waited_ < (ms) && !(cond); waited_ += 10)                                \
    run_for(10)

static bool legal_in(const rules_game *g, rules_move m)
{
    for (int i = 0; i < g->nlegal; i++)
        if (g->legal[i] == m)
            return true;
    return false;
}

/* Each test: the recorder cleared, a loop, the bot module on `threads`
 * threads with 1 MB tables, and a new game of `id` to think about. */
static rules_game *start(int threads, const char *id)
{
    memset(&P, 0, sizeof P);
    assert_int_equal(uv_loop_init(&loop), 0);
    P.loop = &loop;
    assert_int_equal(bot_init(&loop, threads, 1 << 20), 0);
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&game, id, NULL, why, sizeof why), 0);
    return game;
}

/* After each test, passed or failed: the workers stopped, the loop closed
 * (every handle of the test's closed too), the game freed. */
static int finish(void **state)
{
    (void)state;
    bot_shutdown();
    if (uv_is_active((uv_handle_t *)&tick) && !uv_is_closing((uv_handle_t *)&tick))
        uv_close((uv_handle_t *)&tick, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    int closed = uv_loop_close(&loop);
    rules_game_free(game);
    game = NULL;
    return closed == 0 ? 0 : -1;
}

static void test_queue_bound(void **state)
{
    (void)state;
    rules_game *g = start(2, "ultima");

    /* Six full-strength searches of 300 ms on two threads. */
    bot_job *jobs[JOBS];
    for (int i = 0; i < JOBS; i++) {
        jobs[i] = bot_think(g, 8, 300, NULL, on_answer, (void *)(intptr_t)i);
        assert_non_null(jobs[i]);
    }
    bot_stats s = bot_get_stats();
    assert_int_equal(s.threads, 2);
    assert_int_equal(s.running + s.queued, JOBS);
    assert_true(s.running <= 2);
    RUN_UNTIL(bot_get_stats().running == 2, 5000);
    s = bot_get_stats();
    assert_int_equal(s.running, 2);
    assert_int_equal(s.queued, JOBS - 2);

    /* Cancel one that is queued (the last) and one that runs (the first:
     * first come, first served). Neither calls back. */
    bot_cancel(jobs[JOBS - 1]);
    bot_cancel(jobs[0]);
    s = bot_get_stats();
    assert_int_equal(s.queued, JOBS - 3);

    run_until(JOBS - 2);
    assert_int_equal(P.got, JOBS - 2);
    assert_int_equal(P.answered[0], 0);
    assert_int_equal(P.answered[JOBS - 1], 0);
    for (int i = 1; i < JOBS - 1; i++) {
        assert_int_equal(P.answered[i], 1);
        assert_true(legal_in(g, P.best[i]));
    }
    assert_true(P.max_running <= 2);
    /* The cancelled running job comes back (stopped) and is thrown away:
     * it must still not call back. (A search answered by the loop when
     * overdue, on a busy machine, also holds its thread until it stops.) */
    RUN_UNTIL(bot_get_stats().cancelled == 2 && bot_get_stats().running == 0, 10000);
    assert_int_equal(P.answered[0], 0);
    s = bot_get_stats();
    assert_int_equal(s.running, 0);
    assert_int_equal(s.queued, 0);
    assert_int_equal((int)s.searches, JOBS - 2);
    assert_int_equal((int)s.cancelled, 2);

    /* A game that is over gets no job. */
    rules_game_end_draw(g, RULES_REASON_AGREEMENT);
    assert_null(bot_think(g, 1, 100, NULL, on_answer, NULL));
}

/* A search that refuses its position (here: the mover has left, which no
 * game reaches) answers `failed` with no move, counted, and never aborts;
 * the room then plays a legal move itself (room_bot.c). */
static void test_failed_search(void **state)
{
    (void)state;
    rules_game *g = start(1, "yalta");
    assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
    int mover = g->pos.to_move;
    g->pos.to_move = 1;
    assert_non_null(bot_think(g, 8, 200, NULL, on_answer, (void *)(intptr_t)0));
    g->pos.to_move = (uint8_t)mover;
    assert_non_null(bot_think(g, 8, 200, NULL, on_answer, (void *)(intptr_t)1));
    run_until(2);
    assert_true(P.failed[0]);
    assert_int_equal(P.best[0], 0);
    assert_false(P.failed[1]);
    assert_true(legal_in(g, P.best[1]));
    assert_int_equal((int)bot_get_stats().failed, 1);
}

/* One owner's flood of full-strength searches on one thread: another
 * owner's search, queued last, runs second (after the one running), not
 * seventh; the flood's own jobs keep their order. */
static void test_fair_between_owners(void **state)
{
    (void)state;
    rules_game *g = start(1, "ultima");
    static const char flood = 'A', other = 'B';
    /* The first search holds the thread 300 ms while the rest queue; the
     * rest are level 1 (milliseconds each) with budgets far from overdue,
     * so the order is the queue's alone. */
    assert_non_null(bot_think(g, 8, 300, &flood, on_answer, (void *)(intptr_t)0));
    for (int i = 1; i < JOBS - 1; i++)
        assert_non_null(bot_think(g, 1, 20000, &flood, on_answer, (void *)(intptr_t)i));
    assert_non_null(bot_think(g, 1, 20000, &other, on_answer, (void *)(intptr_t)(JOBS - 1)));
    run_until(JOBS);
    assert_int_equal(P.order[0], 0);
    assert_int_equal(P.order[1], JOBS - 1);
    for (int k = 2; k < JOBS; k++)
        assert_int_equal(P.order[k], k - 1);
}

static void test_shutdown_with_work(void **state)
{
    (void)state;
    rules_game *g = start(1, "yalta");
    for (int i = 0; i < 3; i++)
        assert_non_null(bot_think(g, 8, 60000, NULL, on_answer, (void *)(intptr_t)i));
    RUN_UNTIL(bot_get_stats().running == 1, 5000);
    /* A search of a minute runs, two wait: shutdown stops it (at once; on
     * a busy machine, as soon as its idle thread is given a core) and drops
     * the rest without calling back. */
    uint64_t t0 = uv_hrtime();
    bot_shutdown();
    assert_true(uv_hrtime() - t0 < 10000000000u);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(P.got, 0);
}

static void test_overdue(void **state)
{
    (void)state;
    rules_game *g = start(1, "rollerball");
    /* One thread, busy with a search of 30 s (which stops deepening past
     * half its budget: 15 s at the earliest); a job of 100 ms waits behind
     * it. */
    uint64_t t0 = uv_now(&loop);
    bot_job *busy = bot_think(g, 8, 30000, NULL, on_answer, (void *)(intptr_t)0);
    assert_non_null(busy);
    assert_non_null(bot_think(g, 8, 100, NULL, on_answer, (void *)(intptr_t)1));
    run_until(1);
    /* The waiting one is answered by the loop, due at 100 ms * 1.5 + the
     * grace (300 ms), plus a tick: long before the first is done, however
     * late a busy machine wakes the loop. */
    assert_int_equal(P.answered[1], 1);
    assert_int_equal(P.answered[0], 0);
    assert_true(P.overdue[1]);
    assert_true(legal_in(g, P.best[1]));
    assert_true(P.at_ms[1] - t0 < 2000);
    bot_stats s = bot_get_stats();
    assert_int_equal((int)s.overdue, 1);
    assert_int_equal((int)s.searches, 1);
    assert_int_equal(s.running + s.queued, 1);
    /* The first still thinks (or, on a busy machine, still waits for its
     * thread); cancelled, it stops and never calls back. */
    bot_cancel(busy);
    RUN_UNTIL(bot_get_stats().cancelled == 1 && bot_get_stats().running == 0, 10000);
    s = bot_get_stats();
    assert_int_equal(s.running, 0);
    assert_int_equal((int)s.cancelled, 1);
    assert_int_equal(P.answered[0], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_queue_bound, finish),
        cmocka_unit_test_teardown(test_overdue, finish),
        cmocka_unit_test_teardown(test_failed_search, finish),
        cmocka_unit_test_teardown(test_fair_between_owners, finish),
        cmocka_unit_test_teardown(test_shutdown_with_work, finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
