/*
 * relay.h - messages between server nodes through PostgreSQL's
 * LISTEN/NOTIFY (issue 20, docs/SCALING.md "Relay between nodes"): the
 * building block with which a node will forward a room's requests to its
 * owner and relay the owner's events. Nothing here knows rooms.
 *
 * Owns: one PostgreSQL session per relay (its own, never the store's),
 * driven without blocking on the caller's libuv loop (PQconnectStart and
 * PQconnectPoll, PQsendQuery, PQsocket watched by uv_poll,
 * PQconsumeInput/PQnotifies); the channels it listens on; the queue of
 * messages waiting to be published; its counters (relay_get_stats, shown
 * by metrics.c).
 * May call: libuv, libpq, log.h. Only the loop thread calls it.
 *
 * The loop never waits on the network: relay_open returns before the
 * session exists, and every call below only queues. A host name in the
 * URL is looked up with uv_getaddrinfo (off the loop) and every address
 * it has is given to libpq as hostaddr, tried in turn. When the session
 * breaks (pg_terminate_backend, PostgreSQL restarted, the network) the
 * relay opens another after a back-off (RELAY_BACKOFF_MIN_MS doubling up
 * to RELAY_BACKOFF_MAX_MS, 10 s at most per attempt), LISTENs again on
 * every channel and sends what was queued meanwhile.
 *
 * Delivery:
 *   - At most once. A listener whose session is down misses what is
 *     NOTIFYed meanwhile (PostgreSQL keeps nothing for a session that is
 *     gone): the caller catches up from the store (a room's events have
 *     their seq). A batch of publishes in flight when the session breaks
 *     may or may not have committed: it is not sent again (counted in
 *     chameleon_relay_dropped_total{reason="in_flight"}).
 *   - In order per publisher: one relay's messages reach a listener in the
 *     order relay_publish was called (one query in flight at a time; a
 *     batch is one transaction, whose NOTIFYs PostgreSQL delivers in order
 *     at its commit). Messages of different relays interleave by commit.
 *   - Publishes called while the session is down wait in the queue (at
 *     most RELAY_QUEUE_MAX; the next is refused with RELAY_EFULL, counted
 *     as dropped{reason="queue_full"}) and go out, in order, once the
 *     session is back.
 *   - Identical messages are all delivered: PostgreSQL folds identical
 *     (channel, payload) pairs of one transaction into one, so a batch
 *     never holds two (identical ones in a row cost a transaction each).
 *   - A batch PostgreSQL refuses (valid input should never be) is sent
 *     again one message at a time: only the refused one is dropped
 *     (logged, dropped{reason="refused"}).
 *   - Nothing is durable: the session commits with synchronous_commit
 *     off (a NOTIFY writes no data), so a relayed message says nothing
 *     about what the store has committed; publish a move's event once the
 *     store says it is durable.
 *   - A relay receives its own messages on the channels it listens to
 *     (PostgreSQL delivers them to the sending session too): in on_message
 *     they are those whose sender_pid equals relay_own_pid(r). This is
 *     exact: a notification is read only on the live session, and its own
 *     ones were sent on that same session.
 *
 * Errors are 0 or a negative RELAY_E* code (relay_err_text gives the
 * words); bad input is refused at once and nothing is queued.
 */
#ifndef RELAY_H
#define RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

enum {
    /* PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
    RELAY_PAYLOAD_MAX = 7999,
    /* A channel or node name: 1..63 bytes (PostgreSQL's NAMEDATALEN). */
    RELAY_NAME_MAX = 63,
    /* Messages waiting to be published (the session down or busy). */
    RELAY_QUEUE_MAX = 10000,
    /* Channels one relay listens on. */
    RELAY_CHANNELS_MAX = 4096,
    RELAY_BACKOFF_MIN_MS = 100,
    RELAY_BACKOFF_MAX_MS = 5000,
    RELAY_CONNECT_TIMEOUT_MS = 10000,
    /* A host name the relay looks up itself (a longer one: libpq does). */
    RELAY_HOST_MAX = 255,
};

/* The error codes: X(name, value, text). */
#define RELAY_ERRORS(X)                                                                            \
    X(RELAY_EINVAL, -1, "not a channel name (1..63 letters, digits, _) or not UTF-8 text")         \
    X(RELAY_ETOO_LARGE, -2, "payload of 8000 bytes or more (PostgreSQL's NOTIFY limit)")           \
    X(RELAY_EFULL, -3, "too many messages waiting to be published")                                \
    X(RELAY_ENOMEM, -4, "out of memory")                                                           \
    X(RELAY_ETOO_MANY, -5, "too many channels")

enum relay_err {
#define RELAY_ENUM(name, value, text) name = value,
    RELAY_ERRORS(RELAY_ENUM)
#undef RELAY_ENUM
};

typedef struct relay relay;

/* A notification on a channel this relay listens to. payload is len
 * bytes plus a NUL, valid during the call only; sender_pid is the
 * PostgreSQL backend that sent it (relay_own_pid(r) for this relay's own).
 * The callback may call relay_publish, relay_listen, relay_unlisten and
 * relay_close. */
typedef void (*relay_cb)(void *arg, const char *channel, const char *payload, size_t len,
                         int sender_pid);

typedef struct relay_stats {
    uint64_t published;         /* messages whose transaction committed */
    uint64_t received;          /* notifications handed to on_message */
    uint64_t reconnects;        /* sessions opened again after one was lost */
    uint64_t dropped_full;      /* publishes refused: the queue was full */
    uint64_t dropped_in_flight; /* sent when the session broke: not sent again */
    uint64_t dropped_refused;   /* PostgreSQL refused it (logged) */
    size_t queued;              /* messages waiting (in flight included) */
    bool connected;             /* relay_ready */
} relay_stats;

/* A relay on loop to the PostgreSQL of pg_url (a postgresql:// URL or a
 * conninfo string) for node `node` (a name as a channel's, shown in
 * pg_stat_activity's application_name as "chameleon relay NODE"). It
 * connects in the background; on_message(arg, ...) gets every
 * notification. NULL and why for a URL libpq cannot parse, a bad node name
 * or no memory; a server that cannot be reached is no error (the relay
 * tries again, and logs it). */
relay *relay_open(uv_loop_t *loop, const char *pg_url, const char *node, relay_cb on_message,
                  void *arg, char *why, size_t whylen);

/* Listen to channel (1..63 bytes of ASCII letters, digits and '_'; quoted,
 * so case counts), now and after every reconnection: the LISTEN is in
 * effect once relay_ready says so. 0, RELAY_EINVAL, RELAY_ETOO_MANY,
 * RELAY_ENOMEM. Listening twice is listening once. */
int relay_listen(relay *r, const char *channel);

/* Stop listening to channel (notifications already read may still come).
 * 0 (also when it was not listened to) or RELAY_EINVAL. */
int relay_unlisten(relay *r, const char *channel);

/* Queue payload (len bytes of UTF-8 text, no NUL, at most
 * RELAY_PAYLOAD_MAX) for channel: sent as NOTIFY channel, 'payload', the
 * queued ones in one transaction (at most 200 a transaction). 0, RELAY_EINVAL (channel name,
 * NUL or bad UTF-8), RELAY_ETOO_LARGE, RELAY_EFULL (counted), RELAY_ENOMEM.
 * Nothing is queued on an error. */
int relay_publish(relay *r, const char *channel, const char *payload, size_t len);

/* True once the session is up and every relay_listen/relay_unlisten
 * asked for is in effect on it; false while (re)connecting. */
bool relay_ready(const relay *r);

/* The PostgreSQL backend of the live session (0 while there is none): a
 * notification whose sender_pid is this one was sent by this relay. */
int relay_own_pid(const relay *r);

/* Whether s is a channel or node name: 1..63 bytes of ASCII letters,
 * digits and '_'. */
bool relay_valid_name(const char *s);

/* The node name given to relay_open. */
const char *relay_node(const relay *r);

void relay_get_stats(const relay *r, relay_stats *out);

/* Close the session and free the relay once its handles are closed (the
 * loop must run on). Messages still queued are not sent. No callback
 * comes after it. */
void relay_close(relay *r);

/* The words for a RELAY_E* code. */
const char *relay_err_text(int err);

#endif
