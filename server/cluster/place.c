/*
 * place.c - games from the lobby started on their asker's node (see
 * place.h).
 *
 * S body: "ASKER REQID GAME BASE INC RATED DAYS INCDAYS CAPDAYS NSEATS\n"
 * then a line a seat, "ACCOUNT TOKEN BOT NAME" (TOKEN "-" for an account
 * or a bot; NAME to the end of the line). SERIAL: the lobby node's ticket.
 * R body: the room's id, or "-CODE why" (a proto_err and its sentence).
 * J (the lobby's node to a third node whose client has a seat): SERIAL is
 * the client's session, body the room: that node joins it for its client.
 */
#include "place.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utlist.h>

#include "forward.h"
#include "log.h"

enum { GAME_ID_MAX = 31 };

/* A game asked of another node, not answered yet. */
typedef struct asked {
    struct asked *next;
    uint64_t ticket;
    uint64_t deadline;
    char node[64];
    session *asker; /* held */
    proto_req req;  /* its type and id, for an error */
    bool has_req;
    ident *seats[RULES_MAX_PLAYERS];
    int nseats;
    char game[GAME_ID_MAX + 1];
} asked;

static uv_loop_t *loop;
static uv_timer_t timer;
static asked *pending;
static uint64_t tickets;

static void answer_error(asked *a, proto_err e, const char *why)
{
    if (session_release(a->asker))
        session_send_error(a->asker, a->has_req ? &a->req : NULL, a->has_req, e, why);
    free(a);
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    uint64_t now = uv_now(loop);
    asked *a, *tmp;
    LL_FOREACH_SAFE(pending, a, tmp)
    {
        if (a->deadline > now)
            continue;
        LL_DELETE(pending, a);
        log_kv(LOG_WARN, "a game asked of another node: no answer", "node=%s game=%s", a->node,
               a->game);
        answer_error(a, PROTO_EINTERNAL,
                     "the node asked to start this game did not answer: try again");
    }
    if (pending == NULL)
        uv_timer_stop(&timer);
}

void place_init(uv_loop_t *l)
{
    loop = l;
    uv_timer_init(loop, &timer);
    uv_unref((uv_handle_t *)&timer);
}

bool place_start(const room_settings *s, ident *const *seats, int nseats, session *asker,
                 const proto_req *req)
{
    const char *node = forward_client_node(asker);
    if (node == NULL || loop == NULL)
        return false; /* not another node's client, or not node mode */
    char body[256 + RULES_MAX_PLAYERS * (PROTO_TOKEN_MAX + PROTO_NAME_MAX + 64)];
    int n = snprintf(body, sizeof body,
                     "%" PRIu64 " %" PRId64 " %s %" PRId64 " %" PRId64 " %d %" PRId64 " %" PRId64
                     " %" PRId64 " %d\n",
                     forward_client_serial(asker), req != NULL && req->has_id ? req->id : -1,
                     s->game, s->base_ms, s->inc_ms, s->rated ? 1 : 0, s->corr.days,
                     s->corr.inc_days, s->corr.cap_days, nseats);
    for (int i = 0; i < nseats; i++) {
        const ident *who = seats[i];
        bool guest = who->account == 0 && who->bot == 0;
        if (guest && who->token[0] == '\0')
            return false; /* a guest known here by its key alone: started here */
        n += snprintf(body + n, sizeof body - (size_t)n, "%" PRId64 " %s %d %s\n", who->account,
                      guest ? who->token : "-", who->bot, who->name);
    }
    if (n >= (int)sizeof body || strlen(s->game) > GAME_ID_MAX)
        return false;
    asked *a = calloc(1, sizeof *a);
    if (a == NULL)
        return false;
    a->ticket = ++tickets;
    if (forward_send(node, 'S', a->ticket, body, (size_t)n) < 0) {
        free(a);
        return false; /* the relay refused it: started here */
    }
    snprintf(a->node, sizeof a->node, "%s", node);
    snprintf(a->game, sizeof a->game, "%s", s->game);
    a->deadline = uv_now(loop) + PLACE_WAIT_MS;
    a->asker = asker;
    session_hold(asker);
    if (req != NULL) {
        a->req = *req;
        a->has_req = true;
    }
    memcpy(a->seats, seats, (size_t)nseats * sizeof *seats);
    a->nseats = nseats;
    LL_APPEND(pending, a);
    if (!uv_is_active((uv_handle_t *)&timer))
        uv_timer_start(&timer, on_tick, 1000, 1000);
    log_kv(LOG_INFO, "game asked of another node", "node=%s game=%s seats=%d", node, s->game,
           nseats);
    return true;
}

/* The node asked: start the game (S from the lobby's node). */
static void start_here(const char *node, uint64_t ticket, const char *body)
{
    unsigned long long serial;
    long long reqid, base, inc, days, incdays, capdays;
    int rated, nseats, used = 0;
    char game[GAME_ID_MAX + 1];
    char reply[RULES_WHY_TEXT + 32];
    ident *seats[RULES_MAX_PLAYERS];
    const char *p = body;
    bool ok = sscanf(p, "%llu %lld %31s %lld %lld %d %lld %lld %lld %d\n%n", &serial, &reqid, game,
                     &base, &inc, &rated, &days, &incdays, &capdays, &nseats, &used) == 10 &&
              used > 0 && nseats >= 2 && nseats <= RULES_MAX_PLAYERS;
    for (int i = 0; ok && i < nseats; i++) {
        p += used;
        long long account;
        int bot;
        char token[PROTO_TOKEN_MAX + 1];
        used = 0;
        const char *nl = strchr(p, '\n');
        ok = nl != NULL && sscanf(p, "%lld %64s %d %n", &account, token, &bot, &used) == 3 &&
             used > 0 && p + used <= nl;
        if (!ok)
            break;
        char name[PROTO_NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)(nl - (p + used)), p + used);
        used = (int)(nl + 1 - p);
        seats[i] = bot > 0                   ? ident_bot(bot)
                   : account > 0             ? ident_account(account, name)
                   : strcmp(token, "-") != 0 ? ident_guest_of(token, name)
                                             : NULL;
        ok = seats[i] != NULL;
    }
    int n;
    if (!ok) {
        log_kv(LOG_WARN, "a game to start not understood", "node=%s", node);
        n = snprintf(reply, sizeof reply, "-%d the game's message was not understood",
                     (int)PROTO_EINTERNAL);
    } else {
        room_settings rs = {game, base, inc, rated != 0, {days, incdays, capdays}, {NULL}};
        session *asker = forward_local_session(serial);
        proto_req req = {.type = PROTO_SEEK_ACCEPT, .has_id = reqid >= 0, .id = reqid};
        proto_err err = 0;
        char why[RULES_WHY_TEXT] = "";
        room *r = room_start(&rs, seats, nseats, asker, asker ? &req : NULL, &err, why, sizeof why);
        n = r != NULL ? snprintf(reply, sizeof reply, "%" PRId64, room_id(r))
                      : snprintf(reply, sizeof reply, "-%d %s", (int)err, why);
    }
    forward_send(node, 'R', ticket, reply, (size_t)n);
}

/* c, a session of this node, joins game (held by another node) as its
 * client would: the state comes back to it. */
static void join_for(session *c, int64_t game)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "{\"type\":\"join\",\"room\":%" PRId64 "}", game);
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT];
    if (proto_decode(buf, (size_t)n, &req, &typed, why, sizeof why) == 0)
        forward_room(c, &req, buf, (size_t)n);
}

/* The lobby's node: the answer (R from the node asked). */
static void answered(const char *node, uint64_t ticket, const char *body)
{
    asked *a;
    LL_FOREACH(pending, a)
    if (a->ticket == ticket && strcmp(a->node, node) == 0)
        break;
    if (a == NULL)
        return; /* too late: the asker was told it did not answer */
    LL_DELETE(pending, a);
    if (body[0] == '-') {
        int code = atoi(body + 1);
        const char *why = strchr(body, ' ');
        answer_error(a, code > 0 ? (proto_err)code : PROTO_EINTERNAL,
                     why != NULL ? why + 1 : "the game could not start");
        return;
    }
    int64_t id = strtoll(body, NULL, 10);
    /* The node asked told its own sessions (the asker's among them); the
     * seats' others here get game_started, and join it from their node. */
    for (int i = 0; i < a->nseats; i++) {
        session *c;
        DL_FOREACH2(a->seats[i]->sessions, c, inext)
        {
            const char *theirs = forward_client_node(c);
            if (theirs != NULL && strcmp(theirs, node) == 0)
                continue;
            proto_out o;
            proto_out_init(&o, NET_HEADROOM);
            proto_write_game_started(&o, NULL, id, i, a->game);
            session_send_out(c, &o);
            /* And the state, as room_start gives it: a join for it. */
            if (theirs == NULL) {
                join_for(c, id);
            } else {
                char b[24];
                int n = snprintf(b, sizeof b, "%" PRId64, id);
                forward_send(theirs, 'J', forward_client_serial(c), b, (size_t)n);
            }
        }
    }
    session_release(a->asker);
    log_kv(LOG_INFO, "game started on another node", "node=%s room=%" PRId64, node, id);
    free(a);
}

void place_message(char kind, const char *node, uint64_t serial, const char *body, size_t len)
{
    (void)len;
    if (kind == 'S')
        start_here(node, serial, body);
    else if (kind == 'R')
        answered(node, serial, body);
    else if (kind == 'J' && forward_local_session(serial) != NULL)
        join_for(forward_local_session(serial), strtoll(body, NULL, 10));
}

void place_stop(void)
{
    while (pending != NULL) {
        asked *a = pending;
        LL_DELETE(pending, a);
        answer_error(a, PROTO_EINTERNAL, "the server is stopping");
    }
    if (loop != NULL) {
        uv_timer_stop(&timer);
        uv_close((uv_handle_t *)&timer, NULL);
        loop = NULL;
    }
}
