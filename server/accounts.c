/*
 * accounts.c - accounts and sessions (see accounts.h). argon2id runs on the
 * libuv thread pool; the store is called on the loop thread only.
 */
#include "accounts.h"

#include <assert.h>
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SESSION_DAYS = 30 };

static_assert(crypto_pwhash_STRBYTES <= STORE_PWHASH_MAX, "a hash string fits the store's");

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
    if (crypto_pwhash_str(dummy_hash, "chameleon", 9, crypto_pwhash_OPSLIMIT_INTERACTIVE,
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
        if (crypto_pwhash_str_verify(h, j->password, strlen(j->password)) != 0 || !j->known)
            j->status = STORE_ELOGIN;
    }
    sodium_memzero(j->password, sizeof j->password);
}

static void hash_token(const char *token, unsigned char out[32])
{
    crypto_generichash(out, 32, (const unsigned char *)token, strlen(token), NULL, 0);
}

/* Create a session for the account; token gets ACCOUNTS_TOKEN_LEN hex. */
static int session_new(store *s, int64_t account, char *token)
{
    unsigned char raw[32], h[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(token, ACCOUNTS_TOKEN_LEN + 1, raw, sizeof raw);
    hash_token(token, h);
    return store_session_insert(s, h, sizeof h, account,
                                store_now(s) + (int64_t)SESSION_DAYS * STORE_DAY_MS);
}

static void work_done(uv_work_t *w, int status)
{
    job *j = w->data;
    store *s = j->s;
    char token[ACCOUNTS_TOKEN_LEN + 1] = "";
    const char *why = NULL;
    if (status != 0 || store_closing(s))
        j->status = STORE_ECLOSED;
    if (j->status == 0 && j->registering)
        j->status = store_account_insert(s, j->username, j->hash, &j->account);
    if (j->status == 0)
        j->status = session_new(s, j->account, token);
    if (j->status < 0)
        why = j->status == STORE_ELOGIN ? "wrong username or password" : store_err_text(j->status);
    j->cb(j->arg, j->status, j->status ? 0 : j->account, j->status ? NULL : j->username,
          j->status ? NULL : token, why);
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

static job *job_new(store *s, const char *username, const char *password, accounts_cb cb, void *arg)
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

int accounts_register(store *s, const char *username, const char *password, accounts_cb cb,
                      void *arg)
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

int accounts_login(store *s, const char *username, const char *password, accounts_cb cb, void *arg)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    if (username == NULL || password == NULL || strlen(password) > ACCOUNTS_PASSWORD_MAX)
        return STORE_ELOGIN;
    job *j = job_new(s, username, password, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    store_account a;
    if (store_account_by_name(s, username, &a) == 0) {
        j->known = true;
        j->account = a.id;
        /* The name as registered (the lookup ignores case). */
        snprintf(j->username, sizeof j->username, "%s", a.username);
        snprintf(j->hash, sizeof j->hash, "%s", a.pwhash);
    }
    sodium_memzero(&a, sizeof a);
    return submit(s, j);
}

int accounts_logout(store *s, const char *token)
{
    unsigned char h[32];
    hash_token(token, h);
    return store_session_delete(s, h, sizeof h);
}

int accounts_session(store *s, const char *token, int64_t *account, char *username, size_t len)
{
    if (token == NULL || strlen(token) != ACCOUNTS_TOKEN_LEN)
        return STORE_ENOT_FOUND;
    unsigned char h[32];
    hash_token(token, h);
    return store_session_find(s, h, sizeof h, account, username, len);
}

int accounts_name(store *s, int64_t account, char *username, size_t len)
{
    return store_account_name(s, account, username, len);
}

int accounts_find(store *s, const char *username, int64_t *account)
{
    store_account a;
    int err = store_account_by_name(s, username, &a);
    if (err == 0)
        *account = a.id;
    sodium_memzero(&a, sizeof a);
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
