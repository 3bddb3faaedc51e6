/*
 * presence.c - the lobby's life: counts and games to watch (see presence.h).
 */
#include "presence.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "metrics.h"
#include "proto.h"
#include "room.h"

static long online;
static session **watchers;
static size_t nwatchers, capwatchers;
static char *last; /* the last lobby_life sent (its JSON), NULL before any */
static size_t lastlen;
static uv_timer_t timer;
static bool timer_ready;

static void on_tick(uv_timer_t *t)
{
    (void)t;
    presence_tick();
}

void presence_init(uv_loop_t *loop, unsigned tick_ms)
{
    uv_timer_init(loop, &timer);
    uv_unref((uv_handle_t *)&timer);
    unsigned ms = tick_ms ? tick_ms : PRESENCE_TICK_MS;
    uv_timer_start(&timer, on_tick, ms, ms);
    timer_ready = true;
}

void presence_came(void)
{
    metrics_now.online = ++online;
}

void presence_went(void)
{
    if (online > 0)
        online--;
    metrics_now.online = online;
}

long presence_online(void)
{
    return online;
}

/* The lobby_life of now, written into o. */
static void write_now(proto_out *o)
{
    proto_live_game games[PRESENCE_GAMES];
    int n = room_playing(games, PRESENCE_GAMES);
    proto_out_init(o, NET_HEADROOM);
    proto_write_lobby_life(o, online, metrics_now.games_in_progress, games, n);
}

void presence_watch(session *s)
{
    for (size_t i = 0; i < nwatchers; i++)
        if (watchers[i] == s)
            goto send;
    if (array_reserve((void **)&watchers, &capwatchers, nwatchers + 1, sizeof *watchers) < 0)
        return; /* out of memory: no lobby_life for s */
    watchers[nwatchers++] = s;
send:;
    proto_out o;
    write_now(&o);
    session_send_out(s, &o);
}

void presence_unwatch(session *s)
{
    for (size_t i = 0; i < nwatchers; i++)
        if (watchers[i] == s) {
            watchers[i] = watchers[--nwatchers];
            return;
        }
}

void presence_tick(void)
{
    if (nwatchers == 0)
        return;
    proto_out o;
    write_now(&o);
    if (o.oom) {
        proto_out_free(&o);
        return;
    }
    const char *data = proto_out_data(&o);
    if (last != NULL && lastlen == o.len && memcmp(last, data, o.len) == 0) {
        proto_out_free(&o);
        return;
    }
    char *copy = malloc(o.len);
    if (copy != NULL)
        memcpy(copy, data, o.len);
    free(last);
    last = copy;
    lastlen = copy ? o.len : 0;
    net_msg *m = net_msg_from(&o);
    if (m == NULL)
        return;
    for (size_t i = 0; i < nwatchers; i++)
        session_send(watchers[i], m);
    net_msg_unref(m);
}

void presence_shutdown(void)
{
    if (timer_ready) {
        uv_timer_stop(&timer);
        uv_close((uv_handle_t *)&timer, NULL);
        timer_ready = false;
    }
    free(watchers);
    watchers = NULL;
    nwatchers = capwatchers = 0;
    free(last);
    last = NULL;
    online = 0;
}
