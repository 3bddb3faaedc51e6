/*
 * hub.h - what the server does with messages: identities (tokens), the
 * dispatch table (one handler per protocol message type), the lobby and its
 * seeks. Rooms are in room.h.
 *
 * Everything runs on the loop thread. Identities live until shutdown; a
 * connection points to its identity after hello, and an identity lists its
 * open connections (so a reload or a second tab resumes the same seats).
 */
#ifndef HUB_H
#define HUB_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "net.h"
#include "proto.h"

enum { HUB_KEY_HEX = 32 }; /* hex digits of a seat key */

typedef struct ident {
    int64_t id;
    char token[PROTO_TOKEN_MAX + 1]; /* empty for a seat restored from the
                                        store until its owner says hello */
    char key[HUB_KEY_HEX + 1];       /* hash of the token, kept in the store */
    char name[PROTO_NAME_MAX + 1];
    conn *conns;        /* open connections, linked by conn.inext */
    int nseeks;         /* open seeks created by this identity */
    int refs;           /* rooms in memory that seat it: it lives while > 0 */
    int64_t account;    /* the account it is logged in as, 0 for a guest */
    uint64_t last_seen; /* uv_now when its last connection closed */
    struct ident *hnext;
} ident;

struct store;
typedef struct hub_config {
    int64_t abandon_ms; /* a seated player away this long abandons; 0: never */
    struct store *db;   /* open store (store.h) */
} hub_config;

void hub_init(uv_loop_t *loop, const hub_config *cfg);
/* Stop timers so that the loop can wind down (before net_stop). */
void hub_stop(void);
/* Free everything (rooms, seeks, identities). Connections must be gone. */
void hub_shutdown(void);
uv_loop_t *hub_loop(void);

/* Called by net.c. */
void hub_conn_open(conn *c);
void hub_receive(conn *c, const char *buf, size_t len);
void hub_conn_closed(conn *c);

/* The identity that held a seat (by its key) in a game restored from the
 * store; created without a token: the first hello whose token hashes to key
 * adopts it. */
ident *hub_ident_restored(const char *key, const char *name);
/* The identity of an account (created, with a fresh token, if needed). */
ident *hub_ident_account(int64_t account, const char *name);

/*
 * GET /api/... served from the store: /api/games/<id> (JSON),
 * /api/games/<id>.pgn, /api/profile/<username>. Returns 0 when the request
 * is being answered (the store reads off the loop; the answer comes through
 * net_http_reply or net_http_status), an HTTP status for net to send now
 * (404), or -1 if uri is not an API path.
 */
int hub_http_api(conn *c, const char *uri);

/*
 * POST /api/register, /api/login, /api/logout with body. Returns 0 when the
 * request is answered (net_http_reply), now or once the password work is
 * done, else an HTTP status for net to send (404).
 */
int hub_http_post(conn *c, const char *uri, const char *body, size_t len);
/* c's HTTP connection closed while an answer was being computed. */
void hub_http_closed(conn *c);

/* The protocol error for a store error (store.h STORE_ERRORS). */
proto_err hub_store_err(int serr);
/* A handler's return for a store error: its protocol error, with the
 * store's sentence in why unless why already says something. */
int hub_store_fail(int serr, char *why, size_t whylen);

/* Send an error reply to c (counts it in the metrics). */
void hub_send_error(conn *c, const proto_req *req, bool typed, proto_err e, const char *reason);

#endif
