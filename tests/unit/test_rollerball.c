/*
 * test_rollerball.c - Rollerball rules (../shared/rules/rollerball.md):
 * the worked examples, pawns and promotion, check by a rebounding bishop,
 * the king's journey, game endings through rules_game, move text and
 * position strings (round trips and malformed input).
 *
 * Expected values come from the rules file (the worked-examples table) or
 * are derived by hand from its text; each test says which.
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

#define SETUP "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -"

/* A position string from pieces written "Bg6 Ka2 kc7" (upper case white). */
static void build(const char *pieces, char side, const char *flags, char *out)
{
    char sq[7][7];
    memset(sq, '.', sizeof sq);
    for (int y = 2; y <= 4; y++)
        for (int x = 2; x <= 4; x++)
            sq[y][x] = '*';
    for (const char *s = pieces; *s; s += s[3] ? 4 : 3) {
        int x = s[1] - 'a', y = s[2] - '1';
        assert_true(x >= 0 && x < 7 && y >= 0 && y < 7 && sq[y][x] == '.');
        sq[y][x] = s[0];
        if (!s[3])
            break;
    }
    char *o = rb_board_text(out, sq);
    sprintf(o, " %c %s", side, flags);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted, space-separated destinations of the legal moves from `cell`
 * (promotions written "e6=R"). */
static void destinations(const rules_pos *p, const char *cell, char *out)
{
    const rules_variant *v = p->variant;
    rules_move moves[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    static char texts[RULES_MAX_MOVES][RULES_MOVE_TEXT];
    const char *list[RULES_MAX_MOVES];
    int k = 0;
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT];
        assert_true(v->print_move(p, moves[i], t, sizeof t) > 0);
        if (strncmp(t, cell, 2) == 0 && t[2] == '-') {
            snprintf(texts[k], sizeof texts[k], "%s", t + 3);
            list[k] = texts[k];
            k++;
        }
    }
    qsort(list, (size_t)k, sizeof list[0], cmp_str);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, list[i]);
    }
}

/* The legal destinations of the piece on `cell` in the position of
 * `pieces` (see build) must be `expect`. */
static void expect_destinations(const char *pieces, char side, const char *cell, const char *expect)
{
    char text[RULES_POS_TEXT], got[256];
    build(pieces, side, "-", text);
    rules_pos p;
    load(&p, text);
    destinations(&p, cell, got);
    if (strcmp(got, expect) != 0)
        print_error("%s, %s to move: %s goes to %s\n", pieces, side == 'w' ? "white" : "black",
                    cell, got);
    assert_string_equal(got, expect);
}

/* ------------------------------------------------------------------------ */
/* The worked examples of rollerball.md, row by row. */

static const struct {
    const char *piece, *white_king, *black_king, *expect;
} examples[] = {
    {"Bg6", "a2", "c7", "f5 f7 g4"},
    {"Bf3", "a2", "c7", "a4 b3 c2 d1 e2 f1 g2 g4"},
    {"Bf5", "a2", "c7", "d1 e2 e6 f3 g4 g6"},
    {"Be6", "a2", "b7", "d1 d7 e2 f3 f5 f7 g4 g6"},
    {"Ba6", "g1", "g7", "b5 b7 c6"},
    {"Rb1", "g4", "d6", "a1 a2 a3 a4 a5 a6 a7 b2 b3 b4 b5 b6 b7 c1"},
    {"Rd1", "g4", "d6", "a1 a2 a3 a4 a5 a6 a7 b1 c1 d2 e1"},
    {"Ra1", "g4", "d6", "a2 a3 a4 a5 a6 a7 b1 b7 c7 d7 e7 f7 g7"},
    {"Rb2", "g4", "d6", "a2 b1 b3 b4 b5 b6 b7 c2"},
    {"Ra2", "g4", "d6", "a1 a3 a4 a5 a6 a7 b2 b7 c7 d7 e7 f7 g7"},
    {"Rf1", "a4", "d6", "a1 a2 a3 b1 c1 d1 e1 f2 g1"},
};

static void test_worked_examples(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char pieces[32];
        snprintf(pieces, sizeof pieces, "%s K%s k%s", examples[i].piece, examples[i].white_king,
                 examples[i].black_king);
        expect_destinations(pieces, 'w', examples[i].piece + 1, examples[i].expect);
    }
}

/* The set-up: white's moves, by hand from the rules (the rooks are boxed
 * in, the bishop d1 has c2/e2 taken by its own side). */
static void test_setup_moves(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, rb());
    char text[RULES_POS_TEXT];
    assert_true(rb()->print_position(&p, text, sizeof text) > 0);
    assert_string_equal(text, SETUP);
    /* The same pieces, listed from the rules' set-up. */
    static const char *const setup = "Pc1 Pc2 Bd1 Kd2 Re1 Re2 pe7 pe6 bd7 kd6 rc7 rc6";
    /* Pawn c2 (forward west): b2, b3 (forward-right), b1 (forward-left). */
    expect_destinations(setup, 'w', "c2", "b1 b2 b3");
    /* Pawn c1: forward b1; forward-right b2; forward-left off the board. */
    expect_destinations(setup, 'w', "c1", "b1 b2");
    /* Rook e1: forward d1 is taken; sideways e2 own, e0 off; back f1. */
    expect_destinations(setup, 'w', "e1", "f1");
    /* Rook e2: forward d2 own king; sideways e3 hole, e1 own; back f2. */
    expect_destinations(setup, 'w', "e2", "f2");
    /* King d2: c1 c2 d1 e1 e2 own, c3 d3 e3 hole. */
    expect_destinations(setup, 'w', "d2", "");
    /* Bishop d1: forward diagonals c2 (own) and c0 (off); back e2 (own)
     * and e0 (off). */
    expect_destinations(setup, 'w', "d1", "");
}

/* ------------------------------------------------------------------------ */
/* Pawns and promotion. */

static void test_pawn_moves_and_captures(void **state)
{
    (void)state;
    /* Pawn b4 (forward north): b5 forward, a5 forward-left, c5 is the hole.
     * A black rook on b5 is captured forward; a white rook on a5 blocks. */
    expect_destinations("Pb4 rb5 Ra5 Kg1 kf6", 'w', "b4", "b5");
    /* Diagonal forward onto an enemy piece captures; onto an empty cell
     * moves. Pawn f6 (forward south): f5, e5 hole, g5. */
    expect_destinations("Pf6 bg5 Ka1 kc7", 'w', "f6", "f5 g5");
    /* Black pawns run the same way round: black pawn c6 (forward east):
     * d6, d7 (forward-left), d5 hole. */
    expect_destinations("pc6 Ka1 kg1", 'b', "c6", "d6 d7");
    /* No backward or sideways pawn move: pawn a3 (north) never goes to a2,
     * b3 or b2. */
    expect_destinations("Pa3 Kg1 kg7", 'w', "a3", "a4 b4");
}

static void test_promotion(void **state)
{
    (void)state;
    char text[RULES_POS_TEXT], got[256], why[RULES_WHY_TEXT];
    const rules_variant *v = rb();
    rules_pos p;
    rules_move m;
    /* White pawn d6 (forward east): e6 (light) rook or bishop, e7 (dark,
     * forward-left) rook only, e5 is the hole. */
    build("Pd6 Ka1 kg1", 'w', "-", text);
    load(&p, text);
    destinations(&p, "d6", got);
    assert_string_equal(got, "e6=B e6=R e7=R");
    assert_int_equal(v->parse_move(&p, "d6-e6=B", &m, why, sizeof why), 0);
    rules_undo u;
    v->make(&p, m, &u);
    int owner = -1;
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "e6"), &owner), 'B');
    assert_int_equal(owner, 0);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "d6"), &owner), 0);
    v->unmake(&p, m, &u);
    assert_int_equal(v->parse_move(&p, "d6-e7=R", &m, why, sizeof why), 0);
    v->make(&p, m, &u);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "e7"), &owner), 'R');
    v->unmake(&p, m, &u);
    /* Never a bishop on the dark cell; the promotion must be written. */
    assert_int_equal(v->parse_move(&p, "d6-e7=B", &m, why, sizeof why), RULES_EILLEGAL);
    assert_non_null(strstr(why, "d6-e7=B"));
    assert_int_equal(v->parse_move(&p, "d6-e6", &m, why, sizeof why), RULES_EBAD_MOVE_TEXT);
    assert_int_equal(v->parse_move(&p, "d6-e6=Q", &m, why, sizeof why), RULES_EBAD_MOVE_TEXT);
    assert_int_equal(v->parse_move(&p, "d6-e6=r", &m, why, sizeof why), RULES_EBAD_MOVE_TEXT);
    /* The rook from e7 then moves as a rook (forward east: f7, g7, then
     * the corner rebound down the g-file to g1, which the black king has
     * just left; e6 sideways, d7 back). */
    assert_int_equal(v->parse_move(&p, "d6-e7=R", &m, why, sizeof why), 0);
    v->make(&p, m, &u);
    assert_int_equal(v->parse_move(&p, "g1-f1", &m, why, sizeof why), 0);
    v->make(&p, m, &u);
    destinations(&p, "e7", got);
    assert_string_equal(got, "d7 e6 f7 g1 g2 g3 g4 g5 g6 g7");

    /* Black pawn d2 (forward west): c2 (light) rook or bishop, c1 (dark,
     * forward-left) rook only; a promotion may capture. */
    build("pd2 Rc1 Ka7 kg7", 'b', "-", text);
    load(&p, text);
    destinations(&p, "d2", got);
    assert_string_equal(got, "c1=R c2=B c2=R");
    assert_int_equal(v->parse_move(&p, "d2-c1=R", &m, why, sizeof why), 0);
    v->make(&p, m, &u);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "c1"), &owner), 'R');
    assert_int_equal(owner, 1);
    assert_true(v->print_position(&p, text, sizeof text) > 0);
    assert_string_equal(text, "K5k/7/2***2/2***2/2***2/7/2r4 w -");
}

/* ------------------------------------------------------------------------ */
/* Check. */

/* Black to move in the position of `pieces`: is the black king on `cell`
 * shown in check? */
static bool black_in_check(const char *pieces, const char *cell)
{
    char text[RULES_POS_TEXT];
    rules_pos p;
    build(pieces, 'b', "-", text);
    load(&p, text);
    return (rb()->cell_flags(&p, rules_cell_parse(rb(), cell)) & RULES_CELL_CHECK) != 0;
}

static void test_check_by_rebounding_bishop(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    char text[RULES_POS_TEXT], got[256], why[RULES_WHY_TEXT];
    rules_pos p;
    rules_move m;
    /* Bishop f5 (forward south) goes g4, rebounds (same zone: sideways
     * flips) to f3, e2, d1 (rules example): the black king on e2 is in
     * check. */
    build("Bf5 Ka7 ke2", 'b', "-", text);
    load(&p, text);
    int e2 = rules_cell_parse(v, "e2");
    assert_true(v->cell_flags(&p, e2) & RULES_CELL_CHECK);
    /* The king may not stay on the line: d1 is on it too; f3 as well.
     * Its other neighbours: d2 e1 f1 f2 (d3 e3 f3... d3/e3 are the hole). */
    destinations(&p, "e2", got);
    assert_string_equal(got, "d2 e1 f1 f2");
    assert_int_equal(v->parse_move(&p, "e2-d1", &m, why, sizeof why), RULES_ESELF_CHECK);
    assert_int_equal(v->parse_move(&p, "e2-f3", &m, why, sizeof why), RULES_ESELF_CHECK);
    assert_non_null(strstr(why, "e2-f3"));
    /* A piece on g4 (the rebound cell) blocks the check. */
    assert_false(black_in_check("Bf5 Pg4 Ka7 ke2", "e2"));
    /* The side not to move may not be in check in a position string. */
    build("Bf5 Ka7 ke2", 'w', "-", text);
    rules_pos q;
    rules_pos_init(&q, v);
    assert_int_equal(v->parse_position(&q, text, why, sizeof why), RULES_EBAD_POSITION);
    /* Bishop a6 rebounds off b7 (other zone: forward-right of b7, east)
     * to c6: a king on c6 is in check, one on d5... is the hole. */
    assert_true(black_in_check("Ba6 Kg1 kc6", "c6"));
    /* Bishop g1 (forward west): forward-left is g0, off the board at once
     * (no rebound); forward-right f2, then e3 is the hole: rebound at f2
     * (same zone, the sideways part flips) to e1. A king on e1 is in check,
     * one on f1 or d1 is not. */
    assert_true(black_in_check("Bg1 Ka7 ke1", "e1"));
    assert_false(black_in_check("Bg1 Ka7 kf1", "f1"));
    assert_false(black_in_check("Bg1 Ka7 kd1", "d1"));
}

/* A pinned rook: moving it off the line exposes the king. */
static void test_self_check(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    char why[RULES_WHY_TEXT];
    rules_pos p;
    rules_move m;
    /* Black rook g2 runs on west over f2 to e2, d2...: the white rook e2
     * shields the king d2. */
    load(&p, "3k3/7/2***2/2***2/2***2/3KR1r/7 w -");
    assert_int_equal(v->parse_move(&p, "e2-e1", &m, why, sizeof why), RULES_ESELF_CHECK);
    assert_non_null(strstr(why, "e2-e1"));
    assert_int_equal(v->parse_move(&p, "e2-f2", &m, why, sizeof why), 0);
}

/* ------------------------------------------------------------------------ */
/* Game endings through rules_game. */

static rules_game *new_game(const char *position)
{
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_new(&g, "rollerball", position, why, sizeof why);
    if (err)
        print_error("%s\n", why);
    assert_int_equal(err, 0);
    return g;
}

static void play(rules_game *g, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_play_text(g, -1, text, NULL, why, sizeof why);
    if (err)
        print_error("%s: %s\n", text, why);
    assert_int_equal(err, 0);
}

static void test_checkmate(void **state)
{
    (void)state;
    /* Rook b2 to b1: it reaches a1 and rebounds up the a-file (a2...a7)
     * and runs on b2...b7: the king a4 has a3 a5 b3 b4 b5, all covered. */
    rules_game *g = new_game("6K/7/2***2/k1***2/2***2/1R5/7 w -");
    assert_false(g->result.over);
    play(g, "b2-b1");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CHECKMATE);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_WIN);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_play_text(g, -1, "a4-a3", NULL, why, sizeof why), RULES_EGAME_OVER);
    rules_game_free(g);
}

static void test_stalemate(void **state)
{
    (void)state;
    /* King d2 to c2 covers b1 and b2; the rook a3 covers a2 (one step
     * back); nothing attacks a1: black cannot move. */
    rules_game *g = new_game("7/7/2***2/2***2/R1***2/3K3/k6 w -");
    play(g, "d2-c2");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_STALEMATE);
    assert_int_equal(g->result.winner, -1);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_DRAW);
    rules_game_free(g);
}

static void test_repetition(void **state)
{
    (void)state;
    rules_game *g = new_game("7/7/2***2/2***2/2***2/7/K5k w -");
    for (int i = 0; i < 2; i++) {
        assert_false(g->result.over);
        play(g, "a1-a2");
        play(g, "g1-g2");
        play(g, "a2-a1");
        play(g, "g2-g1");
    }
    /* The start position stood there three times. */
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_REPETITION);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    rules_game_free(g);
}

static void test_resignation(void **state)
{
    (void)state;
    rules_game *g = new_game(NULL);
    play(g, "c2-b2");
    assert_int_equal(rules_game_leave(g, 0, RULES_REASON_RESIGNATION), 0);
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 1);
    rules_game_free(g);
}

/* ------------------------------------------------------------------------ */
/* The king's journey. */

static void position_of(const rules_game *g, char *text)
{
    assert_true(g->variant->print_position(&g->pos, text, RULES_POS_TEXT) > 0);
}

static void test_journey_needs_going_round(void **state)
{
    (void)state;
    /* The white king reaches d6 from e6 without having gone round: no win. */
    rules_game *g = new_game("7/4K2/2***2/2***2/2***2/7/k6 w -");
    play(g, "e6-d6");
    assert_false(g->result.over);
    rules_game_free(g);
    /* The same under way: White wins by the journey. */
    g = new_game("7/4K2/2***2/2***2/2***2/7/k6 w W");
    play(g, "e6-d6");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_JOURNEY);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->nlegal, 0);
    rules_game_free(g);
}

static void test_journey_flag_set_and_cancelled(void **state)
{
    (void)state;
    char text[RULES_POS_TEXT];
    rules_game *g = new_game("7/7/2***2/2***2/2***2/3K3/6k w -");
    /* d2 -> c2 crosses from the d-file to the c-file: under way. */
    play(g, "d2-c2");
    position_of(g, text);
    assert_string_equal(text, "7/7/2***2/2***2/2***2/2K4/6k b W");
    play(g, "g1-g2");
    /* c2 -> d1 crosses back: cancelled. */
    play(g, "c2-d1");
    position_of(g, text);
    assert_string_equal(text, "7/7/2***2/2***2/2***2/6k/3K3 b -");
    play(g, "g2-g1");
    play(g, "d1-d2");
    uint64_t before = g->pos.hash;
    /* Under way and back again (c2 -> d2): the same position and hash. */
    play(g, "g1-g2");
    play(g, "d2-c2");
    play(g, "g2-g1");
    play(g, "c2-d2");
    assert_true(g->pos.hash == before);
    rules_pos same;
    load(&same, "7/7/2***2/2***2/2***2/3K3/6k b -");
    assert_true(same.hash == before);
    /* Moves that do not cross the d/c line keep the flag: c1 -> b2. */
    play(g, "g1-g2");
    play(g, "d2-c1");
    play(g, "g2-g1");
    play(g, "c1-b2");
    position_of(g, text);
    assert_string_equal(text, "7/7/2***2/2***2/2***2/1K5/6k b W");
    /* The flag is part of the hash: same board, different hash. */
    rules_pos a, b;
    load(&a, "7/7/2***2/2***2/2***2/1K5/6k b W");
    load(&b, "7/7/2***2/2***2/2***2/1K5/6k b -");
    assert_true(a.hash == g->pos.hash);
    assert_true(a.hash != b.hash);
    rules_game_free(g);
}

/* Play space-separated moves. */
static void play_all(rules_game *g, const char *moves)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        play(g, t);
}

/* Play `moves`, then `last`, which must end the game by the journey with
 * `winner` winning (winner < 0: the game must go on). */
static void journey(const char *start, const char *moves, const char *last, int winner)
{
    rules_game *g = new_game(start);
    play_all(g, moves);
    assert_false(g->result.over);
    play(g, last);
    if (winner < 0) {
        assert_false(g->result.over);
    } else {
        assert_true(g->result.over);
        assert_int_equal(g->result.reason, RULES_REASON_JOURNEY);
        assert_int_equal(g->result.winner, winner);
        assert_int_equal(g->result.outcome[winner], RULES_OUTCOME_WIN);
        assert_int_equal(g->result.outcome[!winner], RULES_OUTCOME_LOSS);
    }
    rules_game_free(g);
}

static void test_journey_round_trip_wins(void **state)
{
    (void)state;
    /* The white king goes round clockwise: d2 c2 b3 a4 b5 b6 c7 d6, the
     * black king out of the way (g1/g2: it never crosses its line). */
    journey("7/7/2***2/2***2/2***2/3K3/6k w -",
            "d2-c2 g1-g2 c2-b3 g2-g1 b3-a4 g1-g2 a4-b5 g2-g1 b5-b6 g1-g2 b6-c7 g2-g1", "c7-d6", 0);
    /* Black's journey: d6 -> e6 (under way), then round to d2. */
    journey("7/3k3/2***2/2***2/2***2/7/K6 b -",
            "d6-e6 a1-a2 e6-f5 a2-a1 f5-f4 a1-a2 f4-f3 a2-a1 f3-e2 a1-a2", "e2-d2", 1);
    /* Under way, back over the line (c2 -> d2), then round the other way
     * (e2 f3 f4 f5 e6): reaching d6 is no win. */
    journey("7/7/2***2/2***2/2***2/3K3/k6 w -",
            "d2-c2 a1-a2 c2-d2 a2-a1 d2-e2 a1-a2 e2-f3 a2-a1 f3-f4 a1-a2 f4-f5 a2-a1 "
            "f5-e6 a1-a2",
            "e6-d6", -1);

    /* Black crossing back (e6 -> d7) cancels too. */
    rules_game *g = new_game("7/3k3/2***2/2***2/2***2/7/K6 b -");
    play_all(g, "d6-e6 a1-a2 e6-d7");
    char text[RULES_POS_TEXT];
    position_of(g, text);
    assert_string_equal(text, "3k3/7/2***2/2***2/2***2/K6/7 w -");
    rules_game_free(g);
}

/* ------------------------------------------------------------------------ */
/* Move text and position strings. */

static void test_move_text_round_trip(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    rules_pos p;
    rules_pos_init(&p, v);
    unsigned seed = 7;
    char why[RULES_WHY_TEXT];
    for (int ply = 0; ply < 400; ply++) {
        rules_move moves[RULES_MAX_MOVES];
        int n = v->legal_moves(&p, moves);
        if (n == 0)
            rules_pos_init(&p, v);
        n = v->legal_moves(&p, moves);
        for (int i = 0; i < n; i++) {
            char t[RULES_MOVE_TEXT];
            rules_move m;
            int len = v->print_move(&p, moves[i], t, sizeof t);
            assert_int_equal(len, (int)strlen(t));
            assert_int_equal(v->parse_move(&p, t, &m, why, sizeof why), 0);
            assert_true(m == moves[i]);
            /* A buffer too small is refused. */
            assert_int_equal(v->print_move(&p, moves[i], t, 3), -1);
        }
        char text[RULES_POS_TEXT], again[RULES_POS_TEXT];
        int len = v->print_position(&p, text, sizeof text);
        assert_int_equal(len, (int)strlen(text));
        assert_null(strchr(text, ';'));
        rules_pos q;
        load(&q, text);
        assert_true(q.hash == p.hash && q.to_move == p.to_move);
        assert_true(v->print_position(&q, again, sizeof again) > 0);
        assert_string_equal(text, again);
        assert_int_equal(v->print_position(&p, text, 10), -1);
        seed = seed * 1103515245u + 12345u;
        rules_undo u;
        v->make(&p, moves[(seed >> 16) % (unsigned)n], &u);
    }
}

static void test_bad_move_text(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    rules_pos p;
    rules_pos_init(&p, v);
    static const struct {
        const char *text;
        int err;
    } cases[] = {
        {"", RULES_EBAD_MOVE_TEXT},
        {"c2", RULES_EBAD_MOVE_TEXT},
        {"c2-", RULES_EBAD_MOVE_TEXT},
        {"c2b2", RULES_EBAD_MOVE_TEXT},
        {"c2 b2", RULES_EBAD_MOVE_TEXT},
        {"c2-b2x", RULES_EBAD_MOVE_TEXT},
        {"c2-b2 ", RULES_EBAD_MOVE_TEXT},
        {" c2-b2", RULES_EBAD_MOVE_TEXT},
        {"C2-b2", RULES_EBAD_MOVE_TEXT},
        {"c2-B2", RULES_EBAD_MOVE_TEXT},
        {"c2-h2", RULES_EBAD_MOVE_TEXT},
        {"c2-c8", RULES_EBAD_MOVE_TEXT},
        {"c0-c1", RULES_EBAD_MOVE_TEXT},
        {"c2-b2=", RULES_EBAD_MOVE_TEXT},
        {"c2-b2=R", RULES_EBAD_MOVE_TEXT},
        {"c2-b2=K", RULES_EBAD_MOVE_TEXT},
        {"c2-b2=RR", RULES_EBAD_MOVE_TEXT},
        {"c2xb2", RULES_EBAD_MOVE_TEXT},
        {"pass", RULES_EBAD_MOVE_TEXT},
        {"c2x", RULES_EBAD_MOVE_TEXT},
        {"c3-b3", RULES_EBAD_MOVE_TEXT}, /* c3 is the hole */
        {"b2-d4", RULES_EBAD_MOVE_TEXT}, /* d4 is the hole */
        {"a3-a4", RULES_ENO_PIECE},
        {"b2-b3", RULES_ENO_PIECE},
        {"c7-d7", RULES_ENOT_YOURS},
        {"e6-f6", RULES_ENOT_YOURS},
        {"c2-a2", RULES_EUNREACHABLE},
        {"c2-c1", RULES_EUNREACHABLE}, /* own piece */
        {"c2-d2", RULES_EUNREACHABLE},
        {"e1-d1", RULES_EUNREACHABLE}, /* blocked by its own bishop */
        {"e1-a1", RULES_EUNREACHABLE}, /* blocked by its own bishop */
        {"d2-c3", RULES_EBAD_MOVE_TEXT},
        {"d1-b3", RULES_EUNREACHABLE}, /* blocked by the pawn c2 */
        {"d2-d3", RULES_EBAD_MOVE_TEXT},
        {"e2-e1", RULES_EUNREACHABLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[RULES_WHY_TEXT] = "";
        rules_move m = 0;
        int err = v->parse_move(&p, cases[i].text, &m, why, sizeof why);
        if (err != cases[i].err)
            print_error("'%s': got %d (%s)\n", cases[i].text, err, why);
        assert_int_equal(err, cases[i].err);
        assert_true(strlen(why) > 0);
    }
    /* The sentence names the move and the piece. */
    char why[RULES_WHY_TEXT];
    rules_move m;
    assert_int_equal(v->parse_move(&p, "c2-a2", &m, why, sizeof why), RULES_EUNREACHABLE);
    assert_string_equal(why, "c2-a2: the pawn on c2 cannot move to a2");
    /* NULL why is allowed; overlong text is refused. */
    assert_int_equal(v->parse_move(&p, "c2-a2", &m, NULL, 0), RULES_EUNREACHABLE);
    char longtext[200];
    memset(longtext, 'a', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    assert_int_equal(v->parse_move(&p, longtext, &m, why, sizeof why), RULES_EBAD_MOVE_TEXT);
    /* Through the game layer: not your turn. */
    rules_game *g = new_game(NULL);
    assert_int_equal(rules_game_play_text(g, 1, "c2-b2", NULL, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    rules_game_free(g);
}

static void test_bad_positions(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    static const char *const bad[] = {
        "",
        " ",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w ",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 x -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 W -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w  -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w - ",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -;",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w BW",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w WW",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w w",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w x",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -W",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR3 w -",   /* 8 cells */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR1 w -",   /* 6 cells */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2 w -",         /* 6 ranks */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2/7 w -", /* 8 ranks */
        "2rbp2/2rkp2/7/2***2/2***2/2PKR2/2PBR2 w -",       /* run over the hole */
        "2rbp2/2rkp2/2**3/2***2/2***2/2PKR2/2PBR2 w -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PB*2 w -",  /* '*' off the hole */
        "2rbp2/2rkp2/2*R*2/2***2/2***2/2PKR2/2PBR2 w -",  /* piece in the hole */
        "2rbp2/2rkp2/11***2/2***2/2***2/2PKR2/2PBR2 w -", /* two digits */
        "2rbp2/2rkp2/0***2/2***2/2***2/2PKR2/2PBR2 w -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR8 w -",
        "2rbq2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -", /* no queen */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PPR2/2PBR2 w -", /* no white king */
        "2rbp2/2rKp2/2***2/2***2/2***2/2PKR2/2PBR2 w -", /* no black king */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBK2 w -", /* two white kings */
        "2rbP2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -", /* pawn on e7 */
        "2rbp2/2rkP2/2***2/2***2/2***2/2PKR2/2PBR2 w -", /* pawn on e6 */
        "2rbp2/2rkp2/2***2/2***2/2***2/2pKR2/2PBR2 w -", /* black pawn c2 */
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2pBR2 w -", /* black pawn c1 */
        "7/7/2***2/2***2/2***2/1k5/2K4 w -",             /* kings touch */
        "2rbp2\\2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -",
        "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2\tw -",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rules_pos p;
        rules_pos_init(&p, v);
        rules_pos before = p;
        char why[RULES_WHY_TEXT] = "";
        int err = v->parse_position(&p, bad[i], why, sizeof why);
        if (err != RULES_EBAD_POSITION)
            print_error("accepted: '%s'\n", bad[i]);
        assert_int_equal(err, RULES_EBAD_POSITION);
        assert_true(strlen(why) > 0);
        /* A refused string leaves the position as it was. */
        assert_memory_equal(&p, &before, sizeof p);
    }
    rules_pos p;
    rules_pos_init(&p, v);
    char why[RULES_WHY_TEXT];
    assert_int_equal(v->parse_position(&p, NULL, why, sizeof why), RULES_EBAD_POSITION);
    char big[2000];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(v->parse_position(&p, big, why, sizeof why), RULES_EBAD_POSITION);
    /* Through the game layer. */
    rules_game *g = NULL;
    assert_int_equal(rules_game_new(&g, "rollerball", "junk", why, sizeof why),
                     RULES_EBAD_POSITION);
}

/* Truncations and random mutations of good strings: refused with a why or
 * accepted and then printed back exactly; never a crash (ASan watches). */
static void test_position_fuzz(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    static const char *const good[] = {
        SETUP,
        "b5r/7/B1***1R/2***2/r1***1B/7/3K2k w -",
        "3K3/7/2***2/2***2/2***2/7/3k3 w WB",
        "7/2kR3/2***2/2***2/2***2/2K4/7 b W",
        "7/3k3/2***2/2***2/2***2/7/K6 b B",
    };
    static const char alphabet[] = "PBRKpbrkQq01234789*/ wbWB-;x\t";
    unsigned seed = 12345;
    int accepted = 0, refused = 0;
    for (size_t gi = 0; gi < sizeof good / sizeof good[0]; gi++) {
        size_t len = strlen(good[gi]);
        for (size_t cut = 0; cut <= len; cut++) {
            char t[RULES_POS_TEXT];
            memcpy(t, good[gi], cut);
            t[cut] = '\0';
            rules_pos p;
            rules_pos_init(&p, v);
            int err = v->parse_position(&p, t, NULL, 0);
            if (cut == len || err == 0) {
                /* "w WB" cut to "w W" is still a position. */
                char back[RULES_POS_TEXT];
                assert_int_equal(err, 0);
                assert_true(v->print_position(&p, back, sizeof back) > 0);
                assert_string_equal(back, t);
            } else {
                assert_int_equal(err, RULES_EBAD_POSITION);
            }
        }
        for (int k = 0; k < 3000; k++) {
            char t[RULES_POS_TEXT];
            snprintf(t, sizeof t, "%s", good[gi]);
            size_t n = strlen(t);
            int edits = 1 + (int)((seed >> 8) % 3);
            for (int e = 0; e < edits; e++) {
                seed = seed * 1103515245u + 12345u;
                size_t at = (seed >> 16) % n;
                seed = seed * 1103515245u + 12345u;
                int op = (int)((seed >> 16) % 3);
                char ch = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
                if (op == 0) {
                    t[at] = ch;
                } else if (op == 1 && n + 1 < sizeof t) {
                    memmove(t + at + 1, t + at, n - at + 1);
                    t[at] = ch;
                    n++;
                } else if (n > 1) {
                    memmove(t + at, t + at + 1, n - at);
                    n--;
                }
            }
            rules_pos p;
            rules_pos_init(&p, v);
            char why[RULES_WHY_TEXT] = "";
            int err = v->parse_position(&p, t, why, sizeof why);
            if (err == 0) {
                char back[RULES_POS_TEXT];
                assert_true(v->print_position(&p, back, sizeof back) > 0);
                assert_string_equal(back, t);
                accepted++;
            } else {
                assert_int_equal(err, RULES_EBAD_POSITION);
                assert_true(strlen(why) > 0);
                refused++;
            }
        }
    }
    assert_true(accepted > 0 && refused > 0);
}

static void test_piece_at_and_display(void **state)
{
    (void)state;
    const rules_variant *v = rb();
    rules_pos p;
    rules_pos_init(&p, v);
    int owner = -1;
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "d2"), &owner), 'K');
    assert_int_equal(owner, 0);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "c7"), &owner), 'R');
    assert_int_equal(owner, 1);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "a1"), &owner), 0);
    assert_int_equal(rules_cell_parse(v, "c3"), -1);
    assert_int_equal(v->ncells, 40);
    rules_move m;
    char why[RULES_WHY_TEXT], text[RULES_MOVE_TEXT];
    assert_int_equal(v->parse_move(&p, "c2-b2", &m, why, sizeof why), 0);
    assert_true(rules_display_move(&p, m, text, sizeof text) > 0);
    assert_string_equal(text, "Pc2-b2");
    /* A capture shows the captured cell. */
    load(&p, "7/7/2***2/2***2/2***2/1r5/2P1K1k w -");
    assert_int_equal(v->parse_move(&p, "c1-b2", &m, why, sizeof why), 0);
    assert_true(rules_display_move(&p, m, text, sizeof text) > 0);
    assert_string_equal(text, "Pc1-b2xb2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_examples),
        cmocka_unit_test(test_setup_moves),
        cmocka_unit_test(test_pawn_moves_and_captures),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_check_by_rebounding_bishop),
        cmocka_unit_test(test_self_check),
        cmocka_unit_test(test_checkmate),
        cmocka_unit_test(test_stalemate),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_resignation),
        cmocka_unit_test(test_journey_needs_going_round),
        cmocka_unit_test(test_journey_flag_set_and_cancelled),
        cmocka_unit_test(test_journey_round_trip_wins),
        cmocka_unit_test(test_move_text_round_trip),
        cmocka_unit_test(test_bad_move_text),
        cmocka_unit_test(test_bad_positions),
        cmocka_unit_test(test_position_fuzz),
        cmocka_unit_test(test_piece_at_and_display),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
