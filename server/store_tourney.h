/*
 * store_tourney.h - the store's part of tournaments (migration 0008): a
 * tournament, its entrants and its games with their places. The crosstable
 * arithmetic is protocol/tourney.h's; the life of a tournament is
 * server/tourney.c's.
 *
 * Owns: the storage contract of tournaments. May call: store.h (the store,
 * its errors and time controls), record.h.
 *
 * The places of a finished game are queued like a game's result (the
 * writer commits them; they are written after the result queued before
 * them). Every other write is rare (a tournament is created, joined,
 * started, finished a few times in its life) and is written synchronously
 * before the function returns, after whatever is queued (store_flush): so a
 * start is on disk after the creation of the games it names. A place lost
 * to a crash is found again from the game itself (server/tournament.c reads
 * the games of a running tournament that have no places at start-up).
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

/* A new tournament (t->id, state and times are set here), and its
 * invitation list. 0 and t->id, or STORE_EDB. */
int store_tourney_create(store *s, store_tourney *t, const int64_t *invited, int ninvited);
/* Put an entrant (insert or replace), or remove one before the start. */
int store_tourney_entrant_put(store *s, int64_t tourney, const store_entrant *e);
int store_tourney_entrant_del(store *s, int64_t tourney, int64_t account);
/* A new state (finished, cancelled) at now. */
int store_tourney_set_state(store *s, int64_t tourney, int state, int64_t at_ms);
/* The start, in one transaction: the state, each joined entrant's index
 * (accounts[i] is entrant i) and the games. */
int store_tourney_start(store *s, int64_t tourney, int64_t at_ms, const int64_t *accounts, int n,
                        const store_tourney_game *games, int ngames);
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
