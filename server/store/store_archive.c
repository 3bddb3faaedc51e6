/*
 * store_archive.c - a player's games: its archive (finished games matching
 * a filter: game id, live or correspondence, result, opponent, aborted
 * games left out unless asked for; newest
 * first, one page at a time, each with the names at its seats and the
 * player's rating before and after a rated game), and the ids of the games
 * in progress where it holds a seat (store_seated_games). Queued reads on
 * the writer's connection (the loop never waits for them). See store.h
 * ("The archive", "Your turn").
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct archive_buf {
    record_archive info;
    record_archive_game games[STORE_ARCHIVE_MAX + 1];
} archive_buf;

static int archive_read(store *s, op *o, archive_buf *b)
{
    const store_archive_filter *f = &o->filter;
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_BY_NAME);
    sql_bind_text(st, 1, o->name, -1);
    if (sql_step(st) != SQL_ROW) {
        sql_reset(st);
        return STORE_ENOT_FOUND;
    }
    int64_t account = sql_column_i64(st, 0);
    snprintf(b->info.username, sizeof b->info.username, "%s", sql_column_text(st, 1));
    sql_reset(st);

    st = db_use(s->wst, ST_ARCHIVE);
    sql_bind_i64(st, 1, account);
    if (f->variant)
        sql_bind_text(st, 2, f->variant, -1);
    sql_bind_int(st, 3, f->kind);
    sql_bind_int(st, 4, f->outcome);
    sql_bind_i64(st, 5, f->before);
    if (f->opponent)
        sql_bind_text(st, 6, f->opponent, -1);
    sql_bind_int(st, 7, f->limit + 1); /* one more: is there a next page? */
    sql_bind_int(st, 8, f->aborted);
    int n = 0, rc;
    while ((rc = sql_step(st)) == SQL_ROW && n <= f->limit) {
        record_archive_game *e = &b->games[n++];
        memset(e, 0, sizeof *e);
        e->id = sql_column_i64(st, 0);
        snprintf(e->variant, sizeof e->variant, "%s", sql_column_text(st, 1));
        e->kind = (record_kind)sql_column_int(st, 2);
        e->rated = sql_column_int(st, 3);
        e->nplayers = sql_column_int(st, 4);
        e->tc.base_ms = sql_column_i64(st, 5);
        e->tc.inc_ms = sql_column_i64(st, 6);
        e->tc.cap_ms = sql_column_i64(st, 7);
        e->seat = sql_column_int(st, 8);
        e->outcome = sql_column_int(st, 9);
        e->winner = sql_column_int(st, 10);
        e->reason = db_reason(sql_column_text(st, 11));
        e->created_ms = sql_column_i64(st, 12);
        e->finished_ms = sql_column_i64(st, 13);
        e->nmoves = sql_column_int(st, 14);
        if (!sql_column_null(st, 15)) {
            e->has_rating = true;
            e->rating_before = sql_column_double(st, 15);
            e->rating_after = sql_column_double(st, 16);
        }
    }
    sql_reset(st);
    if (rc != SQL_ROW && rc != SQL_DONE)
        return STORE_EDB;
    b->info.more = n > f->limit;
    b->info.n = n > f->limit ? f->limit : n;
    for (int i = 0; i < b->info.n; i++) {
        record_archive_game *e = &b->games[i];
        st = db_use(s->wst, ST_ARCHIVE_NAMES);
        sql_bind_i64(st, 1, e->id);
        while (sql_step(st) == SQL_ROW) {
            int seat = sql_column_int(st, 0);
            if (seat >= 0 && seat < RULES_MAX_PLAYERS)
                snprintf(e->names[seat], sizeof e->names[seat], "%s", sql_column_text(st, 1));
        }
        sql_reset(st);
    }
    b->info.games = b->games;
    return 0;
}

static int run_archive(store *s, op *o)
{
    archive_buf *b = o->answer;
    if (b == NULL && (b = o->answer = malloc(sizeof *b)) == NULL) {
        o->status = STORE_ENOMEM;
        return 0;
    }
    memset(&b->info, 0, sizeof b->info);
    o->status = archive_read(s, o, b);
    return 0;
}

static void done_archive(store *s, op *o, int status)
{
    (void)s;
    if (status == 0)
        status = o->status;
    archive_buf *b = o->answer;
    o->cb.archive(o->arg, status, status == 0 ? &b->info : NULL);
}

static void release_archive(op *o)
{
    free(o->name);
    free((char *)o->filter.variant);
    free((char *)o->filter.opponent);
    free(o->answer);
}

static const op_kind archive_kind = {run_archive, done_archive, release_archive, true, LEASE_NONE};

static char *dup_opt(const char *t, bool *oom)
{
    if (t == NULL)
        return NULL;
    char *d = strdup(t);
    *oom |= d == NULL;
    return d;
}

int store_archive_get(store *s, const char *username, const store_archive_filter *f,
                      store_archive_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (f->limit < 1 || f->limit > STORE_ARCHIVE_MAX)
        return STORE_EBAD_ARG;
    bool oom = false;
    char *name = dup_opt(username, &oom);
    char *variant = dup_opt(f->variant, &oom);
    char *opponent = dup_opt(f->opponent, &oom);
    op *o = oom ? NULL : queue_push(s, &archive_kind, 0);
    if (o == NULL) {
        free(name);
        free(variant);
        free(opponent);
        return STORE_ENOMEM;
    }
    o->name = name;
    o->filter = *f;
    o->filter.variant = variant;
    o->filter.opponent = opponent;
    o->cb.archive = cb;
    o->arg = arg;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The games in progress of a seat */

typedef struct seated_job {
    int64_t account;
    char *key; /* a guest's seat key (account 0) */
    int64_t games[STORE_SEATED_MAX];
    int n;
    store_seated_cb cb;
    void *arg;
} seated_job;

static int run_seated(store *s, void *arg)
{
    seated_job *j = arg;
    sql_stmt *st = db_use(s->wst, j->account ? ST_SEATED_ACCOUNT : ST_SEATED_GUEST);
    if (j->account)
        sql_bind_i64(st, 1, j->account);
    else
        sql_bind_text(st, 1, j->key, -1);
    sql_bind_int(st, 2, STORE_SEATED_MAX);
    int rc;
    j->n = 0; /* run again if the batch is tried again */
    while ((rc = sql_step(st)) == SQL_ROW && j->n < STORE_SEATED_MAX)
        j->games[j->n++] = sql_column_i64(st, 0);
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static void done_seated(store *s, void *arg, int status)
{
    (void)s;
    seated_job *j = arg;
    j->cb(j->arg, status, status == 0 ? j->games : NULL, status == 0 ? j->n : 0);
    free(j->key);
    free(j);
}

int store_seated_games(store *s, int64_t account, const char *key, store_seated_cb cb, void *arg)
{
    /* A guest's key is hex (a hash of its token): nothing of LIKE's. */
    if (cb == NULL || account < 0 ||
        (account == 0 && (key == NULL || key[0] == '\0' || strlen(key) > 128 ||
                          strspn(key, "0123456789abcdef") != strlen(key))))
        return STORE_EBAD_ARG;
    seated_job *j = calloc(1, sizeof *j);
    if (j == NULL || (account == 0 && (j->key = strdup(key)) == NULL)) {
        free(j);
        return STORE_ENOMEM;
    }
    j->account = account;
    j->cb = cb;
    j->arg = arg;
    int err = queue_call(s, run_seated, done_seated, j, true);
    if (err < 0) {
        free(j->key);
        free(j);
    }
    return err;
}
