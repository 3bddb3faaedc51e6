/*
 * store_db.c - the SQLite engine's connections: opening (WAL,
 * synchronous=FULL, foreign keys), migrations, the statement table (every
 * SQL statement of the server, prepared once on the loop's and the writer's
 * connection), errors, store_open and store_close. See store_impl.h.
 *
 * Before anything is written, store_open takes the database's lock (one
 * server per file) and checks the file (PRAGMA quick_check): two servers on
 * one database would fail each other's writes, and a corrupt file must be
 * refused, never written to.
 */
#include "store_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "proto_out.h"

/* ------------------------------------------------------------------------ */
/* The statement table */

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_GAME_INSERT] = "INSERT INTO games (id, variant, position, kind, rated, nplayers,"
                       " tc_base_ms, tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms,"
                       " nmoves, to_move, deadline_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?)",
    [ST_PLAYER_INSERT] = "INSERT INTO game_players (game, seat, account, name, clock_ms)"
                         " VALUES (?,?,?,?,?)",
    [ST_MOVE_INSERT] = "INSERT INTO moves (game, ply, player, text, at_ms, clock0, clock1,"
                       " clock2) VALUES (?,?,?,?,?,?,?,?)",
    [ST_MOVES_TRUNCATE] = "DELETE FROM moves WHERE game = ? AND ply >= ?",
    [ST_MOVE_CLOCKS] =
        "UPDATE moves SET clock0 = ?, clock1 = ?, clock2 = ? WHERE game = ? AND ply = ?",
    [ST_GAME_ADVANCE] = "UPDATE games SET nmoves = ?, to_move = ?, last_move_ms = ?,"
                        " deadline_ms = ? WHERE id = ?",
    [ST_LEAVE_INSERT] = "INSERT INTO leaves (game, player, after_ply, reason, at_ms)"
                        " VALUES (?,?,?,?,?)",
    [ST_PLAYER_OUTCOME] = "UPDATE game_players SET outcome = ? WHERE game = ? AND seat = ?",
    [ST_GAME_FINISH] = "UPDATE games SET finished = 1, to_move = -1, deadline_ms = 0,"
                       " winner = ?, reason = ?, finished_ms = ? WHERE id = ?",
    [ST_DEADLINE_SET] = "UPDATE games SET deadline_ms = ? WHERE id = ?",
    [ST_COND_DELETE] = "DELETE FROM cond_lines WHERE game = ? AND player = ?",
    [ST_COND_INSERT] = "INSERT INTO cond_lines (game, player, idx, line) VALUES (?,?,?,?)",
    [ST_COND_SELECT] = "SELECT player, line FROM cond_lines WHERE game = ? ORDER BY player, idx",
    [ST_GAME_SELECT] = "SELECT variant, position, kind, rated, nplayers, tc_base_ms,"
                       " tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms, nmoves,"
                       " to_move, deadline_ms, finished, winner, reason, finished_ms"
                       " FROM games WHERE id = ?",
    [ST_PLAYERS_SELECT] = "SELECT seat, account, name, clock_ms, outcome FROM game_players"
                          " WHERE game = ? ORDER BY seat",
    [ST_MOVES_SELECT] = "SELECT ply, player, text, at_ms, clock0, clock1, clock2 FROM moves"
                        " WHERE game = ? ORDER BY ply",
    [ST_LEAVES_SELECT] = "SELECT player, after_ply, reason, at_ms FROM leaves WHERE game = ?"
                         " ORDER BY after_ply, at_ms",
    [ST_IN_PROGRESS] = "SELECT id FROM games WHERE finished = 0 ORDER BY id",
    [ST_DEADLINES] = "SELECT id FROM games WHERE finished = 0 AND kind = 1"
                     " AND deadline_ms <= ? ORDER BY deadline_ms",
    [ST_MAX_ID] = "SELECT coalesce(max(id), 0) FROM games",
    [ST_VAC_SELECT] = "SELECT vacation_from_ms, vacation_until_ms, vacation_year,"
                      " vacation_used FROM accounts WHERE id = ?",
    [ST_VAC_UPDATE] = "UPDATE accounts SET vacation_from_ms = ?, vacation_until_ms = ?,"
                      " vacation_year = ?, vacation_used = ? WHERE id = ?",
    [ST_VAC_ACTIVE] = "SELECT id, vacation_from_ms, vacation_until_ms FROM accounts"
                      " WHERE vacation_until_ms > ?",
    [ST_ACCOUNT_INSERT] = "INSERT INTO accounts (username, pwhash, created_ms) VALUES (?,?,?)",
    [ST_ACCOUNT_BY_NAME] = "SELECT id, username, pwhash FROM accounts WHERE username = ?",
    [ST_ACCOUNT_NAME] = "SELECT username FROM accounts WHERE id = ?",
    [ST_ACCOUNT_GAMES] = "SELECT g.id, g.variant, g.kind, g.finished, g.to_move, g.deadline_ms,"
                         " g.reason, p.seat, p.outcome, g.nmoves, g.created_ms, g.finished_ms"
                         " FROM game_players p JOIN games g ON g.id = p.game"
                         " WHERE p.account = ? ORDER BY g.id DESC",
    [ST_SESSION_INSERT] = "INSERT INTO sessions (token_hash, account, created_ms, expires_ms)"
                          " VALUES (?,?,?,?)",
    [ST_SESSION_PURGE] = "DELETE FROM sessions WHERE account = ? AND expires_ms <= ?",
    [ST_SESSION_FIND] = "SELECT a.id, a.username FROM sessions s JOIN accounts a"
                        " ON a.id = s.account WHERE s.token_hash = ? AND s.expires_ms > ?",
    [ST_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = ?",
    [ST_PREFS_GET] = "SELECT json FROM prefs WHERE account = ?",
    [ST_PREFS_PUT] = "INSERT OR REPLACE INTO prefs (account, json, updated_ms) VALUES (?,?,?)",
    [ST_RATING_GET] = "SELECT rating, rd, vol, games, last_ms FROM ratings"
                      " WHERE account = ? AND variant = ? AND pace = ?",
    [ST_RATING_PUT] = "INSERT OR REPLACE INTO ratings (account, variant, pace, rating, rd, vol,"
                      " games, last_ms) VALUES (?,?,?,?,?,?,?,?)",
    [ST_RATING_HIST_INSERT] = "INSERT INTO rating_history (account, game, variant, pace, at_ms,"
                              " before, after, rd) VALUES (?,?,?,?,?,?,?,?)",
    [ST_RATINGS_ALL] = "SELECT account, variant, pace, rating, rd, vol, games, last_ms"
                       " FROM ratings",
    [ST_RATINGS_OF] = "SELECT variant, pace, rating, rd, vol, games, last_ms FROM ratings"
                      " WHERE account = ? ORDER BY variant, pace",
    [ST_RATING_HISTORY_OF] = "SELECT variant, pace, game, at_ms, after, rd FROM rating_history"
                             " WHERE account = ? ORDER BY at_ms, game",
    [ST_ARCHIVE] = "SELECT g.id, g.variant, g.kind, g.rated, g.nplayers, g.tc_base_ms,"
                   " g.tc_inc_ms, g.tc_cap_ms, p.seat, p.outcome, g.winner, g.reason,"
                   " g.created_ms, g.finished_ms, g.nmoves, h.before, h.after"
                   " FROM game_players p JOIN games g ON g.id = p.game"
                   " LEFT JOIN rating_history h ON h.account = p.account AND h.game = g.id"
                   " WHERE p.account = ?1 AND g.finished = 1"
                   " AND (?2 IS NULL OR g.variant = ?2) AND (?3 < 0 OR g.kind = ?3)"
                   " AND (?4 = 0 OR p.outcome = ?4) AND (?5 = 0 OR g.id < ?5)"
                   " AND (?6 IS NULL OR EXISTS (SELECT 1 FROM game_players o"
                   " JOIN accounts a ON a.id = o.account WHERE o.game = g.id"
                   " AND o.seat <> p.seat AND a.username = ?6))"
                   " ORDER BY g.id DESC LIMIT ?7",
    [ST_ARCHIVE_NAMES] = "SELECT seat, name FROM game_players WHERE game = ? ORDER BY seat",
    [ST_PUSH_VAPID_GET] = "SELECT private_key, public_key FROM push_vapid WHERE id = 1",
    [ST_PUSH_VAPID_PUT] = "INSERT INTO push_vapid (id, private_key, public_key, created_ms)"
                          " VALUES (1, ?, ?, ?)",
    [ST_PUSH_SUB_PUT] = "INSERT INTO push_subs (account, endpoint, p256dh, auth, created_ms)"
                        " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (endpoint) DO UPDATE SET"
                        " account = ?1, p256dh = ?3, auth = ?4, created_ms = ?5",
    [ST_PUSH_SUB_TRIM] = "DELETE FROM push_subs WHERE account = ?1 AND id NOT IN"
                         " (SELECT id FROM push_subs WHERE account = ?1 ORDER BY created_ms DESC,"
                         " id DESC LIMIT ?2)",
    [ST_PUSH_SUB_DELETE] = "DELETE FROM push_subs WHERE account = ? AND endpoint = ?",
    [ST_PUSH_SUB_GONE] = "DELETE FROM push_subs WHERE endpoint = ?",
    [ST_PUSH_SUBS_OF] = "SELECT endpoint, p256dh, auth FROM push_subs WHERE account = ?"
                        " ORDER BY created_ms DESC, id DESC LIMIT ?",
    [ST_LEADERBOARD] = "SELECT a.username, r.pace, r.rating, r.rd, r.games, r.last_ms"
                       " FROM ratings r JOIN accounts a ON a.id = r.account"
                       " WHERE r.variant = ? AND r.rd <= ? AND r.last_ms >= ?"
                       " ORDER BY r.pace, r.rating DESC",
    [ST_MAIL_PREFS_GET] = "SELECT address, prefs, remind_days, unsub FROM mail_addresses"
                          " WHERE account = ?",
    [ST_MAIL_PREFS_SET] = "INSERT INTO mail_addresses (account, prefs, remind_days, unsub)"
                          " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (account) DO UPDATE SET"
                          " prefs = ?2, remind_days = ?3",
    [ST_MAIL_ADDRESS_SET] = "INSERT INTO mail_addresses (account, address, prefs, unsub)"
                            " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (account) DO UPDATE SET"
                            " address = ?2",
    [ST_MAIL_ACCOUNTS_OF] = "SELECT account FROM mail_addresses"
                            " WHERE address = ? COLLATE NOCASE ORDER BY account LIMIT ?",
    [ST_MAIL_UNSUBSCRIBE] = "UPDATE mail_addresses SET prefs = 0, remind_days = 0 WHERE unsub = ?",
    [ST_MAIL_TOKEN_PURGE] = "DELETE FROM mail_tokens WHERE (account = ? AND purpose = ?)"
                            " OR expires_ms <= ?",
    [ST_MAIL_TOKEN_INSERT] = "INSERT INTO mail_tokens (token_hash, account, purpose, address,"
                             " expires_ms) VALUES (?,?,?,?,?)",
    [ST_MAIL_TOKEN_FIND] = "SELECT account, address FROM mail_tokens WHERE token_hash = ?"
                           " AND purpose = ? AND expires_ms > ?",
    [ST_MAIL_TOKEN_DELETE] = "DELETE FROM mail_tokens WHERE token_hash = ?",
    [ST_ACCOUNT_SET_PWHASH] = "UPDATE accounts SET pwhash = ? WHERE id = ?",
    [ST_SESSIONS_END_ALL] = "DELETE FROM sessions WHERE account = ?",
    [ST_MAIL_OUTBOX_INSERT] = "INSERT OR IGNORE INTO mail_outbox (account, kind, dedupe, to_addr,"
                              " subject, body, created_ms, next_ms) VALUES (?,?,?,?,?,?,?,?)",
    [ST_MAIL_NEXT] = "SELECT o.id, o.account, o.created_ms, o.tries, o.kind, o.to_addr,"
                     " o.subject, o.body, a.unsub FROM mail_outbox o"
                     " LEFT JOIN mail_addresses a ON a.account = o.account"
                     " WHERE o.sent_ms IS NULL AND o.failed_ms IS NULL AND o.next_ms <= ?"
                     " ORDER BY o.next_ms, o.id LIMIT 1",
    [ST_MAIL_NEXT_DUE] = "SELECT min(next_ms) FROM mail_outbox"
                         " WHERE sent_ms IS NULL AND failed_ms IS NULL",
    [ST_MAIL_SENT] = "UPDATE mail_outbox SET sent_ms = ?, tries = tries + 1 WHERE id = ?",
    [ST_MAIL_FAILED] = "UPDATE mail_outbox SET tries = tries + 1, last_error = ?2,"
                       " next_ms = CASE WHEN ?3 > 0 THEN ?3 ELSE next_ms END,"
                       " failed_ms = CASE WHEN ?3 > 0 THEN NULL ELSE ?4 END WHERE id = ?1",
    [ST_MAIL_DEPTH] =
        "SELECT count(*) FROM mail_outbox WHERE sent_ms IS NULL AND failed_ms IS NULL",
    [ST_MAIL_PURGE] = "DELETE FROM mail_outbox WHERE coalesce(sent_ms, failed_ms) < ?",
    [ST_T_INSERT] = "INSERT INTO tournaments (name, director, variant, size, double_rr, tc_base_ms,"
                    " tc_inc_ms, tc_cap_ms, start_ms, invite_only, rated, state, created_ms,"
                    " state_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?,?)",
    [ST_T_STATE] = "UPDATE tournaments SET state = ?, state_ms = ? WHERE id = ?",
    [ST_T_ENTRANT_PUT] = "INSERT OR REPLACE INTO tournament_entrants (tournament, account,"
                         " status, idx, at_ms, played_at) VALUES (?,?,?,?,?,?)",
    [ST_T_ENTRANT_DEL] = "DELETE FROM tournament_entrants WHERE tournament = ? AND account = ?",
    [ST_T_ENTRANT_IDX] = "UPDATE tournament_entrants SET idx = ? WHERE tournament = ?"
                         " AND account = ?",
    [ST_T_GAME_INSERT] = "INSERT INTO tournament_games (tournament, game, round, p0, p1, p2)"
                         " VALUES (?,?,?,?,?,?)",
    [ST_T_GAME_RESULT] = "UPDATE tournament_games SET rank0 = ?, rank1 = ?, rank2 = ?"
                         " WHERE game = ?",
    [ST_T_ALL] = "SELECT t.id, t.name, t.director, a.username, t.variant, t.size, t.double_rr,"
                 " t.tc_base_ms, t.tc_inc_ms, t.tc_cap_ms, t.start_ms, t.invite_only, t.rated,"
                 " t.state, t.created_ms, t.state_ms FROM tournaments t"
                 " JOIN accounts a ON a.id = t.director ORDER BY t.id",
    [ST_T_ENTRANTS] = "SELECT e.tournament, e.account, a.username, e.status, e.idx, e.at_ms,"
                      " e.played_at FROM tournament_entrants e JOIN accounts a"
                      " ON a.id = e.account ORDER BY e.tournament, e.at_ms, e.account",
    [ST_T_GAMES] = "SELECT tournament, game, round, p0, p1, p2, rank0, rank1, rank2"
                   " FROM tournament_games ORDER BY tournament, round, game",
};

const char *db_sql(enum db_stmt which)
{
    return stmt_sql[which];
}

sqlite3_stmt *db_use(sqlite3_stmt *const *set, enum db_stmt which)
{
    sqlite3_stmt *st = set[which];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

int db_run(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : STORE_EDB;
}

char *db_col_dup(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL
               ? NULL
               : strdup((const char *)sqlite3_column_text(st, col));
}

rules_reason db_reason(const unsigned char *name)
{
    for (int r = 0; r < RULES_REASON_COUNT; r++)
        if (name && strcmp((const char *)name, rules_reason_name((rules_reason)r)) == 0)
            return (rules_reason)r;
    return RULES_REASON_NONE;
}

/* The loop connection's last error into why; returns STORE_EDB. */
static int db_error(store *s, char *why, size_t whylen, const char *what)
{
    rules_why(why, whylen, "%s: %s", what, sqlite3_errmsg(s->db));
    return STORE_EDB;
}

/* ------------------------------------------------------------------------ */
/* Errors and small accessors */

/* One row per error of the X list: its value, code and sentence. */
static const struct {
    int value;
    const char *code, *text;
} store_errs[] = {
#define STORE_ERR_ROW(name, value, code, text) {value, code, text},
    STORE_ERRORS(STORE_ERR_ROW)
#undef STORE_ERR_ROW
};

static int err_row(int err)
{
    for (size_t i = 0; i < sizeof store_errs / sizeof *store_errs; i++)
        if (store_errs[i].value == err)
            return (int)i;
    return -1;
}

/* Errors of the rules core pass through (they share the range below 0). */
const char *store_err_code(int err)
{
    int i = err_row(err);
    return i >= 0 ? store_errs[i].code : rules_err_code(err);
}

const char *store_err_text(int err)
{
    int i = err_row(err);
    return i >= 0 ? store_errs[i].text : rules_err_text(err);
}

static int64_t wall_ms(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t store_now(store *s)
{
    return s->now_fn(s->now_arg);
}

int64_t store_memory_bytes(void)
{
    return (int64_t)sqlite3_memory_used();
}

int store_schema_version(store *s)
{
    return s->version;
}

uv_loop_t *store_loop(store *s)
{
    return s->loop;
}

bool store_closing(store *s)
{
    return s->closing;
}

/* ------------------------------------------------------------------------ */
/* Migrations */

static int user_version(sqlite3 *db, int *v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    int rc = sqlite3_step(st);
    *v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : STORE_EDB;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A whole file as a malloc'd string, or NULL. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    proto_out o;
    proto_out_init(&o, 0);
    char chunk[4096];
    size_t n;
    while (!o.oom && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        proto_out_append(&o, chunk, n);
    fclose(f);
    if (o.oom) {
        proto_out_free(&o);
        return NULL;
    }
    return o.buf;
}

/* Apply migrations_dir/NNNN_*.sql above the current version, each in a
 * transaction that also sets user_version. Numbers must be 1, 2, 3, ... */
static int migrate(store *s, const char *dir, char *why, size_t whylen)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        rules_why(why, whylen, "cannot open migrations directory %s: %s", dir, strerror(errno));
        return STORE_EDB;
    }
    char *names[1000];
    int n = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1000) {
        size_t l = strlen(e->d_name);
        if (l > 9 && strcmp(e->d_name + l - 4, ".sql") == 0 &&
            strspn(e->d_name, "0123456789") == 4 && e->d_name[4] == '_')
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);

    int have;
    if (user_version(s->db, &have) < 0) {
        err = db_error(s, why, whylen, "reading the schema version");
        goto out_free_names;
    }
    for (int i = 0; i < n; i++)
        if (atoi(names[i]) != i + 1) {
            rules_why(why, whylen, "migration %s/%s is out of sequence", dir, names[i]);
            err = STORE_EDB;
            goto out_free_names;
        }
    if (have > n) {
        rules_why(why, whylen,
                  "the database has schema version %d but this server knows "
                  "only up to %d: it was written by a newer server; refusing "
                  "to open it",
                  have, n);
        err = STORE_ETOO_NEW;
        goto out_free_names;
    }
    for (int i = have; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *sql = read_file(path);
        if (sql == NULL) {
            rules_why(why, whylen, "cannot read %s", path);
            err = STORE_EDB;
            goto out_free_names;
        }
        char tail[64];
        snprintf(tail, sizeof tail, ";\nPRAGMA user_version = %d;", i + 1);
        char *errmsg = NULL;
        int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, &errmsg);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, sql, NULL, NULL, &errmsg);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, tail, NULL, NULL, &errmsg);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, &errmsg);
        free(sql);
        if (rc != SQLITE_OK) {
            rules_why(why, whylen, "migration %s failed: %s", names[i], errmsg ? errmsg : "?");
            sqlite3_free(errmsg);
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            err = STORE_EDB;
            goto out_free_names;
        }
    }
    s->version = n;
out_free_names:
    for (int i = 0; i < n; i++)
        free(names[i]);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Opening and closing */

/* Checkpoints run on the thread pool with their own connection, so that a
 * commit only appends to the WAL and fsyncs it; the writer's connection
 * counts the WAL's pages for them. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((store *)arg)->wal_pages = pages;
    return SQLITE_OK;
}

/* One server per database: an exclusive flock on "<path>.lock". flock, not
 * fcntl: SQLite holds fcntl locks on the database itself, and those are per
 * process and dropped when any descriptor of the file closes. The lock goes
 * with the process (even after kill -9); the file stays, holding the pid of
 * its last owner for the message. */
static int db_lock(store *s, const char *path, char *why, size_t whylen)
{
    char lp[4096];
    if (snprintf(lp, sizeof lp, "%s.lock", path) >= (int)sizeof lp) {
        rules_why(why, whylen, "%s: the path is too long", path);
        return STORE_EBAD_ARG;
    }
    s->lock_fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->lock_fd < 0) {
        rules_why(why, whylen, "cannot open the lock file %s: %s", lp, strerror(errno));
        return STORE_EDB;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        char pid[24] = "";
        ssize_t n = pread(s->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(s->lock_fd);
        s->lock_fd = -1;
        if (e == EWOULDBLOCK) {
            rules_why(why, whylen,
                      "the database is in use by another server (pid %s holds %s); "
                      "one server per database",
                      pid[0] ? pid : "?", lp);
            return STORE_ELOCKED;
        }
        rules_why(why, whylen, "cannot lock %s: %s", lp, strerror(e));
        return STORE_EDB;
    }
    char pid[24];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    /* The pid is only for the message: its failure is no error. */
    if (ftruncate(s->lock_fd, 0) == 0 && pwrite(s->lock_fd, pid, (size_t)n, 0) < 0)
        pid[0] = '\0';
    return 0;
}

/* PRAGMA quick_check before anything writes to the file (the pragmas of
 * db_open do): a corrupt file is refused as it is. Its first complaint goes
 * into why. */
static int db_check(store *s, const char *path, char *why, size_t whylen)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        rules_why(why, whylen, "%s cannot be read as a database (%s); refusing to open it", path,
                  sqlite3_errmsg(s->db));
        return STORE_ECORRUPT;
    }
    rc = sqlite3_step(st);
    const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    int err = 0;
    if (res == NULL || strcmp(res, "ok") != 0) {
        /* Its first complaint, on one line. */
        char first[160];
        snprintf(first, sizeof first, "%s", res ? res : sqlite3_errmsg(s->db));
        for (char *p = first; *p; p++)
            if (*p == '\n')
                *p = ' ';
        rules_why(why, whylen,
                  "%s is corrupt (quick_check: %s); refusing to open it: restore a "
                  "backup (the file was not changed)",
                  path, first);
        err = STORE_ECORRUPT;
    }
    sqlite3_finalize(st);
    return err;
}

/* The three connections with their settings and the statement table on the
 * loop's and the writer's; migrations on the loop's. */
static int db_open(store *s, const char *path, const char *dir, unsigned busy_ms, char *why,
                   size_t whylen)
{
    pages_init();
    int err = db_lock(s, path, why, whylen);
    if (err < 0)
        return err;
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        return db_error(s, why, whylen, path);
    sqlite3_busy_timeout(s->db, (int)busy_ms);
    if ((err = db_check(s, path, why, whylen)) < 0)
        return err;
    char *errmsg = NULL;
    if (sqlite3_exec(s->db,
                     "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                     " PRAGMA foreign_keys = ON;",
                     NULL, NULL, &errmsg) != SQLITE_OK) {
        rules_why(why, whylen, "%s: %s", path, errmsg ? errmsg : "?");
        sqlite3_free(errmsg);
        return STORE_EDB;
    }
    err = migrate(s, dir, why, whylen);
    if (err < 0)
        return err;
    /* The moves of many games touch many pages: keep them cached (64 MiB). */
    sqlite3_exec(s->db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
    if (sqlite3_open_v2(path, &s->ckpt_db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_exec(s->ckpt_db, "PRAGMA synchronous = FULL", NULL, NULL, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(s->ckpt_db, 100);
        /* Counted on the writer's connection only (the thread). */
        sqlite3_wal_autocheckpoint(s->db, 0);
    } else {
        /* Fall back to checkpoints by the connections themselves. */
        sqlite3_close(s->ckpt_db);
        s->ckpt_db = NULL;
    }
    /* The writer's connection, same settings. */
    if (sqlite3_open_v2(path, &s->wdb, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(s->wdb,
                     "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
                     " PRAGMA cache_size = -65536",
                     NULL, NULL, NULL) != SQLITE_OK) {
        rules_why(why, whylen, "%s: %s", path, sqlite3_errmsg(s->wdb));
        return STORE_EDB;
    }
    sqlite3_busy_timeout(s->wdb, (int)busy_ms);
    if (s->ckpt_db != NULL) {
        sqlite3_wal_autocheckpoint(s->wdb, 0);
        sqlite3_wal_hook(s->wdb, wal_hook, s);
    }
    for (int i = 0; i < ST_COUNT; i++)
        if (stmt_sql[i] == NULL ||
            sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                               NULL) != SQLITE_OK ||
            sqlite3_prepare_v3(s->wdb, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->wst[i],
                               NULL) != SQLITE_OK)
            return db_error(s, why, whylen, stmt_sql[i] ? stmt_sql[i] : "a statement");
    return 0;
}

void db_free(store *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->st[i]);
        sqlite3_finalize(s->wst[i]);
    }
    if (s->has_writer) {
        uv_cond_destroy(&s->cv);
        uv_mutex_destroy(&s->mu);
    }
    sqlite3_close(s->ckpt_db);
    sqlite3_close(s->wdb);
    sqlite3_close(s->db);
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* after the connections: the next server may start */
    mem_free(s);
    ratings_free(s);
    free(s->ops);
    free(s->path);
    free(s);
}

int store_open(store **out, uv_loop_t *loop, const char *path, const store_options *opt, char *why,
               size_t whylen)
{
    store_options o = opt ? *opt : (store_options){0};
    const char *dir = o.migrations_dir;
    if (dir == NULL)
        dir = getenv("CHAMELEON_MIGRATIONS");
    if (dir == NULL)
        dir = "migrations";

    store *s = calloc(1, sizeof *s);
    if (s == NULL)
        return STORE_ENOMEM;
    s->loop = loop;
    s->group_ms = o.group_ms ? o.group_ms : 1;
    s->now_fn = o.now_ms ? o.now_ms : wall_ms;
    s->now_arg = o.now_arg;
    s->lock_fd = -1;
    s->path = strdup(path);
    s->retries = o.retries == 0 ? STORE_RETRIES : o.retries >= STORE_NO_RETRY ? 0 : o.retries;
    s->retry_ms = o.retry_ms ? o.retry_ms : STORE_RETRY_MS;
    int err = db_open(s, path, dir, o.busy_ms ? o.busy_ms : 2000, why, whylen);
    if (err == 0) {
        err = games_load(s);
        if (err == 0)
            err = corr_load_vacations(s);
        if (err >= 0)
            err = ratings_load(s);
        if (err < 0)
            db_error(s, why, whylen, "loading games in progress");
    }
    if (err < 0) {
        db_free(s);
        return err;
    }
    queue_start(s);
    *out = s;
    return 0;
}

void store_close(store *s)
{
    if (s == NULL)
        return;
    /* Callbacks may queue more (a conditional reply, the next move). */
    for (int round = 0; round < 16 && s->nops > 0; round++)
        store_flush(s);
    s->closing = true;
    queue_stop(s);
}

/* ------------------------------------------------------------------------ */
/* Online backup (a separate process: chameleon backup FILE). */

/* fsync the file or directory at path. */
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int store_backup(const char *path, const char *dest, char *why, size_t whylen)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.partial", dest) >= (int)sizeof tmp) {
        rules_why(why, whylen, "path too long: %s", dest);
        return STORE_EDB;
    }
    unlink(tmp);
    sqlite3 *src = NULL, *dst = NULL;
    int err = STORE_EDB;
    /* Read only, and never the server's "<db>.lock": in WAL mode a reader
     * sees the last commit and the writer goes on meanwhile. */
    if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        rules_why(why, whylen, "cannot open %s: %s", path, src ? sqlite3_errmsg(src) : "no memory");
        goto out_close;
    }
    sqlite3_busy_timeout(src, 10000);
    if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        rules_why(why, whylen, "cannot create %s: %s", tmp,
                  dst ? sqlite3_errmsg(dst) : "no memory");
        goto out_close;
    }
    /* One step for every page: one read transaction, one snapshot. */
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
    if (b == NULL) {
        rules_why(why, whylen, "cannot back up %s: %s", path, sqlite3_errmsg(dst));
        goto out_close;
    }
    int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        rules_why(why, whylen, "backing up %s failed: %s", path, sqlite3_errstr(rc));
        goto out_close;
    }
    /* The copy is checked before it takes the name asked for. */
    sqlite3_stmt *st = NULL;
    char res[160] = "";
    if (sqlite3_prepare_v2(dst, "PRAGMA integrity_check(1)", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(res, sizeof res, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (strcmp(res, "ok") != 0) {
        rules_why(why, whylen, "the copy fails integrity_check: %s", res[0] ? res : "no answer");
        goto out_close;
    }
    err = 0;
out_close:
    sqlite3_close(src);
    if (dst != NULL && sqlite3_close(dst) != SQLITE_OK && err == 0) {
        rules_why(why, whylen, "cannot close %s", tmp);
        err = STORE_EDB;
    }
    if (err == 0 && (sync_path(tmp) < 0 || rename(tmp, dest) < 0)) {
        rules_why(why, whylen, "cannot move %s to %s: %s", tmp, dest, strerror(errno));
        err = STORE_EDB;
    }
    if (err == 0) {
        /* The rename is durable once its directory is. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", dest);
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            snprintf(dir, sizeof dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        sync_path(dir);
    } else {
        unlink(tmp);
    }
    return err;
}
