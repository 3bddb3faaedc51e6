/*
 * test_antchess_cross.c - a second, independent Ant Chess move generator,
 * written straight from ../shared/rules/antchess.md, compared with the fast
 * one in common/antchess.c.
 *
 * Structure, on purpose unlike the fast one: cells are found by (q, r)
 * through a 13x13 map; every piece's moves are found by brute force over
 * every destination cell with a predicate from the rules text (distance,
 * straight line, cells between); the ladybug's turn is found from the angle
 * of the drawing; legality is "no reply of any opponent captures my queen",
 * by generating every pseudo move of each opponent. It parses and prints the
 * position string and the move text itself (the board field through
 * ant_board() of ant_positions.h, the tests' own writer).
 *
 * The two generators must give the same set of (move text, position string
 * after the move) on every position of many random games (from the set-ups,
 * from random sparse positions, with players leaving in ant3), and the same
 * perft counts.
 *
 *   test_antchess_cross                 the cmocka tests
 *   ANT_SOAK=n test_antchess_cross      n times more random games (other seed)
 *   test_antchess_cross --perft G D [POS]  reference perft of game G to depth D
 *                                          (from the set-up or position POS)
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

#include "ant_positions.h"
#include "rules.h"

#define NCELL 127
#define MAXM 1024

static const char files[] = "abcdefghiklmn";
static char rname[NCELL][4];
static int rq[NCELL], rr[NCELL];
static int map[13][13]; /* [q+6][r+6] -> cell or -1 */

static int hexdist(int dq, int dr)
{
    int a = abs(dq), b = abs(dr), c = abs(dq + dr);
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static int at(int q, int r)
{
    if (q < -6 || q > 6 || r < -6 || r > 6)
        return -1;
    return map[q + 6][r + 6];
}

static void ref_setup(void)
{
    memset(map, -1, sizeof map);
    int n = 0;
    for (int f = 0; f < 13; f++) {
        int q = f - 6;
        for (int r = -6; r <= 6; r++) {
            if (abs(q + r) > 6)
                continue;
            int rank = r - (-6 > -6 - q ? -6 : -6 - q) + 1;
            snprintf(rname[n], sizeof rname[n], "%c%d", files[f], rank);
            rq[n] = q;
            rr[n] = r;
            map[q + 6][r + 6] = n;
            n++;
        }
    }
}

static bool on_edge(int c)
{
    return hexdist(rq[c], rr[c]) == 6;
}

/* Unit vectors in clockwise order from north, from the drawing's angles. */
static int unit_q[6], unit_r[6];

static double screen_angle(int dq, int dr)
{
    double x = 1.5 * dq, y = -sqrt(3.0) * (dr + dq / 2.0);
    double a = atan2(y, x) * 180.0 / M_PI + 90.0; /* north = 0, cw grows */
    while (a < 0)
        a += 360.0;
    while (a >= 360.0)
        a -= 360.0;
    return a;
}

static void units_setup(void)
{
    int k = 0;
    for (int dq = -1; dq <= 1; dq++)
        for (int dr = -1; dr <= 1; dr++)
            if (hexdist(dq, dr) == 1) {
                unit_q[k] = dq;
                unit_r[k] = dr;
                k++;
            }
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (screen_angle(unit_q[j], unit_r[j]) < screen_angle(unit_q[i], unit_r[i])) {
                int tq = unit_q[i], tr = unit_r[i];
                unit_q[i] = unit_q[j];
                unit_r[i] = unit_r[j];
                unit_q[j] = tq;
                unit_r[j] = tr;
            }
}

static int unit_index(int dq, int dr)
{
    for (int i = 0; i < 6; i++)
        if (unit_q[i] == dq && unit_r[i] == dr)
            return i;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Reference state. */

typedef struct {
    int np;
    char kind[NCELL]; /* letter or 0 */
    int owner[NCELL];
    int to_move;
    int left;      /* bit mask */
    int just_left; /* the last event was a player leaving, not a turn: the
                      rules speak of a queen that "ends a move" on g7 */
} rs;

static const char owners[] = "brg";

/* Queen corners and the opposite corners, per mode and player. */
static void corner(int np, int pl, int *q, int *r)
{
    static const int c2[2][2] = {{0, -6}, {0, 6}};
    static const int c3[3][2] = {{0, -6}, {-6, 6}, {6, 0}};
    *q = np == 2 ? c2[pl][0] : c3[pl][0];
    *r = np == 2 ? c2[pl][1] : c3[pl][1];
}

/* Soldiers of pl promote on the edges that meet at the opposite corner. */
static bool promo_cell(int np, int pl, int c)
{
    int q, r;
    corner(np, pl, &q, &r);
    int oq = -q, or_ = -r, os = q + r;
    int s = -rq[c] - rr[c];
    return (abs(oq) == 6 && rq[c] == oq) || (abs(or_) == 6 && rr[c] == or_) ||
           (abs(os) == 6 && s == os);
}

static bool active(const rs *s, int pl)
{
    return !(s->left >> pl & 1);
}

/* An obstacle for me: my own piece or an inert one. */
static bool obst(const rs *s, int me, int c)
{
    return s->kind[c] && (s->owner[c] == me || !active(s, s->owner[c]));
}

static bool enemy(const rs *s, int me, int c)
{
    return s->kind[c] && !obst(s, me, c);
}

static int ref_parse(rs *s, int np, const char *text)
{
    memset(s, 0, sizeof *s);
    s->np = np;
    const char *p = text;
    int c = 0;
    for (int f = 0; f < 13; f++) {
        if (f && *p++ != '/')
            return -1;
        while (c < NCELL && rname[c][0] == files[f]) {
            if (*p >= '1' && *p <= '9') {
                int k = (int)strtol(p, (char **)&p, 10);
                while (k-- > 0) {
                    if (c >= NCELL || rname[c][0] != files[f])
                        return -1;
                    c++;
                }
                continue;
            }
            const char *o = strchr(owners, *p);
            if (!*p || !o || !p[1] || !strchr("QASBLGW", p[1]))
                return -1;
            s->owner[c] = (int)(o - owners);
            s->kind[c] = p[1];
            p += 2;
            c++;
        }
    }
    if (*p++ != ' ')
        return -1;
    s->to_move = (int)(strchr(owners, *p++) - owners);
    if (*p++ != ' ')
        return -1;
    if (*p == '-')
        return 0;
    for (; *p && *p != '!'; p++)
        s->left |= 1 << (strchr(owners, *p) - owners);
    s->just_left = *p == '!';
    return 0;
}

/* The board field by ant_board() (ant_positions.h), with this file's cell
 * names (built file by file, rank 1 upwards) and owners; then the rest. */
static void ref_print(const rs *s, char *out)
{
    char file_of[NCELL + 1] = {0}, owner[NCELL];
    for (int c = 0; c < NCELL; c++) {
        file_of[c] = rname[c][0];
        owner[c] = owners[s->owner[c]];
    }
    char *w = ant_board(out, file_of, owner, s->kind);
    w += sprintf(w, " %c ", owners[s->to_move]);
    if (!s->left)
        *w++ = '-';
    for (int pl = 0; pl < s->np; pl++)
        if (s->left >> pl & 1)
            *w++ = owners[pl];
    if (s->just_left)
        *w++ = '!';
    *w = 0;
}

typedef struct {
    int from, to, pivot, ccw, pass;
    int ncap, cap[6];
} rmove;

static void sort_caps(rmove *m)
{
    for (int i = 0; i < m->ncap; i++)
        for (int j = i + 1; j < m->ncap; j++)
            if (m->cap[j] < m->cap[i]) {
                int t = m->cap[i];
                m->cap[i] = m->cap[j];
                m->cap[j] = t;
            }
}

/* Is (from -> to) a straight line? Gives the unit step and the length. */
static bool line(int from, int to, int *uq, int *ur, int *len)
{
    int dq = rq[to] - rq[from], dr = rr[to] - rr[from];
    if (!(dq == 0 || dr == 0 || dq == -dr) || (dq == 0 && dr == 0))
        return false;
    *len = hexdist(dq, dr);
    *uq = dq / *len;
    *ur = dr / *len;
    return true;
}

static int add(rmove *out, int n, int from, int to, const rs *s)
{
    rmove m = {.from = from, .to = to, .pivot = -1};
    if (s->kind[to])
        m.cap[m.ncap++] = to;
    out[n] = m;
    return n + 1;
}

static int ref_pseudo(const rs *s, int me, rmove *out)
{
    int n = 0;
    for (int from = 0; from < NCELL; from++) {
        if (!s->kind[from] || s->owner[from] != me)
            continue;
        char k = s->kind[from];
        if (k == 'L') {
            /* Pivots clockwise from north, cw then ccw; keep the first walk
             * of each (end, captured set). */
            int first = n;
            for (int pi = 0; pi < 6; pi++) {
                int pv = at(rq[from] + unit_q[pi], rr[from] + unit_r[pi]);
                if (pv < 0 || !s->kind[pv])
                    continue;
                for (int turn = 0; turn < 2; turn++) {
                    int v = unit_index(rq[from] - rq[pv], rr[from] - rr[pv]);
                    rmove m = {.from = from, .pivot = pv, .ccw = turn};
                    for (int step = 1; step <= 5; step++) {
                        v = (v + (turn ? 5 : 1)) % 6;
                        int t = at(rq[pv] + unit_q[v], rr[pv] + unit_r[v]);
                        if (t < 0 || obst(s, me, t))
                            break;
                        if (s->kind[t])
                            m.cap[m.ncap++] = t;
                        m.to = t;
                        rmove cand = m;
                        sort_caps(&cand);
                        bool dup = false;
                        for (int j = first; j < n && !dup; j++)
                            dup =
                                out[j].to == cand.to && out[j].ncap == cand.ncap &&
                                memcmp(out[j].cap, cand.cap, sizeof(int) * (size_t)cand.ncap) == 0;
                        if (!dup)
                            out[n++] = cand;
                    }
                }
            }
            continue;
        }
        for (int to = 0; to < NCELL; to++) {
            if (to == from)
                continue;
            int dq = rq[to] - rq[from], dr = rr[to] - rr[from];
            int dist = hexdist(dq, dr), uq, ur, len;
            bool straight = line(from, to, &uq, &ur, &len);
            switch (k) {
            case 'Q':
                if (dist == 1 && !obst(s, me, to))
                    n = add(out, n, from, to, s);
                break;
            case 'A': {
                /* forward: from my corner towards the opposite one */
                int cq, cr;
                corner(s->np, me, &cq, &cr);
                int fu = unit_index(-cq / 6, -cr / 6);
                int u = unit_index(dq, dr);
                if (dist == 1 && u >= 0 && (u == fu || u == (fu + 1) % 6 || u == (fu + 5) % 6) &&
                    !obst(s, me, to))
                    n = add(out, n, from, to, s);
                break;
            }
            case 'S':
                if (!obst(s, me, to) && (dist == 1 || (dist == 2 && straight &&
                                                       !s->kind[at(rq[from] + uq, rr[from] + ur)])))
                    n = add(out, n, from, to, s);
                break;
            case 'B': {
                if (!straight || obst(s, me, to))
                    break;
                bool clear = true;
                for (int i = 1; i < len; i++)
                    clear &= !s->kind[at(rq[from] + i * uq, rr[from] + i * ur)];
                if (clear)
                    n = add(out, n, from, to, s);
                break;
            }
            case 'G':
                if (dist == 2 && !obst(s, me, to))
                    n = add(out, n, from, to, s);
                break;
            case 'W': {
                if (!on_edge(from) || !on_edge(to) || !straight || s->kind[to])
                    break;
                int ne = 0, cap = -1;
                for (int i = 1; i < len; i++) {
                    int c = at(rq[from] + i * uq, rr[from] + i * ur);
                    if (enemy(s, me, c)) {
                        ne++;
                        cap = c;
                    }
                }
                if (ne <= 1) {
                    rmove m = {.from = from, .to = to, .pivot = -1};
                    if (ne == 1)
                        m.cap[m.ncap++] = cap;
                    out[n++] = m;
                }
                break;
            }
            }
        }
    }
    out[n++] = (rmove){.pass = 1, .pivot = -1};
    return n;
}

static int next_active(const rs *s, int pl)
{
    do
        pl = (pl + 1) % s->np;
    while (!active(s, pl));
    return pl;
}

static rs ref_apply(const rs *s, const rmove *m)
{
    rs t = *s;
    int me = s->to_move;
    if (!m->pass) {
        for (int i = 0; i < m->ncap; i++)
            t.kind[m->cap[i]] = 0;
        t.kind[m->to] = s->kind[m->from];
        t.owner[m->to] = me;
        t.kind[m->from] = 0;
        if (t.kind[m->to] == 'A' && promo_cell(s->np, me, m->to))
            t.kind[m->to] = 'S';
    }
    t.to_move = next_active(s, me);
    t.just_left = 0;
    return t;
}

static int queen_of(const rs *s, int pl)
{
    for (int c = 0; c < NCELL; c++)
        if (s->kind[c] == 'Q' && s->owner[c] == pl)
            return c;
    return -1;
}

/* Could some active opponent of pl capture pl's queen by one move? */
static bool ref_check(const rs *s, int pl)
{
    int q = queen_of(s, pl);
    if (q < 0)
        return false;
    static rmove buf[MAXM];
    for (int x = 0; x < s->np; x++) {
        if (x == pl || !active(s, x))
            continue;
        int n = ref_pseudo(s, x, buf);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < buf[i].ncap; j++)
                if (buf[i].cap[j] == q)
                    return true;
    }
    return false;
}

static bool ref_decided(const rs *s)
{
    int last = s->to_move;
    do
        last = (last + s->np - 1) % s->np;
    while (!active(s, last));
    int q = queen_of(s, last);
    if (!s->just_left && q >= 0 && strcmp(rname[q], "g7") == 0 && !ref_check(s, last))
        return true;
    if (s->np == 3) {
        int with = 0;
        for (int pl = 0; pl < 3; pl++)
            with += active(s, pl) && queen_of(s, pl) >= 0;
        if (with == 1)
            return true;
    }
    return false;
}

static int ref_legal(const rs *s, rmove *out)
{
    if (ref_decided(s))
        return 0;
    int me = s->to_move;
    rmove *ps = malloc(sizeof(rmove) * MAXM);
    int n = ref_pseudo(s, me, ps), k = 0;
    for (int i = 0; i < n; i++) {
        rs t = ref_apply(s, &ps[i]);
        if (!ref_check(&t, me))
            out[k++] = ps[i];
    }
    if (k == 0 && s->np == 3) {
        memcpy(out, ps, sizeof(rmove) * (size_t)n);
        k = n;
    }
    free(ps);
    return k;
}

static void ref_move_text(const rmove *m, char *buf)
{
    if (m->pass)
        strcpy(buf, "pass");
    else if (m->pivot >= 0)
        sprintf(buf, "%s-%s@%s%s", rname[m->from], rname[m->to], rname[m->pivot],
                m->ccw ? "ccw" : "cw");
    else
        sprintf(buf, "%s-%s", rname[m->from], rname[m->to]);
}

static uint64_t ref_perft(const rs *s, int depth)
{
    if (depth == 0)
        return 1;
    rmove *ms = malloc(sizeof(rmove) * MAXM);
    int n = ref_legal(s, ms);
    uint64_t total = 0;
    if (depth == 1)
        total = (uint64_t)n;
    else
        for (int i = 0; i < n; i++) {
            rs t = ref_apply(s, &ms[i]);
            total += ref_perft(&t, depth - 1);
        }
    free(ms);
    return total;
}

/* ------------------------------------------------------------------------ */
/* Comparison with the fast generator. */

typedef struct {
    char text[RULES_MOVE_TEXT];
    char after[RULES_POS_TEXT];
} pair;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : strcmp(x->after, y->after);
}

static pair fast_pairs[MAXM], ref_pairs[MAXM];
static rmove ref_buf[MAXM];
static long positions_compared;
static int soak = 1; /* ANT_SOAK=n: n times more random games */

/* Compare both generators on p; returns the number of legal moves. */
static int compare_at(const rules_pos *p)
{
    const rules_variant *v = p->variant;
    char text[RULES_POS_TEXT];
    assert_true(v->print_position(p, text, sizeof text) > 0);
    rs s;
    assert_int_equal(ref_parse(&s, v->nplayers, text), 0);
    char again[RULES_POS_TEXT];
    ref_print(&s, again);
    assert_string_equal(text, again);

    rules_move moves[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    for (int i = 0; i < n; i++) {
        rules_pos q = *p;
        rules_undo u;
        assert_true(v->print_move(p, moves[i], fast_pairs[i].text, RULES_MOVE_TEXT) > 0);
        v->make(&q, moves[i], &u);
        v->print_position(&q, fast_pairs[i].after, RULES_POS_TEXT);
    }
    int rn = ref_legal(&s, ref_buf);
    for (int i = 0; i < rn; i++) {
        ref_move_text(&ref_buf[i], ref_pairs[i].text);
        rs t = ref_apply(&s, &ref_buf[i]);
        ref_print(&t, ref_pairs[i].after);
    }
    qsort(fast_pairs, (size_t)n, sizeof(pair), cmp_pair);
    qsort(ref_pairs, (size_t)rn, sizeof(pair), cmp_pair);
    int i = 0, j = 0;
    bool same = n == rn;
    while (i < n || j < rn) {
        int c = i >= n ? 1 : j >= rn ? -1 : cmp_pair(&fast_pairs[i], &ref_pairs[j]);
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) {
            print_error("only fast: %s -> %s\n", fast_pairs[i].text, fast_pairs[i].after);
            same = false;
            i++;
        } else {
            print_error("only reference: %s -> %s\n", ref_pairs[j].text, ref_pairs[j].after);
            same = false;
            j++;
        }
    }
    if (!same)
        print_error("in position %s\n", text);
    assert_true(same);

    /* The check flag agrees too. */
    int q = queen_of(&s, s.to_move);
    if (q >= 0)
        assert_int_equal((v->cell_flags(p, q) & RULES_CELL_CHECK) != 0, ref_check(&s, s.to_move));
    positions_compared++;
    return n;
}

static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A random game from p, comparing at every position. In ant3 a player may
 * leave on the way. */
static void playout(rules_pos p, int plies, bool may_leave)
{
    const rules_variant *v = p.variant;
    for (int ply = 0; ply < plies; ply++) {
        int n = compare_at(&p);
        if (n == 0)
            return;
        if (may_leave && v->leave && rnd() % 60 == 0) {
            char text[RULES_POS_TEXT];
            v->print_position(&p, text, sizeof text);
            if (strcmp(strrchr(text, ' '), " -") == 0) {
                v->leave(&p, (int)(rnd() % 3));
                continue;
            }
        }
        rules_move moves[RULES_MAX_MOVES];
        v->legal_moves(&p, moves);
        /* Prefer captures now and then, so that games thin out. */
        rules_move m = moves[rnd() % (uint64_t)n];
        if (rnd() % 3 == 0) {
            for (int t = 0; t < 8; t++) {
                rules_move c = moves[rnd() % (uint64_t)n];
                int cells[RULES_MAX_CELLS];
                if (rules_move_captures(&p, c, cells) > 0) {
                    m = c;
                    break;
                }
            }
        }
        rules_undo u;
        v->make(&p, m, &u);
    }
}

/* A random sparse position: a few pieces of each army on random cells. */
static bool random_position(const rules_variant *v, rules_pos *p, bool dense)
{
    rs s;
    memset(&s, 0, sizeof s);
    s.np = v->nplayers;
    static const char kinds[] = "ASBLGWLW";
    for (int pl = 0; pl < s.np; pl++) {
        int c;
        do
            c = (int)(rnd() % NCELL);
        while (s.kind[c]);
        if (pl < 2 || rnd() % 4 != 0) { /* ant3: sometimes green lost it */
            s.kind[c] = 'Q';
            s.owner[c] = pl;
        }
        int extra = dense ? 24 : 2 + (int)(rnd() % 7), counts[128] = {0};
        for (int i = 0; i < extra; i++) {
            char k = kinds[rnd() % 8];
            if (counts[(int)k] >= (k == 'B' ? 1 : k == 'A' || k == 'S' ? 4 : 2))
                continue;
            do
                c = (int)(rnd() % NCELL);
            while (s.kind[c]);
            if (k == 'A' && promo_cell(s.np, pl, c))
                k = 'S';
            if (k == 'W' && rnd() % 4 != 0) { /* worms mostly on the edge */
                int tries = 0;
                while ((s.kind[c] || !on_edge(c)) && tries++ < 200)
                    c = (int)(rnd() % NCELL);
                if (s.kind[c])
                    continue;
            }
            counts[(int)k]++;
            s.kind[c] = k;
            s.owner[c] = pl;
        }
    }
    s.to_move = (int)(rnd() % (uint64_t)s.np);
    char text[RULES_POS_TEXT];
    ref_print(&s, text);
    rules_pos_init(p, v);
    return v->parse_position(p, text, NULL, 0) == 0;
}

static void test_setup_perft(void **state)
{
    (void)state;
    /* Depth 3 here (sanitizers); depth 4 by --perft, see the report. */
    static const char *const ids[] = {"ant2", "ant3"};
    for (int g = 0; g < 2; g++) {
        const rules_variant *v = rules_find(ids[g]);
        rules_pos p;
        rules_pos_init(&p, v);
        char text[RULES_POS_TEXT];
        v->print_position(&p, text, sizeof text);
        rs s;
        assert_int_equal(ref_parse(&s, v->nplayers, text), 0);
        for (int d = 1; d <= 2; d++)
            assert_int_equal(ref_perft(&s, d), rules_perft(&p, d));
    }
}

static void test_random_games_ant2(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, rules_find("ant2"));
    for (int g = 0; g < 8 * soak; g++)
        playout(p, 100, false);
}

static void test_random_games_ant3(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, rules_find("ant3"));
    for (int g = 0; g < 6 * soak; g++)
        playout(p, 100, true);
}

static void random_positions(bool dense, int want, int plies)
{
    static const char *const ids[] = {"ant2", "ant3"};
    int games = 0;
    for (int i = 0; games < want && i < 50 * want; i++) {
        const rules_variant *v = rules_find(ids[i % 2]);
        rules_pos p;
        if (!random_position(v, &p, dense))
            continue;
        playout(p, plies, true);
        games++;
    }
    assert_int_equal(games, want);
}

static void test_random_sparse_positions(void **state)
{
    (void)state;
    random_positions(false, 100 * soak, 30);
}

static void test_random_dense_positions(void **state)
{
    (void)state;
    random_positions(true, 75 * soak, 12);
}

static void test_summary(void **state)
{
    (void)state;
    print_message("positions compared: %ld\n", positions_compared);
    /* About 5,000 a run in make test (the same ones each time: a fixed
     * seed); ANT_SOAK=n compares n times as many, from other seeds. */
    assert_true(positions_compared > 5000 * soak);
}

int main(int argc, char **argv)
{
    ref_setup();
    units_setup();
    if (getenv("ANT_SOAK") && atoi(getenv("ANT_SOAK")) > 0) {
        soak = atoi(getenv("ANT_SOAK"));
        rng_state ^= (uint64_t)soak * 0x9E3779B97F4A7C15ull;
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--perft") == 0) {
        const rules_variant *v = rules_find(argv[2]);
        if (!v)
            return 2;
        rules_pos p;
        rules_pos_init(&p, v);
        char text[RULES_POS_TEXT];
        v->print_position(&p, text, sizeof text);
        rs s;
        if (ref_parse(&s, v->nplayers, argc == 5 ? argv[4] : text) < 0)
            return 2;
        printf("nodes %llu\n", (unsigned long long)ref_perft(&s, atoi(argv[3])));
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_perft),
        cmocka_unit_test(test_random_games_ant2),
        cmocka_unit_test(test_random_games_ant3),
        cmocka_unit_test(test_random_sparse_positions),
        cmocka_unit_test(test_random_dense_positions),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
