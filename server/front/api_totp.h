/*
 * api_totp.h - two-factor sign-in on the profile (PROTOCOL.md,
 * "Accounts"): GET /api/2fa (on or off, a secret pending, recovery codes
 * left), POST /api/2fa/setup (a new pending secret: its base32 and its
 * otpauth:// link), POST /api/2fa/enable {"code"} (the first code puts it
 * in force and gives ten recovery codes, shown once), POST /api/2fa/disable
 * {"code"} (a code of the app or a recovery code turns it off). The login
 * itself asks for the code (accounts_login).
 *
 * Owns: those four handlers and the throttle of the codes they are given.
 * May call: net.h, api.h (the session's account, answers that come
 * later), totp.h (secrets, codes, recovery codes), store.h (their rows),
 * proto.h (bodies and answers), throttle.h, libsodium, libuv.
 */
#ifndef API_TOTP_H
#define API_TOTP_H

#include <stddef.h>

#include "net.h"
#include "store.h"

/* The store the handlers use, liboath and the throttle of codes tried
 * (per account: 5 free, then a wait doubling from 1 s to 15 min; 429
 * too_many_attempts with Retry-After) set up: 0 or -1. */
int api_totp_init(store *s);
/* The throttle's table freed. */
void api_totp_shutdown(void);
int api_totp_state(net_conn *c, const char *arg, const char *body, size_t len);
int api_totp_setup(net_conn *c, const char *arg, const char *body, size_t len);
int api_totp_enable(net_conn *c, const char *arg, const char *body, size_t len);
int api_totp_disable(net_conn *c, const char *arg, const char *body, size_t len);

#endif
