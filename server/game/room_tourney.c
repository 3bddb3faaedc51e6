/*
 * room_tourney.c - what tournaments (server/tourney.c) need of rooms,
 * without rooms knowing tournaments: a callback once a game's result is on
 * disk, the forfeit of a seat (a withdrawal), and the tournament a room's
 * game belongs to (named in its state).
 */
#include "room_impl.h"

static room_over_cb over_cb;
static void *over_arg;

void room_set_over_cb(room_over_cb cb, void *arg)
{
    over_cb = cb;
    over_arg = arg;
}

static room_tourney_of_cb tourney_of;

void room_set_tourney_of(room_tourney_of_cb cb)
{
    tourney_of = cb;
}

int64_t room__tourney_of(const room *r, char *name, size_t namelen)
{
    name[0] = '\0';
    return tourney_of != NULL ? tourney_of(r->id, name, namelen) : 0;
}

void room__over(room *r)
{
    if (over_cb != NULL && r->g->result.over)
        over_cb(over_arg, r->id, r->g);
}

int room_forfeit(int64_t game, int64_t account)
{
    room *r = room_find(game);
    if (r == NULL || r->g->result.over)
        return -1;
    for (int s = 0; s < r->nseats; s++)
        if (r->seats[s]->account == account && r->left[s] < 0) {
            room__player_leaves(r, s, RULES_REASON_RESIGNATION);
            room__maybe_free(r);
            return 0;
        }
    return -1;
}

bool room__quiet;

room *room_start_quiet(const room_settings *s, ident *const *seats, int nseats, proto_err *err,
                       char *why, size_t whylen)
{
    room__quiet = true;
    room *r = room_start(s, seats, nseats, NULL, NULL, err, why, whylen);
    room__quiet = false;
    return r;
}
