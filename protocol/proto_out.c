/*
 * proto_out.c - the output buffer (see proto_out.h).
 */
#include "proto_out.h"

#include <stdlib.h>

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
    }
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
    size_t need = o->head + o->len + n + 1;
    if (need <= o->cap)
        return true;
    size_t cap = o->cap ? o->cap * 2 : 256;
    while (cap < need)
        cap *= 2;
    char *b = realloc(o->buf, cap);
    if (b == NULL) {
        o->oom = true;
        return false;
    }
    o->buf = b;
    o->cap = cap;
    return true;
}
