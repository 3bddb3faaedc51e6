/*
 * hub.c - identities, dispatch, lobby (see hub.h).
 */
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "metrics.h"
#include "room.h"
#include "store.h"

static uv_loop_t *loop;
static store *db;

uv_loop_t *hub_loop(void) { return loop; }

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

void hub_send_error(conn *c, const proto_req *req, bool typed, proto_err e,
                    const char *reason)
{
    proto_out o;
    proto_out_init(&o, net_headroom());
    proto_write_error(&o, req, typed, e, reason);
    metrics_now.errors[e]++;
    net_send_out(c, &o);
}

/* ------------------------------------------------------------------------ */
/* The lobby. */

typedef struct seek {
    int64_t id;
    const rules_variant *v;
    int64_t base_ms, inc_ms;
    bool rated, private_;
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
        if (invite != NULL ? strcmp(s->invite, invite) == 0
                           : (s->id == id && !s->private_))
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
    if (req->present & PF_TOKEN) {
        who = ident_find(req->token);
        if (who == NULL)
            who = ident_adopt(req->token);
    }
    if (who == NULL)
        who = ident_new();
    if (who == NULL)
        return PROTO_EINTERNAL;
    if (req->present & PF_NAME)
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
    proto_write_welcome(&o, req, who->token, &me, rooms, nrooms);
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
    if (req->base_ms < 0 || req->base_ms > MAX_BASE_MS || req->inc_ms < 0 ||
        req->inc_ms > MAX_INC_MS || (req->base_ms == 0 && req->inc_ms != 0)) {
        rules_why(why, whylen,
                  "base_ms must be 0 to %d (0: no clock), inc_ms 0 to %d "
                  "(0 without a clock)",
                  MAX_BASE_MS, MAX_INC_MS);
        return PROTO_EBAD_TIME_CONTROL;
    }
    if (req->rated) {
        /* Guests only until accounts reach the protocol: the store refuses
         * rated games without accounts, so say it now. */
        rules_why(why, whylen, "rated games need an account for every player");
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
    s->base_ms = req->base_ms;
    s->inc_ms = req->inc_ms;
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
    room_settings rs = {s->v->id, s->base_ms, s->inc_ms, s->rated};
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
#define ROOM_HANDLER(name, call)                                               \
    static int name(conn *c, const proto_req *req, char *why, size_t whylen)   \
    {                                                                          \
        room *r = find_room(req, why, whylen);                                 \
        if (r == NULL)                                                         \
            return PROTO_EUNKNOWN_ROOM;                                        \
        return call(r, c, req, why, whylen);                                   \
    }
ROOM_HANDLER(on_join, room_join)
ROOM_HANDLER(on_move, room_move)
ROOM_HANDLER(on_resign, room_resign)
ROOM_HANDLER(on_draw_offer, room_draw_offer)
ROOM_HANDLER(on_draw_decline, room_draw_decline)
ROOM_HANDLER(on_abort, room_abort)
ROOM_HANDLER(on_rematch, room_rematch)
ROOM_HANDLER(on_chat, room_chat)
#undef ROOM_HANDLER

static int on_part(conn *c, const proto_req *req, char *why, size_t whylen)
{
    room *r = find_room(req, why, whylen);
    if (r == NULL)
        return PROTO_EUNKNOWN_ROOM;
    room_part(r, c);
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
};

/* ------------------------------------------------------------------------ */
/* Connections. */

void hub_conn_open(conn *c) { (void)c; }

void hub_receive(conn *c, const char *buf, size_t len)
{
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT] = "";
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
    if (who->conns == NULL) {
        seeks_forget(who);
        room_presence(who, false);
    }
}

/* ------------------------------------------------------------------------ */
/* The archive over HTTP. */

int hub_http_api(const char *uri, char **body, size_t *len, const char **ctype)
{
    const char *games = "/api/games/", *profile = "/api/profile/";
    int err;
    char *out = NULL;
    if (strncmp(uri, games, strlen(games)) == 0) {
        const char *id = uri + strlen(games);
        char *end;
        long long n = strtoll(id, &end, 10);
        bool pgn = strcmp(end, ".pgn") == 0;
        if (end == id || n <= 0 || (*end && !pgn))
            return 404;
        err = pgn ? store_game_pgn(db, n, &out) : store_game_json(db, n, &out);
        *ctype = pgn ? "application/x-chess-pgn" : "application/json";
    } else if (strncmp(uri, profile, strlen(profile)) == 0) {
        err = store_profile_json(db, uri + strlen(profile), &out);
        *ctype = "application/json";
    } else {
        return 0;
    }
    if (err < 0) {
        free(out);
        return err == STORE_ENOT_FOUND ? 404 : 500;
    }
    *body = out;
    *len = strlen(out);
    return 200;
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
}

void hub_stop(void) { room_stop_clocks(); }

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
