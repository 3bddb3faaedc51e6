/*
 * room_rematch.c - rematches: asking for one (the new room starts once
 * every seat asked) and declining (see room.h).
 */
#include "room_impl.h"

#include "quota.h"

/* The seat of c in a finished game, or minus the error (not a player, the
 * game still going on): rematches are asked and declined after the end. */
static int seat_after_game(room *r, session *c, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, false, why, whylen);
    if (s >= 0 && !r->g->result.over) {
        rules_why(why, whylen, "the game is still going on");
        return -PROTO_EGAME_NOT_OVER;
    }
    return s;
}

int room_rematch(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = seat_after_game(r, c, why, whylen);
    if (s < 0)
        return -s;
    if (r->next_room != 0)
        return 0; /* the rematch has started already */
    /* Bots always agree to a rematch. */
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i]->bot > 0)
            r->rematch_offers |= 1u << i;
    r->rematch_offers |= 1u << s;
    room__push_offer(r, "rematch_offer", s, r->rematch_offers);
    unsigned all = (1u << r->nseats) - 1;
    if ((r->rematch_offers & all) != all)
        return 0;
    /* Everyone asked: seats rotate by one, so colours change hands. Each
     * player's caps as if each asked for a game of its own. */
    ident *seats[RULES_MAX_PLAYERS];
    room_settings rs = {r->g->variant->id, r->base_ms, r->inc_ms, r->rated, r->corr, {NULL}};
    for (int i = 0; i < r->nseats; i++) {
        int from = (i + 1) % r->nseats;
        seats[i] = r->seats[from];
        rs.addr[i] = r->addr[from];
        char qwhy[RULES_WHY_TEXT];
        if (quota_game_check(seats[i], rs.addr[i], r->corr.days > 0, qwhy, sizeof qwhy) != 0) {
            if (seats[i] == c->who)
                rules_why(why, whylen, "%s", qwhy);
            else
                rules_why(why, whylen, "no rematch: %s has too many games in progress",
                          seats[i]->name);
            return PROTO_ETOO_MANY_GAMES;
        }
    }
    proto_err err = 0;
    room *next = room_start(&rs, seats, r->nseats, NULL, NULL, &err, why, whylen);
    if (next == NULL)
        return err;
    r->next_room = next->id;
    proto_out o;
    room__new_event(r, &o);
    proto_write_event_rematch(&o, r->id, r->seq, next->id);
    room__push_event(r, &o, false, true);
    return 0;
}

int room_rematch_decline(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = seat_after_game(r, c, why, whylen);
    if (s < 0)
        return -s;
    if (r->next_room != 0) {
        rules_why(why, whylen, "the rematch has started already (room %lld)",
                  (long long)r->next_room);
        return PROTO_EGAME_OVER;
    }
    /* Every offer goes, the player's own too: a new one starts again. */
    r->rematch_offers = 0;
    room__push_offer(r, "rematch_declined", s, 0);
    return 0;
}
