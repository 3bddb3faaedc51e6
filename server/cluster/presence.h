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
 * In node mode, the shares of the other nodes (below).
 * May call: room.h (room_playing), session.h (the sink), ident.h (a
 * person's key), metrics.h (games
 * in progress), array.h, proto.h, libuv, uthash. Links without
 * libwebsockets.
 *
 * Node mode (docs/SCALING.md "Presence across nodes"): a node that does
 * not hold the lobby sends the node that does its share, the persons with
 * a session here, its count of games in progress and its newest games,
 * whenever it changes and every PRESENCE_SHARE_MS; the lobby's node counts
 * each person once over every node, adds the games in progress, lists the
 * newest of all, and forgets a share not renewed within 3 x
 * PRESENCE_SHARE_MS (a node killed).
 */
#ifndef PRESENCE_H
#define PRESENCE_H

#include <uv.h>

#include "session.h"

enum {
    PRESENCE_TICK_MS = 2000, /* how often a change is looked for (a lobby
                                watcher gets at most one lobby_life a tick) */
    PRESENCE_GAMES = 20,     /* games listed to watch, newest first */
    PRESENCE_SHARE_MS = 5000 /* a node's unchanged share is sent again */
};

/* Start the tick on loop (tick_ms 0: PRESENCE_TICK_MS). Without it (unit
 * tests) lobby_life goes only at presence_watch and presence_tick. */
void presence_init(uv_loop_t *loop, unsigned tick_ms);
/* who (a person) has its first session here / its last one closed. */
struct ident;
void presence_came(const struct ident *who);
void presence_went(const struct ident *who);
/* Node mode: send(body, len) sends this node's share to the lobby's node,
 * false if the lobby is here (main.c gives it forward_presence). */
void presence_share_with(bool (*send)(const char *body, size_t len));
/* This node holds the lobby: node's share came (forward.h's hook). */
void presence_from_node(const char *node, const char *body, size_t len);
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
