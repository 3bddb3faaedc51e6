/*
 * rating.h - Glicko-2 ratings (Glickman, "Example of the Glicko-2 system")
 * updated after each game as lichess does, the pace of a time control, and
 * pairwise results from a finishing order (three-player games).
 *
 * Owns: the formulas and their parameters; pure computation on doubles.
 * May call: libc and libm only (no I/O, no allocation).
 *
 * Lichess's way, which we follow: every game is a rating period of its own,
 * rated at once when it ends; before it, the player's deviation grows with
 * the time since the player's last rated game (RATING_PERIODS_PER_DAY
 * periods a day, phi^2 + t * sigma^2), then the paper's steps 3-8 run with
 * that one game, step 6 adding no further period (the time since the last
 * game is all the deviation grows by). The deviation is kept within
 * [RATING_RD_MIN, RATING_RD_MAX]. Lichess's published test values
 * (scalachess, GlickoCalculatorTest) are tests/unit/test_rating.c's.
 */
#ifndef RATING_H
#define RATING_H

#include <stdbool.h>
#include <stdint.h>

#define RATING_DEFAULT 1500.0
#define RATING_RD_DEFAULT 500.0     /* a new player (lichess) */
#define RATING_VOL_DEFAULT 0.09     /* lichess */
#define RATING_TAU 0.75             /* the system constant (lichess) */
#define RATING_RD_MIN 45.0          /* no deviation is smaller */
#define RATING_RD_MAX 500.0         /* nor larger */
#define RATING_PROVISIONAL_RD 110.0 /* shown with '?' while above */
#define RATING_PERIODS_PER_DAY 0.21436
#define RATING_EPSILON 1e-6 /* the convergence tolerance of step 5 */

enum { RATING_MAX_OPPONENTS = 8 };

typedef struct rating_glicko {
    double r, rd, vol;
} rating_glicko;

/* One game of the period: the opponent's rating and deviation (as before
 * the game) and the score (1 win, 0.5 draw, 0 loss). */
typedef struct rating_game {
    double r, rd, score;
} rating_game;

/*
 * The paper's steps 2-8: the player's rating after a period of n games
 * (n 0: only the deviation grows, step 6) with system constant tau. No
 * clamping: this is the paper's system, as its example is computed.
 */
rating_glicko rating_period(rating_glicko p, const rating_game *g, int n, double tau);

/* The deviation after `periods` rating periods without a game (may be
 * fractional), at most RATING_RD_MAX. */
double rating_rd_aged(double rd, double vol, double periods);

/*
 * After one game (lichess): the deviation aged by the time from last_ms
 * (the player's previous rated game, 0 if none) to now_ms, then steps 3-8
 * with the games g (tau RATING_TAU) and no growth at step 6, the deviation
 * clamped to [RATING_RD_MIN, RATING_RD_MAX].
 */
rating_glicko rating_after(rating_glicko p, int64_t last_ms, int64_t now_ms, const rating_game *g,
                           int n);

/* A new player's rating. */
rating_glicko rating_new(void);

bool rating_provisional(double rd);

/* Paces: how long a game lasts (lichess's estimate: base + 40 x increment
 * seconds; ultrabullet counts as bullet here), or correspondence. */
typedef enum {
    RATING_BULLET,
    RATING_BLITZ,
    RATING_RAPID,
    RATING_CLASSICAL,
    RATING_CORR,
    RATING_NPACES
} rating_pace;

rating_pace rating_pace_of(bool correspondence, int64_t base_ms, int64_t inc_ms);
const char *rating_pace_name(rating_pace p);
/* The pace of a name, or -1. */
int rating_pace_parse(const char *name);

/*
 * Free-for-all: Weng and Lin's Bayesian approximation ("A Bayesian
 * approximation method for online ranking", 2011), the Bradley-Terry
 * full-pair model, the candidate for three-player games that pairwise
 * Glicko-2 beat once Glicko-2 was applied as lichess applies it
 * (docs/RATINGS.md; tests/tools/rating_sim.c still measures both). Its mu
 * and sigma are kept on the Glicko scale: rating = 1500 + (mu - 25) *
 * RATING_FFA_K, rd = sigma * RATING_FFA_K, where K makes one logistic unit
 * of the model (c = sqrt(2) beta, beta = 25/6) the 173.7 points of
 * Glicko-2's. p[0..n-1] are updated at once from their ratings before the
 * game: rank[i] is player i's place (0 best, equal ranks drew), last_ms[i]
 * its previous rated game (0 if none); each deviation first ages as in
 * rating_after, then grows by RATING_FFA_TAU; deviations are clamped like
 * Glicko-2's. vol is kept.
 */
#define RATING_FFA_K (173.7178 / (1.4142135623730951 * 25.0 / 6.0))
#define RATING_FFA_TAU (25.0 / 300.0) /* per game, in mu units */
void rating_ffa(rating_glicko *p, const int64_t *last_ms, int64_t now_ms, const int *rank, int n);
/* A new player's rating for free-for-all games (mu 25, sigma 25/3). */
rating_glicko rating_ffa_new(void);

/*
 * Pairwise scores from a finishing order: rank[i] is player i's place (0
 * the best; equal ranks drew). score[i][j] is i's score against j (1, 0.5
 * or 0); the diagonal is unused.
 */
void rating_pairwise(const int *rank, int n, double score[][RATING_MAX_OPPONENTS]);

/*
 * Places in a finished game of n players: lost[i] whether player i lost,
 * left_ply[i] and left_ms[i] after which move and when i left (INT64_MAX
 * for both: seated at the end). A winner and players who drew are first
 * (0); among the losers, those seated at the end come above those who
 * left, the later leaver above the earlier (two who left at the same move
 * and millisecond are level).
 */
void rating_places(const bool *lost, const int64_t *left_ply, const int64_t *left_ms, int n,
                   int *rank);

/* A player's first rating in a game of n players (Glicko-2's for any n). */
rating_glicko rating_first(int n);

/*
 * One rated game of n players (2 to RATING_MAX_OPPONENTS), the whole
 * update: p[i] the rating before (rating_first for a first game),
 * last_ms[i] the player's previous rated game (0: none), rank[i] its place
 * (rating_places). Each player's Glicko-2 update (rating_after) with a
 * game against every other player, scored from the places (1 above, 0.5
 * level, 0 below), from the ratings before the game: for two players one
 * game; for three, pairwise Glicko-2, chosen over the free-for-all update
 * by measurement (docs/RATINGS.md). p is updated in place.
 */
void rating_game_update(rating_glicko *p, const int64_t *last_ms, int64_t now_ms, const int *rank,
                        int n);

#endif
