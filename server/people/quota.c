/*
 * quota.c - caps per identity and per address (see quota.h).
 */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "counters.h"
#include "throttle.h"

struct quota_addr {
    char key[THROTTLE_KEY_MAX];
    int refs;
    int games[2]; /* [0] live, [1] correspondence */
    int watched;  /* rooms watched without a seat (each holds a reference) */
    UT_hash_handle hh;
};

static quota_limits caps = {QUOTA_LIVE_PER_IDENT, QUOTA_CORR_PER_IDENT,    QUOTA_LIVE_PER_ADDR,
                            QUOTA_CORR_PER_ADDR,  QUOTA_WATCHED_PER_IDENT, QUOTA_WATCHED_PER_ADDR};
static quota_addr *addrs; /* by key (hh) */

void quota_init(const quota_limits *l)
{
    caps.live_per_ident = l->live_per_ident > 0 ? l->live_per_ident : QUOTA_LIVE_PER_IDENT;
    caps.corr_per_ident = l->corr_per_ident > 0 ? l->corr_per_ident : QUOTA_CORR_PER_IDENT;
    caps.live_per_addr = l->live_per_addr > 0 ? l->live_per_addr : QUOTA_LIVE_PER_ADDR;
    caps.corr_per_addr = l->corr_per_addr > 0 ? l->corr_per_addr : QUOTA_CORR_PER_ADDR;
    caps.watched_per_ident =
        l->watched_per_ident > 0 ? l->watched_per_ident : QUOTA_WATCHED_PER_IDENT;
    caps.watched_per_addr = l->watched_per_addr > 0 ? l->watched_per_addr : QUOTA_WATCHED_PER_ADDR;
}

void quota_shutdown(void)
{
    quota_addr *a, *tmp;
    HASH_ITER(hh, addrs, a, tmp)
    {
        HASH_DELETE(hh, addrs, a);
        free(a);
    }
}

/* The entry of s's address if there is one; its key in key. */
static quota_addr *addr_find(const session *s, char key[THROTTLE_KEY_MAX])
{
    if (s->conn == NULL || s->conn->addr[0] == '\0')
        return NULL;
    throttle_addr_key(s->conn->addr, key, THROTTLE_KEY_MAX);
    quota_addr *a = NULL;
    HASH_FIND_STR(addrs, key, a);
    return a;
}

quota_addr *quota_addr_of(const session *s)
{
    if (s->conn == NULL || s->conn->addr[0] == '\0')
        return NULL;
    char key[THROTTLE_KEY_MAX];
    quota_addr *a = addr_find(s, key);
    if (a == NULL) {
        if ((a = calloc(1, sizeof *a)) == NULL)
            return NULL;
        memcpy(a->key, key, sizeof a->key);
        HASH_ADD_STR(addrs, key, a);
    }
    a->refs++;
    return a;
}

void quota_addr_ref(quota_addr *a)
{
    if (a != NULL)
        a->refs++;
}

void quota_addr_put(quota_addr *a)
{
    if (a == NULL || --a->refs > 0)
        return;
    HASH_DELETE(hh, addrs, a);
    free(a);
}

int quota_game_check(const ident *who, const quota_addr *a, bool corr, char *why, size_t whylen)
{
    if (who->bot > 0)
        return 0;
    const char *kind = corr ? "correspondence" : "live";
    int cap = corr ? caps.corr_per_ident : caps.live_per_ident;
    if (who->ngames[corr] >= cap) {
        metrics_now.refused_games_ident++;
        rules_why(why, whylen,
                  "at most %d %s games in progress at once (open seeks count): "
                  "finish one first",
                  cap, kind);
        return PROTO_ETOO_MANY_GAMES;
    }
    cap = corr ? caps.corr_per_addr : caps.live_per_addr;
    if (a != NULL && a->games[corr] >= cap) {
        metrics_now.refused_games_addr++;
        rules_why(why, whylen,
                  "at most %d %s games in progress at once from one address "
                  "(open seeks count): finish one first",
                  cap, kind);
        return PROTO_ETOO_MANY_GAMES;
    }
    return 0;
}

void quota_game_add(ident *who, quota_addr *a, bool corr)
{
    if (who->bot > 0)
        return;
    who->ngames[corr]++;
    if (a != NULL)
        a->games[corr]++;
}

void quota_game_sub(ident *who, quota_addr *a, bool corr)
{
    if (who->bot > 0)
        return;
    who->ngames[corr]--;
    if (a != NULL)
        a->games[corr]--;
}

int quota_addr_games(const quota_addr *a, bool corr)
{
    return a != NULL ? a->games[corr] : 0;
}

int quota_watch_check(const session *s, char *why, size_t whylen)
{
    char key[THROTTLE_KEY_MAX];
    const quota_addr *a = addr_find(s, key);
    if (s->who->nwatching >= caps.watched_per_ident) {
        metrics_now.refused_watched_ident++;
        rules_why(why, whylen, "at most %d rooms watched at once without a seat: part one first",
                  caps.watched_per_ident);
        return PROTO_ETOO_MANY_ROOMS;
    }
    if (a != NULL && a->watched >= caps.watched_per_addr) {
        metrics_now.refused_watched_addr++;
        rules_why(why, whylen,
                  "at most %d rooms watched at once without a seat from one address: "
                  "part one first",
                  caps.watched_per_addr);
        return PROTO_ETOO_MANY_ROOMS;
    }
    return 0;
}

void quota_watch_add(const session *s)
{
    s->who->nwatching++;
    quota_addr *a = quota_addr_of(s); /* the watch keeps this reference */
    if (a != NULL)
        a->watched++;
}

void quota_watch_sub(const session *s)
{
    s->who->nwatching--;
    char key[THROTTLE_KEY_MAX];
    quota_addr *a = addr_find(s, key);
    if (a != NULL) {
        a->watched--;
        quota_addr_put(a);
    }
}
