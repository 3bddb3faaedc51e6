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

typedef struct ident {
    int64_t id;
    char token[PROTO_TOKEN_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    conn *conns; /* open connections, linked by conn.inext */
    int nseeks;  /* open seeks created by this identity */
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

/* Send an error reply to c (counts it in the metrics). */
void hub_send_error(conn *c, const proto_req *req, bool typed, proto_err e,
                    const char *reason);

#endif
