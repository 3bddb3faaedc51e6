/*
 * store_tourney.c - tournaments on disk (store_tourney.h): the places of a
 * game queued, the rare writes queued calls (queue_call) on the writer's
 * connection, and the load at start-up (synchronous, the loop's
 * connection, before the loop runs).
 */
#include "store_impl.h"
#include "store_tourney.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The rare writes: queued calls (queue_call). Each runs on the writer's
 * connection inside its batch's transaction, after what was queued before
 * it (a start's games are created in the same transaction). */

/* One queued write: what it writes, and whom to tell. */
typedef struct tjob {
    store_tourney t; /* create: the tournament; others: t.id, t.state */
    store_entrant e;
    int64_t at_ms;
    int64_t *ids; /* create: the invited; start: the entrants in order */
    int nids;
    store_tourney_game *games; /* start */
    int ngames;
    store_tourney_cb tcb;
    store_done_cb done;
    void *arg;
} tjob;

static tjob *tjob_new(int64_t tourney, store_done_cb done, void *arg)
{
    tjob *j = calloc(1, sizeof *j);
    if (j != NULL) {
        j->t.id = tourney;
        j->done = done;
        j->arg = arg;
    }
    return j;
}

static void tjob_free(tjob *j)
{
    free(j->ids);
    free(j->games);
    free(j);
}

/* A copy of n ids into j->ids: 0 or -1 (out of memory). */
static int tjob_ids(tjob *j, const int64_t *ids, int n)
{
    if (n <= 0)
        return 0;
    if ((j->ids = malloc((size_t)n * sizeof *ids)) == NULL)
        return -1;
    memcpy(j->ids, ids, (size_t)n * sizeof *ids);
    j->nids = n;
    return 0;
}

static void tjob_done(store *s, void *job, int status)
{
    (void)s;
    tjob *j = job;
    if (j->tcb)
        j->tcb(j->arg, status, status == 0 ? &j->t : NULL);
    else if (j->done)
        j->done(j->arg, status);
    tjob_free(j);
}

/* Queue j (freed if refused): 0 or the error. */
static int tjob_queue(store *s, queue_run_fn run, tjob *j)
{
    if (j == NULL)
        return STORE_ENOMEM;
    int err = queue_call(s, run, tjob_done, j, false);
    if (err < 0)
        tjob_free(j);
    return err;
}

static int entrant_put(store *s, int64_t tourney, const store_entrant *e)
{
    sql_stmt *st = db_use(s->wst, ST_T_ENTRANT_PUT);
    sql_bind_i64(st, 1, tourney);
    sql_bind_i64(st, 2, e->account);
    sql_bind_int(st, 3, e->status);
    sql_bind_int(st, 4, e->idx);
    sql_bind_i64(st, 5, e->at_ms);
    sql_bind_int(st, 6, e->played_at);
    return db_run(st);
}

static int run_create(store *s, void *job)
{
    tjob *j = job;
    store_tourney *t = &j->t;
    sql_stmt *st = db_use(s->wst, ST_T_INSERT);
    sql_bind_text(st, 1, t->name, -1);
    sql_bind_i64(st, 2, t->director);
    sql_bind_text(st, 3, t->variant, -1);
    sql_bind_int(st, 4, t->size);
    sql_bind_int(st, 5, t->twice);
    sql_bind_i64(st, 6, t->tc.base_ms);
    sql_bind_i64(st, 7, t->tc.inc_ms);
    sql_bind_i64(st, 8, t->tc.cap_ms);
    sql_bind_i64(st, 9, t->start_ms);
    sql_bind_int(st, 10, t->invite_only);
    sql_bind_int(st, 11, t->rated);
    sql_bind_i64(st, 12, t->created_ms);
    sql_bind_i64(st, 13, t->created_ms);
    /* INSERT ... RETURNING id */
    int err = 0;
    if (sql_step(st) == SQL_ROW)
        t->id = sql_column_i64(st, 0);
    else
        err = STORE_EDB;
    sql_reset(st);
    for (int i = 0; err == 0 && i < j->nids; i++) {
        store_entrant e = {.account = j->ids[i],
                           .status = STORE_ENTRANT_INVITED,
                           .idx = -1,
                           .at_ms = t->created_ms};
        err = entrant_put(s, t->id, &e);
    }
    return err < 0 ? STORE_EDB : 0;
}

int store_tourney_create(store *s, const store_tourney *t, const int64_t *invited, int ninvited,
                         store_tourney_cb cb, void *arg)
{
    tjob *j = tjob_new(0, NULL, arg);
    if (j != NULL) {
        j->t = *t;
        j->t.id = 0;
        j->t.state = STORE_TOURNEY_OPEN;
        j->t.created_ms = j->t.state_ms = store_now(s);
        j->tcb = cb;
        if (tjob_ids(j, invited, ninvited) < 0) {
            tjob_free(j);
            j = NULL;
        }
    }
    return tjob_queue(s, run_create, j);
}

static int run_entrant_put(store *s, void *job)
{
    tjob *j = job;
    return entrant_put(s, j->t.id, &j->e) < 0 ? STORE_EDB : 0;
}

int store_tourney_entrant_put(store *s, int64_t tourney, const store_entrant *e, store_done_cb cb,
                              void *arg)
{
    tjob *j = tjob_new(tourney, cb, arg);
    if (j != NULL)
        j->e = *e;
    return tjob_queue(s, run_entrant_put, j);
}

static int run_entrant_del(store *s, void *job)
{
    tjob *j = job;
    sql_stmt *st = db_use(s->wst, ST_T_ENTRANT_DEL);
    sql_bind_i64(st, 1, j->t.id);
    sql_bind_i64(st, 2, j->e.account);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_tourney_entrant_del(store *s, int64_t tourney, int64_t account, store_done_cb cb,
                              void *arg)
{
    tjob *j = tjob_new(tourney, cb, arg);
    if (j != NULL)
        j->e.account = account;
    return tjob_queue(s, run_entrant_del, j);
}

static int set_state(store *s, int64_t tourney, int state, int64_t at_ms)
{
    sql_stmt *st = db_use(s->wst, ST_T_STATE);
    sql_bind_int(st, 1, state);
    sql_bind_i64(st, 2, at_ms);
    sql_bind_i64(st, 3, tourney);
    return db_run(st);
}

static int run_set_state(store *s, void *job)
{
    tjob *j = job;
    return set_state(s, j->t.id, j->t.state, j->at_ms) < 0 ? STORE_EDB : 0;
}

int store_tourney_set_state(store *s, int64_t tourney, int state, int64_t at_ms, store_done_cb cb,
                            void *arg)
{
    tjob *j = tjob_new(tourney, cb, arg);
    if (j != NULL) {
        j->t.state = state;
        j->at_ms = at_ms;
    }
    return tjob_queue(s, run_set_state, j);
}

static int run_start(store *s, void *job)
{
    tjob *j = job;
    int err = set_state(s, j->t.id, STORE_TOURNEY_RUNNING, j->at_ms);
    for (int i = 0; err == 0 && i < j->nids; i++) {
        sql_stmt *st = db_use(s->wst, ST_T_ENTRANT_IDX);
        sql_bind_int(st, 1, i);
        sql_bind_i64(st, 2, j->t.id);
        sql_bind_i64(st, 3, j->ids[i]);
        err = db_run(st);
    }
    for (int i = 0; err == 0 && i < j->ngames; i++) {
        const store_tourney_game *g = &j->games[i];
        sql_stmt *st = db_use(s->wst, ST_T_GAME_INSERT);
        sql_bind_i64(st, 1, j->t.id);
        sql_bind_i64(st, 2, g->game);
        sql_bind_int(st, 3, g->round);
        for (int k = 0; k < STORE_TOURNEY_SEATS; k++)
            if (g->player[k] >= 0)
                sql_bind_int(st, 4 + k, g->player[k]);
        err = db_run(st);
    }
    return err < 0 ? STORE_EDB : 0;
}

int store_tourney_start(store *s, int64_t tourney, int64_t at_ms, const int64_t *accounts, int n,
                        const store_tourney_game *games, int ngames, store_done_cb cb, void *arg)
{
    tjob *j = tjob_new(tourney, cb, arg);
    if (j != NULL) {
        j->at_ms = at_ms;
        bool oom = tjob_ids(j, accounts, n) < 0;
        if (!oom && ngames > 0) {
            oom = (j->games = malloc((size_t)ngames * sizeof *games)) == NULL;
            if (!oom) {
                memcpy(j->games, games, (size_t)ngames * sizeof *games);
                j->ngames = ngames;
            }
        }
        if (oom) {
            tjob_free(j);
            j = NULL;
        }
    }
    return tjob_queue(s, run_start, j);
}

/* The places of a game: op.clock_ms holds them by seat, op.player how many
 * seats. */
static int run_result(store *s, op *o)
{
    sql_stmt *st = db_use(s->wst, ST_T_GAME_RESULT);
    for (int k = 0; k < o->player && k < STORE_TOURNEY_SEATS; k++)
        sql_bind_i64(st, 1 + k, o->clock_ms[k]);
    sql_bind_i64(st, 4, o->game);
    return db_run(st);
}

static const op_kind result_kind = {run_result, queue_write_done, NULL, false, LEASE_NONE};

int store_tourney_result(store *s, int64_t game, const int *rank, int nseats, store_done_cb cb,
                         void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    op *o = queue_push(s, &result_kind, game);
    if (o == NULL)
        return STORE_ENOMEM;
    o->player = nseats;
    for (int k = 0; k < nseats && k < STORE_TOURNEY_SEATS; k++)
        o->clock_ms[k] = rank[k];
    o->cb.write = cb;
    o->arg = arg;
    return 0;
}

static void text(sql_stmt *st, int col, char *dst, size_t len)
{
    const char *v = sql_column_text(st, col);
    snprintf(dst, len, "%s", v ? (const char *)v : "");
}

int store_tourney_load(store *s, const store_tourney_loader *l)
{
    sql_stmt *st = db_use(db_loop(s), ST_T_ALL);
    int rc;
    while ((rc = sql_step(st)) == SQL_ROW) {
        store_tourney t = {.id = sql_column_i64(st, 0)};
        text(st, 1, t.name, sizeof t.name);
        t.director = sql_column_i64(st, 2);
        text(st, 3, t.director_name, sizeof t.director_name);
        text(st, 4, t.variant, sizeof t.variant);
        t.size = sql_column_int(st, 5);
        t.twice = sql_column_int(st, 6);
        t.tc = (store_tc){sql_column_i64(st, 7), sql_column_i64(st, 8), sql_column_i64(st, 9)};
        t.start_ms = sql_column_i64(st, 10);
        t.invite_only = sql_column_int(st, 11);
        t.rated = sql_column_int(st, 12);
        t.state = sql_column_int(st, 13);
        t.created_ms = sql_column_i64(st, 14);
        t.state_ms = sql_column_i64(st, 15);
        l->tourney(l->arg, &t);
    }
    sql_reset(st);
    if (rc != SQL_DONE)
        return STORE_EDB;
    st = db_use(db_loop(s), ST_T_ENTRANTS);
    while ((rc = sql_step(st)) == SQL_ROW) {
        store_entrant e = {.account = sql_column_i64(st, 1)};
        text(st, 2, e.name, sizeof e.name);
        e.status = sql_column_int(st, 3);
        e.idx = sql_column_int(st, 4);
        e.at_ms = sql_column_i64(st, 5);
        e.played_at = sql_column_int(st, 6);
        l->entrant(l->arg, sql_column_i64(st, 0), &e);
    }
    sql_reset(st);
    if (rc != SQL_DONE)
        return STORE_EDB;
    st = db_use(db_loop(s), ST_T_GAMES);
    while ((rc = sql_step(st)) == SQL_ROW) {
        store_tourney_game g = {.game = sql_column_i64(st, 1), .round = sql_column_int(st, 2)};
        g.finished = !sql_column_null(st, 6);
        for (int k = 0; k < STORE_TOURNEY_SEATS; k++) {
            bool has = !sql_column_null(st, 3 + k);
            g.player[k] = has ? sql_column_int(st, 3 + k) : -1;
            g.rank[k] = has && g.finished ? sql_column_int(st, 6 + k) : 0;
        }
        l->game(l->arg, sql_column_i64(st, 0), &g);
    }
    sql_reset(st);
    return rc == SQL_DONE ? 0 : STORE_EDB;
}
