/*
 * dispatch.h - what arrives on a WebSocket connection: sessions open and
 * close, messages are decoded, checked and dispatched.
 *
 * Owns: the request table (one row per message type of PROTO_REQUESTS: its
 * handler and, as flags, what it needs: hello done, an account, a room);
 * the open/message/close callbacks net is given (main.c wires them); the
 * requests of no other module (hello, ping, turns, vacation); the pushes of
 * the "your turn" list; the rate limits of messages (per connection, per
 * identity over all its connections) and closing with 1008 a connection
 * that goes on past them.
 * May call: session.h, ident.h, forward.h (node mode: requests run by
 * another node), lobby.h, challenge.h, presence.h (who comes
 * and goes), room.h, store.h, accounts.h,
 * errmap.h, metrics.h, net.h, proto.h, log.h. Nothing calls it but main.c.
 *
 * Receive, check against the table, dispatch: the dispatcher checks the
 * flags of a request's row and finds its room, so a handler trusts what
 * its row asks for. Error replies keep the texts clients and tests know.
 */
#ifndef DISPATCH_H
#define DISPATCH_H

#include <stdint.h>

#include <uv.h>

#include "net.h"

enum {
    /* Messages one identity may send over all its connections: this many
     * at once, and as many again every window (pings are not counted). */
    DISPATCH_IDENT_MSGS = 100,
    DISPATCH_IDENT_WINDOW_MS = 20000,
};

struct store;
void dispatch_init(uv_loop_t *loop, struct store *db);
/* The identity's messages per DISPATCH_IDENT_WINDOW_MS (main.c's flag). */
void dispatch_set_ident_msgs(int n);

/* The callbacks of net_callbacks for WebSocket connections. */
void dispatch_open(net_conn *c);
void dispatch_message(net_conn *c, const char *buf, size_t len);
void dispatch_close(net_conn *c);

/* Node mode (forward.h's hooks, wired by main.c): run a message of a
 * remote session; end a session (out of rooms, the lobby, its identity;
 * closed); who has come (its first session here is a remote one). */
struct session;
struct ident;
void dispatch_remote(struct session *s, const char *buf, size_t len);
void dispatch_session_end(struct session *s);
void dispatch_came(struct ident *who);
/* The turns of account changed (on another node): its sessions here that
 * asked for "turns" get the list again. */
void dispatch_turns_changed(int64_t account);
/* Logins of account ended (api_logins.c; a password reset, api_mail.c,
 * ends them all): the one whose token hashes to login (others false) or
 * every one but it (others true; login NULL: every one). The WebSocket
 * connections opened with those logins, on this node and (node mode) on
 * the others, are asked to connect again (1001, why here), which they do
 * as guests. */
void dispatch_logins_ended(int64_t account, const unsigned char login[32], bool others,
                           const char *why);
/* The same told by another node (forward_hooks.logins_ended): this node's
 * connections only. */
void dispatch_logins_ended_elsewhere(int64_t account, const unsigned char *login, bool others);
/* The account's vacation changed on another node: this node's games of it
 * follow (store_vacation_sync) and their rooms tell their players. */
void dispatch_vacation_changed(int64_t account);

#endif
