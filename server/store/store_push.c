/*
 * store_push.c - Web Push's tables (migrations/0007_push.sql): the VAPID
 * key pair, synchronous on the loop's connection (read, or made and kept,
 * once at start-up before the server serves), and each account's
 * subscriptions, queued calls (queue_call: run on the writer's connection
 * in its batch, answered on the loop). See store.h ("Web Push") and
 * store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_push_vapid_get(store *s, uint8_t priv[32], uint8_t pub[65])
{
    sql_stmt *st = db_use(db_loop(s), ST_PUSH_VAPID_GET);
    int rc = sql_step(st), err = STORE_ENOT_FOUND;
    if (rc == SQL_ROW) {
        err = STORE_EDB;
        if (sql_column_bytes(st, 0) == 32 && sql_column_bytes(st, 1) == 65) {
            memcpy(priv, sql_column_blob(st, 0), 32);
            memcpy(pub, sql_column_blob(st, 1), 65);
            err = 0;
        }
    } else if (rc != SQL_DONE) {
        err = STORE_EDB;
    }
    sql_reset(st);
    return err;
}

int store_push_vapid_put(store *s, const uint8_t priv[32], const uint8_t pub[65])
{
    sql_stmt *st = db_use(db_loop(s), ST_PUSH_VAPID_PUT);
    sql_bind_blob(st, 1, priv, 32);
    sql_bind_blob(st, 2, pub, 65);
    sql_bind_i64(st, 3, store_now(s));
    return db_run(st);
}

/* A queued call on the subscriptions: what it was given, what it found. */
typedef struct push_job {
    int64_t account;
    int keep, max;
    int64_t at_ms;         /* put: when (the loop's clock, not read on the writer) */
    store_push_sub sub;    /* put: the subscription; delete, gone: its endpoint */
    store_push_sub *found; /* subs: max of them */
    int n;                 /* subs: how many; delete, gone: rows deleted */
    store_done_cb cb;
    store_push_subs_cb subs_cb;
    void *arg;
} push_job;

static push_job *job_new(int64_t account, const char *endpoint, store_done_cb cb, void *arg)
{
    push_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->account = account;
    if (endpoint != NULL)
        snprintf(j->sub.endpoint, sizeof j->sub.endpoint, "%s", endpoint);
    j->cb = cb;
    j->arg = arg;
    return j;
}

/* Queue the call; j is freed if it cannot be (its done never runs). */
static int job_queue(store *s, push_job *j, queue_run_fn run, queue_done_fn done, bool reads)
{
    if (j == NULL)
        return STORE_ENOMEM;
    int err = queue_call(s, run, done, j, reads);
    if (err < 0) {
        free(j->found);
        free(j);
    }
    return err;
}

static int run_put(store *s, void *arg)
{
    push_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_PUSH_SUB_PUT);
    sql_bind_i64(st, 1, j->account);
    sql_bind_text(st, 2, j->sub.endpoint, -1);
    sql_bind_blob(st, 3, j->sub.p256dh, sizeof j->sub.p256dh);
    sql_bind_blob(st, 4, j->sub.auth, sizeof j->sub.auth);
    sql_bind_i64(st, 5, j->at_ms);
    if (db_run(st) < 0)
        return STORE_EDB;
    st = db_use(s->wst, ST_PUSH_SUB_TRIM);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, j->keep);
    return db_run(st);
}

/* put: 0 or the batch's error; delete, gone: the rows deleted (0 or 1). */
static void done_write(store *s, void *arg, int status)
{
    (void)s;
    push_job *j = arg;
    if (j->cb)
        j->cb(j->arg, status < 0 ? status : j->n);
    free(j);
}

int store_push_sub_put(store *s, int64_t account, const store_push_sub *sub, int keep,
                       store_done_cb cb, void *arg)
{
    push_job *j = job_new(account, NULL, cb, arg);
    if (j != NULL) {
        j->sub = *sub;
        j->keep = keep;
        j->at_ms = store_now(s);
    }
    return job_queue(s, j, run_put, done_write, false);
}

static int run_delete(store *s, void *arg)
{
    push_job *j = arg;
    sql_stmt *st = db_use(s->wst, j->account ? ST_PUSH_SUB_DELETE : ST_PUSH_SUB_GONE);
    int col = 1;
    if (j->account)
        sql_bind_i64(st, col++, j->account);
    sql_bind_text(st, col, j->sub.endpoint, -1);
    if (db_run(st) < 0)
        return STORE_EDB;
    j->n = sql_changes(s->wdb) > 0;
    return 0;
}

int store_push_sub_delete(store *s, int64_t account, const char *endpoint, store_done_cb cb,
                          void *arg)
{
    if (account <= 0)
        return STORE_EBAD_ARG;
    return job_queue(s, job_new(account, endpoint, cb, arg), run_delete, done_write, false);
}

int store_push_sub_gone(store *s, const char *endpoint, store_done_cb cb, void *arg)
{
    return job_queue(s, job_new(0, endpoint, cb, arg), run_delete, done_write, false);
}

static int run_subs(store *s, void *arg)
{
    push_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_PUSH_SUBS_OF);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, j->max);
    int rc;
    j->n = 0; /* run again if the batch is */
    while ((rc = sql_step(st)) == SQL_ROW && j->n < j->max) {
        store_push_sub *out = &j->found[j->n];
        const char *ep = sql_column_text(st, 0);
        if (ep == NULL || sql_column_bytes(st, 1) != 65 || sql_column_bytes(st, 2) != 16)
            continue;
        snprintf(out->endpoint, sizeof out->endpoint, "%s", ep);
        memcpy(out->p256dh, sql_column_blob(st, 1), 65);
        memcpy(out->auth, sql_column_blob(st, 2), 16);
        j->n++;
    }
    int err = rc == SQL_DONE || rc == SQL_ROW ? 0 : STORE_EDB;
    sql_reset(st);
    return err;
}

static void done_subs(store *s, void *arg, int status)
{
    (void)s;
    push_job *j = arg;
    j->subs_cb(j->arg, status, j->found, status < 0 ? 0 : j->n);
    free(j->found);
    free(j);
}

int store_push_subs(store *s, int64_t account, int max, store_push_subs_cb cb, void *arg)
{
    if (max < 1 || cb == NULL)
        return STORE_EBAD_ARG;
    push_job *j = job_new(account, NULL, NULL, arg);
    if (j != NULL) {
        j->max = max;
        j->subs_cb = cb;
        if ((j->found = calloc((size_t)max, sizeof *j->found)) == NULL) {
            free(j);
            j = NULL;
        }
    }
    return job_queue(s, j, run_subs, done_subs, true);
}
