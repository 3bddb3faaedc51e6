/*
 * push_api.h - the HTTP routes of Web Push (PROTOCOL.md, "Web Push and
 * in-tab notices"): GET /api/push/key, POST /api/push/subscribe and
 * POST /api/push/unsubscribe.
 *
 * Owns: these handlers (main.c puts them in the route table). May call:
 * net.h (replies, the cookie), accounts.h (the session of the cookie),
 * api.h (api_pending: the POSTs are answered once the store has written),
 * push.h, push_msg.h and proto.h (the JSON), store.h (the type).
 *
 * Each handler is a net_handler (see api.h). The POSTs are checked by net
 * like every POST (JSON, Content-Length, the site's Origin) and need a
 * logged-in account (401 account_required otherwise).
 */
#ifndef PUSH_API_H
#define PUSH_API_H

#include <stddef.h>

#include "net.h"

struct store;

void push_api_init(struct store *db);

int push_api_key(net_conn *c, const char *arg, const char *body, size_t len);
int push_api_subscribe(net_conn *c, const char *arg, const char *body, size_t len);
int push_api_unsubscribe(net_conn *c, const char *arg, const char *body, size_t len);

#endif
