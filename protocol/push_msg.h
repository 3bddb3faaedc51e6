/*
 * push_msg.h - the JSON of Web Push (PROTOCOL.md, "Web Push and in-tab
 * notices"): the bodies of POST /api/push/subscribe and
 * /api/push/unsubscribe, and the payload a push carries to the service
 * worker.
 *
 * Owns: these decoders and writers. May call: jansson, jsonin.h, proto_out.h,
 * libc.
 */
#ifndef PUSH_MSG_H
#define PUSH_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "proto_out.h"

/* A subscription as the browser gives it (PushSubscription.toJSON()):
 * {"endpoint":..,"keys":{"p256dh":..,"auth":..}} ("expirationTime" and
 * other members are ignored). With need_keys false (unsubscribe) only the
 * endpoint is read. The strings are copied (each must fit its buffer).
 * 0, or -1 with a sentence in why. */
int push_msg_decode_sub(const char *body, size_t len, int need_keys, char *endpoint, size_t eplen,
                        char *p256dh, size_t plen, char *auth, size_t alen, char *why,
                        size_t whylen);

/* The payload: {"kind":"your_move"|"low_time","game":12,"variant":"ultima",
 * "url":"/#/game/12"} with "opponent" (your_move, if not NULL) or
 * "ms_left" (low_time, >= 0). */
void push_msg_payload(proto_out *o, const char *kind, int64_t game, const char *variant,
                      const char *opponent, int64_t ms_left);

/* {"key":"<base64url>"} of GET /api/push/key. */
void push_msg_key(proto_out *o, const char *key);

#endif
