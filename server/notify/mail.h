/*
 * mail.h - sending e-mail: the SMTP transport (libcurl) and the worker
 * thread that sends the store's outbox.
 *
 * Owns: the SMTP settings (--smtp-url, --smtp-user, --smtp-password-file,
 * --mail-from, the links' --public-url), the worker thread and its curl
 * handle, the text of a message (headers, the unsubscribe footer), the mail
 * counters. May call: store.h (the outbox: store_mail_queue on the loop,
 * a store_mailbox on the worker), log.h, proto_out.h, libcurl, libuv.
 *
 * Durability: a mail is a row of the outbox, written in the store's batch
 * like a move (store_mail_queue); the worker, on its own thread and its own
 * connection, takes the oldest row due, hands it to the relay, and marks it
 * sent as soon as the relay has accepted it (its 250 to DATA), in its own
 * synced transaction. A relay that is down or refuses for a while (4xx, no
 * answer) gets the mail again later: MAIL_RETRY_MS, doubling, at most
 * MAIL_RETRY_MAX_MS, MAIL_TRIES times in all; a permanent refusal (5xx)
 * gives up at once. A restart loses nothing: the rows wait on disk.
 *
 * The one window where a mail may go twice: the relay accepted it and the
 * server died before the "sent" mark was on disk (the time of one small
 * commit after the relay's answer, milliseconds). The copy sent again
 * carries the same Message-ID (made from the row's id and creation time),
 * which lets mail systems drop it as a duplicate. Nothing is ever sent
 * twice otherwise.
 *
 * Threads: mail_init, mail_queue, mail_stop and mail_get_stats run on the
 * loop; the worker touches only its mailbox, its curl handle and the
 * counters (under a mutex).
 */
#ifndef MAIL_H
#define MAIL_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "store.h"

enum {
    MAIL_RETRY_MS = 30000,       /* the first wait after a failure, doubling */
    MAIL_RETRY_MAX_MS = 3600000, /* no wait is longer */
    MAIL_TRIES = 30,             /* about a day in all, then given up */
    MAIL_POLL_MS = 1000,         /* the worker looks at the outbox this often */
    MAIL_KEEP_DAYS = 90,         /* sent rows (and their dedupe keys) kept */
};

typedef struct mail_config {
    const char *smtp_url;      /* smtp://HOST:PORT or smtps://...; NULL: mail is off */
    const char *user;          /* NULL: no AUTH */
    const char *password_file; /* the password's first line; NULL: none */
    const char *from;          /* envelope sender and From: */
    const char *public_url;    /* the site's address, for links (no path) */
} mail_config;

typedef struct mail_stats {
    bool on;
    uint64_t queued;  /* mails written to the outbox */
    uint64_t sent;    /* accepted by the relay */
    uint64_t retries; /* failed tries that will be tried again */
    uint64_t failed;  /* given up (permanent refusal, or every try failed) */
    int64_t depth;    /* rows waiting in the outbox (as the worker last counted) */
} mail_stats;

/*
 * Start the worker if cfg->smtp_url is set (else mail is off: logged once,
 * mail_queue drops everything). 0, or -1 with a sentence in why (an
 * unreadable password file, no --mail-from or --public-url, no thread).
 */
int mail_init(uv_loop_t *loop, store *s, const mail_config *cfg, char *why, size_t whylen);
/* Is mail on (a relay is set)? */
bool mail_on(void);
/* The links' base ("https://host"), "" if mail is off. */
const char *mail_link_base(void);
/* Queue a mail in the outbox (store_mail_queue; the worker is woken once
 * it is durable). 0, or a negative store error; nothing if mail is off. */
int mail_queue(const store_mail_new *m);
/* Stop the worker (before store_close): a send under way finishes first. */
void mail_stop(void);
mail_stats mail_get_stats(void);

/*
 * The whole message of an outbox row (headers, a blank line, the body and
 * the unsubscribe footer, lines ended by CRLF) as a malloc'd string, or
 * NULL if out of memory. date_ms is the Date: header's time.
 */
char *mail_format(const store_mail_row *r, const char *from, const char *link_base,
                  int64_t date_ms);

#endif
