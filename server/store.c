/*
 * store.c - SQLite storage: migrations, the grouped durable write queue,
 * games in memory (turns, deadlines, conditional lines), restore, archive,
 * correspondence clocks, timeouts and vacation. See store.h for contracts.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgn.h"

#define STORE_STMTS(X)                                                                             \
    X(BEGIN, "BEGIN IMMEDIATE")                                                                    \
    X(COMMIT, "COMMIT")                                                                            \
    X(ROLLBACK, "ROLLBACK")                                                                        \
    X(GAME_INSERT, "INSERT INTO games (id, variant, position, kind, rated, nplayers,"              \
                   " tc_base_ms, tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms,"         \
                   " nmoves, to_move, deadline_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?)")        \
    X(PLAYER_INSERT, "INSERT INTO game_players (game, seat, account, name, clock_ms)"              \
                     " VALUES (?,?,?,?,?)")                                                        \
    X(MOVE_INSERT, "INSERT INTO moves (game, ply, player, text, at_ms, clock0, clock1,"            \
                   " clock2) VALUES (?,?,?,?,?,?,?,?)")                                            \
    X(GAME_ADVANCE, "UPDATE games SET nmoves = ?, to_move = ?, last_move_ms = ?,"                  \
                    " deadline_ms = ? WHERE id = ?")                                               \
    X(LEAVE_INSERT, "INSERT INTO leaves (game, player, after_ply, reason, at_ms)"                  \
                    " VALUES (?,?,?,?,?)")                                                         \
    X(PLAYER_OUTCOME, "UPDATE game_players SET outcome = ? WHERE game = ? AND seat = ?")           \
    X(GAME_FINISH, "UPDATE games SET finished = 1, to_move = -1, deadline_ms = 0,"                 \
                   " winner = ?, reason = ?, finished_ms = ? WHERE id = ?")                        \
    X(DEADLINE_SET, "UPDATE games SET deadline_ms = ? WHERE id = ?")                               \
    X(COND_DELETE, "DELETE FROM cond_lines WHERE game = ? AND player = ?")                         \
    X(COND_INSERT, "INSERT INTO cond_lines (game, player, idx, line) VALUES (?,?,?,?)")            \
    X(COND_SELECT, "SELECT player, line FROM cond_lines WHERE game = ? ORDER BY player, idx")      \
    X(GAME_SELECT, "SELECT variant, position, kind, rated, nplayers, tc_base_ms,"                  \
                   " tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms, nmoves,"             \
                   " to_move, deadline_ms, finished, winner, reason, finished_ms"                  \
                   " FROM games WHERE id = ?")                                                     \
    X(PLAYERS_SELECT, "SELECT seat, account, name, clock_ms, outcome FROM game_players"            \
                      " WHERE game = ? ORDER BY seat")                                             \
    X(MOVES_SELECT, "SELECT ply, player, text, at_ms, clock0, clock1, clock2 FROM moves"           \
                    " WHERE game = ? ORDER BY ply")                                                \
    X(LEAVES_SELECT, "SELECT player, after_ply, reason, at_ms FROM leaves WHERE game = ?"          \
                     " ORDER BY after_ply, at_ms")                                                 \
    X(IN_PROGRESS, "SELECT id FROM games WHERE finished = 0 ORDER BY id")                          \
    X(DEADLINES, "SELECT id FROM games WHERE finished = 0 AND kind = 1"                            \
                 " AND deadline_ms <= ? ORDER BY deadline_ms")                                     \
    X(MAX_ID, "SELECT coalesce(max(id), 0) FROM games")                                            \
    X(VAC_SELECT, "SELECT vacation_from_ms, vacation_until_ms, vacation_year,"                     \
                  " vacation_used FROM accounts WHERE id = ?")                                     \
    X(VAC_UPDATE, "UPDATE accounts SET vacation_from_ms = ?, vacation_until_ms = ?,"               \
                  " vacation_year = ?, vacation_used = ? WHERE id = ?")                            \
    X(VAC_ACTIVE, "SELECT id, vacation_from_ms, vacation_until_ms FROM accounts"                   \
                  " WHERE vacation_until_ms > ?")                                                  \
    X(ACCOUNT_BY_NAME, "SELECT id, username FROM accounts WHERE username = ?")                     \
    X(ACCOUNT_GAMES, "SELECT g.id, g.variant, g.kind, g.finished, g.to_move, g.deadline_ms,"       \
                     " g.reason, p.seat, p.outcome, g.nmoves, g.created_ms, g.finished_ms"         \
                     " FROM game_players p JOIN games g ON g.id = p.game"                          \
                     " WHERE p.account = ? ORDER BY g.id DESC")

enum {
#define STMT_ENUM(name, sql) ST_##name,
    STORE_STMTS(STMT_ENUM)
#undef STMT_ENUM
        ST_COUNT
};

static const char *const stmt_sql[] = {
#define STMT_SQL(name, sql) sql,
    STORE_STMTS(STMT_SQL)
#undef STMT_SQL
};

/* A game in progress, kept in memory: what the queue, the turn list, the
 * deadline timer and conditional moves need without a query. */
typedef struct game_mem {
    struct game_mem *next; /* hash chain */
    int64_t id;
    char variant[24];
    store_kind kind;
    int nplayers;
    int64_t account[RULES_MAX_PLAYERS];
    int64_t clock_ms[RULES_MAX_PLAYERS]; /* live clocks or corr banks */
    store_tc tc;
    int nmoves;
    int to_move;
    int64_t deadline_ms;
    int64_t last_move_ms;
    int fired_ply;                  /* timeout reported at this ply, or -1 */
    int ncond[RULES_MAX_PLAYERS];   /* conditional lines per player */
    int cond_at[RULES_MAX_PLAYERS]; /* ply of the opponent move the lines
                                       start with */
    char **cond[RULES_MAX_PLAYERS];
} game_mem;

/* The games in progress of one account (for its turn list and vacation). */
typedef struct acct_games {
    struct acct_games *next;
    int64_t account;
    game_mem **games;
    size_t n, cap;
} acct_games;

enum { ACCT_BUCKETS = 4096 };

typedef struct vacation {
    int64_t account, from_ms, until_ms;
} vacation;

enum op_type { OP_CREATE, OP_MOVE, OP_LEAVE, OP_FINISH, OP_COND };

typedef struct op {
    enum op_type type;
    int64_t game;
    store_done_cb cb;
    void *arg;
    int64_t at_ms;
    int ply, player, next;
    int64_t deadline_ms;
    int64_t clock_ms[RULES_MAX_PLAYERS];
    char text[RULES_MOVE_TEXT];
    rules_result result;
    rules_reason reason;
    store_new_game *create; /* OP_CREATE: deep copy */
    char **lines;           /* OP_COND: copy of the lines */
    int nlines;
    int64_t notify[RULES_MAX_PLAYERS]; /* accounts whose turn list changes */
} op;

struct store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    uv_loop_t *loop;
    uv_timer_t group_timer, deadline_timer;
    int open_handles;
    int works; /* thread-pool jobs still running */
    /* The writer: a thread with its own connection commits each batch, so
     * that the loop never waits for an fsync. Between batches (writer idle)
     * the loop may use wdb itself (store_flush). */
    sqlite3 *wdb;
    sqlite3_stmt *wst[ST_COUNT];
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
    sqlite3 *ckpt_db; /* used only by the checkpoint job */
    uv_work_t ckpt_work;
    bool ckpt_running;
    int wal_pages; /* frames in the WAL after the last commit */
    bool closing, broken;
    unsigned group_ms;
    int64_t (*now_fn)(void *);
    void *now_arg;
    int version;
    int64_t next_id;

    game_mem **buckets;
    size_t nbuckets, ngames;
    acct_games *accts[ACCT_BUCKETS];

    vacation *vac;
    size_t nvac, capvac;

    op *ops;
    size_t nops, capops;

    void (*turn_cb)(void *, int64_t);
    void *turn_arg;
    void (*timeout_cb)(void *, int64_t, int);
    void *timeout_arg;
};

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
int store_schema_version(store *s)
{
    return s->version;
}
struct sqlite3 *store_db(store *s)
{
    return s->db;
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
/* Games in memory */

static size_t hash_id(int64_t id, size_t n)
{
    return (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 17) % n;
}

static game_mem *game_find(store *s, int64_t id)
{
    for (game_mem *g = s->buckets[hash_id(id, s->nbuckets)]; g; g = g->next)
        if (g->id == id)
            return g;
    return NULL;
}

/* Room for element n of a growing array of elem-sized items: the array
 * (moved perhaps, *cap updated), or NULL if memory ran out (then the old
 * array is unchanged and still owned by the caller). */
static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(arr, ncap * elem);
    if (p != NULL)
        *cap = ncap;
    return p;
}

static acct_games **acct_slot(store *s, int64_t account)
{
    acct_games **pp = &s->accts[(uint64_t)account % ACCT_BUCKETS];
    while (*pp && (*pp)->account != account)
        pp = &(*pp)->next;
    return pp;
}

static int acct_add(store *s, int64_t account, game_mem *g)
{
    acct_games **pp = acct_slot(s, account);
    if (*pp == NULL) {
        *pp = calloc(1, sizeof **pp);
        if (*pp == NULL)
            return STORE_ENOMEM;
        (*pp)->account = account;
    }
    acct_games *a = *pp;
    for (size_t i = 0; i < a->n; i++)
        if (a->games[i] == g)
            return 0; /* one account in two seats */
    game_mem **games = grow(a->games, &a->cap, a->n, sizeof *games);
    if (games == NULL)
        return STORE_ENOMEM;
    a->games = games;
    a->games[a->n++] = g;
    return 0;
}

static void acct_del(store *s, int64_t account, game_mem *g)
{
    acct_games **pp = acct_slot(s, account), *a = *pp;
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->n; i++)
        if (a->games[i] == g) {
            a->games[i] = a->games[--a->n]; /* listed once (acct_add) */
            break;
        }
    if (a->n == 0) {
        *pp = a->next;
        free(a->games);
        free(a);
    }
}

static int game_insert(store *s, game_mem *g)
{
    for (int p = 0; p < g->nplayers; p++)
        if (g->account[p] != 0 && acct_add(s, g->account[p], g) < 0) {
            for (int q = 0; q < p; q++)
                acct_del(s, g->account[q], g);
            return STORE_ENOMEM;
        }
    if (s->ngames + 1 > s->nbuckets) {
        size_t n = s->nbuckets * 2;
        game_mem **b = calloc(n, sizeof *b);
        if (b == NULL)
            return STORE_ENOMEM;
        for (size_t i = 0; i < s->nbuckets; i++)
            for (game_mem *e = s->buckets[i], *nx; e; e = nx) {
                nx = e->next;
                size_t h = hash_id(e->id, n);
                e->next = b[h];
                b[h] = e;
            }
        free(s->buckets);
        s->buckets = b;
        s->nbuckets = n;
    }
    size_t h = hash_id(g->id, s->nbuckets);
    g->next = s->buckets[h];
    s->buckets[h] = g;
    s->ngames++;
    return 0;
}

static void free_lines(char **lines, int n)
{
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

static void game_mem_free(game_mem *g)
{
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        free_lines(g->cond[p], g->ncond[p]);
    free(g);
}

static void game_remove(store *s, int64_t id)
{
    game_mem **pp = &s->buckets[hash_id(id, s->nbuckets)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) {
            game_mem *g = *pp;
            *pp = g->next;
            for (int p = 0; p < g->nplayers; p++)
                acct_del(s, g->account[p], g);
            game_mem_free(g);
            s->ngames--;
            return;
        }
}

/* Every game in memory and the account index. */
static void games_free(store *s)
{
    for (size_t i = 0; s->buckets && i < s->nbuckets; i++)
        for (game_mem *g = s->buckets[i], *nx; g; g = nx) {
            nx = g->next;
            game_mem_free(g);
        }
    free(s->buckets);
    for (int i = 0; i < ACCT_BUCKETS; i++)
        for (acct_games *a = s->accts[i], *nx; a; a = nx) {
            nx = a->next;
            free(a->games);
            free(a);
        }
}

/* ------------------------------------------------------------------------ */
/* Vacation in memory: accounts on vacation now or later. */

static vacation *vac_find(store *s, int64_t account)
{
    for (size_t i = 0; i < s->nvac; i++)
        if (s->vac[i].account == account)
            return &s->vac[i];
    return NULL;
}

/* When the clock of `account` may start counting if its turn begins at now:
 * the end of its vacation if it is on one. */
static int64_t clock_start(store *s, int64_t account, int64_t now)
{
    vacation *v = account ? vac_find(s, account) : NULL;
    if (v != NULL && v->from_ms <= now && v->until_ms > now)
        return v->until_ms;
    return now;
}

/* ------------------------------------------------------------------------ */
/* Statements and migrations */

static int db_error(store *s, char *why, size_t whylen, const char *what)
{
    rules_why(why, whylen, "%s: %s", what, sqlite3_errmsg(s->db));
    return STORE_EDB;
}

static sqlite3_stmt *stmt(store *s, int which)
{
    sqlite3_stmt *st = s->st[which];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

/* A statement of the writer's connection. */
static sqlite3_stmt *wstmt(store *s, int which)
{
    sqlite3_stmt *st = s->wst[which];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

/* Run a statement that returns no rows; 0 or STORE_EDB. */
static int run(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : STORE_EDB;
}

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

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (buf == NULL)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
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
/* Loading games into memory */

static void cond_from_text(game_mem *g, int player, const char *line)
{
    if (player < 0 || player >= RULES_MAX_PLAYERS)
        return;
    char **nl = realloc(g->cond[player], (size_t)(g->ncond[player] + 1) * sizeof *nl);
    if (nl == NULL)
        return;
    g->cond[player] = nl;
    nl[g->ncond[player]] = strdup(line);
    if (nl[g->ncond[player]] != NULL)
        g->ncond[player]++;
}

static int load_mem(store *s, int64_t id);

static int load_vacations(store *s)
{
    sqlite3_stmt *st = stmt(s, ST_VAC_ACTIVE);
    sqlite3_bind_int64(st, 1, store_now(s));
    while (sqlite3_step(st) == SQLITE_ROW) {
        vacation *v = grow(s->vac, &s->capvac, s->nvac, sizeof *v);
        if (v == NULL) {
            sqlite3_reset(st);
            return STORE_ENOMEM;
        }
        s->vac = v;
        s->vac[s->nvac++] = (vacation){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                       sqlite3_column_int64(st, 2)};
    }
    sqlite3_reset(st);
    return 0;
}

static void group_cb(uv_timer_t *t);
static void maybe_checkpoint(store *s);
static void written_cb(uv_async_t *a);
static void writer_main(void *arg);
static void deadline_cb(uv_timer_t *t);

/* Checkpoints run on the thread pool with their own connection, so that a
 * commit on the loop only appends to the WAL and fsyncs it. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((store *)arg)->wal_pages = pages;
    return SQLITE_OK;
}

enum { CKPT_PAGES = 4000 };

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
    s->nbuckets = 256;
    s->buckets = calloc(s->nbuckets, sizeof *s->buckets);
    int err = STORE_EDB;
    if (s->buckets == NULL) {
        err = STORE_ENOMEM;
        goto out_free;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        err = db_error(s, why, whylen, path);
        goto out_close_db;
    }
    sqlite3_busy_timeout(s->db, 2000);
    char *errmsg = NULL;
    if (sqlite3_exec(s->db,
                     "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                     " PRAGMA foreign_keys = ON;",
                     NULL, NULL, &errmsg) != SQLITE_OK) {
        rules_why(why, whylen, "%s: %s", path, errmsg ? errmsg : "?");
        sqlite3_free(errmsg);
        goto out_close_db;
    }
    err = migrate(s, dir, why, whylen);
    if (err < 0)
        goto out_close_db;
    /* The moves of many games touch many pages: keep them cached (64 MiB). */
    sqlite3_exec(s->db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
    if (sqlite3_open_v2(path, &s->ckpt_db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_exec(s->ckpt_db, "PRAGMA synchronous = FULL", NULL, NULL, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(s->ckpt_db, 100);
        /* Counted on the writer's connection only (the thread). */
        sqlite3_wal_autocheckpoint(s->db, 0);
    } else {
        /* Fall back to checkpoints on the loop. */
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
        err = STORE_EDB;
        goto out_finalize;
    }
    sqlite3_busy_timeout(s->wdb, 2000);
    if (s->ckpt_db != NULL) {
        sqlite3_wal_autocheckpoint(s->wdb, 0);
        sqlite3_wal_hook(s->wdb, wal_hook, s);
    }
    for (int i = 0; i < ST_COUNT; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                               NULL) != SQLITE_OK ||
            sqlite3_prepare_v3(s->wdb, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->wst[i],
                               NULL) != SQLITE_OK) {
            err = db_error(s, why, whylen, stmt_sql[i]);
            goto out_finalize;
        }

    sqlite3_stmt *st = stmt(s, ST_MAX_ID);
    if (sqlite3_step(st) == SQLITE_ROW)
        s->next_id = sqlite3_column_int64(st, 0) + 1;
    sqlite3_reset(st);

    /* Every game in progress into memory. */
    int64_t *ids = NULL;
    size_t nids = 0, capids = 0;
    st = stmt(s, ST_IN_PROGRESS);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t *n = grow(ids, &capids, nids, sizeof *n);
        if (n == NULL) {
            free(ids);
            sqlite3_reset(st);
            err = STORE_ENOMEM;
            goto out_finalize;
        }
        ids = n;
        ids[nids++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    err = 0;
    for (size_t i = 0; i < nids && err == 0; i++)
        err = load_mem(s, ids[i]);
    free(ids);
    if (err == 0)
        err = load_vacations(s);
    if (err < 0) {
        db_error(s, why, whylen, "loading games in progress");
        goto out_finalize;
    }

    uv_timer_init(loop, &s->group_timer);
    uv_timer_init(loop, &s->deadline_timer);
    s->group_timer.data = s->deadline_timer.data = s;
    s->open_handles = 2;
    uv_timer_start(&s->deadline_timer, deadline_cb, 1000, 1000);
    uv_unref((uv_handle_t *)&s->deadline_timer);
    /* The writer thread; without it batches are written on the loop. */
    if (uv_mutex_init(&s->mu) == 0) {
        if (uv_cond_init(&s->cv) == 0) {
            uv_async_init(loop, &s->written, written_cb);
            s->written.data = s;
            uv_unref((uv_handle_t *)&s->written);
            s->open_handles = 3;
            s->has_writer = uv_thread_create(&s->writer, writer_main, s) == 0;
            if (!s->has_writer)
                uv_cond_destroy(&s->cv);
        }
        if (!s->has_writer)
            uv_mutex_destroy(&s->mu);
    }
    *out = s;
    return 0;

out_finalize:
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->st[i]);
        sqlite3_finalize(s->wst[i]);
    }
    sqlite3_close(s->wdb);
out_close_db:
    sqlite3_close(s->ckpt_db);
    sqlite3_close(s->db);
out_free:
    games_free(s);
    free(s->vac);
    free(s);
    return err;
}

/* ------------------------------------------------------------------------ */
/* The queue and the group commit */

static void op_free(op *o)
{
    if (o->create) {
        free((char *)o->create->variant);
        free((char *)o->create->position);
        free((char *)o->create->options);
        free(o->create);
    }
    free_lines(o->lines, o->nlines);
}

static op *op_push(store *s, enum op_type type, int64_t game)
{
    op *ops = grow(s->ops, &s->capops, s->nops, sizeof *ops);
    if (ops == NULL)
        return NULL;
    s->ops = ops;
    op *o = &s->ops[s->nops++];
    memset(o, 0, sizeof *o);
    o->type = type;
    o->game = game;
    o->at_ms = store_now(s);
    /* While a batch is out, its completion sends the queue on. */
    if (!s->busy && !uv_is_active((uv_handle_t *)&s->group_timer) && !s->closing)
        uv_timer_start(&s->group_timer, group_cb, s->group_ms, 0);
    return o;
}

static int write_op(store *s, const op *o)
{
    sqlite3_stmt *st;
    int err = 0;
    switch (o->type) {
    case OP_CREATE: {
        const store_new_game *g = o->create;
        st = wstmt(s, ST_GAME_INSERT);
        sqlite3_bind_int64(st, 1, o->game);
        sqlite3_bind_text(st, 2, g->variant, -1, SQLITE_STATIC);
        if (g->position)
            sqlite3_bind_text(st, 3, g->position, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, g->kind);
        sqlite3_bind_int(st, 5, g->rated);
        sqlite3_bind_int(st, 6, g->nplayers);
        sqlite3_bind_int64(st, 7, g->tc.base_ms);
        sqlite3_bind_int64(st, 8, g->tc.inc_ms);
        sqlite3_bind_int64(st, 9, g->tc.cap_ms);
        if (g->options)
            sqlite3_bind_text(st, 10, g->options, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 11, o->at_ms);
        sqlite3_bind_int64(st, 12, o->at_ms);
        sqlite3_bind_int(st, 13, g->to_move);
        sqlite3_bind_int64(st, 14, o->deadline_ms);
        if ((err = run(st)) < 0)
            return err;
        for (int p = 0; p < g->nplayers; p++) {
            st = wstmt(s, ST_PLAYER_INSERT);
            sqlite3_bind_int64(st, 1, o->game);
            sqlite3_bind_int(st, 2, p);
            if (g->players[p].account)
                sqlite3_bind_int64(st, 3, g->players[p].account);
            sqlite3_bind_text(st, 4, g->players[p].name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 5, o->clock_ms[p]);
            if ((err = run(st)) < 0)
                return err;
        }
        return 0;
    }
    case OP_MOVE:
        st = wstmt(s, ST_MOVE_INSERT);
        sqlite3_bind_int64(st, 1, o->game);
        sqlite3_bind_int(st, 2, o->ply);
        sqlite3_bind_int(st, 3, o->player);
        sqlite3_bind_text(st, 4, o->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, o->at_ms);
        for (int p = 0; p < RULES_MAX_PLAYERS; p++)
            sqlite3_bind_int64(st, 6 + p, o->clock_ms[p]);
        if ((err = run(st)) < 0)
            return err;
        st = wstmt(s, ST_GAME_ADVANCE);
        sqlite3_bind_int(st, 1, o->ply + 1);
        sqlite3_bind_int(st, 2, o->next);
        sqlite3_bind_int64(st, 3, o->at_ms);
        sqlite3_bind_int64(st, 4, o->deadline_ms);
        sqlite3_bind_int64(st, 5, o->game);
        return run(st);
    case OP_LEAVE:
        st = wstmt(s, ST_LEAVE_INSERT);
        sqlite3_bind_int64(st, 1, o->game);
        sqlite3_bind_int(st, 2, o->player);
        sqlite3_bind_int(st, 3, o->ply);
        sqlite3_bind_text(st, 4, rules_reason_name(o->reason), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, o->at_ms);
        if ((err = run(st)) < 0)
            return err;
        st = wstmt(s, ST_PLAYER_OUTCOME);
        sqlite3_bind_int(st, 1, RULES_OUTCOME_LOSS);
        sqlite3_bind_int64(st, 2, o->game);
        sqlite3_bind_int(st, 3, o->player);
        if ((err = run(st)) < 0)
            return err;
        st = wstmt(s, ST_GAME_ADVANCE);
        sqlite3_bind_int(st, 1, o->ply);
        sqlite3_bind_int(st, 2, o->next);
        sqlite3_bind_int64(st, 3, o->at_ms);
        sqlite3_bind_int64(st, 4, o->deadline_ms);
        sqlite3_bind_int64(st, 5, o->game);
        return run(st);
    case OP_FINISH:
        for (int p = 0; p < RULES_MAX_PLAYERS; p++) {
            st = wstmt(s, ST_PLAYER_OUTCOME);
            sqlite3_bind_int(st, 1, o->result.outcome[p]);
            sqlite3_bind_int64(st, 2, o->game);
            sqlite3_bind_int(st, 3, p);
            if ((err = run(st)) < 0)
                return err;
        }
        st = wstmt(s, ST_GAME_FINISH);
        sqlite3_bind_int(st, 1, o->result.winner);
        sqlite3_bind_text(st, 2, rules_reason_name(o->result.reason), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, o->at_ms);
        sqlite3_bind_int64(st, 4, o->game);
        if ((err = run(st)) < 0)
            return err;
        st = wstmt(s, ST_COND_DELETE);
        sqlite3_bind_int64(st, 1, o->game);
        for (int p = 0; p < RULES_MAX_PLAYERS && err == 0; p++) {
            sqlite3_bind_int(st, 2, p);
            err = run(st);
        }
        return err;
    case OP_COND:
        st = wstmt(s, ST_COND_DELETE);
        sqlite3_bind_int64(st, 1, o->game);
        sqlite3_bind_int(st, 2, o->player);
        if ((err = run(st)) < 0)
            return err;
        for (int i = 0; i < o->nlines; i++) {
            st = wstmt(s, ST_COND_INSERT);
            sqlite3_bind_int64(st, 1, o->game);
            sqlite3_bind_int(st, 2, o->player);
            sqlite3_bind_int(st, 3, i);
            sqlite3_bind_text(st, 4, o->lines[i], -1, SQLITE_STATIC);
            if ((err = run(st)) < 0)
                return err;
        }
        return 0;
    }
    return STORE_EBAD_ARG;
}

/* Write one batch in one transaction on the writer's connection (writer
 * thread, or the loop while the writer is idle). */
static int write_batch(store *s, const op *ops, size_t n)
{
    int err = s->broken ? STORE_EDB : run(wstmt(s, ST_BEGIN));
    for (size_t i = 0; i < n && err == 0; i++)
        err = write_op(s, &ops[i]);
    if (err == 0)
        err = run(wstmt(s, ST_COMMIT));
    if (err < 0 && !s->broken) {
        fprintf(stderr, "store: writing %zu operations failed: %s\n", n, sqlite3_errmsg(s->wdb));
        run(wstmt(s, ST_ROLLBACK));
    }
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
        int err = write_batch(s, s->inflight, s->ninflight);
        uv_mutex_lock(&s->mu);
        s->inflight_err = err;
        s->job_done = true;
        uv_cond_broadcast(&s->cv);
        uv_async_send(&s->written);
    }
    uv_mutex_unlock(&s->mu);
}

static void dispatch(store *s);

/* On the loop, once the batch out is written: its callbacks (status 0 only
 * if durable), then the accounts whose turn list changed. With `next`, the
 * ops queued meanwhile go to the writer at once (its commit time is the
 * grouping window). */
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
    if (err < 0)
        /* Memory is ahead of the disk now: refuse everything from here on. */
        s->broken = true;
    maybe_checkpoint(s);
    for (size_t i = 0; i < n; i++)
        if (ops[i].cb)
            ops[i].cb(ops[i].arg, err);
    if (err == 0 && s->turn_cb) {
        /* Each account once per batch. */
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
    for (size_t i = 0; i < n; i++)
        op_free(&ops[i]);
    free(ops);
    if (s->nops > 0 && !s->busy) {
        if (next && s->has_writer)
            dispatch(s);
        else if (!s->closing)
            uv_timer_start(&s->group_timer, group_cb, s->group_ms, 0);
    }
}

/* Take the queue as a batch: to the writer thread, or written here if there
 * is none (sync) . */
static void take_batch(store *s)
{
    s->inflight = s->ops;
    s->ninflight = s->nops;
    s->ops = NULL;
    s->nops = s->capops = 0;
    s->busy = true;
    uv_timer_stop(&s->group_timer);
}

static void dispatch(store *s)
{
    if (s->busy || s->nops == 0)
        return;
    take_batch(s);
    if (!s->has_writer) {
        s->inflight_err = write_batch(s, s->inflight, s->ninflight);
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

/* Wait for the batch out (if any) and process it, without sending more. */
static void wait_writer(store *s)
{
    if (!s->busy)
        return;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        while (!s->job_done)
            uv_cond_wait(&s->cv, &s->mu);
        uv_mutex_unlock(&s->mu);
    }
    complete(s, false);
}

int store_flush(store *s)
{
    wait_writer(s);
    if (s->nops == 0)
        return s->broken ? STORE_EDB : 0;
    /* The writer is idle: write the queue here, now. */
    take_batch(s);
    int err = write_batch(s, s->inflight, s->ninflight);
    s->inflight_err = err;
    if (s->has_writer) {
        uv_mutex_lock(&s->mu);
        s->job_done = true;
        uv_mutex_unlock(&s->mu);
    }
    complete(s, false);
    return err;
}

static void ckpt_run(uv_work_t *w)
{
    store *s = w->data;
    sqlite3_wal_checkpoint_v2(s->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
}

static void ckpt_done(uv_work_t *w, int status)
{
    (void)status;
    store *s = w->data;
    s->ckpt_running = false;
    store_work_end(s);
}

static void maybe_checkpoint(store *s)
{
    if (s->ckpt_db == NULL || s->ckpt_running || s->closing || s->wal_pages < CKPT_PAGES)
        return;
    s->ckpt_work.data = s;
    if (uv_queue_work(s->loop, &s->ckpt_work, ckpt_run, ckpt_done) == 0) {
        s->ckpt_running = true;
        s->wal_pages = 0;
        store_work_begin(s);
    }
}

static void group_cb(uv_timer_t *t)
{
    dispatch(t->data);
}

/* ------------------------------------------------------------------------ */
/* Games: create, move, leave, finish */

static const int corr_days[] = {1, 2, 3, 5, 7, 10, 14};

static bool allowed_days(int64_t ms)
{
    for (size_t i = 0; i < sizeof corr_days / sizeof *corr_days; i++)
        if (ms == (int64_t)corr_days[i] * STORE_DAY_MS)
            return true;
    return false;
}

int store_tc_check(const store_tc *tc, char *why, size_t whylen)
{
    if (!allowed_days(tc->base_ms)) {
        rules_why(why, whylen,
                  "a correspondence time control gives 1, 2, 3, "
                  "5, 7, 10 or 14 days");
        return STORE_EBAD_TC;
    }
    if (tc->inc_ms == 0)
        return 0;
    if (tc->inc_ms < 0 || tc->inc_ms % STORE_DAY_MS != 0 || tc->inc_ms > 14LL * STORE_DAY_MS) {
        rules_why(why, whylen, "the increment is 1 to 14 whole days");
        return STORE_EBAD_TC;
    }
    if (tc->cap_ms % STORE_DAY_MS != 0 || tc->cap_ms < tc->base_ms ||
        tc->cap_ms > 60LL * STORE_DAY_MS) {
        rules_why(why, whylen,
                  "the cap is whole days, at least the initial time and at "
                  "most 60 days");
        return STORE_EBAD_TC;
    }
    return 0;
}

/* The deadline of `player` whose turn begins now, with `bank` ms. */
static int64_t corr_deadline(store *s, const game_mem *g, int player, int64_t now)
{
    int64_t allot = g->tc.inc_ms ? g->clock_ms[player] : g->tc.base_ms;
    return clock_start(s, g->account[player], now) + allot;
}

static char *dup_or_null(const char *t)
{
    return t ? strdup(t) : NULL;
}

int store_game_create(store *s, const store_new_game *ng, int64_t *id, store_done_cb cb, void *arg,
                      char *why, size_t whylen)
{
    if (s->closing || s->broken)
        return s->closing ? STORE_ECLOSED : STORE_EDB;
    if (ng->variant == NULL || ng->nplayers < 2 || ng->nplayers > RULES_MAX_PLAYERS ||
        ng->to_move < 0 || ng->to_move >= ng->nplayers || strlen(ng->variant) >= 24) {
        rules_why(why, whylen, "a game has a variant and 2 or 3 players");
        return STORE_EBAD_ARG;
    }
    if (ng->kind == STORE_CORR || ng->rated)
        for (int p = 0; p < ng->nplayers; p++)
            if (ng->players[p].account == 0) {
                rules_why(why, whylen, "%s: %s", ng->players[p].name,
                          store_err_text(STORE_ENEED_ACCOUNT));
                return STORE_ENEED_ACCOUNT;
            }
    if (ng->kind == STORE_CORR) {
        int err = store_tc_check(&ng->tc, why, whylen);
        if (err < 0)
            return err;
    }
    game_mem *g = calloc(1, sizeof *g);
    store_new_game *copy = calloc(1, sizeof *copy);
    if (g == NULL || copy == NULL)
        goto out_nomem;
    *copy = *ng;
    copy->variant = strdup(ng->variant);
    copy->position = dup_or_null(ng->position);
    copy->options = dup_or_null(ng->options);
    if (copy->variant == NULL)
        goto out_nomem;

    int64_t now = store_now(s);
    g->id = s->next_id;
    snprintf(g->variant, sizeof g->variant, "%s", ng->variant);
    g->kind = ng->kind;
    g->nplayers = ng->nplayers;
    g->tc = ng->tc;
    g->to_move = ng->to_move;
    g->last_move_ms = now;
    g->fired_ply = -1;
    for (int p = 0; p < ng->nplayers; p++) {
        g->account[p] = ng->players[p].account;
        g->clock_ms[p] = ng->tc.base_ms;
    }
    if (g->kind == STORE_CORR)
        g->deadline_ms = corr_deadline(s, g, g->to_move, now);
    op *o = op_push(s, OP_CREATE, g->id);
    if (o == NULL || game_insert(s, g) < 0) {
        if (o)
            s->nops--;
        goto out_nomem;
    }
    s->next_id++;
    o->create = copy;
    o->cb = cb;
    o->arg = arg;
    o->deadline_ms = g->deadline_ms;
    memcpy(o->clock_ms, g->clock_ms, sizeof o->clock_ms);
    o->notify[0] = g->account[g->to_move];
    *id = g->id;
    return 0;

out_nomem:
    free(g);
    if (copy) {
        free((char *)copy->variant);
        free((char *)copy->position);
        free((char *)copy->options);
        free(copy);
    }
    return STORE_ENOMEM;
}

static int check_game(store *s, int64_t id, game_mem **out)
{
    if (s->closing)
        return STORE_ECLOSED;
    if (s->broken)
        return STORE_EDB;
    *out = game_find(s, id);
    return *out ? 0 : STORE_ENOT_FOUND;
}

int store_move_append(store *s, int64_t game, const store_move *m, store_done_cb cb, void *arg)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (m->ply != g->nmoves)
        return STORE_EBAD_PLY;
    if (m->text == NULL || strlen(m->text) >= RULES_MOVE_TEXT || m->player < 0 ||
        m->player >= g->nplayers || m->next >= g->nplayers)
        return STORE_EBAD_ARG;
    op *o = op_push(s, OP_MOVE, game);
    if (o == NULL)
        return STORE_ENOMEM;
    int64_t now = o->at_ms;
    if (g->kind == STORE_CORR) {
        if (g->tc.inc_ms) {
            /* Time left (not counting the rest of a vacation) plus the
             * increment, up to the cap. */
            int64_t start = clock_start(s, g->account[m->player], now);
            int64_t left = g->deadline_ms - start;
            if (left < 0)
                left = 0;
            left += g->tc.inc_ms;
            g->clock_ms[m->player] = left < g->tc.cap_ms ? left : g->tc.cap_ms;
        }
        g->deadline_ms = m->next >= 0 ? corr_deadline(s, g, m->next, now) : 0;
    } else {
        for (int p = 0; p < g->nplayers; p++)
            g->clock_ms[p] = m->clock_ms[p];
    }
    o->notify[0] = g->account[m->player];
    o->notify[1] = m->next >= 0 ? g->account[m->next] : 0;
    g->nmoves++;
    g->to_move = m->next;
    g->last_move_ms = now;
    o->ply = m->ply;
    o->player = m->player;
    o->next = m->next;
    o->deadline_ms = g->deadline_ms;
    memcpy(o->clock_ms, g->clock_ms, sizeof o->clock_ms);
    snprintf(o->text, sizeof o->text, "%s", m->text);
    o->cb = cb;
    o->arg = arg;
    return 0;
}

int store_game_leave(store *s, int64_t game, int player, rules_reason reason, int next,
                     store_done_cb cb, void *arg)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= g->nplayers || next >= g->nplayers)
        return STORE_EBAD_ARG;
    op *o = op_push(s, OP_LEAVE, game);
    if (o == NULL)
        return STORE_ENOMEM;
    int64_t now = o->at_ms;
    int before = g->to_move;
    g->to_move = next;
    if (g->kind == STORE_CORR && next != before)
        g->deadline_ms = next >= 0 ? corr_deadline(s, g, next, now) : 0;
    g->fired_ply = -1;
    o->player = player;
    o->reason = reason;
    o->ply = g->nmoves;
    o->next = next;
    o->deadline_ms = g->deadline_ms;
    o->notify[0] = g->account[player];
    o->notify[1] = next >= 0 ? g->account[next] : 0;
    o->cb = cb;
    o->arg = arg;
    return 0;
}

int store_game_finish(store *s, int64_t game, const rules_result *r, store_done_cb cb, void *arg)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (!r->over)
        return STORE_EBAD_ARG;
    op *o = op_push(s, OP_FINISH, game);
    if (o == NULL)
        return STORE_ENOMEM;
    o->result = *r;
    for (int p = 0; p < g->nplayers; p++)
        o->notify[p] = g->account[p];
    o->cb = cb;
    o->arg = arg;
    game_remove(s, game);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading whole games */

typedef struct game_buf {
    store_game_info info;
    store_move_rec *moves;
    store_leave_rec *leaves;
    char *variant, *position, *options;
    char **texts;
} game_buf;

static void game_buf_free(game_buf *b)
{
    for (int i = 0; i < b->info.nmoves; i++)
        free(b->texts[i]);
    free(b->texts);
    free(b->moves);
    free(b->leaves);
    free(b->variant);
    free(b->position);
    free(b->options);
}

static rules_reason reason_parse(const char *name)
{
    for (int r = 0; r < RULES_REASON_COUNT; r++)
        if (name && strcmp(name, rules_reason_name((rules_reason)r)) == 0)
            return (rules_reason)r;
    return RULES_REASON_NONE;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL
               ? NULL
               : strdup((const char *)sqlite3_column_text(st, i));
}

static int game_read(store *s, int64_t id, game_buf *b)
{
    memset(b, 0, sizeof *b);
    store_game_info *gi = &b->info;
    sqlite3_stmt *st = stmt(s, ST_GAME_SELECT);
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return STORE_ENOT_FOUND;
    }
    gi->id = id;
    b->variant = col_dup(st, 0);
    b->position = col_dup(st, 1);
    gi->kind = (store_kind)sqlite3_column_int(st, 2);
    gi->rated = sqlite3_column_int(st, 3);
    gi->nplayers = sqlite3_column_int(st, 4);
    gi->tc.base_ms = sqlite3_column_int64(st, 5);
    gi->tc.inc_ms = sqlite3_column_int64(st, 6);
    gi->tc.cap_ms = sqlite3_column_int64(st, 7);
    b->options = col_dup(st, 8);
    gi->created_ms = sqlite3_column_int64(st, 9);
    gi->last_move_ms = sqlite3_column_int64(st, 10);
    int nmoves = sqlite3_column_int(st, 11);
    gi->to_move = sqlite3_column_int(st, 12);
    gi->deadline_ms = sqlite3_column_int64(st, 13);
    gi->finished = sqlite3_column_int(st, 14);
    gi->result.over = gi->finished;
    gi->result.winner = (int8_t)sqlite3_column_int(st, 15);
    gi->result.reason = reason_parse((const char *)sqlite3_column_text(st, 16));
    gi->finished_ms = sqlite3_column_int64(st, 17);
    sqlite3_reset(st);
    gi->variant = b->variant;
    gi->position = b->position;
    gi->options = b->options;

    st = stmt(s, ST_PLAYERS_SELECT);
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int seat = sqlite3_column_int(st, 0);
        if (seat < 0 || seat >= RULES_MAX_PLAYERS)
            continue;
        gi->players[seat].account = sqlite3_column_int64(st, 1);
        snprintf(gi->players[seat].name, STORE_NAME_MAX, "%s", sqlite3_column_text(st, 2));
        gi->clock_ms[seat] = sqlite3_column_int64(st, 3);
        gi->result.outcome[seat] = (uint8_t)sqlite3_column_int(st, 4);
    }
    sqlite3_reset(st);

    b->moves = calloc((size_t)nmoves + 1, sizeof *b->moves);
    b->texts = calloc((size_t)nmoves + 1, sizeof *b->texts);
    if (b->moves == NULL || b->texts == NULL)
        return STORE_ENOMEM;
    st = stmt(s, ST_MOVES_SELECT);
    sqlite3_bind_int64(st, 1, id);
    while (gi->nmoves < nmoves && sqlite3_step(st) == SQLITE_ROW) {
        store_move_rec *m = &b->moves[gi->nmoves];
        m->ply = sqlite3_column_int(st, 0);
        m->player = sqlite3_column_int(st, 1);
        b->texts[gi->nmoves] = col_dup(st, 2);
        m->text = b->texts[gi->nmoves] ? b->texts[gi->nmoves] : "";
        m->at_ms = sqlite3_column_int64(st, 3);
        for (int p = 0; p < RULES_MAX_PLAYERS; p++)
            m->clock_ms[p] = sqlite3_column_type(st, 4 + p) == SQLITE_NULL
                                 ? gi->clock_ms[p] /* written without clocks */
                                 : sqlite3_column_int64(st, 4 + p);
        gi->nmoves++;
    }
    sqlite3_reset(st);
    if (gi->nmoves > 0)
        for (int p = 0; p < gi->nplayers; p++)
            gi->clock_ms[p] = b->moves[gi->nmoves - 1].clock_ms[p];

    st = stmt(s, ST_LEAVES_SELECT);
    sqlite3_bind_int64(st, 1, id);
    b->leaves = calloc(RULES_MAX_PLAYERS, sizeof *b->leaves);
    if (b->leaves == NULL) {
        sqlite3_reset(st);
        return STORE_ENOMEM;
    }
    while (gi->nleaves < RULES_MAX_PLAYERS && sqlite3_step(st) == SQLITE_ROW) {
        store_leave_rec *l = &b->leaves[gi->nleaves++];
        l->player = sqlite3_column_int(st, 0);
        l->after_ply = sqlite3_column_int(st, 1);
        l->reason = reason_parse((const char *)sqlite3_column_text(st, 2));
        l->at_ms = sqlite3_column_int64(st, 3);
    }
    sqlite3_reset(st);
    gi->moves = b->moves;
    gi->leaves = b->leaves;
    return 0;
}

/* Put a game in progress into memory, from its records. */
static int load_mem(store *s, int64_t id)
{
    game_buf b;
    int err = game_read(s, id, &b);
    game_mem *g = err == 0 ? calloc(1, sizeof *g) : NULL;
    if (g == NULL) {
        game_buf_free(&b);
        return err < 0 ? err : STORE_ENOMEM;
    }
    const store_game_info *gi = &b.info;
    g->id = id;
    snprintf(g->variant, sizeof g->variant, "%s", gi->variant);
    g->kind = gi->kind;
    g->nplayers = gi->nplayers;
    g->tc = gi->tc;
    g->last_move_ms = gi->last_move_ms;
    g->nmoves = gi->nmoves;
    g->to_move = gi->to_move;
    g->deadline_ms = gi->deadline_ms;
    g->fired_ply = -1;
    for (int p = 0; p < RULES_MAX_PLAYERS; p++) {
        g->account[p] = gi->players[p].account;
        g->clock_ms[p] = gi->clock_ms[p];
    }
    game_buf_free(&b);

    sqlite3_stmt *st = stmt(s, ST_COND_SELECT);
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW)
        cond_from_text(g, sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1));
    sqlite3_reset(st);
    /* Lines wait for the opponent's next move (if the server stopped before
     * playing an answer, the one after it). */
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        g->cond_at[p] = g->to_move == p ? g->nmoves + 1 : g->nmoves;
    return game_insert(s, g);
}

int store_replay(const store_game_info *gi, rules_game **out, char *why, size_t whylen)
{
    rules_game *g;
    int err = rules_game_new(&g, gi->variant, gi->position, why, whylen);
    if (err < 0)
        return err;
    int li = 0;
    for (int i = 0; i <= gi->nmoves && err == 0; i++) {
        for (; li < gi->nleaves && gi->leaves[li].after_ply == i && err == 0; li++)
            err = rules_game_leave(g, gi->leaves[li].player, gi->leaves[li].reason);
        if (err < 0)
            rules_why(why, whylen,
                      "game %lld: player %d cannot leave after "
                      "ply %d",
                      (long long)gi->id, gi->leaves[li - 1].player, i);
        if (i < gi->nmoves && err == 0) {
            char sub[RULES_WHY_TEXT];
            err = rules_game_play_text(g, gi->moves[i].player, gi->moves[i].text, NULL, sub,
                                       sizeof sub);
            if (err < 0)
                rules_why(why, whylen, "game %lld ply %d: %s", (long long)gi->id, i, sub);
        }
    }
    if (err < 0) {
        rules_game_free(g);
        return err;
    }
    *out = g;
    return 0;
}

int store_game_get(store *s, int64_t id, store_game_cb cb, void *arg)
{
    /* Queued writes first, so that the answer includes them. */
    if (store_flush(s) < 0)
        return STORE_EDB;
    game_buf b;
    int err = game_read(s, id, &b);
    if (err == 0)
        cb(arg, &b.info);
    game_buf_free(&b);
    return err;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int store_load_in_progress(store *s, store_game_cb cb, void *arg)
{
    if (store_flush(s) < 0)
        return STORE_EDB;
    int64_t *ids = malloc((s->ngames + 1) * sizeof *ids);
    if (ids == NULL)
        return STORE_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < s->nbuckets; i++)
        for (game_mem *g = s->buckets[i]; g; g = g->next)
            ids[n++] = g->id;
    qsort(ids, n, sizeof *ids, cmp_id);
    int err = 0, count = 0;
    for (size_t i = 0; i < n && err == 0; i++) {
        game_buf b;
        err = game_read(s, ids[i], &b);
        if (err == 0) {
            cb(arg, &b.info);
            count++;
        }
        game_buf_free(&b);
    }
    free(ids);
    return err < 0 ? err : count;
}

/* ------------------------------------------------------------------------ */
/* Archive */

static const char *kind_name(store_kind k)
{
    return k == STORE_CORR ? "correspondence" : "live";
}

static const char *outcome_name(int o)
{
    static const char *const n[] = {"none", "win", "loss", "draw"};
    return o >= 0 && o < 4 ? n[o] : "none";
}

static json_t *game_to_json(const store_game_info *g)
{
    json_t *players = json_array(), *moves = json_array(), *leaves = json_array();
    for (int p = 0; p < g->nplayers; p++) {
        json_t *pl = json_pack("{s:i, s:s}", "seat", p, "name", g->players[p].name);
        if (g->players[p].account)
            json_object_set_new(pl, "account", json_integer(g->players[p].account));
        else
            json_object_set_new(pl, "account", json_null());
        if (g->finished)
            json_object_set_new(pl, "outcome", json_string(outcome_name(g->result.outcome[p])));
        json_array_append_new(players, pl);
    }
    for (int i = 0; i < g->nmoves; i++)
        json_array_append_new(moves,
                              json_pack("{s:i, s:i, s:s, s:I}", "ply", g->moves[i].ply, "player",
                                        g->moves[i].player, "move", g->moves[i].text, "at",
                                        (json_int_t)g->moves[i].at_ms));
    for (int i = 0; i < g->nleaves; i++)
        json_array_append_new(leaves,
                              json_pack("{s:i, s:i, s:s, s:I}", "player", g->leaves[i].player,
                                        "after_ply", g->leaves[i].after_ply, "reason",
                                        rules_reason_name(g->leaves[i].reason), "at",
                                        (json_int_t)g->leaves[i].at_ms));
    json_t *o = json_pack(
        "{s:I, s:s, s:s, s:b, s:{s:I, s:I, s:I}, s:o, s:o, s:o, s:I, s:s}", "id", (json_int_t)g->id,
        "variant", g->variant, "kind", kind_name(g->kind), "rated", g->rated, "time_control",
        "base_ms", (json_int_t)g->tc.base_ms, "inc_ms", (json_int_t)g->tc.inc_ms, "cap_ms",
        (json_int_t)g->tc.cap_ms, "players", players, "moves", moves, "leaves", leaves, "created",
        (json_int_t)g->created_ms, "status", g->finished ? "finished" : "playing");
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "position", g->position ? json_string(g->position) : json_null());
    json_t *opts = g->options ? json_loads(g->options, 0, NULL) : NULL;
    json_object_set_new(o, "options", opts ? opts : json_object());
    if (g->finished) {
        json_object_set_new(
            o, "result",
            json_pack("{s:o, s:s}", "winner",
                      g->result.winner >= 0 ? json_integer(g->result.winner) : json_null(),
                      "reason", rules_reason_name(g->result.reason)));
        json_object_set_new(o, "finished", json_integer(g->finished_ms));
    } else {
        json_object_set_new(o, "to_move", json_integer(g->to_move));
        if (g->kind == STORE_CORR)
            json_object_set_new(o, "deadline", json_integer(g->deadline_ms));
    }
    return o;
}

typedef struct text_out {
    char *text;
    int err;
} text_out;

static void json_game_cb(void *arg, const store_game_info *g)
{
    text_out *t = arg;
    json_t *o = game_to_json(g);
    t->text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    t->err = t->text ? 0 : STORE_ENOMEM;
    json_decref(o);
}

/* A game rendered as text by cb (JSON or PGN). */
static int game_text(store *s, int64_t id, store_game_cb cb, char **out)
{
    text_out t = {NULL, 0};
    int err = store_game_get(s, id, cb, &t);
    if (err < 0)
        return err;
    *out = t.text;
    return t.err;
}

int store_game_json(store *s, int64_t id, char **out)
{
    return game_text(s, id, json_game_cb, out);
}

static void pgn_game_cb(void *arg, const store_game_info *g)
{
    text_out *t = arg;
    pgn_game p = {0};
    const rules_variant *v = rules_find(g->variant);
    char buf[64];
    pgn_set_tag(&p, "Event", g->kind == STORE_CORR ? "Correspondence game" : "Live game");
    pgn_set_tag(&p, "Site", "chameleon");
    time_t secs = (time_t)(g->created_ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
    pgn_set_tag(&p, "Date", buf);
    pgn_set_tag(&p, "Round", "-");
    for (int seat = 0; seat < g->nplayers; seat++) {
        if (v != NULL && seat < v->nplayers)
            pgn_seat_tag(v, seat, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "Player%d", seat + 1);
        pgn_set_tag(&p, buf, g->players[seat].name);
    }
    pgn_result_text(&g->result, g->nplayers, buf, sizeof buf);
    pgn_set_tag(&p, "Result", buf);
    pgn_set_tag(&p, "Variant", g->variant);
    snprintf(buf, sizeof buf, "%lld", (long long)g->id);
    pgn_set_tag(&p, "GameId", buf);
    if (g->kind == STORE_CORR && g->tc.inc_ms)
        snprintf(buf, sizeof buf, "corr %lldd+%lldd cap %lldd",
                 (long long)(g->tc.base_ms / STORE_DAY_MS),
                 (long long)(g->tc.inc_ms / STORE_DAY_MS),
                 (long long)(g->tc.cap_ms / STORE_DAY_MS));
    else if (g->kind == STORE_CORR)
        snprintf(buf, sizeof buf, "corr %lldd/move", (long long)(g->tc.base_ms / STORE_DAY_MS));
    else
        snprintf(buf, sizeof buf, "%lld+%lld", (long long)(g->tc.base_ms / 1000),
                 (long long)(g->tc.inc_ms / 1000));
    pgn_set_tag(&p, "TimeControl", buf);
    if (g->finished)
        pgn_set_tag(&p, "Termination", rules_reason_name(g->result.reason));
    if (g->position) {
        pgn_set_tag(&p, "SetUp", "1");
        pgn_set_tag(&p, "FEN", g->position);
    }
    int err = 0, li = 0;
    for (int i = 0; i <= g->nmoves && err == 0; i++) {
        for (; li < g->nleaves && g->leaves[li].after_ply == i && err == 0; li++)
            err = pgn_add_leave(&p, g->leaves[li].player, g->leaves[li].reason);
        if (i < g->nmoves && err == 0)
            err = pgn_add_move(&p, g->moves[i].text);
    }
    if (err == 0)
        err = pgn_write(&p, g->nplayers, &t->text);
    t->err = err < 0 ? STORE_ENOMEM : 0;
    pgn_free(&p);
}

int store_game_pgn(store *s, int64_t id, char **out)
{
    return game_text(s, id, pgn_game_cb, out);
}

int store_profile_json(store *s, const char *username, char **out)
{
    if (store_flush(s) < 0)
        return STORE_EDB;
    sqlite3_stmt *st = stmt(s, ST_ACCOUNT_BY_NAME);
    sqlite3_bind_text(st, 1, username, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return STORE_ENOT_FOUND;
    }
    int64_t account = sqlite3_column_int64(st, 0);
    json_t *o = json_pack("{s:I, s:s}", "account", (json_int_t)account, "username",
                          (const char *)sqlite3_column_text(st, 1));
    sqlite3_reset(st);
    json_t *playing = json_array(), *finished = json_object();
    st = stmt(s, ST_ACCOUNT_GAMES);
    sqlite3_bind_int64(st, 1, account);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *variant = (const char *)sqlite3_column_text(st, 1);
        int seat = sqlite3_column_int(st, 7);
        json_t *e = json_pack("{s:I, s:s, s:s, s:i, s:i, s:I}", "id",
                              (json_int_t)sqlite3_column_int64(st, 0), "variant", variant, "kind",
                              kind_name((store_kind)sqlite3_column_int(st, 2)), "seat", seat,
                              "moves", sqlite3_column_int(st, 9), "created",
                              (json_int_t)sqlite3_column_int64(st, 10));
        if (!sqlite3_column_int(st, 3)) {
            int to_move = sqlite3_column_int(st, 4);
            json_object_set_new(e, "to_move", json_integer(to_move));
            json_object_set_new(e, "your_turn", json_boolean(to_move == seat));
            if (sqlite3_column_int(st, 2) == STORE_CORR)
                json_object_set_new(e, "deadline", json_integer(sqlite3_column_int64(st, 5)));
            json_array_append_new(playing, e);
            continue;
        }
        const char *outcome = outcome_name(sqlite3_column_int(st, 8));
        json_object_set_new(e, "outcome", json_string(outcome));
        json_object_set_new(e, "reason", json_string((const char *)sqlite3_column_text(st, 6)));
        json_object_set_new(e, "finished", json_integer(sqlite3_column_int64(st, 11)));
        json_t *per = json_object_get(finished, variant);
        if (per == NULL) {
            per = json_pack("{s:i, s:i, s:i, s:[]}", "wins", 0, "losses", 0, "draws", 0, "games");
            json_object_set_new(finished, variant, per);
        }
        const char *counter = strcmp(outcome, "win") == 0    ? "wins"
                              : strcmp(outcome, "loss") == 0 ? "losses"
                              : strcmp(outcome, "draw") == 0 ? "draws"
                                                             : NULL;
        if (counter)
            json_object_set_new(
                per, counter, json_integer(json_integer_value(json_object_get(per, counter)) + 1));
        json_array_append_new(json_object_get(per, "games"), e);
    }
    sqlite3_reset(st);
    json_object_set_new(o, "in_progress", playing);
    json_object_set_new(o, "finished", finished);
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return *out ? 0 : STORE_ENOMEM;
}

/* ------------------------------------------------------------------------ */
/* Your turn */

static int cmp_turn(const void *a, const void *b)
{
    const store_turn *x = a, *y = b;
    if (x->deadline_ms != y->deadline_ms)
        return x->deadline_ms < y->deadline_ms ? -1 : 1;
    return x->game < y->game ? -1 : x->game > y->game;
}

int store_your_turn(store *s, int64_t account, store_turn *out, int max)
{
    store_turn *all = NULL;
    int n = 0;
    size_t cap = 0;
    acct_games *a = account ? *acct_slot(s, account) : NULL;
    for (size_t i = 0; a && i < a->n; i++) {
        const game_mem *g = a->games[i];
        if (g->to_move < 0 || g->account[g->to_move] != account)
            continue;
        store_turn *na = grow(all, &cap, (size_t)n, sizeof *na);
        if (na == NULL) {
            free(all);
            return STORE_ENOMEM;
        }
        all = na;
        store_turn *t = &all[n++];
        memset(t, 0, sizeof *t);
        t->game = g->id;
        snprintf(t->variant, sizeof t->variant, "%s", g->variant);
        t->kind = g->kind;
        t->ply = g->nmoves;
        t->deadline_ms = g->kind == STORE_CORR ? g->deadline_ms : 0;
    }
    if (n > 0)
        qsort(all, (size_t)n, sizeof *all, cmp_turn);
    for (int i = 0; i < n && i < max; i++)
        out[i] = all[i];
    free(all);
    return n;
}

int store_your_turn_json(store *s, int64_t account, char **out)
{
    int n = store_your_turn(s, account, NULL, 0);
    if (n < 0)
        return n;
    store_turn *t = calloc((size_t)n + 1, sizeof *t);
    if (t == NULL)
        return STORE_ENOMEM;
    n = store_your_turn(s, account, t, n);
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = json_pack("{s:I, s:s, s:s, s:i}", "id", (json_int_t)t[i].game, "variant",
                              t[i].variant, "kind", kind_name(t[i].kind), "ply", t[i].ply);
        if (t[i].kind == STORE_CORR)
            json_object_set_new(e, "deadline", json_integer(t[i].deadline_ms));
        json_array_append_new(a, e);
    }
    free(t);
    *out = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return *out ? 0 : STORE_ENOMEM;
}

void store_set_turn_cb(store *s, void (*cb)(void *, int64_t), void *arg)
{
    s->turn_cb = cb;
    s->turn_arg = arg;
}

/* ------------------------------------------------------------------------ */
/* Deadlines */

void store_check_deadlines(store *s)
{
    if (s->timeout_cb == NULL || s->closing)
        return;
    int64_t now = store_now(s);
    /* The index finds candidates; memory (which may be ahead of the disk by
     * queued moves) decides. */
    int64_t due[256];
    int n = 0;
    sqlite3_stmt *st = stmt(s, ST_DEADLINES);
    sqlite3_bind_int64(st, 1, now);
    while (n < 256 && sqlite3_step(st) == SQLITE_ROW)
        due[n++] = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    for (int i = 0; i < n; i++) {
        game_mem *g = game_find(s, due[i]);
        if (g == NULL || g->kind != STORE_CORR || g->to_move < 0 || g->deadline_ms > now ||
            g->fired_ply == g->nmoves)
            continue;
        g->fired_ply = g->nmoves;
        s->timeout_cb(s->timeout_arg, g->id, g->to_move);
    }
}

int store_corr_clock(store *s, int64_t game, int64_t *deadline_ms,
                     int64_t clock_ms[RULES_MAX_PLAYERS])
{
    game_mem *g = game_find(s, game);
    if (g == NULL)
        return STORE_ENOT_FOUND;
    *deadline_ms = g->kind == STORE_CORR && g->to_move >= 0 ? g->deadline_ms : 0;
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        clock_ms[p] = p < g->nplayers ? (g->tc.inc_ms ? g->clock_ms[p] : g->tc.base_ms) : 0;
    return 0;
}

static void deadline_cb(uv_timer_t *t)
{
    store_check_deadlines(t->data);
}

void store_set_timeout_cb(store *s, void (*cb)(void *, int64_t, int), void *arg)
{
    s->timeout_cb = cb;
    s->timeout_arg = arg;
    store_check_deadlines(s);
}

/* ------------------------------------------------------------------------ */
/* Vacation */

static int year_of(int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    return tm.tm_year + 1900;
}

typedef struct vac_row {
    int64_t from_ms, until_ms;
    int year, used;
} vac_row;

static int vac_read(store *s, int64_t account, vac_row *v)
{
    sqlite3_stmt *st = stmt(s, ST_VAC_SELECT);
    sqlite3_bind_int64(st, 1, account);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        v->from_ms = sqlite3_column_int64(st, 0);
        v->until_ms = sqlite3_column_int64(st, 1);
        v->year = sqlite3_column_int(st, 2);
        v->used = sqlite3_column_int(st, 3);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : STORE_ENOT_FOUND;
}

/* Move every deadline of the account's games where it is to move by delta,
 * in memory and on disk (inside the caller's transaction). */
static int shift_deadlines(store *s, int64_t account, int64_t delta)
{
    acct_games *a = *acct_slot(s, account);
    for (size_t i = 0; a && i < a->n; i++) {
        game_mem *g = a->games[i];
        if (g->kind != STORE_CORR || g->to_move < 0 || g->account[g->to_move] != account)
            continue;
        g->deadline_ms += delta;
        g->fired_ply = -1;
        sqlite3_stmt *st = stmt(s, ST_DEADLINE_SET);
        sqlite3_bind_int64(st, 1, g->deadline_ms);
        sqlite3_bind_int64(st, 2, g->id);
        if (run(st) < 0)
            return STORE_EDB;
    }
    return 0;
}

static int vac_write(store *s, int64_t account, const vac_row *v, int64_t delta)
{
    if (store_flush(s) < 0 || run(stmt(s, ST_BEGIN)) < 0)
        return STORE_EDB;
    sqlite3_stmt *st = stmt(s, ST_VAC_UPDATE);
    sqlite3_bind_int64(st, 1, v->from_ms);
    sqlite3_bind_int64(st, 2, v->until_ms);
    sqlite3_bind_int(st, 3, v->year);
    sqlite3_bind_int(st, 4, v->used);
    sqlite3_bind_int64(st, 5, account);
    int err = run(st);
    if (err == 0)
        err = shift_deadlines(s, account, delta);
    if (err == 0)
        err = run(stmt(s, ST_COMMIT));
    if (err < 0) {
        run(stmt(s, ST_ROLLBACK));
        s->broken = true;
    }
    return err;
}

int store_vacation_start(store *s, int64_t account, int days, char *why, size_t whylen)
{
    vac_row v;
    if (vac_read(s, account, &v) < 0)
        return STORE_ENOT_FOUND;
    int64_t now = store_now(s);
    if (days < 1 || v.until_ms > now) {
        rules_why(why, whylen,
                  days < 1 ? "a vacation lasts at least one day" : "already on vacation");
        return STORE_EBAD_ARG;
    }
    int year = year_of(now);
    int used = v.year == year ? v.used : 0;
    if (used + days > STORE_VACATION_DAYS) {
        rules_why(why, whylen, "only %d vacation days are left this year",
                  STORE_VACATION_DAYS - used);
        return STORE_EVACATION;
    }
    int64_t length = (int64_t)days * STORE_DAY_MS;
    vac_row nv = {now, now + length, year, used + days};
    /* Clocks running now stop: their deadlines move by the vacation. Turns
     * that begin during it start at its end (clock_start). */
    int err = vac_write(s, account, &nv, length);
    if (err < 0)
        return err;
    vacation *mv = vac_find(s, account);
    if (mv == NULL) {
        vacation *n = grow(s->vac, &s->capvac, s->nvac, sizeof *n);
        if (n == NULL)
            return STORE_ENOMEM;
        s->vac = n;
        mv = &s->vac[s->nvac++];
    }
    *mv = (vacation){account, nv.from_ms, nv.until_ms};
    if (s->turn_cb)
        s->turn_cb(s->turn_arg, account);
    return 0;
}

int store_vacation_end(store *s, int64_t account)
{
    vac_row v;
    if (vac_read(s, account, &v) < 0)
        return STORE_ENOT_FOUND;
    int64_t now = store_now(s);
    if (v.until_ms <= now)
        return STORE_ENOT_FOUND;
    int64_t started = now - v.from_ms;
    int days_started = (int)((started + STORE_DAY_MS - 1) / STORE_DAY_MS);
    if (days_started < 1)
        days_started = 1;
    int64_t total_days = (v.until_ms - v.from_ms) / STORE_DAY_MS;
    vac_row nv = v;
    nv.until_ms = now;
    nv.used = v.used - (int)(total_days - days_started);
    int err = vac_write(s, account, &nv, -(v.until_ms - now));
    if (err < 0)
        return err;
    vacation *mv = vac_find(s, account);
    if (mv != NULL)
        *mv = s->vac[--s->nvac];
    if (s->turn_cb)
        s->turn_cb(s->turn_arg, account);
    return 0;
}

int store_vacation_status(store *s, int64_t account, int64_t *until_ms, int *days_left)
{
    vac_row v;
    if (vac_read(s, account, &v) < 0)
        return STORE_ENOT_FOUND;
    int64_t now = store_now(s);
    if (until_ms)
        *until_ms = v.until_ms > now ? v.until_ms : 0;
    if (days_left)
        *days_left = STORE_VACATION_DAYS - (v.year == year_of(now) ? v.used : 0);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Conditional moves */

/* Split a line into move texts (at most max); returns how many. */
static int split_line(const char *line, char (*moves)[RULES_MOVE_TEXT], int max)
{
    int n = 0;
    const char *p = line;
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        size_t l = strcspn(p, " ");
        if (n == max || l >= RULES_MOVE_TEXT)
            return -1;
        memcpy(moves[n], p, l);
        moves[n][l] = '\0';
        n++;
        p += l;
    }
    return n;
}

enum { COND_MAX_LINES = 32, COND_MAX_PLIES = 64 };

static int queue_cond(store *s, game_mem *g, int player)
{
    op *o = op_push(s, OP_COND, g->id);
    if (o == NULL)
        return STORE_ENOMEM;
    o->player = player;
    o->nlines = g->ncond[player];
    o->lines = o->nlines ? calloc((size_t)o->nlines, sizeof *o->lines) : NULL;
    for (int i = 0; i < o->nlines; i++)
        if (o->lines && (o->lines[i] = strdup(g->cond[player][i])) == NULL)
            return STORE_ENOMEM;
    return 0;
}

int store_cond_set(store *s, int64_t game, int player, const char *const *lines, int nlines,
                   char *why, size_t whylen)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (g->kind != STORE_CORR || g->nplayers != 2 || player < 0 || player > 1 || nlines < 0 ||
        nlines > COND_MAX_LINES) {
        rules_why(why, whylen,
                  "conditional moves are for two-player "
                  "correspondence games, at most %d lines",
                  COND_MAX_LINES);
        return STORE_EBAD_ARG;
    }
    if (g->to_move != 1 - player) {
        rules_why(why, whylen, "%s", store_err_text(STORE_ENOT_YOUR_TURN));
        return STORE_ENOT_YOUR_TURN;
    }
    char moves[COND_MAX_PLIES][RULES_MOVE_TEXT];
    for (int i = 0; i < nlines; i++) {
        int n = split_line(lines[i], moves, COND_MAX_PLIES);
        if (n < 2) {
            rules_why(why, whylen,
                      "line %d: a line is their move then yours (then theirs "
                      "and yours ...), at most %d moves",
                      i + 1, COND_MAX_PLIES);
            return STORE_EBAD_ARG;
        }
    }
    char **copy = nlines ? calloc((size_t)nlines, sizeof *copy) : NULL;
    for (int i = 0; i < nlines; i++)
        if (copy == NULL || (copy[i] = strdup(lines[i])) == NULL) {
            free_lines(copy, i);
            return STORE_ENOMEM;
        }
    free_lines(g->cond[player], g->ncond[player]);
    g->cond[player] = copy;
    g->ncond[player] = nlines;
    g->cond_at[player] = g->nmoves;
    err = queue_cond(s, g, player);
    /* A player's own request: written before returning. */
    return err < 0 ? err : store_flush(s);
}

int store_cond_get_json(store *s, int64_t game, int player, char **out)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= RULES_MAX_PLAYERS)
        return STORE_EBAD_ARG;
    json_t *a = json_array();
    for (int i = 0; i < g->ncond[player]; i++)
        json_array_append_new(a, json_string(g->cond[player][i]));
    *out = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return *out ? 0 : STORE_ENOMEM;
}

int store_cond_reply(store *s, int64_t game, int ply, const char *move, char reply[RULES_MOVE_TEXT])
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (g->nplayers != 2 || g->to_move < 0 || ply != g->nmoves - 1)
        return 0;
    int player = g->to_move; /* whose lines answer the move */
    if (g->ncond[player] == 0)
        return 0;
    if (ply != g->cond_at[player]) {
        /* Moves were played without asking: the lines are out of date. */
        free_lines(g->cond[player], g->ncond[player]);
        g->cond[player] = NULL;
        g->ncond[player] = 0;
        err = queue_cond(s, g, player);
        return err < 0 ? err : 0;
    }
    /* Keep the lines that start with the move and whose answer is the one
     * of the first such line (the player's priority order); drop both moves
     * from them and lines left with fewer than two moves. */
    char moves[COND_MAX_PLIES][RULES_MOVE_TEXT];
    int found = 0, kept = 0;
    reply[0] = '\0';
    for (int i = 0; i < g->ncond[player]; i++) {
        char *line = g->cond[player][i];
        int n = split_line(line, moves, COND_MAX_PLIES);
        bool keep =
            n >= 2 && strcmp(moves[0], move) == 0 && (!found || strcmp(moves[1], reply) == 0);
        if (keep && !found) {
            snprintf(reply, RULES_MOVE_TEXT, "%s", moves[1]);
            found = 1;
        }
        if (keep && n >= 4) {
            /* The rest after both moves. */
            const char *rest = line;
            for (int k = 0; k < 2; k++) {
                rest += strspn(rest, " ");
                rest += strcspn(rest, " ");
            }
            rest += strspn(rest, " ");
            memmove(line, rest, strlen(rest) + 1);
            g->cond[player][kept++] = line;
        } else {
            free(line);
        }
    }
    g->ncond[player] = kept;
    if (kept == 0) {
        free(g->cond[player]);
        g->cond[player] = NULL;
    }
    g->cond_at[player] = ply + 2;
    err = queue_cond(s, g, player);
    return err < 0 ? err : found;
}

int store_cond_clear(store *s, int64_t game, int player)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= g->nplayers)
        return STORE_EBAD_ARG;
    if (g->ncond[player] == 0)
        return 0;
    free_lines(g->cond[player], g->ncond[player]);
    g->cond[player] = NULL;
    g->ncond[player] = 0;
    return queue_cond(s, g, player);
}

int store_cond_check(const rules_game *g, int player, const char *line, char *why, size_t whylen)
{
    char pos[RULES_POS_TEXT];
    if (g->variant->print_position(&g->start, pos, sizeof pos) < 0)
        return RULES_EBAD_POSITION;
    rules_game *copy;
    int err = rules_game_new(&copy, g->variant->id, pos, why, whylen);
    if (err < 0)
        return err;
    for (size_t i = 0; i < g->nmoves && err == 0; i++)
        err = rules_game_play(copy, g->moves[i]);
    char moves[COND_MAX_PLIES][RULES_MOVE_TEXT];
    int n = split_line(line, moves, COND_MAX_PLIES);
    if (err == 0 && n < 2) {
        rules_why(why, whylen, "a line is their move then yours");
        err = RULES_EBAD_MOVE_TEXT;
    }
    for (int i = 0; i < n && err == 0; i++) {
        /* Alternating: theirs (even), yours (odd). */
        int who = i % 2 == 0 ? 1 - player : player;
        err = rules_game_play_text(copy, who, moves[i], NULL, why, whylen);
    }
    rules_game_free(copy);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Closing */

void store_work_begin(store *s)
{
    s->works++;
}

static void store_free(store *s)
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
    games_free(s);
    free(s->vac);
    free(s->ops);
    free(s);
}

void store_work_end(store *s)
{
    if (--s->works == 0 && s->closing && s->open_handles == 0)
        store_free(s);
}

static void handle_closed(uv_handle_t *h)
{
    store *s = h->data;
    if (--s->open_handles == 0 && s->works == 0)
        store_free(s);
}

void store_close(store *s)
{
    if (s == NULL)
        return;
    /* Callbacks may queue more (a conditional reply, the next move). */
    for (int round = 0; round < 16 && s->nops > 0; round++)
        store_flush(s);
    s->closing = true;
    for (size_t i = 0; i < s->nops; i++) {
        if (s->ops[i].cb)
            s->ops[i].cb(s->ops[i].arg, STORE_ECLOSED);
        op_free(&s->ops[i]);
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
    uv_close((uv_handle_t *)&s->group_timer, handle_closed);
    uv_close((uv_handle_t *)&s->deadline_timer, handle_closed);
    if (s->open_handles == 3)
        uv_close((uv_handle_t *)&s->written, handle_closed);
}
