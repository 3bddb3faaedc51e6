/*
 * tourney_msg.c - tournaments as JSON (tourney_msg.h).
 */
#include "tourney_msg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"

const char *tourney_state_name(int state)
{
    static const char *const names[] = {"open", "running", "finished", "cancelled"};
    return state >= 0 && state < 4 ? names[state] : "unknown";
}

static const char *status_name(int status)
{
    static const char *const names[] = {"invited", "joined", "withdrawn"};
    return status >= 0 && status < 3 ? names[status] : "unknown";
}

int tourney_section(const tourney_info *t, tourney_game *out, bool *withdrawn, int *played_at)
{
    int n = 0;
    for (int i = 0; i < TOURNEY_MAX_PLAYERS; i++) {
        withdrawn[i] = false;
        played_at[i] = 0;
    }
    for (int i = 0; i < t->nentrants; i++) {
        const tourney_entrant *e = &t->entrants[i];
        if (e->idx < 0 || e->idx >= TOURNEY_MAX_PLAYERS)
            continue;
        if (e->idx + 1 > n)
            n = e->idx + 1;
        withdrawn[e->idx] = e->status == TOURNEY_WITHDRAWN;
        played_at[e->idx] = e->played_at;
    }
    for (int i = 0; i < t->ngames; i++) {
        const tourney_tgame *g = &t->games[i];
        out[i] = (tourney_game){.nseats = t->seats, .finished = g->finished};
        for (int s = 0; s < t->seats; s++) {
            out[i].player[s] = g->player[s];
            out[i].rank[s] = g->rank[s];
        }
    }
    return n;
}

static json_t *corr_json(const tourney_info *t)
{
    return json_pack("{s:I,s:I,s:I}", "days", (json_int_t)t->days, "inc_days",
                     (json_int_t)t->inc_days, "cap_days", (json_int_t)t->cap_days);
}

/* The fields the list and the whole share. */
static json_t *summary(const tourney_info *t)
{
    int joined = 0;
    for (int i = 0; i < t->nentrants; i++)
        joined += t->entrants[i].status != TOURNEY_INVITED;
    int finished = 0;
    for (int i = 0; i < t->ngames; i++)
        finished += t->games[i].finished;
    json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:i,s:i,s:b,s:o,s:b,s:b,s:s,s:I,s:I,s:i,s:i,s:i}", "id",
                          (json_int_t)t->id, "name", t->name, "director", t->director_name, "game",
                          t->variant, "seats", t->seats, "size", t->size, "double", t->twice,
                          "corr", corr_json(t), "invite_only", t->invite_only, "rated", t->rated,
                          "state", tourney_state_name(t->state), "created_ms",
                          (json_int_t)t->created_ms, "state_ms", (json_int_t)t->state_ms,
                          "entrants", joined, "games", t->ngames, "games_finished", finished);
    if (o != NULL)
        json_object_set_new(o, "start_ms", t->start_ms ? json_integer(t->start_ms) : json_null());
    return o;
}

static char *dump(json_t *o)
{
    if (o == NULL)
        return NULL;
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

static json_t *whole(const tourney_info *t)
{
    json_t *o = summary(t);
    if (o == NULL)
        return NULL;
    static tourney_game games[TOURNEY_MAX_GAMES]; /* the loop's only */
    bool withdrawn[TOURNEY_MAX_PLAYERS];
    int played_at[TOURNEY_MAX_PLAYERS];
    int n = tourney_section(t, games, withdrawn, played_at);
    tourney_standing st[TOURNEY_MAX_PLAYERS];
    double cross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    int ncross[TOURNEY_MAX_PLAYERS][TOURNEY_MAX_PLAYERS];
    if (n > 0)
        tourney_standings(games, t->ngames, n, withdrawn, played_at, st, cross, ncross);

    json_t *es = json_array();
    for (int i = 0; i < t->nentrants; i++) {
        const tourney_entrant *e = &t->entrants[i];
        json_t *x = json_pack("{s:s,s:s,s:i}", "username", e->name, "status",
                              status_name(e->status), "idx", e->idx);
        if (x != NULL && e->idx >= 0 && e->idx < n) {
            const tourney_standing *s = &st[e->idx];
            json_object_set_new(x, "score", json_real(s->score));
            json_object_set_new(x, "tiebreak", json_real(s->tiebreak));
            json_object_set_new(x, "wins", json_integer(s->wins));
            json_object_set_new(x, "played", json_integer(s->played));
            json_object_set_new(x, "games", json_integer(s->games));
            json_object_set_new(x, "struck", json_boolean(s->struck));
            json_object_set_new(x, "place", json_integer(s->place));
            json_t *row = json_array();
            for (int j = 0; j < n; j++)
                json_array_append_new(row, j == e->idx || ncross[e->idx][j] == 0
                                               ? json_null()
                                               : json_real(cross[e->idx][j]));
            json_object_set_new(x, "cross", row);
        }
        json_array_append_new(es, x);
    }
    json_object_set_new(o, "entrants", es);

    json_t *gs = json_array();
    for (int i = 0; i < t->ngames; i++) {
        const tourney_tgame *g = &t->games[i];
        json_t *players = json_array(), *points = json_array();
        bool counts = g->finished;
        for (int s = 0; s < t->seats; s++) {
            json_array_append_new(players, json_integer(g->player[s]));
            if (g->player[s] >= 0 && g->player[s] < n && st[g->player[s]].struck)
                counts = false;
        }
        for (int s = 0; g->finished && s < t->seats; s++)
            json_array_append_new(points, json_real(tourney_points(&games[i], s)));
        json_array_append_new(gs, json_pack("{s:I,s:i,s:o,s:b,s:o,s:b}", "id", (json_int_t)g->game,
                                            "round", g->round, "players", players, "finished",
                                            g->finished, "points", points, "counts", counts));
    }
    json_object_set_new(o, "schedule", gs);
    return o;
}

char *tourney_json(const tourney_info *t)
{
    return dump(whole(t));
}

char *tourney_push_json(const tourney_info *t)
{
    json_t *w = whole(t);
    return w ? dump(json_pack("{s:s,s:o}", "type", "tourney", "tourney", w)) : NULL;
}

char *tourney_list_json(const tourney_info *const *t, int n)
{
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, summary(t[i]));
    return a ? dump(json_pack("{s:o}", "tournaments", a)) : NULL;
}

static int str_field(json_t *o, const char *name, char *dst, size_t len, bool required, char *why,
                     size_t whylen)
{
    json_t *v = json_object_get(o, name);
    if (v == NULL && !required)
        return 0;
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= len ||
        memchr(json_string_value(v), '\0', json_string_length(v)) != NULL) {
        snprintf(why, whylen, "'%s' must be a string of 1 to %zu characters", name, len - 1);
        return -1;
    }
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

static int int_field(json_t *o, const char *name, int64_t *dst, char *why, size_t whylen)
{
    json_t *v = json_object_get(o, name);
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_integer(v)) {
        snprintf(why, whylen, "'%s' must be an integer", name);
        return -1;
    }
    *dst = (int64_t)json_integer_value(v);
    return 0;
}

static int bool_field(json_t *o, const char *name, bool *dst, char *why, size_t whylen)
{
    json_t *v = json_object_get(o, name);
    if (v == NULL)
        return 0;
    if (!json_is_boolean(v)) {
        snprintf(why, whylen, "'%s' must be true or false", name);
        return -1;
    }
    *dst = json_is_true(v);
    return 0;
}

int tourney_create_parse(const char *body, size_t len, tourney_create *out, char *why,
                         size_t whylen)
{
    memset(out, 0, sizeof *out);
    json_error_t jerr;
    json_t *o = jsonin_load(body, len, &jerr);
    if (!json_is_object(o)) {
        if (o != NULL || !jsonin_duplicate(&jerr, why, whylen))
            snprintf(why, whylen, "the body must be a JSON object");
        json_decref(o);
        return -1;
    }
    int64_t size = 0;
    int err = str_field(o, "name", out->name, sizeof out->name, true, why, whylen);
    if (err == 0)
        err = str_field(o, "game", out->game, sizeof out->game, true, why, whylen);
    if (err == 0)
        err = int_field(o, "size", &size, why, whylen);
    if (err == 0)
        err = bool_field(o, "double", &out->twice, why, whylen);
    if (err == 0)
        err = bool_field(o, "rated", &out->rated, why, whylen);
    if (err == 0)
        err = int_field(o, "start_ms", &out->start_ms, why, whylen);
    json_t *corr = json_object_get(o, "corr");
    if (err == 0 && !json_is_object(corr)) {
        snprintf(why, whylen, "'corr' must be {\"days\":D[,\"inc_days\":I,\"cap_days\":C]}");
        err = -1;
    }
    if (err == 0)
        err = int_field(corr, "days", &out->days, why, whylen);
    if (err == 0)
        err = int_field(corr, "inc_days", &out->inc_days, why, whylen);
    if (err == 0)
        err = int_field(corr, "cap_days", &out->cap_days, why, whylen);
    json_t *inv = json_object_get(o, "invite");
    if (err == 0 && inv != NULL && !json_is_null(inv)) {
        if (!json_is_array(inv) || json_array_size(inv) > TOURNEY_MAX_INVITES) {
            snprintf(why, whylen, "'invite' must be a list of at most %d usernames",
                     TOURNEY_MAX_INVITES);
            err = -1;
        }
        for (size_t i = 0; err == 0 && i < json_array_size(inv); i++) {
            json_t *u = json_array_get(inv, i);
            if (!json_is_string(u) || json_string_length(u) == 0 ||
                json_string_length(u) >= TOURNEY_USER_MAX) {
                snprintf(why, whylen, "'invite' must be a list of usernames");
                err = -1;
                break;
            }
            snprintf(out->invite[out->ninvite++], TOURNEY_USER_MAX, "%s", json_string_value(u));
        }
        out->invite_only = err == 0;
    }
    json_decref(o);
    out->size = (int)(size > 0 && size < 100 ? size : 0);
    if (err == 0 && out->size == 0) {
        snprintf(why, whylen, "'size' (3 to 12 entrants) is required");
        err = -1;
    }
    return err;
}

int tourney_username_parse(const char *body, size_t len, char *out, size_t outlen, char *why,
                           size_t whylen)
{
    json_error_t jerr;
    json_t *o = jsonin_load(body, len, &jerr);
    if (o == NULL && jsonin_duplicate(&jerr, why, whylen))
        return -1;
    char ignored[8];
    int err = json_is_object(o) &&
                      str_field(o, "username", out, outlen, true, ignored, sizeof ignored) == 0
                  ? 0
                  : 1;
    json_decref(o);
    return err;
}
