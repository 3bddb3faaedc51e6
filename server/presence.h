/*
 * presence.h - the lobby's life: how many players are online, how many
 * games are being played and which (the newest PRESENCE_GAMES, to watch),
 * sent as lobby_life to the sessions watching the lobby, at once when they
 * start watching and then whenever it changes (checked every tick).
 *
 * Owns: the count of persons online (identities with a session: dispatch
 * tells it who comes and goes), the sessions watching lobby_life (the
 * lobby's watchers: lobby.c adds and removes them), the last lobby_life
 * sent, the tick timer (unreferenced: it never keeps the loop alive).
 * May call: room.h (room_playing), session.h (the sink), metrics.h (games
 * in progress), array.h, proto.h, libuv. Links without libwebsockets.
 */
#ifndef PRESENCE_H
#define PRESENCE_H

#include <uv.h>

#include "session.h"

enum {
    PRESENCE_TICK_MS = 2000, /* how often a change is looked for (a lobby
                                watcher gets at most one lobby_life a tick) */
    PRESENCE_GAMES = 20      /* games listed to watch, newest first */
};

/* Start the tick on loop (tick_ms 0: PRESENCE_TICK_MS). Without it (unit
 * tests) lobby_life goes only at presence_watch and presence_tick. */
void presence_init(uv_loop_t *loop, unsigned tick_ms);
/* A person's first session opened / last one closed. */
void presence_came(void);
void presence_went(void);
/* Persons online now. */
long presence_online(void);
/* s watches the lobby: it gets lobby_life now and at each change. */
void presence_watch(session *s);
/* s stops watching (no-op if it was not). */
void presence_unwatch(session *s);
/* Look for a change now and send it (the timer calls it). */
void presence_tick(void);
/* Stop the timer, forget the watchers (shutdown, before the last run). */
void presence_shutdown(void);

#endif
