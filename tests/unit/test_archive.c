/*
 * test_archive.c - the protocol's rendering of records (archive.h): hand-
 * built records give, byte for byte, the JSON and PGN the server sent
 * before rendering moved out of the store (the expected texts are GET
 * /api/games/<id>, /api/games/<id>.pgn and /api/profile/<name> answers of
 * that server on the same records); record_replay; and record_line_next,
 * the reading of a conditional line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive.h"
#include "record.h"

#define T0 ((int64_t)1767225600000) /* 2026-01-01T00:00:00Z */

/* A finished three-player live game: a guest with quotes in its name, a
 * player who left on time while the others played on, a draw. */
static const record_move yalta_moves[] = {
    {0, 0, "a1-a2", T0 + 100000, {0}},
    {1, 1, "b1-b2", T0 + 200000, {0}},
    {2, 2, "c1-c2", T0 + 300000, {0}},
};
static const record_leave yalta_leaves[] = {{2, 1, RULES_REASON_TIMEOUT, T0 + 250000}};

static record_game yalta_game(void)
{
    return (record_game){
        .id = 2,
        .variant = "yalta",
        .kind = RECORD_LIVE,
        .nplayers = 3,
        .players = {{1, "ann"}, {0, "guest-\"q\"\\"}, {3, "cid"}},
        .tc = {300000, 2000, 0},
        .created_ms = T0,
        .last_move_ms = T0 + 300000,
        .to_move = -1,
        .finished = true,
        .result = {.over = true,
                   .winner = -1,
                   .outcome = {RULES_OUTCOME_DRAW, RULES_OUTCOME_LOSS, RULES_OUTCOME_DRAW},
                   .reason = RULES_REASON_AGREEMENT},
        .finished_ms = T0 + 400000,
        .nmoves = 3,
        .moves = yalta_moves,
        .nleaves = 1,
        .leaves = yalta_leaves,
    };
}

/* A correspondence game in progress from a set position, increment mode. */
static record_game corr_game(void)
{
    return (record_game){
        .id = 3,
        .variant = "ultima",
        .position = "someposition",
        .kind = RECORD_CORR,
        .nplayers = 2,
        .players = {{1, "ann"}, {2, "Bob"}},
        .tc = {3 * RECORD_DAY_MS, RECORD_DAY_MS, 4 * RECORD_DAY_MS},
        .options = "{}",
        .created_ms = T0,
        .to_move = 0,
        .deadline_ms = 4102444800000,
        .result = {.winner = -1},
    };
}

static void test_game_json(void **state)
{
    (void)state;
    record_game g = yalta_game();
    char *json = archive_game_json(&g);
    assert_string_equal(
        json, "{\"id\":2,\"variant\":\"yalta\",\"kind\":\"live\",\"rated\":false,\"time_con"
              "trol\":{\"base_ms\":300000,\"inc_ms\":2000,\"cap_ms\":0},\"players\":[{\"sea"
              "t\":0,\"name\":\"ann\",\"account\":1,\"outcome\":\"draw\"},{\"seat\":1,\"nam"
              "e\":\"guest-\\\"q\\\"\\\\\",\"account\":null,\"outcome\":\"loss\"},{\"seat\""
              ":2,\"name\":\"cid\",\"account\":3,\"outcome\":\"draw\"}],\"moves\":[{\"ply\""
              ":0,\"player\":0,\"move\":\"a1-a2\",\"at\":1767225700000},{\"ply\":1,\"player"
              "\":1,\"move\":\"b1-b2\",\"at\":1767225800000},{\"ply\":2,\"player\":2,\"move"
              "\":\"c1-c2\",\"at\":1767225900000}],\"leaves\":[{\"player\":1,\"after_ply\":"
              "2,\"reason\":\"timeout\",\"at\":1767225850000}],\"created\":1767225600000,\""
              "status\":\"finished\",\"position\":null,\"options\":{},\"result\":{\"winner\""
              ":null,\"reason\":\"agreement\"},\"finished\":1767226000000}");
    free(json);

    g = corr_game();
    json = archive_game_json(&g);
    assert_string_equal(
        json, "{\"id\":3,\"variant\":\"ultima\",\"kind\":\"correspondence\",\"rated\":false"
              ",\"time_control\":{\"base_ms\":259200000,\"inc_ms\":86400000,\"cap_ms\":3456"
              "00000},\"players\":[{\"seat\":0,\"name\":\"ann\",\"account\":1},{\"seat\":1,"
              "\"name\":\"Bob\",\"account\":2}],\"moves\":[],\"leaves\":[],\"created\":1767"
              "225600000,\"status\":\"playing\",\"position\":\"someposition\",\"options\":{"
              "},\"to_move\":0,\"deadline\":4102444800000}");
    free(json);

    /* Options are a JSON object as stored, less the seats' identity keys;
     * a winner is its seat. */
    g = yalta_game();
    g.options = "{\"seat_keys\":[\"a\",\"b\"],\"x\":[1,2]}";
    g.result.winner = 2;
    json = archive_game_json(&g);
    assert_non_null(strstr(json, "\"options\":{\"x\":[1,2]}"));
    assert_null(strstr(json, "seat_keys"));
    assert_non_null(strstr(json, "\"result\":{\"winner\":2,\"reason\":\"agreement\"}"));
    free(json);
}

static void test_game_pgn(void **state)
{
    (void)state;
    record_game g = yalta_game();
    char *pgn = archive_game_pgn(&g);
    assert_string_equal(pgn, "[Event \"Live game\"]\n"
                             "[Site \"chameleon\"]\n"
                             "[Date \"2026.01.01\"]\n"
                             "[Round \"-\"]\n"
                             "[White \"ann\"]\n"
                             "[Red \"guest-\\\"q\\\"\\\\\"]\n"
                             "[Black \"cid\"]\n"
                             "[Result \"1/2-0-1/2\"]\n"
                             "[Variant \"yalta\"]\n"
                             "[GameId \"2\"]\n"
                             "[TimeControl \"300+2\"]\n"
                             "[Termination \"agreement\"]\n"
                             "\n"
                             "1. a1-a2 b1-b2 {leave 1 timeout} c1-c2 1/2-0-1/2\n");
    free(pgn);

    g = corr_game();
    pgn = archive_game_pgn(&g);
    assert_string_equal(pgn, "[Event \"Correspondence game\"]\n"
                             "[Site \"chameleon\"]\n"
                             "[Date \"2026.01.01\"]\n"
                             "[Round \"-\"]\n"
                             "[White \"ann\"]\n"
                             "[Black \"Bob\"]\n"
                             "[Result \"*\"]\n"
                             "[Variant \"ultima\"]\n"
                             "[GameId \"3\"]\n"
                             "[TimeControl \"corr 3d+1d cap 4d\"]\n"
                             "[SetUp \"1\"]\n"
                             "[FEN \"someposition\"]\n"
                             "\n"
                             "*\n");
    free(pgn);

    /* Days per move; a variant the rules core does not know names its
     * seats Player1, Player2. */
    g.tc = (record_tc){7 * RECORD_DAY_MS, 0, 0};
    g.variant = "nosuchgame";
    pgn = archive_game_pgn(&g);
    assert_non_null(strstr(pgn, "[TimeControl \"corr 7d/move\"]\n"));
    assert_non_null(strstr(pgn, "[Player1 \"ann\"]\n[Player2 \"Bob\"]\n"));
    free(pgn);
}

static void test_profile_json(void **state)
{
    (void)state;
    const record_profile_game playing[] = {
        {.id = 4,
         .variant = "rollerball",
         .kind = RECORD_LIVE,
         .seat = 0,
         .nmoves = 1,
         .created_ms = T0,
         .to_move = 1},
        {.id = 3,
         .variant = "ultima",
         .kind = RECORD_CORR,
         .seat = 0,
         .nmoves = 0,
         .created_ms = T0,
         .to_move = 0,
         .deadline_ms = 4102444800000},
    };
    const record_profile_game ultima[] = {
        {.id = 5,
         .variant = "ultima",
         .kind = RECORD_CORR,
         .seat = 0,
         .created_ms = T0,
         .outcome = RULES_OUTCOME_WIN,
         .reason = RULES_REASON_RESIGNATION,
         .finished_ms = 1767229999000},
        {.id = 1,
         .variant = "ultima",
         .kind = RECORD_CORR,
         .seat = 0,
         .nmoves = 2,
         .created_ms = T0,
         .outcome = RULES_OUTCOME_LOSS,
         .reason = RULES_REASON_CHECKMATE,
         .finished_ms = 1767225800000},
    };
    const record_profile_game yalta[] = {
        {.id = 2,
         .variant = "yalta",
         .kind = RECORD_LIVE,
         .seat = 0,
         .nmoves = 3,
         .created_ms = T0,
         .outcome = RULES_OUTCOME_DRAW,
         .reason = RULES_REASON_AGREEMENT,
         .finished_ms = 1767226000000},
    };
    const record_variant_games variants[] = {
        {"ultima", 1, 1, 0, 2, ultima},
        {"yalta", 0, 0, 1, 1, yalta},
    };
    record_profile p = {1, "ann", 2, playing, 2, variants, 0, NULL, 0, NULL};
    char *json = archive_profile_json(&p);
    assert_string_equal(
        json, "{\"account\":1,\"username\":\"ann\",\"in_progress\":[{\"id\":4,\"variant\":\""
              "rollerball\",\"kind\":\"live\",\"seat\":0,\"moves\":1,\"created\":1767225600"
              "000,\"to_move\":1,\"your_turn\":false},{\"id\":3,\"variant\":\"ultima\",\"ki"
              "nd\":\"correspondence\",\"seat\":0,\"moves\":0,\"created\":1767225600000,\"t"
              "o_move\":0,\"your_turn\":true,\"deadline\":4102444800000}],\"finished\":{\"u"
              "ltima\":{\"wins\":1,\"losses\":1,\"draws\":0,\"games\":[{\"id\":5,\"variant\""
              ":\"ultima\",\"kind\":\"correspondence\",\"seat\":0,\"moves\":0,\"created\":1"
              "767225600000,\"outcome\":\"win\",\"reason\":\"resignation\",\"finished\":176"
              "7229999000},{\"id\":1,\"variant\":\"ultima\",\"kind\":\"correspondence\",\"s"
              "eat\":0,\"moves\":2,\"created\":1767225600000,\"outcome\":\"loss\",\"reason\""
              ":\"checkmate\",\"finished\":1767225800000}]},\"yalta\":{\"wins\":0,\"losses\""
              ":0,\"draws\":1,\"games\":[{\"id\":2,\"variant\":\"yalta\",\"kind\":\"live\","
              "\"seat\":0,\"moves\":3,\"created\":1767225600000,\"outcome\":\"draw\",\"reas"
              "on\":\"agreement\",\"finished\":1767226000000}]}},\"ratings\":{}}");
    free(json);

    record_profile empty = {4, "lonely", 0, NULL, 0, NULL, 0, NULL, 0, NULL};
    json = archive_profile_json(&empty);
    assert_string_equal(json, "{\"account\":4,\"username\":\"lonely\",\"in_progress\":[],"
                              "\"finished\":{},\"ratings\":{}}");
    free(json);
}

static void test_turns_and_lines_json(void **state)
{
    (void)state;
    const record_turn t[] = {{.game = 4, .variant = "ultima", .kind = RECORD_LIVE},
                             {.game = 9,
                              .variant = "yalta",
                              .kind = RECORD_CORR,
                              .ply = 12,
                              .deadline_ms = T0,
                              .opponents = {"bob", "carol"},
                              .nopponents = 2}};
    char *json = archive_turns_json(t, 2);
    assert_string_equal(json, "[{\"id\":4,\"variant\":\"ultima\",\"kind\":\"live\",\"ply\":0},"
                              "{\"id\":9,\"variant\":\"yalta\",\"kind\":\"correspondence\","
                              "\"ply\":12,\"deadline\":1767225600000,"
                              "\"opponents\":[\"bob\",\"carol\"]}]");
    free(json);
    json = archive_turns_json(NULL, 0);
    assert_string_equal(json, "[]");
    free(json);

    const char *const lines[] = {"g1-f3 b8-c6", "f1-c4 \"x\""};
    record_lines l = {2, lines};
    json = archive_lines_json(&l);
    assert_string_equal(json, "[\"g1-f3 b8-c6\",\"f1-c4 \\\"x\\\"\"]");
    free(json);
    l.n = 0;
    json = archive_lines_json(&l);
    assert_string_equal(json, "[]");
    free(json);
}

/* record_replay: moves and leaves in their order, a leave after the last
 * move included; a move that does not replay is named. */
static void test_record_replay(void **state)
{
    (void)state;
    rules_game *g, *want;
    char why[RULES_WHY_TEXT];
    assert_int_equal(rules_game_new(&want, "yalta", NULL, why, sizeof why), 0);
    record_move moves[4];
    char texts[4][RULES_MOVE_TEXT];
    for (int i = 0; i < 4; i++) {
        int player = want->pos.to_move;
        assert_true(
            want->variant->print_move(&want->pos, want->legal[0], texts[i], sizeof texts[i]) > 0);
        assert_int_equal(rules_game_play(want, want->legal[0]), 0);
        moves[i] = (record_move){i, player, texts[i], T0, {0}};
        if (i == 1)
            assert_int_equal(rules_game_leave(want, 2, RULES_REASON_RESIGNATION), 0);
    }
    assert_int_equal(rules_game_leave(want, 0, RULES_REASON_TIMEOUT), 0);
    const record_leave leaves[] = {{2, 2, RULES_REASON_RESIGNATION, T0},
                                   {4, 0, RULES_REASON_TIMEOUT, T0}};
    record_game rg = {.id = 1,
                      .variant = "yalta",
                      .nplayers = 3,
                      .nmoves = 4,
                      .moves = moves,
                      .nleaves = 2,
                      .leaves = leaves};
    assert_int_equal(record_replay(&rg, &g, why, sizeof why), 0);
    char a[RULES_POS_TEXT], b[RULES_POS_TEXT];
    assert_true(g->variant->print_position(&g->pos, a, sizeof a) > 0);
    assert_true(want->variant->print_position(&want->pos, b, sizeof b) > 0);
    assert_string_equal(a, b);
    assert_int_equal(g->nleft, 2);
    assert_int_equal(g->result.over, want->result.over);
    assert_int_equal(rules_game_to_move(g), rules_game_to_move(want));
    rules_game_free(g);

    moves[3].text = "zz-zz";
    assert_true(record_replay(&rg, &g, why, sizeof why) < 0);
    assert_non_null(strstr(why, "zz-zz"));
    rules_game_free(want);
}

/* The text of a JSON value, compact with sorted keys, equals expected. */
static void assert_json_text(json_t *j, const char *expected)
{
    assert_non_null(j);
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    assert_non_null(text);
    assert_string_equal(text, expected);
    free(text);
}

/* For viewers (GET /api/games/<id>): the start and what each move changed,
 * replayed through the rules core; a Yalta castling moves the rook too; a
 * record that does not replay is served as stored. */
static void test_game_view_json(void **state)
{
    (void)state;
    static const record_move pincer[] = {
        {0, 0, "a2-a4", 1, {0}},
        {1, 1, "b7-b4", 2, {0}},
        {2, 0, "c2-c4", 3, {0}},
    };
    static const record_leave resigned[] = {{3, 1, RULES_REASON_RESIGNATION, 4}};
    record_game g = corr_game();
    g.position = NULL;
    g.nmoves = 3;
    g.moves = pincer;
    g.nleaves = 1;
    g.leaves = resigned;
    char *text = archive_game_view_json(&g);
    assert_non_null(text);
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    assert_int_equal(json_array_size(json_object_get(j, "start")), 32);
    assert_json_text(json_array_get(json_object_get(j, "start"), 0),
                     "{\"letter\":\"I\",\"name\":\"a1\",\"owner\":0}");
    json_t *m = json_array_get(json_object_get(j, "moves"), 2);
    assert_json_text(m, "{\"at\":3,\"captures\":[\"b4\"],\"changes\":[[\"c2\",null],[\"b4\",null],"
                        "[\"c4\",{\"letter\":\"P\",\"owner\":0}]],\"display\":\"Pc2-c4xb4\","
                        "\"move\":\"c2-c4\",\"player\":0,\"ply\":2}");
    assert_json_text(json_object_get(json_array_get(json_object_get(j, "moves"), 0), "changes"),
                     "[[\"a2\",null],[\"a4\",{\"letter\":\"P\",\"owner\":0}]]");
    json_decref(j);
    free(text);

    static const char *const castling[] = {"g1-h3",   "a7-a6", "l11-l10", "g2-g3",   "b7-b6",
                                           "k11-k10", "f1-g2", "c7-c6",   "j11-j10", "e1-g1"};
    record_move ym[10];
    for (int i = 0; i < 10; i++)
        ym[i] = (record_move){i, i % 3, castling[i], i, {0}};
    g = yalta_game();
    g.nmoves = 10;
    g.moves = ym;
    g.nleaves = 0;
    text = archive_game_view_json(&g);
    j = json_loads(text, 0, NULL);
    assert_json_text(json_object_get(json_array_get(json_object_get(j, "moves"), 9), "changes"),
                     "[[\"h1\",null],[\"g1\",{\"letter\":\"K\",\"owner\":0}],"
                     "[\"f1\",{\"letter\":\"R\",\"owner\":0}],[\"e1\",null]]");
    json_decref(j);
    free(text);

    /* Records that do not replay: exactly the stored JSON. */
    static const record_move bad_move[] = {{0, 0, "a2-a9", 1, {0}}};
    static const record_move wrong_turn[] = {{0, 1, "a2-a4", 1, {0}}};
    const record_move *bad[] = {bad_move, wrong_turn};
    for (int i = 0; i < 2; i++) {
        g = corr_game();
        g.position = NULL;
        g.nmoves = 1;
        g.moves = bad[i];
        char *view = archive_game_view_json(&g), *stored = archive_game_json(&g);
        assert_string_equal(view, stored);
        free(view);
        free(stored);
    }
    g = corr_game(); /* "someposition" does not parse */
    char *view = archive_game_view_json(&g), *stored = archive_game_json(&g);
    assert_string_equal(view, stored);
    free(view);
    free(stored);
}

static void test_record_line_next(void **state)
{
    (void)state;
    char move[RULES_MOVE_TEXT], longest[RULES_MOVE_TEXT + 8];
    const char *p = "  e2-e4 e7-e5   g1-f3 ";
    assert_int_equal(record_line_next(&p, move), 1);
    assert_string_equal(move, "e2-e4");
    assert_int_equal(record_line_next(&p, move), 1);
    assert_string_equal(move, "e7-e5");
    assert_int_equal(record_line_next(&p, move), 1);
    assert_string_equal(move, "g1-f3");
    assert_int_equal(record_line_next(&p, move), 0);
    assert_int_equal(record_line_next(&p, move), 0);
    p = "";
    assert_int_equal(record_line_next(&p, move), 0);
    /* A text of RULES_MOVE_TEXT - 1 bytes is a move; one more is not. */
    memset(longest, 'a', RULES_MOVE_TEXT - 1);
    longest[RULES_MOVE_TEXT - 1] = '\0';
    p = longest;
    assert_int_equal(record_line_next(&p, move), 1);
    assert_int_equal((int)strlen(move), RULES_MOVE_TEXT - 1);
    memset(longest, 'a', RULES_MOVE_TEXT);
    longest[RULES_MOVE_TEXT] = '\0';
    p = longest;
    assert_int_equal(record_line_next(&p, move), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_json),
        cmocka_unit_test(test_game_view_json),
        cmocka_unit_test(test_game_pgn),
        cmocka_unit_test(test_profile_json),
        cmocka_unit_test(test_turns_and_lines_json),
        cmocka_unit_test(test_record_replay),
        cmocka_unit_test(test_record_line_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
