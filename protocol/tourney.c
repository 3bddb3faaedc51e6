/*
 * tourney.c - schedules and crosstables of round-robin sections
 * (tourney.h; docs/TOURNAMENTS.md says how the schedules are built).
 */
#include "tourney.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Two players a game: the circle method. */

static int schedule2(int n, bool twice, tourney_pairing *out, int max)
{
    int m = n % 2 ? n + 1 : n; /* n odd: entrant n is the bye */
    int rounds = m - 1, k = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < m / 2; i++) {
            int a = i == 0 ? m - 1 : (r + i) % (m - 1);
            int b = i == 0 ? r : (r - i + m - 1) % (m - 1);
            if (a >= n || b >= n)
                continue;
            /* White by the parity of the pair: every entrant gets
             * (n-1)/2 whites when n is odd, n/2 or n/2-1 when even. */
            int lo = a < b ? a : b, hi = a < b ? b : a;
            int w = (lo + hi) % 2 ? lo : hi, bl = w == lo ? hi : lo;
            if (k >= max)
                return -1;
            out[k++] = (tourney_pairing){r + 1, {w, bl, -1}};
        }
    }
    if (!twice)
        return k;
    int first = k;
    for (int i = 0; i < first; i++) {
        if (k >= max)
            return -1;
        out[k++] =
            (tourney_pairing){out[i].round + rounds, {out[i].player[1], out[i].player[0], -1}};
    }
    return k;
}

/* ------------------------------------------------------------------------ */
/* Three players a game: a balanced design found by local search. */

static uint32_t next_rand(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

typedef struct design {
    int n, g, r; /* entrants, games, games per entrant */
    int lo, hi;  /* bounds of the meetings of a pair */
    int t[TOURNEY_MAX_GAMES][3];
} design;

static int pair_term(const design *d, int m)
{
    return m < d->lo ? d->lo - m : m > d->hi ? m - d->hi : 0;
}

/* One entrant twice in game i: 100 a pair of seats. */
static int dup_cost(const design *d, int i)
{
    const int *t = d->t[i];
    return 100 * ((t[0] == t[1]) + (t[0] == t[2]) + (t[1] == t[2]));
}

/* How often each pair meets (meet) and the design's cost: pair_term of
 * every pair of entrants, and dup_cost of every game. */
static int pair_cost(const design *d, int meet[][TOURNEY_MAX_PLAYERS])
{
    memset(meet, 0, sizeof(int[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS]));
    int cost = 0;
    for (int i = 0; i < d->g; i++) {
        cost += dup_cost(d, i);
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++) {
                int p = d->t[i][a], q = d->t[i][b];
                meet[p][q]++;
                meet[q][p]++;
            }
    }
    for (int p = 0; p < d->n; p++)
        for (int q = p + 1; q < d->n; q++)
            cost += pair_term(d, meet[p][q]);
    return cost;
}

/* Entrant x at seat s of game i meets the others of that game dm times
 * more (+1 seated there, -1 leaving): meet changed, the change of the
 * pairs' cost returned. A seat holding x too is a duplicate (dup_cost),
 * not a meeting. */
static int seat_meets(const design *d, int meet[][TOURNEY_MAX_PLAYERS], int i, int s, int x, int dm)
{
    int delta = 0;
    for (int k = 0; k < 3; k++) {
        int v = d->t[i][k];
        if (k == s || v == x)
            continue;
        int old = meet[x][v];
        delta += pair_term(d, old + dm) - pair_term(d, old);
        meet[x][v] = meet[v][x] = old + dm;
    }
    return delta;
}

/* Swap the entrants at seat i of game a and seat j of game b (a != b):
 * the change of the cost, meet kept up to date (the cost pair_cost would
 * give, found in a few steps instead of all pairs again). */
static int swap_seats(design *d, int meet[][TOURNEY_MAX_PLAYERS], int a, int i, int b, int j)
{
    int x = d->t[a][i], y = d->t[b][j];
    int delta = -dup_cost(d, a) - dup_cost(d, b);
    delta += seat_meets(d, meet, a, i, x, -1) + seat_meets(d, meet, b, j, y, -1);
    d->t[a][i] = y;
    d->t[b][j] = x;
    delta += seat_meets(d, meet, a, i, y, +1) + seat_meets(d, meet, b, j, x, +1);
    return delta + dup_cost(d, a) + dup_cost(d, b);
}

static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static int seat_term(const design *d, int c)
{
    int lo = d->r / 3, hi = (d->r + 2) / 3;
    return c < lo ? lo - c : c > hi ? c - hi : 0;
}

/* How often each entrant has each seat (cnt) when game i is seated as
 * perms[perm[i]], and the cost: seat_term of each count. */
static int seat_cost(const design *d, const int *perm, int cnt[][3])
{
    memset(cnt, 0, sizeof(int[TOURNEY_MAX_PLAYERS][3]));
    for (int i = 0; i < d->g; i++)
        for (int s = 0; s < 3; s++)
            cnt[d->t[i][perms[perm[i]][s]]][s]++;
    int cost = 0;
    for (int p = 0; p < d->n; p++)
        for (int s = 0; s < 3; s++)
            cost += seat_term(d, cnt[p][s]);
    return cost;
}

/* Game i seated as perms[k] counted dm more times (+1, or -1 to take it
 * out): cnt changed, the change of the cost returned. */
static int seat_game(const design *d, int cnt[][3], int i, int k, int dm)
{
    int delta = 0;
    for (int s = 0; s < 3; s++) {
        int *c = &cnt[d->t[i][perms[k][s]]][s];
        delta += seat_term(d, *c + dm) - seat_term(d, *c);
        *c += dm;
    }
    return delta;
}

/* Returns the design's cost at the end (0: balanced). */
static int search_pairs(design *d, uint32_t *seed)
{
    /* Start: the entrants in cycle, each r times, cut in threes (three
     * consecutive are distinct); then swap entrants between games (which
     * keeps every entrant's number of games) while no worse. */
    for (int i = 0; i < d->g * 3; i++)
        d->t[i / 3][i % 3] = i % d->n;
    int meet[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    int cost = pair_cost(d, meet);
    for (long it = 0; it < 400000 && cost > 0; it++) {
        int a = (int)(next_rand(seed) % (uint32_t)d->g),
            b = (int)(next_rand(seed) % (uint32_t)d->g);
        int i = (int)(next_rand(seed) % 3), j = (int)(next_rand(seed) % 3);
        if (a == b)
            continue;
        int c = cost + swap_seats(d, meet, a, i, b, j);
        if (c <= cost || next_rand(seed) % 64 == 0)
            cost = c;
        else
            swap_seats(d, meet, a, i, b, j); /* back */
    }
    return cost;
}

/* Returns the seating's cost at the end (0: balanced). */
static int search_seats(design *d, int *perm, uint32_t *seed)
{
    for (int i = 0; i < d->g; i++)
        perm[i] = i % 3;
    int cnt[TOURNEY_MAX_PLAYERS][3];
    int cost = seat_cost(d, perm, cnt);
    for (long it = 0; it < 200000 && cost > 0; it++) {
        int a = (int)(next_rand(seed) % (uint32_t)d->g), old = perm[a];
        perm[a] = (int)(next_rand(seed) % 6);
        int c = cost + seat_game(d, cnt, a, old, -1) + seat_game(d, cnt, a, perm[a], +1);
        if (c <= cost || next_rand(seed) % 64 == 0) {
            cost = c;
        } else {
            seat_game(d, cnt, a, perm[a], -1);
            seat_game(d, cnt, a, old, +1);
            perm[a] = old;
        }
    }
    return cost;
}

static int schedule3(int n, bool twice, tourney_pairing *out, int max)
{
    design d = {.n = n};
    /* The fewest games each that meet everyone: 2r >= n-1, 3 | n*r. */
    d.r = (n - 1 + 1) / 2;
    while ((n * d.r) % 3)
        d.r++;
    if (twice) /* twice the games, balanced as one design (not one copied) */
        d.r *= 2;
    d.g = n * d.r / 3;
    d.lo = 2 * d.r / (n - 1);
    d.hi = (2 * d.r + n - 2) / (n - 1);
    if (d.g > max || d.g > TOURNEY_MAX_GAMES)
        return -1;
    uint32_t seed = 2463534242u ^ (uint32_t)n * 2654435761u;
    /* The search accepts a worse step now and then: it may end on one.
     * Restarts from another seed until balanced (a few at most). */
    for (int tries = 0; tries < 50; tries++)
        if (search_pairs(&d, &seed) == 0)
            break;
    int perm[TOURNEY_MAX_GAMES];
    for (int tries = 0; tries < 50; tries++)
        if (search_seats(&d, perm, &seed) == 0)
            break;
    /* Rounds: each game in the first round where none of its entrants
     * plays yet. */
    int busy[TOURNEY_MAX_GAMES][TOURNEY_MAX_PLAYERS];
    memset(busy, 0, sizeof busy);
    int round[TOURNEY_MAX_GAMES], rounds = 0;
    for (int i = 0; i < d.g; i++) {
        int r = 0;
        while (busy[r][d.t[i][0]] || busy[r][d.t[i][1]] || busy[r][d.t[i][2]])
            r++;
        for (int s = 0; s < 3; s++)
            busy[r][d.t[i][s]] = 1;
        round[i] = r;
        if (r + 1 > rounds)
            rounds = r + 1;
    }
    int k = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < d.g; i++)
            if (round[i] == r) {
                tourney_pairing p = {r + 1, {0, 0, 0}};
                for (int s = 0; s < 3; s++)
                    p.player[s] = d.t[i][perms[perm[i]][s]];
                out[k++] = p;
            }
    return k;
}

int tourney_schedule(int n, int seats, bool twice, tourney_pairing *out, int max)
{
    if (n < TOURNEY_MIN_PLAYERS || n > TOURNEY_MAX_PLAYERS || out == NULL)
        return -1;
    if (seats == 2)
        return schedule2(n, twice, out, max);
    if (seats == 3)
        return schedule3(n, twice, out, max);
    return -1;
}

void tourney_balance_of(const tourney_pairing *p, int ngames, int n, int seats,
                        tourney_balance *out)
{
    int games[TOURNEY_MAX_PLAYERS] = {0}, seat[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_SEATS];
    int meet[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    memset(seat, 0, sizeof seat);
    memset(meet, 0, sizeof meet);
    for (int i = 0; i < ngames; i++)
        for (int s = 0; s < seats; s++) {
            games[p[i].player[s]]++;
            seat[p[i].player[s]][s]++;
            for (int t = 0; t < seats; t++)
                if (t != s)
                    meet[p[i].player[s]][p[i].player[t]]++;
        }
    *out = (tourney_balance){1 << 30, -1, 1 << 30, -1, 1 << 30, -1};
    for (int a = 0; a < n; a++) {
        if (games[a] < out->games_min)
            out->games_min = games[a];
        if (games[a] > out->games_max)
            out->games_max = games[a];
        for (int s = 0; s < seats; s++) {
            if (seat[a][s] < out->seat_min)
                out->seat_min = seat[a][s];
            if (seat[a][s] > out->seat_max)
                out->seat_max = seat[a][s];
        }
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            if (meet[a][b] < out->meet_min)
                out->meet_min = meet[a][b];
            if (meet[a][b] > out->meet_max)
                out->meet_max = meet[a][b];
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Points, scores, tie-breaks. */

double tourney_points(const tourney_game *g, int s)
{
    if (!g->finished)
        return 0;
    /* Place values 1, ½ (three players), 0; shared places averaged. */
    static const double v2[] = {1, 0}, v3[] = {1, 0.5, 0};
    const double *v = g->nseats == 3 ? v3 : v2;
    int above = 0, level = 0;
    for (int t = 0; t < g->nseats; t++) {
        if (g->rank[t] < g->rank[s])
            above++;
        else if (g->rank[t] == g->rank[s])
            level++; /* s itself included */
    }
    double sum = 0;
    for (int i = above; i < above + level; i++)
        sum += v[i];
    return sum / level;
}

double tourney_pairwise(const tourney_game *g, int s, int t)
{
    return g->rank[s] < g->rank[t] ? 1 : g->rank[s] == g->rank[t] ? 0.5 : 0;
}

static int games_of(const tourney_game *games, int ngames, int p)
{
    int k = 0;
    for (int i = 0; i < ngames; i++)
        for (int s = 0; s < games[i].nseats; s++)
            k += games[i].player[s] == p;
    return k;
}

bool tourney_struck(const tourney_game *games, int ngames, int p, const bool *withdrawn,
                    const int *played_at)
{
    if (withdrawn == NULL || played_at == NULL || !withdrawn[p])
        return false;
    return 2 * played_at[p] < games_of(games, ngames, p);
}

void tourney_standings(const tourney_game *games, int ngames, int n, const bool *withdrawn,
                       const int *played_at, tourney_standing *out,
                       double cross[][TOURNEY_MAX_PLAYERS], int ncross[][TOURNEY_MAX_PLAYERS])
{
    bool struck[TOURNEY_MAX_PLAYERS];
    for (int p = 0; p < n; p++) {
        struck[p] = tourney_struck(games, ngames, p, withdrawn, played_at);
        out[p] = (tourney_standing){.struck = struck[p], .games = games_of(games, ngames, p)};
        for (int q = 0; cross && q < n; q++) {
            cross[p][q] = 0;
            ncross[p][q] = 0;
        }
    }
    /* Games that count: finished, no struck entrant in them. */
    bool counts[TOURNEY_MAX_GAMES * 2];
    for (int i = 0; i < ngames && i < TOURNEY_MAX_GAMES * 2; i++) {
        const tourney_game *g = &games[i];
        counts[i] = g->finished;
        for (int s = 0; s < g->nseats; s++)
            counts[i] = counts[i] && !struck[g->player[s]];
        if (!counts[i])
            continue;
        for (int s = 0; s < g->nseats; s++) {
            int p = g->player[s];
            out[p].score += tourney_points(g, s);
            out[p].played++;
            bool alone = true;
            for (int t = 0; t < g->nseats; t++) {
                if (t != s && g->rank[t] <= g->rank[s])
                    alone = false;
                if (t != s && cross) {
                    cross[p][g->player[t]] += tourney_pairwise(g, s, t);
                    ncross[p][g->player[t]]++;
                }
            }
            out[p].wins += alone;
        }
    }
    /* Sonneborn-Berger: each pairwise result times the opponent's score. */
    for (int i = 0; i < ngames && i < TOURNEY_MAX_GAMES * 2; i++) {
        if (!counts[i])
            continue;
        const tourney_game *g = &games[i];
        for (int s = 0; s < g->nseats; s++)
            for (int t = 0; t < g->nseats; t++)
                if (t != s)
                    out[g->player[s]].tiebreak +=
                        tourney_pairwise(g, s, t) * out[g->player[t]].score;
    }
    for (int p = 0; p < n; p++) {
        int better = 0;
        for (int q = 0; q < n; q++) {
            /* Struck entrants come last, whatever their numbers. */
            const tourney_standing *a = &out[q], *b = &out[p];
            if (a->struck != b->struck) {
                better += b->struck;
                continue;
            }
            if (a->score > b->score ||
                (a->score == b->score &&
                 (a->tiebreak > b->tiebreak || (a->tiebreak == b->tiebreak && a->wins > b->wins))))
                better++;
        }
        out[p].place = better + 1;
    }
}
