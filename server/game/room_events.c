/*
 * room_events.c - a room's events, watchers, and the state sent to a
 * session (see room.h).
 *
 * Event flow: a change writes its event at once (seq = ++room.seq, content
 * as of that moment) into the room's outbox; the outbox is flushed in order
 * up to the first event that is not yet durable. Only moves wait for
 * storage, so a chat line sent while a move is being stored is delivered
 * after that move, in seq order.
 */
#include "room_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "counters.h"
#include "rating.h"
#include "store.h"

/* ------------------------------------------------------------------------ */
/* The spectators' count: told to a room's watchers when it changes, at most
 * once a second (a crowd arriving is one message a second, not one per
 * arrival to each of them). */

enum { SPECTATORS_TELL_MS = 1000 };

static uv_timer_t tell_timer;
static bool tell_timer_on; /* initialised on tell_loop */
static uv_loop_t *tell_loop;

static int ident_order(const void *a, const void *b)
{
    const ident *x = *(const ident *const *)a, *y = *(const ident *const *)b;
    return x < y ? -1 : x > y;
}

int room__spectators(const room *r)
{
    if (r->nwatchers == 0)
        return 0;
    const ident **who = malloc(r->nwatchers * sizeof *who);
    if (who == NULL)
        return r->spectators_told;
    size_t n = 0;
    for (size_t i = 0; i < r->nwatchers; i++)
        if (r->watchers[i]->who != NULL && room__seat_of(r, r->watchers[i]->who) < 0)
            who[n++] = r->watchers[i]->who;
    qsort(who, n, sizeof *who, ident_order);
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += i == 0 || who[i] != who[i - 1];
    free(who);
    return count;
}

static void tell_spectators(uv_timer_t *t)
{
    (void)t;
    room *table = room__table(), *r, *tmp;
    HASH_ITER(hh, table, r, tmp)
    {
        if (!r->spectators_dirty)
            continue;
        r->spectators_dirty = false;
        int n = room__spectators(r);
        if (n == r->spectators_told || r->nwatchers == 0)
            continue;
        r->spectators_told = n;
        proto_out o;
        proto_out_init(&o, NET_HEADROOM);
        proto_write_spectators(&o, r->id, n);
        net_msg *m = net_msg_from(&o);
        for (size_t i = 0; m != NULL && i < r->nwatchers; i++)
            session_send(r->watchers[i], m);
        net_msg_unref(m);
    }
}

/* r's spectators may have changed: tell them within a second. */
static void spectators_changed(room *r)
{
    r->spectators_dirty = true;
    if (!tell_timer_on || tell_loop != room__loop) {
        if (uv_timer_init(room__loop, &tell_timer) != 0)
            return;
        uv_unref((uv_handle_t *)&tell_timer);
        tell_timer_on = true;
        tell_loop = room__loop;
    }
    if (!uv_is_active((uv_handle_t *)&tell_timer))
        uv_timer_start(&tell_timer, tell_spectators, SPECTATORS_TELL_MS, 0);
}

void room__spectators_shutdown(void)
{
    if (tell_timer_on)
        uv_close((uv_handle_t *)&tell_timer, NULL);
    tell_timer_on = false;
}

/* ------------------------------------------------------------------------ */
/* Watchers: r->watchers and s->rooms hold each other. */

bool room__watching(const room *r, const session *s)
{
    for (size_t i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r)
            return true;
    return false;
}

int room__watch(room *r, session *s)
{
    if (room__watching(r, s))
        return 0;
    if (array_reserve((void **)&r->watchers, &r->capwatchers, r->nwatchers + 1,
                      sizeof *r->watchers) < 0 ||
        array_reserve((void **)&s->rooms, &s->caprooms, s->nrooms + 1, sizeof *s->rooms) < 0)
        return -1;
    r->watchers[r->nwatchers++] = s;
    s->rooms[s->nrooms++] = r;
    /* Seats never change in a room's life: the same test on unwatch. */
    if (s->who != NULL && room__seat_of(r, s->who) < 0) {
        quota_watch_add(s);
        spectators_changed(r);
    }
    return 0;
}

static void unwatch(room *r, session *s)
{
    for (size_t i = 0; i < r->nwatchers; i++)
        if (r->watchers[i] == s) {
            r->watchers[i] = r->watchers[--r->nwatchers];
            break;
        }
    for (size_t i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r) {
            s->rooms[i] = s->rooms[--s->nrooms];
            if (s->who != NULL && room__seat_of(r, s->who) < 0) {
                quota_watch_sub(s);
                spectators_changed(r);
            }
            break;
        }
}

void room__drop_watchers(room *r, proto_err e, const char *why, const char *close_why)
{
    while (r->nwatchers > 0) {
        session *s = r->watchers[r->nwatchers - 1];
        session_send_error(s, NULL, false, e, why);
        unwatch(r, s);
        if (close_why != NULL)
            session_reconnect(s, close_why);
    }
}

void room_unwatch_all(session *s)
{
    while (s->nrooms > 0) {
        room *r = s->rooms[s->nrooms - 1];
        unwatch(r, s);
        room__maybe_free(r);
    }
}

/* ------------------------------------------------------------------------ */
/* Events. */

static bool anyone_wants_board(const room *r)
{
    for (size_t i = 0; i < r->nwatchers; i++)
        if (r->watchers[i]->flags & SESSION_BOARD)
            return true;
    return false;
}

/* Does the identity `who` read events for `audience` in r? A seat holder
 * is in the players' room, anyone else in the spectators'. */
static bool hears(const room *r, const ident *who, unsigned audience)
{
    if (audience == ROOM_TO_ALL)
        return true;
    return (room__seat_of(r, who) >= 0) == (audience == ROOM_TO_PLAYERS);
}

/* The "skip" event of seq in r: what a watcher outside an event's audience
 * gets instead, so that its numbering has no gap. */
static net_msg *skip_of(const room *r, uint64_t seq)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_event_skip(&o, r->id, seq);
    return net_msg_from(&o);
}

static void emit(room *r, outbox_ev *e)
{
    net_msg *skip = NULL;
    for (size_t i = 0; i < r->nwatchers; i++) {
        session *w = r->watchers[i];
        if (!hears(r, w->who, e->audience)) {
            if (skip == NULL)
                skip = skip_of(r, e->seq);
            if (skip != NULL)
                session_send(w, skip);
            continue;
        }
        session_send(w, (w->flags & SESSION_BOARD) && e->full ? e->full : e->lean);
    }
    net_msg_unref(skip);
    net_msg **slot = &r->ring[e->seq % ROOM_EVENT_RING];
    net_msg_unref(*slot);
    *slot = e->lean;
    r->ring_board[e->seq % ROOM_EVENT_RING] = e->board;
    r->ring_audience[e->seq % ROOM_EVENT_RING] = e->audience;
    e->lean = NULL;
    r->emitted_seq = e->seq;
}

static void ev_free(outbox_ev *e)
{
    net_msg_unref(e->lean);
    net_msg_unref(e->full);
    free(e);
}

void room__flush(room *r)
{
    while (r->out_head != NULL && r->out_head->durable) {
        outbox_ev *e = r->out_head;
        r->out_head = e->next;
        if (r->out_head == NULL)
            r->out_tail = NULL;
        emit(r, e);
        ev_free(e);
    }
}

void room__outbox_drop(room *r, outbox_ev *e)
{
    for (outbox_ev **p = &r->out_head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    r->out_tail = NULL;
    for (outbox_ev *t = r->out_head; t; t = t->next)
        r->out_tail = t;
    ev_free(e);
}

outbox_ev *room__ev_new(bool with_board)
{
    outbox_ev *e = calloc(1, sizeof *e);
    if (e != NULL)
        e->board = with_board;
    return e;
}

void room__ev_append(room *r, outbox_ev *e)
{
    e->seq = r->seq;
    if (r->out_tail)
        r->out_tail->next = e;
    else
        r->out_head = e;
    r->out_tail = e;
}

outbox_ev *room__ev_link(room *r, bool with_board)
{
    outbox_ev *e = room__ev_new(with_board);
    if (e != NULL)
        room__ev_append(r, e);
    return e;
}

void room__ev_fill(room *r, outbox_ev *e, proto_out *lean)
{
    if (e->board && anyone_wants_board(r) && !lean->oom) {
        proto_out full;
        proto_out_init(&full, NET_HEADROOM);
        proto_event_add_board(&full, proto_out_data(lean), lean->len, r->g);
        e->full = net_msg_from(&full);
    }
    e->lean = net_msg_from(lean);
}

outbox_ev *room__push_event(room *r, proto_out *lean, bool with_board, bool durable)
{
    outbox_ev *e = room__ev_link(r, with_board);
    if (e == NULL) {
        proto_out_free(lean);
        return NULL;
    }
    e->durable = durable;
    room__ev_fill(r, e, lean);
    if (durable)
        room__flush(r);
    return e;
}

void room__new_event(room *r, proto_out *o)
{
    r->seq++;
    proto_out_init(o, NET_HEADROOM);
}

void room__push_offer(room *r, const char *kind, int seat, unsigned offers)
{
    proto_out o;
    room__new_event(r, &o);
    proto_write_event_offer(&o, r->id, r->seq, kind, seat, offers, r->nseats);
    room__push_event(r, &o, false, true);
}

void room__corr_clocks(room *r, int64_t deadlines[RULES_MAX_PLAYERS])
{
    int64_t dl = 0;
    memset(deadlines, 0, RULES_MAX_PLAYERS * sizeof *deadlines);
    if (store_corr_clock(room__db, r->id, &dl, r->clocks) < 0)
        return; /* finished: the store keeps only games in progress */
    int s = rules_game_to_move(r->g);
    if (s >= 0)
        deadlines[s] = dl;
}

/* deadlines: from room__corr_clocks, called before the event was written
 * so that its clocks are the store's too. */
void room__corr_event(room *r, proto_out *o, const int64_t *deadlines)
{
    if (r->corr.days > 0)
        proto_event_add_corr(o, deadlines, r->nseats, store_now(room__db));
}

void room__events_free(room *r)
{
    for (int i = 0; i < ROOM_EVENT_RING; i++)
        net_msg_unref(r->ring[i]);
    while (r->out_head != NULL) {
        outbox_ev *e = r->out_head;
        r->out_head = e->next;
        ev_free(e);
    }
    free(r->watchers);
}

/* ------------------------------------------------------------------------ */
/* State for people. */

void room_player_rating(proto_player *p, int64_t account, const char *variant, bool corr,
                        int64_t base_ms, int64_t inc_ms)
{
    store_rating sr;
    if (account == 0 || room__db == NULL ||
        store_rating_get(room__db, account, variant, rating_pace_of(corr, base_ms, inc_ms), &sr) <
            0)
        return;
    p->rating = (int)(sr.rating + 0.5);
    if (p->rating < 1)
        p->rating = 1;
    p->provisional = rating_provisional(sr.rd);
}

int room_rating_or_new(int64_t account, const char *variant, bool corr, int64_t base_ms,
                       int64_t inc_ms)
{
    proto_player p = {.rating = 0};
    room_player_rating(&p, account, variant, corr, base_ms, inc_ms);
    return p.rating > 0 ? p.rating : (int)RATING_DEFAULT;
}

/* Seat i's rating at the room's game and pace (room_rating_or_new). */
static int seat_rating(const room *r, int i)
{
    return room_rating_or_new(r->seats[i]->account, r->g->variant->id, r->corr.days > 0, r->base_ms,
                              r->inc_ms);
}

/* Seat i as states and the "ratings" event show it: its rating now, and
 * once the game's new ratings are told, what the game changed (from a
 * first rated game's RATING_DEFAULT). */
static proto_player seat_player(const room *r, int i)
{
    const ident *who = r->seats[i];
    proto_player p = ident_player(who);
    room_player_rating(&p, who->account, r->g->variant->id, r->corr.days > 0, r->base_ms,
                       r->inc_ms);
    if (r->ratings_told) {
        p.has_diff = true;
        p.rating_diff = seat_rating(r, i) - r->rating_before[i];
    }
    return p;
}

void room__ratings_before(room *r)
{
    if (!r->rated || r->g->result.reason == RULES_REASON_ABORTED)
        return;
    for (int i = 0; i < r->nseats; i++)
        r->rating_before[i] = seat_rating(r, i);
}

void room__ratings_told(room *r)
{
    if (!r->rated || r->ratings_told || r->lost || r->closing ||
        r->g->result.reason == RULES_REASON_ABORTED)
        return;
    r->ratings_told = true;
    proto_player players[RULES_MAX_PLAYERS];
    for (int i = 0; i < r->nseats; i++)
        players[i] = seat_player(r, i);
    proto_out o;
    room__new_event(r, &o);
    proto_write_event_ratings(&o, r->id, r->seq, players, r->nseats);
    room__push_event(r, &o, false, true);
}

static proto_room_view view_of(const room *r, const ident *who)
{
    proto_room_view v = {
        .room = r->id,
        .seq = r->seq,
        .game = r->g,
        .rated = r->rated,
        .base_ms = r->base_ms,
        .inc_ms = r->inc_ms,
        .you = room__seat_of(r, who),
        .clock_running = r->clock_running,
        .draw_offers = r->draw_offers,
        .rematch_offers = r->rematch_offers,
        .takeback_offers = r->takeback_offers,
        .spectators = room__spectators(r),
    };
    uint64_t now = uv_now(room__loop);
    for (int i = 0; i < r->nseats; i++) {
        v.players[i] = seat_player(r, i);
        v.connected[i] = r->seats[i]->sessions != NULL || r->seats[i]->bot > 0;
        v.left[i] = r->left[i];
        v.clocks[i] = r->clocks[i];
    }
    if (r->clock_running)
        v.clocks[r->g->pos.to_move] -= (int64_t)(now - r->turn_start);
    if (r->corr.days > 0) {
        v.corr = r->corr;
        room__corr_clocks((room *)r, v.deadlines);
        for (int i = 0; i < r->nseats; i++)
            v.vacation[i] = store_vacation_until(room__db, r->seats[i]->account);
        memcpy(v.clocks, r->clocks, sizeof v.clocks);
        v.now_ms = store_now(room__db);
    }
    return v;
}

void room__send_state(room *r, session *s, const proto_req *req)
{
    proto_room_view v = view_of(r, s->who);
    char tourney[64]; /* its name: TOURNEY_NAME_MAX */
    v.tourney_id = room__tourney_of(r, tourney, sizeof tourney);
    v.tourney_name = tourney;
    /* Chat ring in order, oldest first: the lines of s's own chat room. */
    proto_chat_line *lines = NULL;
    if (r->nchat > 0) {
        lines = malloc((size_t)r->nchat * sizeof *lines);
        if (lines != NULL) {
            bool spectator = room__seat_of(r, s->who) < 0;
            int first = (r->chat_head - r->nchat + ROOM_CHAT_KEEP) % ROOM_CHAT_KEEP;
            for (int i = 0; i < r->nchat; i++) {
                const proto_chat_line *l = &r->chat[(first + i) % ROOM_CHAT_KEEP];
                if (l->spectators == spectator)
                    lines[v.nchat++] = *l;
            }
            v.chat = lines;
        }
    }
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_room(&o, req, &v);
    free(lines);
    session_send_out(s, &o);
}

int room_join(room *r, session *s, const proto_req *req, char *why, size_t whylen)
{
    if (!room__watching(r, s) && room__seat_of(r, s->who) < 0) {
        int err = quota_watch_check(s, why, whylen);
        if (err != 0)
            return err;
    }
    if (room__watch(r, s) < 0)
        return PROTO_EINTERNAL;
    uint64_t since = (uint64_t)req->since;
    bool catchup = (req->present & PF_SINCE) && req->since >= 0 && since >= r->seq_floor &&
                   since <= r->emitted_seq && r->emitted_seq - since <= ROOM_EVENT_RING;
    if (!catchup) {
        room__send_state(r, s, req);
        return 0;
    }
    const char *evs[ROOM_EVENT_RING];
    size_t lens[ROOM_EVENT_RING];
    char skips[ROOM_EVENT_RING][112]; /* the other chat room's events, as "skip" */
    int n = 0, last_board = -1;
    for (uint64_t i = since + 1; i <= r->emitted_seq; i++) {
        net_msg *m = r->ring[i % ROOM_EVENT_RING];
        if (m == NULL)
            continue;
        if (!hears(r, s->who, r->ring_audience[i % ROOM_EVENT_RING])) {
            int len = snprintf(skips[n], sizeof skips[n],
                               "{\"type\":\"event\",\"room\":%lld,\"seq\":%llu,\"kind\":\"skip\"}",
                               (long long)r->id, (unsigned long long)i);
            evs[n] = skips[n];
            lens[n] = (size_t)len;
            n++;
            continue;
        }
        if (r->ring_board[i % ROOM_EVENT_RING])
            last_board = n;
        evs[n] = m->buf + m->head;
        lens[n] = m->len;
        n++;
    }
    /* The ring keeps lean events; a client that wants the board gets it on
     * the last event that changed it (the board now, as later events do not
     * change it). */
    proto_out full = {0};
    if ((s->flags & SESSION_BOARD) && last_board >= 0) {
        proto_out_init(&full, 0);
        proto_event_add_board(&full, evs[last_board], lens[last_board], r->g);
        evs[last_board] = proto_out_data(&full);
        lens[last_board] = full.len;
    }
    proto_room_view v = view_of(r, s->who);
    v.seq = r->emitted_seq;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_catchup(&o, req, &v, evs, lens, n);
    proto_out_free(&full);
    session_send_out(s, &o);
    if (v.spectators > 0) { /* a catchup carries no state: the count apart */
        proto_out c;
        proto_out_init(&c, NET_HEADROOM);
        proto_write_spectators(&c, r->id, v.spectators);
        session_send_out(s, &c);
    }
    return 0;
}

int room_part(room *r, session *s, const proto_req *req, char *why, size_t whylen)
{
    unwatch(r, s);
    room__maybe_free(r);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Chat: from the room's watchers, at a rate per identity. */

int room_chat(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    if (!room__watching(r, c)) {
        /* Chat is for the room's watchers: join it first. */
        metrics_now.chat_not_joined++;
        rules_why(why, whylen, "join room %lld before chatting in it", (long long)r->id);
        return PROTO_ENOT_JOINED;
    }
    if (!session_chat_take(&c->who->chat, uv_now(room__loop))) {
        metrics_now.chat_rate++;
        rules_why(why, whylen, "at most %d chat messages per %d s from one player",
                  SESSION_CHAT_BURST, SESSION_CHAT_WINDOW_MS / 1000);
        return PROTO_ERATE_LIMITED;
    }
    proto_chat_line *line = &r->chat[r->chat_head];
    line->seat = room__seat_of(r, c->who);
    /* Two rooms, as lichess: the players' and the spectators'. */
    line->spectators = line->seat < 0;
    snprintf(line->name, sizeof line->name, "%s", c->who->name);
    snprintf(line->text, sizeof line->text, "%s", req->text);
    r->chat_head = (r->chat_head + 1) % ROOM_CHAT_KEEP;
    if (r->nchat < ROOM_CHAT_KEEP)
        r->nchat++;
    proto_out o;
    room__new_event(r, &o);
    proto_write_event_chat(&o, r->id, r->seq, line);
    outbox_ev *e = room__ev_link(r, false);
    if (e == NULL) {
        proto_out_free(&o);
        return PROTO_EINTERNAL;
    }
    e->audience = line->spectators ? ROOM_TO_SPECTATORS : ROOM_TO_PLAYERS;
    e->durable = true;
    room__ev_fill(r, e, &o);
    room__flush(r);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Vacation: a correspondence player's rooms are told at once, with the
 * deadlines it moved (the store moved them: store_vacation_start/end). */

void room_vacation(ident *who, int64_t until_ms)
{
    for (size_t i = 0; i < who->nrooms; i++) {
        room *r = who->rooms[i];
        int s = room__seat_of(r, who);
        if (s < 0 || r->closing || r->g->result.over || r->corr.days <= 0)
            continue;
        int64_t deadlines[RULES_MAX_PLAYERS];
        room__corr_clocks(r, deadlines);
        proto_out o;
        room__new_event(r, &o);
        proto_write_event_vacation(&o, r->id, r->seq, s, until_ms, deadlines, r->nseats,
                                   store_now(room__db));
        room__push_event(r, &o, false, true);
    }
}

/* ------------------------------------------------------------------------ */
/* Presence: an identity's rooms, from its own list. */

void room_presence(ident *who, bool connected)
{
    for (size_t i = 0; i < who->nrooms; i++) {
        room *r = who->rooms[i];
        int s = room__seat_of(r, who);
        if (s < 0 || r->closing || r->g->result.over)
            continue;
        r->away_since[s] = connected ? 0 : (uv_now(room__loop) ? uv_now(room__loop) : 1);
        room__abandon_arm(r);
        proto_out o;
        room__new_event(r, &o);
        proto_write_event_presence(&o, r->id, r->seq, s, connected);
        room__push_event(r, &o, false, true);
    }
}
