/*
 * test_log.c - the log's lines: the level word, msg quoted with its quotes
 * and backslashes escaped and a trailing newline dropped, key=value fields
 * after it, lines under the level dropped, the level names.
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

#include "log.h"

/* Run the logging calls of fn with stderr sent to a file; its text in out. */
static void capture(void (*fn)(void), char *out, size_t len)
{
    char path[] = "/tmp/test_log_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void lines(void)
{
    log_set_level(LOG_INFO);
    log_kv(LOG_INFO, "listening", "addr=%s port=%d", "127.0.0.1", 8080);
    log_debug("dropped %d", 1);
    log_error("cannot open %s: \"x\" \\ y\n", "a.db");
    log_kv(LOG_WARN, "no fields", "%s", "");
}

static void test_lines(void **state)
{
    (void)state;
    char out[1024];
    capture(lines, out, sizeof out);
    assert_string_equal(out, "level=info msg=\"listening\" addr=127.0.0.1 port=8080\n"
                             "level=error msg=\"cannot open a.db: \\\"x\\\" \\\\ y\"\n"
                             "level=warn msg=\"no fields\"\n");
}

static void only_errors(void)
{
    log_set_level(LOG_ERROR);
    log_warn("dropped");
    log_info("dropped");
    log_error("kept");
    log_set_level(LOG_INFO);
}

static void test_levels(void **state)
{
    (void)state;
    char out[256];
    capture(only_errors, out, sizeof out);
    assert_string_equal(out, "level=error msg=\"kept\"\n");
    log_level lv;
    assert_true(log_parse_level("debug", &lv) && lv == LOG_DEBUG);
    assert_true(log_parse_level("warn", &lv) && lv == LOG_WARN);
    assert_false(log_parse_level("loud", &lv));
    assert_false(log_parse_level("INFO", &lv));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
