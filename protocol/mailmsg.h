/*
 * mailmsg.h - the JSON bodies of the e-mail routes (PROTOCOL.md, "E-mail"):
 * what POST /api/mail/... and /api/password/... carry, and the settings
 * GET /api/mail answers.
 *
 * Owns: the field names and JSON shape of those bodies. May call: jansson,
 * jsonin.h, proto_out.h, common/rules.h (rules_why).
 */
#ifndef MAILMSG_H
#define MAILMSG_H

#include <stdbool.h>
#include <stddef.h>

#include "proto_out.h"

enum { MAILMSG_TEXT_MAX = 520 }; /* the longest string field kept, with its NUL */

/* Every field any of the bodies may hold; has_* says which were given. */
typedef struct mailmsg_body {
    bool has_address, has_token, has_password, has_login;
    char address[MAILMSG_TEXT_MAX], token[MAILMSG_TEXT_MAX], password[MAILMSG_TEXT_MAX],
        login[MAILMSG_TEXT_MAX];
    /* Preferences: -1 not given, else 0 or 1. */
    int move, digest, low_time, start_end;
    int remind_days; /* -1 not given */
} mailmsg_body;

/* Decode a body (a JSON object; unknown keys are ignored): 0, or -1 with a
 * sentence in why (not an object, a field of the wrong type or too long). */
int mailmsg_decode(const char *buf, size_t len, mailmsg_body *out, char *why, size_t whylen);

/* {"on":true,"address":"a@b"|null,"move":false,"digest":true,
 *  "low_time":true,"start_end":true,"remind_days":0} */
void mailmsg_write_settings(proto_out *o, bool on, const char *address, bool move, bool digest,
                            bool low_time, bool start_end, int remind_days);

#endif
