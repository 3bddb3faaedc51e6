/*
 * room.h - game rooms: seats, watchers, clocks, numbered events.
 *
 * Owns: every room in memory (a table by id) and what is in one: its
 * rules_game (the only judge of a move), seats, watchers, clocks, offers,
 * chat, the events it numbered. Split in files around one private header
 * (room_impl.h): room_game.c (the table, starting, restoring, the
 * requests), room_clock.c (clocks, flags, abandonment), room_events.c
 * (events, watchers, chat and presence, the state and catchup sent to a
 * session), room_bot.c (bots' seats), room_store.c (results and leaves
 * written again after a failed write), room_notify.c (the moments
 * notify.h tells players away from the site), room_push.c (pushes and the
 * low-time alarm), room_list.c (the games being played, for the lobby),
 * room_rematch.c (declining a rematch), room_takeback.c (takebacks), room_cond.c (conditional
 * moves), room_takeover.c (node mode: taking rooms over, closing lost ones). May call: ident.h
 * (seats, an identity's rooms), session.h (the sink), quota.h (games charged per identity and
 * address, rooms watched), store.h, rating.h (a player's pace), errmap.h, metrics.h, bot.h (the
 * bots' searches), notify.h (e-mail notices: room_notify.c), push.h (Web Push: room_push.c),
 * proto.h, log.h, libuv. Never the transport: it links without libwebsockets.
 *
 * Every state change is an event with the next sequence number; the last
 * ROOM_EVENT_RING events are kept (lean form) so that a client that
 * reconnects gets what it missed. Moves go through one commit point
 * (room_game.c commit_move): a move is broadcast, and so acknowledged, only once
 * storage says it is durable. Leaves and ends of a game wait for their
 * write the same way (room_game.c on_end_durable).
 *
 * Clocks: base + increment, kept in milliseconds on the loop's clock; one
 * libuv timer per room fires when the player to move runs out of time, so a
 * flag falls even if nobody sends anything.
 *
 * Bots: a seat whose identity is a bot (ident.bot) is played by the
 * server (room_bot.c). When a bot is to move the room asks bot.h for a
 * move; the answer comes back on the loop and is played through the same
 * path as a person's move (room__play_as: the rules core checks it, it is
 * stored before it is broadcast). A search about a position that is no
 * longer the room's (a leave, an end, a take-back) is cancelled, and so is
 * the search of a room that closes, so no answer ever reaches a freed room.
 * Bots resign lost games (level 3 and up), answer draw offers from their
 * last score and agree to every rematch; they never time out: a search
 * gets search_time_for_move of the bot's clock (live) or a second or two.
 *
 * Rooms are freed at one safe point, never inside a handler: a finished
 * room nobody watches leaves the table at once and is freed from the close
 * callback of its timers (libuv's close_cb).
 */
#ifndef ROOM_H
#define ROOM_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "ident.h"
#include "proto.h"
#include "quota.h"
#include "session.h"

enum { ROOM_EVENT_RING = PROTO_CATCHUP_MAX, ROOM_CHAT_KEEP = 50 };

typedef struct room room;

typedef struct room_settings {
    const char *game;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr;                     /* days > 0: a correspondence game (base/inc unused) */
    quota_addr *addr[RULES_MAX_PLAYERS]; /* the address each seat is charged
                                            to (NULL: none); the room takes
                                            its own references */
} room_settings;

struct store;
void room_init(uv_loop_t *loop, struct store *db, int64_t abandon_ms);

/* A guest's seat in a live game (guests have no correspondence) whose
 * player has had no connection for this long leaves by abandonment, even
 * where --abandon-seconds is 0: a guest who walked away from a game with no
 * clock (against a bot, say) would hold the seat and its identity for good.
 * Counted from the game's last move for a game restored at start.
 * --guest-abandon-seconds; 0: never. */
enum { ROOM_GUEST_ABANDON_MS = 3 * 86400 * 1000 };
void room_set_guest_abandon_ms(int64_t ms);

/* Live clocks start as lichess's: a seat's clock runs from its second turn
 * on (after its first move; no increment for that move). A seat has `ms`
 * for its first move (0: no limit), else the game ends, aborted
 * (--first-move-seconds; room_clock.c). */
enum { ROOM_FIRST_MOVE_MS_DEFAULT = 30000 };
void room_set_first_move_ms(int64_t ms);

/* The rating of `account` at the variant and pace of this time control
 * (correspondence if corr) into p->rating and p->provisional (left 0 if it
 * has none): rooms and the lobby show it beside the name. */
void room_player_rating(proto_player *p, int64_t account, const char *variant, bool corr,
                        int64_t base_ms, int64_t inc_ms);
/* The same rating as a number to compare: a new player's RATING_DEFAULT
 * when it has none yet. */
int room_rating_or_new(int64_t account, const char *variant, bool corr, int64_t base_ms,
                       int64_t inc_ms);
/* Stop every clock and every bot (shutdown, before connections close). */
void room_stop_clocks(void);
/* Close every room (shutdown, after connections closed): they are freed
 * while the loop runs next, before identities go. */
void room_shutdown(void);

/* Start a game with these identities in seat order; every session of each
 * gets game_started and the room state (req, if non-NULL, is the request of
 * `asker` to echo). Every person's seat is charged (quota_game_add, to
 * s->addr[i]) until they leave or the game ends; the caller checked the
 * caps. Returns the room or NULL with an error. */
room *room_start(const room_settings *s, ident *const *seats, int nseats, const session *asker,
                 const proto_req *req, proto_err *err, char *why, size_t whylen);

/* The room with this id in memory, or NULL. */
room *room_find(int64_t id);
/* The names of r's seats other than the account's that have not left, in
 * seat order (borrowed while the room lives): how many, at most max. */
int room_opponents(const room *r, int64_t account, const char **names, int max);
int64_t room_id(const room *r);

/* Rebuild every game in progress from the store (start-up, before any
 * connection), then start handling the store's correspondence timeouts
 * (games that expired while the server was down end now). Returns how
 * many, or a negative store error. */
int room_restore_all(void);

/* Node mode (--node; docs/SCALING.md "Leases"), after room_restore_all:
 * take over the games in progress that no live node holds, at once and
 * then every ttl_ms / 2 (at most ROOM_TAKEOVER_PER_TICK a tick): take the
 * lease, adopt the game, rebuild its room as a restart does. A game whose
 * lease this node loses has its room closed at once, writing nothing; its
 * watchers get an error event (unknown_room, "... moved to another node")
 * and are no longer in it, and their clients are asked to connect again
 * (session_reconnect). taken (may be NULL) is told each game taken over.
 * 0, or -1 if the timer cannot start. */
enum { ROOM_TAKEOVER_PER_TICK = 64 };
int room_takeover_start(unsigned ttl_ms, void (*taken)(int64_t game));

/*
 * The requests that name a room (the dispatcher found r and checked what
 * the request table asks): 0 or a proto_err with a sentence in why.
 */
int room_join(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_part(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_move(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_resign(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_draw_offer(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_draw_decline(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_abort(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_rematch(room *r, session *s, const proto_req *req, char *why, size_t whylen);
/* room_rematch.c: a seated player declines (or withdraws) the rematch. */
int room_rematch_decline(room *r, session *s, const proto_req *req, char *why, size_t whylen);
/* room_takeback.c: ask for (or accept) a takeback, decline (or withdraw)
 * it; casual live two-player games only. */
int room_takeback(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_takeback_decline(room *r, session *s, const proto_req *req, char *why, size_t whylen);
int room_chat(room *r, session *s, const proto_req *req, char *why, size_t whylen);
/* who's vacation began (until_ms: its end) or ended (0): a `vacation`
 * event in each of its correspondence games in progress. */
void room_vacation(ident *who, int64_t until_ms);
/* Conditional moves (two-player correspondence, accounts): cond_set,
 * cond_clear, cond_get; each replies `cond` with the lines now stored. */
int room_cond(room *r, session *s, const proto_req *req, char *why, size_t whylen);

/* Tournaments (room_tourney.c): cb runs once the result of a game is on
 * disk, with the game as it ended; room_forfeit resigns the seat of
 * `account` in `game` (a withdrawal): 0, or -1 if the game is not in
 * memory, is over, or the account has no seat still playing in it. */
typedef void (*room_over_cb)(void *arg, int64_t game, const rules_game *g);
void room_set_over_cb(room_over_cb cb, void *arg);
/* The tournament a game belongs to, for its room's state: its id (0 for
 * none) and name (copied into name, namelen bytes). Registered by the
 * tournaments, so that rooms need not know them. */
typedef int64_t (*room_tourney_of_cb)(int64_t game, char *name, size_t namelen);
void room_set_tourney_of(room_tourney_of_cb cb);
int room_forfeit(int64_t game, int64_t account);
/* room_start without game_started to the seats' sessions (a tournament's
 * games: they are in the turn lists; a client would open every room). */
room *room_start_quiet(const room_settings *s, ident *const *seats, int nseats, proto_err *err,
                       char *why, size_t whylen);

/* A session closes: it stops watching every room. */
void room_unwatch_all(session *s);
/* An identity came or went (first session opened / last closed): the
 * rooms where it is seated tell their watchers. */
void room_presence(ident *who, bool connected);
/* How many games not over who plays with a bot. */
int room_bot_games_of(const ident *who);
/* Ids of the rooms where who holds a seat in a game not over, oldest
 * first. */
int room_active_of(const ident *who, int64_t *out, int max);
/* The newest games not over (at most max, newest first) as the lobby
 * lists them to watch (room_list.c); the names point into the identities:
 * write them out before the loop turns. Returns how many. */
int room_playing(proto_live_game *out, int max);

#endif
