/*
 * session.c - WebSocket sessions and the sink (see session.h).
 */
#include "session.h"

#include <stdlib.h>

#include "counters.h"

static uv_loop_t *loop;
static uv_check_t sweep;
static session *dead; /* closed sessions, freed by on_sweep */
static session_remote_sink remote_sink;
static uint64_t serials; /* the last serial given */

/* Free the closed sessions no callback holds (the held stay listed). */
static void free_dead(void)
{
    session **p = &dead;
    while (*p != NULL) {
        session *s = *p;
        if (s->holds > 0) {
            p = &s->dead_next;
            continue;
        }
        *p = s->dead_next;
        free(s->rooms);
        free(s->early);
        free(s);
    }
}

/* Runs once per loop iteration right after I/O, so never inside a callback
 * of the sessions it frees. */
static void on_sweep(uv_check_t *h)
{
    free_dead();
    uv_check_stop(h);
}

void session_init(uv_loop_t *l)
{
    loop = l;
    uv_check_init(loop, &sweep);
}

void session_shutdown(void)
{
    for (session *s = dead; s != NULL; s = s->dead_next)
        s->holds = 0; /* the store has closed: no callback will come */
    free_dead();
    uv_close((uv_handle_t *)&sweep, NULL);
}

/* A session with its serial, in no lobby, its message bucket full. */
static session *session_alloc(void)
{
    session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->serial = ++serials;
    s->lobby_index = -1;
    s->msgs.at_ms = uv_now(loop);
    return s;
}

session *session_new(net_conn *c)
{
    session *s = session_alloc();
    if (s == NULL)
        return NULL;
    s->conn = c;
    c->data = s;
    return s;
}

session *session_new_remote(struct forward_remote *remote)
{
    session *s = session_alloc();
    if (s != NULL)
        s->remote = remote;
    return s;
}

void session_set_remote_sink(session_remote_sink sink)
{
    remote_sink = sink;
}

void session_reconnect(session *s, const char *why)
{
    if (s->conn != NULL)
        net_close_going_away(s->conn, why);
}

void session_close(session *s)
{
    if (s->conn != NULL)
        s->conn->data = NULL;
    s->conn = NULL;
    s->remote = NULL; /* the sink drops what it is given */
    s->dead_next = dead;
    dead = s;
    uv_check_start(&sweep, on_sweep);
}

void session_hold(session *s)
{
    s->holds++;
}

bool session_release(session *s)
{
    s->holds--;
    if (s->conn != NULL || s->remote != NULL)
        return true;
    if (s->holds == 0)
        uv_check_start(&sweep, on_sweep);
    return false;
}

bool session_rate_ok(session *s, uint64_t now)
{
    return session_bucket_take(&s->msgs, SESSION_MSG_BURST, SESSION_MSG_RATE, now);
}

bool session_excess(session *s, uint64_t now)
{
    if (now > s->excess_ms) {
        s->excess -= (double)(now - s->excess_ms) / 1000.0;
        if (s->excess < 0)
            s->excess = 0;
    }
    s->excess_ms = now;
    s->excess += 1;
    if (s->excess <= SESSION_EXCESS_CLOSE)
        return false;
    metrics_now.excess_closes++;
    return true;
}

void session_send(session *s, net_msg *m)
{
    if (s->conn != NULL)
        net_send(s->conn, m);
    else if (s->remote != NULL && remote_sink != NULL && m != NULL)
        remote_sink(s, m->buf + m->head, m->len);
}

void session_send_out(session *s, proto_out *o)
{
    if (s->conn != NULL) {
        net_send_out(s->conn, o);
        return;
    }
    if (s->remote != NULL && remote_sink != NULL && !o->oom && o->buf != NULL)
        remote_sink(s, o->buf + o->head, o->len);
    proto_out_free(o);
}

void session_send_error(session *s, const proto_req *req, bool typed, proto_err e, const char *why)
{
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_error(&o, req, typed, e, why);
    metrics_now.errors[e]++;
    session_send_out(s, &o);
}
