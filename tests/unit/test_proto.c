/*
 * test_proto.c - the JSON codec: decoding against the request table (every
 * type, required and optional fields, wrong types, limits), the error table,
 * and the writer (escaping, ids echoed, events of a real game parsed back
 * with jansson).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "proto.h"

static int decode(const char *text, proto_req *req, bool *typed)
{
    char why[RULES_WHY_TEXT];
    return proto_decode(text, strlen(text), req, typed, why, sizeof why);
}

static void test_decode_every_type(void **state)
{
    (void)state;
    /* Each type with exactly its required fields decodes; the type string
     * comes from the same table as the enum. */
    static const struct {
        const char *json;
        proto_type type;
    } cases[] = {
        {"{\"type\":\"hello\"}", PROTO_HELLO},
        {"{\"type\":\"ping\"}", PROTO_PING},
        {"{\"type\":\"lobby_watch\"}", PROTO_LOBBY_WATCH},
        {"{\"type\":\"lobby_unwatch\"}", PROTO_LOBBY_UNWATCH},
        {"{\"type\":\"seek_create\",\"game\":\"g\",\"base_ms\":1,\"inc_ms\":0}", PROTO_SEEK_CREATE},
        {"{\"type\":\"seek_cancel\",\"seek\":3}", PROTO_SEEK_CANCEL},
        {"{\"type\":\"seek_accept\"}", PROTO_SEEK_ACCEPT},
        {"{\"type\":\"join\",\"room\":1}", PROTO_JOIN},
        {"{\"type\":\"part\",\"room\":1}", PROTO_PART},
        {"{\"type\":\"move\",\"room\":1,\"move\":\"a1-a2\"}", PROTO_MOVE},
        {"{\"type\":\"resign\",\"room\":1}", PROTO_RESIGN},
        {"{\"type\":\"draw_offer\",\"room\":1}", PROTO_DRAW_OFFER},
        {"{\"type\":\"draw_decline\",\"room\":1}", PROTO_DRAW_DECLINE},
        {"{\"type\":\"abort\",\"room\":1}", PROTO_ABORT},
        {"{\"type\":\"rematch\",\"room\":1}", PROTO_REMATCH},
        {"{\"type\":\"chat\",\"room\":1,\"text\":\"hi\"}", PROTO_CHAT},
    };
    assert_int_equal(sizeof cases / sizeof cases[0], PROTO_NREQUESTS);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        proto_req req;
        bool typed;
        assert_int_equal(decode(cases[i].json, &req, &typed), 0);
        assert_true(typed);
        assert_int_equal(req.type, cases[i].type);
        /* The name written back is the one that was read. */
        const char *t = cases[i].json + strlen("{\"type\":\"");
        assert_int_equal(strncmp(proto_type_name(req.type), t, strcspn(t, "\"")), 0);
        assert_int_equal(strlen(proto_type_name(req.type)), strcspn(t, "\""));
    }
}

static void test_decode_fields(void **state)
{
    (void)state;
    proto_req req;
    bool typed;
    assert_int_equal(decode("{\"type\":\"move\",\"id\":42,\"room\":7,\"move\":\"e2-e4\","
                            "\"extra\":[1,2]}",
                            &req, &typed),
                     0);
    assert_true(req.has_id);
    assert_int_equal(req.id, 42);
    assert_int_equal(req.room, 7);
    assert_string_equal(req.move, "e2-e4");
    assert_int_equal(req.present, PF_ROOM | PF_MOVE);

    assert_int_equal(decode("{\"type\":\"hello\",\"token\":\"abc\",\"board\":false}", &req,
                            &typed),
                     0);
    assert_string_equal(req.token, "abc");
    assert_false(req.board);
    assert_int_equal(decode("{\"type\":\"hello\"}", &req, &typed), 0);
    assert_true(req.board); /* default */
    assert_int_equal(decode("{\"type\":\"join\",\"room\":1,\"since\":null}", &req, &typed), 0);
    assert_false(req.present & PF_SINCE);
}

static void test_decode_errors(void **state)
{
    (void)state;
    proto_req req;
    bool typed;
    assert_int_equal(decode("nope", &req, &typed), PROTO_EBAD_JSON);
    assert_false(typed);
    assert_int_equal(decode("[1]", &req, &typed), PROTO_EBAD_JSON);
    assert_int_equal(decode("{\"type\":1}", &req, &typed), PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"fly\"}", &req, &typed), PROTO_EUNKNOWN_TYPE);
    assert_false(typed);
    /* Missing required field, wrong types: the request is named. */
    assert_int_equal(decode("{\"type\":\"move\",\"id\":3,\"room\":1}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    assert_true(typed);
    assert_int_equal(req.type, PROTO_MOVE);
    assert_int_equal(req.id, 3);
    assert_int_equal(decode("{\"type\":\"join\",\"room\":\"1\"}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"join\",\"room\":1.5}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"hello\",\"board\":1}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"ping\",\"id\":\"x\"}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"ping\",\"type\":\"ping\"}", &req, &typed),
                     PROTO_EBAD_JSON);
    /* String limits: empty, too long, NUL inside. */
    assert_int_equal(decode("{\"type\":\"chat\",\"room\":1,\"text\":\"\"}", &req, &typed),
                     PROTO_EBAD_MESSAGE);
    char big[600];
    snprintf(big, sizeof big, "{\"type\":\"chat\",\"room\":1,\"text\":\"%0301d\"}", 0);
    assert_int_equal(decode(big, &req, &typed), PROTO_EBAD_MESSAGE);
    snprintf(big, sizeof big, "{\"type\":\"chat\",\"room\":1,\"text\":\"%0300d\"}", 0);
    assert_int_equal(decode(big, &req, &typed), 0);
    assert_int_equal(strlen(req.text), 300);
    /* jansson refuses \u0000 itself (no JSON_ALLOW_NUL). */
    assert_int_equal(decode("{\"type\":\"chat\",\"room\":1,\"text\":\"a\\u0000b\"}", &req,
                            &typed),
                     PROTO_EBAD_JSON);
    /* Over the size limit, before parsing. */
    char *huge = malloc(PROTO_MAX_MESSAGE + 2);
    memset(huge, ' ', PROTO_MAX_MESSAGE + 1);
    huge[PROTO_MAX_MESSAGE + 1] = '\0';
    assert_int_equal(decode(huge, &req, &typed), PROTO_ETOO_LARGE);
    free(huge);
}

static void test_error_table(void **state)
{
    (void)state;
    /* Every error has a distinct code; rules errors map to the same code. */
    for (int i = 1; i < PROTO_NERRORS; i++)
        for (int j = i + 1; j < PROTO_NERRORS; j++)
            assert_string_not_equal(proto_err_code((proto_err)i), proto_err_code((proto_err)j));
    static const int rules_errs[] = {RULES_EBAD_MOVE_TEXT, RULES_ENO_PIECE, RULES_ENOT_YOURS,
                                     RULES_EFROZEN,        RULES_EUNREACHABLE,
                                     RULES_ESELF_CHECK,    RULES_ENOT_YOUR_TURN,
                                     RULES_EGAME_OVER,     RULES_EILLEGAL};
    for (size_t i = 0; i < sizeof rules_errs / sizeof rules_errs[0]; i++)
        assert_string_equal(proto_err_code(proto_err_from_rules(rules_errs[i])),
                            rules_err_code(rules_errs[i]));
}

/* Parse what the writer wrote (after its headroom). */
static json_t *parse_out(proto_out *o)
{
    assert_false(o->oom);
    json_error_t err;
    json_t *j = json_loadb(proto_out_data(o), o->len, 0, &err);
    if (j == NULL)
        fail_msg("writer produced invalid JSON: %s: %.*s", err.text, (int)o->len,
                 proto_out_data(o));
    return j;
}

static void test_writer_escapes_and_ids(void **state)
{
    (void)state;
    proto_req req = {.type = PROTO_CHAT, .has_id = true, .id = 9};
    proto_out o;
    proto_out_init(&o, 16);
    const char *nasty = "quote \" backslash \\ newline \n tab \t bell \x07 é";
    proto_write_error(&o, &req, true, PROTO_ERATE_LIMITED, nasty);
    json_t *j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "type")), "error");
    assert_int_equal(json_integer_value(json_object_get(j, "re")), 9);
    assert_string_equal(json_string_value(json_object_get(j, "code")), "rate_limited");
    assert_string_equal(json_string_value(json_object_get(j, "reason")), nasty);
    assert_string_equal(json_string_value(json_object_get(j, "request")), "chat");
    json_decref(j);
    proto_out_free(&o);

    /* Default reason, no request when untyped. */
    proto_out_init(&o, 0);
    proto_write_error(&o, NULL, false, PROTO_EBAD_JSON, NULL);
    j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "reason")),
                        proto_err_text(PROTO_EBAD_JSON));
    assert_null(json_object_get(j, "request"));
    assert_null(json_object_get(j, "re"));
    json_decref(j);
    proto_out_free(&o);
}

/* A real game of each variant: room state and move events parse, the board
 * added to a lean event keeps every lean field. */
static void test_writer_room_and_events(void **state)
{
    (void)state;
    for (int vi = 0; rules_variants[vi] != NULL; vi++) {
        const rules_variant *v = rules_variants[vi];
        rules_game *g = NULL;
        assert_int_equal(rules_game_new(&g, v->id, NULL, NULL, 0), 0);
        rules_pos before = g->pos;
        rules_move m = g->legal[0];
        char text[RULES_MOVE_TEXT], disp[RULES_MOVE_TEXT];
        assert_true(v->print_move(&before, m, text, sizeof text) > 0);
        assert_true(rules_display_move(&before, m, disp, sizeof disp) > 0);
        assert_int_equal(rules_game_play(g, m), 0);

        int64_t clocks[RULES_MAX_PLAYERS] = {1000, 2000, 3000};
        proto_move_view mv = {.ply = 1, .seat = 0, .move = text, .display = disp};
        proto_out lean;
        proto_out_init(&lean, 8);
        proto_write_event_move(&lean, 5, 1, &mv, g, clocks, true);
        json_t *e = parse_out(&lean);
        assert_string_equal(json_string_value(json_object_get(e, "kind")), "move");
        assert_string_equal(json_string_value(json_object_get(e, "move")), text);
        assert_int_equal(json_array_size(json_object_get(e, "clocks")), v->nplayers);
        assert_null(json_object_get(e, "pieces"));
        assert_true(json_is_null(json_object_get(e, "result")));

        proto_out full;
        proto_out_init(&full, 0);
        proto_event_add_board(&full, proto_out_data(&lean), lean.len, g);
        json_t *f = parse_out(&full);
        assert_int_equal(json_object_size(f), json_object_size(e) + 4);
        assert_int_equal((int)json_array_size(json_object_get(f, "legal")), g->nlegal);
        size_t npieces = 0;
        for (int c = 0; c < v->ncells; c++) {
            int owner;
            npieces += v->piece_at(&g->pos, c, &owner) != 0;
        }
        assert_int_equal(json_array_size(json_object_get(f, "pieces")), npieces);
        json_decref(e);
        json_decref(f);
        proto_out_free(&lean);
        proto_out_free(&full);

        proto_room_view view = {.room = 5, .seq = 1, .game = g, .you = -1};
        for (int i = 0; i < v->nplayers; i++) {
            view.players[i] = (proto_player){i + 1, "p\"q"};
            view.left[i] = -1;
        }
        proto_chat_line line = {.seat = -1, .name = "n", .text = "t\n"};
        view.chat = &line;
        view.nchat = 1;
        proto_out o;
        proto_out_init(&o, 0);
        proto_write_room(&o, NULL, &view);
        json_t *r = parse_out(&o);
        json_t *moves = json_object_get(r, "moves");
        assert_int_equal(json_array_size(moves), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 0), "move")),
                            text);
        assert_string_equal(json_string_value(json_object_get(r, "game")), v->id);
        assert_int_equal(json_array_size(json_object_get(r, "seats")), v->nplayers);
        json_decref(r);
        proto_out_free(&o);
        rules_game_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_every_type),
        cmocka_unit_test(test_decode_fields),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_error_table),
        cmocka_unit_test(test_writer_escapes_and_ids),
        cmocka_unit_test(test_writer_room_and_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
