/*
 * store_accounts.c - accounts and sessions (synchronous, on the loop's
 * connection) and profiles (queued reads on the writer's connection). The
 * passwords' hashing and the tokens are accounts.c's; this keeps what they
 * produce. See store.h and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* ------------------------------------------------------------------------ */
/* Accounts */

int store_account_insert(store *s, const char *username, const char *pwhash, int64_t *id)
{
    sql_stmt *st = db_use(s->st, ST_ACCOUNT_INSERT);
    sql_bind_text(st, 1, username, -1);
    sql_bind_text(st, 2, pwhash, -1);
    sql_bind_i64(st, 3, store_now(s));
    int rc = sql_step(st); /* INSERT ... RETURNING id */
    int err = 0;
    if (rc == SQL_ROW)
        *id = sql_column_i64(st, 0);
    else
        err = sql_unique_violation(s->db) ? STORE_ETAKEN : STORE_EDB;
    sql_reset(st);
    return err;
}

int store_account_by_name(store *s, const char *username, store_account *a)
{
    sql_stmt *st = db_use(s->st, ST_ACCOUNT_BY_NAME);
    sql_bind_text(st, 1, username, -1);
    int err = STORE_ENOT_FOUND;
    if (sql_step(st) == SQL_ROW) {
        a->id = sql_column_i64(st, 0);
        snprintf(a->username, sizeof a->username, "%s", sql_column_text(st, 1));
        snprintf(a->pwhash, sizeof a->pwhash, "%s", sql_column_text(st, 2));
        err = 0;
    }
    sql_reset(st);
    return err;
}

int store_account_name(store *s, int64_t account, char *username, size_t len)
{
    sql_stmt *st = db_use(s->st, ST_ACCOUNT_NAME);
    sql_bind_i64(st, 1, account);
    int err = STORE_ENOT_FOUND;
    if (sql_step(st) == SQL_ROW) {
        snprintf(username, len, "%s", sql_column_text(st, 0));
        err = 0;
    }
    sql_reset(st);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Sessions */

int store_session_insert(store *s, const void *hash, size_t hashlen, int64_t account,
                         int64_t expires_ms)
{
    int64_t now = store_now(s);
    sql_stmt *st = db_use(s->st, ST_SESSION_INSERT);
    sql_bind_blob(st, 1, hash, (int)hashlen);
    sql_bind_i64(st, 2, account);
    sql_bind_i64(st, 3, now);
    sql_bind_i64(st, 4, expires_ms);
    if (db_run(st) < 0)
        return STORE_EDB;
    /* The account's expired sessions go at each new one. */
    st = db_use(s->st, ST_SESSION_PURGE);
    sql_bind_i64(st, 1, account);
    sql_bind_i64(st, 2, now);
    db_run(st);
    return 0;
}

int store_session_find(store *s, const void *hash, size_t hashlen, int64_t *account, char *username,
                       size_t len)
{
    sql_stmt *st = db_use(s->st, ST_SESSION_FIND);
    sql_bind_blob(st, 1, hash, (int)hashlen);
    sql_bind_i64(st, 2, store_now(s));
    int err = STORE_ENOT_FOUND;
    if (sql_step(st) == SQL_ROW) {
        *account = sql_column_i64(st, 0);
        if (username)
            snprintf(username, len, "%s", sql_column_text(st, 1));
        err = 0;
    }
    sql_reset(st);
    return err;
}

int store_session_delete(store *s, const void *hash, size_t hashlen)
{
    sql_stmt *st = db_use(s->st, ST_SESSION_DELETE);
    sql_bind_blob(st, 1, hash, (int)hashlen);
    return db_run(st);
}

/* ------------------------------------------------------------------------ */
/* Preferences */

int store_prefs_get(store *s, int64_t account, char *json, size_t len)
{
    sql_stmt *st = db_use(s->st, ST_PREFS_GET);
    sql_bind_i64(st, 1, account);
    int rc = sql_step(st);
    int err = 0;
    if (rc == SQL_ROW)
        snprintf(json, len, "%s", sql_column_text(st, 0));
    else if (rc == SQL_DONE)
        snprintf(json, len, "{}");
    else
        err = STORE_EDB;
    sql_reset(st);
    return err;
}

int store_prefs_put(store *s, int64_t account, const char *json)
{
    sql_stmt *st = db_use(s->st, ST_PREFS_PUT);
    sql_bind_i64(st, 1, account);
    sql_bind_text(st, 2, json, -1);
    sql_bind_i64(st, 3, store_now(s));
    return db_run(st) < 0 ? STORE_EDB : 0;
}

/* ------------------------------------------------------------------------ */
/* Profiles */

/* A profile as read, with the memory its record points into. */
typedef struct profile_buf {
    record_profile info;
    record_profile_game *playing, *finished, *grouped;
    size_t capplaying, capfinished, capvariants;
    int nfinished;
    record_variant_games *variants;
    record_rating *ratings;
    record_rating_point *points;
} profile_buf;

static void profile_buf_free(profile_buf *b)
{
    free(b->playing);
    free(b->finished);
    free(b->grouped);
    free(b->variants);
    free(b->ratings);
    free(b->points);
}

/* Append e to a list; 0 or STORE_ENOMEM. */
static int add_game(record_profile_game **list, size_t *cap, int *n, const record_profile_game *e)
{
    if (array_reserve((void **)list, cap, (size_t)*n + 1, sizeof **list) < 0)
        return STORE_ENOMEM;
    (*list)[(*n)++] = *e;
    return 0;
}

/* The finished games grouped per variant (variants in order of their newest
 * game, games newest first), with each variant's score. 0 or
 * STORE_ENOMEM. */
static int group_finished(profile_buf *b)
{
    record_profile *p = &b->info;
    int *which = malloc(((size_t)b->nfinished + 1) * sizeof *which);
    b->grouped = malloc(((size_t)b->nfinished + 1) * sizeof *b->grouped);
    if (which == NULL || b->grouped == NULL) {
        free(which);
        return STORE_ENOMEM;
    }
    for (int i = 0; i < b->nfinished; i++) {
        const record_profile_game *e = &b->finished[i];
        int v = 0;
        while (v < p->nvariants && strcmp(b->variants[v].variant, e->variant) != 0)
            v++;
        if (v == p->nvariants) {
            if (array_reserve((void **)&b->variants, &b->capvariants, (size_t)v + 1,
                              sizeof *b->variants) < 0) {
                free(which);
                return STORE_ENOMEM;
            }
            record_variant_games *nv = &b->variants[v];
            memset(nv, 0, sizeof *nv);
            snprintf(nv->variant, sizeof nv->variant, "%s", e->variant);
            p->nvariants++;
        }
        record_variant_games *vg = &b->variants[v];
        vg->wins += e->outcome == RULES_OUTCOME_WIN;
        vg->losses += e->outcome == RULES_OUTCOME_LOSS;
        vg->draws += e->outcome == RULES_OUTCOME_DRAW;
        vg->ngames++;
        which[i] = v;
    }
    /* Each variant's games side by side, in their order. */
    int at = 0;
    for (int v = 0; v < p->nvariants; v++) {
        b->variants[v].games = &b->grouped[at];
        for (int i = 0; i < b->nfinished; i++)
            if (which[i] == v)
                b->grouped[at++] = b->finished[i];
    }
    free(which);
    p->variants = b->variants;
    return 0;
}

/* Read the profile of `username` with the writer's statements. */
static int profile_read(store *s, const char *username, profile_buf *b)
{
    memset(b, 0, sizeof *b);
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_BY_NAME);
    sql_bind_text(st, 1, username, -1);
    if (sql_step(st) != SQL_ROW) {
        sql_reset(st);
        return STORE_ENOT_FOUND;
    }
    record_profile *p = &b->info;
    p->account = sql_column_i64(st, 0);
    snprintf(p->username, sizeof p->username, "%s", sql_column_text(st, 1));
    sql_reset(st);
    st = db_use(s->wst, ST_ACCOUNT_GAMES);
    sql_bind_i64(st, 1, p->account);
    int err = 0;
    while (err == 0 && sql_step(st) == SQL_ROW) {
        record_profile_game e = {
            .id = sql_column_i64(st, 0),
            .kind = (record_kind)sql_column_int(st, 2),
            .seat = sql_column_int(st, 7),
            .nmoves = sql_column_int(st, 9),
            .created_ms = sql_column_i64(st, 10),
        };
        snprintf(e.variant, sizeof e.variant, "%s", sql_column_text(st, 1));
        if (!sql_column_int(st, 3)) {
            e.to_move = sql_column_int(st, 4);
            e.deadline_ms = sql_column_i64(st, 5);
            err = add_game(&b->playing, &b->capplaying, &p->nplaying, &e);
        } else {
            e.outcome = sql_column_int(st, 8);
            e.reason = db_reason(sql_column_text(st, 6));
            e.finished_ms = sql_column_i64(st, 11);
            err = add_game(&b->finished, &b->capfinished, &b->nfinished, &e);
        }
    }
    sql_reset(st);
    p->playing = b->playing;
    if (err == 0)
        err =
            ratings_read_profile(s, p->account, &b->ratings, &p->nratings, &b->points, &p->npoints);
    p->ratings = b->ratings;
    p->points = b->points;
    return err < 0 ? err : group_finished(b);
}

static int run_profile(store *s, op *o)
{
    if (o->answer != NULL) { /* a retry reads again */
        profile_buf_free(o->answer);
        free(o->answer);
        o->answer = NULL;
    }
    profile_buf *b = malloc(sizeof *b);
    if (b == NULL) {
        o->status = STORE_ENOMEM;
        return 0;
    }
    o->answer = b;
    o->status = profile_read(s, o->name, b);
    return 0;
}

static void done_profile(store *s, op *o, int status)
{
    (void)s;
    if (status == 0)
        status = o->status;
    profile_buf *b = o->answer;
    o->cb.profile(o->arg, status, status == 0 ? &b->info : NULL);
}

static void release_profile(op *o)
{
    free(o->name);
    if (o->answer != NULL) {
        profile_buf_free(o->answer);
        free(o->answer);
    }
}

static const op_kind profile_kind = {run_profile, done_profile, release_profile, true};

int store_profile_get(store *s, const char *username, store_profile_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    char *name = strdup(username);
    op *o = name ? queue_push(s, &profile_kind, 0) : NULL;
    if (o == NULL) {
        free(name);
        return STORE_ENOMEM;
    }
    o->name = name;
    o->cb.profile = cb;
    o->arg = arg;
    return 0;
}
