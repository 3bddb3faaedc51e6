/*
 * room.c - game rooms (see room.h).
 *
 * Event flow: a change writes its event at once (seq = ++room.seq, content
 * as of that moment) into the room's outbox; the outbox is flushed in order
 * up to the first event that is not yet durable. Only moves wait for
 * storage, so a chat line sent while a move is being stored is delivered
 * after that move, in seq order.
 */
#include "room.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "cond.h"
#include "metrics.h"
#include "store.h"

typedef struct outbox_ev {
    struct room *room;
    int seat, ply; /* a move: who played it, how many moves before it */
    uint64_t seq;
    net_msg *lean, *full; /* full: with board fields, NULL if nobody wants it */
    bool durable;
    bool board; /* a move or a leave: the board changed */
    struct outbox_ev *next;
} outbox_ev;

struct room {
    int64_t id;
    rules_game *g;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr; /* days > 0: correspondence; the store keeps the
                        deadlines and clocks (bank per seat) */
    int nseats;
    ident *seats[RULES_MAX_PLAYERS];
    int left[RULES_MAX_PLAYERS]; /* rules_reason, or -1 */
    bool moved[RULES_MAX_PLAYERS];
    int64_t clocks[RULES_MAX_PLAYERS];
    uint64_t turn_start; /* uv_now when the running clock was last settled */
    bool clock_running;
    uv_timer_t timer;
    uv_timer_t abandon;                     /* fires when an away seat abandons */
    uint64_t away_since[RULES_MAX_PLAYERS]; /* uv_now when its last connection
                                               went, 0 if present */
    int open_handles;                       /* timers not yet closed */
    uint64_t seq, emitted_seq;
    uint64_t seq_floor;               /* catchup only from here (rooms restored at start-up
                                         start above every seq of their previous life) */
    net_msg *ring[ROOM_EVENT_RING];   /* emitted lean events by seq % RING */
    bool ring_board[ROOM_EVENT_RING]; /* that event changed the board */
    outbox_ev *out_head, *out_tail;
    int pending; /* moves not yet durable */
    unsigned draw_offers, rematch_offers;
    int64_t next_room;
    proto_chat_line chat[ROOM_CHAT_KEEP];
    int nchat, chat_head;
    conn **watchers;
    int nwatchers, capwatchers;
    bool finished; /* game over was counted */
    bool closing;
    struct room *hnext;
};

static uv_loop_t *loop;
static store *db;
static int64_t abandon_after_ms;

enum { ROOM_BUCKETS = 4096 };
static room *rooms[ROOM_BUCKETS];

void room_init(uv_loop_t *l, store *s, int64_t abandon_ms)
{
    loop = l;
    db = s;
    abandon_after_ms = abandon_ms;
}

room *room_find(int64_t id)
{
    for (room *r = rooms[(uint64_t)id % ROOM_BUCKETS]; r != NULL; r = r->hnext)
        if (r->id == id && !r->closing)
            return r;
    return NULL;
}

static int seat_of(const room *r, const ident *who)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i] == who)
            return i;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Watchers. */

static bool watching(const room *r, const conn *c)
{
    for (int i = 0; i < c->nrooms; i++)
        if (c->rooms[i] == r)
            return true;
    return false;
}

static int watch(room *r, conn *c)
{
    if (watching(r, c))
        return 0;
    if (r->nwatchers == r->capwatchers) {
        int cap = r->capwatchers ? r->capwatchers * 2 : 4;
        conn **w = realloc(r->watchers, (size_t)cap * sizeof *w);
        if (w == NULL)
            return -1;
        r->watchers = w;
        r->capwatchers = cap;
    }
    if (c->nrooms == c->caprooms) {
        int cap = c->caprooms ? c->caprooms * 2 : 2;
        room **rs = realloc(c->rooms, (size_t)cap * sizeof *rs);
        if (rs == NULL)
            return -1;
        c->rooms = rs;
        c->caprooms = cap;
    }
    r->watchers[r->nwatchers++] = c;
    c->rooms[c->nrooms++] = r;
    return 0;
}

static void unwatch(room *r, conn *c)
{
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i] == c) {
            r->watchers[i] = r->watchers[--r->nwatchers];
            break;
        }
    for (int i = 0; i < c->nrooms; i++)
        if (c->rooms[i] == r) {
            c->rooms[i] = c->rooms[--c->nrooms];
            break;
        }
}

/* ------------------------------------------------------------------------ */
/* Freeing: a finished room nobody watches, with nothing left to store. */

static bool shutting_down; /* identities are freed before rooms then */

static void room_free(room *r)
{
    for (int i = 0; i < r->nseats && !shutting_down; i++)
        r->seats[i]->refs--;
    rules_game_free(r->g);
    for (int i = 0; i < ROOM_EVENT_RING; i++)
        net_msg_unref(r->ring[i]);
    while (r->out_head != NULL) {
        outbox_ev *e = r->out_head;
        r->out_head = e->next;
        net_msg_unref(e->lean);
        net_msg_unref(e->full);
        free(e);
    }
    free(r->watchers);
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
    room **p = &rooms[(uint64_t)r->id % ROOM_BUCKETS];
    while (*p != r)
        p = &(*p)->hnext;
    *p = r->hnext;
    r->closing = true;
    metrics_now.rooms--;
    if (!r->finished)
        metrics_now.games_in_progress--;
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
    uv_close((uv_handle_t *)&r->abandon, on_timer_closed);
}

static void maybe_free(room *r)
{
    if (r->closing || !r->g->result.over || r->nwatchers > 0 || r->pending > 0)
        return;
    room_close(r);
}

/* ------------------------------------------------------------------------ */
/* Events. */

static bool anyone_wants_board(const room *r)
{
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i]->board)
            return true;
    return false;
}

static void emit(room *r, outbox_ev *e)
{
    for (int i = 0; i < r->nwatchers; i++) {
        conn *w = r->watchers[i];
        net_send(w, w->board && e->full ? e->full : e->lean);
    }
    net_msg **slot = &r->ring[e->seq % ROOM_EVENT_RING];
    net_msg_unref(*slot);
    *slot = e->lean;
    r->ring_board[e->seq % ROOM_EVENT_RING] = e->board;
    e->lean = NULL;
    r->emitted_seq = e->seq;
}

static void flush(room *r)
{
    while (r->out_head != NULL && r->out_head->durable) {
        outbox_ev *e = r->out_head;
        r->out_head = e->next;
        if (r->out_head == NULL)
            r->out_tail = NULL;
        emit(r, e);
        net_msg_unref(e->lean);
        net_msg_unref(e->full);
        free(e);
    }
}

/* Queue the event written in lean (seq r->seq); with_board adds the board
 * for the watchers that want it. Returns the entry (for a move to mark
 * durable later) or NULL if out of memory. */
/* A new outbox entry for seq r->seq, linked at the tail, content not yet
 * written (ev_fill). */
static outbox_ev *ev_link(room *r, bool with_board)
{
    outbox_ev *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->seq = r->seq;
    e->board = with_board;
    if (r->out_tail)
        r->out_tail->next = e;
    else
        r->out_head = e;
    r->out_tail = e;
    return e;
}

/* Put the event written in lean into e (adding the board if e changed it). */
static void ev_fill(room *r, outbox_ev *e, proto_out *lean)
{
    if (e->board && anyone_wants_board(r) && !lean->oom) {
        proto_out full;
        proto_out_init(&full, net_headroom());
        proto_event_add_board(&full, proto_out_data(lean), lean->len, r->g);
        e->full = net_msg_from(&full);
    }
    e->lean = net_msg_from(lean);
}

static outbox_ev *push_event(room *r, proto_out *lean, bool with_board, bool durable)
{
    outbox_ev *e = ev_link(r, with_board);
    if (e == NULL) {
        proto_out_free(lean);
        return NULL;
    }
    e->durable = durable;
    ev_fill(r, e, lean);
    if (durable)
        flush(r);
    return e;
}

/* Correspondence: the clocks (banks) from the store and the deadline of
 * the seat to move (others 0). */
static void corr_clocks(room *r, int64_t deadlines[RULES_MAX_PLAYERS])
{
    int64_t dl = 0;
    memset(deadlines, 0, RULES_MAX_PLAYERS * sizeof *deadlines);
    if (store_corr_clock(db, r->id, &dl, r->clocks) < 0)
        return; /* finished: the store keeps only games in progress */
    int s = rules_game_to_move(r->g);
    if (s >= 0)
        deadlines[s] = dl;
}

/* Add the deadlines to a move or left event of a correspondence game
 * (deadlines: from corr_clocks, called before the event was written so that
 * its clocks are the store's too). */
static void corr_event(room *r, proto_out *o, const int64_t *deadlines)
{
    if (r->corr.days > 0)
        proto_event_add_corr(o, deadlines, r->nseats, store_now(db));
}

static void new_event(room *r, proto_out *o)
{
    r->seq++;
    proto_out_init(o, net_headroom());
}

/* ------------------------------------------------------------------------ */
/* Clocks. */

static bool timed(const room *r)
{
    return r->base_ms > 0;
}

/* Charge the time since the last settle to the player to move. */
static void clock_settle(room *r)
{
    if (!r->clock_running)
        return;
    uint64_t now = uv_now(loop);
    r->clocks[r->g->pos.to_move] -= (int64_t)(now - r->turn_start);
    r->turn_start = now;
}

static void on_flag(uv_timer_t *t);

/* Start the clock of the player to move (or stop all if the game is over). */
static void clock_arm(room *r)
{
    int s = rules_game_to_move(r->g);
    if (!timed(r) || s < 0) {
        r->clock_running = false;
        uv_timer_stop(&r->timer);
        return;
    }
    r->clock_running = true;
    r->turn_start = uv_now(loop);
    uv_timer_start(&r->timer, on_flag, r->clocks[s] > 0 ? (uint64_t)r->clocks[s] : 0, 0);
}

static void game_finished(room *r)
{
    if (r->finished || !r->g->result.over)
        return;
    r->finished = true;
    metrics_now.games_in_progress--;
    if (store_game_finish(db, r->id, &r->g->result, NULL, NULL) < 0)
        fprintf(stderr, "chameleon: room %lld: cannot store the result\n", (long long)r->id);
}

/* Seat s leaves the game that goes on (resign, flag, abandon). */
static void player_leaves(room *r, int s, rules_reason reason)
{
    clock_settle(r);
    if (rules_game_leave(r->g, s, reason) < 0)
        return;
    r->left[s] = (int)reason;
    r->draw_offers = 0;
    if (reason == RULES_REASON_TIMEOUT)
        r->clocks[s] = 0;
    if (!r->g->result.over &&
        store_game_leave(db, r->id, s, reason, rules_game_to_move(r->g), NULL, NULL) < 0)
        fprintf(stderr, "chameleon: room %lld: cannot store a leave\n", (long long)r->id);
    clock_arm(r);
    int64_t deadlines[RULES_MAX_PLAYERS];
    if (r->corr.days > 0)
        corr_clocks(r, deadlines);
    proto_out o;
    new_event(r, &o);
    proto_write_event_left(&o, r->id, r->seq, s, (int)reason, r->g, r->clocks, r->clock_running);
    corr_event(r, &o, deadlines);
    push_event(r, &o, true, true);
    game_finished(r);
}

static void on_flag(uv_timer_t *t)
{
    room *r = t->data;
    clock_settle(r);
    int s = rules_game_to_move(r->g);
    if (s < 0)
        return;
    if (r->clocks[s] > 0) { /* woke early: wait for the rest */
        clock_arm(r);
        return;
    }
    player_leaves(r, s, RULES_REASON_TIMEOUT);
    maybe_free(r);
}

/* ------------------------------------------------------------------------ */
/* Abandonment: a seat whose player has had no connection for
 * abandon_after_ms leaves the game (rules_game_leave, "abandonment"). */

static void on_abandon(uv_timer_t *t);

static void abandon_arm(room *r)
{
    uint64_t now = uv_now(loop), next = 0;
    /* Correspondence players are not expected to stay connected. */
    if (abandon_after_ms <= 0 || r->g->result.over || r->corr.days > 0) {
        uv_timer_stop(&r->abandon);
        return;
    }
    for (int i = 0; i < r->nseats; i++) {
        if (r->away_since[i] == 0 || r->left[i] >= 0)
            continue;
        uint64_t due = r->away_since[i] + (uint64_t)abandon_after_ms;
        if (next == 0 || due < next)
            next = due;
    }
    if (next == 0)
        uv_timer_stop(&r->abandon);
    else
        uv_timer_start(&r->abandon, on_abandon, next > now ? next - now : 0, 0);
}

static void on_abandon(uv_timer_t *t)
{
    room *r = t->data;
    uint64_t now = uv_now(loop);
    for (int i = 0; i < r->nseats && !r->g->result.over; i++)
        if (r->away_since[i] != 0 && r->left[i] < 0 &&
            now - r->away_since[i] >= (uint64_t)abandon_after_ms)
            player_leaves(r, i, RULES_REASON_ABANDONMENT);
    abandon_arm(r);
    maybe_free(r);
}

static void timers_init(room *r)
{
    uv_timer_init(loop, &r->timer);
    uv_timer_init(loop, &r->abandon);
    r->timer.data = r->abandon.data = r;
    r->open_handles = 2;
}

/* ------------------------------------------------------------------------ */
/* State for people. */

static proto_room_view view_of(const room *r, const ident *who)
{
    proto_room_view v = {
        .room = r->id,
        .seq = r->seq,
        .game = r->g,
        .rated = r->rated,
        .base_ms = r->base_ms,
        .inc_ms = r->inc_ms,
        .you = seat_of(r, who),
        .clock_running = r->clock_running,
        .draw_offers = r->draw_offers,
        .rematch_offers = r->rematch_offers,
    };
    uint64_t now = uv_now(loop);
    for (int i = 0; i < r->nseats; i++) {
        v.players[i] = (proto_player){r->seats[i]->id, r->seats[i]->name};
        v.connected[i] = r->seats[i]->conns != NULL;
        v.left[i] = r->left[i];
        v.clocks[i] = r->clocks[i];
    }
    if (r->clock_running)
        v.clocks[r->g->pos.to_move] -= (int64_t)(now - r->turn_start);
    if (r->corr.days > 0) {
        v.corr = r->corr;
        corr_clocks((room *)r, v.deadlines);
        memcpy(v.clocks, r->clocks, sizeof v.clocks);
        v.now_ms = store_now(db);
    }
    return v;
}

static void send_state(room *r, conn *c, const proto_req *req)
{
    proto_room_view v = view_of(r, c->who);
    /* Chat ring in order, oldest first. */
    proto_chat_line *lines = NULL;
    if (r->nchat > 0) {
        lines = malloc((size_t)r->nchat * sizeof *lines);
        if (lines != NULL) {
            int first = (r->chat_head - r->nchat + ROOM_CHAT_KEEP) % ROOM_CHAT_KEEP;
            for (int i = 0; i < r->nchat; i++)
                lines[i] = r->chat[(first + i) % ROOM_CHAT_KEEP];
            v.chat = lines;
            v.nchat = r->nchat;
        }
    }
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_room(&o, req, &v);
    free(lines);
    net_send_out(c, &o);
}

/* ------------------------------------------------------------------------ */
/* Starting. */

room *room_start(const room_settings *s, ident *const *seats, int nseats, const conn *asker,
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
    char options[64 + RULES_MAX_PLAYERS * (HUB_KEY_HEX + 3)];
    int n = snprintf(options, sizeof options, "{\"seat_keys\":[");
    for (int i = 0; i < nseats; i++)
        n += snprintf(options + n, sizeof options - (size_t)n, "%s\"%s\"", i ? "," : "",
                      seats[i]->key);
    snprintf(options + n, sizeof options - (size_t)n, "]}");
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
        snprintf(ng.players[i].name, sizeof ng.players[i].name, "%s", seats[i]->name);
    }
    int serr = store_game_create(db, &ng, &r->id, NULL, NULL, why, whylen);
    if (serr < 0) {
        rules_game_free(g);
        free(r);
        *err = proto_err_from_code(store_err_code(serr), PROTO_ESTORAGE);
        return NULL;
    }
    r->g = g;
    r->base_ms = corr ? 0 : s->base_ms;
    r->inc_ms = corr ? 0 : s->inc_ms;
    r->rated = s->rated;
    r->corr = s->corr;
    r->nseats = nseats;
    for (int i = 0; i < nseats; i++) {
        r->seats[i] = seats[i];
        seats[i]->refs++;
        r->left[i] = -1;
        r->clocks[i] = r->base_ms;
    }
    timers_init(r);
    unsigned b = (uint64_t)r->id % ROOM_BUCKETS;
    r->hnext = rooms[b];
    rooms[b] = r;
    metrics_now.rooms++;
    metrics_now.games_in_progress++;
    clock_arm(r);
    for (int i = 0; i < nseats; i++)
        if (seats[i]->conns == NULL)
            r->away_since[i] = uv_now(loop);
    abandon_arm(r);

    for (int i = 0; i < nseats; i++)
        for (conn *c = seats[i]->conns; c != NULL; c = c->inext) {
            proto_out o;
            proto_out_init(&o, net_headroom());
            proto_write_game_started(&o, c == asker ? req : NULL, r->id, i, g->variant->id);
            net_send_out(c, &o);
            if (watch(r, c) == 0)
                send_state(r, c, NULL);
        }
    return r;
}

/* ------------------------------------------------------------------------ */
/* Handlers. */

/* The seat of c in r, or an error (not a player / game over). */
static int acting_seat(room *r, const conn *c, bool need_playing, char *why, size_t whylen)
{
    int s = seat_of(r, c->who);
    if (s < 0) {
        rules_why(why, whylen, "you have no seat in room %lld", (long long)r->id);
        return -PROTO_ENOT_A_PLAYER;
    }
    if (need_playing && r->g->result.over) {
        rules_why(why, whylen, "the game is over");
        return -PROTO_EGAME_OVER;
    }
    if (need_playing && r->left[s] >= 0) {
        rules_why(why, whylen, "you have left this game");
        return -PROTO_EGAME_OVER;
    }
    return s;
}

int room_join(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    if (watch(r, c) < 0)
        return PROTO_EINTERNAL;
    uint64_t since = (uint64_t)req->since;
    bool catchup = (req->present & PF_SINCE) && req->since >= 0 && since >= r->seq_floor &&
                   since <= r->emitted_seq && r->emitted_seq - since <= ROOM_EVENT_RING;
    if (!catchup) {
        send_state(r, c, req);
        return 0;
    }
    const char *evs[ROOM_EVENT_RING];
    size_t lens[ROOM_EVENT_RING];
    int n = 0, last_board = -1;
    for (uint64_t s = since + 1; s <= r->emitted_seq; s++) {
        net_msg *m = r->ring[s % ROOM_EVENT_RING];
        if (m == NULL)
            continue;
        if (r->ring_board[s % ROOM_EVENT_RING])
            last_board = n;
        evs[n] = m->buf + m->head;
        lens[n] = m->len;
        n++;
    }
    /* The ring keeps lean events; a client that wants the board gets it on
     * the last event that changed it (the board now, as later events do not
     * change it). */
    proto_out full = {0};
    if (c->board && last_board >= 0) {
        proto_out_init(&full, 0);
        proto_event_add_board(&full, evs[last_board], lens[last_board], r->g);
        evs[last_board] = proto_out_data(&full);
        lens[last_board] = full.len;
    }
    proto_room_view v = view_of(r, c->who);
    v.seq = r->emitted_seq;
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_catchup(&o, req, &v, evs, lens, n);
    proto_out_free(&full);
    net_send_out(c, &o);
    return 0;
}

void room_part(room *r, conn *c)
{
    unwatch(r, c);
    maybe_free(r);
}

/* Storage refused the last move: take it back (replay the others), drop
 * its event and tell its author. */
static void move_failed(room *r, outbox_ev *e, int status)
{
    for (outbox_ev **p = &r->out_head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    r->out_tail = NULL;
    for (outbox_ev *t = r->out_head; t; t = t->next)
        r->out_tail = t;
    if ((size_t)e->ply + 1 == r->g->nmoves) {
        rules_game *g = NULL;
        if (rules_game_new(&g, r->g->variant->id, NULL, NULL, 0) == 0) {
            for (size_t i = 0; i + 1 < r->g->nmoves; i++)
                rules_game_play(g, r->g->moves[i]);
            for (int i = 0; i < r->nseats; i++)
                if (r->left[i] >= 0 && !g->result.over)
                    rules_game_leave(g, i, (rules_reason)r->left[i]);
            rules_game_free(r->g);
            r->g = g;
            clock_arm(r);
        }
    }
    char why[RULES_WHY_TEXT];
    rules_why(why, sizeof why, "the move could not be stored (%s); it is not played",
              store_err_code(status));
    for (conn *c = r->seats[e->seat]->conns; c != NULL; c = c->inext)
        hub_send_error(c, NULL, false, PROTO_ESTORAGE, why);
    net_msg_unref(e->lean);
    net_msg_unref(e->full);
    free(e);
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
    flush(r);
    maybe_free(r);
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
    int err = store_move_append(db, r->id, &sm, on_move_durable, e);
    if (err < 0)
        on_move_durable(e, err);
    return err;
}

static int play_move(room *r, int s, const char *input, char *why, size_t whylen);

/*
 * Conditional moves: after every move of a two-player correspondence game
 * (the move queued at `ply`), the store says whether a line of the player
 * now to move answers it; the answer is played like any move (and answered
 * in turn). An answer the rules refuse drops that player's lines.
 */
static void cond_answer(room *r, int ply, const char *text)
{
    if (r->corr.days <= 0 || r->nseats != 2)
        return;
    char reply[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
    if (store_cond_reply(db, r->id, ply, text, reply) != 1)
        return;
    int s = rules_game_to_move(r->g);
    if (s < 0 || play_move(r, s, reply, why, sizeof why) != 0) {
        fprintf(stderr, "chameleon: room %lld: conditional move %s not played: %s\n",
                (long long)r->id, reply, why);
        if (s >= 0)
            store_cond_clear(db, r->id, s);
    }
}

int room_move(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    rules_game *g = r->g;
    clock_settle(r);
    if (r->clock_running && r->clocks[g->pos.to_move] <= 0) {
        /* The flag fell before the timer ran: the move comes too late. */
        int flagged = g->pos.to_move;
        player_leaves(r, flagged, RULES_REASON_TIMEOUT);
        if (flagged == s) {
            rules_why(why, whylen, "your time ran out");
            return PROTO_EGAME_OVER;
        }
        if (g->result.over) {
            rules_why(why, whylen, "the game is over");
            return PROTO_EGAME_OVER;
        }
    }
    return play_move(r, s, req->move, why, whylen);
}

/* Seat s plays `input` (checked by the rules core): stored, then broadcast
 * once durable. 0 or a proto_err with a why. */
static int play_move(room *r, int s, const char *input, char *why, size_t whylen)
{
    rules_game *g = r->g;
    rules_pos before = g->pos;
    rules_move m;
    int err = rules_game_play_text(g, s, input, &m, why, whylen);
    if (err < 0)
        return proto_err_from_rules(err);

    char text[RULES_MOVE_TEXT], disp[RULES_MOVE_TEXT];
    if (before.variant->print_move(&before, m, text, sizeof text) < 0)
        snprintf(text, sizeof text, "%s", input);
    if (rules_display_move(&before, m, disp, sizeof disp) < 0)
        snprintf(disp, sizeof disp, "%s", text);
    int caps[RULES_MAX_CELLS];
    int ncaps = rules_move_captures(&before, m, caps);

    r->moved[s] = true;
    if (timed(r))
        r->clocks[s] += r->inc_ms;
    r->draw_offers = 0;
    clock_arm(r);
    metrics_now.moves++;

    /* The event is linked now (its seq fixed) but written once the move is
     * queued: a correspondence deadline is the store's answer to it. */
    r->seq++;
    outbox_ev *e = ev_link(r, true);
    if (e == NULL)
        return PROTO_EINTERNAL;
    e->room = r;
    e->seat = s;
    e->ply = (int)g->nmoves - 1;
    if (commit_move(r, e, text) < 0)
        return 0; /* taken back, its author told (move_failed) */
    int64_t deadlines[RULES_MAX_PLAYERS];
    if (r->corr.days > 0)
        corr_clocks(r, deadlines);
    proto_out o;
    proto_out_init(&o, net_headroom());
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
    corr_event(r, &o, deadlines);
    ev_fill(r, e, &o);
    game_finished(r); /* after the move, so the store gets them in order */
    cond_answer(r, e->ply, text);
    maybe_free(r);
    return 0;
}

int room_resign(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    player_leaves(r, s, RULES_REASON_RESIGNATION);
    maybe_free(r);
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

/* End the game without a winner (agreement, abort). */
static void end_drawn(room *r, rules_reason why)
{
    clock_settle(r);
    rules_game_end_draw(r->g, why);
    clock_arm(r);
    proto_out o;
    new_event(r, &o);
    proto_write_event_end(&o, r->id, r->seq, r->g, r->clocks);
    push_event(r, &o, false, true);
    game_finished(r);
}

/* Broadcast an offer event (draw_offer, draw_declined, rematch_offer): the
 * seat that acted and the seats whose offers now stand. */
static void push_offer_event(room *r, const char *kind, int seat, unsigned offers)
{
    proto_out o;
    new_event(r, &o);
    proto_write_event_offer(&o, r->id, r->seq, kind, seat, offers, r->nseats);
    push_event(r, &o, false, true);
}

int room_draw_offer(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    r->draw_offers |= 1u << s;
    push_offer_event(r, "draw_offer", s, r->draw_offers);
    unsigned need = remaining(r);
    if ((r->draw_offers & need) == need)
        end_drawn(r, RULES_REASON_AGREEMENT);
    maybe_free(r);
    return 0;
}

int room_draw_decline(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    r->draw_offers = 0;
    push_offer_event(r, "draw_declined", s, 0);
    return 0;
}

int room_abort(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, true, why, whylen);
    if (s < 0)
        return -s;
    bool all_moved = true;
    for (int i = 0; i < r->nseats; i++)
        all_moved &= r->moved[i];
    if (all_moved) {
        rules_why(why, whylen, "every player has moved: resign or offer a draw");
        return PROTO_ECANNOT_ABORT;
    }
    end_drawn(r, RULES_REASON_ABORTED);
    maybe_free(r);
    return 0;
}

int room_rematch(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    int s = acting_seat(r, c, false, why, whylen);
    if (s < 0)
        return -s;
    if (!r->g->result.over) {
        rules_why(why, whylen, "the game is still going on");
        return PROTO_EGAME_NOT_OVER;
    }
    if (r->next_room != 0)
        return 0; /* the rematch has started already */
    r->rematch_offers |= 1u << s;
    push_offer_event(r, "rematch_offer", s, r->rematch_offers);
    unsigned all = (1u << r->nseats) - 1;
    if ((r->rematch_offers & all) != all)
        return 0;
    /* Everyone asked: seats rotate by one, so colours change hands. */
    ident *seats[RULES_MAX_PLAYERS];
    for (int i = 0; i < r->nseats; i++)
        seats[i] = r->seats[(i + 1) % r->nseats];
    room_settings rs = {r->g->variant->id, r->base_ms, r->inc_ms, r->rated, r->corr};
    proto_err err = 0;
    room *next = room_start(&rs, seats, r->nseats, NULL, NULL, &err, why, whylen);
    if (next == NULL)
        return err;
    r->next_room = next->id;
    proto_out o;
    new_event(r, &o);
    proto_write_event_rematch(&o, r->id, r->seq, next->id);
    push_event(r, &o, false, true);
    return 0;
}

enum { CHAT_BURST = 5, CHAT_WINDOW_MS = 10000 };

int room_chat(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    uint64_t now = uv_now(loop);
    /* chat_times holds the last CHAT_BURST send times: the oldest must be
     * outside the window. */
    uint64_t oldest = c->chat_times[c->chat_i];
    if (oldest != 0 && now - oldest < CHAT_WINDOW_MS) {
        rules_why(why, whylen, "at most %d chat messages per %d s", CHAT_BURST,
                  CHAT_WINDOW_MS / 1000);
        return PROTO_ERATE_LIMITED;
    }
    c->chat_times[c->chat_i] = now ? now : 1;
    c->chat_i = (c->chat_i + 1) % CHAT_BURST;

    proto_chat_line *line = &r->chat[r->chat_head];
    line->seat = seat_of(r, c->who);
    snprintf(line->name, sizeof line->name, "%s", c->who->name);
    snprintf(line->text, sizeof line->text, "%s", req->text);
    r->chat_head = (r->chat_head + 1) % ROOM_CHAT_KEEP;
    if (r->nchat < ROOM_CHAT_KEEP)
        r->nchat++;
    proto_out o;
    new_event(r, &o);
    proto_write_event_chat(&o, r->id, r->seq, line);
    push_event(r, &o, false, true);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Connections and presence. */

void room_conn_closed(conn *c)
{
    while (c->nrooms > 0) {
        room *r = c->rooms[c->nrooms - 1];
        unwatch(r, c);
        maybe_free(r);
    }
    free(c->rooms);
    c->rooms = NULL;
    c->caprooms = 0;
}

void room_presence(ident *who, bool connected)
{
    for (int b = 0; b < ROOM_BUCKETS; b++)
        for (room *r = rooms[b]; r != NULL; r = r->hnext) {
            int s = seat_of(r, who);
            if (s < 0 || r->g->result.over)
                continue;
            r->away_since[s] = connected ? 0 : (uv_now(loop) ? uv_now(loop) : 1);
            abandon_arm(r);
            proto_out o;
            new_event(r, &o);
            proto_write_event_presence(&o, r->id, r->seq, s, connected);
            push_event(r, &o, false, true);
        }
}

int room_active_of(const ident *who, int64_t *out, int max)
{
    int n = 0;
    for (int b = 0; b < ROOM_BUCKETS; b++)
        for (room *r = rooms[b]; r != NULL && n < max; r = r->hnext)
            if (!r->closing && !r->g->result.over && seat_of(r, who) >= 0)
                out[n++] = r->id;
    return n;
}

/* Seat keys from the options the room wrote at creation. */
static int seat_keys(const char *options, char keys[][HUB_KEY_HEX + 1], int n)
{
    const char *p = options ? strstr(options, "\"seat_keys\"") : NULL;
    int k = 0;
    while (p != NULL && k < n) {
        p = strchr(p + (k == 0 ? 12 : 1), '"');
        if (p == NULL)
            break;
        const char *end = strchr(p + 1, '"');
        if (end == NULL || end - p - 1 != HUB_KEY_HEX)
            break;
        memcpy(keys[k], p + 1, HUB_KEY_HEX);
        keys[k][HUB_KEY_HEX] = '\0';
        k++;
        p = end;
    }
    return k;
}

static void on_restore(void *arg, const store_game_info *gi)
{
    int *count = arg;
    char why[RULES_WHY_TEXT];
    char keys[RULES_MAX_PLAYERS][HUB_KEY_HEX + 1];
    if (seat_keys(gi->options, keys, gi->nplayers) != gi->nplayers) {
        fprintf(stderr, "chameleon: game %lld has no seat keys: not restored\n", (long long)gi->id);
        return;
    }
    rules_game *g = NULL;
    if (record_replay(gi, &g, why, sizeof why) < 0) {
        fprintf(stderr, "chameleon: game %lld does not replay: %s\n", (long long)gi->id, why);
        return;
    }
    room *r = calloc(1, sizeof *r);
    if (r == NULL) {
        rules_game_free(g);
        return;
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
    r->seq = r->emitted_seq = r->seq_floor = 1u << 20;
    for (int i = 0; i < r->nseats; i++) {
        r->seats[i] = gi->players[i].account
                          ? hub_ident_account(gi->players[i].account, gi->players[i].name)
                          : hub_ident_restored(keys[i], gi->players[i].name);
        if (r->seats[i] == NULL) {
            fprintf(stderr, "chameleon: out of memory restoring game %lld\n", (long long)gi->id);
            abort();
        }
        r->seats[i]->refs++;
        r->left[i] = -1;
        r->clocks[i] = gi->nmoves || r->corr.days > 0 ? gi->clock_ms[i] : gi->tc.base_ms;
    }
    for (int i = 0; i < gi->nmoves; i++)
        r->moved[gi->moves[i].player] = true;
    for (int i = 0; i < gi->nleaves; i++)
        r->left[gi->leaves[i].player] = (int)gi->leaves[i].reason;
    timers_init(r);
    unsigned b = (uint64_t)r->id % ROOM_BUCKETS;
    r->hnext = rooms[b];
    rooms[b] = r;
    metrics_now.rooms++;
    metrics_now.games_in_progress++;
    /* The time the server was down is not charged to anyone; nobody is
     * connected yet, so the abandonment clock starts for every seat. */
    clock_arm(r);
    for (int i = 0; i < r->nseats; i++)
        r->away_since[i] = uv_now(loop) ? uv_now(loop) : 1;
    abandon_arm(r);
    (*count)++;
}

/* The store's deadline check: the player to move in a correspondence game
 * ran out of time; it leaves as with a live flag. */
static void on_corr_timeout(void *arg, int64_t game, int player)
{
    (void)arg;
    room *r = room_find(game);
    if (r == NULL || r->g->result.over || rules_game_to_move(r->g) != player)
        return;
    player_leaves(r, player, RULES_REASON_TIMEOUT);
    maybe_free(r);
}

int room_restore_all(void)
{
    int count = 0;
    int err = store_load_in_progress(db, on_restore, &count);
    if (err < 0)
        return err;
    store_set_timeout_cb(db, on_corr_timeout, NULL);
    return count;
}

/* A line in the rules core's own move texts (what store_cond_reply compares
 * with), checked by replaying it after the game's moves: opponent first. */
static int cond_canon(const room *r, int me, const char *line, char *out, size_t outlen, char *why,
                      size_t whylen)
{
    int err = cond_check_line(r->g, me, line, out, outlen, why, whylen);
    return err < 0 ? (int)proto_err_from_code(cond_err_code(err), PROTO_EINTERNAL) : 0;
}

int room_cond(room *r, conn *c, const proto_req *req, char *why, size_t whylen)
{
    if (c->who->account == 0) {
        rules_why(why, whylen, "conditional moves need an account: log in");
        return PROTO_EACCOUNT_REQUIRED;
    }
    int s = acting_seat(r, c, true, why, whylen); /* lines end with the game */
    if (s < 0)
        return -s;
    if (r->corr.days <= 0 || r->nseats != 2) {
        rules_why(why, whylen, "conditional moves are for two-player correspondence games");
        return PROTO_ENOT_CORRESPONDENCE;
    }
    int err = 0;
    if (req->type == PROTO_COND_SET) {
        if (rules_game_to_move(r->g) == s) {
            rules_why(why, whylen, "%s", store_err_text(STORE_ENOT_YOUR_TURN));
            return PROTO_ENOT_YOUR_TURN;
        }
        static char canon[PROTO_COND_LINES][PROTO_COND_LINE_MAX + 1];
        const char *lines[PROTO_COND_LINES];
        for (int i = 0; i < req->nlines; i++) {
            err = cond_canon(r, s, req->lines[i], canon[i], sizeof canon[i], why, whylen);
            if (err)
                return err;
            lines[i] = canon[i];
        }
        err = store_cond_set(db, r->id, s, lines, req->nlines, why, whylen);
    } else if (req->type == PROTO_COND_CLEAR) {
        err = store_cond_clear(db, r->id, s);
    }
    record_lines cl;
    char *json = NULL;
    if (err == 0)
        err = store_cond_get(db, r->id, s, &cl);
    if (err == 0 && (json = archive_lines_json(&cl)) == NULL)
        err = STORE_ENOMEM;
    if (err < 0)
        return hub_store_fail(err, why, whylen);
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_cond(&o, req, r->id, json);
    free(json);
    net_send_out(c, &o);
    return 0;
}

void room_stop_clocks(void)
{
    for (int b = 0; b < ROOM_BUCKETS; b++)
        for (room *r = rooms[b]; r != NULL; r = r->hnext) {
            uv_timer_stop(&r->timer);
            uv_timer_stop(&r->abandon);
        }
}

void room_shutdown(void)
{
    shutting_down = true;
    for (int b = 0; b < ROOM_BUCKETS; b++)
        while (rooms[b] != NULL)
            room_close(rooms[b]);
}
