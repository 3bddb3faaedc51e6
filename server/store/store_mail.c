/*
 * store_mail.c - e-mail in the store: an account's address and notice
 * preferences and the tokens of its links (queued calls, on the writer's
 * connection), the outbox (a mail is a queued op, written in a batch like a
 * move), the mail worker's own connection (store_mailbox, used on its
 * thread only) and the walk over correspondence games in memory. See
 * store.h ("E-mail") and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Addresses, preferences and link tokens: queued calls (queue_call), on the
 * writer's connection. A refusal that is an answer (no such token) is kept
 * in the job's status, never a failing statement. */

/* One queued e-mail call: what it asks and what it found. */
typedef struct mail_job {
    int64_t account;
    store_mail_prefs p; /* prefs: what was read (or made) */
    bool ensure;        /* prefs: make the row if there is none */
    unsigned prefs;
    int remind_days, purpose, max, n;
    char *text; /* an address (or NULL), or an unsubscribe token: owned */
    char unsub[STORE_MAIL_UNSUB_HEX + 1];
    unsigned char hash[32];
    size_t hashlen;
    int64_t expires_ms;
    int64_t *ids;                      /* accounts_of: max of them, owned */
    char address[STORE_MAIL_ADDR_MAX]; /* token_take: the token's address */
    int status;                        /* run's answer: 0 or STORE_ENOT_FOUND */
    store_mail_prefs_cb got;
    store_mail_accounts_cb accounts;
    store_mail_token_cb token;
    store_done_cb done;
    void *arg;
} mail_job;

static void mail_job_free(mail_job *j)
{
    free(j->text);
    free(j->ids);
    explicit_bzero(j, sizeof *j); /* token hashes */
    free(j);
}

/* A job with a copy of text (NULL allowed), or NULL if memory ran out. */
static mail_job *mail_job_new(const char *text)
{
    mail_job *j = calloc(1, sizeof *j);
    if (j != NULL && text != NULL && (j->text = strdup(text)) == NULL) {
        free(j);
        j = NULL;
    }
    return j;
}

/* Queue j (freed on failure): 0 or the error. */
static int mail_call(store *s, queue_run_fn run, queue_done_fn done, mail_job *j, bool reads)
{
    if (j == NULL)
        return STORE_ENOMEM;
    int err = queue_call(s, run, done, j, reads);
    if (err < 0)
        mail_job_free(j);
    return err;
}

/* done of the calls that answer only whether they were written (or
 * STORE_ENOT_FOUND). */
static void mail_written(store *s, void *job, int status)
{
    (void)s;
    mail_job *j = job;
    if (status == 0)
        status = j->status;
    if (j->done)
        j->done(j->arg, status);
    mail_job_free(j);
}

static int run_prefs_get(store *s, void *job)
{
    mail_job *j = job;
    store_mail_prefs *out = &j->p;
    memset(out, 0, sizeof *out); /* a retry reads again */
    out->prefs = STORE_MAIL_DEFAULT;
    sql_stmt *st = db_use(s->wst, ST_MAIL_PREFS_GET);
    sql_bind_i64(st, 1, j->account);
    int rc = sql_step(st);
    if (rc == SQL_ROW) {
        out->known = true;
        if (!sql_column_null(st, 0))
            snprintf(out->address, sizeof out->address, "%s", sql_column_text(st, 0));
        out->prefs = (unsigned)sql_column_int(st, 1);
        out->remind_days = sql_column_int(st, 2);
        snprintf(out->unsub, sizeof out->unsub, "%s", sql_column_text(st, 3));
    }
    sql_reset(st);
    if (rc != SQL_ROW && rc != SQL_DONE)
        return STORE_EDB;
    if (out->known || !j->ensure)
        return 0;
    /* No row yet: made with the defaults, in this transaction (nothing else
     * writes the table meanwhile: the writer is alone). */
    st = db_use(s->wst, ST_MAIL_PREFS_SET);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, STORE_MAIL_DEFAULT);
    sql_bind_int(st, 3, 0);
    sql_bind_text(st, 4, j->unsub, -1);
    if (db_run(st) < 0)
        return STORE_EDB;
    out->known = true;
    snprintf(out->unsub, sizeof out->unsub, "%s", j->unsub);
    return 0;
}

static void done_prefs_get(store *s, void *job, int status)
{
    (void)s;
    mail_job *j = job;
    j->got(j->arg, status, status == 0 ? &j->p : NULL);
    mail_job_free(j);
}

int store_mail_prefs_get(store *s, int64_t account, store_mail_prefs_cb cb, void *arg)
{
    mail_job *j = mail_job_new(NULL);
    if (j != NULL)
        *j = (mail_job){.account = account, .got = cb, .arg = arg};
    return mail_call(s, run_prefs_get, done_prefs_get, j, true);
}

int store_mail_prefs_ensure(store *s, int64_t account, const char *unsub, store_mail_prefs_cb cb,
                            void *arg)
{
    mail_job *j = mail_job_new(NULL);
    if (j != NULL) {
        *j = (mail_job){.account = account, .ensure = true, .got = cb, .arg = arg};
        snprintf(j->unsub, sizeof j->unsub, "%s", unsub);
    }
    return mail_call(s, run_prefs_get, done_prefs_get, j, false);
}

static int run_prefs_set(store *s, void *job)
{
    mail_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_MAIL_PREFS_SET);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, (int)(j->prefs & STORE_MAIL_ALL));
    sql_bind_int(st, 3, j->remind_days);
    sql_bind_text(st, 4, j->unsub, -1);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_mail_prefs_set(store *s, int64_t account, unsigned prefs, int remind_days,
                         const char *unsub, store_done_cb cb, void *arg)
{
    mail_job *j = mail_job_new(NULL);
    if (j != NULL) {
        *j = (mail_job){
            .account = account, .prefs = prefs, .remind_days = remind_days, .done = cb, .arg = arg};
        snprintf(j->unsub, sizeof j->unsub, "%s", unsub);
    }
    return mail_call(s, run_prefs_set, mail_written, j, false);
}

static int run_address_set(store *s, void *job)
{
    mail_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_MAIL_ADDRESS_SET);
    sql_bind_i64(st, 1, j->account);
    sql_bind_text(st, 2, j->text, -1);
    sql_bind_int(st, 3, STORE_MAIL_DEFAULT);
    sql_bind_text(st, 4, j->unsub, -1);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_mail_address_set(store *s, int64_t account, const char *address, const char *unsub,
                           store_done_cb cb, void *arg)
{
    mail_job *j = mail_job_new(address);
    if (j != NULL) {
        j->account = account;
        snprintf(j->unsub, sizeof j->unsub, "%s", unsub);
        j->done = cb;
        j->arg = arg;
    }
    return mail_call(s, run_address_set, mail_written, j, false);
}

static int run_accounts_of(store *s, void *job)
{
    mail_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_MAIL_ACCOUNTS_OF);
    sql_bind_text(st, 1, j->text, -1);
    sql_bind_int(st, 2, j->max);
    int rc;
    j->n = 0; /* a retry reads again */
    while ((rc = sql_step(st)) == SQL_ROW && j->n < j->max)
        j->ids[j->n++] = sql_column_i64(st, 0);
    sql_reset(st);
    return rc == SQL_DONE || rc == SQL_ROW ? 0 : STORE_EDB;
}

static void done_accounts_of(store *s, void *job, int status)
{
    (void)s;
    mail_job *j = job;
    j->accounts(j->arg, status, j->ids, status == 0 ? j->n : 0);
    mail_job_free(j);
}

int store_mail_accounts_of(store *s, const char *address, int max, store_mail_accounts_cb cb,
                           void *arg)
{
    if (max <= 0)
        return STORE_EBAD_ARG;
    mail_job *j = mail_job_new(address);
    if (j != NULL) {
        j->max = max;
        j->accounts = cb;
        j->arg = arg;
        if ((j->ids = calloc((size_t)max, sizeof *j->ids)) == NULL) {
            mail_job_free(j);
            j = NULL;
        }
    }
    return mail_call(s, run_accounts_of, done_accounts_of, j, true);
}

static int run_unsubscribe(store *s, void *job)
{
    mail_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_MAIL_UNSUBSCRIBE);
    sql_bind_text(st, 1, j->text, -1);
    if (db_run(st) < 0)
        return STORE_EDB;
    j->status = sql_changes(s->wdb) > 0 ? 0 : STORE_ENOT_FOUND;
    return 0;
}

int store_mail_unsubscribe(store *s, const char *unsub, store_done_cb cb, void *arg)
{
    mail_job *j = mail_job_new(unsub);
    if (j != NULL) {
        j->done = cb;
        j->arg = arg;
    }
    return mail_call(s, run_unsubscribe, mail_written, j, false);
}

static int run_address_delete(store *s, void *job)
{
    mail_job *j = job;
    static const enum db_stmt steps[] = {ST_MAIL_ADDRESS_DELETE, ST_MAIL_TOKENS_DELETE,
                                         ST_MAIL_OUTBOX_FORGET};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        sql_stmt *st = db_use(s->wst, steps[i]);
        sql_bind_i64(st, 1, j->account);
        if (db_run(st) < 0)
            return STORE_EDB;
    }
    return 0;
}

int store_mail_address_delete(store *s, int64_t account, store_done_cb cb, void *arg)
{
    mail_job *j = mail_job_new(NULL);
    if (j != NULL) {
        j->account = account;
        j->done = cb;
        j->arg = arg;
    }
    return mail_call(s, run_address_delete, mail_written, j, false);
}

/* A token hash into j (at most 32 bytes: BLAKE2b-256). */
static mail_job *with_hash(mail_job *j, const void *hash, size_t hashlen, int purpose)
{
    if (j != NULL) {
        j->hashlen = hashlen < sizeof j->hash ? hashlen : sizeof j->hash;
        memcpy(j->hash, hash, j->hashlen);
        j->purpose = purpose;
    }
    return j;
}

static int run_token_insert(store *s, void *job)
{
    mail_job *j = job;
    /* One live link per purpose: a new one replaces the last; expired
     * tokens of anyone go on the way. */
    sql_stmt *st = db_use(s->wst, ST_MAIL_TOKEN_PURGE);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, j->purpose);
    sql_bind_i64(st, 3, store_now(s));
    if (db_run(st) < 0)
        return STORE_EDB;
    st = db_use(s->wst, ST_MAIL_TOKEN_INSERT);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    sql_bind_i64(st, 2, j->account);
    sql_bind_int(st, 3, j->purpose);
    if (j->text)
        sql_bind_text(st, 4, j->text, -1);
    sql_bind_i64(st, 5, j->expires_ms);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

int store_mail_token_insert(store *s, const void *hash, size_t hashlen, int64_t account,
                            int purpose, const char *address, int64_t expires_ms, store_done_cb cb,
                            void *arg)
{
    mail_job *j = with_hash(mail_job_new(address), hash, hashlen, purpose);
    if (j != NULL) {
        j->account = account;
        j->expires_ms = expires_ms;
        j->done = cb;
        j->arg = arg;
    }
    return mail_call(s, run_token_insert, mail_written, j, false);
}

static int run_token_take(store *s, void *job)
{
    mail_job *j = job;
    sql_stmt *st = db_use(s->wst, ST_MAIL_TOKEN_FIND);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    sql_bind_int(st, 2, j->purpose);
    sql_bind_i64(st, 3, store_now(s));
    int rc = sql_step(st);
    j->status = STORE_ENOT_FOUND;
    if (rc == SQL_ROW) {
        j->account = sql_column_i64(st, 0);
        snprintf(j->address, sizeof j->address, "%s",
                 sql_column_null(st, 1) ? "" : sql_column_text(st, 1));
        j->status = 0;
    }
    sql_reset(st);
    if (rc != SQL_ROW && rc != SQL_DONE)
        return STORE_EDB;
    if (j->status < 0)
        return 0;
    /* Single use: gone before anything is done with it. */
    st = db_use(s->wst, ST_MAIL_TOKEN_DELETE);
    sql_bind_blob(st, 1, j->hash, (int)j->hashlen);
    return db_run(st) < 0 ? STORE_EDB : 0;
}

static void done_token_take(store *s, void *job, int status)
{
    (void)s;
    mail_job *j = job;
    if (status == 0)
        status = j->status;
    j->token(j->arg, status, status == 0 ? j->account : 0, status == 0 ? j->address : NULL);
    mail_job_free(j);
}

int store_mail_token_take(store *s, const void *hash, size_t hashlen, int purpose,
                          store_mail_token_cb cb, void *arg)
{
    mail_job *j = with_hash(mail_job_new(NULL), hash, hashlen, purpose);
    if (j != NULL) {
        j->token = cb;
        j->arg = arg;
    }
    return mail_call(s, run_token_take, done_token_take, j, false);
}

/* ------------------------------------------------------------------------ */
/* The outbox: queueing */

static void mail_free(store_mail_new *m)
{
    if (m == NULL)
        return;
    free((char *)m->kind);
    free((char *)m->to);
    free((char *)m->dedupe);
    free((char *)m->subject);
    free((char *)m->body);
    free(m);
}

static char *dup_or_null(const char *t)
{
    return t ? strdup(t) : NULL;
}

/* Writer: the account's address and preference decide; then the row. */
static int run_mail(store *s, op *o)
{
    const store_mail_new *m = o->mail;
    char addr[STORE_MAIL_ADDR_MAX] = "";
    o->status = 0;
    if (m->to == NULL || m->pref != 0 || m->silent_days > 0) {
        sql_stmt *st = db_use(s->wst, ST_MAIL_PREFS_GET);
        sql_bind_i64(st, 1, m->account);
        bool ok = false;
        if (sql_step(st) == SQL_ROW && !sql_column_null(st, 0)) {
            snprintf(addr, sizeof addr, "%s", sql_column_text(st, 0));
            int rd = sql_column_int(st, 2);
            ok = (m->pref == 0 || ((unsigned)sql_column_int(st, 1) & m->pref) != 0) &&
                 (m->silent_days == 0 || (rd > 0 && rd <= m->silent_days));
        }
        sql_reset(st);
        if (!ok)
            return 0;
    }
    sql_stmt *st = db_use(s->wst, ST_MAIL_OUTBOX_INSERT);
    sql_bind_i64(st, 1, m->account);
    sql_bind_text(st, 2, m->kind, -1);
    if (m->dedupe)
        sql_bind_text(st, 3, m->dedupe, -1);
    sql_bind_text(st, 4, m->to ? m->to : addr, -1);
    sql_bind_text(st, 5, m->subject, -1);
    sql_bind_text(st, 6, m->body, -1);
    sql_bind_i64(st, 7, o->at_ms);
    sql_bind_i64(st, 8, o->at_ms);
    if (db_run(st) < 0)
        return STORE_EDB;
    o->status = sql_changes(s->wdb) > 0;
    return 0;
}

static void done_mail(store *s, op *o, int status)
{
    (void)s;
    if (o->cb.write)
        o->cb.write(o->arg, status < 0 ? status : o->status);
}

static void release_mail(op *o)
{
    mail_free(o->mail);
}

static const op_kind mail_kind = {run_mail, done_mail, release_mail, false, LEASE_NONE};

int store_mail_queue(store *s, const store_mail_new *m, store_done_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (m->kind == NULL || m->subject == NULL || m->body == NULL || m->account <= 0)
        return STORE_EBAD_ARG;
    store_mail_new *c = calloc(1, sizeof *c);
    if (c == NULL)
        return STORE_ENOMEM;
    *c = *m;
    c->kind = strdup(m->kind);
    c->to = dup_or_null(m->to);
    c->dedupe = dup_or_null(m->dedupe);
    c->subject = strdup(m->subject);
    c->body = strdup(m->body);
    op *o = NULL;
    if (c->kind && c->subject && c->body && (m->to == NULL || c->to) &&
        (m->dedupe == NULL || c->dedupe))
        o = queue_push(s, &mail_kind, 0);
    if (o == NULL) {
        mail_free(c);
        return STORE_ENOMEM;
    }
    o->mail = c;
    o->cb.write = cb;
    o->arg = arg;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The mail worker's connection */

enum { MB_NEXT, MB_NEXT_DUE, MB_SENT, MB_FAILED, MB_DEPTH, MB_PURGE, MB_COUNT };

static const enum db_stmt mb_which[MB_COUNT] = {ST_MAIL_NEXT,   ST_MAIL_NEXT_DUE, ST_MAIL_SENT,
                                                ST_MAIL_FAILED, ST_MAIL_DEPTH,    ST_MAIL_PURGE};

struct store_mailbox {
    sql_conn *db;
    sql_stmt *st[MB_COUNT];
    char *kind, *to, *subject, *body; /* the last row's */
};

static void mb_strings_free(store_mailbox *mb)
{
    free(mb->kind);
    free(mb->to);
    free(mb->subject);
    free(mb->body);
    mb->kind = mb->to = mb->subject = mb->body = NULL;
}

void store_mailbox_close(store_mailbox *mb)
{
    if (mb == NULL)
        return;
    for (int i = 0; i < MB_COUNT; i++)
        sql_finalize(mb->st[i]);
    sql_close(mb->db);
    mb_strings_free(mb);
    free(mb);
}

int store_mailbox_open(store *s, store_mailbox **out, char *why, size_t whylen)
{
    store_mailbox *mb = calloc(1, sizeof *mb);
    if (mb == NULL || s->path == NULL) {
        free(mb);
        return STORE_ENOMEM;
    }
    /* The worker's writes are few and small: SQLite's own lock wait covers
     * the writer thread's commits. */
    char err[160] = "no memory";
    int rc = db_connect(s, &mb->db, 5000, err, sizeof err);
    for (int i = 0; i < MB_COUNT && rc == SQL_OK; i++)
        rc = sql_prepare(mb->db, db_sql(s, mb_which[i]), &mb->st[i]);
    if (rc != SQL_OK) {
        rules_why(why, whylen, "the mail worker's connection: %s",
                  mb->db ? sql_errmsg(mb->db) : err);
        store_mailbox_close(mb);
        return STORE_EDB;
    }
    *out = mb;
    return 0;
}

/* Statement i of the mailbox, reset and unbound. */
static sql_stmt *mb_use(store_mailbox *mb, int i)
{
    sql_stmt *st = mb->st[i];
    sql_reset(st);
    sql_clear_bindings(st);
    return st;
}

int store_mailbox_next(store_mailbox *mb, int64_t now, store_mail_row *row, int64_t *next_ms)
{
    mb_strings_free(mb);
    *next_ms = 0;
    sql_stmt *st = mb_use(mb, MB_NEXT);
    sql_bind_i64(st, 1, now);
    int rc = sql_step(st);
    if (rc == SQL_ROW) {
        memset(row, 0, sizeof *row);
        row->id = sql_column_i64(st, 0);
        row->account = sql_column_i64(st, 1);
        row->created_ms = sql_column_i64(st, 2);
        row->tries = sql_column_int(st, 3);
        mb->kind = db_col_dup(st, 4);
        mb->to = db_col_dup(st, 5);
        mb->subject = db_col_dup(st, 6);
        mb->body = db_col_dup(st, 7);
        if (!sql_column_null(st, 8))
            snprintf(row->unsub, sizeof row->unsub, "%s", sql_column_text(st, 8));
        sql_reset(st);
        if (!mb->kind || !mb->to || !mb->subject || !mb->body)
            return STORE_ENOMEM;
        row->kind = mb->kind;
        row->to = mb->to;
        row->subject = mb->subject;
        row->body = mb->body;
        return 1;
    }
    sql_reset(st);
    if (rc != SQL_DONE)
        return STORE_EDB;
    st = mb_use(mb, MB_NEXT_DUE);
    if (sql_step(st) == SQL_ROW)
        *next_ms = sql_column_i64(st, 0);
    sql_reset(st);
    return 0;
}

int store_mailbox_sent(store_mailbox *mb, int64_t id, int64_t now)
{
    sql_stmt *st = mb_use(mb, MB_SENT);
    sql_bind_i64(st, 1, now);
    sql_bind_i64(st, 2, id);
    return db_run(st);
}

int store_mailbox_failed(store_mailbox *mb, int64_t id, int64_t next_ms, const char *error,
                         int64_t now)
{
    sql_stmt *st = mb_use(mb, MB_FAILED);
    sql_bind_i64(st, 1, id);
    sql_bind_text(st, 2, error, -1);
    sql_bind_i64(st, 3, next_ms);
    sql_bind_i64(st, 4, now);
    return db_run(st);
}

int64_t store_mailbox_depth(store_mailbox *mb, int64_t before_ms)
{
    sql_stmt *st;
    if (before_ms > 0) {
        st = mb_use(mb, MB_PURGE);
        sql_bind_i64(st, 1, before_ms);
        db_run(st);
    }
    st = mb_use(mb, MB_DEPTH);
    int64_t n = sql_step(st) == SQL_ROW ? sql_column_i64(st, 0) : STORE_EDB;
    sql_reset(st);
    return n;
}

/* ------------------------------------------------------------------------ */
/* Correspondence games in memory */

void store_corr_each(store *s, void (*cb)(void *arg, const store_corr_turn *t), void *arg)
{
    game_mem *g, *tmp;
    HASH_ITER(hh, s->games, g, tmp)
    {
        if (g->kind != STORE_CORR || g->to_move < 0 || g->to_move >= g->nplayers)
            continue;
        store_corr_turn t = {
            .game = g->id,
            .variant = g->variant,
            .to_move = g->to_move,
            .nmoves = g->nmoves,
            .account = g->account[g->to_move],
            .last_move_ms = g->last_move_ms,
            .deadline_ms = g->deadline_ms,
        };
        cb(arg, &t);
    }
}
