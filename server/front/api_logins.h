/*
 * api_logins.h - an account's logins, the list of its sessions on the
 * profile (PROTOCOL.md, "Accounts"): GET /api/sessions lists them (when,
 * until when, which browser, which is the asker's own), POST
 * /api/sessions/end ends one ({"id"}) or every one but the asker's
 * ({"others":true}, "sign out everywhere else"). The WebSocket connections
 * of the logins ended, on every node, are asked to connect again and come
 * back as guests (dispatch_logins_ended).
 *
 * Owns: those two handlers and the shape of a login's id (the hex of its
 * token's hash: the token is never stored, and its hash logs no one in).
 * May call: net.h, api.h (the session's account, answers that come
 * later), accounts.h (the cookie's token and its hash), dispatch.h, store.h,
 * proto.h (the body and the answer), libsodium.
 */
#ifndef API_LOGINS_H
#define API_LOGINS_H

#include <stddef.h>

#include "net.h"
#include "store.h"

/* The store the handlers use (before the server serves). */
void api_logins_init(store *s);
int api_logins_list(net_conn *c, const char *arg, const char *body, size_t len);
int api_logins_end(net_conn *c, const char *arg, const char *body, size_t len);

#endif
