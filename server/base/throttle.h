/*
 * throttle.h - events counted per key (an account name, an address) in a
 * bounded table, with delays that grow once a few free events are spent.
 *
 * A table has a fixed capacity, allocated once: THROTTLE_WAYS entries per
 * set, the set chosen by a keyed hash of the key. A new key takes a free or
 * forgotten slot of its set, else the slot whose last event is the oldest
 * (that key starts again from zero: flooding a table costs an attacker as
 * many distinct keys as its capacity). Every call looks at one set only:
 * nothing scans the table.
 *
 * The rule: `free` events are allowed at once; after the n-th event past
 * them the key waits base_ms << n (capped at max_ms) counted from its last
 * event before the next is allowed. A key without an event for quiet_ms is
 * forgotten. The caller counts an event when it lets a request through
 * (throttle_hit), so that requests in flight count as well.
 *
 * Owns: its tables' memory. May call: libc only; the caller gives the time
 * (milliseconds of a monotonic clock) and the hash's seed.
 */
#ifndef THROTTLE_H
#define THROTTLE_H

#include <stddef.h>
#include <stdint.h>

enum {
    THROTTLE_KEY_MAX = 48, /* key bytes kept, incl. NUL (longer keys are cut) */
    THROTTLE_WAYS = 8,     /* entries per set */
};

typedef struct throttle_rule {
    unsigned free;     /* events allowed before any delay */
    uint64_t base_ms;  /* the first delay; it doubles with each further event */
    uint64_t max_ms;   /* the delays' cap */
    uint64_t quiet_ms; /* a key without an event this long is forgotten */
} throttle_rule;

typedef struct throttle_entry {
    uint64_t hash;
    uint64_t last_ms; /* the last event */
    uint32_t count;   /* 0: the slot is free */
    char key[THROTTLE_KEY_MAX];
} throttle_entry;

typedef struct throttle {
    throttle_rule rule;
    throttle_entry *slots;
    size_t mask; /* sets - 1 */
    uint64_t seed;
    uint64_t evicted; /* keys pushed out by newer ones while still counted */
} throttle;

/* Allocate a table of at least `capacity` entries (rounded up to a power of
 * two sets of THROTTLE_WAYS). 0, or -1 if out of memory. */
int throttle_init(throttle *t, const throttle_rule *rule, size_t capacity, uint64_t seed);
void throttle_free(throttle *t);

/* 0 if key may go ahead at now_ms, else the milliseconds it must wait. */
uint64_t throttle_wait(throttle *t, const char *key, uint64_t now_ms);
/* Count one event of key at now_ms. */
void throttle_hit(throttle *t, const char *key, uint64_t now_ms);
/* Forget key (a successful login clears its account). */
void throttle_clear(throttle *t, const char *key);
/* Take back one event of key (a successful login gives back what it cost
 * its address). */
void throttle_undo(throttle *t, const char *key);

/* The key of a peer address (as text): an IPv4 address as it is, an IPv6
 * one by its /64 prefix (one subscriber usually holds a whole /64), an
 * IPv4-mapped IPv6 address as the IPv4 one. Unparsable text is kept as it
 * is. Writes at most len bytes with the NUL. */
void throttle_addr_key(const char *addr, char *out, size_t len);

#endif
