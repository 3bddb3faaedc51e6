/*
 * tournament_act.c - the requests on tournaments (tournament.h): the
 * creation, and join, leave, withdraw, the director's start, cancel and
 * remove, and the start at a date, each in its tournament's turn; their
 * writes queued (store_tourney.h), applied in memory once committed.
 */
#include "tournament.h"
#include "tournament_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "ident.h"
#include "log.h"
#include "counters.h"
#include "notify.h"
#include "room.h"
#include "store.h"
#include "store_tourney.h"
#include "tourney.h"

enum { J_JOIN, J_LEAVE, J_WITHDRAW, J_START, J_CANCEL, J_REMOVE, J_OTHER, J_DUE };

/* A request in its tournament's turn (tourn.first .. last). */
struct tjob {
    tjob *next;
    tourn *t;
    int kind;
    bool begun;
    int64_t account;
    char name[TOURNEY_USER_MAX];
    char username[TOURNEY_USER_MAX];
    bool has_username;
    tourney_entrant ne; /* the entrant as it will be */
    bool del;           /* leave: the row goes */
    int64_t at_ms;
    /* A start: its entrants in order, its games, what follows it. */
    int64_t accounts[TOURNEY_MAX_PLAYERS];
    int n, ng;
    store_tourney_game sg[TOURNEY_MAX_GAMES];
    void (*then)(tjob *j, int err);
    tournament_err e;
    tournament_cb cb;
    void *arg;
    char action[]; /* as asked */
};

static void fail(tournament_err *e, unsigned status, const char *code, const char *fmt,
                 const char *arg)
{
    e->status = status;
    e->code = code;
    snprintf(e->why, sizeof e->why, fmt, arg ? arg : "");
}

/* ------------------------------------------------------------------------ */
/* Turns: a tournament's requests one at a time, in order. */

static void job_begin(tjob *j);

/* Begin the next request while none runs (requests that end at once end
 * inside job_begin: the loop, not recursion, takes the next). */
static void pump(tourn *t)
{
    if (t->pumping)
        return;
    t->pumping = true;
    while (t->first != NULL && !t->first->begun) {
        t->first->begun = true;
        job_begin(t->first);
    }
    t->pumping = false;
}

static void job_add(tjob *j)
{
    tourn *t = j->t;
    j->next = NULL;
    if (t->last)
        t->last->next = j;
    else
        t->first = j;
    t->last = j;
    pump(t);
}

/* The running request ends: the watchers see a change, the asker its
 * answer (e NULL: done), the next request begins. */
static void job_end(tjob *j, bool changed, const tournament_err *e)
{
    tourn *t = j->t;
    t->first = j->next;
    if (t->first == NULL)
        t->last = NULL;
    if (changed)
        tournament__push(t);
    if (j->cb)
        j->cb(j->arg, t->info.id, e);
    free(j);
    pump(t);
}

static void job_fail(tjob *j)
{
    job_end(j, false, &j->e);
}

static void job_done(tjob *j)
{
    job_end(j, true, NULL);
}

void tournament__jobs_free(tourn *t)
{
    tournament_err e = {0};
    fail(&e, 503, "unavailable", "the server is stopping%s", NULL);
    while (t->first != NULL) {
        tjob *j = t->first;
        t->first = j->next;
        if (j->cb)
            j->cb(j->arg, t->info.id, &e);
        free(j);
    }
    t->last = NULL;
}

/* ------------------------------------------------------------------------ */
/* The start: every game of the section at once, then the write. */

static void on_started(void *arg, int status)
{
    tjob *j = arg;
    tourn *t = j->t;
    tourney_info *ti = &t->info;
    if (status < 0) {
        /* The games were in the same batch: their rooms are aborted. */
        log_kv(LOG_ERROR, "cannot store a tournament's start", "tourney=%lld status=%s",
               (long long)ti->id, store_err_code(status));
        fail(&j->e, 500, "db_error", "the tournament could not be stored%s", NULL);
        j->then(j, -1);
        return;
    }
    for (int i = 0, k = 0; i < ti->nentrants; i++)
        if (ti->entrants[i].status == TOURNEY_JOINED)
            ti->entrants[i].idx = k++;
    /* Invitations not taken go. */
    for (int i = 0; i < ti->nentrants;)
        if (ti->entrants[i].status == TOURNEY_INVITED)
            tournament__entrant_drop(ti, ti->entrants[i].account);
        else
            i++;
    ti->ngames = j->ng;
    for (int i = 0; i < j->ng; i++) {
        ti->games[i] = (tourney_tgame){.game = j->sg[i].game, .round = j->sg[i].round};
        for (int s = 0; s < TOURNEY_MAX_SEATS; s++)
            ti->games[i].player[s] = j->sg[i].player[s];
        if (tournament__ref_game(t, i) < 0)
            log_kv(LOG_ERROR, "out of memory: a tournament game is not followed", "game=%lld",
                   (long long)j->sg[i].game);
    }
    tournament__state_to(t, TOURNEY_RUNNING, j->at_ms);
    notify_tournament_started(ti->id, ti->name, ti->variant, j->accounts, j->n,
                              j->ng * ti->seats / j->n);
    metrics_now.tournament_games += (uint64_t)j->ng;
    log_kv(LOG_INFO, "tournament started", "tourney=%lld entrants=%d games=%d", (long long)ti->id,
           j->n, j->ng);
    j->then(j, 0);
}

/* then(j, 0) once started, or then(j, -1) with j->e. */
static void start_begin(tjob *j, void (*then)(tjob *j, int err))
{
    j->then = then;
    tourney_info *ti = &j->t->info;
    ident *who[TOURNEY_MAX_PLAYERS];
    int n = 0;
    for (int i = 0; i < ti->nentrants && n < TOURNEY_MAX_PLAYERS; i++) {
        tourney_entrant *en = &ti->entrants[i];
        if (en->status != TOURNEY_JOINED)
            continue;
        if ((who[n] = ident_account(en->account, en->name)) == NULL) {
            fail(&j->e, 500, "internal", "out of memory%s", NULL);
            then(j, -1);
            return;
        }
        j->accounts[n++] = en->account;
    }
    j->n = n;
    if (n < TOURNEY_MIN_PLAYERS) {
        fail(&j->e, 409, "too_few_entrants", "a section needs at least 3 entrants%s", NULL);
        then(j, -1);
        return;
    }
    static tourney_pairing p[TOURNEY_MAX_GAMES];
    int ng = tourney_schedule(n, ti->seats, ti->twice, p, TOURNEY_MAX_GAMES);
    if (ng <= 0) {
        fail(&j->e, 500, "internal", "no schedule%s", NULL);
        then(j, -1);
        return;
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
            fail(&j->e, 500, "internal", "a game could not start: %s", why);
            then(j, -1);
            return;
        }
        j->sg[i] = (store_tourney_game){.game = room_id(r),
                                        .round = p[i].round,
                                        .player = {p[i].player[0], p[i].player[1], -1}};
        if (ti->seats == 3)
            j->sg[i].player[2] = p[i].player[2];
    }
    j->ng = ng;
    j->at_ms = store_now(tournament__db);
    /* Queued behind the games' creations: the same batch. */
    int err = store_tourney_start(tournament__db, ti->id, j->at_ms, j->accounts, n, j->sg, ng,
                                  on_started, j);
    if (err < 0)
        on_started(j, err);
}

static void director_started(tjob *j, int err)
{
    if (err < 0)
        job_fail(j);
    else
        job_done(j);
}

/* ------------------------------------------------------------------------ */
/* Entrants. */

/* Queue the write of j->ne (or its removal, j->del), then done. */
static void entrant_write(tjob *j, store_done_cb done)
{
    const tourney_entrant *en = &j->ne;
    store_entrant se = {.account = en->account,
                        .status = en->status,
                        .idx = en->idx,
                        .at_ms = en->at_ms,
                        .played_at = en->played_at};
    int64_t id = j->t->info.id;
    int err = j->del ? store_tourney_entrant_del(tournament__db, id, en->account, done, j)
                     : store_tourney_entrant_put(tournament__db, id, &se, done, j);
    if (err < 0)
        done(j, err);
}

/* A write of an entrant that failed: 0 if it did not. */
static int entrant_failed(tjob *j, int status)
{
    if (status >= 0)
        return 0;
    fail(&j->e, 500, "db_error", "the entry could not be stored%s", NULL);
    job_fail(j);
    return -1;
}

static void full_started(tjob *j, int err)
{
    if (err < 0)
        log_kv(LOG_ERROR, "a full tournament could not start", "tourney=%lld why=\"%s\"",
               (long long)j->t->info.id, j->e.why);
    job_done(j); /* the join stands */
}

static void on_joined(void *arg, int status)
{
    tjob *j = arg;
    if (entrant_failed(j, status) < 0)
        return;
    tourney_info *ti = &j->t->info;
    /* A joined entrant goes to the end: the order of joining. */
    tournament__entrant_drop(ti, j->ne.account);
    ti->entrants[ti->nentrants++] = j->ne;
    if (ti->start_ms == 0 && tournament__joined(ti) == ti->size)
        start_begin(j, full_started);
    else
        job_done(j);
}

static void join_begin(tjob *j)
{
    tourney_info *ti = &j->t->info;
    tourney_entrant *en = tournament__entrant_of(ti, j->account);
    if (en != NULL && en->status == TOURNEY_JOINED) {
        fail(&j->e, 409, "already_joined", "you are already in this tournament%s", NULL);
        job_fail(j);
        return;
    }
    if (en == NULL && ti->invite_only && j->account != ti->director) {
        fail(&j->e, 403, "not_invited", "this tournament is by invitation%s", NULL);
        job_fail(j);
        return;
    }
    if (tournament__joined(ti) >= ti->size ||
        (en == NULL && ti->nentrants >= TOURNEY_MAX_ENTRANTS)) {
        fail(&j->e, 409, "full", "the tournament is full%s", NULL);
        job_fail(j);
        return;
    }
    j->ne = (tourney_entrant){.account = j->account,
                              .status = TOURNEY_JOINED,
                              .idx = -1,
                              .at_ms = store_now(tournament__db)};
    snprintf(j->ne.name, sizeof j->ne.name, "%s", j->name);
    entrant_write(j, on_joined);
}

static void on_left(void *arg, int status)
{
    tjob *j = arg;
    if (entrant_failed(j, status) < 0)
        return;
    tourney_info *ti = &j->t->info;
    tourney_entrant *en = tournament__entrant_of(ti, j->ne.account);
    if (j->del)
        tournament__entrant_drop(ti, j->ne.account);
    else if (en != NULL)
        *en = j->ne;
    job_done(j);
}

/* Out of an open tournament: an invited entrant stays invited. */
static void leave_begin(tjob *j, int64_t account, bool keep_invite)
{
    tourney_info *ti = &j->t->info;
    tourney_entrant *en = tournament__entrant_of(ti, account);
    if (en == NULL || (keep_invite && en->status != TOURNEY_JOINED)) {
        fail(&j->e, 409, "not_entered", "not in this tournament%s", NULL);
        job_fail(j);
        return;
    }
    j->ne = *en;
    j->del = !(keep_invite && ti->invite_only);
    j->ne.status = TOURNEY_INVITED;
    entrant_write(j, on_left);
}

static void on_removed_found(void *arg, int status, const store_account *a)
{
    tjob *j = arg;
    if (status < 0) {
        fail(&j->e, 400, "unknown_player", "no account named %s", j->username);
        job_fail(j);
        return;
    }
    leave_begin(j, a->id, false);
}

static void remove_begin(tjob *j)
{
    int err = j->has_username ? accounts_find(tournament__db, j->username, on_removed_found, j)
                              : STORE_ENOT_FOUND;
    if (err < 0) {
        fail(&j->e, 400, "unknown_player", "no account named %s",
             j->has_username ? j->username : NULL);
        job_fail(j);
    }
}

static void on_withdrawn(void *arg, int status)
{
    tjob *j = arg;
    if (entrant_failed(j, status) < 0)
        return;
    tourney_info *ti = &j->t->info;
    tourney_entrant *en = tournament__entrant_of(ti, j->ne.account);
    if (en != NULL)
        *en = j->ne;
    log_kv(LOG_INFO, "tournament withdrawal", "tourney=%lld idx=%d played=%d", (long long)ti->id,
           j->ne.idx, j->ne.played_at);
    /* Every unfinished game is forfeited; its result comes back through
     * the rooms like any other. */
    int64_t ids[TOURNEY_MAX_GAMES];
    int k = 0;
    for (int i = 0; i < ti->ngames; i++)
        for (int s = 0; s < ti->seats; s++)
            if (!ti->games[i].finished && ti->games[i].player[s] == j->ne.idx)
                ids[k++] = ti->games[i].game;
    for (int i = 0; i < k; i++)
        room_forfeit(ids[i], j->account);
    job_done(j);
}

static void withdraw_begin(tjob *j)
{
    tourney_info *ti = &j->t->info;
    tourney_entrant *en = tournament__entrant_of(ti, j->account);
    if (en == NULL || en->status != TOURNEY_JOINED) {
        fail(&j->e, 409, "not_entered", "not playing in this tournament%s", NULL);
        job_fail(j);
        return;
    }
    j->ne = *en;
    j->ne.status = TOURNEY_WITHDRAWN;
    j->ne.played_at = tournament__finished_of(ti, en->idx);
    entrant_write(j, on_withdrawn);
}

/* ------------------------------------------------------------------------ */
/* Cancel (the director, or a start date with too few entrants). */

static void on_cancelled(void *arg, int status)
{
    tjob *j = arg;
    if (status < 0) {
        log_kv(LOG_ERROR, "cannot store a tournament's cancellation", "tourney=%lld status=%s",
               (long long)j->t->info.id, store_err_code(status));
        fail(&j->e, 500, "db_error", "the tournament could not be stored%s", NULL);
        job_fail(j);
        return;
    }
    tournament__state_to(j->t, TOURNEY_CANCELLED, j->at_ms);
    job_done(j);
}

static void cancel_begin(tjob *j)
{
    j->at_ms = store_now(tournament__db);
    int err = store_tourney_set_state(tournament__db, j->t->info.id, TOURNEY_CANCELLED, j->at_ms,
                                      on_cancelled, j);
    if (err < 0)
        on_cancelled(j, err);
}

/* ------------------------------------------------------------------------ */
/* Start dates. */

static void due_started(tjob *j, int err)
{
    if (err == 0) {
        job_done(j);
    } else if (strcmp(j->e.code, "db_error") == 0) {
        /* Not written: still open, tried again at the next tick. */
        job_end(j, false, NULL);
    } else {
        log_kv(LOG_INFO, "tournament cancelled at its start date", "tourney=%lld why=\"%s\"",
               (long long)j->t->info.id, j->e.why);
        cancel_begin(j);
    }
}

void tournament__start_due(int64_t now)
{
    tourn *t, *tmp;
    HASH_ITER(hh, tournament__all, t, tmp)
    {
        /* A tournament with requests in turn is looked at again next tick. */
        if (t->info.state != TOURNEY_OPEN || t->info.start_ms == 0 || t->info.start_ms > now ||
            t->first != NULL)
            continue;
        tjob *j = calloc(1, sizeof *j + 1);
        if (j == NULL)
            return;
        j->t = t;
        j->kind = J_DUE;
        job_add(j);
    }
}

/* ------------------------------------------------------------------------ */
/* Requests. */

static void job_begin(tjob *j)
{
    tourney_info *ti = &j->t->info;
    if (j->kind == J_DUE) {
        start_begin(j, due_started);
        return;
    }
    bool is_withdraw = j->kind == J_WITHDRAW;
    if (ti->state != (is_withdraw ? TOURNEY_RUNNING : TOURNEY_OPEN)) {
        fail(&j->e, 409, "bad_state", "the tournament is %s", tourney_state_name(ti->state));
        job_fail(j);
        return;
    }
    if (j->kind == J_JOIN)
        join_begin(j);
    else if (j->kind == J_LEAVE)
        leave_begin(j, j->account, true);
    else if (is_withdraw)
        withdraw_begin(j);
    else if (j->account != ti->director) {
        fail(&j->e, 403, "not_director", "only the director may %s", j->action);
        job_fail(j);
    } else if (j->kind == J_START)
        start_begin(j, director_started);
    else if (j->kind == J_CANCEL)
        cancel_begin(j);
    else if (j->kind == J_REMOVE)
        remove_begin(j);
    else {
        fail(&j->e, 404, "not_found", "no such action: %s", j->action);
        job_fail(j);
    }
}

void tournament_act(int64_t id, const char *action, int64_t account, const char *name,
                    const char *username, tournament_cb cb, void *arg)
{
    tournament_err e = {0};
    tourn *t = tournament__find(id);
    tjob *j = NULL;
    if (t == NULL)
        fail(&e, 404, "not_found", "no such tournament%s", NULL);
    else if (account == 0)
        fail(&e, 401, "account_required", "tournaments need an account: log in%s", NULL);
    else if ((j = calloc(1, sizeof *j + strlen(action) + 1)) == NULL)
        fail(&e, 500, "internal", "out of memory%s", NULL);
    if (j == NULL) {
        cb(arg, id, &e);
        return;
    }
    static const char *const kinds[] = {"join", "leave", "withdraw", "start", "cancel", "remove"};
    j->kind = J_OTHER;
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(action, kinds[k]) == 0)
            j->kind = k;
    j->t = t;
    j->account = account;
    snprintf(j->name, sizeof j->name, "%s", name);
    strcpy(j->action, action);
    if ((j->has_username = username != NULL))
        snprintf(j->username, sizeof j->username, "%s", username);
    j->cb = cb;
    j->arg = arg;
    job_add(j);
}

/* ------------------------------------------------------------------------ */
/* Creation: the invitation list looked up (all at once), then the write. */

typedef struct create_job create_job;

/* One name of the invitation list being looked up. */
typedef struct invite_slot {
    create_job *c;
    int status;
    int64_t account;
    char name[TOURNEY_USER_MAX];
} invite_slot;

struct create_job {
    create_job *next; /* creations in flight (the director's limit) */
    int64_t director;
    tourney_create req;
    store_tourney st; /* the row to store, director_name included */
    invite_slot slot[TOURNEY_MAX_INVITES];
    int answered;
    bool asked;
    int64_t invited[TOURNEY_MAX_INVITES];
    int from[TOURNEY_MAX_INVITES]; /* invited[i]'s slot */
    int ninvited;
    tournament_cb cb;
    void *arg;
};

static create_job *creating;

/* The asker's answer; the creation is over. */
static void create_end(create_job *c, int64_t id, const tournament_err *e)
{
    for (create_job **p = &creating; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    c->cb(c->arg, id, e);
    free(c);
}

static void create_fail(create_job *c, unsigned status, const char *code, const char *fmt,
                        const char *arg)
{
    tournament_err e = {0};
    fail(&e, status, code, fmt, arg);
    create_end(c, 0, &e);
}

static void on_created(void *arg, int status, const store_tourney *st)
{
    create_job *c = arg;
    if (status < 0) {
        create_fail(c, 500, "db_error", "the tournament could not be stored%s", NULL);
        return;
    }
    /* st is c->st as stored: open, created (and state changed) now. */
    tourn *t = calloc(1, sizeof *t);
    if (t == NULL || tournament__info_from_stored(&t->info, st) < 0) {
        free(t); /* stored: restored at the next start */
        create_fail(c, 500, "internal", "out of memory%s", NULL);
        return;
    }
    tourney_info *ti = &t->info;
    for (int i = 0; i < c->ninvited; i++) {
        tourney_entrant *en = &ti->entrants[ti->nentrants++];
        *en = (tourney_entrant){.account = c->invited[i],
                                .status = TOURNEY_INVITED,
                                .idx = -1,
                                .at_ms = st->created_ms};
        snprintf(en->name, sizeof en->name, "%s", c->slot[c->from[i]].name);
    }
    HASH_ADD(hh, tournament__all, info.id, sizeof ti->id, t);
    if (t->hh.tbl == NULL) {
        free(t); /* stored: restored at the next start */
        create_fail(c, 500, "internal", "out of memory%s", NULL);
        return;
    }
    tournament__count_state(ti->state, 1);
    log_kv(LOG_INFO, "tournament created", "tourney=%lld game=%s size=%d", (long long)ti->id,
           ti->variant, ti->size);
    create_end(c, ti->id, NULL);
}

/* Every name answered: the first unknown one (in the list's order) is the
 * error; else the write. */
static void invites_known(create_job *c)
{
    for (int i = 0; i < c->req.ninvite; i++) {
        const invite_slot *sl = &c->slot[i];
        if (sl->status < 0) {
            create_fail(c, 400, "unknown_player", "no account named %s", c->req.invite[i]);
            return;
        }
        bool dup = false;
        for (int k = 0; k < c->ninvited; k++)
            dup |= c->invited[k] == sl->account;
        if (!dup) {
            c->from[c->ninvited] = i;
            c->invited[c->ninvited++] = sl->account;
        }
    }
    int err = store_tourney_create(tournament__db, &c->st, c->invited, c->ninvited, on_created, c);
    if (err < 0)
        on_created(c, err, NULL);
}

static void on_invite_found(void *arg, int status, const store_account *a)
{
    invite_slot *sl = arg;
    create_job *c = sl->c;
    sl->status = status;
    if (status == 0) {
        sl->account = a->id;
        snprintf(sl->name, sizeof sl->name, "%s", a->username);
    }
    if (++c->answered == c->req.ninvite && c->asked)
        invites_known(c);
}

void tournament_create(int64_t account, const char *name, const tourney_create *req,
                       tournament_cb cb, void *arg)
{
    tournament_err e = {0};
    if (account == 0) {
        fail(&e, 401, "account_required", "tournaments need an account: log in", NULL);
        cb(arg, 0, &e);
        return;
    }
    const rules_variant *v = rules_find(req->game);
    if (v == NULL) {
        fail(&e, 400, "unknown_game", "no such game id: %s", req->game);
        cb(arg, 0, &e);
        return;
    }
    if (req->size < TOURNEY_MIN_PLAYERS || req->size > TOURNEY_MAX_PLAYERS) {
        fail(&e, 400, "bad_argument", "a section has 3 to 12 entrants%s", NULL);
        cb(arg, 0, &e);
        return;
    }
    /* The time control of a correspondence game (lobby.c's rules). */
    /* Ranges first: the milliseconds of a day count of 10^12 overflow. */
    int64_t cap = req->inc_days == 0 ? 0 : req->cap_days ? req->cap_days : 60;
    bool days_ok = proto_corr_days_allowed(req->days) && req->inc_days >= 0 &&
                   req->inc_days <= 14 && cap >= 0 && cap <= 60;
    store_tc tc = {0, 0, 0};
    if (days_ok)
        tc = (store_tc){req->days * STORE_DAY_MS, req->inc_days * STORE_DAY_MS, cap * STORE_DAY_MS};
    char why[160] = "";
    if (!days_ok || store_tc_check(&tc, why, sizeof why) < 0) {
        fail(&e, 400, "bad_time_control",
             "corr: days 1, 2, 3, 5, 7, 10 or 14; inc_days 0..14; cap_days up to 60%s", NULL);
        cb(arg, 0, &e);
        return;
    }
    int64_t now = store_now(tournament__db);
    if (req->start_ms != 0 && (req->start_ms < now || req->start_ms > now + 365LL * STORE_DAY_MS)) {
        fail(&e, 400, "bad_argument", "start_ms is in the past or more than a year ahead%s", NULL);
        cb(arg, 0, &e);
        return;
    }
    /* Open ones and those being created. */
    int open = 0;
    tourn *it, *tmp;
    HASH_ITER(hh, tournament__all, it, tmp)
    {
        open += it->info.director == account && it->info.state == TOURNEY_OPEN;
    }
    for (const create_job *k = creating; k; k = k->next)
        open += k->director == account;
    if (open >= TOURNAMENT_OPEN_MAX) {
        fail(&e, 429, "too_many_tournaments", "at most 5 open tournaments per director%s", NULL);
        cb(arg, 0, &e);
        return;
    }
    create_job *c = calloc(1, sizeof *c);
    if (c == NULL) {
        fail(&e, 500, "internal", "out of memory%s", NULL);
        cb(arg, 0, &e);
        return;
    }
    c->next = creating;
    creating = c;
    c->director = account;
    c->req = *req;
    c->cb = cb;
    c->arg = arg;
    c->st = (store_tourney){.director = account,
                            .size = req->size,
                            .twice = req->twice,
                            .tc = tc,
                            .start_ms = req->start_ms,
                            .invite_only = req->invite_only,
                            .rated = req->rated};
    snprintf(c->st.name, sizeof c->st.name, "%s", req->name);
    snprintf(c->st.director_name, sizeof c->st.director_name, "%s", name);
    snprintf(c->st.variant, sizeof c->st.variant, "%s", v->id);
    /* Every name asked at once (one batch); an error at once counts as
     * an answer. */
    for (int i = 0; i < req->ninvite; i++) {
        c->slot[i].c = c;
        int err = accounts_find(tournament__db, req->invite[i], on_invite_found, &c->slot[i]);
        if (err < 0) {
            c->slot[i].status = err;
            c->answered++;
        }
    }
    c->asked = true;
    if (c->answered == req->ninvite)
        invites_known(c);
}
