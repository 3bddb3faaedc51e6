/*
 * jsonin.c - JSON from outside, duplicate keys refused (see jsonin.h).
 */
#include "jsonin.h"

#include <stdio.h>
#include <string.h>

json_t *jsonin_load(const char *buf, size_t len, json_error_t *err)
{
    return json_loadb(buf != NULL ? buf : "", buf != NULL ? len : 0, JSON_REJECT_DUPLICATES, err);
}

bool jsonin_duplicate(const json_error_t *err, char *why, size_t whylen)
{
    if (json_error_code(err) != json_error_duplicate_key)
        return false;
    /* jansson says: duplicate object key near '"k"'; the key is the token
     * between the quotes (as JSON text, at most what jansson kept). */
    const char *near = strstr(err->text, "near '");
    int n = 0;
    if (near != NULL) {
        near += 6;
        const char *end = strrchr(near, '\'');
        n = end != NULL && end > near ? (int)(end - near) : 0;
        if (n > 60)
            n = 60;
    }
    if (n > 0)
        snprintf(why, whylen, "duplicate key %.*s (each key at most once in an object)", n, near);
    else
        snprintf(why, whylen, "duplicate key (each key at most once in an object)");
    return true;
}

json_t *jsonin_object(const char *buf, size_t len, char *why, size_t whylen)
{
    json_error_t err;
    json_t *root = jsonin_load(buf, len, &err);
    if (root != NULL && json_is_object(root))
        return root;
    if (root != NULL || !jsonin_duplicate(&err, why, whylen))
        snprintf(why, whylen, "the body must be a JSON object");
    json_decref(root);
    return NULL;
}
