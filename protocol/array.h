/*
 * array.h - the one way arrays grow, in protocol/ and server/ (hash tables
 * are uthash; the growable byte buffer is proto_out, which grows with this).
 *
 * Owns: array_reserve. May call: libc only. Header-only, so that every
 * module (and the unit tests) can use it without linking anything. It lives
 * in protocol/, the lowest layer that allocates, so that protocol/ and
 * server/ share it.
 *
 * An array is three fields: a pointer, a count and a capacity (both
 * size_t); it doubles when full. Usage:
 *
 *     if (array_reserve((void **)&r->watchers, &r->capwatchers, r->nwatchers + 1,
 *                       sizeof *r->watchers) < 0)
 *         return -1;
 *     r->watchers[r->nwatchers++] = s;
 */
#ifndef ARRAY_H
#define ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

enum { ARRAY_FIRST = 4 }; /* capacity of a first allocation */

/* Make room for `need` elements of `size` bytes in *items (capacity *cap).
 * 0, or -1 if out of memory or the size overflows (then nothing changed). */
static inline int array_reserve(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t max = SIZE_MAX / size;
    if (need > max)
        return -1;
    size_t n = *cap ? *cap : ARRAY_FIRST;
    while (n < need)
        n = n > max / 2 ? max : n * 2;
    void *p = realloc(*items, n * size);
    if (p == NULL)
        return -1;
    *items = p;
    *cap = n;
    return 0;
}

#endif
