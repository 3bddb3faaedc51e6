/*
 * room_push.c - what a room pushes to players who are away (push.h): "your
 * move" once a move that makes it the turn of an account with no open
 * connection is durable (as its acknowledgement: a move that fails to
 * commit is taken back and pushes nothing), and the low-time alarm once
 * the player to move has used 80% of the time it had for the move (the
 * moment notify.h decides for mail too: notify_low_time_ms; live:
 * its clock when the turn began; correspondence: until its deadline),
 * unless it is on the site then.
 * Part of the room module (room_impl.h); the e-mail notices are
 * room_notify.c's (notify.h), hooked at the same moments.
 *
 * One alarm per room at most, keyed by the room's id and outliving it (a
 * libuv timer each: libuv keeps them in a heap, nothing here scans); when
 * it fires it checks the room is still at the same move with the same
 * player to move and that player still away.
 */
#include "room_impl.h"

#include <stdlib.h>

#include "ident.h"
#include "notify.h"
#include "push.h"
#include "store.h"

typedef struct notify_alarm {
    int64_t room; /* hash key */
    size_t nmoves;
    int seat;
    int64_t account;
    int64_t left_ms; /* what remains when it fires */
    uv_timer_t timer;
    UT_hash_handle hh;
} notify_alarm;

static notify_alarm *alarms;

static void on_alarm_closed(uv_handle_t *h)
{
    free(h->data);
}

static void alarm_drop(notify_alarm *a)
{
    HASH_DEL(alarms, a);
    uv_timer_stop(&a->timer);
    a->timer.data = a;
    uv_close((uv_handle_t *)&a->timer, on_alarm_closed);
}

static bool away(const ident *who)
{
    return who->bot == 0 && who->account > 0 && who->sessions == NULL;
}

static void on_alarm(uv_timer_t *t)
{
    notify_alarm *a = t->data;
    room *r = room_find(a->room);
    if (r != NULL && !r->g->result.over && r->g->nmoves == a->nmoves &&
        rules_game_to_move(r->g) == a->seat && r->seats[a->seat]->account == a->account &&
        away(r->seats[a->seat]))
        push_low_time(a->account, r->id, r->g->variant->id, a->left_ms);
    alarm_drop(a);
}

/* The time the player to move has for this move (ms), or -1 if none. */
static int64_t time_for_move(room *r, int s)
{
    if (r->corr.days > 0) {
        int64_t deadlines[RULES_MAX_PLAYERS];
        room__corr_clocks(r, deadlines);
        return deadlines[s] > 0 ? deadlines[s] - store_now(room__db) : -1;
    }
    return room__timed(r) && r->clock_running ? r->clocks[s] : -1;
}

void room__notify_turn(room *r, int mover)
{
    notify_alarm *a = NULL;
    HASH_FIND(hh, alarms, &r->id, sizeof r->id, a);
    if (a != NULL)
        alarm_drop(a);
    if (r->g->result.over || !push_enabled())
        return;
    int s = rules_game_to_move(r->g);
    if (s < 0 || s == mover || r->seats[s]->bot || r->seats[s]->account <= 0)
        return;
    int64_t ms = time_for_move(r, s);
    if (ms <= 0 || (a = calloc(1, sizeof *a)) == NULL)
        return;
    a->room = r->id;
    a->nmoves = r->g->nmoves;
    a->seat = s;
    a->account = r->seats[s]->account;
    a->left_ms = ms - notify_low_time_ms(ms); /* the moment mail uses too */
    uv_timer_init(room__loop, &a->timer);
    a->timer.data = a;
    uv_timer_start(&a->timer, on_alarm, (uint64_t)(ms - a->left_ms), 0);
    HASH_ADD(hh, alarms, room, sizeof a->room, a);
}

void room__push_move(room *r, const outbox_ev *e)
{
    if (r->closing || !push_enabled())
        return;
    /* The player the move made to move, even if a conditional answer has
     * been played since (PROTOCOL.md: it still pushes); for the latest
     * move, the player to move now (a leave may have passed the turn). */
    int s = e->to_move;
    if ((int)r->g->nmoves == e->ply + 1)
        s = r->g->result.over ? -1 : rules_game_to_move(r->g);
    if (s < 0 || s == e->seat || r->seats[s]->bot || r->seats[s]->account <= 0 ||
        !away(r->seats[s]))
        return;
    push_your_move(r->seats[s]->account, r->id, r->g->variant->id, r->seats[e->seat]->name);
}

void room__notify_stop(void)
{
    notify_alarm *a, *tmp;
    HASH_ITER(hh, alarms, a, tmp)
    alarm_drop(a);
}
