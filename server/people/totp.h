/*
 * totp.h - two-factor sign-in: time-based one-time codes (RFC 6238, as
 * authenticator apps compute them: HMAC-SHA1, 6 digits, 30 s steps) and the
 * recovery codes that stand in for a lost phone.
 *
 * Owns: the secrets' making and their text (base32, the otpauth:// link an
 * app reads), checking a code against a secret (one step of drift either
 * way, never a step already used), the recovery codes' making, their
 * normal form and hash (only the hash is stored).
 * May call: liboath (Debian's oath-toolkit: HOTP/TOTP and base32),
 * libsodium (random bytes, BLAKE2b).
 */
#ifndef TOTP_H
#define TOTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    TOTP_SECRET_BYTES = 20, /* 160 bits, as RFC 4226 recommends */
    TOTP_DIGITS = 6,
    TOTP_STEP_S = 30,
    TOTP_WINDOW = 1,      /* steps of clock drift allowed either way */
    TOTP_BASE32_MAX = 40, /* base32 of a secret (32), without padding */
    TOTP_URI_MAX = 256,
    TOTP_RECOVERY_CODES = 10, /* given at once, each usable once */
    TOTP_RECOVERY_LEN = 10,   /* characters of a recovery code */
    TOTP_CODE_MAX = 32,       /* the longest code text accepted */
};

/* The library set up (once, before any other call): 0 or -1. */
int totp_init(void);

/* A new random secret. */
void totp_new_secret(unsigned char secret[TOTP_SECRET_BYTES]);

/* The secret in base32 (RFC 4648, no padding), as an app takes it typed. */
void totp_base32(const unsigned char secret[TOTP_SECRET_BYTES], char out[TOTP_BASE32_MAX + 1]);

/* The otpauth:// link of the secret for account (a username: letters,
 * digits, '_' and '-') at issuer (letters, digits, '-', '.'). */
void totp_uri(const char *issuer, const char *account,
              const unsigned char secret[TOTP_SECRET_BYTES], char out[TOTP_URI_MAX]);

/* The code of a secret at now_s: digits (6 to 8) digits, HMAC-SHA1 (sha 1),
 * SHA-256 (256) or SHA-512 (512). 0 or -1. RFC 6238's own test vectors use
 * 8 digits and each hash. */
int totp_code(const unsigned char *secret, size_t len, int64_t now_s, unsigned digits, int sha,
              char *out, size_t outlen);

/* Is code (6 digits, spaces allowed) the secret's at now_s, give or take
 * TOTP_WINDOW steps, in a step later than last_step (a code is good
 * once)? If so, its step into *step. */
bool totp_check(const unsigned char secret[TOTP_SECRET_BYTES], int64_t now_s, const char *code,
                int64_t last_step, int64_t *step);

/* Does text look like a recovery code (rather than a 6-digit one)? */
bool totp_is_recovery(const char *text);
/* n new recovery codes ("abcde-fghij": lower-case letters and digits). */
void totp_recovery_new(char codes[][TOTP_RECOVERY_LEN + 2], int n);
/* The hash the store keeps of a recovery code, from its normal form (case,
 * spaces and dashes ignored): 0, or -1 if text is no recovery code. */
int totp_recovery_hash(const char *text, unsigned char out[32]);

#endif
