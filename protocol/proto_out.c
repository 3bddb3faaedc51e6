/*
 * proto_out.c - the output buffer (see proto_out.h).
 */
#include "proto_out.h"

#include <stdlib.h>

#include "array.h"

void proto_out_init(proto_out *o, size_t headroom)
{
    o->head = headroom;
    o->len = 0;
    o->cap = headroom + 256;
    o->oom = false;
    o->buf = malloc(o->cap);
    if (o->buf == NULL) {
        o->cap = 0;
        o->oom = true;
        return;
    }
    o->buf[o->head] = '\0';
}

void proto_out_free(proto_out *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}

bool proto_out_grow(proto_out *o, size_t n)
{
    if (o->oom)
        return false;
    if (array_reserve((void **)&o->buf, &o->cap, o->head + o->len + n + 1, 1) < 0) {
        o->oom = true;
        return false;
    }
    return true;
}
