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
 * Limits (accounts_init; PROTOCOL.md, Limits): at most `hashes_running`
 * argon2id computations at once (64 MiB each) and `hashes_queued` waiting,
 * first come first served; past them a request is refused at once with
 * STORE_EBUSY, before anything is allocated for it. Logins are throttled
 * per account name and per address, registrations per address (throttle.h
 * tables): a throttled request is refused with STORE_ETHROTTLED and the
 * seconds to wait, before any password work. Every request let through
 * counts (so that those in flight count too); a successful login clears its
 * account's count and gives back its address's.
 *
 * Owns: accounts, sessions and their cookie; password hashing off the loop,
 * its queue and the throttle tables of logins and registrations.
 * May call: store.h (its database and loop), throttle.h, totp.h (the second
 * factor), SQLite, libsodium, libuv.
 */
#ifndef ACCOUNTS_H
#define ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

enum {
    ACCOUNTS_TOKEN_LEN = 64,     /* hex characters of a session token */
    ACCOUNTS_PASSWORD_MIN = 8,   /* characters (Unicode code points) */
    ACCOUNTS_PASSWORD_MAX = 128, /* characters */
    /* Bytes of the longest password in UTF-8, without its NUL. */
    ACCOUNTS_PASSWORD_BYTES = 4 * ACCOUNTS_PASSWORD_MAX,
};

/* The limits of accounts_init; zero fields take the defaults. */
typedef struct accounts_limits {
    int hashes_running;            /* argon2id at once (default 2, at most 4) */
    int hashes_queued;             /* waiting for a thread (default 64) */
    unsigned login_free_account;   /* failures per account name (default 5) */
    unsigned login_free_address;   /* failures per address (default 20) */
    uint64_t login_base_ms;        /* first delay (default 1000), doubling */
    uint64_t login_max_ms;         /* cap (default 15 min) */
    unsigned register_per_address; /* registrations per address (default 5) */
    size_t table_entries;          /* entries of each throttle table (default 8192) */
} accounts_limits;

enum {
    ACCOUNTS_HASHES_QUEUED = 64,
    ACCOUNTS_LOGIN_FREE_ACCOUNT = 5,
    ACCOUNTS_LOGIN_FREE_ADDRESS = 20,
    ACCOUNTS_REGISTER_PER_ADDRESS = 5,
};

/* What /metrics shows. */
typedef struct accounts_stats {
    int hashes_running, hashes_queued;
    uint64_t busy;            /* refused with STORE_EBUSY */
    uint64_t login_throttled; /* logins refused with STORE_ETHROTTLED */
    uint64_t register_throttled;
    uint64_t evicted; /* throttle entries pushed out while counted */
} accounts_stats;

/* Set the limits (NULL: the defaults) and allocate the throttle tables.
 * Without it the first request takes the defaults. 0 or STORE_ENOMEM. */
int accounts_init(const accounts_limits *l);
/* Free the tables (after every callback has run). */
void accounts_shutdown(void);
accounts_stats accounts_get_stats(void);

/* 0 if password is valid UTF-8 of 8 to 128 characters, else
 * STORE_EPASSWORD. */
int accounts_password_check(const char *password);

/* The cookie carrying the session token. */
#define ACCOUNTS_COOKIE "chameleon_session"
#define ACCOUNTS_PASSWORD_RULES "a password is 8 to 128 characters (valid UTF-8)"
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
 * Create an account and log it in. Username rules and the password
 * (accounts_password_check) are checked at once (negative return, cb not
 * called: STORE_EUSERNAME, whose message for the user is
 * ACCOUNTS_USERNAME_RULES, or STORE_EPASSWORD, ACCOUNTS_PASSWORD_RULES); so
 * are the limits: STORE_ETHROTTLED (too many registrations from addr, the
 * seconds to wait in *retry_s) or STORE_EBUSY (the hashing queue is full,
 * *retry_s 1). A taken username (case-insensitive) is reported through cb
 * with STORE_ETAKEN. addr is the peer's address (NULL or "": not
 * throttled); agent its User-Agent, kept with the new login to name it in
 * the account's list of sessions (NULL: none); retry_s may be NULL.
 */
int accounts_register(store *s, const char *addr, const char *agent, const char *username,
                      const char *password, accounts_cb cb, void *arg, unsigned *retry_s);

/* Log in: cb gets a new session, or STORE_ELOGIN (the same answer, after the
 * same work, whether the username exists or not). Refused at once with
 * STORE_ETHROTTLED or STORE_EBUSY as accounts_register, or STORE_EPASSWORD
 * if password is not valid UTF-8. An account with two-factor sign-in
 * (store_totp_get) also needs code, once the password is right: a TOTP
 * code of its secret (totp_check; each step once) or one of its recovery
 * codes (used up): STORE_ETOTP_REQUIRED without one (NULL or ""),
 * STORE_EBAD_TOTP for a wrong or used one. Either counts as a failed login
 * in the throttle. */
int accounts_login(store *s, const char *addr, const char *agent, const char *username,
                   const char *password, const char *code, accounts_cb cb, void *arg,
                   unsigned *retry_s);

/*
 * A new password for an account (a password reset, PROTOCOL.md "E-mail"):
 * checked at once (STORE_EPASSWORD), hashed off the loop like a
 * registration (STORE_EBUSY when the queue is full), then stored and every
 * session of the account ended; cb gets status 0 and the account (no
 * session is made: token NULL) or an error.
 */
int accounts_set_password(store *s, int64_t account, const char *password, accounts_cb cb,
                          void *arg, unsigned *retry_s);

/* The next four are the store's queued calls (store.h, "queued
 * calls"): 0 and cb later, on the loop, or an error at once (cb not
 * called). */

/* End the login of this token (no-op if unknown); cb may be NULL. */
int accounts_logout(store *s, const char *token, store_done_cb cb, void *arg);

/* The account of a login: the session cookie's token (e.g. on the
 * WebSocket upgrade; a login, not a connection's session.h): cb gets 0 and the account (id,
 * username), or STORE_ENOT_FOUND for an unknown or expired token; a token of the wrong shape is
 * STORE_ENOT_FOUND at once. */
int accounts_login_find(store *s, const char *token, store_account_cb cb, void *arg);

/* The username of an account: cb gets 0 and the account, or
 * STORE_ENOT_FOUND. */
int accounts_name(store *s, int64_t account, store_account_cb cb, void *arg);
/* The account of a username (case-insensitive; the name as registered):
 * cb gets 0 and the account (id, username; never the password's hash), or
 * STORE_ENOT_FOUND. */
int accounts_find(store *s, const char *username, store_account_cb cb, void *arg);

/* Find the session token in a Cookie header value ("a=b; chameleon_session=
 * ..."). Returns 0 and the token, or STORE_ENOT_FOUND. */
int accounts_cookie_token(const char *cookie_header, char *token, size_t len);
/* What the store keeps of a token (a session's, a mail link's): its
 * BLAKE2b hash, never the token itself. */
void accounts_token_hash(const char *token, unsigned char out[32]);

/* The Set-Cookie header value for a token (HttpOnly; SameSite=Lax; Path=/;
 * Max-Age of the session), or one that clears the cookie if token is NULL.
 * Returns the length or -1 if buf is too small. */
int accounts_set_cookie(char *buf, size_t len, const char *token);

#endif
