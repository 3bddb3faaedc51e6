/*
 * room_notify.c - a room's moments that may be notified (notify.h): a
 * durable move, creation and result, as plain notify_game records. See
 * room.h and room_impl.h.
 */
#include "room_impl.h"

#include "notify.h"
#include "store.h"

/* r as the notices see it. */
static void describe(room *r, notify_game *g)
{
    *g = (notify_game){
        .id = r->id,
        .variant = r->g->variant->id,
        .corr = r->corr.days > 0,
        .nseats = r->nseats,
        .to_move = r->g->result.over ? -1 : rules_game_to_move(r->g),
        .nmoves = (int)r->g->nmoves,
        .result = r->g->result.over ? &r->g->result : NULL,
    };
    for (int i = 0; i < r->nseats; i++) {
        g->account[i] = r->seats[i]->bot ? 0 : r->seats[i]->account;
        g->name[i] = r->seats[i]->name;
    }
    int64_t clocks[RULES_MAX_PLAYERS];
    if (g->corr && g->to_move >= 0 &&
        store_corr_clock(room__db, r->id, &g->deadline_ms, clocks) < 0)
        g->deadline_ms = 0;
}

void room__notify_move(room *r, int ply)
{
    /* Only the latest move: a conditional answer played since is notified
     * when it is durable. */
    if (r->closing || (int)r->g->nmoves != ply + 1)
        return;
    notify_game g;
    describe(r, &g);
    notify_your_move(&g);
}

void room__notify_start(room *r)
{
    notify_game g;
    describe(r, &g);
    notify_game_started(&g);
}

void room__notify_end(room *r)
{
    notify_game g;
    describe(r, &g);
    notify_game_ended(&g);
}
