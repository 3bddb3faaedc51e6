/*
 * match.c - games between bots of the search (common/search.h), judged by
 * rules_game, with an Elo estimate.
 *
 *   match --game ID [options] A B           two-player games: A against B
 *   match --game ID [options] --players A,B,C
 *                                           three-player games (yalta, ant3)
 *   match --bench [--game ID] [--movetime MS]
 *                                           search speed from the set-up
 *
 * Players: level:N (the search at level N, 1..8), random, greedy (one ply:
 * a winning move if any, else the best static evaluation after the move
 * when the game has an evaluate hook, else a random capture, else a random
 * move), and paranoid, brs, maxn (level 8 searching three-player games
 * with that method; paranoid:N, brs:N, maxn:N at level N).
 *
 * Options: --games N (default 10; rounded up to whole rounds: 2 games per
 * round with two players, 6 with three), --movetime MS (default 100) or
 * --depth D (no time limit then), --seed S, --openings K (each round starts
 * after the same K random plies; within a round every player takes every
 * seat), -j N (games in parallel, one search context each), --max-plies N
 * (a game still going after N plies is a draw; default 400), --hash MB
 * (per thread, default 16), -v (print each game's moves).
 *
 * Scoring: every game shares one point among its players. The winner takes
 * it; without a winner the players who drew share it (a player who left
 * earlier gets 0). So a two-player game scores 1, 1/2 or 0 and a player
 * of three equal ones averages 1/3. Elo: from A's score s against B,
 * -400 log10(1/s - 1), the 95% bars from the per-game variance of the score
 * (games taken as independent). With three players, each pair is compared
 * game by game (more points: 1, equal: 1/2, fewer: 0) into a pairwise Elo.
 *
 * The last line is one `result key=value ...` line (see print_summary);
 * --bench prints one `bench key=value ...` line per game (and method).
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"
#include "search.h"

enum {
    MAX_OPENING = 64,
    ROUND_MAX = 6, /* games in a round: every seating of the players */
};

typedef enum { P_SEARCH, P_RANDOM, P_GREEDY } player_kind;

typedef struct player {
    char name[32];
    player_kind kind;
    int level;
    search_multi multi;
} player;

typedef struct result {
    bool done, error;
    double points[RULES_MAX_PLAYERS]; /* per player (not per seat) */
    int seat_of[RULES_MAX_PLAYERS];
    size_t plies;
    rules_reason reason;
} result;

typedef struct match {
    const rules_variant *v;
    player players[RULES_MAX_PLAYERS];
    int np;
    int games, round_size;
    int64_t movetime;
    int depth;
    uint64_t seed;
    int openings, threads, max_plies, hash_mb;
    bool verbose;
    int seatings[ROUND_MAX][RULES_MAX_PLAYERS]; /* seat -> player */
    result *results;
    atomic_int next;
    pthread_mutex_t lock; /* stdout */
} match;

static int64_t now_ms(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool parse_player(const char *s, player *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", s);
    p->level = SEARCH_LEVEL_MAX;
    p->multi = SEARCH_MULTI_PARANOID;
    if (strcmp(s, "random") == 0) {
        p->kind = P_RANDOM;
        return true;
    }
    if (strcmp(s, "greedy") == 0) {
        p->kind = P_GREEDY;
        return true;
    }
    p->kind = P_SEARCH;
    const char *colon = strchr(s, ':');
    size_t head = colon ? (size_t)(colon - s) : strlen(s);
    if (colon) {
        char *end;
        long n = strtol(colon + 1, &end, 10);
        if (*end || end == colon + 1 || n < SEARCH_LEVEL_MIN || n > SEARCH_LEVEL_MAX)
            return false;
        p->level = (int)n;
    }
    search_multi ms[] = {SEARCH_MULTI_PARANOID, SEARCH_MULTI_BRS, SEARCH_MULTI_MAXN};
    for (size_t i = 0; i < 3; i++) {
        const char *name = search_multi_name(ms[i]);
        if (strlen(name) == head && strncmp(s, name, head) == 0) {
            p->multi = ms[i];
            return true;
        }
    }
    return head == 5 && strncmp(s, "level", 5) == 0 && colon != NULL;
}

/* ------------------------------------------------------------------------ */
/* Choosing moves. */

static rules_move pick_random(const rules_game *g, uint64_t *rng)
{
    return g->legal[rules_splitmix64(rng) % (uint64_t)g->nlegal];
}

static bool is_capture(const rules_pos *p, rules_move m)
{
    if (p->variant->is_capture)
        return p->variant->is_capture(p, m);
    int cells[RULES_MAX_CELLS];
    return rules_move_captures(p, m, cells) > 0;
}

static rules_move pick_greedy(const rules_game *g, uint64_t *rng)
{
    const rules_variant *v = g->variant;
    int me = g->pos.to_move;
    rules_pos p = g->pos;
    rules_move best = 0, reply[RULES_MAX_MOVES];
    int64_t best_val = INT64_MIN;
    int ties = 0, ncapt = 0;
    rules_move capt = 0;
    for (int i = 0; i < g->nlegal; i++) {
        rules_move m = g->legal[i];
        rules_undo u;
        v->make(&p, m, &u);
        rules_result r = {.winner = -1};
        v->status(&p, v->legal_moves(&p, reply), &r);
        int64_t val = INT64_MIN + 1;
        if (r.over && r.outcome[me] == RULES_OUTCOME_WIN) {
            val = INT64_MAX;
        } else if (v->evaluate && !r.over) {
            int32_t score[RULES_MAX_PLAYERS] = {0};
            v->evaluate(&p, score);
            int32_t other = INT32_MIN;
            for (int k = 0; k < v->nplayers; k++)
                if (k != me && score[k] > other)
                    other = score[k];
            val = (int64_t)score[me] - other;
        }
        v->unmake(&p, m, &u);
        if (val > best_val) {
            best_val = val;
            best = m;
            ties = 1;
        } else if (val == best_val && rules_splitmix64(rng) % (uint64_t)++ties == 0) {
            best = m;
        }
        if (is_capture(&g->pos, m) && rules_splitmix64(rng) % (uint64_t)++ncapt == 0)
            capt = m;
    }
    if (best_val == INT64_MAX || v->evaluate)
        return best;
    return capt ? capt : pick_random(g, rng);
}

static rules_move pick_search(const match *mt, const player *pl, search_ctx *s, const rules_game *g,
                              uint64_t *rng)
{
    search_limits l;
    search_level_limits(&l, pl->level, mt->depth ? 0 : mt->movetime, rules_splitmix64(rng));
    if (mt->depth && (l.depth == 0 || mt->depth < l.depth))
        l.depth = mt->depth;
    l.multi = pl->multi;
    search_report r;
    if (search_run(s, &g->pos, g->hashes, g->nmoves, &l, NULL, NULL, &r) < 0 || r.best == 0)
        return pick_random(g, rng);
    return r.best;
}

/* ------------------------------------------------------------------------ */
/* Games. */

/* The opening of a round: K random plies that leave the game going. */
static int make_opening(const match *mt, int round, rules_move *out)
{
    uint64_t rng = mt->seed ^ (0x5bd1e995u * (uint64_t)(round + 1));
    int k = mt->openings < MAX_OPENING ? mt->openings : MAX_OPENING;
    for (int attempt = 0; attempt < 100; attempt++) {
        rules_game *g = NULL;
        if (rules_game_new(&g, mt->v->id, NULL, NULL, 0) < 0)
            return 0;
        int n = 0;
        while (n < k && !g->result.over) {
            out[n] = pick_random(g, &rng);
            rules_game_play(g, out[n++]);
        }
        bool over = g->result.over;
        rules_game_free(g);
        if (!over)
            return n;
    }
    return 0;
}

static void score_game(const rules_game *g, double *seat_points)
{
    int n = g->variant->nplayers, nwin = 0, ndraw = 0;
    for (int i = 0; i < n; i++) {
        nwin += g->result.outcome[i] == RULES_OUTCOME_WIN;
        ndraw += g->result.outcome[i] == RULES_OUTCOME_DRAW;
    }
    for (int i = 0; i < n; i++) {
        seat_points[i] = 0;
        if (nwin)
            seat_points[i] = g->result.outcome[i] == RULES_OUTCOME_WIN ? 1.0 / nwin : 0;
        else if (ndraw)
            seat_points[i] = g->result.outcome[i] == RULES_OUTCOME_DRAW ? 1.0 / ndraw : 0;
    }
}

static void play_game(match *mt, int idx, search_ctx *s)
{
    result *res = &mt->results[idx];
    int round = idx / mt->round_size;
    const int *seating = mt->seatings[idx % mt->round_size];
    rules_move opening[MAX_OPENING];
    int nopen = make_opening(mt, round, opening);
    uint64_t rng = mt->seed * 0x9e3779b97f4a7c15u + (uint64_t)idx * 0xbf58476d1ce4e5b9u + 1;

    rules_game *g = NULL;
    char why[RULES_WHY_TEXT];
    if (rules_game_new(&g, mt->v->id, NULL, why, sizeof why) < 0) {
        res->error = true;
        return;
    }
    for (int i = 0; i < nopen; i++)
        rules_game_play(g, opening[i]);
    search_clear(s);
    while (!g->result.over) {
        if (mt->max_plies > 0 && g->nmoves >= (size_t)mt->max_plies) {
            rules_game_end_draw(g, RULES_REASON_PLY_LIMIT);
            break;
        }
        const player *pl = &mt->players[seating[g->pos.to_move]];
        rules_move m = pl->kind == P_RANDOM   ? pick_random(g, &rng)
                       : pl->kind == P_GREEDY ? pick_greedy(g, &rng)
                                              : pick_search(mt, pl, s, g, &rng);
        if (rules_game_play(g, m) < 0) {
            pthread_mutex_lock(&mt->lock);
            fprintf(stderr, "match: %s gave an illegal move in game %d\n", pl->name, idx + 1);
            pthread_mutex_unlock(&mt->lock);
            res->error = true;
            break;
        }
    }

    double seat_points[RULES_MAX_PLAYERS];
    score_game(g, seat_points);
    for (int seat = 0; seat < mt->np; seat++) {
        res->points[seating[seat]] = seat_points[seat];
        res->seat_of[seating[seat]] = seat;
    }
    res->plies = g->nmoves;
    res->reason = g->result.reason;
    res->done = true;

    pthread_mutex_lock(&mt->lock);
    printf("game %d/%d:", idx + 1, mt->games);
    for (int seat = 0; seat < mt->np; seat++)
        printf("%s %s (%s) %g", seat ? "," : "", mt->players[seating[seat]].name,
               mt->v->player_names[seat], seat_points[seat]);
    printf("; %s after %zu plies (%d of opening)\n", rules_reason_name(g->result.reason), g->nmoves,
           nopen);
    if (mt->verbose) {
        rules_pos p = g->start;
        printf("  moves:");
        for (size_t i = 0; i < g->nmoves; i++) {
            char text[RULES_MOVE_TEXT];
            if (p.variant->print_move(&p, g->moves[i], text, sizeof text) < 0)
                snprintf(text, sizeof text, "?");
            printf(" %s", text);
            rules_undo u;
            p.variant->make(&p, g->moves[i], &u);
        }
        printf("\n");
    }
    fflush(stdout);
    pthread_mutex_unlock(&mt->lock);
    rules_game_free(g);
}

static void *worker(void *arg)
{
    match *mt = arg;
    search_ctx *s = search_new((size_t)mt->hash_mb << 20);
    if (s == NULL)
        return NULL;
    for (;;) {
        int idx = atomic_fetch_add(&mt->next, 1);
        if (idx >= mt->games)
            break;
        play_game(mt, idx, s);
    }
    search_free(s);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Figures. */

static double elo_of(double s)
{
    return -400.0 * log10(1.0 / s - 1.0);
}

/* Elo of a score from n results x[i] in [0, 1], with its 95% half-width;
 * either is INFINITY when the score is 0 or 1 (or its bar reaches them). */
static void elo(const double *x, int n, double *e, double *err)
{
    double sum = 0, var = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    double s = n ? sum / n : 0.5;
    for (int i = 0; i < n; i++)
        var += (x[i] - s) * (x[i] - s);
    var = n ? var / n : 0;
    double se = sqrt(var / (n ? n : 1));
    double lo = s - 1.96 * se, hi = s + 1.96 * se;
    *e = s <= 0 ? -INFINITY : s >= 1 ? INFINITY : elo_of(s) + 0.0; /* no -0.0 */
    *err = lo <= 0 || hi >= 1 ? INFINITY : (elo_of(hi) - elo_of(lo)) / 2;
}

static void print_summary(const match *mt)
{
    int n = 0, errors = 0;
    double total[RULES_MAX_PLAYERS] = {0};
    double *pair = calloc((size_t)mt->games + 1, sizeof *pair);
    size_t plies = 0;
    for (int i = 0; i < mt->games; i++) {
        const result *r = &mt->results[i];
        if (!r->done || r->error) {
            errors++;
            continue;
        }
        n++;
        plies += r->plies;
        for (int p = 0; p < mt->np; p++)
            total[p] += r->points[p];
    }
    printf("\n%s, %d games, %s, openings of %d plies, seed %" PRIu64 ", average %.0f plies\n",
           mt->v->name, n, "one point per game shared (win 1, draw split, loss 0)", mt->openings,
           mt->seed, n ? (double)plies / n : 0.0);
    for (int p = 0; p < mt->np; p++)
        printf("  %-14s %6.1f points, average %.3f\n", mt->players[p].name, total[p],
               n ? total[p] / n : 0);
    char pairs[512] = "";
    size_t len = 0;
    for (int a = 0; a < mt->np; a++) {
        for (int b = a + 1; b < mt->np; b++) {
            int k = 0;
            for (int i = 0; i < mt->games; i++) {
                const result *r = &mt->results[i];
                if (r->done && !r->error)
                    pair[k++] = r->points[a] > r->points[b]    ? 1.0
                                : r->points[a] == r->points[b] ? 0.5
                                                               : 0.0;
            }
            double e, err;
            elo(pair, k, &e, &err);
            printf("  Elo %s - %s: %+.1f +/- %.1f (95%%)\n", mt->players[a].name,
                   mt->players[b].name, e, err);
            if (mt->np == 2)
                len +=
                    (size_t)snprintf(pairs + len, sizeof pairs - len, " elo=%.1f err=%.1f", e, err);
            else
                len += (size_t)snprintf(pairs + len, sizeof pairs - len,
                                        " elo_%d_%d=%.1f err_%d_%d=%.1f", a, b, e, a, b, err);
        }
    }
    printf("result game=%s games=%d players=", mt->v->id, n);
    for (int p = 0; p < mt->np; p++)
        printf("%s%s", p ? "," : "", mt->players[p].name);
    printf(" avg=");
    for (int p = 0; p < mt->np; p++)
        printf("%s%.3f", p ? "," : "", n ? total[p] / n : 0);
    printf("%s errors=%d\n", pairs, errors);
    free(pair);
}

/* ------------------------------------------------------------------------ */
/* Bench: how deep and how fast the search goes from the set-up. */

static void bench_one(const rules_variant *v, search_multi multi, int64_t ms, int hash_mb)
{
    search_ctx *s = search_new((size_t)hash_mb << 20);
    if (s == NULL)
        return;
    rules_pos p;
    rules_pos_init(&p, v);
    search_limits l;
    search_level_limits(&l, SEARCH_LEVEL_MAX, ms, 1);
    l.multi = multi;
    search_report r;
    int64_t t0 = now_ms();
    search_run(s, &p, NULL, 0, &l, NULL, NULL, &r);
    int64_t took = now_ms() - t0;
    char best[RULES_MOVE_TEXT] = "(none)";
    if (r.best)
        v->print_move(&p, r.best, best, sizeof best);
    printf("bench game=%s method=%s depth=%d seldepth=%d nodes=%" PRIu64 " ms=%" PRId64
           " nps=%" PRIu64 " best=%s eval=%s\n",
           v->id, v->nplayers > 2 ? search_multi_name(multi) : "-", r.depth, r.seldepth, r.nodes,
           took, took > 0 ? r.nodes * 1000 / (uint64_t)took : r.nodes, best,
           v->evaluate ? "yes" : "no");
    fflush(stdout);
    search_free(s);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: match --game ID [--games N] [--movetime MS | --depth D] [--seed S]\n"
               "             [--openings K] [-j N] [--max-plies N] [--hash MB] [-v]\n"
               "             A B | --players A,B[,C]\n"
               "       match --bench [--game ID] [--movetime MS] [--hash MB]\n"
               "players: level:N (1-8), random, greedy, paranoid, brs, maxn (level 8;\n"
               "         paranoid:N, brs:N, maxn:N at level N)\n");
}

static bool arg_int(int argc, char **argv, int *i, long long lo, long long hi, long long *out)
{
    if (*i + 1 >= argc)
        return false;
    char *end;
    long long n = strtoll(argv[++*i], &end, 10);
    if (*end || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

int main(int argc, char **argv)
{
    match mt = {
        .games = 10, .movetime = 100, .seed = 1, .threads = 1, .max_plies = 400, .hash_mb = 16};
    const char *game = NULL, *names[RULES_MAX_PLAYERS + 1];
    char players_arg[256] = "";
    int nnames = 0;
    bool bench = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long n = 0;
        bool ok = true;
        if (strcmp(a, "--game") == 0 && i + 1 < argc)
            game = argv[++i];
        else if (strcmp(a, "--bench") == 0)
            bench = true;
        else if (strcmp(a, "-v") == 0)
            mt.verbose = true;
        else if (strcmp(a, "--players") == 0 && i + 1 < argc)
            snprintf(players_arg, sizeof players_arg, "%s", argv[++i]);
        else if (strcmp(a, "--games") == 0)
            ok = arg_int(argc, argv, &i, 1, 1000000, &n) && (mt.games = (int)n);
        else if (strcmp(a, "--movetime") == 0)
            ok = arg_int(argc, argv, &i, 1, 3600000, &n) && (mt.movetime = n);
        else if (strcmp(a, "--depth") == 0)
            ok = arg_int(argc, argv, &i, 1, SEARCH_MAX_PLY, &n) && (mt.depth = (int)n);
        else if (strcmp(a, "--seed") == 0)
            ok = arg_int(argc, argv, &i, 0, INT64_MAX, &n) && ((mt.seed = (uint64_t)n), true);
        else if (strcmp(a, "--openings") == 0)
            ok = arg_int(argc, argv, &i, 0, MAX_OPENING, &n) && ((mt.openings = (int)n), true);
        else if (strcmp(a, "-j") == 0)
            ok = arg_int(argc, argv, &i, 1, 256, &n) && (mt.threads = (int)n);
        else if (strcmp(a, "--max-plies") == 0)
            ok = arg_int(argc, argv, &i, 0, 100000, &n) && ((mt.max_plies = (int)n), true);
        else if (strcmp(a, "--hash") == 0)
            ok = arg_int(argc, argv, &i, 1, 4096, &n) && (mt.hash_mb = (int)n);
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && nnames < 2)
            names[nnames++] = a;
        else
            ok = false;
        if (!ok) {
            fprintf(stderr, "match: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }

    if (bench) {
        for (const rules_variant *const *v = rules_variants; *v; v++) {
            if (game && strcmp(game, (*v)->id) != 0)
                continue;
            bench_one(*v, SEARCH_MULTI_PARANOID, mt.movetime, mt.hash_mb);
            if ((*v)->nplayers > 2) {
                bench_one(*v, SEARCH_MULTI_BRS, mt.movetime, mt.hash_mb);
                bench_one(*v, SEARCH_MULTI_MAXN, mt.movetime, mt.hash_mb);
            }
        }
        return 0;
    }

    mt.v = game ? rules_find(game) : NULL;
    if (mt.v == NULL) {
        fprintf(stderr, "match: --game must name a game (%s)\n", game ? game : "missing");
        usage(stderr);
        return 2;
    }
    if (players_arg[0]) {
        if (nnames) {
            fprintf(stderr, "match: give players either as A B or as --players\n");
            return 2;
        }
        for (char *tok = strtok(players_arg, ","); tok && nnames <= RULES_MAX_PLAYERS;
             tok = strtok(NULL, ","))
            names[nnames++] = tok;
    }
    if (nnames != mt.v->nplayers) {
        fprintf(stderr, "match: %s needs %d players, %d given\n", mt.v->id, mt.v->nplayers, nnames);
        return 2;
    }
    mt.np = nnames;
    for (int p = 0; p < nnames; p++) {
        if (!parse_player(names[p], &mt.players[p])) {
            fprintf(stderr, "match: unknown player '%s'\n", names[p]);
            usage(stderr);
            return 2;
        }
    }

    /* Rounds: every seating of the players, the same opening. */
    if (mt.np == 2) {
        mt.round_size = 2;
        int s[2][2] = {{0, 1}, {1, 0}};
        for (int r = 0; r < 2; r++)
            memcpy(mt.seatings[r], s[r], sizeof s[r]);
    } else {
        mt.round_size = 6;
        int s[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int r = 0; r < 6; r++)
            memcpy(mt.seatings[r], s[r], sizeof s[r]);
    }
    mt.games = (mt.games + mt.round_size - 1) / mt.round_size * mt.round_size;
    mt.results = calloc((size_t)mt.games, sizeof *mt.results);
    if (mt.results == NULL)
        return 1;
    atomic_init(&mt.next, 0);
    pthread_mutex_init(&mt.lock, NULL);

    printf("%s: %d games, ", mt.v->name, mt.games);
    if (mt.depth)
        printf("depth %d", mt.depth);
    else
        printf("%" PRId64 " ms a move", mt.movetime);
    printf(", %d threads\n", mt.threads);
    fflush(stdout);

    int nthreads = mt.threads < mt.games ? mt.threads : mt.games;
    pthread_t *t = calloc((size_t)nthreads, sizeof *t);
    if (t == NULL)
        return 1;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, &mt);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    free(t);

    print_summary(&mt);
    int status = 0;
    for (int i = 0; i < mt.games; i++)
        if (mt.results[i].error || !mt.results[i].done)
            status = 1;
    free(mt.results);
    pthread_mutex_destroy(&mt.lock);
    return status;
}
