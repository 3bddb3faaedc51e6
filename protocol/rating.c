/*
 * rating.c - Glicko-2 (rating.h). Step numbers are those of Glickman's
 * "Example of the Glicko-2 system".
 */
#include "rating.h"

#include <math.h>
#include <string.h>

#define SCALE 173.7178 /* Glicko-2's scale: mu = (r - 1500) / SCALE */
#define PI 3.14159265358979323846

static double g_of(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI));
}

static double expect(double mu, double mu_j, double phi_j)
{
    return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

/* Step 5's f(x). */
static double vol_f(double x, double delta, double phi, double v, double a, double tau)
{
    double ex = exp(x);
    double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
}

/* Steps 2-8 with step 6 growing the deviation by `periods` periods of
 * the new volatility: 1 in the paper's system, 0 in a game rated as
 * lichess rates it (its idle time is aged before: rating_after). */
static rating_glicko glicko_update(rating_glicko p, const rating_game *g, int n, double tau,
                                   double periods)
{
    double mu = (p.r - RATING_DEFAULT) / SCALE, phi = p.rd / SCALE;
    if (n <= 0) {
        p.rd = sqrt(phi * phi + periods * p.vol * p.vol) * SCALE;
        return p;
    }
    /* Step 3 and 4: the estimated variance v and improvement delta. */
    double vinv = 0, sum = 0;
    for (int j = 0; j < n; j++) {
        double mu_j = (g[j].r - RATING_DEFAULT) / SCALE, phi_j = g[j].rd / SCALE;
        double gj = g_of(phi_j), e = expect(mu, mu_j, phi_j);
        vinv += gj * gj * e * (1.0 - e);
        sum += gj * (g[j].score - e);
    }
    double v = 1.0 / vinv, delta = v * sum;
    /* Step 5: the new volatility, by the Illinois algorithm. */
    double a = log(p.vol * p.vol), A = a, B;
    if (delta * delta > phi * phi + v) {
        B = log(delta * delta - phi * phi - v);
    } else {
        int k = 1;
        while (vol_f(a - k * tau, delta, phi, v, a, tau) < 0 && k < 1000)
            k++;
        B = a - k * tau;
    }
    double fA = vol_f(A, delta, phi, v, a, tau), fB = vol_f(B, delta, phi, v, a, tau);
    for (int it = 0; fabs(B - A) > RATING_EPSILON && it < 1000; it++) {
        double C = A + (A - B) * fA / (fB - fA), fC = vol_f(C, delta, phi, v, a, tau);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2.0;
        }
        B = C;
        fB = fC;
    }
    double vol = exp(A / 2.0);
    /* Steps 6-8. */
    double phi_star = sqrt(phi * phi + periods * vol * vol);
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * sum;
    p.r = mu_new * SCALE + RATING_DEFAULT;
    p.rd = phi_new * SCALE;
    p.vol = vol;
    return p;
}

rating_glicko rating_period(rating_glicko p, const rating_game *g, int n, double tau)
{
    return glicko_update(p, g, n, tau, 1.0);
}

double rating_rd_aged(double rd, double vol, double periods)
{
    if (periods <= 0)
        return rd;
    double phi = rd / SCALE;
    double aged = sqrt(phi * phi + periods * vol * vol) * SCALE;
    return aged > RATING_RD_MAX ? RATING_RD_MAX : aged;
}

static double clamp_rd(double rd)
{
    return rd < RATING_RD_MIN ? RATING_RD_MIN : rd > RATING_RD_MAX ? RATING_RD_MAX : rd;
}

rating_glicko rating_after(rating_glicko p, int64_t last_ms, int64_t now_ms, const rating_game *g,
                           int n)
{
    if (last_ms > 0 && now_ms > last_ms)
        p.rd = rating_rd_aged(p.rd, p.vol,
                              (double)(now_ms - last_ms) / 86400000.0 * RATING_PERIODS_PER_DAY);
    /* The game is a period of no length: the idle time above is all the
     * deviation grows by (lichess: skipDeviationIncrease), so volatility
     * never enters a game's change of rating. */
    p = glicko_update(p, g, n, RATING_TAU, 0.0);
    p.rd = clamp_rd(p.rd);
    return p;
}

rating_glicko rating_new(void)
{
    return (rating_glicko){RATING_DEFAULT, RATING_RD_DEFAULT, RATING_VOL_DEFAULT};
}

bool rating_provisional(double rd)
{
    return rd > RATING_PROVISIONAL_RD;
}

static const char *const pace_names[RATING_NPACES] = {"bullet", "blitz", "rapid", "classical",
                                                      "correspondence"};

rating_pace rating_pace_of(bool correspondence, int64_t base_ms, int64_t inc_ms)
{
    if (correspondence)
        return RATING_CORR;
    int64_t est = base_ms / 1000 + 40 * (inc_ms / 1000);
    return est < 180    ? RATING_BULLET
           : est < 480  ? RATING_BLITZ
           : est < 1500 ? RATING_RAPID
                        : RATING_CLASSICAL;
}

const char *rating_pace_name(rating_pace p)
{
    return p >= 0 && p < RATING_NPACES ? pace_names[p] : "unknown";
}

int rating_pace_parse(const char *name)
{
    for (int p = 0; p < RATING_NPACES; p++)
        if (strcmp(name, pace_names[p]) == 0)
            return p;
    return -1;
}

rating_glicko rating_ffa_new(void)
{
    return (rating_glicko){RATING_DEFAULT, 25.0 / 3.0 * RATING_FFA_K, RATING_VOL_DEFAULT};
}

void rating_ffa(rating_glicko *p, const int64_t *last_ms, int64_t now_ms, const int *rank, int n)
{
    const double beta = 25.0 / 6.0, kappa = 1e-4;
    double mu[RATING_MAX_OPPONENTS], s2[RATING_MAX_OPPONENTS];
    if (n > RATING_MAX_OPPONENTS)
        n = RATING_MAX_OPPONENTS;
    for (int i = 0; i < n; i++) {
        double rd = p[i].rd;
        if (last_ms[i] > 0 && now_ms > last_ms[i])
            rd = rating_rd_aged(
                rd, p[i].vol, (double)(now_ms - last_ms[i]) / 86400000.0 * RATING_PERIODS_PER_DAY);
        double sigma = rd / RATING_FFA_K;
        mu[i] = 25.0 + (p[i].r - RATING_DEFAULT) / RATING_FFA_K;
        s2[i] = sigma * sigma + RATING_FFA_TAU * RATING_FFA_TAU;
    }
    for (int i = 0; i < n; i++) {
        double omega = 0, delta = 0;
        for (int q = 0; q < n; q++) {
            if (q == i)
                continue;
            double c = sqrt(s2[i] + s2[q] + 2 * beta * beta);
            double piq = 1.0 / (1.0 + exp((mu[q] - mu[i]) / c));
            double s = rank[i] < rank[q] ? 1.0 : rank[i] > rank[q] ? 0.0 : 0.5;
            omega += s2[i] / c * (s - piq);
            delta += sqrt(s2[i]) / c * s2[i] / (c * c) * piq * (1.0 - piq);
        }
        double f = 1.0 - delta;
        p[i].r = RATING_DEFAULT + (mu[i] + omega - 25.0) * RATING_FFA_K;
        p[i].rd = clamp_rd(sqrt(s2[i] * (f > kappa ? f : kappa)) * RATING_FFA_K);
    }
}

void rating_pairwise(const int *rank, int n, double score[][RATING_MAX_OPPONENTS])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            score[i][j] = rank[i] < rank[j] ? 1.0 : rank[i] > rank[j] ? 0.0 : 0.5;
}

/* Did a leave after b's? */
static bool left_later(int64_t a_ply, int64_t a_ms, int64_t b_ply, int64_t b_ms)
{
    return a_ply > b_ply || (a_ply == b_ply && a_ms > b_ms);
}

void rating_places(const bool *lost, const int64_t *left_ply, const int64_t *left_ms, int n,
                   int *rank)
{
    for (int p = 0; p < n; p++) {
        if (!lost[p]) {
            rank[p] = 0;
            continue;
        }
        rank[p] = 1;
        for (int q = 0; q < n; q++)
            if (lost[q] && left_later(left_ply[q], left_ms[q], left_ply[p], left_ms[p]))
                rank[p]++;
    }
}

rating_glicko rating_first(int n)
{
    (void)n;
    return rating_new();
}

void rating_game_update(rating_glicko *p, const int64_t *last_ms, int64_t now_ms, const int *rank,
                        int n)
{
    if (n < 2 || n > RATING_MAX_OPPONENTS)
        return;
    double score[RATING_MAX_OPPONENTS][RATING_MAX_OPPONENTS];
    rating_pairwise(rank, n, score);
    /* Everyone from the ratings before the game: one period each, holding
     * a game against every other player scored by the finishing order. */
    rating_glicko before[RATING_MAX_OPPONENTS];
    memcpy(before, p, (size_t)n * sizeof *p);
    for (int i = 0; i < n; i++) {
        rating_game g[RATING_MAX_OPPONENTS];
        int ng = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                g[ng++] = (rating_game){before[j].r, before[j].rd, score[i][j]};
        p[i] = rating_after(before[i], last_ms[i], now_ms, g, ng);
    }
}
