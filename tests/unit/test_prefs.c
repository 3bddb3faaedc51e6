/*
 * test_prefs.c - an account's preferences checked (protocol/prefs.c):
 * every key and value allowed, the canonical form written, and each kind
 * of bad body refused with a reason that names the fault.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "prefs.h"
#include "rules.h"

static int check(const char *body, char *out, size_t outlen, char *why)
{
    return prefs_check(body, strlen(body), out, outlen, why, RULES_WHY_TEXT);
}

static void test_canonical(void **state)
{
    (void)state;
    char out[PREFS_JSON_MAX], why[RULES_WHY_TEXT];
    assert_int_equal(check("{}", out, sizeof out, why), 0);
    assert_string_equal(out, "{}");
    assert_int_equal(check(" { \"sound\" : true , \"theme\":\"light\" } ", out, sizeof out, why),
                     0);
    assert_string_equal(out, "{\"theme\":\"light\",\"sound\":true}");
    /* The longest object fits PREFS_JSON_MAX. */
    assert_int_equal(check("{\"ultima_pieces\":\"discs\",\"board\":\"green\",\"theme\":\"dark\","
                           "\"sound\":false}",
                           out, sizeof out, why),
                     0);
    assert_string_equal(
        out,
        "{\"theme\":\"dark\",\"board\":\"green\",\"ultima_pieces\":\"discs\",\"sound\":false}");
    const char *boards[] = {"wood", "blue", "green", "grey"};
    for (int i = 0; i < 4; i++) {
        char body[64];
        snprintf(body, sizeof body, "{\"board\":\"%s\"}", boards[i]);
        assert_int_equal(check(body, out, sizeof out, why), 0);
    }
}

static void test_refused(void **state)
{
    (void)state;
    char out[PREFS_JSON_MAX], why[RULES_WHY_TEXT];
    const struct {
        const char *body, *why;
    } bad[] = {
        {"", "JSON object"},
        {"[]", "JSON object"},
        {"\"light\"", "JSON object"},
        {"{\"theme\":\"blue\"}", "'theme' must be one of \"dark\", \"light\""},
        {"{\"theme\":null}", "'theme' must be one of"},
        {"{\"sound\":1}", "'sound' must be one of true or false"},
        {"{\"fonts\":\"big\"}", "unknown preference 'fonts'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(check(bad[i].body, out, sizeof out, why), -1);
        assert_non_null(strstr(why, bad[i].why));
    }
    /* Too long, before any parsing; and an output buffer too small. */
    char big[PREFS_BODY_MAX + 10];
    memset(big, ' ', sizeof big - 1);
    big[0] = '{';
    big[sizeof big - 2] = '}';
    big[sizeof big - 1] = '\0';
    assert_int_equal(check(big, out, sizeof out, why), -1);
    assert_non_null(strstr(why, "over"));
    assert_int_equal(check("{\"theme\":\"light\"}", out, 8, why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
