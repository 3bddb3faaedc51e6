/*
 * lessons.h - an account's progress in the lessons (PROTOCOL.md,
 * "Lessons"): a JSON object whose keys are game ids and whose values are
 * the ids of the lessons done, as the client's courses name them
 * (web-client/lessons/<game>.json; the server does not know the lessons,
 * only their shape).
 *
 * Owns: the shape allowed and the canonical text that is stored and sent
 * back (keys in the order given, each list without repeats).
 * May call: jansson, jsonin.h, common/rules.h (rules_find, rules_why).
 */
#ifndef LESSONS_H
#define LESSONS_H

#include <stddef.h>

enum {
    LESSONS_BODY_MAX = 8192, /* bytes of a POST /api/lessons body */
    LESSONS_JSON_MAX = 4096, /* bytes of the canonical object */
    LESSONS_PER_GAME = 64,   /* lesson ids under one game */
    LESSONS_ID_MAX = 32      /* characters of a lesson id */
};

/*
 * Checks body: {"<game id>": ["<lesson id>", ...], ...}, every key a game
 * id of the rules core, every lesson id 1..LESSONS_ID_MAX characters of
 * a-z, 0-9 and '-', at most LESSONS_PER_GAME a game. Writes the canonical
 * object into out. 0, or -1 with a sentence in why.
 */
int lessons_check(const char *body, size_t len, char *out, size_t outlen, char *why, size_t whylen);

#endif
