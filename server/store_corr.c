/*
 * store_corr.c - correspondence: deadlines and timeouts, vacation (written
 * synchronously on the loop's connection), conditional lines (kept in
 * memory, written through the queue) and the "your turn" list. See store.h
 * and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"

/* ------------------------------------------------------------------------ */
/* Deadlines */

int64_t corr_deadline(store *s, const game_mem *g, int player, int64_t now)
{
    int64_t allot = g->tc.inc_ms ? g->clock_ms[player] : g->tc.base_ms;
    return mem_clock_start(s, g->account[player], now) + allot;
}

void store_check_deadlines(store *s)
{
    if (s->timeout_cb == NULL || s->closing)
        return;
    int64_t now = store_now(s);
    /* The index finds candidates; memory (which may be ahead of the disk by
     * queued moves) decides. */
    int64_t due[256];
    int n = 0;
    sql_stmt *st = db_use(s->st, ST_DEADLINES);
    sql_bind_i64(st, 1, now);
    while (n < 256 && sql_step(st) == SQL_ROW)
        due[n++] = sql_column_i64(st, 0);
    sql_reset(st);
    for (int i = 0; i < n; i++) {
        game_mem *g = mem_game_find(s, due[i]);
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
        clock_ms[p] = p < g->nplayers ? (g->tc.inc_ms ? g->clock_ms[p] : g->tc.base_ms) : 0;
    return 0;
}

void corr_deadline_tick(uv_timer_t *t)
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

int corr_load_vacations(store *s)
{
    sql_stmt *st = db_use(s->st, ST_VAC_ACTIVE);
    sql_bind_i64(st, 1, store_now(s));
    int err = 0;
    while (err == 0 && sql_step(st) == SQL_ROW)
        err = mem_vac_set(s, sql_column_i64(st, 0), sql_column_i64(st, 1), sql_column_i64(st, 2));
    sql_reset(st);
    return err;
}

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
    sql_stmt *st = db_use(s->st, ST_VAC_SELECT);
    sql_bind_i64(st, 1, account);
    int rc = sql_step(st);
    if (rc == SQL_ROW) {
        v->from_ms = sql_column_i64(st, 0);
        v->until_ms = sql_column_i64(st, 1);
        v->year = sql_column_int(st, 2);
        v->used = sql_column_int(st, 3);
    }
    sql_reset(st);
    return rc == SQL_ROW ? 0 : STORE_ENOT_FOUND;
}

/* Move every deadline of the account's games where it is to move by delta,
 * in memory and on disk (inside the caller's transaction). */
static int shift_deadlines(store *s, int64_t account, int64_t delta)
{
    acct_games *a = mem_account(s, account);
    for (size_t i = 0; a && i < a->n; i++) {
        game_mem *g = a->games[i];
        if (g->kind != STORE_CORR || g->to_move < 0 || g->account[g->to_move] != account)
            continue;
        g->deadline_ms += delta;
        g->fired_ply = -1;
        sql_stmt *st = db_use(s->st, ST_DEADLINE_SET);
        sql_bind_i64(st, 1, g->deadline_ms);
        sql_bind_i64(st, 2, g->id);
        if (db_run(st) < 0)
            return STORE_EDB;
    }
    return 0;
}

/* The vacation row and the deadlines it moves, in one transaction on the
 * loop's connection once the queue is written. */
static int vac_write(store *s, int64_t account, const vac_row *v, int64_t delta)
{
    if (store_flush(s) < 0 || db_run(db_use(s->st, ST_BEGIN)) < 0)
        return STORE_EDB;
    sql_stmt *st = db_use(s->st, ST_VAC_UPDATE);
    sql_bind_i64(st, 1, v->from_ms);
    sql_bind_i64(st, 2, v->until_ms);
    sql_bind_int(st, 3, v->year);
    sql_bind_int(st, 4, v->used);
    sql_bind_i64(st, 5, account);
    int err = db_run(st);
    if (err == 0)
        err = shift_deadlines(s, account, delta);
    if (err == 0)
        err = db_run(db_use(s->st, ST_COMMIT));
    if (err < 0) {
        db_run(db_use(s->st, ST_ROLLBACK));
        /* The deadlines moved in memory: back to what the disk has. */
        acct_games *a = mem_account(s, account);
        size_t n = a ? a->n : 0;
        int64_t *ids = n ? malloc(n * sizeof *ids) : NULL;
        for (size_t i = 0; ids && i < n; i++)
            ids[i] = a->games[i]->id;
        for (size_t i = 0; ids && i < n; i++)
            games_resync(s, ids[i]);
        free(ids);
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
     * that begin during it start at its end (mem_clock_start). */
    int err = vac_write(s, account, &nv, length);
    if (err < 0)
        return err;
    if (mem_vac_set(s, account, nv.from_ms, nv.until_ms) < 0)
        return STORE_ENOMEM;
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
    mem_vac_del(s, account);
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

enum { COND_MAX_LINES = 32, COND_MAX_PLIES = 64 };

/* Split a line into move texts (at most max); returns how many, or -1. */
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

/* Add a line to a player's lines in memory; 0 or STORE_ENOMEM. */
static int line_add(game_mem *g, int player, const char *line)
{
    if (array_reserve((void **)&g->cond[player], &g->condcap[player], (size_t)g->ncond[player] + 1,
                      sizeof *g->cond[player]) < 0)
        return STORE_ENOMEM;
    if ((g->cond[player][g->ncond[player]] = strdup(line)) == NULL)
        return STORE_ENOMEM;
    g->ncond[player]++;
    return 0;
}

static void lines_clear(game_mem *g, int player)
{
    mem_lines_free(g->cond[player], g->ncond[player]);
    g->cond[player] = NULL;
    g->ncond[player] = 0;
    g->condcap[player] = 0;
}

void corr_load_lines(store *s, game_mem *g)
{
    sql_stmt *st = db_use(s->st, ST_COND_SELECT);
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

static const op_kind cond_kind = {run_cond, queue_write_done, release_cond, false};

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

/* The game in progress `id`, if the store takes writes. */
static int cond_game(store *s, int64_t id, game_mem **out)
{
    int err = queue_refuses(s);
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
    lines_clear(g, player);
    for (int i = 0; i < nlines; i++)
        if (line_add(g, player, lines[i]) < 0) {
            lines_clear(g, player);
            return STORE_ENOMEM;
        }
    g->cond_at[player] = g->nmoves;
    return queue_cond(s, g, player, cb, arg);
}

int store_cond_get(store *s, int64_t game, int player, record_lines *out)
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (player < 0 || player >= RULES_MAX_PLAYERS)
        return STORE_EBAD_ARG;
    out->n = g->ncond[player];
    out->lines = (const char *const *)g->cond[player];
    return 0;
}

int store_cond_reply(store *s, int64_t game, int ply, const char *move, char reply[RULES_MOVE_TEXT])
{
    game_mem *g;
    int err = cond_game(s, game, &g);
    if (err < 0)
        return err;
    if (g->nplayers != 2 || g->to_move < 0 || ply != g->nmoves - 1)
        return 0;
    int player = g->to_move; /* whose lines answer the move */
    if (g->ncond[player] == 0)
        return 0;
    if (ply != g->cond_at[player]) {
        /* Moves were played without asking: the lines are out of date. */
        lines_clear(g, player);
        err = queue_cond(s, g, player, NULL, NULL);
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
    if (kept == 0)
        lines_clear(g, player);
    g->cond_at[player] = ply + 2;
    err = queue_cond(s, g, player, NULL, NULL);
    return err < 0 ? err : found;
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

void store_set_turn_cb(store *s, void (*cb)(void *, int64_t), void *arg)
{
    s->turn_cb = cb;
    s->turn_arg = arg;
}
