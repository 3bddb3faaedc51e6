/*
 * store_lease.c - node mode (--node NAME, PostgreSQL only): several server
 * nodes on one database, each game in progress written by one node at a
 * time, the holder of its lease (store.h, "Leases"; migration 0009).
 *
 * Two sides, as everywhere in the store:
 *   - the loop keeps the leases this node holds (s->leases: the game, its
 *     epoch, when its take was queued) and refuses a write of a game it
 *     does not hold or whose lease it must consider lost (lease_writable);
 *   - the writer checks, in each game write's transaction, that the lease
 *     row still carries the fence of the epoch the op was queued under
 *     (lease_run), locking the row FOR SHARE until the COMMIT so that a
 *     take-over cannot slip in between. A mismatch skips that op alone
 *     (its run is not called, the batch goes on); the loop then answers it
 *     STORE_ELEASE_LOST and drops the game (lease_done).
 *
 * An epoch is the lease as the ops queued under it hold it: its fence is
 * written by the writer when the op that makes it runs (a creation: the
 * fence comes from the database in the same transaction, so moves can be
 * queued behind the creation before it commits) or by the loop when a
 * take's answer arrives (before any op can reference it). A retried batch
 * runs its creation again and the fence is written again. An op queued
 * under an old epoch (the lease was lost and taken again since) carries
 * the old fence and is fenced out.
 *
 * Lost locally: a lease is valid until the later of its take and the last
 * renewal that committed, as queued (not committed), plus the ttl: the
 * same instant as its row's expires_ms, so this node stops writing when
 * any other node may take it (up to their clocks' difference; the fence
 * guards the rest). The renewal (every ttl/3, one queued call: every row
 * of this node still alive, and the node's heartbeat) returns the games
 * it renewed; a lease missing from them is lost.
 *
 * Game ids: a single server numbers games from max(id); nodes cannot, so
 * each reserves blocks of LEASE_ID_BLOCK ids (a value of the sequence
 * game_id_blocks times the block size), one at start-up and the next
 * (a queued read) once half of the current one is used. store_open moves
 * the sequence past the games a single server created before.
 */
#include "store_impl.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "proto_out.h"

enum { LEASE_ID_BLOCK = 1 << 20 };

/* ------------------------------------------------------------------------ */
/* Epochs and the table of leases held (loop) */

static lease_epoch *epoch_new(void)
{
    lease_epoch *e = calloc(1, sizeof *e);
    if (e)
        e->refs = 1;
    return e;
}

void lease_epoch_unref(lease_epoch *e)
{
    if (e && --e->refs == 0)
        free(e);
}

static lease_held *held_find(store *s, int64_t game)
{
    lease_held *l = NULL;
    HASH_FIND(hh, s->leases, &game, sizeof game, l);
    return l;
}

lease_epoch *lease_epoch_ref(store *s, int64_t game)
{
    lease_held *l = held_find(s, game);
    if (l == NULL)
        return NULL;
    l->epoch->refs++;
    return l->epoch;
}

/* The instant the lease stops being valid here. */
static int64_t held_until(const store *s, const lease_held *l)
{
    return (l->taken_ms > s->renewed_ms ? l->taken_ms : s->renewed_ms) + s->lease_ttl_ms;
}

static void held_free(store *s, lease_held *l)
{
    HASH_DEL(s->leases, l);
    lease_epoch_unref(l->epoch);
    free(l);
}

/* A new entry (or the game's entry with a new epoch): 0 or STORE_ENOMEM. */
static int held_put(store *s, int64_t game, lease_epoch *e, uint64_t seq, int64_t at_ms)
{
    lease_held *l = held_find(s, game);
    if (l == NULL) {
        if ((l = calloc(1, sizeof *l)) == NULL)
            return STORE_ENOMEM;
        l->game = game;
        HASH_ADD(hh, s->leases, game, sizeof l->game, l);
        if (l->hh.tbl == NULL) {
            free(l);
            return STORE_ENOMEM;
        }
    } else if (l->epoch != e) {
        lease_epoch_unref(l->epoch);
    }
    if (l->epoch != e)
        e->refs++;
    l->epoch = e;
    l->seq = seq;
    l->taken_ms = at_ms;
    return 0;
}

int lease_writable(store *s, int64_t game)
{
    if (s->node == NULL)
        return 0;
    lease_held *l = held_find(s, game);
    return l && store_now(s) < held_until(s, l) ? 0 : STORE_ELEASE_LOST;
}

bool store_lease_held(store *s, int64_t game)
{
    return s->node && lease_writable(s, game) == 0;
}

int lease_new(store *s, int64_t game, int64_t at_ms)
{
    lease_epoch *e = epoch_new();
    if (e == NULL)
        return STORE_ENOMEM;
    int err = held_put(s, game, e, ++s->lease_seq, at_ms);
    lease_epoch_unref(e);
    return err;
}

void lease_forget(store *s, int64_t game)
{
    lease_held *l = held_find(s, game);
    if (l)
        held_free(s, l);
}

void lease_lost(store *s, int64_t game, const lease_epoch *e)
{
    lease_held *l = held_find(s, game);
    if (l == NULL || (e && l->epoch != e))
        return; /* already gone, or taken again since */
    held_free(s, l);
    mem_game_remove(s, game);
    log_kv(LOG_INFO, "store: a game's lease is lost", "game=%lld node=%s", (long long)game,
           s->node);
    if (s->lease_lost_cb)
        s->lease_lost_cb(s->lease_lost_arg, game);
}

void store_set_lease_lost_cb(store *s, void (*cb)(void *, int64_t), void *arg)
{
    s->lease_lost_cb = cb;
    s->lease_lost_arg = arg;
}

void lease_free(store *s)
{
    lease_held *l, *ln;
    HASH_ITER(hh, s->leases, l, ln)
    held_free(s, l);
}

/* ------------------------------------------------------------------------ */
/* The fence, checked in each write's transaction (writer) */

int lease_fence_ok(store *s, int64_t game, const lease_epoch *e)
{
    sql_stmt *st = db_use(s->wst, ST_LEASE_FENCE);
    sql_bind_i64(st, 1, game);
    int rc = sql_step(st);
    int ok = rc == SQL_ROW && e && e->fence != 0 && sql_column_i64(st, 0) == e->fence;
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? ok : STORE_EDB;
}

/* A row of the batch's lease check. */
typedef struct fence_row {
    int64_t game, fence;
} fence_row;

static int cmp_row(const void *a, const void *b)
{
    const fence_row *x = a, *y = b;
    return (x->game > y->game) - (x->game < y->game);
}

/* Is op i's game created by an op before it in this batch? That op, or
 * NULL. */
static const op *created_before(const op *ops, size_t i, const size_t *news, size_t nnews)
{
    for (size_t k = 0; k < nnews && news[k] < i; k++)
        if (ops[news[k]].game == ops[i].game)
            return &ops[news[k]];
    return NULL;
}

int lease_check_batch(store *s, op *ops, size_t n)
{
    size_t *news = NULL, nnews = 0, capnews = 0, nids = 0;
    proto_out ids;
    proto_out_init(&ids, 0);
    proto_out_append(&ids, "{", 1);
    int err = 0;
    for (size_t i = 0; i < n && err == 0; i++) {
        op *o = &ops[i];
        o->fenced_out = false;
        if (o->kind->lease == LEASE_NEW) {
            if (array_reserve((void **)&news, &capnews, nnews + 1, sizeof *news) < 0)
                err = STORE_ENOMEM;
            else
                news[nnews++] = i;
        } else if (o->kind->lease == LEASE_CHECK || o->kind->lease == LEASE_END) {
            /* A game created in this very transaction: its row is ours
             * alone until the COMMIT; the op passes if it was queued under
             * that creation's lease. */
            const op *c = created_before(ops, i, news, nnews);
            if (c) {
                o->fenced_out = o->epoch != c->epoch;
            } else {
                char num[24];
                int len = snprintf(num, sizeof num, "%s%lld", nids ? "," : "", (long long)o->game);
                proto_out_append(&ids, num, (size_t)len);
                nids++;
            }
        }
    }
    proto_out_append(&ids, "}", 1);
    if (err == 0 && ids.oom)
        err = STORE_ENOMEM;
    fence_row *rows = NULL;
    size_t nrows = 0, caprows = 0;
    if (err == 0 && nids > 0) {
        /* One statement for the batch: every row locked until the COMMIT,
         * so no take-over slips in before it. */
        sql_stmt *st = db_use(s->wst, ST_LEASE_CHECK);
        sql_bind_text(st, 1, ids.buf, (int)ids.len);
        int rc;
        while ((rc = sql_step(st)) == SQL_ROW) {
            if (array_reserve((void **)&rows, &caprows, nrows + 1, sizeof *rows) < 0) {
                err = STORE_ENOMEM;
                break;
            }
            rows[nrows++] = (fence_row){sql_column_i64(st, 0), sql_column_i64(st, 1)};
        }
        sql_reset(st);
        if (err == 0 && rc != SQL_DONE)
            err = STORE_EDB;
    }
    for (size_t i = 0; err == 0 && nids > 0 && i < n; i++) {
        op *o = &ops[i];
        if ((o->kind->lease != LEASE_CHECK && o->kind->lease != LEASE_END) ||
            created_before(ops, i, news, nnews))
            continue;
        fence_row key = {o->game, 0};
        const fence_row *r = nrows ? bsearch(&key, rows, nrows, sizeof *rows, cmp_row) : NULL;
        o->fenced_out = !(r && o->epoch && o->epoch->fence != 0 && r->fence == o->epoch->fence);
    }
    free(rows);
    free(news);
    proto_out_free(&ids);
    return err;
}

int lease_run(store *s, op *o)
{
    if (o->kind->lease == LEASE_NEW) {
        int err = o->kind->run(s, o);
        if (err < 0)
            return err;
        sql_stmt *st = db_use(s->wst, ST_LEASE_NEW);
        sql_bind_i64(st, 1, o->game);
        sql_bind_text(st, 2, s->node, -1);
        sql_bind_i64(st, 3, o->at_ms + s->lease_ttl_ms);
        int rc = sql_step(st);
        if (rc == SQL_ROW && o->epoch)
            o->epoch->fence = sql_column_i64(st, 0);
        sql_reset(st);
        return rc == SQL_ROW ? 0 : STORE_EDB;
    }
    if (o->fenced_out)
        return 0; /* lease_check_batch: its writes skipped; the batch goes on */
    int err = o->kind->run(s, o);
    if (err == 0 && o->kind->lease == LEASE_END) {
        sql_stmt *st = db_use(s->wst, ST_LEASE_DELETE);
        sql_bind_i64(st, 1, o->game);
        sql_bind_i64(st, 2, o->epoch->fence);
        err = db_run(st);
    }
    return err;
}

void lease_done(store *s, op *o, int *status)
{
    switch (o->kind->lease) {
    case LEASE_NEW:
        if (*status == 0) {
            lease_held *l = held_find(s, o->game);
            if (l && l->epoch == o->epoch)
                l->confirmed = true;
        } else {
            lease_lost(s, o->game, o->epoch); /* never written */
        }
        break;
    case LEASE_CHECK:
    case LEASE_END:
        if (*status == 0 && o->fenced_out) {
            *status = STORE_ELEASE_LOST;
            memset(o->notify, 0, sizeof o->notify);
            log_kv(LOG_WARN, "store: a write of a game whose lease is lost was not written",
                   "game=%lld node=%s", (long long)o->game, s->node);
            lease_lost(s, o->game, o->epoch);
        } else if (*status == 0 && o->kind->lease == LEASE_END) {
            lease_held *l = held_find(s, o->game);
            if (l && l->epoch == o->epoch)
                held_free(s, l); /* finished: nothing more to write */
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* Take and release (queued calls) */

typedef struct take_job {
    int64_t game, at_ms, fence;
    uint64_t seq;
    int status;
    char holder[64];
    store_lease_cb cb;
    void *arg;
} take_job;

static int run_take(store *s, void *arg)
{
    take_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_LEASE_TAKE);
    sql_bind_i64(st, 1, j->game);
    sql_bind_text(st, 2, s->node, -1);
    sql_bind_i64(st, 3, j->at_ms + s->lease_ttl_ms);
    sql_bind_i64(st, 4, j->at_ms);
    int rc = sql_step(st);
    j->fence = rc == SQL_ROW ? sql_column_i64(st, 0) : 0;
    sql_reset(st);
    if (rc != SQL_ROW && rc != SQL_DONE)
        return STORE_EDB;
    j->holder[0] = '\0';
    j->status = 0;
    if (rc == SQL_ROW)
        return 0;
    /* Refused: held by a live node, or no game in progress. */
    st = db_use(s->wst, ST_LEASE_HOLDER);
    sql_bind_i64(st, 1, j->game);
    rc = sql_step(st);
    if (rc == SQL_ROW)
        snprintf(j->holder, sizeof j->holder, "%s", sql_column_text(st, 0));
    sql_reset(st);
    if (rc != SQL_ROW && rc != SQL_DONE)
        return STORE_EDB;
    j->status = rc == SQL_ROW ? STORE_ELEASED : STORE_ENOT_FOUND;
    return 0;
}

static void done_take(store *s, void *arg, int status)
{
    take_job *j = arg;
    if (status == 0)
        status = j->status;
    lease_held *l = status == 0 ? held_find(s, j->game) : NULL;
    /* (An unconfirmed lease's fence is the writer's until its creation
     * commits: not read here.) */
    if (l && l->confirmed && l->epoch->fence == j->fence) {
        /* Ours and alive: renewed, same fence. */
        if (j->at_ms > l->taken_ms)
            l->taken_ms = j->at_ms;
        l->confirmed = true;
    } else if (status == 0) {
        /* A new epoch: whatever this node had of the game is stale (the
         * caller adopts it). */
        lease_epoch *e = epoch_new();
        if (e == NULL || held_put(s, j->game, e, j->seq, j->at_ms) < 0) {
            status = STORE_ENOMEM;
        } else {
            e->fence = j->fence;
            held_find(s, j->game)->confirmed = true;
        }
        lease_epoch_unref(e); /* the table holds it */
        mem_game_remove(s, j->game);
    }
    j->cb(j->arg, status, status == 0 ? j->fence : 0, j->holder);
    free(j);
}

int store_lease_take(store *s, int64_t game, store_lease_cb cb, void *arg)
{
    if (s->node == NULL || cb == NULL || game <= 0)
        return STORE_EBAD_ARG;
    take_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    j->game = game;
    j->at_ms = store_now(s);
    j->seq = ++s->lease_seq;
    j->cb = cb;
    j->arg = arg;
    int err = queue_call(s, run_take, done_take, j, false);
    if (err < 0)
        free(j);
    return err;
}

typedef struct release_job {
    int64_t game, fence;
    store_done_cb cb;
    void *arg;
} release_job;

static int run_release(store *s, void *arg)
{
    release_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_LEASE_DELETE);
    sql_bind_i64(st, 1, j->game);
    sql_bind_i64(st, 2, j->fence);
    return db_run(st);
}

static void done_release(store *s, void *arg, int status)
{
    (void)s;
    release_job *j = arg;
    if (j->cb)
        j->cb(j->arg, status);
    free(j);
}

int store_lease_release(store *s, int64_t game, store_done_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    lease_held *l = s->node ? held_find(s, game) : NULL;
    if (l == NULL)
        return STORE_ENOT_FOUND;
    release_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    /* A creation not yet committed has no fence on the loop yet: its row
     * stays, to expire. */
    *j = (release_job){game, l->confirmed ? l->epoch->fence : 0, cb, arg};
    if ((err = queue_call(s, run_release, done_release, j, false)) < 0) {
        free(j);
        return err;
    }
    held_free(s, l);
    mem_game_remove(s, game);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Renewal (a timer; one queued call at a time) */

typedef struct renew_job {
    int64_t at_ms;
    uint64_t seq;
    int64_t *games; /* renewed (sorted) */
    size_t n, cap;
} renew_job;

static int run_renew(store *s, void *arg)
{
    renew_job *j = arg;
    j->n = 0; /* a retry counts again */
    sql_stmt *st = db_use(s->wst, ST_LEASE_RENEW);
    sql_bind_i64(st, 1, j->at_ms);
    sql_bind_i64(st, 2, s->lease_ttl_ms);
    sql_bind_text(st, 3, s->node, -1);
    int rc;
    while ((rc = sql_step(st)) == SQL_ROW) {
        if (array_reserve((void **)&j->games, &j->cap, j->n + 1, sizeof *j->games) < 0)
            break; /* those missing are lost: safe */
        j->games[j->n++] = sql_column_i64(st, 0);
    }
    sql_reset(st);
    if (rc == SQL_ROW)
        rc = SQL_DONE;
    if (rc != SQL_DONE)
        return STORE_EDB;
    st = db_use(s->wst, ST_NODE_BEAT);
    sql_bind_text(st, 1, s->node, -1);
    sql_bind_i64(st, 2, j->at_ms);
    return db_run(st);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The leases the renewal `j` shows lost (j NULL: those whose time has
 * passed), lost: listed first, since the lease-lost callback may change
 * the table. */
static void lose_leases(store *s, const renew_job *j)
{
    int64_t now = store_now(s);
    int64_t *lost = NULL;
    size_t n = 0, cap = 0;
    lease_held *l, *ln;
    HASH_ITER(hh, s->leases, l, ln)
    {
        bool gone =
            j ? l->confirmed && l->seq < j->seq &&
                    (j->n == 0 || !bsearch(&l->game, j->games, j->n, sizeof *j->games, cmp_i64))
              : now >= held_until(s, l);
        if (gone && array_reserve((void **)&lost, &cap, n + 1, sizeof *lost) == 0)
            lost[n++] = l->game;
    }
    for (size_t i = 0; i < n; i++)
        lease_lost(s, lost[i], NULL);
    free(lost);
}

static void done_renew(store *s, void *arg, int status)
{
    renew_job *j = arg;
    s->renew_pending = false;
    if (status == 0 && !s->closing) {
        /* Every lease taken before the renewal was queued (its take has
         * answered by now) and not renewed is lost: it had expired by then
         * (the row is renewed only while alive), or another node holds
         * it. */
        if (j->n > 0)
            qsort(j->games, j->n, sizeof *j->games, cmp_i64);
        lose_leases(s, j);
        if (j->at_ms > s->renewed_ms)
            s->renewed_ms = j->at_ms;
    }
    free(j->games);
    free(j);
}

static void renew_tick(uv_timer_t *t)
{
    store *s = t->data;
    if (s->closing)
        return;
    lose_leases(s, NULL);
    if (s->renew_paused || s->renew_pending)
        return;
    renew_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return;
    j->at_ms = store_now(s);
    j->seq = ++s->lease_seq;
    if (queue_call(s, run_renew, done_renew, j, false) < 0) {
        free(j);
        return;
    }
    s->renew_pending = true;
}

void store_lease_pause(store *s, bool paused)
{
    s->renew_paused = paused;
}

void lease_start(store *s)
{
    uv_timer_init(s->loop, &s->lease_timer);
    s->lease_timer.data = s;
    uint64_t every = (uint64_t)s->lease_ttl_ms / 3;
    uv_timer_start(&s->lease_timer, renew_tick, every ? every : 1, every ? every : 1);
    uv_unref((uv_handle_t *)&s->lease_timer);
    s->lease_timer_on = true;
    s->open_handles++;
}

void lease_stop(store *s, uv_close_cb closed)
{
    if (!s->lease_timer_on)
        return;
    uv_timer_stop(&s->lease_timer);
    uv_close((uv_handle_t *)&s->lease_timer, closed);
    s->lease_timer_on = false;
}

/* ------------------------------------------------------------------------ */
/* Take-over: the games no live node holds (a queued read) */

typedef struct expired_job {
    int64_t at_ms;
    int64_t *ids;
    size_t n, cap;
    int status;
    store_ids_cb cb;
    void *arg;
} expired_job;

static int run_expired(store *s, void *arg)
{
    expired_job *j = arg;
    j->n = 0;
    j->status = 0;
    sql_stmt *st = db_use(s->wst, ST_LEASE_EXPIRED);
    sql_bind_i64(st, 1, j->at_ms);
    sql_bind_int(st, 2, STORE_LEASE_EXPIRED_MAX);
    int rc;
    while ((rc = sql_step(st)) == SQL_ROW) {
        if (array_reserve((void **)&j->ids, &j->cap, j->n + 1, sizeof *j->ids) < 0) {
            j->status = STORE_ENOMEM;
            break;
        }
        j->ids[j->n++] = sql_column_i64(st, 0);
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static void done_expired(store *s, void *arg, int status)
{
    (void)s;
    expired_job *j = arg;
    if (status == 0)
        status = j->status;
    j->cb(j->arg, status, status == 0 ? j->ids : NULL, status == 0 ? (int)j->n : 0);
    free(j->ids);
    free(j);
}

int store_lease_expired(store *s, store_ids_cb cb, void *arg)
{
    if (s->node == NULL || cb == NULL)
        return STORE_EBAD_ARG;
    expired_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    j->at_ms = store_now(s);
    j->cb = cb;
    j->arg = arg;
    int err = queue_call(s, run_expired, done_expired, j, true);
    if (err < 0)
        free(j);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Who holds a game, which node holds the lobby (queued reads, forward.c) */

typedef struct nodes_job {
    int64_t game, at_ms;
    store_node *nodes;
    size_t n, cap;
    int status;
    store_node_cb holder_cb; /* one of the two */
    store_nodes_cb live_cb;
    void *arg;
} nodes_job;

/* The rows (name, and started_ms if there is such a column) into j. */
static int read_nodes(sql_stmt *st, nodes_job *j, bool with_since)
{
    int rc;
    j->n = 0;
    j->status = 0;
    while ((rc = sql_step(st)) == SQL_ROW) {
        if (array_reserve((void **)&j->nodes, &j->cap, j->n + 1, sizeof *j->nodes) < 0) {
            j->status = STORE_ENOMEM;
            break;
        }
        store_node *nd = &j->nodes[j->n++];
        const char *name = sql_column_text(st, 0);
        snprintf(nd->name, sizeof nd->name, "%s", name ? name : "");
        nd->started_ms = with_since ? sql_column_i64(st, 1) : 0;
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static int run_holder(store *s, void *arg)
{
    nodes_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_LEASE_HOLDER);
    sql_bind_i64(st, 1, j->game);
    return read_nodes(st, j, false);
}

static int run_live(store *s, void *arg)
{
    nodes_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_NODES_LIVE);
    sql_bind_i64(st, 1, j->at_ms - (int64_t)s->lease_ttl_ms);
    sql_bind_int(st, 2, STORE_NODES_MAX);
    return read_nodes(st, j, true);
}

static void done_nodes(store *s, void *arg, int status)
{
    (void)s;
    nodes_job *j = arg;
    if (status == 0)
        status = j->status;
    if (j->holder_cb != NULL) {
        if (status == 0 && j->n == 0)
            status = STORE_ENOT_FOUND;
        j->holder_cb(j->arg, status, status == 0 ? j->nodes[0].name : NULL);
    } else {
        j->live_cb(j->arg, status, status == 0 ? j->nodes : NULL, status == 0 ? (int)j->n : 0);
    }
    free(j->nodes);
    free(j);
}

static int queue_nodes(store *s, int (*run)(store *, void *), nodes_job *j)
{
    if (s->node == NULL) {
        free(j);
        return STORE_EBAD_ARG;
    }
    j->at_ms = store_now(s);
    int err = queue_call(s, run, done_nodes, j, true);
    if (err < 0)
        free(j);
    return err;
}

int store_lease_holder(store *s, int64_t game, store_node_cb cb, void *arg)
{
    nodes_job *j = cb ? calloc(1, sizeof *j) : NULL;
    if (j == NULL)
        return cb ? STORE_ENOMEM : STORE_EBAD_ARG;
    j->game = game;
    j->holder_cb = cb;
    j->arg = arg;
    return queue_nodes(s, run_holder, j);
}

int store_live_nodes(store *s, store_nodes_cb cb, void *arg)
{
    nodes_job *j = cb ? calloc(1, sizeof *j) : NULL;
    if (j == NULL)
        return cb ? STORE_ENOMEM : STORE_EBAD_ARG;
    j->live_cb = cb;
    j->arg = arg;
    return queue_nodes(s, run_live, j);
}

/* ------------------------------------------------------------------------ */
/* Game ids: blocks of the sequence game_id_blocks */

typedef struct block_job {
    int64_t base;
} block_job;

static int run_block(store *s, void *arg)
{
    block_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_GAME_ID_BLOCK);
    int rc = sql_step(st);
    j->base = rc == SQL_ROW ? sql_column_i64(st, 0) * LEASE_ID_BLOCK : 0;
    sql_reset(st);
    return rc == SQL_ROW ? 0 : STORE_EDB;
}

static void done_block(store *s, void *arg, int status)
{
    block_job *j = arg;
    s->id_refill_pending = false;
    if (status == 0 && j->base > 0)
        s->id_next_base = j->base;
    free(j);
}

int lease_game_id(store *s, int64_t *id)
{
    if (s->next_id >= s->id_end && s->id_next_base > 0) {
        s->next_id = s->id_next_base;
        s->id_end = s->id_next_base + LEASE_ID_BLOCK;
        s->id_next_base = 0;
    }
    if (s->next_id >= s->id_end)
        return STORE_EBUSY;
    *id = s->next_id++;
    /* Half used: the next block is read meanwhile. */
    if (s->id_end - s->next_id < LEASE_ID_BLOCK / 2 && s->id_next_base == 0 &&
        !s->id_refill_pending) {
        block_job *j = calloc(1, sizeof *j);
        if (j && queue_call(s, run_block, done_block, j, false) == 0)
            s->id_refill_pending = true;
        else
            free(j);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Start-up (loop's connection, before serving; under the nodes' start-up
 * lock, store_pg.c) */

static int startup_exec(store *s, const char *sql, char *why, size_t whylen)
{
    if (sql_exec(s->db, sql) == SQL_OK)
        return 0;
    rules_why(why, whylen, "node start-up: %s", sql_errmsg(s->db));
    return STORE_EDB;
}

int lease_open(store *s, char *why, size_t whylen)
{
    int64_t now = store_now(s);
    char sql[512];
    /* The sequence past the games a single server numbered itself (none
     * runs now: the advisory lock is shared by nodes only). */
    int err = startup_exec(s,
                           "SELECT setval('game_id_blocks', (SELECT max(id) FROM games) / 1048576 "
                           "+ 1) WHERE (SELECT max(id) FROM games) / 1048576 + 1 > "
                           "(SELECT CASE WHEN is_called THEN last_value ELSE 0 END "
                           "FROM game_id_blocks)",
                           why, whylen);
    /* Our row; the leases an earlier process of this name held, expired:
     * taken again, they get new fences. */
    if (err == 0) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO nodes (name, started_ms, heartbeat_ms) VALUES ('%s', %lld, %lld)"
                 " ON CONFLICT (name) DO UPDATE SET started_ms = EXCLUDED.started_ms,"
                 " heartbeat_ms = EXCLUDED.heartbeat_ms;"
                 " UPDATE room_leases SET expires_ms = 0 WHERE node = '%s'",
                 s->node, (long long)now, (long long)now, s->node);
        err = startup_exec(s, sql, why, whylen);
    }
    if (err == 0) {
        sql_stmt *st = db_use(db_loop(s), ST_GAME_ID_BLOCK);
        if (sql_step(st) == SQL_ROW) {
            s->next_id = sql_column_i64(st, 0) * LEASE_ID_BLOCK; /* >= 1 block */
            s->id_end = s->next_id + LEASE_ID_BLOCK;
        } else {
            rules_why(why, whylen, "node start-up: a block of game ids: %s", sql_errmsg(s->db));
            err = STORE_EDB;
        }
        sql_reset(st);
    }
    pg_startup_done(s);
    s->renewed_ms = now;
    return err;
}
