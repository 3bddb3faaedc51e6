/*
 * totp.c - time-based one-time codes and recovery codes (see totp.h).
 */
#include "totp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liboath/oath.h>
#include <sodium.h>

/* Recovery codes: letters and digits that cannot be taken for one another
 * (no 0/o, 1/l/i). */
static const char RECOVERY_ALPHABET[] = "abcdefghjkmnpqrstuvwxyz23456789";

int totp_init(void)
{
    return oath_init() == OATH_OK && sodium_init() >= 0 ? 0 : -1;
}

void totp_new_secret(unsigned char secret[TOTP_SECRET_BYTES])
{
    randombytes_buf(secret, TOTP_SECRET_BYTES);
}

void totp_base32(const unsigned char secret[TOTP_SECRET_BYTES], char out[TOTP_BASE32_MAX + 1])
{
    char *b32 = NULL;
    size_t n = 0;
    out[0] = '\0';
    if (oath_base32_encode((const char *)secret, TOTP_SECRET_BYTES, &b32, &n) != OATH_OK)
        return;
    size_t k = 0;
    for (size_t i = 0; i < n && k < TOTP_BASE32_MAX; i++)
        if (b32[i] != '=')
            out[k++] = b32[i];
    out[k] = '\0';
    free(b32);
}

void totp_uri(const char *issuer, const char *account,
              const unsigned char secret[TOTP_SECRET_BYTES], char out[TOTP_URI_MAX])
{
    char b32[TOTP_BASE32_MAX + 1];
    totp_base32(secret, b32);
    snprintf(out, TOTP_URI_MAX,
             "otpauth://totp/%s:%s?secret=%s&issuer=%s&algorithm=SHA1&digits=%d&period=%d", issuer,
             account, b32, issuer, TOTP_DIGITS, TOTP_STEP_S);
}

int totp_code(const unsigned char *secret, size_t len, int64_t now_s, unsigned digits, int sha,
              char *out, size_t outlen)
{
    if (digits < 6 || digits > 8 || outlen <= digits)
        return -1;
    int flags = sha == 256 ? OATH_TOTP_HMAC_SHA256 : sha == 512 ? OATH_TOTP_HMAC_SHA512 : 0;
    return oath_totp_generate2((const char *)secret, len, (time_t)now_s, TOTP_STEP_S, 0, digits,
                               flags, out) == OATH_OK
               ? 0
               : -1;
}

bool totp_check(const unsigned char secret[TOTP_SECRET_BYTES], int64_t now_s, const char *code,
                int64_t last_step, int64_t *step)
{
    char digits[TOTP_DIGITS + 1];
    size_t n = 0;
    for (const char *p = code ? code : ""; *p; p++) {
        if (*p == ' ')
            continue;
        if (!isdigit((unsigned char)*p) || n == TOTP_DIGITS)
            return false;
        digits[n++] = *p;
    }
    if (n != TOTP_DIGITS)
        return false;
    digits[n] = '\0';
    uint64_t counter = 0;
    int pos = 0;
    int rc = oath_totp_validate3((const char *)secret, TOTP_SECRET_BYTES, (time_t)now_s,
                                 TOTP_STEP_S, 0, TOTP_WINDOW, &pos, &counter, digits);
    if (rc < 0 || (int64_t)counter <= last_step)
        return false;
    *step = (int64_t)counter;
    return true;
}

/* The normal form of a recovery code into out (TOTP_RECOVERY_LEN
 * characters of the alphabet, lower case): false if it is not one. */
static bool recovery_normal(const char *text, char out[TOTP_RECOVERY_LEN + 1])
{
    size_t n = 0;
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == ' ' || *p == '-')
            continue;
        char c = (char)tolower((unsigned char)*p);
        if (c == '\0' || strchr(RECOVERY_ALPHABET, c) == NULL || n == TOTP_RECOVERY_LEN)
            return false;
        out[n++] = c;
    }
    out[n] = '\0';
    return n == TOTP_RECOVERY_LEN;
}

bool totp_is_recovery(const char *text)
{
    char norm[TOTP_RECOVERY_LEN + 1];
    return recovery_normal(text, norm);
}

void totp_recovery_new(char codes[][TOTP_RECOVERY_LEN + 2], int n)
{
    for (int i = 0; i < n; i++) {
        char *c = codes[i];
        for (int k = 0, j = 0; k < TOTP_RECOVERY_LEN; k++) {
            if (k == TOTP_RECOVERY_LEN / 2)
                c[j++] = '-';
            c[j++] = RECOVERY_ALPHABET[randombytes_uniform(sizeof RECOVERY_ALPHABET - 1)];
        }
        c[TOTP_RECOVERY_LEN + 1] = '\0';
    }
}

int totp_recovery_hash(const char *text, unsigned char out[32])
{
    char norm[TOTP_RECOVERY_LEN + 1];
    if (!recovery_normal(text, norm))
        return -1;
    crypto_generichash(out, 32, (const unsigned char *)norm, TOTP_RECOVERY_LEN, NULL, 0);
    return 0;
}
