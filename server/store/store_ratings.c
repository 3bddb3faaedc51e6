/*
 * store_ratings.c - Glicko-2 ratings in the store: the rows a rated game's
 * result reads and writes in its transaction (on the writer thread), the
 * committed ratings in memory for the loop, the ratings and history of a
 * profile, leaderboards (queued reads). What the update is (places, the
 * formulas) is rating.h's, given the rows. See store.h ("Ratings") and
 * store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "rating.h"

static rating_key make_key(int64_t account, const char *variant, int pace)
{
    rating_key k;
    memset(&k, 0, sizeof k);
    k.account = account;
    snprintf(k.variant, sizeof k.variant, "%s", variant);
    k.pace = pace;
    return k;
}

/* Into memory (replacing): 0 or STORE_ENOMEM. */
static int mem_put(store *s, int64_t account, const record_rating *r)
{
    rating_key k = make_key(account, r->variant, r->pace);
    rating_mem *m;
    HASH_FIND(hh, s->ratings, &k, sizeof k, m);
    if (m == NULL) {
        m = calloc(1, sizeof *m);
        if (m == NULL)
            return STORE_ENOMEM;
        m->key = k;
        HASH_ADD(hh, s->ratings, key, sizeof m->key, m);
        if (m->hh.tbl == NULL) {
            free(m);
            return STORE_ENOMEM;
        }
    }
    m->r = *r;
    return 0;
}

/* A row of ST_RATINGS_OF / ST_RATING_GET from column `at` on (rating, rd,
 * vol, games, last_ms). */
static void read_values(sql_stmt *st, int at, record_rating *r)
{
    r->rating = sql_column_double(st, at);
    r->rd = sql_column_double(st, at + 1);
    r->vol = sql_column_double(st, at + 2);
    r->games = sql_column_int(st, at + 3);
    r->last_ms = sql_column_i64(st, at + 4);
}

int ratings_load(store *s)
{
    sql_stmt *st = db_use(db_loop(s), ST_RATINGS_ALL);
    int err = 0, rc;
    while (err == 0 && (rc = sql_step(st)) == SQL_ROW) {
        record_rating r = {.pace = rating_pace_parse(sql_column_text(st, 2))};
        snprintf(r.variant, sizeof r.variant, "%s", sql_column_text(st, 1));
        read_values(st, 3, &r);
        if (r.pace >= 0)
            err = mem_put(s, sql_column_i64(st, 0), &r);
    }
    sql_reset(st);
    return err;
}

void ratings_free(store *s)
{
    rating_mem *m, *tmp;
    HASH_ITER(hh, s->ratings, m, tmp)
    {
        HASH_DEL(s->ratings, m);
        free(m);
    }
}

int store_rating_get(store *s, int64_t account, const char *variant, int pace, store_rating *out)
{
    if (variant == NULL || strlen(variant) >= RECORD_VARIANT_MAX)
        return STORE_ENOT_FOUND;
    rating_key k = make_key(account, variant, pace);
    rating_mem *m;
    HASH_FIND(hh, s->ratings, &k, sizeof k, m);
    if (m == NULL)
        return STORE_ENOT_FOUND;
    *out = m->r;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The update, on the writer thread */

/* What a finished rated game changed, for ratings_done. */
typedef struct rated {
    int n;
    int64_t account[RULES_MAX_PLAYERS];
    record_rating after[RULES_MAX_PLAYERS];
} rated;

void ratings_release(op *o)
{
    free(o->answer);
    o->answer = NULL;
}

int ratings_apply(store *s, op *o)
{
    ratings_release(o); /* a retry computes again */
    if (o->result.reason == RULES_REASON_ABORTED)
        return 0;
    sql_stmt *st = db_use(s->wst, ST_GAME_SELECT);
    sql_bind_i64(st, 1, o->game);
    if (sql_step(st) != SQL_ROW) {
        sql_reset(st);
        return STORE_EDB;
    }
    char variant[RECORD_VARIANT_MAX];
    snprintf(variant, sizeof variant, "%s", sql_column_text(st, 0));
    bool corr = sql_column_int(st, 2) == STORE_CORR, is_rated = sql_column_int(st, 3);
    int n = sql_column_int(st, 4);
    int pace = rating_pace_of(corr, sql_column_i64(st, 5), sql_column_i64(st, 6));
    sql_reset(st);
    if (!is_rated || n < 2 || n > RULES_MAX_PLAYERS)
        return 0;

    int64_t acct[RULES_MAX_PLAYERS] = {0};
    st = db_use(s->wst, ST_PLAYERS_SELECT);
    sql_bind_i64(st, 1, o->game);
    while (sql_step(st) == SQL_ROW) {
        int seat = sql_column_int(st, 0);
        if (seat >= 0 && seat < n)
            acct[seat] = sql_column_i64(st, 1); /* NULL (a guest): 0 */
    }
    sql_reset(st);
    for (int p = 0; p < n; p++)
        for (int q = 0; q < p + 1; q++)
            if (acct[p] == 0 || (q < p && acct[q] == acct[p]))
                return 0; /* a guest, or one account on two seats: not rated */

    /* Who left and when (INT64_MAX: seated at the end). */
    int64_t left_ply[RULES_MAX_PLAYERS], left_ms[RULES_MAX_PLAYERS];
    bool lost[RULES_MAX_PLAYERS];
    for (int p = 0; p < n; p++) {
        left_ply[p] = left_ms[p] = INT64_MAX;
        lost[p] = o->result.outcome[p] == RULES_OUTCOME_LOSS;
    }
    st = db_use(s->wst, ST_LEAVES_SELECT);
    sql_bind_i64(st, 1, o->game);
    while (sql_step(st) == SQL_ROW) {
        int p = sql_column_int(st, 0);
        if (p >= 0 && p < n) {
            left_ply[p] = sql_column_i64(st, 1);
            left_ms[p] = sql_column_i64(st, 3);
        }
    }
    sql_reset(st);
    int rank[RULES_MAX_PLAYERS];
    rating_places(lost, left_ply, left_ms, n, rank);

    rated *u = calloc(1, sizeof *u);
    if (u == NULL)
        return STORE_ENOMEM;
    record_rating before[RULES_MAX_PLAYERS];
    rating_glicko g[RULES_MAX_PLAYERS];
    int64_t last[RULES_MAX_PLAYERS];
    for (int p = 0; p < n; p++) {
        record_rating *b = &before[p];
        memset(b, 0, sizeof *b);
        snprintf(b->variant, sizeof b->variant, "%s", variant);
        b->pace = pace;
        st = db_use(s->wst, ST_RATING_GET);
        sql_bind_i64(st, 1, acct[p]);
        sql_bind_text(st, 2, variant, -1);
        sql_bind_text(st, 3, rating_pace_name(pace), -1);
        if (sql_step(st) == SQL_ROW) {
            read_values(st, 0, b);
        } else {
            rating_glicko first = rating_first(n);
            b->rating = first.r;
            b->rd = first.rd;
            b->vol = first.vol;
        }
        sql_reset(st);
        g[p] = (rating_glicko){b->rating, b->rd, b->vol};
        last[p] = b->last_ms;
    }
    rating_game_update(g, last, o->at_ms, rank, n);
    int err = 0;
    for (int p = 0; p < n && err == 0; p++) {
        record_rating *a = &u->after[p];
        *a = before[p];
        a->rating = g[p].r;
        a->rd = g[p].rd;
        a->vol = g[p].vol;
        a->games++;
        a->last_ms = o->at_ms;
        u->account[p] = acct[p];

        st = db_use(s->wst, ST_RATING_PUT);
        sql_bind_i64(st, 1, acct[p]);
        sql_bind_text(st, 2, variant, -1);
        sql_bind_text(st, 3, rating_pace_name(pace), -1);
        sql_bind_double(st, 4, a->rating);
        sql_bind_double(st, 5, a->rd);
        sql_bind_double(st, 6, a->vol);
        sql_bind_int(st, 7, a->games);
        sql_bind_i64(st, 8, a->last_ms);
        if ((err = db_run(st)) < 0)
            break;
        st = db_use(s->wst, ST_RATING_HIST_INSERT);
        sql_bind_i64(st, 1, acct[p]);
        sql_bind_i64(st, 2, o->game);
        sql_bind_text(st, 3, variant, -1);
        sql_bind_text(st, 4, rating_pace_name(pace), -1);
        sql_bind_i64(st, 5, o->at_ms);
        sql_bind_double(st, 6, before[p].rating);
        sql_bind_double(st, 7, a->rating);
        sql_bind_double(st, 8, a->rd);
        err = db_run(st);
    }
    if (err < 0) {
        free(u);
        return err;
    }
    u->n = n;
    o->answer = u;
    return 0;
}

void ratings_done(store *s, op *o, int status)
{
    rated *u = o->answer;
    if (status != 0 || u == NULL)
        return;
    for (int p = 0; p < u->n; p++)
        if (mem_put(s, u->account[p], &u->after[p]) < 0)
            log_kv(LOG_WARN, "out of memory keeping a rating", "account=%lld",
                   (long long)u->account[p]);
}

/* ------------------------------------------------------------------------ */
/* Reads */

int ratings_read_profile(store *s, int64_t account, record_rating **r, int *nr,
                         record_rating_point **pts, int *npts)
{
    size_t capr = 0, capp = 0;
    *r = NULL;
    *pts = NULL;
    *nr = *npts = 0;
    int err = 0;
    sql_stmt *st = db_use(s->wst, ST_RATINGS_OF);
    sql_bind_i64(st, 1, account);
    while (err == 0 && sql_step(st) == SQL_ROW) {
        if (array_reserve((void **)r, &capr, (size_t)*nr + 1, sizeof **r) < 0) {
            err = STORE_ENOMEM;
            break;
        }
        record_rating *e = &(*r)[*nr];
        memset(e, 0, sizeof *e);
        snprintf(e->variant, sizeof e->variant, "%s", sql_column_text(st, 0));
        e->pace = rating_pace_parse(sql_column_text(st, 1));
        read_values(st, 2, e);
        (*nr)++;
    }
    sql_reset(st);
    st = db_use(s->wst, ST_RATING_HISTORY_OF);
    sql_bind_i64(st, 1, account);
    while (err == 0 && sql_step(st) == SQL_ROW) {
        if (array_reserve((void **)pts, &capp, (size_t)*npts + 1, sizeof **pts) < 0) {
            err = STORE_ENOMEM;
            break;
        }
        record_rating_point *e = &(*pts)[*npts];
        memset(e, 0, sizeof *e);
        snprintf(e->variant, sizeof e->variant, "%s", sql_column_text(st, 0));
        e->pace = rating_pace_parse(sql_column_text(st, 1));
        e->game = sql_column_i64(st, 2);
        e->at_ms = sql_column_i64(st, 3);
        e->rating = sql_column_double(st, 4);
        e->rd = sql_column_double(st, 5);
        (*npts)++;
    }
    sql_reset(st);
    return err;
}

typedef struct board_buf {
    record_board info;
    record_board_entry *entries;
    size_t cap;
} board_buf;

static int run_board(store *s, op *o)
{
    board_buf *b = o->answer;
    if (b == NULL && (b = o->answer = calloc(1, sizeof *b)) == NULL) {
        o->status = STORE_ENOMEM;
        return 0;
    }
    b->info.n = 0; /* a retry reads again */
    snprintf(b->info.variant, sizeof b->info.variant, "%s", o->name);
    sql_stmt *st = db_use(s->wst, ST_LEADERBOARD);
    sql_bind_text(st, 1, o->name, -1);
    sql_bind_double(st, 2, RATING_PROVISIONAL_RD);
    sql_bind_i64(st, 3, o->at_ms - STORE_BOARD_ACTIVE_MS);
    int per_pace[RATING_NPACES] = {0};
    o->status = 0;
    while (sql_step(st) == SQL_ROW) {
        int pace = rating_pace_parse(sql_column_text(st, 1));
        if (pace < 0 || per_pace[pace] >= STORE_BOARD_MAX)
            continue;
        if (array_reserve((void **)&b->entries, &b->cap, (size_t)b->info.n + 1,
                          sizeof *b->entries) < 0) {
            o->status = STORE_ENOMEM;
            break;
        }
        record_board_entry *e = &b->entries[b->info.n++];
        memset(e, 0, sizeof *e);
        snprintf(e->username, sizeof e->username, "%s", sql_column_text(st, 0));
        e->pace = pace;
        e->rating = sql_column_double(st, 2);
        e->rd = sql_column_double(st, 3);
        e->games = sql_column_int(st, 4);
        e->last_ms = sql_column_i64(st, 5);
        per_pace[pace]++;
    }
    sql_reset(st);
    b->info.entries = b->entries;
    return 0;
}

static void done_board(store *s, op *o, int status)
{
    (void)s;
    if (status == 0)
        status = o->status;
    board_buf *b = o->answer;
    o->cb.board(o->arg, status, status == 0 ? &b->info : NULL);
}

static void release_board(op *o)
{
    free(o->name);
    board_buf *b = o->answer;
    if (b != NULL) {
        free(b->entries);
        free(b);
    }
}

static const op_kind board_kind = {run_board, done_board, release_board, true, LEASE_NONE};

int store_leaderboard_get(store *s, const char *variant, store_board_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (variant == NULL || strlen(variant) >= RECORD_VARIANT_MAX)
        return STORE_EBAD_ARG;
    char *name = strdup(variant);
    op *o = name ? queue_push(s, &board_kind, 0) : NULL;
    if (o == NULL) {
        free(name);
        return STORE_ENOMEM;
    }
    o->name = name;
    o->cb.board = cb;
    o->arg = arg;
    return 0;
}
