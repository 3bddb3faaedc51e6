/*
 * test_totp.c - two-factor codes (server/people/totp.c over liboath):
 * RFC 6238's own test vectors (Appendix B: SHA-1, SHA-256 and SHA-512, 8
 * digits, at its six times), the base32 and otpauth:// text of a secret,
 * what a check takes (the window of one step either way, a step used once,
 * spaces) and refuses, and the recovery codes' form and hash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "totp.h"

static const char SEED20[] = "12345678901234567890";
static const char SEED32[] = "12345678901234567890123456789012";
static const char SEED64[] = "1234567890123456789012345678901234567890123456789012345678901234";

static void test_rfc6238_vectors(void **state)
{
    (void)state;
    static const struct {
        int64_t t;
        const char *sha1, *sha256, *sha512;
    } v[] = {
        {59, "94287082", "46119246", "90693936"},
        {1111111109, "07081804", "68084774", "25091201"},
        {1111111111, "14050471", "67062674", "99943326"},
        {1234567890, "89005924", "91819424", "93441116"},
        {2000000000, "69279037", "90698825", "38618901"},
        {20000000000, "65353130", "77737706", "47863826"},
    };
    assert_int_equal(totp_init(), 0);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char out[16];
        assert_int_equal(
            totp_code((const unsigned char *)SEED20, 20, v[i].t, 8, 1, out, sizeof out), 0);
        assert_string_equal(out, v[i].sha1);
        assert_int_equal(
            totp_code((const unsigned char *)SEED32, 32, v[i].t, 8, 256, out, sizeof out), 0);
        assert_string_equal(out, v[i].sha256);
        assert_int_equal(
            totp_code((const unsigned char *)SEED64, 64, v[i].t, 8, 512, out, sizeof out), 0);
        assert_string_equal(out, v[i].sha512);
    }
}

static void test_secret_text(void **state)
{
    (void)state;
    char b32[TOTP_BASE32_MAX + 1], uri[TOTP_URI_MAX];
    totp_base32((const unsigned char *)SEED20, b32);
    assert_string_equal(b32, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    totp_uri("chameleon", "ann_1", (const unsigned char *)SEED20, uri);
    assert_string_equal(uri,
                        "otpauth://totp/chameleon:ann_1?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                        "&issuer=chameleon&algorithm=SHA1&digits=6&period=30");
    unsigned char a[TOTP_SECRET_BYTES], b[TOTP_SECRET_BYTES];
    totp_new_secret(a);
    totp_new_secret(b);
    assert_memory_not_equal(a, b, sizeof a);
}

static void test_check(void **state)
{
    (void)state;
    const unsigned char *key = (const unsigned char *)SEED20;
    int64_t now = 1111111111, step = 0;
    char code[16], before[16], after[16], far[16];
    assert_int_equal(totp_code(key, 20, now, 6, 1, code, sizeof code), 0);
    assert_string_equal(code, "050471"); /* the last six of RFC 6238's 14050471 */
    assert_true(totp_check(key, now, code, 0, &step));
    assert_int_equal(step, now / 30);
    /* Used once: not again, nor any step before it. */
    assert_false(totp_check(key, now, code, step, &step));
    /* One step of drift either way, not two. */
    totp_code(key, 20, now - 30, 6, 1, before, sizeof before);
    totp_code(key, 20, now + 30, 6, 1, after, sizeof after);
    totp_code(key, 20, now + 60, 6, 1, far, sizeof far);
    assert_true(totp_check(key, now, before, 0, &step));
    assert_int_equal(step, now / 30 - 1);
    assert_true(totp_check(key, now, after, 0, &step));
    assert_int_equal(step, now / 30 + 1);
    assert_false(totp_check(key, now, far, 0, &step));
    /* Spaces as apps show them; nothing else. */
    assert_true(totp_check(key, now, "050 471", 0, &step));
    assert_false(totp_check(key, now, "05047", 0, &step));
    assert_false(totp_check(key, now, "0504711", 0, &step));
    assert_false(totp_check(key, now, "05047a", 0, &step));
    assert_false(totp_check(key, now, "", 0, &step));
    assert_false(totp_check(key, now, NULL, 0, &step));
}

static void test_recovery_codes(void **state)
{
    (void)state;
    char codes[TOTP_RECOVERY_CODES][TOTP_RECOVERY_LEN + 2];
    totp_recovery_new(codes, TOTP_RECOVERY_CODES);
    for (int i = 0; i < TOTP_RECOVERY_CODES; i++) {
        assert_int_equal(strlen(codes[i]), TOTP_RECOVERY_LEN + 1);
        assert_int_equal(codes[i][5], '-');
        assert_true(totp_is_recovery(codes[i]));
        for (int k = 0; k < i; k++)
            assert_string_not_equal(codes[i], codes[k]);
    }
    unsigned char h1[32], h2[32], h3[32];
    assert_int_equal(totp_recovery_hash("abcde-fghjk", h1), 0);
    assert_int_equal(totp_recovery_hash(" ABCDE FGHJK ", h2), 0);
    assert_memory_equal(h1, h2, 32);
    assert_int_equal(totp_recovery_hash("abcdefghjm", h3), 0);
    assert_memory_not_equal(h1, h3, 32);
    /* Not recovery codes: a six-digit code, a letter outside the alphabet
     * (o, l, i, 0, 1 are left out), too short or long. */
    assert_false(totp_is_recovery("123456"));
    assert_int_equal(totp_recovery_hash("abcde-fghio", h1), -1);
    assert_int_equal(totp_recovery_hash("abcde-fghj", h1), -1);
    assert_int_equal(totp_recovery_hash("abcde-fghjkm", h1), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6238_vectors),
        cmocka_unit_test(test_secret_text),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_recovery_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
