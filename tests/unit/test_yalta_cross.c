/*
 * test_yalta_cross.c - a second, independent move generator for Yalta
 * chess, written from ../shared/rules/yalta.md, compared with common/yalta.c.
 *
 * Different on purpose:
 *   - geometry: the board is drawn as the rules file says (a regular
 *     hexagon cut into six kites, each kite cut by the bilinear map into
 *     4x4 cells); sides and corners are the cells' corner points, found by
 *     coordinates. An orthogonal step leaves through a side into the cell
 *     sharing it and goes on through the side opposite the entry side; a
 *     diagonal step leaves through a corner into every cell that shares that
 *     point but no side and has the same colour (colour found by a search
 *     from a1), then goes on through the opposite corner;
 *   - moves: brute force over every (from, to) pair with one predicate per
 *     piece, walking the rays afresh every time;
 *   - legality: the move is played on a copy and every piece of every
 *     opponent still in the game is asked whether it could capture the king;
 *   - en passant: each entry keeps the set of players who may still take it,
 *     and a player is struck from it when it moves;
 *   - its own position parser and printer.
 * Both generators run on random games from the set-up and from random
 * positions; at every position the two sets of (move text, position after)
 * must be equal.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "yalta.h"

#define N 96

/* ------------------------------------------------------------------------ */
/* The board from the rules' table and drawing. */

/* Rows of the rules file's table: section (player), files from the outer
 * edge to the centre line, ranks from back to front. */
static const struct {
    int player;
    const char *files;
    int ranks[4];
} QUADS[6] = {
    {0, "abcd", {1, 2, 3, 4}},    /* S1 left */
    {0, "hgfe", {1, 2, 3, 4}},    /* S1 right */
    {1, "abcd", {8, 7, 6, 5}},    /* S2 right */
    {1, "lkji", {8, 7, 6, 5}},    /* S2 left */
    {2, "hgfe", {12, 11, 10, 9}}, /* S3 left */
    {2, "lkji", {12, 11, 10, 9}}, /* S3 right */
};
/* Where each kite sits around the hexagon (vertex angle / 60 degrees), going
 * around: S1 left, S1 right, S3 left, S3 right, S2 left, S2 right (the order
 * in which the rules' side list joins them). */
static const int RING[6] = {0, 1, 5, 4, 2, 3};

static char NAME[N][16];
static int SECTION[N], RANKIDX[N];
static int NPTS;
static double PX[512], PY[512];
static int CORNER[N][4]; /* point ids in cyclic order */
static int COLOUR[N];    /* 0 dark */

static int point_id(double x, double y)
{
    for (int i = 0; i < NPTS; i++)
        if (fabs(PX[i] - x) < 1e-9 && fabs(PY[i] - y) < 1e-9)
            return i;
    PX[NPTS] = x, PY[NPTS] = y;
    return NPTS++;
}

static int cell_named(const char *s)
{
    for (int i = 0; i < N; i++)
        if (!strcmp(NAME[i], s))
            return i;
    return -1;
}

/* Side s of a cell: corners s and s+1. Returns the cell across it and the
 * index of that side there, or -1. */
static int across_side(int x, int s, int *entry)
{
    int a = CORNER[x][s], b = CORNER[x][(s + 1) % 4];
    for (int y = 0; y < N; y++) {
        if (y == x)
            continue;
        for (int j = 0; j < 4; j++) {
            int c = CORNER[y][j], d = CORNER[y][(j + 1) % 4];
            if ((c == a && d == b) || (c == b && d == a)) {
                *entry = j;
                return y;
            }
        }
    }
    return -1;
}

static bool share_side(int x, int y)
{
    for (int s = 0; s < 4; s++) {
        int e;
        if (across_side(x, s, &e) == y)
            return true;
    }
    return false;
}

/* Diagonal step through corner k of x: cells into out, their entry corner. */
static int across_corner(int x, int k, int out[6], int entry[6])
{
    int pt = CORNER[x][k], n = 0;
    for (int y = 0; y < N; y++) {
        if (y == x || COLOUR[y] != COLOUR[x] || share_side(x, y))
            continue;
        for (int j = 0; j < 4; j++)
            if (CORNER[y][j] == pt) {
                out[n] = y, entry[n] = j, n++;
            }
    }
    return n;
}

static int SIDE_NB[N][4], SIDE_ENTRY[N][4];
static int DIAG_N[N][4], DIAG_NB[N][4][6], DIAG_ENTRY[N][4][6];

static void board_build(void)
{
    double vx[6], vy[6];
    for (int k = 0; k < 6; k++) {
        vx[k] = cos(k * M_PI / 3);
        vy[k] = sin(k * M_PI / 3);
    }
    int cell = 0;
    for (int q = 0; q < 6; q++) {
        int k = RING[q];
        int partner = RING[q ^ 1]; /* the other half of the section */
        int other = (k + 1) % 6 == partner ? (k + 5) % 6 : (k + 1) % 6;
        double Vx = vx[k], Vy = vy[k];
        double Mx = (vx[k] + vx[partner]) / 2, My = (vy[k] + vy[partner]) / 2;
        double M2x = (vx[k] + vx[other]) / 2, M2y = (vy[k] + vy[other]) / 2;
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++, cell++) {
                snprintf(NAME[cell], sizeof NAME[cell], "%c%d", QUADS[q].files[c],
                         QUADS[q].ranks[r]);
                SECTION[cell] = QUADS[q].player;
                RANKIDX[cell] = r;
                double us[4] = {c / 4.0, (c + 1) / 4.0, (c + 1) / 4.0, c / 4.0};
                double vs[4] = {r / 4.0, r / 4.0, (r + 1) / 4.0, (r + 1) / 4.0};
                for (int i = 0; i < 4; i++) {
                    double u = us[i], v = vs[i];
                    double x = (1 - u) * (1 - v) * Vx + u * (1 - v) * Mx + (1 - u) * v * M2x;
                    double y = (1 - u) * (1 - v) * Vy + u * (1 - v) * My + (1 - u) * v * M2y;
                    x = round(x * 1e7) / 1e7;
                    y = round(y * 1e7) / 1e7;
                    CORNER[cell][i] = point_id(x, y);
                }
            }
    }
    /* Colours: a1 dark, side neighbours differ (breadth first). */
    int queue[N], head = 0, tail = 0;
    for (int i = 0; i < N; i++)
        COLOUR[i] = -1;
    int a1 = cell_named("a1");
    COLOUR[a1] = 0;
    queue[tail++] = a1;
    while (head < tail) {
        int x = queue[head++];
        for (int s = 0; s < 4; s++) {
            int e, y = across_side(x, s, &e);
            if (y >= 0 && COLOUR[y] < 0) {
                COLOUR[y] = !COLOUR[x];
                queue[tail++] = y;
            }
        }
    }
    for (int x = 0; x < N; x++) {
        for (int s = 0; s < 4; s++)
            SIDE_NB[x][s] = across_side(x, s, &SIDE_ENTRY[x][s]);
        for (int k = 0; k < 4; k++)
            DIAG_N[x][k] = across_corner(x, k, DIAG_NB[x][k], DIAG_ENTRY[x][k]);
    }
}

/* ------------------------------------------------------------------------ */
/* Positions. */

typedef struct xpos {
    int owner[N]; /* -1 empty */
    char kind[N]; /* 'P' 'N' 'B' 'R' 'Q' 'K' */
    int to_move;
    bool castle[3][2];
    int ep[3];     /* crossed cell of the player's double step, or -1 */
    int takers[3]; /* bit per player who may still take it */
    bool left[3];
    int clock;
} xpos;

static const char PCH[3] = {'w', 'r', 'b'};

static int pl_of(char ch)
{
    for (int i = 0; i < 3; i++)
        if (PCH[i] == ch)
            return i;
    return -1;
}

/* Cells of each rank in alphabetical file order. */
static int RANKCELLS[12][8];

static void ranks_build(void)
{
    for (int rank = 1; rank <= 12; rank++) {
        int n = 0;
        for (char f = 'a'; f <= 'l'; f++) {
            char nm[16];
            snprintf(nm, sizeof nm, "%c%d", f, rank);
            int c = cell_named(nm);
            if (c >= 0)
                RANKCELLS[rank - 1][n++] = c;
        }
        assert_int_equal(n, 8);
    }
}

/* Castling, from the rules file: king from, king to, rook from, rook to,
 * cells between king and rook. */
static const struct {
    const char *k, *kto, *r, *rto, *between[3];
} CASTLING[3][2] = {
    {{"e1", "g1", "h1", "f1", {"f1", "g1", NULL}}, {"e1", "c1", "a1", "d1", {"d1", "c1", "b1"}}},
    {{"d8", "b8", "a8", "c8", {"c8", "b8", NULL}}, {"d8", "j8", "l8", "i8", {"i8", "j8", "k8"}}},
    {{"i12", "k12", "l12", "j12", {"j12", "k12", NULL}},
     {"i12", "f12", "h12", "e12", {"e12", "f12", "g12"}}},
};

/* The position string (format of common/yalta.h), parsed naively: the
 * strings come from the fast parser, so this only needs to read good ones. */
static void xparse(xpos *x, const char *s)
{
    memset(x, 0, sizeof *x);
    for (int i = 0; i < N; i++)
        x->owner[i] = -1;
    for (int rank = 0; rank < 12; rank++) {
        int i = 0;
        while (i < 8) {
            if (*s >= '1' && *s <= '8') {
                i += *s++ - '0';
            } else {
                int c = RANKCELLS[rank][i++];
                x->owner[c] = pl_of(s[0]);
                x->kind[c] = s[1];
                s += 2;
            }
        }
        s++; /* '/' or ' ' */
    }
    x->to_move = pl_of(*s);
    s += 2;
    if (*s == '-') {
        s += 2;
    } else {
        while (*s != ' ') {
            x->castle[pl_of(s[0])][s[1] == 'Q'] = true;
            s += 2;
        }
        s++;
    }
    for (int i = 0; i < 3; i++)
        x->ep[i] = -1;
    if (*s == '-') {
        s += 2;
    } else {
        for (;;) {
            char nm[4] = {0};
            int n = 0;
            while (*s != ':')
                nm[n++] = *s++;
            s++;
            int c = cell_named(nm);
            int owner = SECTION[c];
            x->ep[owner] = c;
            while (*s != ',' && *s != ' ')
                x->takers[owner] |= 1 << pl_of(*s++);
            if (*s++ == ' ')
                break;
        }
    }
    if (*s == '-') {
        s += 2;
    } else {
        while (*s != ' ')
            x->left[pl_of(*s++)] = true;
        s++;
    }
    x->clock = atoi(s);
}

static void xprint(const xpos *x, char *out)
{
    char *o = out;
    for (int rank = 0; rank < 12; rank++) {
        int run = 0;
        for (int i = 0; i < 8; i++) {
            int c = RANKCELLS[rank][i];
            if (x->owner[c] < 0) {
                run++;
                continue;
            }
            if (run)
                *o++ = (char)('0' + run), run = 0;
            *o++ = PCH[x->owner[c]];
            *o++ = x->kind[c];
        }
        if (run)
            *o++ = (char)('0' + run);
        *o++ = rank < 11 ? '/' : ' ';
    }
    *o++ = PCH[x->to_move];
    *o++ = ' ';
    char *c0 = o;
    for (int p = 0; p < 3; p++)
        for (int side = 0; side < 2; side++)
            if (x->castle[p][side]) {
                *o++ = PCH[p];
                *o++ = side ? 'Q' : 'K';
            }
    if (o == c0)
        *o++ = '-';
    *o++ = ' ';
    c0 = o;
    for (int p = 0; p < 3; p++) {
        if (x->ep[p] < 0)
            continue;
        if (o != c0)
            *o++ = ',';
        o += sprintf(o, "%s:", NAME[x->ep[p]]);
        for (int t = 0; t < 3; t++)
            if (x->takers[p] & (1 << t))
                *o++ = PCH[t];
    }
    if (o == c0)
        *o++ = '-';
    *o++ = ' ';
    c0 = o;
    for (int p = 0; p < 3; p++)
        if (x->left[p])
            *o++ = PCH[p];
    if (o == c0)
        *o++ = '-';
    sprintf(o, " %d", x->clock);
}

/* ------------------------------------------------------------------------ */
/* Piece predicates. */

static bool empty(const xpos *x, int c)
{
    return x->owner[c] < 0;
}

/* Does a ray of the given type go from `at` to `to` over empty cells?
 * Orthogonal: leave through side s. Diagonal: leave through corner s. */
static bool ray_reaches(const xpos *x, int at, int s, bool diag, int to)
{
    if (!diag) {
        int y = SIDE_NB[at][s];
        while (y >= 0) {
            if (y == to)
                return true;
            if (!empty(x, y))
                return false;
            int e = SIDE_ENTRY[at][s];
            at = y, s = (e + 2) % 4;
            y = SIDE_NB[at][s];
        }
        return false;
    }
    for (int i = 0; i < DIAG_N[at][s]; i++) {
        int y = DIAG_NB[at][s][i];
        if (y == to)
            return true;
        if (empty(x, y) && ray_reaches(x, y, (DIAG_ENTRY[at][s][i] + 2) % 4, true, to))
            return true;
    }
    return false;
}

static bool slides(const xpos *x, int from, int to, bool diag)
{
    for (int s = 0; s < 4; s++)
        if (ray_reaches(x, from, s, diag, to))
            return true;
    return false;
}

static bool orth_adjacent(int a, int b)
{
    for (int s = 0; s < 4; s++)
        if (SIDE_NB[a][s] == b)
            return true;
    return false;
}

static bool diag_adjacent(int a, int b)
{
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < DIAG_N[a][k]; i++)
            if (DIAG_NB[a][k][i] == b)
                return true;
    return false;
}

static bool knight_jump(int from, int to)
{
    if (to == from || orth_adjacent(from, to))
        return false;
    for (int mid = 0; mid < N; mid++)
        if ((orth_adjacent(from, mid) && diag_adjacent(mid, to)) ||
            (diag_adjacent(from, mid) && orth_adjacent(mid, to)))
            return true;
    return false;
}

/* The pawn's forward side: toward the front (side 2) at home, toward the
 * back rank (side 0) elsewhere. */
static int forward_side(int player, int cell)
{
    return SECTION[cell] == player ? 2 : 0;
}

static bool pawn_captures(int player, int from, int to)
{
    int fs = forward_side(player, from);
    for (int k = fs; k <= fs + 1; k++) /* corners of side fs */
        for (int i = 0; i < DIAG_N[from][k % 4]; i++)
            if (DIAG_NB[from][k % 4][i] == to)
                return true;
    return false;
}

/* Could the piece on `from` capture on `to` (ignoring what stands there and
 * whose turn it is)? */
static bool can_hit(const xpos *x, int from, int to)
{
    switch (x->kind[from]) {
    case 'P':
        return pawn_captures(x->owner[from], from, to);
    case 'N':
        return knight_jump(from, to);
    case 'B':
        return slides(x, from, to, true);
    case 'R':
        return slides(x, from, to, false);
    case 'Q':
        return slides(x, from, to, true) || slides(x, from, to, false);
    case 'K':
        return orth_adjacent(from, to) || diag_adjacent(from, to);
    }
    return false;
}

static bool in_check(const xpos *x, int player)
{
    int king = -1;
    for (int c = 0; c < N; c++)
        if (x->owner[c] == player && x->kind[c] == 'K')
            king = c;
    for (int c = 0; c < N; c++) {
        int o = x->owner[c];
        if (o >= 0 && o != player && !x->left[o] && can_hit(x, c, king))
            return true;
    }
    return false;
}

static bool attacked_by_others(const xpos *x, int player, int cell)
{
    for (int c = 0; c < N; c++) {
        int o = x->owner[c];
        if (o >= 0 && o != player && !x->left[o] && can_hit(x, c, cell))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* Moves. */

typedef struct xmove {
    int from, to;
    char promo;  /* 0 or QRBN */
    int ep_pawn; /* cell of the pawn taken en passant, or -1 */
    int castle;  /* -1 or the side */
    bool dbl;
} xmove;

static int step(int at, int side)
{
    return SIDE_NB[at][side];
}

static void xplay(xpos *x, const xmove *m)
{
    int me = x->to_move;
    char kind = x->kind[m->from];
    bool capture = !empty(x, m->to) || m->ep_pawn >= 0;
    if (m->ep_pawn >= 0)
        x->owner[m->ep_pawn] = -1;
    x->owner[m->to] = me;
    x->kind[m->to] = m->promo ? m->promo : kind;
    x->owner[m->from] = -1;
    if (m->castle >= 0) {
        int r = cell_named(CASTLING[me][m->castle].r),
            rto = cell_named(CASTLING[me][m->castle].rto);
        x->owner[r] = -1;
        x->owner[rto] = me;
        x->kind[rto] = 'R';
    }
    if (kind == 'K')
        x->castle[me][0] = x->castle[me][1] = false;
    for (int p = 0; p < 3; p++)
        for (int side = 0; side < 2; side++) {
            int r = cell_named(CASTLING[p][side].r);
            if (m->from == r || m->to == r)
                x->castle[p][side] = false;
        }
    /* En passant: the mover is struck from every entry; an entry whose pawn
     * is gone or whose crossed cell is occupied ends. */
    for (int p = 0; p < 3; p++) {
        if (x->ep[p] < 0)
            continue;
        x->takers[p] &= ~(1 << me);
        int pawn = step(x->ep[p], forward_side(p, x->ep[p]));
        if (!x->takers[p] || x->owner[pawn] != p || x->kind[pawn] != 'P' || !empty(x, x->ep[p]))
            x->ep[p] = -1, x->takers[p] = 0;
    }
    if (m->dbl) {
        x->ep[me] = step(m->from, forward_side(me, m->from));
        x->takers[me] = 0;
        for (int p = 0; p < 3; p++)
            if (p != me && !x->left[p])
                x->takers[me] |= 1 << p;
    }
    x->clock = (kind == 'P' || capture) ? 0 : x->clock + 1;
    do
        x->to_move = (x->to_move + 1) % 3;
    while (x->left[x->to_move]);
}

static int xmoves(const xpos *x, xmove *out)
{
    int me = x->to_move, n = 0;
    xmove cand[512];
    int nc = 0;
    for (int f = 0; f < N; f++) {
        if (x->owner[f] != me)
            continue;
        char k = x->kind[f];
        for (int t = 0; t < N; t++) {
            if (t == f || x->owner[t] == me)
                continue;
            /* An opponent's king is never taken (unless its owner left). */
            if (!empty(x, t) && x->kind[t] == 'K' && !x->left[x->owner[t]])
                continue;
            xmove m = {f, t, 0, -1, -1, false};
            bool ok = false;
            if (k == 'P') {
                int fs = forward_side(me, f);
                int one = step(f, fs);
                if (empty(x, t)) {
                    if (t == one) {
                        ok = true;
                    } else if (SECTION[f] == me && RANKIDX[f] == 1 && one >= 0 && empty(x, one) &&
                               t == step(one, fs)) {
                        ok = true;
                        m.dbl = true;
                    } else if (pawn_captures(me, f, t)) {
                        for (int p = 0; p < 3; p++)
                            if (x->ep[p] == t && (x->takers[p] & (1 << me))) {
                                ok = true;
                                m.ep_pawn = step(t, forward_side(p, t));
                            }
                    }
                } else {
                    ok = pawn_captures(me, f, t);
                }
                if (ok && SECTION[t] != me && RANKIDX[t] == 0) {
                    for (const char *pr = "QRBN"; *pr; pr++) {
                        m.promo = *pr;
                        cand[nc++] = m;
                    }
                    continue;
                }
            } else {
                ok = can_hit(x, f, t);
            }
            if (ok)
                cand[nc++] = m;
        }
    }
    /* Castling. */
    for (int side = 0; side < 2; side++) {
        if (!x->castle[me][side])
            continue;
        int k = cell_named(CASTLING[me][side].k);
        bool ok = true;
        for (int i = 0; i < 3 && CASTLING[me][side].between[i]; i++)
            ok &= empty(x, cell_named(CASTLING[me][side].between[i]));
        int kto = cell_named(CASTLING[me][side].kto), rto = cell_named(CASTLING[me][side].rto);
        if (!ok || attacked_by_others(x, me, k) || attacked_by_others(x, me, rto) ||
            attacked_by_others(x, me, kto))
            continue;
        cand[nc++] = (xmove){k, kto, 0, -1, side, false};
    }
    for (int i = 0; i < nc; i++) {
        xpos after = *x;
        xplay(&after, &cand[i]);
        if (!in_check(&after, me))
            out[n++] = cand[i];
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Comparison. */

typedef char line[RULES_MOVE_TEXT + RULES_POS_TEXT];

static int cmp_line(const void *a, const void *b)
{
    return strcmp(a, b);
}

static int fast_lines(const char *pos, line *out)
{
    rules_pos p;
    rules_pos_init(&p, &yalta_variant);
    char why[RULES_WHY_TEXT];
    if (yalta_variant.parse_position(&p, pos, why, sizeof why) != 0) {
        print_error("%s\n%s\n", why, pos);
        fail();
    }
    rules_move mv[RULES_MAX_MOVES];
    int n = yalta_variant.legal_moves(&p, mv);
    for (int i = 0; i < n; i++) {
        char mt[RULES_MOVE_TEXT], pt[RULES_POS_TEXT];
        assert_true(yalta_variant.print_move(&p, mv[i], mt, sizeof mt) > 0);
        rules_undo u;
        uint64_t h = p.hash;
        yalta_variant.make(&p, mv[i], &u);
        assert_true(yalta_variant.print_position(&p, pt, sizeof pt) > 0);
        /* The incremental hash equals the hash of the parsed string. */
        rules_pos q;
        rules_pos_init(&q, &yalta_variant);
        if (yalta_variant.parse_position(&q, pt, why, sizeof why) != 0) {
            print_error("%s\nafter %s from %s\n", why, mt, pos);
            fail();
        }
        assert_true(q.hash == p.hash);
        yalta_variant.unmake(&p, mv[i], &u);
        assert_true(p.hash == h);
        snprintf(out[i], sizeof out[i], "%s %s", mt, pt);
    }
    qsort(out, (size_t)n, sizeof *out, cmp_line);
    return n;
}

static int cross_lines(const char *pos, line *out)
{
    xpos x;
    xparse(&x, pos);
    char again[RULES_POS_TEXT];
    xprint(&x, again);
    assert_string_equal(again, pos);
    xmove mv[512];
    int n = xmoves(&x, mv);
    for (int i = 0; i < n; i++) {
        xpos after = x;
        xplay(&after, &mv[i]);
        char pt[RULES_POS_TEXT];
        xprint(&after, pt);
        if (mv[i].promo)
            snprintf(out[i], sizeof out[i], "%s-%s=%c %s", NAME[mv[i].from], NAME[mv[i].to],
                     mv[i].promo, pt);
        else
            snprintf(out[i], sizeof out[i], "%s-%s %s", NAME[mv[i].from], NAME[mv[i].to], pt);
    }
    qsort(out, (size_t)n, sizeof *out, cmp_line);
    return n;
}

static long compared, compared_moves;
static int seen_special[5]; /* ep, castle, promotion, check, no move */

/* Compare the two generators on pos; returns the number of moves. */
static int compare(const char *pos)
{
    static line a[RULES_MAX_MOVES], b[RULES_MAX_MOVES];
    int na = fast_lines(pos, a), nb = cross_lines(pos, b);
    int i = 0, j = 0, bad = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i], b[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        if (bad++ < 6)
            print_error("%s: %s\n", c < 0 ? "only fast" : "only cross", c < 0 ? a[i] : b[j]);
        if (c < 0)
            i++;
        else
            j++;
    }
    if (bad) {
        print_error("position: %s\n", pos);
        fail();
    }
    compared++;
    compared_moves += na;
    return na;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static int soak = 1; /* YALTA_SOAK=n: n times more random games, others */
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Play a random game from pos for at most plies plies, comparing at every
 * position; pawn moves and captures are favoured so that promotions, en
 * passant and mates happen. Sometimes a player leaves. */
static void random_game(const char *start, int plies, bool may_leave)
{
    rules_pos p;
    rules_pos_init(&p, &yalta_variant);
    char why[RULES_WHY_TEXT], pos[RULES_POS_TEXT];
    assert_int_equal(yalta_variant.parse_position(&p, start, why, sizeof why), 0);
    int nleft = 0;
    for (int ply = 0; ply < plies; ply++) {
        yalta_variant.print_position(&p, pos, sizeof pos);
        int n = compare(pos);
        rules_move mv[RULES_MAX_MOVES];
        assert_int_equal(yalta_variant.legal_moves(&p, mv), n);
        if (strstr(pos, ":"))
            seen_special[0]++;
        if (n == 0) {
            seen_special[4]++;
            return;
        }
        for (int c = 0; c < N; c++)
            if (yalta_variant.cell_flags(&p, c) & RULES_CELL_CHECK)
                seen_special[3]++;
        if (may_leave && nleft == 0 && rnd(60) == 0) {
            yalta_variant.leave(&p, (int)rnd(3));
            nleft++;
            continue;
        }
        /* Prefer a capture or a pawn move half of the time. */
        int pick = (int)rnd((unsigned)n);
        if (rnd(2)) {
            for (int tries = 0; tries < 8; tries++) {
                int k = (int)rnd((unsigned)n);
                int owner;
                char what = yalta_variant.piece_at(&p, (int)((mv[k] >> 7) & 127), &owner);
                char mover = yalta_variant.piece_at(&p, (int)(mv[k] & 127), &owner);
                if (what || mover == 'P') {
                    pick = k;
                    break;
                }
            }
        }
        char mt[RULES_MOVE_TEXT];
        yalta_variant.print_move(&p, mv[pick], mt, sizeof mt);
        if (strchr(mt, '='))
            seen_special[2]++;
        char kind = yalta_variant.piece_at(&p, (int)(mv[pick] & 127), &(int){0});
        if (kind == 'K' &&
            (!strcmp(mt, "e1-g1") || !strcmp(mt, "e1-c1") || !strcmp(mt, "d8-b8") ||
             !strcmp(mt, "d8-j8") || !strcmp(mt, "i12-k12") || !strcmp(mt, "i12-f12")))
            seen_special[1]++;
        rules_undo u;
        yalta_variant.make(&p, mv[pick], &u);
    }
}

/* A random legal-looking position: three kings, some pieces each, pawns
 * off the back ranks, castling rights where king and rook stand at home. */
static void random_position(char *out)
{
    xpos x;
    memset(&x, 0, sizeof x);
    for (int i = 0; i < N; i++)
        x.owner[i] = -1;
    for (int i = 0; i < 3; i++)
        x.ep[i] = -1;
    static const char kinds[] = "PPPPNNBBRRQ";
    for (int p = 0; p < 3; p++) {
        int c = cell_named(CASTLING[p][0].k);
        if (rnd(2) || !empty(&x, c)) {
            do
                c = (int)rnd(N);
            while (!empty(&x, c));
        }
        x.owner[c] = p, x.kind[c] = 'K';
        int count = 2 + (int)rnd(10);
        for (int i = 0; i < count; i++) {
            char k = kinds[rnd(sizeof kinds - 1)];
            do
                c = (int)rnd(N);
            while (!empty(&x, c) || (k == 'P' && RANKIDX[c] == 0));
            x.owner[c] = p, x.kind[c] = k;
        }
        /* Sometimes the home set-up corner, for castling. */
        if (rnd(2)) {
            for (int side = 0; side < 2; side++) {
                int k = cell_named(CASTLING[p][side].k), r = cell_named(CASTLING[p][side].r);
                if ((x.kind[k] == 'K' && x.owner[k] == p) && x.owner[r] < 0) {
                    x.owner[r] = p, x.kind[r] = 'R';
                    x.castle[p][side] = true;
                }
            }
        }
    }
    x.to_move = (int)rnd(3);
    x.clock = (int)rnd(20);
    xprint(&x, out);
}

static void test_geometry_examples(void **state)
{
    (void)state;
    /* The geometry of this file agrees with the rules' examples. */
    xpos x;
    memset(&x, 0, sizeof x);
    for (int i = 0; i < N; i++)
        x.owner[i] = -1;
    assert_true(slides(&x, cell_named("e3"), cell_named("e11"), false));
    assert_false(slides(&x, cell_named("e3"), cell_named("k9"), false));
    assert_true(slides(&x, cell_named("c3"), cell_named("g11"), true));
    assert_true(slides(&x, cell_named("c3"), cell_named("l8"), true));
    assert_false(slides(&x, cell_named("c3"), cell_named("k11"), true));
    int n = 0;
    for (int t = 0; t < N; t++)
        n += knight_jump(cell_named("e9"), t);
    assert_int_equal(n, 11);
    /* Steps are symmetric; diagonal neighbours share the colour, side
     * neighbours do not; every cell has at most 4 side neighbours. */
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            assert_int_equal(knight_jump(a, b), knight_jump(b, a));
            assert_int_equal(diag_adjacent(a, b), diag_adjacent(b, a));
            assert_int_equal(orth_adjacent(a, b), orth_adjacent(b, a));
            if (diag_adjacent(a, b))
                assert_int_equal(COLOUR[a], COLOUR[b]);
            if (orth_adjacent(a, b))
                assert_int_not_equal(COLOUR[a], COLOUR[b]);
        }
    assert_int_equal(COLOUR[cell_named("a1")], 0);
    assert_int_equal(COLOUR[cell_named("h1")], 1);
    assert_int_equal(COLOUR[cell_named("a8")], 1);
    assert_int_equal(COLOUR[cell_named("l12")], 1);
    /* Every cell has its four corners as distinct points; 96 cells of a
     * 4x4 grid per kite give 6 * 25 points minus the shared edges. */
    assert_int_equal(NPTS, 6 * 25 - 6 * 5 + 1);
}

static void test_setup(void **state)
{
    (void)state;
    compare(yalta_setup_text());
}

static void test_random_games_from_setup(void **state)
{
    (void)state;
    for (int g = 0; g < 60 * soak; g++)
        random_game(yalta_setup_text(), 120, g % 3 == 0);
}

static void test_random_positions(void **state)
{
    (void)state;
    for (int g = 0; g < 150 * soak; g++) {
        char pos[RULES_POS_TEXT];
        random_position(pos);
        rules_pos p;
        rules_pos_init(&p, &yalta_variant);
        char why[RULES_WHY_TEXT];
        assert_int_equal(yalta_variant.parse_position(&p, pos, why, sizeof why), 0);
        random_game(pos, 30, g % 4 == 0);
    }
    print_message("compared %ld positions, %ld moves; seen: ep %d, castling %d, promotion %d, "
                  "check %d, no move %d\n",
                  compared, compared_moves, seen_special[0], seen_special[1], seen_special[2],
                  seen_special[3], seen_special[4]);
    for (int i = 0; i < 5; i++)
        assert_true(seen_special[i] > 0);
}

static int setup_board(void **state)
{
    (void)state;
    board_build();
    ranks_build();
    return 0;
}

/* Perft by this file's generator alone (no make/unmake of the fast one). */
static uint64_t xperft(const xpos *x, int depth)
{
    xmove mv[512];
    int n = xmoves(x, mv);
    if (depth <= 1)
        return depth <= 0 ? 1 : (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        xpos after = *x;
        xplay(&after, &mv[i]);
        total += xperft(&after, depth - 1);
    }
    return total;
}

/*
 * Without arguments: the cmocka tests. "perft <depth> [position]" counts
 * from the set-up (or the position) with this generator only, so that deep counts can be checked
 * against build/perft (compile this file with -O2 for that).
 */
int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "perft")) {
        setup_board(NULL);
        xpos x;
        xparse(&x, argc == 4 ? argv[3] : yalta_setup_text());
        printf("nodes %llu\n", (unsigned long long)xperft(&x, atoi(argv[2])));
        return 0;
    }
    if (getenv("YALTA_SOAK") && atoi(getenv("YALTA_SOAK")) > 0) {
        soak = atoi(getenv("YALTA_SOAK"));
        rng ^= (uint64_t)soak * 0x9E3779B97F4A7C15ull;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_examples),
        cmocka_unit_test(test_setup),
        cmocka_unit_test(test_random_games_from_setup),
        cmocka_unit_test(test_random_positions),
    };
    return cmocka_run_group_tests(tests, setup_board, NULL);
}
