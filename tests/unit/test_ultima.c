/*
 * test_ultima.c - Ultima through the rules core interface: the worked
 * examples of ../shared/rules/ultima.md, one hand-built position per piece
 * and capture method, immobilization, suicide, check by every method, the
 * kings rule, end of game through rules_game, the 1968 option, move text
 * and position strings (round trips, many malformed inputs).
 *
 * Positions are written as piece lists ("Ka5 kh7 Wd2 pc1"): a letter (upper
 * case White, lower case Black) and a cell; see pos_text() in
 * ultima_positions.h. Expected captures, positions and errors come from the
 * rules text.
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

static const char *SETUP = "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w";

static bool is_legal(const rules_pos *p, rules_move m)
{
    rules_move list[RULES_MAX_MOVES];
    int n = p->variant->legal_moves(p, list);
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

/* Play move text in a position: it must be legal, show as display, and
 * lead to the position after (a piece list, the other side to move). */
static void expect_move_id(const char *id, const char *pieces, char side, const char *text,
                           const char *display, const char *after)
{
    rules_pos p;
    load(&p, id, pos_text(pieces, side));
    const rules_variant *v = p.variant;
    rules_move m;
    char why[RULES_WHY_TEXT] = "";
    int err = v->parse_move(&p, text, &m, why, sizeof why);
    if (err != 0)
        print_error("%s in %s: %s\n", text, pos_text(pieces, side), why);
    assert_int_equal(err, 0);
    assert_true(is_legal(&p, m));
    char buf[RULES_MOVE_TEXT];
    assert_true(v->print_move(&p, m, buf, sizeof buf) > 0);
    assert_string_equal(buf, text);
    assert_true(rules_display_move(&p, m, buf, sizeof buf) > 0);
    assert_string_equal(buf, display);
    rules_undo u;
    rules_pos before = p;
    v->make(&p, m, &u);
    char got[RULES_POS_TEXT];
    assert_true(v->print_position(&p, got, sizeof got) > 0);
    assert_string_equal(got, pos_text(after, side == 'w' ? 'b' : 'w'));
    /* The hash after make is the hash of the position parsed afresh. */
    rules_pos fresh;
    load(&fresh, id, got);
    assert_true(fresh.hash == p.hash);
    v->unmake(&p, m, &u);
    assert_memory_equal(&p, &before, sizeof p);
}

static void expect_move(const char *pieces, char side, const char *text, const char *display,
                        const char *after)
{
    expect_move_id("ultima", pieces, side, text, display, after);
}

static void expect_error_id(const char *id, const char *pieces, char side, const char *text,
                            int want)
{
    rules_pos p;
    load(&p, id, pos_text(pieces, side));
    rules_move m;
    char why[RULES_WHY_TEXT] = "";
    int err = p.variant->parse_move(&p, text, &m, why, sizeof why);
    if (err != want)
        print_error("%s: got %s (%s), wanted %s\n", text, rules_err_code(err), why,
                    rules_err_code(want));
    assert_int_equal(err, want);
    /* The sentence names the move (or quotes the bad text). */
    assert_non_null(strstr(why, text));
}

static void expect_error(const char *pieces, char side, const char *text, int want)
{
    expect_error_id("ultima", pieces, side, text, want);
}

static unsigned flags(const char *pieces, char side, const char *cell)
{
    rules_pos p;
    load(&p, "ultima", pos_text(pieces, side));
    int c = rules_cell_parse(p.variant, cell);
    assert_true(c >= 0);
    return p.variant->cell_flags(&p, c);
}

static bool checked(const char *pieces, const char *king_cell)
{
    return (flags(pieces, 'w', king_cell) & RULES_CELL_CHECK) != 0;
}

/* ------------------------------------------------------------------------ */

static void test_setup(void **state)
{
    (void)state;
    const rules_variant *v = rules_find("ultima");
    assert_non_null(v);
    assert_non_null(rules_find("ultima1968"));
    rules_pos p;
    rules_pos_init(&p, v);
    char buf[RULES_POS_TEXT];
    assert_int_equal(v->print_position(&p, buf, sizeof buf), (int)strlen(SETUP));
    assert_string_equal(buf, SETUP);
    int owner = -1;
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "a1"), &owner), 'I');
    assert_int_equal(owner, 0);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "d1"), &owner), 'K');
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "e8"), &owner), 'K');
    assert_int_equal(owner, 1);
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "h8"), &owner), 'I');
    assert_int_equal(v->piece_at(&p, rules_cell_parse(v, "e4"), &owner), 0);
    assert_string_equal(rules_cell_name(v, 0), "a1");
    assert_string_equal(rules_cell_name(v, 63), "h8");
    rules_move list[RULES_MAX_MOVES];
    assert_int_equal(v->legal_moves(&p, list), 32);
    assert_int_equal(rules_perft(&p, 2), 944);
    /* The set-up parsed equals the set-up built, hash included. */
    rules_pos q;
    load(&q, "ultima", SETUP);
    assert_true(q.hash == p.hash);
    assert_true(q.to_move == 0);
}

/* Seed 000: a withdrawer going d2-g2 captures on c2 only, not on c3, d3,
 * e3, c1, d1 or e1. */
static void test_withdrawer_example(void **state)
{
    (void)state;
    expect_move("Ka5 kh7 Wd2 pc1 pd1 pe1 pc2 pc3 pd3 pe3", 'w', "d2-g2", "Wd2-g2xc2",
                "Ka5 kh7 Wg2 pc1 pd1 pe1 pc3 pd3 pe3");
    /* Moving towards or sideways from an enemy captures nothing. */
    expect_move("Ka5 kh7 Wd2 pc2", 'w', "d2-d5", "Wd2-d5", "Ka5 kh7 Wd5 pc2");
    /* Withdrawing from a friend captures nothing. */
    expect_move("Ka5 kh7 Wd2 Pc2", 'w', "d2-g2", "Wd2-g2", "Ka5 kh7 Wg2 Pc2");
    /* Any enemy kind, diagonally too. */
    expect_move("Ka5 kh7 Wd2 xc1", 'w', "d2-f4", "Wd2-f4xc1", "Ka5 kh7 Wf4");
}

/* Seed 000: king on a3, the coordinator moving to c7 captures on a7 and c3. */
static void test_coordinator_example(void **state)
{
    (void)state;
    expect_move("Ka3 Ch7 pa7 pc3 kh1", 'w', "h7-c7", "Ch7-c7xc3xa7", "Ka3 Cc7 kh1");
    /* Friends on the corners stay. */
    expect_move("Ka3 Ch7 Pa7 pc3 kh1", 'w', "h7-c7", "Ch7-c7xc3", "Ka3 Cc7 Pa7 kh1");
}

static void test_pawn(void **state)
{
    (void)state;
    /* Three pincers at once. */
    expect_move("Kh1 Pd1 Pb4 Pf4 Pd6 pc4 pe4 pd5 ka8", 'w', "d1-d4", "Pd1-d4xc4xe4xd5",
                "Kh1 Pd4 Pb4 Pf4 Pd6 ka8");
    /* The friend beyond may be any piece, the king included. */
    expect_move("Kf4 Pd1 pe4 ka8", 'w', "d1-d4", "Pd1-d4xe4", "Kf4 Pd4 ka8");
    /* No friend beyond: nothing. Diagonal lines never pincer. */
    expect_move("Kh1 Pd1 pc4 ka8", 'w', "d1-d4", "Pd1-d4", "Kh1 Pd4 pc4 ka8");
    expect_move("Kh1 Pd1 pc5 Pb6 ka8", 'w', "d1-d4", "Pd1-d4", "Kh1 Pd4 pc5 Pb6 ka8");
    /* Passive: a pawn moving between two enemies is not captured. */
    expect_move("Kh1 Pa3 pc2 pc4 ka8", 'w', "a3-c3", "Pa3-c3", "Kh1 Pc3 pc2 pc4 ka8");
    /* A rook's move only, onto empty cells only. */
    expect_error("Kh1 Pa3 ka8", 'w', "a3-b4", RULES_EUNREACHABLE);
    expect_error("Kh1 Pa3 pa5 ka8", 'w', "a3-a6", RULES_EUNREACHABLE);
    expect_error("Kh1 Pa3 pa5 ka8", 'w', "a3-a5", RULES_EUNREACHABLE);
    /* Black pincers too. */
    expect_move("Kh1 ka8 pe7 Pe3 pe2", 'b', "e7-e4", "Pe7-e4xe3", "Kh1 ka8 pe4 pe2");
}

static void test_long_leaper(void **state)
{
    (void)state;
    /* The display example of the rules. */
    expect_move("Kh1 Lb1 pb3 pb5 ka8", 'w', "b1-b6", "Lb1-b6xb3xb5", "Kh1 Lb6 ka8");
    expect_move("Kh1 Lb1 pb3 pb5 ka8", 'w', "b1-b4", "Lb1-b4xb3", "Kh1 Lb4 pb5 ka8");
    expect_move("Kh1 Lb1 pb3 pb5 ka8", 'w', "b1-b8", "Lb1-b8xb3xb5", "Kh1 Lb8 ka8");
    expect_move("Kh1 La1 wc3 ka8", 'w', "a1-e5", "La1-e5xc3", "Kh1 Le5 ka8");
    /* Not over two pieces in a row, not over a friend, never onto a piece. */
    expect_error("Kh1 Lb1 pb3 pb4 ka8", 'w', "b1-b6", RULES_EUNREACHABLE);
    expect_error("Kh1 Lb1 Pb3 ka8", 'w', "b1-b4", RULES_EUNREACHABLE);
    expect_error("Kh1 Lb1 pb3 ka8", 'w', "b1-b3", RULES_EUNREACHABLE);
    expect_error("Kh1 Lb1 pb3 pb5 ka8", 'w', "b1-b5", RULES_EUNREACHABLE);
    /* A leaper may leap a chameleon (any enemy). */
    expect_move("Kh1 Lb1 xb3 ka8", 'w', "b1-b4", "Lb1-b4xb3", "Kh1 Lb4 ka8");
}

static void test_king(void **state)
{
    (void)state;
    expect_move("Kd4 pd5 ka8", 'w', "d4-d5", "Kd4-d5xd5", "Kd5 ka8");
    expect_move("Kd4 ka8", 'w', "d4-e5", "Kd4-e5", "Ke5 ka8");
    expect_error("Kd4 ka8", 'w', "d4-d6", RULES_EUNREACHABLE);
    expect_error("Kd4 Pd5 ka8", 'w', "d4-d5", RULES_EUNREACHABLE);
    /* Kings rule: not next to an enemy king that is free... */
    expect_error("Kd4 kf4", 'w', "d4-e4", RULES_ESELF_CHECK);
    /* ...but next to a frozen one, which is then in check. */
    expect_move("Kd4 Ig5 kf4", 'w', "d4-e4", "Kd4-e4", "Ke4 Ig5 kf4");
    assert_true(flags("Ke4 Ig5 kf4", 'b', "f4") & RULES_CELL_CHECK);
    assert_false(flags("Ke4 Ig5 kf4", 'b', "e4") & RULES_CELL_CHECK);
}

static void test_immobilizer(void **state)
{
    (void)state;
    /* An enemy next to it (a corner is enough) cannot move. */
    expect_error("Kh1 Id4 pe5 ka8", 'b', "e5-e6", RULES_EFROZEN);
    assert_true(flags("Kh1 Id4 pe5 ka8", 'b', "e5") & RULES_CELL_FROZEN);
    assert_false(flags("Kh1 Id4 pe5 ka8", 'b', "d4") & RULES_CELL_FROZEN);
    assert_false(flags("Kh1 Id4 Pe5 ka8", 'w', "e5") & RULES_CELL_FROZEN);
    /* It moves like a queen and captures nothing. */
    expect_move("Kh1 Id4 pc4 pe4 Pf4 ka8", 'w', "d4-d7", "Id4-d7", "Kh1 Id7 pc4 pe4 Pf4 ka8");
    /* Two enemy immobilizers side by side freeze each other... */
    expect_error("Kh1 Id4 ie4 ka8", 'w', "d4-d5", RULES_EFROZEN);
    expect_error("Kh1 Id4 ie4 ka8", 'b', "e4-e5", RULES_EFROZEN);
    /* ...and a frozen immobilizer still freezes. */
    expect_error("Kh1 Id4 ie4 Pf4 ka8", 'w', "f4-f5", RULES_EFROZEN);
    assert_true(flags("Kh1 Id4 ie4 Pf4 ka8", 'w', "f4") & RULES_CELL_FROZEN);
    /* A frozen king cannot move. */
    expect_error("Kh1 ig2 ka8", 'w', "h1-h2", RULES_EFROZEN);
}

static void test_chameleon(void **state)
{
    (void)state;
    /* 1. A pawn by pincer, only on an orthogonal move. */
    expect_move("Kh1 Xa4 pe4 Pf4 ka8", 'w', "a4-d4", "Xa4-d4xe4", "Kh1 Xd4 Pf4 ka8");
    expect_move("Kh1 Xa1 pe4 Pf4 ka8", 'w', "a1-d4", "Xa1-d4", "Kh1 Xd4 pe4 Pf4 ka8");
    expect_move("Kh1 Xa4 we4 Pf4 ka8", 'w', "a4-d4", "Xa4-d4", "Kh1 Xd4 we4 Pf4 ka8");
    /* 2. A withdrawer by withdrawing (only a withdrawer). */
    expect_move("Kh1 Xd4 wc4 ka8", 'w', "d4-g4", "Xd4-g4xc4", "Kh1 Xg4 ka8");
    expect_move("Kh1 Xd4 pc4 ka8", 'w', "d4-g4", "Xd4-g4", "Kh1 Xg4 pc4 ka8");
    /* 3. A long leaper by leaping it (and only long leapers). */
    expect_move("Kh1 Xa1 la3 ka8", 'w', "a1-a5", "Xa1-a5xa3", "Kh1 Xa5 ka8");
    expect_move("Kh1 Xa1 la3 lc5 ka8", 'w', "a1-a6", "Xa1-a6xa3", "Kh1 Xa6 lc5 ka8");
    expect_error("Kh1 Xa1 pa3 ka8", 'w', "a1-a5", RULES_EUNREACHABLE);
    /* 4. A coordinator by coordinating with its own king. */
    expect_move("Ka3 Xh7 ca7 pc3 kh1", 'w', "h7-c7", "Xh7-c7xa7", "Ka3 Xc7 pc3 kh1");
    /* 5. A king by a step onto it: a king next to an enemy chameleon is in
     * check (and a position where the side not to move is so is refused). */
    assert_true(checked("Kd4 xe5 ka8", "d4"));
    rules_pos p;
    rules_pos_init(&p, rules_find("ultima"));
    char why[RULES_WHY_TEXT];
    assert_int_equal(p.variant->parse_position(&p, pos_text("Kh1 Xd4 ke5", 'w'), why, sizeof why),
                     RULES_EBAD_POSITION);
    /* An immobilizer is never captured, and freezes the chameleon next to
     * it while frozen by it. */
    expect_error("Kh1 Xd4 ie4 ka8", 'w', "d4-d5", RULES_EFROZEN);
    expect_error("Kh1 Xd4 ie4 ka8", 'b', "e4-e5", RULES_EFROZEN);
    expect_move("Kh1 Xd2 ic4 ka8", 'w', "d2-d3", "Xd2-d3", "Kh1 Xd3 ic4 ka8");
    /* A chameleon never captures a chameleon. */
    expect_move("Kh1 Xd4 xc4 ka8", 'w', "d4-g4", "Xd4-g4", "Kh1 Xg4 xc4 ka8");
    expect_move("Kh1 Xa4 xe4 Pf4 ka8", 'w', "a4-d4", "Xa4-d4", "Kh1 Xd4 xe4 Pf4 ka8");
    expect_error("Kh1 Xa1 xa3 ka8", 'w', "a1-a5", RULES_EUNREACHABLE);
    /* A chameleon does not freeze what is not an immobilizer. */
    expect_move("Kh1 Xd4 pe4 ka8", 'b', "e4-e6", "Pe4-e6", "Kh1 Xd4 pe6 ka8");
    /* All effects of one move apply together. */
    expect_move("Kh1 Xd4 wc4 pg4 Ph4 ka8", 'w', "d4-f4", "Xd4-f4xc4xg4", "Kh1 Xf4 Ph4 ka8");
    /* Other pieces capture chameleons in their own ways. */
    expect_move("Kh1 Pd1 xd5 Pd6 ka8", 'w', "d1-d4", "Pd1-d4xd5", "Kh1 Pd4 Pd6 ka8");
}

static void test_suicide(void **state)
{
    (void)state;
    expect_move("Kh1 Lb1 ia2 ka8", 'w', "b1x", "Lb1x", "Kh1 ia2 ka8");
    expect_move("Kh1 Xc1 ib2 ka8", 'w', "c1x", "Xc1x", "Kh1 ib2 ka8");
    expect_move("Kh1 Id4 ie4 ka8", 'b', "e4x", "Ie4x", "Kh1 Id4 ka8");
    /* Only a frozen piece, never the king. */
    expect_error("Kh1 Lb1 ka8", 'w', "b1x", RULES_EILLEGAL);
    expect_error("Kh1 ig2 ka8", 'w', "h1x", RULES_EILLEGAL);
    /* Not when the piece's removal frees an attacker of the king. */
    expect_error("Ka1 Ic2 xb2 id2 kh8", 'w', "c2x", RULES_ESELF_CHECK);
}

static void test_check_methods(void **state)
{
    (void)state;
    /* Pawn: reaches e4 with a black piece beyond on c4. */
    assert_true(checked("Kd4 pc4 pe8 ka8", "d4"));
    assert_false(checked("Kd4 pc4 pe8 If8 ka8", "d4")); /* frozen */
    assert_false(checked("Kd4 Pc4 pe8 ka8", "d4"));     /* a friend beyond */
    /* Withdrawer: next to the king with room to step away. */
    assert_true(checked("Kd4 we5 ka8", "d4"));
    assert_false(checked("Kd4 we5 Pf6 ka8", "d4"));
    /* Long leaper: cell beyond the king empty, may leap others first. */
    assert_true(checked("Kd4 ld8 ka8", "d4"));
    assert_false(checked("Kd4 ld8 Pd3 ka8", "d4"));
    assert_true(checked("Kd4 ld8 Pd6 ka8", "d4"));
    assert_false(checked("Kd4 ld8 Pd5 ka8", "d4"));
    assert_false(checked("Kd4 ld8 pd6 ka8", "d4"));
    /* Coordinator: its king on the king's rank, it reaches the king's file. */
    assert_true(checked("Kd4 ch8 ka4", "d4"));
    assert_false(checked("Kd4 ch8 Pe8 Pg7 Ph7 Pg8 ka4", "d4"));
    /* King and chameleon next to the king; not when frozen. */
    assert_true(checked("Kd4 xe5 ka8", "d4"));
    assert_false(checked("Kd4 xe5 If6 ka8", "d4"));
    /* Immobilizer: never checks. */
    assert_false(checked("Kd4 ie5 ka8", "d4"));
    /* A check must be answered. */
    expect_error("Kd4 xe5 Pa2 ka8", 'w', "a2-a3", RULES_ESELF_CHECK);
    expect_move("Kd4 xe5 Pa2 ka8", 'w', "d4-e5", "Kd4-e5xe5", "Ke5 Pa2 ka8");
}

static rules_game *game(const char *id, const char *position)
{
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&g, id, position, why, sizeof why), 0);
    return g;
}

static void play(rules_game *g, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_play_text(g, g->pos.to_move, text, NULL, why, sizeof why);
    if (err)
        print_error("%s: %s\n", text, why);
    assert_int_equal(err, 0);
}

static void test_game_end(void **state)
{
    (void)state;
    /* Stalemate loses: the white king is frozen, White has no move. */
    rules_game *g = game("ultima", pos_text("Ka1 ib2 kh8", 'w'));
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 1);
    assert_int_equal(g->result.reason, RULES_REASON_STALEMATE);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_LOSS);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_WIN);
    assert_int_equal(rules_game_to_move(g), -1);
    rules_game_free(g);

    /* Checkmate: the chameleon steps next to the king, which has nowhere
     * to go (b2 would stand next to the black king). */
    g = game("ultima", pos_text("Ka1 xc2 kc3", 'b'));
    assert_false(g->result.over);
    play(g, "c2-b2");
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 1);
    assert_int_equal(g->result.reason, RULES_REASON_CHECKMATE);
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_play_text(g, 0, "a1-a2", NULL, why, sizeof why), RULES_EGAME_OVER);
    rules_game_free(g);

    /* Threefold repetition of the set-up. */
    g = game("ultima", NULL);
    for (int i = 0; i < 2; i++) {
        play(g, "a2-a3");
        play(g, "h7-h6");
        play(g, "a3-a2");
        assert_false(g->result.over);
        play(g, "h6-h7");
    }
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_REPETITION);
    assert_int_equal(g->result.winner, -1);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    rules_game_free(g);

    /* Turn order, resignation. */
    g = game("ultima", NULL);
    assert_int_equal(rules_game_play_text(g, 1, "h7-h6", NULL, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    play(g, "a2-a3");
    assert_int_equal(rules_game_to_move(g), 1);
    assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.reason, RULES_REASON_RESIGNATION);
    rules_game_free(g);

    /* A whole short game with captures through the game layer. */
    g = game("ultima", NULL);
    play(g, "e2-e4");
    play(g, "d7-d5");
    play(g, "e4-e5");
    play(g, "e7-e6");
    play(g, "f2-f5");
    play(g, "d5-d6");
    assert_false(g->result.over);
    rules_game_free(g);
}

static void test_rule_1968(void **state)
{
    (void)state;
    const char *id = "ultima1968";
    rules_pos p;
    load(&p, id, SETUP);
    rules_move list[RULES_MAX_MOVES];
    /* Only the pawns of rank 2 move, at most two squares. */
    assert_int_equal(p.variant->legal_moves(&p, list), 16);
    expect_error_id(id, "Kh1 Pa2 ka8", 'w', "a2-a5", RULES_EUNREACHABLE);
    expect_move_id(id, "Kh1 Pa2 ka8", 'w', "a2-a4", "Pa2-a4", "Kh1 Pa4 ka8");
    expect_move_id("ultima", "Kh1 Pa2 ka8", 'w', "a2-a5", "Pa2-a5", "Kh1 Pa5 ka8");
    /* Black counts from rank 8: on h7 it is on its 2nd rank. */
    expect_move_id(id, "Ka1 ph7 ka8", 'b', "h7-h5", "Ph7-h5", "Ka1 ph5 ka8");
    expect_error_id(id, "Ka1 ph7 ka8", 'b', "h7-h4", RULES_EUNREACHABLE);
    /* A leaper counts every square crossed, the landing one included. */
    expect_move_id(id, "Kh1 Lb2 pb3 ka8", 'w', "b2-b4", "Lb2-b4xb3", "Kh1 Lb4 ka8");
    expect_error_id(id, "Kh1 Lb1 pb2 ka8", 'w', "b1-b3", RULES_EUNREACHABLE);
    expect_move_id("ultima", "Kh1 Lb1 pb2 ka8", 'w', "b1-b3", "Lb1-b3xb2", "Kh1 Lb3 ka8");
    /* Attacks obey it too: a leaper on d8 (Black's 1st rank) cannot take
     * a king on d4, one on d5 (its 4th rank) can take one on d2. */
    rules_pos_init(&p, rules_find(id));
    load(&p, id, pos_text("Kd4 ld8 ka8", 'w'));
    assert_false(p.variant->cell_flags(&p, rules_cell_parse(p.variant, "d4")) & RULES_CELL_CHECK);
    load(&p, id, pos_text("Kd2 ld5 ka8", 'w'));
    assert_true(p.variant->cell_flags(&p, rules_cell_parse(p.variant, "d2")) & RULES_CELL_CHECK);
}

static void test_move_text(void **state)
{
    (void)state;
    const char *bad[] = {
        "",      "e2",     "e2-",      "e2e4",   "e2-e44", "e2 - e4", "E2-e4", "e2-E4", "i2-e4",
        "e2-e9", "e0-e4",  "e2-e4 ",   " e2-e4", "e2x4",   "e2xx",    "x",     "pass",  "e2-e4=Q",
        "2e-4e", "e2--e4", "e2-e4xe5", "ee-e4",  "e2_e4",  "b1X",     "b1 x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rules_pos p;
        load(&p, "ultima", SETUP);
        rules_move m;
        char why[RULES_WHY_TEXT] = "";
        assert_int_equal(p.variant->parse_move(&p, bad[i], &m, why, sizeof why),
                         RULES_EBAD_MOVE_TEXT);
        assert_true(why[0] != 0);
    }
    expect_error("Kd1 ke8 Pe2", 'w', "e4-e5", RULES_ENO_PIECE);
    expect_error("Kd1 ke8 pe7", 'w', "e7-e5", RULES_ENOT_YOURS);
    expect_error("Kd1 ke8 Ia1 Pa2", 'w', "a1-a2", RULES_EUNREACHABLE);
    expect_error("Kd1 ke8 Pe2", 'w', "e2-e2", RULES_EUNREACHABLE);
    expect_error("Kd1 ke8 Pe2", 'w', "e2x", RULES_EILLEGAL);

    /* Every legal move of the set-up prints and parses back to itself. */
    rules_pos p;
    load(&p, "ultima", SETUP);
    rules_move list[RULES_MAX_MOVES];
    int n = p.variant->legal_moves(&p, list);
    for (int i = 0; i < n; i++) {
        char text[RULES_MOVE_TEXT];
        rules_move m = 0;
        assert_true(p.variant->print_move(&p, list[i], text, sizeof text) > 0);
        assert_int_equal(p.variant->parse_move(&p, text, &m, NULL, 0), 0);
        assert_true(m == list[i]);
    }
    char tiny[3];
    assert_int_equal(p.variant->print_move(&p, list[0], tiny, sizeof tiny), -1);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

static void test_position_strings(void **state)
{
    (void)state;
    const rules_variant *v = rules_find("ultima");
    const char *bad[] = {
        "",
        " w",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC ",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC x",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC W",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w ",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC  w",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w;",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC wb",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXL w",    /* 7 cells */
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLCI w",  /* 9 cells */
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP w",            /* 7 ranks */
        "clxwkxli/pppppppp/8/8/8/8/8/PPPPPPPP/ILXKWXLC w", /* 9 ranks */
        "clxwkxli/pppppppp/44/8/8/8/PPPPPPPP/ILXKWXLC w",  /* two digits */
        "clxwkxli/pppppppp/9/8/8/8/PPPPPPPP/ILXKWXLC w",
        "clxwkxli/pppppppp/0/8/8/8/PPPPPPPP/ILXKWXLC w",
        "clxwkxli/pppppppp/7Q/8/8/8/PPPPPPPP/ILXKWXLC w", /* no such letter */
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXQWXLC w",
        "clxwxxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w",   /* no black king */
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXXWXLC w",   /* no white king */
        "clxwkxli/pppppppp/8/3K4/8/8/PPPPPPPP/ILXKWXLC w", /* two kings */
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP//ILXKWXLC w",
        "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC/ w",
        "/clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w",
        "clxwkxli.pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w",
        "8/8/8/3k4/3K4/8/8/8 w", /* black in check */
        "8/8/8/3k4/3K4/8/8/8 b", /* white in check */
        "w",
        "8",
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
        assert_true(why[0] != 0);
        /* A refused string leaves the position as it was. */
        assert_memory_equal(&p, &before, sizeof p);
    }
    /* An overlong string. */
    char longs[4096];
    memset(longs, 'p', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    rules_pos p;
    rules_pos_init(&p, v);
    assert_int_equal(v->parse_position(&p, longs, NULL, 0), RULES_EBAD_POSITION);
    assert_int_equal(v->parse_position(&p, NULL, NULL, 0), RULES_EBAD_POSITION);

    /* Every truncation of valid strings is refused. */
    const char *good[] = {SETUP, "8/8/8/3k4/8/3K4/8/8 b",
                          "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC b"};
    for (size_t g = 0; g < 3; g++) {
        char buf[RULES_POS_TEXT];
        size_t len = strlen(good[g]);
        for (size_t i = 0; i < len; i++) {
            memcpy(buf, good[g], i);
            buf[i] = 0;
            assert_int_equal(v->parse_position(&p, buf, NULL, 0), RULES_EBAD_POSITION);
        }
        assert_int_equal(v->parse_position(&p, good[g], NULL, 0), 0);
        char out[RULES_POS_TEXT];
        assert_int_equal(v->print_position(&p, out, sizeof out), (int)len);
        assert_string_equal(out, good[g]);
        assert_int_equal(v->print_position(&p, out, len), -1);
    }

    /* Mutations and junk: refused, or accepted and printed back exactly. */
    const char alphabet[] = "KPWLCIXkpwlcix12345678/ wb;09Qq\t\n\x01\xff";
    int accepted = 0;
    for (int i = 0; i < 20000; i++) {
        char buf[128];
        size_t len;
        if (i % 2) {
            len = strlen(SETUP);
            memcpy(buf, SETUP, len + 1);
            int edits = 1 + (int)(rnd() % 3);
            for (int e = 0; e < edits; e++)
                buf[rnd() % len] = alphabet[rnd() % (sizeof alphabet - 1)];
        } else {
            len = rnd() % 80;
            for (size_t k = 0; k < len; k++)
                buf[k] = alphabet[rnd() % (sizeof alphabet - 1)];
            buf[len] = 0;
        }
        char why[RULES_WHY_TEXT] = "";
        int err = v->parse_position(&p, buf, why, sizeof why);
        if (err == 0) {
            char out[RULES_POS_TEXT];
            assert_true(v->print_position(&p, out, sizeof out) > 0);
            assert_string_equal(out, buf);
            assert_null(strchr(out, ';'));
            accepted++;
        } else {
            assert_int_equal(err, RULES_EBAD_POSITION);
            assert_true(why[0] != 0);
        }
    }
    assert_true(accepted > 0);
}

/* Random games: every position prints, parses back to the same position
 * and hash; unmake restores; positions never contain ';'. */
static void test_random_games_round_trip(void **state)
{
    (void)state;
    for (int id = 0; id < 2; id++) {
        const rules_variant *v = rules_find(id ? "ultima1968" : "ultima");
        for (int gno = 0; gno < 30; gno++) {
            rules_pos p;
            rules_pos_init(&p, v);
            for (int ply = 0; ply < 150; ply++) {
                rules_move list[RULES_MAX_MOVES];
                int n = v->legal_moves(&p, list);
                char text[RULES_POS_TEXT];
                assert_true(v->print_position(&p, text, sizeof text) > 0);
                assert_null(strchr(text, ';'));
                rules_pos q;
                rules_pos_init(&q, v);
                assert_int_equal(v->parse_position(&q, text, NULL, 0), 0);
                assert_true(q.hash == p.hash);
                assert_memory_equal(q.data, p.data, sizeof p.data);
                rules_result r = {.winner = -1};
                v->status(&p, n, &r);
                if (n == 0) {
                    assert_true(r.over);
                    break;
                }
                assert_false(r.over);
                rules_move m = list[rnd() % (uint64_t)n];
                char mt[RULES_MOVE_TEXT], disp[RULES_MOVE_TEXT];
                assert_true(v->print_move(&p, m, mt, sizeof mt) > 0);
                assert_true(rules_display_move(&p, m, disp, sizeof disp) > 0);
                rules_move back;
                assert_int_equal(v->parse_move(&p, mt, &back, NULL, 0), 0);
                assert_true(back == m);
                rules_undo u;
                rules_pos before = p;
                v->make(&p, m, &u);
                v->unmake(&p, m, &u);
                assert_memory_equal(&p, &before, sizeof p);
                v->make(&p, m, &u);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup),
        cmocka_unit_test(test_withdrawer_example),
        cmocka_unit_test(test_coordinator_example),
        cmocka_unit_test(test_pawn),
        cmocka_unit_test(test_long_leaper),
        cmocka_unit_test(test_king),
        cmocka_unit_test(test_immobilizer),
        cmocka_unit_test(test_chameleon),
        cmocka_unit_test(test_suicide),
        cmocka_unit_test(test_check_methods),
        cmocka_unit_test(test_game_end),
        cmocka_unit_test(test_rule_1968),
        cmocka_unit_test(test_move_text),
        cmocka_unit_test(test_position_strings),
        cmocka_unit_test(test_random_games_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
