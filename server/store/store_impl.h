/*
 * store_impl.h - PRIVATE to the store: included by
 * server/store/store_*.c and by nothing else (the rest of the server sees only
 * store.h). It holds the store's shared state, the ids of the statement
 * table, the records of games in progress, the queued operations, and the
 * functions the store_*.c modules call in one another.
 *
 * Owns: the store's state. May call: store.h, record.h, rules.h, array.h,
 * proto_out.h, rating.h, log.h, sql.h (never sqlite3 or libpq, but in the
 * engine's own module: store_lite.c, store_pages.c), libuv, uthash (each
 * module's own calls are listed below).
 *
 * Modules (prefix of their internal functions), and what they may call:
 *   store_db.c       (db_)    engine-neutral: the connections (through the
 *                             engine's module), the migrations driver, the
 *                             statement table (the only SQL text of the
 *                             server, one per engine, prepared once on both
 *                             connections), errors, store_open (which calls
 *                             each module's loader), store_close (which calls
 *                             queue_stop). Calls lite_ (and the other
 *                             engine's module).
 *   store_lite.c     (lite_)  the SQLite engine's set-up: the lock file,
 *                             quick_check, pragmas, the schema version
 *                             (user_version), WAL checkpoints (their
 *                             connection and job), store_backup. Calls
 *                             sql.h, sqlite3 (sql_sqlite_handle), pages_.
 *   store_mem.c      (mem_)   games in progress, the per-account index and
 *                             vacations in memory (uthash). Calls nothing
 *                             else.
 *   store_queue.c    (queue_) the op queue, the writer thread, group commit,
 *                             store_flush, the store's uv
 *                             handles, retries of a failed batch and the
 *                             probe write. Calls db_, lite_checkpoint
 *                             (SQLite), each op's kind
 *                             (op_kind) without knowing what it is,
 *                             corr_deadline_tick (the deadline timer),
 *                             games_resync (after a failed batch) and
 *                             lease_ (node mode: each game write's fence
 *                             check, its outcome, the epochs ops hold).
 *   store_games.c    (games_) create/move/leave/finish, reading whole games,
 *                             loading games in progress, adopting one
 *                             (node mode). Calls db_, mem_, queue_, corr_
 *                             (lines of a loaded game), lease_ (node
 *                             mode: may this node write the game).
 *   store_corr.c     (corr_)  deadlines (checked in memory), vacation
 *                             (queued calls: the row read, then written
 *                             with the deadlines moved in memory),
 *                             conditional lines, "your turn". Calls db_,
 *                             mem_, queue_, games_resync (a vacation write
 *                             that failed), lease_ (node mode: writes
 *                             allowed, a vacation's deadlines fenced).
 *   store_accounts.c          accounts, sessions, preferences (queued
 *                             calls), profiles (queued reads). Calls db_,
 *                             queue_, ratings_ (a profile's ratings).
 *   store_mail.c              e-mail: addresses, preferences, link tokens,
 *                             the outbox (a queued op) and the mail
 *                             worker's connection (store_mailbox). Calls
 *                             db_, queue_, mem_.
 *   store_archive.c           a player's archive, a page at a time (queued
 *                             reads). Calls db_, queue_.
 *   store_push.c              Web Push: the VAPID key pair (synchronous,
 *                             loop's connection, at start-up only) and
 *                             the subscriptions (queued calls). Calls db_,
 *                             queue_.
 *   store_tourney.c           tournaments (store_tourney.h): places queued,
 *                             rare writes queued calls; the load at start-up
 *                             (synchronous). Calls db_, queue_.
 *   store_ratings.c  (ratings_) Glicko-2 ratings: the rows a finished
 *                             game's transaction reads and writes (the
 *                             update is rating.h's), the ratings in memory,
 *                             leaderboards. Calls db_, queue_, rating.h.
 *   store_lease.c    (lease_) node mode (PostgreSQL): leases of games,
 *                             their fences checked in each game write's
 *                             transaction (lease_run, called by the
 *                             queue), the renewal timer, take-over
 *                             (store_lease_expired), the node's block
 *                             of game ids. Calls db_, mem_, queue_.
 *   store_pages.c    (pages_) SQLite's allocator wrapped: its cache pages in
 *                             a reserved region of their own, outside
 *                             malloc's heap. Calls sqlite3 and libuv only.
 *
 * Threads: everything runs on the loop thread except op_kind.run, which
 * runs on the writer thread (or on the loop inside store_flush) with the
 * writer's connection and touches nothing but its op and that connection.
 */
#ifndef STORE_IMPL_H
#define STORE_IMPL_H

#include "sql.h"

#include <stdatomic.h>
#include <sys/types.h>

/* An add that runs out of memory leaves the table as it was and sets the
 * element's hh.tbl to NULL instead of exiting. */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "store.h"

/* The statement table: ids here, SQL text in store_db.c. */
enum db_stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_GAME_INSERT,
    ST_PLAYER_INSERT,
    ST_MOVE_INSERT,
    ST_GAME_ADVANCE,
    ST_LEAVE_INSERT,
    ST_PLAYER_OUTCOME,
    ST_GAME_FINISH,
    ST_DEADLINE_SET,
    ST_COND_DELETE,
    ST_COND_INSERT,
    ST_COND_SELECT,
    ST_GAME_SELECT,
    ST_PLAYERS_SELECT,
    ST_MOVES_SELECT,
    ST_LEAVES_SELECT,
    ST_IN_PROGRESS,
    ST_MAX_ID,
    ST_VAC_SELECT,
    ST_VAC_UPDATE,
    ST_VAC_ACTIVE,
    ST_ACCOUNT_INSERT,
    ST_ACCOUNT_BY_NAME,
    ST_ACCOUNT_NAME,
    ST_ACCOUNT_GAMES,
    ST_LOGIN_INSERT,
    ST_SESSION_PURGE,
    ST_LOGIN_FIND,
    ST_LOGIN_DELETE,
    ST_PREFS_GET,
    ST_PREFS_PUT,
    ST_LESSONS_GET,
    ST_LESSONS_PUT,
    ST_RATING_GET,
    ST_RATING_PUT,
    ST_RATING_HIST_INSERT,
    ST_RATINGS_ALL,
    ST_RATINGS_OF,
    ST_RATING_HISTORY_OF,
    ST_LEADERBOARD,
    ST_ARCHIVE,
    ST_ARCHIVE_NAMES,
    ST_PUSH_VAPID_GET,
    ST_PUSH_VAPID_PUT,
    ST_PUSH_SUB_PUT,
    ST_PUSH_SUB_TRIM,
    ST_PUSH_SUB_DELETE,
    ST_PUSH_SUB_GONE,
    ST_PUSH_SUBS_OF,
    ST_MAIL_PREFS_GET,
    ST_MAIL_PREFS_SET,
    ST_MAIL_ADDRESS_SET,
    ST_MAIL_ACCOUNTS_OF,
    ST_MAIL_UNSUBSCRIBE,
    ST_MAIL_TOKEN_PURGE,
    ST_MAIL_TOKEN_INSERT,
    ST_MAIL_TOKEN_FIND,
    ST_MAIL_TOKEN_DELETE,
    ST_ACCOUNT_SET_PWHASH,
    ST_SESSIONS_END_ALL,
    ST_LOGINS_OF,
    ST_LOGIN_END_ONE,
    ST_LOGINS_END_OTHERS,
    ST_TOTP_GET,
    ST_TOTP_PENDING,
    ST_TOTP_ENABLE,
    ST_TOTP_USE,
    ST_TOTP_DELETE,
    ST_RECOVERY_CLEAR,
    ST_RECOVERY_INSERT,
    ST_RECOVERY_USE,
    ST_MAIL_ADDRESS_DELETE,
    ST_MAIL_TOKENS_DELETE,
    ST_MAIL_OUTBOX_FORGET,
    ST_MAIL_OUTBOX_INSERT,
    ST_MAIL_NEXT,
    ST_MAIL_NEXT_DUE,
    ST_MAIL_SENT,
    ST_MAIL_FAILED,
    ST_MAIL_DEPTH,
    ST_MAIL_PURGE,
    ST_T_INSERT,
    ST_T_STATE,
    ST_T_ENTRANT_PUT,
    ST_T_ENTRANT_DEL,
    ST_T_ENTRANT_IDX,
    ST_T_GAME_INSERT,
    ST_T_GAME_RESULT,
    ST_T_ALL,
    ST_T_ENTRANTS,
    ST_T_GAMES,
    ST_MOVES_TRUNCATE,
    ST_MOVE_CLOCKS,
    ST_SEATED_ACCOUNT,
    ST_SEATED_GUEST,
    ST_SET_ASIDE,
    ST_SET_ASIDE_CLEAR,
    ST_SET_ASIDE_LIST,
    /* Node mode only (PostgreSQL; NULL in SQLite's table, never prepared
     * there): store_lease.c. */
    ST_LEASE_NEW,
    ST_LEASE_TAKE,
    ST_LEASE_HOLDER,
    ST_LEASE_CHECK,
    ST_LEASE_FENCE,
    ST_LEASE_DELETE,
    ST_LEASE_RENEW,
    ST_NODE_BEAT,
    ST_LEASE_EXPIRED,
    ST_GAME_ID_BLOCK,
    ST_NODES_LIVE,
    ST_TURNS_OF,
    ST_COUNT
};

/* A game in progress, kept in memory: what the queue, the turn list, the
 * deadline timer and conditional moves need without a query. */
typedef struct game_mem {
    int64_t id; /* hash key */
    char variant[RECORD_VARIANT_MAX];
    store_kind kind;
    int nplayers;
    int64_t account[RULES_MAX_PLAYERS];
    int64_t clock_ms[RULES_MAX_PLAYERS]; /* live clocks or corr banks */
    store_tc tc;
    int nmoves;
    int to_move;
    int64_t deadline_ms;
    int64_t last_move_ms;
    int fired_ply;                /* timeout reported at this ply, or -1 */
    int ncond[RULES_MAX_PLAYERS]; /* conditional lines per player */
    size_t condcap[RULES_MAX_PLAYERS];
    int cond_at[RULES_MAX_PLAYERS]; /* ply of the opponent move the lines
                                       start with */
    char **cond[RULES_MAX_PLAYERS];
    UT_hash_handle hh;
} game_mem;

/* The games in progress of one account (its turn list, its vacation). */
typedef struct acct_games {
    int64_t account; /* hash key */
    game_mem **games;
    size_t n, cap;
    UT_hash_handle hh;
} acct_games;

/* An account on vacation now or later. */
typedef struct vacation {
    int64_t account; /* hash key */
    int64_t from_ms, until_ms;
    UT_hash_handle hh;
} vacation;

/* A committed rating, in memory (loop side). */
typedef struct rating_key {
    int64_t account;
    char variant[RECORD_VARIANT_MAX];
    int pace;
} rating_key;

typedef struct rating_mem {
    rating_key key; /* hash key (zero-padded) */
    record_rating r;
    UT_hash_handle hh;
} rating_mem;

typedef struct op op;

/* A lease as the ops queued under it hold it (node mode): fence is set by
 * the writer when the op that takes it runs (a creation) or by the loop
 * when the take's answer arrives, and read by the writer when a write of
 * the game checks it. Reference-counted on the loop (the lease and each
 * op). */
typedef struct lease_epoch {
    int64_t fence; /* 0: not (yet) known: no write passes */
    int refs;
} lease_epoch;

/* What a kind of op does to its game's lease in node mode (lease_run). */
enum { LEASE_NONE, LEASE_CHECK, LEASE_END, LEASE_NEW };

/* A lease this node holds (loop side; store_lease.c). */
typedef struct lease_held {
    int64_t game; /* hash key */
    lease_epoch *epoch;
    uint64_t seq;     /* s->lease_seq when its take was queued */
    int64_t taken_ms; /* ... and the store's time then */
    bool confirmed;   /* the take (or creation) has committed */
    UT_hash_handle hh;
} lease_held;

/* A queued call's two halves (queue_call, store_queue.c). */
typedef int (*queue_run_fn)(store *s, void *job);
typedef void (*queue_done_fn)(store *s, void *job, int status);

/* What one kind of queued operation does (each module defines its own). */
typedef struct op_kind {
    /* Writer's connection, inside the batch's transaction. 0, or an error
     * that fails the whole batch (reads keep theirs in op.status). */
    int (*run)(store *s, op *o);
    /* On the loop once the batch has committed (status 0) or failed, or at
     * close (STORE_ECLOSED): the caller's callback. */
    void (*done)(store *s, op *o, int status);
    /* Free what the op owns (after done); NULL if it owns nothing. */
    void (*release)(op *o);
    /* Writes nothing: a batch of these alone does not show that the disk
     * takes writes again. run may be called again on a retry. */
    bool reads_only;
    /* Node mode: LEASE_CHECK (a write of game o->game: run only if the
     * lease row still has o->epoch's fence), LEASE_END (the same, then the
     * lease row deleted: a result), LEASE_NEW (a creation: the lease row
     * inserted). LEASE_NONE (0): not a game write. */
    int lease;
} op_kind;

/* A queued operation: its kind and the fields the kinds use. */
struct op {
    const op_kind *kind;
    int64_t game;
    void *arg;
    union {
        store_done_cb write;
        store_game_get_cb game;
        store_profile_cb profile;
        store_board_cb board;
        store_archive_cb archive;
        queue_done_fn call;
    } cb;
    queue_run_fn call_run; /* a call (queue_call): its run */
    store_mail_new *mail;  /* a mail to queue: deep copy */
    int64_t at_ms;
    int ply, player, next;
    int64_t deadline_ms;
    int64_t clock_ms[RULES_MAX_PLAYERS];
    char text[RULES_MOVE_TEXT];
    rules_result result;
    rules_reason reason;
    store_new_game *create; /* creation: deep copy */
    char **lines;           /* conditional lines: a copy */
    int nlines;
    char *name;                        /* profile read: the username */
    store_archive_filter filter;       /* archive read (strings owned) */
    void *answer;                      /* reads: what run found (owned by the kind) */
    int status;                        /* reads: 0 or the read's error */
    int64_t notify[RULES_MAX_PLAYERS]; /* accounts whose turn list changes */
    lease_epoch *epoch;                /* node mode, kinds with a lease: a reference */
    bool fenced_out;                   /* the fence did not match: run skipped (writer's) */
};

struct store {
    /* The loop's connection (start-up, reading games back after a failed
     * batch, the rare writes not yet queued) and the writer's; each has the
     * whole statement table. */
    sql_engine engine; /* of the target (path or URL) */
    sql_conn *db;
    sql_stmt *st[ST_COUNT];
    sql_conn *wdb;
    sql_stmt *wst[ST_COUNT];
    sql_conn *ckpt_db; /* SQLite: used only by the checkpoint job */
    uv_loop_t *loop;
    uv_timer_t group_timer, deadline_timer, probe_timer;
    int lock_fd; /* SQLite: "<db>.lock", flocked while open; -1 if none */
    /* SQLite: the file as opened (lite_file_check); a write to a file
     * deleted or replaced since would be acknowledged and lost. */
    bool file_known;
    dev_t file_dev;
    ino_t file_ino;
    uv_fs_t watch_req; /* lite_watch's stat, on the thread pool */
    bool watch_running;
    bool file_lost; /* lite_watch saw it go (logged once) */
    int open_handles;
    bool written_open; /* the async handle was initialized */
    int works;         /* thread-pool jobs still running */
    /* The writer: a thread that commits each batch, so that the loop never
     * waits for an fsync. Between batches (writer idle) the loop may use wdb
     * itself (store_flush). */
    bool has_writer;
    uv_thread_t writer;
    uv_mutex_t mu;
    uv_cond_t cv;
    uv_async_t written;
    bool quit, job_ready, job_done; /* under mu */
    bool busy;                      /* a batch is out (loop side) */
    op *inflight;
    size_t ninflight;
    int inflight_err;
    unsigned inflight_retries; /* tries after a failed one (writer's, read
                                  once the batch is back) */
    uint64_t inflight_ns;      /* how long the batch took (writer's, read the same way) */
    /* The commit histogram (loop only: filled from inflight_ns). */
    uint64_t commit_buckets[STORE_COMMIT_NBUCKETS], commits;
    double commit_seconds;
    /* Storage faults: the writer says whether its last try failed and why
     * (under mu when has_writer); the loop counts. */
    bool failing;
    bool lost; /* and the cause is the lost connection (the writer waits for it) */
    char failing_why[160];
    /* store_close has begun: the writer stops waiting for a lost database
     * (read on the writer thread). */
    atomic_bool stopping;
    /* store_stop_soon: past this uv_hrtime (0: not stopping), a lost
     * database is given up at once (writer thread). */
    _Atomic uint64_t give_up_ns;
    bool gave_up;     /* the batch out failed so (writer's, read once it is back) */
    char pg_name[64]; /* PostgreSQL: application_name of our sessions, unique */
    bool unwritable;  /* loop: the last batch with writes failed */
    uint64_t write_failures, write_retries;
    unsigned retries, retry_ms;
    uv_work_t ckpt_work;
    bool ckpt_running;
    int wal_pages; /* frames in the WAL after the last commit */
    bool closing;
    bool serving;   /* store_serving: the loop's connection is not for use */
    bool resyncing; /* games_resync: the one use allowed while serving */
    unsigned group_ms;
    char *path; /* the database file or URL (the mail worker opens its own connection) */
    int64_t (*now_fn)(void *);
    void *now_arg;
    int version;
    int64_t next_id;

    game_mem *games; /* uthash by id */
    size_t ngames;
    acct_games *accts; /* uthash by account */
    vacation *vacs;    /* uthash by account */
    int64_t *vac_busy; /* accounts whose vacation is being changed (store_corr.c) */
    size_t nvac_busy, capvac_busy;
    rating_mem *ratings; /* uthash by rating_key */

    op *ops;
    size_t nops, capops;

    void (*turn_cb)(void *, int64_t);
    void *turn_arg;
    void (*timeout_cb)(void *, int64_t, int);
    void *timeout_arg;

    /* Node mode (store_lease.c); node NULL otherwise. */
    char *node;
    int64_t lease_ttl_ms;
    lease_held *leases; /* uthash by game */
    uint64_t lease_seq;
    int64_t renewed_ms; /* queue time of the last renewal that committed */
    bool renew_pending, renew_paused;
    bool lease_timer_on;
    uv_timer_t lease_timer;
    void (*lease_lost_cb)(void *, int64_t);
    void *lease_lost_arg;
    int64_t id_end;       /* game ids: next_id .. id_end - 1 are ours */
    int64_t id_next_base; /* a block reserved ahead (0: none) */
    bool id_refill_pending;
};

/* store_db.c ------------------------------------------------------------- */

/* Statement `which` of a connection's set (s->st or s->wst), reset and
 * unbound. */
sql_stmt *db_use(sql_stmt *const *set, enum db_stmt which);
/* The loop's own statements (s->st): start-up only (store_serving), and
 * games_resync after a failed batch. */
sql_stmt *const *db_loop(store *s);
/* Run a statement that returns no rows; 0 or STORE_EDB. */
int db_run(sql_stmt *st);
/* A text column as a malloc'd copy, NULL for SQL NULL. */
char *db_col_dup(sql_stmt *st, int col);
/* A reason name as stored, back to its rules_reason. */
rules_reason db_reason(const char *name);
/* The SQL text of a statement of the store's engine's table (for the mail
 * worker's own connection, which prepares only what it uses). */
const char *db_sql(const store *s, enum db_stmt which);
/* The same for an engine (tests prepare every statement of it). */
const char *db_sql_of(sql_engine engine, enum db_stmt which);
/* PostgreSQL's own text of a statement where its dialect differs, else NULL
 * (store_sql_pg.c): db_sql runs SQLite's text with "$N" parameters then. */
const char *db_sql_pg(enum db_stmt which);
/* Another connection to the store's database with the engine's settings
 * (the mail worker's): 0 or STORE_EDB with why. */
int db_connect(store *s, sql_conn **out, unsigned busy_ms, char *why, size_t whylen);
/* Record schema version v on connection c (in its transaction): 0 or
 * STORE_EDB. */
int db_version_set(store *s, sql_conn *c, int v);
/* Finalize the statements, close the connections, free the memory and s
 * (once the handles are closed and the pool jobs are done). */
void db_free(store *s);

/* store_lite.c ----------------------------------------------------------- */

/* The loop's connection (s->db): the lock file, quick_check, the WAL and
 * durability pragmas; before the migrations. 0 or an error with why. */
int lite_open(store *s, const char *path, unsigned busy_ms, bool new_database, char *why,
              size_t whylen);
/* Is the file still the one opened (not deleted, not replaced)? 0, or
 * STORE_EMISSING with a sentence in why (any thread: a stat). */
int lite_file_check(store *s, char *why, size_t whylen);
/* From the loop, now and then: the file looked at off the loop; if it is
 * gone, store_mark_unwritable. */
void lite_watch(store *s);
/* The store takes no write until one commits again (loop): why for
 * /healthz, the probe timer started. */
void store_mark_unwritable(store *s, const char *why);
/* After the migrations: the page cache, the checkpoint connection and the
 * writer's (s->wdb) with its WAL hook. 0 or an error with why. */
int lite_open_writer(store *s, const char *path, unsigned busy_ms, char *why, size_t whylen);
/* One more connection (flags of sql_open), its busy timeout and pragmas
 * (or NULL): 0 or STORE_EDB with why (*out may need sql_close). */
int lite_connect(const char *path, int flags, unsigned busy_ms, const char *pragmas, sql_conn **out,
                 char *why, size_t whylen);
/* The connections closed, then the lock released. */
void lite_close(store *s);
/* PRAGMA user_version read or written: 0 or STORE_EDB. */
int lite_version_get(sql_conn *c, int *v);
int lite_version_set(sql_conn *c, int v);
/* After a commit (loop): a checkpoint on the thread pool if the WAL has
 * grown enough and none runs. */
void lite_checkpoint(store *s);
/* Bytes SQLite holds now (store_memory_bytes). */
int64_t lite_memory_bytes(void);

/* store_pg.c ------------------------------------------------------------- */

/* The loop's connection (s->db): one server per database (an advisory
 * lock; shared by the nodes in node mode, whose start-ups take turns),
 * the schema version's table; before the migrations. 0 or an error with
 * why. */
int pg_open(store *s, const char *url, unsigned busy_ms, char *why, size_t whylen);
/* After the migrations: the writer's connection (s->wdb). */
int pg_open_writer(store *s, const char *url, unsigned busy_ms, char *why, size_t whylen);
/* Node mode: the start-up lock (taken by pg_open) released. */
void pg_startup_done(store *s);
/* One more connection (the mail worker's), a wait for a lock limited to
 * busy_ms: 0 or STORE_EDB with why. */
int pg_connect(store *s, unsigned busy_ms, sql_conn **out, char *why, size_t whylen);
/* The schema version read or written (in the caller's transaction): 0 or
 * STORE_EDB. */
int pg_version_get(sql_conn *c, int *v);
int pg_version_set(sql_conn *c, int v);

/* store_lease.c ---------------------------------------------------------- */

/* Node mode, at store_open (loop's connection, start-up): the node's row,
 * its old leases expired, its first block of game ids. 0 or an error with
 * why. */
int lease_open(store *s, char *why, size_t whylen);
/* The renewal timer (queue_start; counted in open_handles) and its close
 * (queue_stop). */
void lease_start(store *s);
void lease_stop(store *s, uv_close_cb closed);
/* 0 if this node may write game now (always outside node mode), else
 * STORE_ELEASE_LOST. */
int lease_writable(store *s, int64_t game);
/* A new game's lease (store_game_create in node mode), held at once and
 * confirmed when the creation commits: 0 or STORE_ENOMEM. */
int lease_new(store *s, int64_t game, int64_t at_ms);
/* The epoch of the lease held on game, referenced (NULL if none). */
lease_epoch *lease_epoch_ref(store *s, int64_t game);
void lease_epoch_unref(lease_epoch *e);
/* Writer, after the batch's BEGIN (node mode): the lease rows of every
 * game the batch writes, read and locked (FOR SHARE) in one statement, and
 * each op's fenced_out set. 0 or an error that fails the batch. */
int lease_check_batch(store *s, op *ops, size_t n);
/* Writer: o's kind's run, unless lease_check_batch fenced it out, with
 * what its kind does to the lease row (op_kind.lease). 0 or an error that
 * fails the batch. */
int lease_run(store *s, op *o);
/* Writer: 1 if the lease row of game carries e's fence (held until the
 * transaction ends), 0 if not, or STORE_EDB. */
int lease_fence_ok(store *s, int64_t game, const lease_epoch *e);
/* Loop, once o's batch is back (before its done): a fenced-out write
 * turns into STORE_ELEASE_LOST (*status) and drops the lease; a creation
 * confirms or drops its lease; a result forgets it. */
void lease_done(store *s, op *o, int *status);
/* The lease of game is lost if it is still the one of epoch e (NULL: any):
 * out of the table and the game out of memory, the lease-lost callback
 * told. */
void lease_lost(store *s, int64_t game, const lease_epoch *e);
/* Forget the lease of game (a finished game: nothing more to write). */
void lease_forget(store *s, int64_t game);
/* A new game id from the node's block: 0 or STORE_EBUSY (block used up,
 * the next one not yet read). */
int lease_game_id(store *s, int64_t *id);
/* Every lease freed (db_free). */
void lease_free(store *s);

/* store_pages.c ---------------------------------------------------------- */

/* SQLite's cache pages in their own region from now on: once per process,
 * before SQLite starts (db_open); if it has started, nothing changes. */
void pages_init(void);

/* store_mem.c ------------------------------------------------------------ */

game_mem *mem_game_find(store *s, int64_t id);
/* Into the table and the index of each of its accounts: 0 or STORE_ENOMEM
 * (then nothing changed). */
int mem_game_insert(store *s, game_mem *g);
/* Out of the table and the indexes, and freed. */
void mem_game_remove(store *s, int64_t id);
void mem_game_free(game_mem *g);
/* Every game id in memory, in increasing order (malloc'd; *n of them), or
 * NULL if memory ran out. */
int64_t *mem_game_ids(store *s, size_t *n);
/* The games in progress of an account, or NULL if none. */
acct_games *mem_account(store *s, int64_t account);
void mem_lines_free(char **lines, int n);

/* The account's vacation (now or later), or NULL. */
vacation *mem_vac_find(store *s, int64_t account);
/* Add or update; 0 or STORE_ENOMEM. */
int mem_vac_set(store *s, int64_t account, int64_t from_ms, int64_t until_ms);
void mem_vac_del(store *s, int64_t account);
/* When the clock of `account` may start counting if its turn begins at
 * now: the end of its vacation if it is on one. */
int64_t mem_clock_start(store *s, int64_t account, int64_t now);
/* Every game, index and vacation. */
void mem_free(store *s);

/* store_queue.c ---------------------------------------------------------- */

/* Start the timers, the async handle and the writer thread (store_open). */
void queue_start(store *s);
/* A new op of this kind at the end of the queue (zeroed but for kind, game
 * and at_ms), the group timer armed; NULL if memory ran out. */
op *queue_push(store *s, const op_kind *kind, int64_t game);
/* Take back the op queue_push just returned (nothing was set in it that
 * needs freeing). */
void queue_pop(store *s);
/* 0, or the error every new operation gets (closing, broken). */
int queue_refuses(store *s);
/* A done callback for writes: cb.write(arg, status) if set. */
void queue_write_done(store *s, op *o, int status);
/* A call: the queued form of the loop's rare reads and writes (accounts,
 * sessions, preferences, push, mail, vacations, conditional lines,
 * tournaments), so that the loop never waits on the database (on
 * PostgreSQL, a network round trip). run: on the writer's thread and
 * connection (statements s->wst), inside the batch's transaction, and again
 * if the batch is tried again; it keeps its answer in job and returns 0, or
 * STORE_EDB if a statement failed (which fails the batch: on PostgreSQL the
 * transaction is lost anyway). So a refusal that is an answer (a name
 * taken) must not be a failed statement (ON CONFLICT DO NOTHING ...
 * RETURNING). done: on the loop, once the batch committed (status 0) or
 * failed (STORE_EDB; also the calls queued behind it) or the store closed
 * (STORE_ECLOSED); it owns job (frees it). reads: run writes nothing.
 * 0, or STORE_ECLOSED / STORE_ENOMEM (then done is not called). */
int queue_call(store *s, queue_run_fn run, queue_done_fn done, void *job, bool reads);
/* Fail every queued op with STORE_ECLOSED, stop the writer, close the
 * handles; db_free follows once they are closed (store_close, after the
 * last flush). */
void queue_stop(store *s);

/* store_games.c ---------------------------------------------------------- */

/* Every game in progress into memory (store_open; node mode: only the
 * next game id). 0 or an error. */
int games_load(store *s);
/* After a failed batch: game `id` in memory as it is on disk (out of memory
 * if it is not there or is finished). 0 or an error. */
int games_resync(store *s, int64_t id);

/* store_corr.c ----------------------------------------------------------- */

/* Accounts on vacation into memory (store_open). 0 or an error. */
int corr_load_vacations(store *s);
/* A game's conditional lines from the database into g (loading; set:
 * the statements of the connection that reads, s->st or s->wst). */
void corr_load_lines(sql_stmt *const *set, game_mem *g);
/* The deadline of `player` whose turn begins at now. */
int64_t corr_deadline(store *s, const game_mem *g, int player, int64_t now);
/* The deadline timer's tick. */
void corr_deadline_tick(uv_timer_t *t);

/* store_ratings.c -------------------------------------------------------- */

/* Every rating into memory (store_open). 0 or an error. */
int ratings_load(store *s);
void ratings_free(store *s);
/* Writer, in run_finish: the ratings after the finished game o->game (if
 * rated and not aborted) written, and kept in o->answer for ratings_done.
 * 0 or STORE_EDB / STORE_ENOMEM (fails the batch). */
int ratings_apply(store *s, op *o);
/* Loop, once the finish has committed: the new ratings into memory. */
void ratings_done(store *s, op *o, int status);
/* Free what ratings_apply left in o->answer. */
void ratings_release(op *o);
/* The ratings and history of an account for its profile (writer's
 * connection), malloc'd. 0 or an error. */
int ratings_read_profile(store *s, int64_t account, record_rating **r, int *nr,
                         record_rating_point **pts, int *npts);

#endif
