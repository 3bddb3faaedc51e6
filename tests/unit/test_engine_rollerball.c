/*
 * test_engine_rollerball.c - the bots' hooks of Rollerball (is_capture and
 * evaluate in common/rollerball.c) and the search on them: the capture test
 * agrees with the rules on every legal move of random playouts, in_check
 * with the rules' check flag, set_to_move with the parsed position; a depth 2-3
 * search finds a checkmate and a journey win in one (and a journey win in
 * two); the evaluation is symmetric under the half-turn that swaps the
 * colours, equal at the set-up, and ranks an extra rook, a nearer
 * promotion and a nearer journey higher.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rollerball_positions.h"
#include "rules.h"
#include "search.h"
#include "search_fixture.h"

#define SETUP "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -"

static void eval(const char *text, int32_t *score)
{
    rules_pos p;
    load(&p, text);
    score[0] = score[1] = 0;
    rb()->evaluate(&p, score);
}

/* White's lead: its score minus Black's. */
static int32_t lead(const char *text)
{
    int32_t s[2];
    eval(text, s);
    return s[0] - s[1];
}

/* Random playouts from the set-up; visit every position before each move. */
static void playouts(int games, int plies, uint64_t seed, void (*visit)(rules_pos *p))
{
    uint64_t rng = seed;
    rules_move mv[RULES_MAX_MOVES];
    for (int g = 0; g < games; g++) {
        rules_pos p;
        rules_pos_init(&p, rb());
        for (int k = 0; k < plies; k++) {
            int n = rb()->legal_moves(&p, mv);
            rules_result r = {0};
            r.winner = -1;
            rb()->status(&p, n, &r);
            if (r.over)
                break;
            visit(&p);
            rules_undo u;
            rb()->make(&p, mv[rules_splitmix64(&rng) % (uint64_t)n], &u);
        }
    }
}

static int captures_seen;

static void check_is_capture(rules_pos *p)
{
    rules_move mv[RULES_MAX_MOVES];
    int cells[RULES_MAX_CELLS];
    int n = rb()->legal_moves(p, mv);
    for (int i = 0; i < n; i++) {
        bool want = rules_move_captures(p, mv[i], cells) > 0;
        captures_seen += want;
        assert_int_equal(rb()->is_capture(p, mv[i]), want);
    }
}

static void test_is_capture_agrees_with_rules(void **state)
{
    (void)state;
    captures_seen = 0;
    playouts(150, 60, 1, check_is_capture);
    assert_true(captures_seen > 1000);
}

static int checks_seen;

/* in_check agrees with the rules' check flag on the king's cell; set_to_move
 * gives the position parsed with the other side to move (when that side may
 * move: the side not to move must not be in check) and undoes itself. */
static void check_hooks(rules_pos *p)
{
    const rules_variant *v = rb();
    bool check = false;
    for (int c = 0; c < v->ncells; c++) {
        int owner = -1;
        if (v->piece_at(p, c, &owner) == 'K' && owner == p->to_move)
            check = (v->cell_flags(p, c) & RULES_CELL_CHECK) != 0;
    }
    assert_int_equal(v->in_check(p), check);
    checks_seen += check;
    if (check)
        return;
    rules_pos q = *p;
    v->set_to_move(&q, 1 - p->to_move);
    assert_int_equal(q.to_move, 1 - p->to_move);
    char text[RULES_POS_TEXT];
    assert_true(v->print_position(&q, text, sizeof text) > 0);
    rules_pos parsed;
    load(&parsed, text);
    assert_true(parsed.hash == q.hash);
    v->set_to_move(&q, p->to_move);
    assert_memory_equal(&q, p, sizeof q);
}

static void test_in_check_and_set_to_move(void **state)
{
    (void)state;
    checks_seen = 0;
    playouts(60, 60, 3, check_hooks);
    assert_true(checks_seen > 50);
}

/* The position turned half round with the colours swapped: it is the same
 * game for the other side (the board, the forward directions, promotion and
 * the journey all map onto themselves). */
static void half_turn(const rules_pos *p, rules_pos *q)
{
    const rules_variant *v = rb();
    char sq[7][7];
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            char name[3] = {(char)('a' + 6 - x), (char)('1' + 6 - y), 0};
            int cell = rules_cell_parse(v, name), owner = 0;
            char letter = cell >= 0 ? v->piece_at(p, cell, &owner) : '*';
            sq[y][x] = letter == 0                   ? '.'
                       : letter == '*' || owner == 1 ? letter
                                                     : (char)(letter + 32);
        }
    char text[RULES_POS_TEXT];
    char *o = rb_board_text(text, sq);
    char mine[RULES_POS_TEXT];
    assert_true(v->print_position(p, mine, sizeof mine) > 0);
    const char *flags = strchr(strchr(mine, ' ') + 1, ' ') + 1;
    bool w = strchr(flags, 'W') != NULL, b = strchr(flags, 'B') != NULL;
    sprintf(o, " %c %s%s%s", p->to_move ? 'w' : 'b', b ? "W" : "", w ? "B" : "", w || b ? "" : "-");
    load(q, text);
}

static int symmetric_checked;

static void check_symmetry(rules_pos *p)
{
    rules_pos q;
    half_turn(p, &q);
    int32_t a[2] = {0, 0}, b[2] = {0, 0};
    rb()->evaluate(p, a);
    rb()->evaluate(&q, b);
    assert_int_equal(a[0], b[1]);
    assert_int_equal(a[1], b[0]);
    symmetric_checked++;
}

static void test_evaluate_symmetric(void **state)
{
    (void)state;
    symmetric_checked = 0;
    playouts(40, 80, 2, check_symmetry);
    assert_true(symmetric_checked > 1000);
}

static void test_evaluate_setup_equal(void **state)
{
    (void)state;
    int32_t w[2], b[2];
    eval(SETUP, w);
    eval("2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 b -", b);
    /* Whoever is to move gets the same, and so does the other. */
    assert_int_equal(w[0], b[1]);
    assert_int_equal(w[1], b[0]);
    assert_true(w[0] > 0 && w[0] - w[1] < 50);
}

static void test_evaluate_material(void **state)
{
    (void)state;
    /* Black without its rook c6 (the same for a rook c7), either to move. */
    assert_true(lead("2rbp2/3kp2/2***2/2***2/2***2/2PKR2/2PBR2 w -") > 200);
    assert_true(lead("2rbp2/3kp2/2***2/2***2/2***2/2PKR2/2PBR2 b -") > 200);
    assert_true(lead("3bp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -") > 200);
    /* White without its rook e2. */
    assert_true(lead("2rbp2/2rkp2/2***2/2***2/2***2/2PK3/2PBR2 w -") < -200);
    /* A rook is worth more than a bishop, a bishop more than a pawn. */
    assert_true(lead("2rbp2/3kp2/2***2/2***2/2***2/2PKR2/2P1R2 w -") > 0);
    assert_true(lead("2r1p2/2rkp2/2***2/2***2/2***2/2PKR2/3BR2 w -") > 0);
}

static void test_evaluate_progress(void **state)
{
    (void)state;
    /* A white pawn nearer its promotion cells (d7 vs b4). */
    assert_true(lead("3P3/7/2***2/2***2/2***2/3K3/k6 w -") >
                lead("7/7/2***2/1P***2/2***2/3K3/k6 w -"));
    /* A white king under way, nearer d6 (b5 vs b3), with the black king
     * away from its home. */
    assert_true(lead("7/7/1K***2/2***2/2***2/7/6k w W") > lead("7/7/2***2/2***2/1K***2/7/6k w W"));
    /* A king next to its goal, free and unattacked: far more for the side
     * to move, who can step in and win. */
    assert_true(lead("7/4K2/2***2/2***2/2***2/7/k6 w W") >
                lead("7/4K2/2***2/2***2/2***2/7/k6 b W") + 1000);
    /* Under way on c2 beats standing on d2. */
    assert_true(lead("7/7/2***2/2***2/2***2/2K4/6k w W") >
                lead("7/7/2***2/2***2/2***2/3K3/6k w -"));
}

/* Search `text` at `depth`: the best move must be `want` and a forced win. */
static void expect_win(const char *text, int depth, const char *want)
{
    rules_pos p;
    load(&p, text);
    search_limits l = {.depth = depth};
    search_report r;
    search_clear(ctx);
    assert_int_equal(search_run(ctx, &p, NULL, 0, &l, NULL, NULL, &r), 0);
    char got[RULES_MOVE_TEXT];
    assert_true(rb()->print_move(&p, r.best, got, sizeof got) > 0);
    if (want != NULL)
        assert_string_equal(got, want);
    assert_true(r.score >= SEARCH_WIN_BOUND);
    /* Found at once: in a few nodes (77 at most here), counted, not timed
     * (wall time depends on the machine's load). */
    assert_true(r.nodes < 2000);
}

static void test_search_finds_checkmate(void **state)
{
    (void)state;
    /* b2-b1: the rook rebounds up the a-file and runs on up the b-file. */
    expect_win("6K/7/2***2/k1***2/2***2/1R5/7 w -", 2, "b2-b1");
    expect_win("6k/7/2***2/K1***2/2***2/1r5/7 b -", 3, "b2-b1");
}

static void test_search_finds_journey(void **state)
{
    (void)state;
    /* e6-d6 completes the journey; capturing the rook f7 does not. */
    expect_win("5r1/4K2/2***2/2***2/2***2/7/k6 w W", 2, "e6-d6");
    expect_win("7/7/2***2/2***2/2***2/4k2/K6 b B", 3, "e2-d2");
    /* Two steps (b6, then c6 or c7, then d6) that Black cannot stop. */
    expect_win("7/1K5/2***2/2***2/2***2/7/6k w W", 3, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_capture_agrees_with_rules),
        cmocka_unit_test(test_in_check_and_set_to_move),
        cmocka_unit_test(test_evaluate_symmetric),
        cmocka_unit_test(test_evaluate_setup_equal),
        cmocka_unit_test(test_evaluate_material),
        cmocka_unit_test(test_evaluate_progress),
        cmocka_unit_test(test_search_finds_checkmate),
        cmocka_unit_test(test_search_finds_journey),
    };
    return cmocka_run_group_tests(tests, ctx_setup, ctx_teardown);
}
