/*
 * push_crypto.h - the cryptography of Web Push: P-256 key pairs, the
 * message encryption of RFC 8291 (aes128gcm content coding, RFC 8188, one
 * record) and the VAPID token of RFC 8292 (an ES256 JWT).
 *
 * Owns: nothing but these computations, each built from OpenSSL's
 * libcrypto primitives (ECDH, HKDF-SHA256, AES-128-GCM, ECDSA): no
 * primitive is written here. Base64url through libsodium.
 * May call: libcrypto, libsodium (base64). Nothing of the server: pure
 * functions, safe on any thread (push.c calls them on its sender thread).
 *
 * Keys are raw: a private key is the 32-byte scalar, a public key the
 * 65-byte uncompressed point (0x04 || X || Y), as browsers give a
 * subscription's p256dh and as VAPID's "k" carries the server's key.
 * Every function returns 0, or -1 when the input is not a valid key or
 * libcrypto fails (nothing is written then but scratch).
 */
#ifndef PUSH_CRYPTO_H
#define PUSH_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

enum {
    PUSH_PRIV_LEN = 32,
    PUSH_PUB_LEN = 65,
    PUSH_AUTH_LEN = 16,
    PUSH_SALT_LEN = 16,
    PUSH_RS = 4096, /* the record size written in the header */
    /* salt, rs, idlen, keyid (the sender's public key) */
    PUSH_HEADER_LEN = PUSH_SALT_LEN + 4 + 1 + PUSH_PUB_LEN,
    PUSH_TAG_LEN = 16,
    /* Plain text of one record: rs minus the tag and the delimiter. */
    PUSH_PLAIN_MAX = PUSH_RS - PUSH_TAG_LEN - 1,
    /* A body's length for n bytes of plain text. */
    PUSH_JWT_MAX = 1024,
};

#define PUSH_BODY_LEN(n) ((size_t)PUSH_HEADER_LEN + (n) + 1 + PUSH_TAG_LEN)

/* A new P-256 key pair. */
int push_crypto_keygen(uint8_t priv[PUSH_PRIV_LEN], uint8_t pub[PUSH_PUB_LEN]);

/* The public key of a private one (a check that a stored pair matches). */
int push_crypto_public(const uint8_t priv[PUSH_PRIV_LEN], uint8_t pub[PUSH_PUB_LEN]);

/*
 * RFC 8291: encrypt `plain` (at most PUSH_PLAIN_MAX bytes) for the
 * subscription whose public key is ua_pub and authentication secret auth.
 * as_priv/as_pub (the sender's one-time key pair) and salt may be NULL:
 * fresh ones are made (the tests give the RFC's). The body (header, then
 * the single record: plain || 0x02, AES-128-GCM, tag) goes to out, which
 * holds PUSH_BODY_LEN(len) bytes; *outlen is set.
 */
int push_crypto_encrypt(const uint8_t ua_pub[PUSH_PUB_LEN], const uint8_t auth[PUSH_AUTH_LEN],
                        const void *plain, size_t len, const uint8_t *as_priv,
                        const uint8_t *as_pub, const uint8_t *salt, uint8_t *out, size_t outcap,
                        size_t *outlen);

/*
 * RFC 8292: the VAPID JWT for a push service's origin `aud`
 * ("https://host[:port]"), valid until exp_s (seconds since the epoch, at
 * most 24 h ahead), with contact `sub` ("mailto:..." or "https://...";
 * NULL or "" leaves it out): header {"typ":"JWT","alg":"ES256"}, claims
 * {"aud","exp","sub"}, signed with ECDSA P-256 / SHA-256 (the signature as
 * r || s, 64 bytes), each part base64url without padding. Into out
 * (PUSH_JWT_MAX bytes); aud and sub are JSON-escaped by the caller's
 * choice of text (no '"' or '\\': refused).
 */
int push_crypto_vapid_jwt(const uint8_t priv[PUSH_PRIV_LEN], const char *aud, int64_t exp_s,
                          const char *sub, char *out, size_t outcap);

/* Base64url without padding of n bytes into out (NUL-terminated); -1 if
 * out is too short. */
int push_b64url(const void *in, size_t n, char *out, size_t outcap);
/* Decode base64url (padding tolerated); the number of bytes, or -1 if not
 * base64url or longer than cap. */
int push_b64url_decode(const char *in, uint8_t *out, size_t cap);

#endif
