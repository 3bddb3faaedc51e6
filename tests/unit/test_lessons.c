/*
 * test_lessons.c - an account's progress in the lessons checked
 * (protocol/lessons.c): the canonical form (keys in order, repeats
 * dropped), and each bad body refused with a reason that names the fault.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lessons.h"
#include "rules.h"

static char out[LESSONS_JSON_MAX], why[RULES_WHY_TEXT];

static int check(const char *body)
{
    return lessons_check(body, strlen(body), out, sizeof out, why, sizeof why);
}

static void test_canonical(void **state)
{
    (void)state;
    assert_int_equal(check("{}"), 0);
    assert_string_equal(out, "{}");
    assert_int_equal(check(" { \"ultima\" : [\"pincer\", \"king\", \"pincer\"], \"ant2\": [] } "),
                     0);
    assert_string_equal(out, "{\"ultima\":[\"pincer\",\"king\"],\"ant2\":[]}");
    assert_int_equal(check("{\"rollerball\":[\"a-1\",\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"]}"), 0);
}

static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *body, *says;
    } bad[] = {
        {"[]", "JSON object"},
        {"nope", "JSON object"},
        {"{\"chess\":[]}", "not a game id"},
        {"{\"ultima\":\"pincer\"}", "list"},
        {"{\"ultima\":[\"Pincer\"]}", "a-z"},
        {"{\"ultima\":[\"\"]}", "a-z"},
        {"{\"ultima\":[\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"]}", "a-z"},
        {"{\"ultima\":[1]}", "a-z"},
        {"{\"ultima\":[],\"ultima\":[]}", "ultima"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(check(bad[i].body), -1);
        if (strstr(why, bad[i].says) == NULL)
            fail_msg("%s: %s", bad[i].body, why);
    }
    /* Too many under one game, and a body over the limit. */
    char body[LESSONS_BODY_MAX + 16];
    int n = snprintf(body, sizeof body, "{\"yalta\":[");
    for (int i = 0; i <= LESSONS_PER_GAME; i++)
        n += snprintf(body + n, sizeof body - (size_t)n, "%s\"l%d\"", i ? "," : "", i);
    snprintf(body + n, sizeof body - (size_t)n, "]}");
    assert_int_equal(check(body), -1);
    assert_non_null(strstr(why, "at most"));
    memset(body, ' ', sizeof body);
    body[0] = '{';
    body[sizeof body - 2] = '}';
    body[sizeof body - 1] = '\0';
    assert_int_equal(check(body), -1);
    assert_non_null(strstr(why, "over"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
