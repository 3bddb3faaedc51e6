/*
 * push_crypto.c - Web Push encryption (RFC 8291) and VAPID (RFC 8292) on
 * OpenSSL 3's libcrypto (see push_crypto.h).
 */
#include "push_crypto.h"

#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <sodium.h>

/* ------------------------------------------------------------------------ */
/* Keys */

/* An EVP_PKEY on P-256 from a raw public key, and the private scalar if
 * priv is not NULL. NULL if the point is not on the curve. */
static EVP_PKEY *pkey_of(const uint8_t *priv, const uint8_t pub[PUSH_PUB_LEN])
{
    EVP_PKEY *pk = NULL;
    BIGNUM *d = NULL;
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (b == NULL || ctx == NULL || pub[0] != 0x04)
        goto out;
    if (!OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, PUSH_PUB_LEN))
        goto out;
    if (priv != NULL) {
        d = BN_bin2bn(priv, PUSH_PRIV_LEN, NULL);
        if (d == NULL || !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, d))
            goto out;
    }
    params = OSSL_PARAM_BLD_to_param(b);
    if (params == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pk, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        pk = NULL;
        goto out;
    }
    /* fromdata does not check that the point is on the curve. */
    EVP_PKEY_CTX *chk = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL);
    int ok = chk && EVP_PKEY_public_check(chk) == 1;
    EVP_PKEY_CTX_free(chk);
    if (!ok) {
        EVP_PKEY_free(pk);
        pk = NULL;
    }
out:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    BN_clear_free(d);
    EVP_PKEY_CTX_free(ctx);
    return pk;
}

int push_crypto_public(const uint8_t priv[PUSH_PRIV_LEN], uint8_t pub[PUSH_PUB_LEN])
{
    int err = -1;
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *p = g ? EC_POINT_new(g) : NULL;
    BIGNUM *d = BN_bin2bn(priv, PUSH_PRIV_LEN, NULL);
    if (p == NULL || d == NULL || BN_is_zero(d) || BN_cmp(d, EC_GROUP_get0_order(g)) >= 0)
        goto out;
    if (EC_POINT_mul(g, p, d, NULL, NULL, NULL) &&
        EC_POINT_point2oct(g, p, POINT_CONVERSION_UNCOMPRESSED, pub, PUSH_PUB_LEN, NULL) ==
            PUSH_PUB_LEN)
        err = 0;
out:
    BN_clear_free(d);
    EC_POINT_free(p);
    EC_GROUP_free(g);
    return err;
}

int push_crypto_keygen(uint8_t priv[PUSH_PRIV_LEN], uint8_t pub[PUSH_PUB_LEN])
{
    EVP_PKEY *pk = EVP_EC_gen("P-256");
    BIGNUM *d = NULL;
    size_t n = 0;
    int err = -1;
    if (pk != NULL && EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_PRIV_KEY, &d) &&
        BN_bn2binpad(d, priv, PUSH_PRIV_LEN) == PUSH_PRIV_LEN &&
        EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, pub, PUSH_PUB_LEN, &n) &&
        n == PUSH_PUB_LEN && pub[0] == 0x04)
        err = 0;
    BN_clear_free(d);
    EVP_PKEY_free(pk);
    return err;
}

/* ------------------------------------------------------------------------ */
/* RFC 8291 */

/* HKDF-SHA256 (extract then expand, RFC 5869) through libcrypto's KDF. */
static int hkdf(const uint8_t *salt, size_t saltlen, const uint8_t *ikm, size_t ikmlen,
                const void *info, size_t infolen, uint8_t *out, size_t outlen)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    EVP_KDF_free(kdf);
    if (ctx == NULL)
        return -1;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikmlen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, saltlen),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, infolen),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(ctx, out, outlen, p) > 0;
    EVP_KDF_CTX_free(ctx);
    return ok ? 0 : -1;
}

/* ECDH on P-256: the 32-byte x coordinate of priv * peer. */
static int ecdh(const uint8_t priv[PUSH_PRIV_LEN], const uint8_t my_pub[PUSH_PUB_LEN],
                const uint8_t peer_pub[PUSH_PUB_LEN], uint8_t secret[32])
{
    EVP_PKEY *me = pkey_of(priv, my_pub), *peer = pkey_of(NULL, peer_pub);
    EVP_PKEY_CTX *ctx = me ? EVP_PKEY_CTX_new_from_pkey(NULL, me, NULL) : NULL;
    size_t n = 32;
    int err = -1;
    if (ctx && peer && EVP_PKEY_derive_init(ctx) > 0 && EVP_PKEY_derive_set_peer(ctx, peer) > 0 &&
        EVP_PKEY_derive(ctx, secret, &n) > 0 && n == 32)
        err = 0;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(me);
    EVP_PKEY_free(peer);
    return err;
}

int push_crypto_encrypt(const uint8_t ua_pub[PUSH_PUB_LEN], const uint8_t auth[PUSH_AUTH_LEN],
                        const void *plain, size_t len, const uint8_t *as_priv,
                        const uint8_t *as_pub, const uint8_t *salt, uint8_t *out, size_t outcap,
                        size_t *outlen)
{
    uint8_t priv[PUSH_PRIV_LEN], pub[PUSH_PUB_LEN], s[PUSH_SALT_LEN];
    uint8_t secret[32], ikm[32], cek[16], nonce[12];
    uint8_t info[sizeof "WebPush: info" + 2 * PUSH_PUB_LEN];
    EVP_CIPHER_CTX *c = NULL;
    int err = -1;
    if (len > PUSH_PLAIN_MAX || outcap < PUSH_BODY_LEN(len))
        return -1;
    if (as_priv != NULL && as_pub != NULL) {
        memcpy(priv, as_priv, sizeof priv);
        memcpy(pub, as_pub, sizeof pub);
    } else if (push_crypto_keygen(priv, pub) < 0) {
        goto out;
    }
    if (salt != NULL)
        memcpy(s, salt, sizeof s);
    else if (RAND_bytes(s, sizeof s) != 1)
        goto out;

    /* IKM = HKDF(auth, ecdh_secret, "WebPush: info" 0x00 ua_pub as_pub, 32) */
    if (ecdh(priv, pub, ua_pub, secret) < 0)
        goto out;
    memcpy(info, "WebPush: info", sizeof "WebPush: info"); /* with its NUL */
    memcpy(info + sizeof "WebPush: info", ua_pub, PUSH_PUB_LEN);
    memcpy(info + sizeof "WebPush: info" + PUSH_PUB_LEN, pub, PUSH_PUB_LEN);
    if (hkdf(auth, PUSH_AUTH_LEN, secret, sizeof secret, info, sizeof info, ikm, sizeof ikm) < 0)
        goto out;
    /* RFC 8188: CEK and NONCE from the salt and IKM. */
    if (hkdf(s, sizeof s, ikm, sizeof ikm, "Content-Encoding: aes128gcm",
             sizeof "Content-Encoding: aes128gcm", cek, sizeof cek) < 0 ||
        hkdf(s, sizeof s, ikm, sizeof ikm, "Content-Encoding: nonce",
             sizeof "Content-Encoding: nonce", nonce, sizeof nonce) < 0)
        goto out;

    /* Header: salt, rs (big-endian), idlen, keyid. */
    uint8_t *p = out;
    memcpy(p, s, sizeof s);
    p += sizeof s;
    *p++ = (uint8_t)(PUSH_RS >> 24);
    *p++ = (uint8_t)(PUSH_RS >> 16);
    *p++ = (uint8_t)(PUSH_RS >> 8);
    *p++ = (uint8_t)PUSH_RS;
    *p++ = PUSH_PUB_LEN;
    memcpy(p, pub, PUSH_PUB_LEN);
    p += PUSH_PUB_LEN;

    /* One record, the last: plain || 0x02, no padding. */
    int n = 0, m = 0;
    static const uint8_t delim = 0x02;
    c = EVP_CIPHER_CTX_new();
    if (c == NULL || EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, NULL, NULL) != 1 ||
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, sizeof nonce, NULL) != 1 ||
        EVP_EncryptInit_ex(c, NULL, NULL, cek, nonce) != 1 ||
        (len > 0 && EVP_EncryptUpdate(c, p, &n, plain, (int)len) != 1) ||
        EVP_EncryptUpdate(c, p + n, &m, &delim, 1) != 1)
        goto out;
    p += n + m;
    if (EVP_EncryptFinal_ex(c, p, &n) != 1)
        goto out;
    p += n;
    if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, PUSH_TAG_LEN, p) != 1)
        goto out;
    p += PUSH_TAG_LEN;
    *outlen = (size_t)(p - out);
    err = 0;
out:
    EVP_CIPHER_CTX_free(c);
    OPENSSL_cleanse(priv, sizeof priv);
    OPENSSL_cleanse(secret, sizeof secret);
    OPENSSL_cleanse(ikm, sizeof ikm);
    OPENSSL_cleanse(cek, sizeof cek);
    return err;
}

/* ------------------------------------------------------------------------ */
/* RFC 8292 */

int push_b64url(const void *in, size_t n, char *out, size_t outcap)
{
    if (outcap < sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_URLSAFE_NO_PADDING))
        return -1;
    sodium_bin2base64(out, outcap, in, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return 0;
}

int push_b64url_decode(const char *in, uint8_t *out, size_t cap)
{
    size_t n = 0;
    const char *end = NULL;
    if (sodium_base642bin(out, cap, in, strlen(in), "=", &n, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        *end != '\0')
        return -1;
    return (int)n;
}

int push_crypto_vapid_jwt(const uint8_t priv[PUSH_PRIV_LEN], const char *aud, int64_t exp_s,
                          const char *sub, char *out, size_t outcap)
{
    uint8_t pub[PUSH_PUB_LEN];
    char claims[600];
    if (strpbrk(aud, "\"\\") || (sub && strpbrk(sub, "\"\\")))
        return -1;
    int n = sub && *sub
                ? snprintf(claims, sizeof claims, "{\"aud\":\"%s\",\"exp\":%lld,\"sub\":\"%s\"}",
                           aud, (long long)exp_s, sub)
                : snprintf(claims, sizeof claims, "{\"aud\":\"%s\",\"exp\":%lld}", aud,
                           (long long)exp_s);
    if (n < 0 || (size_t)n >= sizeof claims)
        return -1;
    static const char header[] = "{\"typ\":\"JWT\",\"alg\":\"ES256\"}";
    /* header.claims, then .signature */
    if (push_b64url(header, sizeof header - 1, out, outcap) < 0)
        return -1;
    size_t at = strlen(out);
    if (at + 1 >= outcap)
        return -1;
    out[at++] = '.';
    if (push_b64url(claims, (size_t)n, out + at, outcap - at) < 0)
        return -1;
    size_t signed_len = strlen(out);

    int err = -1;
    uint8_t der[80], rs[64];
    size_t derlen = sizeof der;
    EVP_PKEY *pk = NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    ECDSA_SIG *sig = NULL;
    if (md == NULL || push_crypto_public(priv, pub) < 0 || (pk = pkey_of(priv, pub)) == NULL)
        goto out;
    if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, pk) != 1 ||
        EVP_DigestSign(md, der, &derlen, (const unsigned char *)out, signed_len) != 1)
        goto out;
    /* JWS wants r || s, not DER. */
    const unsigned char *q = der;
    sig = d2i_ECDSA_SIG(NULL, &q, (long)derlen);
    if (sig == NULL || BN_bn2binpad(ECDSA_SIG_get0_r(sig), rs, 32) != 32 ||
        BN_bn2binpad(ECDSA_SIG_get0_s(sig), rs + 32, 32) != 32)
        goto out;
    if (signed_len + 1 >= outcap)
        goto out;
    out[signed_len] = '.';
    if (push_b64url(rs, sizeof rs, out + signed_len + 1, outcap - signed_len - 1) < 0)
        goto out;
    err = 0;
out:
    ECDSA_SIG_free(sig);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pk);
    return err;
}
