/*
 * throttle.c - bounded tables of events per key with growing delays (see
 * throttle.h).
 */
#include "throttle.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int throttle_init(throttle *t, const throttle_rule *rule, size_t capacity, uint64_t seed)
{
    size_t sets = 1;
    while (sets * THROTTLE_WAYS < capacity)
        sets *= 2;
    memset(t, 0, sizeof *t);
    t->slots = calloc(sets * THROTTLE_WAYS, sizeof *t->slots);
    if (t->slots == NULL)
        return -1;
    t->rule = *rule;
    t->mask = sets - 1;
    t->seed = seed;
    return 0;
}

void throttle_free(throttle *t)
{
    free(t->slots);
    t->slots = NULL;
}

/* FNV-1a from a seeded basis, then a finalizer that spreads every bit into
 * the set number. The seed is secret and nothing tells a client which set a
 * key landed in, so it cannot aim its keys at one account's set. */
static uint64_t hash_key(uint64_t seed, const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; key[i] && i + 1 < THROTTLE_KEY_MAX; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static bool same_key(const throttle_entry *e, uint64_t h, const char *key)
{
    return e->count > 0 && e->hash == h && strncmp(e->key, key, THROTTLE_KEY_MAX - 1) == 0;
}

static bool quiet(const throttle *t, const throttle_entry *e, uint64_t now_ms)
{
    return now_ms >= e->last_ms && now_ms - e->last_ms >= t->rule.quiet_ms;
}

/* The entry of key, or NULL. A forgotten one (quiet too long) is freed. */
static throttle_entry *find(throttle *t, const char *key, uint64_t h, uint64_t now_ms)
{
    throttle_entry *set = t->slots + (h & t->mask) * THROTTLE_WAYS;
    for (int i = 0; i < THROTTLE_WAYS; i++) {
        if (same_key(&set[i], h, key)) {
            if (!quiet(t, &set[i], now_ms))
                return &set[i];
            set[i].count = 0;
            return NULL;
        }
    }
    return NULL;
}

/* The delay after `count` events: none within the free ones, then base_ms
 * doubling with each event past them, at most max_ms. */
static uint64_t delay(const throttle_rule *r, uint32_t count)
{
    if (count < r->free)
        return 0;
    uint64_t d = r->base_ms;
    for (uint32_t n = count - r->free; n > 0 && d < r->max_ms; n--)
        d *= 2;
    return d < r->max_ms ? d : r->max_ms;
}

uint64_t throttle_wait(throttle *t, const char *key, uint64_t now_ms)
{
    uint64_t h = hash_key(t->seed, key);
    throttle_entry *e = find(t, key, h, now_ms);
    if (e == NULL)
        return 0;
    uint64_t until = e->last_ms + delay(&t->rule, e->count);
    return until > now_ms ? until - now_ms : 0;
}

void throttle_hit(throttle *t, const char *key, uint64_t now_ms)
{
    uint64_t h = hash_key(t->seed, key);
    throttle_entry *e = find(t, key, h, now_ms);
    if (e == NULL) {
        /* A free or forgotten slot of the set, else its oldest entry. */
        throttle_entry *set = t->slots + (h & t->mask) * THROTTLE_WAYS;
        for (int i = 0; i < THROTTLE_WAYS; i++) {
            throttle_entry *s = &set[i];
            if (s->count == 0 || quiet(t, s, now_ms)) {
                e = s;
                break;
            }
            if (e == NULL || s->last_ms < e->last_ms)
                e = s;
        }
        if (e->count > 0 && !quiet(t, e, now_ms))
            t->evicted++;
        e->hash = h;
        e->count = 0;
        snprintf(e->key, sizeof e->key, "%s", key);
    }
    if (e->count < UINT32_MAX)
        e->count++;
    e->last_ms = now_ms;
}

void throttle_clear(throttle *t, const char *key)
{
    uint64_t h = hash_key(t->seed, key);
    throttle_entry *set = t->slots + (h & t->mask) * THROTTLE_WAYS;
    for (int i = 0; i < THROTTLE_WAYS; i++)
        if (same_key(&set[i], h, key))
            set[i].count = 0;
}

void throttle_undo(throttle *t, const char *key)
{
    uint64_t h = hash_key(t->seed, key);
    throttle_entry *set = t->slots + (h & t->mask) * THROTTLE_WAYS;
    for (int i = 0; i < THROTTLE_WAYS; i++)
        if (same_key(&set[i], h, key))
            set[i].count--;
}

void throttle_addr_key(const char *addr, char *out, size_t len)
{
    unsigned char a[16];
    if (len == 0)
        return;
    if (addr != NULL && strchr(addr, ':') != NULL && inet_pton(AF_INET6, addr, a) == 1) {
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(a, mapped, sizeof mapped) == 0) {
            snprintf(out, len, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
            return;
        }
        memset(a + 8, 0, 8);
        char text[INET6_ADDRSTRLEN];
        if (inet_ntop(AF_INET6, a, text, sizeof text) != NULL) {
            snprintf(out, len, "%s/64", text);
            return;
        }
    }
    snprintf(out, len, "%s", addr ? addr : "");
}
