/*
 * net_msg.c - the shared outgoing message of the transport (see net.h).
 *
 * Apart from net.c so that code which builds messages (rooms, the lobby)
 * links without libwebsockets, e.g. in the unit tests.
 */
#include "net.h"

#include <stdlib.h>

net_msg *net_msg_from(proto_out *o)
{
    if (o->oom || o->buf == NULL) {
        proto_out_free(o);
        return NULL;
    }
    net_msg *m = malloc(sizeof *m);
    if (m == NULL) {
        proto_out_free(o);
        return NULL;
    }
    m->refs = 1;
    m->head = o->head;
    m->len = o->len;
    m->buf = o->buf;
    o->buf = NULL;
    o->len = o->cap = 0;
    return m;
}

void net_msg_ref(net_msg *m)
{
    m->refs++;
}

void net_msg_unref(net_msg *m)
{
    if (m != NULL && --m->refs == 0) {
        free(m->buf);
        free(m);
    }
}
