/*
 * nodemsg.h - the messages between nodes (node mode, docs/SCALING.md
 * "Forwarding"): their header, their cutting into relay payloads and
 * their putting together again. Nothing here knows what they carry.
 *
 * Owns: the wire format of one payload,
 *
 *   K NODE BOOT SERIAL PART PARTS\n<part of the body>
 *
 * (forward.c says what each kind K carries), and the buffers of messages
 * arriving in parts. May call: relay.h, metrics.h (parts lost), libc.
 *
 * A body over one NOTIFY is cut between UTF-8 characters (the relay
 * takes text only); one relay's payloads arrive in order (relay.h), so
 * the parts of one sender's message come one after the other and a part
 * missing drops that message (counted in chameleon_forward_lost_total).
 */
#ifndef NODEMSG_H
#define NODEMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "relay.h"

enum {
    NODEMSG_NODE_MAX = 48, /* a node's name: chameleon_node_ + it fits a channel */
    NODEMSG_BOOT_MAX = 23, /* a node's process: its start and pid */
    NODEMSG_CHANNEL_MAX = RELAY_NAME_MAX + 1,
    /* Body bytes per payload: the header (under 100 bytes) fits beside. */
    NODEMSG_PART_MAX = RELAY_PAYLOAD_MAX - 128,
    /* A message as big as this at most (a long game's state is far less). */
    NODEMSG_BODY_MAX = 4 << 20,
};

/* The header of one payload. */
typedef struct nodemsg_head {
    char kind;
    char node[NODEMSG_NODE_MAX + 1];
    char boot[NODEMSG_BOOT_MAX + 1];
    uint64_t serial;
    int part, parts;
} nodemsg_head;

/* A message arriving in parts (zero it to start). */
typedef struct nodemsg_parts {
    char *buf;
    size_t len, cap;
    int next; /* the part expected next (0: none under way) */
} nodemsg_parts;

/* The channel node listens on, into out (NODEMSG_CHANNEL_MAX bytes). */
void nodemsg_channel(char *out, const char *node);

/* Publish body (a, alen then b, blen) on channel as kind K, its header
 * naming (node, boot, serial): 0 or a RELAY_E* code. */
int nodemsg_publish(relay *rl, const char *channel, char kind, const char *node, const char *boot,
                    uint64_t serial, const char *a, size_t alen, const char *b, size_t blen);

/* Read payload's header into h: the offset of its part of the body, or -1
 * if it is not one. */
int nodemsg_read_head(const char *payload, nodemsg_head *h);

/* Add a part to r: true once the last is in (the whole body in r->buf,
 * r->len bytes and a NUL). */
bool nodemsg_take(nodemsg_parts *r, int part, int parts, const char *p, size_t n);
void nodemsg_parts_free(nodemsg_parts *r);

#endif
