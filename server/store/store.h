/*
 * store.h - everything the server keeps on disk: games (live and
 * correspondence), their moves, the archive, correspondence clocks,
 * deadlines, vacation, conditional moves, accounts and sessions.
 *
 * Owns: the storage contract, in engine-neutral terms (nothing here names
 * an engine: server/store/store_*.c implement it, their private header
 * store_impl.h says which module does what); the database, the writer
 * thread, the store's clock, deadlines and their callbacks. May call:
 * common/rules.h, protocol/record.h (the plain structs it returns),
 * protocol/corrclock.h (the rules of deadlines and vacations), libuv,
 * log.h; never a module above it (rooms, sessions, net).
 * Rendering records as JSON or PGN is the protocol's (protocol/archive.h).
 *
 * Threading: every function is called on the loop thread and every callback
 * runs on the loop thread (but store_mailbox_*: the mail worker's thread,
 * on a connection of its own). The store owns two uv timers and a uv_async on
 * the caller's loop, one writer thread with its own connection (the loop
 * never waits for an fsync), and runs checkpoints on the libuv thread pool.
 *
 * Durability: writes that must not be lost (moves, game creation, results,
 * leaves, conditional-move updates) are QUEUED; the writer commits them in
 * batches, one transaction each (the ops queued within a 1 ms tick, or
 * during the previous commit); their done callback fires only after that
 * transaction has committed and been synced, i.e. is on disk.
 * Acknowledge a move to anyone only from its done callback. Operations are
 * written in the order they were queued.
 *
 * Reads of whole games and profiles are queued too, behind the writes
 * queued before them (so they see those), on the writer thread.
 *
 * Rare reads and writes (accounts, sessions, preferences, vacation, Web
 * Push subscriptions, e-mail settings and tokens, conditional lines,
 * tournaments) are queued calls too, answered by a callback: once the
 * server serves (store_serving), the loop never waits on the database,
 * which on PostgreSQL is a network round trip. Only start-up (store_open,
 * the loads, the VAPID keys) and games_resync after a failed batch use the
 * loop's own connection.
 *
 * The store does not know the rules: it records the move text the caller has
 * validated with the rules core (rules_game_play_text) and the player to
 * move after it. Words: a game's "variant" is the rules id ("ultima"), its
 * "id" is the store's number for one game.
 */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "corrclock.h"
#include "record.h"
#include "rules.h"

/* Errors: 0 is success, every error is negative (distinct from rules_err).
 * Codes that mean what a protocol error means are spelled like it
 * (proto_err_from_code maps them); the account codes are the HTTP API's. */
#define STORE_ERRORS(X)                                                                            \
    X(STORE_EDB, -101, "db_error", "database error")                                               \
    X(STORE_ETOO_NEW, -102, "db_too_new", "the database was written by a newer server")            \
    X(STORE_ENOT_FOUND, -103, "not_found", "no such record")                                       \
    X(STORE_EBAD_PLY, -104, "bad_ply", "the move does not follow the last one")                    \
    X(STORE_EFINISHED, -105, "game_over", "the game is over")                                      \
    X(STORE_EBAD_ARG, -106, "bad_argument", "invalid argument")                                    \
    X(STORE_EUSERNAME, -107, "bad_username", "invalid username")                                   \
    X(STORE_EPASSWORD, -108, "bad_password", "invalid password")                                   \
    X(STORE_ETAKEN, -109, "username_taken", "that username is taken")                              \
    X(STORE_ELOGIN, -110, "bad_login", "wrong username or password")                               \
    X(STORE_ENEED_ACCOUNT, -111, "account_required",                                               \
      "correspondence and rated games need an account")                                            \
    X(STORE_EVACATION, -112, "vacation", "no vacation days left this year")                        \
    X(STORE_ENOMEM, -113, "no_memory", "out of memory")                                            \
    X(STORE_ECLOSED, -114, "closed", "the store is closing")                                       \
    X(STORE_EBAD_TC, -115, "bad_time_control", "invalid time control")                             \
    X(STORE_ENOT_YOUR_TURN, -116, "not_your_turn",                                                 \
      "conditional moves are entered while the opponent is to move")                               \
    X(STORE_ETOTP_REQUIRED, -117, "totp_required",                                                 \
      "this account signs in with a code from its authenticator app too")                          \
    X(STORE_EBAD_TOTP, -118, "bad_totp", "wrong or already used code")                             \
    X(STORE_ETHROTTLED, -130, "too_many_attempts", "too many attempts: wait and try again")        \
    X(STORE_EBUSY, -131, "busy", "the server is busy: try again in a moment")                      \
    X(STORE_ELOCKED, -140, "db_in_use", "the database is in use by another server")                \
    X(STORE_ECORRUPT, -141, "db_corrupt", "the database file is corrupt")                          \
    X(STORE_EMISSING, -142, "db_missing", "the site's database file is missing")                   \
    X(STORE_EREAD_ONLY, -143, "db_read_only", "the database cannot be written")                    \
    X(STORE_ELEASED, -150, "game_leased", "another node holds this game's lease")                  \
    X(STORE_ELEASE_LOST, -151, "lease_lost", "this node no longer holds this game's lease")

typedef enum {
    STORE_OK = 0,
#define STORE_ERR_ENUM(name, value, code, text) name = value,
    STORE_ERRORS(STORE_ERR_ENUM)
#undef STORE_ERR_ENUM
} store_err;

/* Machine-readable code ("db_error") and default sentence of an error.
 * Errors of the rules core pass through (rules_err_code). */
const char *store_err_code(int err);
const char *store_err_text(int err);

enum {
    STORE_NAME_MAX = RECORD_NAME_MAX,              /* username incl. NUL (usernames are 3-20) */
    STORE_DAY_MS = RECORD_DAY_MS,                  /* one day in ms */
    STORE_VACATION_DAYS = CORRCLOCK_VACATION_DAYS, /* vacation days per account per year (UTC) */
    STORE_PWHASH_MAX = 128,                        /* password hash string incl. NUL */
    STORE_AGENT_MAX = 200,                         /* bytes of a login's User-Agent, no NUL */
    STORE_LOGINS_MAX = 50,                         /* an account's logins listed */
};

/* The store's names of the records it gives (protocol/record.h). */
typedef record_kind store_kind;
#define STORE_LIVE RECORD_LIVE
#define STORE_CORR RECORD_CORR
typedef record_tc store_tc;
typedef record_player store_player;
typedef record_game store_game_info;
typedef record_turn store_turn;

typedef struct store store;

/* Options of store_open; a NULL options pointer or zero fields mean the
 * defaults. */
typedef struct store_options {
    const char *migrations_dir; /* NULL: $CHAMELEON_MIGRATIONS or "migrations" */
    unsigned group_ms;          /* group commit tick; 0: 1 ms (fsync is the window) */
    /* Clock in ms since the Unix epoch; NULL: the wall clock (tests move it). */
    int64_t (*now_ms)(void *arg);
    void *now_arg;
    /* Storage faults (PROTOCOL.md, "Storage faults"): a batch whose
     * transaction fails is tried again `retries` more times (0: the
     * default, STORE_RETRIES; use STORE_NO_RETRY for none), after
     * store_retry_delay_ms(retry_ms, attempt) each (0: STORE_RETRY_MS). */
    unsigned retries;
    unsigned retry_ms;
    unsigned busy_ms; /* SQLite's wait for another connection's lock; 0: 2000 */
    /* Node mode (PostgreSQL only; "Leases" below): this process is the
     * node of that name. NULL: the one server of its database. */
    const char *node;
    unsigned lease_ttl_ms; /* node mode: a lease's life; 0: STORE_LEASE_TTL_MS */
    bool new_database;     /* SQLite: create it even where "<db>.site" says one was (lite_open) */
} store_options;

enum {
    STORE_RETRIES = 5,         /* tries after the first, per batch */
    STORE_RETRY_MS = 50,       /* the first back-off; doubles each time */
    STORE_RETRY_MAX_MS = 2000, /* no back-off is longer */
    STORE_NO_RETRY = 1000000,  /* store_options.retries: none */
    STORE_PROBE_MS = 1000,     /* a probe write this often while unwritable */
    STORE_LEASE_TTL_MS = 5000, /* node mode: a lease lives this long unless renewed */
    STORE_STOP_WAIT_MS = 3000, /* stopping: a database away is waited for this long */
};

/* The back-off before try attempt + 2 of a batch: base_ms doubled per
 * attempt, at most STORE_RETRY_MAX_MS. */
unsigned store_retry_delay_ms(unsigned base_ms, unsigned attempt);

enum { STORE_COMMIT_NBUCKETS = 12 };

/* The store's health for /healthz and /metrics. */
typedef struct store_stats {
    bool writable;           /* the last write (or probe) committed */
    uint64_t write_failures; /* batches failed after every retry */
    uint64_t write_retries;  /* tries after a failed one */
    uint64_t reconnects;     /* PostgreSQL sessions opened again (every connection) */
    char error[160];         /* why not writable (SQLite's message), or "" */
    uint64_t queued;         /* operations waiting for the next batch */
    uint64_t inflight;       /* operations of the batch being written */
    /* Batches committed and how long each took on the writer (BEGIN to
     * COMMIT, retries included): a Prometheus histogram, cumulative counts
     * per upper bound of store_commit_bounds (the last is +Inf). */
    uint64_t commit_buckets[STORE_COMMIT_NBUCKETS];
    uint64_t commits;
    double commit_seconds; /* their sum */
} store_stats;

/* The upper bounds in seconds of the commit histogram's buckets. */
extern const double store_commit_bounds[STORE_COMMIT_NBUCKETS];

void store_get_stats(store *s, store_stats *out);

/*
 * Open (creating if needed) the database at path and bring its schema up to
 * date: every migrations_dir/NNNN_*.sql above the database's version, each
 * in its own transaction; a database above the highest migration found is
 * refused with STORE_ETOO_NEW. One server per database: an exclusive flock
 * on "<path>.lock" while open, else STORE_ELOCKED. SQLite: PRAGMA
 * quick_check before anything is written (corrupt: STORE_ECORRUPT, the file
 * left as it is); a file that cannot be written is STORE_EREAD_ONLY; a
 * missing file where "<path>.site" says the site had one is STORE_EMISSING
 * (new_database creates it all the same); the file deleted or replaced
 * while open fails every later write (store_lite.c). Loads the in-progress
 * games into memory (turns, deadlines, conditional lines). Returns 0 and
 * *out, or a negative store_err with a sentence in why. On PostgreSQL the
 * lock is an advisory lock; in node mode (options.node) it is taken
 * shared, so that nodes share the database and no single server joins
 * them, and NO game is loaded: a node writes only the games whose lease it
 * takes (store_game_adopt, "Leases" below). Node mode on SQLite: EBAD_ARG.
 */
int store_open(store **out, uv_loop_t *loop, const char *path, const store_options *opt, char *why,
               size_t whylen);

/* The server serves from now on (main, before its loop runs): the loop's
 * own connection is for start-up only, every read and write goes through
 * the queue. A build with -DCHAMELEON_CHECKS (the sanitizer build the
 * tests run) aborts if the loop uses its connection after this (db_loop,
 * store_impl.h), so that a synchronous call that slipped back is caught by
 * any test that reaches it. store_close ends it. */
void store_serving(store *s);

/*
 * Write everything queued (its callbacks fire, status 0 or an error), stop
 * the timers and close. Callbacks of password work still running fire later
 * with STORE_ECLOSED. The memory is released once the loop has processed the
 * handle closes: run the loop (uv_run) after store_close. store_stop_soon
 * (at SIGTERM; store_close calls it if not yet called): a database that is
 * away is waited for STORE_STOP_WAIT_MS more, then what is queued or being
 * written fails, never acknowledged, and the log says what was not written.
 */
void store_stop_soon(store *s);
void store_close(store *s);

/*
 * Copy the database at path to dest while a server may be writing it
 * (another process: the SQLite backup API on a read-only connection, one
 * read transaction, so the copy is one commit's state). Neither takes the
 * server's lock nor writes to path. The copy is written as "dest.partial",
 * must pass PRAGMA integrity_check, then is fsync'ed and renamed to dest.
 * Returns 0, or STORE_EDB with a sentence in why.
 */
int store_backup(const char *path, const char *dest, char *why, size_t whylen);

int store_schema_version(store *s); /* of the open database */
int64_t store_now(store *s);        /* the store's clock (ms since the epoch) */

/* Bytes SQLite holds now, every connection's page cache included (for
 * /metrics: a cache filling up is not a leak). */
int64_t store_memory_bytes(void);

/* SQLite's cache pages in their own region (store_pages.c): the bytes of
 * its slots in use (counted in store_memory_bytes) and of every slot ever
 * used (a freed slot waits for the next page); 0 if they are in malloc's. */
void store_page_region(int64_t *in_use, int64_t *touched);

/* Called when a queued write is durable (status 0) or has failed (negative:
 * the write is NOT on disk; do not acknowledge). A failed batch is tried
 * again (store_options.retries) before its writes fail; when they fail,
 * every op queued behind them fails too (STORE_EDB) and the store's games
 * in memory are read back from the disk, so that the next write follows
 * what is on disk: the caller takes back what it had played. */
typedef void (*store_done_cb)(void *arg, int status);

/* Write everything queued now instead of at the next tick: waits for the
 * writer, then commits the queue on the calling thread (callbacks fire
 * before this returns). Returns 0 or STORE_EDB. */
int store_flush(store *s);

/* ------------------------------------------------------------------------ */
/* Games */

/*
 * Time control (store_tc = record_tc).
 *   live:  base_ms initial time of each player, inc_ms added after each move
 *          (Fischer); cap_ms unused. The caller runs live clocks and passes
 *          the remaining times with each move.
 *   corr, days per move (inc_ms == 0): base_ms is 1, 2, 3, 5, 7, 10 or 14
 *          days; each turn the player to move has base_ms from the moment
 *          the turn began.
 *   corr, increment (inc_ms > 0): base_ms (1..14 days, as above) is each
 *          player's initial bank; after each of its moves the bank becomes
 *          min(cap_ms, time left + inc_ms). inc_ms 1..14 whole days, cap_ms
 *          whole days, base_ms <= cap_ms <= 60 days.
 * The store computes correspondence deadlines itself: a clock runs only on
 * its owner's turn and stops while its owner is on vacation.
 */

/* Check a correspondence time control; 0 or STORE_EBAD_TC with a why. */
int store_tc_check(const store_tc *tc, char *why, size_t whylen);

typedef struct store_new_game {
    const char *variant;  /* rules id, already checked with rules_find */
    const char *position; /* start position string, NULL for the set-up */
    store_kind kind;
    bool rated;
    int nplayers;
    store_player players[RULES_MAX_PLAYERS]; /* seat i is rules player i */
    store_tc tc;
    const char *options; /* other options as a JSON object text, or NULL */
    int to_move;         /* player to move first (rules_game_to_move of the
                            new game; 0 from the set-up) */
} store_new_game;

/*
 * Queue the creation of a game; *id is set at once (ids are never reused;
 * in node mode they come from the node's block, and the game's lease is
 * taken in the creation's transaction: STORE_EBUSY in the rare case the
 * block is used up before the next one has been read).
 * Rated games need an account for every player, correspondence games for
 * every player but bots (players[].bot > 0) (STORE_ENEED_ACCOUNT); correspondence time controls are
 * checked (STORE_EBAD_TC). The creation is written before any move queued later for this game. cb
 * may be NULL. Returns 0 or a negative error with a why (then cb is not called).
 */
int store_game_create(store *s, const store_new_game *g, int64_t *id, store_done_cb cb, void *arg,
                      char *why, size_t whylen);

/* One move, as the caller has just played it through the rules core. */
typedef struct store_move {
    int ply;          /* number of moves before this one (0 = first move) */
    int player;       /* who played it */
    int next;         /* rules_game_to_move() after it; -1 if the game ended
                         (then queue store_game_finish next) */
    const char *text; /* input text (notation.md), e.g. "b1-b6" */
    /* Live games: remaining time of every player after the move (the
     * increment included). Ignored for correspondence (the store computes). */
    int64_t clock_ms[RULES_MAX_PLAYERS];
} store_move;

/*
 * Queue a move. Errors returned at once (cb not called): STORE_ENOT_FOUND (no
 * such game in progress), STORE_EBAD_PLY (ply is not the number of moves
 * recorded so far), STORE_EBAD_ARG. Otherwise cb(arg, 0) fires once the move
 * is durable, and players whose "your turn" list changed are reported to the
 * turn callback. For a correspondence game the deadline of `next` starts
 * now (see store_tc).
 */
int store_move_append(store *s, int64_t game, const store_move *m, store_done_cb cb, void *arg);

/*
 * Queue "player left while the others play on" (three-player games:
 * resignation or timeout of one player; see rules_game_leave). It is
 * recorded after the moves queued so far (its after_ply); next is
 * rules_game_to_move() afterwards, whose correspondence clock starts now if
 * the turn changed. If the leave ends the game, queue store_game_finish
 * instead (or after it). Errors as store_move_append.
 */
int store_game_leave(store *s, int64_t game, int player, rules_reason reason, int next,
                     store_done_cb cb, void *arg);

/*
 * Queue a takeback in a live game: the moves from ply `nmoves` on are
 * deleted, `next` is to move, clock_ms (every player's time now) become
 * the clocks a restart restores. Errors at once (cb not called):
 * STORE_ENOT_FOUND, STORE_EBAD_PLY (nmoves is not below the moves recorded),
 * STORE_EBAD_ARG (a correspondence game). cb(arg, 0) once it is durable.
 */
int store_takeback(store *s, int64_t game, int nmoves, int next, const int64_t *clock_ms,
                   store_done_cb cb, void *arg);

/*
 * Queue the end of a game with its result (r->over must be true): outcome
 * of every player, winner, reason. The game moves to the archive. cb may be
 * NULL.
 */
int store_game_finish(store *s, int64_t game, const rules_result *r, store_done_cb cb, void *arg);

/* A whole game at start-up (pointers valid during the callback only). */
typedef void (*store_game_cb)(void *arg, const store_game_info *g);

/*
 * Restore at start-up, before the loop runs: call cb once per unfinished
 * game (live and correspondence), in id order, with its moves and leaves in
 * order (record_replay rebuilds one through the rules core). Synchronous.
 * Returns the number of games or a negative error.
 */
int store_load_in_progress(store *s, store_game_cb cb, void *arg);

/* The answer to store_game_get: status 0 and the game (valid during the
 * call only), or a negative error (STORE_ENOT_FOUND, STORE_ENOMEM,
 * STORE_EDB, STORE_ECLOSED) and NULL. */
typedef void (*store_game_get_cb)(void *arg, int status, const store_game_info *g);

/*
 * One game, finished or not (GET /api/games/<id>): queued behind the writes
 * queued so far and read on the writer thread; cb runs later on the loop,
 * once. Returns 0, or a negative error at once (STORE_ECLOSED, STORE_EDB,
 * STORE_ENOMEM; then cb is not called).
 */
int store_game_get(store *s, int64_t id, store_game_get_cb cb, void *arg);

/* ------------------------------------------------------------------------ */
/* Accounts, sessions and profiles (accounts.h hashes passwords and makes
 * tokens; the store keeps what they produce). Queued calls, answered by a
 * callback. Usernames compare case-insensitively. */

typedef struct store_account {
    int64_t id;
    char username[STORE_NAME_MAX]; /* as registered */
    char pwhash[STORE_PWHASH_MAX]; /* the password hash string */
} store_account;

/* The answer of a queued account read or write: status 0 and a (NULL
 * otherwise), or a negative store_err; a is valid during the call only.
 * Like every queued call (accounts, sessions, preferences, push, mail,
 * vacations, conditional lines, tournaments), it runs on the writer's
 * connection after the operations queued before it, so the loop never
 * waits on the database; the return is 0 (cb will be called, on the loop,
 * STORE_ECLOSED if the store closes first) or STORE_ECLOSED / STORE_ENOMEM
 * at once (cb is not called). */
typedef void (*store_account_cb)(void *arg, int status, const store_account *a);

/* A new account: a->id and a->username, or STORE_ETAKEN (the name is
 * taken, whatever its case). */
int store_account_insert(store *s, const char *username, const char *pwhash, store_account_cb cb,
                         void *arg);
/* The account of a username (a->pwhash included), or STORE_ENOT_FOUND. */
int store_account_by_name(store *s, const char *username, store_account_cb cb, void *arg);
/* The account of an id (a->id, a->username; no pwhash), or
 * STORE_ENOT_FOUND. */
int store_account_name(store *s, int64_t account, store_account_cb cb, void *arg);

/* Logins: what a session cookie names (table sessions), called logins
 * here so as not to be taken for a connection's session (session.h). A
 * new login keyed by the hash of its token (the token is never stored),
 * valid until expires_ms, named by agent (the browser's User-Agent; NULL or
 * "" if none; cut at STORE_AGENT_MAX bytes); the account's expired logins
 * are deleted. cb may be NULL. */
int store_login_insert(store *s, const void *hash, size_t hashlen, int64_t account,
                       int64_t expires_ms, const char *agent, store_done_cb cb, void *arg);
/* The account of an unexpired login (a->id, a->username; no pwhash), or
 * STORE_ENOT_FOUND. */
int store_login_find(store *s, const void *hash, size_t hashlen, store_account_cb cb, void *arg);
/* End a login (no-op if unknown). cb may be NULL. */
int store_login_delete(store *s, const void *hash, size_t hashlen, store_done_cb cb, void *arg);

/* An account's unexpired logins, newest first (at most STORE_LOGINS_MAX):
 * for its list of sessions, where one can be ended. */
typedef struct store_login {
    unsigned char hash[32]; /* of the token */
    int64_t created_ms, expires_ms;
    char agent[STORE_AGENT_MAX + 1]; /* the User-Agent as it logged in, "" if none */
} store_login;
/* status 0 and the n logins (valid during the call), or an error. */
typedef void (*store_logins_cb)(void *arg, int status, const store_login *l, size_t n);
int store_logins_of(store *s, int64_t account, store_logins_cb cb, void *arg);
/* End the account's login whose token hashes to hash (others false), or
 * every one of its logins but that one (others true: "sign out
 * everywhere else"). cb gets 0 and how many ended, or an error. */
typedef void (*store_count_cb)(void *arg, int status, int64_t n);
int store_logins_end(store *s, int64_t account, const unsigned char hash[32], bool others,
                     store_count_cb cb, void *arg);
/* A new password hash for the account, and every one of its logins
 * ended (a password reset). cb may be NULL. */
int store_account_set_pwhash(store *s, int64_t account, const char *pwhash, store_done_cb cb,
                             void *arg);

/* ------------------------------------------------------------------------ */
/* Two-factor sign-in (store_totp.c; people/totp.h makes and checks the
 * codes): an account's TOTP secret, pending until a first code confirms
 * it, the last time step used, and its recovery codes (hashes). Queued
 * calls as the accounts'. */

typedef struct store_totp {
    unsigned char secret[32];
    size_t secret_len;
    bool enabled;
    int64_t last_step;
    int recovery_left; /* recovery codes not used yet */
} store_totp;
typedef void (*store_totp_cb)(void *arg, int status, const store_totp *t);

/* The account's secret, or STORE_ENOT_FOUND (no two-factor sign-in). */
int store_totp_get(store *s, int64_t account, store_totp_cb cb, void *arg);
/* A new pending secret (replacing a pending one), or STORE_ETAKEN when
 * two-factor sign-in is already on. */
int store_totp_pending(store *s, int64_t account, const unsigned char *secret, size_t len,
                       store_done_cb cb, void *arg);
/* The pending secret in force, its first code's step used, and these n
 * recovery codes' hashes replacing any; STORE_ENOT_FOUND if none is
 * pending. */
int store_totp_enable(store *s, int64_t account, int64_t step, const unsigned char (*hashes)[32],
                      int n, store_done_cb cb, void *arg);
/* A code of step taken: STORE_ENOT_FOUND when step is not later than the
 * last one used (a code is good once) or two-factor sign-in is off. */
int store_totp_use(store *s, int64_t account, int64_t step, store_done_cb cb, void *arg);
/* A recovery code taken (deleted): STORE_ENOT_FOUND if the account has no
 * such code. */
int store_recovery_use(store *s, int64_t account, const unsigned char hash[32], store_done_cb cb,
                       void *arg);
/* Two-factor sign-in off: the secret and the recovery codes deleted. */
int store_totp_off(store *s, int64_t account, store_done_cb cb, void *arg);

/* ------------------------------------------------------------------------ */
/* Web Push (store_push.c). The VAPID key pair: synchronous, on the loop's
 * connection, and only at start-up (push_init, before the server serves).
 * The subscriptions: queued calls (rare: a subscription when a browser
 * subscribes, the list of an account's subscriptions per push), run in the
 * writer's batch behind what was queued before and answered on the loop;
 * each returns 0 (cb will be called), or STORE_ECLOSED / STORE_ENOMEM /
 * STORE_EBAD_ARG at once (cb will not). */

enum { STORE_PUSH_ENDPOINT_MAX = 1024 };

typedef struct store_push_sub {
    char endpoint[STORE_PUSH_ENDPOINT_MAX + 1];
    uint8_t p256dh[65]; /* the browser's P-256 public key, uncompressed */
    uint8_t auth[16];   /* its authentication secret */
} store_push_sub;

/* The VAPID key pair: 0, or STORE_ENOT_FOUND (none yet) or STORE_EDB. */
int store_push_vapid_get(store *s, uint8_t priv[32], uint8_t pub[65]);
/* Keep the VAPID key pair (once: a second is refused with STORE_EDB). */
int store_push_vapid_put(store *s, const uint8_t priv[32], const uint8_t pub[65]);
/* Add (or move to this account, with new keys) the subscription of
 * `endpoint`; the account keeps its `keep` newest, older ones are
 * deleted. cb (may be NULL): 0 or STORE_EDB. */
int store_push_sub_put(store *s, int64_t account, const store_push_sub *sub, int keep,
                       store_done_cb cb, void *arg);
/* Delete the account's subscription of `endpoint`. cb (may be NULL): 1 if
 * there was one, 0 if not, or STORE_EDB. */
int store_push_sub_delete(store *s, int64_t account, const char *endpoint, store_done_cb cb,
                          void *arg);
/* Delete the subscription of `endpoint`, whoever holds it (the push
 * service said it is gone). cb (may be NULL): 1, 0 or STORE_EDB. */
int store_push_sub_gone(store *s, const char *endpoint, store_done_cb cb, void *arg);
/* The account's subscriptions, newest first, at most max (>= 1): status 0
 * and n of them in subs (valid during the call), or STORE_EDB (n 0). */
typedef void (*store_push_subs_cb)(void *arg, int status, const store_push_sub *subs, int n);
int store_push_subs(store *s, int64_t account, int max, store_push_subs_cb cb, void *arg);
/* An account's preferences (protocol/prefs.h checks them before), queued
 * calls like the accounts': cb gets 0 and the JSON object stored ("{}"
 * when none is; valid during the call), or an error. */
typedef void (*store_prefs_cb)(void *arg, int status, const char *json);
int store_prefs_get(store *s, int64_t account, store_prefs_cb cb, void *arg);
/* Replace them (json copied); cb may be NULL. */
int store_prefs_put(store *s, int64_t account, const char *json, store_done_cb cb, void *arg);
/* Its progress in the lessons (protocol/lessons.h), read and replaced
 * alike. */
int store_lessons_get(store *s, int64_t account, store_prefs_cb cb, void *arg);
int store_lessons_put(store *s, int64_t account, const char *json, store_done_cb cb, void *arg);

/* The answer to store_profile_get, as store_game_get_cb. */
typedef void (*store_profile_cb)(void *arg, int status, const record_profile *p);

/*
 * A player's profile (GET /api/profile/<name>): games in progress, finished
 * games per variant with win/loss/draw counts. Queued and read like
 * store_game_get; STORE_ENOT_FOUND if there is no such account.
 */
int store_profile_get(store *s, const char *username, store_profile_cb cb, void *arg);

/* ------------------------------------------------------------------------ */
/* Ratings (rating.h: Glicko-2, one per account, variant and pace)
 *
 * A rated game (every seat an account, no bot) that finishes other than
 * aborted updates the rating of every seat at the game's variant and pace,
 * in the transaction that writes the result (store_game_finish), so that
 * a result is never stored without its ratings: the store reads the rows
 * and writes them; the update itself is rating.h's (rating_places,
 * rating_game_update). The loop keeps every rating in memory as
 * committed. */

typedef record_rating store_rating;

/* The rating of an account at a variant and pace (rating_pace), from
 * memory: 0 and *out, or STORE_ENOT_FOUND (no rated game yet). */
int store_rating_get(store *s, int64_t account, const char *variant, int pace, store_rating *out);

/* The answer to store_leaderboard_get, as store_game_get_cb. */
typedef void (*store_board_cb)(void *arg, int status, const record_board *b);

/*
 * The leaderboard of a variant (GET /api/leaderboard/<variant>): per pace,
 * the players not provisional (rd <= RATING_PROVISIONAL_RD) whose last rated
 * game is within STORE_BOARD_ACTIVE_MS, best first, at most STORE_BOARD_MAX
 * per pace. Queued and read like store_game_get.
 */
int store_leaderboard_get(store *s, const char *variant, store_board_cb cb, void *arg);

enum { STORE_BOARD_MAX = 100 };
#define STORE_BOARD_ACTIVE_MS (92LL * STORE_DAY_MS) /* three months */

/* ------------------------------------------------------------------------ */
/* The archive: a player's finished games, filtered, a page at a time */

typedef struct store_archive_filter {
    const char *variant;  /* NULL: any */
    int kind;             /* -1 any, else STORE_LIVE or STORE_CORR */
    int outcome;          /* 0 any, else rules_outcome of the player's seat */
    const char *opponent; /* NULL: any; a username on another seat */
    int64_t before;       /* only games with a smaller id; 0: from the newest */
    int limit;            /* 1..STORE_ARCHIVE_MAX */
    bool aborted;         /* aborted games too (left out unless asked) */
} store_archive_filter;

enum { STORE_ARCHIVE_MAX = 100 };

typedef void (*store_archive_cb)(void *arg, int status, const record_archive *a);

/*
 * One page of the finished games of `username` matching f, newest first
 * (GET /api/archive/...). Queued and read like store_game_get;
 * STORE_ENOT_FOUND if there is no such account, STORE_EBAD_ARG for a limit
 * out of range.
 */
int store_archive_get(store *s, const char *username, const store_archive_filter *f,
                      store_archive_cb cb, void *arg);

/* ------------------------------------------------------------------------ */
/* "Your turn" list */

/* The games where it is the account's turn, most urgent first (live games
 * first, then by deadline). Writes up to max entries, returns how many there
 * are in all (may exceed max), or STORE_ENOMEM. */
int store_your_turn(store *s, int64_t account, store_turn *out, int max);
/* Node mode: the same list, every node's games, read from the database
 * (queued; cb: 0 and the turns, valid during the call, or an error). */
enum { STORE_TURNS_MAX = 1000 };
typedef void (*store_turns_cb)(void *arg, int status, const store_turn *t, int n);
int store_turns_of(store *s, int64_t account, store_turns_cb cb, void *arg);
/* The games in progress where an account (or, account 0, the guest of
 * seat key) holds a seat it has not left, every node's, oldest first, at
 * most STORE_SEATED_MAX (queued; cb: 0 and the ids, valid during the call). */
enum { STORE_SEATED_MAX = 64 };
typedef void (*store_seated_cb)(void *arg, int status, const int64_t *games, int n);
int store_seated_games(store *s, int64_t account, const char *key, store_seated_cb cb, void *arg);

/* Called (after the write is durable) with each account whose "your turn"
 * list changed: moves, new games, results, timeouts, vacation. The server
 * pushes the new list to that account's connections. */
void store_set_turn_cb(store *s, void (*cb)(void *arg, int64_t account), void *arg);

/* ------------------------------------------------------------------------ */
/* Correspondence: timeouts, vacation, conditional moves */

/*
 * Called once for each correspondence game whose player to move has passed
 * its deadline: right after the callback is set (games that expired while
 * the server was down: set it once the games are restored) and then by a
 * timer (checked every second). The
 * caller applies it: rules_game_leave(g, player, RULES_REASON_TIMEOUT) then
 * store_game_finish (two players) or store_game_leave (three players, the
 * others play on). Not called again for the same game and ply.
 */
void store_set_timeout_cb(store *s, void (*cb)(void *arg, int64_t game, int player), void *arg);

/*
 * The correspondence clock of a game in progress as the store has it in
 * memory (queued moves included): *deadline_ms of the player to move (0 if
 * none), and each player's bank (increment mode) or base_ms (days per move)
 * in clock_ms. 0, or STORE_ENOT_FOUND (not in progress).
 */
int store_corr_clock(store *s, int64_t game, int64_t *deadline_ms,
                     int64_t clock_ms[RULES_MAX_PLAYERS]);

/* Check deadlines now (the timer does this every second). */
void store_check_deadlines(store *s);

/*
 * Vacation: every account has STORE_VACATION_DAYS days per calendar year
 * (UTC) during which its correspondence clocks stop. Queued calls: the
 * account's row is read by the writer, behind what was queued before; a
 * start or end is then decided on the loop and applied to memory at once
 * (every op queued from then on counts it) and written in a later batch,
 * and cb answers once that has committed (or failed: memory goes back to
 * what the disk has). cb: status 0, until_ms (0 if not on vacation after
 * the request) and the days left this year; or an error with a sentence
 * in why. Each returns 0 (cb will be called), or at once (cb will not):
 * STORE_EBAD_ARG (days < 1, cb NULL), STORE_EBUSY (a start or end of the
 * account is still being written), STORE_ECLOSED, STORE_ENOMEM. */
typedef void (*store_vacation_cb)(void *arg, int status, int64_t until_ms, int days_left,
                                  const char *why);

/* Start `days` days of vacation now: every deadline of the account's games
 * is pushed back by the vacation, turns that reach it during the vacation
 * start counting at its end. Days started count whole. cb's errors:
 * STORE_EVACATION if fewer days are left (why says how many),
 * STORE_EBAD_ARG if already on vacation, STORE_ENOT_FOUND (no account),
 * STORE_EDB. */
int store_vacation_start(store *s, int64_t account, int days, store_vacation_cb cb, void *arg);

/* End a vacation early; days not started go back to the year's budget and
 * deadlines move forward accordingly. cb's errors: STORE_ENOT_FOUND (not on
 * vacation, or no account), STORE_EDB. */
int store_vacation_end(store *s, int64_t account, store_vacation_cb cb, void *arg);

/* Until when the account is on vacation (0 if not) and days left this
 * year (a queued read). cb's errors: STORE_ENOT_FOUND, STORE_EDB. */
int store_vacation_status(store *s, int64_t account, store_vacation_cb cb, void *arg);
/* The end of the account's vacation if it is on one now, else 0: from
 * memory, as committed (a room's state shows it). */
int64_t store_vacation_until(store *s, int64_t account);
/* Node mode: another node changed the vacation; read the row and move this
 * node's memory and deadlines as that node did (STORE_ENOT_FOUND: none). */
int store_vacation_sync(store *s, int64_t account, store_vacation_cb cb, void *arg);

/*
 * Conditional moves (two-player correspondence games): replace the lines of
 * `player` in `game`. Each line is move texts separated by spaces,
 * alternating, starting with the opponent's next move: "X Y Z W" means "if
 * they play X I play Y, then if they play Z I play W". Only while the
 * opponent is to move (STORE_ENOT_YOUR_TURN). nlines 0 clears. The caller
 * checks each line with cond_check_line (cond.h) first. In memory at
 * once, queued like a move: cb (may be NULL) once written (status 0) or
 * not.
 */
int store_cond_set(store *s, int64_t game, int player, const char *const *lines, int nlines,
                   store_done_cb cb, void *arg, char *why, size_t whylen);
/* At most this many lines a player, of at most this many moves. */
enum { STORE_COND_MAX_LINES = 32, STORE_COND_MAX_PLIES = 64 };

/* Drop the player's lines (e.g. the answer a line gave could not be
 * played). Queued like a move; cb as store_cond_set's (with cb NULL and no
 * lines, nothing is queued). */
int store_cond_clear(store *s, int64_t game, int player, store_done_cb cb, void *arg);

/* The player's lines (in memory: no read). *out points into the store and
 * stays valid until the next call that changes lines; *at_ply (may be
 * NULL): the ply of the opponent's move they wait for. 0,
 * STORE_ENOT_FOUND (not in progress) or STORE_EBAD_ARG. */
int store_cond_get(store *s, int64_t game, int player, record_lines *out, int *at_ply);

/*
 * The player's lines once the opponent's move is played (what is left of
 * them: cond_match, game/cond.h, decides; none drops them all), waiting
 * for the opponent's move at at_ply. lines may point into the store's own
 * (store_cond_get). Unlike store_cond_set, whoever is to move: it follows
 * a move. In memory at once, queued like a move.
 */
int store_cond_replace(store *s, int64_t game, int player, const char *const *lines, int nlines,
                       int at_ply);

/* ------------------------------------------------------------------------ */
/* E-mail (migration 0006; PROTOCOL.md, "E-mail"): an account's address and
 * notice preferences and the tokens of its confirmation and reset links
 * (only their hash), all queued calls (see store_account_cb), and the
 * outbox: mail is queued like a move (durable once its done callback says
 * 0) and sent by the mail worker (mail.h) through a store_mailbox, a
 * connection of its own used on the worker's thread only. */

enum {
    STORE_MAIL_ADDR_MAX = 255, /* an address (at most 254) and its NUL */
    STORE_MAIL_UNSUB_HEX = 32, /* hex digits of an unsubscribe token */
    /* Notice preferences, one bit each. */
    STORE_MAIL_MOVE = 1 << 0,      /* "your move", at each move */
    STORE_MAIL_DIGEST = 1 << 1,    /* a daily digest of the games waiting */
    STORE_MAIL_LOW_TIME = 1 << 2,  /* 80% of the time for a move used */
    STORE_MAIL_START_END = 1 << 3, /* a game starts, a game ends */
    STORE_MAIL_ALL = 0xf,
    STORE_MAIL_DEFAULT = STORE_MAIL_DIGEST | STORE_MAIL_LOW_TIME | STORE_MAIL_START_END,
    STORE_MAIL_REMIND_MAX = 30, /* days of silence before a reminder (0: none) */
    /* Purposes of a link's token. */
    STORE_TOKEN_CONFIRM = 1,
    STORE_TOKEN_RESET = 2,
};

typedef struct store_mail_prefs {
    bool known;                        /* the account has a row (gave an address once) */
    char address[STORE_MAIL_ADDR_MAX]; /* the confirmed address, "" if none */
    unsigned prefs;                    /* STORE_MAIL_* bits */
    int remind_days;                   /* 0: no reminder */
    char unsub[STORE_MAIL_UNSUB_HEX + 1];
} store_mail_prefs;

/* The account's address and preferences, queued calls like the accounts'
 * (store_account_cb): cb gets 0 and p (known false and the defaults if the
 * account never gave an address; valid during the call), or an error. */
typedef void (*store_mail_prefs_cb)(void *arg, int status, const store_mail_prefs *p);
int store_mail_prefs_get(store *s, int64_t account, store_mail_prefs_cb cb, void *arg);
/* The same, the row made first with the defaults and unsub as its token if
 * the account has none (so p->known is true and p->unsub its token). */
int store_mail_prefs_ensure(store *s, int64_t account, const char *unsub, store_mail_prefs_cb cb,
                            void *arg);
/* Set the preferences (the row is made, with unsub as its token, if the
 * account has none); cb may be NULL. */
int store_mail_prefs_set(store *s, int64_t account, unsigned prefs, int remind_days,
                         const char *unsub, store_done_cb cb, void *arg);
/* The address is confirmed (the row is made with unsub if needed); cb may
 * be NULL. */
int store_mail_address_set(store *s, int64_t account, const char *address, const char *unsub,
                           store_done_cb cb, void *arg);
/* Every account whose confirmed address is `address` (any case), at most
 * max (> 0, else STORE_EBAD_ARG at once): cb gets 0 and the n accounts
 * (valid during the call), or an error. */
typedef void (*store_mail_accounts_cb)(void *arg, int status, const int64_t *accounts, int n);
int store_mail_accounts_of(store *s, const char *address, int max, store_mail_accounts_cb cb,
                           void *arg);
/* Turn every notice of the account whose token this is off: cb gets 0, or
 * STORE_ENOT_FOUND (no such token). cb may be NULL. */
int store_mail_unsubscribe(store *s, const char *unsub, store_done_cb cb, void *arg);
/* The account's address forgotten (its preferences kept for a new one):
 * the address, its pending links (confirmation, password reset) and its
 * mail in the outbox, sent or not, are deleted. cb may be NULL. */
int store_mail_address_delete(store *s, int64_t account, store_done_cb cb, void *arg);

/* A link's token (its hash), for purpose, valid until expires_ms; the
 * account's earlier tokens of the same purpose are dropped. address may be
 * NULL; cb may be NULL. */
int store_mail_token_insert(store *s, const void *hash, size_t hashlen, int64_t account,
                            int purpose, const char *address, int64_t expires_ms, store_done_cb cb,
                            void *arg);
/* Use a token once: it is deleted; cb gets 0, its account and its address
 * ("" if none; valid during the call), or STORE_ENOT_FOUND (unknown,
 * expired, other purpose) or another error, account 0 and NULL. */
typedef void (*store_mail_token_cb)(void *arg, int status, int64_t account, const char *address);
int store_mail_token_take(store *s, const void *hash, size_t hashlen, int purpose,
                          store_mail_token_cb cb, void *arg);

/* A mail to queue. */
typedef struct store_mail_new {
    int64_t account;
    const char *kind;    /* "confirm", "reset", "move", "digest", ... */
    unsigned pref;       /* a STORE_MAIL_* bit that must be on; 0: always */
    int silent_days;     /* > 0: a reminder after this many days of silence, sent
                            only if the account's remind_days is 1..silent_days */
    const char *to;      /* NULL: the account's confirmed address (none: dropped) */
    const char *dedupe;  /* NULL, or a key: a mail with a key already used is dropped */
    const char *subject; /* plain text */
    const char *body;    /* plain text, lines separated by \n */
} store_mail_new;

/* Queue a mail (copied): written with the next batch, unless the account
 * has no confirmed address (to NULL), its preference is off, or its dedupe
 * key was used. cb(arg, status) once durable (1: written, 0: dropped) or
 * failed (negative). cb may be NULL. */
int store_mail_queue(store *s, const store_mail_new *m, store_done_cb cb, void *arg);

/* One mail of the outbox, as the worker sends it (strings owned by the
 * mailbox until the next call). */
typedef struct store_mail_row {
    int64_t id, account, created_ms;
    int tries;
    const char *kind, *to, *subject, *body;
    char unsub[STORE_MAIL_UNSUB_HEX + 1]; /* "" if the account has none */
} store_mail_row;

typedef struct store_mailbox store_mailbox;

/* Open a connection to the store's database for the mail worker (on the
 * loop, at start). 0 or STORE_EDB with a why. Every other mailbox function
 * is called on the worker's thread only. */
int store_mailbox_open(store *s, store_mailbox **out, char *why, size_t whylen);
void store_mailbox_close(store_mailbox *mb);
/* The oldest mail due at now: 1 and *row, or 0 and *next_ms (the earliest
 * time one is due, 0 if none waits), or STORE_EDB. */
int store_mailbox_next(store_mailbox *mb, int64_t now, store_mail_row *row, int64_t *next_ms);
/* The relay accepted mail id (written at once: synchronous=FULL). */
int store_mailbox_sent(store_mailbox *mb, int64_t id, int64_t now);
/* Mail id failed: tried again at next_ms, or given up (next_ms 0). */
int store_mailbox_failed(store_mailbox *mb, int64_t id, int64_t next_ms, const char *error,
                         int64_t now);
/* Mail waiting (neither sent nor given up), or STORE_EDB. If before_ms >
 * 0, rows sent or given up before it are deleted first. */
int64_t store_mailbox_depth(store_mailbox *mb, int64_t before_ms);

/* ------------------------------------------------------------------------ */
/* Correspondence games in progress, as the store has them in memory (for
 * notices: low time, reminders, digests). */
typedef struct store_corr_turn {
    int64_t game;
    const char *variant;
    int to_move, nmoves;
    int64_t account;      /* of the player to move (0: a bot) */
    int64_t last_move_ms; /* the last move, or the creation */
    int64_t deadline_ms;
} store_corr_turn;

/* cb once per correspondence game in progress with a player to move. */
void store_corr_each(store *s, void (*cb)(void *arg, const store_corr_turn *t), void *arg);

/* ------------------------------------------------------------------------ */
/* Leases (node mode only: options.node; migration 0009, store_lease.c).
 *
 * Several nodes share one PostgreSQL database; each game in progress is
 * written by one node at a time, the holder of its lease (a row of
 * room_leases: node, fence, expires_ms). A lease lives lease_ttl_ms and
 * the store renews every lease of its node every ttl/3 (one queued
 * UPDATE, which also writes the node's heartbeat). The fence is a number
 * from one sequence for all games and nodes: it grows each time a lease
 * changes hands (or is taken again after it expired).
 *
 * Fencing: in node mode every write of a game (creation, move, leave,
 * result, takeback, conditional lines, the deadlines a vacation moves)
 * checks in its batch's transaction, holding the lease row (FOR SHARE, so
 * that a take-over waits for the COMMIT), that the row still carries the
 * fence this node got. If not, that write alone is skipped: its callback
 * gets STORE_ELEASE_LOST (the rest of the batch commits), the game leaves
 * this node's memory and the lease-lost callback is told. So a node that
 * lost a lease never writes a move of that game, whatever its clock or
 * its queue hold.
 *
 * Lost locally: a lease whose last renewal (or take) was queued more than
 * a ttl ago is lost, even if the database is away or the node was frozen:
 * writes of that game are refused at once (STORE_ELEASE_LOST), and the
 * renewal timer drops it (memory, lease-lost callback). Writes of a game
 * without a lease are refused the same way: take it (or create the game:
 * store_game_create in node mode takes the new game's lease in the
 * creation's transaction) first.
 *
 * Node names are unique among running processes; a node started again
 * under its name finds its old leases expired (store_open expires them),
 * so its takes get new fences.
 *
 * The room layer's take-over (room_takeover.c) calls store_lease_expired,
 * store_lease_take and store_game_adopt; forwarding (forward.c) the reads
 * below. */

/* cb of store_lease_take: status 0 and the lease's fence; STORE_ELEASED
 * and the node that holds it (holder, else ""); STORE_ENOT_FOUND (no
 * such game in progress); STORE_EDB. */
typedef void (*store_lease_cb)(void *arg, int status, int64_t fence, const char *holder);

/* Take the lease of game `game` if it is free, expired or already this
 * node's (then renewed; its fence stays unless it had expired). Queued;
 * cb as above. Returns 0, or STORE_EBAD_ARG (not node mode) /
 * STORE_ECLOSED / STORE_ENOMEM (cb not called). */
int store_lease_take(store *s, int64_t game, store_lease_cb cb, void *arg);

/* Give the lease of `game` up: writes of it are refused from now on, it
 * leaves memory, and its row is deleted (if it still carries our fence)
 * by a queued write; cb (may be NULL) once written. 0, STORE_ENOT_FOUND
 * (not held), STORE_ECLOSED, STORE_ENOMEM. */
int store_lease_release(store *s, int64_t game, store_done_cb cb, void *arg);

/* The games in progress that no live node holds (lease expired, or no
 * lease), the lowest ids first, at most STORE_LEASE_EXPIRED_MAX: what a
 * node may take over. Queued read. */
typedef void (*store_ids_cb)(void *arg, int status, const int64_t *ids, int n);
int store_lease_expired(store *s, store_ids_cb cb, void *arg);
enum { STORE_LEASE_EXPIRED_MAX = 1000 };

/* Read game `game` from the database (queued, behind what was queued
 * before) and put it into memory as store_open loads a game in progress
 * on a single server (turn, clocks, deadlines, conditional lines); cb gets
 * the whole game, as store_game_get does, so that the room layer rebuilds
 * its room. The lease must be held (STORE_ELEASE_LOST at once if not, or
 * in cb if it was lost meanwhile); a finished game is answered but not put
 * in memory. Outside node mode: STORE_EBAD_ARG. */
int store_game_adopt(store *s, int64_t game, store_game_get_cb cb, void *arg);

/* Called (loop) with each game whose lease this node lost (fenced out,
 * expired, taken by another node): the game has left memory. */
void store_set_lease_lost_cb(store *s, void (*cb)(void *arg, int64_t game), void *arg);

/* Forwarding (forward.c), queued reads (0, or STORE_EBAD_ARG outside node
 * mode, STORE_ENOMEM, STORE_ECLOSED: cb not called). The node whose lease
 * game has, alive or not: cb gets 0 and its name (valid during the call),
 * STORE_ENOT_FOUND (no such game in progress) or STORE_EDB. */
enum { STORE_NODE_NAME_MAX = 63, STORE_NODES_MAX = 1000 };
typedef void (*store_node_cb)(void *arg, int status, const char *node);
int store_lease_holder(store *s, int64_t game, store_node_cb cb, void *arg);
/* The live nodes by name, each with its process's start (the first holds
 * the lobby; remote sessions of the others go). */
typedef struct store_node {
    char name[STORE_NODE_NAME_MAX + 1];
    int64_t started_ms;
} store_node;
typedef void (*store_nodes_cb)(void *arg, int status, const store_node *nodes, int n);
int store_live_nodes(store *s, store_nodes_cb cb, void *arg);

/* Whether this node holds game's lease now (false outside node mode). */
bool store_lease_held(store *s, int64_t game);
/* TESTS: pause (true) or resume the renewal of the node's leases. */
void store_lease_pause(store *s, bool paused);

/* ------------------------------------------------------------------------ */
/* For accounts.c: its password work runs on the store's loop's thread pool
 * and must end before the store is freed. */

uv_loop_t *store_loop(store *s);
void store_work_begin(store *s);
void store_work_end(store *s);
bool store_closing(store *s);

#endif
