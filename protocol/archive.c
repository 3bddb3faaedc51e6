/*
 * archive.c - JSON and PGN of records (see archive.h). Every document is
 * built with jansson in a fixed key order and dumped compact, so the same
 * record gives the same bytes.
 */
#include "archive.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgn.h"
#include "proto.h"
#include "rating.h"

/* The text of a JSON value (compact), which is released; NULL if either
 * ran out of memory. */
static char *dump(json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    return text;
}

/* The stored game as a JSON object (see archive_game_json), NULL if memory
 * ran out. */
static json_t *game_object(const record_game *g)
{
    json_t *players = json_array(), *moves = json_array(), *leaves = json_array();
    /* Bots are named in the options the server wrote: "bots":[0,5,5]. */
    json_t *opts = g->options ? json_loads(g->options, 0, NULL) : NULL;
    json_t *bots = json_object_get(opts, "bots");
    for (int p = 0; p < g->nplayers; p++) {
        json_t *pl = json_pack("{s:i, s:s}", "seat", p, "name", g->players[p].name);
        if (g->players[p].account)
            json_object_set_new(pl, "account", json_integer(g->players[p].account));
        else
            json_object_set_new(pl, "account", json_null());
        json_int_t level = json_integer_value(json_array_get(bots, (size_t)p));
        if (level > 0) {
            json_object_set_new(pl, "bot", json_true());
            json_object_set_new(pl, "level", json_integer(level));
        }
        if (g->finished)
            json_object_set_new(pl, "outcome",
                                json_string(record_outcome_name(g->result.outcome[p])));
        json_array_append_new(players, pl);
    }
    for (int i = 0; i < g->nmoves; i++)
        json_array_append_new(moves,
                              json_pack("{s:i, s:i, s:s, s:I}", "ply", g->moves[i].ply, "player",
                                        g->moves[i].player, "move", g->moves[i].text, "at",
                                        (json_int_t)g->moves[i].at_ms));
    for (int i = 0; i < g->nleaves; i++)
        json_array_append_new(leaves,
                              json_pack("{s:i, s:i, s:s, s:I}", "player", g->leaves[i].player,
                                        "after_ply", g->leaves[i].after_ply, "reason",
                                        rules_reason_name(g->leaves[i].reason), "at",
                                        (json_int_t)g->leaves[i].at_ms));
    json_t *o = json_pack(
        "{s:I, s:s, s:s, s:b, s:{s:I, s:I, s:I}, s:o, s:o, s:o, s:I, s:s}", "id", (json_int_t)g->id,
        "variant", g->variant, "kind", record_kind_name(g->kind), "rated", g->rated, "time_control",
        "base_ms", (json_int_t)g->tc.base_ms, "inc_ms", (json_int_t)g->tc.inc_ms, "cap_ms",
        (json_int_t)g->tc.cap_ms, "players", players, "moves", moves, "leaves", leaves, "created",
        (json_int_t)g->created_ms, "status", g->finished ? "finished" : "playing");
    if (o == NULL) {
        json_decref(opts);
        return NULL;
    }
    json_object_set_new(o, "position", g->position ? json_string(g->position) : json_null());
    /* The seats' identity keys (room_game.c) would link a guest's games
     * together: they stay in the store. */
    json_object_del(opts, "seat_keys");
    json_object_set_new(o, "options", opts ? opts : json_object());
    if (g->finished) {
        json_object_set_new(
            o, "result",
            json_pack("{s:o, s:s}", "winner",
                      g->result.winner >= 0 ? json_integer(g->result.winner) : json_null(),
                      "reason", rules_reason_name(g->result.reason)));
        json_object_set_new(o, "finished", json_integer(g->finished_ms));
    } else {
        json_object_set_new(o, "to_move", json_integer(g->to_move));
        if (g->kind == RECORD_CORR)
            json_object_set_new(o, "deadline", json_integer(g->deadline_ms));
    }
    return o;
}

char *archive_game_json(const record_game *g)
{
    return dump(game_object(g));
}

/* ------------------------------------------------------------------------ */
/* For viewers: what each move changed, so that a client steps through a
 * stored game without knowing its rules (PROTOCOL.md, HTTP). */

static json_t *json_piece(char letter, int owner)
{
    char l[2] = {letter, 0};
    return json_pack("{s:s, s:i}", "letter", l, "owner", owner);
}

/* [{"name":"a1","letter":"I","owner":0},...], as the room's start. */
static json_t *json_pieces(const rules_variant *v, const rules_pos *p)
{
    json_t *a = json_array();
    for (int c = 0; a != NULL && c < v->ncells; c++) {
        int owner = -1;
        char letter = v->piece_at(p, c, &owner);
        if (letter == 0)
            continue;
        char l[2] = {letter, 0};
        json_array_append_new(a, json_pack("{s:s, s:s, s:i}", "name", rules_cell_name(v, c),
                                           "letter", l, "owner", owner));
    }
    return a;
}

static json_t *json_cells(const rules_variant *v, const int *cells, int n)
{
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_string(rules_cell_name(v, cells[i])));
    return a;
}

/* [["e1",null],["g1",{"letter":"K","owner":0}],...], as in move events. */
static json_t *json_changes(const rules_variant *v, const proto_cell_change *ch, int n)
{
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++)
        json_array_append_new(
            a, json_pack("[s, o]", rules_cell_name(v, ch[i].cell),
                         ch[i].letter ? json_piece(ch[i].letter, ch[i].owner) : json_null()));
    return a;
}

/* rules_game_walk's visit for the viewer fields of each move of a record. */
struct viewer_moves {
    json_t *moves; /* the "moves" array of the game object */
    const record_game *g;
};

static int add_move_fields(void *arg, const rules_walk_step *s)
{
    struct viewer_moves *vm = arg;
    if (s->m == 0)
        return 0; /* a leave changes no cell */
    const rules_variant *v = s->before->variant;
    char disp[RULES_MOVE_TEXT];
    if (rules_display_move(s->before, s->m, disp, sizeof disp) < 0)
        snprintf(disp, sizeof disp, "%s", vm->g->moves[s->k].text);
    int caps[RULES_MAX_CELLS];
    int ncaps = rules_move_captures(s->before, s->m, caps);
    proto_cell_change ch[RULES_MAX_CELLS];
    int nch = proto_pos_changes(v, s->before, s->after, ch);
    json_t *m = json_array_get(vm->moves, s->k);
    if (m == NULL || json_object_set_new(m, "display", json_string(disp)) < 0 ||
        json_object_set_new(m, "captures", json_cells(v, caps, ncaps)) < 0 ||
        json_object_set_new(m, "changes", json_changes(v, ch, nch)) < 0)
        return -1;
    return 0;
}

/* Add "start" and each move's "display", "captures" and "changes" to o (the
 * game object of g): g replayed through the rules core (record_replay), then
 * its history walked. -1 if a record does not replay or memory ran out (o is
 * then left partly completed). */
static int add_viewer_fields(json_t *o, const record_game *g)
{
    rules_game *rg = NULL;
    if (record_replay(g, &rg, NULL, 0) < 0)
        return -1;
    struct viewer_moves vm = {json_object_get(o, "moves"), g};
    int err = json_object_set_new(o, "start", json_pieces(rg->variant, &rg->start));
    if (err == 0)
        err = rules_game_walk(rg, rg->nmoves, add_move_fields, &vm);
    rules_game_free(rg);
    return err < 0 ? -1 : 0;
}

char *archive_game_view_json(const record_game *g)
{
    json_t *o = game_object(g);
    if (o != NULL && add_viewer_fields(o, g) < 0) {
        /* Serve the record as it is stored rather than nothing. */
        json_decref(o);
        o = game_object(g);
    }
    return dump(o);
}

char *archive_game_pgn(const record_game *g)
{
    return archive_game_pgn_event(g, NULL, NULL, NULL);
}

char *archive_game_pgn_event(const record_game *g, const char *event, const char *round,
                             const char *section)
{
    pgn_game p = {0};
    const rules_variant *v = rules_find(g->variant);
    char buf[64];
    pgn_set_tag(&p, "Event",
                event                    ? event
                : g->kind == RECORD_CORR ? "Correspondence game"
                                         : "Live game");
    pgn_set_tag(&p, "Site", "chameleon");
    time_t secs = (time_t)(g->created_ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
    pgn_set_tag(&p, "Date", buf);
    pgn_set_tag(&p, "Round", round ? round : "-");
    if (section)
        pgn_set_tag(&p, "Section", section);
    for (int seat = 0; seat < g->nplayers; seat++) {
        if (v != NULL && seat < v->nplayers)
            pgn_seat_tag(v, seat, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "Player%d", seat + 1);
        pgn_set_tag(&p, buf, g->players[seat].name);
    }
    pgn_result_text(&g->result, g->nplayers, buf, sizeof buf);
    pgn_set_tag(&p, "Result", buf);
    pgn_set_tag(&p, "Variant", g->variant);
    snprintf(buf, sizeof buf, "%lld", (long long)g->id);
    pgn_set_tag(&p, "GameId", buf);
    if (g->kind == RECORD_CORR && g->tc.inc_ms)
        snprintf(buf, sizeof buf, "corr %lldd+%lldd cap %lldd",
                 (long long)(g->tc.base_ms / RECORD_DAY_MS),
                 (long long)(g->tc.inc_ms / RECORD_DAY_MS),
                 (long long)(g->tc.cap_ms / RECORD_DAY_MS));
    else if (g->kind == RECORD_CORR)
        snprintf(buf, sizeof buf, "corr %lldd/move", (long long)(g->tc.base_ms / RECORD_DAY_MS));
    else
        snprintf(buf, sizeof buf, "%lld+%lld", (long long)(g->tc.base_ms / 1000),
                 (long long)(g->tc.inc_ms / 1000));
    pgn_set_tag(&p, "TimeControl", buf);
    if (g->finished)
        pgn_set_tag(&p, "Termination", rules_reason_name(g->result.reason));
    if (g->position) {
        pgn_set_tag(&p, "SetUp", "1");
        pgn_set_tag(&p, "FEN", g->position);
    }
    /* Leaves at their place: one recorded after k moves comes before move
     * k. */
    int err = 0, li = 0;
    for (int i = 0; i <= g->nmoves && err == 0; i++) {
        for (; li < g->nleaves && g->leaves[li].after_ply == i && err == 0; li++)
            err = pgn_add_leave(&p, g->leaves[li].player, g->leaves[li].reason);
        if (i < g->nmoves && err == 0)
            err = pgn_add_move(&p, g->moves[i].text);
    }
    char *text = NULL;
    if (err == 0 && pgn_write(&p, g->nplayers, &text) < 0)
        text = NULL;
    pgn_free(&p);
    return text;
}

/* The fields every game of a profile has. */
static json_t *profile_game(const record_profile_game *e)
{
    return json_pack("{s:I, s:s, s:s, s:i, s:i, s:I}", "id", (json_int_t)e->id, "variant",
                     e->variant, "kind", record_kind_name(e->kind), "seat", e->seat, "moves",
                     e->nmoves, "created", (json_int_t)e->created_ms);
}

/* {variant: {pace: {rating, rd, vol, provisional, games, last, history}}},
 * history [{game, at, rating, rd}] oldest first. */
static json_t *ratings_json(const record_profile *p)
{
    json_t *o = json_object();
    for (int i = 0; i < p->nratings; i++) {
        const record_rating *r = &p->ratings[i];
        json_t *v = json_object_get(o, r->variant);
        if (v == NULL) {
            v = json_object();
            json_object_set_new(o, r->variant, v);
        }
        json_t *hist = json_array();
        for (int k = 0; k < p->npoints; k++) {
            const record_rating_point *pt = &p->points[k];
            if (pt->pace == r->pace && strcmp(pt->variant, r->variant) == 0)
                json_array_append_new(
                    hist, json_pack("{s:I, s:I, s:f, s:f}", "game", (json_int_t)pt->game, "at",
                                    (json_int_t)pt->at_ms, "rating", pt->rating, "rd", pt->rd));
        }
        json_object_set_new(v, rating_pace_name(r->pace),
                            json_pack("{s:f, s:f, s:f, s:b, s:i, s:I, s:o}", "rating", r->rating,
                                      "rd", r->rd, "vol", r->vol, "provisional",
                                      rating_provisional(r->rd), "games", r->games, "last",
                                      (json_int_t)r->last_ms, "history", hist));
    }
    return o;
}

char *archive_profile_json(const record_profile *p)
{
    json_t *o = json_pack("{s:I, s:s}", "account", (json_int_t)p->account, "username", p->username);
    json_t *playing = json_array(), *finished = json_object();
    for (int i = 0; i < p->nplaying; i++) {
        const record_profile_game *g = &p->playing[i];
        json_t *e = profile_game(g);
        json_object_set_new(e, "to_move", json_integer(g->to_move));
        json_object_set_new(e, "your_turn", json_boolean(g->to_move == g->seat));
        if (g->kind == RECORD_CORR)
            json_object_set_new(e, "deadline", json_integer(g->deadline_ms));
        json_array_append_new(playing, e);
    }
    for (int v = 0; v < p->nvariants; v++) {
        const record_variant_games *vg = &p->variants[v];
        json_t *games = json_array();
        for (int i = 0; i < vg->ngames; i++) {
            const record_profile_game *g = &vg->games[i];
            json_t *e = profile_game(g);
            json_object_set_new(e, "outcome", json_string(record_outcome_name(g->outcome)));
            json_object_set_new(e, "reason", json_string(rules_reason_name(g->reason)));
            json_object_set_new(e, "finished", json_integer(g->finished_ms));
            json_array_append_new(games, e);
        }
        json_object_set_new(finished, vg->variant,
                            json_pack("{s:i, s:i, s:i, s:o}", "wins", vg->wins, "losses",
                                      vg->losses, "draws", vg->draws, "games", games));
    }
    json_object_set_new(o, "in_progress", playing);
    json_object_set_new(o, "finished", finished);
    json_object_set_new(o, "ratings", ratings_json(p));
    return dump(o);
}

char *archive_list_json(const record_archive *a)
{
    json_t *games = json_array();
    for (int i = 0; i < a->n; i++) {
        const record_archive_game *g = &a->games[i];
        json_t *names = json_array();
        for (int s = 0; s < g->nplayers && s < RULES_MAX_PLAYERS; s++)
            json_array_append_new(names, json_string(g->names[s]));
        json_t *e =
            json_pack("{s:I, s:s, s:s, s:b, s:o, s:i, s:s, s:i, s:s, s:I, s:I, s:i, s:I,"
                      " s:I}",
                      "id", (json_int_t)g->id, "variant", g->variant, "kind",
                      record_kind_name(g->kind), "rated", g->rated, "players", names, "seat",
                      g->seat, "outcome", record_outcome_name(g->outcome), "winner", g->winner,
                      "reason", rules_reason_name(g->reason), "created", (json_int_t)g->created_ms,
                      "finished", (json_int_t)g->finished_ms, "moves", g->nmoves, "base_ms",
                      (json_int_t)g->tc.base_ms, "inc_ms", (json_int_t)g->tc.inc_ms);
        if (e != NULL && g->has_rating) {
            json_object_set_new(e, "rating_before", json_real(g->rating_before));
            json_object_set_new(e, "rating_after", json_real(g->rating_after));
        }
        json_array_append_new(games, e);
    }
    json_t *o =
        json_pack("{s:s, s:o, s:b}", "username", a->username, "games", games, "more", a->more);
    if (o != NULL && a->more && a->n > 0)
        json_object_set_new(o, "next", json_integer(a->games[a->n - 1].id));
    return dump(o);
}

char *archive_board_json(const record_board *b)
{
    json_t *paces = json_object();
    for (int i = 0; i < b->n; i++) {
        const record_board_entry *e = &b->entries[i];
        const char *pace = rating_pace_name(e->pace);
        json_t *list = json_object_get(paces, pace);
        if (list == NULL) {
            list = json_array();
            json_object_set_new(paces, pace, list);
        }
        json_array_append_new(list, json_pack("{s:s, s:f, s:f, s:i, s:I}", "username", e->username,
                                              "rating", e->rating, "rd", e->rd, "games", e->games,
                                              "last", (json_int_t)e->last_ms));
    }
    return dump(json_pack("{s:s, s:o}", "variant", b->variant, "paces", paces));
}

char *archive_turns_json(const record_turn *t, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = json_pack("{s:I, s:s, s:s, s:i}", "id", (json_int_t)t[i].game, "variant",
                              t[i].variant, "kind", record_kind_name(t[i].kind), "ply", t[i].ply);
        if (t[i].kind == RECORD_CORR)
            json_object_set_new(e, "deadline", json_integer(t[i].deadline_ms));
        if (t[i].nopponents > 0) {
            json_t *names = json_array();
            for (int k = 0; k < t[i].nopponents; k++)
                json_array_append_new(names, json_string(t[i].opponents[k]));
            json_object_set_new(e, "opponents", names);
        }
        json_array_append_new(a, e);
    }
    return dump(a);
}

char *archive_lines_json(const record_lines *l)
{
    json_t *a = json_array();
    for (int i = 0; i < l->n; i++)
        json_array_append_new(a, json_string(l->lines[i]));
    return dump(a);
}
