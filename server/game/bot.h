/*
 * bot.h - the bots' thinking: searches off the loop, a bounded number at
 * once, answers back on the loop.
 *
 * bot_init starts `threads` worker threads, each with its own search
 * context (search.h) allocated once; no search allocates. bot_think copies
 * what the search needs (the position, the hashes of the game's earlier
 * positions) into a job, so the job never points into a room: a room may
 * change or go away while its bot thinks. A job waits in a queue (first
 * come, first served between owners with as many searches running:
 * bot_think) while every thread is busy; the loop never waits for
 * a search. A finished search is handed back to the loop through a
 * uv_async_t and its callback runs there.
 *
 * Cancelling (bot_cancel, on the loop): a queued job is dropped; a running
 * one is stopped (search_stop) and its answer thrown away when it comes
 * back. Either way the callback is never called after bot_cancel returns,
 * so its argument may be freed at once.
 *
 * Owns: the worker threads, their search contexts, the queue of jobs, the
 * answers on their way back, and the bots' counters (bot_stats).
 * May call: search.h and rules.h (common/), libuv (threads, mutex, async).
 * Everything but the workers runs on the loop thread.
 */
#ifndef BOT_H
#define BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "rules.h"

enum {
    BOT_THREADS_MAX = 64,
    BOT_TABLE_MB_DEFAULT = 16,
    BOT_HISTORY_KEEP = 256, /* earlier positions given to the search */
    BOT_NICE = 10,          /* the workers' nice value: below the loop's */
    BOT_OVERDUE_TICK_MS = 50,
    BOT_OVERDUE_GRACE_MS = 150,
};

typedef struct bot_job bot_job;

/* What a search found: the move (0 if none) and its score, centipawns for
 * the side to move (search.h: SEARCH_WIN_BOUND and beyond is forced). */
typedef struct bot_answer {
    rules_move best;
    int score;
    int depth;
    uint64_t nodes;
    int64_t ms;
    bool overdue; /* the search was starved: a quick answer from the loop */
    bool failed;  /* the search refused the position or found no move in a
                     game still going: the caller plays a legal move itself */
} bot_answer;

typedef void (*bot_cb)(void *arg, const bot_answer *a);

typedef struct bot_stats {
    int threads;
    int running;       /* searches running now */
    int queued;        /* jobs waiting for a thread */
    uint64_t searches; /* answers delivered since start */
    uint64_t cancelled;
    uint64_t overdue; /* answered on the loop (see bot_think) */
    uint64_t failed;  /* answers whose search failed (bot_answer.failed) or
                         whose move was refused (bot_note_refused) */
} bot_stats;

/* Start `threads` workers (1..BOT_THREADS_MAX), each with a search table of
 * about table_bytes. 0, or -1 if a context or a thread cannot be made
 * (nothing is left running then). */
int bot_init(uv_loop_t *loop, int threads, size_t table_bytes);

/*
 * Ask for a move of the player to move in g at `level` (1..8) within `ms`
 * milliseconds of wall time from now (time spent in the queue counts), the
 * answer given to cb(arg, answer) on the loop. The game is copied; g may
 * change at once. NULL if out of memory, if the game is over or if the
 * module is stopping (cb is then never called). `owner` names whose game
 * it is (the room's person): a free thread takes the oldest job of the
 * owners with the fewest searches running, so one owner's many games
 * delay another's bot by one search at most.
 *
 * The workers run at the lowest priority (SCHED_IDLE on Linux): they never
 * take a core from the loop. So that a starved search cannot make a bot
 * lose on time, a job still unanswered at 1.5 times its budget plus
 * BOT_OVERDUE_GRACE_MS is answered on the loop by a level-1 search (a few
 * hundred nodes) with answer.overdue set, and its worker's result dropped.
 */
bot_job *bot_think(const rules_game *g, int level, int64_t ms, const void *owner, bot_cb cb,
                   void *arg);

/* Forget j (from bot_think, its callback not yet called): cb will not be
 * called. Loop thread only. */
void bot_cancel(bot_job *j);

bot_stats bot_get_stats(void);

/* On the loop: the move of an answer was refused by the rules (counted
 * with the failed searches). */
void bot_note_refused(void);

/* Cancel everything, stop and join the workers, free the contexts; the
 * async handle is closed (run the loop once more to finish). Every job
 * must have been cancelled or answered by then: jobs still queued are
 * dropped without their callback. */
void bot_shutdown(void);

#endif
