/*
 * push.c - Web Push: keys, subscriptions, the sender thread (see push.h).
 */
#include "push.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "log.h"
#include "counters.h"
#include "push_addr.h"
#include "push_crypto.h"
#include "push_msg.h"
#include "store.h"

/* One message to one subscription. */
typedef struct job {
    struct job *next;
    int64_t account;
    char *endpoint;
    uint8_t p256dh[PUSH_PUB_LEN], auth[PUSH_AUTH_LEN];
    char *payload;
    size_t len;
    bool urgent;
    char topic[33];
    int tries;
    uint64_t due_ms; /* uv_hrtime in ms: not sent before */
    /* The outcome, for the loop. */
    enum { OUT_SENT, OUT_GONE, OUT_FAILED } outcome;
    long status;          /* the last HTTP status, 0 if none */
    bool refused_address; /* the endpoint led to a non-public address */
    size_t answered;      /* bytes of the answer read (at most PUSH_ANSWER_MAX) */
    char error[CURL_ERROR_SIZE];
} job;

static struct {
    bool on;
    store *db;
    uv_loop_t *loop;
    push_config cfg;
    char subject[256];
    uint8_t priv[PUSH_PRIV_LEN], pub[PUSH_PUB_LEN];
    char pub_b64[100];
    /* The sender: under mu. */
    uv_thread_t threads[PUSH_SENDERS];
    int nthreads;
    int64_t sending[PUSH_SENDERS]; /* the account each sender is POSTing for, 0: none */
    uv_mutex_t mu;
    uv_cond_t cv;
    uv_async_t done_async;
    bool quit;
    job *queued, *done;
    int njobs; /* queued, in flight and done */
} P;

/* Set by push_stop: a POST in flight gives up at once (libcurl's progress
 * callback reads it on the sender thread). */
static atomic_bool stopping;

static void job_free(job *j)
{
    if (j == NULL)
        return;
    free(j->endpoint);
    free(j->payload);
    free(j);
}

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000;
}

/* ------------------------------------------------------------------------ */
/* The sender thread */

/* The answer is not needed: a push service says what it has to in the
 * status. A few KB are read, more ends the transfer (a 1 GiB answer is
 * never read to its end). */
static size_t discard(char *p, size_t size, size_t n, void *arg)
{
    job *j = arg;
    j->answered += size * n;
    return j->answered > PUSH_ANSWER_MAX ? 0 : size * n;
}

/* libcurl is about to connect to this address (the DNS answer's, or a
 * literal's): only a public one (push_addr.h), so a name that resolves to
 * the server's own network is refused where it counts. */
static curl_socket_t open_public(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
    job *j = arg;
    const struct sockaddr *sa = &a->addr;
    if (purpose != CURLSOCKTYPE_IPCXN ||
        !(push_addr_public(sa) || (P.cfg.allow_loopback && push_addr_loopback(sa)))) {
        j->refused_address = true;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

static int progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    return atomic_load(&stopping) ? 1 : 0; /* non-zero aborts the transfer */
}

/* The VAPID audience of an endpoint: its scheme, host and port. */
static int audience(const char *endpoint, char *aud, size_t len)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int err = -1;
    if (u && curl_url_set(u, CURLUPART_URL, endpoint, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_PORT, &port, 0); /* none: the scheme's */
        int n = port ? snprintf(aud, len, "%s://%s:%s", scheme, host, port)
                     : snprintf(aud, len, "%s://%s", scheme, host);
        err = n > 0 && (size_t)n < len ? 0 : -1;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return err;
}

/* POST j once: the HTTP status, or -1 (nothing answered: network, or a
 * message that cannot be built) with j->error set; *retry_after_s from the
 * answer's Retry-After (0 if none). */
static long send_once(job *j, long *retry_after_s)
{
    size_t cap = PUSH_BODY_LEN(j->len), n = 0;
    uint8_t *body = malloc(cap);
    char aud[300], jwt[PUSH_JWT_MAX], auth_hdr[PUSH_JWT_MAX + 200];
    struct curl_slist *h = NULL;
    CURL *c = NULL;
    long status = -1;
    *retry_after_s = 0;
    if (body == NULL || push_crypto_encrypt(j->p256dh, j->auth, j->payload, j->len, NULL, NULL,
                                            NULL, body, cap, &n) < 0) {
        snprintf(j->error, sizeof j->error, "cannot encrypt the message");
        goto out;
    }
    if (audience(j->endpoint, aud, sizeof aud) < 0 ||
        push_crypto_vapid_jwt(P.priv, aud, (int64_t)time(NULL) + 12 * 3600, P.subject, jwt,
                              sizeof jwt) < 0) {
        snprintf(j->error, sizeof j->error, "cannot sign the VAPID token");
        goto out;
    }
    snprintf(auth_hdr, sizeof auth_hdr, "Authorization: vapid t=%s, k=%s", jwt, P.pub_b64);
    char ttl[32], topic[64];
    snprintf(ttl, sizeof ttl, "TTL: %d", PUSH_TTL_S);
    snprintf(topic, sizeof topic, "Topic: %s", j->topic);
    const char *lines[] = {auth_hdr,
                           ttl,
                           j->urgent ? "Urgency: high" : "Urgency: normal",
                           topic,
                           "Content-Encoding: aes128gcm",
                           "Content-Type: application/octet-stream",
                           "Expect:"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        struct curl_slist *t = curl_slist_append(h, lines[i]);
        if (t == NULL)
            goto out;
        h = t;
    }
    c = curl_easy_init();
    if (c == NULL)
        goto out;
    j->error[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, j->endpoint);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, P.cfg.allow_http ? "http,https" : "https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_public);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, j);
    curl_easy_setopt(c, CURLOPT_PROXY, ""); /* no proxy from the environment: we judge the peer */
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)PUSH_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)PUSH_CONNECT_MS);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "chameleon");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)n);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, j);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, j->error);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_off_t ra = 0;
        if (curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
            *retry_after_s = (long)ra;
    } else if (j->error[0] == '\0') {
        snprintf(j->error, sizeof j->error, "%s", curl_easy_strerror(rc));
    }
out:
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    free(body);
    return status;
}

/* Is a sender POSTing for this account? (under mu) */
static bool account_busy(int64_t account)
{
    for (int i = 0; i < P.nthreads; i++)
        if (P.sending[i] == account)
            return true;
    return false;
}

/* PUSH_SENDERS threads, each POSTing one message at a time; at most one
 * POST per account at once, so an account whose endpoints never answer
 * holds one sender for PUSH_TIMEOUT_MS at most and the others go on with
 * everyone else's messages. */
static void sender(void *arg)
{
    int me = (int)(intptr_t)arg;
    uv_mutex_lock(&P.mu);
    while (!P.quit) {
        /* The job due first whose account has no POST under way (the
         * queue is bounded: a scan). */
        job **best = NULL;
        for (job **pp = &P.queued; *pp; pp = &(*pp)->next)
            if (!account_busy((*pp)->account) && (best == NULL || (*pp)->due_ms < (*best)->due_ms))
                best = pp;
        if (best == NULL) {
            uv_cond_wait(&P.cv, &P.mu);
            continue;
        }
        uint64_t now = now_ms();
        if ((*best)->due_ms > now) {
            uv_cond_timedwait(&P.cv, &P.mu, ((*best)->due_ms - now) * 1000000);
            continue;
        }
        job *j = *best;
        *best = j->next;
        P.sending[me] = j->account;
        uv_mutex_unlock(&P.mu);

        long retry_s = 0;
        j->answered = 0;
        long status = send_once(j, &retry_s);
        j->tries++;
        j->status = status > 0 ? status : 0;
        bool again = (status < 0 || status == 429 || status >= 500) && !j->refused_address &&
                     j->answered <= PUSH_ANSWER_MAX;
        if (status >= 200 && status < 300)
            j->outcome = OUT_SENT;
        else if (status == 404 || status == 410 || j->refused_address)
            j->outcome = OUT_GONE; /* a private address: the subscription goes too */
        else
            j->outcome = OUT_FAILED;

        uv_mutex_lock(&P.mu);
        P.sending[me] = 0;
        uv_cond_broadcast(&P.cv); /* the account's next message may go now */
        if (again && j->tries < PUSH_TRIES && !P.quit) {
            uint64_t wait = (uint64_t)P.cfg.retry_ms << (j->tries - 1);
            if (retry_s > 0 && (uint64_t)retry_s * 1000 > wait)
                wait = (uint64_t)retry_s * 1000;
            if (wait > PUSH_RETRY_MAX_MS)
                wait = PUSH_RETRY_MAX_MS;
            j->due_ms = now_ms() + wait;
            j->next = P.queued;
            P.queued = j;
        } else {
            j->next = P.done;
            P.done = j;
            uv_async_send(&P.done_async);
        }
    }
    uv_mutex_unlock(&P.mu);
}

/* ------------------------------------------------------------------------ */
/* The loop side */

static void on_done(uv_async_t *a)
{
    uv_mutex_lock(&P.mu);
    job *list = P.done;
    P.done = NULL;
    uv_mutex_unlock(&P.mu);
    while (list) {
        job *j = list;
        list = j->next;
        switch (j->outcome) {
        case OUT_SENT:
            metrics_now.push_sent++;
            break;
        case OUT_GONE:
            metrics_now.push_removed++;
            store_push_sub_gone(P.db, j->endpoint, NULL, NULL); /* queued: nobody waits */
            if (j->refused_address) {
                metrics_now.push_refused_address++;
                log_kv(LOG_WARN, "push endpoint leads to a private address: removed",
                       "account=%lld", (long long)j->account);
            } else {
                log_kv(LOG_INFO, "push subscription gone: removed", "status=%ld", j->status);
            }
            break;
        case OUT_FAILED:
            metrics_now.push_failed++;
            log_kv(LOG_WARN, "push not delivered", "status=%ld tries=%d error=\"%s\"", j->status,
                   j->tries, j->error);
            break;
        }
        job_free(j);
        uv_mutex_lock(&P.mu);
        P.njobs--;
        uv_mutex_unlock(&P.mu);
    }
}

int push_init(uv_loop_t *loop, store *db, const push_config *cfg, char *why, size_t whylen)
{
    memset(&P, 0, sizeof P);
    atomic_store(&stopping, false);
    if (cfg == NULL || cfg->subject == NULL || cfg->subject[0] == '\0')
        return 0;
    P.cfg = *cfg;
    if (P.cfg.retry_ms == 0)
        P.cfg.retry_ms = PUSH_RETRY_MS;
    const char *s = cfg->subject;
    if ((strncmp(s, "mailto:", 7) != 0 && strncmp(s, "https://", 8) != 0) ||
        strlen(s) >= sizeof P.subject || strpbrk(s, "\"\\ ") != NULL) {
        snprintf(why, whylen, "--vapid-subject must be a mailto: or https: URL (RFC 8292), not %s",
                 s);
        return -1;
    }
    snprintf(P.subject, sizeof P.subject, "%s", s);
    int err = store_push_vapid_get(db, P.priv, P.pub);
    uint8_t check[PUSH_PUB_LEN];
    if (err == STORE_ENOT_FOUND) {
        if (push_crypto_keygen(P.priv, P.pub) < 0 || store_push_vapid_put(db, P.priv, P.pub) < 0) {
            snprintf(why, whylen, "cannot make or keep the VAPID key pair");
            return -1;
        }
        log_info("push: a new VAPID key pair is kept in the database");
    } else if (err < 0 || push_crypto_public(P.priv, check) < 0 ||
               memcmp(check, P.pub, sizeof check) != 0) {
        snprintf(why, whylen, "the VAPID key pair in the database cannot be read or is not a pair");
        return -1;
    }
    push_b64url(P.pub, sizeof P.pub, P.pub_b64, sizeof P.pub_b64);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, whylen, "libcurl cannot start");
        return -1;
    }
    P.db = db;
    P.loop = loop;
    uv_mutex_init(&P.mu);
    uv_cond_init(&P.cv);
    uv_async_init(loop, &P.done_async, on_done);
    uv_unref((uv_handle_t *)&P.done_async); /* the loop may end while it waits */
    for (P.nthreads = 0; P.nthreads < PUSH_SENDERS; P.nthreads++)
        if (uv_thread_create(&P.threads[P.nthreads], sender, (void *)(intptr_t)P.nthreads) != 0)
            break;
    if (P.nthreads == 0) {
        snprintf(why, whylen, "cannot start the push sender threads");
        uv_close((uv_handle_t *)&P.done_async, NULL);
        return -1;
    }
    P.on = true;
    return 0;
}

void push_stop(void)
{
    if (!P.on)
        return;
    atomic_store(&stopping, true);
    uv_mutex_lock(&P.mu);
    P.quit = true;
    uv_cond_broadcast(&P.cv);
    uv_mutex_unlock(&P.mu);
    for (int i = 0; i < P.nthreads; i++)
        uv_thread_join(&P.threads[i]);
    on_done(&P.done_async); /* count what finished */
    while (P.queued) {
        job *j = P.queued;
        P.queued = j->next;
        job_free(j);
    }
    uv_close((uv_handle_t *)&P.done_async, NULL);
    uv_mutex_destroy(&P.mu);
    uv_cond_destroy(&P.cv);
    curl_global_cleanup();
    P.on = false;
}

bool push_enabled(void)
{
    return P.on;
}

const char *push_public_key(void)
{
    return P.on ? P.pub_b64 : NULL;
}

/* Is endpoint a URL a push service could have given (https; http only
 * with allow_http), without user name or fragment? */
static bool endpoint_ok(const char *endpoint, char *why, size_t whylen)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *user = NULL;
    bool ok = false;
    if (u == NULL || curl_url_set(u, CURLUPART_URL, endpoint, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        snprintf(why, whylen, "'endpoint' is not a URL");
    } else if (!(strcasecmp(scheme, "https") == 0 ||
                 (P.cfg.allow_http && strcasecmp(scheme, "http") == 0))) {
        snprintf(why, whylen, "'endpoint' must be an https:// URL");
    } else if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
        snprintf(why, whylen, "'endpoint' must not carry a user name");
    } else if (!push_host_allowed(host, P.cfg.allow_loopback, why, whylen)) {
        metrics_now.push_refused_address++;
    } else {
        ok = true;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(user);
    curl_url_cleanup(u);
    return ok;
}

int push_subscribe(int64_t account, const char *endpoint, const char *p256dh_b64,
                   const char *auth_b64, push_done_cb cb, void *arg, char *why, size_t whylen)
{
    if (!P.on) {
        snprintf(why, whylen, "push notifications are off on this server");
        return PUSH_EOFF;
    }
    store_push_sub sub;
    if (strlen(endpoint) > STORE_PUSH_ENDPOINT_MAX) {
        snprintf(why, whylen, "'endpoint' is longer than %d bytes", STORE_PUSH_ENDPOINT_MAX);
        return PUSH_EBAD;
    }
    if (!endpoint_ok(endpoint, why, whylen))
        return PUSH_EBAD;
    uint8_t probe[PUSH_BODY_LEN(0)];
    size_t n = 0;
    if (push_b64url_decode(p256dh_b64, sub.p256dh, sizeof sub.p256dh) != PUSH_PUB_LEN ||
        push_b64url_decode(auth_b64, sub.auth, sizeof sub.auth) != PUSH_AUTH_LEN ||
        push_crypto_encrypt(sub.p256dh, sub.auth, "", 0, NULL, NULL, NULL, probe, sizeof probe,
                            &n) < 0) {
        snprintf(why, whylen,
                 "'keys.p256dh' must be a P-256 point (65 bytes) and 'keys.auth' 16 bytes, "
                 "base64url");
        return PUSH_EBAD;
    }
    snprintf(sub.endpoint, sizeof sub.endpoint, "%s", endpoint);
    if (store_push_sub_put(P.db, account, &sub, PUSH_SUBS_MAX, cb, arg) < 0) {
        snprintf(why, whylen, "database error");
        return PUSH_EDB;
    }
    return 0;
}

int push_unsubscribe(int64_t account, const char *endpoint, push_done_cb cb, void *arg)
{
    if (!P.on)
        return PUSH_EOFF;
    return store_push_sub_delete(P.db, account, endpoint, cb, arg) < 0 ? PUSH_EDB : 0;
}

/* A message waiting for the read of its account's subscriptions. */
typedef struct send_req {
    int64_t account;
    int64_t game;
    bool urgent;
    size_t len;
    char payload[];
} send_req;

/* The subscriptions are read: queue the payload for each. */
static void on_subs(void *arg, int status, const store_push_sub *subs, int n)
{
    send_req *r = arg;
    if (status < 0)
        log_kv(LOG_WARN, "push: the subscriptions could not be read", "error=%s",
               store_err_code(status));
    for (int i = 0; P.on && i < n; i++) {
        uv_mutex_lock(&P.mu);
        /* The queue's bound, and the account's share of it: one account's
         * silent endpoints never crowd out the others' messages. */
        int mine = 0;
        for (job *q = P.queued; q != NULL; q = q->next)
            mine += q->account == r->account;
        mine += account_busy(r->account);
        bool full = P.njobs >= PUSH_QUEUE_MAX || mine >= PUSH_ACCOUNT_JOBS;
        if (!full)
            P.njobs++;
        uv_mutex_unlock(&P.mu);
        if (full)
            metrics_now.push_dropped++;
        job *j = full ? NULL : calloc(1, sizeof *j);
        if (j != NULL) {
            j->endpoint = strdup(subs[i].endpoint);
            j->payload = malloc(r->len + 1);
        }
        if (j == NULL || j->endpoint == NULL || j->payload == NULL) {
            metrics_now.push_failed++;
            if (j != NULL) {
                job_free(j);
                uv_mutex_lock(&P.mu);
                P.njobs--;
                uv_mutex_unlock(&P.mu);
            }
            continue;
        }
        memcpy(j->payload, r->payload, r->len);
        j->len = r->len;
        j->account = r->account;
        memcpy(j->p256dh, subs[i].p256dh, sizeof j->p256dh);
        memcpy(j->auth, subs[i].auth, sizeof j->auth);
        j->urgent = r->urgent;
        /* A newer message of the same game replaces one not yet delivered
         * (RFC 8030 Topic: base64url characters, 32 at most). */
        snprintf(j->topic, sizeof j->topic, "game-%lld", (long long)r->game);
        j->due_ms = now_ms();
        uv_mutex_lock(&P.mu);
        j->next = P.queued;
        P.queued = j;
        uv_cond_signal(&P.cv);
        uv_mutex_unlock(&P.mu);
    }
    free(r);
}

/* Queue the payload in o (consumed) for every subscription of account,
 * once the store has read them (a queued read: the loop does not wait). */
static void send_all(int64_t account, int64_t game, proto_out *o, bool urgent)
{
    send_req *r = o->oom ? NULL : malloc(sizeof *r + o->len);
    if (r != NULL) {
        r->account = account;
        r->game = game;
        r->urgent = urgent;
        r->len = o->len;
        memcpy(r->payload, proto_out_data(o), o->len);
    }
    proto_out_free(o);
    if (r == NULL || store_push_subs(P.db, account, PUSH_SUBS_MAX, on_subs, r) < 0) {
        metrics_now.push_failed++;
        free(r);
    }
}

void push_your_move(int64_t account, int64_t game, const char *variant, const char *opponent)
{
    if (!P.on || account <= 0)
        return;
    proto_out o;
    proto_out_init(&o, 0);
    push_msg_payload(&o, "your_move", game, variant, opponent, -1);
    send_all(account, game, &o, false);
}

void push_low_time(int64_t account, int64_t game, const char *variant, int64_t ms_left)
{
    if (!P.on || account <= 0)
        return;
    proto_out o;
    proto_out_init(&o, 0);
    push_msg_payload(&o, "low_time", game, variant, NULL, ms_left < 0 ? 0 : ms_left);
    send_all(account, game, &o, true);
}
