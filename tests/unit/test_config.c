/*
 * test_config.c - the configuration file: key = value lines into flag
 * pairs in order, comments and blanks skipped, and each kind of bad line
 * refused with its line number; a missing file told apart from a bad one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static void test_pairs(void **state)
{
    (void)state;
    char **v;
    int n;
    char err[256];
    const char *text = "# a comment\n"
                       "\n"
                       "port = 8081\n"
                       "  web-root=/usr/share/chameleon/web-client  \n"
                       "public-url = https://example.org/#x   # trailing comment\n"
                       "\t\n"
                       "port = 8082";
    assert_int_equal(config_parse("t.conf", text, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 8);
    const char *want[] = {"--port",       "8081",
                          "--web-root",   "/usr/share/chameleon/web-client",
                          "--public-url", "https://example.org/#x",
                          "--port",       "8082"};
    for (int i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    assert_null(v[n]);
    config_free(v, n);

    assert_int_equal(config_parse("t.conf", "# nothing\n\n", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    assert_null(v[0]);
    config_free(v, n);
}

static void test_bad_lines(void **state)
{
    (void)state;
    const struct {
        const char *text, *err;
    } cases[] = {
        {"port = 1\nport 8080\n", "t.conf:2: expected key = value"},
        {"\n\n = 3\n", "t.conf:3: a key is missing before '='"},
        {"port =\n", "t.conf:1: a value is missing after '='"},
        {"port = # only a comment\n", "t.conf:1: a value is missing after '='"},
        {"--port = 1\n", "t.conf:1: write the key without \"--\""},
        {"Port = 1\n", "t.conf:1: a key is lower-case letters, digits and '-'"},
        {"web root = x\n", "t.conf:1: a key is lower-case letters, digits and '-'"},
        {"config = /etc/other\n", "t.conf:1: config cannot name another file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char **v = (char **)&v;
        int n = 7;
        char err[256] = "";
        assert_int_equal(config_parse("t.conf", cases[i].text, &v, &n, err, sizeof err), -1);
        assert_string_equal(err, cases[i].err);
        assert_null(v);
        assert_int_equal(n, 0);
    }
    char longline[CONFIG_LINE_MAX + 20];
    memset(longline, 'a', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    char **v;
    int n;
    char err[256];
    assert_int_equal(config_parse("t.conf", longline, &v, &n, err, sizeof err), -1);
    assert_string_equal(err, "t.conf:1: line too long");
}

static void test_files(void **state)
{
    (void)state;
    char path[] = "/tmp/test_config_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "db = /var/lib/chameleon/chameleon.db\n";
    assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    char **v;
    int n;
    char err[256];
    assert_int_equal(config_read(path, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "--db");
    assert_string_equal(v[1], "/var/lib/chameleon/chameleon.db");
    config_free(v, n);
    unlink(path);
    assert_int_equal(config_read(path, &v, &n, err, sizeof err), CONFIG_ENOENT);
    assert_non_null(strstr(err, "No such file"));
    assert_int_equal(config_read("/", &v, &n, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
