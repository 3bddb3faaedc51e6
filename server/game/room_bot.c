/*
 * room_bot.c - the seats a bot holds: asking for its move, playing the
 * answer, resigning lost games, draw offers (see room.h).
 *
 * A room has at most one search under way: for the seat to move, in the
 * state of the game it was asked about (moves played, players left). Every
 * change of the room calls room__bot_kick, which keeps that search if it
 * is still about the room's position and cancels it otherwise; closing a
 * room cancels it (bot_cancel guarantees that the answer's callback, whose
 * argument is the room, is then never called).
 */
#include "room_impl.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

#include "search.h"

enum {
    /* Time for a move where no clock says how much: correspondence and
     * live games without a clock. */
    ROOM_BOT_FREE_MS = 1500,
    /* Resigning: at level ROOM_BOT_RESIGN_LEVEL and up, after this many
     * answers in a row scored at or below -ROOM_BOT_RESIGN_CP, or at once
     * when the search proves the game lost. */
    ROOM_BOT_RESIGN_LEVEL = 3,
    ROOM_BOT_RESIGN_CP = 1500,
    ROOM_BOT_RESIGN_AFTER = 3,
    /* A draw is taken when the bot's last score is at most this. */
    ROOM_BOT_DRAW_MARGIN = 30,
};

static bool stopped; /* shutdown: no search starts any more */

unsigned room__bot_seats(const room *r)
{
    unsigned m = 0;
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i]->bot > 0 && r->left[i] < 0 && r->g->result.outcome[i] == RULES_OUTCOME_NONE)
            m |= 1u << i;
    return m;
}

bool room__bot_takes_draw(const room *r, int s)
{
    return r->bot_scored[s] && r->bot_score[s] <= ROOM_BOT_DRAW_MARGIN;
}

void room__bot_cancel(room *r)
{
    bot_cancel(r->bot_job);
    r->bot_job = NULL;
}

void room__bots_stop(void)
{
    stopped = true;
}

/* The time the bot at seat s may spend on this move. */
static int64_t think_ms(const room *r, int s)
{
    if (!room__timed(r))
        return ROOM_BOT_FREE_MS;
    int64_t left = r->clocks[s];
    if (r->clock_running && r->g->pos.to_move == s)
        left -= (int64_t)(uv_now(room__loop) - r->turn_start);
    int moves = (int)(r->g->nmoves / (size_t)(r->nseats > 0 ? r->nseats : 1));
    return search_time_for_move(left, r->inc_ms, moves);
}

static void on_answer(void *arg, const bot_answer *a);

/* Whose bot games these are, for the fair share of the bots' threads: the
 * first person seated (an identity has at most 10 games with bots), or the
 * room itself when only bots play. */
static const void *owner_of(const room *r)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i]->bot == 0)
            return r->seats[i];
    return r;
}

void room__bot_kick(room *r)
{
    int s = r->closing || stopped || r->takeback_busy ? -1 : rules_game_to_move(r->g);
    bool bot_to_move = s >= 0 && r->seats[s]->bot > 0 && r->left[s] < 0;
    if (r->bot_job != NULL) {
        if (bot_to_move && r->bot_seat == s && r->bot_nmoves == r->g->nmoves &&
            r->bot_nleft == r->g->nleft)
            return; /* already thinking about this position */
        room__bot_cancel(r);
    }
    if (!bot_to_move)
        return;
    r->bot_seat = s;
    r->bot_nmoves = r->g->nmoves;
    r->bot_nleft = r->g->nleft;
    r->bot_job = bot_think(r->g, r->seats[s]->bot, think_ms(r, s), owner_of(r), on_answer, r);
    if (r->bot_job == NULL && !stopped)
        log_kv(LOG_ERROR, "the bot cannot think (out of memory?)", "room=%lld", (long long)r->id);
}

/* Is the game lost for the bot at seat s, after this answer? */
static bool resigns(room *r, int s, const bot_answer *a)
{
    r->bot_score[s] = a->score;
    r->bot_scored[s] = true;
    if (r->seats[s]->bot < ROOM_BOT_RESIGN_LEVEL)
        return false;
    if (a->score <= -SEARCH_WIN_BOUND)
        return true;
    r->bot_hopeless[s] = a->score <= -ROOM_BOT_RESIGN_CP ? r->bot_hopeless[s] + 1 : 0;
    return r->bot_hopeless[s] >= ROOM_BOT_RESIGN_AFTER;
}

/* On the loop: the search of r's bot is over; play its move. */
static void on_answer(void *arg, const bot_answer *a)
{
    room *r = arg;
    r->bot_job = NULL;
    int s = r->bot_seat;
    if (r->closing || r->g->result.over || rules_game_to_move(r->g) != s ||
        r->g->nmoves != r->bot_nmoves || r->g->nleft != r->bot_nleft) {
        room__bot_kick(r); /* cannot happen: kick cancels stale searches */
        return;
    }
    if (a->failed) {
        /* The search refused the position (a bug, or a position no game
         * should reach): the bot plays the first legal move below rather
         * than stop the game or the server. */
        log_kv(LOG_ERROR, "bot search failed: playing the first legal move",
               "room=%lld seat=%d nmoves=%zu nleft=%d", (long long)r->id, s, r->g->nmoves,
               r->g->nleft);
    } else if (resigns(r, s, a)) {
        room__player_leaves(r, s, RULES_REASON_RESIGNATION);
        room__bot_kick(r);
        room__maybe_free(r);
        return;
    }
    char text[RULES_MOVE_TEXT], why[RULES_WHY_TEXT] = "";
    const rules_pos *p = &r->g->pos;
    rules_move m = a->best != 0 ? a->best : r->g->legal[0];
    int err = p->variant->print_move(p, m, text, sizeof text) < 0
                  ? PROTO_EINTERNAL
                  : room__play_as(r, s, text, why, sizeof why);
    if (err != 0 && !r->g->result.over && rules_game_to_move(r->g) == s) {
        /* The search's move was refused (a bug): play the first legal one
         * rather than let the bot's clock run out. */
        log_kv(LOG_WARN, "bot move refused: playing another", "room=%lld move=%s why=\"%s\"",
               (long long)r->id, text, why);
        bot_note_refused();
        if (p->variant->print_move(p, r->g->legal[0], text, sizeof text) >= 0)
            room__play_as(r, s, text, why, sizeof why);
    }
    room__bot_kick(r);
    room__maybe_free(r);
}
