/*
 * errmap.h - store errors as protocol errors, for the requests that touch
 * the store (rooms' conditional moves, vacation).
 *
 * Owns: the mapping from store_err to proto_err, by code: a store error
 * whose code the protocol also has ("not_found", "game_over", ...) is that
 * protocol error, any other is "internal". May call: store.h (the codes and
 * their sentences), proto.h.
 */
#ifndef ERRMAP_H
#define ERRMAP_H

#include <stddef.h>

#include "proto.h"

/* A handler's return for a store error (store.h STORE_ERRORS): its protocol
 * error, with the store's sentence in why unless why already says
 * something. */
int errmap_store_fail(int serr, char *why, size_t whylen);

#endif
