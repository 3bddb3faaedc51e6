/*
 * test_engine_ultima.c - the bots' hooks of Ultima (is_capture, evaluate)
 * and the search on them: is_capture agrees with the captures the rules
 * make on every legal move of random games and random dense positions of
 * both games; hand-built positions with a win in one (the opponent left
 * without a legal move: checkmate or a frozen lone king) are found by
 * search_run at depth 2-3; evaluate is colour-blind (a
 * position turned half round with the colours swapped scores the same for
 * the other side) and prefers the side with more material.
 *
 * Positions are written as piece lists ("Ka1 kh8 Ie5"): a letter (upper
 * case White, lower case Black) and a cell; see pos_text() in
 * ultima_positions.h.
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
#include "search.h"

static const char *SETUP = "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w";

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

/* is_capture against the rules on every legal move of p; returns how many
 * legal moves p has. */
static int check_captures(const rules_pos *p, int *ncaptures)
{
    const rules_variant *v = p->variant;
    rules_move list[RULES_MAX_MOVES];
    int cells[RULES_MAX_CELLS];
    int n = v->legal_moves(p, list);
    for (int i = 0; i < n; i++) {
        bool want = rules_move_captures(p, list[i], cells) > 0;
        bool got = v->is_capture(p, list[i]);
        if (got != want) {
            char pt[RULES_POS_TEXT], mt[RULES_MOVE_TEXT];
            v->print_position(p, pt, sizeof pt);
            v->print_move(p, list[i], mt, sizeof mt);
            print_error("%s in %s: is_capture %d, rules %d\n", mt, pt, got, want);
        }
        assert_int_equal(got, want);
        *ncaptures += want;
    }
    return n;
}

/* A random game from p of at most plies moves, checking every position. */
static void random_game(rules_pos *p, int plies, int *npos, int *ncaptures)
{
    for (int ply = 0; ply < plies; ply++) {
        rules_move list[RULES_MAX_MOVES];
        int n = check_captures(p, ncaptures);
        (*npos)++;
        if (n == 0)
            return;
        p->variant->legal_moves(p, list);
        rules_undo u;
        p->variant->make(p, list[rnd() % (uint64_t)n], &u);
    }
}

/* A random dense position with both kings; false if the rules refuse it
 * (the side not to move in check). */
static bool random_position(const rules_variant *v, rules_pos *p)
{
    static const char kinds[] = "PPPPPPPPWLLCIXX";
    char b[64], text[RULES_POS_TEXT];
    memset(b, '.', 64);
    for (int side = 0; side < 2; side++) {
        int c;
        do
            c = (int)(rnd() % 64);
        while (b[c] != '.');
        b[c] = side ? 'k' : 'K';
        for (int i = 0; i < 15; i++) {
            if (rnd() % 4 == 0)
                continue;
            do
                c = (int)(rnd() % 64);
            while (b[c] != '.');
            b[c] = side ? (char)(kinds[i] - 'A' + 'a') : kinds[i];
        }
    }
    board_text(b, rnd() % 2 ? 'w' : 'b', text);
    rules_pos_init(p, v);
    return v->parse_position(p, text, NULL, 0) == 0;
}

static void test_is_capture_agrees(void **state)
{
    (void)state;
    for (int id = 0; id < 2; id++) {
        const rules_variant *v = rules_find(id ? "ultima1968" : "ultima");
        assert_non_null(v->is_capture);
        int npos = 0, ncaptures = 0;
        rules_pos p;
        for (int g = 0; g < 40; g++) {
            rules_pos_init(&p, v);
            random_game(&p, 100, &npos, &ncaptures);
        }
        for (int done = 0; done < 300;) {
            if (!random_position(v, &p))
                continue;
            random_game(&p, 10, &npos, &ncaptures);
            done++;
        }
        assert_true(npos > 2000);
        assert_true(ncaptures > 1000);
    }
}

/* The suicide of a frozen piece captures nothing. */
static void test_is_capture_suicide(void **state)
{
    (void)state;
    rules_pos p;
    load(&p, "ultima", pos_text("Ka1 Wd4 ke8 ie5", 'w'));
    rules_move m;
    assert_int_equal(p.variant->parse_move(&p, "d4x", &m, NULL, 0), 0);
    assert_false(p.variant->is_capture(&p, m));
    /* The king's capture by replacement. */
    load(&p, "ultima", pos_text("Kd4 ka8 pe5", 'w'));
    assert_int_equal(p.variant->parse_move(&p, "d4-e5", &m, NULL, 0), 0);
    assert_true(p.variant->is_capture(&p, m));
}

/* Search p at depth; the move found must leave the opponent without a
 * legal move (it wins by the rules), scored as a forced win. */
static void expect_win_in_one(const char *id, const char *pieces, char side, int depth,
                              const char *want)
{
    rules_pos p;
    load(&p, id, pos_text(pieces, side));
    const rules_variant *v = p.variant;
    search_ctx *s = search_new(1 << 20);
    assert_non_null(s);
    search_limits lim = {.depth = depth};
    search_report out;
    assert_int_equal(search_run(s, &p, NULL, 0, &lim, NULL, NULL, &out), 0);
    assert_true(out.best != 0);
    char mt[RULES_MOVE_TEXT];
    v->print_move(&p, out.best, mt, sizeof mt);
    if (want != NULL && strcmp(mt, want) != 0)
        print_error("%s: found %s, wanted %s\n", pos_text(pieces, side), mt, want);
    if (want != NULL)
        assert_string_equal(mt, want);
    assert_true(out.score >= SEARCH_WIN_BOUND);
    assert_true(out.nodes < 20000); /* a few ms: under 200 nodes when written */
    rules_undo u;
    v->make(&p, out.best, &u);
    rules_move list[RULES_MAX_MOVES];
    int n = v->legal_moves(&p, list);
    assert_int_equal(n, 0);
    rules_result r = {.winner = -1};
    v->status(&p, n, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, side == 'w' ? 0 : 1);
    search_free(s);
}

static void test_win_in_one(void **state)
{
    (void)state;
    /* The immobilizer freezes the lone king: Black has no move. */
    expect_win_in_one("ultima", "Ka1 Ie5 kh8", 'w', 2, "e5-g7");
    expect_win_in_one("ultima1968", "Ka1 Ie5 kh8", 'w', 3, "e5-g7");
    /* The same for Black. */
    expect_win_in_one("ultima", "Kh1 ka8 id4", 'b', 2, "d4-g1");
    /* Coordinator mate: the king frozen in the corner; the white king
     * steps onto the h-file, so that the coordinator's move along rank 8
     * would capture it, and the black pawn cannot reach b8. */
    expect_win_in_one("ultima", "Kg5 Ig7 Ca8 kh8 pa3", 'w', 3, NULL);
    /* Long leaper mate: the frozen king on e5, the leaper steps onto
     * rank 5 and threatens to leap it to f5. */
    expect_win_in_one("ultima", "Ka1 Id4 La6 ke5 ph1", 'w', 3, "a6-a5");
    /* Several threats at once on the frozen king (a withdrawer next to
     * it, a pawn's pincer against an anchor): any of them wins. */
    expect_win_in_one("ultima", "Ka1 Id4 Wg4 Pa6 ke5 ph1", 'w', 3, NULL);
}

/* The position turned half round with the colours swapped. */
static void mirror(const rules_pos *p, rules_pos *out)
{
    const rules_variant *v = p->variant;
    char b[64], text[RULES_POS_TEXT];
    for (int c = 0; c < 64; c++) {
        int owner;
        char l = v->piece_at(p, 63 - c, &owner);
        b[c] = l == 0 ? '.' : owner == 0 ? (char)(l - 'A' + 'a') : l;
    }
    board_text(b, p->to_move == 0 ? 'b' : 'w', text);
    load(out, v->id, text);
}

static void test_evaluate_symmetry(void **state)
{
    (void)state;
    for (int id = 0; id < 2; id++) {
        const rules_variant *v = rules_find(id ? "ultima1968" : "ultima");
        assert_non_null(v->evaluate);
        rules_pos p;
        rules_pos_init(&p, v);
        int32_t sc[2], mc[2];
        v->evaluate(&p, sc);
        assert_int_equal(sc[0], sc[1]);
        for (int g = 0; g < 10; g++) {
            rules_pos_init(&p, v);
            for (int ply = 0; ply < 80; ply++) {
                rules_move list[RULES_MAX_MOVES];
                int n = v->legal_moves(&p, list);
                if (n == 0)
                    break;
                v->evaluate(&p, sc);
                rules_pos q;
                mirror(&p, &q);
                v->evaluate(&q, mc);
                assert_int_equal(sc[0], mc[1]);
                assert_int_equal(sc[1], mc[0]);
                rules_undo u;
                v->make(&p, list[rnd() % (uint64_t)n], &u);
            }
        }
    }
}

static void test_evaluate_material(void **state)
{
    (void)state;
    rules_pos p;
    int32_t sc[2];
    /* Black without its withdrawer (the piece on the queen's square). */
    load(&p, "ultima", "clxk1xli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w");
    p.variant->evaluate(&p, sc);
    assert_true(sc[0] > sc[1] + 300);
    /* White without its immobilizer. */
    load(&p, "ultima", "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/1LXKWXLC w");
    p.variant->evaluate(&p, sc);
    assert_true(sc[1] > sc[0] + 300);
    /* A pawn fewer is less than a withdrawer fewer. */
    int32_t pawn[2];
    load(&p, "ultima", "clxwkxli/ppppppp1/8/8/8/8/PPPPPPPP/ILXKWXLC w");
    p.variant->evaluate(&p, pawn);
    assert_true(pawn[0] > pawn[1]);
    load(&p, "ultima", "clxk1xli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w");
    p.variant->evaluate(&p, sc);
    assert_true(sc[0] > pawn[0]);
    (void)SETUP;
}

/* A frozen piece is worth less than a free one, a frozen king costs much. */
static void test_evaluate_frozen(void **state)
{
    (void)state;
    rules_pos p;
    int32_t free_[2], held[2];
    /* Black's withdrawer far from White's immobilizer, then next to it. */
    load(&p, "ultima", pos_text("Ka1 Ic3 kh8 wf6", 'w'));
    p.variant->evaluate(&p, free_);
    load(&p, "ultima", pos_text("Ka1 Ic3 kh8 wd4", 'w'));
    p.variant->evaluate(&p, held);
    assert_true(held[0] - held[1] > free_[0] - free_[1] + 100);
    /* Black's king next to White's immobilizer. */
    load(&p, "ultima", pos_text("Ka1 Ie4 kd6 wh8", 'w'));
    p.variant->evaluate(&p, free_);
    load(&p, "ultima", pos_text("Ka1 Ie4 kd5 wh8", 'w'));
    p.variant->evaluate(&p, held);
    assert_true(held[0] - held[1] > free_[0] - free_[1] + 150);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_capture_agrees), cmocka_unit_test(test_is_capture_suicide),
        cmocka_unit_test(test_win_in_one),        cmocka_unit_test(test_evaluate_symmetry),
        cmocka_unit_test(test_evaluate_material), cmocka_unit_test(test_evaluate_frozen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
