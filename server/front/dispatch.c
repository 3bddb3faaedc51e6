/*
 * dispatch.c - sessions come and go, requests are checked and dispatched
 * (see dispatch.h).
 */
#include "dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utlist.h>

#include "accounts.h"
#include "archive.h"
#include "challenge.h"
#include "errmap.h"
#include "forward.h"
#include "ident.h"
#include "lobby.h"
#include "log.h"
#include "counters.h"
#include "presence.h"
#include "push.h"
#include "room.h"
#include "session.h"
#include "store.h"
#include "tournament.h"

static uv_loop_t *loop;
static store *db;
static int ident_msgs = DISPATCH_IDENT_MSGS;

static void wait_for(session *s);
static bool wait_over(session *s);
static void replay_early(session *s);

/* ------------------------------------------------------------------------ */
/* The welcome. */

static bool has_id(const int64_t *ids, int n, int64_t id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* Send s (after its hello: s->who is set) its welcome. Its rooms: where
 * its identity holds a seat in a game going on, this node's (as its memory
 * has them, oldest first) and, in node mode, `stored`: the store's list of
 * every node's (oldest first). Merged: the store's in its order, but for a
 * room this node holds and no longer lists (over, or left: the memory is
 * ahead of the store), then this node's that the store did not list yet
 * (created since, the newest). */
static void send_welcome(session *s, const proto_req *req, const int64_t *stored, int nstored)
{
    ident *who = s->who;
    int64_t local[STORE_SEATED_MAX], rooms[STORE_SEATED_MAX];
    int nlocal = room_active_of(who, local, STORE_SEATED_MAX);
    int n = 0;
    for (int i = 0; i < nstored && n < STORE_SEATED_MAX; i++)
        if (room_find(stored[i]) == NULL || has_id(local, nlocal, stored[i]))
            rooms[n++] = stored[i];
    for (int i = 0; i < nlocal && n < STORE_SEATED_MAX; i++)
        if (!has_id(stored, nstored, local[i]))
            rooms[n++] = local[i];
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_player me = ident_player(who);
    proto_write_welcome(&o, req, who->token, &me, who->account ? who->name : NULL, rooms, n,
                        push_enabled());
    session_send_out(s, &o);
}

/* A welcome waiting for the store's list (node mode): the hello's id. */
typedef struct welcome_wait {
    session *s;
    bool has_id;
    int64_t id;
} welcome_wait;

static void on_seated(void *arg, int status, const int64_t *games, int n)
{
    welcome_wait *q = arg;
    session *s = q->s;
    proto_req req = {.type = PROTO_HELLO, .has_id = q->has_id, .id = q->id};
    free(q);
    if (!wait_over(s))
        return; /* closed meanwhile */
    if (status < 0)
        log_kv(LOG_WARN, "welcome with this node's rooms only", "err=%s", store_err_code(status));
    if (!(s->flags & SESSION_SHUT))
        send_welcome(s, &req, games, status < 0 ? 0 : n);
    replay_early(s);
}

/* Node mode: s's welcome once the store has listed its identity's games
 * in progress, every node's (queued: the loop does not wait); what the
 * client sends meanwhile is answered after it. false if the read could
 * not be queued (logged): the caller sends this node's rooms alone. */
static bool welcome_later(session *s, const proto_req *req)
{
    welcome_wait *q = malloc(sizeof *q);
    int err = STORE_ENOMEM;
    wait_for(s);
    if (q != NULL) {
        *q = (welcome_wait){s, req->has_id, req->id};
        const ident *who = s->who;
        err = store_seated_games(db, who->account, who->account ? NULL : who->key, on_seated, q);
    }
    if (err < 0) {
        wait_over(s);
        free(q);
        log_kv(LOG_WARN, "welcome with this node's rooms only", "err=%s", store_err_code(err));
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* The requests of no other module. Each returns 0 or a proto_err with a
 * sentence in why. */

static int on_hello(session *s, const proto_req *req, char *why, size_t whylen)
{
    if ((req->present & PF_NAME) && strncmp(req->name, "bot-", 4) == 0) {
        /* The bots' names ("bot-level-5") are theirs alone. */
        rules_why(why, whylen, "names starting with 'bot-' belong to the computer");
        return PROTO_EBAD_MESSAGE;
    }
    ident *who = NULL;
    if (s->account != 0) {
        /* Logged in (session cookie): the account is the identity. */
        who = ident_account(s->account, s->account_name);
    } else if (req->present & PF_TOKEN) {
        who = ident_by_token(req->token);
        if (who != NULL && who->account != 0)
            who = NULL; /* an account's token is not a way in */
        else if (who == NULL && forward_on())
            who = ident_guest_of(req->token, NULL); /* given by another node */
    }
    bool fresh = who == NULL; /* a new guest: no seat anywhere */
    if (who == NULL && (who = ident_new()) == NULL) {
        if (!ident_guests_full())
            return PROTO_EINTERNAL;
        /* Every guest held is in use (a session or a seat): none to let go. */
        metrics_now.refused_guests++;
        rules_why(why, whylen, "the server holds as many guests as it can: log in, or try later");
        return PROTO_ETOO_MANY_GUESTS;
    }
    if ((req->present & PF_NAME) && who->account == 0)
        snprintf(who->name, sizeof who->name, "%s", req->name);
    if (req->board)
        s->flags |= SESSION_BOARD;
    bool first = ident_attach(who, s);
    net_ready(s->conn); /* no longer closed by the hello timeout */
    /* Node mode: the games held by other nodes are in the store. */
    if (fresh || !forward_on() || !welcome_later(s, req))
        send_welcome(s, req, NULL, 0);
    if (first) {
        room_presence(who, true);
        presence_came(who);
    }
    return 0;
}

static int on_ping(session *s, const proto_req *req, char *why, size_t whylen)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_pong(&o, req);
    session_send_out(s, &o);
    return 0;
}

/* Write a turn list to s (req: the request to echo, or NULL for a push). */
static void write_turns(session *s, const proto_req *req, const store_turn *t, int n)
{
    /* Each game's opponents, from its room when it is here. */
    store_turn *named = n > 0 ? malloc((size_t)n * sizeof *named) : NULL;
    if (named != NULL) {
        for (int i = 0; i < n; i++) {
            named[i] = t[i];
            const room *r = room_find(t[i].game);
            named[i].nopponents =
                r ? room_opponents(r, s->who->account, named[i].opponents, RULES_MAX_PLAYERS) : 0;
        }
        t = named;
    }
    char *json = n >= 0 ? archive_turns_json(t, n) : NULL;
    free(named);
    if (json == NULL) {
        session_send_error(s, req, req != NULL, PROTO_EINTERNAL, "cannot read the turn list");
        return;
    }
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_turns(&o, req, json);
    free(json);
    session_send_out(s, &o);
}

/* The session `serial` of the account, if it is still open here. */
static session *account_session(int64_t account, uint64_t serial)
{
    ident *who = ident_find_account(account);
    session *it;
    if (who != NULL)
        DL_FOREACH2(who->sessions, it, inext)
        {
            if (it->serial == serial)
                return it;
        }
    return NULL;
}

/* A turn list being read from the database (node mode). */
typedef struct turns_req {
    int64_t account;
    uint64_t serial;
    bool has_req;
    proto_req req; /* type and id, to echo */
} turns_req;

static void on_turns_read(void *arg, int status, const store_turn *t, int n)
{
    turns_req *q = arg;
    session *s = account_session(q->account, q->serial);
    if (s != NULL && !(s->flags & SESSION_SHUT))
        write_turns(s, q->has_req ? &q->req : NULL, t, status < 0 ? -1 : n);
    free(q);
}

/* Send the account's "your turn" list to s (req: the request to echo). In
 * node mode the list is read from the database: its games are on every
 * node. */
static void send_turns(session *s, const proto_req *req)
{
    if (forward_on()) {
        turns_req *q = calloc(1, sizeof *q);
        if (q != NULL) {
            *q = (turns_req){s->who->account, s->serial, req != NULL, {.type = PROTO_TURNS}};
            if (req != NULL)
                q->req = (proto_req){.type = req->type, .has_id = req->has_id, .id = req->id};
        }
        if (q == NULL || store_turns_of(db, s->who->account, on_turns_read, q) < 0) {
            free(q);
            write_turns(s, req, NULL, -1);
        }
        return;
    }
    int n = store_your_turn(db, s->who->account, NULL, 0);
    store_turn *t = n >= 0 ? calloc((size_t)n + 1, sizeof *t) : NULL;
    write_turns(s, req, t, t ? store_your_turn(db, s->who->account, t, n) : -1);
    free(t);
}

static int on_turns(session *s, const proto_req *req, char *why, size_t whylen)
{
    s->flags |= SESSION_TURNS;
    send_turns(s, req);
    return 0;
}

/* This node's memory follows another node's vacation change: its rooms
 * where the account is seated tell their players. */
static void on_vacation_synced(void *arg, int status, int64_t until, int left, const char *why)
{
    int64_t *account = arg;
    ident *who = status == 0 ? ident_find_account(*account) : NULL;
    if (who != NULL)
        room_vacation(who, until);
    else if (status < 0 && status != STORE_ENOT_FOUND)
        log_kv(LOG_WARN, "vacation not followed", "account=%lld err=%s", (long long)*account,
               store_err_code(status));
    free(account);
}

void dispatch_vacation_changed(int64_t account)
{
    int64_t *arg = malloc(sizeof *arg);
    if (arg == NULL)
        return;
    *arg = account;
    if (store_vacation_sync(db, account, on_vacation_synced, arg) < 0)
        free(arg);
}

void dispatch_turns_changed(int64_t account)
{
    ident *who = ident_find_account(account);
    if (who == NULL)
        return;
    session *s;
    DL_FOREACH2(who->sessions, s, inext)
    {
        if ((s->flags & SESSION_TURNS) && s->remote == NULL)
            send_turns(s, NULL);
    }
}

/* This node's connections of the logins ended. */
static void logins_ended_here(int64_t account, const unsigned char *login, bool others,
                              const char *why)
{
    ident *who = ident_find_account(account);
    if (who == NULL)
        return;
    session *s, *tmp;
    DL_FOREACH_SAFE2(who->sessions, s, tmp, inext)
    {
        if (s->remote != NULL || !s->has_login)
            continue;
        bool same = login != NULL && memcmp(s->login, login, sizeof s->login) == 0;
        if (same != others)
            session_reconnect(s, why);
    }
}

void dispatch_logins_ended(int64_t account, const unsigned char login[32], bool others,
                           const char *why)
{
    logins_ended_here(account, login, others, why);
    forward_logins_ended(account, login, others); /* and on the other nodes */
}

void dispatch_logins_ended_elsewhere(int64_t account, const unsigned char *login, bool others)
{
    logins_ended_here(account, login, others, "signed out");
}

/* The store's turn callback: push the list to every session of the
 * account that asked for it, here and (node mode) on the other nodes. */
static void on_turn_changed(void *arg, int64_t account)
{
    (void)arg;
    dispatch_turns_changed(account);
    forward_turns_changed(account);
}

/* A vacation request waiting for the store: the account, the session
 * that asked (by serial: it may close meanwhile) and what to echo. */
typedef struct vac_req {
    int64_t account;
    uint64_t serial;
    proto_type type;
    bool has_id;
    int64_t id;
} vac_req;

static void on_vacation_done(void *arg, int status, int64_t until, int left, const char *swhy)
{
    vac_req *q = arg;
    ident *who = ident_find_account(q->account);
    session *s = account_session(q->account, q->serial);
    /* The opponents see the deadlines move now, and why (whether the
     * session that asked is still there or not). */
    if (status == 0 && q->type != PROTO_VACATION_STATUS) {
        if (who != NULL)
            room_vacation(who, until);
        forward_vacation_changed(q->account); /* the account's games on other nodes */
    }
    proto_req req = {.type = q->type, .has_id = q->has_id, .id = q->id};
    free(q);
    if (s == NULL || (s->flags & SESSION_SHUT))
        return;
    if (status < 0) {
        char why[RULES_WHY_TEXT];
        if (status == STORE_EBAD_ARG && req.type == PROTO_VACATION_START)
            rules_why(why, sizeof why, "you are already on vacation");
        else if (status == STORE_ENOT_FOUND && req.type == PROTO_VACATION_END)
            rules_why(why, sizeof why, "you are not on vacation");
        else
            rules_why(why, sizeof why, "%s", swhy);
        session_send_error(s, &req, true, (proto_err)errmap_store_fail(status, why, sizeof why),
                           why);
        return;
    }
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_vacation(&o, &req, until, left);
    session_send_out(s, &o);
}

/* Answered when the store has read (and for a change, written) the
 * account's vacation: the loop does not wait for the database. */
static int on_vacation(session *s, const proto_req *req, char *why, size_t whylen)
{
    int64_t account = s->who->account;
    if (req->type == PROTO_VACATION_START && (req->days < 1 || req->days > STORE_VACATION_DAYS)) {
        rules_why(why, whylen, "days must be 1 to %d", STORE_VACATION_DAYS);
        return PROTO_EBAD_MESSAGE;
    }
    vac_req *q = malloc(sizeof *q);
    if (q == NULL)
        return errmap_store_fail(STORE_ENOMEM, why, whylen);
    *q = (vac_req){account, s->serial, req->type, req->has_id, req->id};
    int err = req->type == PROTO_VACATION_START
                  ? store_vacation_start(db, account, (int)req->days, on_vacation_done, q)
              : req->type == PROTO_VACATION_END
                  ? store_vacation_end(db, account, on_vacation_done, q)
                  : store_vacation_status(db, account, on_vacation_done, q);
    if (err < 0) {
        free(q);
        if (err == STORE_EBUSY)
            rules_why(why, whylen, "your vacation is being changed: try again in a moment");
        return errmap_store_fail(err, why, whylen);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The request table. */

/* What a request needs, checked in this order before its handler runs. */
enum {
    CMD_FIRST = 1 << 0,   /* no hello yet (hello itself) */
    CMD_HELLO = 1 << 1,   /* hello done: s->who is set */
    CMD_ROOM = 1 << 2,    /* req->room is a room in memory: passed as r */
    CMD_ACCOUNT = 1 << 3, /* the identity is an account */
    CMD_LOBBY = 1 << 4,   /* node mode: run by the node that holds the lobby */
};

typedef struct cmd {
    unsigned flags;
    /* One of the two: fn, or in_room for a CMD_ROOM request. */
    int (*fn)(session *s, const proto_req *req, char *why, size_t whylen);
    int (*in_room)(room *r, session *s, const proto_req *req, char *why, size_t whylen);
    const char *no_account; /* the sentence when CMD_ACCOUNT fails */
} cmd;

#define ACCOUNT_WHY "this needs an account: log in"

/* One row per message type, in the order of PROTO_REQUESTS. */
static const cmd cmds[PROTO_NREQUESTS] = {
    [PROTO_HELLO] = {CMD_FIRST, on_hello, NULL, NULL},
    [PROTO_PING] = {CMD_HELLO, on_ping, NULL, NULL},
    [PROTO_LOBBY_WATCH] = {CMD_HELLO | CMD_LOBBY, lobby_watch, NULL, NULL},
    [PROTO_LOBBY_UNWATCH] = {CMD_HELLO | CMD_LOBBY, lobby_unwatch, NULL, NULL},
    [PROTO_SEEK_CREATE] = {CMD_HELLO | CMD_LOBBY, lobby_seek_create, NULL, NULL},
    [PROTO_SEEK_CANCEL] = {CMD_HELLO | CMD_LOBBY, lobby_seek_cancel, NULL, NULL},
    [PROTO_SEEK_ACCEPT] = {CMD_HELLO | CMD_LOBBY, lobby_seek_accept, NULL, NULL},
    [PROTO_JOIN] = {CMD_HELLO | CMD_ROOM, NULL, room_join, NULL},
    [PROTO_PART] = {CMD_HELLO | CMD_ROOM, NULL, room_part, NULL},
    [PROTO_MOVE] = {CMD_HELLO | CMD_ROOM, NULL, room_move, NULL},
    [PROTO_RESIGN] = {CMD_HELLO | CMD_ROOM, NULL, room_resign, NULL},
    [PROTO_DRAW_OFFER] = {CMD_HELLO | CMD_ROOM, NULL, room_draw_offer, NULL},
    [PROTO_DRAW_DECLINE] = {CMD_HELLO | CMD_ROOM, NULL, room_draw_decline, NULL},
    [PROTO_ABORT] = {CMD_HELLO | CMD_ROOM, NULL, room_abort, NULL},
    [PROTO_REMATCH] = {CMD_HELLO | CMD_ROOM, NULL, room_rematch, NULL},
    [PROTO_REMATCH_DECLINE] = {CMD_HELLO | CMD_ROOM, NULL, room_rematch_decline, NULL},
    [PROTO_TAKEBACK] = {CMD_HELLO | CMD_ROOM, NULL, room_takeback, NULL},
    [PROTO_TAKEBACK_DECLINE] = {CMD_HELLO | CMD_ROOM, NULL, room_takeback_decline, NULL},
    [PROTO_CHAT] = {CMD_HELLO | CMD_ROOM, NULL, room_chat, NULL},
    [PROTO_TURNS] = {CMD_HELLO | CMD_ACCOUNT, on_turns, NULL, ACCOUNT_WHY},
    [PROTO_VACATION_START] = {CMD_HELLO | CMD_ACCOUNT, on_vacation, NULL, ACCOUNT_WHY},
    [PROTO_VACATION_END] = {CMD_HELLO | CMD_ACCOUNT, on_vacation, NULL, ACCOUNT_WHY},
    [PROTO_VACATION_STATUS] = {CMD_HELLO | CMD_ACCOUNT, on_vacation, NULL, ACCOUNT_WHY},
#define COND_ROW                                                                                   \
    {                                                                                              \
        CMD_HELLO | CMD_ROOM | CMD_ACCOUNT, NULL, room_cond,                                       \
            "conditional moves need an account: log in"                                            \
    }
    [PROTO_COND_SET] = COND_ROW,
    [PROTO_COND_CLEAR] = COND_ROW,
    [PROTO_COND_GET] = COND_ROW,
#undef COND_ROW
    [PROTO_BOT_GAME] = {CMD_HELLO, lobby_bot_game, NULL, NULL},
    [PROTO_SEEK_FILL] = {CMD_HELLO | CMD_LOBBY, lobby_seek_fill, NULL, NULL},
#define CHALLENGE_WHY "challenges are between accounts: log in"
    [PROTO_CHALLENGE_CREATE] = {CMD_HELLO | CMD_ACCOUNT | CMD_LOBBY, challenge_create, NULL,
                                CHALLENGE_WHY},
    [PROTO_CHALLENGE_ACCEPT] = {CMD_HELLO | CMD_ACCOUNT | CMD_LOBBY, challenge_accept, NULL,
                                CHALLENGE_WHY},
    [PROTO_CHALLENGE_DECLINE] = {CMD_HELLO | CMD_ACCOUNT | CMD_LOBBY, challenge_decline, NULL,
                                 CHALLENGE_WHY},
    [PROTO_CHALLENGE_CANCEL] = {CMD_HELLO | CMD_ACCOUNT | CMD_LOBBY, challenge_cancel, NULL,
                                CHALLENGE_WHY},
    [PROTO_CHALLENGE_LIST] = {CMD_HELLO | CMD_LOBBY, challenge_list, NULL, NULL},
#undef CHALLENGE_WHY
    [PROTO_TOURNEY_WATCH] = {CMD_HELLO, tournament_watch, NULL, NULL},
    [PROTO_TOURNEY_UNWATCH] = {CMD_HELLO, tournament_unwatch, NULL, NULL},
};

/* Check what req's row needs, then run its handler (or, in node mode,
 * send it on as it came, buf and len, to the node that runs it: answered
 * from there). */
static int run(session *s, const proto_req *req, const char *buf, size_t len, char *why,
               size_t whylen)
{
    const cmd *c = &cmds[req->type];
    if ((c->flags & CMD_FIRST) && s->who != NULL) {
        rules_why(why, whylen, "hello was already sent on this connection");
        return PROTO_ENOT_HELLO;
    }
    if ((c->flags & CMD_HELLO) && s->who == NULL) {
        rules_why(why, whylen, "send hello first");
        return PROTO_ENOT_HELLO;
    }
    /* A remote session's requests came here because this node runs them:
     * never sent on again. */
    bool local = s->remote == NULL;
    if ((c->flags & CMD_LOBBY) && local && forward_lobby(s, req, buf, len))
        return 0;
    room *r = NULL;
    if (c->flags & CMD_ROOM) {
        r = room_find(req->room);
        if (r == NULL && local && forward_room(s, req, buf, len))
            return 0;
        if (r == NULL) {
            rules_why(why, whylen, "no room %lld", (long long)req->room);
            return PROTO_EUNKNOWN_ROOM;
        }
    }
    if ((c->flags & CMD_ACCOUNT) && s->who->account == 0) {
        rules_why(why, whylen, "%s", c->no_account);
        return PROTO_EACCOUNT_REQUIRED;
    }
    if (c->in_room != NULL)
        return c->in_room(r, s, req, why, whylen);
    return c->fn != NULL ? c->fn(s, req, why, whylen) : 0;
}

/* ------------------------------------------------------------------------ */
/* Sessions. */

/* A queued store call that the session's next messages depend on is out:
 * they wait (keep_early) until it is answered. */
static void wait_for(session *s)
{
    session_hold(s);
    s->flags |= SESSION_WAIT;
}

/* Its answer came: false if s closed meanwhile (then nothing more). */
static bool wait_over(session *s)
{
    if (!session_release(s))
        return false;
    s->flags &= ~(unsigned)SESSION_WAIT;
    return true;
}

/* The messages that came during the wait, dispatched in order (one may
 * start another wait: those after it wait again, still in order). */
static void replay_early(session *s)
{
    char *early = s->early;
    size_t n = s->nearly;
    s->early = NULL;
    s->nearly = s->capearly = 0;
    for (size_t at = 0; at + sizeof(size_t) <= n && s->conn != NULL;) {
        size_t len;
        memcpy(&len, early + at, sizeof len);
        at += sizeof len;
        dispatch_message(s->conn, early + at, len);
        at += len;
    }
    free(early);
}

/* The session cookie's account is known (or not): the messages that came
 * meanwhile are dispatched, in order. */
static void cookie_found(void *arg, int status, const store_account *a)
{
    session *s = arg;
    if (!wait_over(s))
        return; /* closed meanwhile */
    if (status == 0) {
        s->account = a->id;
        s->has_login = true; /* s->login: the hash cookie_account took */
        snprintf(s->account_name, sizeof s->account_name, "%s", a->username);
    } else if (status != STORE_ENOT_FOUND) {
        /* The database could not say: better a clear refusal than a guest
         * where the player expects their account. */
        log_kv(LOG_WARN, "session cookie not looked up", "err=%s", store_err_code(status));
        s->flags |= SESSION_SHUT;
        net_close_why(s->conn, "unavailable");
        return;
    }
    replay_early(s);
}

/* The session cookie of the upgrade request, if any, names the account:
 * asked of the store (queued), the session's messages wait meanwhile. */
static void cookie_account(session *s)
{
    char token[128];
    if (net_cookie(s->conn, ACCOUNTS_COOKIE, token, sizeof token) <= 0)
        return;
    wait_for(s);
    accounts_token_hash(token, s->login);
    if (accounts_login_find(db, token, cookie_found, s) < 0)
        wait_over(s); /* a token of the wrong shape: a guest */
}

/* Keep a message that came during a wait: false if the session has kept
 * as much as it may. */
static bool keep_early(session *s, const char *buf, size_t len)
{
    size_t need = s->nearly + sizeof len + len;
    if (need > SESSION_EARLY_BYTES)
        return false;
    if (need > s->capearly) {
        char *p = realloc(s->early, SESSION_EARLY_BYTES);
        if (p == NULL)
            return false;
        s->early = p;
        s->capearly = SESSION_EARLY_BYTES;
    }
    memcpy(s->early + s->nearly, &len, sizeof len);
    memcpy(s->early + s->nearly + sizeof len, buf, len);
    s->nearly = need;
    return true;
}

void dispatch_open(net_conn *c)
{
    session *s = session_new(c);
    if (s == NULL) {
        log_kv(LOG_WARN, "out of memory for a session", "addr=%s", c->addr);
        net_close(c);
        return;
    }
    log_kv(LOG_DEBUG, "connection opened", "addr=%s", c->addr);
    cookie_account(s);
}

/* May this message of s go on? NULL, or the sentence of the limit it
 * reached (counted). req: the decoded message, NULL if it could not be. */
static const char *over_rate(session *s, const proto_req *req, uint64_t now, char *why,
                             size_t whylen)
{
    if (!session_rate_ok(s, now)) {
        metrics_now.throttled_conn++;
        rules_why(why, whylen, "more than %d messages per second on this connection",
                  SESSION_MSG_RATE);
        return why;
    }
    /* Pings keep a connection alive: each tab of a player pings, so only
     * the connection's own rate bounds them. */
    if (s->who == NULL || (req != NULL && req->type == PROTO_PING))
        return NULL;
    double burst = ident_msgs;
    if (!session_bucket_take(&s->who->msgs, burst, burst * 1000.0 / DISPATCH_IDENT_WINDOW_MS,
                             now)) {
        metrics_now.throttled_ident++;
        rules_why(why, whylen, "more than %d messages per %d s from one player (all connections)",
                  ident_msgs, DISPATCH_IDENT_WINDOW_MS / 1000);
        return why;
    }
    return NULL;
}

void dispatch_message(net_conn *c, const char *buf, size_t len)
{
    session *s = c->data;
    if (s == NULL || (s->flags & SESSION_SHUT))
        return;
    if (s->flags & SESSION_WAIT) {
        if (!keep_early(s, buf, len)) {
            s->flags |= SESSION_SHUT;
            net_close_why(c, "too_early");
        }
        return;
    }
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT] = "";
    uint64_t now = uv_now(loop);
    int err = proto_decode(buf, len, &req, &typed, why, sizeof why);
    if (over_rate(s, err == 0 ? &req : NULL, now, why, sizeof why) != NULL) {
        /* Dropped. A client that stops at the error never reaches the
         * close; one that goes on is cut off. */
        if (session_excess(s, now)) {
            s->flags |= SESSION_SHUT;
            net_close_why(c, "rate_limited");
            return;
        }
        err = PROTO_ERATE_LIMITED;
    } else if (err == 0) {
        err = run(s, &req, buf, len, why, sizeof why);
    }
    if (err != 0)
        session_send_error(s, &req, typed, (proto_err)err, why);
}

void dispatch_remote(session *s, const char *buf, size_t len)
{
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT] = "";
    int err = proto_decode(buf, len, &req, &typed, why, sizeof why);
    if (err == 0)
        err = run(s, &req, buf, len, why, sizeof why);
    if (err != 0)
        session_send_error(s, &req, typed, (proto_err)err, why);
}

void dispatch_came(ident *who)
{
    room_presence(who, true);
    presence_came(who);
}

void dispatch_close(net_conn *c)
{
    session *s = c->data;
    if (s == NULL)
        return;
    log_kv(LOG_DEBUG, "connection closed", "addr=%s", c->addr);
    dispatch_session_end(s);
}

void dispatch_session_end(session *s)
{
    forward_closed(s);
    lobby_leave(s);
    room_unwatch_all(s);
    tournament_unwatch_all(s);
    ident *who = s->who;
    if (who != NULL && ident_detach(s)) {
        lobby_forget(who);
        challenge_forget(who);
        room_presence(who, false);
        presence_went(who);
    }
    session_close(s);
}

void dispatch_set_ident_msgs(int n)
{
    ident_msgs = n;
}

void dispatch_init(uv_loop_t *l, store *s)
{
    loop = l;
    db = s;
    store_set_turn_cb(db, on_turn_changed, NULL);
}
