/*
 * place.h - node mode: a game started from the lobby is placed on the
 * node of the player whose request started it (the seek's last accepter,
 * the challenged), so that more nodes hold more rooms (docs/SCALING.md
 * "Forwarding (built)").
 *
 * Owns: the games asked of other nodes and not yet answered (each with
 * its seats, its asker held, and a deadline), their timer.
 * May call: forward.h (the node of a session, the messages S and R),
 * room.h (room_start, on the node asked), ident.h, session.h, proto.h,
 * log.h, libuv. The lobby and challenges call place_start; forward.c
 * gives it S and R (main.c wires the hook).
 *
 * The lobby's node asks (S, to the asker's node): the settings, the
 * asker's session there and request id, and each seat's identity (an
 * account's id and name, a guest's token, a bot's level). The node asked
 * starts the room as if the request had been its own (room_start: the
 * seats' sessions there get game_started and the state, the asker its
 * reply) and answers (R) with the room or an error. The lobby's node then
 * tells the seats' other sessions it has game_started, and the state as
 * room_start gives it: it joins the room for its own clients, and asks a
 * third node to join it for its clients (J). On an error, or no answer within
 * PLACE_WAIT_MS, the asker gets the error. Caps per address, checked on
 * the lobby's node, are not charged on the node asked (each node counts
 * its own rooms).
 */
#ifndef PLACE_H
#define PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "ident.h"
#include "proto.h"
#include "room.h"
#include "session.h"

enum { PLACE_WAIT_MS = 5000 };

void place_init(uv_loop_t *loop);
/* Start the game on asker's node if asker is another node's client (node
 * mode): true if asked there (the answer comes later; the caller treats
 * the game as started), false to start it here. */
bool place_start(const room_settings *s, ident *const *seats, int nseats, session *asker,
                 const proto_req *req);
/* A message S (start this game), R (the answer) or J (join it for a
 * client) from node. */
void place_message(char kind, const char *node, uint64_t serial, const char *body, size_t len);
/* Answer every game still asked of another node with an error (shutdown). */
void place_stop(void);

#endif
