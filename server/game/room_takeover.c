/*
 * room_takeover.c - node mode: the rooms of games no live node holds are
 * taken over, those this node loses are closed (room.h,
 * room_takeover_start; docs/SCALING.md "Leases").
 *
 * A timer (at start, then every ttl / 2) asks the store for the games whose
 * lease expired or that have none; for each (ROOM_TAKEOVER_PER_TICK at
 * most a tick) it takes the lease, adopts the game into the store's memory
 * and rebuilds the room as the start-up restore does (room__rebuild). One
 * round at a time: the next tick waits for the last answer. A lost game's
 * room leaves the table at once, its watchers are told and dropped, its
 * clocks and bot stop; it is freed once its writes in flight have been
 * answered (refused: the lease is gone), and nothing is written again.
 */
#include "room_impl.h"

#include <stdlib.h>

#include "log.h"
#include "counters.h"
#include "store.h"
#include "store_aside.h"

static uv_timer_t timer;
static bool started, stopped;
static unsigned period_ms;
static void (*taken_cb)(int64_t game);
static int outstanding; /* takes and adoptions of this round not answered */
static bool round_on;   /* a round is under way (its list asked or its games) */

typedef struct take_job {
    int64_t game;
    int64_t fence;
} take_job;

static void round_end(void)
{
    if (outstanding == 0)
        round_on = false;
}

static void job_done(take_job *j)
{
    free(j);
    outstanding--;
    round_end();
}

static void on_adopted(void *arg, int status, const store_game_info *gi)
{
    take_job *j = arg;
    if (stopped || status < 0 || gi == NULL) {
        if (!stopped && status < 0)
            log_kv(LOG_WARN, "cannot adopt a game", "game=%lld error=%s", (long long)j->game,
                   store_err_code(status));
        job_done(j);
        return;
    }
    if (!gi->finished && room_find(j->game) == NULL) {
        char why[RULES_WHY_TEXT + 64];
        room *r = room__rebuild(gi, why, sizeof why);
        if (r == NULL) {
            /* Set aside, as at a start: the expired leases skip it, so no
             * node tries it again until an operator clears it. */
            int err = store_set_aside_queued(room__db, j->game, why);
            log_kv(LOG_ERROR, "game not taken over: it does not rebuild, set aside",
                   "game=%lld why=\"%s\" queued=%s", (long long)j->game, why,
                   err < 0 ? store_err_code(err) : "yes");
            metrics_now.games_set_aside++;
        }
        if (r != NULL && taken_cb != NULL)
            taken_cb(j->game); /* nodes that forwarded to the dead one learn it */
        if (r != NULL)
            log_kv(LOG_INFO, "room taken over", "game=%lld from=lease_expired fence=%lld",
                   (long long)j->game, (long long)j->fence);
    }
    job_done(j);
}

static void on_taken(void *arg, int status, int64_t fence, const char *holder)
{
    take_job *j = arg;
    if (stopped || status < 0) {
        if (!stopped && status != STORE_ELEASED && status != STORE_ENOT_FOUND)
            log_kv(LOG_WARN, "cannot take a lease", "game=%lld error=%s", (long long)j->game,
                   store_err_code(status));
        (void)holder; /* another node was first: it has the room */
        job_done(j);
        return;
    }
    j->fence = fence;
    if (store_game_adopt(room__db, j->game, on_adopted, j) < 0)
        job_done(j);
}

static void on_expired(void *arg, int status, const int64_t *ids, int n)
{
    (void)arg;
    if (stopped) {
        round_on = false;
        return;
    }
    if (status < 0)
        log_kv(LOG_WARN, "cannot list the games to take over", "error=%s", store_err_code(status));
    int asked = 0;
    for (int i = 0; status == 0 && i < n && asked < ROOM_TAKEOVER_PER_TICK; i++) {
        if (room_find(ids[i]) != NULL)
            continue;
        take_job *j = calloc(1, sizeof *j);
        if (j == NULL)
            break;
        j->game = ids[i];
        outstanding++;
        if (store_lease_take(room__db, ids[i], on_taken, j) < 0) {
            free(j);
            outstanding--;
            continue;
        }
        asked++;
    }
    round_end();
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    if (round_on || stopped)
        return;
    round_on = true;
    if (store_lease_expired(room__db, on_expired, NULL) < 0)
        round_on = false;
}

/* The store dropped game: its room goes without a word to the disk. */
static void on_lost(void *arg, int64_t game)
{
    (void)arg;
    room *r = room_find(game);
    if (r == NULL || r->closing || r->lost)
        return;
    room__table_remove(r);
    uv_timer_stop(&r->timer);
    uv_timer_stop(&r->abandon);
    room__bot_cancel(r);
    size_t watchers = r->nwatchers;
    char why[96];
    snprintf(why, sizeof why, "game %lld moved to another node: reconnect and join it again",
             (long long)game);
    /* Told, then asked to connect again (1001): the client finds the room
     * where it went. */
    room__drop_watchers(r, PROTO_EUNKNOWN_ROOM, why, "moved to another node");
    log_kv(LOG_WARN, "room lost", "game=%lld watchers=%zu pending=%d", (long long)game, watchers,
           r->pending);
    room__maybe_free(r);
}

int room_takeover_start(unsigned ttl_ms, void (*taken)(int64_t game))
{
    taken_cb = taken;
    period_ms = ttl_ms / 2 > 0 ? ttl_ms / 2 : 1;
    if (uv_timer_init(room__loop, &timer) != 0)
        return -1;
    started = true;
    store_set_lease_lost_cb(room__db, on_lost, NULL);
    uv_timer_start(&timer, on_tick, 0, period_ms);
    return 0;
}

void room__takeover_stop(void)
{
    if (!started || stopped)
        return;
    stopped = true;
    uv_timer_stop(&timer);
    uv_close((uv_handle_t *)&timer, NULL);
}
