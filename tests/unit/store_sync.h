/*
 * store_sync.h - for the unit tests: the store's queued reads (whole games,
 * profiles) waited for on the loop and rendered by the protocol, as the
 * server's HTTP API does, so that a test reads them like a call.
 */
#ifndef STORE_SYNC_H
#define STORE_SYNC_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "store.h"
#include "store_tourney.h"

typedef struct sync_read {
    bool fired, pgn;
    int status;
    char *text;
} sync_read;

static inline void sync_game_cb(void *arg, int status, const store_game_info *g)
{
    sync_read *r = arg;
    r->fired = true;
    r->status = status;
    if (status == 0) {
        r->text = r->pgn ? archive_game_pgn(g) : archive_game_json(g);
        r->status = r->text ? 0 : STORE_ENOMEM;
    }
}

static inline void sync_profile_cb(void *arg, int status, const record_profile *p)
{
    sync_read *r = arg;
    r->fired = true;
    r->status = status;
    if (status == 0) {
        r->text = archive_profile_json(p);
        r->status = r->text ? 0 : STORE_ENOMEM;
    }
}

/* Run the store's loop until r is answered; its status, the text in *out. */
static inline int sync_wait(store *s, sync_read *r, int err, char **out)
{
    if (err < 0)
        return err;
    while (!r->fired)
        uv_run(store_loop(s), UV_RUN_ONCE);
    *out = r->text;
    return r->status;
}

/* GET /api/games/<id>: the game as JSON (malloc'd), or the store's error. */
static inline int sync_game_json(store *s, int64_t id, char **out)
{
    sync_read r = {0};
    return sync_wait(s, &r, store_game_get(s, id, sync_game_cb, &r), out);
}

/* GET /api/games/<id>.pgn */
static inline int sync_game_pgn(store *s, int64_t id, char **out)
{
    sync_read r = {.pgn = true};
    return sync_wait(s, &r, store_game_get(s, id, sync_game_cb, &r), out);
}

/* GET /api/profile/<name> */
static inline int sync_profile_json(store *s, const char *username, char **out)
{
    sync_read r = {0};
    return sync_wait(s, &r, store_profile_get(s, username, sync_profile_cb, &r), out);
}

/* The "turns" message's list. */
static inline int sync_turns_json(store *s, int64_t account, char **out)
{
    int n = store_your_turn(s, account, NULL, 0);
    if (n < 0)
        return n;
    store_turn *t = calloc((size_t)n + 1, sizeof *t);
    *out = t ? archive_turns_json(t, store_your_turn(s, account, t, n)) : NULL;
    free(t);
    return *out ? 0 : STORE_ENOMEM;
}

/* The "cond" message's lines. */
static inline int sync_cond_json(store *s, int64_t game, int player, char **out)
{
    record_lines l;
    int err = store_cond_get(s, game, player, &l, NULL);
    if (err < 0)
        return err;
    *out = archive_lines_json(&l);
    return *out ? 0 : STORE_ENOMEM;
}

/* The queued calls (accounts, sessions, preferences...), waited for. Each
 * checks that the call did not answer before the loop ran: it is queued,
 * the loop does not wait on the database. */
typedef struct sync_call {
    bool fired;
    int status;
    store_account a;
    char text[512];
} sync_call;

static inline void sync_account_cb(void *arg, int status, const store_account *a)
{
    sync_call *c = arg;
    c->fired = true;
    c->status = status;
    if (status == 0)
        c->a = *a;
}

static inline void sync_done_cb(void *arg, int status)
{
    sync_call *c = arg;
    c->fired = true;
    c->status = status;
}

static inline void sync_text_cb(void *arg, int status, const char *text)
{
    sync_call *c = arg;
    c->fired = true;
    c->status = status;
    snprintf(c->text, sizeof c->text, "%s", status == 0 && text ? text : "");
}

/* Run the loop until c is answered: its status (or err, if the call was
 * refused at once). */
static inline int sync_call_wait(store *s, sync_call *c, int err)
{
    if (err < 0)
        return err;
    if (c->fired)
        return -9999; /* answered on the caller's stack: not queued */
    while (!c->fired)
        uv_run(store_loop(s), UV_RUN_ONCE);
    return c->status;
}

static inline int sync_account_insert(store *s, const char *name, const char *pwhash, int64_t *id)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, store_account_insert(s, name, pwhash, sync_account_cb, &c));
    if (err == 0 && id)
        *id = c.a.id;
    return err;
}

static inline int sync_account_by_name(store *s, const char *name, store_account *a)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, store_account_by_name(s, name, sync_account_cb, &c));
    if (err == 0)
        *a = c.a;
    return err;
}

static inline int sync_account_name(store *s, int64_t id, char *name, size_t len)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, store_account_name(s, id, sync_account_cb, &c));
    if (err == 0)
        snprintf(name, len, "%s", c.a.username);
    return err;
}

static inline int sync_session_insert(store *s, const void *h, size_t hl, int64_t id,
                                      int64_t expires_ms)
{
    sync_call c = {0};
    return sync_call_wait(s, &c,
                          store_login_insert(s, h, hl, id, expires_ms, NULL, sync_done_cb, &c));
}

static inline int sync_session_find(store *s, const void *h, size_t hl, int64_t *id, char *name,
                                    size_t len)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, store_login_find(s, h, hl, sync_account_cb, &c));
    if (err == 0) {
        *id = c.a.id;
        if (name)
            snprintf(name, len, "%s", c.a.username);
    }
    return err;
}

static inline int sync_session_delete(store *s, const void *h, size_t hl)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_login_delete(s, h, hl, sync_done_cb, &c));
}

static inline int sync_prefs_get(store *s, int64_t account, char *json, size_t len)
{
    sync_call c = {0};
    int err = sync_call_wait(s, &c, store_prefs_get(s, account, sync_text_cb, &c));
    if (err == 0)
        snprintf(json, len, "%s", c.text);
    return err;
}

static inline int sync_prefs_put(store *s, int64_t account, const char *json)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_prefs_put(s, account, json, sync_done_cb, &c));
}

/* Tournaments' writes (store_tourney.h), waited for like the calls above. */
typedef struct sync_tourney {
    sync_call c; /* first: sync_call_wait waits on it */
    store_tourney t;
} sync_tourney;

static inline void sync_tourney_cb(void *arg, int status, const store_tourney *t)
{
    sync_tourney *w = arg;
    w->c.fired = true;
    w->c.status = status;
    if (status == 0)
        w->t = *t;
}

/* The new tournament's id, state and times into *t. */
static inline int sync_tourney_create(store *s, store_tourney *t, const int64_t *invited, int n)
{
    sync_tourney w = {0};
    int err = sync_call_wait(s, &w.c, store_tourney_create(s, t, invited, n, sync_tourney_cb, &w));
    if (err == 0)
        *t = w.t;
    return err;
}

static inline int sync_tourney_entrant_put(store *s, int64_t tourney, const store_entrant *e)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_tourney_entrant_put(s, tourney, e, sync_done_cb, &c));
}

static inline int sync_tourney_entrant_del(store *s, int64_t tourney, int64_t account)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_tourney_entrant_del(s, tourney, account, sync_done_cb, &c));
}

static inline int sync_tourney_set_state(store *s, int64_t tourney, int state, int64_t at_ms)
{
    sync_call c = {0};
    return sync_call_wait(s, &c,
                          store_tourney_set_state(s, tourney, state, at_ms, sync_done_cb, &c));
}

static inline int sync_tourney_start(store *s, int64_t tourney, int64_t at_ms,
                                     const int64_t *accounts, int n, const store_tourney_game *g,
                                     int ng)
{
    sync_call c = {0};
    return sync_call_wait(
        s, &c, store_tourney_start(s, tourney, at_ms, accounts, n, g, ng, sync_done_cb, &c));
}

/* E-mail's queued calls (store_mail_*), waited for like the others. */
typedef struct sync_mail {
    sync_call c; /* first: sync_call_wait waits on it */
    store_mail_prefs p;
    int64_t ids[16];
    int n;
    int64_t account;
} sync_mail;

static inline void sync_mail_prefs_cb(void *arg, int status, const store_mail_prefs *p)
{
    sync_mail *m = arg;
    m->c.fired = true;
    m->c.status = status;
    if (status == 0)
        m->p = *p;
}

static inline void sync_mail_accounts_cb(void *arg, int status, const int64_t *ids, int n)
{
    sync_mail *m = arg;
    m->c.fired = true;
    m->c.status = status;
    for (m->n = 0; status == 0 && m->n < n && m->n < 16; m->n++)
        m->ids[m->n] = ids[m->n];
}

static inline void sync_mail_token_cb(void *arg, int status, int64_t account, const char *address)
{
    sync_mail *m = arg;
    m->c.fired = true;
    m->c.status = status;
    m->account = account;
    snprintf(m->c.text, sizeof m->c.text, "%s", address ? address : "");
}

static inline int sync_mail_prefs_get(store *s, int64_t account, store_mail_prefs *out)
{
    sync_mail m = {0};
    int err = sync_call_wait(s, &m.c, store_mail_prefs_get(s, account, sync_mail_prefs_cb, &m));
    if (err == 0)
        *out = m.p;
    return err;
}

static inline int sync_mail_prefs_ensure(store *s, int64_t account, const char *unsub,
                                         store_mail_prefs *out)
{
    sync_mail m = {0};
    int err =
        sync_call_wait(s, &m.c, store_mail_prefs_ensure(s, account, unsub, sync_mail_prefs_cb, &m));
    if (err == 0)
        *out = m.p;
    return err;
}

static inline int sync_mail_prefs_set(store *s, int64_t account, unsigned prefs, int remind_days,
                                      const char *unsub)
{
    sync_call c = {0};
    return sync_call_wait(
        s, &c, store_mail_prefs_set(s, account, prefs, remind_days, unsub, sync_done_cb, &c));
}

static inline int sync_mail_address_set(store *s, int64_t account, const char *address,
                                        const char *unsub)
{
    sync_call c = {0};
    return sync_call_wait(s, &c,
                          store_mail_address_set(s, account, address, unsub, sync_done_cb, &c));
}

/* How many accounts (into ids, at most max <= 16), or the error. */
static inline int sync_mail_accounts_of(store *s, const char *address, int64_t *ids, int max)
{
    sync_mail m = {0};
    int err =
        sync_call_wait(s, &m.c, store_mail_accounts_of(s, address, max, sync_mail_accounts_cb, &m));
    for (int i = 0; err == 0 && i < m.n; i++)
        ids[i] = m.ids[i];
    return err < 0 ? err : m.n;
}

static inline int sync_mail_unsubscribe(store *s, const char *unsub)
{
    sync_call c = {0};
    return sync_call_wait(s, &c, store_mail_unsubscribe(s, unsub, sync_done_cb, &c));
}

static inline int sync_mail_token_insert(store *s, const void *h, size_t hl, int64_t account,
                                         int purpose, const char *address, int64_t expires_ms)
{
    sync_call c = {0};
    return sync_call_wait(
        s, &c,
        store_mail_token_insert(s, h, hl, account, purpose, address, expires_ms, sync_done_cb, &c));
}

/* The token's account and its address (if address is not NULL). */
static inline int sync_mail_token_take(store *s, const void *h, size_t hl, int purpose,
                                       int64_t *account, char *address, size_t len)
{
    sync_mail m = {0};
    int err =
        sync_call_wait(s, &m.c, store_mail_token_take(s, h, hl, purpose, sync_mail_token_cb, &m));
    if (err == 0) {
        *account = m.account;
        size_t n = strnlen(m.c.text, sizeof m.c.text);
        if (address && len > 0) {
            n = n < len ? n : len - 1;
            memcpy(address, m.c.text, n);
            address[n] = '\0';
        }
    }
    return err;
}

/* A test group's end: the store closed (what is queued answered), the
 * loop run until its handles are closed, then closed, and the folder of
 * the database removed. 0 or the shell's status. */
static inline int sync_store_down(store *s, uv_loop_t *loop, const char *dir)
{
    store_close(s);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

#endif
