/*
 * test_options.c - the table of options (server/base/options.h): every
 * kind of value read into its place, a value out of its range, a missing
 * value and an unknown flag refused (2) without touching what was read,
 * --help (1), and the usage written from the table: every option's flag,
 * its value's name and its help wrapped within 79 columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const char *host;
static long seconds;
static int port;
static unsigned timeout_ms;
static bool allow;
static char checked[16];

static int check_word(const char *text, void *value, char *why, size_t whylen)
{
    if (strcmp(text, "red") != 0 && strcmp(text, "blue") != 0) {
        snprintf(why, whylen, "wants red or blue, not '%s'", text);
        return -1;
    }
    snprintf(value, sizeof checked, "%s", text);
    return 0;
}

static const option table[] = {
    {"host", "ADDR", OPTION_TEXT, 0, 0, &host, NULL, "address to listen on (default here)"},
    {"seconds", "N", OPTION_LONG, 0, 86400, &seconds, NULL, "a long"},
    {"port", "N", OPTION_INT, 0, 65535, &port, NULL, "an int"},
    {"timeout-ms", "N", OPTION_UINT, 1, 1000, &timeout_ms, NULL, "an unsigned"},
    {"allow", "0|1", OPTION_BOOL, 0, 0, &allow, NULL, "a switch"},
    {"colour", "C", OPTION_CHECK, 0, 0, checked, check_word,
     "a word checked by its own function, with a help long enough to be wrapped over more "
     "than one line of the usage, which must stay within seventy-nine columns"},
};
enum { N = sizeof table / sizeof table[0] };

static void reset(void)
{
    host = "default";
    seconds = 7;
    port = 8080;
    timeout_ms = 5;
    allow = false;
    snprintf(checked, sizeof checked, "none");
}

static int parse(int argc, const char **argv)
{
    return options_parse(table, N, argc, (char **)argv, "usage: t [--OPTION VALUE]...\n");
}

static void test_every_kind(void **state)
{
    (void)state;
    reset();
    const char *argv[] = {"t",    "--host",  "::1", "--seconds", "86400", "--port",
                          "0",    "--allow", "1",   "--colour",  "blue",  "--timeout-ms",
                          "1000", "--port",  "9000"};
    assert_int_equal(parse(15, argv), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(seconds, 86400);
    assert_int_equal(port, 9000); /* the last one wins, as over the file */
    assert_int_equal(timeout_ms, 1000);
    assert_true(allow);
    assert_string_equal(checked, "blue");
    const char *none[] = {"t"};
    assert_int_equal(parse(1, none), 0);
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[][3] = {
        {"t", "--port", "65536"},   {"t", "--port", "80x"}, {"t", "--seconds", "-1"},
        {"t", "--timeout-ms", "0"}, {"t", "--allow", "2"},  {"t", "--colour", "green"},
        {"t", "--nonsense", "1"},   {"t", "port", "1"},     {"t", "---port", "1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset();
        assert_int_equal(parse(3, bad[i]), 2);
        assert_int_equal(port, 8080);
        assert_int_equal(seconds, 7);
        assert_int_equal(timeout_ms, 5);
        assert_false(allow);
        assert_string_equal(checked, "none");
    }
    const char *missing[] = {"t", "--port"};
    assert_int_equal(parse(2, missing), 2);
}

static void test_usage(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    options_usage(f, table, N, "usage: t [--OPTION VALUE]...\n");
    fclose(f);
    assert_non_null(strstr(text, "usage: t [--OPTION VALUE]...\n"));
    for (size_t i = 0; i < N; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "  --%s %s ", table[i].name, table[i].arg);
        assert_non_null(strstr(text, flag));
    }
    assert_non_null(strstr(text, "  --help "));
    /* The long help is wrapped: no line over 79 columns, and its words
     * all there, in order. */
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        assert_non_null(end);
        assert_true(end - line <= 79);
    }
    assert_non_null(strstr(text, "a word checked by its own function,"));
    assert_non_null(strstr(text, "seventy-nine columns\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
