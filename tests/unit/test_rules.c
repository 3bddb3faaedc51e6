/*
 * test_rules.c - the game layer shared by every game (common/rules.c):
 * registry, error and reason tables, cell names, move text errors through
 * rules_game, repetition, players leaving, draws, replay, copy and the walk
 * of a game's history, and the invariants every registered game must keep
 * (make/unmake restores position and hash, print/parse round-trips of moves
 * and positions).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"

static void test_error_tables(void **state)
{
    (void)state;
    assert_string_equal(rules_err_code(RULES_OK), "ok");
    assert_string_equal(rules_err_code(RULES_ESELF_CHECK), "self_check");
    assert_string_equal(rules_err_code(RULES_EBAD_MOVE_TEXT), "bad_move_text");
    assert_string_equal(rules_err_code(-999), "unknown_error");
    assert_string_equal(rules_err_text(RULES_EFROZEN), "that piece is frozen");
    assert_string_equal(rules_reason_name(RULES_REASON_CHECKMATE), "checkmate");
    assert_string_equal(rules_reason_name(RULES_REASON_ABORTED), "aborted");
    assert_string_equal(rules_reason_name((rules_reason)1000), "none");
}

static void test_registry(void **state)
{
    (void)state;
    assert_null(rules_find("chess"));
    assert_null(rules_find(NULL));
    assert_non_null(rules_find("ultima"));
    assert_non_null(rules_find("ultima1968"));
    for (const rules_variant *const *v = rules_variants; *v; v++) {
        assert_ptr_equal(rules_find((*v)->id), *v);
        assert_true((*v)->nplayers >= 2 && (*v)->nplayers <= RULES_MAX_PLAYERS);
        assert_true((*v)->ncells > 0 && (*v)->ncells <= RULES_MAX_CELLS);
    }
    char why[RULES_WHY_TEXT];
    rules_game *g = NULL;
    assert_int_equal(rules_game_new(&g, "nosuchgame", NULL, why, sizeof why), RULES_EUNKNOWN_GAME);
    assert_null(g);
    assert_non_null(strstr(why, "nosuchgame"));
}

static void test_cell_names(void **state)
{
    (void)state;
    const rules_variant *v = rules_find("ultima");
    assert_int_equal(v->ncells, 64);
    for (int c = 0; c < v->ncells; c++)
        assert_int_equal(rules_cell_parse(v, rules_cell_name(v, c)), c);
    assert_int_equal(rules_cell_parse(v, "i1"), -1);
    assert_int_equal(rules_cell_parse(v, "a9"), -1);
    assert_int_equal(rules_cell_parse(v, "a1x"), -1);
    assert_int_equal(rules_cell_parse(v, ""), -1);
    int len;
    assert_int_equal(rules_cell_parse_prefix(v, "e2-e4", &len), rules_cell_parse(v, "e2"));
    assert_int_equal(len, 2);
    assert_string_equal(rules_cell_name(v, -1), "?");
    assert_string_equal(rules_cell_name(v, 64), "?");
}

/* Every game: make/unmake restores the position byte for byte and the hash;
 * each legal move prints to text that parses back to the same move; the
 * position string round-trips, along a deterministic walk of 120 plies. */
static void test_every_game_invariants(void **state)
{
    (void)state;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        const rules_variant *v = *vp;
        rules_pos p;
        rules_pos_init(&p, v);
        uint32_t seed = 12345;
        for (int ply = 0; ply < 120; ply++) {
            rules_move moves[RULES_MAX_MOVES];
            int n = v->legal_moves(&p, moves);
            if (n == 0)
                break;
            char text[RULES_POS_TEXT], again[RULES_POS_TEXT];
            assert_true(v->print_position(&p, text, sizeof text) > 0);
            rules_pos q;
            rules_pos_init(&q, v);
            char why[RULES_WHY_TEXT] = "";
            assert_int_equal(v->parse_position(&q, text, why, sizeof why), 0);
            assert_true(v->print_position(&q, again, sizeof again) > 0);
            assert_string_equal(text, again);
            assert_true(q.hash == p.hash);

            for (int i = 0; i < n; i++) {
                char mt[RULES_MOVE_TEXT];
                assert_true(v->print_move(&p, moves[i], mt, sizeof mt) > 0);
                rules_move back;
                assert_int_equal(v->parse_move(&p, mt, &back, why, sizeof why), 0);
                assert_true(back == moves[i]);
                rules_pos before = p;
                rules_undo u;
                v->make(&p, moves[i], &u);
                v->unmake(&p, moves[i], &u);
                assert_memory_equal(&before, &p, sizeof p);
            }
            seed = seed * 1103515245u + 12345u;
            rules_undo u;
            v->make(&p, moves[(seed >> 16) % (uint32_t)n], &u);
        }
    }
}

static rules_game *new_game(const char *id)
{
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "";
    assert_int_equal(rules_game_new(&g, id, NULL, why, sizeof why), 0);
    assert_non_null(g);
    return g;
}

static void play(rules_game *g, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_play_text(g, -1, text, NULL, why, sizeof why);
    if (err != 0)
        fail_msg("%s refused: %s", text, why);
}

static void test_game_errors(void **state)
{
    (void)state;
    rules_game *g = new_game("ultima");
    char why[RULES_WHY_TEXT] = "";
    assert_int_equal(rules_game_to_move(g), 0);
    assert_int_equal(g->nlegal, 32);

    /* Black may not move on White's turn. */
    assert_int_equal(rules_game_play_text(g, 1, "a7-a6", NULL, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    assert_non_null(strstr(why, "white"));
    /* Malformed, empty and overlong texts are refused, nothing changes. */
    const char *bad[] = {"",
                         "e2",
                         "e2-",
                         "-e4",
                         "e2e4",
                         "E2-E4",
                         "z9-a1",
                         "e2-e4 ",
                         "e2--e4",
                         "a2-a3-a4",
                         "xx",
                         "pass",
                         "a2-a3aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        int err = rules_game_play_text(g, 0, bad[i], NULL, why, sizeof why);
        assert_true(err < 0);
        assert_true(why[0] != '\0');
    }
    assert_int_equal(g->nmoves, 0);
    assert_int_equal(rules_game_play_text(g, 0, "e4-e5", NULL, why, sizeof why), RULES_ENO_PIECE);
    assert_int_equal(rules_game_play_text(g, 0, "a7-a6", NULL, why, sizeof why), RULES_ENOT_YOURS);
    rules_move m;
    assert_int_equal(rules_game_play_text(g, 0, "a2-a5", &m, why, sizeof why), 0);
    assert_int_equal(g->nmoves, 1);
    assert_true(g->moves[0] == m);
    assert_int_equal(rules_game_to_move(g), 1);
    /* A move not in the legal list is refused by rules_game_play. */
    assert_int_equal(rules_game_play(g, 0), RULES_EILLEGAL);
    rules_game_free(g);
}

static void test_repetition(void **state)
{
    (void)state;
    rules_game *g = new_game("ultima");
    /* The a-pawns step out and back: the set-up occurs for the third time
     * after eight plies. */
    for (int round = 0; round < 2; round++) {
        assert_false(g->result.over);
        play(g, "a2-a3");
        play(g, "a7-a6");
        play(g, "a3-a2");
        play(g, "a6-a7");
    }
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_REPETITION);
    assert_int_equal(g->result.winner, -1);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_DRAW);
    assert_int_equal(g->nlegal, 0);
    assert_int_equal(rules_game_to_move(g), -1);
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_play_text(g, -1, "b2-b3", NULL, why, sizeof why), RULES_EGAME_OVER);
    rules_game_free(g);
}

static void test_leave_and_draw(void **state)
{
    (void)state;
    rules_game *g = new_game("ultima");
    assert_int_equal(rules_game_leave(g, 5, RULES_REASON_RESIGNATION), RULES_EBAD_PLAYER);
    assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.reason, RULES_REASON_RESIGNATION);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_WIN);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    assert_int_equal(rules_game_leave(g, 0, RULES_REASON_TIMEOUT), RULES_EGAME_OVER);
    rules_game_free(g);

    g = new_game("ultima");
    rules_game_end_draw(g, RULES_REASON_AGREEMENT);
    assert_true(g->result.over);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_DRAW);
    assert_int_equal(g->result.reason, RULES_REASON_AGREEMENT);
    rules_game_free(g);

    g = new_game("ultima");
    rules_game_end_draw(g, RULES_REASON_ABORTED);
    assert_true(g->result.over);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_NONE);
    assert_int_equal(g->result.reason, RULES_REASON_ABORTED);
    rules_game_free(g);
}

static void test_start_from_position(void **state)
{
    (void)state;
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "";
    assert_int_equal(rules_game_new(&g, "ultima", "not a position", why, sizeof why),
                     RULES_EBAD_POSITION);
    assert_null(g);
    assert_true(why[0] != '\0');
    /* The start position and the side to move are taken from the string. */
    assert_int_equal(rules_game_new(&g, "ultima", "4k3/8/8/8/8/8/8/4K3 b", why, sizeof why), 0);
    assert_int_equal(rules_game_to_move(g), 1);
    char text[RULES_POS_TEXT];
    g->variant->print_position(&g->start, text, sizeof text);
    assert_string_equal(text, "4k3/8/8/8/8/8/8/4K3 b");
    rules_game_free(g);
}

/* Same position, same history, same result. */
static void assert_same_game(const rules_game *a, const rules_game *b)
{
    char pa[RULES_POS_TEXT], pb[RULES_POS_TEXT];
    assert_true(a->variant->print_position(&a->pos, pa, sizeof pa) >= 0);
    assert_true(b->variant->print_position(&b->pos, pb, sizeof pb) >= 0);
    assert_string_equal(pa, pb);
    assert_int_equal(a->nmoves, b->nmoves);
    for (size_t i = 0; i < a->nmoves; i++)
        assert_true(a->moves[i] == b->moves[i]);
    assert_int_equal(a->nleft, b->nleft);
    assert_int_equal(a->result.over, b->result.over);
    assert_int_equal(a->result.winner, b->result.winner);
    assert_int_equal(rules_game_to_move(a), rules_game_to_move(b));
    assert_int_equal(a->nlegal, b->nlegal);
}

/* A game played step by step (moves picked by a fixed sequence, one player
 * leaving at ply 6 in three-player games) is rebuilt from its recorded steps
 * by rules_game_replay, and copied whole and in part by rules_game_clone. */
static void test_replay_and_clone(void **state)
{
    (void)state;
    for (const rules_variant *const *v = rules_variants; *v != NULL; v++) {
        rules_game *g = new_game((*v)->id);
        char texts[40][RULES_MOVE_TEXT];
        rules_step steps[41];
        size_t nsteps = 0;
        rules_game *mid = NULL; /* a clone after 5 moves, kept to compare */
        for (int ply = 0; ply < 30 && !g->result.over; ply++) {
            if (ply == 6 && (*v)->nplayers == 3) {
                int who = (rules_game_to_move(g) + 1) % 3;
                assert_int_equal(rules_game_leave(g, who, RULES_REASON_RESIGNATION), 0);
                steps[nsteps++] = (rules_step){NULL, who, RULES_REASON_RESIGNATION};
                if (g->result.over)
                    break;
            }
            rules_move m = g->legal[(ply * 7 + 3) % g->nlegal];
            assert_true((*v)->print_move(&g->pos, m, texts[ply], sizeof texts[ply]) > 0);
            steps[nsteps++] = (rules_step){texts[ply], rules_game_to_move(g), 0};
            assert_int_equal(rules_game_play(g, m), 0);
            if (g->nmoves == 5)
                assert_int_equal(rules_game_clone(&mid, g, 5), 0);
        }
        char why[RULES_WHY_TEXT] = "";
        rules_game *r = NULL;
        assert_int_equal(rules_game_replay(&r, (*v)->id, NULL, steps, nsteps, why, sizeof why), 0);
        assert_same_game(g, r);
        rules_game *c = NULL;
        assert_int_equal(rules_game_clone(&c, g, g->nmoves), 0);
        assert_same_game(g, c);
        rules_game *part = NULL;
        assert_int_equal(rules_game_clone(&part, g, 5), 0);
        assert_same_game(mid, part);
        /* The copy is independent of the original. */
        rules_game_free(g);
        assert_int_equal(c->nmoves, r->nmoves);
        rules_game_free(r);
        rules_game_free(c);
        rules_game_free(part);
        rules_game_free(mid);
    }
    rules_game *g = new_game("ultima");
    rules_game *c = NULL;
    assert_int_equal(rules_game_clone(&c, g, 1), RULES_EBAD_PLAYER);
    assert_null(c);
    /* A draw by agreement is no step: a whole copy keeps the result. */
    rules_game_end_draw(g, RULES_REASON_AGREEMENT);
    assert_int_equal(rules_game_clone(&c, g, 0), 0);
    assert_true(c->result.over);
    assert_int_equal(c->result.reason, RULES_REASON_AGREEMENT);
    rules_game_free(c);
    rules_game_free(g);
}

/* A game as it was played, one entry per step: the position before it
 * (pos[n]: the position at the end), the move (0: a leave), its leaver and
 * how many moves were played before it. */
static struct history {
    const rules_game *g;
    rules_pos pos[48];
    rules_move m[47];
    int leaver[47];
    size_t k[47];
    size_t n;
    size_t seen; /* steps a walk has visited */
    size_t stop; /* the visit returns 7 at this step (0-based), or never */
} hist;

/* Equal positions: the same player to move, hash and variant data. */
static void assert_same_pos(const rules_pos *a, const rules_pos *b)
{
    assert_ptr_equal(a->variant, b->variant);
    assert_int_equal(a->to_move, b->to_move);
    assert_true(a->hash == b->hash);
    assert_memory_equal(a->data, b->data, sizeof a->data);
}

/* A walk's visit: each step is the next one of hist, as it was played. */
static int check_step(void *arg, const rules_walk_step *s)
{
    struct history *h = arg;
    size_t i = h->seen++;
    assert_true(i < h->n);
    assert_int_equal(s->k, h->k[i]);
    assert_true(s->m == h->m[i]);
    if (s->m == 0) {
        assert_non_null(s->leave);
        assert_int_equal(s->leave->player, h->leaver[i]);
        assert_int_equal(s->leave->after, s->k);
    } else {
        assert_null(s->leave);
        assert_true(s->m == h->g->moves[s->k]);
    }
    assert_same_pos(s->before, &h->pos[i]);
    assert_same_pos(s->after, &h->pos[i + 1]);
    return i == h->stop ? 7 : 0;
}

/* Record the step just played on g into hist. */
static void hist_add(const rules_game *g, rules_move m, int leaver, size_t k)
{
    hist.m[hist.n] = m;
    hist.leaver[hist.n] = leaver;
    hist.k[hist.n] = k;
    hist.pos[++hist.n] = g->pos;
}

/* rules_game_walk shows each step of a game with the positions the game
 * had around it, for every game: a player leaving at ply 6 in three-player
 * games (its pieces out of play) and the game ended by a leave (which
 * changes no piece); a part of the game; a walk stopped by its visit. */
static void test_walk(void **state)
{
    (void)state;
    for (const rules_variant *const *v = rules_variants; *v != NULL; v++) {
        rules_game *g = new_game((*v)->id);
        hist = (struct history){.g = g, .stop = (size_t)-1};
        hist.pos[0] = g->pos;
        for (int ply = 0; ply < 30 && !g->result.over; ply++) {
            if (ply == 6 && (*v)->nplayers == 3) {
                int who = (rules_game_to_move(g) + 1) % 3;
                assert_int_equal(rules_game_leave(g, who, RULES_REASON_RESIGNATION), 0);
                hist_add(g, 0, who, g->nmoves);
                assert_true(hist.pos[hist.n].hash != hist.pos[hist.n - 1].hash);
            }
            rules_move m = g->legal[(ply * 7 + 3) % g->nlegal];
            assert_int_equal(rules_game_play(g, m), 0);
            hist_add(g, m, -1, g->nmoves - 1);
        }
        if (!g->result.over) {
            int who = rules_game_to_move(g);
            assert_int_equal(rules_game_leave(g, who, RULES_REASON_TIMEOUT), 0);
            assert_true(g->result.over);
            hist_add(g, 0, who, g->nmoves);
            assert_same_pos(&hist.pos[hist.n], &hist.pos[hist.n - 1]);
        }
        assert_same_pos(&hist.pos[hist.n], &g->pos);

        /* The whole game. */
        assert_int_equal(rules_game_walk(g, g->nmoves, check_step, &hist), 0);
        assert_int_equal(hist.seen, hist.n);

        /* Its first 6 moves and the leaves by then. */
        size_t want = 0;
        while (want < hist.n && (hist.k[want] < 6 || (hist.k[want] == 6 && hist.m[want] == 0)))
            want++;
        hist.seen = 0;
        assert_int_equal(rules_game_walk(g, 6, check_step, &hist), 0);
        assert_int_equal(hist.seen, want);
        rules_game *part = NULL;
        assert_int_equal(rules_game_clone(&part, g, 6), 0);
        assert_same_pos(&part->pos, &hist.pos[want]);
        rules_game_free(part);

        /* Stopped by the visit at step 4: its value is the walk's. */
        hist.seen = 0;
        hist.stop = 4;
        assert_int_equal(rules_game_walk(g, g->nmoves, check_step, &hist), 7);
        assert_int_equal(hist.seen, 5);

        /* Past the end: nothing visited. */
        hist.seen = 0;
        assert_int_equal(rules_game_walk(g, g->nmoves + 1, check_step, &hist), RULES_EBAD_PLAYER);
        assert_int_equal(hist.seen, 0);
        rules_game_free(g);
    }
}

/* A step that does not replay is named in the why; nothing is returned. */
static void test_replay_errors(void **state)
{
    (void)state;
    const rules_step steps[] = {
        {"a2-a3", -1, 0},
        {"a7-a6", -1, 0},
        {"e4-e5", -1, 0},
    };
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "";
    assert_int_equal(rules_game_replay(&g, "ultima", NULL, steps, 3, why, sizeof why),
                     RULES_ENO_PIECE);
    assert_null(g);
    assert_non_null(strstr(why, "move 3 (e4-e5)"));
    const rules_step wrong_turn[] = {{"a2-a3", 1, 0}};
    assert_int_equal(rules_game_replay(&g, "ultima", NULL, wrong_turn, 1, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    const rules_step bad_leave[] = {{NULL, 7, RULES_REASON_TIMEOUT}};
    assert_int_equal(rules_game_replay(&g, "ultima", NULL, bad_leave, 1, why, sizeof why),
                     RULES_EBAD_PLAYER);
    assert_non_null(strstr(why, "player 7"));
    assert_int_equal(rules_game_replay(&g, "nope", NULL, steps, 0, why, sizeof why),
                     RULES_EUNKNOWN_GAME);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_tables),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_cell_names),
        cmocka_unit_test(test_every_game_invariants),
        cmocka_unit_test(test_game_errors),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_leave_and_draw),
        cmocka_unit_test(test_start_from_position),
        cmocka_unit_test(test_replay_and_clone),
        cmocka_unit_test(test_replay_errors),
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
