/*
 * server_fixture.h - what test_room.c and test_lobby.c share: rooms, the
 * lobby and identities on a real libuv loop and a real store (SQLite in a
 * temporary directory), linked WITHOUT libwebsockets: this file defines the
 * session sink (session.h) and records, per session, every message it was
 * sent, parsed with jansson.
 *
 * A player is a `fake`: a session (first member, so the sink finds it) with
 * its identity and its inbox. Requests are built from JSON text with
 * proto_decode, as the dispatcher receives them.
 */
#ifndef SERVER_FIXTURE_H
#define SERVER_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ident.h"
#include "lobby.h"
#include "pg_fixture.h"
#include "presence.h"
#include "room.h"
#include "session.h"
#include "store.h"

enum { FAKE_INBOX = 512 };

typedef struct fake {
    session s; /* first: the sink is given &f->s */
    json_t *inbox[FAKE_INBOX];
    int n;
} fake;

/* ------------------------------------------------------------------------ */
/* The sink. */

static void record(session *s, const char *buf, size_t len)
{
    fake *f = (fake *)s;
    json_error_t e;
    json_t *j = json_loadb(buf, len, 0, &e);
    if (j == NULL)
        fail_msg("not JSON (%s): %.*s", e.text, (int)len, buf);
    if (f->n == FAKE_INBOX)
        fail_msg("inbox full");
    f->inbox[f->n++] = j;
}

void session_send(session *s, net_msg *m)
{
    if (m != NULL)
        record(s, m->buf + m->head, m->len);
}

void session_send_out(session *s, proto_out *o)
{
    if (!o->oom)
        record(s, proto_out_data(o), o->len);
    proto_out_free(o);
}

void session_send_error(session *s, const proto_req *req, bool typed, proto_err e, const char *why)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_error(&o, req, typed, e, why);
    session_send_out(s, &o);
}

/* A fake session is never closed: a callback held for it always finds it. */
/* Asked to connect again (a room moved): the tests' sessions have no
 * connection to close. */
void session_reconnect(session *s, const char *why)
{
    (void)s;
    (void)why;
}

void session_hold(session *s)
{
    s->holds++;
}

bool session_release(session *s)
{
    s->holds--;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The world: a loop, a store, rooms, the lobby, identities. */

typedef struct world {
    char dir[256];
    char target[300]; /* the store's database: a file, or a PostgreSQL URL */
    uv_loop_t loop;
    store *db;
    fake *fakes[16];
    int nfakes;
} world;

static world W;

static int world_up(void **state)
{
    memset(&W, 0, sizeof W);
    snprintf(W.dir, sizeof W.dir, "/tmp/test_server.XXXXXX");
    assert_non_null(mkdtemp(W.dir));
    char file[300], why[256] = "";
    snprintf(file, sizeof file, "%s/chameleon.db", W.dir);
    pg_fixture_target(W.target, sizeof W.target, file);
    assert_int_equal(uv_loop_init(&W.loop), 0);
    /* A failed write fails fast here (test_room's storage faults). */
    store_options o = {.migrations_dir = "migrations", .busy_ms = 5, .retries = 1, .retry_ms = 5};
    if (store_open(&W.db, &W.loop, W.target, &o, why, sizeof why) != 0)
        fail_msg("store_open: %s", why);
    ident_init(&W.loop, 0, 0);
    room_init(&W.loop, W.db, 0);
    lobby_init(&W.loop, LOBBY_FLUSH_MS, LOBBY_SEEKS_PER_MINUTE);
    lobby_on_watch(presence_watch, presence_unwatch); /* as main.c */
    return 0;
}

/* The session of f goes, as dispatch_close does it. */
static inline void fake_close(fake *f)
{
    lobby_leave(&f->s);
    room_unwatch_all(&f->s);
    ident *who = f->s.who;
    if (who != NULL && ident_detach(&f->s)) {
        lobby_forget(who);
        room_presence(who, false);
    }
}

static void fake_free(fake *f)
{
    for (int i = 0; i < f->n; i++)
        json_decref(f->inbox[i]);
    free(f->s.rooms);
    free(f);
}

static int world_down(void **state)
{
    room_stop_clocks();
    ident_stop();
    for (int i = 0; i < W.nfakes; i++)
        fake_close(W.fakes[i]);
    store_close(W.db);
    lobby_shutdown();
    presence_shutdown();
    room_shutdown();
    uv_run(&W.loop, UV_RUN_DEFAULT);
    ident_shutdown();
    assert_int_equal(uv_loop_close(&W.loop), 0);
    for (int i = 0; i < W.nfakes; i++)
        fake_free(W.fakes[i]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", W.dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* A player with a new guest identity named `name` and one session. */
static inline fake *player(const char *name)
{
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->s.lobby_index = -1;
    ident *who = ident_new();
    assert_non_null(who);
    snprintf(who->name, sizeof who->name, "%s", name);
    ident_attach(who, &f->s);
    W.fakes[W.nfakes++] = f;
    return f;
}

/* A second session of f's identity (another tab). */
static inline fake *other_tab(const fake *f)
{
    fake *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->s.lobby_index = -1;
    ident_attach(f->s.who, &t->s);
    W.fakes[W.nfakes++] = t;
    return t;
}

/* A request decoded from JSON text (printf format). */
__attribute__((format(printf, 1, 2))) static proto_req req_of(const char *fmt, ...)
{
    char text[1024], why[RULES_WHY_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    proto_req req;
    bool typed;
    if (proto_decode(text, strlen(text), &req, &typed, why, sizeof why) != 0)
        fail_msg("bad request %s: %s", text, why);
    return req;
}

/* The last message of f with this type (and event kind, if non-NULL) at
 * or after index `from`; NULL if none. */
static inline json_t *last_from(const fake *f, int from, const char *type, const char *kind)
{
    for (int i = f->n - 1; i >= from; i--) {
        json_t *m = f->inbox[i];
        if (strcmp(json_string_value(json_object_get(m, "type")), type) != 0)
            continue;
        if (kind != NULL && (json_object_get(m, "kind") == NULL ||
                             strcmp(json_string_value(json_object_get(m, "kind")), kind) != 0))
            continue;
        return m;
    }
    return NULL;
}

static inline json_t *last(const fake *f, const char *type, const char *kind)
{
    return last_from(f, 0, type, kind);
}

static inline int count(const fake *f, const char *type, const char *kind)
{
    int n = 0;
    for (int i = 0; i < f->n; i++) {
        json_t *m = f->inbox[i];
        if (strcmp(json_string_value(json_object_get(m, "type")), type) != 0)
            continue;
        if (kind != NULL && (json_object_get(m, "kind") == NULL ||
                             strcmp(json_string_value(json_object_get(m, "kind")), kind) != 0))
            continue;
        n++;
    }
    return n;
}

static inline int64_t int_of(const json_t *m, const char *key)
{
    const json_t *v = json_object_get(m, key);
    if (!json_is_integer(v))
        fail_msg("no integer '%s'", key);
    return json_integer_value(v);
}

static inline const char *str_of(const json_t *m, const char *key)
{
    const json_t *v = json_object_get(m, key);
    if (!json_is_string(v))
        fail_msg("no string '%s'", key);
    return json_string_value(v);
}

/* Run the loop until cond() holds (at most ~5 s). */
static inline void run_until(bool (*cond)(void *), void *arg)
{
    for (int i = 0; i < 5000 && !cond(arg); i++) {
        uv_run(&W.loop, UV_RUN_NOWAIT);
        if (!cond(arg))
            usleep(1000);
    }
    assert_true(cond(arg));
}

#endif
