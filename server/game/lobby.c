/*
 * lobby.c - seeks and lobby watchers (see lobby.h).
 */
#include "lobby.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <uthash.h>

#include "array.h"
#include "counters.h"
#include "quota.h"
#include "room.h"
#include "store.h"

typedef struct seek {
    int64_t id;
    const rules_variant *v;
    int64_t base_ms, inc_ms;
    bool rated, private_;
    int rating_min, rating_max; /* rated: who may accept (0: anyone) */
    proto_corr corr;            /* days > 0: correspondence */
    char invite[PROTO_INVITE_MAX + 1];
    ident *players[RULES_MAX_PLAYERS];
    quota_addr *addr[RULES_MAX_PLAYERS]; /* each seat's charge (quota.h), or NULL */
    int nplayers;
    int pending;              /* its change waiting for the flush: index + 1, 0 if none */
    UT_hash_handle hh;        /* every seek by id, oldest first */
    UT_hash_handle hh_invite; /* private seeks by invitation code */
} seek;

static lobby_placer placer; /* node mode: place.c's place_start */

void lobby_set_placer(lobby_placer fn)
{
    placer = fn;
}

bool lobby_place(const room_settings *rs, ident *const *seats, int nseats, session *asker,
                 const proto_req *req)
{
    return placer != NULL && placer(rs, seats, nseats, asker, req);
}

static seek *seeks;   /* by id (hh) */
static seek *invites; /* by invite (hh_invite) */
static int64_t next_seek_id = 1;
static uint64_t lobby_seq; /* batches sent (lobby_update.seq) */
static session **watchers;
static size_t nwatchers, capwatchers;

/* Changes since the last flush, one per seek, in the order first changed:
 * an added seek is sent as it is at the flush; one added and removed in
 * the same tick is not sent at all (unless a watcher came between and saw
 * it in its lobby list). */
typedef struct pend {
    int64_t id;
    seek *s;          /* NULL once removed */
    bool added;       /* created since the last flush */
    bool removed;     /* gone since */
    uint64_t watches; /* `watches` when it was added */
} pend;
static pend *pends;
static size_t npends, cappends;
static uint64_t watches; /* lobby lists sent: a list may show a pending seek */
static uv_loop_t *lobby_loop;
static uv_timer_t flush_timer;
static bool timer_ready, timer_armed;
static uint64_t flush_ms = LOBBY_FLUSH_MS;
static int seeks_per_minute = LOBBY_SEEKS_PER_MINUTE;

static proto_seek_view seek_view(const seek *s)
{
    proto_seek_view v = {
        .id = s->id,
        .game = s->v->id,
        .base_ms = s->base_ms,
        .inc_ms = s->inc_ms,
        .rated = s->rated,
        .private_ = s->private_,
        .seats = s->v->nplayers,
        .nplayers = s->nplayers,
        .corr = s->corr,
        .rating_min = s->rating_min,
        .rating_max = s->rating_max,
    };
    for (int i = 0; i < s->nplayers; i++) {
        v.players[i] = ident_player(s->players[i]);
        room_player_rating(&v.players[i], s->players[i]->account, s->v->id, s->corr.days > 0,
                           s->base_ms, s->inc_ms);
    }
    return v;
}

static void on_flush(uv_timer_t *t)
{
    (void)t;
    timer_armed = false;
    lobby_flush();
}

/* Note that s was added, updated or removed ("add", "update", "remove"),
 * for the next flush. */
static void broadcast(const char *op, seek *s)
{
    if (s->private_)
        return;
    metrics_now.lobby_changes++;
    pend *p = s->pending ? &pends[s->pending - 1] : NULL;
    if (p == NULL) {
        if (array_reserve((void **)&pends, &cappends, npends + 1, sizeof *pends) < 0) {
            /* Out of memory: the watchers will miss this change; a gap in
             * seq makes clients ask for the list again. */
            lobby_seq++;
            return;
        }
        p = &pends[npends++];
        *p = (pend){s->id, s, op[0] == 'a', false, watches};
        s->pending = (int)npends;
    }
    if (op[0] == 'r') {
        p->removed = true;
        p->s = NULL;
        s->pending = 0;
    }
    if (timer_ready && !timer_armed) {
        timer_armed = true;
        uv_timer_start(&flush_timer, on_flush, flush_ms, 0);
    }
}

void lobby_flush(void)
{
    if (npends == 0)
        return;
    proto_lobby_change *ch = calloc(npends, sizeof *ch);
    proto_seek_view *views = calloc(npends, sizeof *views);
    int n = 0;
    for (size_t i = 0; i < npends; i++) {
        pend *p = &pends[i];
        if (p->s != NULL)
            p->s->pending = 0;
        if (ch == NULL || views == NULL)
            continue;
        if (p->removed) {
            if (!p->added || p->watches != watches)
                ch[n++] = (proto_lobby_change){"remove", p->id, NULL};
            continue;
        }
        views[n] = seek_view(p->s);
        ch[n] = (proto_lobby_change){p->added ? "add" : "update", p->id, &views[n]};
        n++;
    }
    npends = 0;
    if (n > 0 || ch == NULL || views == NULL)
        lobby_seq++; /* out of memory: a gap tells clients to reload */
    if (n > 0 && nwatchers > 0) {
        proto_out o;
        proto_out_init(&o, NET_HEADROOM);
        proto_write_lobby_update(&o, lobby_seq, ch, n);
        net_msg *m = net_msg_from(&o);
        for (size_t i = 0; i < nwatchers; i++)
            session_send(watchers[i], m);
        net_msg_unref(m);
        metrics_now.lobby_flushes++;
    }
    free(ch);
    free(views);
}

void lobby_init(uv_loop_t *loop, unsigned flush, int seeks_minute)
{
    lobby_loop = loop;
    flush_ms = flush;
    seeks_per_minute = seeks_minute;
    uv_timer_init(loop, &flush_timer);
    timer_ready = true;
}

static void (*on_watch)(session *s), (*on_unwatch)(session *s);

void lobby_on_watch(void (*watch)(session *s), void (*unwatch)(session *s))
{
    on_watch = watch;
    on_unwatch = unwatch;
}

void lobby_leave(session *s)
{
    if (!(s->flags & SESSION_LOBBY))
        return;
    if (on_unwatch != NULL)
        on_unwatch(s);
    int i = s->lobby_index;
    watchers[i] = watchers[--nwatchers];
    watchers[i]->lobby_index = i;
    s->lobby_index = -1;
    s->flags &= ~(unsigned)SESSION_LOBBY;
}

/* Take s out of the lobby (the caller frees it or starts its game). */
static void seek_unlink(seek *s)
{
    HASH_DELETE(hh, seeks, s);
    if (s->private_)
        HASH_DELETE(hh_invite, invites, s);
    s->players[0]->nseeks--;
    metrics_now.seeks--;
}

/* An open public seek by id, or a seek by its invitation code. */
static seek *seek_find(int64_t id, const char *invite)
{
    seek *s = NULL;
    if (invite != NULL) {
        HASH_FIND(hh_invite, invites, invite, strlen(invite), s);
        return s;
    }
    HASH_FIND(hh, seeks, &id, sizeof id, s);
    return s != NULL && !s->private_ ? s : NULL;
}

/* who takes the next seat of s, charged to a (the seek takes the
 * reference). */
static void seek_sit(seek *s, ident *who, quota_addr *a)
{
    s->players[s->nplayers] = who;
    s->addr[s->nplayers++] = a;
    quota_game_add(who, a, s->corr.days > 0);
}

/* Seat i of s is emptied: its charge goes. */
static void seek_unsit(seek *s, int i)
{
    quota_game_sub(s->players[i], s->addr[i], s->corr.days > 0);
    quota_addr_put(s->addr[i]);
    s->addr[i] = NULL;
}

/* Free a seek taken out of the lobby (after its room, if any, started:
 * the room took its own charges). */
static void seek_free(seek *s)
{
    for (int i = 0; i < s->nplayers; i++)
        seek_unsit(s, i);
    free(s);
}

/* Remove who from a seek it sits in but did not create. */
static void seek_drop_player(seek *s, const ident *who)
{
    int j = 0;
    for (int i = 0; i < s->nplayers; i++) {
        if (s->players[i] == who) {
            seek_unsit(s, i);
            continue;
        }
        s->addr[j] = s->addr[i];
        s->players[j++] = s->players[i];
    }
    s->nplayers = j;
}

void lobby_forget(const ident *who)
{
    seek *s, *tmp;
    HASH_ITER(hh, seeks, s, tmp)
    {
        if (s->players[0] == who) {
            seek_unlink(s);
            broadcast("remove", s);
            seek_free(s);
            continue;
        }
        for (int i = 1; i < s->nplayers; i++)
            if (s->players[i] == who) {
                seek_drop_player(s, who);
                broadcast("update", s);
                break;
            }
    }
}

void lobby_shutdown(void)
{
    if (timer_ready) {
        uv_timer_stop(&flush_timer);
        uv_close((uv_handle_t *)&flush_timer, NULL);
        timer_ready = timer_armed = false;
    }
    free(pends);
    pends = NULL;
    npends = cappends = 0;
    HASH_CLEAR(hh_invite, invites);
    seek *s, *tmp;
    HASH_ITER(hh, seeks, s, tmp)
    {
        HASH_DELETE(hh, seeks, s);
        seek_free(s);
    }
    free(watchers);
    watchers = NULL;
    nwatchers = capwatchers = 0;
}

/* ------------------------------------------------------------------------ */
/* Requests. */

int lobby_watch(session *c, const proto_req *req, char *why, size_t whylen)
{
    if (!(c->flags & SESSION_LOBBY)) {
        if (array_reserve((void **)&watchers, &capwatchers, nwatchers + 1, sizeof *watchers) < 0)
            return PROTO_EINTERNAL;
        c->lobby_index = (int)nwatchers;
        c->flags |= SESSION_LOBBY;
        watchers[nwatchers++] = c;
    }
    int n = 0;
    seek *s;
    for (s = seeks; s != NULL; s = s->hh.next)
        n += !s->private_;
    proto_seek_view *views = calloc((size_t)n + 1, sizeof *views);
    if (views == NULL)
        return PROTO_EINTERNAL;
    n = 0;
    for (s = seeks; s != NULL; s = s->hh.next)
        if (!s->private_)
            views[n++] = seek_view(s);
    watches++;
    if (on_watch != NULL)
        on_watch(c);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_lobby(&o, req, lobby_seq, views, n);
    free(views);
    session_send_out(c, &o);
    return 0;
}

int lobby_unwatch(session *c, const proto_req *req, char *why, size_t whylen)
{
    lobby_leave(c);
    return 0;
}

int lobby_time_control(const session *c, const proto_req *req, proto_corr *out, char *why,
                       size_t whylen)
{
    proto_corr corr = {0, 0, 0};
    if (req->present & PF_CORR) {
        /* Days per move (inc_days 0) or increment mode (cap_days 0: 60). */
        corr.days = req->corr_days;
        corr.inc_days = req->corr_inc_days;
        corr.cap_days = corr.inc_days == 0 ? 0 : req->corr_cap_days ? req->corr_cap_days : 60;
        if (corr.days < 1 || corr.days > 60 || corr.inc_days < 0 || corr.inc_days > 60 ||
            corr.cap_days < 0 || corr.cap_days > 60) {
            rules_why(why, whylen,
                      "corr: days 1, 2, 3, 5, 7, 10 or 14; inc_days 0..14; "
                      "cap_days up to 60");
            return PROTO_EBAD_TIME_CONTROL;
        }
        store_tc tc = {corr.days * STORE_DAY_MS, corr.inc_days * STORE_DAY_MS,
                       corr.cap_days * STORE_DAY_MS};
        if (store_tc_check(&tc, why, whylen) < 0)
            return PROTO_EBAD_TIME_CONTROL;
        if (c->who->account == 0) {
            rules_why(why, whylen, "correspondence games need an account: log in");
            return PROTO_EACCOUNT_REQUIRED;
        }
    } else if ((req->present & (PF_BASE_MS | PF_INC_MS)) != (PF_BASE_MS | PF_INC_MS)) {
        rules_why(why, whylen, "%s needs 'base_ms' and 'inc_ms' (or 'corr')",
                  proto_type_name(req->type));
        return PROTO_EBAD_MESSAGE;
    }
    if (corr.days > 0) {
        /* base_ms/inc_ms are ignored */
    } else if (req->base_ms < 0 || req->base_ms > LOBBY_MAX_BASE_MS || req->inc_ms < 0 ||
               req->inc_ms > LOBBY_MAX_INC_MS || (req->base_ms == 0 && req->inc_ms != 0)) {
        rules_why(why, whylen,
                  "base_ms must be 0 to %d (0: no clock), inc_ms 0 to %d "
                  "(0 without a clock)",
                  LOBBY_MAX_BASE_MS, LOBBY_MAX_INC_MS);
        return PROTO_EBAD_TIME_CONTROL;
    }
    *out = corr;
    return 0;
}

int lobby_seek_create(session *c, const proto_req *req, char *why, size_t whylen)
{
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        rules_why(why, whylen, "no game '%s'", req->game);
        return PROTO_EUNKNOWN_GAME;
    }
    proto_corr corr;
    int err = lobby_time_control(c, req, &corr, why, whylen);
    if (err != 0)
        return err;
    if (req->rated && c->who->account == 0) {
        /* The store refuses rated games without accounts: say it now. */
        rules_why(why, whylen, "rated games need an account for every player: log in");
        return PROTO_EACCOUNT_REQUIRED;
    }
    bool ranged = req->present & (PF_RATING_MIN | PF_RATING_MAX);
    if (ranged && (!req->rated || req->rating_min < 0 || req->rating_max < 1 ||
                   req->rating_min > req->rating_max || req->rating_max > LOBBY_RATING_TOP)) {
        rules_why(why, whylen,
                  "a rating range belongs to a rated seek: rating_min <= rating_max, 0..%d",
                  LOBBY_RATING_TOP);
        return PROTO_EBAD_ARGUMENT;
    }
    if (c->who->nseeks >= LOBBY_SEEKS_PER_IDENT) {
        metrics_now.seeks_refused_open++;
        rules_why(why, whylen, "at most %d open seeks", LOBBY_SEEKS_PER_IDENT);
        return PROTO_ETOO_MANY_SEEKS;
    }
    /* As many at once as a minute allows, then one every 60/N s. */
    double per = seeks_per_minute;
    if (!session_bucket_take(&c->who->seeks, per, per / 60.0,
                             lobby_loop ? uv_now(lobby_loop) : 0)) {
        metrics_now.seeks_refused_rate++;
        rules_why(why, whylen, "at most %d new seeks a minute: wait a little", seeks_per_minute);
        return PROTO_ETOO_MANY_SEEKS;
    }
    quota_addr *a = quota_addr_of(c);
    if ((err = quota_game_check(c->who, a, corr.days > 0, why, whylen)) != 0) {
        quota_addr_put(a);
        return err;
    }
    seek *s = calloc(1, sizeof *s);
    if (s == NULL) {
        quota_addr_put(a);
        return PROTO_EINTERNAL;
    }
    s->id = next_seek_id++;
    s->v = v;
    s->corr = corr;
    s->base_ms = corr.days > 0 ? 0 : req->base_ms;
    s->inc_ms = corr.days > 0 ? 0 : req->inc_ms;
    s->rated = req->rated;
    s->private_ = req->private_;
    if (ranged) {
        s->rating_min = (int)req->rating_min;
        s->rating_max = (int)req->rating_max;
    }
    if (s->private_) {
        unsigned char raw[12];
        randombytes_buf(raw, sizeof raw);
        sodium_bin2hex(s->invite, sizeof s->invite, raw, sizeof raw);
    }
    seek_sit(s, c->who, a);
    c->who->nseeks++;
    metrics_now.seeks++;
    /* uthash keeps the order of insertion: the lobby lists seeks oldest
     * first. */
    HASH_ADD(hh, seeks, id, sizeof s->id, s);
    if (s->private_)
        HASH_ADD_KEYPTR(hh_invite, invites, s->invite, strlen(s->invite), s);
    broadcast("add", s);

    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_seek_view view = seek_view(s);
    proto_write_seek(&o, req, "seek_created", &view, s->private_ ? s->invite : NULL);
    session_send_out(c, &o);
    return 0;
}

int lobby_seek_cancel(session *c, const proto_req *req, char *why, size_t whylen)
{
    seek *s = NULL;
    HASH_FIND(hh, seeks, &req->seek, sizeof req->seek, s);
    bool seated = false;
    for (int i = 0; s != NULL && i < s->nplayers; i++)
        seated |= s->players[i] == c->who;
    if (!seated) {
        rules_why(why, whylen, "you sit in no open seek %lld", (long long)req->seek);
        return PROTO_EUNKNOWN_SEEK;
    }
    if (s->players[0] == c->who) {
        seek_unlink(s);
        broadcast("remove", s);
        seek_free(s);
    } else {
        seek_drop_player(s, c->who);
        broadcast("update", s);
    }
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_seek_cancelled(&o, req, req->seek);
    session_send_out(c, &o);
    return 0;
}

int lobby_seek_accept(session *c, const proto_req *req, char *why, size_t whylen)
{
    if (!(req->present & (PF_SEEK | PF_INVITE))) {
        rules_why(why, whylen, "seek_accept needs 'seek' or 'invite'");
        return PROTO_EBAD_MESSAGE;
    }
    seek *s = seek_find(req->seek, (req->present & PF_INVITE) ? req->invite : NULL);
    if (s == NULL) {
        rules_why(why, whylen, "no such open seek");
        return PROTO_EUNKNOWN_SEEK;
    }
    for (int i = 0; i < s->nplayers; i++)
        if (s->players[i] == c->who) {
            rules_why(why, whylen, "you already sit in seek %lld", (long long)s->id);
            return PROTO_EOWN_SEEK;
        }
    if ((s->rated || s->corr.days > 0) && c->who->account == 0) {
        rules_why(why, whylen, "%s game needs an account: log in",
                  s->rated ? "a rated" : "a correspondence");
        return PROTO_EACCOUNT_REQUIRED;
    }
    if (s->rating_max > 0) {
        /* No rating yet at this pace: a new player's 1500. */
        int r =
            room_rating_or_new(c->who->account, s->v->id, s->corr.days > 0, s->base_ms, s->inc_ms);
        if (r < s->rating_min || r > s->rating_max) {
            rules_why(why, whylen, "your rating %d is outside this seek's range %d-%d", r,
                      s->rating_min, s->rating_max);
            return PROTO_EBAD_ARGUMENT;
        }
    }
    quota_addr *a = quota_addr_of(c);
    int qerr = quota_game_check(c->who, a, s->corr.days > 0, why, whylen);
    if (qerr != 0) {
        quota_addr_put(a);
        return qerr;
    }
    seek_sit(s, c->who, a);
    if (s->nplayers < s->v->nplayers) {
        broadcast("update", s);
        proto_out o;
        proto_out_init(&o, NET_HEADROOM);
        proto_seek_view view = seek_view(s);
        proto_write_seek(&o, req, "seek_joined", &view, NULL);
        session_send_out(c, &o);
        return 0;
    }
    /* Every seat is taken: the game starts, seats in the order taken. */
    seek_unlink(s);
    broadcast("remove", s);
    room_settings rs = {s->v->id, s->base_ms, s->inc_ms, s->rated, s->corr, {NULL}};
    memcpy(rs.addr, s->addr, sizeof rs.addr);
    /* Node mode: on the node of the player who filled it, if not here. */
    if (lobby_place(&rs, s->players, s->nplayers, c, req)) {
        seek_free(s);
        return 0;
    }
    proto_err err = 0;
    room *r = room_start(&rs, s->players, s->nplayers, c, req, &err, why, whylen);
    seek_free(s);
    return r == NULL ? (int)err : 0;
}

/* ------------------------------------------------------------------------ */
/* Bots. */

/* The level of a bot_game or seek_fill, checked: 0 or a proto_err. */
static int bot_level(const proto_req *req, char *why, size_t whylen)
{
    if (req->level < 1 || req->level > 8) {
        rules_why(why, whylen, "level must be 1 (weakest) to 8 (strongest), not %lld",
                  (long long)req->level);
        return PROTO_EBAD_MESSAGE;
    }
    if (req->rated) {
        rules_why(why, whylen, "games with bots are never rated");
        return PROTO_EBAD_ARGUMENT;
    }
    return 0;
}

/* Does who already play LOBBY_BOT_GAMES_PER_IDENT games with bots? */
static int bot_games_full(const ident *who, char *why, size_t whylen)
{
    if (room_bot_games_of(who) < LOBBY_BOT_GAMES_PER_IDENT)
        return 0;
    rules_why(why, whylen, "at most %d games with bots at once: finish one first",
              LOBBY_BOT_GAMES_PER_IDENT);
    return PROTO_ETOO_MANY_GAMES;
}

static int bot_game_start(session *c, const proto_req *req, const rules_variant *v, proto_corr corr,
                          quota_addr *a, char *why, size_t whylen);

int lobby_bot_game(session *c, const proto_req *req, char *why, size_t whylen)
{
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        rules_why(why, whylen, "no game '%s'", req->game);
        return PROTO_EUNKNOWN_GAME;
    }
    int err = bot_level(req, why, whylen);
    proto_corr corr;
    if (err == 0)
        err = lobby_time_control(c, req, &corr, why, whylen);
    if (err == 0)
        err = bot_games_full(c->who, why, whylen);
    quota_addr *a = err == 0 ? quota_addr_of(c) : NULL;
    if (err == 0)
        err = quota_game_check(c->who, a, corr.days > 0, why, whylen);
    if (err == 0)
        err = bot_game_start(c, req, v, corr, a, why, whylen);
    quota_addr_put(a);
    return err;
}

/* The rest of bot_game, checked: the seats, then the room (it takes its
 * own charge of a). */
static int bot_game_start(session *c, const proto_req *req, const rules_variant *v, proto_corr corr,
                          quota_addr *a, char *why, size_t whylen)
{
    int seat = (int)randombytes_uniform((uint32_t)v->nplayers);
    if ((req->present & PF_SEAT) && req->seat != -1) {
        if (req->seat < 0 || req->seat >= v->nplayers) {
            rules_why(why, whylen, "seat must be 0 to %d, or -1 for a random one", v->nplayers - 1);
            return PROTO_EBAD_MESSAGE;
        }
        seat = (int)req->seat;
    }
    ident *seats[RULES_MAX_PLAYERS];
    for (int i = 0; i < v->nplayers; i++)
        if ((seats[i] = i == seat ? c->who : ident_bot((int)req->level)) == NULL)
            return PROTO_EINTERNAL;
    room_settings rs = {
        v->id, corr.days > 0 ? 0 : req->base_ms, corr.days > 0 ? 0 : req->inc_ms, false, corr,
        {NULL}};
    rs.addr[seat] = a;
    proto_err perr = 0;
    room *r = room_start(&rs, seats, v->nplayers, c, req, &perr, why, whylen);
    return r == NULL ? (int)perr : 0;
}

int lobby_seek_fill(session *c, const proto_req *req, char *why, size_t whylen)
{
    seek *s = NULL;
    HASH_FIND(hh, seeks, &req->seek, sizeof req->seek, s);
    if (s == NULL || s->players[0] != c->who) {
        rules_why(why, whylen, "you created no open seek %lld", (long long)req->seek);
        return PROTO_EUNKNOWN_SEEK;
    }
    int err = bot_level(req, why, whylen);
    if (err == 0 && s->rated) {
        rules_why(why, whylen, "games with bots are never rated: this seek is rated");
        err = PROTO_EBAD_ARGUMENT;
    }
    if (err == 0)
        err = bot_games_full(c->who, why, whylen);
    if (err != 0)
        return err;
    ident *bot = ident_bot((int)req->level);
    if (bot == NULL)
        return PROTO_EINTERNAL;
    while (s->nplayers < s->v->nplayers)
        seek_sit(s, bot, NULL);
    seek_unlink(s);
    broadcast("remove", s);
    room_settings rs = {s->v->id, s->base_ms, s->inc_ms, false, s->corr, {NULL}};
    memcpy(rs.addr, s->addr, sizeof rs.addr);
    proto_err perr = 0;
    room *r = room_start(&rs, s->players, s->nplayers, c, req, &perr, why, whylen);
    seek_free(s);
    return r == NULL ? (int)perr : 0;
}

void lobby_moved(void)
{
    static const char why[] = "the lobby moved to another node";
    for (size_t i = 0; i < nwatchers; i++)
        session_reconnect(watchers[i], why);
    /* The seeks held here can no longer be accepted (every node sends its
     * accepts to the new holder): they go, and whoever sits in one is
     * asked to connect again, watching or not, to find the lobby there. */
    seek *s, *tmp;
    HASH_ITER(hh, seeks, s, tmp)
    {
        for (int i = 0; i < s->nplayers; i++)
            for (session *c = s->players[i]->sessions; c != NULL; c = c->inext)
                session_reconnect(c, why);
        seek_unlink(s);
        broadcast("remove", s);
        seek_free(s);
    }
}
