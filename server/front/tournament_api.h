/*
 * tournament_api.h - the HTTP routes of tournaments (PROTOCOL.md,
 * "Tournaments"): the list, one tournament, its PGN, and the requests of
 * accounts (create, join, leave, start, cancel, remove, withdraw).
 *
 * Owns: those route handlers, the PGN exports and the requests in flight
 * (answered once the tournament's write has committed).
 * May call: net.h (replies), api.h (api_pending: a connection that closes
 * while its answer is computed; api_with_session: the session cookie's
 * account, queued), tournament.h, store.h (reading games), archive.h
 * (PGN), proto.h, log.h.
 */
#ifndef TOURNAMENT_API_H
#define TOURNAMENT_API_H

#include <stddef.h>

#include <uv.h>

#include "net.h"

struct store;
void tournament_api_init(struct store *db);

/* GET /api/tournaments[/<id>[.pgn]]: arg is the rest of the path. */
int tournament_api_get(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/tournaments (create), /api/tournaments/<id>/<action>. */
int tournament_api_post(net_conn *c, const char *arg, const char *body, size_t len);

#endif
