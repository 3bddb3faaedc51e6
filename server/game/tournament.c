/*
 * tournament.c - tournaments in memory (tournament.h): the table, the
 * watchers, the results and the end, the restore at start-up. The
 * requests are tournament_act.c's (tournament_impl.h).
 */
#include "tournament.h"
#include "tournament_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "counters.h"
#include "room.h"
#include "store.h"
#include "store_tourney.h"
#include "tourney.h"

/* A game of a tournament: its tournament and its index in info.games. */
typedef struct game_ref {
    int64_t game; /* hash key */
    tourn *t;
    int index;
    UT_hash_handle hh;
} game_ref;

/* A session watching a tournament. */
typedef struct watch {
    session *s;
    int64_t tourney;
} watch;

store *tournament__db;
tourn *tournament__all;

static uv_loop_t *loop;
static uv_timer_t tick;
static bool ticking;
static game_ref *by_game;
static watch *watches;
static size_t nwatches, capwatches;

const tourney_info *tournament_find(int64_t id)
{
    tourn *t;
    HASH_FIND(hh, tournament__all, &id, sizeof id, t);
    return t ? &t->info : NULL;
}

tourn *tournament__find(int64_t id)
{
    tourn *t;
    HASH_FIND(hh, tournament__all, &id, sizeof id, t);
    return t;
}

int tournament__ref_game(tourn *t, int index)
{
    game_ref *r = calloc(1, sizeof *r);
    if (r == NULL)
        return -1;
    r->game = t->info.games[index].game;
    r->t = t;
    r->index = index;
    HASH_ADD(hh, by_game, game, sizeof r->game, r);
    if (r->hh.tbl == NULL) {
        free(r);
        return -1;
    }
    return 0;
}

tourney_entrant *tournament__entrant_of(tourney_info *t, int64_t account)
{
    for (int i = 0; i < t->nentrants; i++)
        if (t->entrants[i].account == account)
            return &t->entrants[i];
    return NULL;
}

int tournament__joined(const tourney_info *t)
{
    int n = 0;
    for (int i = 0; i < t->nentrants; i++)
        n += t->entrants[i].status == TOURNEY_JOINED;
    return n;
}

void tournament__entrant_drop(tourney_info *t, int64_t account)
{
    for (int i = 0; i < t->nentrants; i++)
        if (t->entrants[i].account == account) {
            memmove(&t->entrants[i], &t->entrants[i + 1],
                    (size_t)(t->nentrants - i - 1) * sizeof t->entrants[0]);
            t->nentrants--;
            return;
        }
}

/* The gauges of tournaments by state (metrics.h). */
void tournament__count_state(int state, int delta)
{
    if (state == TOURNEY_OPEN)
        metrics_now.tournaments_open += delta;
    else if (state == TOURNEY_RUNNING)
        metrics_now.tournaments_running += delta;
}

/* The one place a state changes in memory. */
void tournament__state_to(tourn *t, int state, int64_t at_ms)
{
    tournament__count_state(t->info.state, -1);
    tournament__count_state(state, 1);
    t->info.state = state;
    t->info.state_ms = at_ms;
}

/* ------------------------------------------------------------------------ */
/* Watchers. */

void tournament__push(const tourn *t)
{
    char *text = NULL;
    for (size_t i = 0; i < nwatches; i++) {
        if (watches[i].tourney != t->info.id)
            continue;
        if (text == NULL && (text = tourney_push_json(&t->info)) == NULL)
            return;
        proto_out o;
        proto_out_init(&o, NET_HEADROOM);
        proto_out_append(&o, text, strlen(text));
        session_send_out(watches[i].s, &o);
    }
    free(text);
}

/* The answer to tourney_watch: the push with "re" (the request's id). */
static void send_one(session *s, const tourn *t, const proto_req *req)
{
    char *text = tourney_push_json(&t->info);
    if (text == NULL)
        return;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    if (req->has_id) {
        char re[40];
        int n = snprintf(re, sizeof re, "{\"re\":%lld,", (long long)req->id);
        proto_out_append(&o, re, (size_t)n);
        proto_out_append(&o, text + 1, strlen(text + 1));
    } else {
        proto_out_append(&o, text, strlen(text));
    }
    session_send_out(s, &o);
    free(text);
}

int tournament_watch(session *s, const proto_req *req, char *why, size_t whylen)
{
    tourn *t = tournament__find(req->tourney);
    if (t == NULL) {
        snprintf(why, whylen, "no tournament %lld", (long long)req->tourney);
        return PROTO_ENOT_FOUND;
    }
    int mine = 0;
    for (size_t i = 0; i < nwatches; i++)
        if (watches[i].s == s) {
            if (watches[i].tourney == req->tourney) {
                send_one(s, t, req);
                return 0;
            }
            mine++;
        }
    if (mine >= TOURNAMENT_WATCH_MAX) {
        snprintf(why, whylen, "at most %d tournaments watched at once", TOURNAMENT_WATCH_MAX);
        return PROTO_ETOO_MANY_ROOMS;
    }
    if (nwatches == capwatches) {
        size_t cap = capwatches ? capwatches * 2 : 16;
        watch *w = realloc(watches, cap * sizeof *w);
        if (w == NULL)
            return PROTO_EINTERNAL;
        watches = w;
        capwatches = cap;
    }
    watches[nwatches++] = (watch){s, req->tourney};
    send_one(s, t, req);
    return 0;
}

int tournament_unwatch(session *s, const proto_req *req, char *why, size_t whylen)
{
    for (size_t i = 0; i < nwatches; i++)
        if (watches[i].s == s && watches[i].tourney == req->tourney) {
            watches[i] = watches[--nwatches];
            return 0;
        }
    return 0;
}

void tournament_unwatch_all(session *s)
{
    for (size_t i = 0; i < nwatches;)
        if (watches[i].s == s)
            watches[i] = watches[--nwatches];
        else
            i++;
}

/* ------------------------------------------------------------------------ */
/* Results. */

/* Places from a result and the order of leaves (as the ratings read them,
 * docs/RATINGS.md): winners and drawers first and level, then the losers,
 * those still seated above those who left, the later leaver above. */
static void places(const rules_result *r, int n, const int64_t *left_at, int *rank)
{
    for (int p = 0; p < n; p++) {
        if (r->reason == RULES_REASON_ABORTED || r->outcome[p] != RULES_OUTCOME_LOSS) {
            rank[p] = 0;
            continue;
        }
        rank[p] = 1;
        for (int q = 0; q < n; q++)
            if (r->outcome[q] == RULES_OUTCOME_LOSS && left_at[q] > left_at[p])
                rank[p]++;
    }
}

int tournament__finished_of(const tourney_info *t, int idx)
{
    int k = 0;
    for (int i = 0; i < t->ngames; i++)
        for (int s = 0; s < t->seats; s++)
            k += t->games[i].finished && t->games[i].player[s] == idx;
    return k;
}

/* The end is like the places: in memory at once, its write queued behind
 * theirs; one that fails is found again at the next start (every game
 * finished). */
static void on_end_stored(void *arg, int status)
{
    const tourn *t = arg;
    if (status < 0 && status != STORE_ECLOSED)
        log_kv(LOG_ERROR, "cannot store the end of a tournament (again at restart)",
               "tourney=%lld status=%s", (long long)t->info.id, store_err_code(status));
}

static void maybe_finish(tourn *t)
{
    if (t->info.state != TOURNEY_RUNNING)
        return;
    for (int i = 0; i < t->info.ngames; i++)
        if (!t->info.games[i].finished)
            return;
    int64_t now = store_now(tournament__db);
    tournament__state_to(t, TOURNEY_FINISHED, now);
    if (store_tourney_set_state(tournament__db, t->info.id, TOURNEY_FINISHED, now, on_end_stored,
                                t) < 0)
        log_kv(LOG_ERROR, "cannot store the end of a tournament (again at restart)", "tourney=%lld",
               (long long)t->info.id);
    log_kv(LOG_INFO, "tournament finished", "tourney=%lld", (long long)t->info.id);
}

/* A result's places are written behind the game's result; one that fails
 * is read back from the game at the next start. */
static void on_result_stored(void *arg, int status)
{
    (void)arg;
    if (status < 0 && status != STORE_ECLOSED)
        log_kv(LOG_ERROR, "a tournament result could not be stored (read back at restart)",
               "status=%s", store_err_code(status));
}

static void record_result(int64_t game, const rules_result *r, int n, const int64_t *left_at)
{
    game_ref *ref;
    HASH_FIND(hh, by_game, &game, sizeof game, ref);
    if (ref == NULL)
        return;
    tourney_tgame *g = &ref->t->info.games[ref->index];
    if (g->finished)
        return;
    int rank[TOURNEY_MAX_SEATS] = {0};
    places(r, n < TOURNEY_MAX_SEATS ? n : TOURNEY_MAX_SEATS, left_at, rank);
    if (store_tourney_result(tournament__db, game, rank, n, on_result_stored, NULL) < 0)
        log_kv(LOG_ERROR, "cannot queue a tournament result (read back at restart)",
               "tourney=%lld game=%lld", (long long)ref->t->info.id, (long long)game);
    g->finished = true;
    memcpy(g->rank, rank, sizeof g->rank);
    maybe_finish(ref->t);
    tournament__push(ref->t);
}

static void on_over(void *arg, int64_t game, const rules_game *g)
{
    (void)arg;
    int n = g->variant->nplayers;
    int64_t left_at[RULES_MAX_PLAYERS];
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        left_at[p] = INT64_MAX;
    for (int i = 0; i < g->nleft; i++)
        left_at[g->left[i].player] = (int64_t)g->left[i].after * 8 + i;
    record_result(game, &g->result, n, left_at);
}

/* A game found finished at start-up whose places were not written. */
static void on_read_back(void *arg, int status, const record_game *g)
{
    (void)arg;
    if (status < 0 || g == NULL || !g->finished)
        return;
    int64_t left_at[RULES_MAX_PLAYERS];
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        left_at[p] = INT64_MAX;
    for (int i = 0; i < g->nleaves; i++)
        if (g->leaves[i].player >= 0 && g->leaves[i].player < RULES_MAX_PLAYERS)
            left_at[g->leaves[i].player] = (int64_t)g->leaves[i].after_ply * 8 + i;
    record_result(g->id, &g->result, g->nplayers, left_at);
}

/* ------------------------------------------------------------------------ */
/* Creating and joining. */

char *tournament_list_json(void)
{
    unsigned n = HASH_COUNT(tournament__all);
    const tourney_info **list = malloc((n ? n : 1) * sizeof *list);
    if (list == NULL)
        return NULL;
    /* Every open and running one; of the others (finished, cancelled) the
     * newest TOURNAMENT_LIST_OVER (the table is in id order). */
    int over = 0;
    tourn *t, *tmp;
    HASH_ITER(hh, tournament__all, t, tmp)
    {
        over += t->info.state != TOURNEY_OPEN && t->info.state != TOURNEY_RUNNING;
    }
    int k = 0, skip = over > TOURNAMENT_LIST_OVER ? over - TOURNAMENT_LIST_OVER : 0;
    HASH_ITER(hh, tournament__all, t, tmp)
    {
        if (t->info.state != TOURNEY_OPEN && t->info.state != TOURNEY_RUNNING && skip > 0) {
            skip--;
            continue;
        }
        list[k++] = &t->info;
    }
    char *text = tourney_list_json(list, k);
    free(list);
    return text;
}

/* ------------------------------------------------------------------------ */
/* Start dates, restore. */

static void on_tick(uv_timer_t *h)
{
    (void)h;
    tournament__start_due(store_now(tournament__db));
}

int tournament__info_from_stored(tourney_info *ti, const store_tourney *st)
{
    const rules_variant *v = rules_find(st->variant);
    if (v == NULL)
        return -1;
    ti->id = st->id;
    snprintf(ti->name, sizeof ti->name, "%s", st->name);
    ti->director = st->director;
    snprintf(ti->director_name, sizeof ti->director_name, "%s", st->director_name);
    snprintf(ti->variant, sizeof ti->variant, "%s", v->id);
    ti->seats = v->nplayers;
    ti->size = st->size;
    ti->twice = st->twice;
    ti->days = st->tc.base_ms / STORE_DAY_MS;
    ti->inc_days = st->tc.inc_ms / STORE_DAY_MS;
    ti->cap_days = st->tc.cap_ms / STORE_DAY_MS;
    ti->start_ms = st->start_ms;
    ti->invite_only = st->invite_only;
    ti->rated = st->rated;
    ti->state = st->state;
    ti->created_ms = st->created_ms;
    ti->state_ms = st->state_ms;
    return 0;
}

static void on_load_tourney(void *arg, const store_tourney *st)
{
    (void)arg;
    tourn *t = calloc(1, sizeof *t);
    if (t == NULL || tournament__info_from_stored(&t->info, st) < 0) {
        free(t);
        log_kv(LOG_ERROR, "tournament not restored", "tourney=%lld", (long long)st->id);
        return;
    }
    HASH_ADD(hh, tournament__all, info.id, sizeof t->info.id, t);
    tournament__count_state(t->info.state, 1);
}

static void on_load_entrant(void *arg, int64_t tourney, const store_entrant *se)
{
    (void)arg;
    tourn *t = tournament__find(tourney);
    if (t == NULL || t->info.nentrants >= TOURNEY_MAX_ENTRANTS)
        return;
    tourney_entrant *en = &t->info.entrants[t->info.nentrants++];
    *en = (tourney_entrant){.account = se->account,
                            .status = se->status,
                            .idx = se->idx,
                            .at_ms = se->at_ms,
                            .played_at = se->played_at};
    snprintf(en->name, sizeof en->name, "%s", se->name);
}

static void on_load_game(void *arg, int64_t tourney, const store_tourney_game *sg)
{
    (void)arg;
    tourn *t = tournament__find(tourney);
    if (t == NULL || t->info.ngames >= TOURNEY_MAX_GAMES)
        return;
    int i = t->info.ngames++;
    tourney_tgame *g = &t->info.games[i];
    *g = (tourney_tgame){.game = sg->game, .round = sg->round, .finished = sg->finished};
    for (int s = 0; s < TOURNEY_MAX_SEATS; s++) {
        g->player[s] = sg->player[s];
        g->rank[s] = sg->rank[s];
    }
    if (tournament__ref_game(t, i) < 0)
        log_kv(LOG_ERROR, "out of memory: a tournament game is not followed", "game=%lld",
               (long long)sg->game);
}

/* room_set_tourney_of's lookup: the tournament of a game in memory. */
static int64_t tourney_of_game(int64_t game, char *name, size_t namelen)
{
    game_ref *ref;
    HASH_FIND(hh, by_game, &game, sizeof game, ref);
    if (ref == NULL)
        return 0;
    snprintf(name, namelen, "%s", ref->t->info.name);
    return ref->t->info.id;
}

int tournament_init(uv_loop_t *l, store *s)
{
    loop = l;
    tournament__db = s;
    room_set_over_cb(on_over, NULL);
    room_set_tourney_of(tourney_of_game);
    store_tourney_loader ld = {on_load_tourney, on_load_entrant, on_load_game, NULL};
    int err = store_tourney_load(tournament__db, &ld);
    if (err < 0)
        return err;
    /* Games over whose places were not written (a crash between the two):
     * read back from the game itself. */
    int reads = 0;
    tourn *t, *tmp;
    HASH_ITER(hh, tournament__all, t, tmp)
    {
        if (t->info.state != TOURNEY_RUNNING)
            continue;
        for (int i = 0; i < t->info.ngames; i++)
            if (!t->info.games[i].finished && room_find(t->info.games[i].game) == NULL &&
                store_game_get(tournament__db, t->info.games[i].game, on_read_back, NULL) == 0)
                reads++;
        maybe_finish(t);
    }
    if (HASH_COUNT(tournament__all) > 0)
        log_kv(LOG_INFO, "tournaments restored", "tournaments=%u read_back=%d",
               HASH_COUNT(tournament__all), reads);
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, TOURNAMENT_TICK_MS, TOURNAMENT_TICK_MS);
    ticking = true;
    return 0;
}

void tournament_stop(void)
{
    if (ticking) {
        uv_timer_stop(&tick);
        uv_close((uv_handle_t *)&tick, NULL);
        ticking = false;
    }
}

void tournament_shutdown(void)
{
    tournament_stop();
    room_set_tourney_of(NULL);
    game_ref *r, *rt;
    HASH_ITER(hh, by_game, r, rt)
    {
        HASH_DEL(by_game, r);
        free(r);
    }
    tourn *t, *tmp;
    HASH_ITER(hh, tournament__all, t, tmp)
    {
        HASH_DEL(tournament__all, t);
        tournament__jobs_free(t);
        tournament__count_state(t->info.state, -1);
        free(t);
    }
    free(watches);
    watches = NULL;
    nwatches = capwatches = 0;
}
