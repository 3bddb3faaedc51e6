/*
 * test_pgn.c - PGN writing and parsing, and the round trip of a game of
 * every variant the rules core knows: played with legal moves, stored in a
 * real store (SQLite file), read back from the store and rendered as PGN
 * (archive.h), parsed and replayed through the rules core to the same final
 * position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_fixture.h"
#include "pgn.h"
#include "store.h"
#include "store_sync.h"

static void test_write_parse_two_players(void **state)
{
    (void)state;
    pgn_game g = {0};
    pgn_set_tag(&g, "Event", "Club \"final\" \\ round");
    pgn_set_tag(&g, "White", "ann");
    pgn_set_tag(&g, "Black", "bob");
    pgn_set_tag(&g, "Result", "1-0");
    pgn_set_tag(&g, "Variant", "ultima");
    pgn_set_tag(&g, "White", "anne"); /* replaces */
    const char *moves[] = {"b1-b6", "c8-c5", "e1x", "pass", "h3-i4@h4cw"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(pgn_add_move(&g, moves[i]), 0);
    char *text;
    assert_int_equal(pgn_write(&g, 2, &text), 0);
    assert_non_null(strstr(text, "[Event \"Club \\\"final\\\" \\\\ round\"]\n"));
    assert_non_null(strstr(text, "[White \"anne\"]\n"));
    assert_non_null(strstr(text, "\n\n1. b1-b6 c8-c5 2. e1x pass 3. h3-i4@h4cw 1-0\n"));

    pgn_game back = {0};
    char why[160];
    assert_int_equal(pgn_parse(text, &back, why, sizeof why), 0);
    assert_int_equal(back.ntags, g.ntags);
    assert_string_equal(pgn_tag_value(&back, "Event"), "Club \"final\" \\ round");
    assert_string_equal(pgn_tag_value(&back, "White"), "anne");
    assert_int_equal(back.nitems, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(back.items[i].text, moves[i]);
        assert_int_equal(back.items[i].leave_player, -1);
    }
    free(text);
    pgn_free(&g);
    pgn_free(&back);
}

static void test_three_players_and_leaves(void **state)
{
    (void)state;
    pgn_game g = {0};
    pgn_set_tag(&g, "Result", "0-1-0");
    for (int i = 0; i < 4; i++)
        pgn_add_move(&g, i % 2 ? "e2-e4" : "a1-a2");
    pgn_add_leave(&g, 2, RULES_REASON_TIMEOUT);
    pgn_add_move(&g, "b1-b2");
    char *text;
    assert_int_equal(pgn_write(&g, 3, &text), 0);
    assert_non_null(strstr(text, "1. a1-a2 e2-e4 a1-a2 2. e2-e4 {leave 2 timeout} b1-b2 0-1-0"));
    pgn_game back = {0};
    char why[160];
    assert_int_equal(pgn_parse(text, &back, why, sizeof why), 0);
    assert_int_equal(back.nitems, 6);
    assert_int_equal(back.items[4].leave_player, 2);
    assert_int_equal(back.items[4].leave_reason, RULES_REASON_TIMEOUT);
    assert_string_equal(back.items[5].text, "b1-b2");
    free(text);
    pgn_free(&g);
    pgn_free(&back);

    rules_result r = {.over = true,
                      .outcome = {RULES_OUTCOME_LOSS, RULES_OUTCOME_WIN, RULES_OUTCOME_LOSS}};
    char buf[32];
    pgn_result_text(&r, 3, buf, sizeof buf);
    assert_string_equal(buf, "0-1-0");
    r = (rules_result){.over = true, .outcome = {RULES_OUTCOME_DRAW, RULES_OUTCOME_DRAW}};
    pgn_result_text(&r, 2, buf, sizeof buf);
    assert_string_equal(buf, "1/2-1/2");
    r = (rules_result){.over = false};
    pgn_result_text(&r, 2, buf, sizeof buf);
    assert_string_equal(buf, "*");
}

static void test_parse_foreign_forms(void **state)
{
    (void)state;
    /* Numbers glued to moves, "..." continuations, comments of both kinds,
     * CRLF line ends. */
    const char *text = "[Variant \"ultima\"]\r\n[Result \"*\"]\r\n\r\n"
                       "1.b1-b6 {a comment} 1... c8-c5 ; rest of line\r\n"
                       "2. e1x *\r\n";
    pgn_game g = {0};
    char why[160];
    assert_int_equal(pgn_parse(text, &g, why, sizeof why), 0);
    assert_int_equal(g.nitems, 3);
    assert_string_equal(g.items[0].text, "b1-b6");
    assert_string_equal(g.items[1].text, "c8-c5");
    assert_string_equal(g.items[2].text, "e1x");
    pgn_free(&g);

    pgn_game bad = {0};
    assert_int_equal(pgn_parse("[Variant \"ultima\"]\n[Oops ultima]\n", &bad, why, sizeof why), -1);
    assert_non_null(strstr(why, "line 2"));
    pgn_free(&bad);
    pgn_game nov = {0};
    rules_game *rg;
    assert_int_equal(pgn_parse("1. a1-a2 *", &nov, why, sizeof why), 0);
    assert_int_equal(pgn_replay(&nov, &rg, why, sizeof why), RULES_EUNKNOWN_GAME);
    pgn_free(&nov);
}

/* ------------------------------------------------------------------------ */
/* Round trip through the store and the rules core, every variant. */

static int64_t clock_fn(void *arg)
{
    (void)arg;
    return 1767225600000;
}

static void done_cb(void *arg, int status)
{
    int *pending = arg;
    assert_int_equal(status, 0);
    (*pending)--;
}

static void round_trip(const rules_variant *v, store *s, uv_loop_t *loop, unsigned seed)
{
    rules_game *g;
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&g, v->id, NULL, why, sizeof why), 0);
    store_new_game ng = {
        .variant = v->id, .kind = STORE_LIVE, .nplayers = v->nplayers, .tc = {600000, 0, 0}};
    for (int p = 0; p < v->nplayers; p++)
        snprintf(ng.players[p].name, STORE_NAME_MAX, "%s-player", v->player_names[p]);
    int64_t id;
    int pending = 0;
    assert_int_equal(store_game_create(s, &ng, &id, NULL, NULL, why, sizeof why), 0);

    /* A deterministic game of up to 120 plies; in three-player games with
     * leaving, the third player resigns at ply 9 and the others play on. */
    unsigned x = seed;
    for (int ply = 0; ply < 120 && !g->result.over; ply++) {
        if (ply == 9 && v->nplayers == 3 && v->leave != NULL) {
            assert_int_equal(rules_game_leave(g, 2, RULES_REASON_RESIGNATION), 0);
            assert_int_equal(store_game_leave(s, id, 2, RULES_REASON_RESIGNATION,
                                              rules_game_to_move(g), NULL, NULL),
                             0);
            if (g->result.over)
                break;
        }
        x = x * 1103515245u + 12345u;
        rules_move m = g->legal[(x >> 8) % (unsigned)g->nlegal];
        char text[RULES_MOVE_TEXT];
        assert_true(v->print_move(&g->pos, m, text, sizeof text) > 0);
        int player = g->pos.to_move;
        assert_int_equal(rules_game_play_text(g, player, text, NULL, why, sizeof why), 0);
        store_move sm = {.ply = (int)g->nmoves - 1,
                         .player = player,
                         .next = rules_game_to_move(g),
                         .text = text};
        pending++;
        assert_int_equal(store_move_append(s, id, &sm, done_cb, &pending), 0);
    }
    if (g->result.over)
        assert_int_equal(store_game_finish(s, id, &g->result, NULL, NULL), 0);
    while (pending > 0)
        uv_run(loop, UV_RUN_ONCE);

    char *text;
    assert_int_equal(sync_game_pgn(s, id, &text), 0);
    char tag[64];
    snprintf(tag, sizeof tag, "[Variant \"%s\"]", v->id);
    assert_non_null(strstr(text, tag));
    for (int p = 0; p < v->nplayers; p++) {
        char seat[32], want[96];
        pgn_seat_tag(v, p, seat, sizeof seat);
        snprintf(want, sizeof want, "[%s \"%s-player\"]", seat, v->player_names[p]);
        assert_non_null(strstr(text, want));
    }
    pgn_game pg = {0};
    assert_int_equal(pgn_parse(text, &pg, why, sizeof why), 0);
    rules_game *back;
    int err = pgn_replay(&pg, &back, why, sizeof why);
    if (err != 0)
        fail_msg("%s: %s\n%s", v->id, why, text);
    char a[RULES_POS_TEXT], b[RULES_POS_TEXT];
    assert_true(v->print_position(&g->pos, a, sizeof a) > 0);
    assert_true(v->print_position(&back->pos, b, sizeof b) > 0);
    assert_string_equal(a, b);
    assert_int_equal(back->nmoves, g->nmoves);
    assert_int_equal(back->result.over, g->result.over);
    assert_int_equal(back->result.winner, g->result.winner);
    printf("# %s: %zu plies, PGN re-imported to the same position%s\n", v->id, g->nmoves,
           g->result.over ? " (finished)" : "");
    rules_game_free(back);
    pgn_free(&pg);
    free(text);
    rules_game_free(g);
}

static void test_round_trip_every_variant(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_pgn.XXXXXX", db[300], cmd[96];
    assert_non_null(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/pgn.db", dir);
    pg_fixture_target(db, sizeof db, path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    store *s;
    char why[256];
    store_options o = {.now_ms = clock_fn};
    assert_int_equal(store_open(&s, &loop, db, &o, why, sizeof why), 0);
    int n = 0;
    for (const rules_variant *const *v = rules_variants; *v; v++, n++)
        for (unsigned seed = 1; seed <= 3; seed++)
            round_trip(*v, s, &loop, seed * 7919u + (unsigned)n);
    printf("# %d variants round-tripped\n", n);
    store_close(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Found by tests/fuzz/fuzz_pgn (corpus/pgn/regress-result-tag): an imported
 * [Result] that is no result was written as the last token of the move text,
 * and the written PGN then failed to import (the token read as a move). */
static void test_result_tag_not_a_result(void **state)
{
    (void)state;
    const char *text = "[Variant \"ultima\"]\n[Result \"draw?\"]\n\n1. a2-a3 a7-a6 *\n";
    pgn_game g = {0};
    char why[160];
    assert_int_equal(pgn_parse(text, &g, why, sizeof why), 0);
    rules_game *rg = NULL;
    assert_int_equal(pgn_replay(&g, &rg, why, sizeof why), 0);
    char *out;
    assert_int_equal(pgn_write(&g, 2, &out), 0);
    assert_non_null(strstr(out, "[Result \"draw?\"]"));
    assert_non_null(strstr(out, "1. a2-a3 a7-a6 *\n"));
    pgn_game back = {0};
    assert_int_equal(pgn_parse(out, &back, why, sizeof why), 0);
    assert_int_equal(back.nitems, 2);
    rules_game *rb = NULL;
    assert_int_equal(pgn_replay(&back, &rb, why, sizeof why), 0);
    assert_int_equal(rb->nmoves, 2);
    rules_game_free(rb);
    rules_game_free(rg);
    free(out);
    pgn_free(&back);
    pgn_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_parse_two_players),
        cmocka_unit_test(test_three_players_and_leaves),
        cmocka_unit_test(test_parse_foreign_forms),
        cmocka_unit_test(test_result_tag_not_a_result),
        cmocka_unit_test(test_round_trip_every_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
