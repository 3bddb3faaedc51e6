/*
 * room_game.c - the table of rooms, starting and restoring them, and the
 * requests that change a game (see room.h).
 */
#include "room_impl.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utlist.h>

#include "archive.h"
#include "cond.h"
#include "errmap.h"
#include "counters.h"
#include "store.h"
#include "store_aside.h"

uv_loop_t *room__loop;
store *room__db;
int64_t room__abandon_ms;

static room *rooms; /* by id (hh) */

void room_init(uv_loop_t *l, store *s, int64_t abandon_ms)
{
    room__loop = l;
    room__db = s;
    room__abandon_ms = abandon_ms;
}

room *room_find(int64_t id)
{
    room *r = NULL;
    HASH_FIND(hh, rooms, &id, sizeof id, r);
    return r;
}

int64_t room_id(const room *r)
{
    return r->id;
}

int room__seat_of(const room *r, const ident *who)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i] == who)
            return i;
    return -1;
}

room *room__table(void)
{
    return rooms;
}

/* Seat the identities of r (their lists of rooms name it): 0, or -1 if
 * out of memory (none of them is seated then). */
static int seat_all(room *r)
{
    for (int i = 0; i < r->nseats; i++)
        if (ident_seat(r->seats[i], r) < 0) {
            log_kv(LOG_ERROR, "out of memory seating a room", "room=%lld", (long long)r->id);
            while (i-- > 0)
                ident_unseat(r->seats[i], r);
            return -1;
        }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Freeing: a finished room nobody watches, with nothing left to store. */

/* Seat i stops counting as a game in progress (it left, the game ended). */
static void uncharge(room *r, int i)
{
    if (!r->charged[i])
        return;
    r->charged[i] = false;
    quota_game_sub(r->seats[i], r->addr[i], r->corr.days > 0);
}

static void charge(room *r, int i)
{
    r->charged[i] = true;
    quota_game_add(r->seats[i], r->addr[i], r->corr.days > 0);
}

static void room_free(room *r)
{
    for (int i = 0; i < r->nseats; i++) {
        uncharge(r, i);
        quota_addr_put(r->addr[i]);
        ident_unseat(r->seats[i], r);
    }
    rules_game_free(r->g);
    room__events_free(r);
    free(r);
}

static void on_timer_closed(uv_handle_t *h)
{
    room *r = h->data;
    if (--r->open_handles == 0)
        room_free(r);
}

static void room_close(room *r)
{
    if (!r->lost) /* a lost room left the table at once (room_takeover.c) */
        HASH_DELETE(hh, rooms, r);
    r->closing = true;
    room__bot_cancel(r); /* its answer would name r */
    metrics_now.rooms--;
    if (!r->finished)
        metrics_game(r->g->variant, -1);
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
    uv_close((uv_handle_t *)&r->abandon, on_timer_closed);
}

void room__table_remove(room *r)
{
    HASH_DELETE(hh, rooms, r);
    r->lost = true;
}

void room__maybe_free(room *r)
{
    if (r->closing || r->pending > 0)
        return;
    if (r->lost || (r->g->result.over && r->nwatchers == 0))
        room_close(r);
}

static void table_add(room *r)
{
    HASH_ADD(hh, rooms, id, sizeof r->id, r);
    metrics_now.rooms++;
    metrics_game(r->g->variant, 1);
}

/* ------------------------------------------------------------------------ */
/* The end of a game, and of one player's part in it. */

/* The game is over: queue its result; e (or NULL), the event saying so,
 * waits for it. */
static void game_finished(room *r, outbox_ev *e)
{
    if (r->finished || !r->g->result.over) {
        if (e != NULL)
            e->durable = true;
        return;
    }
    r->finished = true;
    metrics_game(r->g->variant, -1);
    log_kv(LOG_INFO, "game over", "room=%lld game=%s reason=%s winner=%d", (long long)r->id,
           r->g->variant->id, rules_reason_name(r->g->result.reason), r->g->result.winner);
    for (int i = 0; i < r->nseats; i++)
        uncharge(r, i);
    room__ratings_before(r);
    room__store_result(r, e);
}

void room__player_leaves(room *r, int s, rules_reason reason)
{
    room__clock_settle(r);
    if (rules_game_leave(r->g, s, reason) < 0)
        return;
    r->left[s] = (int)reason;
    uncharge(r, s);
    r->draw_offers = 0;
    if (reason == RULES_REASON_TIMEOUT)
        r->clocks[s] = 0;
    /* The event is linked now (its seq fixed) and written after the leave
     * is queued: a correspondence deadline is the store's answer to it. */
    r->seq++;
    outbox_ev *e = room__ev_link(r, true);
    if (e != NULL)
        e->room = r;
    bool over = r->g->result.over;
    if (!over)
        room__store_leaves(r, e);
    room__clock_arm(r);
    int64_t deadlines[RULES_MAX_PLAYERS];
    if (r->corr.days > 0)
        room__corr_clocks(r, deadlines);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_event_left(&o, r->id, r->seq, s, (int)reason, r->g, r->clocks, r->clock_running);
    room__corr_event(r, &o, deadlines);
    if (e != NULL)
        room__ev_fill(r, e, &o);
    else
        proto_out_free(&o);
    if (over)
        game_finished(r, e);
    room__flush(r);
    room__bot_kick(r);
}

/* End the game without a winner (agreement, abort). */
void room__end_drawn(room *r, rules_reason why)
{
    room__clock_settle(r);
    rules_game_end_draw(r->g, why);
    room__clock_arm(r);
    proto_out o;
    room__new_event(r, &o);
    proto_write_event_end(&o, r->id, r->seq, r->g, r->clocks);
    outbox_ev *e = room__push_event(r, &o, false, false);
    if (e != NULL)
        e->room = r;
    game_finished(r, e);
    room__flush(r);
    room__bot_kick(r);
}

/* ------------------------------------------------------------------------ */
/* Starting. */

/* The store could not write the game's creation (after its retries): the
 * game exists nowhere but here, so it ends, aborted, once the moves queued
 * behind it have failed with it and been taken back. At close
 * (STORE_ECLOSED) nothing is ended: the server is stopping. */
static void abort_unstored(room *r)
{
    if (!r->unstored || r->pending > 0 || r->closing || r->lost || r->g->result.over)
        return;
    log_kv(LOG_ERROR, "the game could not be stored: aborted", "room=%lld", (long long)r->id);
    room__end_drawn(r, RULES_REASON_ABORTED);
}

static void on_created(void *arg, int status)
{
    room *r = arg;
    r->pending--;
    if (status < 0 && status != STORE_ECLOSED)
        r->unstored = true;
    else if (status == 0 && !r->quiet)
        room__notify_start(r);
    abort_unstored(r);
    room__maybe_free(r);
}

room *room_start(const room_settings *s, ident *const *seats, int nseats, const session *asker,
                 const proto_req *req, proto_err *err, char *why, size_t whylen)
{
    rules_game *g = NULL;
    int rerr = rules_game_new(&g, s->game, NULL, why, whylen);
    if (rerr < 0) {
        *err = rerr == RULES_EUNKNOWN_GAME ? PROTO_EUNKNOWN_GAME : PROTO_EINTERNAL;
        return NULL;
    }
    room *r = calloc(1, sizeof *r);
    if (r == NULL) {
        rules_game_free(g);
        *err = PROTO_EINTERNAL;
        return NULL;
    }
    /* The store numbers games; the room takes the same number. */
    char options[96 + RULES_MAX_PLAYERS * (IDENT_KEY_HEX + 6)];
    int n = snprintf(options, sizeof options, "{\"seat_keys\":[");
    bool bots = false;
    for (int i = 0; i < nseats; i++) {
        n += snprintf(options + n, sizeof options - (size_t)n, "%s\"%s\"", i ? "," : "",
                      seats[i]->key);
        bots |= seats[i]->bot > 0;
    }
    n += snprintf(options + n, sizeof options - (size_t)n, "]");
    /* The bots' levels by seat (0: a person), read back at restore and by
     * the archive. */
    for (int i = 0; bots && i < nseats; i++)
        n += snprintf(options + n, sizeof options - (size_t)n, "%s%d", i ? "," : ",\"bots\":[",
                      seats[i]->bot);
    snprintf(options + n, sizeof options - (size_t)n, "%s}", bots ? "]" : "");
    bool corr = s->corr.days > 0;
    store_new_game ng = {
        .variant = g->variant->id,
        .options = options,
        .kind = corr ? STORE_CORR : STORE_LIVE,
        .rated = s->rated,
        .nplayers = nseats,
        .tc = {s->base_ms, s->inc_ms, 0},
        .to_move = rules_game_to_move(g),
    };
    if (corr)
        ng.tc = (store_tc){s->corr.days * STORE_DAY_MS, s->corr.inc_days * STORE_DAY_MS,
                           s->corr.cap_days * STORE_DAY_MS};
    for (int i = 0; i < nseats; i++) {
        ng.players[i].account = seats[i]->account;
        ng.players[i].bot = seats[i]->bot;
        snprintf(ng.players[i].name, sizeof ng.players[i].name, "%s", seats[i]->name);
    }
    /* Seated first: once the creation is queued nothing can undo it, so
     * what may fail (memory for the identities' lists) comes before. */
    r->nseats = nseats;
    for (int i = 0; i < nseats; i++)
        r->seats[i] = seats[i];
    if (seat_all(r) < 0) {
        rules_game_free(g);
        free(r);
        *err = PROTO_EINTERNAL;
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    int serr = store_game_create(room__db, &ng, &r->id, on_created, r, why, whylen);
    if (serr < 0) {
        for (int i = 0; i < nseats; i++)
            ident_unseat(seats[i], r);
        rules_game_free(g);
        free(r);
        *err = proto_err_from_code(store_err_code(serr), PROTO_ESTORAGE);
        return NULL;
    }
    r->pending = 1; /* the creation */
    r->g = g;
    r->base_ms = corr ? 0 : s->base_ms;
    r->inc_ms = corr ? 0 : s->inc_ms;
    r->rated = s->rated;
    r->corr = s->corr;
    for (int i = 0; i < nseats; i++) {
        r->left[i] = -1;
        r->clocks[i] = r->base_ms;
        r->addr[i] = s->addr[i];
        quota_addr_ref(r->addr[i]);
        charge(r, i);
    }
    r->quiet = room__quiet;
    room__timers_init(r);
    table_add(r);
    log_kv(LOG_INFO, "game started", "room=%lld game=%s seats=%d corr=%d", (long long)r->id,
           r->g->variant->id, nseats, r->corr.days > 0 ? 1 : 0);
    room__clock_arm(r);
    for (int i = 0; i < nseats; i++)
        if (seats[i]->sessions == NULL && seats[i]->bot == 0)
            r->away_since[i] = uv_now(room__loop);
    room__abandon_arm(r);

    for (int i = 0; i < nseats && !room__quiet; i++) {
        session *c;
        DL_FOREACH2(seats[i]->sessions, c, inext)
        {
            proto_out o;
            proto_out_init(&o, NET_HEADROOM);
            proto_write_game_started(&o, c == asker ? req : NULL, r->id, i, g->variant->id);
            session_send_out(c, &o);
            if (room__watch(r, c) == 0)
                room__send_state(r, c, NULL);
        }
    }
    room__bot_kick(r);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Moves. */

/* The seat of s in r, or an error (not a player / game over). */
int room__acting_seat(room *r, const session *s, bool need_playing, char *why, size_t whylen)
{
    int seat = room__seat_of(r, s->who);
    if (seat < 0) {
        rules_why(why, whylen, "you have no seat in room %lld", (long long)r->id);
        return -PROTO_ENOT_A_PLAYER;
    }
    if (need_playing && r->g->result.over) {
        rules_why(why, whylen, "the game is over");
        return -PROTO_EGAME_OVER;
    }
    if (need_playing && r->left[seat] >= 0) {
        rules_why(why, whylen, "you have left this game");
        return -PROTO_EGAME_OVER;
    }
    if (need_playing && r->takeback_busy) { /* room_takeback.c: the store answers first */
        rules_why(why, whylen, "a takeback is being stored: try again in a moment");
        return -PROTO_ETAKEBACK_PENDING;
    }
    return seat;
}

/* Storage refused a move: take it back with every move played after it
 * (the store fails those too, and has the game as the disk has it again:
 * a conditional answer or a bot may have moved at once), leaves at their
 * place, drop its event and tell its author. */
static void move_failed(room *r, outbox_ev *e, int status)
{
    int seat = e->seat;
    if ((size_t)e->ply < r->g->nmoves) {
        rules_game *g = NULL;
        if (rules_game_clone(&g, r->g, (size_t)e->ply) == 0) {
            /* Players who left after the move still left. */
            for (int i = 0; i < r->g->nleft; i++)
                if (r->g->left[i].after > (size_t)e->ply && !g->result.over)
                    rules_game_leave(g, r->g->left[i].player, r->g->left[i].reason);
            rules_game_free(r->g);
            r->g = g;
            if (r->finished && !g->result.over) {
                /* The move ended the game: it goes on (the result failed
                 * with it). */
                r->finished = false;
                metrics_game(r->g->variant, 1);
            }
            room__clock_arm(r);
        }
    }
    room__outbox_drop(r, e);
    room__bot_kick(r); /* the position is the one before the move again */
    char why[RULES_WHY_TEXT];
    rules_why(why, sizeof why, "the move could not be stored (%s); it is not played",
              store_err_code(status));
    session *c;
    DL_FOREACH2(r->seats[seat]->sessions, c, inext)
    session_send_error(c, NULL, false, PROTO_ESTORAGE, why);
}

static void on_move_durable(void *arg, int status)
{
    outbox_ev *e = arg;
    room *r = e->room;
    r->pending--;
    if (status < 0)
        move_failed(r, e, status);
    else
        e->durable = true;
    if (status == 0) {
        room__notify_move(r, e->ply);
        room__push_move(r, e);
    }
    room__flush(r);
    abort_unstored(r);
    room__store_leaves(r, NULL); /* leaves that failed, once no move is in flight */
    room__maybe_free(r);
}

/*
 * The one commit point of a move: the move is queued in the store, and its
 * event becomes durable (and is broadcast, in seq order) when the store says
 * the transaction holding it is on disk.
 */
static int commit_move(room *r, outbox_ev *e, const char *text)
{
    store_move sm = {
        .ply = e->ply,
        .player = e->seat,
        .next = rules_game_to_move(r->g),
        .text = text,
    };
    for (int i = 0; i < r->nseats; i++)
        sm.clock_ms[i] = r->clocks[i];
    r->pending++;
    int err = store_move_append(room__db, r->id, &sm, on_move_durable, e);
    if (err < 0)
        on_move_durable(e, err);
    return err;
}

static int play_move(room *r, int s, const char *input, char *why, size_t whylen);

/*
 * Conditional moves: after every move of a two-player correspondence game
 * (the move queued at `ply`), a line of the player now to move may answer
 * it (cond_match); what is left of the lines goes back to the store, and
 * the answer is played like any move (and answered in turn). Lines that
 * wait for another ply are out of date (moves were played without asking)
 * and dropped. An answer the rules refuse drops that player's lines.
 */
static void cond_answer(room *r, int ply, const char *text)
{
    if (r->corr.days <= 0 || r->nseats != 2)
        return;
    int s = rules_game_to_move(r->g); /* whose lines answer the move */
    record_lines cl;
    int at;
    if (s < 0 || store_cond_get(room__db, r->id, s, &cl, &at) != 0 || cl.n == 0)
        return;
    char reply[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
    const char *rest[STORE_COND_MAX_LINES];
    int nrest = 0, found = 0;
    if (ply == at && cl.n <= STORE_COND_MAX_LINES)
        found = cond_match(cl.lines, cl.n, text, reply, rest, &nrest);
    if (store_cond_replace(room__db, r->id, s, rest, nrest, ply + 2) < 0 || !found)
        return;
    if (play_move(r, s, reply, why, sizeof why) != 0) {
        log_kv(LOG_INFO, "conditional move not played", "room=%lld move=%s why=\"%s\"",
               (long long)r->id, reply, why);
        store_cond_clear(room__db, r->id, s, NULL, NULL);
    }
}

int room_move(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    return room__play_as(r, s, req->move, why, whylen);
}

int room__play_as(room *r, int s, const char *input, char *why, size_t whylen)
{
    rules_game *g = r->g;
    room__clock_settle(r);
    if (r->clock_running && r->clocks[g->pos.to_move] <= 0) {
        /* The flag fell before the timer ran: the move comes too late. */
        int flagged = g->pos.to_move;
        room__player_leaves(r, flagged, RULES_REASON_TIMEOUT);
        if (flagged == s) {
            rules_why(why, whylen, "your time ran out");
            return PROTO_EGAME_OVER;
        }
        if (g->result.over) {
            rules_why(why, whylen, "the game is over");
            return PROTO_EGAME_OVER;
        }
    }
    return play_move(r, s, input, why, whylen);
}

/* Seat s plays `input` (checked by the rules core): stored, then broadcast
 * once durable. 0 or a proto_err with a why. */
static int play_move(room *r, int s, const char *input, char *why, size_t whylen)
{
    rules_game *g = r->g;
    rules_pos before = g->pos;
    /* The event exists before the move touches the game: once played, the
     * move is stored or taken back (move_failed), never left in memory
     * alone. */
    outbox_ev *e = room__ev_new(true);
    if (e == NULL) {
        rules_why(why, whylen, "out of memory: the move is not played");
        return PROTO_EINTERNAL;
    }
    rules_move m;
    int err = rules_game_play_text(g, s, input, &m, why, whylen);
    if (err < 0) {
        free(e);
        return proto_err_from_rules(err);
    }

    char text[RULES_MOVE_TEXT], disp[RULES_MOVE_TEXT];
    if (before.variant->print_move(&before, m, text, sizeof text) < 0)
        snprintf(text, sizeof text, "%s", input);
    if (rules_display_move(&before, m, disp, sizeof disp) < 0)
        snprintf(disp, sizeof disp, "%s", text);
    int caps[RULES_MAX_CELLS];
    int ncaps = rules_move_captures(&before, m, caps);

    if (room__timed(r) && r->moved[s]) /* its clock ran: not before its first move */
        r->clocks[s] += r->inc_ms;
    r->moved[s] = true;
    r->draw_offers = 0;
    room__clock_arm(r);
    metrics_now.moves++;

    /* The event is linked now (its seq fixed) but written once the move is
     * queued: a correspondence deadline is the store's answer to it. */
    r->seq++;
    room__ev_append(r, e);
    e->room = r;
    e->seat = s;
    e->ply = (int)g->nmoves - 1;
    e->to_move = g->result.over ? -1 : rules_game_to_move(g);
    if (commit_move(r, e, text) < 0)
        return 0; /* taken back, its author told (move_failed) */
    int64_t deadlines[RULES_MAX_PLAYERS];
    if (r->corr.days > 0)
        room__corr_clocks(r, deadlines);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_move_view mv = {
        .ply = (int)g->nmoves,
        .seat = s,
        .move = text,
        .display = disp,
        .captures = caps,
        .ncaptures = ncaps,
        .before = &before,
    };
    proto_write_event_move(&o, r->id, r->seq, &mv, g, r->clocks, r->clock_running);
    room__corr_event(r, &o, deadlines);
    room__ev_fill(r, e, &o);
    game_finished(r, NULL); /* after the move: written with it, in order */
    room__notify_turn(r, s);
    cond_answer(r, e->ply, text);
    room__bot_kick(r);
    room__maybe_free(r);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Resign, draws, abort, rematch, chat. */

int room_resign(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    room__player_leaves(r, s, RULES_REASON_RESIGNATION);
    room__maybe_free(r);
    return 0;
}

/* Seats still in the game. */
static unsigned remaining(const room *r)
{
    unsigned m = 0;
    for (int i = 0; i < r->nseats; i++)
        if (r->g->result.outcome[i] == RULES_OUTCOME_NONE)
            m |= 1u << i;
    return m;
}

int room_draw_offer(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    r->draw_offers |= 1u << s;
    room__push_offer(r, "draw_offer", s, r->draw_offers);
    /* The bots answer at once: each takes the draw or declines it. */
    unsigned bots = room__bot_seats(r);
    for (int i = 0; i < r->nseats; i++) {
        if (!(bots & (1u << i)) || (r->draw_offers & (1u << i)))
            continue;
        if (!room__bot_takes_draw(r, i)) {
            r->draw_offers = 0;
            room__push_offer(r, "draw_declined", i, 0);
            break;
        }
        r->draw_offers |= 1u << i;
        room__push_offer(r, "draw_offer", i, r->draw_offers);
    }
    unsigned need = remaining(r);
    if (r->draw_offers != 0 && (r->draw_offers & need) == need)
        room__end_drawn(r, RULES_REASON_AGREEMENT);
    room__maybe_free(r);
    return 0;
}

int room_draw_decline(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    r->draw_offers = 0;
    room__push_offer(r, "draw_declined", s, 0);
    return 0;
}

int room_abort(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    bool all_moved = true;
    for (int i = 0; i < r->nseats; i++)
        all_moved &= r->moved[i];
    if (all_moved) {
        rules_why(why, whylen, "every player has moved: resign or offer a draw");
        return PROTO_ECANNOT_ABORT;
    }
    room__end_drawn(r, RULES_REASON_ABORTED);
    room__maybe_free(r);
    return 0;
}

int room_bot_games_of(const ident *who)
{
    int n = 0;
    for (size_t i = 0; i < who->nrooms; i++) {
        const room *r = who->rooms[i];
        n += !r->closing && !r->g->result.over && room__bot_seats(r) != 0;
    }
    return n;
}

int room_active_of(const ident *who, int64_t *out, int max)
{
    int n = 0;
    for (size_t i = 0; i < who->nrooms && n < max; i++) {
        const room *r = who->rooms[i];
        if (!r->closing && !r->g->result.over)
            out[n++] = r->id;
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Restoring the games in progress at start-up. */

/* Seat keys from the options the room wrote at creation. */
static int seat_keys(const char *options, char keys[][IDENT_KEY_HEX + 1], int n)
{
    const char *p = options ? strstr(options, "\"seat_keys\"") : NULL;
    int k = 0;
    while (p != NULL && k < n) {
        p = strchr(p + (k == 0 ? 12 : 1), '"');
        if (p == NULL)
            break;
        const char *end = strchr(p + 1, '"');
        if (end == NULL || end - p - 1 != IDENT_KEY_HEX)
            break;
        memcpy(keys[k], p + 1, IDENT_KEY_HEX);
        keys[k][IDENT_KEY_HEX] = '\0';
        k++;
        p = end;
    }
    return k;
}

/* The bots' levels by seat from the options ("bots":[0,5,5]); 0 for every
 * seat if there are none. */
static void bot_levels(const char *options, int *levels, int n)
{
    memset(levels, 0, (size_t)n * sizeof *levels);
    const char *p = options ? strstr(options, "\"bots\":[") : NULL;
    if (p == NULL)
        return;
    p += strlen("\"bots\":[");
    for (int k = 0; k < n; k++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return;
        levels[k] = v >= 1 && v <= 8 ? (int)v : 0;
        p = end + (*end == ',');
    }
}

room *room__rebuild(const store_game_info *gi, char *why, size_t whylen)
{
    char rwhy[RULES_WHY_TEXT];
    char keys[RULES_MAX_PLAYERS][IDENT_KEY_HEX + 1];
    if (seat_keys(gi->options, keys, gi->nplayers) != gi->nplayers) {
        snprintf(why, whylen, "the game has no seat keys");
        return NULL;
    }
    rules_game *g = NULL;
    if (record_replay(gi, &g, rwhy, sizeof rwhy) < 0) {
        snprintf(why, whylen, "its moves do not replay: %s", rwhy);
        return NULL;
    }
    room *r = calloc(1, sizeof *r);
    if (r == NULL) {
        rules_game_free(g);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    r->id = gi->id;
    r->g = g;
    r->rated = gi->rated;
    if (gi->kind == STORE_CORR) {
        r->corr = (proto_corr){gi->tc.base_ms / STORE_DAY_MS, gi->tc.inc_ms / STORE_DAY_MS,
                               gi->tc.cap_ms / STORE_DAY_MS};
    } else {
        r->base_ms = gi->tc.base_ms;
        r->inc_ms = gi->tc.inc_ms;
    }
    r->nseats = gi->nplayers;
    /* Above every seq of the room's earlier lives (restarts, take-overs,
     * each of which may come again): the store's time x 16, which a life
     * would reach only with 16 events a millisecond. A client's `since`
     * from an earlier life gets the whole state. */
    uint64_t base = (uint64_t)store_now(room__db) * 16;
    r->seq = r->emitted_seq = r->seq_floor = base > 1u << 20 ? base : 1u << 20;
    int bots[RULES_MAX_PLAYERS];
    bot_levels(gi->options, bots, r->nseats);
    for (int i = 0; i < r->nseats; i++) {
        r->seats[i] = bots[i] > 0 ? ident_bot(bots[i])
                      : gi->players[i].account
                          ? ident_account(gi->players[i].account, gi->players[i].name)
                          : ident_restored(keys[i], gi->players[i].name);
        if (r->seats[i] == NULL) {
            snprintf(why, whylen, "out of memory");
            rules_game_free(g);
            free(r);
            return NULL;
        }
        r->left[i] = -1;
        r->clocks[i] = gi->nmoves || r->corr.days > 0 ? gi->clock_ms[i] : gi->tc.base_ms;
    }
    for (int i = 0; i < gi->nmoves; i++)
        r->moved[gi->moves[i].player] = true;
    for (int i = 0; i < gi->nleaves; i++)
        r->left[gi->leaves[i].player] = (int)gi->leaves[i].reason;
    for (int i = 0; i < r->nseats; i++)
        if (r->left[i] < 0)
            charge(r, i); /* to the identity only: the address is not known */
    r->leaves_queued = r->leaves_stored = g->nleft; /* on disk */
    if (seat_all(r) < 0) {
        snprintf(why, whylen, "out of memory");
        rules_game_free(g);
        free(r);
        return NULL;
    }
    room__timers_init(r);
    table_add(r);
    /* The time the server was down is not charged to anyone; nobody is
     * connected yet, so the abandonment clock starts for every seat; a
     * guest's from the game's last move (room_set_guest_abandon_ms: a
     * restart does not give its seat another few days). */
    room__clock_arm(r);
    uint64_t now = uv_now(room__loop) ? uv_now(room__loop) : 1;
    int64_t idle = store_now(room__db) - gi->last_move_ms;
    for (int i = 0; i < r->nseats; i++) {
        if (r->seats[i]->bot != 0)
            continue;
        r->away_since[i] = now;
        if (r->seats[i]->account == 0 && idle > 0)
            r->away_since[i] = (uint64_t)idle < now ? now - (uint64_t)idle : 1;
    }
    room__abandon_arm(r);
    room__bot_kick(r); /* a bot to move thinks again */
    room__notify_turn(r, -1);
    return r;
}

/* A game that does not come back is set aside (kept on disk, never tried
 * again by later starts until an operator clears it: OPERATING.md), so a
 * game that broke its restore cannot stop every start after it. */
static void on_restore(void *arg, const store_game_info *gi)
{
    char why[RULES_WHY_TEXT + 64];
    if (room__rebuild(gi, why, sizeof why) != NULL) {
        (*(int *)arg)++;
        return;
    }
    int err = store_set_aside(room__db, gi->id, why);
    log_kv(LOG_ERROR, "game set aside: not restored", "game=%lld variant=%s why=\"%s\" marked=%s",
           (long long)gi->id, gi->variant, why, err < 0 ? store_err_code(err) : "yes");
    metrics_now.games_set_aside++;
}

static void count_set_aside(void *arg, int64_t id, const char *variant, const char *why)
{
    (void)id, (void)variant, (void)why;
    (*(int64_t *)arg)++;
}

/* The store's deadline check: the player to move in a correspondence game
 * ran out of time; it leaves as with a live flag. */
static void on_corr_timeout(void *arg, int64_t game, int player)
{
    (void)arg;
    room *r = room_find(game);
    if (r == NULL || r->g->result.over || rules_game_to_move(r->g) != player)
        return;
    room__player_leaves(r, player, RULES_REASON_TIMEOUT);
    room__maybe_free(r);
}

int room_restore_all(void)
{
    int count = 0;
    int64_t aside = 0;
    if (store_set_aside_list(room__db, count_set_aside, &aside) >= 0 && aside > 0)
        log_kv(LOG_WARN, "games set aside at earlier starts",
               "count=%lld list=\"chameleon set-aside\"", (long long)aside);
    metrics_now.games_set_aside = aside;
    int err = store_load_in_progress(room__db, on_restore, &count);
    if (err < 0)
        return err;
    store_set_timeout_cb(room__db, on_corr_timeout, NULL);
    return count;
}

/* ------------------------------------------------------------------------ */
/* Shutdown. */

void room_stop_clocks(void)
{
    room__takeover_stop();
    room__bots_stop();
    room__notify_stop();
    room *r, *tmp;
    HASH_ITER(hh, rooms, r, tmp)
    {
        uv_timer_stop(&r->timer);
        uv_timer_stop(&r->abandon);
        room__bot_cancel(r);
    }
}

void room_shutdown(void)
{
    room *r, *tmp;
    HASH_ITER(hh, rooms, r, tmp)
    room_close(r);
    room__spectators_shutdown();
}
