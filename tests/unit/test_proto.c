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
        {"{\"type\":\"rematch_decline\",\"room\":1}", PROTO_REMATCH_DECLINE},
        {"{\"type\":\"takeback\",\"room\":1}", PROTO_TAKEBACK},
        {"{\"type\":\"takeback_decline\",\"room\":1}", PROTO_TAKEBACK_DECLINE},
        {"{\"type\":\"chat\",\"room\":1,\"text\":\"hi\"}", PROTO_CHAT},
        {"{\"type\":\"turns\"}", PROTO_TURNS},
        {"{\"type\":\"vacation_start\",\"days\":3}", PROTO_VACATION_START},
        {"{\"type\":\"vacation_end\"}", PROTO_VACATION_END},
        {"{\"type\":\"vacation_status\"}", PROTO_VACATION_STATUS},
        {"{\"type\":\"cond_set\",\"room\":1,\"lines\":[]}", PROTO_COND_SET},
        {"{\"type\":\"cond_clear\",\"room\":1}", PROTO_COND_CLEAR},
        {"{\"type\":\"cond_get\",\"room\":1}", PROTO_COND_GET},
        {"{\"type\":\"bot_game\",\"game\":\"g\",\"level\":3}", PROTO_BOT_GAME},
        {"{\"type\":\"seek_fill\",\"seek\":3,\"level\":3}", PROTO_SEEK_FILL},
        {"{\"type\":\"challenge_create\",\"to\":\"bob\",\"game\":\"g\"}", PROTO_CHALLENGE_CREATE},
        {"{\"type\":\"challenge_accept\",\"challenge\":2}", PROTO_CHALLENGE_ACCEPT},
        {"{\"type\":\"challenge_decline\",\"challenge\":2}", PROTO_CHALLENGE_DECLINE},
        {"{\"type\":\"challenge_cancel\",\"challenge\":2}", PROTO_CHALLENGE_CANCEL},
        {"{\"type\":\"challenge_list\"}", PROTO_CHALLENGE_LIST},
        {"{\"type\":\"tourney_watch\",\"tourney\":3}", PROTO_TOURNEY_WATCH},
        {"{\"type\":\"tourney_unwatch\",\"tourney\":3}", PROTO_TOURNEY_UNWATCH},
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

    assert_int_equal(decode("{\"type\":\"hello\",\"token\":\"abc\",\"board\":false}", &req, &typed),
                     0);
    assert_string_equal(req.token, "abc");
    assert_false(req.board);
    assert_int_equal(decode("{\"type\":\"hello\"}", &req, &typed), 0);
    assert_true(req.board); /* default */
    assert_int_equal(decode("{\"type\":\"join\",\"room\":1,\"since\":null}", &req, &typed), 0);
    assert_false(req.present & PF_SINCE);
}

static json_t *parse_out(proto_out *o);

/* Correspondence fields: the corr object and the conditional lines. */
static void test_decode_corr(void **state)
{
    (void)state;
    proto_req req;
    bool typed;
    assert_int_equal(decode("{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":{\"days\":2,"
                            "\"inc_days\":1,\"cap_days\":10}}",
                            &req, &typed),
                     0);
    assert_true(req.present & PF_CORR);
    assert_false(req.present & PF_BASE_MS);
    assert_int_equal(req.corr_days, 2);
    assert_int_equal(req.corr_inc_days, 1);
    assert_int_equal(req.corr_cap_days, 10);
    assert_int_equal(
        decode("{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":{\"days\":3}}", &req, &typed), 0);
    assert_int_equal(req.corr_days, 3);
    assert_int_equal(req.corr_inc_days, 0);
    static const char *const bad[] = {
        "{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":3}",
        "{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":{}}",
        "{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":{\"days\":\"3\"}}",
        "{\"type\":\"seek_create\",\"game\":\"g\",\"corr\":{\"days\":3,\"inc_days\":1.5}}",
        "{\"type\":\"cond_set\",\"room\":1,\"lines\":\"a\"}",
        "{\"type\":\"cond_set\",\"room\":1,\"lines\":[1]}",
        "{\"type\":\"cond_set\",\"room\":1,\"lines\":[\"\"]}",
        "{\"type\":\"cond_set\",\"room\":1}",
        "{\"type\":\"vacation_start\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(decode(bad[i], &req, &typed), PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"cond_set\",\"room\":4,\"lines\":[\"a1-a2 b1-b2\",\"c\"]}",
                            &req, &typed),
                     0);
    assert_int_equal(req.nlines, 2);
    assert_string_equal(req.lines[0], "a1-a2 b1-b2");
    assert_string_equal(req.lines[1], "c");
    /* 17 lines: one too many. */
    char many[512] = "{\"type\":\"cond_set\",\"room\":1,\"lines\":[";
    for (int i = 0; i < PROTO_COND_LINES + 1; i++)
        strcat(many, i ? ",\"a\"" : "\"a\"");
    strcat(many, "]}");
    assert_int_equal(decode(many, &req, &typed), PROTO_EBAD_MESSAGE);
}

/* The chat rooms' and the vacation's events (PROTOCOL.md, Chat rooms). */
static void test_writer_chat_rooms(void **state)
{
    (void)state;
    proto_out o;
    proto_out_init(&o, 16);
    proto_chat_line line = {.seat = -1, .spectators = true, .name = "ann", .text = "hi"};
    proto_write_event_chat(&o, 3, 7, &line);
    json_t *j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "channel")), "spectators");
    assert_string_equal(json_string_value(json_object_get(j, "text")), "hi");
    json_decref(j);
    proto_out_free(&o);

    proto_out_init(&o, 16);
    proto_write_event_skip(&o, 3, 8);
    j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "skip");
    assert_int_equal(json_integer_value(json_object_get(j, "seq")), 8);
    assert_int_equal(json_object_size(j), 4); /* type, room, seq, kind */
    json_decref(j);
    proto_out_free(&o);

    int64_t dl[RULES_MAX_PLAYERS] = {1700000000000, 0};
    proto_out_init(&o, 16);
    proto_write_event_vacation(&o, 3, 9, 0, 1700500000000, dl, 2, 1699999000000);
    j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "vacation");
    assert_int_equal(json_integer_value(json_object_get(j, "until")), 1700500000000);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "deadlines"), 0)),
                     1700000000000);
    assert_int_equal(json_integer_value(json_object_get(j, "now_ms")), 1699999000000);
    json_decref(j);
    proto_out_free(&o);
    proto_out_init(&o, 16);
    proto_write_event_vacation(&o, 3, 10, 0, 0, dl, 2, 1699999000000);
    j = parse_out(&o);
    assert_true(json_is_null(json_object_get(j, "until")));
    json_decref(j);
    proto_out_free(&o);
}

/* The correspondence writers: what PROTOCOL.md shows. */
static void test_writer_corr(void **state)
{
    (void)state;
    proto_out o;
    proto_out_init(&o, 16);
    proto_write_event_presence(&o, 3, 9, 1, true);
    int64_t dl[RULES_MAX_PLAYERS] = {0, 1700000000000};
    proto_event_add_corr(&o, dl, 2, 1699999000000);
    json_t *j = parse_out(&o);
    json_t *d = json_object_get(j, "deadlines");
    assert_int_equal(json_array_size(d), 2);
    assert_true(json_is_null(json_array_get(d, 0)));
    assert_int_equal(json_integer_value(json_array_get(d, 1)), 1700000000000);
    assert_int_equal(json_integer_value(json_object_get(j, "now_ms")), 1699999000000);
    assert_int_equal(json_integer_value(json_object_get(j, "seq")), 9);
    json_decref(j);
    proto_out_free(&o);

    proto_req req = {.has_id = true, .id = 5};
    proto_out_init(&o, 0);
    proto_write_vacation(&o, &req, 0, 30);
    j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "type")), "vacation");
    assert_true(json_is_false(json_object_get(j, "on")));
    assert_int_equal(json_integer_value(json_object_get(j, "days_left")), 30);
    assert_int_equal(json_integer_value(json_object_get(j, "re")), 5);
    json_decref(j);
    proto_out_free(&o);

    proto_out_init(&o, 0);
    proto_write_cond(&o, NULL, 12, "[\"a b\"]");
    j = parse_out(&o);
    assert_int_equal(json_integer_value(json_object_get(j, "room")), 12);
    assert_string_equal(json_string_value(json_array_get(json_object_get(j, "lines"), 0)), "a b");
    json_decref(j);
    proto_out_free(&o);

    proto_out_init(&o, 0);
    proto_write_turns(&o, NULL, "[]");
    j = parse_out(&o);
    assert_int_equal(json_array_size(json_object_get(j, "games")), 0);
    json_decref(j);
    proto_out_free(&o);

    proto_seek_view sv = {.id = 1, .game = "ultima", .seats = 2, .corr = {2, 1, 10}};
    proto_out_init(&o, 0);
    proto_write_seek(&o, NULL, "seek_created", &sv, NULL);
    j = parse_out(&o);
    json_t *c = json_object_get(json_object_get(j, "seek"), "corr");
    assert_int_equal(json_integer_value(json_object_get(c, "days")), 2);
    assert_int_equal(json_integer_value(json_object_get(c, "inc_days")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "cap_days")), 10);
    json_decref(j);
    proto_out_free(&o);
    sv.corr.days = 0;
    proto_out_init(&o, 0);
    proto_write_seek(&o, NULL, "seek_created", &sv, NULL);
    j = parse_out(&o);
    assert_true(json_is_null(json_object_get(json_object_get(j, "seek"), "corr")));
    json_decref(j);
    proto_out_free(&o);
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
    assert_int_equal(decode("{\"type\":\"join\",\"room\":1.5}", &req, &typed), PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"hello\",\"board\":1}", &req, &typed), PROTO_EBAD_MESSAGE);
    assert_int_equal(decode("{\"type\":\"ping\",\"id\":\"x\"}", &req, &typed), PROTO_EBAD_MESSAGE);
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
    assert_int_equal(decode("{\"type\":\"chat\",\"room\":1,\"text\":\"a\\u0000b\"}", &req, &typed),
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
    static const int rules_errs[] = {RULES_EBAD_MOVE_TEXT, RULES_ENO_PIECE,    RULES_ENOT_YOURS,
                                     RULES_EFROZEN,        RULES_EUNREACHABLE, RULES_ESELF_CHECK,
                                     RULES_ENOT_YOUR_TURN, RULES_EGAME_OVER,   RULES_EILLEGAL};
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
        proto_move_view mv = {
            .ply = 1, .seat = 0, .move = text, .display = disp, .before = &before};
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
            view.players[i] = (proto_player){.id = i + 1, .name = "p\"q", .bot = i == 1 ? 5 : 0};
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
        /* A bot's player object says so, with its level; a person's has
         * no such fields. */
        json_t *p0 = json_object_get(json_array_get(json_object_get(r, "seats"), 0), "player");
        json_t *p1 = json_object_get(json_array_get(json_object_get(r, "seats"), 1), "player");
        assert_null(json_object_get(p0, "bot"));
        assert_true(json_is_true(json_object_get(p1, "bot")));
        assert_int_equal(json_integer_value(json_object_get(p1, "level")), 5);
        json_decref(r);
        proto_out_free(&o);
        rules_game_free(g);
    }
}

/* The keys of a JSON object, sorted, space separated (exact field sets). */
static void keys_of(json_t *obj, char *out, size_t n)
{
    const char *names[64];
    size_t k = 0;
    const char *name;
    json_t *val;
    json_object_foreach(obj, name, val)
    {
        if (k < 64)
            names[k++] = name;
    }
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        if (i)
            strncat(out, " ", n - strlen(out) - 1);
        strncat(out, names[i], n - strlen(out) - 1);
    }
}

/* A JSON value as compact text (sorted keys), for exact comparisons. */
static void assert_json_text(json_t *j, const char *expected)
{
    char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    assert_non_null(t);
    assert_string_equal(t, expected);
    free(t);
}

static void assert_keys(json_t *obj, const char *expected)
{
    char k[1024];
    assert_true(json_is_object(obj));
    keys_of(obj, k, sizeof k);
    assert_string_equal(k, expected);
}

/* GET /api/tables gives the server's tables: every game with its set-up,
 * the correspondence days, the reasons' words. The welcome lists the games
 * without their set-ups (it goes to every connection). */
static void test_writer_tables(void **state)
{
    (void)state;
    proto_req req = {.type = PROTO_HELLO, .has_id = true, .id = 1};
    proto_player me = {.id = 7, .name = "guest-7"};
    int64_t rooms[] = {12};
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_welcome(&o, &req, "9f", &me, NULL, rooms, 1, false);
    json_t *w = parse_out(&o);
    assert_keys(w, "account games player protocol push re rooms token type");
    assert_json_text(json_object_get(w, "push"), "false");
    assert_json_text(json_object_get(w, "rooms"), "[12]");
    assert_keys(json_array_get(json_object_get(w, "games"), 0), "cells colors id name players");
    json_decref(w);
    proto_out_free(&o);

    proto_out_init(&o, 0);
    proto_write_tables(&o);
    w = parse_out(&o);
    assert_keys(w, "corr_days games protocol reasons");
    assert_json_text(json_object_get(w, "corr_days"), "[1,2,3,5,7,10,14]");

    json_t *games = json_object_get(w, "games");
    size_t nv = 0;
    while (rules_variants[nv] != NULL)
        nv++;
    assert_int_equal(json_array_size(games), nv);
    for (size_t i = 0; i < nv; i++) {
        const rules_variant *v = rules_variants[i];
        json_t *g = json_array_get(games, i);
        assert_keys(g, "cells colors id name players setup");
        assert_string_equal(json_string_value(json_object_get(g, "id")), v->id);
        assert_string_equal(json_string_value(json_object_get(g, "name")), v->name);
        assert_int_equal(json_integer_value(json_object_get(g, "players")), v->nplayers);
        assert_int_equal(json_array_size(json_object_get(g, "colors")), v->nplayers);
        assert_int_equal(json_array_size(json_object_get(g, "cells")), v->ncells);
        /* The set-up: every piece of rules_pos_init, as {name, letter, owner}. */
        rules_pos p;
        rules_pos_init(&p, v);
        json_t *setup = json_object_get(g, "setup");
        size_t k = 0;
        for (int c = 0; c < v->ncells; c++) {
            int owner = -1;
            char letter = v->piece_at(&p, c, &owner);
            if (letter == 0)
                continue;
            json_t *e = json_array_get(setup, k++);
            assert_keys(e, "letter name owner");
            assert_string_equal(json_string_value(json_object_get(e, "name")),
                                rules_cell_name(v, c));
            assert_int_equal(json_string_value(json_object_get(e, "letter"))[0], letter);
            assert_int_equal(json_integer_value(json_object_get(e, "owner")), owner);
        }
        assert_int_equal(json_array_size(setup), k);
    }
    /* Ultima's set-up as its rules file writes it (first rank of White). */
    json_t *u = json_object_get(json_array_get(games, 0), "setup");
    assert_string_equal(json_string_value(json_object_get(json_array_get(games, 0), "id")),
                        "ultima");
    assert_int_equal(json_array_size(u), 32);
    assert_json_text(json_array_get(u, 0), "{\"letter\":\"I\",\"name\":\"a1\",\"owner\":0}");
    assert_json_text(json_array_get(u, 3), "{\"letter\":\"K\",\"name\":\"d1\",\"owner\":0}");

    /* Every reason but "none", with its words. */
    json_t *reasons = json_object_get(w, "reasons");
    assert_int_equal(json_object_size(reasons), RULES_REASON_COUNT - 1);
    assert_null(json_object_get(reasons, "none"));
    for (int r = 1; r < RULES_REASON_COUNT; r++) {
        const char *t = json_string_value(json_object_get(reasons, rules_reason_name(r)));
        assert_non_null(t);
        assert_true(strlen(t) > 0);
        assert_string_equal(t, proto_reason_text((rules_reason)r));
    }
    assert_string_equal(json_string_value(json_object_get(reasons, "repetition")),
                        "threefold repetition");
    assert_string_equal(json_string_value(json_object_get(reasons, "timeout")), "time out");
    assert_string_equal(json_string_value(json_object_get(reasons, "agreement")),
                        "draw by agreement");
    json_decref(w);
    proto_out_free(&o);

    for (int d = 0; d <= 60; d++)
        assert_int_equal(proto_corr_days_allowed(d),
                         d == 1 || d == 2 || d == 3 || d == 5 || d == 7 || d == 10 || d == 14);
}

static rules_game *game_of(const char *id, const char *const *moves, int n)
{
    rules_game *g = NULL;
    char why[RULES_WHY_TEXT] = "";
    assert_int_equal(rules_game_new(&g, id, NULL, NULL, 0), 0);
    for (int i = 0; i < n; i++) {
        int err = rules_game_play_text(g, -1, moves[i], NULL, why, sizeof why);
        if (err)
            fail_msg("%s: %s", moves[i], why);
    }
    return g;
}

static const char *const yalta_castling[] = {"g1-h3",   "a7-a6", "l11-l10", "g2-g3",   "b7-b6",
                                             "k11-k10", "f1-g2", "c7-c6",   "j11-j10", "e1-g1"};
static const char *const ultima_pincer[] = {"a2-a4", "b7-b4", "c2-c4"};

/* A move event says which cells the move changed and what stands there now:
 * a castling moves two pieces, a capture empties the captured cell. */
static void test_writer_event_changes(void **state)
{
    (void)state;
    rules_game *g = game_of("yalta", yalta_castling, 10), *prev = NULL;
    assert_int_equal(rules_game_clone(&prev, g, g->nmoves - 1), 0);
    int64_t clocks[RULES_MAX_PLAYERS] = {0};
    proto_move_view mv = {
        .ply = 10, .seat = 0, .move = "e1-g1", .display = "Ke1-g1", .before = &prev->pos};
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_event_move(&o, 3, 11, &mv, g, clocks, false);
    json_t *e = parse_out(&o);
    assert_keys(e, "captures changes clock_running clocks display kind move ply result room "
                   "seat seq to_move type");
    assert_json_text(json_object_get(e, "changes"),
                     "[[\"h1\",null],[\"g1\",{\"letter\":\"K\",\"owner\":0}],"
                     "[\"f1\",{\"letter\":\"R\",\"owner\":0}],[\"e1\",null]]");
    json_decref(e);
    proto_out_free(&o);
    rules_game_free(g);
    rules_game_free(prev);

    g = game_of("ultima", ultima_pincer, 3);
    assert_int_equal(rules_game_clone(&prev, g, g->nmoves - 1), 0);
    int caps[] = {rules_cell_parse(g->variant, "b4")};
    mv = (proto_move_view){.ply = 3,
                           .seat = 0,
                           .move = "c2-c4",
                           .display = "Pc2-c4xb4",
                           .captures = caps,
                           .ncaptures = 1,
                           .before = &prev->pos};
    proto_out_init(&o, 0);
    proto_write_event_move(&o, 3, 4, &mv, g, clocks, false);
    e = parse_out(&o);
    assert_json_text(json_object_get(e, "captures"), "[\"b4\"]");
    assert_json_text(json_object_get(e, "changes"),
                     "[[\"c2\",null],[\"b4\",null],[\"c4\",{\"letter\":\"P\",\"owner\":0}]]");
    json_decref(e);
    proto_out_free(&o);
    rules_game_free(g);
    rules_game_free(prev);
}

/* The pieces of a JSON PIECE list ({name, letter, owner}) into a board. */
static void board_of(const rules_variant *v, json_t *list, char *letters, int *owners)
{
    memset(letters, 0, RULES_MAX_CELLS);
    size_t i;
    json_t *p;
    json_array_foreach(list, i, p)
    {
        int c = rules_cell_parse(v, json_string_value(json_object_get(p, "name")));
        assert_true(c >= 0);
        letters[c] = json_string_value(json_object_get(p, "letter"))[0];
        owners[c] = (int)json_integer_value(json_object_get(p, "owner"));
    }
}

/* A room's state: the set-up (no `start`: the game began from it) and each
 * move's `changes` lead, applied in order, to the position now, for every
 * game (three players: with a player who left in the middle); each move has
 * exactly its fields. A game from another position carries `start`. */
static void test_writer_room_replay(void **state)
{
    (void)state;
    for (int vi = 0; rules_variants[vi] != NULL; vi++) {
        const rules_variant *v = rules_variants[vi];
        rules_game *g = NULL;
        assert_int_equal(rules_game_new(&g, v->id, NULL, NULL, 0), 0);
        for (int ply = 0; ply < 40 && !g->result.over; ply++) {
            if (v->nplayers == 3 && ply == 12)
                assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
            assert_int_equal(rules_game_play(g, g->legal[(ply * 7 + 3) % g->nlegal]), 0);
        }
        proto_room_view view = {.room = 5, .seq = 1, .game = g, .you = -1};
        for (int i = 0; i < v->nplayers; i++) {
            view.players[i] = (proto_player){.id = i + 1, .name = "p"};
            view.left[i] = -1;
        }
        proto_out o;
        proto_out_init(&o, 0);
        proto_write_room(&o, NULL, &view);
        json_t *r = parse_out(&o);
        char letters[RULES_MAX_CELLS];
        int owners[RULES_MAX_CELLS];
        assert_null(json_object_get(r, "start"));
        proto_out t;
        proto_out_init(&t, 0);
        proto_write_tables(&t);
        json_t *tables = parse_out(&t);
        board_of(
            v,
            json_object_get(json_array_get(json_object_get(tables, "games"), (size_t)vi), "setup"),
            letters, owners);
        json_decref(tables);
        proto_out_free(&t);
        json_t *moves = json_object_get(r, "moves");
        assert_int_equal(json_array_size(moves), g->nmoves);
        size_t i;
        json_t *m;
        json_array_foreach(moves, i, m)
        {
            assert_keys(m, "captures changes display move seat");
            size_t k;
            json_t *ch;
            json_array_foreach(json_object_get(m, "changes"), k, ch)
            {
                int c = rules_cell_parse(v, json_string_value(json_array_get(ch, 0)));
                assert_true(c >= 0);
                json_t *piece = json_array_get(ch, 1);
                if (json_is_null(piece)) {
                    assert_true(letters[c] != 0);
                    letters[c] = 0;
                } else {
                    assert_keys(piece, "letter owner");
                    letters[c] = json_string_value(json_object_get(piece, "letter"))[0];
                    owners[c] = (int)json_integer_value(json_object_get(piece, "owner"));
                }
            }
        }
        for (int c = 0; c < v->ncells; c++) {
            int owner = -1;
            char letter = v->piece_at(&g->pos, c, &owner);
            assert_int_equal(letters[c], letter);
            if (letter)
                assert_int_equal(owners[c], owner);
        }
        json_decref(r);
        proto_out_free(&o);
        rules_game_free(g);
    }

    /* The castling in a room's move list, and its captures field. */
    rules_game *g = game_of("yalta", yalta_castling, 10);
    proto_room_view view = {.room = 5, .game = g, .you = 0};
    for (int i = 0; i < 3; i++)
        view.left[i] = -1;
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_room(&o, NULL, &view);
    json_t *r = parse_out(&o);
    assert_null(json_object_get(r, "start"));
    json_t *last = json_array_get(json_object_get(r, "moves"), 9);
    assert_json_text(last, "{\"captures\":[],\"changes\":[[\"h1\",null],[\"g1\",{\"letter\":\"K\","
                           "\"owner\":0}],[\"f1\",{\"letter\":\"R\",\"owner\":0}],[\"e1\",null]],"
                           "\"display\":\"Ke1-g1\",\"move\":\"e1-g1\",\"seat\":0}");
    json_decref(r);
    proto_out_free(&o);
    rules_game_free(g);

    /* A game from another position: its room state says where it began. */
    assert_int_equal(rules_game_new(&g, "ultima", "4k3/8/8/8/8/8/8/4K3 b", NULL, 0), 0);
    view = (proto_room_view){.room = 6, .game = g, .you = -1};
    view.left[0] = view.left[1] = -1;
    proto_out_init(&o, 0);
    proto_write_room(&o, NULL, &view);
    r = parse_out(&o);
    assert_json_text(json_object_get(r, "start"),
                     "[{\"letter\":\"K\",\"name\":\"e1\",\"owner\":0},"
                     "{\"letter\":\"K\",\"name\":\"e8\",\"owner\":1}]");
    json_decref(r);
    proto_out_free(&o);
    rules_game_free(g);
}

/* xorshift: repeatable "random" mutations. */
static uint64_t fuzz_state = 0x9e3779b97f4a7c15ull;
static uint64_t fuzz_next(void)
{
    fuzz_state ^= fuzz_state << 13;
    fuzz_state ^= fuzz_state >> 7;
    fuzz_state ^= fuzz_state << 17;
    return fuzz_state;
}

/* Mutated valid messages (bytes flipped, inserted, deleted, cut) never crash
 * the decoder (ASan/UBSan watch), and every answer is 0 or a listed error;
 * random text written as a JSON string always parses back to itself. The
 * seam for a coverage-guided fuzzer of proto_decode. */
static void test_fuzz(void **state)
{
    (void)state;
    static const char *seeds[] = {
        "{\"type\":\"move\",\"id\":42,\"room\":7,\"move\":\"e2-e4\"}",
        "{\"type\":\"seek_create\",\"game\":\"ultima\",\"base_ms\":60000,\"inc_ms\":0,"
        "\"rated\":false,\"private\":true}",
        "{\"type\":\"hello\",\"token\":\"00ff\",\"name\":\"x\",\"board\":true}",
        "{\"type\":\"chat\",\"room\":1,\"text\":\"h\\u00e9\\n\"}",
    };
    char buf[512];
    for (int iter = 0; iter < 20000; iter++) {
        const char *seed = seeds[fuzz_next() % 4];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + (int)(fuzz_next() % 4);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = fuzz_next() % n;
            switch (fuzz_next() % 4) {
            case 0:
                buf[at] = (char)(fuzz_next() & 0xff);
                break;
            case 1:
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = (char)(fuzz_next() & 0xff);
                    n++;
                }
                break;
            case 2:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            default:
                n = at;
                break;
            }
        }
        proto_req req;
        bool typed;
        char why[RULES_WHY_TEXT];
        int err = proto_decode(buf, n, &req, &typed, why, sizeof why);
        assert_true(err >= 0 && err < PROTO_NERRORS);
        if (err == 0)
            assert_true(req.type < PROTO_NREQUESTS);
    }
    for (int iter = 0; iter < 2000; iter++) {
        char text[64];
        size_t n = fuzz_next() % (sizeof text - 1);
        for (size_t i = 0; i < n; i++)
            text[i] = (char)(1 + fuzz_next() % 127); /* ASCII, no NUL */
        text[n] = '\0';
        proto_out o;
        proto_out_init(&o, 0);
        proto_write_error(&o, NULL, false, PROTO_EINTERNAL, n ? text : "x");
        json_t *j = parse_out(&o);
        assert_string_equal(json_string_value(json_object_get(j, "reason")), n ? text : "x");
        json_decref(j);
        proto_out_free(&o);
    }
}

/* Found by tests/fuzz/fuzz_proto (corpus/proto/regress-invalid-utf8-reason):
 * jansson's reason quotes the frame's bytes cut inside a character ("near
 * '\"hello)\\\xc3'"); the error carrying it must still be valid UTF-8 JSON,
 * the bad bytes written as U+FFFD, and valid characters kept as they are. */
static void test_error_reason_not_utf8(void **state)
{
    (void)state;
    static const char frame[] = "{\"type\":\"hello)\\\xc3\x83\0 a\0\0,\"id\":1}";
    proto_req req;
    bool typed;
    char why[RULES_WHY_TEXT];
    int err = proto_decode(frame, sizeof frame - 1, &req, &typed, why, sizeof why);
    assert_int_equal(err, PROTO_EBAD_JSON);
    assert_non_null(strstr(why, "\xc3'"));
    proto_out o;
    proto_out_init(&o, 16);
    proto_write_error(&o, &req, typed, (proto_err)err, why);
    json_t *j = parse_out(&o);
    assert_non_null(strstr(json_string_value(json_object_get(j, "reason")), "\xef\xbf\xbd'"));
    json_decref(j);
    proto_out_free(&o);

    /* Every kind of bad sequence, between valid ones of each length. */
    proto_out_init(&o, 0);
    proto_write_http_error(&o, "x",
                           "\xc3\xa9 \xc0\xaf \xed\xa0\x80 \xe2\x82\xac \xf4\x90\x80\x80 "
                           "\xf0\x9f\x98\x80 \xff \xe2\x82");
    j = parse_out(&o);
    assert_string_equal(json_string_value(json_object_get(j, "reason")),
                        "\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                        "\xe2\x82\xac \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                        "\xf0\x9f\x98\x80 \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
    json_decref(j);
    proto_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_every_type),
        cmocka_unit_test(test_decode_fields),
        cmocka_unit_test(test_decode_corr),
        cmocka_unit_test(test_writer_corr),
        cmocka_unit_test(test_writer_chat_rooms),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_error_table),
        cmocka_unit_test(test_writer_escapes_and_ids),
        cmocka_unit_test(test_writer_room_and_events),
        cmocka_unit_test(test_writer_tables),
        cmocka_unit_test(test_writer_event_changes),
        cmocka_unit_test(test_writer_room_replay),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_error_reason_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
