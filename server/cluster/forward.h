/*
 * forward.h - node mode: a room's requests go to the node that holds the
 * room, the lobby's to the node that holds the lobby, and their answers
 * and events come back (issue 20; docs/SCALING.md "Forwarding").
 *
 * Owns: this node's relay (relay.h) and its two channels:
 * chameleon_node_<name> (what other nodes send this one) and
 * chameleon_leases (every take-over, heard by every node) and
 * chameleon_accounts (an account's turns changed); the messages other
 * nodes send in parts (events, shares, games to place), one under way
 * per sending relay; the map
 * game -> node of the rooms asked for here and held elsewhere; the node
 * that holds the lobby (the live node whose name sorts first, read every
 * ttl / 2); the remote sessions (session.h) through which this node
 * serves clients connected to other nodes, by (node, boot, serial); the
 * record of what each local session forwarded (session.forwarded).
 * May call: relay.h, nodemsg.h (the messages in parts), fanout.h (what
 * remote sessions are sent), session.h, ident.h, store.h, proto.h, log.h,
 * metrics.h, libuv, uthash. dispatch.c calls it; main.c wires the hooks
 * (the dispatcher's own functions), so it never calls dispatch.h.
 *
 * One remote session per local session and node: the owner runs every
 * request it gets from a client through it as the dispatcher runs a local
 * one, so rooms, the lobby and identities stay as they are; what they
 * send it is published back, and the asking node writes those bytes to
 * the client as they are. Identity travels with each request: an account
 * (id and name: the asking node checked the cookie) or a guest's token
 * (ident_guest_of: the same guest on every node).
 *
 * The relay delivers at most once and in order per sender. A message
 * over a NOTIFY's size goes in parts, cut between UTF-8 characters. A
 * take-over is published on chameleon_leases; a node that forwarded a
 * moved room's requests to the old holder, or the lobby's to a node that
 * no longer holds it, closes those clients' connections with 1001: they
 * connect again and join again, which fills any gap as a reconnection
 * does.
 */
#ifndef FORWARD_H
#define FORWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "ident.h"
#include "proto.h"
#include "session.h"

struct store;
struct relay;

typedef struct forward_hooks {
    /* Run one message of a remote session as the dispatcher runs a local
     * session's (decoded, checked against the request table; no rate
     * limit: the client's own node applied it). */
    void (*run)(session *s, const char *buf, size_t len);
    /* A remote session ends: out of rooms, the lobby and its identity,
     * as a closing connection. */
    void (*gone)(session *s);
    /* who has its first session here (a remote one): as at a hello. */
    void (*came)(ident *who);
    /* Another node holds the lobby now, which this one held (or served
     * before it knew): its watchers here go there. */
    void (*lobby_moved)(void);
    /* An account's turns, or its vacation, changed on another node. */
    void (*turns_changed)(int64_t account);
    void (*vacation_changed)(int64_t account);
    /* Logins of an account ended on another node (as
     * dispatch_logins_ended: login NULL with others true is every one). */
    void (*logins_ended)(int64_t account, const unsigned char *login, bool others);
    /* This node holds the lobby: another node's share of its life came
     * (presence_from_node). */
    void (*presence)(const char *node, const char *body, size_t len);
    /* S, R or J (place.h) from node: a game to start here, the answer, a
     * join to make for a client. */
    void (*place)(char kind, const char *node, uint64_t serial, const char *body, size_t len);
} forward_hooks;

/* Node mode: open the relay of node `node` on pg_url (the store's
 * database) and listen. ttl_ms: the leases' life (the lobby's holder is
 * read every ttl_ms / 2). 0, or -1 with why. */
int forward_start(uv_loop_t *loop, struct store *db, const char *pg_url, const char *node,
                  unsigned ttl_ms, const forward_hooks *hooks, char *why, size_t whylen);
/* Close the relay and drop every remote session (shutdown, before the
 * connections close). */
void forward_stop(void);
/* Whether forward_start ran (node mode). */
bool forward_on(void);
/* The relay (metrics), or NULL. */
struct relay *forward_relay(void);

/* s asks (buf, len: the message as received; req: it decoded) for room
 * `game`, which is not in this node's memory. True: taken in charge (sent
 * to the node that holds it, or answered unknown_room once the store has
 * said nobody does); false: not node mode. */
bool forward_room(session *s, const proto_req *req, const char *buf, size_t len);
/* A lobby request (seeks, the lobby, challenges): true if it went to the
 * node that holds the lobby, false if this node holds it (or is not in
 * node mode): run it here. */
bool forward_lobby(session *s, const proto_req *req, const char *buf, size_t len);
/* The node of s's client if s is a remote session (its name), else NULL;
 * the serial of s's client session there (its own serial if local). */
const char *forward_client_node(const session *s);
uint64_t forward_client_serial(const session *s);
/* The local session with this serial that forwarded something, or NULL. */
session *forward_local_session(uint64_t serial);
/* Send node a message of kind K for place.c (S, R, J), after what remote
 * sessions were sent so far: 0 or a RELAY_E*. */
int forward_send(const char *node, char kind, uint64_t serial, const char *body, size_t len);
/* Send this node's share of the lobby's life (presence.c) to the node that
 * holds the lobby: false if this node holds it (or is not in node mode). */
bool forward_presence(const char *body, size_t len);
/* A local session closes: the nodes it forwarded to end its remote
 * sessions. */
void forward_closed(session *s);
/* This node took game's lease over from a dead node: every node hears of
 * it. */
void forward_taken(int64_t game);
/* An account's turns changed here (a committed move): every other node's
 * sessions of it that asked for "turns" get the list again
 * (chameleon_accounts). */
void forward_turns_changed(int64_t account);
/* An account's vacation began or ended here: the other nodes move the
 * deadlines of its games they hold (chameleon_accounts). */
void forward_vacation_changed(int64_t account);
/* Tell the other nodes that logins of account ended (login NULL: every
 * one), so that their connections opened with them go too. */
void forward_logins_ended(int64_t account, const unsigned char *login, bool others);

#endif
