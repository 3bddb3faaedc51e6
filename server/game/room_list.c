/*
 * room_list.c - the games being played, newest first, for the lobby's
 * "games to watch" (see room.h, room_playing), and who plays a game, for
 * the "your turn" list (room_opponents).
 */
#include "room_impl.h"

static proto_live_game view_of(const room *r)
{
    proto_live_game g = {
        .room = r->id,
        .game = r->g->variant->id,
        .base_ms = r->base_ms,
        .inc_ms = r->inc_ms,
        .rated = r->rated,
        .corr = r->corr,
        .nplayers = r->nseats,
    };
    for (int i = 0; i < r->nseats; i++)
        g.players[i] = ident_player(r->seats[i]);
    return g;
}

int room_playing(proto_live_game *out, int max)
{
    /* Kept sorted by room id, newest first, while the table is walked
     * once: max is small (the lobby shows a screenful). */
    int n = 0;
    for (const room *r = room__table(); r != NULL && max > 0; r = r->hh.next) {
        if (r->g->result.over || r->closing || r->unstored)
            continue;
        if (n == max && r->id < out[n - 1].room)
            continue;
        int i = n < max ? n++ : max - 1;
        while (i > 0 && out[i - 1].room < r->id) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = view_of(r);
    }
    return n;
}

int room_opponents(const room *r, int64_t account, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < r->nseats && n < max; i++)
        if (r->seats[i]->account != account && r->left[i] < 0)
            names[n++] = r->seats[i]->name;
    return n;
}
