/*
 * test_engine_yalta.c - the bots' hooks of Yalta chess (common/yalta.c):
 * is_capture agrees with rules_move_captures on every legal move of many
 * random-playout positions; set_to_move gives the turn to any player still
 * in the game and back, restoring the position and its hash, and make/unmake
 * round-trip in between; evaluate is fair at the set-up, symmetric under the
 * board's rotation, and sees material; the search finds mates in one.
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
#include "yalta_positions.h"
#include "search.h"
#include "search_fixture.h"
#include "yalta.h"

static const rules_variant *V = &yalta_variant;

/* ------------------------------------------------------------------------ */
/* Helpers (positions from placements: yalta_positions.h). */

static void print_pos(const rules_pos *p, char *out)
{
    assert_true(V->print_position(p, out, RULES_POS_TEXT) > 0);
}

static uint64_t rng_next(uint64_t *s)
{
    return rules_splitmix64(s);
}

/* Has a player left? (the fifth field of the position string) */
static bool someone_left(const rules_pos *p)
{
    char text[RULES_POS_TEXT];
    print_pos(p, text);
    const char *s = text;
    for (int i = 0; i < 4; i++)
        s = strchr(s, ' ') + 1;
    return *s != '-';
}

/*
 * Random playouts from the set-up: calls visit at every position reached
 * (the root of each game included) until `count` positions were visited.
 * Captures are preferred half of the time so that games thin out; now and
 * then a player leaves (its pieces turn inert). Games end at their end or
 * after 250 plies.
 */
static void playouts(uint64_t seed, int count, void (*visit)(rules_pos *p, void *arg), void *arg)
{
    int seen = 0;
    while (seen < count) {
        rules_pos p;
        rules_pos_init(&p, V);
        for (int ply = 0; ply < 250 && seen < count; ply++) {
            visit(&p, arg);
            seen++;
            rules_move mv[RULES_MAX_MOVES];
            int n = V->legal_moves(&p, mv);
            if (n == 0)
                break;
            uint64_t r = rng_next(&seed);
            if (r % 400 == 0 && !someone_left(&p)) {
                V->leave(&p, (int)(r >> 20) % 3);
                continue;
            }
            rules_move m = mv[(r >> 32) % (uint64_t)n];
            if (r & 1) {
                int caps[RULES_MAX_MOVES], nc = 0;
                int cells[RULES_MAX_CELLS];
                for (int i = 0; i < n; i++)
                    if (rules_move_captures(&p, mv[i], cells) > 0)
                        caps[nc++] = i;
                if (nc)
                    m = mv[caps[(r >> 40) % (uint64_t)nc]];
            }
            rules_undo u;
            V->make(&p, m, &u);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* is_capture. */

typedef struct capture_stats {
    long moves, captures, en_passant, inert;
} capture_stats;

static void check_captures(rules_pos *p, void *arg)
{
    capture_stats *st = arg;
    rules_move mv[RULES_MAX_MOVES];
    int n = V->legal_moves(p, mv);
    for (int i = 0; i < n; i++) {
        int cells[RULES_MAX_CELLS];
        int nc = rules_move_captures(p, mv[i], cells);
        bool cap = V->is_capture(p, mv[i]);
        if (cap != (nc > 0)) {
            char text[RULES_POS_TEXT], mt[RULES_MOVE_TEXT];
            print_pos(p, text);
            V->print_move(p, mv[i], mt, sizeof mt);
            print_error("%s in %s: is_capture %d, captures %d\n", mt, text, cap, nc);
        }
        assert_int_equal(cap, nc > 0);
        st->moves++;
        st->captures += cap;
        if (cap) {
            int owner = -1;
            V->piece_at(p, cells[0], &owner);
            int32_t score[3];
            V->evaluate(p, score);
            st->inert += score[owner] == INT32_MIN;
        }
        char mt[RULES_MOVE_TEXT];
        V->print_move(p, mv[i], mt, sizeof mt);
        int to = rules_cell_parse_prefix(V, strchr(mt, '-') + 1, NULL);
        st->en_passant += cap && V->piece_at(p, to, NULL) == 0;
    }
}

static void test_is_capture_agrees(void **state)
{
    (void)state;
    capture_stats st = {0};
    playouts(20261124, 4000, check_captures, &st);
    print_message("%ld moves, %ld captures (%ld en passant, %ld of inert pieces)\n", st.moves,
                  st.captures, st.en_passant, st.inert);
    assert_true(st.captures > 1000);
    assert_true(st.inert > 0);

    /* En passant, by hand: white e2-e4, then red and black may take. */
    rules_pos p = pos_of("wKe1 wPe2 rKd8 rPd4 bKi12 bPf4", "w - - - 0");
    rules_move m;
    rules_undo u;
    assert_int_equal(V->parse_move(&p, "e2-e4", &m, NULL, 0), 0);
    assert_false(V->is_capture(&p, m));
    V->make(&p, m, &u);
    assert_int_equal(V->parse_move(&p, "d4-e3", &m, NULL, 0), 0);
    assert_true(V->is_capture(&p, m));
    /* Castling lands on an empty cell. */
    p = pos_of("wKe1 wRh1 rKd8 bKi12", "w wK - - 0");
    assert_int_equal(V->parse_move(&p, "e1-g1", &m, NULL, 0), 0);
    assert_false(V->is_capture(&p, m));
}

/* ------------------------------------------------------------------------ */
/* set_to_move. */

static void sorted_moves(const rules_pos *p, rules_move *mv, int *n)
{
    *n = V->legal_moves(p, mv);
    for (int i = 1; i < *n; i++)
        for (int j = i; j > 0 && mv[j - 1] > mv[j]; j--) {
            rules_move t = mv[j];
            mv[j] = mv[j - 1];
            mv[j - 1] = t;
        }
}

typedef struct turn_stats {
    long positions, moves, parked;
} turn_stats;

static void check_turns(rules_pos *p, void *arg)
{
    turn_stats *st = arg;
    int was = p->to_move;
    char before[RULES_POS_TEXT], text[RULES_POS_TEXT], again[RULES_POS_TEXT];
    print_pos(p, before);
    uint64_t hash = p->hash;
    for (int j = 0; j < 3; j++) {
        int32_t score[3];
        V->evaluate(p, score);
        if (j == was || score[j] == INT32_MIN)
            continue;
        V->set_to_move(p, j);
        assert_int_equal(p->to_move, j);
        /* The same position as a position string with j to move: it parses
         * back to the same hash and the same moves. */
        print_pos(p, text);
        rules_pos q = pos_text(text);
        assert_true(q.hash == p->hash);
        assert_true(p->hash != hash);
        rules_move mv[RULES_MAX_MOVES], mq[RULES_MAX_MOVES];
        int n, nq;
        sorted_moves(p, mv, &n);
        sorted_moves(&q, mq, &nq);
        assert_int_equal(n, nq);
        assert_memory_equal(mv, mq, sizeof mv[0] * (size_t)n);
        st->parked += strlen(text) < strlen(before);
        /* Every move is j's and make/unmake restores the position. */
        for (int i = 0; i < n; i++) {
            char mt[RULES_MOVE_TEXT];
            V->print_move(p, mv[i], mt, sizeof mt);
            int owner = -1;
            assert_true(V->piece_at(p, rules_cell_parse_prefix(V, mt, NULL), &owner) != 0);
            assert_int_equal(owner, j);
            rules_undo u;
            V->make(p, mv[i], &u);
            /* One level deeper: another turn change and back. */
            int k = (p->to_move + 1 + i % 2) % 3;
            V->evaluate(p, score);
            if (score[k] != INT32_MIN && k != p->to_move) {
                int was2 = p->to_move;
                uint64_t h2 = p->hash;
                print_pos(p, again);
                V->set_to_move(p, k);
                V->set_to_move(p, was2);
                assert_true(p->hash == h2);
                char back[RULES_POS_TEXT];
                print_pos(p, back);
                assert_string_equal(back, again);
            }
            V->unmake(p, mv[i], &u);
            print_pos(p, again);
            assert_string_equal(again, text);
            assert_true(p->hash == q.hash);
            st->moves++;
        }
        V->set_to_move(p, was);
        print_pos(p, again);
        assert_string_equal(again, before);
        assert_true(p->hash == hash);
        st->positions++;
    }
}

static void test_set_to_move_round_trips(void **state)
{
    (void)state;
    turn_stats st = {0};
    playouts(77, 1500, check_turns, &st);
    print_message("%ld turn changes, %ld moves, %ld with a parked en passant entry\n", st.positions,
                  st.moves, st.parked);
    assert_true(st.positions > 2000);

    /* By hand: white's e2-e4 may be taken by red and black. Black is made
     * to move in red's place: it may take; red is then back to move with
     * the entry as it was. */
    rules_pos p = pos_of("wKe1 wPe2 rKd8 rPd4 bKi12 bPf4", "w - - - 0");
    rules_move m;
    rules_undo u;
    assert_int_equal(V->parse_move(&p, "e2-e4", &m, NULL, 0), 0);
    V->make(&p, m, &u);
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - e3:rb - 0"));
    V->set_to_move(&p, 2);
    print_pos(&p, text);
    assert_non_null(strstr(text, " b - e3:b - 0"));
    assert_int_equal(V->parse_move(&p, "f4-e3", &m, NULL, 0), 0);
    /* White made to move: its own entry is over (parked), and comes back. */
    V->set_to_move(&p, 0);
    print_pos(&p, text);
    assert_non_null(strstr(text, " w - - - 0"));
    V->set_to_move(&p, 1);
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - e3:rb - 0"));
    /* White moves out of turn: the entry is gone for good after its move,
     * and back after the unmake. */
    V->set_to_move(&p, 0);
    assert_int_equal(V->parse_move(&p, "e1-f1", &m, NULL, 0), 0);
    V->make(&p, m, &u);
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - - - 1"));
    V->unmake(&p, m, &u);
    V->set_to_move(&p, 1);
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - e3:rb - 0"));
}

/* ------------------------------------------------------------------------ */
/* evaluate. */

/* The board turned by a third: white's cells and pieces become red's, red's
 * black's, black's white's (quads 0 -> 3 -> 4 -> 0, 1 -> 2 -> 5 -> 1, same
 * rank and file within the quad). Written from the rules' cell table. */
static void rotate_cell(const char *name, char *out)
{
    static const char *const files[6] = {"abcd", "hgfe", "abcd", "lkji", "hgfe", "lkji"};
    static const int to[6] = {3, 2, 5, 4, 0, 1};
    int rank = atoi(name + 1);
    int band = rank <= 4 ? 0 : rank <= 8 ? 1 : 2;
    int q = -1, c = -1;
    for (int k = 2 * band; k < 2 * band + 2; k++) {
        const char *f = strchr(files[k], name[0]);
        if (f)
            q = k, c = (int)(f - files[k]);
    }
    assert_true(q >= 0);
    int r = band == 0 ? rank - 1 : band == 1 ? 8 - rank : 12 - rank;
    int q2 = to[q], band2 = q2 / 2;
    int rank2 = band2 == 0 ? 1 + r : band2 == 1 ? 8 - r : 12 - r;
    sprintf(out, "%c%d", files[q2][c], rank2);
}

/* p's pieces as placements, turned `turns` thirds. */
static void placements(const rules_pos *p, int turns, char *out)
{
    static const char owners[3] = {'w', 'r', 'b'};
    out[0] = '\0';
    for (int c = 0; c < V->ncells; c++) {
        int owner;
        char kind = V->piece_at(p, c, &owner);
        if (!kind)
            continue;
        char name[8], tmp[8];
        strcpy(name, V->cell_names[c]);
        for (int t = 0; t < turns; t++) {
            rotate_cell(name, tmp);
            strcpy(name, tmp);
        }
        sprintf(out + strlen(out), "%c%c%s ", owners[(owner + turns) % 3], kind, name);
    }
}

typedef struct sym_stats {
    long positions;
} sym_stats;

/* The evaluation of a position and of its rotations agree (castling and en
 * passant dropped: the evaluation does not look at them; inert pieces kept
 * only when nobody left, which a rotation would move). */
static void check_symmetry(rules_pos *p, void *arg)
{
    sym_stats *st = arg;
    if (someone_left(p))
        return;
    static const char owners[3] = {'w', 'r', 'b'};
    char text[RULES_POS_TEXT];
    print_pos(p, text);
    const char *clock = strrchr(text, ' ') + 1;
    int32_t base[3];
    for (int turns = 0; turns < 3; turns++) {
        char pieces[1024], rest[32];
        placements(p, turns, pieces);
        snprintf(rest, sizeof rest, "%c - - - %s", owners[(p->to_move + turns) % 3], clock);
        rules_pos q = pos_of(pieces, rest);
        int32_t score[3];
        V->evaluate(&q, score);
        if (turns == 0) {
            memcpy(base, score, sizeof base);
            int32_t direct[3];
            V->evaluate(p, direct);
            assert_memory_equal(direct, base, sizeof base);
            continue;
        }
        for (int pl = 0; pl < 3; pl++)
            assert_int_equal(score[(pl + turns) % 3], base[pl]);
    }
    st->positions++;
}

static void test_evaluate(void **state)
{
    (void)state;
    /* The set-up is fair: all three equal. */
    rules_pos p;
    rules_pos_init(&p, V);
    int32_t score[3];
    V->evaluate(&p, score);
    assert_int_equal(score[0], score[1]);
    assert_int_equal(score[1], score[2]);

    /* Red without its a8 rook: red is worse, the others better. */
    rules_pos q = pos_of("wRa1 wNb1 wBc1 wQd1 wKe1 wBf1 wNg1 wRh1 wPa2 wPb2 wPc2 wPd2 wPe2 wPf2 "
                         "wPg2 wPh2 rRl8 rNk8 rBj8 rQi8 rKd8 rBc8 rNb8 rPa7 rPb7 rPc7 rPd7 "
                         "rPi7 rPj7 rPk7 rPl7 bRh12 bNg12 bBf12 bQe12 bKi12 bBj12 bNk12 bRl12 "
                         "bPe11 bPf11 bPg11 bPh11 bPi11 bPj11 bPk11 bPl11",
                         "w - - - 0");
    V->evaluate(&q, score);
    assert_true(score[0] > score[1] + 300);
    assert_true(score[2] > score[1] + 300);

    /* A white rook more than red and black in a bare ending. */
    q = pos_of("wKe1 wRa3 rKd8 bKi12", "r - - - 0");
    V->evaluate(&q, score);
    assert_true(score[0] > score[1] + 400);
    assert_true(score[0] > score[2] + 400);

    /* A pawn closer to promotion is worth more. */
    rules_pos a = pos_of("wKe1 wPa3 rKd8 bKi12", "w - - - 0");
    rules_pos b = pos_of("wKe1 wPa6 rKd8 bKi12", "w - - - 0");
    int32_t sa[3], sb[3];
    V->evaluate(&a, sa);
    V->evaluate(&b, sb);
    assert_true(sb[0] > sa[0]);

    /* A king in check (its owner not to move) scores lower. */
    a = pos_of("wKe1 rKd8 rRa1 bKl12 bRl11", "b - - - 0");
    b = pos_of("wKe1 rKd8 rRa2 bKl12 bRl11", "b - - - 0");
    V->evaluate(&a, sa);
    V->evaluate(&b, sb);
    assert_true(sa[0] < sb[0]);

    /* A player who left scores INT32_MIN; its inert pieces count for
     * nobody. */
    q = pos_of("wKe1 wRa3 rKd8 rQa8 bKi12 bQl12", "w - - r 0");
    V->evaluate(&q, score);
    assert_int_equal(score[1], INT32_MIN);
    assert_true(score[2] > score[0] + 300);

    /* Rotating the board rotates the scores. */
    sym_stats st = {0};
    playouts(5, 600, check_symmetry, &st);
    assert_true(st.positions > 500);
}

/* ------------------------------------------------------------------------ */
/* The search finds mates in one (ctx: search_fixture.h). */

/* p turned `turns` thirds, the player to move turned with it. */
static rules_pos rotated(const rules_pos *p, int turns)
{
    static const char owners[3] = {'w', 'r', 'b'};
    char pieces[1024], rest[32];
    placements(p, turns, pieces);
    snprintf(rest, sizeof rest, "%c - - - 0", owners[(p->to_move + turns) % 3]);
    return pos_of(pieces, rest);
}

/* Search p with method `multi` to `depth`; the move found must mate the
 * next player at once, and be found in a few milliseconds. */
static void expect_mate(const rules_pos *p, search_multi multi, int depth)
{
    search_limits l = {.depth = depth, .multi = multi};
    search_report r;
    assert_int_equal(search_run(ctx, p, NULL, 0, &l, NULL, NULL, &r), 0);
    char text[RULES_POS_TEXT], mt[RULES_MOVE_TEXT];
    print_pos(p, text);
    V->print_move(p, r.best, mt, sizeof mt);
    rules_pos after = *p;
    rules_undo u;
    V->make(&after, r.best, &u);
    rules_move mv[RULES_MAX_MOVES];
    int n = V->legal_moves(&after, mv);
    rules_result res;
    V->status(&after, n, &res);
    if (!res.over || res.reason != RULES_REASON_CHECKMATE || res.winner != p->to_move)
        fail_msg("%s, depth %d: %s in %s does not mate", search_multi_name(multi), depth, mt, text);
    assert_true(r.score >= SEARCH_WIN_BOUND);
    print_message("%s depth %d: %s, %llu nodes, %lld ms\n", search_multi_name(multi), depth, mt,
                  (unsigned long long)r.nodes, (long long)r.ms);
    /* Found at once: in a few nodes (69 to 175 here), counted, not timed (a
     * 128-node search once took 761 ms in a busy CI run). */
    assert_true(r.nodes < 2000);
}

static void test_search_finds_mates(void **state)
{
    (void)state;
    static const char *const mates[][2] = {
        /* Queen b7 held by the rook b1. */
        {"wKe1 wQb6 wRb1 rKa8 bKl12", "w - - - 0"},
        /* Back rank: red's king walled in by its own pawns. */
        {"wKe1 wRa1 rKd8 rPc7 rPd7 rPi7 bKl12 bRl11 bPk11", "w - - - 0"},
        /* Smothered: the knight d5-c7 (not b6, which the pawn a7 guards). */
        {"wKe1 wNd5 wPe2 wPf2 rKa8 rRb8 rPa7 rPb7 rPc6 bKi12 bQe12 bPi11 bPj11", "w - - - 0"},
    };
    for (size_t k = 0; k < sizeof mates / sizeof mates[0]; k++) {
        rules_pos p = pos_of(mates[k][0], mates[k][1]);
        for (int turns = 0; turns < 3; turns++) {
            rules_pos q = rotated(&p, turns);
            for (int depth = 2; depth <= 3; depth++) {
                search_clear(ctx);
                expect_mate(&q, SEARCH_MULTI_PARANOID, depth);
            }
            search_clear(ctx);
            expect_mate(&q, SEARCH_MULTI_BRS, 2);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_capture_agrees),
        cmocka_unit_test(test_set_to_move_round_trips),
        cmocka_unit_test(test_evaluate),
        cmocka_unit_test_setup_teardown(test_search_finds_mates, ctx_setup, ctx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
