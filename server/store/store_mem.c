/*
 * store_mem.c - what the store keeps in memory: the games in progress (a
 * uthash table by id), the index of each account's games in progress (by
 * account) and the accounts on vacation (by account). See store_impl.h.
 */
#include "store_impl.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"

void mem_lines_free(char **lines, int n)
{
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* ------------------------------------------------------------------------ */
/* Games */

game_mem *mem_game_find(store *s, int64_t id)
{
    game_mem *g;
    HASH_FIND(hh, s->games, &id, sizeof id, g);
    return g;
}

acct_games *mem_account(store *s, int64_t account)
{
    acct_games *a;
    HASH_FIND(hh, s->accts, &account, sizeof account, a);
    return a;
}

static int acct_add(store *s, int64_t account, game_mem *g)
{
    acct_games *a = mem_account(s, account);
    if (a == NULL) {
        a = calloc(1, sizeof *a);
        if (a == NULL)
            return STORE_ENOMEM;
        a->account = account;
        HASH_ADD(hh, s->accts, account, sizeof a->account, a);
        if (a->hh.tbl == NULL) {
            free(a);
            return STORE_ENOMEM;
        }
    }
    for (size_t i = 0; i < a->n; i++)
        if (a->games[i] == g)
            return 0; /* one account in two seats */
    if (array_reserve((void **)&a->games, &a->cap, a->n + 1, sizeof *a->games) < 0)
        return STORE_ENOMEM;
    a->games[a->n++] = g;
    return 0;
}

static void acct_free(acct_games *a)
{
    free(a->games);
    free(a);
}

static void acct_del(store *s, int64_t account, game_mem *g)
{
    acct_games *a = mem_account(s, account);
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->n; i++)
        if (a->games[i] == g) {
            a->games[i] = a->games[--a->n]; /* listed once (acct_add) */
            break;
        }
    if (a->n == 0) {
        HASH_DEL(s->accts, a);
        acct_free(a);
    }
}

int mem_game_insert(store *s, game_mem *g)
{
    for (int p = 0; p < g->nplayers; p++)
        if (g->account[p] != 0 && acct_add(s, g->account[p], g) < 0) {
            for (int q = 0; q < p; q++)
                acct_del(s, g->account[q], g);
            return STORE_ENOMEM;
        }
    HASH_ADD(hh, s->games, id, sizeof g->id, g);
    if (g->hh.tbl == NULL) {
        for (int p = 0; p < g->nplayers; p++)
            acct_del(s, g->account[p], g);
        return STORE_ENOMEM;
    }
    s->ngames++;
    return 0;
}

void mem_game_free(game_mem *g)
{
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        mem_lines_free(g->cond[p], g->ncond[p]);
    free(g);
}

void mem_game_remove(store *s, int64_t id)
{
    game_mem *g = mem_game_find(s, id);
    if (g == NULL)
        return;
    HASH_DEL(s->games, g);
    for (int p = 0; p < g->nplayers; p++)
        acct_del(s, g->account[p], g);
    mem_game_free(g);
    s->ngames--;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int64_t *mem_game_ids(store *s, size_t *n)
{
    int64_t *ids = malloc((s->ngames + 1) * sizeof *ids);
    if (ids == NULL)
        return NULL;
    size_t k = 0;
    for (game_mem *g = s->games; g != NULL; g = g->hh.next)
        ids[k++] = g->id;
    qsort(ids, k, sizeof *ids, cmp_id);
    *n = k;
    return ids;
}

/* ------------------------------------------------------------------------ */
/* Vacations */

vacation *mem_vac_find(store *s, int64_t account)
{
    vacation *v;
    HASH_FIND(hh, s->vacs, &account, sizeof account, v);
    return v;
}

int mem_vac_set(store *s, int64_t account, int64_t from_ms, int64_t until_ms)
{
    vacation *v = mem_vac_find(s, account);
    if (v == NULL) {
        v = calloc(1, sizeof *v);
        if (v == NULL)
            return STORE_ENOMEM;
        v->account = account;
        HASH_ADD(hh, s->vacs, account, sizeof v->account, v);
        if (v->hh.tbl == NULL) {
            free(v);
            return STORE_ENOMEM;
        }
    }
    v->from_ms = from_ms;
    v->until_ms = until_ms;
    return 0;
}

void mem_vac_del(store *s, int64_t account)
{
    vacation *v = mem_vac_find(s, account);
    if (v != NULL) {
        HASH_DEL(s->vacs, v);
        free(v);
    }
}

int64_t mem_clock_start(store *s, int64_t account, int64_t now)
{
    vacation *v = account ? mem_vac_find(s, account) : NULL;
    return v ? corrclock_turn_start(v->from_ms, v->until_ms, now) : now;
}

/* ------------------------------------------------------------------------ */

void mem_free(store *s)
{
    game_mem *g, *gn;
    HASH_ITER(hh, s->games, g, gn)
    {
        HASH_DEL(s->games, g);
        mem_game_free(g);
    }
    acct_games *a, *an;
    HASH_ITER(hh, s->accts, a, an)
    {
        HASH_DEL(s->accts, a);
        acct_free(a);
    }
    vacation *v, *vn;
    HASH_ITER(hh, s->vacs, v, vn)
    {
        HASH_DEL(s->vacs, v);
        free(v);
    }
    free(s->vac_busy);
    s->vac_busy = NULL;
    s->nvac_busy = s->capvac_busy = 0;
    s->ngames = 0;
}
