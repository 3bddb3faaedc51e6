/*
 * tourney.h - round-robin tournaments as pure computation: the schedule of
 * a section (two players: the circle method; three players: a balanced
 * design found by a seeded local search), the points of a finished game
 * from its finishing order, scores, tie-breaks and withdrawals (ICCF: a
 * player who played fewer than half their games has all their results
 * struck out). docs/TOURNAMENTS.md says how and what the balance is.
 *
 * Owns: the schedule construction and the crosstable arithmetic.
 * May call: libc only (no I/O, no allocation).
 */
#ifndef TOURNEY_H
#define TOURNEY_H

#include <stdbool.h>

enum {
    TOURNEY_MIN_PLAYERS = 3,
    TOURNEY_MAX_PLAYERS = 12,
    TOURNEY_MAX_SEATS = 3,
    /* Games of the largest section: 12 players, two players a game,
     * double round robin (132); three players, double (2 x 24). */
    TOURNEY_MAX_GAMES = 132,
};

/* One game of a schedule: player[seat] is an entrant's index (0..n-1). */
typedef struct tourney_pairing {
    int round; /* 1-based */
    int player[TOURNEY_MAX_SEATS];
} tourney_pairing;

/*
 * The schedule of n entrants (TOURNEY_MIN_PLAYERS..TOURNEY_MAX_PLAYERS)
 * for games of `seats` players (2 or 3), once or twice (double). Two
 * players: every pair once (single) or once with each colour (double),
 * seat 0 (white) balanced. Three players: every entrant plays the same
 * number of games, meets every other entrant at least once, pair counts
 * differ by at most one and seat counts by at most one (double: the single
 * schedule twice, seats rotated). Deterministic. Returns the number of
 * games written to out (at most max), or -1 for arguments out of range.
 */
int tourney_schedule(int n, int seats, bool twice, tourney_pairing *out, int max);

/* One game as the crosstable sees it. */
typedef struct tourney_game {
    int nseats; /* 2 or 3 */
    int player[TOURNEY_MAX_SEATS];
    bool finished;
    /* Finished: the place of each seat, 0 the best; equal places drew
     * (a winner first, draws level, the later leaver above the earlier). */
    int rank[TOURNEY_MAX_SEATS];
} tourney_game;

/* One entrant's standing. */
typedef struct tourney_standing {
    double score;    /* points from the games that count */
    double tiebreak; /* Sonneborn-Berger (pairwise for three players) */
    int wins;        /* first places alone */
    int played;      /* finished games that count */
    int games;       /* games in the schedule */
    bool struck;     /* withdrew having played fewer than half: results struck out */
    int place;       /* 1-based place in the standings (ties share the place) */
} tourney_standing;

/* The points of seat s of a finished game: two players 1 / ½ / 0; three
 * players 1, ½, 0 for first, second, third, places shared are averaged
 * (two tied first get ¾ each, three tied ½). */
double tourney_points(const tourney_game *g, int s);

/* Seat s's pairwise score against seat t of a finished game: 1 above, ½
 * level, 0 below. */
double tourney_pairwise(const tourney_game *g, int s, int t);

/*
 * Whether entrant p's results are struck out: p withdrew (withdrawn[p])
 * after finishing played_at[p] games, fewer than half of their games in the
 * schedule. A game with a struck entrant counts for nobody.
 */
bool tourney_struck(const tourney_game *games, int ngames, int p, const bool *withdrawn,
                    const int *played_at);

/*
 * Standings of n entrants: out[p] for entrant p. withdrawn/played_at may
 * be NULL (nobody withdrew). cross, if non-NULL, gets cross[i][j]: i's
 * pairwise points against j over the games that count (the crosstable
 * cell), and ncross[i][j] how many games they finished together.
 */
void tourney_standings(const tourney_game *games, int ngames, int n, const bool *withdrawn,
                       const int *played_at, tourney_standing *out,
                       double cross[][TOURNEY_MAX_PLAYERS], int ncross[][TOURNEY_MAX_PLAYERS]);

/* Balance of a schedule (tests, docs): per entrant games, per pair meetings,
 * per entrant and seat sittings; the extremes over entrants / pairs. */
typedef struct tourney_balance {
    int games_min, games_max;
    int meet_min, meet_max;
    int seat_min, seat_max; /* over every entrant and seat */
} tourney_balance;

void tourney_balance_of(const tourney_pairing *p, int ngames, int n, int seats,
                        tourney_balance *out);

#endif
