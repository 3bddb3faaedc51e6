/*
 * lobby.h - the lobby: open seeks and the sessions watching them.
 *
 * Owns: the seeks (public ones, listed oldest first, and private ones found
 * by their invitation code), the lobby's watchers and its sequence number;
 * the changes waiting for the next flush (one lobby_update per watcher per
 * tick, not one per change: a storm of seeks costs each watcher a message a
 * tick); the rate of seek creations per identity;
 * starting the room when a seek's last seat is taken, or at once with bots
 * in the free seats (bot_game, seek_fill).
 * May call: room.h (room_start), ident.h, session.h (the sink), store.h
 * (checking a correspondence time control), quota.h (a seek's seats count
 * as games: checked and charged when taken, given back when emptied),
 * counters.h, proto.h, libsodium (invitation codes), libuv (the flush
 * timer), uthash. Links without
 * libwebsockets.
 *
 * The requests (the dispatcher checked hello) return 0 or a proto_err with
 * a sentence in why.
 */
#ifndef LOBBY_H
#define LOBBY_H

#include <stddef.h>

#include <uv.h>

#include "ident.h"
#include "proto.h"
#include "room.h"
#include "session.h"

enum {
    LOBBY_SEEKS_PER_IDENT = 10, /* open seeks one identity may create */
    LOBBY_RATING_TOP = 4000,    /* the highest bound of a seek's rating range */
    LOBBY_MAX_BASE_MS = 3 * 3600 * 1000,
    LOBBY_MAX_INC_MS = 60 * 1000,
    LOBBY_BOT_GAMES_PER_IDENT = 10, /* games with bots going on at once */
    LOBBY_FLUSH_MS = 200,           /* changes are sent in a batch this often */
    LOBBY_SEEKS_PER_MINUTE = 20,    /* seek creations per identity (a burst of
                                       as many, then one every 60/N s) */
};

/* Start the flush timer on loop (flush_ms: the tick) and set the seek
 * creations an identity may make a minute. Without it (unit tests) changes
 * wait for lobby_flush. */
void lobby_init(uv_loop_t *loop, unsigned flush_ms, int seeks_per_minute);
/* What to tell when a session starts and stops watching the lobby
 * (main.c: presence_watch and presence_unwatch, which send it lobby_life:
 * presence is a layer above the lobby's). Either may be NULL. */
void lobby_on_watch(void (*watch)(session *s), void (*unwatch)(session *s));
/* Send the changes since the last flush to every watcher now, as one
 * lobby_update (nothing if none). The timer calls it. */
void lobby_flush(void);

/* lobby_watch: s gets the list of public seeks, then every change. */
int lobby_watch(session *s, const proto_req *req, char *why, size_t whylen);
int lobby_unwatch(session *s, const proto_req *req, char *why, size_t whylen);
int lobby_seek_create(session *s, const proto_req *req, char *why, size_t whylen);
int lobby_seek_cancel(session *s, const proto_req *req, char *why, size_t whylen);
/* The last seat taken starts the game (room_start), seats in the order
 * taken; the accepting session's request is echoed in its game_started. */
int lobby_seek_accept(session *s, const proto_req *req, char *why, size_t whylen);

/* bot_game: a game of req->game starts at once with the asker at
 * req->seat (absent or -1: a random seat) and a bot of req->level at every
 * other seat; it gets game_started (echoing req) and the room state. Never
 * rated (bad_argument); level 1..8 (bad_message); the time control as for
 * seek_create. */
int lobby_bot_game(session *s, const proto_req *req, char *why, size_t whylen);
/* seek_fill: the creator of an open seek has its free seats taken by bots
 * of req->level now, and the game starts. */
int lobby_seek_fill(session *s, const proto_req *req, char *why, size_t whylen);

/* The time control of seek_create, bot_game and challenge_create: corr
 * (days > 0; an account only) or a live base_ms/inc_ms, checked. 0 or a
 * proto_err with a why. */
int lobby_time_control(const session *c, const proto_req *req, proto_corr *out, char *why,
                       size_t whylen);

/* s closes: it stops watching. */
void lobby_leave(session *s);
/* The identity has gone (no session left): its seeks go too, and it leaves
 * the seeks it had joined. */
void lobby_forget(const ident *who);
/* Free every seek and the watchers (shutdown). */
void lobby_shutdown(void);
/* Node mode: another node holds the lobby now. Every session watching it
 * here is asked to connect again (session_reconnect), and finds it there;
 * the seeks held here go (none could be accepted any more), and whoever
 * sat in one is asked to connect again too. */
void lobby_moved(void);

/* Node mode: a game the lobby or a challenge starts is placed on another
 * node when the placer says so (place.h's place_start: true if asked
 * there, the game then treated as started); lobby_place asks it (false
 * without one: start the game here). */
typedef bool (*lobby_placer)(const room_settings *rs, ident *const *seats, int nseats,
                             session *asker, const proto_req *req);
void lobby_set_placer(lobby_placer fn);
bool lobby_place(const room_settings *rs, ident *const *seats, int nseats, session *asker,
                 const proto_req *req);

#endif
