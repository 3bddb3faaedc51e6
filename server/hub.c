/*
 * hub.c - identities, dispatch, lobby (see hub.h).
 */
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "accounts.h"
#include "archive.h"
#include "metrics.h"
#include "room.h"
#include "store.h"

static uv_loop_t *loop;
static store *db;

uv_loop_t *hub_loop(void)
{
    return loop;
}

/* ------------------------------------------------------------------------ */
/* Identities: a hash table keyed by token. */

enum { IDENT_BUCKETS = 4096 };
static ident *idents[IDENT_BUCKETS];
static int64_t next_ident_id = 1;

static unsigned token_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % IDENT_BUCKETS;
}

static ident *ident_find(const char *token)
{
    for (ident *i = idents[token_hash(token)]; i != NULL; i = i->hnext)
        if (strcmp(i->token, token) == 0)
            return i;
    return NULL;
}

/* The seat key of a token: a hash, so the store never holds tokens. */
static void token_key(const char *token, char key[HUB_KEY_HEX + 1])
{
    unsigned char h[HUB_KEY_HEX / 2];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(key, HUB_KEY_HEX + 1, h, sizeof h);
}

static void ident_insert(ident *i)
{
    unsigned b = token_hash(i->token);
    i->hnext = idents[b];
    idents[b] = i;
}

/* An identity with no connection, no seat in a room in memory and unseen
 * for IDENT_TTL_MS is forgotten (its token stops working), so that visitors
 * do not grow memory without bound. Swept every IDENT_SWEEP_MS. */
enum { IDENT_TTL_MS = 24 * 3600 * 1000, IDENT_SWEEP_MS = 10 * 60 * 1000 };
static uv_timer_t sweep_timer;

static void on_sweep(uv_timer_t *t)
{
    uint64_t now = uv_now(loop);
    for (int b = 0; b < IDENT_BUCKETS; b++)
        for (ident **p = &idents[b]; *p;) {
            ident *i = *p;
            if (i->conns == NULL && i->refs == 0 && now - i->last_seen > IDENT_TTL_MS) {
                *p = i->hnext;
                free(i);
            } else {
                p = &i->hnext;
            }
        }
}

/* Restored identities waiting for their token (few: one per seat of a game
 * in progress at start-up), linked by hnext. */
static ident *orphans;

/* A new identity with a fresh random token. */
static ident *ident_new(void)
{
    ident *i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    unsigned char raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(i->token, sizeof i->token, raw, sizeof raw);
    token_key(i->token, i->key);
    i->id = next_ident_id++;
    snprintf(i->name, sizeof i->name, "guest-%lld", (long long)i->id);
    ident_insert(i);
    return i;
}

ident *hub_ident_restored(const char *key, const char *name)
{
    for (ident *i = orphans; i != NULL; i = i->hnext)
        if (strcmp(i->key, key) == 0)
            return i;
    ident *i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    snprintf(i->key, sizeof i->key, "%s", key);
    snprintf(i->name, sizeof i->name, "%s", name);
    i->id = next_ident_id++;
    i->hnext = orphans;
    orphans = i;
    return i;
}

ident *hub_ident_account(int64_t account, const char *name)
{
    /* Accounts are few next to guests: a scan is enough here. */
    for (int b = 0; b < IDENT_BUCKETS; b++)
        for (ident *i = idents[b]; i != NULL; i = i->hnext)
            if (i->account == account)
                return i;
    for (ident *i = orphans; i != NULL; i = i->hnext)
        if (i->account == account)
            return i;
    ident *i = ident_new();
    if (i == NULL)
        return NULL;
    i->account = account;
    snprintf(i->name, sizeof i->name, "%s", name);
    return i;
}

/* A token we do not know may be the owner of a restored seat. */
static ident *ident_adopt(const char *token)
{
    char key[HUB_KEY_HEX + 1];
    token_key(token, key);
    for (ident **p = &orphans; *p; p = &(*p)->hnext) {
        ident *i = *p;
        if (strcmp(i->key, key) != 0)
            continue;
        *p = i->hnext;
        snprintf(i->token, sizeof i->token, "%s", token);
        ident_insert(i);
        return i;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Sending. */

void hub_send_error(conn *c, const proto_req *req, bool typed, proto_err e, const char *reason)
{
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_error(&o, req, typed, e, reason);
    metrics_now.errors[e]++;
    net_send_out(c, &o);
}

int hub_store_fail(int serr, char *why, size_t whylen)
{
    if (why[0] == '\0')
        rules_why(why, whylen, "%s", store_err_text(serr));
    return (int)hub_store_err(serr);
}

proto_err hub_store_err(int serr)
{
    return proto_err_from_code(store_err_code(serr), PROTO_EINTERNAL);
}

/* ------------------------------------------------------------------------ */
/* The lobby. */

typedef struct seek {
    int64_t id;
    const rules_variant *v;
    int64_t base_ms, inc_ms;
    bool rated, private_;
    proto_corr corr; /* days > 0: correspondence */
    char invite[PROTO_INVITE_MAX + 1];
    ident *players[RULES_MAX_PLAYERS];
    int nplayers;
    struct seek *next;
} seek;

static seek *seeks;
static int64_t next_seek_id = 1;
static uint64_t lobby_seq;
static conn **watchers;
static int nwatchers, capwatchers;

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
    };
    for (int i = 0; i < s->nplayers; i++)
        v.players[i] = (proto_player){s->players[i]->id, s->players[i]->name};
    return v;
}

/* Tell every lobby watcher that s was added, updated or removed. */
static void lobby_broadcast(const char *op, const seek *s)
{
    if (s->private_)
        return;
    lobby_seq++;
    if (nwatchers == 0)
        return;
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_seek_view v = seek_view(s);
    proto_write_lobby_update(&o, lobby_seq, op, &v);
    net_msg *m = net_msg_from(&o);
    for (int i = 0; i < nwatchers; i++)
        net_send(watchers[i], m);
    net_msg_unref(m);
}

static void lobby_unwatch(conn *c)
{
    int i = c->lobby_index;
    if (i < 0)
        return;
    watchers[i] = watchers[--nwatchers];
    watchers[i]->lobby_index = i;
    c->lobby_index = -1;
}

static void seek_unlink(seek *s)
{
    for (seek **p = &seeks; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    s->players[0]->nseeks--;
    metrics_now.seeks--;
}

static seek *seek_find(int64_t id, const char *invite)
{
    for (seek *s = seeks; s != NULL; s = s->next) {
        if (invite != NULL ? strcmp(s->invite, invite) == 0 : (s->id == id && !s->private_))
            return s;
    }
    return NULL;
}

/* Remove who from a seek it sits in but did not create. */
static void seek_drop_player(seek *s, const ident *who)
{
    int j = 0;
    for (int i = 0; i < s->nplayers; i++)
        if (s->players[i] != who)
            s->players[j++] = s->players[i];
    s->nplayers = j;
}

/* The identity is gone (no connection left): its seeks go too. */
static void seeks_forget(const ident *who)
{
    seek *s = seeks;
    while (s != NULL) {
        seek *next = s->next;
        if (s->players[0] == who) {
            seek_unlink(s);
            lobby_broadcast("remove", s);
            free(s);
        } else {
            for (int i = 1; i < s->nplayers; i++)
                if (s->players[i] == who) {
                    seek_drop_player(s, who);
                    lobby_broadcast("update", s);
                    break;
                }
        }
        s = next;
    }
}

/* ------------------------------------------------------------------------ */
/* Handlers. Each returns 0 or a proto_err with a sentence in why. */

typedef int (*handler)(conn *c, const proto_req *req, char *why, size_t whylen);

static int on_hello(conn *c, const proto_req *req, char *why, size_t whylen)
{
    if (c->who != NULL) {
        rules_why(why, whylen, "hello was already sent on this connection");
        return PROTO_ENOT_HELLO;
    }
    ident *who = NULL;
    if (c->account != 0) {
        /* Logged in (session cookie): the account is the identity. */
        who = hub_ident_account(c->account, c->account_name);
    } else if (req->present & PF_TOKEN) {
        who = ident_find(req->token);
        if (who == NULL)
            who = ident_adopt(req->token);
        if (who != NULL && who->account != 0)
            who = NULL; /* an account's token is not a way in */
    }
    if (who == NULL)
        who = ident_new();
    if (who == NULL)
        return PROTO_EINTERNAL;
    if ((req->present & PF_NAME) && who->account == 0)
        snprintf(who->name, sizeof who->name, "%s", req->name);
    c->who = who;
    c->board = req->board;
    bool first = who->conns == NULL;
    c->inext = who->conns;
    who->conns = c;

    int64_t rooms[64];
    int nrooms = room_active_of(who, rooms, 64);
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_player me = {who->id, who->name};
    proto_write_welcome(&o, req, who->token, &me, who->account ? who->name : NULL, rooms, nrooms);
    net_send_out(c, &o);
    if (first)
        room_presence(who, true);
    return 0;
}

static int on_ping(conn *c, const proto_req *req, char *why, size_t whylen)
{
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_pong(&o, req);
    net_send_out(c, &o);
    return 0;
}

static int on_lobby_watch(conn *c, const proto_req *req, char *why, size_t whylen)
{
    if (c->lobby_index < 0) {
        if (nwatchers == capwatchers) {
            int cap = capwatchers ? capwatchers * 2 : 64;
            conn **w = realloc(watchers, (size_t)cap * sizeof *w);
            if (w == NULL)
                return PROTO_EINTERNAL;
            watchers = w;
            capwatchers = cap;
        }
        c->lobby_index = nwatchers;
        watchers[nwatchers++] = c;
    }
    int n = 0;
    for (seek *s = seeks; s != NULL; s = s->next)
        n += !s->private_;
    proto_seek_view *views = calloc((size_t)n + 1, sizeof *views);
    if (views == NULL)
        return PROTO_EINTERNAL;
    n = 0;
    for (seek *s = seeks; s != NULL; s = s->next)
        if (!s->private_)
            views[n++] = seek_view(s);
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_lobby(&o, req, lobby_seq, views, n);
    free(views);
    net_send_out(c, &o);
    return 0;
}

static int on_lobby_unwatch(conn *c, const proto_req *req, char *why, size_t whylen)
{
    lobby_unwatch(c);
    return 0;
}

enum {
    MAX_SEEKS_PER_IDENT = 10,
    MAX_BASE_MS = 3 * 3600 * 1000,
    MAX_INC_MS = 60 * 1000,
};

static int on_seek_create(conn *c, const proto_req *req, char *why, size_t whylen)
{
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        rules_why(why, whylen, "no game '%s'", req->game);
        return PROTO_EUNKNOWN_GAME;
    }
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
        rules_why(why, whylen, "seek_create needs 'base_ms' and 'inc_ms' (or 'corr')");
        return PROTO_EBAD_MESSAGE;
    }
    if (corr.days > 0) {
        /* base_ms/inc_ms are ignored */
    } else if (req->base_ms < 0 || req->base_ms > MAX_BASE_MS || req->inc_ms < 0 ||
               req->inc_ms > MAX_INC_MS || (req->base_ms == 0 && req->inc_ms != 0)) {
        rules_why(why, whylen,
                  "base_ms must be 0 to %d (0: no clock), inc_ms 0 to %d "
                  "(0 without a clock)",
                  MAX_BASE_MS, MAX_INC_MS);
        return PROTO_EBAD_TIME_CONTROL;
    }
    if (req->rated && c->who->account == 0) {
        /* The store refuses rated games without accounts: say it now. */
        rules_why(why, whylen, "rated games need an account for every player: log in");
        return PROTO_EACCOUNT_REQUIRED;
    }
    if (c->who->nseeks >= MAX_SEEKS_PER_IDENT) {
        rules_why(why, whylen, "at most %d open seeks", MAX_SEEKS_PER_IDENT);
        return PROTO_ETOO_MANY_SEEKS;
    }
    seek *s = calloc(1, sizeof *s);
    if (s == NULL)
        return PROTO_EINTERNAL;
    s->id = next_seek_id++;
    s->v = v;
    s->corr = corr;
    s->base_ms = corr.days > 0 ? 0 : req->base_ms;
    s->inc_ms = corr.days > 0 ? 0 : req->inc_ms;
    s->rated = req->rated;
    s->private_ = req->private_;
    if (s->private_) {
        unsigned char raw[12];
        randombytes_buf(raw, sizeof raw);
        sodium_bin2hex(s->invite, sizeof s->invite, raw, sizeof raw);
    }
    s->players[s->nplayers++] = c->who;
    c->who->nseeks++;
    metrics_now.seeks++;
    /* Append, so the lobby lists seeks oldest first. */
    seek **p = &seeks;
    while (*p)
        p = &(*p)->next;
    *p = s;
    lobby_broadcast("add", s);

    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_seek_view view = seek_view(s);
    proto_write_seek(&o, req, "seek_created", &view, s->private_ ? s->invite : NULL);
    net_send_out(c, &o);
    return 0;
}

static int on_seek_cancel(conn *c, const proto_req *req, char *why, size_t whylen)
{
    seek *s = NULL;
    for (seek *t = seeks; t != NULL && s == NULL; t = t->next)
        if (t->id == req->seek)
            s = t;
    bool seated = false;
    for (int i = 0; s != NULL && i < s->nplayers; i++)
        seated |= s->players[i] == c->who;
    if (!seated) {
        rules_why(why, whylen, "you sit in no open seek %lld", (long long)req->seek);
        return PROTO_EUNKNOWN_SEEK;
    }
    if (s->players[0] == c->who) {
        seek_unlink(s);
        lobby_broadcast("remove", s);
        free(s);
    } else {
        seek_drop_player(s, c->who);
        lobby_broadcast("update", s);
    }
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_seek_cancelled(&o, req, req->seek);
    net_send_out(c, &o);
    return 0;
}

static int on_seek_accept(conn *c, const proto_req *req, char *why, size_t whylen)
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
    s->players[s->nplayers++] = c->who;
    if (s->nplayers < s->v->nplayers) {
        lobby_broadcast("update", s);
        proto_out o;
        proto_out_init(&o, net_headroom());
        proto_seek_view view = seek_view(s);
        proto_write_seek(&o, req, "seek_joined", &view, NULL);
        net_send_out(c, &o);
        return 0;
    }
    /* Every seat is taken: the game starts, seats in the order taken. */
    seek_unlink(s);
    lobby_broadcast("remove", s);
    room_settings rs = {s->v->id, s->base_ms, s->inc_ms, s->rated, s->corr};
    proto_err err = 0;
    room *r = room_start(&rs, s->players, s->nplayers, c, req, &err, why, whylen);
    free(s);
    return r == NULL ? (int)err : 0;
}

static room *find_room(const proto_req *req, char *why, size_t whylen)
{
    room *r = room_find(req->room);
    if (r == NULL)
        rules_why(why, whylen, "no room %lld", (long long)req->room);
    return r;
}

/* The handlers of the messages that name a room share this shape. */
#define ROOM_HANDLER(name, call)                                                                   \
    static int name(conn *c, const proto_req *req, char *why, size_t whylen)                       \
    {                                                                                              \
        room *r = find_room(req, why, whylen);                                                     \
        if (r == NULL)                                                                             \
            return PROTO_EUNKNOWN_ROOM;                                                            \
        return call(r, c, req, why, whylen);                                                       \
    }
ROOM_HANDLER(on_join, room_join)
ROOM_HANDLER(on_move, room_move)
ROOM_HANDLER(on_resign, room_resign)
ROOM_HANDLER(on_draw_offer, room_draw_offer)
ROOM_HANDLER(on_draw_decline, room_draw_decline)
ROOM_HANDLER(on_abort, room_abort)
ROOM_HANDLER(on_rematch, room_rematch)
ROOM_HANDLER(on_chat, room_chat)
ROOM_HANDLER(on_cond, room_cond)
#undef ROOM_HANDLER

static int on_part(conn *c, const proto_req *req, char *why, size_t whylen)
{
    room *r = find_room(req, why, whylen);
    if (r == NULL)
        return PROTO_EUNKNOWN_ROOM;
    room_part(r, c);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Correspondence: the "your turn" list and vacation (accounts only). */

static int need_account(const conn *c, char *why, size_t whylen)
{
    if (c->who->account != 0)
        return 0;
    rules_why(why, whylen, "this needs an account: log in");
    return PROTO_EACCOUNT_REQUIRED;
}

/* Send the account's "your turn" list to c (req: the request to echo). */
static void send_turns(conn *c, const proto_req *req)
{
    int n = store_your_turn(db, c->who->account, NULL, 0);
    store_turn *t = n >= 0 ? calloc((size_t)n + 1, sizeof *t) : NULL;
    char *json = t ? archive_turns_json(t, store_your_turn(db, c->who->account, t, n)) : NULL;
    free(t);
    if (json == NULL) {
        hub_send_error(c, req, req != NULL, PROTO_EINTERNAL, "cannot read the turn list");
        return;
    }
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_turns(&o, req, json);
    free(json);
    net_send_out(c, &o);
}

static int on_turns(conn *c, const proto_req *req, char *why, size_t whylen)
{
    int err = need_account(c, why, whylen);
    if (err)
        return err;
    c->turns_watch = true;
    send_turns(c, req);
    return 0;
}

/* The store's turn callback: push the list to every connection of the
 * account that asked for it. */
static void on_turn_changed(void *arg, int64_t account)
{
    (void)arg;
    for (int b = 0; b < IDENT_BUCKETS; b++)
        for (ident *i = idents[b]; i != NULL; i = i->hnext) {
            if (i->account != account)
                continue;
            for (conn *c = i->conns; c != NULL; c = c->inext)
                if (c->turns_watch)
                    send_turns(c, NULL);
            return;
        }
}

static int on_vacation(conn *c, const proto_req *req, char *why, size_t whylen)
{
    int err = need_account(c, why, whylen);
    if (err)
        return err;
    int64_t account = c->who->account;
    if (req->type == PROTO_VACATION_START) {
        if (req->days < 1 || req->days > STORE_VACATION_DAYS) {
            rules_why(why, whylen, "days must be 1 to %d", STORE_VACATION_DAYS);
            return PROTO_EBAD_MESSAGE;
        }
        err = store_vacation_start(db, account, (int)req->days, why, whylen);
        if (err == STORE_EBAD_ARG)
            rules_why(why, whylen, "you are already on vacation");
    } else if (req->type == PROTO_VACATION_END) {
        err = store_vacation_end(db, account);
        if (err == STORE_ENOT_FOUND)
            rules_why(why, whylen, "you are not on vacation");
    }
    int64_t until = 0;
    int left = 0;
    if (err == 0)
        err = store_vacation_status(db, account, &until, &left);
    if (err < 0)
        return hub_store_fail(err, why, whylen);
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_vacation(&o, req, until, left);
    net_send_out(c, &o);
    return 0;
}

/* One handler per message type, in the order of PROTO_REQUESTS. */
static const handler handlers[PROTO_NREQUESTS] = {
    [PROTO_HELLO] = on_hello,
    [PROTO_PING] = on_ping,
    [PROTO_LOBBY_WATCH] = on_lobby_watch,
    [PROTO_LOBBY_UNWATCH] = on_lobby_unwatch,
    [PROTO_SEEK_CREATE] = on_seek_create,
    [PROTO_SEEK_CANCEL] = on_seek_cancel,
    [PROTO_SEEK_ACCEPT] = on_seek_accept,
    [PROTO_JOIN] = on_join,
    [PROTO_PART] = on_part,
    [PROTO_MOVE] = on_move,
    [PROTO_RESIGN] = on_resign,
    [PROTO_DRAW_OFFER] = on_draw_offer,
    [PROTO_DRAW_DECLINE] = on_draw_decline,
    [PROTO_ABORT] = on_abort,
    [PROTO_REMATCH] = on_rematch,
    [PROTO_CHAT] = on_chat,
    [PROTO_TURNS] = on_turns,
    [PROTO_VACATION_START] = on_vacation,
    [PROTO_VACATION_END] = on_vacation,
    [PROTO_VACATION_STATUS] = on_vacation,
    [PROTO_COND_SET] = on_cond,
    [PROTO_COND_CLEAR] = on_cond,
    [PROTO_COND_GET] = on_cond,
};

/* ------------------------------------------------------------------------ */
/* Connections. */

/* Every connection may send MSG_BURST messages at once and MSG_RATE per
 * second on average (the seam for finer rate limits). */
enum { MSG_BURST = 200, MSG_RATE = 200 };

/* The session cookie of the upgrade request, if any, names the account. */
static void cookie_account(conn *c)
{
    char cookie[1024], token[128];
    if (net_cookie(c, cookie, sizeof cookie) <= 0 ||
        accounts_cookie_token(cookie, token, sizeof token) < 0)
        return;
    int64_t account = 0;
    if (accounts_session(db, token, &account, c->account_name, sizeof c->account_name) == 0)
        c->account = account;
}

void hub_conn_open(conn *c)
{
    c->msg_tokens = MSG_BURST;
    c->msg_refill_ms = uv_now(loop);
    cookie_account(c);
}

static bool rate_ok(conn *c)
{
    uint64_t now = uv_now(loop);
    c->msg_tokens += (double)(now - c->msg_refill_ms) * MSG_RATE / 1000.0;
    if (c->msg_tokens > MSG_BURST)
        c->msg_tokens = MSG_BURST;
    c->msg_refill_ms = now;
    if (c->msg_tokens < 1)
        return false;
    c->msg_tokens -= 1;
    return true;
}

void hub_receive(conn *c, const char *buf, size_t len)
{
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT] = "";
    if (!rate_ok(c)) {
        memset(&req, 0, sizeof req);
        rules_why(why, sizeof why, "more than %d messages per second", MSG_RATE);
        hub_send_error(c, &req, false, PROTO_ERATE_LIMITED, why);
        return;
    }
    int err = proto_decode(buf, len, &req, &typed, why, sizeof why);
    if (err == 0 && c->who == NULL && req.type != PROTO_HELLO) {
        rules_why(why, sizeof why, "send hello first");
        err = PROTO_ENOT_HELLO;
    }
    if (err == 0 && handlers[req.type] != NULL)
        err = handlers[req.type](c, &req, why, sizeof why);
    if (err != 0)
        hub_send_error(c, &req, typed, (proto_err)err, why);
}

void hub_conn_closed(conn *c)
{
    lobby_unwatch(c);
    room_conn_closed(c);
    ident *who = c->who;
    if (who == NULL)
        return;
    for (conn **p = &who->conns; *p; p = &(*p)->inext)
        if (*p == c) {
            *p = c->inext;
            break;
        }
    c->who = NULL;
    who->last_seen = uv_now(loop);
    if (who->conns == NULL) {
        seeks_forget(who);
        room_presence(who, false);
    }
}

/* ------------------------------------------------------------------------ */
/* The archive over HTTP: read by the store off the loop, answered later. */

typedef struct hub_http_req {
    conn *c;  /* NULL once the HTTP connection closed */
    bool pgn; /* GET /api/games/<id>.pgn */
} hub_http_req;

/* Take the answer's request off its connection: the connection, or NULL if
 * it closed meanwhile. */
static conn *http_answered(hub_http_req *r)
{
    conn *c = r->c;
    free(r);
    if (c != NULL)
        c->http_req = NULL;
    return c;
}

/* body (malloc'd, consumed) with 200, or 404 / 500 for a store error. */
static void http_answer(conn *c, int status, char *body, const char *ctype)
{
    if (body != NULL)
        net_http_reply(c, 200, ctype, body, strlen(body), NULL);
    else
        net_http_status(c, status == STORE_ENOT_FOUND ? 404 : 500);
    free(body);
}

static void on_archive_game(void *arg, int status, const store_game_info *g)
{
    bool pgn = ((hub_http_req *)arg)->pgn;
    conn *c = http_answered(arg);
    if (c == NULL)
        return;
    char *body = status < 0 ? NULL : pgn ? archive_game_pgn(g) : archive_game_view_json(g);
    http_answer(c, status, body, pgn ? "application/x-chess-pgn" : "application/json");
}

static void on_profile(void *arg, int status, const record_profile *p)
{
    conn *c = http_answered(arg);
    if (c != NULL)
        http_answer(c, status, status < 0 ? NULL : archive_profile_json(p), "application/json");
}

int hub_http_api(conn *c, const char *uri)
{
    const char *games = "/api/games/", *profile = "/api/profile/";
    bool is_game = strncmp(uri, games, strlen(games)) == 0;
    if (!is_game && strncmp(uri, profile, strlen(profile)) != 0)
        return -1;
    long long n = 0;
    bool pgn = false;
    if (is_game) {
        const char *id = uri + strlen(games);
        char *end;
        n = strtoll(id, &end, 10);
        pgn = strcmp(end, ".pgn") == 0;
        if (end == id || n <= 0 || (*end && !pgn))
            return 404;
    }
    hub_http_req *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 500;
    r->c = c;
    r->pgn = pgn;
    int err = is_game ? store_game_get(db, n, on_archive_game, r)
                      : store_profile_get(db, uri + strlen(profile), on_profile, r);
    if (err < 0) {
        free(r);
        return 500;
    }
    c->http_req = r;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Accounts over HTTP: register, log in (password work off the loop), log
 * out. The answer sets or clears the session cookie. */

static void reply_json(conn *c, unsigned status, proto_out *o, const char *cookie)
{
    net_http_reply(c, status, "application/json", proto_out_data(o), o->len, cookie);
    proto_out_free(o);
}

static void reply_error(conn *c, unsigned status, const char *code, const char *reason)
{
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_http_error(&o, code, reason);
    reply_json(c, status, &o, NULL);
}

static void on_account(void *arg, int status, int64_t account, const char *username,
                       const char *token, const char *why)
{
    hub_http_req *r = arg;
    conn *c = r->c;
    free(r);
    if (c == NULL)
        return;
    c->http_req = NULL;
    if (status < 0) {
        unsigned http = status == STORE_ETAKEN ? 409 : status == STORE_ELOGIN ? 401 : 400;
        reply_error(c, http, store_err_code(status), why && *why ? why : store_err_text(status));
        return;
    }
    char cookie[512];
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_account(&o, username);
    reply_json(c, 200, &o, accounts_set_cookie(cookie, sizeof cookie, token) > 0 ? cookie : NULL);
}

int hub_http_post(conn *c, const char *uri, const char *body, size_t len)
{
    bool reg = strcmp(uri, "/api/register") == 0, login = strcmp(uri, "/api/login") == 0;
    if (strcmp(uri, "/api/logout") == 0) {
        char cookie[1024], token[128], clear[256];
        if (net_cookie(c, cookie, sizeof cookie) > 0 &&
            accounts_cookie_token(cookie, token, sizeof token) == 0)
            accounts_logout(db, token);
        proto_out o;
        proto_out_init(&o, 0);
        proto_write_account(&o, NULL);
        reply_json(c, 200, &o, accounts_set_cookie(clear, sizeof clear, NULL) > 0 ? clear : NULL);
        return 0;
    }
    if (!reg && !login)
        return 404;
    char user[64], pass[ACCOUNTS_PASSWORD_MAX + 1], why[RULES_WHY_TEXT];
    if (proto_decode_credentials(body, len, user, sizeof user, pass, sizeof pass, why,
                                 sizeof why) != 0) {
        reply_error(c, 400, "bad_message", why);
        return 0;
    }
    hub_http_req *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 500;
    r->c = c;
    int err = reg ? accounts_register(db, user, pass, on_account, r)
                  : accounts_login(db, user, pass, on_account, r);
    sodium_memzero(pass, sizeof pass);
    if (err < 0) {
        free(r);
        const char *reason = err == STORE_EUSERNAME   ? ACCOUNTS_USERNAME_RULES
                             : err == STORE_EPASSWORD ? "a password is 8 to 128 characters"
                                                      : store_err_text(err);
        reply_error(c, err == STORE_ELOGIN ? 401 : 400, store_err_code(err), reason);
        return 0;
    }
    c->http_req = r;
    return 0;
}

void hub_http_closed(conn *c)
{
    c->http_req->c = NULL;
    c->http_req = NULL;
}

/* ------------------------------------------------------------------------ */

void hub_init(uv_loop_t *l, const hub_config *cfg)
{
    loop = l;
    db = cfg->db;
    if (sodium_init() < 0) {
        fprintf(stderr, "chameleon: libsodium failed to start\n");
        abort();
    }
    metrics_now.started_ms = uv_now(loop);
    room_init(loop, cfg->db, cfg->abandon_ms);
    store_set_turn_cb(db, on_turn_changed, NULL);
    uv_timer_init(loop, &sweep_timer);
    uv_timer_start(&sweep_timer, on_sweep, IDENT_SWEEP_MS, IDENT_SWEEP_MS);
}

void hub_stop(void)
{
    room_stop_clocks();
    uv_close((uv_handle_t *)&sweep_timer, NULL);
}

void hub_shutdown(void)
{
    room_shutdown();
    while (seeks != NULL) {
        seek *s = seeks;
        seeks = s->next;
        free(s);
    }
    free(watchers);
    watchers = NULL;
    nwatchers = capwatchers = 0;
    for (int b = 0; b < IDENT_BUCKETS; b++)
        while (idents[b] != NULL) {
            ident *i = idents[b];
            idents[b] = i->hnext;
            free(i);
        }
    while (orphans != NULL) {
        ident *i = orphans;
        orphans = i->hnext;
        free(i);
    }
}
