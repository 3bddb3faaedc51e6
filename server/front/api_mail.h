/*
 * api_mail.h - the HTTP routes of e-mail (PROTOCOL.md, "E-mail"): an
 * account's address and its confirmation link, notice preferences, the
 * password reset by e-mail, and the one-click unsubscribe (RFC 8058).
 *
 * Owns: those handlers, the text of the confirmation and reset mails, the
 * links' tokens (32 random bytes, only their BLAKE2b hash is stored), the
 * throttle tables of reset requests (per peer address and per name or
 * address asked about) and of confirmation mails (per account).
 * May call: net.h, api.h (answers that come later), dispatch.h (an
 * account's open connections, closed at a reset), accounts.h (sessions,
 * the password's hashing), store.h, mail.h, mailmsg.h, proto.h, throttle.h,
 * libsodium, libuv (the look-up timer).
 *
 * Each handler is a net_handler (api.h). Every look-up and write is a
 * queued call of the store (the loop never waits on the database): a
 * request is a chain of callbacks hanging off its connection (api.h's
 * pending; the session from api_with_session), each step checking the
 * connection is still there. A request whose connection went is dropped,
 * but a link's token once taken is used to the end (the address confirmed,
 * the password changed). A confirmation request counts against its
 * account's limit as soon as it is let through (those in flight count).
 * A reset request answers the same whether or not the name or address is
 * known (it never says whether an account or an address exists), after the
 * same throttle, before it looks the name up (a timer does, FORGOT_DELAY_MS
 * later): its time does not tell either. Requests waiting for the timer
 * and look-ups in flight are at most FORGOT_PENDING together (then 503
 * busy, whatever the name).
 */
#ifndef API_MAIL_H
#define API_MAIL_H

#include <stddef.h>

#include "net.h"

struct store;

enum {
    API_MAIL_CONFIRM_HOURS = 48, /* a confirmation link works this long */
    API_MAIL_RESET_MINUTES = 60, /* a reset link works this long, once */
};

/* Start (after accounts_init): 0, or -1 if out of memory. */
int api_mail_init(struct store *db);
/* Before store_close: reset requests not looked up yet are dropped. */
void api_mail_stop(void);
void api_mail_shutdown(void);

/* GET /api/mail: the account's address and preferences. */
int api_mail_settings(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/mail/address {"address"}: a confirmation link to that address. */
int api_mail_address(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/mail/address/delete: the account's address, its pending links
 * and its mail in the outbox deleted; {"ok":true}. */
int api_mail_address_delete(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/mail/confirm {"token"}: the link's address becomes the account's. */
int api_mail_confirm(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/mail/prefs {"move","digest","low_time","start_end","remind_days"}. */
int api_mail_prefs(net_conn *c, const char *arg, const char *body, size_t len);
/* GET /api/mail/unsubscribe/<token>: a page with the one-click button. */
int api_mail_unsubscribe_page(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/mail/unsubscribe/<token> (RFC 8058, any origin): notices off. */
int api_mail_unsubscribe(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/password/forgot {"login"}: a reset link to the address of the
 * account named, or of every account with that confirmed address. */
int api_password_forgot(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/password/reset {"token","password"}: the new password; every
 * session of the account ends, and its open WebSockets are closed. */
int api_password_reset(net_conn *c, const char *arg, const char *body, size_t len);

#endif
