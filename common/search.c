/*
 * search.c - iterative deepening alpha-beta over rules.h (see search.h).
 *
 * Values inside the search are from the root player's point of view
 * ("me"): a node where I move maximises, any other minimises (two players,
 * and paranoid three-player search). Best-reply search merges the two
 * opponents' turns into one minimising layer where only the most
 * dangerous reply is kept. Max^n carries one value per player and each
 * player maximises its own. The table stores values from the view of the
 * side to move at the node, so that two-player entries serve both sides;
 * three-player keys are salted with the root player and the method, whose
 * values they depend on.
 */
#include "search.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    BOUND_EXACT = 0,
    BOUND_LOWER = 1, /* value >= stored */
    BOUND_UPPER = 2, /* value <= stored */
    HISTORY_SLOTS = 4096,
    HISTORY_MAX = 1 << 20,
    /* Earlier positions of the game kept for repetition; older ones are
     * rarely repeated and scanning them costs every node. */
    KEEP_HISTORY = 128,
    /* Ordering keys: the table move, then captures, then killers, then
     * the history heuristic (below HISTORY_MAX). */
    ORDER_TT = 1 << 30,
    ORDER_CAPTURE = 1 << 28,
    ORDER_KILLER = 1 << 27,
    CHECK_EVERY = 1023,
    /* Reverse futility: a node this far above beta per ply of depth left
     * (at most FUTILITY_DEPTH) is taken to hold. */
    FUTILITY_MARGIN = 120,
    FUTILITY_DEPTH = 3,
    NULL_MOVE_DEPTH = 3,
    /* A draw is worth a little less than nothing to the searcher, so that
     * it plays on for a win in an even position rather than repeat (and a
     * side ahead never settles for a repetition). */
    CONTEMPT = 15,
};

typedef struct tt_entry {
    uint64_t key;
    rules_move move;
    int32_t value;
    int16_t depth;
    uint8_t bound;
    uint8_t generation;
} tt_entry;

typedef struct utility {
    int32_t v[RULES_MAX_PLAYERS];
} utility;

struct search_ctx {
    tt_entry *table;
    size_t mask;
    uint8_t generation;
    atomic_bool stop;

    /* Set by search_run for one search. */
    const rules_variant *v;
    int me, nplayers;
    unsigned left; /* the players who left at the root: none comes back */
    search_multi multi;
    bool prune, null_move;
    uint64_t salt;
    uint64_t nodes, node_limit;
    int64_t start, deadline;
    int64_t (*now)(void);
    bool aborted;
    int seldepth;

    /* Hashes of the game's earlier positions, then of the search path. */
    uint64_t path[KEEP_HISTORY + SEARCH_MAX_PLY + 2];
    int npath_base;

    rules_move killers[SEARCH_MAX_PLY][2];
    bool null_at[SEARCH_MAX_PLY]; /* the move from ply k to k + 1 was a pass */
    int32_t history[RULES_MAX_PLAYERS][HISTORY_SLOTS];
    rules_move pv[SEARCH_MAX_PLY][SEARCH_MAX_PLY];
    int pvlen[SEARCH_MAX_PLY];
    rules_move moves[SEARCH_MAX_PLY][RULES_MAX_MOVES];
    int32_t keys[SEARCH_MAX_PLY][RULES_MAX_MOVES];
    /* Best-reply search: the opponents' moves of one layer, with who
     * plays each. */
    uint8_t movers[SEARCH_MAX_PLY][RULES_MAX_MOVES];
};

const char *search_multi_name(search_multi m)
{
    switch (m) {
    case SEARCH_MULTI_PARANOID:
        return "paranoid";
    case SEARCH_MULTI_BRS:
        return "brs";
    case SEARCH_MULTI_MAXN:
        return "maxn";
    }
    return "?";
}

static int64_t default_now_ms(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

search_ctx *search_new(size_t table_bytes)
{
    search_ctx *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    size_t n = 1;
    while (n * 2 * sizeof(tt_entry) <= table_bytes)
        n *= 2;
    s->table = calloc(n, sizeof(tt_entry));
    if (s->table == NULL) {
        free(s);
        return NULL;
    }
    s->mask = n - 1;
    atomic_init(&s->stop, false);
    return s;
}

void search_free(search_ctx *s)
{
    if (s == NULL)
        return;
    free(s->table);
    free(s);
}

void search_clear(search_ctx *s)
{
    memset(s->table, 0, (s->mask + 1) * sizeof(tt_entry));
    memset(s->history, 0, sizeof s->history);
    memset(s->killers, 0, sizeof s->killers);
    s->generation = 0;
}

void search_stop(search_ctx *s)
{
    atomic_store(&s->stop, true);
}

/* ------------------------------------------------------------------------ */
/* Levels. */

/* Level 1..7: a depth cap, a node cap and the noise (centipawns) added to
 * each root move's value before the best is chosen. Level 8 has none. */
static const struct {
    int depth;
    uint64_t nodes;
    int noise;
} levels[SEARCH_LEVEL_MAX] = {
    {1, 2000, 500},  {1, 2000, 150},  {2, 10000, 100}, {3, 40000, 60},
    {4, 150000, 30}, {5, 500000, 15}, {6, 2000000, 5}, {0, 0, 0},
};

void search_level_limits(search_limits *l, int level, int64_t ms, uint64_t seed)
{
    if (level < SEARCH_LEVEL_MIN || level > SEARCH_LEVEL_MAX)
        level = SEARCH_LEVEL_MAX;
    memset(l, 0, sizeof *l);
    l->level = level;
    l->depth = levels[level - 1].depth;
    l->nodes = levels[level - 1].nodes;
    l->ms = ms;
    l->seed = seed;
}

int64_t search_time_for_move(int64_t left, int64_t inc, int moves_played)
{
    if (left <= 0)
        return 10;
    /* Expect about 30 more moves early on, never fewer than 15; keep a
     * reserve so that the increment alone cannot run the clock out. */
    int expect = moves_played < 40 ? 30 - moves_played / 4 : 15;
    if (expect < 15)
        expect = 15;
    int64_t t = left / expect + inc * 3 / 4;
    int64_t cap = left / 4;
    if (t > cap)
        t = cap;
    if (t < 10)
        t = 10;
    return t;
}

/* ------------------------------------------------------------------------ */
/* Table. */

static uint64_t node_key(const search_ctx *s, const rules_pos *p)
{
    return p->hash ^ s->salt;
}

static tt_entry *tt_probe(search_ctx *s, uint64_t key)
{
    tt_entry *e = &s->table[key & s->mask];
    return e->key == key ? e : NULL;
}

/* Forced results are stored relative to the node, read back relative to
 * the root. */
static int32_t to_table(int32_t v, int ply)
{
    if (v >= SEARCH_WIN_BOUND)
        return v + ply;
    if (v <= -SEARCH_WIN_BOUND)
        return v - ply;
    return v;
}

static int32_t from_table(int32_t v, int ply)
{
    if (v >= SEARCH_WIN_BOUND)
        return v - ply;
    if (v <= -SEARCH_WIN_BOUND)
        return v + ply;
    return v;
}

static void tt_store(search_ctx *s, uint64_t key, int depth, int32_t value, int bound,
                     rules_move move)
{
    tt_entry *e = &s->table[key & s->mask];
    /* Replace an entry of an older search, or a shallower one. */
    if (e->key == key || e->generation != s->generation || depth >= e->depth) {
        if (move == 0 && e->key == key)
            move = e->move;
        e->key = key;
        e->move = move;
        e->value = value;
        e->depth = (int16_t)depth;
        e->bound = (uint8_t)bound;
        e->generation = s->generation;
    }
}

/* ------------------------------------------------------------------------ */
/* Values. */

static bool out_of_budget(search_ctx *s)
{
    if (s->aborted)
        return true;
    if ((s->nodes & CHECK_EVERY) != 0)
        return false;
    if (atomic_load_explicit(&s->stop, memory_order_relaxed) ||
        (s->node_limit && s->nodes >= s->node_limit) || (s->deadline && s->now() >= s->deadline))
        s->aborted = true;
    return s->aborted;
}

/* The value of each player in a position that is not over: how well it
 * stands against the others (its score minus their mean). Players who
 * left score INT32_MIN in the hook and are left out. */
static utility evaluate(const search_ctx *s, const rules_pos *p, int nlegal)
{
    int32_t sc[RULES_MAX_PLAYERS] = {0};
    if (s->v->evaluate != NULL)
        s->v->evaluate(p, sc);
    else
        sc[p->to_move] = 2 * nlegal;
    utility u = {{0}};
    int64_t sum = 0;
    int in = 0;
    for (int i = 0; i < s->nplayers; i++)
        if (sc[i] != INT32_MIN) {
            sum += sc[i];
            in++;
        }
    for (int i = 0; i < s->nplayers; i++) {
        if (sc[i] == INT32_MIN) {
            u.v[i] = -SEARCH_WIN_BOUND + 1;
            continue;
        }
        int64_t others = in > 1 ? (sum - sc[i]) / (in - 1) : 0;
        int64_t d = (int64_t)sc[i] - others;
        if (d > SEARCH_WIN_BOUND - 1)
            d = SEARCH_WIN_BOUND - 1;
        if (d < -SEARCH_WIN_BOUND + 1)
            d = -SEARCH_WIN_BOUND + 1;
        u.v[i] = (int32_t)d;
    }
    return u;
}

/* The value of each player in a finished position, `ply` plies from the
 * root: sooner wins and later losses are better. */
static utility terminal(const search_ctx *s, const rules_result *r, int ply)
{
    utility u = {{0}};
    for (int i = 0; i < s->nplayers; i++) {
        int o = r->outcome[i];
        if (r->winner >= 0)
            o = i == r->winner ? RULES_OUTCOME_WIN : RULES_OUTCOME_LOSS;
        u.v[i] = o == RULES_OUTCOME_WIN    ? SEARCH_WIN - ply
                 : o == RULES_OUTCOME_LOSS ? -(SEARCH_WIN - ply)
                 : i == s->me              ? -CONTEMPT
                                           : 0;
    }
    return u;
}

static bool repeated(const search_ctx *s, int ply, uint64_t hash)
{
    for (int i = s->npath_base + ply - 2; i >= 0; i--)
        if (s->path[i] == hash)
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Move ordering. */

static unsigned history_slot(rules_move m)
{
    return (unsigned)((m * 0x9E3779B1u) >> 20) & (HISTORY_SLOTS - 1);
}

static bool is_capture(const search_ctx *s, const rules_pos *p, rules_move m)
{
    return s->v->is_capture != NULL && s->v->is_capture(p, m);
}

static void order_keys(search_ctx *s, const rules_pos *p, int ply, int n, rules_move tt_move)
{
    rules_move *mv = s->moves[ply];
    int32_t *key = s->keys[ply];
    int who = p->to_move;
    for (int i = 0; i < n; i++) {
        rules_move m = mv[i];
        if (m == tt_move)
            key[i] = ORDER_TT;
        else if (is_capture(s, p, m))
            key[i] = ORDER_CAPTURE;
        else if (m == s->killers[ply][0])
            key[i] = ORDER_KILLER + 1;
        else if (m == s->killers[ply][1])
            key[i] = ORDER_KILLER;
        else
            key[i] = s->history[who][history_slot(m)];
    }
}

/* Bring the best remaining move to position i. */
static void pick(search_ctx *s, int ply, int i, int n)
{
    rules_move *mv = s->moves[ply];
    int32_t *key = s->keys[ply];
    uint8_t *who = s->movers[ply];
    int best = i;
    for (int j = i + 1; j < n; j++)
        if (key[j] > key[best])
            best = j;
    if (best != i) {
        rules_move tm = mv[i];
        mv[i] = mv[best];
        mv[best] = tm;
        int32_t tk = key[i];
        key[i] = key[best];
        key[best] = tk;
        uint8_t tw = who[i];
        who[i] = who[best];
        who[best] = tw;
    }
}

static void reward_quiet(search_ctx *s, int who, int ply, rules_move m, int depth)
{
    if (s->killers[ply][0] != m) {
        s->killers[ply][1] = s->killers[ply][0];
        s->killers[ply][0] = m;
    }
    int32_t *h = &s->history[who][history_slot(m)];
    *h += depth * depth;
    if (*h >= HISTORY_MAX)
        for (int i = 0; i < HISTORY_SLOTS; i++)
            s->history[who][i] /= 2;
}

static void pv_set(search_ctx *s, int ply, rules_move m)
{
    s->pv[ply][0] = m;
    int n = ply + 1 < SEARCH_MAX_PLY ? s->pvlen[ply + 1] : 0;
    if (n > SEARCH_MAX_PLY - 1)
        n = SEARCH_MAX_PLY - 1;
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)n * sizeof(rules_move));
    s->pvlen[ply] = n + 1;
}

/* A move's value v at a node where the side to move maximises my value or
 * minimises it: true if v is the new best; then the window narrows and the
 * line is recorded when v falls inside it. */
static bool take_value(search_ctx *s, int ply, rules_move m, int32_t v, bool maxing, int32_t *best,
                       int32_t *alpha, int32_t *beta)
{
    if (maxing ? v <= *best : v >= *best)
        return false;
    *best = v;
    if (maxing ? v > *alpha : v < *beta) {
        if (maxing)
            *alpha = v;
        else
            *beta = v;
        pv_set(s, ply, m);
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Alpha-beta for two players and paranoid/best-reply three-player search:
 * values are mine (the root player's). */

static int32_t alphabeta(search_ctx *s, rules_pos *p, int depth, int ply, int32_t alpha,
                         int32_t beta);

static int32_t quiesce(search_ctx *s, rules_pos *p, int ply, int32_t alpha, int32_t beta, int n)
{
    s->pvlen[ply] = 0;
    if (ply > s->seldepth)
        s->seldepth = ply;
    bool maxing = p->to_move == s->me;
    int32_t stand = evaluate(s, p, n).v[s->me];
    if (ply >= SEARCH_MAX_PLY - 1 || s->v->is_capture == NULL)
        return stand;
    if (maxing) {
        if (stand >= beta)
            return stand;
        if (stand > alpha)
            alpha = stand;
    } else {
        if (stand <= alpha)
            return stand;
        if (stand < beta)
            beta = stand;
    }
    int32_t best = stand;
    rules_move *mv = s->moves[ply];
    int ncap = 0;
    for (int i = 0; i < n; i++)
        if (s->v->is_capture(p, mv[i]))
            mv[ncap++] = mv[i];
    for (int i = 0; i < ncap; i++) {
        rules_undo u;
        rules_move m = mv[i];
        s->v->make(p, m, &u);
        s->path[s->npath_base + ply] = p->hash;
        int32_t v = alphabeta(s, p, 0, ply + 1, alpha, beta);
        s->v->unmake(p, m, &u);
        if (s->aborted)
            return best;
        if (take_value(s, ply, m, v, maxing, &best, &alpha, &beta) && alpha >= beta)
            break;
    }
    return best;
}

/* Best-reply search: every opponent's every move, each played as if that
 * opponent were to move now, then back to me. Returns the lowest value. */
static int32_t best_reply(search_ctx *s, rules_pos *p, int depth, int ply, int32_t alpha,
                          int32_t beta, rules_move tt_move)
{
    int mover0 = p->to_move;
    int n = 0;
    rules_move *mv = s->moves[ply];
    uint8_t *who = s->movers[ply];
    for (int k = 0; k < s->nplayers; k++) {
        int j = (mover0 + k) % s->nplayers;
        /* A player who left has no move, and may not be given one. */
        if (j == s->me || (s->left >> j & 1))
            continue;
        if (j != mover0)
            s->v->set_to_move(p, j);
        rules_move tmp[RULES_MAX_MOVES];
        int nj = s->v->legal_moves(p, tmp);
        if (j != mover0)
            s->v->set_to_move(p, mover0);
        for (int i = 0; i < nj && n < RULES_MAX_MOVES; i++) {
            mv[n] = tmp[i];
            who[n] = (uint8_t)j;
            n++;
        }
    }
    if (n == 0)
        return evaluate(s, p, 0).v[s->me];
    int32_t *key = s->keys[ply];
    for (int i = 0; i < n; i++) {
        rules_move m = mv[i];
        if (who[i] == mover0 && m == tt_move)
            key[i] = ORDER_TT;
        else
            key[i] = s->history[who[i]][history_slot(m)];
    }
    int32_t best = SEARCH_INF;
    for (int i = 0; i < n; i++) {
        pick(s, ply, i, n);
        rules_move m = mv[i];
        int j = who[i];
        rules_undo u;
        if (j != mover0)
            s->v->set_to_move(p, j);
        s->v->make(p, m, &u);
        int after = p->to_move;
        if (after != s->me)
            s->v->set_to_move(p, s->me);
        s->path[s->npath_base + ply] = p->hash;
        int32_t v = alphabeta(s, p, depth - 1, ply + 1, alpha, beta);
        if (after != s->me)
            s->v->set_to_move(p, after);
        s->v->unmake(p, m, &u);
        if (j != mover0)
            s->v->set_to_move(p, mover0);
        if (s->aborted)
            return best == SEARCH_INF ? 0 : best;
        if (v < best) {
            best = v;
            if (v < beta) {
                beta = v;
                pv_set(s, ply, m);
            }
            if (alpha >= beta) {
                s->history[j][history_slot(m)] += depth * depth;
                break;
            }
        }
    }
    return best;
}

static int32_t alphabeta(search_ctx *s, rules_pos *p, int depth, int ply, int32_t alpha,
                         int32_t beta)
{
    s->nodes++;
    s->pvlen[ply] = 0;
    if (out_of_budget(s))
        return 0;
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (ply > 0 && repeated(s, ply, p->hash))
        return -CONTEMPT;

    rules_move *mv = s->moves[ply];
    int n = s->v->legal_moves(p, mv);
    rules_result r = {0};
    r.winner = -1;
    s->v->status(p, n, &r);
    if (r.over)
        return terminal(s, &r, ply).v[s->me];
    if (depth <= 0 || ply >= SEARCH_MAX_PLY - 1)
        return quiesce(s, p, ply, alpha, beta, n);

    bool maxing = p->to_move == s->me;
    bool two = s->nplayers == 2;
    /* The side to move's bounds, for the table (stored from its view). */
    uint64_t key = node_key(s, p);
    tt_entry *e = tt_probe(s, key);
    rules_move tt_move = 0;
    if (e != NULL) {
        tt_move = e->move;
        if (e->depth >= depth && ply > 0 && beta - alpha == 1) {
            int32_t tv = from_table(e->value, ply);
            int32_t v = maxing ? tv : -tv;
            int b = e->bound;
            if (!maxing && b != BOUND_EXACT)
                b = b == BOUND_LOWER ? BOUND_UPPER : BOUND_LOWER;
            if (b == BOUND_EXACT || (b == BOUND_LOWER && v >= beta) ||
                (b == BOUND_UPPER && v <= alpha))
                return v;
        }
    }

    /* A check is searched one ply deeper (so mates and escapes are seen),
     * and never pruned. */
    bool check = s->v->in_check != NULL && s->v->in_check(p);
    if (check && ply < SEARCH_MAX_PLY / 2)
        depth++;
    if (s->prune && two && !check && ply > 0 && beta - alpha == 1 && alpha > -SEARCH_WIN_BOUND &&
        beta < SEARCH_WIN_BOUND) {
        int32_t stand = evaluate(s, p, n).v[s->me];
        /* Reverse futility: far enough above the window near the leaves,
         * the side to move keeps it whatever the other does. */
        if (depth <= FUTILITY_DEPTH) {
            int32_t margin = FUTILITY_MARGIN * depth;
            if (maxing && stand - margin >= beta)
                return stand - margin;
            if (!maxing && stand + margin <= alpha)
                return stand + margin;
        }
        /* Null move: if passing still holds the window at a reduced
         * depth, a real move will too (not twice in a row). */
        if (s->null_move && depth >= NULL_MOVE_DEPTH && s->v->set_to_move != NULL &&
            !s->null_at[ply - 1] && (maxing ? stand >= beta : stand <= alpha)) {
            int reduce = 2 + depth / 4;
            int mover = p->to_move;
            s->v->set_to_move(p, 1 - mover);
            s->path[s->npath_base + ply] = p->hash;
            s->null_at[ply] = true;
            int32_t v = alphabeta(s, p, depth - 1 - reduce, ply + 1, alpha, beta);
            s->null_at[ply] = false;
            s->v->set_to_move(p, mover);
            if (s->aborted)
                return 0;
            if (maxing && v >= beta && v < SEARCH_WIN_BOUND)
                return v;
            if (!maxing && v <= alpha && v > -SEARCH_WIN_BOUND)
                return v;
        }
    }

    int32_t alpha0 = alpha, beta0 = beta;
    if (!maxing && !two && s->multi == SEARCH_MULTI_BRS && s->v->set_to_move != NULL) {
        int32_t v = best_reply(s, p, depth, ply, alpha, beta, tt_move);
        if (!s->aborted) {
            int b = v <= alpha0 ? BOUND_UPPER : v >= beta0 ? BOUND_LOWER : BOUND_EXACT;
            /* Stored from the mover's view: the opposite of mine. */
            b = b == BOUND_EXACT ? b : b == BOUND_LOWER ? BOUND_UPPER : BOUND_LOWER;
            tt_store(s, key, depth, to_table(-v, ply), b, 0);
        }
        return v;
    }

    order_keys(s, p, ply, n, tt_move);
    int who = p->to_move;
    int32_t best = maxing ? -SEARCH_INF : SEARCH_INF;
    rules_move best_move = 0;
    for (int i = 0; i < n; i++) {
        pick(s, ply, i, n);
        rules_move m = mv[i];
        bool quiet = s->keys[ply][i] < ORDER_KILLER;
        rules_undo u;
        s->v->make(p, m, &u);
        s->path[s->npath_base + ply] = p->hash;
        int32_t v;
        if (i == 0) {
            v = alphabeta(s, p, depth - 1, ply + 1, alpha, beta);
        } else {
            /* Late quiet moves are searched shallower first, and every
             * move after the first with a null window; a move that beats
             * the window is searched again in full. */
            int reduce = quiet && depth >= 3 && i >= 3 ? 1 + (i >= 12 && depth >= 5) : 0;
            int32_t lo = maxing ? alpha : beta - 1, hi = maxing ? alpha + 1 : beta;
            v = alphabeta(s, p, depth - 1 - reduce, ply + 1, lo, hi);
            bool better = maxing ? v > alpha : v < beta;
            if (better && reduce)
                v = alphabeta(s, p, depth - 1, ply + 1, lo, hi);
            better = maxing ? v > alpha : v < beta;
            if (better && alpha + 1 < beta)
                v = alphabeta(s, p, depth - 1, ply + 1, alpha, beta);
        }
        s->v->unmake(p, m, &u);
        if (s->aborted)
            return best == -SEARCH_INF || best == SEARCH_INF ? 0 : best;
        if (take_value(s, ply, m, v, maxing, &best, &alpha, &beta)) {
            best_move = m;
            if (alpha >= beta) {
                if (quiet)
                    reward_quiet(s, who, ply, m, depth);
                break;
            }
        }
    }
    int b = best <= alpha0 ? BOUND_UPPER : best >= beta0 ? BOUND_LOWER : BOUND_EXACT;
    int32_t stored = maxing ? best : -best;
    if (!maxing && b != BOUND_EXACT)
        b = b == BOUND_LOWER ? BOUND_UPPER : BOUND_LOWER;
    tt_store(s, key, depth, to_table(stored, ply), b, best_move);
    return best;
}

/* ------------------------------------------------------------------------ */
/* Max^n: each player maximises its own value. The table keeps only the
 * best move, for ordering. */

static utility maxn(search_ctx *s, rules_pos *p, int depth, int ply)
{
    s->nodes++;
    s->pvlen[ply] = 0;
    utility none = {{0}};
    if (out_of_budget(s))
        return none;
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (ply > 0 && repeated(s, ply, p->hash)) {
        none.v[s->me] = -CONTEMPT;
        return none;
    }
    rules_move *mv = s->moves[ply];
    int n = s->v->legal_moves(p, mv);
    rules_result r = {0};
    r.winner = -1;
    s->v->status(p, n, &r);
    if (r.over)
        return terminal(s, &r, ply);
    if (depth <= 0 || ply >= SEARCH_MAX_PLY - 1)
        return evaluate(s, p, n);
    uint64_t key = node_key(s, p);
    tt_entry *e = tt_probe(s, key);
    order_keys(s, p, ply, n, e != NULL ? e->move : 0);
    int who = p->to_move;
    utility best = {{0}};
    best.v[who] = -SEARCH_INF;
    rules_move best_move = 0;
    for (int i = 0; i < n; i++) {
        pick(s, ply, i, n);
        rules_move m = mv[i];
        rules_undo u;
        s->v->make(p, m, &u);
        s->path[s->npath_base + ply] = p->hash;
        utility v = maxn(s, p, depth - 1, ply + 1);
        s->v->unmake(p, m, &u);
        if (s->aborted)
            return best_move ? best : none;
        if (v.v[who] > best.v[who]) {
            best = v;
            best_move = m;
            pv_set(s, ply, m);
            /* Nobody can do better than an immediate win. */
            if (v.v[who] >= SEARCH_WIN_BOUND)
                break;
        }
    }
    if (best_move && s->keys[ply][0] < ORDER_KILLER)
        reward_quiet(s, who, ply, best_move, depth);
    tt_store(s, key, depth, 0, BOUND_EXACT, best_move);
    return best;
}

/* ------------------------------------------------------------------------ */
/* The root. */

static uint64_t next_random(uint64_t *state)
{
    return rules_splitmix64(state);
}

/* One iteration at the root: every move searched, in order; returns the
 * best value and leaves the best move first. With noise, a move is a
 * candidate when its value is within `noise` of the best found so far: a
 * null window at that bar sorts the others out, a candidate gets its exact
 * value, and the noise picks among the candidates. */
static int32_t root_iteration(search_ctx *s, rules_pos *p, int depth, int n, int noise,
                              uint64_t *rng, rules_move *best_move, bool *complete)
{
    rules_move *mv = s->moves[0];
    int32_t alpha = -SEARCH_INF, beta = SEARCH_INF;
    int32_t best = -SEARCH_INF, best_noisy = -SEARCH_INF, best_exact = -SEARCH_INF;
    int best_i = -1;
    *complete = false;
    for (int i = 0; i < n; i++) {
        rules_move m = mv[i];
        rules_undo u;
        s->v->make(p, m, &u);
        s->path[s->npath_base] = p->hash;
        int32_t v;
        bool candidate = true;
        if (s->nplayers == 3 && s->multi == SEARCH_MULTI_MAXN) {
            v = maxn(s, p, depth - 1, 1).v[s->me];
        } else if (i == 0) {
            v = alphabeta(s, p, depth - 1, 1, alpha, beta);
        } else if (noise > 0) {
            int32_t bar = best_exact - noise;
            v = alphabeta(s, p, depth - 1, 1, bar, bar + 1);
            candidate = v > bar;
            if (candidate && !s->aborted)
                v = alphabeta(s, p, depth - 1, 1, bar, beta);
        } else {
            v = alphabeta(s, p, depth - 1, 1, alpha, alpha + 1);
            if (v > alpha && !s->aborted)
                v = alphabeta(s, p, depth - 1, 1, alpha, beta);
        }
        s->v->unmake(p, m, &u);
        if (s->aborted)
            break;
        if (!candidate)
            continue;
        if (v > best_exact)
            best_exact = v;
        int32_t noisy = v;
        if (noise > 0 && v > -SEARCH_WIN_BOUND && v < SEARCH_WIN_BOUND)
            noisy += (int32_t)(next_random(rng) % (uint64_t)(noise + 1));
        if (noisy > best_noisy || best_i < 0) {
            best_noisy = noisy;
            best = v;
            best_i = i;
            pv_set(s, 0, m);
            if (v > alpha)
                alpha = v;
        }
    }
    if (best_i < 0)
        return 0;
    /* The best move first for the next iteration, the rest in order. */
    rules_move bm = mv[best_i];
    memmove(&mv[1], &mv[0], (size_t)best_i * sizeof(rules_move));
    mv[0] = bm;
    *best_move = bm;
    *complete = !s->aborted;
    return best;
}

int search_run(search_ctx *s, const rules_pos *root, const uint64_t *history, size_t nhistory,
               const search_limits *limits, void (*report)(void *arg, const search_report *r),
               void *arg, search_report *out)
{
    memset(out, 0, sizeof *out);
    atomic_store(&s->stop, false);
    s->v = root->variant;
    s->me = root->to_move;
    s->nplayers = s->v->nplayers;
    s->left = s->v->players_left != NULL ? s->v->players_left(root) : 0;
    s->multi = limits->multi;
    s->prune = !(limits->flags & SEARCH_FLAG_NO_PRUNING);
    s->null_move = s->prune && !(limits->flags & SEARCH_FLAG_NO_NULL_MOVE);
    memset(s->null_at, 0, sizeof s->null_at);
    s->salt = 0;
    if (s->nplayers > 2) {
        uint64_t st = 0x5EA5C11u + (uint64_t)s->me * 7 + (uint64_t)s->multi;
        s->salt = rules_splitmix64(&st);
    }
    s->now = limits->now_ms != NULL ? limits->now_ms : default_now_ms;
    s->start = s->now();
    s->deadline = limits->ms > 0 ? s->start + limits->ms : 0;
    s->nodes = 0;
    s->node_limit = limits->nodes;
    s->aborted = false;
    s->seldepth = 0;
    s->generation++;
    memset(s->killers, 0, sizeof s->killers);
    for (int w = 0; w < RULES_MAX_PLAYERS; w++)
        for (int i = 0; i < HISTORY_SLOTS; i++)
            s->history[w][i] /= 8;

    size_t keep = nhistory < KEEP_HISTORY ? nhistory : KEEP_HISTORY;
    if (keep)
        memcpy(s->path, history + (nhistory - keep), keep * sizeof(uint64_t));
    s->path[keep] = root->hash;
    s->npath_base = (int)keep + 1;

    /* A mover who left has nothing to search (a caller's mistake, never a
     * reason to go on with a position no game reaches). */
    if (s->left >> s->me & 1)
        return RULES_EGAME_OVER;
    rules_pos p = *root;
    int n = s->v->legal_moves(&p, s->moves[0]);
    rules_result r = {0};
    r.winner = -1;
    s->v->status(&p, n, &r);
    if (r.over || n == 0)
        return RULES_EGAME_OVER;

    int level = limits->level >= SEARCH_LEVEL_MIN && limits->level <= SEARCH_LEVEL_MAX
                    ? limits->level
                    : SEARCH_LEVEL_MAX;
    int noise = levels[level - 1].noise;
    uint64_t rng = limits->seed ^ 0xC0FFEEull;
    int max_depth = limits->depth > 0 && limits->depth < SEARCH_MAX_PLY - 1 ? limits->depth
                                                                            : SEARCH_MAX_PLY - 2;
    /* Table move first at the root too. */
    tt_entry *e = tt_probe(s, node_key(s, &p));
    if (e != NULL && e->move != 0)
        for (int i = 1; i < n; i++)
            if (s->moves[0][i] == e->move) {
                s->moves[0][i] = s->moves[0][0];
                s->moves[0][0] = e->move;
                break;
            }

    out->best = s->moves[0][0];
    out->pv[0] = out->best;
    out->npv = 1;
    for (int depth = 1; depth <= max_depth; depth++) {
        rules_move bm = 0;
        bool complete;
        int32_t v = root_iteration(s, &p, depth, n, noise, &rng, &bm, &complete);
        if (bm != 0 && (complete || depth == 1 || bm == out->best)) {
            out->best = bm;
            out->score = v;
            out->depth = complete ? depth : depth - 1;
            out->npv = s->pvlen[0];
            memcpy(out->pv, s->pv[0], (size_t)s->pvlen[0] * sizeof(rules_move));
        } else if (bm != 0 && !complete) {
            /* An unfinished iteration whose first moves already beat the
             * previous best: trust it (the previous best was searched
             * first and refuted). */
            out->best = bm;
            out->npv = s->pvlen[0];
            memcpy(out->pv, s->pv[0], (size_t)s->pvlen[0] * sizeof(rules_move));
        }
        out->seldepth = s->seldepth;
        out->nodes = s->nodes;
        out->ms = s->now() - s->start;
        if (!complete)
            break;
        if (report != NULL)
            report(arg, out);
        if (atomic_load(&s->stop))
            break;
        if (n == 1 && limits->ms > 0)
            break;
        if (v >= SEARCH_WIN_BOUND || v <= -SEARCH_WIN_BOUND)
            if (depth >= SEARCH_WIN - (v < 0 ? -v : v) + 1)
                break;
        /* The next iteration would not finish in the time left. */
        if (limits->ms > 0 && out->ms * 2 > limits->ms)
            break;
    }
    if (out->npv == 0) {
        out->pv[0] = out->best;
        out->npv = 1;
    }
    return 0;
}
