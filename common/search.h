/*
 * search.h - the bots' search, written once over rules.h.
 *
 * Iterative deepening alpha-beta (principal variation search) with a
 * transposition table keyed by the position hash, move ordering (table
 * move, captures, killers, history), quiescence on captures, and
 * repetition scored as a draw. Three-player games are searched by one of
 * three methods (paranoid, best-reply search, max^n), chosen per call.
 *
 * What a game must give the search beyond legal moves lives in optional
 * hooks of rules_variant (evaluate, is_capture, set_to_move), so nothing
 * here branches on the game. A game without `evaluate` is searched on
 * mobility alone; without `is_capture` it gets no quiescence.
 *
 * Memory: search_new allocates the context and its table once; a search
 * allocates nothing. One context is used by one thread at a time;
 * search_stop may be called from any thread.
 *
 * Owns: the search, its table and heuristics, the playing levels 1-8.
 * May call: rules.h and libc (the clock through C11 timespec_get unless the
 * caller gives its own).
 */
#ifndef SEARCH_H
#define SEARCH_H

#include "rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SEARCH_MAX_PLY = 96,
    /* Scores are centipawns for the side to move. A won game scores
     * SEARCH_WIN minus the plies to reach it; anything at or beyond
     * SEARCH_WIN_BOUND is a forced result. */
    SEARCH_INF = 1000000,
    SEARCH_WIN = 100000,
    SEARCH_WIN_BOUND = SEARCH_WIN - 1000,
    SEARCH_LEVEL_MIN = 1,
    SEARCH_LEVEL_MAX = 8,
};

enum {
    /* No forward pruning (null move, reverse futility): every line is
     * searched to its depth. For tests and for measuring what pruning
     * gains. */
    SEARCH_FLAG_NO_PRUNING = 1u << 0,
    /* No null-move pruning only (reverse futility stays). */
    SEARCH_FLAG_NO_NULL_MOVE = 1u << 1,
};

/* How a three-player game is searched (two-player games ignore this). */
typedef enum {
    SEARCH_MULTI_PARANOID = 0, /* both opponents minimise the searcher */
    SEARCH_MULTI_BRS,          /* best-reply search: one opponent replies */
    SEARCH_MULTI_MAXN,         /* each player maximises its own value */
} search_multi;

const char *search_multi_name(search_multi m);

typedef struct search_limits {
    int depth;      /* plies; 0: no limit */
    uint64_t nodes; /* 0: no limit */
    int64_t ms;     /* wall time for this search; 0: no limit */
    int level;      /* 1..8; 0 means 8 (full strength) */
    uint64_t seed;  /* the weaker levels' randomness: same seed, same move */
    search_multi multi;
    unsigned flags; /* SEARCH_FLAG_* */
    /* Milliseconds from any fixed origin; NULL: C11 timespec_get. */
    int64_t (*now_ms)(void);
} search_limits;

/* What a finished iteration found (and, at the end, the answer). */
typedef struct search_report {
    int depth;      /* completed depth */
    int seldepth;   /* deepest ply reached, quiescence included */
    int score;      /* for the side to move at the root */
    uint64_t nodes; /* since the search started */
    int64_t ms;     /* since the search started */
    rules_move pv[SEARCH_MAX_PLY];
    int npv;
    rules_move best; /* the move to play (pv[0] at level 8); 0 if none */
} search_report;

typedef struct search_ctx search_ctx;

/* A context with a transposition table of about table_bytes (at least one
 * bucket). NULL if out of memory. */
search_ctx *search_new(size_t table_bytes);
void search_free(search_ctx *s);

/* Forget everything learnt (a new game). */
void search_clear(search_ctx *s);

/* Ask a running search to return as soon as it can (any thread). The flag
 * is cleared when the next search starts. */
void search_stop(search_ctx *s);

/* Fill limits for a playing level (1..8) given the time the bot may spend
 * (ms, 0: none). Level 8 is full strength for that time; weaker levels cap
 * depth and nodes and choose among near-best moves at random. */
void search_level_limits(search_limits *l, int level, int64_t ms, uint64_t seed);

/*
 * Search `root` within `limits`. `history` holds the hashes of the game's
 * earlier positions (oldest first, the root's own hash excluded), so that
 * repetitions are seen; it may be NULL. After each completed depth,
 * `report` (may be NULL) gets what was found. The answer goes into *out:
 * out->best is 0 only when the position has no legal move or is over.
 * Returns 0, or RULES_EGAME_OVER when there is nothing to search.
 */
int search_run(search_ctx *s, const rules_pos *root, const uint64_t *history, size_t nhistory,
               const search_limits *limits, void (*report)(void *arg, const search_report *r),
               void *arg, search_report *out);

/* The time a bot should spend on a move with `left` ms on its clock and
 * `inc` ms increment, `moves_played` moves into the game. */
int64_t search_time_for_move(int64_t left, int64_t inc, int moves_played);

#endif
