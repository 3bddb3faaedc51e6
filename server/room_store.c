/*
 * room_store.c - the writes of a room that are announced before they are
 * durable (results and leaves: no one waits for them) and that the store
 * may fail (PROTOCOL.md, "Storage faults"): queued again until written, so
 * that what was announced is what a restart finds. Moves are not here:
 * they are acknowledged only once durable (room_game.c, move_failed).
 */
#include "room_impl.h"
#include "log.h"

#include <stdio.h>

#include "store.h"

static void on_result_stored(void *arg, int status)
{
    room *r = arg;
    r->pending--;
    /* Not if the move that ended the game failed too and was taken back. */
    if (status < 0 && status != STORE_ECLOSED && r->finished && r->g->result.over) {
        if (++r->result_tries < ROOM_RESULT_TRIES)
            room__store_result(r);
        else
            log_kv(LOG_ERROR, "the result could not be stored", "room=%lld", (long long)r->id);
    }
    room__maybe_free(r);
}

void room__store_result(room *r)
{
    r->pending++;
    if (store_game_finish(room__db, r->id, &r->g->result, on_result_stored, r) < 0) {
        r->pending--;
        log_kv(LOG_ERROR, "cannot queue the result", "room=%lld", (long long)r->id);
    }
}

/* Leaves are written in order: one that fails fails every write queued
 * behind it (the store's rule), so the leaves to write again are those from
 * the first not written; they are queued again once the room has nothing
 * in flight (its failed moves taken back), so that each is recorded after
 * the moves the disk has. */
static void on_leave_stored(void *arg, int status)
{
    room *r = arg;
    r->pending--;
    if (status == 0) {
        r->leaves_stored++;
    } else if (status != STORE_ECLOSED) {
        if (++r->leave_tries < ROOM_RESULT_TRIES) {
            r->leaves_queued = r->leaves_stored;
            r->leaves_failed = true;
        } else {
            log_kv(LOG_ERROR, "a leave could not be stored", "room=%lld", (long long)r->id);
        }
    }
    room__store_leaves(r);
    room__maybe_free(r);
}

void room__store_leaves(room *r)
{
    if (r->leaves_failed && r->pending > 0)
        return;
    r->leaves_failed = false;
    /* A leave that ends the game is the result's to write. */
    while (r->leaves_queued < r->g->nleft && !r->g->result.over) {
        const rules_leave_rec *l = &r->g->left[r->leaves_queued];
        r->pending++;
        if (store_game_leave(room__db, r->id, l->player, l->reason, rules_game_to_move(r->g),
                             on_leave_stored, r) < 0) {
            r->pending--;
            log_kv(LOG_ERROR, "cannot queue a leave", "room=%lld", (long long)r->id);
            break;
        }
        r->leaves_queued++;
    }
}
