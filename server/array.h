/*
 * array.h - the one way arrays grow in server/ (hash tables are uthash).
 *
 * Owns: array_reserve. May call: libc only. Header-only, so that every
 * module (and the unit tests) can use it without linking anything.
 *
 * An array is three fields: a pointer, a count and a capacity; it doubles
 * when full. Usage:
 *
 *     if (array_reserve((void **)&r->watchers, &r->capwatchers, r->nwatchers + 1,
 *                       sizeof *r->watchers) < 0)
 *         return -1;
 *     r->watchers[r->nwatchers++] = s;
 */
#ifndef ARRAY_H
#define ARRAY_H

#include <stddef.h>
#include <stdlib.h>

enum { ARRAY_FIRST = 4 }; /* capacity of a first allocation */

/* Make room for `need` elements of `size` bytes in *items (capacity *cap).
 * 0, or -1 if out of memory (then nothing changed). */
static inline int array_reserve(void **items, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int n = *cap ? *cap : ARRAY_FIRST;
    while (n < need)
        n *= 2;
    void *p = realloc(*items, (size_t)n * size);
    if (p == NULL)
        return -1;
    *items = p;
    *cap = n;
    return 0;
}

#endif
