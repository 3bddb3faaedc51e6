/*
 * store_db.c - the store's engine-neutral core: the statement table (every
 * SQL statement of the server, prepared once on the loop's and the
 * writer's connection; one table per engine, chosen by the database
 * target), the migrations driver (migrations/<engine>/NNNN_*.sql), errors,
 * store_open and store_close. What only one engine has (SQLite: the lock
 * file, quick_check, pragmas, checkpoints, backup) is in its own module
 * (store_lite.c). See store_impl.h.
 *
 * Before anything is written, store_open takes the database's lock (one
 * server per database) and checks it (SQLite: PRAGMA quick_check): two
 * servers on one database would fail each other's writes, and a corrupt
 * file must be refused, never written to.
 */
#include "store_impl.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto_out.h"

/* ------------------------------------------------------------------------ */
/* The statement table, once for both engines: SQLite's SQL text ("?" or
 * "?N" parameters). PostgreSQL runs the same text with "$N" for each
 * parameter, but where the dialects differ: store_sql_pg.c holds those
 * (db_sql_pg), and the statements of node mode, PostgreSQL's alone. */

static const char *const stmt_sql_sqlite[ST_COUNT] = {
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
    [ST_IN_PROGRESS] = "SELECT id FROM games WHERE finished = 0 AND set_aside IS NULL ORDER BY id",
    [ST_MAX_ID] = "SELECT coalesce(max(id), 0) FROM games",
    [ST_VAC_SELECT] = "SELECT vacation_from_ms, vacation_until_ms, vacation_year,"
                      " vacation_used FROM accounts WHERE id = ?",
    [ST_VAC_UPDATE] = "UPDATE accounts SET vacation_from_ms = ?, vacation_until_ms = ?,"
                      " vacation_year = ?, vacation_used = ? WHERE id = ?",
    [ST_VAC_ACTIVE] = "SELECT id, vacation_from_ms, vacation_until_ms FROM accounts"
                      " WHERE vacation_until_ms > ?",
    [ST_ACCOUNT_INSERT] = "INSERT INTO accounts (username, pwhash, created_ms) VALUES (?,?,?)"
                          " ON CONFLICT DO NOTHING RETURNING id",
    [ST_ACCOUNT_BY_NAME] = "SELECT id, username, pwhash FROM accounts WHERE username = ?",
    [ST_ACCOUNT_NAME] = "SELECT username FROM accounts WHERE id = ?",
    [ST_ACCOUNT_GAMES] = "SELECT g.id, g.variant, g.kind, g.finished, g.to_move, g.deadline_ms,"
                         " g.reason, p.seat, p.outcome, g.nmoves, g.created_ms, g.finished_ms"
                         " FROM game_players p JOIN games g ON g.id = p.game"
                         " WHERE p.account = ? ORDER BY g.id DESC",
    [ST_LOGIN_INSERT] = "INSERT INTO sessions (token_hash, account, created_ms, expires_ms, agent)"
                        " VALUES (?,?,?,?,?)",
    [ST_SESSION_PURGE] = "DELETE FROM sessions WHERE account = ? AND expires_ms <= ?",
    [ST_LOGIN_FIND] = "SELECT a.id, a.username FROM sessions s JOIN accounts a"
                      " ON a.id = s.account WHERE s.token_hash = ? AND s.expires_ms > ?",
    [ST_LOGIN_DELETE] = "DELETE FROM sessions WHERE token_hash = ?",
    [ST_PREFS_GET] = "SELECT json FROM prefs WHERE account = ?",
    [ST_PREFS_PUT] = "INSERT OR REPLACE INTO prefs (account, json, updated_ms) VALUES (?,?,?)",
    [ST_LESSONS_GET] = "SELECT json FROM lessons WHERE account = ?",
    /* An upsert both engines read alike. */
    [ST_LESSONS_PUT] = "INSERT INTO lessons (account, json, updated_ms) VALUES (?,?,?)"
                       " ON CONFLICT (account) DO UPDATE SET json = excluded.json,"
                       " updated_ms = excluded.updated_ms",
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
                   " AND (?8 = 1 OR g.reason IS NULL OR g.reason <> 'aborted')"
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
    [ST_LOGINS_OF] = "SELECT token_hash, created_ms, expires_ms, agent FROM sessions"
                     " WHERE account = ? AND expires_ms > ? ORDER BY created_ms DESC LIMIT 50",
    [ST_LOGIN_END_ONE] = "DELETE FROM sessions WHERE account = ? AND token_hash = ?",
    [ST_LOGINS_END_OTHERS] = "DELETE FROM sessions WHERE account = ? AND token_hash <> ?",
    [ST_TOTP_GET] = "SELECT secret, enabled, last_step, (SELECT count(*) FROM recovery_codes r"
                    " WHERE r.account = t.account) FROM totp t WHERE t.account = ?",
    /* A pending secret replaces a pending one, never one in force. */
    [ST_TOTP_PENDING] = "INSERT INTO totp (account, secret, enabled, last_step, created_ms)"
                        " VALUES (?, ?, 0, 0, ?) ON CONFLICT (account) DO UPDATE SET"
                        " secret = excluded.secret, created_ms = excluded.created_ms"
                        " WHERE totp.enabled = 0",
    [ST_TOTP_ENABLE] =
        "UPDATE totp SET enabled = 1, last_step = ? WHERE account = ? AND enabled = 0",
    [ST_TOTP_USE] = "UPDATE totp SET last_step = ? WHERE account = ? AND enabled = 1"
                    " AND last_step < ?",
    [ST_TOTP_DELETE] = "DELETE FROM totp WHERE account = ?",
    [ST_RECOVERY_CLEAR] = "DELETE FROM recovery_codes WHERE account = ?",
    [ST_RECOVERY_INSERT] = "INSERT INTO recovery_codes (account, code_hash) VALUES (?, ?)",
    [ST_RECOVERY_USE] = "DELETE FROM recovery_codes WHERE account = ? AND code_hash = ?",
    [ST_MAIL_ADDRESS_DELETE] = "UPDATE mail_addresses SET address = NULL WHERE account = ?",
    [ST_MAIL_TOKENS_DELETE] = "DELETE FROM mail_tokens WHERE account = ?",
    [ST_MAIL_OUTBOX_FORGET] = "DELETE FROM mail_outbox WHERE account = ?",
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
                    " state_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?,?) RETURNING id",
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
    /* A seat's games in progress (store_seated_games): an account's; a
     * guest's by its seat key, where the room wrote it in the options
     * ({"seat_keys":["..",".."]}, by seat), the LIKE sparing the JSON. */
    [ST_SEATED_ACCOUNT] = "SELECT g.id FROM games g WHERE g.finished = 0 AND g.id IN"
                          " (SELECT p.game FROM game_players p WHERE p.account = ?1"
                          " AND NOT EXISTS (SELECT 1 FROM leaves l WHERE l.game = p.game"
                          " AND l.player = p.seat)) ORDER BY g.created_ms, g.id LIMIT ?2",
    [ST_SEATED_GUEST] = "SELECT g.id FROM games g WHERE g.finished = 0"
                        " AND g.options LIKE '%\"' || ?1 || '\"%' AND EXISTS (SELECT 1"
                        " FROM json_each(g.options, '$.seat_keys') k JOIN game_players p"
                        " ON p.game = g.id AND p.seat = k.key WHERE k.value = ?1"
                        " AND p.account IS NULL AND NOT EXISTS (SELECT 1 FROM leaves l"
                        " WHERE l.game = g.id AND l.player = p.seat))"
                        " ORDER BY g.created_ms, g.id LIMIT ?2",
    /* Start-up's restore and `chameleon set-aside` (store_games.c). */
    [ST_SET_ASIDE] = "UPDATE games SET set_aside = ? WHERE id = ? AND finished = 0",
    [ST_SET_ASIDE_CLEAR] =
        "UPDATE games SET set_aside = NULL WHERE id = ? AND set_aside IS NOT NULL",
    [ST_SET_ASIDE_LIST] = "SELECT id, variant, set_aside FROM games WHERE set_aside IS NOT NULL"
                          " ORDER BY id",
    /* ST_LEASE_NEW .. ST_TURNS_OF: node mode, PostgreSQL only (NULL
     * here: db_open prepares none of them on SQLite). */
};

/* SQLite's text with "$N" for the N-th "?" and for "?N" (no statement
 * has a "?" inside a quoted string: test_sql_pg prepares every one). */
static char *dollars(const char *sql)
{
    char *out = malloc(strlen(sql) * 3 + 1), *o = out;
    if (out == NULL)
        return NULL;
    int n = 0;
    for (const char *p = sql; *p; p++) {
        if (*p != '?') {
            *o++ = *p;
            continue;
        }
        if (p[1] >= '0' && p[1] <= '9') {
            *o++ = '$';
            continue;
        }
        o += sprintf(o, "$%d", ++n);
    }
    *o = '\0';
    return out;
}

static char *pg_text[ST_COUNT];
static pthread_once_t pg_once = PTHREAD_ONCE_INIT;

/* Every shared statement's PostgreSQL text, once per process (kept till
 * its end). */
static void pg_translate(void)
{
    for (int i = 0; i < ST_COUNT; i++)
        if (db_sql_pg((enum db_stmt)i) == NULL && stmt_sql_sqlite[i] != NULL)
            pg_text[i] = dollars(stmt_sql_sqlite[i]);
}

const char *db_sql(const store *s, enum db_stmt which)
{
    return db_sql_of(s->engine, which);
}

const char *db_sql_of(sql_engine engine, enum db_stmt which)
{
    if (engine != SQL_POSTGRES)
        return stmt_sql_sqlite[which];
    const char *own = db_sql_pg(which);
    if (own != NULL)
        return own;
    pthread_once(&pg_once, pg_translate);
    return pg_text[which];
}

sql_stmt *db_use(sql_stmt *const *set, enum db_stmt which)
{
    sql_stmt *st = set[which];
    sql_reset(st);
    sql_clear_bindings(st);
    return st;
}

int db_run(sql_stmt *st)
{
    int rc = sql_step(st);
    sql_reset(st);
    return rc == SQL_DONE ? 0 : STORE_EDB;
}

char *db_col_dup(sql_stmt *st, int col)
{
    return sql_column_null(st, col) ? NULL : strdup(sql_column_text(st, col));
}

rules_reason db_reason(const char *name)
{
    for (int r = 0; r < RULES_REASON_COUNT; r++)
        if (name && strcmp(name, rules_reason_name((rules_reason)r)) == 0)
            return (rules_reason)r;
    return RULES_REASON_NONE;
}

/* The loop connection's last error into why; returns STORE_EDB. */
static int db_error(store *s, char *why, size_t whylen, const char *what)
{
    rules_why(why, whylen, "%s: %s", what, sql_errmsg(s->db));
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
    return lite_memory_bytes();
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

int db_connect(store *s, sql_conn **out, unsigned busy_ms, char *why, size_t whylen)
{
    if (s->engine == SQL_SQLITE)
        return lite_connect(s->path, 0, busy_ms, "PRAGMA synchronous = FULL", out, why, whylen);
    return pg_connect(s, busy_ms, out, why, whylen);
}

/* The schema version recorded in the database (SQLite: user_version). */
static int version_get(store *s, int *v)
{
    *v = 0;
    if (s->engine == SQL_SQLITE)
        return lite_version_get(s->db, v);
    return pg_version_get(s->db, v);
}

int db_version_set(store *s, sql_conn *c, int v)
{
    if (s->engine == SQL_SQLITE)
        return lite_version_set(c, v);
    return pg_version_set(c, v);
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

/* Apply dir/NNNN_*.sql above the current version, each in a transaction
 * that also records the version. Numbers must be 1, 2, 3, ... */
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
    if (version_get(s, &have) < 0) {
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
        char path[4096 + 258]; /* dir, "/", a file name */
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *sql = read_file(path);
        if (sql == NULL) {
            rules_why(why, whylen, "cannot read %s", path);
            err = STORE_EDB;
            goto out_free_names;
        }
        int rc = sql_exec(s->db, db_sql(s, ST_BEGIN));
        if (rc == SQL_OK)
            rc = sql_exec(s->db, sql);
        if (rc == SQL_OK)
            rc = db_version_set(s, s->db, i + 1) < 0 ? SQL_ERROR : SQL_OK;
        if (rc == SQL_OK)
            rc = sql_exec(s->db, db_sql(s, ST_COMMIT));
        free(sql);
        if (rc != SQL_OK) {
            rules_why(why, whylen, "migration %s failed: %s", names[i], sql_errmsg(s->db));
            sql_exec(s->db, db_sql(s, ST_ROLLBACK));
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

/* The loop's connection, migrations on it, then the writer's connection
 * and the statement table on both. root: the migrations folder, holding
 * one folder per engine. */
static int db_open(store *s, const char *path, const char *root, unsigned busy_ms,
                   bool new_database, char *why, size_t whylen)
{
    /* The engine's own set-up: its lock, its checks, its settings. */
    int err;
    if (s->engine == SQL_SQLITE)
        err = lite_open(s, path, busy_ms, new_database, why, whylen);
    else
        err = pg_open(s, path, busy_ms, why, whylen);
    if (err < 0)
        return err;
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s/%s", root,
                 s->engine == SQL_SQLITE ? "sqlite" : "postgresql") >= (int)sizeof dir) {
        rules_why(why, whylen, "%s: the path is too long", root);
        return STORE_EBAD_ARG;
    }
    err = migrate(s, dir, why, whylen);
    if (err < 0)
        return err;
    if (s->engine == SQL_SQLITE)
        err = lite_open_writer(s, path, busy_ms, why, whylen);
    else
        err = pg_open_writer(s, path, busy_ms, why, whylen);
    if (err < 0)
        return err;
    for (int i = 0; i < ST_COUNT; i++) {
        const char *sql = db_sql(s, (enum db_stmt)i);
        if (sql == NULL && s->engine == SQL_SQLITE && i >= ST_LEASE_NEW)
            continue; /* node mode's: PostgreSQL only */
        if (sql == NULL || sql_prepare(s->db, sql, &s->st[i]) < 0 ||
            sql_prepare(s->wdb, sql, &s->wst[i]) < 0)
            return db_error(s, why, whylen, sql ? sql : "a statement");
    }
    return 0;
}

void db_free(store *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        sql_finalize(s->st[i]);
        sql_finalize(s->wst[i]);
    }
    if (s->has_writer) {
        uv_cond_destroy(&s->cv);
        uv_mutex_destroy(&s->mu);
    }
    if (s->engine == SQL_SQLITE)
        lite_close(s); /* the connections, then the lock */
    sql_close(s->ckpt_db);
    sql_close(s->wdb);
    sql_close(s->db);
    lease_free(s);
    mem_free(s);
    ratings_free(s);
    free(s->node);
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
    s->engine = sql_engine_of(path);
    s->retries = o.retries == 0 ? STORE_RETRIES : o.retries >= STORE_NO_RETRY ? 0 : o.retries;
    s->retry_ms = o.retry_ms ? o.retry_ms : STORE_RETRY_MS;
    s->lease_ttl_ms = o.lease_ttl_ms ? o.lease_ttl_ms : STORE_LEASE_TTL_MS;
    int err = 0;
    if (o.node != NULL) {
        size_t len = strlen(o.node);
        if (s->engine != SQL_POSTGRES) {
            rules_why(why, whylen,
                      "several nodes need PostgreSQL: --node wants --db postgresql://...");
            err = STORE_EBAD_ARG;
        } else if (len == 0 || len > 63 ||
                   strspn(o.node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "0123456789._-") != len) {
            rules_why(why, whylen, "a node's name is 1 to 63 letters, digits, '.', '_' or '-'");
            err = STORE_EBAD_ARG;
        } else if ((s->node = strdup(o.node)) == NULL) {
            err = STORE_ENOMEM;
        }
    }
    if (err == 0)
        err = db_open(s, path, dir, o.busy_ms ? o.busy_ms : 2000, o.new_database, why, whylen);
    if (err == 0 && s->node)
        err = lease_open(s, why, whylen);
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

void store_serving(store *s)
{
    s->serving = true;
}

sql_stmt *const *db_loop(store *s)
{
#ifdef CHAMELEON_CHECKS
    if (s->serving && !s->resyncing) {
        log_kv(LOG_ERROR, "store: the loop used its own connection while serving",
               "why=\"a synchronous call: it must be queued (queue_call)\"");
        abort();
    }
#endif
    return s->st;
}

void store_close(store *s)
{
    if (s == NULL)
        return;
    s->serving = false;
    store_stop_soon(s);
    atomic_store(&s->stopping, true);
    /* Callbacks may queue more (a conditional reply, the next move). A
     * batch still out (a timer's: a lease renewal) is waited for too:
     * its answer would not come once the handles are closed. */
    for (int round = 0; round < 16 && (s->nops > 0 || s->busy); round++)
        store_flush(s);
    s->closing = true;
    queue_stop(s);
}
