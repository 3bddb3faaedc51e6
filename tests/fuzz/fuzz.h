/*
 * fuzz.h - what the libFuzzer targets of tests/fuzz/ share: the entry point's
 * prototype, a checked abort that names the broken property, a game picked
 * from a byte, and the input as a C string.
 *
 * Owns: nothing but these helpers. May call: libc, common/rules.h.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property is a crash for libFuzzer: it keeps the input. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static inline int fuzz_nvariants(void)
{
    int n = 0;
    while (rules_variants[n] != NULL)
        n++;
    return n;
}

/* The game a byte names (every game in turn). */
static inline const rules_variant *fuzz_variant(uint8_t b)
{
    return rules_variants[b % fuzz_nvariants()];
}

/* data[0..size) as a malloc'd NUL-terminated string (an inner NUL ends it
 * early, as it would for any C caller). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
