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
#include "counters.h"

static uv_loop_t *loop;
static ident *tokens;   /* by token (hh) */
static ident *orphans;  /* restored seats waiting for their token, by key (hh) */
static ident *accounts; /* by account (hh_account) */
static int64_t next_id = 1;
static bool names_by_key; /* node mode: "guest-" and the key's first digits */
static ident *bots[9];    /* by level, 1..8 */

/* Unused identities, oldest first (idle_prev/idle_next): guests (tokens and
 * orphans) and accounts apart, so that making room for a guest takes the
 * head of one list and never looks at an account. */
static ident *idle_guests, *idle_accounts;
static size_t nguests, max_guests = IDENT_MAX_GUESTS;
static uint64_t idle_ms = IDENT_IDLE_MS;

/* Forget at most this many identities per run of the timer (the loop does
 * not stall when a crowd leaves at once); the rest on the next run, soon. */
enum { IDENT_EXPIRE_BATCH = 4096 };
static uv_timer_t expire_timer;
static uint64_t expire_every;

/* The seat key of a token: a hash, so the store never holds tokens. */
static void token_key(const char *token, char key[IDENT_KEY_HEX + 1])
{
    unsigned char h[IDENT_KEY_HEX / 2];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(key, IDENT_KEY_HEX + 1, h, sizeof h);
}

static bool is_guest(const ident *i)
{
    return i->account == 0 && i->bot == 0;
}

static ident **idle_list(const ident *i)
{
    return is_guest(i) ? &idle_guests : &idle_accounts;
}

/* Put i in its idle list (at the tail: the newest) if it is unused, take
 * it out if it is used again. Called whenever a session or seat comes or
 * goes. */
static void touch(ident *i)
{
    if (i->bot > 0)
        return;
    bool unused = i->sessions == NULL && i->nrooms == 0;
    if (unused && !i->idle) {
        i->last_seen = loop != NULL ? uv_now(loop) : 0;
        i->idle = true;
        DL_APPEND2(*idle_list(i), i, idle_prev, idle_next);
    } else if (!unused && i->idle) {
        i->idle = false;
        DL_DELETE2(*idle_list(i), i, idle_prev, idle_next);
        i->idle_prev = i->idle_next = NULL;
    }
}

/* Forget an unused identity: out of its tables and its idle list. */
static void forget(ident *i)
{
    if (i->idle)
        DL_DELETE2(*idle_list(i), i, idle_prev, idle_next);
    if (i->token[0] != '\0')
        HASH_DELETE(hh, tokens, i);
    else
        HASH_DELETE(hh, orphans, i);
    if (i->account != 0) {
        HASH_DELETE(hh_account, accounts, i);
        metrics_now.identities_account--;
    } else {
        nguests--;
        metrics_now.identities_guest--;
    }
    free(i->rooms);
    free(i);
}

/* Forget the head of list while it has been idle for idle_ms; at most
 * *budget of them. */
static void expire(ident **list, uint64_t now, int *budget)
{
    while (*list != NULL && *budget > 0 && now - (*list)->last_seen >= idle_ms) {
        forget(*list);
        metrics_now.identities_expired++;
        (*budget)--;
    }
}

static void on_expire(uv_timer_t *t)
{
    uint64_t now = uv_now(loop);
    int budget = IDENT_EXPIRE_BATCH;
    expire(&idle_guests, now, &budget);
    expire(&idle_accounts, now, &budget);
    if (budget == 0) /* more to forget: again soon, then at the usual pace */
        uv_timer_start(t, on_expire, 1, expire_every);
}

void ident_init(uv_loop_t *l, size_t max, uint64_t idle)
{
    loop = l;
    max_guests = max > 0 ? max : IDENT_MAX_GUESTS;
    idle_ms = idle > 0 ? idle : IDENT_IDLE_MS;
    /* The head is looked at every tenth of the idle time, between 1 s and a
     * minute: an identity lives at most that much longer than idle_ms. */
    expire_every = idle_ms / 10;
    expire_every = expire_every < 1000 ? 1000 : expire_every > 60000 ? 60000 : expire_every;
    uv_timer_init(loop, &expire_timer);
    uv_timer_start(&expire_timer, on_expire, expire_every, expire_every);
}

void ident_stop(void)
{
    uv_close((uv_handle_t *)&expire_timer, NULL);
}

static void ident_free(ident *i)
{
    free(i->rooms);
    free(i);
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
    idle_guests = idle_accounts = NULL;
    nguests = 0;
    metrics_now.identities_guest = metrics_now.identities_account = 0;
    metrics_now.identities_bot = 0;
}

bool ident_guests_full(void)
{
    return nguests >= max_guests && idle_guests == NULL;
}

/* A new identity with a fresh random token, in the table of tokens, not
 * yet counted as a guest or an account. */
static ident *alloc_token(void)
{
    ident *i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    unsigned char raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(i->token, sizeof i->token, raw, sizeof raw);
    token_key(i->token, i->key);
    i->id = next_id++;
    HASH_ADD_KEYPTR(hh, tokens, i->token, strlen(i->token), i);
    return i;
}

/* A guest's default name: its number here, or in node mode the same on
 * every node (from its seat key, a hash of its token: the token stays
 * secret). */
static void guest_name(ident *i)
{
    if (names_by_key)
        snprintf(i->name, sizeof i->name, "guest-%.6s", i->key);
    else
        snprintf(i->name, sizeof i->name, "guest-%lld", (long long)i->id);
}

void ident_name_guests_by_key(void)
{
    names_by_key = true;
}

ident *ident_new(void)
{
    if (nguests >= max_guests) {
        if (idle_guests == NULL)
            return NULL;
        forget(idle_guests);
        metrics_now.guests_evicted++;
    }
    ident *i = alloc_token();
    if (i == NULL)
        return NULL;
    guest_name(i);
    nguests++;
    metrics_now.identities_guest++;
    touch(i);
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

ident *ident_guest_of(const char *token, const char *name)
{
    ident *i = ident_by_token(token);
    if (i != NULL)
        return i->account == 0 && i->bot == 0 ? i : NULL;
    size_t n = strlen(token);
    if (n != IDENT_TOKEN_HEX || strspn(token, "0123456789abcdef") != n)
        return NULL;
    if ((i = ident_new()) == NULL)
        return NULL;
    /* ident_new gave it a fresh token: this one instead. */
    HASH_DELETE(hh, tokens, i);
    snprintf(i->token, sizeof i->token, "%s", token);
    token_key(i->token, i->key);
    HASH_ADD_KEYPTR(hh, tokens, i->token, strlen(i->token), i);
    if (name != NULL && name[0] != '\0')
        snprintf(i->name, sizeof i->name, "%s", name);
    else
        guest_name(i);
    return i;
}

ident *ident_restored(const char *key, const char *name)
{
    ident *i = NULL;
    HASH_FIND(hh, orphans, key, strlen(key), i);
    if (i != NULL)
        return i;
    /* A game taken over from another node (room_takeover.c) may seat a
     * guest already here under its token: the same identity. A scan, as
     * take-overs are rare and bounded per tick; none at start-up. */
    ident *t, *tmp;
    HASH_ITER(hh, tokens, t, tmp)
    if (t->key[0] != '\0' && strcmp(t->key, key) == 0)
        return t;
    /* Never refused: the seats of games in progress come back even beyond
     * max_guests (new guests then wait for idle ones). */
    i = calloc(1, sizeof *i);
    if (i == NULL)
        return NULL;
    snprintf(i->key, sizeof i->key, "%s", key);
    snprintf(i->name, sizeof i->name, "%s", name);
    i->id = next_id++;
    HASH_ADD_KEYPTR(hh, orphans, i->key, strlen(i->key), i);
    nguests++;
    metrics_now.identities_guest++;
    touch(i);
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
    metrics_now.identities_bot++;
    return i;
}

ident *ident_find_account(int64_t account)
{
    ident *i = NULL;
    HASH_FIND(hh_account, accounts, &account, sizeof account, i);
    return i;
}

proto_player ident_player(const ident *who)
{
    return (proto_player){
        .id = who->id, .name = who->name, .bot = who->bot, .account = who->account != 0};
}

ident *ident_account(int64_t account, const char *name)
{
    ident *i = ident_find_account(account);
    if (i != NULL)
        return i;
    /* Accounts are not guests: max_guests does not apply (registration is
     * throttled instead). */
    i = alloc_token();
    if (i == NULL)
        return NULL;
    i->account = account;
    snprintf(i->name, sizeof i->name, "%s", name);
    HASH_ADD(hh_account, accounts, account, sizeof i->account, i);
    metrics_now.identities_account++;
    touch(i);
    return i;
}

bool ident_attach(ident *who, session *s)
{
    bool first = who->sessions == NULL;
    s->who = who;
    DL_PREPEND2(who->sessions, s, iprev, inext);
    touch(who);
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
    touch(who);
    return who->sessions == NULL;
}

int ident_seat(ident *who, struct room *r)
{
    if (who->bot > 0)
        return 0; /* a bot sits in every bot game: nothing asks for its list */
    if (array_reserve((void **)&who->rooms, &who->caprooms, who->nrooms + 1, sizeof *who->rooms) <
        0)
        return -1;
    who->rooms[who->nrooms++] = r;
    touch(who);
    return 0;
}

void ident_unseat(ident *who, const struct room *r)
{
    for (size_t i = 0; i < who->nrooms; i++)
        if (who->rooms[i] == r) {
            /* Keep the order: the rooms listed at hello come oldest first. */
            memmove(&who->rooms[i], &who->rooms[i + 1], (who->nrooms - i - 1) * sizeof *who->rooms);
            who->nrooms--;
            touch(who);
            return;
        }
}
