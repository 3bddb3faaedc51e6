/*
 * test_rollerball_cross.c - a second Rollerball move generator, written
 * straight from ../shared/rules/rollerball.md, compared with the fast one.
 *
 * The reference is deliberately different in structure from
 * common/rollerball.c: a 7x7 mailbox of letters, forward directions computed
 * from coordinates, a predicate "can the piece on f reach t" tried for every
 * (from, to) pair, and legality by trying every opponent piece against the
 * king's cell after the move. It parses and prints position strings itself.
 *
 * The two are compared on every position of hundreds of random games (from
 * the set-up and from hand-built positions): the sets of "move text ->
 * resulting position string" must be equal, and so must the game status.
 * Also checked on the way: make/unmake restores the position and its hash,
 * the incremental hash equals the hash of the re-parsed position.
 *
 *   test_rollerball_cross                      run the tests
 *   test_rollerball_cross --perft POS DEPTH    reference perft (for the EPD)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rollerball_positions.h"
#include "rules.h"

/* ------------------------------------------------------------------------ */
/* The reference. */

typedef struct ref_pos {
    char sq[7][7]; /* [y][x]: '.' empty, '#' hole, else PBRK / pbrk */
    int white_to_move;
    int under[2]; /* journey flags: white, black */
} ref_pos;

typedef struct ref_move {
    int fx, fy, tx, ty;
    char promo; /* 0, 'R' or 'B' */
} ref_move;

static int ref_hole(int x, int y)
{
    return x >= 2 && x <= 4 && y >= 2 && y <= 4;
}

static int ref_on(int x, int y)
{
    return x >= 0 && x < 7 && y >= 0 && y < 7 && !ref_hole(x, y);
}

/* Forward unit vector of a cell, from the rules' table (by coordinates). */
static void ref_forward(int x, int y, int *fx, int *fy)
{
    int n = 0;
    if ((y == 0 && x >= 1) || (y == 1 && x >= 2 && x <= 5)) {
        *fx = -1, *fy = 0, n++; /* west */
    }
    if ((x == 0 && y <= 5) || (x == 1 && y >= 1 && y <= 4)) {
        *fx = 0, *fy = 1, n++; /* north */
    }
    if ((y == 6 && x <= 5) || (y == 5 && x >= 1 && x <= 4)) {
        *fx = 1, *fy = 0, n++; /* east */
    }
    if ((x == 6 && y >= 1) || (x == 5 && y >= 2 && y <= 5)) {
        *fx = 0, *fy = -1, n++; /* south */
    }
    assert_int_equal(n, 1);
}

/* Right hand when facing (fx, fy): a quarter turn clockwise. */
static void ref_right(int fx, int fy, int *rx, int *ry)
{
    *rx = fy;
    *ry = -fx;
}

static int ref_white(char c)
{
    return c >= 'A' && c <= 'Z';
}

static int ref_empty(const ref_pos *p, int x, int y)
{
    return p->sq[y][x] == '.';
}

/* Slide from (x, y) along (dx, dy); rebounding once by `rebound` when the
 * next cell is off the board or in the hole. Returns 1 if (tx, ty) is
 * reached over empty cells. kind 'R' rebounds at corners only, 'B' anywhere;
 * sx is the bishop's sideways sign (+1 right, -1 left). */
static int ref_slide(const ref_pos *p, char kind, int x, int y, int dx, int dy, int sx, int tx,
                     int ty)
{
    int sfx, sfy;
    ref_forward(x, y, &sfx, &sfy);
    int cx = x, cy = y, rebounded = 0, steps = 0;
    for (;;) {
        int nx = cx + dx, ny = cy + dy;
        if (!ref_on(nx, ny)) {
            if (rebounded || steps == 0)
                return 0;
            int corner = (cx == 0 || cx == 6) && (cy == 0 || cy == 6);
            if (kind == 'R' && !corner)
                return 0;
            int fx, fy, rx, ry;
            ref_forward(cx, cy, &fx, &fy);
            ref_right(fx, fy, &rx, &ry);
            if (kind == 'R') {
                dx = fx, dy = fy;
            } else if (fx == sfx && fy == sfy) {
                sx = -sx; /* same zone: the sideways part flips */
                dx = fx + sx * rx, dy = fy + sx * ry;
            } else {
                dx = fx + sx * rx, dy = fy + sx * ry;
            }
            rebounded = 1;
            continue;
        }
        cx = nx, cy = ny, steps++;
        if (cx == tx && cy == ty)
            return 1;
        if (!ref_empty(p, cx, cy))
            return 0;
    }
}

/* Can the piece on (x, y) move to (tx, ty), ignoring what stands on the
 * target and whether its own king is left attacked? */
static int ref_reaches(const ref_pos *p, int x, int y, int tx, int ty)
{
    char kind = (char)(p->sq[y][x] & ~32);
    int fx, fy, rx, ry, ddx = tx - x, ddy = ty - y;
    ref_forward(x, y, &fx, &fy);
    ref_right(fx, fy, &rx, &ry);
    switch (kind) {
    case 'K':
        return abs(ddx) <= 1 && abs(ddy) <= 1 && (ddx || ddy);
    case 'P':
        for (int s = -1; s <= 1; s++)
            if (ddx == fx + s * rx && ddy == fy + s * ry)
                return 1;
        return 0;
    case 'B':
        if ((ddx == -fx + rx && ddy == -fy + ry) || (ddx == -fx - rx && ddy == -fy - ry))
            return 1;
        return ref_slide(p, 'B', x, y, fx + rx, fy + ry, 1, tx, ty) ||
               ref_slide(p, 'B', x, y, fx - rx, fy - ry, -1, tx, ty);
    case 'R':
        if ((ddx == -fx && ddy == -fy) || (ddx == rx && ddy == ry) || (ddx == -rx && ddy == -ry))
            return 1;
        if (ref_slide(p, 'R', x, y, fx, fy, 0, tx, ty))
            return 1;
        /* Sideways lines that run on as the next zone's forward line. */
        for (int s = -1; s <= 1; s += 2) {
            int sx = x + s * rx, sy = y + s * ry, nfx, nfy;
            if (!ref_on(sx, sy))
                continue;
            ref_forward(sx, sy, &nfx, &nfy);
            if (nfx != s * rx || nfy != s * ry)
                continue;
            for (int cx = sx, cy = sy; ref_on(cx, cy); cx += nfx, cy += nfy) {
                if (cx == tx && cy == ty)
                    return 1;
                if (!ref_empty(p, cx, cy))
                    break;
            }
        }
        return 0;
    }
    return 0;
}

static void ref_find_king(const ref_pos *p, int white, int *kx, int *ky)
{
    *kx = *ky = -1;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            if (p->sq[y][x] == (white ? 'K' : 'k'))
                *kx = x, *ky = y;
}

static int ref_king_attacked(const ref_pos *p, int white)
{
    int kx, ky;
    ref_find_king(p, white, &kx, &ky);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            char c = p->sq[y][x];
            if (c == '.' || c == '#' || ref_white(c) == white)
                continue;
            if (ref_reaches(p, x, y, kx, ky))
                return 1;
        }
    return 0;
}

static int ref_game_won(const ref_pos *p)
{
    int kx, ky;
    ref_find_king(p, 1, &kx, &ky);
    if (p->under[0] && kx == 3 && ky == 5)
        return 1;
    ref_find_king(p, 0, &kx, &ky);
    if (p->under[1] && kx == 3 && ky == 1)
        return 1;
    return 0;
}

static void ref_play(ref_pos *p, const ref_move *m)
{
    char c = p->sq[m->fy][m->fx];
    int white = ref_white(c);
    if ((c & ~32) == 'K') {
        int side = white ? 0 : 1;
        /* White: d-file to c-file on ranks 1-2; black: d to e on ranks 6-7. */
        int home_x = 3, away_x = white ? 2 : 4;
        int on_rows = white ? (m->fy <= 1 && m->ty <= 1) : (m->fy >= 5 && m->ty >= 5);
        if (on_rows && m->fx == home_x && m->tx == away_x)
            p->under[side] = 1;
        if (on_rows && m->fx == away_x && m->tx == home_x)
            p->under[side] = 0;
    }
    if (m->promo)
        c = white ? m->promo : (char)(m->promo | 32);
    p->sq[m->fy][m->fx] = '.';
    p->sq[m->ty][m->tx] = c;
    p->white_to_move = !p->white_to_move;
}

static int ref_legal(const ref_pos *p, ref_move *out)
{
    int n = 0, white = p->white_to_move;
    if (ref_game_won(p))
        return 0;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            char c = p->sq[y][x];
            if (c == '.' || c == '#' || ref_white(c) != white)
                continue;
            for (int ty = 0; ty < 7; ty++)
                for (int tx = 0; tx < 7; tx++) {
                    char t = p->sq[ty][tx];
                    if (t == '#' || (t != '.' && ref_white(t) == white))
                        continue;
                    if (!ref_reaches(p, x, y, tx, ty))
                        continue;
                    ref_move m = {x, y, tx, ty, 0};
                    /* White pawns promote on e6/e7, black ones on c2/c1. */
                    int promo =
                        (c & ~32) == 'P' && (white ? (tx == 4 && ty >= 5) : (tx == 2 && ty <= 1));
                    for (int k = 0; k < (promo ? 2 : 1); k++) {
                        m.promo = promo ? "RB"[k] : 0;
                        /* Bishops only on light cells; a1 is dark. */
                        if (m.promo == 'B' && (tx + ty) % 2 == 0)
                            continue;
                        ref_pos q = *p;
                        ref_play(&q, &m);
                        if (!ref_king_attacked(&q, white))
                            out[n++] = m;
                    }
                }
        }
    return n;
}

static int ref_parse(ref_pos *p, const char *s)
{
    memset(p, 0, sizeof *p);
    int y = 6, x = 0;
    for (; *s && *s != ' '; s++) {
        if (*s == '/') {
            if (x != 7)
                return -1;
            y--, x = 0;
        } else if (*s >= '1' && *s <= '7') {
            for (int k = 0; k < *s - '0'; k++)
                p->sq[y][x++] = '.';
        } else {
            p->sq[y][x++] = *s == '*' ? '#' : *s;
        }
        if (x > 7 || y < 0)
            return -1;
    }
    if (y != 0 || x != 7 || *s != ' ')
        return -1;
    p->white_to_move = s[1] == 'w';
    p->under[0] = strchr(s + 3, 'W') != NULL;
    p->under[1] = strchr(s + 3, 'B') != NULL;
    return 0;
}

static void ref_print(const ref_pos *p, char *buf)
{
    char sq[7][7];
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            sq[y][x] = p->sq[y][x] == '#' ? '*' : p->sq[y][x];
    char *o = rb_board_text(buf, sq);
    o += sprintf(o, " %c %s%s%s", p->white_to_move ? 'w' : 'b', p->under[0] ? "W" : "",
                 p->under[1] ? "B" : "", p->under[0] || p->under[1] ? "" : "-");
}

static void ref_move_text(const ref_move *m, char *buf)
{
    int n = sprintf(buf, "%c%d-%c%d", 'a' + m->fx, m->fy + 1, 'a' + m->tx, m->ty + 1);
    if (m->promo)
        sprintf(buf + n, "=%c", m->promo);
}

static uint64_t ref_perft(const ref_pos *p, int depth)
{
    ref_move moves[256];
    int n = ref_legal(p, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref_pos q = *p;
        ref_play(&q, &moves[i]);
        total += ref_perft(&q, depth - 1);
    }
    return total;
}

/* ------------------------------------------------------------------------ */
/* Comparison. */

enum { LINE = 2 * RULES_POS_TEXT };

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* What the random games went through (so that the test shows it covered
 * promotions, journeys and every ending). */
static struct {
    long promotions, underway, journeys, mates, stalemates, checks;
} seen;

static char (*fast_lines)[LINE];
static char (*ref_lines)[LINE];

/* Compare both generators on p; returns the number of legal moves and
 * checks make/unmake and the hash on the way. */
static int compare_position(rules_pos *p)
{
    const rules_variant *v = p->variant;
    char pos_text[RULES_POS_TEXT];
    assert_true(v->print_position(p, pos_text, sizeof pos_text) > 0);

    /* The incremental hash equals the hash of the re-parsed position. */
    rules_pos again;
    rules_pos_init(&again, v);
    char why[RULES_WHY_TEXT];
    assert_int_equal(v->parse_position(&again, pos_text, why, sizeof why), 0);
    assert_true(again.hash == p->hash);

    rules_move moves[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    for (int i = 0; i < n; i++) {
        rules_pos before = *p;
        rules_undo u;
        char mt[RULES_MOVE_TEXT], after[RULES_POS_TEXT];
        assert_true(v->print_move(p, moves[i], mt, sizeof mt) > 0);
        rules_move parsed;
        assert_int_equal(v->parse_move(p, mt, &parsed, why, sizeof why), 0);
        assert_true(parsed == moves[i]);
        v->make(p, moves[i], &u);
        assert_true(v->print_position(p, after, sizeof after) > 0);
        snprintf(fast_lines[i], LINE, "%s -> %s", mt, after);
        v->unmake(p, moves[i], &u);
        assert_true(p->hash == before.hash && p->to_move == before.to_move);
        assert_memory_equal(p->data, before.data, sizeof p->data);
    }

    ref_pos r;
    assert_int_equal(ref_parse(&r, pos_text), 0);
    ref_move rm[256];
    int rn = ref_legal(&r, rm);
    for (int i = 0; i < rn; i++) {
        char mt[16], after[RULES_POS_TEXT];
        ref_pos q = r;
        ref_play(&q, &rm[i]);
        ref_move_text(&rm[i], mt);
        ref_print(&q, after);
        snprintf(ref_lines[i], LINE, "%s -> %s", mt, after);
    }
    qsort(fast_lines, (size_t)n, LINE, cmp_str);
    qsort(ref_lines, (size_t)rn, LINE, cmp_str);
    int same = n == rn;
    for (int i = 0; same && i < n; i++)
        same = strcmp(fast_lines[i], ref_lines[i]) == 0;
    if (!same) {
        print_error("position %s: fast %d moves, reference %d\n", pos_text, n, rn);
        for (int i = 0; i < n; i++)
            print_error("  fast %s\n", fast_lines[i]);
        for (int i = 0; i < rn; i++)
            print_error("  ref  %s\n", ref_lines[i]);
        fail();
    }

    for (int i = 0; i < n; i++)
        seen.promotions += strchr(fast_lines[i], '=') != NULL;
    seen.underway += r.under[0] || r.under[1];

    /* Status: journey, checkmate, stalemate. */
    rules_result res = {.winner = -1};
    v->status(p, n, &res);
    int won = ref_game_won(&r);
    int mover_in_check = ref_king_attacked(&r, r.white_to_move);
    seen.journeys += won;
    seen.checks += mover_in_check;
    seen.mates += !won && rn == 0 && mover_in_check;
    seen.stalemates += !won && rn == 0 && !mover_in_check;
    if (won) {
        assert_true(res.over && res.reason == RULES_REASON_JOURNEY);
    } else if (rn == 0) {
        assert_true(res.over);
        assert_int_equal(res.reason,
                         mover_in_check ? RULES_REASON_CHECKMATE : RULES_REASON_STALEMATE);
        assert_int_equal(res.winner, mover_in_check ? (r.white_to_move ? 1 : 0) : -1);
    } else {
        assert_false(res.over);
    }
    int kx, ky;
    ref_find_king(&r, r.white_to_move, &kx, &ky);
    int kcell = rules_cell_parse(v, (char[]){(char)('a' + kx), (char)('1' + ky), 0});
    assert_int_equal((v->cell_flags(p, kcell) & RULES_CELL_CHECK) != 0, mover_in_check);
    return n;
}

static uint64_t rng_state = 0x12345678abcdefu;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* Random games from `start`; every position along the way is compared. */
static void random_games(const char *start, int games, int max_plies, long *positions)
{
    const rules_variant *v = rb();
    for (int g = 0; g < games; g++) {
        rules_pos p;
        rules_pos_init(&p, v);
        char why[RULES_WHY_TEXT];
        if (start != NULL)
            assert_int_equal(v->parse_position(&p, start, why, sizeof why), 0);
        for (int ply = 0; ply < max_plies; ply++) {
            int n = compare_position(&p);
            (*positions)++;
            if (n == 0)
                break;
            rules_move moves[RULES_MAX_MOVES];
            v->legal_moves(&p, moves);
            /* Prefer captures and king moves now and then: more endings,
             * promotions and journeys than a uniform choice. */
            int pick = (int)(rng() % (uint32_t)n);
            rules_undo u;
            v->make(&p, moves[pick], &u);
        }
    }
}

static void test_random_from_setup(void **state)
{
    (void)state;
    long positions = 0;
    random_games(NULL, 300, 200, &positions);
    print_message("compared %ld positions from the set-up\n", positions);
    assert_true(positions > 10000);
}

/* Hand-built starts: kings near their journey lines, pawns near promotion,
 * open boards for long bishop and rook lines. */
static const char *const starts[] = {
    "7/7/2***2/2***2/2***2/k6/3K3 w -",       "3K3/7/2***2/2***2/2***2/7/3k3 w WB",
    "3P3/2k4/2***2/2***2/2***2/7/K2p3 w -",   "2r4/1P1k3/2***2/2***2/2***2/3K1p1/7 w -",
    "b5r/7/B1***1R/2***2/r1***1B/7/3K2k w -", "7/2kR3/2***2/2***2/2***2/2K4/7 b W",
    "r6/6b/2***2/R1***2/2***2/B5K/k6 b -",    "7/5k1/2***1P/P1***2/1p***2/7/3K2p w -",
};

static void test_random_from_hand_built(void **state)
{
    (void)state;
    long positions = 0;
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        random_games(starts[i], 40, 120, &positions);
    print_message("compared %ld positions from hand-built starts\n", positions);
    assert_true(positions > 3000);
    print_message("seen: %ld promotion moves, %ld positions with a king under way, "
                  "%ld journeys won, %ld checks, %ld checkmates, %ld stalemates\n",
                  seen.promotions, seen.underway, seen.journeys, seen.checks, seen.mates,
                  seen.stalemates);
    assert_true(seen.promotions > 0 && seen.underway > 0 && seen.journeys > 0);
    assert_true(seen.checks > 0 && seen.mates > 0 && seen.stalemates > 0);
}

/* The reference agrees with the rules file's perft from the set-up. */
static void test_reference_perft_setup(void **state)
{
    (void)state;
    ref_pos r;
    assert_int_equal(ref_parse(&r, "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -"), 0);
    static const uint64_t expect[] = {7, 49, 476, 4652};
    for (int d = 1; d <= 4; d++)
        assert_int_equal(ref_perft(&r, d), expect[d - 1]);
}

/* The hand-built EPD lines: the reference counts equal the fast ones. */
static void test_reference_perft_hand_built(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        ref_pos r;
        assert_int_equal(ref_parse(&r, starts[i]), 0);
        rules_pos p;
        rules_pos_init(&p, v);
        assert_int_equal(v->parse_position(&p, starts[i], NULL, 0), 0);
        for (int d = 1; d <= 3; d++)
            assert_int_equal(ref_perft(&r, d), rules_perft(&p, d));
    }
}

int main(int argc, char **argv)
{
    static char fl[RULES_MAX_MOVES][LINE], rl[RULES_MAX_MOVES][LINE];
    fast_lines = fl;
    ref_lines = rl;
    if (argc == 4 && strcmp(argv[1], "--perft") == 0) {
        ref_pos r;
        if (ref_parse(&r, argv[2]) < 0) {
            fprintf(stderr, "bad position\n");
            return 2;
        }
        printf("%llu\n", (unsigned long long)ref_perft(&r, atoi(argv[3])));
        return 0;
    }
    const char *seed = getenv("ROLLERBALL_SEED");
    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 0) | 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_perft_setup),
        cmocka_unit_test(test_reference_perft_hand_built),
        cmocka_unit_test(test_random_from_setup),
        cmocka_unit_test(test_random_from_hand_built),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
