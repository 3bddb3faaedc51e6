/*
 * store_accounts.c - accounts, sessions and preferences (queued calls:
 * queue_call) and profiles (queued reads), all on the writer's connection. The
 * passwords' hashing and the tokens are accounts.c's; this keeps what they
 * produce. See store.h and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* ------------------------------------------------------------------------ */
/* Accounts and sessions: queued calls (queue_call). */

/* One queued account or session call: what it asks and what it found. */
typedef struct acct_job {
    store_account a; /* the question (username, id) and the answer */
    unsigned char hash[32];
    size_t hashlen;
    int64_t expires_ms;
    char agent[STORE_AGENT_MAX + 1]; /* a new login's */
    int status;                      /* run's answer: 0 or STORE_ENOT_FOUND / STORE_ETAKEN */
    store_account_cb cb;
    store_done_cb done;
    void *arg;
} acct_job;

static acct_job *acct_job_new(store_account_cb cb, store_done_cb done, void *arg)
{
    acct_job *j = calloc(1, sizeof *j);
    if (j != NULL) {
        j->cb = cb;
        j->done = done;
        j->arg = arg;
    }
    return j;
}

/* Queue j (freed on failure): 0 or the error. */
static int acct_queue(store *s, queue_run_fn run, queue_done_fn done, acct_job *j, bool reads)
{
    if (j == NULL)
        return STORE_ENOMEM;
    int err = queue_call(s, run, done, j, reads);
    if (err < 0)
        free(j);
    return err;
}

/* done of the calls that answer an account. */
static void acct_answer(store *s, void *job, int status)
{
    (void)s;
    acct_job *j = job;
    if (status == 0)
        status = j->status;
    if (j->cb)
        j->cb(j->arg, status, status == 0 ? &j->a : NULL);
    explicit_bzero(j, sizeof *j); /* the password hash */
    free(j);
}

/* done of the calls that answer only whether they were written. */
static void acct_written(store *s, void *job, int status)
{
    (void)s;
    acct_job *j = job;
    if (j->done)
        j->done(j->arg, status);
    explicit_bzero(j, sizeof *j);
    free(j);
}

static int run_account_insert(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_INSERT);
    sql_bind_text(st, 1, j->a.username, -1);
    sql_bind_text(st, 2, j->a.pwhash, -1);
    sql_bind_i64(st, 3, store_now(s));
    int rc = sql_step(st); /* INSERT ... ON CONFLICT DO NOTHING RETURNING id */
    j->status = 0;
    if (rc == SQL_ROW)
        j->a.id = sql_column_i64(st, 0);
    else if (rc == SQL_DONE)
        j->status = STORE_ETAKEN; /* no row: the name is taken */
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

int store_account_insert(store *s, const char *username, const char *pwhash, store_account_cb cb,
                         void *arg)
{
    acct_job *j = acct_job_new(cb, NULL, arg);
    if (j != NULL) {
        snprintf(j->a.username, sizeof j->a.username, "%s", username);
        snprintf(j->a.pwhash, sizeof j->a.pwhash, "%s", pwhash);
    }
    return acct_queue(s, run_account_insert, acct_answer, j, false);
}

/* One row or none of a read that answers an account: 0 (j->status set) or
 * STORE_EDB. */
static int account_row(acct_job *j, sql_stmt *st, int rc, int idcol, int namecol, int hashcol)
{
    j->status = STORE_ENOT_FOUND;
    if (rc == SQL_ROW) {
        if (idcol >= 0)
            j->a.id = sql_column_i64(st, idcol);
        snprintf(j->a.username, sizeof j->a.username, "%s", sql_column_text(st, namecol));
        if (hashcol >= 0)
            snprintf(j->a.pwhash, sizeof j->a.pwhash, "%s", sql_column_text(st, hashcol));
        j->status = 0;
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static int run_account_by_name(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_BY_NAME);
    sql_bind_text(st, 1, j->a.username, -1);
    return account_row(j, st, sql_step(st), 0, 1, 2);
}

int store_account_by_name(store *s, const char *username, store_account_cb cb, void *arg)
{
    acct_job *j = acct_job_new(cb, NULL, arg);
    if (j != NULL)
        snprintf(j->a.username, sizeof j->a.username, "%s", username);
    return acct_queue(s, run_account_by_name, acct_answer, j, true);
}

static int run_account_name(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_NAME);
    sql_bind_i64(st, 1, j->a.id);
    return account_row(j, st, sql_step(st), -1, 0, -1);
}

int store_account_name(store *s, int64_t account, store_account_cb cb, void *arg)
{
    acct_job *j = acct_job_new(cb, NULL, arg);
    if (j != NULL)
        j->a.id = account;
    return acct_queue(s, run_account_name, acct_answer, j, true);
}

/* A token hash into j (at most 32 bytes: BLAKE2b-256). */
static acct_job *with_hash(acct_job *j, const void *hash, size_t hashlen)
{
    if (j != NULL) {
        j->hashlen = hashlen < sizeof j->hash ? hashlen : sizeof j->hash;
        memcpy(j->hash, hash, j->hashlen);
    }
    return j;
}

static int run_session_insert(store *s, void *job)
{
    acct_job *j = job;
    int64_t now = store_now(s);
    sql_stmt *st = db_use(s->wst, ST_LOGIN_INSERT);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    sql_bind_i64(st, 2, j->a.id);
    sql_bind_i64(st, 3, now);
    sql_bind_i64(st, 4, j->expires_ms);
    sql_bind_text(st, 5, j->agent, -1);
    if (db_run(st) < 0)
        return STORE_EDB;
    /* The account's expired sessions go at each new one. */
    st = db_use(s->wst, ST_SESSION_PURGE);
    sql_bind_i64(st, 1, j->a.id);
    sql_bind_i64(st, 2, now);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

/* agent into out as printable ASCII (what else a header may hold is
 * dropped), at most STORE_AGENT_MAX bytes. */
static void agent_copy(char out[STORE_AGENT_MAX + 1], const char *agent)
{
    size_t n = 0;
    for (const char *p = agent ? agent : ""; *p && n < STORE_AGENT_MAX; p++)
        if (*p >= 0x20 && *p <= 0x7e)
            out[n++] = *p;
    out[n] = '\0';
}

int store_login_insert(store *s, const void *hash, size_t hashlen, int64_t account,
                       int64_t expires_ms, const char *agent, store_done_cb cb, void *arg)
{
    acct_job *j = with_hash(acct_job_new(NULL, cb, arg), hash, hashlen);
    if (j != NULL) {
        j->a.id = account;
        j->expires_ms = expires_ms;
        agent_copy(j->agent, agent);
    }
    return acct_queue(s, run_session_insert, acct_written, j, false);
}

static int run_session_find(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_LOGIN_FIND);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    sql_bind_i64(st, 2, store_now(s));
    return account_row(j, st, sql_step(st), 0, 1, -1);
}

int store_login_find(store *s, const void *hash, size_t hashlen, store_account_cb cb, void *arg)
{
    acct_job *j = with_hash(acct_job_new(cb, NULL, arg), hash, hashlen);
    return acct_queue(s, run_session_find, acct_answer, j, true);
}

static int run_session_delete(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_LOGIN_DELETE);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_login_delete(store *s, const void *hash, size_t hashlen, store_done_cb cb, void *arg)
{
    acct_job *j = with_hash(acct_job_new(NULL, cb, arg), hash, hashlen);
    return acct_queue(s, run_session_delete, acct_written, j, false);
}

/* An account's list of logins, or the end of some of them. */
typedef struct logins_job {
    int64_t account;
    unsigned char hash[32];
    bool others;
    store_login *l; /* the list: STORE_LOGINS_MAX */
    size_t n;
    int64_t ended;
    store_logins_cb listed;
    store_count_cb counted;
    void *arg;
} logins_job;

static void logins_job_free(logins_job *j)
{
    free(j->l);
    free(j);
}

static int run_logins_of(store *s, void *job)
{
    logins_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_LOGINS_OF);
    sql_bind_i64(st, 1, j->account);
    sql_bind_i64(st, 2, store_now(s));
    int rc;
    while ((rc = sql_step(st)) == SQL_ROW && j->n < STORE_LOGINS_MAX) {
        store_login *l = &j->l[j->n];
        if (sql_column_bytes(st, 0) != (int)sizeof l->hash)
            continue;
        memcpy(l->hash, sql_column_blob(st, 0), sizeof l->hash);
        l->created_ms = sql_column_i64(st, 1);
        l->expires_ms = sql_column_i64(st, 2);
        agent_copy(l->agent, sql_column_text(st, 3));
        j->n++;
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static void logins_listed(store *s, void *job, int status)
{
    (void)s;
    logins_job *j = job;
    j->listed(j->arg, status, status == 0 ? j->l : NULL, status == 0 ? j->n : 0);
    logins_job_free(j);
}

int store_logins_of(store *s, int64_t account, store_logins_cb cb, void *arg)
{
    logins_job *j = calloc(1, sizeof *j);
    if (j == NULL || (j->l = calloc(STORE_LOGINS_MAX, sizeof *j->l)) == NULL) {
        free(j);
        return STORE_ENOMEM;
    }
    j->account = account;
    j->listed = cb;
    j->arg = arg;
    int err = queue_call(s, run_logins_of, logins_listed, j, true);
    if (err < 0)
        logins_job_free(j);
    return err;
}

static int run_logins_end(store *s, void *job)
{
    logins_job *j = job;
    sql_stmt *st = db_use(s->wst, j->others ? ST_LOGINS_END_OTHERS : ST_LOGIN_END_ONE);
    sql_bind_i64(st, 1, j->account);
    sql_bind_blob(st, 2, j->hash, (int)sizeof j->hash);
    if (db_run(st) < 0)
        return STORE_EDB;
    j->ended = sql_changes(s->wdb);
    return 0;
}

static void logins_ended(store *s, void *job, int status)
{
    (void)s;
    logins_job *j = job;
    if (j->counted)
        j->counted(j->arg, status, status == 0 ? j->ended : 0);
    logins_job_free(j);
}

int store_logins_end(store *s, int64_t account, const unsigned char hash[32], bool others,
                     store_count_cb cb, void *arg)
{
    logins_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    j->account = account;
    memcpy(j->hash, hash, sizeof j->hash);
    j->others = others;
    j->counted = cb;
    j->arg = arg;
    int err = queue_call(s, run_logins_end, logins_ended, j, false);
    if (err < 0)
        logins_job_free(j);
    return err;
}

static int run_set_pwhash(store *s, void *job)
{
    acct_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_ACCOUNT_SET_PWHASH);
    sql_bind_text(st, 1, j->a.pwhash, -1);
    sql_bind_i64(st, 2, j->a.id);
    if (db_run(st) < 0)
        return STORE_EDB;
    st = db_use(s->wst, ST_SESSIONS_END_ALL);
    sql_bind_i64(st, 1, j->a.id);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_account_set_pwhash(store *s, int64_t account, const char *pwhash, store_done_cb cb,
                             void *arg)
{
    acct_job *j = acct_job_new(NULL, cb, arg);
    if (j != NULL) {
        j->a.id = account;
        snprintf(j->a.pwhash, sizeof j->a.pwhash, "%s", pwhash);
    }
    return acct_queue(s, run_set_pwhash, acct_written, j, false);
}

/* ------------------------------------------------------------------------ */
/* Preferences */

/* An account's small JSON object (its preferences, its progress in the
 * lessons): read or replaced by the statement named. */
typedef struct prefs_job {
    int64_t account;
    char *json; /* put: the object; get: what was read */
    store_prefs_cb got;
    store_done_cb put;
    void *arg;
    int get_st, put_st; /* ST_PREFS_GET, ST_LESSONS_GET... */
} prefs_job;

static void prefs_job_free(prefs_job *j)
{
    free(j->json);
    free(j);
}

static int run_prefs_get(store *s, void *job)
{
    prefs_job *j = job;
    sql_stmt *st = db_use(s->wst, j->get_st);
    sql_bind_i64(st, 1, j->account);
    int rc = sql_step(st);
    free(j->json); /* a retry reads again */
    j->json = strdup(rc == SQL_ROW ? sql_column_text(st, 0) : "{}");
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static void done_prefs_get(store *s, void *job, int status)
{
    (void)s;
    prefs_job *j = job;
    if (status == 0 && j->json == NULL)
        status = STORE_ENOMEM;
    j->got(j->arg, status, status == 0 ? j->json : NULL);
    prefs_job_free(j);
}

/* An account's small JSON object of statement `get` ("{}" when none). */
static int blob_get(store *s, int get, int64_t account, store_prefs_cb cb, void *arg)
{
    prefs_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    *j = (prefs_job){.account = account, .got = cb, .arg = arg, .get_st = get};
    int err = queue_call(s, run_prefs_get, done_prefs_get, j, true);
    if (err < 0)
        prefs_job_free(j);
    return err;
}

int store_prefs_get(store *s, int64_t account, store_prefs_cb cb, void *arg)
{
    return blob_get(s, ST_PREFS_GET, account, cb, arg);
}

int store_lessons_get(store *s, int64_t account, store_prefs_cb cb, void *arg)
{
    return blob_get(s, ST_LESSONS_GET, account, cb, arg);
}

static int run_prefs_put(store *s, void *job)
{
    prefs_job *j = job;
    sql_stmt *st = db_use(s->wst, j->put_st);
    sql_bind_i64(st, 1, j->account);
    sql_bind_text(st, 2, j->json, -1);
    sql_bind_i64(st, 3, store_now(s));
    return db_run(st) < 0 ? STORE_EDB : 0;
}

static void done_prefs_put(store *s, void *job, int status)
{
    (void)s;
    prefs_job *j = job;
    if (j->put)
        j->put(j->arg, status);
    prefs_job_free(j);
}

/* Replace an account's small JSON object of statement `put`. */
static int blob_put(store *s, int put, int64_t account, const char *json, store_done_cb cb,
                    void *arg)
{
    prefs_job *j = calloc(1, sizeof *j);
    char *copy = strdup(json);
    if (j == NULL || copy == NULL) {
        free(j);
        free(copy);
        return STORE_ENOMEM;
    }
    *j = (prefs_job){.account = account, .json = copy, .put = cb, .arg = arg, .put_st = put};
    int err = queue_call(s, run_prefs_put, done_prefs_put, j, false);
    if (err < 0)
        prefs_job_free(j);
    return err;
}

int store_prefs_put(store *s, int64_t account, const char *json, store_done_cb cb, void *arg)
{
    return blob_put(s, ST_PREFS_PUT, account, json, cb, arg);
}

int store_lessons_put(store *s, int64_t account, const char *json, store_done_cb cb, void *arg)
{
    return blob_put(s, ST_LESSONS_PUT, account, json, cb, arg);
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
            /* Aborted before it began: neither a result nor a game to list
             * (the archive has them on request). */
            if (e.reason != RULES_REASON_ABORTED)
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

static const op_kind profile_kind = {run_profile, done_profile, release_profile, true, LEASE_NONE};

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
