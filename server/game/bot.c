/*
 * bot.c - searches on worker threads, answers on the loop (see bot.h).
 *
 * One mutex guards the queue, the list of answers, each job's state and
 * the counters. A worker takes the oldest queued job, searches without the
 * lock, then puts the job on the answer list and wakes the loop
 * (uv_async_send). A job's `cancelled` flag is also read by its worker
 * after each finished depth (the search's report), so a cancel that comes
 * just before the search starts (search_run clears the stop flag) still
 * stops it after its first depth.
 */
#include "bot.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "search.h"

#ifdef SCHED_IDLE
#define BOT_SCHED_IDLE SCHED_IDLE
#else
#define BOT_SCHED_IDLE 5 /* Linux's SCHED_IDLE, hidden without _GNU_SOURCE */
#endif

typedef enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE } job_state;

struct worker;

struct bot_job {
    rules_pos root;
    uint64_t history[BOT_HISTORY_KEEP];
    size_t nhistory;
    search_limits limits;
    int64_t deadline; /* ms on bot_clock: the whole budget, queue included */
    int64_t due;      /* past this, the loop answers itself (overdue) */
    bot_cb cb;
    void *arg;
    const void *owner; /* whose game: searches are shared out fairly between owners */
    job_state state;   /* under mu */
    struct worker *w;  /* running on (under mu) */
    bool overdue;      /* answered by the loop (under mu) */
    bot_answer quick;  /* that answer */
    atomic_bool cancelled;
    bot_answer answer;
    bot_job *next;
};

typedef struct worker {
    uv_thread_t tid;
    search_ctx *ctx;
    const rules_variant *last; /* the game its table knows */
    bot_job *job;              /* running now (under mu) */
    bool started;
} worker;

static uv_mutex_t mu;
static uv_cond_t cv;
static bot_job *q_head, *q_tail; /* waiting, oldest first */
static bot_job *done_head;       /* answered, for the loop */
static worker workers[BOT_THREADS_MAX];
static int nworkers;
static bool quitting, started;
static uv_async_t async;
static uv_timer_t overdue_timer;
static search_ctx *loop_ctx; /* the overdue answers' small search */
static bot_stats stats;

/* Milliseconds of a monotonic clock, from any thread. */
static int64_t bot_clock(void)
{
    return (int64_t)(uv_hrtime() / 1000000u);
}

typedef struct run_arg {
    search_ctx *ctx;
    bot_job *job;
} run_arg;

/* After each completed depth: a cancelled job stops now. */
static void on_depth(void *arg, const search_report *r)
{
    run_arg *ra = arg;
    (void)r;
    if (atomic_load(&ra->job->cancelled))
        search_stop(ra->ctx);
}

/* Searches running now for this owner (under mu). */
static int running_for(const void *owner)
{
    int n = 0;
    for (int i = 0; i < nworkers; i++)
        n += workers[i].job != NULL && workers[i].job->owner == owner;
    return n;
}

/* The owners of the last searches started, newest last (under mu). */
enum { RECENT_OWNERS = 64 };
static const void *recent[RECENT_OWNERS];
static unsigned nrecent; /* ever started; recent[] is a ring */

/* How recently owner's last search started: higher is more recent, -1 if
 * not among the last RECENT_OWNERS. */
static int recency(const void *owner)
{
    unsigned n = nrecent < RECENT_OWNERS ? nrecent : RECENT_OWNERS;
    for (unsigned k = 0; k < n; k++)
        if (recent[(nrecent - 1 - k) % RECENT_OWNERS] == owner)
            return (int)(RECENT_OWNERS - k);
    return -1;
}

/* The next job for a free worker (under mu, the queue not empty): of the
 * owners with the fewest searches running, the one served least recently,
 * its oldest job; so that one owner's flood of searches delays another
 * owner's by one search at most. */
static bot_job *take_fairest(void)
{
    bot_job **best = NULL;
    int best_running = 0, best_recency = 0;
    for (bot_job **p = &q_head; *p != NULL; p = &(*p)->next) {
        int r = running_for((*p)->owner), c = recency((*p)->owner);
        if (best == NULL || r < best_running || (r == best_running && c < best_recency)) {
            best = p;
            best_running = r;
            best_recency = c;
        }
    }
    bot_job *j = *best;
    recent[nrecent++ % RECENT_OWNERS] = j->owner;
    *best = j->next;
    q_tail = NULL;
    for (bot_job *t = q_head; t != NULL; t = t->next)
        q_tail = t;
    j->next = NULL;
    return j;
}

static void worker_main(void *arg)
{
    worker *w = arg;
    /* Searches yield the cores to the loop thread: a person's move is
     * relayed first, a bot's search waits. Linux: SCHED_IDLE (runs only on
     * a core nothing else wants; a search is bounded by wall time, so a
     * starved bot plays a shallower move, never a late one), else a nice
     * value of its own; elsewhere both fail harmlessly. */
    struct sched_param sp = {0};
    if (pthread_setschedparam(pthread_self(), BOT_SCHED_IDLE, &sp) != 0) {
#ifdef SYS_gettid
        (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), BOT_NICE);
#endif
    }
    uv_mutex_lock(&mu);
    for (;;) {
        while (!quitting && q_head == NULL)
            uv_cond_wait(&cv, &mu);
        if (quitting)
            break;
        bot_job *j = take_fairest();
        j->state = JOB_RUNNING;
        j->w = w;
        w->job = j;
        stats.queued--;
        stats.running++;
        uv_mutex_unlock(&mu);

        if (w->last != j->root.variant) {
            search_clear(w->ctx);
            w->last = j->root.variant;
        }
        search_limits l = j->limits;
        int64_t left = j->deadline - bot_clock();
        l.ms = left > 10 ? left : 10;
        search_report out;
        run_arg ra = {w->ctx, j};
        int err = 0;
        if (!atomic_load(&j->cancelled))
            err = search_run(w->ctx, &j->root, j->history, j->nhistory, &l, on_depth, &ra, &out);
        else
            memset(&out, 0, sizeof out);
        j->answer = (bot_answer){
            out.best, out.score, out.depth, out.nodes, out.ms, false, err != 0 || out.best == 0};

        uv_mutex_lock(&mu);
        j->state = JOB_DONE;
        j->w = NULL;
        w->job = NULL;
        j->next = done_head;
        done_head = j;
        stats.running--;
        uv_mutex_unlock(&mu);
        uv_async_send(&async);
        uv_mutex_lock(&mu);
    }
    uv_mutex_unlock(&mu);
}

/* The loop: deliver the answers (oldest first), free their jobs. */
static void on_async(uv_async_t *h)
{
    (void)h;
    uv_mutex_lock(&mu);
    bot_job *list = done_head;
    done_head = NULL;
    uv_mutex_unlock(&mu);
    /* The list is newest first: reverse it. */
    bot_job *rev = NULL;
    while (list != NULL) {
        bot_job *j = list;
        list = j->next;
        j->next = rev;
        rev = j;
    }
    while (rev != NULL) {
        bot_job *j = rev;
        rev = j->next;
        /* A callback may cancel a job further down this list: its flag is
         * read just before its turn. */
        if (atomic_load(&j->cancelled)) {
            stats.cancelled++;
        } else if (j->overdue) {
            /* answered by on_overdue already */
        } else {
            stats.searches++;
            stats.failed += j->answer.failed;
            j->cb(j->arg, &j->answer);
        }
        free(j);
    }
}

/*
 * The loop's safety net: a job not answered well after its budget (its
 * search starved of CPU: the workers yield to everything else) is answered
 * on the loop by a tiny search (level 1: a few hundred nodes, well under a
 * millisecond), so that a bot never loses on time because the machine is
 * busy. The job is cancelled: a late answer from its worker is dropped.
 */
/* The quick answer for j, on the loop. */
static void answer_now(bot_job *j)
{
    search_limits l;
    search_level_limits(&l, 1, 50, j->limits.seed);
    l.multi = j->limits.multi;
    l.now_ms = bot_clock;
    search_report out;
    int err = search_run(loop_ctx, &j->root, j->history, j->nhistory, &l, NULL, NULL, &out);
    j->quick = (bot_answer){
        out.best, out.score, out.depth, out.nodes, out.ms, true, err != 0 || out.best == 0};
    stats.overdue++;
    stats.searches++;
    stats.failed += j->quick.failed;
    j->cb(j->arg, &j->quick);
}

static void on_overdue(uv_timer_t *t)
{
    (void)t;
    int64_t now = bot_clock();
    bot_job *late = NULL; /* queued ones, taken out: ours now */
    bot_job *running[BOT_THREADS_MAX];
    int nrunning = 0;
    uv_mutex_lock(&mu);
    for (bot_job **p = &q_head; *p != NULL;) {
        bot_job *j = *p;
        if (j->due > now) {
            p = &j->next;
            continue;
        }
        *p = j->next;
        stats.queued--;
        j->state = JOB_DONE;
        j->overdue = true;
        j->next = late;
        late = j;
    }
    q_tail = NULL;
    for (bot_job *q = q_head; q != NULL; q = q->next)
        q_tail = q;
    for (int i = 0; i < nworkers; i++) {
        bot_job *j = workers[i].job;
        if (j == NULL || j->due > now || j->overdue || atomic_load(&j->cancelled))
            continue;
        /* Running: it stays its worker's; its answer will be dropped. */
        j->overdue = true;
        search_stop(workers[i].ctx);
        running[nrunning++] = j;
    }
    uv_mutex_unlock(&mu);
    /* A callback may cancel a job further down (its flag is read just
     * before its turn); running jobs are freed only by on_async, which
     * cannot run meanwhile (same thread). */
    for (int i = 0; i < nrunning; i++)
        if (!atomic_load(&running[i]->cancelled))
            answer_now(running[i]);
    while (late != NULL) {
        bot_job *j = late;
        late = j->next;
        if (!atomic_load(&j->cancelled))
            answer_now(j);
        free(j);
    }
}

int bot_init(uv_loop_t *loop, int threads, size_t table_bytes)
{
    if (threads < 1 || threads > BOT_THREADS_MAX)
        return -1;
    if (uv_mutex_init(&mu) != 0)
        return -1;
    if (uv_cond_init(&cv) != 0) {
        uv_mutex_destroy(&mu);
        return -1;
    }
    uv_async_init(loop, &async, on_async);
    /* The handle must not keep the loop alive: shutdown runs the loop until
     * the transport's handles are closed. */
    uv_unref((uv_handle_t *)&async);
    uv_timer_init(loop, &overdue_timer);
    uv_timer_start(&overdue_timer, on_overdue, BOT_OVERDUE_TICK_MS, BOT_OVERDUE_TICK_MS);
    uv_unref((uv_handle_t *)&overdue_timer);
    quitting = false;
    memset(&stats, 0, sizeof stats);
    loop_ctx = search_new(1 << 20);
    if (loop_ctx == NULL)
        goto out_stop;
    for (nworkers = 0; nworkers < threads; nworkers++) {
        worker *w = &workers[nworkers];
        memset(w, 0, sizeof *w);
        w->ctx = search_new(table_bytes);
        if (w->ctx == NULL)
            goto out_stop;
    }
    for (int i = 0; i < nworkers; i++) {
        if (uv_thread_create(&workers[i].tid, worker_main, &workers[i]) != 0)
            goto out_stop;
        workers[i].started = true;
    }
    stats.threads = nworkers;
    started = true;
    return 0;

out_stop:
    started = true;
    bot_shutdown();
    return -1;
}

bot_job *bot_think(const rules_game *g, int level, int64_t ms, const void *owner, bot_cb cb,
                   void *arg)
{
    if (!started || quitting || g->result.over || g->nlegal == 0)
        return NULL;
    bot_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->root = g->pos;
    /* hashes[k] is the hash before move k; hashes[nmoves] is the root's. */
    size_t from = g->nmoves > BOT_HISTORY_KEEP ? g->nmoves - BOT_HISTORY_KEEP : 0;
    j->nhistory = g->nmoves - from;
    memcpy(j->history, g->hashes + from, j->nhistory * sizeof *j->history);
    uint64_t seed = g->pos.hash ^ ((uint64_t)g->nmoves * 0x9E3779B97F4A7C15u);
    search_level_limits(&j->limits, level, ms, seed);
    j->limits.multi = SEARCH_MULTI_BRS;
    j->limits.now_ms = bot_clock;
    j->deadline = bot_clock() + (ms > 0 ? ms : 1);
    /* Half the budget again, and a little more, before the loop steps in
     * (a live budget is at most a quarter of the clock: search.h). */
    j->due = j->deadline + (ms > 0 ? ms / 2 : 0) + BOT_OVERDUE_GRACE_MS;
    j->cb = cb;
    j->arg = arg;
    j->owner = owner;
    atomic_init(&j->cancelled, false);
    uv_mutex_lock(&mu);
    j->state = JOB_QUEUED;
    if (q_tail != NULL)
        q_tail->next = j;
    else
        q_head = j;
    q_tail = j;
    stats.queued++;
    uv_cond_signal(&cv);
    uv_mutex_unlock(&mu);
    return j;
}

void bot_cancel(bot_job *j)
{
    if (j == NULL)
        return;
    uv_mutex_lock(&mu);
    if (j->state == JOB_QUEUED) {
        bot_job **p = &q_head;
        while (*p != j)
            p = &(*p)->next;
        *p = j->next;
        q_tail = NULL;
        for (bot_job *t = q_head; t != NULL; t = t->next)
            q_tail = t;
        stats.queued--;
        stats.cancelled++;
        uv_mutex_unlock(&mu);
        free(j);
        return;
    }
    /* Running: stop it; answered: its answer is thrown away on the loop. */
    atomic_store(&j->cancelled, true);
    if (j->state == JOB_RUNNING)
        search_stop(j->w->ctx);
    uv_mutex_unlock(&mu);
}

void bot_note_refused(void)
{
    uv_mutex_lock(&mu);
    stats.failed++;
    uv_mutex_unlock(&mu);
}

bot_stats bot_get_stats(void)
{
    if (!started)
        return (bot_stats){0};
    uv_mutex_lock(&mu);
    bot_stats s = stats;
    uv_mutex_unlock(&mu);
    return s;
}

void bot_shutdown(void)
{
    if (!started)
        return;
    uv_mutex_lock(&mu);
    quitting = true;
    while (q_head != NULL) {
        bot_job *j = q_head;
        q_head = j->next;
        free(j);
    }
    q_tail = NULL;
    stats.queued = 0;
    for (int i = 0; i < nworkers; i++)
        if (workers[i].job != NULL) {
            atomic_store(&workers[i].job->cancelled, true);
            search_stop(workers[i].ctx);
        }
    uv_cond_broadcast(&cv);
    uv_mutex_unlock(&mu);
    for (int i = 0; i < nworkers; i++)
        if (workers[i].started)
            uv_thread_join(&workers[i].tid);
    while (done_head != NULL) {
        bot_job *j = done_head;
        done_head = j->next;
        free(j);
    }
    for (int i = 0; i < nworkers; i++) {
        search_free(workers[i].ctx);
        workers[i] = (worker){0};
    }
    nworkers = 0;
    search_free(loop_ctx);
    loop_ctx = NULL;
    uv_close((uv_handle_t *)&async, NULL);
    uv_close((uv_handle_t *)&overdue_timer, NULL);
    uv_cond_destroy(&cv);
    uv_mutex_destroy(&mu);
    started = false;
}
