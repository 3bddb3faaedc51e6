/*
 * fanout.h - node mode, the owning side: what remote sessions are sent
 * goes back to their clients' nodes as one relay message per message and
 * node, however many of that node's clients get it (a move watched by 50
 * spectators on another node: one NOTIFY, not 50).
 *
 * Owns: the messages sent during one turn of the loop, in order, each with
 * its node and the serials of the sessions it goes to; a prepare and a
 * check handle that publish them (before the loop waits, so nothing sent
 * from a timer waits for the poll, and after it has handled I/O).
 * May call: nodemsg.h, relay.h, metrics.h, log.h, libuv. forward.c calls
 * it.
 *
 * A message E's body is "SERIAL SERIAL ...\n" and then the bytes for
 * those sessions' clients. A session's messages keep their order: a
 * message joins only the latest entry of its node, and only if it has the
 * same bytes (so a session twice in one entry gets those bytes twice, in
 * their place); otherwise it starts a new entry.
 */
#ifndef FANOUT_H
#define FANOUT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "relay.h"

/* Publish on rl from now on (node mode). */
void fanout_start(uv_loop_t *loop, relay *rl);
/* The session `serial` of node's process boot is sent bytes. */
void fanout_send(const char *node, const char *boot, uint64_t serial, const char *bytes,
                 size_t len);
/* Publish what waits now. */
void fanout_flush(void);
/* Publish what waits, then stop (before the relay closes). */
void fanout_stop(void);

#endif
