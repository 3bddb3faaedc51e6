/*
 * proto.c - the JSON codec (see proto.h and PROTOCOL.md).
 */
#include "proto.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonin.h"

/* ------------------------------------------------------------------------ */
/* Tables. */

static const struct {
    const char *code, *text;
} errors[] = {{"ok", "no error"},
#define PROTO_ERR_ROW(name, code, text) {code, text},
              PROTO_ERRORS(PROTO_ERR_ROW)
#undef PROTO_ERR_ROW
};

const char *proto_err_code(proto_err e)
{
    return (unsigned)e < PROTO_NERRORS ? errors[e].code : "internal";
}

const char *proto_err_text(proto_err e)
{
    return (unsigned)e < PROTO_NERRORS ? errors[e].text : "internal error";
}

proto_err proto_err_from_code(const char *code, proto_err fallback)
{
    for (int i = 1; code != NULL && i < PROTO_NERRORS; i++)
        if (strcmp(errors[i].code, code) == 0)
            return (proto_err)i;
    return fallback;
}

proto_err proto_err_from_rules(int rerr)
{
    /* The rules core's codes are spelled like ours: match by code. */
    return proto_err_from_code(rules_err_code(rerr), PROTO_EILLEGAL);
}

const int proto_corr_days[] = {PROTO_CORR_DAYS};
const int proto_ncorr_days = (int)(sizeof proto_corr_days / sizeof proto_corr_days[0]);

bool proto_corr_days_allowed(int64_t days)
{
    for (int i = 0; i < proto_ncorr_days; i++)
        if (days == proto_corr_days[i])
            return true;
    return false;
}

/* The words clients show for each reason (welcome `reasons`). */
static const char *const reason_texts[RULES_REASON_COUNT] = {
    [RULES_REASON_NONE] = "",
    [RULES_REASON_CHECKMATE] = "checkmate",
    [RULES_REASON_STALEMATE] = "stalemate",
    [RULES_REASON_REPETITION] = "threefold repetition",
    [RULES_REASON_PLY_LIMIT] = "150 plies without capture or pawn move",
    [RULES_REASON_CENTRE] = "queen reached the centre",
    [RULES_REASON_JOURNEY] = "king completed its journey",
    [RULES_REASON_LAST_QUEEN] = "last queen standing",
    [RULES_REASON_RESIGNATION] = "resignation",
    [RULES_REASON_TIMEOUT] = "time out",
    [RULES_REASON_ABANDONMENT] = "abandonment",
    [RULES_REASON_AGREEMENT] = "draw by agreement",
    [RULES_REASON_ABORTED] = "game aborted",
};

const char *proto_reason_text(rules_reason r)
{
    /* A reason added to the rules core without words here reads as its
     * code (the unit test asks for words for every reason). */
    if ((unsigned)r >= RULES_REASON_COUNT)
        return "";
    return reason_texts[r] ? reason_texts[r] : rules_reason_name(r);
}

enum field_kind { STR, INT, BOOL, CORR, LINES };

/* Where each field lands in a proto_req. */
static const struct field {
    unsigned bit;
    const char *name;
    enum field_kind kind;
    size_t offset, size;
} fields[] = {
    {PF_TOKEN, "token", STR, offsetof(proto_req, token), sizeof(((proto_req *)0)->token)},
    {PF_NAME, "name", STR, offsetof(proto_req, name), sizeof(((proto_req *)0)->name)},
    {PF_BOARD, "board", BOOL, offsetof(proto_req, board), 0},
    {PF_GAME, "game", STR, offsetof(proto_req, game), sizeof(((proto_req *)0)->game)},
    {PF_BASE_MS, "base_ms", INT, offsetof(proto_req, base_ms), 0},
    {PF_INC_MS, "inc_ms", INT, offsetof(proto_req, inc_ms), 0},
    {PF_RATED, "rated", BOOL, offsetof(proto_req, rated), 0},
    {PF_PRIVATE, "private", BOOL, offsetof(proto_req, private_), 0},
    {PF_SEEK, "seek", INT, offsetof(proto_req, seek), 0},
    {PF_INVITE, "invite", STR, offsetof(proto_req, invite), sizeof(((proto_req *)0)->invite)},
    {PF_ROOM, "room", INT, offsetof(proto_req, room), 0},
    {PF_SINCE, "since", INT, offsetof(proto_req, since), 0},
    {PF_MOVE, "move", STR, offsetof(proto_req, move), sizeof(((proto_req *)0)->move)},
    {PF_TEXT, "text", STR, offsetof(proto_req, text), sizeof(((proto_req *)0)->text)},
    {PF_CORR, "corr", CORR, 0, 0},
    {PF_DAYS, "days", INT, offsetof(proto_req, days), 0},
    {PF_LINES, "lines", LINES, 0, 0},
    {PF_LEVEL, "level", INT, offsetof(proto_req, level), 0},
    {PF_SEAT, "seat", INT, offsetof(proto_req, seat), 0},
    {PF_RATING_MIN, "rating_min", INT, offsetof(proto_req, rating_min), 0},
    {PF_RATING_MAX, "rating_max", INT, offsetof(proto_req, rating_max), 0},
    {PF_TO, "to", STR, offsetof(proto_req, to), sizeof(((proto_req *)0)->to)},
    {PF_CHALLENGE, "challenge", INT, offsetof(proto_req, challenge), 0},
    {PF_TOURNEY, "tourney", INT, offsetof(proto_req, tourney), 0},
};
_Static_assert(sizeof fields / sizeof fields[0] == PROTO_NFIELDS, "one row per PROTO_FIELDS entry");

static const struct request {
    const char *type;
    unsigned required, optional;
} requests[] = {
#define PROTO_REQ_ROW(name, type, req, opt) {type, req, opt},
    PROTO_REQUESTS(PROTO_REQ_ROW)
#undef PROTO_REQ_ROW
};

const char *proto_type_name(proto_type t)
{
    return (unsigned)t < PROTO_NREQUESTS ? requests[t].type : "?";
}

/* ------------------------------------------------------------------------ */
/* Reading. */

static int read_field(const struct field *f, json_t *val, proto_req *req, char *why, size_t whylen)
{
    char *dst = (char *)req + f->offset;
    switch (f->kind) {
    case STR: {
        if (!json_is_string(val))
            goto wrong_type;
        size_t n = json_string_length(val);
        if (n == 0 || n >= f->size) {
            rules_why(why, whylen, "field '%s' must be 1 to %zu bytes", f->name, f->size - 1);
            return PROTO_EBAD_MESSAGE;
        }
        const char *s = json_string_value(val);
        if (memchr(s, '\0', n) != NULL) {
            rules_why(why, whylen, "field '%s' holds a NUL character", f->name);
            return PROTO_EBAD_MESSAGE;
        }
        memcpy(dst, s, n + 1);
        return 0;
    }
    case INT: {
        if (!json_is_integer(val))
            goto wrong_type;
        int64_t v = (int64_t)json_integer_value(val);
        memcpy(dst, &v, sizeof v);
        return 0;
    }
    case BOOL: {
        if (!json_is_boolean(val))
            goto wrong_type;
        bool b = json_is_true(val);
        memcpy(dst, &b, sizeof b);
        return 0;
    }
    case CORR: {
        /* {"days":D,"inc_days"?:I,"cap_days"?:C}: integers, range checked
         * by the store (bad_time_control). */
        if (!json_is_object(val))
            goto wrong_type;
        static const char *const names[] = {"days", "inc_days", "cap_days"};
        int64_t *dsts[] = {&req->corr_days, &req->corr_inc_days, &req->corr_cap_days};
        for (int i = 0; i < 3; i++) {
            json_t *v = json_object_get(val, names[i]);
            if (v == NULL && i > 0)
                continue;
            if (v == NULL || !json_is_integer(v)) {
                rules_why(why, whylen, "corr.%s must be an integer", names[i]);
                return PROTO_EBAD_MESSAGE;
            }
            *dsts[i] = (int64_t)json_integer_value(v);
        }
        return 0;
    }
    case LINES: {
        if (!json_is_array(val))
            goto wrong_type;
        size_t n = json_array_size(val);
        if (n > PROTO_COND_LINES) {
            rules_why(why, whylen, "at most %d conditional lines", PROTO_COND_LINES);
            return PROTO_EBAD_MESSAGE;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *l = json_array_get(val, i);
            size_t k = json_is_string(l) ? json_string_length(l) : 0;
            if (k == 0 || k > PROTO_COND_LINE_MAX ||
                memchr(json_string_value(l), '\0', k) != NULL) {
                rules_why(why, whylen, "each line is a string of 1 to %d bytes",
                          PROTO_COND_LINE_MAX);
                return PROTO_EBAD_MESSAGE;
            }
            memcpy(req->lines[i], json_string_value(l), k + 1);
        }
        req->nlines = (int)n;
        return 0;
    }
    }
wrong_type:
    rules_why(why, whylen, "field '%s' must be %s", f->name,
              f->kind == STR     ? "a string"
              : f->kind == INT   ? "an integer"
              : f->kind == CORR  ? "an object"
              : f->kind == LINES ? "an array of strings"
                                 : "a boolean");
    return PROTO_EBAD_MESSAGE;
}

int proto_decode(const char *buf, size_t len, proto_req *req, bool *typed, char *why, size_t whylen)
{
    memset(req, 0, sizeof *req);
    req->board = true;
    *typed = false;
    if (len > PROTO_MAX_MESSAGE) {
        rules_why(why, whylen, "message of %zu bytes, the limit is %d", len, PROTO_MAX_MESSAGE);
        return PROTO_ETOO_LARGE;
    }
    json_error_t jerr;
    json_t *root = jsonin_load(buf, len, &jerr);
    if (root == NULL || !json_is_object(root)) {
        if (root != NULL || !jsonin_duplicate(&jerr, why, whylen))
            rules_why(why, whylen, "not a JSON object%s%s", root ? "" : ": ",
                      root ? "" : jerr.text);
        json_decref(root);
        return PROTO_EBAD_JSON;
    }
    int err = 0;
    json_t *id = json_object_get(root, "id");
    if (id != NULL) {
        if (!json_is_integer(id)) {
            rules_why(why, whylen, "field 'id' must be an integer");
            err = PROTO_EBAD_MESSAGE;
            goto out_decref;
        }
        req->has_id = true;
        req->id = (int64_t)json_integer_value(id);
    }
    const char *type = json_string_value(json_object_get(root, "type"));
    if (type == NULL) {
        rules_why(why, whylen, "field 'type' (a string) is required");
        err = PROTO_EBAD_MESSAGE;
        goto out_decref;
    }
    int t = 0;
    while (t < PROTO_NREQUESTS && strcmp(requests[t].type, type) != 0)
        t++;
    if (t == PROTO_NREQUESTS) {
        rules_why(why, whylen, "unknown message type '%.40s'", type);
        err = PROTO_EUNKNOWN_TYPE;
        goto out_decref;
    }
    req->type = (proto_type)t;
    *typed = true;
    const struct request *r = &requests[t];
    for (int i = 0; i < PROTO_NFIELDS; i++) {
        const struct field *f = &fields[i];
        if (!((r->required | r->optional) & f->bit))
            continue;
        json_t *val = json_object_get(root, f->name);
        if (val == NULL || json_is_null(val)) {
            if (r->required & f->bit) {
                rules_why(why, whylen, "%s needs field '%s'", r->type, f->name);
                err = PROTO_EBAD_MESSAGE;
                goto out_decref;
            }
            continue;
        }
        err = read_field(f, val, req, why, whylen);
        if (err)
            goto out_decref;
        req->present |= f->bit;
    }
out_decref:
    json_decref(root);
    return err;
}

/* ------------------------------------------------------------------------ */
/* The writer. Every message starts with {"type":... so each further field
 * is written with its leading comma. */

static void put(proto_out *o, const char *s, size_t n)
{
    proto_out_append(o, s, n);
}

static void puts_(proto_out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void put_int(proto_out *o, int64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    put(o, b, (size_t)n);
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 if the bytes
 * there are not one (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0)
        return 0;
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* A JSON string: quotes, escapes for '"', '\\' and control characters.
 * Bytes that are not UTF-8 become U+FFFD: a reason may quote the client's
 * bytes (jansson's "near '...'") or be cut inside a character, and a
 * browser fails a WebSocket whose text frame is not valid UTF-8. */
static void put_str(proto_out *o, const char *s)
{
    if (!proto_out_grow(o, strlen(s) + 2))
        return;
    put(o, "\"", 1);
    const char *run = s;
    while (*s) {
        unsigned char c = (unsigned char)*s;
        size_t n = utf8_seq((const unsigned char *)s);
        if (n > 1 || (n == 1 && c >= 0x20 && c != '"' && c != '\\')) {
            s += n;
            continue;
        }
        put(o, run, (size_t)(s - run));
        char esc[8];
        if (n == 0)
            snprintf(esc, sizeof esc, "\\ufffd");
        else if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        puts_(o, esc);
        run = ++s;
    }
    put(o, run, (size_t)(s - run));
    put(o, "\"", 1);
}

/* ,"key": */
static void key(proto_out *o, const char *k)
{
    put(o, ",\"", 2);
    puts_(o, k);
    put(o, "\":", 2);
}

static void begin(proto_out *o, const char *type, const proto_req *req)
{
    puts_(o, "{\"type\":");
    put_str(o, type);
    if (req != NULL && req->has_id) {
        key(o, "re");
        put_int(o, req->id);
    }
}

static void end(proto_out *o)
{
    put(o, "}", 1);
}

/* The comma before an array element that is not the first. */
static void comma(proto_out *o, bool needed)
{
    if (needed)
        put(o, ",", 1);
}

static void put_bool(proto_out *o, bool b)
{
    puts_(o, b ? "true" : "false");
}

static void put_player(proto_out *o, const proto_player *p)
{
    puts_(o, "{\"id\":");
    put_int(o, p->id);
    key(o, "name");
    put_str(o, p->name ? p->name : "");
    if (p->bot > 0) {
        key(o, "bot");
        put_bool(o, true);
        key(o, "level");
        put_int(o, p->bot);
    }
    if (p->account) {
        key(o, "account");
        put_bool(o, true);
    }
    if (p->rating > 0) {
        key(o, "rating");
        put_int(o, p->rating);
        key(o, "provisional");
        put_bool(o, p->provisional);
    }
    if (p->has_diff) {
        key(o, "rating_diff");
        put_int(o, p->rating_diff);
    }
    end(o);
}

static void put_seats_mask(proto_out *o, unsigned mask, int nseats)
{
    put(o, "[", 1);
    bool first = true;
    for (int i = 0; i < nseats; i++) {
        if (!(mask & (1u << i)))
            continue;
        comma(o, !first);
        first = false;
        put_int(o, i);
    }
    put(o, "]", 1);
}

static const char *outcome_name(int outcome)
{
    switch (outcome) {
    case RULES_OUTCOME_WIN:
        return "win";
    case RULES_OUTCOME_LOSS:
        return "loss";
    case RULES_OUTCOME_DRAW:
        return "draw";
    default:
        return NULL;
    }
}

static void put_result(proto_out *o, const rules_game *g)
{
    if (!g->result.over) {
        puts_(o, "null");
        return;
    }
    puts_(o, "{\"winner\":");
    put_int(o, g->result.winner);
    key(o, "reason");
    put_str(o, rules_reason_name(g->result.reason));
    key(o, "outcomes");
    put(o, "[", 1);
    for (int i = 0; i < g->variant->nplayers; i++) {
        comma(o, i);
        const char *name = outcome_name(g->result.outcome[i]);
        if (name)
            put_str(o, name);
        else
            puts_(o, "null");
    }
    put(o, "]", 1);
    end(o);
}

static void put_clocks(proto_out *o, const int64_t *clocks, int n)
{
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        put_int(o, clocks[i] < 0 ? 0 : clocks[i]);
    }
    put(o, "]", 1);
}

static void put_cells(proto_out *o, const rules_variant *v, const int *cells, int n)
{
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        put_str(o, rules_cell_name(v, cells[i]));
    }
    put(o, "]", 1);
}

int proto_pos_changes(const rules_variant *v, const rules_pos *a, const rules_pos *b,
                      proto_cell_change *out)
{
    int n = 0;
    for (int c = 0; c < v->ncells; c++) {
        int oa = -1, ob = -1;
        char la = v->piece_at(a, c, &oa), lb = v->piece_at(b, c, &ob);
        if (la == lb && (la == 0 || oa == ob))
            continue;
        out[n++] = (proto_cell_change){c, lb, lb ? ob : -1};
    }
    return n;
}

/* {"letter":"K","owner":0} */
static void put_piece(proto_out *o, char letter, int owner)
{
    char l[2] = {letter, 0};
    puts_(o, "{\"letter\":");
    put_str(o, l);
    key(o, "owner");
    put_int(o, owner);
    end(o);
}

/* [["e1",null],["g1",{"letter":"K","owner":0}],...] */
static void put_changes(proto_out *o, const rules_variant *v, const proto_cell_change *ch, int n)
{
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        put(o, "[", 1);
        put_str(o, rules_cell_name(v, ch[i].cell));
        put(o, ",", 1);
        if (ch[i].letter)
            put_piece(o, ch[i].letter, ch[i].owner);
        else
            puts_(o, "null");
        put(o, "]", 1);
    }
    put(o, "]", 1);
}

/* [{"name":"a1","letter":"I","owner":0},...]: the pieces of p, cell order. */
static void put_setup(proto_out *o, const rules_variant *v, const rules_pos *p)
{
    put(o, "[", 1);
    bool first = true;
    for (int c = 0; c < v->ncells; c++) {
        int owner = -1;
        char letter = v->piece_at(p, c, &owner);
        if (letter == 0)
            continue;
        comma(o, !first);
        first = false;
        char l[2] = {letter, 0};
        puts_(o, "{\"name\":");
        put_str(o, rules_cell_name(v, c));
        key(o, "letter");
        put_str(o, l);
        key(o, "owner");
        put_int(o, owner);
        end(o);
    }
    put(o, "]", 1);
}

/* ,"position":..,"pieces":[..],"check":[..],"legal":[..] */
static void put_board(proto_out *o, const rules_game *g)
{
    const rules_variant *v = g->variant;
    const rules_pos *p = &g->pos;
    char text[RULES_POS_TEXT];
    if (v->print_position(p, text, sizeof text) < 0)
        text[0] = '\0';
    key(o, "position");
    put_str(o, text);

    int check[RULES_MAX_CELLS], ncheck = 0;
    key(o, "pieces");
    put(o, "[", 1);
    bool first = true;
    for (int c = 0; c < v->ncells; c++) {
        int owner = -1;
        char letter = v->piece_at(p, c, &owner);
        if (letter == 0)
            continue;
        unsigned flags = v->cell_flags ? v->cell_flags(p, c) : 0;
        if (flags & RULES_CELL_CHECK)
            check[ncheck++] = c;
        comma(o, !first);
        first = false;
        puts_(o, "{\"cell\":");
        put_int(o, c);
        key(o, "name");
        put_str(o, rules_cell_name(v, c));
        key(o, "letter");
        char l[2] = {letter, 0};
        put_str(o, l);
        key(o, "owner");
        put_int(o, owner);
        key(o, "flags");
        put(o, "[", 1);
        const char *sep = "";
        if (flags & RULES_CELL_FROZEN) {
            puts_(o, "\"frozen\"");
            sep = ",";
        }
        if (flags & RULES_CELL_INERT) {
            puts_(o, sep);
            puts_(o, "\"inert\"");
            sep = ",";
        }
        if (flags & RULES_CELL_CHECK) {
            puts_(o, sep);
            puts_(o, "\"check\"");
        }
        put(o, "]}", 2);
    }
    put(o, "]", 1);
    key(o, "check");
    put_cells(o, v, check, ncheck);

    key(o, "legal");
    put(o, "[", 1);
    for (int i = 0; i < g->nlegal; i++) {
        char mv[RULES_MOVE_TEXT];
        if (v->print_move(p, g->legal[i], mv, sizeof mv) < 0)
            continue;
        comma(o, i);
        put_str(o, mv);
    }
    put(o, "]", 1);
}

/* ------------------------------------------------------------------------ */
/* Messages. */

void proto_write_error(proto_out *o, const proto_req *req, bool typed, proto_err e,
                       const char *reason)
{
    begin(o, "error", req);
    key(o, "code");
    put_str(o, proto_err_code(e));
    key(o, "reason");
    put_str(o, reason && *reason ? reason : proto_err_text(e));
    if (typed && req != NULL) {
        key(o, "request");
        put_str(o, proto_type_name(req->type));
    }
    end(o);
}

/* ,"games":[...]: each game with its names and cells (and its set-up). */
static void put_games(proto_out *o, bool with_setup)
{
    key(o, "games");
    put(o, "[", 1);
    for (int i = 0; rules_variants[i] != NULL; i++) {
        const rules_variant *v = rules_variants[i];
        comma(o, i);
        puts_(o, "{\"id\":");
        put_str(o, v->id);
        key(o, "name");
        put_str(o, v->name);
        key(o, "players");
        put_int(o, v->nplayers);
        key(o, "colors");
        put(o, "[", 1);
        for (int p = 0; p < v->nplayers; p++) {
            comma(o, p);
            put_str(o, v->player_names[p]);
        }
        put(o, "]", 1);
        key(o, "cells");
        put(o, "[", 1);
        for (int c = 0; c < v->ncells; c++) {
            comma(o, c);
            put_str(o, rules_cell_name(v, c));
        }
        put(o, "]", 1);
        if (with_setup) {
            rules_pos setup;
            rules_pos_init(&setup, v);
            key(o, "setup");
            put_setup(o, v, &setup);
        }
        end(o);
    }
    put(o, "]", 1);
}

void proto_write_tables(proto_out *o)
{
    put(o, "{", 1);
    /* key() writes a leading comma: the first field goes without it. */
    puts_(o, "\"protocol\":");
    put_int(o, PROTO_VERSION);
    put_games(o, true);
    key(o, "corr_days");
    put(o, "[", 1);
    for (int i = 0; i < proto_ncorr_days; i++) {
        comma(o, i);
        put_int(o, proto_corr_days[i]);
    }
    put(o, "]", 1);
    key(o, "reasons");
    put(o, "{", 1);
    for (int r = RULES_REASON_NONE + 1; r < RULES_REASON_COUNT; r++) {
        comma(o, r > RULES_REASON_NONE + 1);
        put_str(o, rules_reason_name((rules_reason)r));
        put(o, ":", 1);
        put_str(o, proto_reason_text((rules_reason)r));
    }
    put(o, "}", 1);
    end(o);
}

void proto_write_welcome(proto_out *o, const proto_req *req, const char *token,
                         const proto_player *me, const char *account, const int64_t *rooms,
                         int nrooms, bool push)
{
    begin(o, "welcome", req);
    key(o, "token");
    put_str(o, token);
    key(o, "player");
    put_player(o, me);
    key(o, "account");
    if (account)
        put_str(o, account);
    else
        puts_(o, "null");
    key(o, "protocol");
    put_int(o, PROTO_VERSION);
    key(o, "push");
    puts_(o, push ? "true" : "false");
    put_games(o, false);
    key(o, "rooms");
    put(o, "[", 1);
    for (int i = 0; i < nrooms; i++) {
        comma(o, i);
        put_int(o, rooms[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_pong(proto_out *o, const proto_req *req)
{
    begin(o, "pong", req);
    end(o);
}

/* ,"corr":null or ,"corr":{"days":..,"inc_days":..,"cap_days":..} */
static void put_corr(proto_out *o, const proto_corr *c)
{
    key(o, "corr");
    if (c->days <= 0) {
        puts_(o, "null");
        return;
    }
    puts_(o, "{\"days\":");
    put_int(o, c->days);
    key(o, "inc_days");
    put_int(o, c->inc_days);
    key(o, "cap_days");
    put_int(o, c->cap_days);
    end(o);
}

/* ,"deadlines":[..],"now_ms":.. (0 deadlines are null) */
static void put_deadlines(proto_out *o, const int64_t *deadlines, int n, int64_t now_ms)
{
    key(o, "deadlines");
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        if (deadlines[i] > 0)
            put_int(o, deadlines[i]);
        else
            puts_(o, "null");
    }
    put(o, "]", 1);
    key(o, "now_ms");
    put_int(o, now_ms);
}

static void put_seek(proto_out *o, const proto_seek_view *s)
{
    puts_(o, "{\"id\":");
    put_int(o, s->id);
    key(o, "game");
    put_str(o, s->game);
    key(o, "base_ms");
    put_int(o, s->base_ms);
    key(o, "inc_ms");
    put_int(o, s->inc_ms);
    key(o, "rated");
    put_bool(o, s->rated);
    key(o, "private");
    put_bool(o, s->private_);
    key(o, "seats");
    put_int(o, s->seats);
    key(o, "players");
    put(o, "[", 1);
    for (int i = 0; i < s->nplayers; i++) {
        comma(o, i);
        put_player(o, &s->players[i]);
    }
    put(o, "]", 1);
    put_corr(o, &s->corr);
    if (s->rating_max > 0) {
        key(o, "rating_range");
        put(o, "[", 1);
        put_int(o, s->rating_min);
        put(o, ",", 1);
        put_int(o, s->rating_max);
        put(o, "]", 1);
    }
    end(o);
}

void proto_write_lobby(proto_out *o, const proto_req *req, uint64_t seq,
                       const proto_seek_view *seeks, int nseeks)
{
    begin(o, "lobby", req);
    key(o, "seq");
    put_int(o, (int64_t)seq);
    key(o, "seeks");
    put(o, "[", 1);
    for (int i = 0; i < nseeks; i++) {
        comma(o, i);
        put_seek(o, &seeks[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_lobby_update(proto_out *o, uint64_t seq, const proto_lobby_change *ch, int n)
{
    begin(o, "lobby_update", NULL);
    key(o, "seq");
    put_int(o, (int64_t)seq);
    key(o, "changes");
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        puts_(o, "{\"op\":");
        put_str(o, ch[i].op);
        key(o, "seek");
        if (ch[i].seek != NULL) {
            put_seek(o, ch[i].seek);
        } else {
            puts_(o, "{\"id\":");
            put_int(o, ch[i].id);
            end(o);
        }
        end(o);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_seek(proto_out *o, const proto_req *req, const char *kind,
                      const proto_seek_view *s, const char *invite)
{
    begin(o, kind, req);
    key(o, "seek");
    put_seek(o, s);
    if (invite != NULL) {
        key(o, "invite");
        put_str(o, invite);
    }
    end(o);
}

static void put_live_game(proto_out *o, const proto_live_game *g)
{
    puts_(o, "{\"room\":");
    put_int(o, g->room);
    key(o, "game");
    put_str(o, g->game);
    key(o, "base_ms");
    put_int(o, g->base_ms);
    key(o, "inc_ms");
    put_int(o, g->inc_ms);
    key(o, "rated");
    put_bool(o, g->rated);
    put_corr(o, &g->corr);
    key(o, "players");
    put(o, "[", 1);
    for (int i = 0; i < g->nplayers; i++) {
        comma(o, i);
        put_player(o, &g->players[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_put_live_game(proto_out *o, const proto_live_game *g)
{
    put_live_game(o, g);
}

/* lobby_life up to the opening of its games' array. */
static void begin_lobby_life(proto_out *o, int64_t online, int64_t playing)
{
    begin(o, "lobby_life", NULL);
    key(o, "online");
    put_int(o, online);
    key(o, "playing");
    put_int(o, playing);
    key(o, "games");
    put(o, "[", 1);
}

void proto_write_lobby_life_json(proto_out *o, int64_t online, int64_t playing,
                                 const char *const *games, const size_t *lens, int n)
{
    begin_lobby_life(o, online, playing);
    int written = 0;
    for (int i = 0; i < n; i++) {
        /* Another node wrote it: only a whole JSON object goes in. */
        json_t *v = json_loadb(games[i], lens[i], 0, NULL);
        bool object = json_is_object(v);
        json_decref(v);
        if (!object)
            continue;
        comma(o, written++);
        put(o, games[i], lens[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_lobby_life(proto_out *o, int64_t online, int64_t playing,
                            const proto_live_game *games, int n)
{
    begin_lobby_life(o, online, playing);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        put_live_game(o, &games[i]);
    }
    put(o, "]", 1);
    end(o);
}

static void put_challenge(proto_out *o, const proto_challenge_view *c)
{
    puts_(o, "{\"id\":");
    put_int(o, c->id);
    key(o, "game");
    put_str(o, c->game);
    key(o, "base_ms");
    put_int(o, c->base_ms);
    key(o, "inc_ms");
    put_int(o, c->inc_ms);
    key(o, "rated");
    put_bool(o, c->rated);
    put_corr(o, &c->corr);
    key(o, "from");
    put_player(o, &c->from);
    key(o, "to");
    put_str(o, c->to);
    end(o);
}

void proto_write_challenge(proto_out *o, const proto_req *req, const char *op,
                           const proto_challenge_view *c, const char *reason)
{
    begin(o, "challenge", req);
    key(o, "op");
    put_str(o, op);
    key(o, "challenge");
    put_challenge(o, c);
    if (reason != NULL) {
        key(o, "reason");
        put_str(o, reason);
    }
    end(o);
}

void proto_write_challenges(proto_out *o, const proto_req *req, const proto_challenge_view *c,
                            int n)
{
    begin(o, "challenges", req);
    key(o, "challenges");
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        put_challenge(o, &c[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_seek_cancelled(proto_out *o, const proto_req *req, int64_t seek)
{
    begin(o, "seek_cancelled", req);
    key(o, "seek");
    put_int(o, seek);
    end(o);
}

void proto_write_game_started(proto_out *o, const proto_req *req, int64_t room, int seat,
                              const char *game)
{
    begin(o, "game_started", req);
    key(o, "room");
    put_int(o, room);
    key(o, "seat");
    put_int(o, seat);
    key(o, "game");
    put_str(o, game);
    end(o);
}

/* The fields of a room view that both `room` and `catchup` carry. */
static void put_room_now(proto_out *o, const proto_room_view *v)
{
    const rules_game *g = v->game;
    int n = g->variant->nplayers;
    key(o, "clocks");
    put_clocks(o, v->clocks, n);
    key(o, "clock_running");
    put_bool(o, v->clock_running);
    key(o, "to_move");
    put_int(o, rules_game_to_move(g));
    key(o, "result");
    put_result(o, g);
    key(o, "status");
    put_str(o, g->result.over ? "over" : "playing");
    put_board(o, g);
    key(o, "draw_offers");
    put_seats_mask(o, v->draw_offers, n);
    key(o, "rematch_offers");
    put_seats_mask(o, v->rematch_offers, n);
    key(o, "takeback_offers");
    put_seats_mask(o, v->takeback_offers, n);
    if (v->corr.days > 0)
        put_deadlines(o, v->deadlines, n, v->now_ms);
}

/* rules_game_walk's visit for a room's move list: each move's text,
 * display, seat, captures and changes; the captures of the last move are
 * kept for `last_captures`. */
struct room_moves {
    proto_out *o;
    const rules_game *g;
    int last_captures[RULES_MAX_CELLS], nlast;
};

static int put_room_move(void *arg, const rules_walk_step *s)
{
    struct room_moves *rm = arg;
    if (s->m == 0)
        return 0; /* a leave changes no cell */
    proto_out *o = rm->o;
    const rules_variant *var = rm->g->variant;
    char mv[RULES_MOVE_TEXT], disp[RULES_MOVE_TEXT];
    if (var->print_move(s->before, s->m, mv, sizeof mv) < 0)
        mv[0] = '\0';
    if (rules_display_move(s->before, s->m, disp, sizeof disp) < 0)
        disp[0] = '\0';
    int caps[RULES_MAX_CELLS];
    int ncaps = rules_move_captures(s->before, s->m, caps);
    if (s->k + 1 == rm->g->nmoves) {
        memcpy(rm->last_captures, caps, (size_t)ncaps * sizeof caps[0]);
        rm->nlast = ncaps;
    }
    proto_cell_change ch[RULES_MAX_CELLS];
    int nch = proto_pos_changes(var, s->before, s->after, ch);
    comma(o, s->k);
    puts_(o, "{\"move\":");
    put_str(o, mv);
    key(o, "display");
    put_str(o, disp);
    key(o, "seat");
    put_int(o, s->before->to_move);
    key(o, "captures");
    put_cells(o, var, caps, ncaps);
    key(o, "changes");
    put_changes(o, var, ch, nch);
    end(o);
    return 0;
}

void proto_write_room(proto_out *o, const proto_req *req, const proto_room_view *v)
{
    const rules_game *g = v->game;
    const rules_variant *var = g->variant;
    int n = var->nplayers;
    begin(o, "room", req);
    key(o, "room");
    put_int(o, v->room);
    key(o, "seq");
    put_int(o, (int64_t)v->seq);
    key(o, "game");
    put_str(o, var->id);
    key(o, "game_name");
    put_str(o, var->name);
    key(o, "rated");
    put_bool(o, v->rated);
    key(o, "base_ms");
    put_int(o, v->base_ms);
    key(o, "inc_ms");
    put_int(o, v->inc_ms);
    put_corr(o, &v->corr);
    key(o, "spectators");
    put_int(o, v->spectators);
    if (v->tourney_id > 0) {
        key(o, "tournament");
        puts_(o, "{\"id\":");
        put_int(o, v->tourney_id);
        key(o, "name");
        put_str(o, v->tourney_name != NULL ? v->tourney_name : "");
        end(o);
    }
    key(o, "seats");
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        comma(o, i);
        puts_(o, "{\"seat\":");
        put_int(o, i);
        key(o, "color");
        put_str(o, var->player_names[i]);
        key(o, "player");
        put_player(o, &v->players[i]);
        key(o, "connected");
        put_bool(o, v->connected[i]);
        if (v->vacation[i] > 0) {
            key(o, "vacation");
            put_int(o, v->vacation[i]);
        }
        key(o, "left");
        if (v->left[i] >= 0)
            put_str(o, rules_reason_name((rules_reason)v->left[i]));
        else
            puts_(o, "null");
        end(o);
    }
    put(o, "]", 1);
    key(o, "you");
    put_int(o, v->you);

    /* The moves, walked from the start to name them and to say what each
     * changed. */
    /* The pieces before the first move, unless they are the game's set-up
     * (GET /api/tables has it): every seat gets a room state as its game
     * starts, and most games start from the set-up. */
    rules_pos setup;
    rules_pos_init(&setup, var);
    if (setup.hash != g->start.hash || setup.to_move != g->start.to_move) {
        key(o, "start");
        put_setup(o, var, &g->start);
    }
    key(o, "moves");
    put(o, "[", 1);
    struct room_moves rm = {.o = o, .g = g};
    rules_game_walk(g, g->nmoves, put_room_move, &rm);
    put(o, "]", 1);
    key(o, "last_captures");
    put_cells(o, var, rm.last_captures, rm.nlast);
    put_room_now(o, v);
    key(o, "chat");
    put(o, "[", 1);
    for (int i = 0; i < v->nchat; i++) {
        comma(o, i);
        puts_(o, "{\"seat\":");
        put_int(o, v->chat[i].seat);
        key(o, "name");
        put_str(o, v->chat[i].name);
        key(o, "text");
        put_str(o, v->chat[i].text);
        key(o, "channel");
        put_str(o, v->chat[i].spectators ? "spectators" : "players");
        end(o);
    }
    put(o, "]", 1);
    end(o);
}

static void begin_event(proto_out *o, int64_t room, uint64_t seq, const char *kind)
{
    begin(o, "event", NULL);
    key(o, "room");
    put_int(o, room);
    key(o, "seq");
    put_int(o, (int64_t)seq);
    key(o, "kind");
    put_str(o, kind);
}

static void put_turn(proto_out *o, const rules_game *g, const int64_t *clocks, bool clock_running)
{
    key(o, "clocks");
    put_clocks(o, clocks, g->variant->nplayers);
    key(o, "clock_running");
    put_bool(o, clock_running);
    key(o, "to_move");
    put_int(o, rules_game_to_move(g));
    key(o, "result");
    put_result(o, g);
}

void proto_write_event_move(proto_out *o, int64_t room, uint64_t seq, const proto_move_view *m,
                            const rules_game *g, const int64_t *clocks, bool clock_running)
{
    begin_event(o, room, seq, "move");
    key(o, "ply");
    put_int(o, m->ply);
    key(o, "seat");
    put_int(o, m->seat);
    key(o, "move");
    put_str(o, m->move);
    key(o, "display");
    put_str(o, m->display);
    key(o, "captures");
    put_cells(o, g->variant, m->captures, m->ncaptures);
    /* What the move changed: the position before it against now. */
    proto_cell_change ch[RULES_MAX_CELLS];
    int nch = proto_pos_changes(g->variant, m->before, &g->pos, ch);
    key(o, "changes");
    put_changes(o, g->variant, ch, nch);
    put_turn(o, g, clocks, clock_running);
    end(o);
}

void proto_write_event_left(proto_out *o, int64_t room, uint64_t seq, int seat, int reason,
                            const rules_game *g, const int64_t *clocks, bool clock_running)
{
    begin_event(o, room, seq, "left");
    key(o, "seat");
    put_int(o, seat);
    key(o, "reason");
    put_str(o, rules_reason_name((rules_reason)reason));
    put_turn(o, g, clocks, clock_running);
    end(o);
}

void proto_write_event_end(proto_out *o, int64_t room, uint64_t seq, const rules_game *g,
                           const int64_t *clocks)
{
    begin_event(o, room, seq, "end");
    key(o, "result");
    put_result(o, g);
    key(o, "clocks");
    put_clocks(o, clocks, g->variant->nplayers);
    end(o);
}

void proto_write_event_offer(proto_out *o, int64_t room, uint64_t seq, const char *kind, int seat,
                             unsigned offers, int nseats)
{
    begin_event(o, room, seq, kind);
    key(o, "seat");
    put_int(o, seat);
    size_t kl = strlen(kind);
    if (kl < 9 || strcmp(kind + kl - 9, "_declined") != 0) { /* a decline has no offers */
        key(o, "offers");
        put_seats_mask(o, offers, nseats);
    }
    end(o);
}

void proto_write_event_takeback(proto_out *o, int64_t room, uint64_t seq, int ply, int removed,
                                const rules_game *g, const int64_t *clocks, bool clock_running)
{
    begin_event(o, room, seq, "takeback");
    key(o, "ply");
    put_int(o, ply);
    key(o, "removed");
    put_int(o, removed);
    put_turn(o, g, clocks, clock_running);
    end(o);
}

void proto_write_event_rematch(proto_out *o, int64_t room, uint64_t seq, int64_t next_room)
{
    begin_event(o, room, seq, "rematch");
    key(o, "next_room");
    put_int(o, next_room);
    end(o);
}

void proto_write_event_presence(proto_out *o, int64_t room, uint64_t seq, int seat, bool connected)
{
    begin_event(o, room, seq, "presence");
    key(o, "seat");
    put_int(o, seat);
    key(o, "connected");
    put_bool(o, connected);
    end(o);
}

void proto_write_event_chat(proto_out *o, int64_t room, uint64_t seq, const proto_chat_line *line)
{
    begin_event(o, room, seq, "chat");
    key(o, "seat");
    put_int(o, line->seat);
    key(o, "name");
    put_str(o, line->name);
    key(o, "text");
    put_str(o, line->text);
    key(o, "channel");
    put_str(o, line->spectators ? "spectators" : "players");
    end(o);
}

void proto_write_event_ratings(proto_out *o, int64_t room, uint64_t seq,
                               const proto_player *players, int n)
{
    begin_event(o, room, seq, "ratings");
    key(o, "players");
    put(o, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i > 0)
            put(o, ",", 1);
        put_player(o, &players[i]);
    }
    put(o, "]", 1);
    end(o);
}

void proto_write_event_skip(proto_out *o, int64_t room, uint64_t seq)
{
    begin_event(o, room, seq, "skip");
    end(o);
}

void proto_write_event_vacation(proto_out *o, int64_t room, uint64_t seq, int seat,
                                int64_t until_ms, const int64_t *deadlines, int nseats,
                                int64_t now_ms)
{
    begin_event(o, room, seq, "vacation");
    key(o, "seat");
    put_int(o, seat);
    key(o, "until");
    if (until_ms > 0)
        put_int(o, until_ms);
    else
        puts_(o, "null");
    end(o);
    proto_event_add_corr(o, deadlines, nseats, now_ms);
}

void proto_event_add_board(proto_out *o, const char *lean, size_t len, const rules_game *g)
{
    put(o, lean, len - 1); /* without the closing brace */
    put_board(o, g);
    end(o);
}

void proto_event_add_corr(proto_out *o, const int64_t *deadlines, int nseats, int64_t now_ms)
{
    if (o->oom || o->len == 0)
        return;
    o->len--; /* reopen the object: drop its closing brace */
    put_deadlines(o, deadlines, nseats, now_ms);
    end(o);
}

void proto_write_turns(proto_out *o, const proto_req *req, const char *games_json)
{
    begin(o, "turns", req);
    key(o, "games");
    puts_(o, games_json);
    end(o);
}

void proto_write_vacation(proto_out *o, const proto_req *req, int64_t until_ms, int days_left)
{
    begin(o, "vacation", req);
    key(o, "on");
    put_bool(o, until_ms > 0);
    key(o, "until_ms");
    put_int(o, until_ms);
    key(o, "days_left");
    put_int(o, days_left);
    end(o);
}

void proto_write_cond(proto_out *o, const proto_req *req, int64_t room, const char *lines_json)
{
    begin(o, "cond", req);
    key(o, "room");
    put_int(o, room);
    key(o, "lines");
    puts_(o, lines_json);
    end(o);
}

void proto_write_catchup(proto_out *o, const proto_req *req, const proto_room_view *v,
                         const char *const *events, const size_t *lens, int nevents)
{
    begin(o, "catchup", req);
    key(o, "room");
    put_int(o, v->room);
    key(o, "seq");
    put_int(o, (int64_t)v->seq);
    key(o, "events");
    put(o, "[", 1);
    for (int i = 0; i < nevents; i++) {
        comma(o, i);
        put(o, events[i], lens[i]);
    }
    put(o, "]", 1);
    key(o, "you");
    put_int(o, v->you);
    put_room_now(o, v);
    end(o);
}

void proto_write_health(proto_out *o, int64_t uptime_s, int64_t connections, int64_t rooms)
{
    puts_(o, "{\"status\":\"ok\"");
    key(o, "uptime_s");
    put_int(o, uptime_s);
    key(o, "connections");
    put_int(o, connections);
    key(o, "rooms");
    put_int(o, rooms);
    end(o);
}

void proto_write_unhealthy(proto_out *o, int64_t uptime_s, const char *storage)
{
    puts_(o, "{\"status\":\"unavailable\"");
    key(o, "storage");
    put_str(o, storage);
    key(o, "uptime_s");
    put_int(o, uptime_s);
    end(o);
}

int proto_decode_credentials(const char *buf, size_t len, char *user, size_t ulen, char *pass,
                             size_t plen, char *code, size_t clen, char *why, size_t whylen)
{
    json_error_t jerr;
    json_t *root = jsonin_load(buf, len, &jerr);
    if (root == NULL || !json_is_object(root)) {
        if (root != NULL || !jsonin_duplicate(&jerr, why, whylen))
            rules_why(why, whylen, "the body must be a JSON object");
        json_decref(root);
        return PROTO_EBAD_JSON;
    }
    const char *u = json_string_value(json_object_get(root, "username"));
    const char *p = json_string_value(json_object_get(root, "password"));
    json_t *cj = json_object_get(root, "code");
    const char *c = json_string_value(cj);
    int err = 0;
    if (u == NULL || p == NULL || strlen(u) >= ulen || strlen(p) >= plen) {
        rules_why(why, whylen, "'username' and 'password' (strings) are required");
        err = PROTO_EBAD_MESSAGE;
    } else if (cj != NULL && (c == NULL || strlen(c) >= clen)) {
        rules_why(why, whylen,
                  "'code' is a short string: the authenticator app's or a recovery code");
        err = PROTO_EBAD_MESSAGE;
    } else {
        snprintf(user, ulen, "%s", u);
        snprintf(pass, plen, "%s", p);
        if (clen > 0)
            snprintf(code, clen, "%s", c ? c : "");
    }
    json_decref(root);
    return err;
}

int proto_decode_login_end(const char *buf, size_t len, char id[PROTO_LOGIN_ID_HEX + 1],
                           bool *others, char *why, size_t whylen)
{
    json_t *root = jsonin_object(buf, len, why, whylen);
    if (root == NULL)
        return PROTO_EBAD_JSON;
    json_t *i = json_object_get(root, "id"), *o = json_object_get(root, "others");
    const char *hex = json_string_value(i);
    int err = PROTO_EBAD_ARGUMENT;
    *others = false;
    id[0] = '\0';
    if (json_object_size(root) != 1) {
        /* one of the two, alone */
    } else if (o != NULL && json_is_true(o)) {
        *others = true;
        err = 0;
    } else if (hex != NULL && strlen(hex) == PROTO_LOGIN_ID_HEX &&
               strspn(hex, "0123456789abcdef") == PROTO_LOGIN_ID_HEX) {
        memcpy(id, hex, PROTO_LOGIN_ID_HEX + 1);
        err = 0;
    }
    if (err)
        rules_why(why, whylen, "give \"id\" (a session's: 64 hex digits) or \"others\": true");
    json_decref(root);
    return err;
}

int proto_decode_code(const char *buf, size_t len, char *code, size_t clen, char *why,
                      size_t whylen)
{
    json_t *root = jsonin_object(buf, len, why, whylen);
    if (root == NULL)
        return PROTO_EBAD_JSON;
    const char *c = json_string_value(json_object_get(root, "code"));
    int err = 0;
    if (c == NULL || *c == '\0' || strlen(c) >= clen) {
        rules_why(why, whylen, "'code' is required: the authenticator app's or a recovery code");
        err = PROTO_EBAD_MESSAGE;
    } else {
        snprintf(code, clen, "%s", c);
    }
    json_decref(root);
    return err;
}

void proto_write_totp_state(proto_out *o, bool enabled, bool pending, int recovery_left)
{
    puts_(o, "{\"enabled\":");
    put_bool(o, enabled);
    key(o, "pending");
    put_bool(o, pending);
    key(o, "recovery_left");
    put_int(o, recovery_left);
    end(o);
}

void proto_write_totp_setup(proto_out *o, const char *secret, const char *uri)
{
    puts_(o, "{\"secret\":");
    put_str(o, secret);
    key(o, "uri");
    put_str(o, uri);
    end(o);
}

void proto_write_recovery_codes(proto_out *o, const char *const *codes, int n)
{
    puts_(o, "{\"enabled\":true,\"recovery_codes\":[");
    for (int i = 0; i < n; i++) {
        comma(o, i > 0);
        put_str(o, codes[i]);
    }
    puts_(o, "]}");
}

void proto_write_spectators(proto_out *o, int64_t room, int n)
{
    begin(o, "spectators", NULL);
    key(o, "room");
    put_int(o, room);
    key(o, "n");
    put_int(o, n);
    end(o);
}

void proto_write_account(proto_out *o, const char *username)
{
    if (username == NULL) {
        puts_(o, "{\"ok\":true}");
        return;
    }
    puts_(o, "{\"username\":");
    put_str(o, username);
    end(o);
}

void proto_write_logins(proto_out *o, const proto_login *l, size_t n)
{
    puts_(o, "{\"sessions\":[");
    for (size_t i = 0; i < n; i++) {
        comma(o, i > 0);
        puts_(o, "{\"id\":");
        put_str(o, l[i].id);
        key(o, "created_ms");
        put_int(o, l[i].created_ms);
        key(o, "expires_ms");
        put_int(o, l[i].expires_ms);
        key(o, "agent");
        put_str(o, l[i].agent);
        key(o, "current");
        put_bool(o, l[i].current);
        end(o);
    }
    puts_(o, "]}");
}

void proto_write_http_error(proto_out *o, const char *code, const char *reason)
{
    puts_(o, "{\"error\":");
    put_str(o, code);
    key(o, "reason");
    put_str(o, reason);
    end(o);
}
