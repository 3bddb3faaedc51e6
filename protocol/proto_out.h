/*
 * proto_out.h - the output buffer every outgoing message is written into.
 *
 * Owns: struct proto_out, a growable byte buffer that keeps `head` free
 * bytes in front of the message (libwebsockets' LWS_PRE), so the transport
 * sends it without a copy. May call: libc and array.h only (no JSON, no
 * rules), so the transport (server/net/net.c) can use it without the rest of
 * the codec.
 */
#ifndef PROTO_OUT_H
#define PROTO_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* An output buffer: `head` free bytes, then `len` bytes of message, then a
 * NUL (from proto_out_init on). The buffer is malloc'd; whoever ends up
 * with it frees buf. On allocation failure `oom` is set and later writes
 * are ignored. Also the growable byte string of any module that builds
 * one (headroom 0: buf is then the string). */
typedef struct proto_out {
    char *buf;
    size_t head, len, cap;
    bool oom;
} proto_out;

void proto_out_init(proto_out *o, size_t headroom);
void proto_out_free(proto_out *o);
/* Make room for n more bytes (and the NUL): false if out of memory (then
 * oom is set). The slow path of proto_out_append. */
bool proto_out_grow(proto_out *o, size_t n);

/* Append n raw bytes. */
static inline void proto_out_append(proto_out *o, const char *s, size_t n)
{
    if (o->oom || (o->head + o->len + n + 1 > o->cap && !proto_out_grow(o, n)))
        return;
    if (n > 0) /* s may be NULL then (an empty body) */
        memcpy(o->buf + o->head + o->len, s, n);
    o->len += n;
    o->buf[o->head + o->len] = '\0';
}

/* The message bytes (after the headroom). */
static inline char *proto_out_data(const proto_out *o)
{
    return o->buf + o->head;
}

#endif
