/*
 * store_tourney.h - the store's part of tournaments (migration 0008): a
 * tournament, its entrants and its games with their places. The crosstable
 * arithmetic is protocol/tourney.h's; the life of a tournament is
 * server/tourney.c's.
 *
 * Owns: the storage contract of tournaments. May call: store.h (the store,
 * its errors and time controls), record.h.
 *
 * Every write is queued and answered later on the loop, so that the loop
 * never waits on the database (on PostgreSQL a network round trip). The
 * places of a finished game are queued like a game's result (written after
 * the result queued before them). The rare writes (a tournament is
 * created, joined, started, finished a few times in its life) are queued
 * calls (store_impl.h, queue_call): each runs on the writer's connection
 * inside its batch's transaction, after whatever was queued before it; its
 * callback runs on the loop once that transaction committed (status 0) or
 * failed (STORE_EDB, and then nothing of it is on disk), or with
 * STORE_ECLOSED if the store closed first. The return is 0 (the callback
 * will be called, never before the function returns) or STORE_ECLOSED /
 * STORE_ENOMEM at once (then it is not). A start is queued right behind
 * the creations of the games it names: they go in the same batch, so the
 * games and the start commit together or not at all. A place lost to a
 * crash is found again from the game itself (server/game/tournament.c reads the
 * games of a running tournament that have no places at start-up).
 *
 * store_tourney_load alone is synchronous, on the loop's connection: it
 * runs once at start-up, before the loop does.
 */
#ifndef STORE_TOURNEY_H
#define STORE_TOURNEY_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

enum {
    STORE_TOURNEY_NAME_MAX = 64, /* incl. NUL */
    STORE_TOURNEY_SEATS = 3,
};

typedef enum {
    STORE_TOURNEY_OPEN = 0,
    STORE_TOURNEY_RUNNING = 1,
    STORE_TOURNEY_FINISHED = 2,
    STORE_TOURNEY_CANCELLED = 3,
} store_tourney_state;

typedef enum {
    STORE_ENTRANT_INVITED = 0,
    STORE_ENTRANT_JOINED = 1,
    STORE_ENTRANT_WITHDRAWN = 2,
} store_entrant_status;

typedef struct store_tourney {
    int64_t id;
    char name[STORE_TOURNEY_NAME_MAX];
    int64_t director;
    char director_name[STORE_NAME_MAX];
    char variant[RECORD_VARIANT_MAX];
    int size; /* 3..12 entrants */
    bool twice;
    store_tc tc;      /* correspondence (store.h) */
    int64_t start_ms; /* 0: when full */
    bool invite_only;
    bool rated;
    int state; /* store_tourney_state */
    int64_t created_ms, state_ms;
} store_tourney;

typedef struct store_entrant {
    int64_t account;
    char name[STORE_NAME_MAX];
    int status; /* store_entrant_status */
    int idx;    /* number in the section (from the start), -1 before */
    int64_t at_ms;
    int played_at; /* withdrawn: games finished then */
} store_entrant;

typedef struct store_tourney_game {
    int64_t game;
    int round;
    int player[STORE_TOURNEY_SEATS]; /* entrant idx by seat; -1: no seat */
    bool finished;
    int rank[STORE_TOURNEY_SEATS]; /* places when finished (0 best) */
} store_tourney_game;

/* The answer of a creation: status 0 and the tournament as stored (its id,
 * state open, created_ms = state_ms = the time of the call), or an error
 * and NULL; t is valid during the call only. */
typedef void (*store_tourney_cb)(void *arg, int status, const store_tourney *t);
/* A new tournament (t's id, state and times are ignored) and its
 * invitation list (copied). */
int store_tourney_create(store *s, const store_tourney *t, const int64_t *invited, int ninvited,
                         store_tourney_cb cb, void *arg);
/* Put an entrant (insert or replace), or remove one before the start. cb
 * may be NULL. */
int store_tourney_entrant_put(store *s, int64_t tourney, const store_entrant *e, store_done_cb cb,
                              void *arg);
int store_tourney_entrant_del(store *s, int64_t tourney, int64_t account, store_done_cb cb,
                              void *arg);
/* A new state (finished, cancelled) at at_ms. cb may be NULL. */
int store_tourney_set_state(store *s, int64_t tourney, int state, int64_t at_ms, store_done_cb cb,
                            void *arg);
/* The start, in one transaction (with the games' creations queued before
 * it): the state, each joined entrant's index (accounts[i] is entrant i)
 * and the games (both arrays copied). cb may be NULL. */
int store_tourney_start(store *s, int64_t tourney, int64_t at_ms, const int64_t *accounts, int n,
                        const store_tourney_game *games, int ngames, store_done_cb cb, void *arg);
/* Queue the places of a finished game (of whichever tournament holds it).
 * cb (may be NULL) fires once written, or with the error. 0, or an error
 * at once (STORE_ECLOSED, STORE_ENOMEM; then cb is not called). */
int store_tourney_result(store *s, int64_t game, const int *rank, int nseats, store_done_cb cb,
                         void *arg);

/* Every tournament at start-up, in id order; then every entrant (by
 * tournament, in order of joining); then every game (by tournament, round,
 * id). Synchronous. 0 or STORE_EDB. */
typedef struct store_tourney_loader {
    void (*tourney)(void *arg, const store_tourney *t);
    void (*entrant)(void *arg, int64_t tourney, const store_entrant *e);
    void (*game)(void *arg, int64_t tourney, const store_tourney_game *g);
    void *arg;
} store_tourney_loader;
int store_tourney_load(store *s, const store_tourney_loader *l);

#endif
