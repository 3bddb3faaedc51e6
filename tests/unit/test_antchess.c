/*
 * test_antchess.c - Ant Chess (ant2, ant3) through the rules interface:
 * board and set-ups as listed in ../shared/rules/antchess.md, each piece on
 * hand-built positions, the seed's figures 6 and 7, check, mate, pass,
 * centre, repetition, three players (queen lost, last queen, leaving), text
 * round-trips and malformed input.
 *
 * Positions are written as piece lists ("bQg1 rQg13 ...") and turned into
 * position strings by cell names and the documented cell order (file by
 * file, rank 1 upwards), not by the module's printer (ant_positions.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ant_positions.h"
#include "antchess.h"
#include "rules.h"

static const rules_variant *V2, *V3;

static rules_game *game_from(const char *id, const char *list, char tomove, const char *left)
{
    const rules_variant *v = rules_find(id);
    char text[RULES_POS_TEXT], why[RULES_WHY_TEXT] = "";
    build(v, list, tomove, left, text);
    rules_game *g = NULL;
    int err = rules_game_new(&g, id, text, why, sizeof why);
    if (err != 0)
        fail_msg("game %s: %s", text, why);
    return g;
}

/* Legal moves of p as texts, space separated, each followed by a space. */
static int move_texts(const rules_pos *p, char *buf, size_t len)
{
    rules_move m[RULES_MAX_MOVES];
    int n = p->variant->legal_moves(p, m);
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT];
        assert_true(p->variant->print_move(p, m[i], t, sizeof t) > 0);
        strncat(buf, t, len - strlen(buf) - 1);
        strncat(buf, " ", len - strlen(buf) - 1);
    }
    return n;
}

static bool has_move(const rules_pos *p, const char *text)
{
    char buf[16384], key[80];
    move_texts(p, buf, sizeof buf);
    snprintf(key, sizeof key, " %s ", text);
    char hay[16400];
    snprintf(hay, sizeof hay, " %s", buf);
    return strstr(hay, key) != NULL;
}

/* Moves of the piece on `from` (non-pass), sorted texts joined by spaces. */
static int moves_from(const rules_pos *p, const char *from, char *out)
{
    rules_move m[RULES_MAX_MOVES];
    int n = p->variant->legal_moves(p, m), k = 0;
    char texts[RULES_MAX_MOVES][RULES_MOVE_TEXT];
    size_t fl = strlen(from);
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT];
        p->variant->print_move(p, m[i], t, sizeof t);
        if (strncmp(t, from, fl) == 0 && t[fl] == '-')
            strcpy(texts[k++], t);
    }
    qsort(texts, (size_t)k, RULES_MOVE_TEXT, (int (*)(const void *, const void *))strcmp);
    out[0] = 0;
    for (int i = 0; i < k; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, texts[i] + fl + 1);
    }
    return k;
}

static int play(rules_game *g, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    return rules_game_play_text(g, -1, text, NULL, why, sizeof why);
}

static void must_play(rules_game *g, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_play_text(g, -1, text, NULL, why, sizeof why);
    if (err)
        fail_msg("%s refused: %s", text, why);
}

static int parse_err(const rules_pos *p, const char *text, char *why)
{
    rules_move m;
    why[0] = 0;
    return p->variant->parse_move(p, text, &m, why, RULES_WHY_TEXT);
}

static int setup(void **state)
{
    (void)state;
    V2 = rules_find("ant2");
    V3 = rules_find("ant3");
    return V2 && V3 ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Board. */

static void test_board(void **state)
{
    (void)state;
    assert_int_equal(V2->ncells, 127);
    /* File sizes 7..13..7, no j; names of the corners and centre. */
    static const char *const last[] = {"a7",  "b8",  "c9",  "d10", "e11", "f12", "g13",
                                       "h12", "i11", "k10", "l9",  "m8",  "n7"};
    for (int i = 0; i < 13; i++) {
        assert_true(rules_cell_parse(V2, last[i]) >= 0);
        char next[8];
        snprintf(next, sizeof next, "%c%d", last[i][0], atoi(last[i] + 1) + 1);
        assert_int_equal(rules_cell_parse(V2, next), -1);
    }
    assert_int_equal(rules_cell_parse(V2, "j1"), -1);
    assert_int_equal(rules_cell_parse(V2, "a0"), -1);
    assert_int_equal(C(V2, "a1"), 0);
    assert_int_equal(C(V2, "n7"), 126);
    assert_string_equal(V2->cell_names[C(V2, "g7")], "g7");

    /* Edge cells: a worm alone on an empty board can reach every edge cell
     * of its lines; from a corner it reaches the two edges through it. A
     * queen alone shows the neighbour count: 3 at corners, 4 on an edge,
     * 6 inside; 36 edge cells in all (6 + 30). */
    rules_pos p;
    int edge = 0, corner = 0;
    for (int c = 0; c < 127; c++) {
        char list[64], out[512];
        const char *qn = V2->cell_names[c];
        /* the red queen far away: g1 if the black queen is near g13 */
        int file = (int)(strchr("abcdefghiklmn", qn[0]) - "abcdefghiklmn"), q = file - 6;
        int r = atoi(qn + 1) - 1 + (-6 > -6 - q ? -6 : -6 - q);
        int dq = q, dr = r - 6, dist = abs(dq) > abs(dr) ? abs(dq) : abs(dr);
        dist = dist > abs(dq + dr) ? dist : abs(dq + dr);
        snprintf(list, sizeof list, "bQ%s rQ%s", qn, dist <= 2 ? "g1" : "g13");
        load(V2, &p, list, 'b', "-");
        int n = moves_from(&p, qn, out);
        corner += n == 3;
        edge += n == 4;
        assert_true(n == 3 || n == 4 || n == 6);
    }
    /* 6 corners and 30 other edge cells: 36 edge cells */
    assert_int_equal(corner, 6);
    assert_int_equal(edge, 30);
}

/* ------------------------------------------------------------------------ */
/* Set-ups, cell by cell from the rules file. */

static void expect_army(const rules_pos *p, int owner, const char *list)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        int o = -1;
        char k = p->variant->piece_at(p, C(p->variant, tok + 1), &o);
        if (k != tok[0] || o != owner)
            fail_msg("%s: found %c of %d", tok, k ? k : '.', o);
    }
}

static int count_pieces(const rules_pos *p)
{
    int n = 0, o;
    for (int c = 0; c < 127; c++)
        n += p->variant->piece_at(p, c, &o) != 0;
    return n;
}

static const char *const black_army =
    "Qg1 Wk1 Gi2 Lh3 Bg4 Lf3 Ge2 Wd1 Al1 Ak2 Ai3 Ah4 Ag5 Af4 Ae3 Ad2 Ac1";

static void test_setup_ant2(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V2);
    expect_army(&p, 0, black_army);
    expect_army(&p, 1,
                "Qg13 Wd10 Ge10 Lf10 Bg10 Lh10 Gi10 Wk10 Ac9 Ad9 Ae9 Af9 Ag9 Ah9 "
                "Ai9 Ak9 Al9");
    assert_int_equal(count_pieces(&p), 34);
    assert_int_equal(p.to_move, 0);
    assert_string_equal(V2->player_names[0], "black");
    assert_string_equal(V2->player_names[1], "red");
    char text[RULES_POS_TEXT];
    assert_true(V2->print_position(&p, text, sizeof text) > 0);
    assert_null(strchr(text, ';'));
    /* checked file by file against the list above */
    assert_string_equal(text, "7/8/bA7rA/bWbA6rArW/1bGbA5rArG1/2bLbA4rArL2/bQ2bBbA3rArB2rQ/"
                              "2bLbA4rArL2/1bGbA5rArG1/bWbA6rArW/bA7rA/8/7 b -");
}

static void test_setup_ant3(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V3);
    expect_army(&p, 0, black_army);
    expect_army(&p, 1, "Qa7 Wa4 Gb5 Lc6 Bd7 Ld8 Gd9 Wd10 Aa3 Ab4 Ac5 Ad6 Ae7 Ae8 Ae9 Ae10 Ae11");
    expect_army(&p, 2, "Qn7 Wk10 Gk9 Lk8 Bk7 Ll6 Gm5 Wn4 Ai11 Ai10 Ai9 Ai8 Ai7 Ak6 Al5 Am4 An3");
    assert_int_equal(count_pieces(&p), 51);
    assert_string_equal(V3->player_names[2], "green");
}

/* ------------------------------------------------------------------------ */
/* Pieces. */

static void test_queen(void **state)
{
    (void)state;
    rules_pos p;
    char out[512];
    load(V2, &p, "bQd5 rQg13 rAe5 bAc5", 'b', "-");
    /* d5 = (-3,1): N d6, NE e6, SE e5 (enemy: capture), S d4 (guarded by
     * the red soldier on e5, which goes south), SW c4, NW c5 (own). */
    assert_int_equal(moves_from(&p, "d5", out), 4);
    assert_string_equal(out, "c4 d6 e5 e6");
    load(V2, &p, "bQa1 rQg13", 'b', "-");
    assert_int_equal(moves_from(&p, "a1", out), 3);
    assert_string_equal(out, "a2 b1 b2");
}

static void test_soldier(void **state)
{
    (void)state;
    rules_pos p;
    char out[512];
    /* Black goes north: N, NW, NE. */
    load(V2, &p, "bQg1 rQg13 bAd5 rAd6", 'b', "-");
    assert_int_equal(moves_from(&p, "d5", out), 3);
    assert_string_equal(out, "c5 d6 e6");
    /* Red goes south: S, SW, SE. d6 = (-3,2): S d5 black: capture; SW c5
     * own beetle; SE e6. */
    load(V2, &p, "bQg1 rQg13 bAd5 rAd6 rBc5", 'r', "-");
    assert_int_equal(moves_from(&p, "d6", out), 2);
    assert_string_equal(out, "d5 e6");
    /* ant3 red (a7) goes SE, with S and NE beside it; green (n7) SW, S, NW. */
    load(V3, &p, "bQg1 rQa7 gQn7 rAd5 gAk5", 'r', "-");
    assert_int_equal(moves_from(&p, "d5", out), 3);
    assert_string_equal(out, "d4 e5 e6");
    load(V3, &p, "bQg1 rQa7 gQn7 rAd5 gAk5", 'g', "-");
    assert_int_equal(moves_from(&p, "k5", out), 3);
    assert_string_equal(out, "i5 i6 k4");
}

static char piece(const rules_pos *p, const char *cell, int *owner)
{
    return p->variant->piece_at(p, C(p->variant, cell), owner);
}

static void test_promotion(void **state)
{
    (void)state;
    rules_game *g = game_from("ant2", "bQg1 rQn7 bAg12 bAa6 rAc2 rAm3", 'b', "-");
    int o;
    must_play(g, "g12-g13");
    assert_int_equal(piece(&g->pos, "g13", &o), 'S');
    must_play(g, "c2-c1=S"); /* "=S" is accepted on a promoting move */
    assert_int_equal(piece(&g->pos, "c1", &o), 'S');
    assert_int_equal(o, 1);
    must_play(g, "a6-a7"); /* top of file a: NW edge */
    assert_int_equal(piece(&g->pos, "a7", &o), 'S');
    /* a red soldier on m3 moving to m2 stays a soldier (not the bottom) */
    must_play(g, "m3-m2");
    assert_int_equal(piece(&g->pos, "m2", &o), 'A');
    rules_game_free(g);

    /* ant3: red promotes on file n and the bottom of g..n; green on file a
     * and the bottom of a..g. */
    g = game_from("ant3", "bQg1 rQa7 gQn7 rAm2 rAk2 gAb2 gAc3 bAd9", 'r', "-");
    must_play(g, "m2-n2");
    assert_int_equal(piece(&g->pos, "n2", &o), 'S');
    must_play(g, "b2-a2");
    assert_int_equal(piece(&g->pos, "a2", &o), 'S');
    must_play(g, "d9-d10"); /* black: top of file d */
    assert_int_equal(piece(&g->pos, "d10", &o), 'S');
    must_play(g, "k2-k1");
    assert_int_equal(piece(&g->pos, "k1", &o), 'S');
    must_play(g, "c3-c2"); /* green: c2 is not the bottom of file c */
    assert_int_equal(piece(&g->pos, "c2", &o), 'A');
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_play_text(g, -1, "g1-g2=S", NULL, why, sizeof why),
                     RULES_EBAD_MOVE_TEXT);
    rules_game_free(g);
}

static void test_super_ant(void **state)
{
    (void)state;
    rules_pos p;
    char out[512];
    load(V2, &p, "bQg1 rQg13 bSg6", 'b', "-");
    assert_int_equal(moves_from(&p, "g6", out), 12);
    /* first cell taken: no second step that way; enemies are captured */
    load(V2, &p, "bQg1 rQg13 bSg6 bAg7 rAh6 rAi6", 'b', "-");
    /* N blocked (0), NE h6 capture (1), SE, S, SW, NW two each */
    assert_int_equal(moves_from(&p, "g6", out), 9);
    assert_null(strstr(out, "g8"));
    assert_non_null(strstr(out, "h6"));
    assert_null(strstr(out, "i6")); /* behind the enemy on h6: no jump */
}

static void test_beetle(void **state)
{
    (void)state;
    rules_pos p;
    char out[512];
    /* queens off the beetle's lines */
    load(V2, &p, "bQb1 rQm8 bBg7", 'b', "-");
    assert_int_equal(moves_from(&p, "g7", out), 36);
    load(V2, &p, "bQb1 rQm8 bBg7 bAg9 rAe7", 'b', "-");
    /* north: g8 only (-5); north-west: f7, then e7 enemy: capture, stop (-4) */
    assert_int_equal(moves_from(&p, "g7", out), 36 - 5 - 4);
    assert_non_null(strstr(out, "e7"));
    assert_null(strstr(out, "d7"));
}

static void test_grasshopper(void **state)
{
    (void)state;
    rules_pos p;
    char out[512];
    /* jumps over anything, 12 cells at distance 2 */
    load(V2, &p, "bQa1 rQn7 bGg7 bAg8 bAh7 bAh6 rAg6 rAf6 rAf7 bAg9 rAi6", 'b', "-");
    assert_int_equal(moves_from(&p, "g7", out), 11);
    assert_non_null(strstr(out, "i6"));
    assert_null(strstr(out, "g9"));
    load(V2, &p, "bQg7 rQn7 bGa1", 'b', "-");
    /* a1 = (-6,0): (-4,0) c3, (-4,-1) c2, (-4,-2) c1, (-5,1) b3, (-6,2) a3 */
    assert_int_equal(moves_from(&p, "a1", out), 5);
    assert_string_equal(out, "a3 b3 c1 c2 c3");
}

static int captures(const rules_pos *p, const char *text)
{
    rules_move m;
    char why[RULES_WHY_TEXT];
    int err = p->variant->parse_move(p, text, &m, why, sizeof why);
    if (err)
        fail_msg("%s: %s", text, why);
    int cells[RULES_MAX_CELLS];
    return rules_move_captures(p, m, cells);
}

/* Figure 6: a ladybug round a pivot, an enemy soldier on one side and an
 * enemy grasshopper on the other. With a friend on the ring it must choose;
 * with the way clear one walk takes both, and it may stop anywhere. */
static void test_ladybug_figure6(void **state)
{
    (void)state;
    rules_pos p;
    /* pivot g7 (own beetle); ring g8 h7 h6 g6 f6 f7; ladybug on g6 (its S);
     * red soldier f6, red grasshopper h6; black soldier on g8 blocks. */
    const char *base = "bQb1 rQm8 bBg7 bLg6 rAf6 rGh6";
    char list[256];
    snprintf(list, sizeof list, "%s bAg8", base);
    load(V2, &p, list, 'b', "-");
    rules_move m[RULES_MAX_MOVES];
    int n = V2->legal_moves(&p, m), both = 0;
    for (int i = 0; i < n; i++) {
        int cells[RULES_MAX_CELLS];
        both += rules_move_captures(&p, m[i], cells) >= 2;
    }
    assert_int_equal(both, 0);
    assert_int_equal(captures(&p, "g6-f6@g7cw"), 1);
    assert_int_equal(captures(&p, "g6-f7@g7cw"), 1);
    assert_int_equal(captures(&p, "g6-h7@g7ccw"), 1);
    char why[RULES_WHY_TEXT];
    assert_int_equal(parse_err(&p, "g6-g8@g7cw", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "g6-h7@g7cw", why), RULES_EUNREACHABLE);

    load(V2, &p, base, 'b', "-");
    /* cw: f6 f7 g8 h7 h6 (the last takes both); ccw: h6 h7 g8 f7 f6 */
    assert_int_equal(captures(&p, "g6-h6@g7cw"), 2);
    assert_int_equal(captures(&p, "g6-f6@g7ccw"), 2);
    assert_int_equal(captures(&p, "g6-g8@g7cw"), 1);
    assert_int_equal(captures(&p, "g6-g8@g7ccw"), 1);
    assert_int_equal(captures(&p, "g6-h6@g7ccw"), 1);
    assert_true(has_move(&p, "g6-h6@g7cw"));
    assert_true(has_move(&p, "g6-h6@g7ccw"));
    assert_true(has_move(&p, "g6-g8@g7cw"));
    assert_true(has_move(&p, "g6-g8@g7ccw"));
    char disp[RULES_MOVE_TEXT];
    rules_move mv;
    assert_int_equal(V2->parse_move(&p, "g6-h6@g7cw", &mv, why, sizeof why), 0);
    assert_true(rules_display_move(&p, mv, disp, sizeof disp) > 0);
    assert_string_equal(disp, "Lg6-h6@g7cwxf6xh6");
}

/* Walks with the same end and captures are one move, printed with the first
 * pivot in the order N NE SE S SW NW, cw before ccw; any naming is accepted. */
static void test_ladybug_same_walk(void **state)
{
    (void)state;
    rules_pos p;
    /* Ladybug g6 with two pivots, g7 (its N) and f6 (its NW). Round g7 cw
     * is blocked at once by f6; ccw goes h6 h7 g8 f7. Round f6 (g6 is its
     * SE) cw goes f5 e5 e6 f7; ccw is blocked by g7. So f7 is reached twice
     * with no capture: one move, named by the first pivot, g7. */
    load(V2, &p, "bQa1 rQn7 bLg6 bAg7 bAf6", 'b', "-");
    char out[512];
    moves_from(&p, "g6", out);
    assert_non_null(strstr(out, "f7@g7ccw"));
    assert_null(strstr(out, "f7@f6"));
    rules_move a, b;
    char why[RULES_WHY_TEXT];
    assert_int_equal(V2->parse_move(&p, "g6-f7@g7ccw", &a, why, sizeof why), 0);
    assert_int_equal(V2->parse_move(&p, "g6-f7@f6cw", &b, why, sizeof why), 0);
    assert_true(a == b);
    char t[RULES_MOVE_TEXT];
    V2->print_move(&p, b, t, sizeof t);
    assert_string_equal(t, "g6-f7@g7ccw");
    /* pivot must be an occupied neighbour; the walk must reach the cell */
    assert_int_equal(parse_err(&p, "g6-h7@h6cw", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "g6-g8@g9cw", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "g6-g5@g7cw", why), RULES_EUNREACHABLE);
}

static void test_earthworm(void **state)
{
    (void)state;
    rules_pos p;
    char out[1024];
    /* worm on the corner a1 = (-6,0): along file a (N: a2..a7), along the
     * bottom edge (SE: b1..g1), and across (NE, row r = 0) to n7 only, the
     * cells between being inside the board */
    load(V2, &p, "bQf7 rQn4 bWa1", 'b', "-");
    assert_int_equal(moves_from(&p, "a1", out), 13);
    assert_string_equal(out, "a2 a3 a4 a5 a6 a7 b1 c1 d1 e1 f1 g1 n7");
    /* under friends: passes; one enemy: captured; two: blocked; landing
     * must be empty */
    load(V2, &p, "bQf7 rQn4 bWa1 bAa3 rAa5", 'b', "-");
    moves_from(&p, "a1", out);
    assert_non_null(strstr(out, "a4"));
    assert_null(strstr(out, "a3"));
    assert_null(strstr(out, "a5"));
    assert_non_null(strstr(out, "a6"));
    assert_int_equal(captures(&p, "a1-a6"), 1);
    assert_int_equal(captures(&p, "a1-a4"), 0);
    load(V2, &p, "bQf7 rQn4 bWa1 bAa3 rAa5 rBa6", 'b', "-");
    moves_from(&p, "a1", out);
    assert_null(strstr(out, "a7"));
    /* a worm off the edge does not move */
    load(V2, &p, "bQf7 rQn4 bWd5", 'b', "-");
    assert_int_equal(moves_from(&p, "d5", out), 0);
}

/* Figure 7: the black worm checks the red queen by its passage. Stepping the
 * queen back lets the black queen reach the centre; a red soldier stepping
 * onto the worm's line blocks it (two red pieces) and guards g7. */
static void test_earthworm_figure7(void **state)
{
    (void)state;
    /* row r = 1: a2 ... m8. Worm a2, red queen i8, landing m8 empty. */
    const char *list = "bWa2 bQg6 rQi8 rAg9";
    rules_game *g = game_from("ant2", list, 'r', "-");
    int q = C(V2, "i8");
    assert_true(V2->cell_flags(&g->pos, q) & RULES_CELL_CHECK);
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_play_text(g, -1, "pass", NULL, why, sizeof why), RULES_ESELF_CHECK);
    assert_int_equal(rules_game_play_text(g, -1, "i8-h8", NULL, why, sizeof why),
                     RULES_ESELF_CHECK);
    assert_non_null(strstr(why, "i8-h8"));
    /* queen back: then the black queen wins on g7 */
    must_play(g, "i8-i9");
    assert_false(V2->cell_flags(&g->pos, C(V2, "i9")) & RULES_CELL_CHECK);
    must_play(g, "g6-g7");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CENTRE);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_WIN);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    assert_int_equal(g->nlegal, 0);
    assert_int_equal(play(g, "g7-g8"), RULES_EGAME_OVER);
    rules_game_free(g);

    /* the soldier blocks instead */
    g = game_from("ant2", list, 'r', "-");
    must_play(g, "g9-g8");
    assert_false(V2->cell_flags(&g->pos, q) & RULES_CELL_CHECK);
    assert_int_equal(play(g, "a2-m8"), RULES_EUNREACHABLE);
    assert_int_equal(rules_game_play_text(g, -1, "g6-g7", NULL, why, sizeof why),
                     RULES_ESELF_CHECK);
    assert_false(g->result.over);
    rules_game_free(g);
}

/* A ladybug attacks the queen only past pieces it may take; blocked both
 * ways round, no check. */
static void test_ladybug_check(void **state)
{
    (void)state;
    rules_pos p;
    /* red queen h7, pivot g7 (a red soldier), black ladybug f6 (ring of g7:
     * g8 h7 h6 g6 f6 f7). Way cw from f6: f7 g8 h7; ccw: g6 h6 h7. The
     * blockers cannot attack h7 themselves: a worm off the edge, a
     * grasshopper next to it. */
    load(V2, &p, "bQa1 rQh7 rAg7 bLf6", 'r', "-");
    assert_true(V2->cell_flags(&p, C(V2, "h7")) & RULES_CELL_CHECK);
    load(V2, &p, "bQa1 rQh7 rAg7 bLf6 bWf7", 'r', "-");
    assert_true(V2->cell_flags(&p, C(V2, "h7")) & RULES_CELL_CHECK); /* ccw open */
    load(V2, &p, "bQa1 rQh7 rAg7 bLf6 bWf7 bGh6", 'r', "-");
    assert_false(V2->cell_flags(&p, C(V2, "h7")) & RULES_CELL_CHECK);
    /* red pieces between are taken on the way: still check */
    load(V2, &p, "bQa1 rQh7 rAg7 bLf6 bWf7 rAg6 rBh6", 'r', "-");
    assert_true(V2->cell_flags(&p, C(V2, "h7")) & RULES_CELL_CHECK);
}

static void test_checkmate(void **state)
{
    (void)state;
    /* red queen in its corner g13; black grasshoppers guard f12 and h12; the
     * beetle comes to g4 and checks along file g, guarding g12 too */
    rules_game *g = game_from("ant2", "bQg1 bBe2 bGf10 bGh10 rQg13", 'b', "-");
    assert_false(g->result.over);
    must_play(g, "e2-g4");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CHECKMATE);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->nlegal, 0);
    assert_true(V2->cell_flags(&g->pos, C(V2, "g13")) & RULES_CELL_CHECK);
    rules_game_free(g);

    /* not check, every queen step attacked (g12 and f12 by the grasshopper
     * on f10, f12 by the beetle on f5 too, h12 by the one on h10): pass is
     * the only move; no stalemate */
    g = game_from("ant2", "bQg1 bBf5 bGf10 bGh10 rQg13", 'r', "-");
    assert_false(g->result.over);
    assert_int_equal(g->nlegal, 1);
    must_play(g, "pass");
    assert_int_equal(g->pos.to_move, 0);
    rules_game_free(g);
}

static void test_repetition(void **state)
{
    (void)state;
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&g, "ant2", NULL, why, sizeof why), 0);
    for (int i = 0; i < 2; i++) {
        must_play(g, "g1-g2");
        must_play(g, "g13-g12");
        must_play(g, "g2-g1");
        assert_false(g->result.over);
        must_play(g, "g12-g13");
    }
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_REPETITION);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    rules_game_free(g);

    /* passing changes the player to move: pass pass is a repetition of the
     * position only after two rounds */
    assert_int_equal(rules_game_new(&g, "ant2", NULL, why, sizeof why), 0);
    must_play(g, "pass");
    must_play(g, "pass");
    must_play(g, "pass");
    assert_false(g->result.over);
    must_play(g, "pass");
    assert_true(g->result.over);
    rules_game_free(g);
}

/* ------------------------------------------------------------------------ */
/* Three players. */

static void test_three_turns_and_leave(void **state)
{
    (void)state;
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&g, "ant3", NULL, why, sizeof why), 0);
    assert_int_equal(rules_game_to_move(g), 0);
    must_play(g, "g5-g6");
    assert_int_equal(rules_game_to_move(g), 1);
    assert_int_equal(rules_game_play_text(g, 0, "g6-g7", NULL, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    must_play(g, "a3-b3");
    assert_int_equal(rules_game_to_move(g), 2);
    must_play(g, "pass");
    assert_int_equal(rules_game_to_move(g), 0);

    /* red leaves: its pieces are inert, the turn skips it */
    assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
    assert_false(g->result.over);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    assert_true(g->variant->cell_flags(&g->pos, C(V3, "a7")) & RULES_CELL_INERT);
    assert_false(g->variant->cell_flags(&g->pos, C(V3, "n7")) & RULES_CELL_INERT);
    must_play(g, "g6-g7");
    assert_int_equal(rules_game_to_move(g), 2);
    must_play(g, "pass");
    assert_int_equal(rules_game_to_move(g), 0);
    char text[RULES_POS_TEXT];
    g->variant->print_position(&g->pos, text, sizeof text);
    assert_non_null(strstr(text, " b r"));
    /* green leaves too: black wins */
    assert_int_equal(rules_game_leave(g, 2, RULES_REASON_TIMEOUT), 0);
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    rules_game_free(g);
}

/* A player leaving is not a turn: Red's queen stands on g7 threatened only
 * by Green's beetle on i7; when Green leaves, Black (to move) still plays,
 * and Red wins only after a turn of its own with the queen still there. */
static void test_leave_gives_no_centre_win(void **state)
{
    (void)state;
    const char *pos = "7/3rA4/4rA4/2bA4rL2/9rA1/3bA6rArW/bQ3bA1rQ6/12/3bA2gBgA3/"
                      "bWbA6gG1/9/8/3gW2gQ b -";
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "", text[RULES_POS_TEXT];
    assert_int_equal(rules_game_new(&g, "ant3", pos, why, sizeof why), 0);
    assert_false(g->result.over);
    assert_int_equal(rules_game_leave(g, 2, RULES_REASON_RESIGNATION), 0);
    assert_false(g->result.over);
    assert_int_equal(rules_game_to_move(g), 0);
    assert_true(g->nlegal > 0);
    /* The state "just after a leave" survives the position string. */
    g->variant->print_position(&g->pos, text, sizeof text);
    assert_non_null(strstr(text, " b g!"));
    rules_pos q;
    rules_pos_init(&q, g->variant);
    assert_int_equal(g->variant->parse_position(&q, text, why, sizeof why), 0);
    rules_move moves[RULES_MAX_MOVES];
    assert_int_equal(g->variant->legal_moves(&q, moves), g->nlegal);
    /* Black passes; Red keeps the queen on g7 and wins after its own turn. */
    must_play(g, "pass");
    assert_false(g->result.over);
    must_play(g, "pass");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CENTRE);
    assert_int_equal(g->result.winner, 1);
    rules_game_free(g);
}

static void test_inert_pieces(void **state)
{
    (void)state;
    rules_pos p;
    char out[1024];
    /* red left: its beetle on g9 cannot be taken and stops the black beetle,
     * stops a ladybug, and the worm passes under it */
    load(V3, &p, "bQg1 bBg7 rQa7 rBg9 gQn7 bWa2 rAe4 bLh9 bAh10", 'b', "r");
    moves_from(&p, "g7", out);
    assert_non_null(strstr(out, "g8"));
    assert_null(strstr(out, "g9"));
    assert_null(strstr(out, "g10"));
    assert_true(V3->cell_flags(&p, C(V3, "g9")) & RULES_CELL_INERT);
    /* worm a2 along row r=1 to m8: passes under... (a2 row: b3? ) */
    moves_from(&p, "a2", out);
    assert_non_null(strstr(out, "m8"));
    assert_int_equal(captures(&p, "a2-m8"), 0);
    /* a ladybug may pivot on an inert piece */
    moves_from(&p, "h9", out);
    assert_non_null(strstr(out, "@g9"));
}

static void test_three_check_and_lost_queen(void **state)
{
    (void)state;
    /* The green beetle on d10 checks the red queen on a7 along row r = 6
     * (c9 b8 between, empty). Her only step, b8, is on the same row; no red
     * piece can take the beetle or step between. With no move that avoids
     * check every red move is legal, pass too. */
    rules_game *g = game_from("ant3", "bQg1 bGa5 bGc7 rQa7 rAb7 rAa6 gQn7 gBd10 gAi5", 'r', "-");
    assert_true(V3->cell_flags(&g->pos, C(V3, "a7")) & RULES_CELL_CHECK);
    int n = g->nlegal;
    assert_true(n > 1);
    assert_true(has_move(&g->pos, "pass"));
    must_play(g, "pass");
    /* green takes the red queen with its beetle */
    must_play(g, "d10-a7");
    int o;
    assert_int_equal(piece(&g->pos, "a7", &o), 'B');
    assert_int_equal(o, 2);
    assert_false(g->result.over);
    /* black moves, red plays on without its queen */
    must_play(g, "g1-g2");
    assert_int_equal(rules_game_to_move(g), 1);
    must_play(g, "a6-b6");
    char text[RULES_POS_TEXT];
    g->variant->print_position(&g->pos, text, sizeof text);
    assert_null(strstr(text, "rQ"));
    rules_game_free(g);

    /* the last queen standing wins */
    g = game_from("ant3", "bQg1 bBg5 rQg9 rAa3 gAn3", 'b', "-");
    assert_false(g->result.over);
    must_play(g, "g5-g9");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_LAST_QUEEN);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.outcome[2], RULES_OUTCOME_LOSS);
    rules_game_free(g);

    /* ant3: a queen forced onto g7 while in check does not win. Red's queen
     * on g8 is checked by the green beetle on g13 (file g); every step is
     * attacked (g7, g9 by that beetle, f7 and h8 by the black beetle on a2
     * along row r = 1, f8 and h7 by the black grasshopper on h9). */
    g = game_from("ant3", "bQb1 bBa2 bGh9 rQg8 gQn7 gBg13", 'r', "-");
    assert_int_equal(g->nlegal, 7);
    must_play(g, "g8-g7");
    assert_false(g->result.over);
    must_play(g, "g13-g7");
    assert_int_equal(piece(&g->pos, "g7", &o), 'B');
    assert_false(g->result.over); /* black and green keep their queens */
    rules_game_free(g);

    /* ant3 centre win */
    g = game_from("ant3", "bQg6 rQa7 gQn7", 'b', "-");
    must_play(g, "g6-g7");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CENTRE);
    assert_int_equal(g->result.winner, 0);
    rules_game_free(g);
}

/* ------------------------------------------------------------------------ */
/* Text. */

static void roundtrip_moves(const rules_pos *p)
{
    const rules_variant *v = p->variant;
    rules_move m[RULES_MAX_MOVES];
    int n = v->legal_moves(p, m);
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
        rules_move back;
        assert_true(v->print_move(p, m[i], t, sizeof t) > 0);
        assert_int_equal(v->parse_move(p, t, &back, why, sizeof why), 0);
        assert_true(back == m[i]);
    }
}

static void roundtrip_position(const rules_pos *p)
{
    const rules_variant *v = p->variant;
    char t[RULES_POS_TEXT], t2[RULES_POS_TEXT], why[RULES_WHY_TEXT];
    assert_true(v->print_position(p, t, sizeof t) > 0);
    assert_null(strchr(t, ';'));
    rules_pos q;
    rules_pos_init(&q, v);
    assert_int_equal(v->parse_position(&q, t, why, sizeof why), 0);
    assert_true(v->print_position(&q, t2, sizeof t2) > 0);
    assert_string_equal(t, t2);
    assert_true(q.hash == p->hash);
    assert_int_equal(q.to_move, p->to_move);
    /* too small a buffer */
    assert_int_equal(v->print_position(p, t2, 5), -1);
}

static void test_roundtrips(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int g = 0; g < 6; g++) {
        const rules_variant *v = g % 2 ? V3 : V2;
        rules_pos p;
        rules_pos_init(&p, v);
        for (int ply = 0; ply < 60; ply++) {
            roundtrip_position(&p);
            roundtrip_moves(&p);
            rules_move m[RULES_MAX_MOVES];
            int n = v->legal_moves(&p, m);
            if (n == 0)
                break;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            rules_move mv = m[(seed >> 33) % (uint64_t)n];
            rules_undo u;
            rules_pos before = p;
            v->make(&p, mv, &u);
            rules_pos after = p;
            v->unmake(&p, mv, &u);
            assert_memory_equal(&before, &p, sizeof p);
            p = after;
            if (v == V3 && ply == 30)
                v->leave(&p, p.to_move);
        }
    }
}

static void test_bad_move_text(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V2);
    char why[RULES_WHY_TEXT];
    static const char *const syntax[] = {
        "",         "g1",         "g1-",         "g1-z9",      "j1-j2",      "G1-g2",
        "g1-g2 ",   " g1-g2",     "g1g2",        "g1--g2",     "g1-g2x",     "h3-g3@",
        "h3-g3@g4", "h3-g3@g4cc", "h3-g3@g4cwx", "h3-g3@g4CW", "pass ",      "PASS",
        "Pass",     "g1-g2=",     "g1-g2=s",     "g1-g2=Q",    "h3-g3@z4cw", "g1-g2@g3cw",
        "h3-g3",    "g5-g6=S",    "a1-a2-a3",    "g0-g1",      "g14-g13",    "-",
        "@",        "x",
    };
    for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++) {
        int err = parse_err(&p, syntax[i], why);
        if (err != RULES_EBAD_MOVE_TEXT)
            fail_msg("'%s' gave %d (%s)", syntax[i], err, why);
        assert_true(strlen(why) > 0);
    }
    char longtext[200];
    memset(longtext, 'a', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = 0;
    assert_int_equal(parse_err(&p, longtext, why), RULES_EBAD_MOVE_TEXT);

    assert_int_equal(parse_err(&p, "g7-g8", why), RULES_ENO_PIECE);
    assert_non_null(strstr(why, "g7-g8"));
    assert_int_equal(parse_err(&p, "g13-g12", why), RULES_ENOT_YOURS);
    assert_int_equal(parse_err(&p, "g1-g3", why), RULES_EUNREACHABLE);
    assert_non_null(strstr(why, "queen"));
    assert_int_equal(parse_err(&p, "g4-g5", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "h3-i4@h4cw", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "h3-i4@h4ccw", why), RULES_EUNREACHABLE);
    assert_int_equal(parse_err(&p, "h3-h2@g3cw", why), RULES_EUNREACHABLE); /* g3 empty */
    assert_int_equal(parse_err(&p, "h3-h2@h5cw", why), RULES_EUNREACHABLE); /* not next */
    assert_int_equal(parse_err(&p, "k1-a4", why), 0);
    assert_int_equal(parse_err(&p, "pass", why), 0);

    /* self check: a pinned piece (beetle in front of the queen) */
    load(V2, &p, "bQg1 bAg2 rBg9 rQn7", 'b', "-");
    assert_int_equal(parse_err(&p, "g2-h2", why), RULES_ESELF_CHECK);
    assert_int_equal(parse_err(&p, "g2-g3", why), 0);
}

static void expect_bad_position(const rules_variant *v, const char *text)
{
    rules_pos p;
    rules_pos_init(&p, v);
    rules_pos keep = p;
    char why[RULES_WHY_TEXT] = "";
    int err = v->parse_position(&p, text, why, sizeof why);
    if (err != RULES_EBAD_POSITION)
        fail_msg("accepted bad position '%s'", text);
    assert_true(strlen(why) > 0);
    assert_memory_equal(&keep, &p, sizeof p); /* unchanged on error */
}

static void test_bad_positions(void **state)
{
    (void)state;
    static const char *const bad2[] = {
        "",
        " b -",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -x",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b - ",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6  b -",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 g -", /* no green in ant2 */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b r", /* nobody leaves ant2 */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ7 b -", /* overrun */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ5 b -", /* short file */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8 b -",     /* 12 files */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6/7 b -",
        "7/8/9/10/11/12/13/12/11/10/9/8/rQ6 b -",     /* no black queen */
        "7/8/9/10/11/12/bQbQ11/12/11/10/9/8/rQ6 b -", /* two queens */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/gQ6 b -",
        "7/8/9/10/11/12/bX12/12/11/10/9/8/rQ6 b -",
        "7/8/9/10/11/12/bq12/12/11/10/9/8/rQ6 b -",
        "7/8/9/10/11/12/BQ12/12/11/10/9/8/rQ6 b -",
        "7/8/9/10/11/12/bQ012/12/11/10/9/8/rQ6 b -",
        "7/8/9/10/11/12/bQ0/12/11/10/9/8/rQ6 b -",
        "07/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ99999999999999999999 b -",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -;",
        "7;8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -",
        "6bA/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -",     /* soldier on promotion edge */
        "7/8/9/10/11/12/bQ11rQ/12/11/10/9/8/6rQ b -",     /* two red queens */
        "7/8/9/10/11/12/bQrQ11/12/11/10/9/8/7 r -",       /* black (not to move) in check */
        "bBbBbB4/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -", /* three beetles */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -\n",
    };
    for (size_t i = 0; i < sizeof bad2 / sizeof *bad2; i++)
        expect_bad_position(V2, bad2[i]);
    static const char *const bad3[] = {
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 b -",    /* no green? fine, but */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ6 r r",    /* to move has left */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ5gQ b rg", /* two left */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ5gQ b gr", /* order */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/rQ5gQ b rr",
        "7/8/9/10/11/12/13/12/11/10/9/8/7 b -", /* no queen at all */
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/gQ5gQ b -",
        "7/8/9/10/11/12/bQ12/12/11/10/9/8/gQ5gA b -", /* green soldier on n7? no: a-edge */
    };
    /* the first line is in fact fine in ant3 (green lost its queen) */
    rules_pos p;
    rules_pos_init(&p, V3);
    assert_int_equal(V3->parse_position(&p, bad3[0], NULL, 0), 0);
    for (size_t i = 1; i < sizeof bad3 / sizeof *bad3 - 1; i++)
        expect_bad_position(V3, bad3[i]);
    expect_bad_position(V3, NULL);
    char big[2048];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = 0;
    expect_bad_position(V2, big);
}

/* Truncations, junk and mutations of valid strings: rejected with a why,
 * or accepted and then printed back exactly. Never a crash. */
static void test_position_fuzz(void **state)
{
    (void)state;
    uint64_t seed = 99;
    const rules_variant *vs[2] = {V2, V3};
    for (int k = 0; k < 2; k++) {
        const rules_variant *v = vs[k];
        rules_pos p;
        rules_pos_init(&p, v);
        char good[RULES_POS_TEXT];
        int len = v->print_position(&p, good, sizeof good);
        for (int cut = 0; cut < len; cut++) {
            char t[RULES_POS_TEXT];
            memcpy(t, good, (size_t)cut);
            t[cut] = 0;
            expect_bad_position(v, t);
        }
        static const char alphabet[] = "0123456789/ -brgQASBLGWxj;\t";
        for (int i = 0; i < 4000; i++) {
            char t[RULES_POS_TEXT];
            strcpy(t, good);
            int edits = 1 + (int)(i % 3);
            for (int e = 0; e < edits; e++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                int at = (int)((seed >> 33) % (uint64_t)len);
                t[at] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
            }
            rules_pos q;
            rules_pos_init(&q, v);
            char why[RULES_WHY_TEXT] = "";
            int err = v->parse_position(&q, t, why, sizeof why);
            if (err == 0) {
                char back[RULES_POS_TEXT];
                v->print_position(&q, back, sizeof back);
                assert_string_equal(back, t);
                rules_move m[RULES_MAX_MOVES];
                v->legal_moves(&q, m);
            } else {
                assert_int_equal(err, RULES_EBAD_POSITION);
                assert_true(strlen(why) > 0);
            }
        }
        for (int i = 0; i < 500; i++) {
            char t[64];
            int n = (int)(i % 60);
            for (int j = 0; j < n; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                t[j] = (char)(1 + (seed >> 40) % 255);
            }
            t[n] = 0;
            rules_pos q;
            rules_pos_init(&q, v);
            assert_int_equal(v->parse_position(&q, t, NULL, 0), RULES_EBAD_POSITION);
        }
    }
}

static void test_perft_small(void **state)
{
    (void)state;
    /* Counts agreed with the reference generator (test_antchess_cross). */
    rules_pos p;
    rules_pos_init(&p, V2);
    assert_int_equal(rules_perft(&p, 1), 53);
    rules_pos_init(&p, V3);
    assert_int_equal(rules_perft(&p, 1), 51);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board),
        cmocka_unit_test(test_setup_ant2),
        cmocka_unit_test(test_setup_ant3),
        cmocka_unit_test(test_queen),
        cmocka_unit_test(test_soldier),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_super_ant),
        cmocka_unit_test(test_beetle),
        cmocka_unit_test(test_grasshopper),
        cmocka_unit_test(test_ladybug_figure6),
        cmocka_unit_test(test_ladybug_same_walk),
        cmocka_unit_test(test_earthworm),
        cmocka_unit_test(test_earthworm_figure7),
        cmocka_unit_test(test_ladybug_check),
        cmocka_unit_test(test_checkmate),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_three_turns_and_leave),
        cmocka_unit_test(test_leave_gives_no_centre_win),
        cmocka_unit_test(test_inert_pieces),
        cmocka_unit_test(test_three_check_and_lost_queen),
        cmocka_unit_test(test_roundtrips),
        cmocka_unit_test(test_bad_move_text),
        cmocka_unit_test(test_bad_positions),
        cmocka_unit_test(test_position_fuzz),
        cmocka_unit_test(test_perft_small),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
