/*
 * errmap.h - store errors as protocol errors, for the requests that touch
 * the store (rooms' conditional moves, vacation).
 *
 * Owns: the mapping from store_err to proto_err (to be replaced by a code
 * mapping kept with the store's errors). May call: store.h (the codes and
 * their sentences), proto.h.
 */
#ifndef ERRMAP_H
#define ERRMAP_H

#include <stddef.h>

#include "proto.h"

/* The protocol error for a store error (store.h STORE_ERRORS). */
proto_err errmap_store(int serr);
/* A handler's return for a store error: its protocol error, with the
 * store's sentence in why unless why already says something. */
int errmap_store_fail(int serr, char *why, size_t whylen);

#endif
