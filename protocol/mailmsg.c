/*
 * mailmsg.c - the e-mail routes' JSON bodies (see mailmsg.h).
 */
#include "mailmsg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"
#include "rules.h"

/* A string field into out: 0 (absent or copied), -1 (wrong type or too long). */
static int get_str(json_t *root, const char *name, bool *has, char *out, char *why, size_t whylen)
{
    json_t *v = json_object_get(root, name);
    if (v == NULL || json_is_null(v))
        return 0;
    const char *s = json_string_value(v);
    if (s == NULL || strlen(s) >= MAILMSG_TEXT_MAX) {
        rules_why(why, whylen, "'%s' must be a string of at most %d bytes", name,
                  MAILMSG_TEXT_MAX - 1);
        return -1;
    }
    snprintf(out, MAILMSG_TEXT_MAX, "%s", s);
    *has = true;
    return 0;
}

static int get_bool(json_t *root, const char *name, int *out, char *why, size_t whylen)
{
    json_t *v = json_object_get(root, name);
    *out = -1;
    if (v == NULL)
        return 0;
    if (!json_is_boolean(v)) {
        rules_why(why, whylen, "'%s' must be true or false", name);
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

int mailmsg_decode(const char *buf, size_t len, mailmsg_body *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    out->remind_days = -1;
    json_t *root = jsonin_object(buf, len, why, whylen);
    if (root == NULL)
        return -1;
    int err = 0;
    if (get_str(root, "address", &out->has_address, out->address, why, whylen) < 0 ||
        get_str(root, "token", &out->has_token, out->token, why, whylen) < 0 ||
        get_str(root, "password", &out->has_password, out->password, why, whylen) < 0 ||
        get_str(root, "login", &out->has_login, out->login, why, whylen) < 0 ||
        get_bool(root, "move", &out->move, why, whylen) < 0 ||
        get_bool(root, "digest", &out->digest, why, whylen) < 0 ||
        get_bool(root, "low_time", &out->low_time, why, whylen) < 0 ||
        get_bool(root, "start_end", &out->start_end, why, whylen) < 0)
        err = -1;
    json_t *rd = json_object_get(root, "remind_days");
    if (err == 0 && rd != NULL) {
        if (!json_is_integer(rd) || json_integer_value(rd) < 0 || json_integer_value(rd) > 30) {
            rules_why(why, whylen, "'remind_days' must be a whole number from 0 to 30");
            err = -1;
        } else {
            out->remind_days = (int)json_integer_value(rd);
        }
    }
    json_decref(root);
    return err;
}

void mailmsg_write_settings(proto_out *o, bool on, const char *address, bool move, bool digest,
                            bool low_time, bool start_end, int remind_days)
{
    json_t *j =
        json_pack("{s:b,s:o,s:b,s:b,s:b,s:b,s:i}", "on", on, "address",
                  address && *address ? json_string(address) : json_null(), "move", move, "digest",
                  digest, "low_time", low_time, "start_end", start_end, "remind_days", remind_days);
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (t == NULL) {
        o->oom = true;
        return;
    }
    proto_out_append(o, t, strlen(t));
    free(t);
}
