/*
 * room.h - game rooms: seats, spectators, clocks, numbered events.
 *
 * A room holds one rules_game, the only judge of a move. Every state change
 * is an event with the next sequence number; the last ROOM_EVENT_RING events
 * are kept (lean form) so that a client that reconnects gets what it missed.
 * Moves go through one commit point (room.c commit_move): a move is
 * broadcast, and so acknowledged, only once storage says it is durable.
 *
 * Clocks: base + increment, kept in milliseconds on the loop's clock; one
 * libuv timer per room fires when the player to move runs out of time, so a
 * flag falls even if nobody sends anything.
 *
 * Rooms are freed at one safe point (room_sweep), never inside a handler.
 */
#ifndef ROOM_H
#define ROOM_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "hub.h"
#include "proto.h"

enum { ROOM_EVENT_RING = PROTO_CATCHUP_MAX, ROOM_CHAT_KEEP = 50 };

typedef struct room room;

typedef struct room_settings {
    const char *game;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr; /* days > 0: a correspondence game (base/inc unused) */
} room_settings;

struct store;
void room_init(uv_loop_t *loop, struct store *db, int64_t abandon_ms);
/* Stop every clock (shutdown, before connections close). */
void room_stop_clocks(void);
/* Free every room (shutdown, after connections closed). */
void room_shutdown(void);

/* Start a game with these identities in seat order; every connection of
 * each gets game_started and the room state (req, if non-NULL, is the
 * request of `asker` to echo). Returns the room or NULL with an error. */
room *room_start(const room_settings *s, ident *const *seats, int nseats, const conn *asker,
                 const proto_req *req, proto_err *err, char *why, size_t whylen);

room *room_find(int64_t id);

/* Rebuild every game in progress from the store (start-up, before any
 * connection), then start handling the store's correspondence timeouts
 * (games that expired while the server was down end now). Returns how
 * many, or a negative store error. */
int room_restore_all(void);

/* Conditional moves (two-player correspondence): cond_set, cond_clear,
 * cond_get; each replies `cond` with the lines now stored. */
int room_cond(room *r, conn *c, const proto_req *req, char *why, size_t whylen);

/* Handlers of the room messages: 0 or a proto_err with a sentence in why. */
int room_join(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
void room_part(room *r, conn *c);
int room_move(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_resign(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_draw_offer(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_draw_decline(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_abort(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_rematch(room *r, conn *c, const proto_req *req, char *why, size_t whylen);
int room_chat(room *r, conn *c, const proto_req *req, char *why, size_t whylen);

/* A connection closes: stop watching every room. */
void room_conn_closed(conn *c);
/* An identity came or went (first connection opened / last closed). */
void room_presence(ident *who, bool connected);
/* Ids of the rooms where who holds a seat in a game not over. */
int room_active_of(const ident *who, int64_t *out, int max);

#endif
