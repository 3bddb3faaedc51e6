/*
 * ident.c - identities (see ident.h).
 */
#include "ident.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <utlist.h>

#include "array.h"

static uv_loop_t *loop;
static ident *tokens;   /* by token (hh) */
static ident *orphans;  /* restored seats waiting for their token, by key (hh) */
static ident *accounts; /* by account (hh_account) */
static int64_t next_id = 1;
static ident *bots[9]; /* by level, 1..8 */

/* The seat key of a token: a hash, so the store never holds tokens. */
static void token_key(const char *token, char key[IDENT_KEY_HEX + 1])
{
    unsigned char h[IDENT_KEY_HEX / 2];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(key, IDENT_KEY_HEX + 1, h, sizeof h);
}

static void ident_free(ident *i)
{
    free(i->rooms);
    free(i);
}

/* An identity with no session, no seat in a room in memory and unseen for
 * IDENT_TTL_MS is forgotten (its token stops working), so that visitors do
 * not grow memory without bound. Swept every IDENT_SWEEP_MS. */
enum { IDENT_TTL_MS = 24 * 3600 * 1000, IDENT_SWEEP_MS = 10 * 60 * 1000 };
static uv_timer_t sweep_timer;

static void on_sweep(uv_timer_t *t)
{
    uint64_t now = uv_now(loop);
    ident *i, *tmp;
    HASH_ITER(hh, tokens, i, tmp)
    {
        if (i->sessions != NULL || i->nrooms > 0 || now - i->last_seen <= IDENT_TTL_MS)
            continue;
        HASH_DELETE(hh, tokens, i);
        if (i->account != 0)
            HASH_DELETE(hh_account, accounts, i);
        ident_free(i);
    }
}

void ident_init(uv_loop_t *l)
{
    loop = l;
    uv_timer_init(loop, &sweep_timer);
    uv_timer_start(&sweep_timer, on_sweep, IDENT_SWEEP_MS, IDENT_SWEEP_MS);
}

void ident_stop(void)
{
    uv_close((uv_handle_t *)&sweep_timer, NULL);
}

void ident_shutdown(void)
{
    for (int l = 0; l < 9; l++) {
        if (bots[l] != NULL)
            ident_free(bots[l]);
        bots[l] = NULL;
    }
    HASH_CLEAR(hh_account, accounts);
    ident *i, *tmp;
    HASH_ITER(hh, tokens, i, tmp)
    {
        HASH_DELETE(hh, tokens, i);
        ident_free(i);
    }
    HASH_ITER(hh, orphans, i, tmp)
    {
        HASH_DELETE(hh, orphans, i);
        ident_free(i);
    }
}

ident *ident_new(void)
{
    ident *i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    unsigned char raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(i->token, sizeof i->token, raw, sizeof raw);
    token_key(i->token, i->key);
    i->id = next_id++;
    snprintf(i->name, sizeof i->name, "guest-%lld", (long long)i->id);
    HASH_ADD_KEYPTR(hh, tokens, i->token, strlen(i->token), i);
    return i;
}

ident *ident_by_token(const char *token)
{
    ident *i = NULL;
    HASH_FIND(hh, tokens, token, strlen(token), i);
    if (i != NULL)
        return i;
    /* A token we do not know may be the owner of a restored seat. */
    char key[IDENT_KEY_HEX + 1];
    token_key(token, key);
    HASH_FIND(hh, orphans, key, strlen(key), i);
    if (i == NULL)
        return NULL;
    HASH_DELETE(hh, orphans, i);
    snprintf(i->token, sizeof i->token, "%s", token);
    HASH_ADD_KEYPTR(hh, tokens, i->token, strlen(i->token), i);
    return i;
}

ident *ident_restored(const char *key, const char *name)
{
    ident *i = NULL;
    HASH_FIND(hh, orphans, key, strlen(key), i);
    if (i != NULL)
        return i;
    i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    snprintf(i->key, sizeof i->key, "%s", key);
    snprintf(i->name, sizeof i->name, "%s", name);
    i->id = next_id++;
    HASH_ADD_KEYPTR(hh, orphans, i->key, strlen(i->key), i);
    return i;
}

ident *ident_bot(int level)
{
    if (level < 1 || level > 8)
        return NULL;
    if (bots[level] != NULL)
        return bots[level];
    ident *i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    snprintf(i->name, sizeof i->name, "bot-level-%d", level);
    /* A seat key for the store like anyone's, from a name no token has. */
    token_key(i->name, i->key);
    i->bot = level;
    i->id = next_id++;
    bots[level] = i;
    return i;
}

ident *ident_find_account(int64_t account)
{
    ident *i = NULL;
    HASH_FIND(hh_account, accounts, &account, sizeof account, i);
    return i;
}

ident *ident_account(int64_t account, const char *name)
{
    ident *i = ident_find_account(account);
    if (i != NULL)
        return i;
    i = ident_new();
    if (i == NULL)
        return NULL;
    i->account = account;
    snprintf(i->name, sizeof i->name, "%s", name);
    HASH_ADD(hh_account, accounts, account, sizeof i->account, i);
    return i;
}

bool ident_attach(ident *who, session *s)
{
    bool first = who->sessions == NULL;
    s->who = who;
    DL_PREPEND2(who->sessions, s, iprev, inext);
    return first;
}

bool ident_detach(session *s)
{
    ident *who = s->who;
    if (who == NULL)
        return false;
    DL_DELETE2(who->sessions, s, iprev, inext);
    s->iprev = s->inext = NULL;
    s->who = NULL;
    who->last_seen = uv_now(loop);
    return who->sessions == NULL;
}

int ident_seat(ident *who, struct room *r)
{
    if (array_reserve((void **)&who->rooms, &who->caprooms, who->nrooms + 1, sizeof *who->rooms) <
        0)
        return -1;
    who->rooms[who->nrooms++] = r;
    return 0;
}

void ident_unseat(ident *who, const struct room *r)
{
    for (size_t i = 0; i < who->nrooms; i++)
        if (who->rooms[i] == r) {
            /* Keep the order: the rooms listed at hello come oldest first. */
            memmove(&who->rooms[i], &who->rooms[i + 1], (who->nrooms - i - 1) * sizeof *who->rooms);
            who->nrooms--;
            return;
        }
}
