/*
 * errmap.c - store errors as protocol errors (see errmap.h).
 */
#include "errmap.h"

#include "store.h"

int errmap_store_fail(int serr, char *why, size_t whylen)
{
    if (why[0] == '\0')
        rules_why(why, whylen, "%s", store_err_text(serr));
    return (int)errmap_store(serr);
}

proto_err errmap_store(int serr)
{
    switch (serr) {
    case STORE_ENEED_ACCOUNT:
        return PROTO_EACCOUNT_REQUIRED;
    case STORE_EVACATION:
        return PROTO_EVACATION;
    case STORE_EBAD_ARG:
        return PROTO_EBAD_ARGUMENT;
    case STORE_ENOT_FOUND:
        return PROTO_ENOT_FOUND;
    case STORE_ENOT_YOUR_TURN:
        return PROTO_ENOT_YOUR_TURN;
    case STORE_EBAD_TC:
        return PROTO_EBAD_TIME_CONTROL;
    case STORE_EFINISHED:
        return PROTO_EGAME_OVER;
    default:
        return PROTO_EINTERNAL;
    }
}
