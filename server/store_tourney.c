/*
 * store_tourney.c - tournaments on disk (store_tourney.h): the places of a
 * game queued, the rare writes synchronous on the loop's connection after
 * what is queued, and the load at start-up.
 */
#include "store_impl.h"
#include "store_tourney.h"

#include <stdio.h>
#include <string.h>

/* BEGIN after everything queued is written, so that what a tournament row
 * names (games, their results) is on disk first. */
static int begin(store *s)
{
    if (store_flush(s) < 0 || db_run(db_use(s->st, ST_BEGIN)) < 0)
        return STORE_EDB;
    return 0;
}

static int end(store *s, int err)
{
    if (err == 0)
        err = db_run(db_use(s->st, ST_COMMIT));
    if (err < 0)
        db_run(db_use(s->st, ST_ROLLBACK));
    return err < 0 ? STORE_EDB : 0;
}

static int entrant_put(store *s, int64_t tourney, const store_entrant *e)
{
    sql_stmt *st = db_use(s->st, ST_T_ENTRANT_PUT);
    sql_bind_i64(st, 1, tourney);
    sql_bind_i64(st, 2, e->account);
    sql_bind_int(st, 3, e->status);
    sql_bind_int(st, 4, e->idx);
    sql_bind_i64(st, 5, e->at_ms);
    sql_bind_int(st, 6, e->played_at);
    return db_run(st);
}

int store_tourney_create(store *s, store_tourney *t, const int64_t *invited, int ninvited)
{
    int64_t now = store_now(s);
    int err = begin(s);
    if (err < 0)
        return err;
    sql_stmt *st = db_use(s->st, ST_T_INSERT);
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
    sql_bind_i64(st, 12, now);
    sql_bind_i64(st, 13, now);
    /* INSERT ... RETURNING id */
    int64_t id = 0;
    if (sql_step(st) == SQL_ROW)
        id = sql_column_i64(st, 0);
    else
        err = STORE_EDB;
    sql_reset(st);
    for (int i = 0; err == 0 && i < ninvited; i++) {
        store_entrant e = {
            .account = invited[i], .status = STORE_ENTRANT_INVITED, .idx = -1, .at_ms = now};
        err = entrant_put(s, id, &e);
    }
    err = end(s, err);
    if (err == 0) {
        t->id = id;
        t->state = STORE_TOURNEY_OPEN;
        t->created_ms = t->state_ms = now;
    }
    return err;
}

int store_tourney_entrant_put(store *s, int64_t tourney, const store_entrant *e)
{
    int err = begin(s);
    return err < 0 ? err : end(s, entrant_put(s, tourney, e));
}

int store_tourney_entrant_del(store *s, int64_t tourney, int64_t account)
{
    int err = begin(s);
    if (err < 0)
        return err;
    sql_stmt *st = db_use(s->st, ST_T_ENTRANT_DEL);
    sql_bind_i64(st, 1, tourney);
    sql_bind_i64(st, 2, account);
    return end(s, db_run(st));
}

static int set_state(store *s, int64_t tourney, int state, int64_t at_ms)
{
    sql_stmt *st = db_use(s->st, ST_T_STATE);
    sql_bind_int(st, 1, state);
    sql_bind_i64(st, 2, at_ms);
    sql_bind_i64(st, 3, tourney);
    return db_run(st);
}

int store_tourney_set_state(store *s, int64_t tourney, int state, int64_t at_ms)
{
    int err = begin(s);
    return err < 0 ? err : end(s, set_state(s, tourney, state, at_ms));
}

int store_tourney_start(store *s, int64_t tourney, int64_t at_ms, const int64_t *accounts, int n,
                        const store_tourney_game *games, int ngames)
{
    int err = begin(s);
    if (err < 0)
        return err;
    err = set_state(s, tourney, STORE_TOURNEY_RUNNING, at_ms);
    for (int i = 0; err == 0 && i < n; i++) {
        sql_stmt *st = db_use(s->st, ST_T_ENTRANT_IDX);
        sql_bind_int(st, 1, i);
        sql_bind_i64(st, 2, tourney);
        sql_bind_i64(st, 3, accounts[i]);
        err = db_run(st);
    }
    for (int i = 0; err == 0 && i < ngames; i++) {
        const store_tourney_game *g = &games[i];
        sql_stmt *st = db_use(s->st, ST_T_GAME_INSERT);
        sql_bind_i64(st, 1, tourney);
        sql_bind_i64(st, 2, g->game);
        sql_bind_int(st, 3, g->round);
        for (int k = 0; k < STORE_TOURNEY_SEATS; k++)
            if (g->player[k] >= 0)
                sql_bind_int(st, 4 + k, g->player[k]);
        err = db_run(st);
    }
    return end(s, err);
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

static const op_kind result_kind = {run_result, queue_write_done, NULL, false};

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
    sql_stmt *st = db_use(s->st, ST_T_ALL);
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
    st = db_use(s->st, ST_T_ENTRANTS);
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
    st = db_use(s->st, ST_T_GAMES);
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
