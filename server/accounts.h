/*
 * accounts.h - accounts and sessions: password hashing, session tokens,
 * cookies.
 *
 * Owns: the password rules and hashing, tokens (only their hash is kept)
 * and the session cookie. May call: store.h (store_account_* and
 * store_session_* keep what this produces), libsodium, libuv's pool.
 *
 * Passwords are hashed with argon2id (libsodium crypto_pwhash_str,
 * INTERACTIVE limits, about 60-80 ms) on the libuv thread pool, never on the
 * loop; the callback runs on the loop thread. Session tokens are 32 random
 * bytes (64 hex characters) given to the client once, in a cookie; the
 * database keeps only their BLAKE2b hash. Sessions last 30 days.
 *
 * Guests (no account) may play live casual games; correspondence and rated
 * games need an account (store_game_create enforces it).
 *
 * Owns: accounts, sessions and their cookie; password hashing off the loop.
 * May call: store.h (its database and loop), SQLite, libsodium, libuv.
 */
#ifndef ACCOUNTS_H
#define ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

enum {
    ACCOUNTS_TOKEN_LEN = 64, /* hex characters of a session token */
    ACCOUNTS_PASSWORD_MIN = 8,
    ACCOUNTS_PASSWORD_MAX = 128,
};

/* The cookie carrying the session token. */
#define ACCOUNTS_COOKIE "chameleon_session"
#define ACCOUNTS_PASSWORD_RULES "a password is 8 to 128 characters"
#define ACCOUNTS_USERNAME_RULES                                                                    \
    "a username is 3 to 20 characters: letters, digits, '_' or '-', "                              \
    "starting with a letter"

/*
 * Result of register and login. status 0: account and username are set and
 * token is the new session's token (put it in the cookie with
 * accounts_set_cookie). Otherwise a negative store_err and why (a sentence
 * for the user); account 0, token NULL. Strings are valid during the call.
 */
typedef void (*accounts_cb)(void *arg, int status, int64_t account, const char *username,
                            const char *token, const char *why);

/* Is this a valid username? 0 or STORE_EUSERNAME with ACCOUNTS_USERNAME_RULES
 * in why. */
int accounts_username_check(const char *name, char *why, size_t whylen);

/*
 * Create an account and log it in. Username rules and password length are
 * checked at once (negative return, cb not called: STORE_EUSERNAME, whose
 * message for the user is ACCOUNTS_USERNAME_RULES, or STORE_EPASSWORD,
 * ACCOUNTS_PASSWORD_RULES); a taken username (case-insensitive) is reported
 * through cb with STORE_ETAKEN.
 */
int accounts_register(store *s, const char *username, const char *password, accounts_cb cb,
                      void *arg);

/* Log in: cb gets a new session, or STORE_ELOGIN (the same answer, after the
 * same work, whether the username exists or not). */
int accounts_login(store *s, const char *username, const char *password, accounts_cb cb, void *arg);

/* End the session of this token (no-op if unknown). 0 or STORE_EDB. */
int accounts_logout(store *s, const char *token);

/*
 * The account of a session token (from the cookie, e.g. on the WebSocket
 * upgrade). 0 and *account (and username if non-NULL), or STORE_ENOT_FOUND
 * for an unknown or expired token. Synchronous (one indexed SELECT).
 */
int accounts_session(store *s, const char *token, int64_t *account, char *username, size_t len);

/* The username of an account. 0 or STORE_ENOT_FOUND. */
int accounts_name(store *s, int64_t account, char *username, size_t len);
/* The account of a username (case-insensitive). 0 or STORE_ENOT_FOUND. */
int accounts_find(store *s, const char *username, int64_t *account);

/* Find the session token in a Cookie header value ("a=b; chameleon_session=
 * ..."). Returns 0 and the token, or STORE_ENOT_FOUND. */
int accounts_cookie_token(const char *cookie_header, char *token, size_t len);

/* The Set-Cookie header value for a token (HttpOnly; SameSite=Lax; Path=/;
 * Max-Age of the session), or one that clears the cookie if token is NULL.
 * Returns the length or -1 if buf is too small. */
int accounts_set_cookie(char *buf, size_t len, const char *token);

#endif
