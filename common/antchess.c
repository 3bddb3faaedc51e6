/*
 * antchess.c - Ant Chess rules: geometry tables, move generation (pseudo
 * moves, then legality by make / queen attacked? / unmake), make/unmake,
 * move and position text, game end. See antchess.h for the contracts and
 * the choices made where the rules text leaves room.
 */
#include "antchess.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

enum {
    NC = ANTCHESS_NCELLS,
    CENTRE = 63, /* g7 */
    MAXRAY = 12,
};

/* Piece kinds; a board byte is owner * 8 + kind, 0 empty. */
enum { K_Q = 1, K_A, K_S, K_B, K_L, K_G, K_W };
static const char kind_letter[] = "?QASBLGW";
static const char owner_letter[3] = {'b', 'r', 'g'};

#define CODE(owner, kind) ((uint8_t)((owner)*8 + (kind)))
#define OWNER(code) ((code) >> 3)
#define KIND(code) ((code)&7)

/* Directions N, NE, SE, S, SW, NW: clockwise on the board drawn north up. */
static const int dir_dq[6] = {0, 1, 1, 0, -1, -1};
static const int dir_dr[6] = {1, 0, -1, -1, 0, 1};

/* Move encoding: from bits 0-6, to bits 7-13; the flags below; a ladybug
 * move keeps the first pivot direction (from the ladybug) and turn that
 * produce it, and its step count; a worm move its captured cell + 1. */
#define M_FROM(m) ((int)((m)&127))
#define M_TO(m) ((int)(((m) >> 7) & 127))
#define M_PROMO (1u << 14)
#define M_LADY (1u << 15)
#define M_PDIR(m) ((int)(((m) >> 16) & 7))
#define M_CCW (1u << 19)
#define M_STEPS(m) ((int)(((m) >> 20) & 7))
#define M_WCAP(m) ((int)(((m) >> 24) & 127)) /* captured cell + 1, or 0 */
#define M_PASS (1u << 31)

static rules_move mk(int from, int to)
{
    return (rules_move)from | (rules_move)to << 7;
}

/* ------------------------------------------------------------------------ */
/* Geometry, computed once (call_once). */

static const char *const cell_names[NC] = {
    "a1",  "a2",  "a3",  "a4",  "a5",  "a6",  "a7", "b1",  "b2", "b3", "b4", "b5",  "b6",
    "b7",  "b8",  "c1",  "c2",  "c3",  "c4",  "c5", "c6",  "c7", "c8", "c9", "d1",  "d2",
    "d3",  "d4",  "d5",  "d6",  "d7",  "d8",  "d9", "d10", "e1", "e2", "e3", "e4",  "e5",
    "e6",  "e7",  "e8",  "e9",  "e10", "e11", "f1", "f2",  "f3", "f4", "f5", "f6",  "f7",
    "f8",  "f9",  "f10", "f11", "f12", "g1",  "g2", "g3",  "g4", "g5", "g6", "g7",  "g8",
    "g9",  "g10", "g11", "g12", "g13", "h1",  "h2", "h3",  "h4", "h5", "h6", "h7",  "h8",
    "h9",  "h10", "h11", "h12", "i1",  "i2",  "i3", "i4",  "i5", "i6", "i7", "i8",  "i9",
    "i10", "i11", "k1",  "k2",  "k3",  "k4",  "k5", "k6",  "k7", "k8", "k9", "k10", "l1",
    "l2",  "l3",  "l4",  "l5",  "l6",  "l7",  "l8", "l9",  "m1", "m2", "m3", "m4",  "m5",
    "m6",  "m7",  "m8",  "n1",  "n2",  "n3",  "n4", "n5",  "n6", "n7",
};

static struct {
    int8_t q[NC], r[NC];
    int8_t nb[NC][6];          /* neighbour or -1 */
    int8_t ray[NC][6][MAXRAY]; /* cells along each direction */
    uint8_t raylen[NC][6];
    int8_t d2[NC][12]; /* cells at distance exactly 2 */
    uint8_t nd2[NC];
    bool edge[NC];
    /* near[q]: the cells whose content attacks() reads for a queen on q
     * (the six lines through q and every cell within distance 2). */
    uint64_t near[NC][2];
    /* promo[v][player][cell]: v 0 ant2, 1 ant3 */
    bool promo[2][3][NC];
    uint8_t file_start[14]; /* first cell of each file, [13] = NC */
    uint64_t zpiece[NC][24], zmove[3], zleft[3];
    /* For the evaluation: each cell's distance to the centre, and the
     * fewest soldier steps from a cell to its player's promotion edge. */
    uint8_t cdist[NC];
    uint8_t pdist[2][3][NC];
} T;

/* Army geometry: the queen's corner gives the soldiers' forward direction
 * and the promotion edges (the two meeting at the opposite corner). */
static const int fwd_dir[2][3] = {{0, 3, 0}, {0, 2, 4}};

static int cell_at(int q, int r)
{
    if (q < -6 || q > 6 || r < -6 || r > 6 || q + r < -6 || q + r > 6)
        return -1;
    int rmin = -6 - q > -6 ? -6 - q : -6;
    return (int)T.file_start[q + 6] + (r - rmin);
}

/* Does cell c lie on a boundary line of the board that passes through the
 * corner (cq, cr)? */
static bool on_edge_through(int c, int cq, int cr)
{
    int q = T.q[c], r = T.r[c], s = -q - r, cs = -cq - cr;
    return (q == cq && (cq == 6 || cq == -6)) || (r == cr && (cr == 6 || cr == -6)) ||
           (s == cs && (cs == 6 || cs == -6));
}

static void tables_build(void)
{
    int n = 0;
    for (int f = 0; f < 13; f++) {
        int q = f - 6;
        int rmin = -6 - q > -6 ? -6 - q : -6, rmax = 6 - q < 6 ? 6 - q : 6;
        T.file_start[f] = (uint8_t)n;
        for (int r = rmin; r <= rmax; r++, n++) {
            T.q[n] = (int8_t)q;
            T.r[n] = (int8_t)r;
        }
    }
    T.file_start[13] = NC;
    for (int c = 0; c < NC; c++) {
        int deg = 0;
        for (int d = 0; d < 6; d++) {
            int q = T.q[c], r = T.r[c];
            T.nb[c][d] = (int8_t)cell_at(q + dir_dq[d], r + dir_dr[d]);
            deg += T.nb[c][d] >= 0;
            int len = 0;
            for (;;) {
                q += dir_dq[d];
                r += dir_dr[d];
                int t = cell_at(q, r);
                if (t < 0)
                    break;
                T.ray[c][d][len++] = (int8_t)t;
            }
            T.raylen[c][d] = (uint8_t)len;
        }
        T.edge[c] = deg < 6;
        int k = 0;
        for (int t = 0; t < NC; t++) {
            int dq = T.q[t] - T.q[c], dr = T.r[t] - T.r[c], ds = -dq - dr;
            int a = dq < 0 ? -dq : dq, b = dr < 0 ? -dr : dr, e = ds < 0 ? -ds : ds;
            int dist = a > b ? a : b;
            dist = dist > e ? dist : e;
            if (dist == 2)
                T.d2[c][k++] = (int8_t)t;
        }
        T.nd2[c] = (uint8_t)k;
        for (int t = 0; t < NC; t++) {
            int dq = T.q[t] - T.q[c], dr = T.r[t] - T.r[c], ds = -dq - dr;
            int a = dq < 0 ? -dq : dq, b = dr < 0 ? -dr : dr, e = ds < 0 ? -ds : ds;
            if (a + b + e <= 4 || dq == 0 || dr == 0 || ds == 0)
                T.near[c][t >> 6] |= 1ull << (t & 63);
        }
    }
    /* Opposite corners of each army's queen. */
    static const int opp[2][3][2] = {{{0, 6}, {0, -6}, {0, 0}}, {{0, 6}, {6, -6}, {-6, 0}}};
    for (int v = 0; v < 2; v++)
        for (int pl = 0; pl < 2 + v; pl++)
            for (int c = 0; c < NC; c++)
                T.promo[v][pl][c] = on_edge_through(c, opp[v][pl][0], opp[v][pl][1]);
    for (int c = 0; c < NC; c++) {
        int q = T.q[c], r = T.r[c], e = -q - r;
        q = q < 0 ? -q : q;
        r = r < 0 ? -r : r;
        e = e < 0 ? -e : e;
        T.cdist[c] = (uint8_t)(q > r ? (q > e ? q : e) : (r > e ? r : e));
    }
    for (int v = 0; v < 2; v++)
        for (int pl = 0; pl < 2 + v; pl++) {
            uint8_t *pd = T.pdist[v][pl];
            for (int c = 0; c < NC; c++)
                pd[c] = T.promo[v][pl][c] ? 0 : 99;
            for (bool changed = true; changed;) {
                changed = false;
                for (int c = 0; c < NC; c++)
                    for (int k = -1; k <= 1; k++) {
                        int t = T.nb[c][(fwd_dir[v][pl] + k + 6) % 6];
                        if (t >= 0 && pd[t] + 1 < pd[c]) {
                            pd[c] = (uint8_t)(pd[t] + 1);
                            changed = true;
                        }
                    }
            }
        }
    uint64_t seed = 0x616e746368657373ull;
    for (int c = 0; c < NC; c++)
        for (int k = 0; k < 24; k++)
            T.zpiece[c][k] = rules_splitmix64(&seed);
    for (int i = 0; i < 3; i++) {
        T.zmove[i] = rules_splitmix64(&seed);
        T.zleft[i] = rules_splitmix64(&seed);
    }
}

static once_flag tables_once = ONCE_FLAG_INIT;
static void tables_init(void)
{
    call_once(&tables_once, tables_build);
}

/* ------------------------------------------------------------------------ */
/* Position. */

typedef struct {
    uint8_t board[128];
    uint64_t occ[3][2];  /* cells of each player's pieces */
    int8_t queen[3];     /* queen cell or -1 */
    uint8_t left;        /* bit per player who left */
    uint8_t after_leave; /* 1 from a player leaving until the next turn: no
                            player has just ended a turn, so no centre win
                            is judged (not hashed: it lasts one position) */
    uint8_t v;           /* 0 ant2, 1 ant3 */
    uint8_t np;          /* players */
} ant_pos;

static_assert(sizeof(ant_pos) <= RULES_POS_DATA, "ant_pos fits rules_pos");

typedef struct {
    uint64_t hash;
    uint8_t to_move;
    uint8_t moved; /* the moving piece's code before the move */
    uint8_t after_leave;
    uint8_t ncap;
    uint8_t cap_cell[5], cap_code[5];
} ant_undo;

static_assert(sizeof(ant_undo) <= RULES_UNDO_DATA, "ant_undo fits rules_undo");

static ant_pos *AP(rules_pos *p)
{
    return (ant_pos *)(void *)p->data;
}
static const ant_pos *CAP(const rules_pos *p)
{
    return (const ant_pos *)(const void *)p->data;
}

static void put(ant_pos *a, uint64_t *hash, int c, uint8_t code)
{
    a->board[c] = code;
    int o = OWNER(code);
    a->occ[o][c >> 6] |= 1ull << (c & 63);
    if (KIND(code) == K_Q)
        a->queen[o] = (int8_t)c;
    *hash ^= T.zpiece[c][code];
}

static void lift(ant_pos *a, uint64_t *hash, int c)
{
    uint8_t code = a->board[c];
    int o = OWNER(code);
    a->board[c] = 0;
    a->occ[o][c >> 6] &= ~(1ull << (c & 63));
    if (KIND(code) == K_Q)
        a->queen[o] = -1;
    *hash ^= T.zpiece[c][code];
}

static int next_player(const ant_pos *a, int pl)
{
    for (int i = 0; i < a->np; i++) {
        pl = (pl + 1) % a->np;
        if (!(a->left >> pl & 1))
            return pl;
    }
    return pl;
}

static int prev_player(const ant_pos *a, int pl)
{
    for (int i = 0; i < a->np; i++) {
        pl = (pl + a->np - 1) % a->np;
        if (!(a->left >> pl & 1))
            return pl;
    }
    return pl;
}

/* Relation of each board code to a player: 0 empty, 1 own or inert
 * (an obstacle it cannot take), 2 enemy. */
static void relations(const ant_pos *a, int me, uint8_t rel[24])
{
    rel[0] = 0;
    for (int code = 1; code < 24; code++) {
        int o = code >> 3;
        rel[code] = (o == me || o >= a->np || (a->left >> o & 1)) ? 1 : 2;
    }
}

/* ------------------------------------------------------------------------ */
/* Attacks: could player x capture on cell q by one of its moves? */

static bool attacks(const ant_pos *a, int x, int q)
{
    const uint8_t *b = a->board;
    uint8_t rel[24];
    relations(a, x, rel);
    const uint8_t cq = CODE(x, K_Q), ca = CODE(x, K_A), cs = CODE(x, K_S), cb = CODE(x, K_B),
                  cl = CODE(x, K_L), cg = CODE(x, K_G), cw = CODE(x, K_W);

    for (int d = 0; d < 6; d++) {
        int t = T.nb[q][d];
        if (t < 0)
            continue;
        uint8_t code = b[t];
        if (code == cq || code == cs)
            return true;
        if (code == 0) {
            int u = T.nb[t][d];
            if (u >= 0 && b[u] == cs)
                return true;
        }
    }
    /* A soldier on q - f for each of its forward directions f. */
    int f = fwd_dir[a->v][x];
    for (int k = -1; k <= 1; k++) {
        int t = T.nb[q][(f + k + 3 + 6) % 6];
        if (t >= 0 && b[t] == ca)
            return true;
    }
    for (int d = 0; d < 6; d++) {
        const int8_t *ray = T.ray[q][d];
        for (int i = 0, n = T.raylen[q][d]; i < n; i++) {
            uint8_t code = b[ray[i]];
            if (code) {
                if (code == cb)
                    return true;
                break;
            }
        }
    }
    for (int i = 0, n = T.nd2[q]; i < n; i++)
        if (b[T.d2[q][i]] == cg)
            return true;
    /* Ladybug: q on the ring of an occupied pivot, the ladybug further
     * round the ring with none of x's pieces (or inert ones) between. */
    for (int d = 0; d < 6; d++) {
        int pv = T.nb[q][d];
        if (pv < 0 || b[pv] == 0)
            continue;
        int k0 = (d + 3) % 6; /* q = nb[pv][k0] */
        for (int s = 1; s <= 5; s += 4) {
            for (int i = 1; i <= 5; i++) {
                int t = T.nb[pv][(k0 + i * s) % 6];
                if (t < 0)
                    break;
                uint8_t code = b[t];
                if (code == cl)
                    return true;
                if (rel[code] == 1)
                    break;
            }
        }
    }
    /* Worm: along a line through q, x's worm behind, an empty edge cell
     * ahead, and no other enemy of x between them. */
    for (int d = 0; d < 6; d++) {
        const int8_t *ray = T.ray[q][d];
        bool landing = false;
        for (int i = 0, n = T.raylen[q][d]; i < n; i++) {
            uint8_t code = b[ray[i]];
            if (code == 0) {
                if (T.edge[ray[i]]) {
                    landing = true;
                    break;
                }
            } else if (rel[code] == 2) {
                break;
            }
        }
        if (!landing)
            continue;
        const int8_t *back = T.ray[q][(d + 3) % 6];
        for (int i = 0, n = T.raylen[q][(d + 3) % 6]; i < n; i++) {
            uint8_t code = b[back[i]];
            if (code == cw && T.edge[back[i]])
                return true;
            if (rel[code] == 2)
                break;
        }
    }
    return false;
}

/* Is player pl's queen (if any) attacked by a player still in? */
static bool in_check(const ant_pos *a, int pl)
{
    int q = a->queen[pl];
    if (q < 0)
        return false;
    for (int x = 0; x < a->np; x++)
        if (x != pl && !(a->left >> x & 1) && attacks(a, x, q))
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Pseudo moves of player me (every move the pieces allow, and pass). */

typedef struct {
    uint8_t to;
    uint64_t lo, hi;
} walk;

/* The walk of a ladybug on from round the pivot in direction pd, turning
 * cw (s = 1) or ccw (s = 5), of at most 5 steps; stops before an
 * obstacle. Writes each cell reached and the capture mask so far; returns
 * how many cells. */
static int lady_walk(const ant_pos *a, const uint8_t *rel, int from, int pd, int s, int *cells,
                     uint64_t *lo, uint64_t *hi)
{
    int pv = T.nb[from][pd], k0 = (pd + 3) % 6, n = 0;
    uint64_t ml = 0, mh = 0;
    for (int i = 1; i <= 5; i++) {
        int t = T.nb[pv][(k0 + i * s) % 6];
        if (t < 0 || rel[a->board[t]] == 1)
            break;
        if (rel[a->board[t]] == 2) {
            if (t < 64)
                ml |= 1ull << t;
            else
                mh |= 1ull << (t - 64);
        }
        cells[n] = t;
        lo[n] = ml;
        hi[n] = mh;
        n++;
    }
    return n;
}

static int gen_piece(const ant_pos *a, const uint8_t *rel, int me, int c, rules_move *out)
{
    const uint8_t *b = a->board;
    int n = 0;
    switch (KIND(b[c])) {
    case K_Q:
        for (int d = 0; d < 6; d++) {
            int t = T.nb[c][d];
            if (t >= 0 && rel[b[t]] != 1)
                out[n++] = mk(c, t);
        }
        break;
    case K_A: {
        int f = fwd_dir[a->v][me];
        for (int k = -1; k <= 1; k++) {
            int t = T.nb[c][(f + k + 6) % 6];
            if (t >= 0 && rel[b[t]] != 1)
                out[n++] = mk(c, t) | (T.promo[a->v][me][t] ? M_PROMO : 0);
        }
        break;
    }
    case K_S:
        for (int d = 0; d < 6; d++) {
            int t = T.nb[c][d];
            if (t < 0 || rel[b[t]] == 1)
                continue;
            out[n++] = mk(c, t);
            if (b[t] == 0) {
                int u = T.nb[t][d];
                if (u >= 0 && rel[b[u]] != 1)
                    out[n++] = mk(c, u);
            }
        }
        break;
    case K_B:
        for (int d = 0; d < 6; d++) {
            const int8_t *ray = T.ray[c][d];
            for (int i = 0, len = T.raylen[c][d]; i < len; i++) {
                int t = ray[i];
                if (rel[b[t]] == 1)
                    break;
                out[n++] = mk(c, t);
                if (b[t])
                    break;
            }
        }
        break;
    case K_G:
        for (int i = 0, len = T.nd2[c]; i < len; i++) {
            int t = T.d2[c][i];
            if (rel[b[t]] != 1)
                out[n++] = mk(c, t);
        }
        break;
    case K_W:
        if (!T.edge[c])
            break;
        for (int d = 0; d < 6; d++) {
            const int8_t *ray = T.ray[c][d];
            int enemies = 0, capcell = 0;
            for (int i = 0, len = T.raylen[c][d]; i < len && enemies < 2; i++) {
                int t = ray[i];
                if (b[t] == 0) {
                    if (T.edge[t])
                        out[n++] = mk(c, t) | (rules_move)(enemies ? capcell + 1 : 0) << 24;
                } else if (rel[b[t]] == 2) {
                    enemies++;
                    capcell = t;
                }
            }
        }
        break;
    case K_L: {
        /* Walks with the same end and captures are one move: keep the first
         * in the order pivot N, NE, SE, S, SW, NW, cw before ccw. */
        walk seen[60];
        int nseen = 0;
        uint64_t plain_lo = 0, plain_hi = 0; /* ends reached without capture */
        for (int pd = 0; pd < 6; pd++) {
            int pv = T.nb[c][pd];
            if (pv < 0 || b[pv] == 0)
                continue;
            for (int s = 1; s <= 5; s += 4) {
                int cells[5];
                uint64_t lo[5], hi[5];
                int w = lady_walk(a, rel, c, pd, s, cells, lo, hi);
                for (int i = 0; i < w; i++) {
                    int t = cells[i];
                    bool dup = false;
                    if ((lo[i] | hi[i]) == 0) {
                        uint64_t bit = 1ull << (t & 63);
                        uint64_t *pm = t < 64 ? &plain_lo : &plain_hi;
                        dup = (*pm & bit) != 0;
                        *pm |= bit;
                    } else {
                        for (int j = 0; j < nseen && !dup; j++)
                            dup = seen[j].to == t && seen[j].lo == lo[i] && seen[j].hi == hi[i];
                        if (!dup)
                            seen[nseen++] = (walk){(uint8_t)t, lo[i], hi[i]};
                    }
                    if (!dup)
                        out[n++] = mk(c, t) | M_LADY | (rules_move)pd << 16 | (s == 5 ? M_CCW : 0) |
                                   (rules_move)(i + 1) << 20;
                }
            }
        }
        break;
    }
    default:
        break;
    }
    return n;
}

static int gen_pseudo(const ant_pos *a, int me, rules_move *out)
{
    uint8_t rel[24];
    relations(a, me, rel);
    int n = 0;
    for (int h = 0; h < 2; h++) {
        uint64_t bits = a->occ[me][h];
        while (bits) {
            int c = h * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            n += gen_piece(a, rel, me, c, out + n);
        }
    }
    out[n++] = M_PASS;
    return n;
}

/* ------------------------------------------------------------------------ */
/* Make / unmake. */

static void make_move(rules_pos *p, rules_move m, rules_undo *ru)
{
    ant_pos *a = AP(p);
    ant_undo *u = (ant_undo *)(void *)ru->data;
    u->hash = p->hash;
    u->to_move = p->to_move;
    u->after_leave = a->after_leave;
    a->after_leave = 0;
    u->ncap = 0;
    int me = p->to_move;
    uint64_t h = p->hash ^ T.zmove[me];
    if (m != M_PASS) {
        int from = M_FROM(m), to = M_TO(m);
        uint8_t code = a->board[from];
        u->moved = code;
        lift(a, &h, from);
        if (m & M_LADY) {
            int pd = M_PDIR(m), pv = T.nb[from][pd], k0 = (pd + 3) % 6;
            int s = (m & M_CCW) ? 5 : 1, steps = M_STEPS(m);
            for (int i = 1; i <= steps; i++) {
                int t = T.nb[pv][(k0 + i * s) % 6];
                if (a->board[t]) {
                    u->cap_cell[u->ncap] = (uint8_t)t;
                    u->cap_code[u->ncap++] = a->board[t];
                    lift(a, &h, t);
                }
            }
        } else {
            int wc = M_WCAP(m) - 1;
            if (wc >= 0) {
                u->cap_cell[0] = (uint8_t)wc;
                u->cap_code[0] = a->board[wc];
                u->ncap = 1;
                lift(a, &h, wc);
            } else if (a->board[to]) {
                u->cap_cell[0] = (uint8_t)to;
                u->cap_code[0] = a->board[to];
                u->ncap = 1;
                lift(a, &h, to);
            }
            if (m & M_PROMO)
                code = CODE(me, K_S);
        }
        put(a, &h, to, code);
    }
    int nx = next_player(a, me);
    p->to_move = (uint8_t)nx;
    p->hash = h ^ T.zmove[nx];
}

static void unmake_move(rules_pos *p, rules_move m, const rules_undo *ru)
{
    ant_pos *a = AP(p);
    const ant_undo *u = (const ant_undo *)(const void *)ru->data;
    uint64_t h = 0;
    if (m != M_PASS) {
        int from = M_FROM(m), to = M_TO(m);
        lift(a, &h, to);
        for (int i = u->ncap - 1; i >= 0; i--)
            put(a, &h, u->cap_cell[i], u->cap_code[i]);
        put(a, &h, from, u->moved);
    }
    a->after_leave = u->after_leave;
    p->to_move = u->to_move;
    p->hash = u->hash;
}

/* ------------------------------------------------------------------------ */
/* Game end and legal moves. */

/* Who has won in this position (centre or last queen), or -1; *reason set. */
static int decided(const ant_pos *a, int to_move, rules_reason *reason)
{
    int last = prev_player(a, to_move);
    if (!a->after_leave && a->queen[last] == CENTRE && !in_check(a, last)) {
        *reason = RULES_REASON_CENTRE;
        return last;
    }
    if (a->np == 3) {
        int with = 0, who = -1;
        for (int pl = 0; pl < 3; pl++)
            if (!(a->left >> pl & 1) && a->queen[pl] >= 0) {
                with++;
                who = pl;
            }
        if (with == 1) {
            *reason = RULES_REASON_LAST_QUEEN;
            return who;
        }
    }
    return -1;
}

static bool near(int q, int c)
{
    return T.near[q][c >> 6] >> (c & 63) & 1;
}

/* Can move m (not the queen's, not a pass) change whether the queen on q is
 * attacked? Only if a cell it changes is one attacks() reads. */
static bool touches(int q, rules_move m)
{
    int from = M_FROM(m);
    if (near(q, from) || near(q, M_TO(m)))
        return true;
    if (M_WCAP(m) && near(q, M_WCAP(m) - 1))
        return true;
    if (m & M_LADY) {
        int pd = M_PDIR(m), pv = T.nb[from][pd], k0 = (pd + 3) % 6;
        int s = (m & M_CCW) ? 5 : 1;
        for (int i = 1; i < M_STEPS(m); i++)
            if (near(q, T.nb[pv][(k0 + i * s) % 6]))
                return true;
    }
    return false;
}

static int legal_moves(const rules_pos *cp, rules_move *out)
{
    const ant_pos *a = CAP(cp);
    rules_reason why;
    if (decided(a, cp->to_move, &why) >= 0)
        return 0;
    int me = cp->to_move;
    int n = gen_pseudo(a, me, out);
    if (a->queen[me] < 0)
        return n;
    rules_pos p = *cp;
    rules_undo u;
    int k = 0, q = a->queen[me];
    bool checked = in_check(a, me);
    for (int i = 0; i < n; i++) {
        /* A pass changes nothing on the board; a move far from the queen
         * changes nothing attacks() looks at. */
        if (out[i] == M_PASS || (!checked && M_FROM(out[i]) != q && !touches(q, out[i]))) {
            if (!checked)
                out[k++] = out[i];
            continue;
        }
        make_move(&p, out[i], &u);
        bool bad = in_check(CAP(&p), me);
        unmake_move(&p, out[i], &u);
        if (!bad)
            out[k++] = out[i];
    }
    /* Three players: with no move that avoids check, every move is legal. */
    if (k == 0 && a->np == 3)
        return gen_pseudo(a, me, out);
    return k;
}

static void status(const rules_pos *p, int nlegal, rules_result *r)
{
    const ant_pos *a = CAP(p);
    rules_reason why = RULES_REASON_NONE;
    int winner = decided(a, p->to_move, &why);
    if (winner < 0 && nlegal == 0) {
        if (in_check(a, p->to_move)) {
            winner = next_player(a, p->to_move);
            why = RULES_REASON_CHECKMATE;
        } else {
            why = RULES_REASON_STALEMATE; /* cannot happen: pass is legal */
        }
    }
    if (why == RULES_REASON_NONE) {
        r->over = false;
        return;
    }
    r->over = true;
    r->reason = why;
    r->winner = (int8_t)winner;
    for (int pl = 0; pl < a->np; pl++)
        r->outcome[pl] = winner < 0     ? RULES_OUTCOME_DRAW
                         : pl == winner ? RULES_OUTCOME_WIN
                                        : RULES_OUTCOME_LOSS;
}

static void leave(rules_pos *p, int pl)
{
    ant_pos *a = AP(p);
    if (pl < 0 || pl >= a->np || (a->left >> pl & 1))
        return;
    a->left |= (uint8_t)(1u << pl);
    a->after_leave = 1;
    p->hash ^= T.zleft[pl];
    if (p->to_move == pl) {
        int nx = next_player(a, pl);
        p->hash ^= T.zmove[pl] ^ T.zmove[nx];
        p->to_move = (uint8_t)nx;
    }
}

/* ------------------------------------------------------------------------ */
/* Set-up and position text. */

static uint64_t full_hash(const rules_pos *p)
{
    const ant_pos *a = CAP(p);
    uint64_t h = T.zmove[p->to_move];
    for (int c = 0; c < NC; c++)
        if (a->board[c])
            h ^= T.zpiece[c][a->board[c]];
    for (int pl = 0; pl < a->np; pl++)
        if (a->left >> pl & 1)
            h ^= T.zleft[pl];
    return h;
}

static void clear(rules_pos *p, int v)
{
    ant_pos *a = AP(p);
    memset(a, 0, sizeof *a);
    a->v = (uint8_t)v;
    a->np = (uint8_t)(2 + v);
    for (int i = 0; i < 3; i++)
        a->queen[i] = -1;
    p->to_move = 0;
}

static void place_list(ant_pos *a, int owner, const char *list)
{
    /* "Qg1 Wk1 ..." */
    uint64_t h = 0;
    const char *s = list;
    while (*s) {
        int kind = (int)(strchr(kind_letter, *s) - kind_letter);
        s++;
        int len = 0;
        int c = -1;
        for (int i = 0; i < NC; i++) {
            size_t l = strlen(cell_names[i]);
            if (strncmp(s, cell_names[i], l) == 0 && (s[l] == ' ' || s[l] == 0)) {
                c = i;
                len = (int)l;
            }
        }
        assert(c >= 0);
        put(a, &h, c, CODE(owner, kind));
        s += len;
        while (*s == ' ')
            s++;
    }
}

static const char *const black_army =
    "Qg1 Wk1 Gi2 Lh3 Bg4 Lf3 Ge2 Wd1 Al1 Ak2 Ai3 Ah4 Ag5 Af4 Ae3 Ad2 Ac1";
static const char *const red2_army =
    "Qg13 Wd10 Ge10 Lf10 Bg10 Lh10 Gi10 Wk10 Ac9 Ad9 Ae9 Af9 Ag9 Ah9 Ai9 Ak9 Al9";
static const char *const red3_army =
    "Qa7 Wa4 Gb5 Lc6 Bd7 Ld8 Gd9 Wd10 Aa3 Ab4 Ac5 Ad6 Ae7 Ae8 Ae9 Ae10 Ae11";
static const char *const green_army =
    "Qn7 Wk10 Gk9 Lk8 Bk7 Ll6 Gm5 Wn4 Ai11 Ai10 Ai9 Ai8 Ai7 Ak6 Al5 Am4 An3";

static void init2(rules_pos *p)
{
    tables_init();
    clear(p, 0);
    place_list(AP(p), 0, black_army);
    place_list(AP(p), 1, red2_army);
    p->hash = full_hash(p);
}

static void init3(rules_pos *p)
{
    tables_init();
    clear(p, 1);
    place_list(AP(p), 0, black_army);
    place_list(AP(p), 1, red3_army);
    place_list(AP(p), 2, green_army);
    p->hash = full_hash(p);
}

static int print_position(const rules_pos *p, char *buf, size_t len)
{
    const ant_pos *a = CAP(p);
    char tmp[RULES_POS_TEXT];
    size_t n = 0;
    for (int f = 0; f < 13; f++) {
        if (f)
            tmp[n++] = '/';
        int empty = 0;
        for (int c = T.file_start[f]; c < T.file_start[f + 1]; c++) {
            uint8_t code = a->board[c];
            if (!code) {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t)sprintf(tmp + n, "%d", empty);
            empty = 0;
            tmp[n++] = owner_letter[OWNER(code)];
            tmp[n++] = kind_letter[KIND(code)];
        }
        if (empty)
            n += (size_t)sprintf(tmp + n, "%d", empty);
    }
    tmp[n++] = ' ';
    tmp[n++] = owner_letter[p->to_move];
    tmp[n++] = ' ';
    if (!a->left)
        tmp[n++] = '-';
    for (int pl = 0; pl < a->np; pl++)
        if (a->left >> pl & 1)
            tmp[n++] = owner_letter[pl];
    if (a->after_leave)
        tmp[n++] = '!';
    tmp[n] = 0;
    if (n + 1 > len)
        return -1;
    memcpy(buf, tmp, n + 1);
    return (int)n;
}

static int owner_of(const ant_pos *a, char ch)
{
    for (int pl = 0; pl < a->np; pl++)
        if (owner_letter[pl] == ch)
            return pl;
    return -1;
}

static int parse_position_v(rules_pos *p, int v, const char *text, char *why, size_t whylen)
{
    tables_init();
    rules_pos np = *p;
    clear(&np, v);
    ant_pos *a = AP(&np);
    const char *s = text;
    uint64_t h = 0;
    int count[3][8] = {{0}};
    if (text == NULL || strnlen(text, RULES_POS_TEXT) >= RULES_POS_TEXT) {
        rules_why(why, whylen, "position string missing or too long");
        return RULES_EBAD_POSITION;
    }
    for (int f = 0; f < 13; f++) {
        int c = T.file_start[f], end = T.file_start[f + 1];
        char fl = "abcdefghiklmn"[f];
        if (f > 0) {
            if (*s != '/') {
                rules_why(why, whylen, "expected '/' before file %c at offset %d", fl,
                          (int)(s - text));
                return RULES_EBAD_POSITION;
            }
            s++;
        }
        while (c < end) {
            if (*s >= '1' && *s <= '9') {
                int k = 0;
                while (*s >= '0' && *s <= '9' && k <= NC)
                    k = k * 10 + (*s++ - '0');
                if (k > end - c) {
                    rules_why(why, whylen, "file %c: %d empty cells overrun the file", fl, k);
                    return RULES_EBAD_POSITION;
                }
                c += k;
                continue;
            }
            int o = owner_of(a, *s);
            if (o < 0) {
                rules_why(why, whylen,
                          "file %c: expected a count or an owner letter (%s) at offset %d", fl,
                          v ? "b, r, g" : "b, r", (int)(s - text));
                return RULES_EBAD_POSITION;
            }
            const char *kp = s[1] ? strchr(kind_letter + 1, s[1]) : NULL;
            if (kp == NULL) {
                rules_why(why, whylen, "file %c: expected a piece letter (QASBLGW) at offset %d",
                          fl, (int)(s + 1 - text));
                return RULES_EBAD_POSITION;
            }
            int kind = (int)(kp - kind_letter);
            if (kind == K_A && T.promo[v][o][c]) {
                rules_why(why, whylen, "soldier ant on %s stands on its promotion edge",
                          cell_names[c]);
                return RULES_EBAD_POSITION;
            }
            count[o][kind]++;
            put(a, &h, c, CODE(o, kind));
            c++;
            s += 2;
        }
        if (f < 12 && *s != '/') {
            rules_why(why, whylen, "file %c holds more than %d cells", fl, end - T.file_start[f]);
            return RULES_EBAD_POSITION;
        }
    }
    if (s[0] != ' ' || owner_of(a, s[1]) < 0 || s[2] != ' ') {
        rules_why(why, whylen, "expected ' <player to move> ' after the board (offset %d)",
                  (int)(s - text));
        return RULES_EBAD_POSITION;
    }
    np.to_move = (uint8_t)owner_of(a, s[1]);
    s += 3;
    if (s[0] == '-') {
        s++;
    } else if (owner_of(a, s[0]) < 0) {
        rules_why(why, whylen, "expected '-' or the letters of players who left");
        return RULES_EBAD_POSITION;
    } else {
        int lastpl = -1;
        while (*s && *s != ' ' && *s != '!') {
            int o = owner_of(a, *s);
            if (o <= lastpl) {
                rules_why(why, whylen,
                          "expected '-' or the letters of players who left, in turn order");
                return RULES_EBAD_POSITION;
            }
            a->left |= (uint8_t)(1u << o);
            lastpl = o;
            s++;
        }
        if (*s == '!') {
            a->after_leave = 1;
            s++;
        }
    }
    if (*s) {
        rules_why(why, whylen, "unexpected text at the end: '%.20s'", s);
        return RULES_EBAD_POSITION;
    }
    static const int maxk[8] = {0, 1, 9, 9, 1, 2, 2, 2};
    for (int o = 0; o < a->np; o++)
        for (int k = 1; k < 8; k++)
            if (count[o][k] > maxk[k] || count[o][K_A] + count[o][K_S] > 9) {
                rules_why(why, whylen, "%s has too many pieces of kind %c",
                          v ? (const char *[]){"black", "red", "green"}[o]
                            : (const char *[]){"black", "red"}[o],
                          kind_letter[k]);
                return RULES_EBAD_POSITION;
            }
    if (v == 0) {
        if (a->left) {
            rules_why(why, whylen, "in ant2 no player can have left (use '-')");
            return RULES_EBAD_POSITION;
        }
        if (a->queen[0] < 0 || a->queen[1] < 0) {
            rules_why(why, whylen, "in ant2 both queens must be on the board");
            return RULES_EBAD_POSITION;
        }
        int other = 1 - np.to_move;
        if (in_check(a, other)) {
            rules_why(why, whylen, "the queen of the player not to move is in check");
            return RULES_EBAD_POSITION;
        }
    } else {
        if (a->left >> np.to_move & 1) {
            rules_why(why, whylen, "the player to move has left the game");
            return RULES_EBAD_POSITION;
        }
        if (__builtin_popcount(a->left) > 1) {
            rules_why(why, whylen, "at most one player can have left");
            return RULES_EBAD_POSITION;
        }
        int with = 0;
        for (int o = 0; o < 3; o++)
            with += !(a->left >> o & 1) && a->queen[o] >= 0;
        if (with == 0) {
            rules_why(why, whylen, "no player still in has a queen");
            return RULES_EBAD_POSITION;
        }
    }
    np.hash = full_hash(&np);
    *p = np;
    return 0;
}

static int parse_position2(rules_pos *p, const char *text, char *why, size_t whylen)
{
    return parse_position_v(p, 0, text, why, whylen);
}

static int parse_position3(rules_pos *p, const char *text, char *why, size_t whylen)
{
    return parse_position_v(p, 1, text, why, whylen);
}

/* ------------------------------------------------------------------------ */
/* Move text. */

static int print_move(const rules_pos *p, rules_move m, char *buf, size_t len)
{
    int w;
    if (m == M_PASS)
        w = snprintf(buf, len, "pass");
    else if (m & M_LADY)
        w = snprintf(buf, len, "%s-%s@%s%s", cell_names[M_FROM(m)], cell_names[M_TO(m)],
                     cell_names[T.nb[M_FROM(m)][M_PDIR(m)]], (m & M_CCW) ? "ccw" : "cw");
    else
        w = snprintf(buf, len, "%s-%s", cell_names[M_FROM(m)], cell_names[M_TO(m)]);
    return (w < 0 || (size_t)w >= len) ? -1 : w;
}

/* The capture mask of a ladybug move (cells of pieces it takes). */
static void lady_mask(const ant_pos *a, rules_move m, uint64_t *lo, uint64_t *hi)
{
    int from = M_FROM(m), pd = M_PDIR(m), pv = T.nb[from][pd], k0 = (pd + 3) % 6;
    int s = (m & M_CCW) ? 5 : 1;
    *lo = *hi = 0;
    for (int i = 1; i <= M_STEPS(m); i++) {
        int t = T.nb[pv][(k0 + i * s) % 6];
        if (a->board[t]) {
            if (t < 64)
                *lo |= 1ull << t;
            else
                *hi |= 1ull << (t - 64);
        }
    }
}

static int cell_prefix(const char *s, int *len)
{
    int best = -1, bl = 0;
    for (int c = 0; c < NC; c++) {
        int l = (int)strlen(cell_names[c]);
        if (l > bl && strncmp(s, cell_names[c], (size_t)l) == 0) {
            best = c;
            bl = l;
        }
    }
    *len = bl;
    return best;
}

static int parse_move(const rules_pos *p, const char *text, rules_move *mv, char *why,
                      size_t whylen)
{
    const ant_pos *a = CAP(p);
    rules_move legal[RULES_MAX_MOVES], pseudo[RULES_MAX_MOVES];
    int me = p->to_move;
    if (text == NULL || strnlen(text, RULES_MOVE_TEXT) >= RULES_MOVE_TEXT) {
        rules_why(why, whylen, "move text missing or too long");
        return RULES_EBAD_MOVE_TEXT;
    }
    int nl = legal_moves(p, legal);
    if (strcmp(text, "pass") == 0) {
        for (int i = 0; i < nl; i++)
            if (legal[i] == M_PASS) {
                *mv = M_PASS;
                return 0;
            }
        rules_why(why, whylen, "pass: %s",
                  nl == 0 ? "the game is over" : "it leaves your queen in check");
        return nl == 0 ? RULES_EGAME_OVER : RULES_ESELF_CHECK;
    }
    int l1, l2, l3 = 0;
    int from = cell_prefix(text, &l1);
    const char *s = text + l1;
    int to = -1, pivot = -1, ccw = -1;
    if (from >= 0 && *s == '-')
        to = cell_prefix(s + 1, &l2);
    if (to < 0)
        goto bad_text;
    s += 1 + l2;
    if (*s == '@') {
        pivot = cell_prefix(s + 1, &l3);
        if (pivot < 0)
            goto bad_text;
        s += 1 + l3;
        if (strncmp(s, "cw", 2) == 0) {
            ccw = 0;
            s += 2;
        } else if (strncmp(s, "ccw", 3) == 0) {
            ccw = 1;
            s += 3;
        } else {
            goto bad_text;
        }
    }
    bool eq_s = false;
    if (strcmp(s, "=S") == 0) {
        eq_s = true;
        s += 2;
    }
    if (*s)
        goto bad_text;

    uint8_t code = a->board[from];
    if (code == 0) {
        rules_why(why, whylen, "%s: there is no piece on %s", text, cell_names[from]);
        return RULES_ENO_PIECE;
    }
    if (OWNER(code) != me) {
        rules_why(why, whylen, "%s: the piece on %s is not yours", text, cell_names[from]);
        return RULES_ENOT_YOURS;
    }
    if (nl == 0) {
        rules_why(why, whylen, "%s: the game is over", text);
        return RULES_EGAME_OVER;
    }
    bool lady = KIND(code) == K_L;
    if (lady != (pivot >= 0)) {
        rules_why(why, whylen,
                  lady ? "%s: a ladybug move names its pivot and turn, as in h3-g4@h4cw"
                       : "%s: only a ladybug move names a pivot",
                  text);
        return RULES_EBAD_MOVE_TEXT;
    }
    uint64_t wlo = 0, whi = 0;
    if (lady) {
        int pd = -1;
        for (int d = 0; d < 6; d++)
            if (T.nb[from][d] == pivot)
                pd = d;
        if (pd < 0 || a->board[pivot] == 0) {
            rules_why(why, whylen, "%s: %s is not an occupied cell next to the ladybug", text,
                      cell_names[pivot]);
            return RULES_EUNREACHABLE;
        }
        uint8_t rel[24];
        relations(a, me, rel);
        int cells[5];
        uint64_t lo[5], hi[5];
        int w = lady_walk(a, rel, from, pd, ccw ? 5 : 1, cells, lo, hi), i;
        for (i = 0; i < w && cells[i] != to; i++)
            ;
        if (i == w) {
            rules_why(why, whylen, "%s: turning %s round %s the ladybug cannot reach %s", text,
                      ccw ? "ccw" : "cw", cell_names[pivot], cell_names[to]);
            return RULES_EUNREACHABLE;
        }
        wlo = lo[i];
        whi = hi[i];
    }
    int np = gen_pseudo(a, me, pseudo);
    for (int pass = 0; pass < 2; pass++) {
        const rules_move *list = pass == 0 ? legal : pseudo;
        int n = pass == 0 ? nl : np;
        for (int i = 0; i < n; i++) {
            rules_move m = list[i];
            if (m == M_PASS || M_FROM(m) != from || M_TO(m) != to)
                continue;
            if (lady) {
                uint64_t lo, hi;
                lady_mask(a, m, &lo, &hi);
                if (lo != wlo || hi != whi)
                    continue;
            }
            if (eq_s && !(m & M_PROMO)) {
                rules_why(why, whylen, "%s: this move does not promote", text);
                return RULES_EBAD_MOVE_TEXT;
            }
            if (pass == 1) {
                rules_why(why, whylen, "%s: it leaves your queen in check", text);
                return RULES_ESELF_CHECK;
            }
            *mv = m;
            return 0;
        }
    }
    rules_why(why, whylen, "%s: the %s on %s cannot move to %s", text,
              (const char *[]){"?", "queen", "soldier ant", "super-ant", "beetle", "ladybug",
                               "grasshopper", "earthworm"}[KIND(code)],
              cell_names[from], cell_names[to]);
    return RULES_EUNREACHABLE;

bad_text:
    rules_why(why, whylen, "%s: expected <from>-<to>, <from>-<to>@<pivot>cw|ccw (ladybug) or pass",
              text);
    return RULES_EBAD_MOVE_TEXT;
}

/* ------------------------------------------------------------------------ */
/* Display. */

static char piece_at(const rules_pos *p, int cell, int *owner)
{
    const ant_pos *a = CAP(p);
    if (cell < 0 || cell >= NC || a->board[cell] == 0) {
        if (owner)
            *owner = -1;
        return 0;
    }
    if (owner)
        *owner = OWNER(a->board[cell]);
    return kind_letter[KIND(a->board[cell])];
}

/* The bots' in_check hook: the queen of the player to move attacked. */
static bool to_move_in_check(const rules_pos *p)
{
    return in_check(CAP(p), p->to_move);
}

static unsigned cell_flags(const rules_pos *p, int cell)
{
    const ant_pos *a = CAP(p);
    if (cell < 0 || cell >= NC || a->board[cell] == 0)
        return 0;
    int o = OWNER(a->board[cell]);
    if (a->left >> o & 1)
        return RULES_CELL_INERT;
    if (KIND(a->board[cell]) == K_Q && in_check(a, o))
        return RULES_CELL_CHECK;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The bots' hooks (search.h): capture test, evaluation, turn switch. */

/* Does legal move m take anything? A ladybug takes every piece on the
 * cells it enters (its walk stops before its own and inert pieces, so any
 * piece there is an enemy); a worm the one piece it passes under (kept in
 * the move); any other piece the piece on its landing cell. */
static bool is_capture(const rules_pos *p, rules_move m)
{
    const ant_pos *a = CAP(p);
    if (m == M_PASS)
        return false;
    if (m & M_LADY) {
        int from = M_FROM(m), pd = M_PDIR(m), pv = T.nb[from][pd], k0 = (pd + 3) % 6;
        int s = (m & M_CCW) ? 5 : 1;
        for (int i = 1, n = M_STEPS(m); i <= n; i++)
            if (a->board[T.nb[pv][(k0 + i * s) % 6]])
                return true;
        return false;
    }
    return M_WCAP(m) != 0 || a->board[M_TO(m)] != 0;
}

/* The evaluation's weights, in centipawns (a soldier ant is 100). Why these
 * values: ../ENGINE.md, "Ant Chess". */
typedef struct {
    int16_t value[8];    /* material by kind (the queen is not counted) */
    int16_t mob[8];      /* per pseudo move (cells it could go to), by kind */
    int16_t adv[13];     /* a soldier by its steps to promotion */
    int16_t centre[7];   /* the queen by her distance to g7 */
    int16_t centre_open; /* the queen next to g7, which no enemy attacks */
    int16_t centre_go;   /* ... and her player is to move: a win in one */
    int16_t check;       /* the queen attacked */
    int16_t near[8];     /* an enemy piece of that kind within 2 of the queen */
    int16_t guard;       /* an own piece next to the queen */
    int16_t worm_line;   /* a worm line with one enemy piece over a landing */
    int16_t queen_lost;  /* ant3: a player without its queen */
} ant_weights;

static const ant_weights W = {
    /*             ?  Q    A    S    B    L    G    W */
    .value = {0, 0, 100, 350, 550, 350, 300, 300},
    .mob = {0, 0, 2, 4, 3, 3, 3, 2},
    .adv = {0, 80, 50, 35, 25, 15, 10, 5, 0, 0, 0, 0, 0},
    .centre = {0, 300, 180, 100, 50, 20, 0},
    .centre_open = 400,
    .centre_go = 3000,
    .check = 60,
    .near = {0, 0, 10, 25, 25, 30, 25, 15},
    .guard = 8,
    .worm_line = 10,
    .queen_lost = 10000,
};

/* Player me's score, a lost queen aside: material and mobility of each
 * piece (its pseudo moves counted, never generated), soldiers' progress,
 * the worms' lines, the queen's distance to the centre and her safety. */
static int32_t eval_player(const ant_pos *a, int me, int to_move)
{
    const uint8_t *b = a->board;
    uint8_t rel[24];
    relations(a, me, rel);
    int32_t mat = 0, mob = 0, pos = 0;
    for (int h = 0; h < 2; h++) {
        uint64_t bits = a->occ[me][h];
        while (bits) {
            int c = h * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            int kind = KIND(b[c]), n = 0;
            mat += W.value[kind];
            switch (kind) {
            case K_A: {
                pos += W.adv[T.pdist[a->v][me][c]];
                int f = fwd_dir[a->v][me];
                for (int k = -1; k <= 1; k++) {
                    int t = T.nb[c][(f + k + 6) % 6];
                    n += t >= 0 && rel[b[t]] != 1;
                }
                break;
            }
            case K_S:
                for (int d = 0; d < 6; d++) {
                    int t = T.nb[c][d];
                    if (t < 0 || rel[b[t]] == 1)
                        continue;
                    n++;
                    if (b[t])
                        continue;
                    int u = T.nb[t][d];
                    n += u >= 0 && rel[b[u]] != 1;
                }
                break;
            case K_B:
                for (int d = 0; d < 6; d++) {
                    const int8_t *ray = T.ray[c][d];
                    for (int i = 0, len = T.raylen[c][d]; i < len; i++) {
                        uint8_t code = b[ray[i]];
                        if (rel[code] == 1)
                            break;
                        n++;
                        if (code)
                            break;
                    }
                }
                break;
            case K_G:
                for (int i = 0, len = T.nd2[c]; i < len; i++)
                    n += rel[b[T.d2[c][i]]] != 1;
                break;
            case K_L:
                /* Every walk round every pivot, duplicates counted. */
                for (int pd = 0; pd < 6; pd++) {
                    int pv = T.nb[c][pd];
                    if (pv < 0 || b[pv] == 0)
                        continue;
                    int k0 = (pd + 3) % 6;
                    for (int s = 1; s <= 5; s += 4)
                        for (int i = 1; i <= 5; i++) {
                            int t = T.nb[pv][(k0 + i * s) % 6];
                            if (t < 0 || rel[b[t]] == 1)
                                break;
                            n++;
                        }
                }
                n /= 2;
                break;
            case K_W:
                if (!T.edge[c])
                    break;
                /* Its lines: the landings (empty edge cells it reaches
                 * under its own pieces and at most one enemy), and each
                 * line where one enemy piece lies before a landing: a
                 * capture it threatens (two or more enemies block). */
                for (int d = 0; d < 6; d++) {
                    const int8_t *ray = T.ray[c][d];
                    int enemies = 0, preyed = 0;
                    for (int i = 0, len = T.raylen[c][d]; i < len && enemies < 2; i++) {
                        int t = ray[i];
                        if (b[t] == 0) {
                            if (T.edge[t]) {
                                n++;
                                if (enemies && !preyed) {
                                    preyed = 1;
                                    pos += W.worm_line;
                                }
                            }
                        } else {
                            enemies += rel[b[t]] == 2;
                        }
                    }
                }
                break;
            default:
                break;
            }
            mob += n * W.mob[kind];
        }
    }

    int q = a->queen[me];
    if (q >= 0) {
        pos += W.centre[T.cdist[q]];
        for (int x = 0; x < a->np; x++)
            if (x != me && !(a->left >> x & 1) && attacks(a, x, q)) {
                pos -= W.check;
                break;
            }
        for (int d = 0; d < 6; d++) {
            int t = T.nb[q][d];
            if (t >= 0 && b[t]) {
                if (rel[b[t]] == 2)
                    pos -= W.near[KIND(b[t])];
                else if (OWNER(b[t]) == me)
                    pos += W.guard;
            }
        }
        for (int i = 0, len = T.nd2[q]; i < len; i++) {
            uint8_t code = b[T.d2[q][i]];
            if (rel[code] == 2)
                pos -= W.near[KIND(code)];
        }
        if (T.cdist[q] == 1 && rel[b[CENTRE]] != 1) {
            bool open = true;
            for (int x = 0; x < a->np && open; x++)
                if (x != me && !(a->left >> x & 1) && attacks(a, x, CENTRE))
                    open = false;
            if (open)
                pos += to_move == me ? W.centre_go : W.centre_open;
        }
    }
    return mat + mob + pos;
}

/* Each player's score. A player who left gets INT32_MIN (the search leaves
 * it out). In three players a player who lost its queen plays on but can
 * no longer win: it keeps a finite score far below the others', so that
 * the search (which values a player against the mean of the others) sees
 * taking a rival's queen as the big step towards the last queen that it
 * is, and losing its own as nearly a lost game. */
static void evaluate(const rules_pos *p, int32_t *score)
{
    const ant_pos *a = CAP(p);
    for (int pl = 0; pl < a->np; pl++)
        score[pl] = (a->left >> pl & 1) ? INT32_MIN
                    : a->queen[pl] < 0  ? eval_player(a, pl, p->to_move) - W.queen_lost
                                        : eval_player(a, pl, p->to_move);
}

/* Make player pl the one to move, without a move. The hash holds the
 * player to move as one key, swapped here as make_move swaps it, so a
 * second call with the previous player restores the position exactly.
 * The centre win is judged for the player before the one to move: if that
 * player's queen stands unthreatened on g7, the position is then won for
 * it, as it would be after its next turn. */
static void set_to_move(rules_pos *p, int pl)
{
    if (pl < 0 || pl >= CAP(p)->np || (CAP(p)->left >> pl & 1))
        return; /* never asked by the search (players_left) */
    p->hash ^= T.zmove[p->to_move] ^ T.zmove[pl];
    p->to_move = (uint8_t)pl;
}

static unsigned players_left(const rules_pos *p)
{
    return CAP(p)->left;
}

static const char *const names2[] = {"black", "red"};
static const char *const names3[] = {"black", "red", "green"};

/* The hooks both modes share; the mode is kept in the position. */
#define ANT_HOOKS                                                                                  \
    .ncells = NC, .cell_names = cell_names, .print_position = print_position,                      \
    .legal_moves = legal_moves, .make = make_move, .unmake = unmake_move,                          \
    .parse_move = parse_move, .print_move = print_move, .display_move = NULL,                      \
    .piece_at = piece_at, .cell_flags = cell_flags, .status = status, .evaluate = evaluate,        \
    .is_capture = is_capture, .set_to_move = set_to_move, .in_check = to_move_in_check,            \
    .players_left = players_left

const rules_variant antchess_variant2 = {
    .id = "ant2",
    .name = "Ant Chess (two players)",
    .nplayers = 2,
    .player_names = names2,
    .init = init2,
    .parse_position = parse_position2,
    .leave = NULL,
    ANT_HOOKS,
};

const rules_variant antchess_variant3 = {
    .id = "ant3",
    .name = "Ant Chess (three players)",
    .nplayers = 3,
    .player_names = names3,
    .init = init3,
    .parse_position = parse_position3,
    .leave = leave,
    ANT_HOOKS,
};
