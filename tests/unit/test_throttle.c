/*
 * test_throttle.c - the throttle tables: free events, doubling delays and
 * their cap, forgetting after quiet, clear and undo, the bounded table
 * (oldest of a set evicted, counted), address keys; and the password rules
 * of accounts.c counted in characters of valid UTF-8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "accounts.h"
#include "throttle.h"

static const throttle_rule rule = {.free = 3, .base_ms = 1000, .max_ms = 8000, .quiet_ms = 60000};

static void test_free_then_doubling(void **state)
{
    (void)state;
    throttle t;
    assert_int_equal(throttle_init(&t, &rule, 64, 1), 0);
    uint64_t now = 1000000;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(throttle_wait(&t, "alice", now), 0);
        throttle_hit(&t, "alice", now);
    }
    /* Past the free ones: 1 s, 2 s, 4 s, then the 8 s cap. */
    uint64_t want[] = {1000, 2000, 4000, 8000, 8000, 8000};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(throttle_wait(&t, "alice", now), want[i]);
        assert_int_equal(throttle_wait(&t, "alice", now + want[i] - 1), 1);
        now += want[i];
        assert_int_equal(throttle_wait(&t, "alice", now), 0);
        throttle_hit(&t, "alice", now);
    }
    /* Other keys are not touched. */
    assert_int_equal(throttle_wait(&t, "bob", now), 0);
    throttle_free(&t);
}

static void test_quiet_clear_undo(void **state)
{
    (void)state;
    throttle t;
    assert_int_equal(throttle_init(&t, &rule, 64, 2), 0);
    uint64_t now = 5000;
    for (int i = 0; i < 5; i++)
        throttle_hit(&t, "k", now);
    assert_true(throttle_wait(&t, "k", now) > 0);
    /* Forgotten after quiet_ms without an event. */
    assert_int_equal(throttle_wait(&t, "k", now + rule.quiet_ms), 0);
    throttle_hit(&t, "k", now + rule.quiet_ms);
    assert_int_equal(throttle_wait(&t, "k", now + rule.quiet_ms), 0);

    for (int i = 0; i < 3; i++)
        throttle_hit(&t, "c", now);
    assert_int_equal(throttle_wait(&t, "c", now), 1000);
    throttle_clear(&t, "c");
    assert_int_equal(throttle_wait(&t, "c", now), 0);

    for (int i = 0; i < 3; i++)
        throttle_hit(&t, "u", now);
    assert_int_equal(throttle_wait(&t, "u", now), 1000);
    throttle_undo(&t, "u");
    assert_int_equal(throttle_wait(&t, "u", now), 0);
    throttle_undo(&t, "u");
    throttle_undo(&t, "u");
    throttle_undo(&t, "u"); /* nothing left: no-op */
    throttle_undo(&t, "nobody");
    throttle_clear(&t, "nobody");
    assert_int_equal(throttle_wait(&t, "u", now), 0);
    throttle_free(&t);
}

/* A full table keeps its capacity: new keys push out the oldest of their
 * set, and those evictions are counted; a blocked key survives fewer newer
 * keys than the table holds. */
static void test_bounded(void **state)
{
    (void)state;
    throttle t;
    assert_int_equal(throttle_init(&t, &rule, 32, 3), 0);
    assert_int_equal(t.mask + 1, 32 / THROTTLE_WAYS);
    uint64_t now = 1;
    for (int i = 0; i < 4; i++)
        throttle_hit(&t, "target", now);
    assert_int_equal(throttle_wait(&t, "target", now), 2000);
    char key[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(key, sizeof key, "flood%d", i);
        throttle_hit(&t, key, now + 1 + (uint64_t)i);
    }
    assert_true(t.evicted >= 10000 - 32);
    /* The target was the oldest: it went, and starts again from zero. */
    assert_int_equal(throttle_wait(&t, "target", now + 20000), 0);
    /* The table holds 32 keys, no more: the newest of each set. */
    int held = 0;
    for (size_t i = 0; i < (t.mask + 1) * THROTTLE_WAYS; i++)
        held += t.slots[i].count > 0;
    assert_int_equal(held, 32);
    assert_int_equal(throttle_wait(&t, "flood9999", now + 20000), 0);
    for (int i = 0; i < 3; i++)
        throttle_hit(&t, "flood9999", now + 20000);
    assert_int_equal(throttle_wait(&t, "flood9999", now + 20000), 2000);
    throttle_free(&t);
}

/* Keys longer than THROTTLE_KEY_MAX - 1 are cut: the same prefix is one
 * key. */
static void test_long_keys(void **state)
{
    (void)state;
    throttle t;
    assert_int_equal(throttle_init(&t, &rule, 16, 4), 0);
    char a[200], b[200];
    memset(a, 'x', sizeof a - 1);
    a[sizeof a - 1] = '\0';
    memcpy(b, a, sizeof b);
    b[150] = 'y';
    for (int i = 0; i < 3; i++)
        throttle_hit(&t, a, 10);
    assert_int_equal(throttle_wait(&t, b, 10), 1000);
    throttle_free(&t);
}

static void test_addr_key(void **state)
{
    (void)state;
    char k[THROTTLE_KEY_MAX];
    throttle_addr_key("127.0.0.1", k, sizeof k);
    assert_string_equal(k, "127.0.0.1");
    throttle_addr_key("2001:db8:1:2:3:4:5:6", k, sizeof k);
    assert_string_equal(k, "2001:db8:1:2::/64");
    throttle_addr_key("2001:db8:1:2:ffff::1", k, sizeof k);
    assert_string_equal(k, "2001:db8:1:2::/64");
    throttle_addr_key("::ffff:10.1.2.3", k, sizeof k);
    assert_string_equal(k, "10.1.2.3");
    throttle_addr_key("::1", k, sizeof k);
    assert_string_equal(k, "::/64");
    throttle_addr_key("not an address", k, sizeof k);
    assert_string_equal(k, "not an address");
    throttle_addr_key(NULL, k, sizeof k);
    assert_string_equal(k, "");
}

/* 8 to 128 characters (code points), not bytes; invalid UTF-8 refused. */
static void test_password_characters(void **state)
{
    (void)state;
    char buf[4 * 130 + 1];
    assert_int_equal(accounts_password_check("12345678"), 0);
    assert_int_equal(accounts_password_check("1234567"), STORE_EPASSWORD);
    /* 8 x "é" (16 bytes) is 8 characters; 7 x "😀" (28 bytes) is 7. */
    buf[0] = '\0';
    for (int i = 0; i < 8; i++)
        strcat(buf, "\xc3\xa9");
    assert_int_equal(accounts_password_check(buf), 0);
    buf[0] = '\0';
    for (int i = 0; i < 7; i++)
        strcat(buf, "\xf0\x9f\x98\x80");
    assert_int_equal(accounts_password_check(buf), STORE_EPASSWORD);
    /* 128 x "😀" (512 bytes) is allowed, 129 is not. */
    buf[0] = '\0';
    for (int i = 0; i < 128; i++)
        strcat(buf, "\xf0\x9f\x98\x80");
    assert_int_equal(accounts_password_check(buf), 0);
    strcat(buf, "a");
    assert_int_equal(accounts_password_check(buf), STORE_EPASSWORD);
    /* Invalid UTF-8: a lone continuation byte, a truncated sequence, an
     * overlong form, a surrogate, past U+10FFFF, bytes never used. */
    const char *bad[] = {
        "abcdefg\x80",
        "abcdefgh\xc3",
        "abcdefg\xc0\xaf",
        "abcdefg\xed\xa0\x80",
        "abcdefg\xf4\x90\x80\x80",
        "abcdefg\xff",
        "abcdefg\xe0\x80\xaf",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(accounts_password_check(bad[i]), STORE_EPASSWORD);
    assert_int_equal(accounts_password_check(NULL), STORE_EPASSWORD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_then_doubling),
        cmocka_unit_test(test_quiet_clear_undo),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_long_keys),
        cmocka_unit_test(test_addr_key),
        cmocka_unit_test(test_password_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
