/*
 * store_queue.c - the queue of operations and the group commit: ops queued
 * during a tick (or during the previous commit) go to the writer thread as
 * one batch, run in one transaction on the writer's connection; once it has
 * committed, the loop calls their callbacks in order, then the turn
 * callback. Also store_flush (and, for SQLite, a WAL checkpoint after a
 * commit: lite_checkpoint). The
 * queue does not know what an op does: its op_kind says. See store_impl.h.
 *
 * Storage faults: a batch whose transaction fails (disk full, I/O error,
 * a lock) is rolled back and tried again after a growing back-off, up to
 * s->retries times, on the writer thread (the loop goes on queueing). If
 * every try fails, its ops and every op queued behind them fail, the games
 * they touch are read back from the disk (games_resync), and a probe write
 * runs every STORE_PROBE_MS until one commits: the store recovers by itself
 * once the cause goes away.
 *
 * A lost connection (PostgreSQL restarted or unreachable: sql_conn_lost)
 * is not a failure of the batch: the writer tries it again, after the
 * back-off, for as long as the database is away (sql_pg.c reconnects at
 * the next try), without counting the tries; its moves wait, not
 * acknowledged, and commit once it is back. Meanwhile the store is
 * reported unwritable (/healthz, chameleon_store_writable 0), and a
 * store_flush that would wait for that batch answers STORE_EBUSY at once:
 * the loop never waits for the database's return. Once store_close has
 * begun, the tries count again, so that the server can stop; and once the
 * server has been stopping for STORE_STOP_WAIT_MS (store_stop_soon, at
 * SIGTERM), a lost database is given up at once: the batch fails without
 * another try, its moves are never acknowledged, and the log says what was
 * not written (log_unwritten). Without it, a server whose database is gone
 * would wait for it forever, with the loop kept alive by the batch out.
 *
 * A COMMIT whose answer was lost with the connection may have committed
 * or not. The writer asks, once the connection is back
 * (sql_commit_outcome: PostgreSQL's txid_status of the transaction's id):
 * committed, the batch succeeded (its moves are acknowledged, nothing is
 * written again); not committed, the batch is tried again like any other.
 * While the database is away it keeps asking (the moves wait). If it can
 * never tell (store_close while the database is away), the batch fails
 * without another try: its moves are refused, not acknowledged, and the
 * loop reads its games back from the database (games_resync); a move that
 * committed after all is then in the database and in memory, and a client
 * that sends it again finds its ply taken (STORE_EBAD_PLY): never written
 * twice (moves' primary key is the game and the ply).
 *
 * Node mode (store_lease.c): an op whose kind writes a game (op_kind.lease)
 * holds a reference to the lease it was queued under; after the BEGIN,
 * lease_check_batch reads and locks the lease rows of the batch's games in
 * one statement and marks the ops whose fence no longer matches; each op
 * runs through lease_run, which skips those without failing the batch,
 * and lease_done turns their answer into STORE_ELEASE_LOST before their
 * done callback.
 */
#include "store_impl.h"
#include "log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

static void group_cb(uv_timer_t *t);
static void written_cb(uv_async_t *a);
static void probe_cb(uv_timer_t *t);
static void resync(store *s, const op *ops, size_t n);
static bool has_writes(const op *ops, size_t n);
static void writer_main(void *arg);
static void dispatch(store *s);

int queue_refuses(store *s)
{
    return s->closing ? STORE_ECLOSED : 0;
}

unsigned store_retry_delay_ms(unsigned base_ms, unsigned attempt)
{
    unsigned ms = base_ms;
    for (unsigned i = 0; i < attempt && ms < STORE_RETRY_MAX_MS; i++)
        ms *= 2;
    return ms < STORE_RETRY_MAX_MS ? ms : STORE_RETRY_MAX_MS;
}

op *queue_push(store *s, const op_kind *kind, int64_t game)
{
    if (array_reserve((void **)&s->ops, &s->capops, s->nops + 1, sizeof *s->ops) < 0)
        return NULL;
    op *o = &s->ops[s->nops++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->game = game;
    o->at_ms = store_now(s);
    if (s->node && kind->lease != LEASE_NONE)
        o->epoch = lease_epoch_ref(s, game);
    /* While a batch is out, its completion sends the queue on. A read
     * (a session looked up as a player connects) has no fsync to share:
     * it goes at the next iteration of the loop with whatever is queued
     * by then, instead of waiting for the grouping tick. */
    if (!s->busy && !uv_is_active((uv_handle_t *)&s->group_timer) && !s->closing)
        uv_timer_start(&s->group_timer, group_cb, kind->reads_only ? 0 : s->group_ms, 0);
    return o;
}

void queue_pop(store *s)
{
    s->nops--;
}

void queue_write_done(store *s, op *o, int status)
{
    (void)s;
    if (o->cb.write)
        o->cb.write(o->arg, status);
}

static int run_call(store *s, op *o)
{
    return o->call_run(s, o->arg);
}

static void done_call(store *s, op *o, int status)
{
    o->cb.call(s, o->arg, status);
}

static const op_kind call_read_kind = {run_call, done_call, NULL, true, LEASE_NONE};
static const op_kind call_write_kind = {run_call, done_call, NULL, false, LEASE_NONE};

int queue_call(store *s, queue_run_fn run, queue_done_fn done, void *job, bool reads)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    op *o = queue_push(s, reads ? &call_read_kind : &call_write_kind, 0);
    if (o == NULL)
        return STORE_ENOMEM;
    o->call_run = run;
    o->cb.call = done;
    o->arg = job;
    return 0;
}

static void op_release(op *o)
{
    if (o->kind->release)
        o->kind->release(o);
    lease_epoch_unref(o->epoch);
}

/* What the last try of a batch found, for /healthz (under mu: the loop
 * reads it while the writer retries). */
static void set_failing(store *s, bool failing, bool lost, const char *why)
{
    if (s->has_writer)
        uv_mutex_lock(&s->mu);
    s->failing = failing;
    s->lost = failing && lost;
    /* Kept after a success: a batch of reads commits on a full disk too,
     * and the store stays unwritable until a write commits. */
    if (failing)
        snprintf(s->failing_why, sizeof s->failing_why, "%s", why);
    if (s->has_writer)
        uv_mutex_unlock(&s->mu);
}

void store_stop_soon(store *s)
{
    uint64_t none = 0;
    atomic_compare_exchange_strong(&s->give_up_ns, &none,
                                   uv_hrtime() + (uint64_t)STORE_STOP_WAIT_MS * 1000000);
}

/* Stopping for STORE_STOP_WAIT_MS already: a lost database is not waited
 * for any more (any thread). */
static bool giving_up(store *s)
{
    uint64_t at = atomic_load(&s->give_up_ns);
    return at != 0 && uv_hrtime() >= at;
}

/* The back-off before another try; for a lost connection, in short steps
 * that end once it is given up (a 2 s nap would overshoot the stop). */
static void nap(store *s, unsigned ms, bool lost)
{
    while (lost && ms > 50 && !giving_up(s)) {
        uv_sleep(50);
        ms -= 50;
    }
    if (!lost || !giving_up(s))
        uv_sleep(ms);
}

/* After a failed COMMIT: 1 it committed all the same, 0 it did not, else
 * it cannot be told. Asked again while the database is away (see the top
 * of the file). */
static int commit_outcome(store *s, bool patient)
{
    for (unsigned attempt = 0;; attempt++) {
        int oc = sql_commit_outcome(s->wdb);
        if (oc != SQL_ERROR || !patient || atomic_load(&s->stopping) || giving_up(s))
            return oc;
        nap(s, store_retry_delay_ms(s->retry_ms, attempt), true);
    }
}

/* One try: the batch in one transaction on the writer's connection.
 * *lost: it failed because the connection was lost; *unknown: its COMMIT's
 * outcome cannot be told (no other try). */
static int write_once(store *s, op *ops, size_t n, bool patient, bool *lost, bool *unknown)
{
    *lost = *unknown = false;
    int err = db_run(db_use(s->wst, ST_BEGIN));
    if (err == 0 && s->node)
        err = lease_check_batch(s, ops, n);
    for (size_t i = 0; i < n && err == 0; i++)
        err = s->node && ops[i].kind->lease != LEASE_NONE ? lease_run(s, &ops[i])
                                                          : ops[i].kind->run(s, &ops[i]);
    char why[sizeof s->failing_why];
    bool file_gone = false;
    if (err == 0 && s->engine == SQL_SQLITE && lite_file_check(s, why, sizeof why) < 0) {
        /* Committed to a file nobody will open again: not durable. */
        err = STORE_EMISSING;
        file_gone = true;
    }
    if (file_gone) {
        /* why says it */
    } else if (err == 0 && (err = db_run(db_use(s->wst, ST_COMMIT))) < 0) {
        snprintf(why, sizeof why, "%s", sql_errmsg(s->wdb));
        *lost = sql_conn_lost(s->wdb);
        int oc = commit_outcome(s, patient);
        if (oc == 1) {
            log_kv(LOG_INFO, "store: a COMMIT's answer was lost, but it committed", "ops=%zu", n);
            err = 0;
        } else if (oc != 0) {
            *unknown = true;
        }
    } else if (err < 0) {
        snprintf(why, sizeof why, "%s", sql_errmsg(s->wdb));
        *lost = sql_conn_lost(s->wdb);
    }
    if (err < 0) {
        log_kv(LOG_ERROR, "store: writing failed", "ops=%zu why=\"%s\"%s", n, why,
               *unknown ? " outcome=unknown"
               : *lost  ? " connection=lost"
                        : "");
        /* SQLite may have rolled back already (disk full): then this fails
         * harmlessly. */
        if (sql_in_transaction(s->wdb))
            db_run(db_use(s->wst, ST_ROLLBACK));
        set_failing(s, true, *lost, why);
    } else {
        set_failing(s, false, false, NULL);
    }
    return err;
}

/* Run one batch, tried again after a back-off while it fails (writer
 * thread, patient: for as long as the connection is lost; or the loop
 * while the writer is idle). Counts the retries in s->inflight_retries. */
static int write_batch(store *s, op *ops, size_t n, bool patient)
{
    uint64_t t0 = uv_hrtime();
    bool lost, unknown;
    int err = write_once(s, ops, n, patient, &lost, &unknown);
    for (unsigned attempt = 0, tries = 0; err < 0 && !unknown; attempt++) {
        bool wait = patient && lost && !atomic_load(&s->stopping);
        if ((!wait && tries++ >= s->retries) || (lost && giving_up(s)))
            break;
        nap(s, store_retry_delay_ms(s->retry_ms, attempt), lost);
        if (lost && giving_up(s))
            break;
        s->inflight_retries++;
        err = write_once(s, ops, n, patient, &lost, &unknown);
    }
    /* Handed to the loop with the batch (under mu, or on the loop). */
    s->inflight_ns = uv_hrtime() - t0;
    return err;
}

static void writer_main(void *arg)
{
    store *s = arg;
    uv_mutex_lock(&s->mu);
    for (;;) {
        while (!s->job_ready && !s->quit)
            uv_cond_wait(&s->cv, &s->mu);
        if (!s->job_ready)
            break;
        s->job_ready = false;
        uv_mutex_unlock(&s->mu);
        int err = write_batch(s, s->inflight, s->ninflight, true);
        uv_mutex_lock(&s->mu);
        s->inflight_err = err;
        s->job_done = true;
        uv_cond_broadcast(&s->cv);
        uv_async_send(&s->written);
    }
    uv_mutex_unlock(&s->mu);
}

/* ------------------------------------------------------------------------ */
/* Completion */

/* Each account whose turn list changed in a batch, once. */
static void notify_turns(store *s, const op *ops, size_t n)
{
    int64_t seen[64];
    int nseen = 0;
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < RULES_MAX_PLAYERS; p++) {
            int64_t a = ops[i].notify[p];
            if (a == 0)
                continue;
            bool dup = false;
            for (int k = 0; k < nseen && !dup; k++)
                dup = seen[k] == a;
            if (dup)
                continue;
            if (nseen < 64)
                seen[nseen++] = a;
            s->turn_cb(s->turn_arg, a);
        }
}

static bool has_writes(const op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ops[i].kind->reads_only)
            return true;
    return false;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Stopping (store_stop_soon): what a failed batch and the ops behind it
 * leave unwritten, in one line, for the operator (the players were never
 * told these moves were played). */
static void log_unwritten(store *s, const op *ops, size_t n, const op *behind, size_t nbehind)
{
    size_t writes = 0, k = 0, ngames = 0;
    int64_t *ids = malloc((n + nbehind + 1) * sizeof *ids);
    for (size_t i = 0; i < n + nbehind; i++) {
        const op *o = i < n ? &ops[i] : &behind[i - n];
        if (o->kind->reads_only)
            continue;
        writes++;
        if (ids && o->game > 0)
            ids[k++] = o->game;
    }
    char games[200] = "";
    if (ids)
        qsort(ids, k, sizeof *ids, cmp_id);
    for (size_t i = 0; ids && i < k; i++) {
        size_t len = strlen(games);
        if ((i == 0 || ids[i] != ids[i - 1]) && ngames++ < 16 && len + 24 < sizeof games)
            snprintf(games + len, sizeof games - len, "%s%lld", len ? "," : "", (long long)ids[i]);
    }
    free(ids);
    char why[sizeof s->failing_why];
    if (s->has_writer)
        uv_mutex_lock(&s->mu);
    snprintf(why, sizeof why, "%s", s->failing_why);
    if (s->has_writer)
        uv_mutex_unlock(&s->mu);
    log_kv(LOG_ERROR, "stopping: not written, never acknowledged",
           "ops=%zu writes=%zu games=%zu ids=%s why=\"%s\"", n + nbehind, writes, ngames,
           games[0] ? games : "none", why);
}

/* Each game a failed op touched, once, back to what the disk has. */
static void resync(store *s, const op *ops, size_t n)
{
    if (n == 0)
        return;
    int64_t *ids = malloc(n * sizeof *ids);
    size_t k = 0;
    for (size_t i = 0; ids && i < n; i++)
        if (ops[i].game > 0 && !ops[i].kind->reads_only)
            ids[k++] = ops[i].game;
    if (ids == NULL) {
        /* No memory for the list: one by one, repeats and all. */
        for (size_t i = 0; i < n; i++)
            if (ops[i].game > 0 && !ops[i].kind->reads_only)
                games_resync(s, ops[i].game);
        return;
    }
    qsort(ids, k, sizeof *ids, cmp_id);
    for (size_t i = 0; i < k; i++)
        if (i == 0 || ids[i] != ids[i - 1])
            if (games_resync(s, ids[i]) < 0)
                log_kv(LOG_ERROR, "store: cannot read a game back after a failed write",
                       "game=%lld", (long long)ids[i]);
    free(ids);
}

/* The probe: a write of the schema version as it is (one page), to learn
 * that the disk takes writes again while no player writes. */
static int run_probe(store *s, op *o)
{
    (void)o;
    return db_version_set(s, s->wdb, s->version);
}

static void done_probe(store *s, op *o, int status)
{
    (void)s;
    (void)o;
    (void)status;
}

static const op_kind probe_kind = {run_probe, done_probe, NULL, false, LEASE_NONE};

static void probe_cb(uv_timer_t *t)
{
    store *s = t->data;
    if (!s->unwritable || s->closing) {
        uv_timer_stop(t);
        return;
    }
    if (!s->busy && s->nops == 0)
        queue_push(s, &probe_kind, 0);
}

void store_mark_unwritable(store *s, const char *why)
{
    set_failing(s, true, false, why);
    s->unwritable = true;
    if (!s->closing && !uv_is_active((uv_handle_t *)&s->probe_timer))
        uv_timer_start(&s->probe_timer, probe_cb, STORE_PROBE_MS, STORE_PROBE_MS);
}

void store_get_stats(store *s, store_stats *out)
{
    memset(out, 0, sizeof *out);
    if (s->has_writer)
        uv_mutex_lock(&s->mu);
    bool failing = s->failing;
    snprintf(out->error, sizeof out->error, "%s", s->failing_why);
    if (s->has_writer)
        uv_mutex_unlock(&s->mu);
    out->writable = !s->unwritable && !failing;
    if (out->writable)
        out->error[0] = '\0';
    out->write_failures = s->write_failures;
    out->write_retries = s->write_retries;
    out->reconnects = sql_reconnects();
    out->queued = s->nops;
    out->inflight = s->ninflight;
    memcpy(out->commit_buckets, s->commit_buckets, sizeof out->commit_buckets);
    out->commits = s->commits;
    out->commit_seconds = s->commit_seconds;
}

/* On the loop, once the batch out is written: its callbacks (status 0 only
 * if durable), then the accounts whose turn list changed. With `next`, the
 * ops queued meanwhile go to the writer at once (its commit time is the
 * grouping window). */
const double store_commit_bounds[STORE_COMMIT_NBUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, INFINITY};

/* A committed batch into the histogram (loop thread). */
static void commit_observe(store *s, uint64_t ns)
{
    double sec = (double)ns / 1e9;
    for (int i = 0; i < STORE_COMMIT_NBUCKETS; i++)
        if (sec <= store_commit_bounds[i])
            s->commit_buckets[i]++;
    s->commits++;
    s->commit_seconds += sec;
}

static void complete(store *s, bool next)
{
    if (!s->busy)
        return;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        bool done = s->job_done;
        s->job_done = false;
        uv_mutex_unlock(&s->mu);
        if (!done)
            return;
        uv_unref((uv_handle_t *)&s->written);
    }
    op *ops = s->inflight;
    size_t n = s->ninflight;
    int err = s->inflight_err;
    s->inflight = NULL;
    s->ninflight = 0;
    s->busy = false;
    s->write_retries += s->inflight_retries;
    s->inflight_retries = 0;
    if (err == 0)
        commit_observe(s, s->inflight_ns);
    op *behind = NULL;
    size_t nbehind = 0;
    if (err < 0) {
        /* Memory is ahead of the disk: the ops queued since were checked
         * against it, so they fail too, and the games go back to what the
         * disk has before any callback queues more. */
        s->write_failures++;
        s->unwritable = true;
        behind = s->ops;
        nbehind = s->nops;
        s->ops = NULL;
        s->nops = s->capops = 0;
        uv_timer_stop(&s->group_timer);
        if (atomic_load(&s->give_up_ns) != 0)
            log_unwritten(s, ops, n, behind, nbehind);
        resync(s, ops, n);
        resync(s, behind, nbehind);
        if (!s->closing && !uv_is_active((uv_handle_t *)&s->probe_timer))
            uv_timer_start(&s->probe_timer, probe_cb, STORE_PROBE_MS, STORE_PROBE_MS);
    } else if (s->unwritable && has_writes(ops, n)) {
        s->unwritable = false;
        uv_timer_stop(&s->probe_timer);
        log_info("store: writes commit again");
    }
    if (s->engine == SQL_SQLITE)
        lite_checkpoint(s);
    for (size_t i = 0; i < n; i++) {
        int status = err;
        if (ops[i].epoch)
            lease_done(s, &ops[i], &status); /* a fenced-out write: lease lost */
        ops[i].kind->done(s, &ops[i], status);
    }
    for (size_t i = 0; i < nbehind; i++) {
        int status = STORE_EDB;
        if (behind[i].epoch)
            lease_done(s, &behind[i], &status);
        behind[i].kind->done(s, &behind[i], status);
    }
    if (err == 0 && s->turn_cb)
        notify_turns(s, ops, n);
    for (size_t i = 0; i < n; i++)
        op_release(&ops[i]);
    for (size_t i = 0; i < nbehind; i++)
        op_release(&behind[i]);
    free(ops);
    free(behind);
    if (s->nops > 0 && !s->busy) {
        if (next && s->has_writer)
            dispatch(s);
        else if (!s->closing)
            uv_timer_start(&s->group_timer, group_cb, s->group_ms, 0);
    }
}

/* Take the queue as the batch out. */
static void take_batch(store *s)
{
    s->inflight = s->ops;
    s->ninflight = s->nops;
    s->ops = NULL;
    s->nops = s->capops = 0;
    s->busy = true;
    uv_timer_stop(&s->group_timer);
}

/* Send the queue to the writer thread, or write it here if there is none. */
static void dispatch(store *s)
{
    if (s->busy || s->nops == 0)
        return;
    take_batch(s);
    if (!s->has_writer) {
        s->inflight_err = write_batch(s, s->inflight, s->ninflight, false);
        complete(s, false);
        return;
    }
    /* Keep the loop alive until the batch comes back. */
    uv_ref((uv_handle_t *)&s->written);
    uv_mutex_lock(&s->mu);
    s->job_ready = true;
    uv_cond_signal(&s->cv);
    uv_mutex_unlock(&s->mu);
}

static void written_cb(uv_async_t *a)
{
    complete(a->data, true);
}

static void group_cb(uv_timer_t *t)
{
    dispatch(t->data);
}

/* Wait for the batch out (if any) and process it, without sending more:
 * 0, or STORE_EBUSY if the writer waits for a lost database (and the store
 * is not closing: the loop does not wait for its return). */
static int wait_writer(store *s)
{
    if (!s->busy)
        return 0;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        while (!s->job_done) {
            if (s->lost && !atomic_load(&s->stopping)) {
                uv_mutex_unlock(&s->mu);
                return STORE_EBUSY;
            }
            uv_cond_timedwait(&s->cv, &s->mu, 50 * 1000 * 1000);
        }
        uv_mutex_unlock(&s->mu);
    }
    complete(s, false);
    return 0;
}

int store_flush(store *s)
{
    if (wait_writer(s) < 0)
        return STORE_EBUSY;
    if (s->nops == 0)
        return 0;
    if (s->engine == SQL_POSTGRES && s->has_writer && !atomic_load(&s->stopping)) {
        /* The writer writes it, patient if the database is away, while
         * the loop waits only as long as it is there. */
        dispatch(s);
        uv_mutex_lock(&s->mu);
        while (!s->job_done && !s->lost)
            uv_cond_timedwait(&s->cv, &s->mu, 50 * 1000 * 1000);
        bool done = s->job_done;
        int err = s->inflight_err;
        uv_mutex_unlock(&s->mu);
        if (!done)
            return STORE_EBUSY; /* completed later by written_cb */
        complete(s, false);
        return err;
    }
    /* The writer is idle: write the queue here, now. */
    take_batch(s);
    int err = write_batch(s, s->inflight, s->ninflight, false);
    s->inflight_err = err;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        s->job_done = true;
        uv_mutex_unlock(&s->mu);
    }
    complete(s, false);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Start and stop */

void queue_start(store *s)
{
    uv_timer_init(s->loop, &s->group_timer);
    uv_timer_init(s->loop, &s->deadline_timer);
    uv_timer_init(s->loop, &s->probe_timer);
    s->group_timer.data = s->deadline_timer.data = s->probe_timer.data = s;
    uv_unref((uv_handle_t *)&s->probe_timer);
    s->open_handles = 3;
    uv_timer_start(&s->deadline_timer, corr_deadline_tick, 1000, 1000);
    uv_unref((uv_handle_t *)&s->deadline_timer);
    /* The writer thread; without it batches are written on the loop. */
    if (uv_mutex_init(&s->mu) == 0) {
        if (uv_cond_init(&s->cv) == 0) {
            uv_async_init(s->loop, &s->written, written_cb);
            s->written.data = s;
            uv_unref((uv_handle_t *)&s->written);
            s->open_handles = 4;
            s->written_open = true;
            s->has_writer = uv_thread_create(&s->writer, writer_main, s) == 0;
            if (!s->has_writer)
                uv_cond_destroy(&s->cv);
        }
        if (!s->has_writer)
            uv_mutex_destroy(&s->mu);
    }
    if (s->node)
        lease_start(s); /* the renewal timer */
}

void store_work_begin(store *s)
{
    s->works++;
}

void store_work_end(store *s)
{
    if (--s->works == 0 && s->closing && s->open_handles == 0)
        db_free(s);
}

static void handle_closed(uv_handle_t *h)
{
    store *s = h->data;
    if (--s->open_handles == 0 && s->works == 0)
        db_free(s);
}

void queue_stop(store *s)
{
    for (size_t i = 0; i < s->nops; i++) {
        s->ops[i].kind->done(s, &s->ops[i], STORE_ECLOSED);
        op_release(&s->ops[i]);
    }
    s->nops = 0;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        s->quit = true;
        uv_cond_signal(&s->cv);
        uv_mutex_unlock(&s->mu);
        uv_thread_join(&s->writer);
    }
    uv_timer_stop(&s->group_timer);
    uv_timer_stop(&s->deadline_timer);
    uv_timer_stop(&s->probe_timer);
    uv_close((uv_handle_t *)&s->group_timer, handle_closed);
    uv_close((uv_handle_t *)&s->deadline_timer, handle_closed);
    uv_close((uv_handle_t *)&s->probe_timer, handle_closed);
    if (s->written_open)
        uv_close((uv_handle_t *)&s->written, handle_closed);
    lease_stop(s, handle_closed);
}
