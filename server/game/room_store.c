/*
 * room_store.c - the writes of a room's leaves and results, which the
 * store may fail (PROTOCOL.md, "Storage faults"): queued again until
 * written, so that what was announced is what a restart finds.
 *
 * The event announcing a leave or a result waits, as a move's does, for
 * the store's first answer: a kill right after must not take back a result
 * its players saw. A first write that fails still lets the event go (the
 * room has changed; nothing is taken back) and is queued again here. Moves
 * are not here: a failed move is taken back (room_game.c, move_failed).
 */
#include "room_impl.h"
#include "log.h"

#include <stdio.h>

#include "store.h"

/* The store answered the first write of e's leave or result (e may be
 * NULL: nothing waits): e goes out, in order. */
static void release(room *r, outbox_ev *e)
{
    if (e == NULL)
        return;
    e->durable = true;
    room__flush(r);
}

static void result_stored(room *r, outbox_ev *e, int status)
{
    r->pending--;
    release(r, e);
    if (status == 0) {
        room__ratings_told(r);
        room__notify_end(r);
        room__over(r);
    }
    /* Not if the move that ended the game failed too and was taken back. */
    if (status < 0 && status != STORE_ECLOSED && !r->lost && r->finished && r->g->result.over) {
        if (++r->result_tries < ROOM_RESULT_TRIES)
            room__store_result(r, NULL);
        else
            log_kv(LOG_ERROR, "the result could not be stored", "room=%lld", (long long)r->id);
    }
    room__maybe_free(r);
}

static void on_result_stored(void *arg, int status)
{
    result_stored(arg, NULL, status);
}

static void on_result_stored_ev(void *arg, int status)
{
    outbox_ev *e = arg;
    result_stored(e->room, e, status);
}

void room__store_result(room *r, outbox_ev *e)
{
    if (r->unstored) { /* the game was never written: nothing to finish */
        release(r, e);
        return;
    }
    r->pending++;
    int err = e ? store_game_finish(room__db, r->id, &r->g->result, on_result_stored_ev, e)
                : store_game_finish(room__db, r->id, &r->g->result, on_result_stored, r);
    if (err < 0) {
        r->pending--;
        log_kv(LOG_ERROR, "cannot queue the result", "room=%lld", (long long)r->id);
        release(r, e);
    }
}

/* Leaves are written in order: one that fails fails every write queued
 * behind it (the store's rule), so the leaves to write again are those from
 * the first not written; they are queued again once the room has nothing
 * in flight (its failed moves taken back), so that each is recorded after
 * the moves the disk has. */
static void leave_stored(room *r, outbox_ev *e, int status)
{
    r->pending--;
    release(r, e);
    if (status == 0) {
        r->leaves_stored++;
    } else if (status != STORE_ECLOSED && !r->lost) {
        if (++r->leave_tries < ROOM_RESULT_TRIES) {
            r->leaves_queued = r->leaves_stored;
            r->leaves_failed = true;
        } else {
            log_kv(LOG_ERROR, "a leave could not be stored", "room=%lld", (long long)r->id);
        }
    }
    room__store_leaves(r, NULL);
    room__maybe_free(r);
}

static void on_leave_stored(void *arg, int status)
{
    leave_stored(arg, NULL, status);
}

static void on_leave_stored_ev(void *arg, int status)
{
    outbox_ev *e = arg;
    leave_stored(e->room, e, status);
}

void room__store_leaves(room *r, outbox_ev *e)
{
    if (r->leaves_failed && r->pending > 0) {
        release(r, e); /* the store is failing: this leave waits with the others */
        return;
    }
    r->leaves_failed = false;
    /* A leave that ends the game is the result's to write. */
    while (r->leaves_queued < r->g->nleft && !r->g->result.over) {
        const rules_leave_rec *l = &r->g->left[r->leaves_queued];
        /* The event waits for the newest leave, written after the others. */
        outbox_ev *wait = r->leaves_queued + 1 == r->g->nleft ? e : NULL;
        r->pending++;
        int err = wait ? store_game_leave(room__db, r->id, l->player, l->reason,
                                          rules_game_to_move(r->g), on_leave_stored_ev, wait)
                       : store_game_leave(room__db, r->id, l->player, l->reason,
                                          rules_game_to_move(r->g), on_leave_stored, r);
        if (err < 0) {
            r->pending--;
            log_kv(LOG_ERROR, "cannot queue a leave", "room=%lld", (long long)r->id);
            break;
        }
        r->leaves_queued++;
        if (wait)
            e = NULL;
    }
    release(r, e); /* not handed to the store: it goes now */
}
