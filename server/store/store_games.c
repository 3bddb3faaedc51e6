/*
 * store_games.c - games: creation, moves, leaves and results (queued, with
 * the game in memory updated at once), reading whole games (queued reads
 * on the writer's connection; start-up reads on the loop's) and loading the
 * games in progress into memory. See store.h and store_impl.h.
 */
#include "store_aside.h"
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "proto.h"

/* ------------------------------------------------------------------------ */
/* Time controls */

/* Whole days of the protocol's list (PROTO_CORR_DAYS, sent to clients). */
static bool allowed_days(int64_t ms)
{
    return ms % STORE_DAY_MS == 0 && proto_corr_days_allowed(ms / STORE_DAY_MS);
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

/* ------------------------------------------------------------------------ */
/* Writes: the op kinds */

static int run_create(store *s, op *o)
{
    const store_new_game *g = o->create;
    sql_stmt *st = db_use(s->wst, ST_GAME_INSERT);
    sql_bind_i64(st, 1, o->game);
    sql_bind_text(st, 2, g->variant, -1);
    if (g->position)
        sql_bind_text(st, 3, g->position, -1);
    sql_bind_int(st, 4, g->kind);
    sql_bind_int(st, 5, g->rated);
    sql_bind_int(st, 6, g->nplayers);
    sql_bind_i64(st, 7, g->tc.base_ms);
    sql_bind_i64(st, 8, g->tc.inc_ms);
    sql_bind_i64(st, 9, g->tc.cap_ms);
    if (g->options)
        sql_bind_text(st, 10, g->options, -1);
    sql_bind_i64(st, 11, o->at_ms);
    sql_bind_i64(st, 12, o->at_ms);
    sql_bind_int(st, 13, g->to_move);
    sql_bind_i64(st, 14, o->deadline_ms);
    int err = db_run(st);
    for (int p = 0; p < g->nplayers && err == 0; p++) {
        st = db_use(s->wst, ST_PLAYER_INSERT);
        sql_bind_i64(st, 1, o->game);
        sql_bind_int(st, 2, p);
        if (g->players[p].account)
            sql_bind_i64(st, 3, g->players[p].account);
        sql_bind_text(st, 4, g->players[p].name, -1);
        sql_bind_i64(st, 5, o->clock_ms[p]);
        err = db_run(st);
    }
    return err;
}

static void new_game_free(store_new_game *g)
{
    if (g == NULL)
        return;
    free((char *)g->variant);
    free((char *)g->position);
    free((char *)g->options);
    free(g);
}

static void release_create(op *o)
{
    new_game_free(o->create);
}

/* The game's row after a move or a leave: nmoves, to move, deadline. */
static int advance(store *s, const op *o, int nmoves)
{
    sql_stmt *st = db_use(s->wst, ST_GAME_ADVANCE);
    sql_bind_int(st, 1, nmoves);
    sql_bind_int(st, 2, o->next);
    sql_bind_i64(st, 3, o->at_ms);
    sql_bind_i64(st, 4, o->deadline_ms);
    sql_bind_i64(st, 5, o->game);
    return db_run(st);
}

static int run_move(store *s, op *o)
{
    sql_stmt *st = db_use(s->wst, ST_MOVE_INSERT);
    sql_bind_i64(st, 1, o->game);
    sql_bind_int(st, 2, o->ply);
    sql_bind_int(st, 3, o->player);
    sql_bind_text(st, 4, o->text, -1);
    sql_bind_i64(st, 5, o->at_ms);
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        sql_bind_i64(st, 6 + p, o->clock_ms[p]);
    int err = db_run(st);
    return err < 0 ? err : advance(s, o, o->ply + 1);
}

static int run_leave(store *s, op *o)
{
    sql_stmt *st = db_use(s->wst, ST_LEAVE_INSERT);
    sql_bind_i64(st, 1, o->game);
    sql_bind_int(st, 2, o->player);
    sql_bind_int(st, 3, o->ply);
    sql_bind_text(st, 4, rules_reason_name(o->reason), -1);
    sql_bind_i64(st, 5, o->at_ms);
    int err = db_run(st);
    if (err < 0)
        return err;
    st = db_use(s->wst, ST_PLAYER_OUTCOME);
    sql_bind_int(st, 1, RULES_OUTCOME_LOSS);
    sql_bind_i64(st, 2, o->game);
    sql_bind_int(st, 3, o->player);
    err = db_run(st);
    return err < 0 ? err : advance(s, o, o->ply);
}

static int run_finish(store *s, op *o)
{
    int err = 0;
    sql_stmt *st;
    for (int p = 0; p < RULES_MAX_PLAYERS && err == 0; p++) {
        st = db_use(s->wst, ST_PLAYER_OUTCOME);
        sql_bind_int(st, 1, o->result.outcome[p]);
        sql_bind_i64(st, 2, o->game);
        sql_bind_int(st, 3, p);
        err = db_run(st);
    }
    if (err < 0)
        return err;
    st = db_use(s->wst, ST_GAME_FINISH);
    sql_bind_int(st, 1, o->result.winner);
    sql_bind_text(st, 2, rules_reason_name(o->result.reason), -1);
    sql_bind_i64(st, 3, o->at_ms);
    sql_bind_i64(st, 4, o->game);
    if ((err = db_run(st)) < 0)
        return err;
    /* A finished game has no conditional lines. */
    st = db_use(s->wst, ST_COND_DELETE);
    sql_bind_i64(st, 1, o->game);
    for (int p = 0; p < RULES_MAX_PLAYERS && err == 0; p++) {
        sql_bind_int(st, 2, p);
        err = db_run(st);
    }
    return err < 0 ? err : ratings_apply(s, o);
}

/* A takeback: the moves from ply o->ply on go; the clocks now are the last
 * move's (what a restart restores). */
static int run_takeback(store *s, op *o)
{
    sql_stmt *st = db_use(s->wst, ST_MOVES_TRUNCATE);
    sql_bind_i64(st, 1, o->game);
    sql_bind_int(st, 2, o->ply);
    int err = db_run(st);
    if (err == 0 && o->ply > 0) {
        st = db_use(s->wst, ST_MOVE_CLOCKS);
        for (int p = 0; p < RULES_MAX_PLAYERS; p++)
            sql_bind_i64(st, 1 + p, o->clock_ms[p]);
        sql_bind_i64(st, 4, o->game);
        sql_bind_int(st, 5, o->ply - 1);
        err = db_run(st);
    }
    return err < 0 ? err : advance(s, o, o->ply);
}

static void done_finish(store *s, op *o, int status)
{
    ratings_done(s, o, status);
    queue_write_done(s, o, status);
}

/* In node mode each is fenced (lease_run): a creation inserts its lease,
 * a result deletes it, the others check it. */
static const op_kind create_kind = {run_create, queue_write_done, release_create, false, LEASE_NEW};
static const op_kind move_kind = {run_move, queue_write_done, NULL, false, LEASE_CHECK};
static const op_kind leave_kind = {run_leave, queue_write_done, NULL, false, LEASE_CHECK};
static const op_kind finish_kind = {run_finish, done_finish, ratings_release, false, LEASE_END};
static const op_kind takeback_kind = {run_takeback, queue_write_done, NULL, false, LEASE_CHECK};

/* ------------------------------------------------------------------------ */
/* Create, move, leave, finish */

static char *dup_or_null(const char *t)
{
    return t ? strdup(t) : NULL;
}

int store_game_create(store *s, const store_new_game *ng, int64_t *id, store_done_cb cb, void *arg,
                      char *why, size_t whylen)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (ng->variant == NULL || ng->nplayers < 2 || ng->nplayers > RULES_MAX_PLAYERS ||
        ng->to_move < 0 || ng->to_move >= ng->nplayers ||
        strlen(ng->variant) >= RECORD_VARIANT_MAX) {
        rules_why(why, whylen, "a game has a variant and 2 or 3 players");
        return STORE_EBAD_ARG;
    }
    if (ng->kind == STORE_CORR || ng->rated)
        for (int p = 0; p < ng->nplayers; p++)
            if (ng->players[p].account == 0 && (ng->players[p].bot == 0 || ng->rated)) {
                rules_why(why, whylen, "%s: %s", ng->players[p].name,
                          store_err_text(STORE_ENEED_ACCOUNT));
                return STORE_ENEED_ACCOUNT;
            }
    if (ng->kind == STORE_CORR && (err = store_tc_check(&ng->tc, why, whylen)) < 0)
        return err;
    game_mem *g = calloc(1, sizeof *g);
    store_new_game *copy = calloc(1, sizeof *copy);
    if (g == NULL || copy == NULL)
        goto out_nomem;
    *copy = *ng;
    copy->variant = strdup(ng->variant);
    copy->position = dup_or_null(ng->position);
    copy->options = dup_or_null(ng->options);
    if (copy->variant == NULL || (ng->position && copy->position == NULL) ||
        (ng->options && copy->options == NULL))
        goto out_nomem;

    int64_t now = store_now(s);
    g->id = s->next_id;
    if (s->node && (err = lease_game_id(s, &g->id)) < 0) {
        free(g);
        new_game_free(copy);
        return err;
    }
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
    /* Node mode: the new game's lease, held before the creation is queued
     * (the op takes a reference to it). */
    if (s->node && lease_new(s, g->id, now) < 0)
        goto out_nomem;
    op *o = queue_push(s, &create_kind, g->id);
    if (o == NULL || mem_game_insert(s, g) < 0) {
        if (o)
            queue_pop(s);
        if (s->node) {
            lease_epoch_unref(o ? o->epoch : NULL);
            lease_forget(s, g->id);
        }
        goto out_nomem;
    }
    if (!s->node)
        s->next_id++;
    o->create = copy;
    o->cb.write = cb;
    o->arg = arg;
    o->deadline_ms = g->deadline_ms;
    memcpy(o->clock_ms, g->clock_ms, sizeof o->clock_ms);
    o->notify[0] = g->account[g->to_move];
    *id = g->id;
    return 0;

out_nomem:
    free(g);
    new_game_free(copy);
    return STORE_ENOMEM;
}

/* The game in progress `id`, if the store takes writes (node mode: if
 * this node holds its lease). */
static int check_game(store *s, int64_t id, game_mem **out)
{
    int err = queue_refuses(s);
    if (err == 0)
        err = lease_writable(s, id);
    if (err < 0)
        return err;
    *out = mem_game_find(s, id);
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
    op *o = queue_push(s, &move_kind, game);
    if (o == NULL)
        return STORE_ENOMEM;
    int64_t now = o->at_ms;
    if (g->kind == STORE_CORR) {
        if (g->tc.inc_ms)
            g->clock_ms[m->player] = corrclock_bank_after(
                &g->tc, g->deadline_ms, mem_clock_start(s, g->account[m->player], now));
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
    o->cb.write = cb;
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
    op *o = queue_push(s, &leave_kind, game);
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
    o->cb.write = cb;
    o->arg = arg;
    return 0;
}

int store_takeback(store *s, int64_t game, int nmoves, int next, const int64_t *clock_ms,
                   store_done_cb cb, void *arg)
{
    game_mem *g;
    int err = check_game(s, game, &g);
    if (err < 0)
        return err;
    if (g->kind == STORE_CORR)
        return STORE_EBAD_ARG; /* deadlines and conditional lines follow the moves */
    if (nmoves < 0 || nmoves >= g->nmoves || next < 0 || next >= g->nplayers)
        return STORE_EBAD_PLY;
    op *o = queue_push(s, &takeback_kind, game);
    if (o == NULL)
        return STORE_ENOMEM;
    for (int p = 0; p < g->nplayers; p++)
        g->clock_ms[p] = clock_ms[p];
    g->nmoves = nmoves;
    g->to_move = next;
    g->last_move_ms = o->at_ms;
    g->fired_ply = -1;
    o->ply = nmoves;
    o->next = next;
    o->deadline_ms = 0;
    memcpy(o->clock_ms, g->clock_ms, sizeof o->clock_ms);
    o->cb.write = cb;
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
    op *o = queue_push(s, &finish_kind, game);
    if (o == NULL)
        return STORE_ENOMEM;
    o->result = *r;
    for (int p = 0; p < g->nplayers; p++)
        o->notify[p] = g->account[p];
    o->cb.write = cb;
    o->arg = arg;
    mem_game_remove(s, game);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading whole games */

/* A game as read, with the memory its record points into. */
typedef struct game_buf {
    store_game_info info;
    record_move *moves;
    record_leave *leaves;
    char *variant, *position, *options;
    char **texts;
} game_buf;

static void game_buf_free(game_buf *b)
{
    for (int i = 0; b->texts && i < b->info.nmoves; i++)
        free(b->texts[i]);
    free(b->texts);
    free(b->moves);
    free(b->leaves);
    free(b->variant);
    free(b->position);
    free(b->options);
}

/* Read game `id` with a connection's statements (set: s->st or s->wst).
 * 0, STORE_ENOT_FOUND or STORE_ENOMEM; free b with game_buf_free either
 * way. */
static int game_read(sql_stmt *const *set, int64_t id, game_buf *b)
{
    memset(b, 0, sizeof *b);
    store_game_info *gi = &b->info;
    sql_stmt *st = db_use(set, ST_GAME_SELECT);
    sql_bind_i64(st, 1, id);
    if (sql_step(st) != SQL_ROW) {
        sql_reset(st);
        return STORE_ENOT_FOUND;
    }
    gi->id = id;
    b->variant = db_col_dup(st, 0);
    b->position = db_col_dup(st, 1);
    gi->kind = (store_kind)sql_column_int(st, 2);
    gi->rated = sql_column_int(st, 3);
    gi->nplayers = sql_column_int(st, 4);
    gi->tc.base_ms = sql_column_i64(st, 5);
    gi->tc.inc_ms = sql_column_i64(st, 6);
    gi->tc.cap_ms = sql_column_i64(st, 7);
    b->options = db_col_dup(st, 8);
    gi->created_ms = sql_column_i64(st, 9);
    gi->last_move_ms = sql_column_i64(st, 10);
    int nmoves = sql_column_int(st, 11);
    gi->to_move = sql_column_int(st, 12);
    gi->deadline_ms = sql_column_i64(st, 13);
    gi->finished = sql_column_int(st, 14);
    gi->result.over = gi->finished;
    gi->result.winner = (int8_t)sql_column_int(st, 15);
    gi->result.reason = db_reason(sql_column_text(st, 16));
    gi->finished_ms = sql_column_i64(st, 17);
    sql_reset(st);
    gi->variant = b->variant;
    gi->position = b->position;
    gi->options = b->options;

    st = db_use(set, ST_PLAYERS_SELECT);
    sql_bind_i64(st, 1, id);
    while (sql_step(st) == SQL_ROW) {
        int seat = sql_column_int(st, 0);
        if (seat < 0 || seat >= RULES_MAX_PLAYERS)
            continue;
        gi->players[seat].account = sql_column_i64(st, 1);
        snprintf(gi->players[seat].name, STORE_NAME_MAX, "%s", sql_column_text(st, 2));
        gi->clock_ms[seat] = sql_column_i64(st, 3);
        gi->result.outcome[seat] = (uint8_t)sql_column_int(st, 4);
    }
    sql_reset(st);

    b->moves = calloc((size_t)nmoves + 1, sizeof *b->moves);
    b->texts = calloc((size_t)nmoves + 1, sizeof *b->texts);
    if (b->moves == NULL || b->texts == NULL)
        return STORE_ENOMEM;
    st = db_use(set, ST_MOVES_SELECT);
    sql_bind_i64(st, 1, id);
    while (gi->nmoves < nmoves && sql_step(st) == SQL_ROW) {
        record_move *m = &b->moves[gi->nmoves];
        m->ply = sql_column_int(st, 0);
        m->player = sql_column_int(st, 1);
        b->texts[gi->nmoves] = db_col_dup(st, 2);
        m->text = b->texts[gi->nmoves] ? b->texts[gi->nmoves] : "";
        m->at_ms = sql_column_i64(st, 3);
        for (int p = 0; p < RULES_MAX_PLAYERS; p++)
            m->clock_ms[p] = sql_column_null(st, 4 + p)
                                 ? gi->clock_ms[p] /* written without clocks */
                                 : sql_column_i64(st, 4 + p);
        gi->nmoves++;
    }
    sql_reset(st);
    if (gi->nmoves > 0)
        for (int p = 0; p < gi->nplayers; p++)
            gi->clock_ms[p] = b->moves[gi->nmoves - 1].clock_ms[p];

    b->leaves = calloc(RULES_MAX_PLAYERS, sizeof *b->leaves);
    if (b->leaves == NULL)
        return STORE_ENOMEM;
    st = db_use(set, ST_LEAVES_SELECT);
    sql_bind_i64(st, 1, id);
    while (gi->nleaves < RULES_MAX_PLAYERS && sql_step(st) == SQL_ROW) {
        record_leave *l = &b->leaves[gi->nleaves++];
        l->player = sql_column_int(st, 0);
        l->after_ply = sql_column_int(st, 1);
        l->reason = db_reason(sql_column_text(st, 2));
        l->at_ms = sql_column_i64(st, 3);
    }
    sql_reset(st);
    gi->moves = b->moves;
    gi->leaves = b->leaves;
    return 0;
}

/* A queued read of one game: run on the writer's connection, answered on
 * the loop. */
static void release_read(op *o);

static int run_read(store *s, op *o)
{
    release_read(o); /* a retry reads again */
    o->answer = NULL;
    game_buf *b = malloc(sizeof *b);
    if (b == NULL) {
        o->status = STORE_ENOMEM;
        return 0;
    }
    o->answer = b;
    o->status = game_read(s->wst, o->game, b);
    return 0;
}

static void done_read(store *s, op *o, int status)
{
    (void)s;
    if (status == 0)
        status = o->status;
    game_buf *b = o->answer;
    o->cb.game(o->arg, status, status == 0 ? &b->info : NULL);
}

static void release_read(op *o)
{
    if (o->answer != NULL) {
        game_buf_free(o->answer);
        free(o->answer);
    }
}

static const op_kind read_kind = {run_read, done_read, release_read, true, LEASE_NONE};

int store_game_get(store *s, int64_t id, store_game_get_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    op *o = queue_push(s, &read_kind, id);
    if (o == NULL)
        return STORE_ENOMEM;
    o->cb.game = cb;
    o->arg = arg;
    return 0;
}

int store_load_in_progress(store *s, store_game_cb cb, void *arg)
{
    if (store_flush(s) < 0)
        return STORE_EDB;
    size_t n;
    int64_t *ids = mem_game_ids(s, &n);
    if (ids == NULL)
        return STORE_ENOMEM;
    int err = 0, count = 0;
    for (size_t i = 0; i < n && err == 0; i++) {
        game_buf b;
        err = game_read(db_loop(s), ids[i], &b);
        if (err == 0) {
            cb(arg, &b.info);
            count++;
        }
        game_buf_free(&b);
    }
    free(ids);
    return err < 0 ? err : count;
}

/* The mark, on a connection's statements (the loop's at start, the
 * writer's while serving). */
static int write_aside(sql_stmt *const *set, int64_t id, const char *why)
{
    sql_stmt *st = db_use(set, ST_SET_ASIDE);
    sql_bind_text(st, 1, why, -1);
    sql_bind_i64(st, 2, id);
    return db_run(st);
}

int store_set_aside(store *s, int64_t id, const char *why)
{
    int err = write_aside(db_loop(s), id, why);
    if (err < 0)
        return err;
    mem_game_remove(s, id); /* no deadline, turn or line of it any more */
    return 0;
}

/* store_set_aside_queued: the mark, written by the writer. */
typedef struct aside_job {
    int64_t id;
    char why[STORE_ASIDE_WHY_MAX];
} aside_job;

static int run_aside(store *s, void *arg)
{
    aside_job *j = arg;
    return write_aside(s->wst, j->id, j->why);
}

static void done_aside(store *s, void *arg, int status)
{
    aside_job *j = arg;
    if (status == 0)
        mem_game_remove(s, j->id);
    log_kv(status == 0 ? LOG_INFO : LOG_ERROR, "game set aside", "game=%lld stored=%s",
           (long long)j->id, status == 0 ? "yes" : store_err_code(status));
    free(j);
}

int store_set_aside_queued(store *s, int64_t id, const char *why)
{
    aside_job *j = malloc(sizeof *j);
    if (j == NULL)
        return STORE_ENOMEM;
    j->id = id;
    snprintf(j->why, sizeof j->why, "%s", why);
    int err = queue_call(s, run_aside, done_aside, j, false);
    if (err < 0)
        free(j);
    return err;
}

int store_set_aside_list(store *s, store_set_aside_cb cb, void *arg)
{
    sql_stmt *st = db_use(db_loop(s), ST_SET_ASIDE_LIST);
    int rc, count = 0;
    while ((rc = sql_step(st)) == SQL_ROW) {
        const char *v = sql_column_text(st, 1), *why = sql_column_text(st, 2);
        cb(arg, sql_column_i64(st, 0), v ? v : "", why ? why : "");
        count++;
    }
    sql_reset(st);
    return rc == SQL_DONE ? count : STORE_EDB;
}

int store_set_aside_clear(store *s, int64_t id)
{
    sql_stmt *st = db_use(db_loop(s), ST_SET_ASIDE_CLEAR);
    sql_bind_i64(st, 1, id);
    int rc = sql_step(st);
    sql_reset(st);
    if (rc != SQL_DONE)
        return STORE_EDB;
    return sql_changes(s->db) > 0;
}

/* ------------------------------------------------------------------------ */
/* Loading the games in progress into memory */

/* A game in progress in memory's form, from its records (and its lines
 * read with set's statements), or NULL if out of memory. */
static game_mem *mem_from(sql_stmt *const *set, const game_buf *b)
{
    game_mem *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    const store_game_info *gi = &b->info;
    g->id = gi->id;
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
    corr_load_lines(set, g);
    return g;
}

/* One game in progress into memory, from its records. */
static int load_one(store *s, int64_t id)
{
    game_buf b;
    int err = game_read(db_loop(s), id, &b);
    if (err < 0 || b.info.finished) {
        game_buf_free(&b);
        return err;
    }
    game_mem *g = mem_from(db_loop(s), &b);
    game_buf_free(&b);
    if (g == NULL)
        return STORE_ENOMEM;
    err = mem_game_insert(s, g);
    if (err < 0)
        mem_game_free(g);
    return err;
}

int games_resync(store *s, int64_t id)
{
    mem_game_remove(s, id);
    if (s->node && !store_lease_held(s, id))
        return 0; /* another node's now */
    /* The one read of the loop's connection while serving: after a failed
     * batch (the database answered, it is not away; a lost connection is
     * waited for, never resynced), memory must match the disk before
     * anything else is queued. */
    s->resyncing = true;
    int err = load_one(s, id);
    s->resyncing = false;
    s->resyncing = false;
    return err == STORE_ENOT_FOUND ? 0 : err;
}

int games_load(store *s)
{
    if (s->node)
        return 0; /* games come with their leases (store_game_adopt) */
    sql_stmt *st = db_use(db_loop(s), ST_MAX_ID);
    if (sql_step(st) == SQL_ROW)
        s->next_id = sql_column_i64(st, 0) + 1;
    sql_reset(st);

    int64_t *ids = NULL;
    size_t nids = 0, capids = 0;
    st = db_use(db_loop(s), ST_IN_PROGRESS);
    while (sql_step(st) == SQL_ROW) {
        if (array_reserve((void **)&ids, &capids, nids + 1, sizeof *ids) < 0) {
            free(ids);
            sql_reset(st);
            return STORE_ENOMEM;
        }
        ids[nids++] = sql_column_i64(st, 0);
    }
    sql_reset(st);
    int err = 0;
    for (size_t i = 0; i < nids && err == 0; i++)
        err = load_one(s, ids[i]);
    free(ids);
    return err;
}

/* ------------------------------------------------------------------------ */
/* Adopting a game (node mode): read on the writer, into memory on the loop
 * if the lease it was asked under is still held. */

typedef struct adopt_buf {
    game_buf b;
    game_mem *g; /* NULL once in memory (or finished) */
} adopt_buf;

static void release_adopt(op *o)
{
    adopt_buf *a = o->answer;
    if (a == NULL)
        return;
    game_buf_free(&a->b);
    if (a->g)
        mem_game_free(a->g);
    free(a);
    o->answer = NULL;
}

static int run_adopt(store *s, op *o)
{
    release_adopt(o); /* a retry reads again */
    adopt_buf *a = calloc(1, sizeof *a);
    if (a == NULL) {
        o->status = STORE_ENOMEM;
        return 0;
    }
    o->answer = a;
    o->status = game_read(s->wst, o->game, &a->b);
    if (o->status == 0 && !a->b.info.finished && (a->g = mem_from(s->wst, &a->b)) == NULL)
        o->status = STORE_ENOMEM;
    return 0;
}

static void done_adopt(store *s, op *o, int status)
{
    adopt_buf *a = o->answer;
    if (status == 0)
        status = o->status;
    lease_epoch *now = status == 0 ? lease_epoch_ref(s, o->game) : NULL;
    if (status == 0 && (now != o->epoch || lease_writable(s, o->game) < 0))
        status = STORE_ELEASE_LOST; /* lost (or taken again) meanwhile */
    lease_epoch_unref(now);
    /* A game already in memory is ahead of the disk (writes queued since
     * the lease was taken): it stays. */
    if (status == 0 && a->g && mem_game_find(s, o->game) == NULL) {
        if (mem_game_insert(s, a->g) == 0)
            a->g = NULL;
        else
            status = STORE_ENOMEM;
    }
    o->cb.game(o->arg, status, status == 0 ? &a->b.info : NULL);
}

static const op_kind adopt_kind = {run_adopt, done_adopt, release_adopt, true, LEASE_NONE};

int store_game_adopt(store *s, int64_t game, store_game_get_cb cb, void *arg)
{
    int err = queue_refuses(s);
    if (err < 0)
        return err;
    if (s->node == NULL || cb == NULL)
        return STORE_EBAD_ARG;
    if ((err = lease_writable(s, game)) < 0)
        return err;
    op *o = queue_push(s, &adopt_kind, game);
    if (o == NULL)
        return STORE_ENOMEM;
    o->epoch = lease_epoch_ref(s, game);
    o->cb.game = cb;
    o->arg = arg;
    return 0;
}
