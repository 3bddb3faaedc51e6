/*
 * test_ultima_cross.c - a second, independent Ultima move generator written
 * straight from ../shared/rules/ultima.md, compared with common/ultima.c.
 *
 * The reference works on a plain char board ('.' empty, upper case White,
 * lower case Black), tries every (from, to) pair against a rule predicate
 * per piece, builds the board after each move by applying the captures the
 * rules describe, and judges legality by trying EVERY enemy reply and
 * looking for one that removes the king. It shares no code with the module
 * under test: only the text forms (move text, position string) meet.
 *
 * Positions compared: every position along random games from the set-up,
 * and every position along random games from random dense positions
 * (many frozen pieces, leaps, pincers, coordinations, suicides), for both
 * ids. For each position the two sets {move text + resulting position
 * string} must be equal, check and the acceptance of the position string
 * must agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "ultima_positions.h"

/* ------------------------------------------------------------------------ */
/* The reference. */

typedef struct ref {
    char b[64]; /* index 8 * rank + file, a1 = 0 */
    int white_to_move;
    int r1968;
} ref;

static int ref_side(char c) /* 1 white, -1 black, 0 empty */
{
    if (c >= 'A' && c <= 'Z')
        return 1;
    if (c >= 'a' && c <= 'z')
        return -1;
    return 0;
}

static char ref_kind(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

static int on_board(int x, int y)
{
    return x >= 0 && x < 8 && y >= 0 && y < 8;
}

static int iabs(int v)
{
    return v < 0 ? -v : v;
}

/* Is the piece on c (side s) frozen: an enemy immobilizer next to it, or
 * it is an immobilizer and an enemy chameleon is next to it? */
static int ref_frozen(const char *b, int c)
{
    int s = ref_side(b[c]);
    int x = c % 8, y = c / 8;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if ((dx || dy) && on_board(x + dx, y + dy)) {
                char o = b[(y + dy) * 8 + x + dx];
                if (ref_side(o) == -s && ref_kind(o) == 'I')
                    return 1;
                if (ref_side(o) == -s && ref_kind(o) == 'X' && ref_kind(b[c]) == 'I')
                    return 1;
            }
        }
    return 0;
}

/* Try the move f->t of the piece on f; if the rules allow it, write the
 * board after it into after and return 1. No check test here. */
static int ref_try(const ref *r, int f, int t, char *after)
{
    const char *b = r->b;
    char p = b[f];
    int s = ref_side(p);
    char k = ref_kind(p);
    if (f == t || s == 0)
        return 0;
    int fx = f % 8, fy = f / 8, tx = t % 8, ty = t / 8;
    int dx = tx - fx, dy = ty - fy;
    int dist = iabs(dx) > iabs(dy) ? iabs(dx) : iabs(dy);
    int line = dx == 0 || dy == 0 || iabs(dx) == iabs(dy);
    int orth = dx == 0 || dy == 0;
    if (!line)
        return 0;
    if (r->r1968) {
        int n = s == 1 ? fy + 1 : 8 - fy;
        if (dist > n)
            return 0;
    }
    int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
    int killed[64] = {0};

    if (k == 'K') {
        if (dist != 1 || ref_side(b[t]) == s)
            return 0; /* onto an enemy: replaced below */
    } else {
        /* Cells crossed, t excluded. */
        int leaps = 0;
        for (int i = 1; i < dist; i++) {
            int c = (fy + sy * i) * 8 + fx + sx * i;
            if (b[c] == '.')
                continue;
            int next = (fy + sy * (i + 1)) * 8 + fx + sx * (i + 1);
            int can_leap = (k == 'L' && ref_side(b[c]) == -s) ||
                           (k == 'X' && ref_side(b[c]) == -s && ref_kind(b[c]) == 'L');
            if (!can_leap || b[next] != '.')
                return 0;
            killed[c] = 1;
            leaps++;
        }
        if (b[t] != '.') {
            /* Only the chameleon stepping onto the enemy king. */
            if (!(k == 'X' && dist == 1 && ref_side(b[t]) == -s && ref_kind(b[t]) == 'K'))
                return 0; /* replaced below */
        }
        if (k == 'P' && !orth)
            return 0;
    }

    /* The board with the piece moved, before captures leave. */
    char mid[64];
    memcpy(mid, b, 64);
    mid[f] = '.';
    mid[t] = p;

    if (k == 'P' || (k == 'X' && orth)) {
        static const int ox[4] = {1, -1, 0, 0}, oy[4] = {0, 0, 1, -1};
        for (int i = 0; i < 4; i++) {
            int ax = tx + ox[i], ay = ty + oy[i], bx = tx + 2 * ox[i], by = ty + 2 * oy[i];
            if (!on_board(bx, by))
                continue;
            char a = mid[ay * 8 + ax], bb = mid[by * 8 + bx];
            if (ref_side(a) == -s && ref_side(bb) == s && (k == 'P' || ref_kind(a) == 'P'))
                killed[ay * 8 + ax] = 1;
        }
    }
    if (k == 'W' || k == 'X') {
        int bx = fx - sx, by = fy - sy;
        if (on_board(bx, by)) {
            char a = b[by * 8 + bx];
            if (ref_side(a) == -s && (k == 'W' || ref_kind(a) == 'W'))
                killed[by * 8 + bx] = 1;
        }
    }
    if (k == 'C' || k == 'X') {
        int kc = -1;
        for (int c = 0; c < 64; c++)
            if (ref_side(mid[c]) == s && ref_kind(mid[c]) == 'K')
                kc = c;
        if (kc >= 0) {
            int corners[2] = {ty * 8 + kc % 8, (kc / 8) * 8 + tx};
            for (int i = 0; i < 2; i++) {
                char a = mid[corners[i]];
                if (ref_side(a) == -s && (k == 'C' || ref_kind(a) == 'C'))
                    killed[corners[i]] = 1;
            }
        }
    }
    if (k == 'L') {
        /* already marked: every enemy crossed */
    }
    memcpy(after, mid, 64);
    for (int c = 0; c < 64; c++)
        if (killed[c])
            after[c] = '.';
    return 1;
}

static int ref_king(const char *b, int s)
{
    for (int c = 0; c < 64; c++)
        if (ref_side(b[c]) == s && ref_kind(b[c]) == 'K')
            return c;
    return -1;
}

/* Could side s capture the king of -s with some move (legal or not)? */
static int ref_can_take_king(const ref *r, int s)
{
    int kc = ref_king(r->b, -s);
    if (kc < 0)
        return 1;
    ref q = *r;
    q.white_to_move = s == 1;
    char after[64];
    for (int f = 0; f < 64; f++) {
        if (ref_side(r->b[f]) != s || ref_frozen(r->b, f))
            continue;
        for (int t = 0; t < 64; t++)
            if (ref_try(&q, f, t, after) && after[kc] != r->b[kc])
                return 1;
    }
    return 0;
}

/* The position string: board_text() of ultima_positions.h, the tests' own
 * writer (not the module's). */
static void ref_print(const char *b, int white_to_move, char *out)
{
    board_text(b, white_to_move ? 'w' : 'b', out);
}

static void ref_parse(ref *r, const char *text, int r1968)
{
    memset(r->b, '.', 64);
    int y = 7, x = 0;
    const char *s = text;
    for (; *s && *s != ' '; s++) {
        if (*s == '/') {
            y--;
            x = 0;
        } else if (*s >= '1' && *s <= '8') {
            x += *s - '0';
        } else {
            r->b[y * 8 + x++] = *s;
        }
    }
    r->white_to_move = s[1] == 'w';
    r->r1968 = r1968;
}

typedef struct entry {
    char text[8];
    char pos[80];
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : strcmp(x->pos, y->pos);
}

static const char *cell_name(int c, char *buf)
{
    buf[0] = (char)('a' + c % 8);
    buf[1] = (char)('1' + c / 8);
    buf[2] = 0;
    return buf;
}

/* Every legal move of the reference, as text and resulting position. */
static int ref_moves(const ref *r, entry *out)
{
    int s = r->white_to_move ? 1 : -1, n = 0;
    char after[64], a[3], b2[3];
    for (int f = 0; f < 64; f++) {
        if (ref_side(r->b[f]) != s)
            continue;
        int frozen = ref_frozen(r->b, f);
        if (frozen) {
            if (ref_kind(r->b[f]) == 'K')
                continue;
            ref q = *r;
            q.b[f] = '.';
            if (ref_can_take_king(&q, -s))
                continue;
            snprintf(out[n].text, sizeof out[n].text, "%sx", cell_name(f, a));
            ref_print(q.b, !r->white_to_move, out[n].pos);
            n++;
            continue;
        }
        for (int t = 0; t < 64; t++) {
            if (!ref_try(r, f, t, after))
                continue;
            ref q = *r;
            memcpy(q.b, after, 64);
            if (ref_can_take_king(&q, -s))
                continue;
            snprintf(out[n].text, sizeof out[n].text, "%s-%s", cell_name(f, a), cell_name(t, b2));
            ref_print(q.b, !r->white_to_move, out[n].pos);
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* The comparison. */

static uint64_t rng_state = 0x1234567887654321ull;

static uint64_t rnd(void)
{
    return xorshift64(&rng_state);
}

static long compared_positions, compared_moves;

/* Compare the two generators on p; return the number of legal moves. */
static int compare_at(const rules_pos *p, int r1968, rules_move *moves)
{
    const rules_variant *v = p->variant;
    char text[RULES_POS_TEXT];
    assert_true(v->print_position(p, text, sizeof text) > 0);
    ref r;
    ref_parse(&r, text, r1968);

    static entry fast[RULES_MAX_MOVES], slow[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    for (int i = 0; i < n; i++) {
        rules_pos after = *p;
        rules_undo u;
        assert_true(v->print_move(p, moves[i], fast[i].text, sizeof fast[i].text) > 0);
        v->make(&after, moves[i], &u);
        assert_true(v->print_position(&after, fast[i].pos, sizeof fast[i].pos) > 0);
        /* make/unmake restore the position and its hash exactly. */
        v->unmake(&after, moves[i], &u);
        assert_memory_equal(&after, p, sizeof after);
    }
    int m = ref_moves(&r, slow);
    qsort(fast, (size_t)n, sizeof fast[0], entry_cmp);
    qsort(slow, (size_t)m, sizeof slow[0], entry_cmp);
    int same = n == m;
    for (int i = 0; same && i < n; i++)
        same = strcmp(fast[i].text, slow[i].text) == 0 && strcmp(fast[i].pos, slow[i].pos) == 0;
    if (!same) {
        print_error("generators differ at %s (%s): fast %d, reference %d\n", text, v->id, n, m);
        for (int i = 0; i < n; i++)
            print_error("  fast %s %s\n", fast[i].text, fast[i].pos);
        for (int i = 0; i < m; i++)
            print_error("  ref  %s %s\n", slow[i].text, slow[i].pos);
        fail();
    }
    /* Check agrees (cell_flags on the king of the side to move). */
    int s = r.white_to_move ? 1 : -1;
    int kc = ref_king(r.b, s);
    int checked = ref_can_take_king(&r, -s);
    assert_int_equal((v->cell_flags(p, kc) & RULES_CELL_CHECK) != 0, checked);
    /* Frozen pieces agree. */
    for (int c = 0; c < 64; c++) {
        int frozen = r.b[c] != '.' && ref_frozen(r.b, c);
        assert_int_equal((v->cell_flags(p, c) & RULES_CELL_FROZEN) != 0, frozen);
    }
    compared_positions++;
    compared_moves += n;
    return n;
}

/* Play a random game from p, comparing at every position. */
static void random_game(rules_pos *p, int r1968, int max_plies)
{
    rules_move moves[RULES_MAX_MOVES];
    for (int ply = 0; ply < max_plies; ply++) {
        int n = compare_at(p, r1968, moves);
        if (n == 0)
            return;
        rules_undo u;
        p->variant->make(p, moves[rnd() % (uint64_t)n], &u);
    }
}

/* A random dense position with both kings; returns 0 if the fast parser
 * refused it, after checking that the reference agrees on why (the side
 * not to move in check). */
static int random_position(const rules_variant *v, int r1968, rules_pos *p)
{
    static const char kinds[] = "PPPPPPPPWLLCIXX";
    char b[64];
    memset(b, '.', 64);
    for (int side = 0; side < 2; side++) {
        int placed = 0, want = 2 + (int)(rnd() % 14);
        char king = side ? 'k' : 'K';
        int c;
        do
            c = (int)(rnd() % 64);
        while (b[c] != '.');
        b[c] = king;
        for (int i = 0; i < 15 && placed < want; i++) {
            if (rnd() % 3 == 0)
                continue;
            do
                c = (int)(rnd() % 64);
            while (b[c] != '.');
            b[c] = side ? (char)(kinds[i] - 'A' + 'a') : kinds[i];
            placed++;
        }
    }
    char text[80];
    int white = (int)(rnd() % 2);
    ref_print(b, white, text);
    ref r;
    ref_parse(&r, text, r1968);
    int s = white ? 1 : -1;
    int refused_by_ref = ref_can_take_king(&r, s);
    rules_pos_init(p, v);
    char why[RULES_WHY_TEXT];
    int err = v->parse_position(p, text, why, sizeof why);
    assert_int_equal(err < 0, refused_by_ref);
    if (err < 0)
        return 0;
    char back[RULES_POS_TEXT];
    v->print_position(p, back, sizeof back);
    assert_string_equal(back, text);
    return 1;
}

static void cross_variant(const char *id, int r1968, int games_setup, int positions)
{
    const rules_variant *v = rules_find(id);
    assert_non_null(v);
    rules_pos p;
    for (int g = 0; g < games_setup; g++) {
        rules_pos_init(&p, v);
        random_game(&p, r1968, 120);
    }
    int done = 0;
    while (done < positions) {
        if (!random_position(v, r1968, &p))
            continue;
        random_game(&p, r1968, 12);
        done++;
    }
}

/* ULTIMA_CROSS_SCALE=k multiplies the number of games (run by hand in a
 * release build for long checks); ULTIMA_CROSS_SEED changes them. */
static long scale(void)
{
    const char *seed = getenv("ULTIMA_CROSS_SEED");
    if (seed != NULL && atoll(seed) != 0)
        rng_state = (uint64_t)atoll(seed);
    const char *s = getenv("ULTIMA_CROSS_SCALE");
    long k = s ? atol(s) : 1;
    return k > 0 ? k : 1;
}

static void test_cross_ultima(void **state)
{
    (void)state;
    long k = scale();
    cross_variant("ultima", 0, (int)(12 * k), (int)(250 * k));
    print_message("ultima: %ld positions, %ld moves compared\n", compared_positions,
                  compared_moves);
}

static void test_cross_ultima1968(void **state)
{
    (void)state;
    long k = scale();
    compared_positions = compared_moves = 0;
    cross_variant("ultima1968", 1, (int)(8 * k), (int)(200 * k));
    print_message("ultima1968: %ld positions, %ld moves compared\n", compared_positions,
                  compared_moves);
}

/* The set-up counts of the 1968 id, by the reference alone (they are the
 * expectations of tests/perft/ultima1968.epd). */
static uint64_t ref_perft(const ref *r, int depth)
{
    if (depth == 0)
        return 1;
    static entry lists[8][RULES_MAX_MOVES];
    entry *list = lists[depth & 7];
    int n = ref_moves(r, list);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref q;
        ref_parse(&q, list[i].pos, r->r1968);
        total += ref_perft(&q, depth - 1);
    }
    return total;
}

static void test_reference_perft(void **state)
{
    (void)state;
    ref r;
    ref_parse(&r, "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w", 0);
    assert_int_equal(ref_perft(&r, 1), 32);
    assert_int_equal(ref_perft(&r, 2), 944);
    ref_parse(&r, "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w", 1);
    assert_int_equal(ref_perft(&r, 2), 256);
    /* By hand: the reference's counts for a position (the perft EPD files). */
    const char *pos = getenv("ULTIMA_REF_POS");
    if (pos != NULL) {
        const char *depth = getenv("ULTIMA_REF_DEPTH");
        ref_parse(&r, pos, getenv("ULTIMA_REF_1968") != NULL);
        for (int d = 1; d <= (depth ? atoi(depth) : 3); d++)
            print_message("reference %s D%d %llu\n", pos, d, (unsigned long long)ref_perft(&r, d));
    }
    if (getenv("ULTIMA_REF_PERFT")) {
        for (int d = 1; d <= atoi(getenv("ULTIMA_REF_PERFT")); d++)
            print_message("reference 1968 D%d %llu\n", d, (unsigned long long)ref_perft(&r, d));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_perft),
        cmocka_unit_test(test_cross_ultima),
        cmocka_unit_test(test_cross_ultima1968),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
