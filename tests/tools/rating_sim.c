/*
 * rating_sim.c - which rating method ranks three-player games best?
 *
 * A population of players with hidden strengths (normal, mean 0, sd 1)
 * plays rounds of three-player games: each round the players are shuffled
 * into tables of three, each player's performance is drawn from a normal
 * around its strength (sd --noise) and the table is ordered by performance.
 * Two methods rate the same games:
 *
 *   pairwise  Glicko-2 as the server rates a game (rating.h,
 *             rating_game_update): each player's period holds one game
 *             against each other player, scored from the finishing order;
 *             one day between rounds.
 *   ffa       Weng and Lin's Bayesian free-for-all (2011, "A Bayesian
 *             approximation method for online ranking", the Bradley-Terry
 *             full-pair model; the TrueSkill-like update OpenSkill uses,
 *             rating.h rating_ffa), the candidate not chosen.
 *
 * After 20 and 100 games each it prints the rank correlations (Spearman and
 * Kendall) of each method's ratings with the hidden strengths, averaged
 * over --runs populations.
 *
 *   build/rating_sim [--players N] [--runs R] [--noise SD] [--seed S]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rating.h"

static uint64_t rng_state = 88172645463325252ULL;

static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* Spearman's rho (no ties in strengths; ratings tie with probability 0). */
static double spearman(const double *a, const double *b, int n)
{
    int *ra = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        ra[i] = rb[i] = 0;
        for (int j = 0; j < n; j++) {
            ra[i] += a[j] < a[i];
            rb[i] += b[j] < b[i];
        }
    }
    double d2 = 0;
    for (int i = 0; i < n; i++)
        d2 += (double)(ra[i] - rb[i]) * (ra[i] - rb[i]);
    free(ra);
    free(rb);
    return 1.0 - 6.0 * d2 / ((double)n * ((double)n * n - 1.0));
}

static double kendall(const double *a, const double *b, int n)
{
    long conc = 0, disc = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double s = (a[i] - a[j]) * (b[i] - b[j]);
            conc += s > 0;
            disc += s < 0;
        }
    return (double)(conc - disc) / ((double)n * (n - 1) / 2.0);
}

int main(int argc, char **argv)
{
    int nplayers = 300, runs = 20;
    double noise = 1.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--players") == 0)
            nplayers = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--noise") == 0)
            noise = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            rng_state = strtoull(argv[i + 1], NULL, 10) | 1;
    }
    nplayers -= nplayers % 3;
    if (nplayers < 3 || runs < 1) {
        fprintf(stderr,
                "usage: rating_sim [--players N>=3] [--runs R>=1] [--noise SD] [--seed S]\n");
        return 2;
    }
    static const int checkpoints[] = {20, 100};
    double sum[2][2][2] = {{{0}}}; /* [checkpoint][method][spearman, kendall] */
    double *strength = malloc(sizeof(double) * (size_t)nplayers);
    double *score = malloc(sizeof(double) * (size_t)nplayers);
    int *order = malloc(sizeof(int) * (size_t)nplayers);
    rating_glicko *g = malloc(sizeof *g * (size_t)nplayers);
    int64_t *last = malloc(sizeof *last * (size_t)nplayers);
    rating_glicko *w = malloc(sizeof *w * (size_t)nplayers);
    int64_t *wlast = malloc(sizeof *wlast * (size_t)nplayers);
    for (int run = 0; run < runs; run++) {
        for (int i = 0; i < nplayers; i++) {
            strength[i] = normal();
            g[i] = rating_new();
            last[i] = 0;
            w[i] = rating_ffa_new();
            wlast[i] = 0;
            order[i] = i;
        }
        int cp = 0;
        for (int round = 1; round <= 100; round++) {
            int64_t now = (int64_t)round * 86400000;
            for (int i = nplayers - 1; i > 0; i--) {
                int j = (int)(uniform() * (i + 1));
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int t = 0; t < nplayers; t += 3) {
                int *seat = &order[t];
                double perf[3];
                int rank[3];
                for (int k = 0; k < 3; k++)
                    perf[k] = strength[seat[k]] + noise * normal();
                for (int k = 0; k < 3; k++) {
                    rank[k] = 0;
                    for (int m = 0; m < 3; m++)
                        rank[k] += perf[m] > perf[k];
                }
                /* Pairwise Glicko-2, as the server rates a game. */
                rating_glicko pg[3] = {g[seat[0]], g[seat[1]], g[seat[2]]};
                int64_t gl[3] = {last[seat[0]], last[seat[1]], last[seat[2]]};
                rating_game_update(pg, gl, now, rank, 3);
                for (int k = 0; k < 3; k++) {
                    g[seat[k]] = pg[k];
                    last[seat[k]] = now;
                }
                /* Free-for-all, the candidate not chosen. */
                rating_glicko pw[3] = {w[seat[0]], w[seat[1]], w[seat[2]]};
                int64_t pl[3] = {wlast[seat[0]], wlast[seat[1]], wlast[seat[2]]};
                rating_ffa(pw, pl, now, rank, 3);
                for (int k = 0; k < 3; k++) {
                    w[seat[k]] = pw[k];
                    wlast[seat[k]] = now;
                }
            }
            if (round == checkpoints[cp]) {
                for (int i = 0; i < nplayers; i++)
                    score[i] = g[i].r;
                sum[cp][0][0] += spearman(score, strength, nplayers);
                sum[cp][0][1] += kendall(score, strength, nplayers);
                for (int i = 0; i < nplayers; i++)
                    score[i] = w[i].r;
                sum[cp][1][0] += spearman(score, strength, nplayers);
                sum[cp][1][1] += kendall(score, strength, nplayers);
                cp++;
            }
        }
    }
    printf("players %d, runs %d, performance noise sd %.2f (strength sd 1)\n", nplayers, runs,
           noise);
    printf("%-6s %-9s %8s %8s\n", "games", "method", "spearman", "kendall");
    for (int c = 0; c < 2; c++)
        for (int m = 0; m < 2; m++)
            printf("%-6d %-9s %8.4f %8.4f\n", checkpoints[c], m ? "ffa" : "pairwise",
                   sum[c][m][0] / runs, sum[c][m][1] / runs);
    free(strength);
    free(score);
    free(order);
    free(g);
    free(last);
    free(w);
    free(wlast);
    return 0;
}
