/*
 * room_clock.c - a room's clocks, its flag timer, the first move's time
 * limit and abandonment (see room.h).
 */
#include "room_impl.h"
#include "log.h"

/* ------------------------------------------------------------------------ */
/* Clocks. */

bool room__timed(const room *r)
{
    return r->base_ms > 0;
}

void room__clock_settle(room *r)
{
    if (!r->clock_running)
        return;
    uint64_t now = uv_now(room__loop);
    r->clocks[r->g->pos.to_move] -= (int64_t)(now - r->turn_start);
    r->turn_start = now;
}

static void on_flag(uv_timer_t *t)
{
    room *r = t->data;
    room__clock_settle(r);
    int s = rules_game_to_move(r->g);
    if (s < 0)
        return;
    if (r->clocks[s] > 0) { /* woke early: wait for the rest */
        room__clock_arm(r);
        return;
    }
    room__player_leaves(r, s, RULES_REASON_TIMEOUT);
    room__maybe_free(r);
}

/* The first move (as lichess): a seat's clock starts at its second turn,
 * once it has moved; its first move must come within room__first_move_ms
 * (0: no limit) or the game ends, aborted (nobody has lost time yet, and
 * abort is allowed until every seat has moved). */
int64_t room__first_move_ms = ROOM_FIRST_MOVE_MS_DEFAULT;

void room_set_first_move_ms(int64_t ms)
{
    room__first_move_ms = ms;
}

static void on_first_move_due(uv_timer_t *t)
{
    room *r = t->data;
    int s = rules_game_to_move(r->g);
    if (s < 0 || r->moved[s] || r->g->result.over)
        return;
    log_kv(LOG_INFO, "no first move in time: aborted", "room=%lld seat=%d", (long long)r->id, s);
    room__end_drawn(r, RULES_REASON_ABORTED);
    room__maybe_free(r);
}

void room__clock_arm(room *r)
{
    int s = rules_game_to_move(r->g);
    if (!room__timed(r) || s < 0) {
        r->clock_running = false;
        uv_timer_stop(&r->timer);
        return;
    }
    if (!r->moved[s]) {
        r->clock_running = false;
        uv_timer_stop(&r->timer);
        if (room__first_move_ms > 0)
            uv_timer_start(&r->timer, on_first_move_due, (uint64_t)room__first_move_ms, 0);
        return;
    }
    r->clock_running = true;
    r->turn_start = uv_now(room__loop);
    uv_timer_start(&r->timer, on_flag, r->clocks[s] > 0 ? (uint64_t)r->clocks[s] : 0, 0);
}

/* ------------------------------------------------------------------------ */
/* Abandonment: a seat whose player has had no session for
 * room__abandon_ms leaves the game (rules_game_leave, "abandonment"). */

static int64_t guest_abandon_ms = ROOM_GUEST_ABANDON_MS;

void room_set_guest_abandon_ms(int64_t ms)
{
    guest_abandon_ms = ms;
}

/* How long seat i may be away before it abandons; 0: for ever. */
static int64_t away_limit(const room *r, int i)
{
    int64_t limit = room__abandon_ms > 0 ? room__abandon_ms : 0;
    bool guest = r->seats[i]->account == 0 && r->seats[i]->bot == 0;
    if (guest && guest_abandon_ms > 0 && (limit == 0 || guest_abandon_ms < limit))
        limit = guest_abandon_ms;
    return limit;
}

static void on_abandon(uv_timer_t *t)
{
    room *r = t->data;
    uint64_t now = uv_now(room__loop);
    for (int i = 0; i < r->nseats && !r->g->result.over; i++) {
        int64_t limit = away_limit(r, i);
        if (r->away_since[i] != 0 && r->left[i] < 0 && limit > 0 &&
            now - r->away_since[i] >= (uint64_t)limit)
            room__player_leaves(r, i, RULES_REASON_ABANDONMENT);
    }
    room__abandon_arm(r);
    room__maybe_free(r);
}

void room__abandon_arm(room *r)
{
    uint64_t now = uv_now(room__loop), next = 0;
    /* Correspondence players are not expected to stay connected. */
    if (r->g->result.over || r->corr.days > 0) {
        uv_timer_stop(&r->abandon);
        return;
    }
    for (int i = 0; i < r->nseats; i++) {
        int64_t limit = away_limit(r, i);
        if (r->away_since[i] == 0 || r->left[i] >= 0 || limit == 0)
            continue;
        uint64_t due = r->away_since[i] + (uint64_t)limit;
        if (next == 0 || due < next)
            next = due;
    }
    if (next == 0)
        uv_timer_stop(&r->abandon);
    else
        uv_timer_start(&r->abandon, on_abandon, next > now ? next - now : 0, 0);
}

void room__timers_init(room *r)
{
    uv_timer_init(room__loop, &r->timer);
    uv_timer_init(room__loop, &r->abandon);
    r->timer.data = r->abandon.data = r;
    r->open_handles = 2;
}
