/*
 * quota.h - what one identity or one address may hold at once: games in
 * progress (live and correspondence apart; a seat in an open seek counts as
 * a game, so that accepting seeks can never pass the cap), and rooms
 * watched without a seat (per identity and per address).
 *
 * Owns: the caps (set once from the flags), the table of addresses charged
 * with games (an entry per peer address, IPv6 by its /64, referenced by
 * the seek seats and room seats charged to it, freed with its last
 * reference, and by each room watched from it), the refusal counters
 * (metrics.h). The counts per identity live in struct ident (ngames,
 * nwatching).
 * May call: ident.h, session.h (a session's peer address), throttle.h (the
 * address key), metrics.h, proto.h, uthash. Links without libwebsockets.
 *
 * The lobby and the rooms check before they seat anyone (quota_game_check)
 * and charge every seat they fill (quota_game_add) until it is emptied:
 * the seek is withdrawn or becomes a game, the player leaves the game or
 * the game ends (quota_game_sub). Games restored at start-up are charged to
 * their identities only (their addresses are not known).
 */
#ifndef QUOTA_H
#define QUOTA_H

#include <stdbool.h>
#include <stddef.h>

#include "ident.h"
#include "session.h"

enum {
    QUOTA_LIVE_PER_IDENT = 20,  /* live games (clock or none) in progress */
    QUOTA_CORR_PER_IDENT = 100, /* correspondence games in progress */
    QUOTA_LIVE_PER_ADDR = 80,
    QUOTA_CORR_PER_ADDR = 400,
    QUOTA_WATCHED_PER_IDENT = 50, /* rooms watched without a seat, all tabs */
    QUOTA_WATCHED_PER_ADDR = 500,
};

typedef struct quota_limits {
    int live_per_ident, corr_per_ident;
    int live_per_addr, corr_per_addr;
    int watched_per_ident, watched_per_addr;
} quota_limits;

/* Set the caps (a field 0: its default above). */
void quota_init(const quota_limits *l);
/* Free the table of addresses (shutdown, after every seek and room). */
void quota_shutdown(void);

typedef struct quota_addr quota_addr;

/* The entry of s's peer address, found or made, with one reference for the
 * caller (quota_addr_put). NULL if s has no address (no transport: unit
 * tests) or out of memory: nothing is then charged to an address. */
quota_addr *quota_addr_of(const session *s);
void quota_addr_ref(quota_addr *a);
/* Drop a reference (a may be NULL); the last one frees the entry. */
void quota_addr_put(quota_addr *a);

/* May who, charged to a (NULL: no address), sit in one more game of this
 * kind (corr: correspondence)? 0, or PROTO_ETOO_MANY_GAMES with a sentence
 * in why (counted). A bot always may. */
int quota_game_check(const ident *who, const quota_addr *a, bool corr, char *why, size_t whylen);
/* who fills one more seat of a game or open seek of this kind, charged to
 * a (NULL: none; the caller keeps its own reference) / empties it. Bots are
 * not counted. */
void quota_game_add(ident *who, quota_addr *a, bool corr);
void quota_game_sub(ident *who, quota_addr *a, bool corr);
/* Games (and seek seats) of this kind charged to a. */
int quota_addr_games(const quota_addr *a, bool corr);

/* May s (after hello) watch one more room where its identity has no seat,
 * counted for its identity and its address? 0, or PROTO_ETOO_MANY_ROOMS
 * with a sentence in why (counted). */
int quota_watch_check(const session *s, char *why, size_t whylen);
/* s watches one more such room / one less (s->who is set). */
void quota_watch_add(const session *s);
void quota_watch_sub(const session *s);

#endif
