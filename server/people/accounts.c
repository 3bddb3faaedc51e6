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

#include "throttle.h"
#include "totp.h"

enum {
    SESSION_DAYS = 30,
    HASHES_RUNNING_MAX = 4,   /* libuv's pool: 4 threads, shared with the store's checkpoints */
    REGISTER_BASE_MS = 60000, /* registrations past the free ones: a minute, doubling */
    REGISTER_MAX_MS = 3600000,
    THROTTLE_QUIET_MS = 3600000, /* an hour without an event forgets a key */
    TABLE_ENTRIES = 8192,
};

static_assert(crypto_pwhash_STRBYTES <= STORE_PWHASH_MAX, "a hash string fits the store's");

/* The number of characters (code points) of s if it is valid UTF-8
 * (shortest forms, no surrogates, at most U+10FFFF), else -1. */
static long utf8_chars(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    long n = 0;
    while (*p) {
        unsigned c = *p, len, min;
        uint32_t cp;
        if (c < 0x80) {
            p++;
            n++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            len = 2, min = 0x80, cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3, min = 0x800, cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4, min = 0x10000, cp = c & 0x07;
        } else {
            return -1;
        }
        for (unsigned i = 1; i < len; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return -1;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return -1;
        p += len;
        n++;
    }
    return n;
}

int accounts_password_check(const char *password)
{
    long n = password ? utf8_chars(password) : -1;
    return n >= ACCOUNTS_PASSWORD_MIN && n <= ACCOUNTS_PASSWORD_MAX ? 0 : STORE_EPASSWORD;
}

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
    struct job *next; /* in the waiting queue */
    store *s;
    bool registering;
    int64_t reset; /* a new password for this account (accounts_set_password) */
    accounts_cb cb;
    void *arg;
    char username[STORE_NAME_MAX];
    char password[ACCOUNTS_PASSWORD_BYTES + 1];
    char addr[THROTTLE_KEY_MAX];       /* login: the address's key ("" if none) */
    char agent[STORE_AGENT_MAX + 1];   /* the browser's User-Agent, for the new login */
    char code[TOTP_CODE_MAX + 1];      /* login: the two-factor code given ("" if none) */
    char hash[crypto_pwhash_STRBYTES]; /* register: computed; login: stored */
    bool known;                        /* login: the username exists */
    int64_t account;
    int status;
    char token[ACCOUNTS_TOKEN_LEN + 1]; /* the new session's, once made */
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

/* The limits, the throttle tables and the hashing queue (loop thread). */
static struct {
    bool ready;
    accounts_limits lim;
    throttle login_account, login_address, reg_address;
    int running, queued;
    job *head, *tail; /* waiting, first come first served */
    accounts_stats st;
} g;

int accounts_init(const accounts_limits *l)
{
    accounts_shutdown();
    accounts_limits d = l ? *l : (accounts_limits){0};
    if (d.hashes_running <= 0)
        d.hashes_running = 2;
    if (d.hashes_running > HASHES_RUNNING_MAX)
        d.hashes_running = HASHES_RUNNING_MAX;
    if (d.hashes_queued <= 0)
        d.hashes_queued = ACCOUNTS_HASHES_QUEUED;
    if (d.login_free_account == 0)
        d.login_free_account = ACCOUNTS_LOGIN_FREE_ACCOUNT;
    if (d.login_free_address == 0)
        d.login_free_address = ACCOUNTS_LOGIN_FREE_ADDRESS;
    if (d.login_base_ms == 0)
        d.login_base_ms = 1000;
    if (d.login_max_ms == 0)
        d.login_max_ms = 15 * 60 * 1000;
    if (d.register_per_address == 0)
        d.register_per_address = ACCOUNTS_REGISTER_PER_ADDRESS;
    if (d.table_entries == 0)
        d.table_entries = TABLE_ENTRIES;
    throttle_rule acc = {d.login_free_account, d.login_base_ms, d.login_max_ms, THROTTLE_QUIET_MS};
    throttle_rule adr = {d.login_free_address, d.login_base_ms, d.login_max_ms, THROTTLE_QUIET_MS};
    throttle_rule reg = {d.register_per_address, REGISTER_BASE_MS, REGISTER_MAX_MS,
                         THROTTLE_QUIET_MS};
    uint64_t seed[3];
    if (sodium_init() < 0)
        return STORE_ENOMEM;
    randombytes_buf(seed, sizeof seed);
    if (throttle_init(&g.login_account, &acc, d.table_entries, seed[0]) < 0)
        return STORE_ENOMEM;
    if (throttle_init(&g.login_address, &adr, d.table_entries, seed[1]) < 0)
        goto out_free_account;
    if (throttle_init(&g.reg_address, &reg, d.table_entries, seed[2]) < 0)
        goto out_free_address;
    g.lim = d;
    g.ready = true;
    return 0;

out_free_address:
    throttle_free(&g.login_address);
out_free_account:
    throttle_free(&g.login_account);
    return STORE_ENOMEM;
}

void accounts_shutdown(void)
{
    if (!g.ready)
        return;
    throttle_free(&g.login_account);
    throttle_free(&g.login_address);
    throttle_free(&g.reg_address);
    g.ready = false;
}

accounts_stats accounts_get_stats(void)
{
    accounts_stats st = g.st;
    st.hashes_running = g.running;
    st.hashes_queued = g.queued;
    st.evicted = g.login_account.evicted + g.login_address.evicted + g.reg_address.evicted;
    return st;
}

static void work_hash(uv_work_t *w)
{
    job *j = w->data;
    if (j->registering || j->reset) {
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

void accounts_token_hash(const char *token, unsigned char out[32])
{
    crypto_generichash(out, 32, (const unsigned char *)token, strlen(token), NULL, 0);
}

static void pump(void);

/* The end of a job: its callback (status 0: the session's token), then
 * free it. */
static void job_end(job *j, int status)
{
    store *s = j->s;
    const char *why = NULL;
    if (status < 0)
        why = status == STORE_ELOGIN ? "wrong username or password" : store_err_text(status);
    if (j->reset)
        j->cb(j->arg, status, j->reset, NULL, NULL, why);
    else
        j->cb(j->arg, status, status ? 0 : j->account, status ? NULL : j->username,
              status ? NULL : j->token, why);
    sodium_memzero(j, sizeof *j);
    free(j);
    store_work_end(s);
}

/* The session is written (or not): the answer. */
static void session_written(void *arg, int status)
{
    job *j = arg;
    if (status == 0 && !j->registering && g.ready) {
        /* A success wipes the name's failures and refunds its own cost to
         * the address; the address keeps the failures of other names. */
        char key[THROTTLE_KEY_MAX];
        snprintf(key, sizeof key, "%s", j->username);
        for (char *p = key; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        throttle_clear(&g.login_account, key);
        if (j->addr[0])
            throttle_undo(&g.login_address, j->addr);
    }
    job_end(j, status);
}

/* Create a session for the job's account (its token in j->token), then
 * answer. */
static void session_new(job *j)
{
    unsigned char raw[32], h[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(j->token, sizeof j->token, raw, sizeof raw);
    accounts_token_hash(j->token, h);
    int err = store_login_insert(j->s, h, sizeof h, j->account,
                                 store_now(j->s) + (int64_t)SESSION_DAYS * STORE_DAY_MS, j->agent,
                                 session_written, j);
    if (err < 0)
        job_end(j, err);
}

/* A registration's account is written (or its name was taken). */
static void account_inserted(void *arg, int status, const store_account *a)
{
    job *j = arg;
    if (status < 0) {
        job_end(j, status);
        return;
    }
    j->account = a->id;
    session_new(j);
}

/* A new password is written and every session ended (or not). */
static void password_written(void *arg, int status)
{
    job_end(arg, status);
}

/* Two-factor sign-in: the code given was taken (status 0: the step or
 * the recovery code was unused), on to the session. */
static void code_taken(void *arg, int status)
{
    job *j = arg;
    if (status == 0)
        session_new(j);
    else
        job_end(j, status == STORE_ENOT_FOUND ? STORE_EBAD_TOTP : status);
}

/* The account's two-factor secret (or none): the code given checked, then
 * taken (a code is good once), before the session. */
static void totp_found(void *arg, int status, const store_totp *t)
{
    job *j = arg;
    if (status == STORE_ENOT_FOUND || (status == 0 && !t->enabled)) {
        session_new(j);
        return;
    }
    if (status < 0) {
        job_end(j, status);
        return;
    }
    int64_t step = 0;
    unsigned char hash[32];
    int err;
    if (j->code[0] == '\0')
        err = STORE_ETOTP_REQUIRED;
    else if (t->secret_len == TOTP_SECRET_BYTES &&
             totp_check(t->secret, store_now(j->s) / 1000, j->code, t->last_step, &step))
        err = store_totp_use(j->s, j->account, step, code_taken, j);
    else if (totp_recovery_hash(j->code, hash) == 0)
        err = store_recovery_use(j->s, j->account, hash, code_taken, j);
    else
        err = STORE_EBAD_TOTP;
    if (err < 0)
        job_end(j, err);
}

/* The hashing is done (status): the store's part, queued, then the
 * answer. */
static void finish(job *j, int status)
{
    store *s = j->s;
    sodium_memzero(j->password, sizeof j->password);
    int err = status;
    if (err == 0 && j->reset) /* the new hash, every session ended; no new one is made */
        err = store_account_set_pwhash(s, j->reset, j->hash, password_written, j);
    else if (err == 0 && j->registering)
        err = store_account_insert(s, j->username, j->hash, account_inserted, j);
    else if (err == 0) /* a login: its second factor, if the account has one */
        err = store_totp_get(s, j->account, totp_found, j);
    if (err < 0)
        job_end(j, err);
}

static void work_done(uv_work_t *w, int status)
{
    job *j = w->data;
    g.running--;
    if (status != 0 || store_closing(j->s))
        j->status = STORE_ECLOSED;
    finish(j, j->status);
    pump();
}

/* Start waiting jobs while a thread is free. A job whose store is closing
 * ends at once with STORE_ECLOSED, without hashing. */
static void pump(void)
{
    while (g.head != NULL && g.running < g.lim.hashes_running) {
        job *j = g.head;
        g.head = j->next;
        if (g.head == NULL)
            g.tail = NULL;
        g.queued--;
        if (store_closing(j->s)) {
            finish(j, STORE_ECLOSED);
            continue;
        }
        if (uv_queue_work(store_loop(j->s), &j->work, work_hash, work_done) != 0) {
            finish(j, STORE_ENOMEM);
            continue;
        }
        g.running++;
    }
}

/* Run j now if a thread is free, else queue it (the caller checked that the
 * queue has room: busy()). */
static int submit(store *s, job *j)
{
    j->work.data = j;
    if (g.running < g.lim.hashes_running) {
        if (uv_queue_work(store_loop(s), &j->work, work_hash, work_done) != 0) {
            sodium_memzero(j->password, sizeof j->password);
            free(j);
            return STORE_ENOMEM;
        }
        g.running++;
    } else {
        j->next = NULL;
        if (g.tail)
            g.tail->next = j;
        else
            g.head = j;
        g.tail = j;
        g.queued++;
    }
    store_work_begin(s);
    return 0;
}

/* Is there no room for one more job? Counted. */
static bool busy(unsigned *retry_s)
{
    /* queued counts the logins whose account is being looked up: each has
     * its place kept. */
    if (g.running + g.queued < g.lim.hashes_running + g.lim.hashes_queued)
        return false;
    g.st.busy++;
    if (retry_s)
        *retry_s = 1;
    return true;
}

/* The seconds to wait (at least 1) for ms. */
static unsigned seconds(uint64_t ms)
{
    uint64_t s = (ms + 999) / 1000;
    return s == 0 ? 1 : s > 86400 ? 86400 : (unsigned)s;
}

static job *job_new(store *s, const char *username, const char *password, const char *agent,
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
    snprintf(j->agent, sizeof j->agent, "%s", agent ? agent : "");
    return j;
}

/* Lazily take the defaults (unit tests, tools). */
static int ready(void)
{
    return g.ready ? 0 : accounts_init(NULL);
}

int accounts_register(store *s, const char *addr, const char *agent, const char *username,
                      const char *password, accounts_cb cb, void *arg, unsigned *retry_s)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    if (ready() < 0)
        return STORE_ENOMEM;
    char akey[THROTTLE_KEY_MAX] = "";
    if (addr && *addr)
        throttle_addr_key(addr, akey, sizeof akey);
    uint64_t now = uv_now(store_loop(s));
    uint64_t wait = akey[0] ? throttle_wait(&g.reg_address, akey, now) : 0;
    if (wait > 0) {
        g.st.register_throttled++;
        if (retry_s)
            *retry_s = seconds(wait);
        return STORE_ETHROTTLED;
    }
    int err = accounts_username_check(username, NULL, 0);
    if (err < 0)
        return err;
    if (accounts_password_check(password) < 0)
        return STORE_EPASSWORD;
    if (busy(retry_s))
        return STORE_EBUSY;
    job *j = job_new(s, username, password, agent, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    j->registering = true;
    err = submit(s, j);
    if (err == 0 && akey[0])
        throttle_hit(&g.reg_address, akey, now);
    return err;
}

/* A login's account is looked up (a: NULL if the name is unknown, which is
 * hashed all the same): on to the hashing queue. */
static void login_found(void *arg, int status, const store_account *a)
{
    job *j = arg;
    store *s = j->s;
    g.queued--;
    store_work_end(s);
    if (status == 0) {
        j->known = true;
        j->account = a->id;
        /* The name as registered (the lookup ignores case). */
        snprintf(j->username, sizeof j->username, "%s", a->username);
        snprintf(j->hash, sizeof j->hash, "%s", a->pwhash);
    } else if (status != STORE_ENOT_FOUND) {
        store_work_begin(s); /* job_end ends it */
        job_end(j, status);
        return;
    }
    accounts_cb cb = j->cb;
    void *cbarg = j->arg;
    if (submit(s, j) < 0) /* j is freed */
        cb(cbarg, STORE_ENOMEM, 0, NULL, NULL, store_err_text(STORE_ENOMEM));
}

int accounts_login(store *s, const char *addr, const char *agent, const char *username,
                   const char *password, const char *code, accounts_cb cb, void *arg,
                   unsigned *retry_s)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    if (ready() < 0)
        return STORE_ENOMEM;
    if (username == NULL || password == NULL)
        return STORE_ELOGIN;
    /* The name as a key: lower case, as the lookup ignores case. */
    char nkey[THROTTLE_KEY_MAX], akey[THROTTLE_KEY_MAX] = "";
    snprintf(nkey, sizeof nkey, "%s", username);
    for (char *p = nkey; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (addr && *addr)
        throttle_addr_key(addr, akey, sizeof akey);
    uint64_t now = uv_now(store_loop(s));
    uint64_t wait = throttle_wait(&g.login_account, nkey, now);
    uint64_t wa = akey[0] ? throttle_wait(&g.login_address, akey, now) : 0;
    if (wa > wait)
        wait = wa;
    if (wait > 0) {
        g.st.login_throttled++;
        if (retry_s)
            *retry_s = seconds(wait);
        return STORE_ETHROTTLED;
    }
    long n = utf8_chars(password);
    if (n < 0)
        return STORE_EPASSWORD;
    /* No password this long was ever accepted: no need to hash it. */
    if (n > ACCOUNTS_PASSWORD_MAX)
        return STORE_ELOGIN;
    if (busy(retry_s))
        return STORE_EBUSY;
    job *j = job_new(s, username, password, agent, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    snprintf(j->addr, sizeof j->addr, "%s", akey);
    snprintf(j->code, sizeof j->code, "%s", code ? code : "");
    /* Its place in the hashing queue is kept while the account is looked
     * up, so that the queue's bound holds. */
    g.queued++;
    store_work_begin(s);
    int err = store_account_by_name(s, username, login_found, j);
    if (err < 0) {
        g.queued--;
        store_work_end(s);
        sodium_memzero(j, sizeof *j);
        free(j);
        return err;
    }
    throttle_hit(&g.login_account, nkey, now);
    if (akey[0])
        throttle_hit(&g.login_address, akey, now);
    return 0;
}

int accounts_set_password(store *s, int64_t account, const char *password, accounts_cb cb,
                          void *arg, unsigned *retry_s)
{
    if (store_closing(s))
        return STORE_ECLOSED;
    if (ready() < 0)
        return STORE_ENOMEM;
    if (accounts_password_check(password) < 0)
        return STORE_EPASSWORD;
    if (busy(retry_s))
        return STORE_EBUSY;
    job *j = job_new(s, "", password, NULL, cb, arg);
    if (j == NULL)
        return STORE_ENOMEM;
    j->reset = account;
    return submit(s, j);
}

int accounts_logout(store *s, const char *token, store_done_cb cb, void *arg)
{
    unsigned char h[32];
    accounts_token_hash(token, h);
    return store_login_delete(s, h, sizeof h, cb, arg);
}

int accounts_login_find(store *s, const char *token, store_account_cb cb, void *arg)
{
    if (token == NULL || strlen(token) != ACCOUNTS_TOKEN_LEN)
        return STORE_ENOT_FOUND;
    unsigned char h[32];
    accounts_token_hash(token, h);
    return store_login_find(s, h, sizeof h, cb, arg);
}

int accounts_name(store *s, int64_t account, store_account_cb cb, void *arg)
{
    return store_account_name(s, account, cb, arg);
}

/* accounts_find's question: the caller's callback, which never sees the
 * password's hash. */
typedef struct find_job {
    store_account_cb cb;
    void *arg;
} find_job;

static void found(void *arg, int status, const store_account *a)
{
    find_job f = *(find_job *)arg;
    free(arg);
    store_account copy = {0};
    if (status == 0) {
        copy.id = a->id;
        snprintf(copy.username, sizeof copy.username, "%s", a->username);
    }
    f.cb(f.arg, status, status == 0 ? &copy : NULL);
}

int accounts_find(store *s, const char *username, store_account_cb cb, void *arg)
{
    find_job *f = malloc(sizeof *f);
    if (f == NULL)
        return STORE_ENOMEM;
    *f = (find_job){cb, arg};
    int err = store_account_by_name(s, username, found, f);
    if (err < 0)
        free(f);
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
