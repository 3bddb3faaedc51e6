/*
 * test_push_crypto.c - Web Push cryptography (server/notify/push_crypto.c):
 * the RFC 8291 Appendix A example byte for byte (its keys, salt and
 * expected body), the public key of its private key, a point off the
 * curve refused; the VAPID JWT of RFC 8292: its header and claims, and
 * its ES256 signature verified with the public key (and refused once the
 * claims are changed); base64url both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "push_crypto.h"

/* RFC 8291, Appendix A. */
static const char *const plain = "When I grow up, I want to be a watermelon";
static const char *const as_priv_b64 = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
static const char *const as_pub_b64 =
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
static const char *const ua_pub_b64 =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
static const char *const salt_b64 = "DGv6ra1nlYgDCS1FRnbzlw";
static const char *const auth_b64 = "BTBZMqHH6r4Tts7J_aSIgg";
static const char *const body_b64 =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

static void decode(const char *b64, uint8_t *out, size_t want)
{
    assert_int_equal(push_b64url_decode(b64, out, want), (int)want);
}

static void test_rfc8291_example(void **state)
{
    (void)state;
    uint8_t as_priv[PUSH_PRIV_LEN], as_pub[PUSH_PUB_LEN], ua_pub[PUSH_PUB_LEN];
    uint8_t salt[PUSH_SALT_LEN], auth[PUSH_AUTH_LEN], want[200], got[200];
    decode(as_priv_b64, as_priv, sizeof as_priv);
    decode(as_pub_b64, as_pub, sizeof as_pub);
    decode(ua_pub_b64, ua_pub, sizeof ua_pub);
    decode(salt_b64, salt, sizeof salt);
    decode(auth_b64, auth, sizeof auth);
    int wantlen = push_b64url_decode(body_b64, want, sizeof want);
    assert_int_equal(wantlen, (int)PUSH_BODY_LEN(strlen(plain)));

    size_t n = 0;
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, plain, strlen(plain), as_priv, as_pub, salt,
                                         got, sizeof got, &n),
                     0);
    assert_int_equal(n, (size_t)wantlen);
    assert_memory_equal(got, want, n);

    /* And the body as text, the way the RFC prints it. */
    char text[300];
    assert_int_equal(push_b64url(got, n, text, sizeof text), 0);
    assert_string_equal(text, body_b64);

    /* A body too small for it is refused. */
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, plain, strlen(plain), as_priv, as_pub, salt,
                                         got, n - 1, &n),
                     -1);
}

static void test_public_of_private(void **state)
{
    (void)state;
    uint8_t priv[PUSH_PRIV_LEN], pub[PUSH_PUB_LEN], want[PUSH_PUB_LEN];
    decode(as_priv_b64, priv, sizeof priv);
    decode(as_pub_b64, want, sizeof want);
    assert_int_equal(push_crypto_public(priv, pub), 0);
    assert_memory_equal(pub, want, sizeof pub);

    /* A fresh pair is a pair. */
    uint8_t p2[PUSH_PRIV_LEN], q2[PUSH_PUB_LEN], r2[PUSH_PUB_LEN];
    assert_int_equal(push_crypto_keygen(p2, q2), 0);
    assert_int_equal(q2[0], 0x04);
    assert_int_equal(push_crypto_public(p2, r2), 0);
    assert_memory_equal(q2, r2, sizeof q2);
}

static void test_fresh_keys_and_bad_point(void **state)
{
    (void)state;
    uint8_t ua_pub[PUSH_PUB_LEN], auth[PUSH_AUTH_LEN], a[200], b[200];
    decode(ua_pub_b64, ua_pub, sizeof ua_pub);
    decode(auth_b64, auth, sizeof auth);
    size_t na = 0, nb = 0;
    /* Fresh sender keys and salt: two bodies of the same text differ. */
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, "x", 1, NULL, NULL, NULL, a, sizeof a, &na),
                     0);
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, "x", 1, NULL, NULL, NULL, b, sizeof b, &nb),
                     0);
    assert_int_equal(na, PUSH_BODY_LEN(1));
    assert_int_equal(na, nb);
    assert_memory_not_equal(a, b, na);
    /* A point off the curve. */
    ua_pub[40] ^= 1;
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, "x", 1, NULL, NULL, NULL, a, sizeof a, &na),
                     -1);
    /* Too long a text for one record. */
    static uint8_t big[PUSH_PLAIN_MAX + 1], out[PUSH_BODY_LEN(PUSH_PLAIN_MAX + 1)];
    ua_pub[40] ^= 1;
    assert_int_equal(
        push_crypto_encrypt(ua_pub, auth, big, sizeof big, NULL, NULL, NULL, out, sizeof out, &na),
        -1);
    assert_int_equal(push_crypto_encrypt(ua_pub, auth, big, PUSH_PLAIN_MAX, NULL, NULL, NULL, out,
                                         sizeof out, &na),
                     0);
}

/* Verify an ES256 JWS (r || s) over `data` with the raw public key. */
static int verify(const uint8_t pub[PUSH_PUB_LEN], const char *data, size_t len,
                  const uint8_t rs[64])
{
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
    OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, PUSH_PUB_LEN);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(b);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *pk = NULL;
    assert_true(EVP_PKEY_fromdata_init(ctx) > 0);
    assert_true(EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) > 0);
    ECDSA_SIG *sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(rs, 32, NULL), BN_bin2bn(rs + 32, 32, NULL));
    unsigned char *der = NULL;
    int derlen = i2d_ECDSA_SIG(sig, &der);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pk), 1);
    int ok = EVP_DigestVerify(md, der, (size_t)derlen, (const unsigned char *)data, len);
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
    EVP_PKEY_free(pk);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    return ok;
}

static void test_vapid_jwt(void **state)
{
    (void)state;
    uint8_t priv[PUSH_PRIV_LEN], pub[PUSH_PUB_LEN];
    assert_int_equal(push_crypto_keygen(priv, pub), 0);
    char jwt[PUSH_JWT_MAX];
    assert_int_equal(push_crypto_vapid_jwt(priv, "https://push.example.net", 1453523768,
                                           "mailto:push@example.com", jwt, sizeof jwt),
                     0);
    char *dot1 = strchr(jwt, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
    assert_non_null(dot2);
    assert_null(strchr(dot2 + 1, '.'));
    assert_null(strpbrk(jwt, "=+/"));

    char part[400];
    uint8_t raw[400];
    int n;
    snprintf(part, sizeof part, "%.*s", (int)(dot1 - jwt), jwt);
    n = push_b64url_decode(part, raw, sizeof raw - 1);
    assert_true(n > 0);
    raw[n] = 0;
    assert_string_equal((char *)raw, "{\"typ\":\"JWT\",\"alg\":\"ES256\"}");
    snprintf(part, sizeof part, "%.*s", (int)(dot2 - dot1 - 1), dot1 + 1);
    n = push_b64url_decode(part, raw, sizeof raw - 1);
    assert_true(n > 0);
    raw[n] = 0;
    assert_string_equal((char *)raw, "{\"aud\":\"https://push.example.net\",\"exp\":1453523768,"
                                     "\"sub\":\"mailto:push@example.com\"}");

    uint8_t rs[64];
    assert_int_equal(push_b64url_decode(dot2 + 1, rs, sizeof rs), 64);
    assert_int_equal(verify(pub, jwt, (size_t)(dot2 - jwt), rs), 1);
    /* Another key, or other claims, do not verify. */
    uint8_t priv2[PUSH_PRIV_LEN], pub2[PUSH_PUB_LEN];
    assert_int_equal(push_crypto_keygen(priv2, pub2), 0);
    assert_int_not_equal(verify(pub2, jwt, (size_t)(dot2 - jwt), rs), 1);
    jwt[(dot1 - jwt) + 3] ^= 1;
    assert_int_not_equal(verify(pub, jwt, (size_t)(dot2 - jwt), rs), 1);

    /* Without a subject; text that would break the JSON is refused. */
    assert_int_equal(push_crypto_vapid_jwt(priv, "https://a.example", 1, NULL, jwt, sizeof jwt), 0);
    assert_int_equal(push_crypto_vapid_jwt(priv, "https://a\".example", 1, NULL, jwt, sizeof jwt),
                     -1);
    assert_int_equal(push_crypto_vapid_jwt(priv, "https://a.example", 1, NULL, jwt, 20), -1);
}

static void test_b64url(void **state)
{
    (void)state;
    uint8_t out[8];
    char text[16];
    assert_int_equal(push_b64url("\xfb\xff", 2, text, sizeof text), 0);
    assert_string_equal(text, "-_8");
    assert_int_equal(push_b64url_decode("-_8", out, sizeof out), 2);
    assert_int_equal(push_b64url_decode("-_8=", out, sizeof out), 2);
    assert_int_equal(push_b64url_decode("+/8", out, sizeof out), -1);
    assert_int_equal(push_b64url_decode("AAAAAAAAAAAAAAAA", out, sizeof out), -1); /* 12 > 8 */
    assert_int_equal(push_b64url("abcdef", 6, text, 4), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8291_example),
        cmocka_unit_test(test_public_of_private),
        cmocka_unit_test(test_fresh_keys_and_bad_point),
        cmocka_unit_test(test_vapid_jwt),
        cmocka_unit_test(test_b64url),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
