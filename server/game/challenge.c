/*
 * challenge.c - challenges to a named player (see challenge.h).
 */
#include "challenge.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>
#include <utlist.h>

#include "accounts.h"
#include "errmap.h"
#include "lobby.h"
#include "counters.h"
#include "quota.h"
#include "room.h"

typedef struct challenge {
    int64_t id;
    ident *from;
    quota_addr *addr; /* the challenger's address at creation (a reference) */
    int64_t to;       /* the account challenged */
    char to_name[PROTO_NAME_MAX + 1];
    const rules_variant *v;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr;
    UT_hash_handle hh;
} challenge;

static challenge *table; /* by id, oldest first (uthash keeps the order) */
static int64_t next_id = 1;
static uv_loop_t *loop;
static struct store *db;

void challenge_init(uv_loop_t *l, struct store *s)
{
    loop = l;
    db = s;
}

static proto_challenge_view view_of(const challenge *c)
{
    return (proto_challenge_view){
        .id = c->id,
        .game = c->v->id,
        .base_ms = c->base_ms,
        .inc_ms = c->inc_ms,
        .rated = c->rated,
        .corr = c->corr,
        .from = {.id = c->from->id, .name = c->from->name, .account = c->from->account != 0},
        .to = c->to_name,
    };
}

/* Send the challenge notice to every session of who but `except`. */
static void notify_ident(const ident *who, net_msg *m, const session *except)
{
    if (who == NULL)
        return;
    session *s;
    DL_FOREACH2(who->sessions, s, inext)
    {
        if (s != except)
            session_send(s, m);
    }
}

/* Tell both sides that c is added or removed (reason); the asker's
 * session gets its own reply echoing req (NULL: none). */
static void notify(const challenge *c, const char *op, const char *reason, session *asker,
                   const proto_req *req)
{
    proto_challenge_view v = view_of(c);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_challenge(&o, NULL, op, &v, reason);
    net_msg *m = net_msg_from(&o);
    if (m != NULL) {
        notify_ident(c->from, m, asker);
        notify_ident(ident_find_account(c->to), m, asker);
        net_msg_unref(m);
    }
    if (asker != NULL) {
        proto_out_init(&o, NET_HEADROOM);
        proto_write_challenge(&o, req, op, &v, reason);
        session_send_out(asker, &o);
    }
}

static void drop(challenge *c)
{
    HASH_DELETE(hh, table, c);
    quota_addr_put(c->addr);
    free(c);
    metrics_now.challenges--;
}

static challenge *find(const proto_req *req, char *why, size_t whylen)
{
    challenge *c = NULL;
    HASH_FIND(hh, table, &req->challenge, sizeof req->challenge, c);
    if (c == NULL)
        rules_why(why, whylen, "no open challenge %lld (withdrawn, declined or accepted)",
                  (long long)req->challenge);
    return c;
}

/* The open challenge req names, made to s's account (accept, decline): it,
 * or NULL with *err and why set. */
static challenge *find_to_me(const session *s, const proto_req *req, int *err, char *why,
                             size_t whylen)
{
    challenge *c = find(req, why, whylen);
    if (c == NULL) {
        *err = PROTO_ENOT_FOUND;
        return NULL;
    }
    if (c->to != s->who->account) {
        rules_why(why, whylen, "challenge %lld is not to you", (long long)c->id);
        *err = PROTO_EBAD_ARGUMENT;
        return NULL;
    }
    return c;
}

/* A challenge once its target's account is known (to: NULL if no account
 * has that name): 0 or a proto_err with why. */
static int challenge_make(session *s, const proto_req *req, const rules_variant *v,
                          const proto_corr *corr, const store_account *to, char *why, size_t whylen)
{
    ident *me = s->who;
    if (to == NULL) {
        rules_why(why, whylen, "there is no player named '%s'", req->to);
        return PROTO_ENOT_FOUND;
    }
    if (to->id == me->account) {
        rules_why(why, whylen, "you cannot challenge yourself");
        return PROTO_EBAD_ARGUMENT;
    }
    int mine = 0, theirs = 0;
    for (const challenge *c = table; c != NULL; c = c->hh.next) {
        if (c->from == me && c->to == to->id) {
            rules_why(why, whylen, "you already challenge %s (challenge %lld): cancel it first",
                      c->to_name, (long long)c->id);
            return PROTO_EBAD_ARGUMENT;
        }
        mine += c->from == me;
        theirs += c->to == to->id;
    }
    if (mine >= CHALLENGE_PER_IDENT || theirs >= CHALLENGE_PER_TARGET) {
        metrics_now.challenges_refused++;
        if (mine >= CHALLENGE_PER_IDENT)
            rules_why(why, whylen, "at most %d open challenges: cancel one first",
                      CHALLENGE_PER_IDENT);
        else
            rules_why(why, whylen, "%s has %d open challenges already: try later", req->to,
                      CHALLENGE_PER_TARGET);
        return PROTO_ETOO_MANY_SEEKS;
    }
    double per = CHALLENGE_PER_MINUTE;
    if (!session_bucket_take(&me->challenges, per, per / 60.0, loop ? uv_now(loop) : 0)) {
        metrics_now.challenges_refused++;
        rules_why(why, whylen, "at most %d new challenges a minute: wait a little",
                  CHALLENGE_PER_MINUTE);
        return PROTO_ETOO_MANY_SEEKS;
    }
    quota_addr *a = quota_addr_of(s);
    int err = quota_game_check(me, a, corr->days > 0, why, whylen);
    if (err != 0) {
        quota_addr_put(a);
        return err;
    }
    challenge *c = calloc(1, sizeof *c);
    if (c == NULL) {
        quota_addr_put(a);
        return PROTO_EINTERNAL;
    }
    c->id = next_id++;
    c->from = me;
    c->addr = a;
    c->to = to->id;
    /* The name as registered (the request may differ in case). */
    snprintf(c->to_name, sizeof c->to_name, "%.*s", PROTO_NAME_MAX, to->username);
    c->v = v;
    c->corr = *corr;
    c->base_ms = corr->days > 0 ? 0 : req->base_ms;
    c->inc_ms = corr->days > 0 ? 0 : req->inc_ms;
    c->rated = req->rated;
    HASH_ADD(hh, table, id, sizeof c->id, c);
    metrics_now.challenges++;
    metrics_now.challenges_made++;
    notify(c, "add", NULL, s, req);
    return 0;
}

/* A challenge_create waiting for its target's account (a queued store
 * call). */
typedef struct create_wait {
    session *s; /* held */
    proto_req req;
    proto_corr corr;
    const rules_variant *v;
} create_wait;

static void target_found(void *arg, int status, const store_account *to)
{
    create_wait *w = arg;
    if (session_release(w->s) && w->s->who != NULL) {
        char why[RULES_WHY_TEXT] = "";
        int err;
        if (status < 0 && status != STORE_ENOT_FOUND)
            err = errmap_store_fail(status, why, sizeof why);
        else
            err = challenge_make(w->s, &w->req, w->v, &w->corr, status == 0 ? to : NULL, why,
                                 sizeof why);
        if (err != 0)
            session_send_error(w->s, &w->req, true, (proto_err)err, why);
    }
    free(w);
}

int challenge_create(session *s, const proto_req *req, char *why, size_t whylen)
{
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        rules_why(why, whylen, "no game '%s'", req->game);
        return PROTO_EUNKNOWN_GAME;
    }
    if (v->nplayers != 2) {
        rules_why(why, whylen,
                  "a challenge is for a two-player game (%s has %d players: "
                  "create a seek)",
                  v->id, v->nplayers);
        return PROTO_EBAD_ARGUMENT;
    }
    proto_corr corr;
    int err = lobby_time_control(s, req, &corr, why, whylen);
    if (err != 0)
        return err;
    create_wait *w = malloc(sizeof *w);
    if (w == NULL)
        return PROTO_EINTERNAL;
    *w = (create_wait){s, *req, corr, v};
    session_hold(s);
    err = accounts_find(db, req->to, target_found, w);
    if (err < 0) {
        session_release(s);
        free(w);
        return errmap_store_fail(err, why, whylen);
    }
    return 0;
}

int challenge_accept(session *s, const proto_req *req, char *why, size_t whylen)
{
    int err;
    challenge *c = find_to_me(s, req, &err, why, whylen);
    if (c == NULL)
        return err;
    bool corr = c->corr.days > 0;
    err = quota_game_check(c->from, c->addr, corr, why, whylen);
    if (err != 0)
        return err;
    quota_addr *a = quota_addr_of(s);
    if ((err = quota_game_check(s->who, a, corr, why, whylen)) != 0) {
        quota_addr_put(a);
        return err;
    }
    /* Seats: the challenger first, as a seek's creator. */
    room_settings rs = {c->v->id, c->base_ms, c->inc_ms, c->rated, c->corr, {c->addr, a}};
    ident *seats[2] = {c->from, s->who};
    proto_err perr = 0;
    /* Node mode: on the node of the challenged, if not here. */
    bool placed = lobby_place(&rs, seats, 2, s, req);
    room *r = placed ? NULL : room_start(&rs, seats, 2, s, req, &perr, why, whylen);
    quota_addr_put(a);
    if (!placed && r == NULL)
        return (int)perr;
    metrics_now.challenges_accepted++;
    notify(c, "remove", "accepted", NULL, NULL);
    drop(c);
    return 0;
}

int challenge_decline(session *s, const proto_req *req, char *why, size_t whylen)
{
    int err;
    challenge *c = find_to_me(s, req, &err, why, whylen);
    if (c == NULL)
        return err;
    notify(c, "remove", "declined", s, req);
    drop(c);
    return 0;
}

int challenge_cancel(session *s, const proto_req *req, char *why, size_t whylen)
{
    challenge *c = find(req, why, whylen);
    if (c == NULL)
        return PROTO_ENOT_FOUND;
    if (c->from != s->who) {
        rules_why(why, whylen, "challenge %lld is not yours", (long long)c->id);
        return PROTO_EBAD_ARGUMENT;
    }
    notify(c, "remove", "cancelled", s, req);
    drop(c);
    return 0;
}

int challenge_list(session *s, const proto_req *req, char *why, size_t whylen)
{
    int n = 0;
    for (const challenge *c = table; c != NULL; c = c->hh.next)
        n += c->from == s->who || c->to == s->who->account;
    proto_challenge_view *v = calloc((size_t)n + 1, sizeof *v);
    if (v == NULL)
        return PROTO_EINTERNAL;
    n = 0;
    for (const challenge *c = table; c != NULL; c = c->hh.next)
        if (c->from == s->who || c->to == s->who->account)
            v[n++] = view_of(c);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_challenges(&o, req, v, n);
    free(v);
    session_send_out(s, &o);
    return 0;
}

void challenge_forget(const ident *who)
{
    challenge *c, *tmp;
    HASH_ITER(hh, table, c, tmp)
    {
        if (c->from == who) {
            notify(c, "remove", "gone", NULL, NULL);
            drop(c);
        }
    }
}

void challenge_shutdown(void)
{
    challenge *c, *tmp;
    HASH_ITER(hh, table, c, tmp)
    drop(c);
}
