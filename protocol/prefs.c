/*
 * prefs.c - checking an account's preferences (see prefs.h).
 */
#include "prefs.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "jsonin.h"
#include "rules.h"

/* Each key, and its values (NULL-ended); "sound" is a boolean. */
static const struct {
    const char *key;
    const char *values[6];
} KEYS[] = {
    {"theme", {"dark", "light", NULL}},
    {"board", {"wood", "blue", "green", "grey", NULL}},
    {"ultima_pieces", {"chess", "discs", NULL}},
    {"lang", {"en", "fr", "it", NULL}},
    {"sound", {NULL}},
};
enum { NKEYS = sizeof KEYS / sizeof KEYS[0] };

static bool allowed(int k, const char *v)
{
    for (int i = 0; KEYS[k].values[i]; i++)
        if (strcmp(KEYS[k].values[i], v) == 0)
            return true;
    return false;
}

int prefs_check(const char *body, size_t len, char *out, size_t outlen, char *why, size_t whylen)
{
    if (len > PREFS_BODY_MAX) {
        rules_why(why, whylen, "the preferences are over %d bytes", PREFS_BODY_MAX);
        return -1;
    }
    json_t *root = jsonin_object(body, len, why, whylen);
    if (root == NULL)
        return -1;
    int err = 0;
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v)
    {
        int i = 0;
        while (i < NKEYS && strcmp(KEYS[i].key, k) != 0)
            i++;
        if (i == NKEYS) {
            rules_why(
                why, whylen,
                "unknown preference '%.40s' (known: theme, board, ultima_pieces, lang, sound)", k);
            err = -1;
            break;
        }
        bool ok = KEYS[i].values[0] == NULL ? json_is_boolean(v)
                                            : json_is_string(v) && allowed(i, json_string_value(v));
        if (!ok) {
            char list[80] = "true or false";
            if (KEYS[i].values[0]) {
                list[0] = '\0';
                for (int j = 0; KEYS[i].values[j]; j++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"",
                             j ? ", " : "", KEYS[i].values[j]);
            }
            rules_why(why, whylen, "'%s' must be one of %s", k, list);
            err = -1;
            break;
        }
    }
    size_t n = 0;
    if (err == 0 && outlen > 0) {
        out[0] = '\0';
        n = (size_t)snprintf(out, outlen, "{");
        bool first = true;
        for (int i = 0; i < NKEYS && n < outlen; i++) {
            json_t *x = json_object_get(root, KEYS[i].key);
            if (x == NULL)
                continue;
            n += (size_t)snprintf(out + n, outlen - n, "%s\"%s\":", first ? "" : ",", KEYS[i].key);
            if (n < outlen)
                n += (size_t)snprintf(out + n, outlen - n, json_is_boolean(x) ? "%s" : "\"%s\"",
                                      json_is_boolean(x) ? (json_is_true(x) ? "true" : "false")
                                                         : json_string_value(x));
            first = false;
        }
        if (n < outlen)
            n += (size_t)snprintf(out + n, outlen - n, "}");
        if (n >= outlen) {
            rules_why(why, whylen, "the preferences do not fit");
            err = -1;
        }
    }
    json_decref(root);
    return err;
}
