/*
 * api.h - the HTTP routes other than static files: the archive
 * (/api/games/<id>, /api/games/<id>.pgn), profiles (/api/profile/<name>),
 * accounts (/api/register, /api/login, /api/logout), preferences
 * (/api/prefs), /healthz, /metrics,
 * and the rules core for the browser (/rules.wasm).
 *
 * Owns: the route handlers (main.c puts them in the route table it gives
 * net_start) and the password work of a request in flight (register and
 * login answer once it is done, off the loop).
 * May call: net.h (replies, cookies, the transport's counters), store.h,
 * accounts.h, metrics.h, proto.h, prefs.h, throttle.h (an address's key).
 *
 * Each handler is a net_handler: arg is the rest of the path after the
 * route's path, body the POST body; 0 when answered (now or later), else an
 * HTTP status for net to send.
 */
#ifndef API_H
#define API_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "net.h"
#include "store.h"

/* A request whose answer comes later hangs off its connection (c->data)
 * with this first, so that api_http_closed can tell it the connection went
 * (other route handlers, e.g. tournament_api.c, use it too). */
typedef struct api_pending {
    net_conn *c; /* NULL once the HTTP connection closed */
    bool pgn;    /* GET /api/games/<id>.pgn */
    bool idle;   /* an export with no read queued: waiting for api_http_sent (or
                  * for api_http_closed, which frees it) */
} api_pending;

/* Answer c with status and {"error":code,"reason":reason} (JSON): 0 (a
 * net_handler's "answered"). Every route's errors go through it. */
int api_reply_error(net_conn *c, unsigned status, const char *code, const char *reason);

struct store;
/* secure_cookie: the site is served over https (--public-url): the
 * session cookie gets the Secure attribute. */
void api_init(uv_loop_t *loop, struct store *db, bool secure_cookie);

/* GET /api/games/<id> (JSON) and /api/games/<id>.pgn: arg "<id>[.pgn]". */
int api_game(net_conn *c, const char *arg, const char *body, size_t len);
/* GET /api/archive/<username>?key=value&... (or [/key=value]...): a page
 * of the player's finished games (PROTOCOL.md, "Ratings"). */
int api_archive(net_conn *c, const char *arg, const char *body, size_t len);

/* GET /api/games/user/<username>?key=value&... (or [/key=value]...): every
 * finished game of the player matching the archive's filters, as PGN (or
 * NDJSON with Accept: application/x-ndjson or format=ndjson), newest
 * first, streamed API_EXPORT_PAGE games at a time. */
int api_export(net_conn *c, const char *arg, const char *body, size_t len);
/* A page is read and held whole (about 5 KB a game), and an export holds it
 * (less the socket's small send buffer) until its last part is handed to
 * lws or its reader is dropped
 * (NET_HTTP_STALL_SECONDS without taking a byte): at most API_EXPORTS_MAX
 * exports at once on the server, API_EXPORTS_PER_ADDRESS from one address
 * (IPv6: its /64), 429 too_many_exports beyond. */
enum {
    API_EXPORT_PAGE = 100,
    API_EXPORTS_MAX = 32,
    API_EXPORTS_PER_ADDRESS = 4,
    API_EXPORT_SNDBUF = 64 * 1024, /* an export's socket (net_http_send_buffer): about
                                    * 1 MB/s at 100 ms from its reader */
};

/* GET /api/leaderboard/<variant> (404 for an unknown variant). */
int api_leaderboard(net_conn *c, const char *arg, const char *body, size_t len);

/* GET /api/profile/<username>. */
int api_profile(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/register and /api/login {"username":..,"password":..}: set
 * the session cookie. */
int api_register(net_conn *c, const char *arg, const char *body, size_t len);
int api_login(net_conn *c, const char *arg, const char *body, size_t len);
/* POST /api/logout: end the session of the cookie, clear the cookie. */
int api_logout(net_conn *c, const char *arg, const char *body, size_t len);
/* GET /api/prefs: the session's account's preferences ({"prefs":{..}});
 * POST /api/prefs {..}: replace them (400 bad_prefs for a key or value
 * protocol/prefs.h does not know, 401 without a session). */
int api_prefs_get(net_conn *c, const char *arg, const char *body, size_t len);
int api_prefs_set(net_conn *c, const char *arg, const char *body, size_t len);
/* GET and POST /api/lessons: the account's progress in the lessons. */
int api_lessons_get(net_conn *c, const char *arg, const char *body, size_t len);
int api_lessons_set(net_conn *c, const char *arg, const char *body, size_t len);
/* GET /healthz (JSON: 200, or 503 while the store cannot write) and
 * /metrics (Prometheus text). */
/* GET /api/tables: the server's tables (proto_write_tables), written once. */
int api_tables(net_conn *c, const char *arg, const char *body, size_t len);
int api_healthz(net_conn *c, const char *arg, const char *body, size_t len);
/* Read build/rules.wasm (or the file given) once, at start; -1 if it cannot
 * be read (the route then answers 404). */
int api_wasm_load(const char *path);
/* GET /rules.wasm, as application/wasm. */
int api_wasm(net_conn *c, const char *arg, const char *body, size_t len);
int api_metrics(net_conn *c, const char *arg, const char *body, size_t len);

/* An answer that comes later (other route modules: api_mail.c): it hangs
 * off c so that api_http_closed can say c went. api_pending_done gives the
 * connection back, or NULL if it closed meanwhile, and frees p. */
typedef struct api_pending api_pending;
api_pending *api_pending_new(net_conn *c);
net_conn *api_pending_done(api_pending *p);

/* The account of the request's session cookie, asked of the store
 * (queued: the loop does not wait), then then(c, who, ctx) on the loop:
 * who is the account (id, username) or NULL without a valid session
 * (called at once when there is no cookie); c is NULL if the connection
 * closed meanwhile (ctx must still be freed). ctx is the caller's. 0, or
 * an error at once (then not called: answer 500). */
typedef void (*api_session_fn)(net_conn *c, const store_account *who, void *ctx);
int api_with_session(net_conn *c, api_session_fn then, void *ctx);
/* The usual next step of a route that needs an account, in its
 * api_session_fn: the answer to come, hung off c; or NULL when c went, has
 * no account (answered 401 account_required, why) or memory ran out
 * (answered 500). The caller frees its ctx on NULL. */
api_pending *api_account_pending(net_conn *c, const store_account *who, const char *why);

/* net_callbacks.http_closed: c closed while its answer was being computed. */
void api_http_closed(net_conn *c);
/* net_callbacks.http_sent: a page of an export is written: read the next. */
void api_http_sent(net_conn *c);

#endif
