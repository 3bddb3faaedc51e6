/*
 * push_msg.c - Web Push's JSON (see push_msg.h).
 */
#include "push_msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonin.h"

static void say(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

/* Copy the string member `name` of o into buf: 0, or -1 with a why. */
static int copy(json_t *o, const char *name, char *buf, size_t len, char *why, size_t whylen)
{
    const char *v = json_string_value(json_object_get(o, name));
    if (v == NULL || *v == '\0') {
        say(why, whylen, "'%s' (a non-empty string) is required", name);
        return -1;
    }
    if (strlen(v) >= len) {
        say(why, whylen, "'%s' is too long (at most %zu bytes)", name, len - 1);
        return -1;
    }
    memcpy(buf, v, strlen(v) + 1);
    return 0;
}

int push_msg_decode_sub(const char *body, size_t len, int need_keys, char *endpoint, size_t eplen,
                        char *p256dh, size_t plen, char *auth, size_t alen, char *why,
                        size_t whylen)
{
    json_error_t jerr;
    json_t *root = jsonin_load(body, len, &jerr);
    int err = -1;
    if (root == NULL || !json_is_object(root)) {
        if (root != NULL || !jsonin_duplicate(&jerr, why, whylen))
            say(why, whylen, "the body must be a JSON object");
        goto out;
    }
    if (copy(root, "endpoint", endpoint, eplen, why, whylen) < 0)
        goto out;
    if (need_keys) {
        json_t *keys = json_object_get(root, "keys");
        if (!json_is_object(keys)) {
            say(why, whylen, "'keys' (an object with 'p256dh' and 'auth') is required");
            goto out;
        }
        if (copy(keys, "p256dh", p256dh, plen, why, whylen) < 0 ||
            copy(keys, "auth", auth, alen, why, whylen) < 0)
            goto out;
    }
    err = 0;
out:
    json_decref(root);
    return err;
}

static void dump(proto_out *o, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (text == NULL)
        o->oom = true;
    else
        proto_out_append(o, text, strlen(text));
    free(text);
    json_decref(j);
}

void push_msg_payload(proto_out *o, const char *kind, int64_t game, const char *variant,
                      const char *opponent, int64_t ms_left)
{
    char url[48];
    snprintf(url, sizeof url, "/#/game/%lld", (long long)game);
    json_t *j = json_pack("{s:s, s:I, s:s, s:s}", "kind", kind, "game", (json_int_t)game, "variant",
                          variant ? variant : "", "url", url);
    if (j != NULL && opponent != NULL)
        json_object_set_new(j, "opponent", json_string(opponent));
    if (j != NULL && ms_left >= 0)
        json_object_set_new(j, "ms_left", json_integer(ms_left));
    dump(o, j);
}

void push_msg_key(proto_out *o, const char *key)
{
    dump(o, json_pack("{s:s}", "key", key));
}
