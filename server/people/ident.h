/*
 * ident.h - identities: who a player is, across connections and restarts.
 *
 * Owns: struct ident and its tables: by token (a guest's proof, issued at
 * hello), by seat key (the hash of a token, which the store keeps: a seat
 * restored at start-up waits under its key for its owner's first hello), by
 * account (one identity per account); each identity's open sessions and the
 * rooms in memory where it holds a seat, so that nothing scans every
 * identity or every room to answer one client; the idle lists (identities
 * with no session and no seat, oldest first) through which unused
 * identities are forgotten and the guests' table stays bounded; the bots'
 * identities (one per level, "bot-level-5", never in a table of tokens:
 * nobody can speak for them, never forgotten, no list of rooms).
 * May call: session.h (the fields of a session), proto.h (sizes),
 * metrics.h (the identities' counters), libsodium (tokens, keys), libuv
 * (the timer), uthash/utlist.
 *
 * Everything runs on the loop thread. An identity is in use while it has a
 * session or a seat in a room in memory. Once unused it goes to the tail of
 * its idle list (guests, accounts); an identity unused for the idle time
 * (ident_init) is forgotten from the head of that list (its token stops
 * working; an account's identity is made again at its next hello). Guests
 * (token identities and restored seats waiting for their token) are at most
 * max_guests: a new one takes the place of the oldest idle guest, or is
 * refused when every guest is in use. Nothing walks every identity, except
 * ident_shutdown.
 */
#ifndef IDENT_H
#define IDENT_H

#include <stdbool.h>
#include <stdint.h>

#include <uthash.h>
#include <uv.h>

#include "proto.h"
#include "session.h"

enum {
    IDENT_KEY_HEX = 32,   /* hex digits of a seat key */
    IDENT_TOKEN_HEX = 32, /* hex digits of a guest's token */
};

struct room;

typedef struct ident {
    int64_t id;
    char token[PROTO_TOKEN_MAX + 1]; /* empty for a seat restored from the
                                        store until its owner says hello */
    char key[IDENT_KEY_HEX + 1];     /* hash of the token, kept in the store */
    char name[PROTO_NAME_MAX + 1];
    int64_t account;     /* the account it is logged in as, 0 for a guest */
    session *sessions;   /* open sessions (session.iprev/inext) */
    struct room **rooms; /* rooms in memory where it holds a seat */
    size_t nrooms, caprooms;
    int bot;            /* a bot's level (1..8): never has a session; 0: a person */
    int nseeks;         /* open seeks created by this identity (lobby.c) */
    int ngames[2];      /* games in progress and seats in open seeks: [0] live,
                           [1] correspondence (quota.c) */
    int nwatching;      /* rooms its sessions watch without a seat (room_events.c) */
    uint64_t last_seen; /* uv_now when it became unused (idle) */
    bool idle;          /* in an idle list (no session, no seat) */
    struct ident *idle_prev, *idle_next;
    UT_hash_handle hh; /* by token, or by key while restored */
    UT_hash_handle hh_account;
    /* Limits over all its sessions together (all zero: full). */
    session_bucket msgs;       /* messages (dispatch.c) */
    session_bucket seeks;      /* seek creations (lobby.c) */
    session_bucket challenges; /* challenge creations (challenge.c) */
    session_chat chat;         /* chat lines (room_game.c) */
} ident;

enum {
    IDENT_MAX_GUESTS = 100000,        /* default max_guests */
    IDENT_IDLE_MS = 24 * 3600 * 1000, /* default idle time before forgetting */
};

/* Start the expiry timer on loop: identities unused for idle_ms are
 * forgotten; at most max_guests guests (0: the defaults above). */
void ident_init(uv_loop_t *loop, size_t max_guests, uint64_t idle_ms);
/* Stop the timer so that the loop can wind down. */
void ident_stop(void);
/* Free every identity (rooms, seeks and sessions must be gone). */
void ident_shutdown(void);

/* A new guest identity with a fresh random token ("guest-<id>"). When
 * max_guests are held, the oldest idle guest is forgotten to make room.
 * NULL if every guest is in use (ident_guests_full) or out of memory. */
ident *ident_new(void);
/* Are max_guests guests held, every one in use (a new one is refused)? */
bool ident_guests_full(void);
/* The identity of a token: a known one, or the restored seat whose key is
 * the token's hash (adopted now: the token works from then on); NULL. */
ident *ident_by_token(const char *token);
/* Node mode: the guest whose token this is, made here if another node
 * gave it (the token then works here too; name if not NULL, else
 * "guest-<id>"). NULL for an account's or a bot's token, a token not of
 * the shape this server gives (IDENT_TOKEN_HEX lowercase hex digits), or
 * when ident_new fails. */
ident *ident_guest_of(const char *token, const char *name);
/* Node mode: a guest's default name is "guest-" and the first 6 digits of
 * its seat key (a hash of its token), the same on every node, instead of
 * a number each process counts. */
void ident_name_guests_by_key(void);
/* The identity that held a seat (by its key) in a game restored from the
 * store: one here with that key (waiting, or known by its token: a game
 * taken over from another node), else created without a token. */
ident *ident_restored(const char *key, const char *name);
/* The identity of an account, created (with a fresh token) if needed. */
ident *ident_account(int64_t account, const char *name);
/* The bot of this level (1..8), "bot-level-<level>", created at first use
 * and kept until ident_shutdown; NULL if out of memory or no such level.
 * One identity per level: the same bot may hold two seats of a room. */
ident *ident_bot(int level);
/* The identity of an account if there is one in memory, else NULL. */
ident *ident_find_account(int64_t account);
/* who as PLAYER shows it (id, name, a bot's level, an account), without a
 * rating (the game's room or seek adds it: room_player_rating). */
proto_player ident_player(const ident *who);

/* s speaks for who from now on (s->who is set). Returns true if s is its
 * only session (it has just come). */
bool ident_attach(ident *who, session *s);
/* s stops speaking for its identity (s->who is cleared). Returns true if
 * that identity has no session left (it has just gone). */
bool ident_detach(session *s);

/* who holds a seat in r (a room in memory) / no longer (r is freed).
 * ident_seat returns 0 or -1 if out of memory. A bot keeps no list. */
int ident_seat(ident *who, struct room *r);
void ident_unseat(ident *who, const struct room *r);

#endif
