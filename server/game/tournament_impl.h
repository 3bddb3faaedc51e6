/*
 * tournament_impl.h - PRIVATE to the tournament module: included by
 * tournament.c (the table, the watchers, the results, the restore) and
 * tournament_act.c (the requests and their turns) and by nothing else.
 *
 * Owns: the shape of a tournament in memory and the functions the two
 * files call in each other. May call: tourney_msg.h (the tournament's
 * fields), uthash. It includes neither tournament.h nor the store's
 * headers (each .c does), so that the module's headers form no circle.
 */
#ifndef TOURNAMENT_IMPL_H
#define TOURNAMENT_IMPL_H

#include <stdbool.h>
#include <stdint.h>

/* An add that runs out of memory leaves the table as it was. */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "tourney_msg.h"

struct store;
struct store_tourney;

/* A request in its tournament's turn (tournament_act.c). */
typedef struct tjob tjob;

typedef struct tourn {
    tourney_info info;  /* as committed (tournament_find) */
    tjob *first, *last; /* the requests in turn: the first runs */
    bool pumping;       /* tournament_act.c's pump is on the stack */
    UT_hash_handle hh;  /* by info.id */
} tourn;

/* tournament.c --------------------------------------------------------- */

extern struct store *tournament__db;
extern tourn *tournament__all; /* by id, in id order */

tourn *tournament__find(int64_t id);
tourney_entrant *tournament__entrant_of(tourney_info *t, int64_t account);
/* Entrants joined; games finished by entrant idx. */
int tournament__joined(const tourney_info *t);
int tournament__finished_of(const tourney_info *t, int idx);
void tournament__entrant_drop(tourney_info *t, int64_t account);
/* Fill ti's settings and state from a stored tournament (a creation's
 * row, or one read back at start-up); entrants and games are left alone.
 * 0, or -1 if its variant is unknown. */
int tournament__info_from_stored(tourney_info *ti, const struct store_tourney *st);
/* The gauges of tournaments by state (metrics.h). */
void tournament__count_state(int state, int delta);
/* The one place a state changes in memory. */
void tournament__state_to(tourn *t, int state, int64_t at_ms);
/* Follow game `index` of t (its results): 0 or -1 (out of memory). */
int tournament__ref_game(tourn *t, int index);
/* The tournament to its watchers. */
void tournament__push(const tourn *t);

/* tournament_act.c ----------------------------------------------------- */

/* The date timer's tick: the open tournaments whose date has come start
 * (in their turn). */
void tournament__start_due(int64_t now);
/* Free the requests still in t's turn (shutdown: the store is closed). */
void tournament__jobs_free(tourn *t);

#endif
