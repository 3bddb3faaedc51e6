/*
 * store_totp.c - two-factor sign-in's rows: an account's TOTP secret and
 * its recovery codes' hashes (queued calls on the writer's connection, as
 * the accounts'). people/totp.c makes and checks the codes; this keeps
 * what they need. See store.h.
 */
#include "store_impl.h"

#include <stdlib.h>
#include <string.h>

/* One call: what it asks and what it found. */
typedef struct totp_job {
    int64_t account;
    int64_t step;
    store_totp t;
    unsigned char (*hashes)[32]; /* enable: the recovery codes' */
    int nhashes;
    int status; /* run's answer: 0, STORE_ENOT_FOUND or STORE_ETAKEN */
    store_totp_cb got;
    store_done_cb done;
    void *arg;
} totp_job;

static void totp_job_free(totp_job *j)
{
    free(j->hashes);
    explicit_bzero(j, sizeof *j); /* the secret */
    free(j);
}

static void totp_answer(store *s, void *job, int status)
{
    (void)s;
    totp_job *j = job;
    if (status == 0)
        status = j->status;
    if (j->got)
        j->got(j->arg, status, status == 0 ? &j->t : NULL);
    else if (j->done)
        j->done(j->arg, status);
    totp_job_free(j);
}

static int totp_queue(store *s, queue_run_fn run, totp_job *j, bool reads)
{
    if (j == NULL)
        return STORE_ENOMEM;
    int err = queue_call(s, run, totp_answer, j, reads);
    if (err < 0)
        totp_job_free(j);
    return err;
}

static totp_job *totp_job_new(int64_t account, store_totp_cb got, store_done_cb done, void *arg)
{
    totp_job *j = calloc(1, sizeof *j);
    if (j != NULL) {
        j->account = account;
        j->got = got;
        j->done = done;
        j->arg = arg;
    }
    return j;
}

/* A write that must change one row: 0, STORE_ENOT_FOUND (j->status) when
 * it changed none, or STORE_EDB. */
static int one_row(store *s, totp_job *j, sql_stmt *st)
{
    if (db_run(st) < 0)
        return STORE_EDB;
    j->status = sql_changes(s->wdb) == 1 ? 0 : STORE_ENOT_FOUND;
    return 0;
}

static int run_get(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_TOTP_GET);
    sql_bind_i64(st, 1, j->account);
    int rc = sql_step(st);
    j->status = STORE_ENOT_FOUND;
    if (rc == SQL_ROW) {
        int n = sql_column_bytes(st, 0);
        if (n > 0 && n <= (int)sizeof j->t.secret) {
            memcpy(j->t.secret, sql_column_blob(st, 0), (size_t)n);
            j->t.secret_len = (size_t)n;
            j->t.enabled = sql_column_i64(st, 1) != 0;
            j->t.last_step = sql_column_i64(st, 2);
            j->t.recovery_left = (int)sql_column_i64(st, 3);
            j->status = 0;
        }
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

int store_totp_get(store *s, int64_t account, store_totp_cb cb, void *arg)
{
    return totp_queue(s, run_get, totp_job_new(account, cb, NULL, arg), true);
}

static int run_pending(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_TOTP_PENDING);
    sql_bind_i64(st, 1, j->account);
    sql_bind_blob(st, 2, j->t.secret, (int)j->t.secret_len);
    sql_bind_i64(st, 3, store_now(s));
    int err = one_row(s, j, st);
    if (err == 0 && j->status == STORE_ENOT_FOUND)
        j->status = STORE_ETAKEN; /* in force: not replaced */
    return err;
}

int store_totp_pending(store *s, int64_t account, const unsigned char *secret, size_t len,
                       store_done_cb cb, void *arg)
{
    if (len == 0 || len > sizeof((store_totp *)0)->secret)
        return STORE_EBAD_ARG;
    totp_job *j = totp_job_new(account, NULL, cb, arg);
    if (j != NULL) {
        memcpy(j->t.secret, secret, len);
        j->t.secret_len = len;
    }
    return totp_queue(s, run_pending, j, false);
}

static int run_enable(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_TOTP_ENABLE);
    sql_bind_i64(st, 1, j->step);
    sql_bind_i64(st, 2, j->account);
    int err = one_row(s, j, st);
    if (err < 0 || j->status < 0)
        return err;
    st = db_use(s->wst, ST_RECOVERY_CLEAR);
    sql_bind_i64(st, 1, j->account);
    if (db_run(st) < 0)
        return STORE_EDB;
    for (int i = 0; i < j->nhashes; i++) {
        st = db_use(s->wst, ST_RECOVERY_INSERT);
        sql_bind_i64(st, 1, j->account);
        sql_bind_blob(st, 2, j->hashes[i], 32);
        if (db_run(st) < 0)
            return STORE_EDB;
    }
    return 0;
}

int store_totp_enable(store *s, int64_t account, int64_t step, const unsigned char (*hashes)[32],
                      int n, store_done_cb cb, void *arg)
{
    totp_job *j = totp_job_new(account, NULL, cb, arg);
    if (j != NULL && n > 0) {
        j->hashes = malloc((size_t)n * sizeof *j->hashes);
        if (j->hashes == NULL) {
            totp_job_free(j);
            return STORE_ENOMEM;
        }
        memcpy(j->hashes, hashes, (size_t)n * sizeof *j->hashes);
        j->nhashes = n;
    }
    if (j != NULL)
        j->step = step;
    return totp_queue(s, run_enable, j, false);
}

static int run_use(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_TOTP_USE);
    sql_bind_i64(st, 1, j->step);
    sql_bind_i64(st, 2, j->account);
    sql_bind_i64(st, 3, j->step);
    return one_row(s, j, st);
}

int store_totp_use(store *s, int64_t account, int64_t step, store_done_cb cb, void *arg)
{
    totp_job *j = totp_job_new(account, NULL, cb, arg);
    if (j != NULL)
        j->step = step;
    return totp_queue(s, run_use, j, false);
}

static int run_recovery_use(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_RECOVERY_USE);
    sql_bind_i64(st, 1, j->account);
    sql_bind_blob(st, 2, j->t.secret, 32); /* the code's hash */
    return one_row(s, j, st);
}

int store_recovery_use(store *s, int64_t account, const unsigned char hash[32], store_done_cb cb,
                       void *arg)
{
    totp_job *j = totp_job_new(account, NULL, cb, arg);
    if (j != NULL)
        memcpy(j->t.secret, hash, 32);
    return totp_queue(s, run_recovery_use, j, false);
}

static int run_off(store *s, void *job)
{
    totp_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_RECOVERY_CLEAR);
    sql_bind_i64(st, 1, j->account);
    if (db_run(st) < 0)
        return STORE_EDB;
    st = db_use(s->wst, ST_TOTP_DELETE);
    sql_bind_i64(st, 1, j->account);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_totp_off(store *s, int64_t account, store_done_cb cb, void *arg)
{
    return totp_queue(s, run_off, totp_job_new(account, NULL, cb, arg), false);
}
