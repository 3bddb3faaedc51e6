/*
 * ident.h - identities: who a player is, across connections and restarts.
 *
 * Owns: struct ident and its tables: by token (a guest's proof, issued at
 * hello), by seat key (the hash of a token, which the store keeps: a seat
 * restored at start-up waits under its key for its owner's first hello), by
 * account (one identity per account); each identity's open sessions and the
 * rooms in memory where it holds a seat, so that nothing scans every
 * identity or every room to answer one client; forgetting guests unseen for
 * a day (a sweep timer); the bots' identities (one per level, "bot-level-5",
 * never in a table of tokens: nobody can speak for them).
 * May call: session.h (the fields of a session), proto.h (sizes),
 * libsodium (tokens, keys), libuv (the timer), uthash/utlist.
 *
 * Everything runs on the loop thread. An identity lives while it has a
 * session or a seat in a room in memory, and a day after that (its token
 * keeps working meanwhile); restored identities waiting for their token and
 * account identities seated in restored games live until shutdown or until
 * the sweep finds them unused.
 */
#ifndef IDENT_H
#define IDENT_H

#include <stdbool.h>
#include <stdint.h>

#include <uthash.h>
#include <uv.h>

#include "proto.h"
#include "session.h"

enum { IDENT_KEY_HEX = 32 }; /* hex digits of a seat key */

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
    uint64_t last_seen; /* uv_now when its last session closed */
    UT_hash_handle hh;  /* by token, or by key while restored */
    UT_hash_handle hh_account;
    /* Limits over all its sessions together (all zero: full). */
    session_bucket msgs;  /* messages (dispatch.c) */
    session_bucket seeks; /* seek creations (lobby.c) */
    session_chat chat;    /* chat lines (room_game.c) */
} ident;

/* Start the sweep timer on loop. */
void ident_init(uv_loop_t *loop);
/* Stop the timer so that the loop can wind down. */
void ident_stop(void);
/* Free every identity (rooms, seeks and sessions must be gone). */
void ident_shutdown(void);

/* A new guest identity with a fresh random token ("guest-<id>"). NULL if
 * out of memory. */
ident *ident_new(void);
/* The identity of a token: a known one, or the restored seat whose key is
 * the token's hash (adopted now: the token works from then on); NULL. */
ident *ident_by_token(const char *token);
/* The identity that held a seat (by its key) in a game restored from the
 * store; created without a token if needed. */
ident *ident_restored(const char *key, const char *name);
/* The identity of an account, created (with a fresh token) if needed. */
ident *ident_account(int64_t account, const char *name);
/* The bot of this level (1..8), "bot-level-<level>", created at first use
 * and kept until ident_shutdown; NULL if out of memory or no such level.
 * One identity per level: the same bot may hold two seats of a room. */
ident *ident_bot(int level);
/* The identity of an account if there is one in memory, else NULL. */
ident *ident_find_account(int64_t account);

/* s speaks for who from now on (s->who is set). Returns true if s is its
 * only session (it has just come). */
bool ident_attach(ident *who, session *s);
/* s stops speaking for its identity (s->who is cleared). Returns true if
 * that identity has no session left (it has just gone). */
bool ident_detach(session *s);

/* who holds a seat in r (a room in memory) / no longer (r is freed).
 * ident_seat returns 0 or -1 if out of memory. */
int ident_seat(ident *who, struct room *r);
void ident_unseat(ident *who, const struct room *r);

#endif
