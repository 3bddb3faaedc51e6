/*
 * prefs.h - an account's preferences (PROTOCOL.md, "Preferences"): a small
 * JSON object whose keys are known and whose values are each one of a
 * short list ("theme": "dark" or "light"...), so what is stored is always
 * something the client can apply.
 *
 * Owns: the keys and their allowed values; checking a body and writing
 * the canonical object that is stored and sent back.
 * May call: jansson, jsonin.h, common/rules.h (rules_why).
 */
#ifndef PREFS_H
#define PREFS_H

#include <stddef.h>

enum {
    PREFS_BODY_MAX = 1024, /* bytes of a POST /api/prefs body */
    PREFS_JSON_MAX = 256   /* bytes of the canonical object (every key set) */
};

/*
 * Checks body (a JSON object of known keys with allowed values; every key
 * optional) and writes its canonical form (keys in a fixed order, no
 * spaces) into out. 0, or -1 with why: not JSON, not an object, an unknown
 * key, a value not allowed.
 */
int prefs_check(const char *body, size_t len, char *out, size_t outlen, char *why, size_t whylen);

#endif
