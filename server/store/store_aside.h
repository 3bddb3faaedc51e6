/*
 * store_aside.h - games set aside (migration 0010): a game in progress
 * whose restore failed at start is marked with the reason and dropped from
 * the store's memory, so that no later start tries it again; it stays on
 * disk until an operator clears the mark (`chameleon set-aside`,
 * docs/OPERATING.md "Games set aside").
 *
 * Owns: the storage of that mark. May call: store.h.
 *
 * Synchronous, on the loop's connection, at start-up (before
 * store_serving) or in the `chameleon set-aside` command; but
 * store_set_aside_queued, for a node serving.
 */
#ifndef STORE_ASIDE_H
#define STORE_ASIDE_H

#include <stdint.h>

#include "store.h"

/* Mark game id (in progress) with why: 0 or an error. */
int store_set_aside(store *s, int64_t id, const char *why);

/* The same while the store serves (a node taking a game over that does
 * not rebuild): queued, written by the writer, dropped from the store's
 * memory once stored (a log line either way). 0, or an error at once. */
enum { STORE_ASIDE_WHY_MAX = 512 };
int store_set_aside_queued(store *s, int64_t id, const char *why);

/* cb per game set aside, in id order: how many, or an error. */
typedef void (*store_set_aside_cb)(void *arg, int64_t id, const char *variant, const char *why);
int store_set_aside_list(store *s, store_set_aside_cb cb, void *arg);

/* Clear the mark: 1 if the game was set aside (restored at the next
 * start), 0 if not, or an error. */
int store_set_aside_clear(store *s, int64_t id);

#endif
