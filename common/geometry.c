/*
 * geometry.c - the board geometry of every game (see geometry.h).
 *
 * Each board is built from its description in the rules file: squares for
 * Ultima and Rollerball, Yalta's six kites as bilinear patches of a hexagon,
 * Ant Chess's hexagons from their axial coordinates. The builders name each
 * cell as the rules file does and put it where the variant numbers that
 * name, so the cells come in the core's order whatever order they are built
 * in.
 */
#include "geometry.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* What a builder fills in: the board, and whether every name it gave was a
 * cell of the variant. */
typedef struct build {
    geometry_board *b;
    bool bad;
} build;

/* The cell the variant calls `name`, marked as a polygon of n corners (the
 * corners are the caller's to fill). */
static geometry_cell *cell_named(build *k, const char *name, int npoints)
{
    int i = rules_cell_parse(k->b->variant, name);
    if (i < 0) {
        k->bad = true;
        return NULL;
    }
    geometry_cell *c = &k->b->cells[i];
    c->npoints = npoints;
    c->q = c->r = 0;
    return c;
}

static void point(double *p, double x, double y)
{
    p[0] = x;
    p[1] = y;
}

static void label(build *k, double x, double y, const char *text, char keep)
{
    geometry_board *b = k->b;
    if (b->nlabels == GEOMETRY_MAX_LABELS) {
        k->bad = true;
        return;
    }
    geometry_label *l = &b->labels[b->nlabels++];
    l->x = x;
    l->y = y;
    snprintf(l->text, sizeof l->text, "%s", text);
    l->keep = keep;
}

static geometry_decor *decor(build *k, geometry_decor_kind kind)
{
    geometry_board *b = k->b;
    if (b->ndecor == GEOMETRY_MAX_DECOR) {
        k->bad = true;
        return NULL;
    }
    geometry_decor *d = &b->decor[b->ndecor++];
    d->kind = kind;
    d->cell = -1;
    return d;
}

static void decor_point(geometry_decor *d, double x, double y)
{
    if (d->npoints < GEOMETRY_MAX_DECOR_POINTS)
        point(d->pts[d->npoints++], x, y);
}

/* ------------------------------------------------------------------------ */
/* Square boards. */

static const char FILES8[] = "abcdefgh";

/* Rollerball's hole: c3-e5. */
static bool in_hole(int f, int r)
{
    return f >= 2 && f <= 4 && r >= 2 && r <= 4;
}

/* An n x n board, a1 dark at the first player's bottom left; with a hole,
 * Rollerball's (its cells are not cells, and every cell is on a ring).
 * File letters under the board, rank numbers on its left; each stays on
 * that side when the view turns. */
static void build_squares(build *k, int n, bool hole)
{
    for (int r = 0; r < n; r++) {
        for (int f = 0; f < n; f++) {
            if (hole && in_hole(f, r))
                continue;
            char name[4] = {FILES8[f], (char)('1' + r), '\0'};
            geometry_cell *c = cell_named(k, name, 4);
            if (c == NULL)
                continue;
            double x = f, y = n - 1 - r;
            point(c->poly[0], x, y);
            point(c->poly[1], x + 1, y);
            point(c->poly[2], x + 1, y + 1);
            point(c->poly[3], x, y + 1);
            c->shade = (f + r) % 2 == 0 ? 1 : 0;
            if (hole) {
                bool outer = f == 0 || f == n - 1 || r == 0 || r == n - 1;
                c->ring = outer ? GEOMETRY_RING_OUTER : GEOMETRY_RING_INNER;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        char file[2] = {FILES8[i], '\0'}, rank[16];
        snprintf(rank, sizeof rank, "%d", i + 1);
        label(k, i + 0.5, n + 0.3, file, 'y');
        label(k, -0.3, n - 0.5 - i, rank, 'x');
    }
    geometry_board *b = k->b;
    point(b->homes[0], n / 2.0, n);
    point(b->homes[1], n / 2.0, 0);
    point(b->centre, n / 2.0, n / 2.0);
}

static void build_ultima(build *k)
{
    build_squares(k, 8, false);
}

/* A ring of Rollerball: a loop through the centres of the cells of the
 * square lo..hi (files and ranks), clockwise as seen from above (on the
 * screen: along the bottom to the left, up, along the top to the right,
 * down). */
static void ring_loop(build *k, int lo, int hi)
{
    geometry_decor *d = decor(k, GEOMETRY_DECOR_RING);
    if (d == NULL)
        return;
    for (int f = hi; f > lo; f--)
        decor_point(d, f + 0.5, 6 - lo + 0.5);
    for (int r = lo; r < hi; r++)
        decor_point(d, lo + 0.5, 6 - r + 0.5);
    for (int f = lo; f < hi; f++)
        decor_point(d, f + 0.5, 6 - hi + 0.5);
    for (int r = hi; r > lo; r--)
        decor_point(d, hi + 0.5, 6 - r + 0.5);
}

/* Rollerball: 7x7 without c3-e5; the outer ring is the edge cells, the
 * inner ring the 16 cells round the hole. */
static void build_rollerball(build *k)
{
    build_squares(k, 7, true);
    ring_loop(k, 0, 6);
    ring_loop(k, 1, 5);
    geometry_decor *hole = decor(k, GEOMETRY_DECOR_HOLE);
    if (hole != NULL) {
        decor_point(hole, 2, 2);
        decor_point(hole, 5, 2);
        decor_point(hole, 5, 5);
        decor_point(hole, 2, 5);
    }
}

/* ------------------------------------------------------------------------ */
/* Yalta. */

/*
 * A regular hexagon, centre O, cut into six kites (vertex V, midpoint M on
 * the section's centre line and M' towards the next section). A kite's cell
 * (r, c) is the patch [c/4,(c+1)/4] x [r/4,(r+1)/4] of
 * P(u,v) = (1-u)(1-v)V + u(1-v)M + (1-u)vM' + uvO.
 * White's section is at the bottom (flat bottom side; vertices at 0, 60 ...
 * 300 degrees, counted anticlockwise as on paper); Red follows on White's
 * left, Black on White's right, as the side adjacencies of yalta.md require
 * (a4|a5 joins White's left kite to Red, e4|e9 White's right kite to Black).
 */
static const struct yalta_kite {
    const char *files; /* outer -> centre */
    int ranks[4];      /* back -> front */
    int v, m, mp;      /* angles of V, M and M' (degrees) */
} YALTA_KITES[6] = {
    {"abcd", {1, 2, 3, 4}, 240, 270, 210}, {"hgfe", {1, 2, 3, 4}, 300, 270, 330},
    {"abcd", {8, 7, 6, 5}, 180, 150, 210}, {"lkji", {8, 7, 6, 5}, 120, 150, 90},
    {"hgfe", {12, 11, 10, 9}, 0, 30, 330}, {"lkji", {12, 11, 10, 9}, 60, 30, 90},
};

enum { YALTA_R = 8 }; /* circumradius: 4 cells along each half-side */

/* The point at `deg` degrees (anticlockwise from east) and distance rad. */
static void polar(double *p, double deg, double rad)
{
    point(p, rad * cos((deg * PI) / 180), -rad * sin((deg * PI) / 180));
}

typedef struct kite_frame {
    double V[2], M[2], Mp[2], O[2];
} kite_frame;

static void kite_at(const kite_frame *f, double u, double v, double *out)
{
    for (int i = 0; i < 2; i++)
        out[i] = (1 - u) * (1 - v) * f->V[i] + u * (1 - v) * f->M[i] + (1 - u) * v * f->Mp[i] +
                 u * v * f->O[i];
}

/* One vertex key of an edge: the corner rounded to a thousandth. */
static long corner_key(double x)
{
    long k = (long)floor(x * 1000 + 0.5);
    return k; /* (-0 and 0 are the same long) */
}

static bool same_corner(const double *a, const double *b)
{
    return corner_key(a[0]) == corner_key(b[0]) && corner_key(a[1]) == corner_key(b[1]);
}

/* Do cells a and b share a side (both ends of an edge)? */
static bool side_adjacent(const geometry_cell *a, const geometry_cell *b)
{
    for (int i = 0; i < a->npoints; i++) {
        const double *a0 = a->poly[i], *a1 = a->poly[(i + 1) % a->npoints];
        for (int j = 0; j < b->npoints; j++) {
            const double *b0 = b->poly[j], *b1 = b->poly[(j + 1) % b->npoints];
            if ((same_corner(a0, b0) && same_corner(a1, b1)) ||
                (same_corner(a0, b1) && same_corner(a1, b0)))
                return true;
        }
    }
    return false;
}

/* yalta.md: "a1 is dark; side-adjacent cells differ": breadth-first from
 * the first cell. */
static void shade_by_sides(geometry_board *b, int first)
{
    int queue[RULES_MAX_CELLS], head = 0, tail = 0;
    for (int i = 0; i < b->ncells; i++)
        b->cells[i].shade = -1;
    b->cells[first].shade = 1;
    queue[tail++] = first;
    while (head < tail) {
        int n = queue[head++];
        for (int m = 0; m < b->ncells; m++) {
            if (b->cells[m].shade != -1 || !side_adjacent(&b->cells[n], &b->cells[m]))
                continue;
            b->cells[m].shade = 1 - b->cells[n].shade;
            queue[tail++] = m;
        }
    }
}

static void build_yalta(build *k)
{
    const double mid = YALTA_R * cos(PI / 6);
    for (int s = 0; s < 6; s++) {
        const struct yalta_kite *y = &YALTA_KITES[s];
        kite_frame f = {.O = {0, 0}};
        polar(f.V, y->v, YALTA_R);
        polar(f.M, y->m, mid);
        polar(f.Mp, y->mp, mid);
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++) {
                char name[16];
                snprintf(name, sizeof name, "%c%d", y->files[c], y->ranks[r]);
                geometry_cell *cell = cell_named(k, name, 4);
                if (cell == NULL)
                    continue;
                kite_at(&f, c / 4.0, r / 4.0, cell->poly[0]);
                kite_at(&f, (c + 1) / 4.0, r / 4.0, cell->poly[1]);
                kite_at(&f, (c + 1) / 4.0, (r + 1) / 4.0, cell->poly[2]);
                kite_at(&f, c / 4.0, (r + 1) / 4.0, cell->poly[3]);
            }
        }
        /* File letters beyond the back rank (v < 0), rank numbers beyond
         * the outer file (u < 0). */
        for (int c = 0; c < 4; c++) {
            double p[2];
            char text[2] = {y->files[c], '\0'};
            kite_at(&f, (c + 0.5) / 4, -0.09, p);
            label(k, p[0], p[1], text, 0);
        }
        for (int r = 0; r < 4; r++) {
            double p[2];
            char text[16];
            snprintf(text, sizeof text, "%d", y->ranks[r]);
            kite_at(&f, -0.09, (r + 0.5) / 4, p);
            label(k, p[0], p[1], text, 0);
        }
    }
    int a1 = rules_cell_parse(k->b->variant, "a1");
    if (a1 < 0 || k->bad) {
        k->bad = true;
        return;
    }
    shade_by_sides(k->b, a1);
    geometry_board *b = k->b;
    polar(b->homes[0], 270, YALTA_R);
    polar(b->homes[1], 150, YALTA_R);
    polar(b->homes[2], 30, YALTA_R);
    point(b->centre, 0, 0);
    geometry_decor *d = decor(k, GEOMETRY_DECOR_CENTRE);
    if (d != NULL)
        decor_point(d, 0, 0);
}

/* ------------------------------------------------------------------------ */
/* Ant Chess. */

/* antchess.md: files a..n without j, west to east. */
static const char ANT_FILES[] = "abcdefghiklmn";
enum { ANT_N = 6 }; /* cells from the centre to the edge */

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* The centre of the hexagon at axial (q, r). */
static void hex_centre(int q, int r, double *p)
{
    point(p, 1.5 * q, -sqrt(3) * (r + q / 2.0));
}

/* The name of (q, r): its file, then its place up the file from 1. */
static void ant_name(int q, int r, char *name, size_t len)
{
    snprintf(name, len, "%c%d", ANT_FILES[q + ANT_N], r - imax(-ANT_N, -ANT_N - q) + 1);
}

/* 127 flat-topped hexagons of circumradius 1; three shades; the file
 * letters under each file's bottom cell and above its top cell. */
static void build_ant(build *k)
{
    geometry_board *b = k->b;
    for (int q = -ANT_N; q <= ANT_N; q++) {
        for (int r = -ANT_N; r <= ANT_N; r++) {
            if (q + r > ANT_N || q + r < -ANT_N)
                continue;
            char name[16];
            ant_name(q, r, name, sizeof name);
            geometry_cell *c = cell_named(k, name, 6);
            if (c == NULL)
                continue;
            double o[2];
            hex_centre(q, r, o);
            for (int i = 0; i < 6; i++) {
                double a = (PI / 3) * i;
                point(c->poly[i], o[0] + cos(a), o[1] + sin(a));
            }
            c->hex = true;
            c->q = q;
            c->r = r;
            c->shade = (((q - r) % 3) + 3) % 3;
            c->centre = q == 0 && r == 0;
        }
    }
    for (int q = -ANT_N; q <= ANT_N; q++) {
        int lo = imax(-ANT_N, -ANT_N - q), hi = imin(ANT_N, ANT_N - q);
        double bottom = -sqrt(3) * (lo + q / 2.0), top = -sqrt(3) * (hi + q / 2.0);
        char file[2] = {ANT_FILES[q + ANT_N], '\0'};
        label(k, 1.5 * q, bottom + 1.35, file, 0);
        label(k, 1.5 * q, top - 1.35, file, 0);
    }
    /* Black starts at the bottom (g1); Red opposite (g13) with two players,
     * else at the north-west edge (a7), Green at the north-east (n7). */
    static const char *const homes2[] = {"g1", "g13"}, *const homes3[] = {"g1", "a7", "n7"};
    const char *const *homes = b->variant->nplayers == 2 ? homes2 : homes3;
    for (int p = 0; p < b->variant->nplayers; p++) {
        int i = rules_cell_parse(b->variant, homes[p]);
        if (i < 0 || !b->cells[i].hex) {
            k->bad = true;
            return;
        }
        hex_centre(b->cells[i].q, b->cells[i].r, b->homes[p]);
    }
    point(b->centre, 0, 0);
    geometry_decor *d = decor(k, GEOMETRY_DECOR_CENTRE_CELL);
    if (d != NULL)
        d->cell = rules_cell_parse(b->variant, "g7");
}

/* ------------------------------------------------------------------------ */

static const struct {
    const char *id;
    void (*build)(build *k);
} BUILDERS[] = {
    {"ultima", build_ultima}, {"ultima1968", build_ultima}, {"rollerball", build_rollerball},
    {"yalta", build_yalta},   {"ant2", build_ant},          {"ant3", build_ant},
};

int geometry_build(const rules_variant *v, geometry_board *out)
{
    memset(out, 0, sizeof *out);
    if (v == NULL || v->ncells > RULES_MAX_CELLS || v->nplayers > RULES_MAX_PLAYERS)
        return RULES_EUNKNOWN_GAME;
    out->variant = v;
    out->ncells = v->ncells;
    for (int p = 0; p < v->nplayers; p++) {
        out->colour[p] = v->player_names[p];
        snprintf(out->name[p], sizeof out->name[p], "%s", v->player_names[p]);
        out->name[p][0] = (char)toupper((unsigned char)out->name[p][0]);
    }
    for (size_t i = 0; i < sizeof BUILDERS / sizeof BUILDERS[0]; i++) {
        if (strcmp(BUILDERS[i].id, v->id) != 0)
            continue;
        build k = {out, false};
        BUILDERS[i].build(&k);
        /* Every cell of the variant got its corners. */
        for (int c = 0; c < out->ncells; c++)
            if (out->cells[c].npoints == 0)
                k.bad = true;
        return k.bad ? RULES_EUNKNOWN_GAME : 0;
    }
    return RULES_EUNKNOWN_GAME;
}
