/*
 * room_rematch.c - declining a rematch (see room.h; asking for one is
 * room_game.c's room_rematch).
 */
#include "room_impl.h"

int room_rematch_decline(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, false, why, whylen);
    if (s < 0)
        return -s;
    if (!r->g->result.over) {
        rules_why(why, whylen, "the game is still going on");
        return PROTO_EGAME_NOT_OVER;
    }
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
