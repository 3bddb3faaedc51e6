/*
 * cond.c - the checker of conditional lines (see cond.h).
 */
#include "cond.h"

#include "record.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
    int value;
    const char *code, *text;
} cond_errs[] = {
#define COND_ERR_ROW(name, value, code, text) {value, code, text},
    COND_ERRORS(COND_ERR_ROW)
#undef COND_ERR_ROW
};

const char *cond_err_code(int err)
{
    for (size_t i = 0; i < sizeof cond_errs / sizeof *cond_errs; i++)
        if (cond_errs[i].value == err)
            return cond_errs[i].code;
    return rules_err_code(err);
}

const char *cond_err_text(int err)
{
    for (size_t i = 0; i < sizeof cond_errs / sizeof *cond_errs; i++)
        if (cond_errs[i].value == err)
            return cond_errs[i].text;
    return rules_err_text(err);
}

int cond_check_line(const rules_game *g, int player, const char *line, char *canon, size_t canonlen,
                    char *why, size_t whylen)
{
    rules_game *copy;
    int err = rules_game_clone(&copy, g, g->nmoves);
    if (err < 0)
        return err;
    size_t n = 0;
    if (canonlen > 0)
        canon[0] = '\0';
    const char *p = line;
    int k = 0;
    for (;; k++) {
        char mv[RULES_MOVE_TEXT], text[RULES_MOVE_TEXT];
        int got = record_line_next(&p, mv);
        if (got == 0)
            break;
        if (got < 0) {
            rules_why(why, whylen, "move %d of line '%.60s': %s", k + 1, line,
                      rules_err_text(RULES_EBAD_MOVE_TEXT));
            err = RULES_EBAD_MOVE_TEXT;
            break;
        }
        /* Alternating: theirs (even), yours (odd). */
        int who = k % 2 == 0 ? 1 - player : player;
        rules_pos before = copy->pos;
        rules_move m;
        err = rules_game_play_text(copy, who, mv, &m, why, whylen);
        if (err < 0) {
            char inner[RULES_WHY_TEXT] = "";
            if (why != NULL)
                snprintf(inner, sizeof inner, "%s", why);
            rules_why(why, whylen, "move %d of line '%.60s' (%s): %s", k + 1, line, mv, inner);
            break;
        }
        if (before.variant->print_move(&before, m, text, sizeof text) < 0)
            snprintf(text, sizeof text, "%s", mv);
        int w = snprintf(canon + n, canonlen - n, "%s%s", n ? " " : "", text);
        if (w < 0 || (size_t)w >= canonlen - n) {
            rules_why(why, whylen, "%s", cond_err_text(COND_ETOO_LONG));
            err = COND_ETOO_LONG;
            break;
        }
        n += (size_t)w;
    }
    rules_game_free(copy);
    if (err == 0 && k < 2) {
        rules_why(why, whylen, "%s", cond_err_text(COND_ESHORT));
        err = COND_ESHORT;
    }
    return err;
}

int cond_match(const char *const *lines, int n, const char *move, char reply[RULES_MOVE_TEXT],
               const char **rest, int *nrest)
{
    int found = 0;
    *nrest = 0;
    reply[0] = '\0';
    for (int i = 0; i < n; i++) {
        char theirs[RULES_MOVE_TEXT], mine[RULES_MOVE_TEXT], next[RULES_MOVE_TEXT];
        const char *p = lines[i];
        if (record_line_next(&p, theirs) <= 0 || record_line_next(&p, mine) <= 0 ||
            strcmp(theirs, move) != 0)
            continue;
        if (!found) {
            memcpy(reply, mine, sizeof mine);
            found = 1;
        } else if (strcmp(mine, reply) != 0) {
            continue;
        }
        const char *after = p + strspn(p, " "), *q = after;
        if (record_line_next(&q, next) > 0 && record_line_next(&q, next) > 0)
            rest[(*nrest)++] = after;
    }
    return found;
}
