/*
 * accounts.c - accounts and sessions (see accounts.h). argon2id runs on the
 * libuv thread pool; everything touching SQLite runs on the loop thread.
 */
#include "accounts.h"

#include <ctype.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SESSION_DAYS = 30 };

int accounts_username_check(const char *name, char *why, size_t whylen)
{
    size_t n = name ? strlen(name) : 0;
    bool ok = n >= 3 && n <= 20 && isalpha((unsigned char)name[0]);
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-';
    if (!ok) {
        rules_why(why, whylen, "%s", ACCOUNTS_USERNAME_RULES);
        return STORE_EUSERNAME;
    }
    return 0;
}

/* One register or login request, from the loop to the pool and back. */
typedef struct job {
    uv_work_t work;
    store *s;
    bool registering;
    accounts_cb cb;
    void *arg;
    char username[STORE_NAME_MAX];
    char password[ACCOUNTS_PASSWORD_MAX + 1];
    char hash[crypto_pwhash_STRBYTES]; /* register: computed; login: stored */
    bool known;                        /* login: the username exists */
    int64_t account;
    int status;
} job;

/* A hash to verify against when the username is unknown, so that the answer
 * takes the same time either way. */
static char dummy_hash[crypto_pwhash_STRBYTES];
static uv_once_t dummy_once = UV_ONCE_INIT;

static void dummy_init(void)
{
    if (crypto_pwhash_str(dummy_hash, "chameleon", 9,
                          crypto_pwhash_OPSLIMIT_INTERACTIVE,
                          crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0)
        dummy_hash[0] = '\0';
}

static void work_hash(uv_work_t *w)
{
    job *j = w->data;
    if (j->registering) {
        if (crypto_pwhash_str(j->hash, j->password, strlen(j->password),
                              crypto_pwhash_OPSLIMIT_INTERACTIVE,
                              crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0)
            j->status = STORE_ENOMEM;
    } else {
        if (!j->known)
            uv_once(&dummy_once, dummy_init);
        const char *h = j->known ? j->hash : dummy_hash;
        if (crypto_pwhash_str_verify(h, j->password, strlen(j->password)) != 0 ||
            !j->known)
            j->status = STORE_ELOGIN;
    }
    sodium_memzero(j->password, sizeof j->password);
}

static void hash_token(const char *token, unsigned char out[32])
{
    crypto_generichash(out, 32, (const unsigned char *)token, strlen(token),
                       NULL, 0);
}

/* Create a session for the account; token gets ACCOUNTS_TOKEN_LEN hex. */
static int session_new(store *s, int64_t account, char *token)
{
    unsigned char raw[32], h[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(token, ACCOUNTS_TOKEN_LEN + 1, raw, sizeof raw);
    hash_token(token, h);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s),
                           "INSERT INTO sessions (token_hash, account, "
                           "created_ms, expires_ms) VALUES (?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    int64_t now = store_now(s);
    sqlite3_bind_blob(st, 1, h, sizeof h, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, account);
    sqlite3_bind_int64(st, 3, now);
    sqlite3_bind_int64(st, 4, now + (int64_t)SESSION_DAYS * STORE_DAY_MS);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : STORE_EDB;
}

static void work_done(uv_work_t *w, int status)
{
    job *j = w->data;
    store *s = j->s;
    char token[ACCOUNTS_TOKEN_LEN + 1] = "";
    const char *why = NULL;
    if (status != 0 || store_closing(s))
        j->status = STORE_ECLOSED;
    if (j->status == 0 && j->registering) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(store_db(s),
                               "INSERT INTO accounts (username, pwhash, "
                               "created_ms) VALUES (?,?,?)",
                               -1, &st, NULL) != SQLITE_OK) {
            j->status = STORE_EDB;
        } else {
            sqlite3_bind_text(st, 1, j->username, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, j->hash, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, store_now(s));
            int rc = sqlite3_step(st);
            if (rc == SQLITE_DONE)
                j->account = sqlite3_last_insert_rowid(store_db(s));
            else
                j->status = sqlite3_extended_errcode(store_db(s)) ==
                                    SQLITE_CONSTRAINT_UNIQUE
                                ? STORE_ETAKEN
                                : STORE_EDB;
            sqlite3_finalize(st);
        }
    }
    if (j->status == 0)
        j->status = session_new(s, j->account, token);
    if (j->status < 0)
        why = j->status == STORE_ELOGIN ? "wrong username or password"
                                        : store_err_text(j->status);
    j->cb(j->arg, j->status, j->status ? 0 : j->account,
          j->status ? NULL : j->username, j->status ? NULL : token, why);
    sodium_memzero(token, sizeof token);
    free(j);
    store_work_end(s);
}

static int submit(store *s, job *j)
{
    j->work.data = j;
    if (uv_queue_work(store_loop(s), &j->work, work_hash, work_done) != 0) {
        free(j);
        return STORE_ENOMEM;
    }
    store_work_begin(s);
    return 0;
}

static job *job_new(store *s, const char *username, const char *password,
                    accounts_cb cb, void *arg)
{
    if (sodium_init() < 0)
        return NULL;
    job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->s = s;
    j->cb = cb;
    j->arg = arg;
    snprintf(j->username, sizeof j->username, "%s", username);
    snprintf(j->password, sizeof j->password, "%s", password);
    return j;
}

int accounts_register(store *s, const char *username, const char *password,
                      accounts_cb cb, void *arg)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    int err = accounts_username_check(username, NULL, 0);
    if (err < 0)
        return err;
    size_t pl = password ? strlen(password) : 0;
    if (pl < ACCOUNTS_PASSWORD_MIN || pl > ACCOUNTS_PASSWORD_MAX)
        return STORE_EPASSWORD;
    job *j = job_new(s, username, password, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    j->registering = true;
    return submit(s, j);
}

int accounts_login(store *s, const char *username, const char *password,
                   accounts_cb cb, void *arg)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    if (username == NULL || password == NULL ||
        strlen(password) > ACCOUNTS_PASSWORD_MAX)
        return STORE_ELOGIN;
    job *j = job_new(s, username, password, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT id, username, pwhash FROM accounts WHERE "
                           "username = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        free(j);
        return STORE_EDB;
    }
    sqlite3_bind_text(st, 1, username, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        j->known = true;
        j->account = sqlite3_column_int64(st, 0);
        /* The name as registered (the lookup ignores case). */
        snprintf(j->username, sizeof j->username, "%s", sqlite3_column_text(st, 1));
        snprintf(j->hash, sizeof j->hash, "%s", sqlite3_column_text(st, 2));
    }
    sqlite3_finalize(st);
    return submit(s, j);
}

int accounts_logout(store *s, const char *token)
{
    unsigned char h[32];
    hash_token(token, h);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "DELETE FROM sessions WHERE token_hash = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    sqlite3_bind_blob(st, 1, h, sizeof h, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : STORE_EDB;
}

int accounts_session(store *s, const char *token, int64_t *account,
                     char *username, size_t len)
{
    if (token == NULL || strlen(token) != ACCOUNTS_TOKEN_LEN)
        return STORE_ENOT_FOUND;
    unsigned char h[32];
    hash_token(token, h);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT a.id, a.username FROM sessions s JOIN "
                           "accounts a ON a.id = s.account WHERE s.token_hash "
                           "= ? AND s.expires_ms > ?",
                           -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    sqlite3_bind_blob(st, 1, h, sizeof h, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, store_now(s));
    int err = STORE_ENOT_FOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *account = sqlite3_column_int64(st, 0);
        if (username)
            snprintf(username, len, "%s", sqlite3_column_text(st, 1));
        err = 0;
    }
    sqlite3_finalize(st);
    return err;
}

int accounts_name(store *s, int64_t account, char *username, size_t len)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT username FROM accounts WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    sqlite3_bind_int64(st, 1, account);
    int err = STORE_ENOT_FOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(username, len, "%s", sqlite3_column_text(st, 0));
        err = 0;
    }
    sqlite3_finalize(st);
    return err;
}

int accounts_find(store *s, const char *username, int64_t *account)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_db(s), "SELECT id FROM accounts WHERE username = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return STORE_EDB;
    sqlite3_bind_text(st, 1, username, -1, SQLITE_STATIC);
    int err = STORE_ENOT_FOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *account = sqlite3_column_int64(st, 0);
        err = 0;
    }
    sqlite3_finalize(st);
    return err;
}

int accounts_cookie_token(const char *header, char *token, size_t len)
{
    const size_t nl = strlen(ACCOUNTS_COOKIE);
    for (const char *p = header; p && *p;) {
        p += strspn(p, " ;\t");
        if (strncmp(p, ACCOUNTS_COOKIE, nl) == 0 && p[nl] == '=') {
            const char *v = p + nl + 1;
            size_t l = strcspn(v, "; \t");
            if (l != ACCOUNTS_TOKEN_LEN || l + 1 > len)
                return STORE_ENOT_FOUND;
            memcpy(token, v, l);
            token[l] = '\0';
            return 0;
        }
        p += strcspn(p, ";");
    }
    return STORE_ENOT_FOUND;
}

int accounts_set_cookie(char *buf, size_t len, const char *token)
{
    int w = token ? snprintf(buf, len,
                             ACCOUNTS_COOKIE "=%s; Path=/; HttpOnly; "
                                             "SameSite=Lax; Max-Age=%d",
                             token, SESSION_DAYS * 86400)
                  : snprintf(buf, len,
                             ACCOUNTS_COOKIE "=; Path=/; HttpOnly; "
                                             "SameSite=Lax; Max-Age=0");
    return w < 0 || (size_t)w >= len ? -1 : w;
}
