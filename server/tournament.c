/*
 * tournament.c - tournaments in memory and their life (tournament.h).
 */
#include "tournament.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An add that runs out of memory leaves the table as it was. */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "accounts.h"
#include "ident.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"
#include "room.h"
#include "store.h"
#include "store_tourney.h"
#include "tourney.h"

typedef struct tourn {
    tourney_info info;
    UT_hash_handle hh; /* by info.id */
} tourn;

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

static uv_loop_t *loop;
static store *db;
static uv_timer_t tick;
static bool ticking;
static tourn *all;
static game_ref *by_game;
static watch *watches;
static size_t nwatches, capwatches;

static void fail(tournament_err *e, unsigned status, const char *code, const char *fmt,
                 const char *arg)
{
    e->status = status;
    e->code = code;
    snprintf(e->why, sizeof e->why, fmt, arg ? arg : "");
}

const tourney_info *tournament_find(int64_t id)
{
    tourn *t;
    HASH_FIND(hh, all, &id, sizeof id, t);
    return t ? &t->info : NULL;
}

static tourn *find(int64_t id)
{
    tourn *t;
    HASH_FIND(hh, all, &id, sizeof id, t);
    return t;
}

static int ref_game(tourn *t, int index)
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

static tourney_entrant *entrant_of(tourney_info *t, int64_t account)
{
    for (int i = 0; i < t->nentrants; i++)
        if (t->entrants[i].account == account)
            return &t->entrants[i];
    return NULL;
}

static int joined(const tourney_info *t)
{
    int n = 0;
    for (int i = 0; i < t->nentrants; i++)
        n += t->entrants[i].status == TOURNEY_JOINED;
    return n;
}

static void entrant_drop(tourney_info *t, int64_t account)
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
static void count_state(int state, int delta)
{
    if (state == TOURNEY_OPEN)
        metrics_now.tournaments_open += delta;
    else if (state == TOURNEY_RUNNING)
        metrics_now.tournaments_running += delta;
}

/* The one place a state changes in memory. */
static void state_to(tourn *t, int state, int64_t at_ms)
{
    count_state(t->info.state, -1);
    count_state(state, 1);
    t->info.state = state;
    t->info.state_ms = at_ms;
}

/* ------------------------------------------------------------------------ */
/* Watchers. */

static void push(const tourn *t)
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
    tourn *t = find(req->tourney);
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

static int finished_of(const tourney_info *t, int idx)
{
    int k = 0;
    for (int i = 0; i < t->ngames; i++)
        for (int s = 0; s < t->seats; s++)
            k += t->games[i].finished && t->games[i].player[s] == idx;
    return k;
}

static void maybe_finish(tourn *t)
{
    for (int i = 0; i < t->info.ngames; i++)
        if (!t->info.games[i].finished)
            return;
    int64_t now = store_now(db);
    if (store_tourney_set_state(db, t->info.id, TOURNEY_FINISHED, now) < 0) {
        log_kv(LOG_ERROR, "cannot store the end of a tournament", "tourney=%lld",
               (long long)t->info.id);
        return;
    }
    state_to(t, TOURNEY_FINISHED, now);
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
    if (store_tourney_result(db, game, rank, n, on_result_stored, NULL) < 0)
        log_kv(LOG_ERROR, "cannot queue a tournament result (read back at restart)",
               "tourney=%lld game=%lld", (long long)ref->t->info.id, (long long)game);
    g->finished = true;
    memcpy(g->rank, rank, sizeof g->rank);
    maybe_finish(ref->t);
    push(ref->t);
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
    unsigned n = HASH_COUNT(all);
    const tourney_info **list = malloc((n ? n : 1) * sizeof *list);
    if (list == NULL)
        return NULL;
    /* Every open and running one; of the others (finished, cancelled) the
     * newest TOURNAMENT_LIST_OVER (the table is in id order). */
    int over = 0;
    tourn *t, *tmp;
    HASH_ITER(hh, all, t, tmp)
    {
        over += t->info.state != TOURNEY_OPEN && t->info.state != TOURNEY_RUNNING;
    }
    int k = 0, skip = over > TOURNAMENT_LIST_OVER ? over - TOURNAMENT_LIST_OVER : 0;
    HASH_ITER(hh, all, t, tmp)
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

int tournament_create(int64_t account, const char *name, const tourney_create *req, int64_t *id,
                      tournament_err *e)
{
    if (account == 0) {
        fail(e, 401, "account_required", "tournaments need an account: log in", NULL);
        return -1;
    }
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        fail(e, 400, "unknown_game", "no such game id: %s", req->game);
        return -1;
    }
    if (req->size < TOURNEY_MIN_PLAYERS || req->size > TOURNEY_MAX_PLAYERS) {
        fail(e, 400, "bad_argument", "a section has 3 to 12 entrants%s", NULL);
        return -1;
    }
    /* The time control of a correspondence game (lobby.c's rules). */
    int64_t cap = req->inc_days == 0 ? 0 : req->cap_days ? req->cap_days : 60;
    store_tc tc = {req->days * STORE_DAY_MS, req->inc_days * STORE_DAY_MS, cap * STORE_DAY_MS};
    char why[160] = "";
    if (!proto_corr_days_allowed(req->days) || req->inc_days < 0 || req->inc_days > 14 || cap < 0 ||
        cap > 60 || store_tc_check(&tc, why, sizeof why) < 0) {
        fail(e, 400, "bad_time_control",
             "corr: days 1, 2, 3, 5, 7, 10 or 14; inc_days 0..14; cap_days up to 60%s", NULL);
        return -1;
    }
    int64_t now = store_now(db);
    if (req->start_ms != 0 && (req->start_ms < now || req->start_ms > now + 365LL * STORE_DAY_MS)) {
        fail(e, 400, "bad_argument", "start_ms is in the past or more than a year ahead%s", NULL);
        return -1;
    }
    int open = 0;
    tourn *it, *tmp;
    HASH_ITER(hh, all, it, tmp)
    {
        open += it->info.director == account && it->info.state == TOURNEY_OPEN;
    }
    if (open >= TOURNAMENT_OPEN_MAX) {
        fail(e, 429, "too_many_tournaments", "at most 5 open tournaments per director%s", NULL);
        return -1;
    }
    int64_t invited[TOURNEY_MAX_INVITES];
    int ninvited = 0;
    for (int i = 0; i < req->ninvite; i++) {
        int64_t a;
        if (accounts_find_now(db, req->invite[i], &a) < 0) {
            fail(e, 400, "unknown_player", "no account named %s", req->invite[i]);
            return -1;
        }
        bool dup = false;
        for (int k = 0; k < ninvited; k++)
            dup |= invited[k] == a;
        if (!dup)
            invited[ninvited++] = a;
    }
    tourn *t = calloc(1, sizeof *t);
    if (t == NULL) {
        fail(e, 500, "internal", "out of memory%s", NULL);
        return -1;
    }
    store_tourney st = {.director = account,
                        .size = req->size,
                        .twice = req->twice,
                        .tc = tc,
                        .start_ms = req->start_ms,
                        .invite_only = req->invite_only,
                        .rated = req->rated};
    snprintf(st.name, sizeof st.name, "%s", req->name);
    snprintf(st.variant, sizeof st.variant, "%s", v->id);
    if (store_tourney_create(db, &st, invited, ninvited) < 0) {
        free(t);
        fail(e, 500, "db_error", "the tournament could not be stored%s", NULL);
        return -1;
    }
    tourney_info *ti = &t->info;
    ti->id = st.id;
    snprintf(ti->name, sizeof ti->name, "%s", st.name);
    ti->director = account;
    snprintf(ti->director_name, sizeof ti->director_name, "%s", name);
    snprintf(ti->variant, sizeof ti->variant, "%s", v->id);
    ti->seats = v->nplayers;
    ti->size = st.size;
    ti->twice = st.twice;
    ti->days = req->days;
    ti->inc_days = req->inc_days;
    ti->cap_days = cap;
    ti->start_ms = st.start_ms;
    ti->invite_only = st.invite_only;
    ti->rated = st.rated;
    ti->state = TOURNEY_OPEN;
    ti->created_ms = ti->state_ms = st.created_ms;
    for (int i = 0; i < ninvited; i++) {
        tourney_entrant *en = &ti->entrants[ti->nentrants++];
        *en = (tourney_entrant){
            .account = invited[i], .status = TOURNEY_INVITED, .idx = -1, .at_ms = now};
        accounts_name_now(db, invited[i], en->name, sizeof en->name);
    }
    HASH_ADD(hh, all, info.id, sizeof ti->id, t);
    count_state(ti->state, 1);
    *id = ti->id;
    log_kv(LOG_INFO, "tournament created", "tourney=%lld game=%s size=%d", (long long)ti->id,
           ti->variant, ti->size);
    return 0;
}

/* Every game of the section at once. */
static int start(tourn *t, tournament_err *e)
{
    tourney_info *ti = &t->info;
    int64_t accounts[TOURNEY_MAX_PLAYERS];
    ident *who[TOURNEY_MAX_PLAYERS];
    int n = 0;
    for (int i = 0; i < ti->nentrants && n < TOURNEY_MAX_PLAYERS; i++) {
        tourney_entrant *en = &ti->entrants[i];
        if (en->status != TOURNEY_JOINED)
            continue;
        if ((who[n] = ident_account(en->account, en->name)) == NULL) {
            fail(e, 500, "internal", "out of memory%s", NULL);
            return -1;
        }
        accounts[n++] = en->account;
    }
    if (n < TOURNEY_MIN_PLAYERS) {
        fail(e, 409, "too_few_entrants", "a section needs at least 3 entrants%s", NULL);
        return -1;
    }
    static tourney_pairing p[TOURNEY_MAX_GAMES];
    static store_tourney_game sg[TOURNEY_MAX_GAMES];
    int ng = tourney_schedule(n, ti->seats, ti->twice, p, TOURNEY_MAX_GAMES);
    if (ng <= 0) {
        fail(e, 500, "internal", "no schedule%s", NULL);
        return -1;
    }
    room_settings rs = {
        .game = ti->variant, .rated = ti->rated, .corr = {ti->days, ti->inc_days, ti->cap_days}};
    for (int i = 0; i < ng; i++) {
        ident *seats[TOURNEY_MAX_SEATS];
        for (int s = 0; s < ti->seats; s++)
            seats[s] = who[p[i].player[s]];
        proto_err perr;
        char why[160];
        room *r = room_start_quiet(&rs, seats, ti->seats, &perr, why, sizeof why);
        if (r == NULL) {
            /* The games started so far stay (they are stored); the
             * tournament does not start. Rare: out of memory, disk full. */
            log_kv(LOG_ERROR, "a tournament game could not start", "tourney=%lld why=\"%s\"",
                   (long long)ti->id, why);
            fail(e, 500, "internal", "a game could not start: %s", why);
            return -1;
        }
        sg[i] = (store_tourney_game){.game = room_id(r),
                                     .round = p[i].round,
                                     .player = {p[i].player[0], p[i].player[1], -1}};
        if (ti->seats == 3)
            sg[i].player[2] = p[i].player[2];
    }
    int64_t now = store_now(db);
    if (store_tourney_start(db, ti->id, now, accounts, n, sg, ng) < 0)
        log_kv(LOG_ERROR, "cannot store a tournament's start", "tourney=%lld", (long long)ti->id);
    for (int i = 0, k = 0; i < ti->nentrants; i++)
        if (ti->entrants[i].status == TOURNEY_JOINED)
            ti->entrants[i].idx = k++;
    /* Invitations not taken go. */
    for (int i = 0; i < ti->nentrants;)
        if (ti->entrants[i].status == TOURNEY_INVITED)
            entrant_drop(ti, ti->entrants[i].account);
        else
            i++;
    ti->ngames = ng;
    for (int i = 0; i < ng; i++) {
        ti->games[i] = (tourney_tgame){.game = sg[i].game, .round = sg[i].round};
        for (int s = 0; s < TOURNEY_MAX_SEATS; s++)
            ti->games[i].player[s] = sg[i].player[s];
        if (ref_game(t, i) < 0)
            log_kv(LOG_ERROR, "out of memory: a tournament game is not followed", "game=%lld",
                   (long long)sg[i].game);
    }
    state_to(t, TOURNEY_RUNNING, now);
    notify_tournament_started(ti->id, ti->name, ti->variant, accounts, n, ng * ti->seats / n);
    metrics_now.tournament_games += (uint64_t)ng;
    log_kv(LOG_INFO, "tournament started", "tourney=%lld entrants=%d games=%d", (long long)ti->id,
           n, ng);
    return 0;
}

static int set_state(tourn *t, int state, tournament_err *e)
{
    int64_t now = store_now(db);
    if (store_tourney_set_state(db, t->info.id, state, now) < 0) {
        fail(e, 500, "db_error", "the tournament could not be stored%s", NULL);
        return -1;
    }
    state_to(t, state, now);
    return 0;
}

static int put(tourn *t, const tourney_entrant *en, tournament_err *e)
{
    store_entrant se = {.account = en->account,
                        .status = en->status,
                        .idx = en->idx,
                        .at_ms = en->at_ms,
                        .played_at = en->played_at};
    if (store_tourney_entrant_put(db, t->info.id, &se) < 0) {
        fail(e, 500, "db_error", "the entry could not be stored%s", NULL);
        return -1;
    }
    return 0;
}

static int act_join(tourn *t, int64_t account, const char *name, tournament_err *e)
{
    tourney_info *ti = &t->info;
    tourney_entrant *en = entrant_of(ti, account);
    if (en != NULL && en->status == TOURNEY_JOINED) {
        fail(e, 409, "already_joined", "you are already in this tournament%s", NULL);
        return -1;
    }
    if (en == NULL && ti->invite_only && account != ti->director) {
        fail(e, 403, "not_invited", "this tournament is by invitation%s", NULL);
        return -1;
    }
    if (joined(ti) >= ti->size) {
        fail(e, 409, "full", "the tournament is full%s", NULL);
        return -1;
    }
    if (en == NULL && ti->nentrants >= TOURNEY_MAX_ENTRANTS) {
        fail(e, 409, "full", "the tournament is full%s", NULL);
        return -1;
    }
    tourney_entrant ne = {
        .account = account, .status = TOURNEY_JOINED, .idx = -1, .at_ms = store_now(db)};
    snprintf(ne.name, sizeof ne.name, "%s", name);
    if (put(t, &ne, e) < 0)
        return -1;
    /* A joined entrant goes to the end: the order of joining. */
    entrant_drop(ti, account);
    ti->entrants[ti->nentrants++] = ne;
    if (ti->start_ms == 0 && joined(ti) == ti->size) {
        tournament_err se;
        if (start(t, &se) < 0)
            log_kv(LOG_ERROR, "a full tournament could not start", "tourney=%lld why=\"%s\"",
                   (long long)ti->id, se.why);
    }
    return 0;
}

/* Out of an open tournament: an invited entrant stays invited. */
static int act_leave(tourn *t, int64_t account, bool keep_invite, tournament_err *e)
{
    tourney_info *ti = &t->info;
    tourney_entrant *en = entrant_of(ti, account);
    if (en == NULL || (keep_invite && en->status != TOURNEY_JOINED)) {
        fail(e, 409, "not_entered", "not in this tournament%s", NULL);
        return -1;
    }
    if (keep_invite && ti->invite_only) {
        tourney_entrant ne = *en;
        ne.status = TOURNEY_INVITED;
        if (put(t, &ne, e) < 0)
            return -1;
        *en = ne;
        return 0;
    }
    if (store_tourney_entrant_del(db, ti->id, account) < 0) {
        fail(e, 500, "db_error", "the entry could not be stored%s", NULL);
        return -1;
    }
    entrant_drop(ti, account);
    return 0;
}

static int act_withdraw(tourn *t, int64_t account, tournament_err *e)
{
    tourney_info *ti = &t->info;
    tourney_entrant *en = entrant_of(ti, account);
    if (en == NULL || en->status != TOURNEY_JOINED) {
        fail(e, 409, "not_entered", "not playing in this tournament%s", NULL);
        return -1;
    }
    tourney_entrant ne = *en;
    ne.status = TOURNEY_WITHDRAWN;
    ne.played_at = finished_of(ti, en->idx);
    if (put(t, &ne, e) < 0)
        return -1;
    *en = ne;
    log_kv(LOG_INFO, "tournament withdrawal", "tourney=%lld idx=%d played=%d", (long long)ti->id,
           ne.idx, ne.played_at);
    /* Every unfinished game is forfeited; its result comes back through
     * on_over like any other. */
    int64_t ids[TOURNEY_MAX_GAMES];
    int k = 0;
    for (int i = 0; i < ti->ngames; i++)
        for (int s = 0; s < ti->seats; s++)
            if (!ti->games[i].finished && ti->games[i].player[s] == ne.idx)
                ids[k++] = ti->games[i].game;
    for (int i = 0; i < k; i++)
        room_forfeit(ids[i], account);
    return 0;
}

int tournament_act(int64_t id, const char *action, int64_t account, const char *name,
                   const char *username, tournament_err *e)
{
    tourn *t = find(id);
    if (t == NULL) {
        fail(e, 404, "not_found", "no such tournament%s", NULL);
        return -1;
    }
    if (account == 0) {
        fail(e, 401, "account_required", "tournaments need an account: log in%s", NULL);
        return -1;
    }
    tourney_info *ti = &t->info;
    bool director = account == ti->director;
    bool is_withdraw = strcmp(action, "withdraw") == 0;
    if (ti->state != (is_withdraw ? TOURNEY_RUNNING : TOURNEY_OPEN)) {
        fail(e, 409, "bad_state", "the tournament is %s", tourney_state_name(ti->state));
        return -1;
    }
    int err = -1;
    if (strcmp(action, "join") == 0) {
        err = act_join(t, account, name, e);
    } else if (strcmp(action, "leave") == 0) {
        err = act_leave(t, account, true, e);
    } else if (is_withdraw) {
        err = act_withdraw(t, account, e);
    } else if (!director) {
        fail(e, 403, "not_director", "only the director may %s", action);
        return -1;
    } else if (strcmp(action, "start") == 0) {
        err = start(t, e);
    } else if (strcmp(action, "cancel") == 0) {
        err = set_state(t, TOURNEY_CANCELLED, e);
    } else if (strcmp(action, "remove") == 0) {
        int64_t who = 0;
        if (username == NULL || accounts_find_now(db, username, &who) < 0) {
            fail(e, 400, "unknown_player", "no account named %s", username);
            return -1;
        }
        err = act_leave(t, who, false, e);
    } else {
        fail(e, 404, "not_found", "no such action: %s", action);
        return -1;
    }
    if (err == 0)
        push(t);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Start dates, restore. */

static void on_tick(uv_timer_t *h)
{
    (void)h;
    int64_t now = store_now(db);
    tourn *t, *tmp;
    HASH_ITER(hh, all, t, tmp)
    {
        if (t->info.state != TOURNEY_OPEN || t->info.start_ms == 0 || t->info.start_ms > now)
            continue;
        tournament_err e;
        if (start(t, &e) < 0) {
            log_kv(LOG_INFO, "tournament cancelled at its start date", "tourney=%lld why=\"%s\"",
                   (long long)t->info.id, e.why);
            set_state(t, TOURNEY_CANCELLED, &e);
        }
        push(t);
    }
}

static void on_load_tourney(void *arg, const store_tourney *st)
{
    (void)arg;
    tourn *t = calloc(1, sizeof *t);
    const rules_variant *v = rules_find(st->variant);
    if (t == NULL || v == NULL) {
        free(t);
        log_kv(LOG_ERROR, "tournament not restored", "tourney=%lld", (long long)st->id);
        return;
    }
    tourney_info *ti = &t->info;
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
    HASH_ADD(hh, all, info.id, sizeof ti->id, t);
    count_state(ti->state, 1);
}

static void on_load_entrant(void *arg, int64_t tourney, const store_entrant *se)
{
    (void)arg;
    tourn *t = find(tourney);
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
    tourn *t = find(tourney);
    if (t == NULL || t->info.ngames >= TOURNEY_MAX_GAMES)
        return;
    int i = t->info.ngames++;
    tourney_tgame *g = &t->info.games[i];
    *g = (tourney_tgame){.game = sg->game, .round = sg->round, .finished = sg->finished};
    for (int s = 0; s < TOURNEY_MAX_SEATS; s++) {
        g->player[s] = sg->player[s];
        g->rank[s] = sg->rank[s];
    }
    if (ref_game(t, i) < 0)
        log_kv(LOG_ERROR, "out of memory: a tournament game is not followed", "game=%lld",
               (long long)sg->game);
}

int tournament_init(uv_loop_t *l, store *s)
{
    loop = l;
    db = s;
    room_set_over_cb(on_over, NULL);
    store_tourney_loader ld = {on_load_tourney, on_load_entrant, on_load_game, NULL};
    int err = store_tourney_load(db, &ld);
    if (err < 0)
        return err;
    /* Games over whose places were not written (a crash between the two):
     * read back from the game itself. */
    int reads = 0;
    tourn *t, *tmp;
    HASH_ITER(hh, all, t, tmp)
    {
        if (t->info.state != TOURNEY_RUNNING)
            continue;
        for (int i = 0; i < t->info.ngames; i++)
            if (!t->info.games[i].finished && room_find(t->info.games[i].game) == NULL &&
                store_game_get(db, t->info.games[i].game, on_read_back, NULL) == 0)
                reads++;
        maybe_finish(t);
    }
    if (HASH_COUNT(all) > 0)
        log_kv(LOG_INFO, "tournaments restored", "tournaments=%u read_back=%d", HASH_COUNT(all),
               reads);
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
    game_ref *r, *rt;
    HASH_ITER(hh, by_game, r, rt)
    {
        HASH_DEL(by_game, r);
        free(r);
    }
    tourn *t, *tmp;
    HASH_ITER(hh, all, t, tmp)
    {
        HASH_DEL(all, t);
        count_state(t->info.state, -1);
        free(t);
    }
    free(watches);
    watches = NULL;
    nwatches = capwatches = 0;
}
