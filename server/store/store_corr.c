/*
 * store_corr.c - correspondence: deadlines and timeouts (found in memory),
 * vacation (queued calls: the account's row read on the writer, decided
 * and applied to memory on the loop, then written in a later batch),
 * conditional lines (kept in memory, written through the queue) and the
 * "your turn" list. See store.h and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* ------------------------------------------------------------------------ */
/* Deadlines */

int64_t corr_deadline(store *s, const game_mem *g, int player, int64_t now)
{
    return mem_clock_start(s, g->account[player], now) +
           corrclock_allot(&g->tc, g->clock_ms[player]);
}

typedef struct due_game {
    int64_t deadline_ms, id;
} due_game;

static int cmp_due(const void *a, const void *b)
{
    const due_game *x = a, *y = b;
    if (x->deadline_ms != y->deadline_ms)
        return x->deadline_ms < y->deadline_ms ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void store_check_deadlines(store *s)
{
    if (s->timeout_cb == NULL || s->closing)
        return;
    int64_t now = store_now(s);
    /* Memory (which may be ahead of the disk by queued moves) decides: no
     * query, so the loop does not wait on the database every second. 256 a
     * tick at most, the earliest first. */
    due_game due[256];
    int n = 0;
    game_mem *g, *gn;
    HASH_ITER(hh, s->games, g, gn)
    {
        if (g->kind != STORE_CORR || g->to_move < 0 || g->deadline_ms > now ||
            g->fired_ply == g->nmoves)
            continue;
        due[n++] = (due_game){g->deadline_ms, g->id};
        if (n == 256)
            break; /* the rest at the next tick */
    }
    qsort(due, (size_t)n, sizeof *due, cmp_due);
    /* The callback may change the table: the games are looked up again. */
    for (int i = 0; i < n; i++) {
        g = mem_game_find(s, due[i].id);
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
    game_mem *g = mem_game_find(s, game);
    if (g == NULL)
        return STORE_ENOT_FOUND;
    *deadline_ms = g->kind == STORE_CORR && g->to_move >= 0 ? g->deadline_ms : 0;
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        clock_ms[p] = p < g->nplayers ? corrclock_allot(&g->tc, g->clock_ms[p]) : 0;
    return 0;
}

void corr_deadline_tick(uv_timer_t *t)
{
    store_check_deadlines(t->data);
    store *s = t->data;
    if (s->engine == SQL_SQLITE)
        lite_watch(s); /* the same second's tick: is the file still there? */
}

void store_set_timeout_cb(store *s, void (*cb)(void *, int64_t, int), void *arg)
{
    s->timeout_cb = cb;
    s->timeout_arg = arg;
    store_check_deadlines(s);
}

/* ------------------------------------------------------------------------ */
/* Vacation */

int corr_load_vacations(store *s)
{
    sql_stmt *st = db_use(db_loop(s), ST_VAC_ACTIVE);
    sql_bind_i64(st, 1, store_now(s));
    int err = 0;
    while (err == 0 && sql_step(st) == SQL_ROW)
        err = mem_vac_set(s, sql_column_i64(st, 0), sql_column_i64(st, 1), sql_column_i64(st, 2));
    sql_reset(st);
    return err;
}

/*
 * A vacation request, in two queued calls: the account's row read (a
 * read, on the writer), then, once the loop has decided and moved the
 * deadlines in memory, the row and those deadlines written (a write,
 * queued behind every op queued meanwhile, which memory already counts).
 * A start or end of an account waits for the one before it (s->vac_busy).
 */
typedef enum { VAC_STATUS, VAC_START, VAC_END, VAC_SYNC } vac_what;

typedef struct vac_job {
    int64_t account;
    vac_what what;
    int days;
    bool found;                 /* read: the account has a row */
    corrclock_vacation row;     /* read: the row; then the row to write */
    vacation before;            /* the vacation in memory before (undone on failure) */
    bool had;                   /* ... if there was one */
    int64_t *games, *deadlines; /* the deadlines moved (written with the row) */
    lease_epoch **epochs;       /* node mode: each game's lease, for its fence */
    bool *fenced;               /* ... which the writer found lost (not written) */
    size_t n;
    int64_t until_ms; /* the answer */
    int days_left;
    char why[RULES_WHY_TEXT];
    store_vacation_cb cb;
    void *arg;
} vac_job;

static bool vac_busy(store *s, int64_t account)
{
    for (size_t i = 0; i < s->nvac_busy; i++)
        if (s->vac_busy[i] == account)
            return true;
    return false;
}

static void vac_unbusy(store *s, int64_t account)
{
    for (size_t i = 0; i < s->nvac_busy; i++)
        if (s->vac_busy[i] == account) {
            s->vac_busy[i] = s->vac_busy[--s->nvac_busy];
            return;
        }
}

/* Answer the request and free it. */
static void vac_answer(store *s, vac_job *j, int status)
{
    if (j->what == VAC_START || j->what == VAC_END)
        vac_unbusy(s, j->account);
    if (status < 0 && j->why[0] == '\0')
        rules_why(j->why, sizeof j->why, "%s", store_err_text(status));
    j->cb(j->arg, status, status < 0 ? 0 : j->until_ms, status < 0 ? 0 : j->days_left,
          status < 0 ? j->why : "");
    for (size_t i = 0; j->epochs && i < j->n; i++)
        lease_epoch_unref(j->epochs[i]);
    free(j->epochs);
    free(j->fenced);
    free(j->games);
    free(j->deadlines);
    free(j);
}

static int run_vac_read(store *s, void *arg)
{
    vac_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_VAC_SELECT);
    sql_bind_i64(st, 1, j->account);
    int rc = sql_step(st);
    j->found = rc == SQL_ROW;
    if (j->found) {
        j->row.from_ms = sql_column_i64(st, 0);
        j->row.until_ms = sql_column_i64(st, 1);
        j->row.year = sql_column_int(st, 2);
        j->row.used = sql_column_int(st, 3);
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static int run_vac_write(store *s, void *arg)
{
    vac_job *j = arg;
    int err = 0;
    if (j->what != VAC_SYNC) { /* a sync's row is the other node's to write */
        sql_stmt *st = db_use(s->wst, ST_VAC_UPDATE);
        sql_bind_i64(st, 1, j->row.from_ms);
        sql_bind_i64(st, 2, j->row.until_ms);
        sql_bind_int(st, 3, j->row.year);
        sql_bind_int(st, 4, j->row.used);
        sql_bind_i64(st, 5, j->account);
        err = db_run(st);
    }
    for (size_t i = 0; i < j->n && err == 0; i++) {
        if (s->node) {
            /* A game write like a move's: only under this node's fence. */
            int ok = lease_fence_ok(s, j->games[i], j->epochs[i]);
            if (ok < 0)
                return ok;
            j->fenced[i] = !ok;
            if (!ok)
                continue;
        }
        sql_stmt *st = db_use(s->wst, ST_DEADLINE_SET);
        sql_bind_i64(st, 1, j->deadlines[i]);
        sql_bind_i64(st, 2, j->games[i]);
        err = db_run(st);
    }
    return err;
}

/* Memory as it was before the request: its vacation, and its games as the
 * disk has them (the deadlines moved go back; ops queued behind the write
 * failed with it). */
static void vac_undo(store *s, vac_job *j)
{
    if (j->had)
        mem_vac_set(s, j->account, j->before.from_ms, j->before.until_ms);
    else
        mem_vac_del(s, j->account);
    for (size_t i = 0; i < j->n; i++)
        games_resync(s, j->games[i]);
}

static void done_vac_write(store *s, void *arg, int status)
{
    vac_job *j = arg;
    if (status < 0) {
        vac_undo(s, j);
    } else {
        for (size_t i = 0; s->node && i < j->n; i++)
            if (j->fenced[i])
                lease_lost(s, j->games[i], j->epochs[i]);
        if (s->turn_cb)
            s->turn_cb(s->turn_arg, j->account);
    }
    vac_answer(s, j, status);
}

/* Move every deadline of the account's games where it is to move by delta
 * in memory, and keep them in j to be written with the row. */
static int shift_deadlines(store *s, vac_job *j, int64_t delta)
{
    acct_games *a = mem_account(s, j->account);
    size_t n = a ? a->n : 0;
    if (n && s->node &&
        ((j->epochs = calloc(n, sizeof *j->epochs)) == NULL ||
         (j->fenced = calloc(n, sizeof *j->fenced)) == NULL))
        return STORE_ENOMEM;
    if (n && ((j->games = malloc(n * sizeof *j->games)) == NULL ||
              (j->deadlines = malloc(n * sizeof *j->deadlines)) == NULL))
        return STORE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        game_mem *g = a->games[i];
        if (g->kind != STORE_CORR || g->to_move < 0 || g->account[g->to_move] != j->account)
            continue;
        g->deadline_ms += delta;
        g->fired_ply = -1;
        if (s->node)
            j->epochs[j->n] = lease_epoch_ref(s, g->id);
        j->games[j->n] = g->id;
        j->deadlines[j->n++] = g->deadline_ms;
    }
    return 0;
}

/* Loop, the row read: the start decided (corrclock) and applied to
 * memory. 0 (the row to write in j->row), or the refusal with j->why. */
static int vac_start(store *s, vac_job *j, int64_t now, int64_t *delta)
{
    int err = corrclock_vacation_start(&j->row, j->days, now, delta, j->why, sizeof j->why);
    if (err < 0)
        return err == CORRCLOCK_EALREADY ? STORE_EBAD_ARG : STORE_EVACATION;
    return mem_vac_set(s, j->account, j->row.from_ms, j->row.until_ms);
}

static int vac_end(store *s, vac_job *j, int64_t now, int64_t *delta)
{
    if (corrclock_vacation_end(&j->row, now, delta, j->why, sizeof j->why) < 0)
        return STORE_ENOT_FOUND;
    mem_vac_del(s, j->account);
    return 0;
}

/* Loop, the row read (node mode): another node changed the vacation;
 * this node's memory and deadlines follow the row as that node's did.
 * STORE_ENOT_FOUND: nothing to change here. */
static int vac_sync(store *s, vac_job *j, int64_t now, int64_t *delta)
{
    const vacation *mem = mem_vac_find(s, j->account);
    bool mem_on = mem != NULL && mem->until_ms > now;
    if (corrclock_vacation_follow(&j->row, mem_on, mem_on ? mem->until_ms : 0, now, delta) < 0)
        return STORE_ENOT_FOUND;
    if (j->row.until_ms > now)
        return mem_vac_set(s, j->account, j->row.from_ms, j->row.until_ms);
    mem_vac_del(s, j->account);
    return 0;
}

static void done_vac_read(store *s, void *arg, int status)
{
    vac_job *j = arg;
    int64_t now = store_now(s);
    if (status == 0 && !j->found)
        status = STORE_ENOT_FOUND;
    if (status < 0 || j->what == VAC_STATUS) {
        j->until_ms = j->row.until_ms > now ? j->row.until_ms : 0;
        j->days_left = corrclock_days_left(&j->row, now);
        vac_answer(s, j, status);
        return;
    }
    const vacation *before = mem_vac_find(s, j->account);
    j->had = before != NULL;
    if (before)
        j->before = *before;
    int64_t delta = 0;
    int err = j->what == VAC_START ? vac_start(s, j, now, &delta)
              : j->what == VAC_END ? vac_end(s, j, now, &delta)
                                   : vac_sync(s, j, now, &delta);
    if (err == 0)
        err = shift_deadlines(s, j, delta);
    if (err == 0)
        err = queue_call(s, run_vac_write, done_vac_write, j, false);
    if (err < 0) {
        if (err != STORE_EBAD_ARG && err != STORE_EVACATION && err != STORE_ENOT_FOUND)
            vac_undo(s, j);
        vac_answer(s, j, err);
        return;
    }
    j->until_ms = j->row.until_ms > now ? j->row.until_ms : 0;
    j->days_left = corrclock_days_left(&j->row, now);
}

/* Queue the read that starts request j (freed if it cannot be). */
static int vac_queue(store *s, int64_t account, vac_what what, int days, store_vacation_cb cb,
                     void *arg)
{
    if (cb == NULL)
        return STORE_EBAD_ARG;
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (what == VAC_START || what == VAC_END) {
        /* One change of an account's vacation at a time: the next reads
         * the row the last wrote (a sync only follows the row). */
        if (vac_busy(s, account))
            return STORE_EBUSY;
        if (array_reserve((void **)&s->vac_busy, &s->capvac_busy, s->nvac_busy + 1,
                          sizeof *s->vac_busy) < 0)
            return STORE_ENOMEM;
    }
    vac_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    *j = (vac_job){.account = account, .what = what, .days = days, .cb = cb, .arg = arg};
    err = queue_call(s, run_vac_read, done_vac_read, j, true);
    if (err < 0) {
        free(j);
        return err;
    }
    if (what == VAC_START || what == VAC_END)
        s->vac_busy[s->nvac_busy++] = account;
    return 0;
}

int store_vacation_sync(store *s, int64_t account, store_vacation_cb cb, void *arg)
{
    return s->node ? vac_queue(s, account, VAC_SYNC, 0, cb, arg) : STORE_EBAD_ARG;
}

int store_vacation_start(store *s, int64_t account, int days, store_vacation_cb cb, void *arg)
{
    if (days < 1)
        return STORE_EBAD_ARG; /* more than the year's days: STORE_EVACATION, with why */
    return vac_queue(s, account, VAC_START, days, cb, arg);
}

int store_vacation_end(store *s, int64_t account, store_vacation_cb cb, void *arg)
{
    return vac_queue(s, account, VAC_END, 0, cb, arg);
}

int64_t store_vacation_until(store *s, int64_t account)
{
    const vacation *v = account ? mem_vac_find(s, account) : NULL;
    int64_t now = store_now(s);
    return v != NULL && v->from_ms <= now && now < v->until_ms ? v->until_ms : 0;
}

int store_vacation_status(store *s, int64_t account, store_vacation_cb cb, void *arg)
{
    return vac_queue(s, account, VAC_STATUS, 0, cb, arg);
}

/* ------------------------------------------------------------------------ */
/* Conditional moves */

/* How many move texts a line holds (at most max), or -1. */
static int count_moves(const char *line, int max)
{
    int n = 0, got;
    char move[RULES_MOVE_TEXT];
    while ((got = record_line_next(&line, move)) > 0)
        if (n++ == max)
            return -1;
    return got < 0 ? -1 : n;
}

/* Add a line the player's lines take over (freed with them); 0, or
 * STORE_ENOMEM (not taken: still the caller's). */
static int line_take(game_mem *g, int player, char *line)
{
    if (array_reserve((void **)&g->cond[player], &g->condcap[player], (size_t)g->ncond[player] + 1,
                      sizeof *g->cond[player]) < 0)
        return STORE_ENOMEM;
    g->cond[player][g->ncond[player]++] = line;
    return 0;
}

/* Add a line to a player's lines in memory; 0 or STORE_ENOMEM. */
static int line_add(game_mem *g, int player, const char *line)
{
    char *copy = strdup(line);
    if (copy == NULL)
        return STORE_ENOMEM;
    int err = line_take(g, player, copy);
    if (err < 0)
        free(copy);
    return err;
}

static void lines_clear(game_mem *g, int player)
{
    mem_lines_free(g->cond[player], g->ncond[player]);
    g->cond[player] = NULL;
    g->ncond[player] = 0;
    g->condcap[player] = 0;
}

void corr_load_lines(sql_stmt *const *set, game_mem *g)
{
    sql_stmt *st = db_use(set, ST_COND_SELECT);
    sql_bind_i64(st, 1, g->id);
    while (sql_step(st) == SQL_ROW) {
        int player = sql_column_int(st, 0);
        if (player >= 0 && player < RULES_MAX_PLAYERS)
            line_add(g, player, sql_column_text(st, 1));
    }
    sql_reset(st);
    /* Lines wait for the opponent's next move (if the server stopped before
     * playing an answer, the one after it). */
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        g->cond_at[p] = g->to_move == p ? g->nmoves + 1 : g->nmoves;
}

static int run_cond(store *s, op *o)
{
    sql_stmt *st = db_use(s->wst, ST_COND_DELETE);
    sql_bind_i64(st, 1, o->game);
    sql_bind_int(st, 2, o->player);
    int err = db_run(st);
    for (int i = 0; i < o->nlines && err == 0; i++) {
        st = db_use(s->wst, ST_COND_INSERT);
        sql_bind_i64(st, 1, o->game);
        sql_bind_int(st, 2, o->player);
        sql_bind_int(st, 3, i);
        sql_bind_text(st, 4, o->lines[i], -1);
        err = db_run(st);
    }
    return err;
}

static void release_cond(op *o)
{
    mem_lines_free(o->lines, o->nlines);
}

static const op_kind cond_kind = {run_cond, queue_write_done, release_cond, false, LEASE_CHECK};

/* Queue the player's lines as they are in memory now; cb (may be NULL)
 * once they are written. */
static int queue_cond(store *s, game_mem *g, int player, store_done_cb cb, void *arg)
{
    op *o = queue_push(s, &cond_kind, g->id);
    if (o == NULL)
        return STORE_ENOMEM;
    o->cb.write = cb;
    o->arg = arg;
    o->player = player;
    o->lines = g->ncond[player] ? calloc((size_t)g->ncond[player], sizeof *o->lines) : NULL;
    if (g->ncond[player] && o->lines == NULL)
        return STORE_ENOMEM;
    for (; o->nlines < g->ncond[player]; o->nlines++)
        if ((o->lines[o->nlines] = strdup(g->cond[player][o->nlines])) == NULL)
            return STORE_ENOMEM;
    return 0;
}

/* The game in progress `id`, if the store takes writes (node mode: if
 * this node holds its lease). */
static int cond_game(store *s, int64_t id, game_mem **out)
{
    int err = queue_refuses(s);
    if (err == 0)
        err = lease_writable(s, id);
    if (err < 0)
        return err;
    *out = mem_game_find(s, id);
    return *out ? 0 : STORE_ENOT_FOUND;
}

int store_cond_set(store *s, int64_t game, int player, const char *const *lines, int nlines,
                   store_done_cb cb, void *arg, char *why, size_t whylen)
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (g->kind != STORE_CORR || g->nplayers != 2 || player < 0 || player > 1 || nlines < 0 ||
        nlines > STORE_COND_MAX_LINES) {
        rules_why(why, whylen,
                  "conditional moves are for two-player "
                  "correspondence games, at most %d lines",
                  STORE_COND_MAX_LINES);
        return STORE_EBAD_ARG;
    }
    if (g->to_move != 1 - player) {
        rules_why(why, whylen, "%s", store_err_text(STORE_ENOT_YOUR_TURN));
        return STORE_ENOT_YOUR_TURN;
    }
    for (int i = 0; i < nlines; i++) {
        int n = count_moves(lines[i], STORE_COND_MAX_PLIES);
        if (n < 2) {
            rules_why(why, whylen,
                      "line %d: a line is their move then yours (then theirs "
                      "and yours ...), at most %d moves",
                      i + 1, STORE_COND_MAX_PLIES);
            return STORE_EBAD_ARG;
        }
    }
    lines_clear(g, player);
    for (int i = 0; i < nlines; i++)
        if (line_add(g, player, lines[i]) < 0) {
            lines_clear(g, player);
            return STORE_ENOMEM;
        }
    g->cond_at[player] = g->nmoves;
    return queue_cond(s, g, player, cb, arg);
}

int store_cond_get(store *s, int64_t game, int player, record_lines *out, int *at_ply)
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= RULES_MAX_PLAYERS)
        return STORE_EBAD_ARG;
    out->n = g->ncond[player];
    out->lines = (const char *const *)g->cond[player];
    if (at_ply != NULL)
        *at_ply = g->cond_at[player];
    return 0;
}

int store_cond_replace(store *s, int64_t game, int player, const char *const *lines, int nlines,
                       int at_ply)
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= g->nplayers || nlines < 0 || nlines > STORE_COND_MAX_LINES)
        return STORE_EBAD_ARG;
    /* Copied before the old lines go (lines may point into them); the
     * copies become the player's lines. */
    char *copy[STORE_COND_MAX_LINES];
    int ncopy = 0, taken = 0;
    while (ncopy < nlines && (copy[ncopy] = strdup(lines[ncopy])) != NULL)
        ncopy++;
    if (ncopy == nlines) {
        lines_clear(g, player);
        while (taken < ncopy && line_take(g, player, copy[taken]) == 0)
            taken++;
    }
    for (int i = taken; i < ncopy; i++)
        free(copy[i]);
    if (taken < nlines) {
        lines_clear(g, player);
        return STORE_ENOMEM;
    }
    g->cond_at[player] = at_ply;
    return queue_cond(s, g, player, NULL, NULL);
}

int store_cond_clear(store *s, int64_t game, int player, store_done_cb cb, void *arg)
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= g->nplayers)
        return STORE_EBAD_ARG;
    if (g->ncond[player] == 0 && cb == NULL)
        return 0; /* nothing to write, no one waits */
    lines_clear(g, player);
    return queue_cond(s, g, player, cb, arg);
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
    acct_games *a = account ? mem_account(s, account) : NULL;
    for (size_t i = 0; a && i < a->n; i++) {
        const game_mem *g = a->games[i];
        if (g->to_move < 0 || g->account[g->to_move] != account)
            continue;
        if (array_reserve((void **)&all, &cap, (size_t)n + 1, sizeof *all) < 0) {
            free(all);
            return STORE_ENOMEM;
        }
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

/* The same list read from the database (node mode: every node's games). */
typedef struct turns_job {
    int64_t account;
    store_turn *turns;
    size_t n, cap;
    int status;
    store_turns_cb cb;
    void *arg;
} turns_job;

static int run_turns(store *s, void *arg)
{
    turns_job *j = arg;
    sql_stmt *st = db_use(s->wst, ST_TURNS_OF);
    sql_bind_i64(st, 1, j->account);
    sql_bind_int(st, 2, STORE_TURNS_MAX);
    int rc;
    j->n = 0;
    j->status = 0;
    while ((rc = sql_step(st)) == SQL_ROW) {
        if (array_reserve((void **)&j->turns, &j->cap, j->n + 1, sizeof *j->turns) < 0) {
            j->status = STORE_ENOMEM;
            break;
        }
        store_turn *t = &j->turns[j->n++];
        memset(t, 0, sizeof *t);
        t->game = sql_column_i64(st, 0);
        const char *v = sql_column_text(st, 1);
        snprintf(t->variant, sizeof t->variant, "%s", v ? v : "");
        t->kind = (store_kind)sql_column_i64(st, 2);
        t->ply = (int)sql_column_i64(st, 3);
        t->deadline_ms = t->kind == STORE_CORR ? sql_column_i64(st, 4) : 0;
    }
    sql_reset(st);
    return rc == SQL_ROW || rc == SQL_DONE ? 0 : STORE_EDB;
}

static void done_turns(store *s, void *arg, int status)
{
    (void)s;
    turns_job *j = arg;
    if (status == 0)
        status = j->status;
    if (status == 0 && j->n > 1)
        qsort(j->turns, j->n, sizeof *j->turns, cmp_turn);
    j->cb(j->arg, status, status == 0 ? j->turns : NULL, status == 0 ? (int)j->n : 0);
    free(j->turns);
    free(j);
}

int store_turns_of(store *s, int64_t account, store_turns_cb cb, void *arg)
{
    if (s->node == NULL || cb == NULL)
        return STORE_EBAD_ARG;
    turns_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    j->account = account;
    j->cb = cb;
    j->arg = arg;
    int err = queue_call(s, run_turns, done_turns, j, true);
    if (err < 0)
        free(j);
    return err;
}

void store_set_turn_cb(store *s, void (*cb)(void *, int64_t), void *arg)
{
    s->turn_cb = cb;
    s->turn_arg = arg;
}
