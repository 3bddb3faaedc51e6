/*
 * options.c - the table of options (options.h).
 */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

enum { HELP_COLUMN = 23, WIDTH = 79 };

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* One value into its option: 0, or -1 after the line saying why. */
static int set_value(const option *o, const char *text)
{
    long v = 0;
    char why[160] = "";
    switch (o->kind) {
    case OPTION_TEXT:
        *(const char **)o->value = text;
        return 0;
    case OPTION_BOOL:
        if (!parse_long(text, 0, 1, &v)) {
            log_error("--%s wants 0 or 1, not '%s'", o->name, text);
            return -1;
        }
        *(bool *)o->value = v == 1;
        return 0;
    case OPTION_CHECK:
        if (o->check(text, o->value, why, sizeof why) < 0) {
            log_error("--%s %s", o->name, why);
            return -1;
        }
        return 0;
    case OPTION_LONG:
    case OPTION_INT:
    case OPTION_UINT:
        if (!parse_long(text, o->lo, o->hi, &v)) {
            log_error("--%s wants %ld..%ld, not '%s'", o->name, o->lo, o->hi, text);
            return -1;
        }
        if (o->kind == OPTION_LONG)
            *(long *)o->value = v;
        else if (o->kind == OPTION_INT)
            *(int *)o->value = (int)v;
        else
            *(unsigned *)o->value = (unsigned)v;
        return 0;
    }
    return -1;
}

int options_parse(const option *table, size_t n, int argc, char **argv, const char *usage_head)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            options_usage(stdout, table, n, usage_head);
            return 1;
        }
        size_t k = 0;
        while (k < n && !(strncmp(a, "--", 2) == 0 && strcmp(a + 2, table[k].name) == 0))
            k++;
        if (k == n || i + 1 >= argc) {
            log_error(k == n ? "unknown flag: %s" : "%s wants a value", a);
            options_usage(stderr, table, n, usage_head);
            return 2;
        }
        if (set_value(&table[k], argv[++i]) < 0)
            return 2;
    }
    return 0;
}

/* text from column `at`, wrapped at WIDTH, each further line indented to
 * HELP_COLUMN. */
static void wrap(FILE *f, const char *text, int at)
{
    while (*text) {
        int room = WIDTH - at;
        int len = (int)strlen(text);
        int cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0) /* one word longer than the line */
                cut = (int)strcspn(text, " ");
        }
        fprintf(f, "%.*s\n", cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        if (*text)
            fprintf(f, "%*s", HELP_COLUMN, "");
        at = HELP_COLUMN;
    }
}

void options_usage(FILE *f, const option *table, size_t n, const char *usage_head)
{
    fputs(usage_head, f);
    for (size_t k = 0; k < n; k++) {
        int at = fprintf(f, "  --%s %s", table[k].name, table[k].arg);
        if (at < HELP_COLUMN - 1)
            at += fprintf(f, "%*s", HELP_COLUMN - at, "");
        else
            at += fprintf(f, "  ");
        wrap(f, table[k].help, at);
    }
    fprintf(f, "  --help%*sthis text\n", HELP_COLUMN - 8, "");
}
