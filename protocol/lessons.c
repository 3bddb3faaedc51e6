/*
 * lessons.c - checking an account's progress in the lessons (see
 * lessons.h).
 */
#include "lessons.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonin.h"
#include "rules.h"

static bool lesson_id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > LESSONS_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* The lessons of one game, checked and without repeats, into `done`. */
static int check_game(const char *game, json_t *list, json_t *done, char *why, size_t whylen)
{
    if (rules_find(game) == NULL) {
        rules_why(why, whylen, "'%.40s' is not a game id", game);
        return -1;
    }
    if (!json_is_array(list) || json_array_size(list) > LESSONS_PER_GAME) {
        rules_why(why, whylen, "'%s' must be a list of at most %d lesson ids", game,
                  LESSONS_PER_GAME);
        return -1;
    }
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x)
    {
        if (!json_is_string(x) || !lesson_id_ok(json_string_value(x))) {
            rules_why(why, whylen,
                      "a lesson id of '%s' is not 1 to %d characters of a-z, 0-9 and '-'", game,
                      LESSONS_ID_MAX);
            return -1;
        }
        bool seen = false;
        size_t j;
        json_t *y;
        json_array_foreach(done, j, y) seen = seen || json_equal(x, y);
        if (!seen)
            json_array_append(done, x);
    }
    return 0;
}

int lessons_check(const char *body, size_t len, char *out, size_t outlen, char *why, size_t whylen)
{
    if (len > LESSONS_BODY_MAX) {
        rules_why(why, whylen, "the lessons are over %d bytes", LESSONS_BODY_MAX);
        return -1;
    }
    json_t *root = jsonin_object(body, len, why, whylen);
    if (root == NULL)
        return -1;
    json_t *canon = json_object();
    int err = canon == NULL ? -1 : 0;
    const char *game;
    json_t *list;
    json_object_foreach(root, game, list)
    {
        json_t *done = json_array();
        if (err == 0 && (done == NULL || check_game(game, list, done, why, whylen) < 0))
            err = -1;
        if (err == 0)
            json_object_set(canon, game, done);
        json_decref(done);
        if (err < 0)
            break;
    }
    if (err == 0) {
        char *text = json_dumps(canon, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (text == NULL || strlen(text) >= outlen || strlen(text) >= LESSONS_JSON_MAX) {
            rules_why(why, whylen, "the lessons do not fit in %d bytes", LESSONS_JSON_MAX);
            err = -1;
        } else {
            memcpy(out, text, strlen(text) + 1);
        }
        free(text);
    }
    json_decref(canon);
    json_decref(root);
    return err;
}
