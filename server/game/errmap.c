/*
 * errmap.c - store errors as protocol errors (see errmap.h).
 */
#include "errmap.h"

#include "store.h"

int errmap_store_fail(int serr, char *why, size_t whylen)
{
    if (why[0] == '\0')
        rules_why(why, whylen, "%s", store_err_text(serr));
    /* The store's codes are spelled like the protocol's: match by code. */
    return (int)proto_err_from_code(store_err_code(serr), PROTO_EINTERNAL);
}
