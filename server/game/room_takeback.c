/*
 * room_takeback.c - takebacks in live two-player games, rated or not (see
 * room.h, PROTOCOL.md "Takebacks, rematches and downloads").
 *
 * A player asks to take back their last move; the opponent accepts (sends
 * takeback too) or declines. As lichess does, the moves taken back are the
 * asker's last one and, if the opponent has answered it already, that
 * answer too; the clocks keep their time (nothing is given back), the
 * clock of the player now to move runs. An offer counts for the position
 * it was made in: once a move is played, an accept is a new offer.
 *
 * Durable first: the store deletes the moves (store_takeback, queued like
 * a move), and only once that is on disk does the room rewind its game and
 * tell everyone (the `takeback` event with the new turn and board). Moves
 * wait meanwhile, and so do resign, draws and abort (room__acting_seat
 * refuses them: takeback_pending); the clock stands still and no bot
 * thinks. In rated games too, as on lichess: the opponent decides, and
 * the rating follows the moves that stay. Refused in correspondence games
 * (a move there is considered, and deadlines and conditional moves follow
 * the moves) and three-player games (a move taken back changes what the
 * third player answered, and leaves sit between moves).
 */
#include "room_impl.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

#include <utlist.h>

#include "counters.h"
#include "store.h"

/* Why r has no takebacks (a sentence), or NULL. */
static const char *refused(const room *r)
{
    if (r->corr.days > 0)
        return "no takebacks in correspondence games";
    if (r->nseats != 2)
        return "no takebacks in three-player games";
    return NULL;
}

/* How many moves to take back for seat s: back to before its last move
 * (1 if it played the last move, 2 if the opponent answered it), 0 if s
 * has no move to take back. */
static int to_remove(const room *r, int s)
{
    const rules_game *g = r->g;
    int n = (int)g->nmoves;
    /* Two players alternate from start.to_move (a pass is a move). */
    for (int k = 1; k <= 2 && k <= n; k++)
        if ((g->start.to_move + n - k) % 2 == s)
            return k;
    return 0;
}

typedef struct takeback_job {
    room *r;
    int asker, removed, nmoves;
} takeback_job;

static void tell(room *r, int seat, proto_err code, const char *why)
{
    session *c;
    DL_FOREACH2(r->seats[seat]->sessions, c, inext)
    session_send_error(c, NULL, false, code, why);
}

/* The store's answer: rewind the room to job->nmoves moves and say so. */
static void on_takeback_durable(void *arg, int status)
{
    takeback_job *job = arg;
    room *r = job->r;
    r->pending--;
    r->takeback_busy = false;
    rules_game *g = NULL;
    if (status == 0 && r->g->result.over) /* abandoned meanwhile: the result stands */
        log_kv(LOG_WARN, "takeback stored after the game ended", "room=%lld", (long long)r->id);
    if (status == 0 && !r->g->result.over && rules_game_clone(&g, r->g, (size_t)job->nmoves) == 0) {
        room__clock_settle(r);
        rules_game_free(r->g);
        r->g = g;
        for (int i = 0; i < r->nseats; i++) /* a seat with no move left may abort again */
            r->moved[i] = job->nmoves > (i - g->start.to_move + 2) % 2;
        r->draw_offers = 0;
        r->takeback_offers = 0;
        room__clock_arm(r);
        proto_out o;
        room__new_event(r, &o);
        proto_write_event_takeback(&o, r->id, r->seq, job->nmoves, job->removed, g, r->clocks,
                                   r->clock_running);
        room__push_event(r, &o, true, true);
        metrics_now.takebacks++;
        log_kv(LOG_INFO, "takeback", "room=%lld moves=%d removed=%d", (long long)r->id, job->nmoves,
               job->removed);
    } else {
        /* Nothing changed in the room; the store has the game as the disk
         * has it. */
        char why[RULES_WHY_TEXT];
        rules_why(why, sizeof why, "the takeback could not be stored (%s)",
                  status < 0 ? store_err_code(status) : "the game changed");
        r->takeback_offers = 0;
        room__push_offer(r, "takeback_declined", job->asker, 0);
        tell(r, job->asker, PROTO_ESTORAGE, why);
        if (g != NULL)
            rules_game_free(g);
        room__clock_arm(r);
    }
    free(job);
    room__bot_kick(r); /* a search about the old position stops */
    room__maybe_free(r);
}

/* Both agree: queue the deletion; the room changes once it is durable. */
static int start_takeback(room *r, int asker, int removed, char *why, size_t whylen)
{
    if (r->pending > 0) { /* the moves to delete must be on disk first */
        rules_why(why, whylen, "the last move is still being stored: try again in a moment");
        return PROTO_ETAKEBACK_PENDING;
    }
    takeback_job *job = malloc(sizeof *job);
    if (job == NULL)
        return PROTO_EINTERNAL;
    *job = (takeback_job){r, asker, removed, (int)r->g->nmoves - removed};
    room__clock_settle(r);
    /* The player to move once the moves are gone (two players alternate). */
    int next = (r->g->start.to_move + job->nmoves) % 2;
    int err =
        store_takeback(room__db, r->id, job->nmoves, next, r->clocks, on_takeback_durable, job);
    if (err < 0) {
        free(job);
        rules_why(why, whylen, "the takeback could not be stored (%s)", store_err_code(err));
        return PROTO_ESTORAGE;
    }
    r->pending++;
    r->takeback_busy = true;
    /* No flag falls while the store answers (the time is settled above). */
    r->clock_running = false;
    uv_timer_stop(&r->timer);
    room__bot_kick(r); /* no search meanwhile */
    return 0;
}

int room_takeback(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    const char *no = refused(r);
    if (no != NULL) {
        rules_why(why, whylen, "%s", no);
        return PROTO_ENO_TAKEBACK;
    }
    if (r->takeback_ply != (int)r->g->nmoves)
        r->takeback_offers = 0; /* offers made before the last move */
    int other = 1 - s;
    if (r->takeback_offers & (1u << other)) {
        /* The opponent asked: this accepts their takeback. */
        int removed = to_remove(r, other);
        if (removed == 0) {
            rules_why(why, whylen, "there is no move to take back");
            return PROTO_ENO_TAKEBACK;
        }
        return start_takeback(r, other, removed, why, whylen);
    }
    int removed = to_remove(r, s);
    if (removed == 0) {
        rules_why(why, whylen, "you have no move to take back");
        return PROTO_ENO_TAKEBACK;
    }
    if (r->seats[other]->bot > 0) /* bots agree to every takeback */
        return start_takeback(r, s, removed, why, whylen);
    r->takeback_offers = 1u << s;
    r->takeback_ply = (int)r->g->nmoves;
    room__push_offer(r, "takeback_offer", s, r->takeback_offers);
    return 0;
}

int room_takeback_decline(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    if (r->takeback_offers == 0 || r->takeback_ply != (int)r->g->nmoves) {
        rules_why(why, whylen, "no takeback is asked");
        return PROTO_ENO_TAKEBACK;
    }
    r->takeback_offers = 0;
    room__push_offer(r, "takeback_declined", s, 0);
    return 0;
}
