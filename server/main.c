/*
 * main.c - build/chameleon: the options, the libuv loop, wiring, start and
 * clean stop.
 *
 * Owns: the settings and their table of options (options.h: flags, the
 * configuration file's keys and the usage, all read from it), the loop,
 * the order of start and stop, and the two tables net is given: the
 * callbacks of WebSocket connections (dispatch.h) and the HTTP route table
 * (api.h). May call every server module; nothing calls it.
 *
 *   chameleon [--config FILE] [--OPTION VALUE]...   (chameleon --help)
 *   chameleon backup FILE [--db chameleon.db]
 *   chameleon set-aside [--db chameleon.db] [--migrations DIR] [--clear ID]
 *
 * SIGTERM or SIGINT stop it gracefully: no new connection or message, the
 * replies to what was received are sent once their commits are durable,
 * every WebSocket is closed with 1001 "server restarting", the queue is
 * written, exit 0 (a second signal skips the wait).
 *
 * Exit status: 0 after SIGINT/SIGTERM, 2 on a bad flag or when it cannot
 * listen (port in use), 3 when another server holds the database, 4 when
 * the database is corrupt (PRAGMA quick_check), 1 on another start-up
 * failure.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>
#include <systemd/sd-daemon.h>
#include <uv.h>

#include "accounts.h"
#include "api.h"
#include "api_logins.h"
#include "api_mail.h"
#include "api_totp.h"
#include "bot.h"
#include "config.h"
#include "dispatch.h"
#include "ident.h"
#include "lobby.h"
#include "place.h"
#include "presence.h"
#include "challenge.h"
#include "log.h"
#include "mail.h"
#include "metrics.h"
#include "net.h"
#include "options.h"
#include "push.h"
#include "push_api.h"
#include "notify.h"
#include "quota.h"
#include "forward.h"
#include "relay.h"
#include "room.h"
#include "session.h"
#include "sql.h"
#include "store.h"
#include "admin.h"
#include "tournament.h"
#include "tournament_api.h"

#ifndef CHAMELEON_CONFIG
#define CHAMELEON_CONFIG "/etc/chameleon/chameleon.conf"
#endif
#ifndef CHAMELEON_DATADIR
#define CHAMELEON_DATADIR NULL /* only where the executable is (config_datadir) */
#endif

/* The synopsis and the commands; options_usage adds every option of the
 * table below. */
static const char usage_head[] =
    "usage: chameleon [--config FILE] [--OPTION VALUE]...\n"
    "       chameleon backup FILE [--db FILE]\n"
    "       chameleon set-aside [--db FILE] [--migrations DIR] [--clear ID]\n"
    "  backup FILE          copy the database (--db, default chameleon.db) to FILE\n"
    "                       while the server runs (SQLite's online backup, checked\n"
    "                       with integrity_check, written as FILE.partial then\n"
    "                       renamed); restore: stop the server, copy FILE to the\n"
    "                       --db path (remove its -wal and -shm), start it;\n"
    "                       on PostgreSQL use pg_dump and pg_restore instead\n"
    "  set-aside            list the games in progress set aside at a start (their\n"
    "                       restore failed: kept on disk, not restored again), one\n"
    "                       line each: id, game, why; --clear ID restores that\n"
    "                       game at the next start (the server stopped)\n"
    "  --config FILE        `key = value` lines, each key an option below without\n"
    "                       \"--\"; flags win over the file (default for an\n"
    "                       installed server: " CHAMELEON_CONFIG " if it exists)\n";

/* --clock-offset-file: the store's clock is the wall clock plus the number
 * of ms in the file, read at every call (tests move time forward without
 * waiting; a missing or unreadable file means no offset). The store may
 * call this from its writer thread: it touches nothing shared. */
static int64_t offset_clock(void *arg)
{
    const char *path = arg;
    long long off = 0;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%lld", &off) != 1)
            off = 0;
        fclose(f);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + (int64_t)off;
}

/* --public-url: its origin ("scheme://host[:port]", lower case, without a
 * default port or a path) into out; -1 if it is not an http(s) URL. */
static int public_origin(const char *url, char *out, size_t len, bool *https)
{
    size_t skip = strncasecmp(url, "https://", 8) == 0  ? 8
                  : strncasecmp(url, "http://", 7) == 0 ? 7
                                                        : 0;
    size_t host = strcspn(url + skip, "/?#");
    if (skip == 0 || host == 0 || skip + host >= len)
        return -1;
    *https = skip == 8;
    for (size_t i = 0; i < skip + host; i++)
        out[i] = (char)tolower((unsigned char)url[i]);
    out[skip + host] = '\0';
    const char *dflt = *https ? ":443" : ":80";
    size_t dl = strlen(dflt), ol = skip + host;
    if (ol > dl && strcmp(out + ol - dl, dflt) == 0)
        out[ol - dl] = '\0';
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The settings: their defaults here (or in main, those that depend on the
 * machine or the install), read through the table of options; one row per
 * option, its help as the usage shows it. */

static net_config cfg = {
    .host = "127.0.0.1",
    .port = 8080,
    .web_root = "web-client",
    .max_message = PROTO_MAX_MESSAGE,
    .max_per_address = NET_PER_ADDRESS_DEFAULT,
    .hello_timeout_ms = NET_HELLO_TIMEOUT_MS,
};
static const char *db = "chameleon.db", *node, *relay_name, *clock_file;
static const char *wasm_file = "build/rules.wasm", *migrations;
static long abandon_s, guest_abandon_s = ROOM_GUEST_ABANDON_MS / 1000;
static long first_move_s = ROOM_FIRST_MOVE_MS_DEFAULT / 1000;
static bool new_database;
static push_config pcfg;
static long bot_threads, bot_table_mb = BOT_TABLE_MB_DEFAULT;
static accounts_limits alim;
static long ident_msgs = DISPATCH_IDENT_MSGS, seeks_minute = LOBBY_SEEKS_PER_MINUTE;
static long flush_ms = LOBBY_FLUSH_MS;
static long max_guests = IDENT_MAX_GUESTS, idle_s = IDENT_IDLE_MS / 1000;
static quota_limits qlim;
static mail_config mcfg;
static long write_retries = STORE_RETRIES, lease_ttl_ms = STORE_LEASE_TTL_MS;
static struct {
    char origin[256];
    bool https;
} public_url;

static int check_log_level(const char *text, void *value, char *why, size_t whylen)
{
    log_level lv;
    if (!log_parse_level(text, &lv)) {
        snprintf(why, whylen, "wants debug, info, warn or error, not '%s'", text);
        return -1;
    }
    log_set_level(lv);
    return 0;
}

static int check_public_url(const char *text, void *value, char *why, size_t whylen)
{
    if (public_origin(text, public_url.origin, sizeof public_url.origin, &public_url.https) < 0) {
        snprintf(why, whylen, "wants http://HOST[:PORT] or https://...");
        return -1;
    }
    cfg.public_origin = public_url.origin;
    return 0;
}

static int check_trust_proxy(const char *text, void *value, char *why, size_t whylen)
{
    if (net_trust_proxy(&cfg, text) < 0) {
        snprintf(why, whylen, "wants an IPv4 or IPv6 address");
        return -1;
    }
    return 0;
}

static int check_relay_channel(const char *text, void *value, char *why, size_t whylen)
{
    /* The channel chameleon_node_NAME is a name too. */
    if (!relay_valid_name(text) || strlen(text) > RELAY_NAME_MAX - 15) {
        snprintf(why, whylen, "wants a node name of 1..48 letters, digits and _");
        return -1;
    }
    relay_name = text;
    return 0;
}

#define TEXT(name, arg, var, help)                                                                 \
    {                                                                                              \
        name, arg, OPTION_TEXT, 0, 0, &(var), NULL, help                                           \
    }
#define NUM(kind, name, lo, hi, var, help)                                                         \
    {                                                                                              \
        name, "N", kind, lo, hi, &(var), NULL, help                                                \
    }
#define FLAG(name, var, help)                                                                      \
    {                                                                                              \
        name, "0|1", OPTION_BOOL, 0, 0, &(var), NULL, help                                         \
    }
#define CHECK(name, arg, fn, help)                                                                 \
    {                                                                                              \
        name, arg, OPTION_CHECK, 0, 0, NULL, fn, help                                              \
    }
static const option options[] = {
    TEXT("host", "ADDR", cfg.host, "address to listen on (default 127.0.0.1)"),
    NUM(OPTION_INT, "port", 0, 65535, cfg.port, "TCP port, 0 for any free one (default 8080)"),
    TEXT("db", "FILE|URL", db,
         "the database: an SQLite file (default chameleon.db), or a PostgreSQL URL "
         "(postgresql://user@host:port/name; the password from ~/.pgpass or PGPASSWORD, not "
         "the URL)"),
    TEXT("node", "NAME", node,
         "one of several nodes sharing a PostgreSQL database (not SQLite): games in progress "
         "are held by leases, none is loaded at start (docs/SCALING.md, \"Leases\": the rooms "
         "of dead nodes taken over); NAME unique among nodes"),
    NUM(OPTION_LONG, "lease-ttl-ms", 300, 3600000, lease_ttl_ms,
        "TESTS ONLY (with --node): a lease's life (default 5000)"),
    TEXT("web-root", "DIR", cfg.web_root,
         "static files of the web client (default web-client, or "
         "PREFIX/share/chameleon/web-client when installed)"),
    TEXT("wasm", "FILE", wasm_file,
         "the rules core for the browser (default build/rules.wasm, or "
         "PREFIX/share/chameleon/rules.wasm when installed)"),
    TEXT("migrations", "DIR", migrations,
         "the database's migrations (default $CHAMELEON_MIGRATIONS, else migrations, or "
         "PREFIX/share/chameleon/migrations)"),
    CHECK("trust-proxy", "ADDR", check_trust_proxy,
          "a connection from ADDR (the reverse proxy) counts as coming from the last address "
          "of its X-Forwarded-For (default: none; the header is ignored)"),
    NUM(OPTION_LONG, "abandon-seconds", 0, 86400 * 30, abandon_s,
        "a seated player away this long abandons (default 0: never)"),
    NUM(OPTION_LONG, "guest-abandon-seconds", 0, 86400 * 365, guest_abandon_s,
        "a guest away from a live game this long abandons it, clock or none (default "
        "259200, 3 days; 0: never)"),
    NUM(OPTION_LONG, "first-move-seconds", 0, 86400, first_move_s,
        "live games: each seat's time for its first move (its clock waits), else the game "
        "is aborted (default 30; 0: no limit)"),
    NUM(OPTION_LONG, "bot-threads", 1, BOT_THREADS_MAX, bot_threads,
        "bots' searches running at once (default: the number of cores); more wait in a "
        "queue"),
    NUM(OPTION_LONG, "bot-table-mb", 1, 4096, bot_table_mb,
        "each search's table in MiB (default 16)"),
    TEXT("clock-offset-file", "FILE", clock_file,
         "TESTS ONLY: the store's clock (correspondence deadlines, vacation) runs ahead of "
         "the wall clock by the milliseconds written in FILE (re-read each time)"),
    NUM(OPTION_INT, "password-queue", 1, 100000, alim.hashes_queued,
        "password hashes (argon2id) waiting for a thread, beyond which register and login "
        "answer 503 (default 64)"),
    NUM(OPTION_UINT, "login-failures-per-address", 1, 1000000000, alim.login_free_address,
        "logins from one address (IPv6: /64) let through before delays (default 20; a "
        "success gives its own back)"),
    NUM(OPTION_UINT, "register-per-address", 1, 1000000000, alim.register_per_address,
        "registrations from one address before delays (default 5; an hour without one "
        "forgets them)"),
    NUM(OPTION_LONG, "messages-per-identity", 1, 1000000000, ident_msgs,
        "messages one player may send over all its connections per 20 s, pings aside "
        "(default 100)"),
    NUM(OPTION_LONG, "seeks-per-minute", 1, 1000000000, seeks_minute,
        "seeks one player may create a minute (default 20)"),
    NUM(OPTION_LONG, "lobby-flush-ms", 10, 5000, flush_ms,
        "lobby changes go to its watchers in one message this often (default 200)"),
    NUM(OPTION_LONG, "max-guests", 1, 100000000, max_guests,
        "guest identities held at once (default 100000); a new one replaces the oldest "
        "unused, else hello is refused"),
    NUM(OPTION_LONG, "identity-idle-seconds", 1, 86400 * 365, idle_s,
        "an identity unused (no connection, no seat) this long is forgotten (default 86400)"),
    NUM(OPTION_INT, "live-games-per-identity", 1, 1000000, qlim.live_per_ident,
        "live games in progress, open seeks included (default 20)"),
    NUM(OPTION_INT, "corr-games-per-identity", 1, 1000000, qlim.corr_per_ident,
        "correspondence games, the same (default 100)"),
    NUM(OPTION_INT, "live-games-per-address", 1, 1000000, qlim.live_per_addr,
        "live games per address, IPv6 by /64 (default 80)"),
    NUM(OPTION_INT, "corr-games-per-address", 1, 1000000, qlim.corr_per_addr,
        "correspondence games per address (default 400)"),
    NUM(OPTION_INT, "watched-rooms-per-identity", 1, 1000000, qlim.watched_per_ident,
        "rooms watched without a seat, every connection of the identity together (default "
        "50)"),
    NUM(OPTION_INT, "watched-rooms-per-address", 1, 1000000, qlim.watched_per_addr,
        "the same per address (default 500)"),
    NUM(OPTION_LONG, "write-retries", 0, 20, write_retries,
        "a failed database write is tried again N times, 50 ms apart then doubling "
        "(default 5: 1.55 s) before its moves fail"),
    CHECK("public-url", "URL", check_public_url,
          "the site's address as browsers see it (https://host:port), the Origin upgrades "
          "and POSTs must carry (default: the Host header's); https:// marks the cookie "
          "Secure"),
    NUM(OPTION_INT, "max-connections-per-address", 1, 1000000, cfg.max_per_address,
        "connections at once from one address (IPv6: its /64); more are closed at once "
        "(default 256)"),
    NUM(OPTION_INT, "max-connections", 1, 1 << 20, cfg.max_ws,
        "WebSocket connections at once (default and maximum: the descriptor limit less a "
        "reserve for HTTP)"),
    NUM(OPTION_UINT, "hello-timeout-ms", 1, 86400000, cfg.hello_timeout_ms,
        "TESTS ONLY: a WebSocket that sends no hello this long is closed (default 30000)"),
    NUM(OPTION_UINT, "http-stall-seconds", 1, 3600, cfg.http_stall_s,
        "an HTTP reply (an export) none of whose bytes the reader takes this long is "
        "dropped (default 60)"),
    TEXT("vapid-subject", "URL", pcfg.subject,
         "turns Web Push on: the contact (mailto:you@example.org or https://...) the push "
         "services see in the VAPID token (RFC 8292); the key pair is made at the first "
         "start and kept in the database (default: push off)"),
    FLAG("push-allow-http", pcfg.allow_http,
         "TESTS ONLY: accept and send to http:// push endpoints (real push services are "
         "https)"),
    FLAG("push-allow-loopback", pcfg.allow_loopback,
         "TESTS ONLY: push endpoints on 127/8, ::1 or localhost too (every other private, "
         "link-local or reserved address stays refused)"),
    FLAG("new-database", new_database,
         "1: create an empty database even where DB.site says this site had one (it "
         "refuses to start, exit 5, when the database file is missing: restore the backup "
         "instead)"),
    TEXT("smtp-url", "URL", mcfg.smtp_url,
         "the mail relay, smtp://HOST:PORT (STARTTLS when offered) or smtps://HOST:PORT; "
         "without it mail is off (no address confirmation, password reset or notices by "
         "e-mail)"),
    TEXT("smtp-user", "NAME", mcfg.user, "log in to the relay as NAME (default: no AUTH)"),
    TEXT("smtp-password-file", "FILE", mcfg.password_file,
         "the relay's password: the file's first line"),
    TEXT("mail-from", "ADDRESS", mcfg.from,
         "the sender of every mail (needed with --smtp-url, as is --public-url: the links "
         "in mail)"),
    CHECK("relay-channel", "NAME", check_relay_channel,
          "with a PostgreSQL --db: open the relay between nodes (LISTEN/NOTIFY on a session "
          "of its own) and listen on channel chameleon_node_NAME (NAME: letters, digits, _); "
          "nothing uses it yet (default: off)"),
    CHECK("log-level", "L", check_log_level,
          "debug, info, warn or error: lines below L are dropped (default info); one line "
          "per event on stderr: level=info msg=\"listening\" addr=127.0.0.1 port=8080"),
};

/* What net reports about WebSocket connections, and who answers HTTP. */
static const net_callbacks callbacks = {
    .open = dispatch_open,
    .message = dispatch_message,
    .close = dispatch_close,
    .http_closed = api_http_closed,
    .http_sent = api_http_sent,
};

/* New rows go at the end; the ones above stay as they are. */
// clang-format off
static const net_route routes[] = {
    {NET_GET, "/healthz", false, api_healthz},     {NET_GET, "/metrics", false, api_metrics},
    {NET_GET, "/api/tables", false, api_tables},
    /* Before /api/games/: the first route that matches answers. */
    {NET_GET, "/api/games/user/", true, api_export},
    {NET_GET, "/api/games/", true, api_game},
    {NET_GET, "/api/profile/", true, api_profile}, {NET_POST, "/api/register", false, api_register},
    {NET_POST, "/api/login", false, api_login},    {NET_POST, "/api/logout", false, api_logout},
    {NET_GET, "/rules.wasm", false, api_wasm},
    /* Ratings (PROTOCOL.md, "Ratings"). */
    {NET_GET, "/api/leaderboard/", true, api_leaderboard},
    {NET_GET, "/api/archive/", true, api_archive},
    /* Web Push (PROTOCOL.md, "Web Push and in-tab notices"). */
    {NET_GET, "/api/push/key", false, push_api_key},
    {NET_POST, "/api/push/subscribe", false, push_api_subscribe},
    {NET_POST, "/api/push/unsubscribe", false, push_api_unsubscribe},
    /* E-mail (PROTOCOL.md, "E-mail"). */
    {NET_GET, "/api/mail", false, api_mail_settings},
    {NET_POST, "/api/mail/address", false, api_mail_address},
    {NET_POST, "/api/mail/confirm", false, api_mail_confirm},
    {NET_POST, "/api/mail/prefs", false, api_mail_prefs},
    {NET_GET, "/api/mail/unsubscribe/", true, api_mail_unsubscribe_page},
    {NET_POST | NET_ANY_ORIGIN, "/api/mail/unsubscribe/", true, api_mail_unsubscribe},
    {NET_POST, "/api/password/forgot", false, api_password_forgot},
    {NET_POST, "/api/password/reset", false, api_password_reset},
    /* Preferences (PROTOCOL.md, "Preferences"). */
    {NET_GET, "/api/prefs", false, api_prefs_get}, {NET_POST, "/api/prefs", false, api_prefs_set},
    {NET_GET, "/api/lessons", false, api_lessons_get},
    {NET_POST, "/api/lessons", false, api_lessons_set},
    /* Tournaments (PROTOCOL.md, "Tournaments"). */
    {NET_GET, "/api/tournaments", true, tournament_api_get},
    {NET_POST, "/api/tournaments", true, tournament_api_post},
    /* An account's logins (PROTOCOL.md, "Accounts"). */
    {NET_GET, "/api/sessions", false, api_logins_list},
    {NET_POST, "/api/sessions/end", false, api_logins_end},
    {NET_GET, "/api/2fa", false, api_totp_state},
    {NET_POST, "/api/2fa/setup", false, api_totp_setup},
    {NET_POST, "/api/2fa/enable", false, api_totp_enable},
    {NET_POST, "/api/2fa/disable", false, api_totp_disable},
    {NET_POST, "/api/mail/address/delete", false, api_mail_address_delete},
};
// clang-format on

static uv_signal_t sigint, sigterm;
static uv_timer_t watchdog;
/* The command line with the configuration file's pairs first
 * (config_args): held here until exit, so an early return leaks nothing. */
static char **args;
static int nargs;

static uv_timer_t drain_timer;
static store *the_store;

/* The relay between nodes (--relay-channel): nothing uses its messages
 * yet; they are logged at debug level. */
static void relay_message(void *arg, const char *channel, const char *payload, size_t len,
                          int sender_pid)
{
    (void)arg;
    (void)payload;
    log_kv(LOG_DEBUG, "relay message", "channel=%s bytes=%zu sender_pid=%d", channel, len,
           sender_pid);
}

static uint64_t drain_start_ms;
static bool draining, closes_sent;

enum {
    DRAIN_TICK_MS = 20,
    DRAIN_COMMITS_MS = 5000, /* at most this long for the queued commits */
    DRAIN_CLOSES_MS = 10000, /* and for the clients to answer 1001 */
};

/* The graceful stop, step by step: once the commits queued before the
 * signal are durable (their replies sent), 1001 to every client; once
 * they have all answered (or the time is up), the loop stops and main
 * writes the rest and frees everything. */
static void drain_tick(uv_timer_t *t)
{
    store_stats ss;
    store_get_stats(the_store, &ss);
    uint64_t spent = uv_now(t->loop) - drain_start_ms;
    if (!closes_sent && ((ss.queued == 0 && ss.inflight == 0) || spent >= DRAIN_COMMITS_MS)) {
        closes_sent = true;
        log_kv(LOG_INFO, "closing connections", "connections=%lld queued=%llu",
               (long long)net_get_stats()->connections,
               (unsigned long long)(ss.queued + ss.inflight));
        net_close_all("server restarting");
    }
    if (closes_sent && (net_get_stats()->connections == 0 || spent >= DRAIN_CLOSES_MS)) {
        uv_timer_stop(t);
        uv_stop(t->loop);
    }
}

static void on_signal(uv_signal_t *h, int signum)
{
    if (draining) {
        log_kv(LOG_WARN, "stopping now", "signal=%d", signum);
        uv_stop(h->loop);
        return;
    }
    draining = true;
    log_kv(LOG_INFO, "stopping", "signal=%d", signum);
    sd_notify(0, "STOPPING=1");
    store_stop_soon(the_store); /* a database that is away: given up after a bounded wait */
    net_drain();
    drain_start_ms = uv_now(h->loop);
    uv_timer_start(&drain_timer, drain_tick, 0, DRAIN_TICK_MS);
}

/* net's lines and libwebsockets' through the log. */
static void net_log(int level, const char *text)
{
    log_msg(level == NET_LOG_ERROR  ? LOG_ERROR
            : level == NET_LOG_WARN ? LOG_WARN
                                    : LOG_DEBUG,
            "%s", text);
}

/* systemd's watchdog: told from the loop, so a stuck loop is restarted. */
static void on_watchdog(uv_timer_t *t)
{
    sd_notify(0, "WATCHDOG=1");
}

/* Under systemd (Type=notify): ready once listening, and the watchdog at
 * half its period. Without systemd ($NOTIFY_SOCKET unset) both are no-ops. */
static void notify_ready(uv_loop_t *loop)
{
    uint64_t usec = 0;
    uv_timer_init(loop, &watchdog);
    if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2000) {
        uv_timer_start(&watchdog, on_watchdog, usec / 2000, usec / 2000);
        uv_unref((uv_handle_t *)&watchdog);
    }
    sd_notify(0, "READY=1");
}

/* 10k connections need as many descriptors: raise the soft limit. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    char datadir_buf[4096], web_buf[4200], wasm_buf[4200], mig_buf[4200], why[256];
    const char *datadir = config_datadir(CHAMELEON_DATADIR, datadir_buf, sizeof datadir_buf);
    if (config_args(argc, argv, datadir ? CHAMELEON_CONFIG : NULL, &args, &nargs, why, sizeof why) <
        0) {
        fprintf(stderr, "chameleon: %s\n", why);
        return 2;
    }
    argc = nargs;
    argv = args;
    migrations = getenv("CHAMELEON_MIGRATIONS");
    cfg.callbacks = &callbacks;
    cfg.routes = routes;
    cfg.nroutes = (int)(sizeof routes / sizeof routes[0]);
    cfg.log = net_log;
    int admin = admin_main(argc, argv, datadir);
    if (admin != ADMIN_NOT_ONE)
        return admin;
    bot_threads = (long)uv_available_parallelism();
    if (bot_threads > BOT_THREADS_MAX)
        bot_threads = BOT_THREADS_MAX;
    if (datadir != NULL) {
        snprintf(web_buf, sizeof web_buf, "%s/web-client", datadir);
        snprintf(wasm_buf, sizeof wasm_buf, "%s/rules.wasm", datadir);
        snprintf(mig_buf, sizeof mig_buf, "%s/migrations", datadir);
        cfg.web_root = web_buf;
        wasm_file = wasm_buf;
        if (migrations == NULL)
            migrations = mig_buf;
    }
    alim.hashes_running = (int)uv_available_parallelism();
    int parsed = options_parse(options, sizeof options / sizeof options[0], argc, argv, usage_head);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    bool https = public_url.https;

    if (mcfg.smtp_url != NULL && (mcfg.from == NULL || cfg.public_origin == NULL)) {
        log_error("--smtp-url needs --mail-from ADDRESS and --public-url URL (the links in mail)");
        return 2;
    }
    if (relay_name != NULL && sql_engine_of(db) != SQL_POSTGRES) {
        log_error("--relay-channel needs a PostgreSQL --db (postgresql://...)");
        return 2;
    }
    raise_fd_limit();
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) {
        log_error("cannot start the event loop");
        return 1;
    }
    store *st = NULL;
    store_options sopt = {
        .migrations_dir = migrations,
        .retries = write_retries > 0 ? (unsigned)write_retries : STORE_NO_RETRY,
        .node = node,
        .lease_ttl_ms = (unsigned)lease_ttl_ms,
        .new_database = new_database,
    };
    if (clock_file != NULL) {
        sopt.now_ms = offset_clock;
        sopt.now_arg = (void *)clock_file;
        log_warn("TEST CLOCK: offset read from %s", clock_file);
    }
    int serr = store_open(&st, &loop, db, &sopt, why, sizeof why);
    if (serr < 0) {
        log_error("cannot open %s: %s", db, why);
        uv_loop_close(&loop);
        return serr == STORE_ELOCKED      ? 3
               : serr == STORE_ECORRUPT   ? 4
               : serr == STORE_EMISSING   ? 5
               : serr == STORE_EREAD_ONLY ? 6
               : serr == STORE_EBAD_ARG   ? 2
                                          : 1;
    }
    if (sodium_init() < 0) {
        log_error("libsodium failed to start");
        return 1;
    }
    if (accounts_init(&alim) < 0) {
        log_error("out of memory for the login throttle tables");
        return 1;
    }
    metrics_now.started_ms = uv_now(&loop);
    mcfg.public_url = cfg.public_origin;
    if (mail_init(&loop, st, &mcfg, why, sizeof why) < 0) {
        log_error("%s", why);
        return 2;
    }
    api_logins_init(st);
    if (api_totp_init(st) < 0) {
        log_error("two-factor sign-in: liboath could not start");
        return 1;
    }
    if (api_mail_init(st) < 0) {
        log_error("out of memory for the mail throttle tables");
        return 1;
    }
    if (bot_init(&loop, (int)bot_threads, (size_t)bot_table_mb << 20) < 0) {
        log_error("cannot start %ld bot threads with %ld MiB tables", bot_threads, bot_table_mb);
        return 1;
    }
    session_init(&loop);
    ident_init(&loop, (size_t)max_guests, (uint64_t)idle_s * 1000);
    quota_init(&qlim);
    room_init(&loop, st, abandon_s * 1000);
    room_set_guest_abandon_ms((int64_t)guest_abandon_s * 1000);
    room_set_first_move_ms(first_move_s * 1000);
    dispatch_init(&loop, st);
    dispatch_set_ident_msgs((int)ident_msgs);
    lobby_init(&loop, (unsigned)flush_ms, (int)seeks_minute);
    presence_init(&loop, 0);
    lobby_on_watch(presence_watch, presence_unwatch);
    challenge_init(&loop, st);
    api_init(&loop, st, https);
    push_api_init(st);
    if (push_init(&loop, st, &pcfg, why, sizeof why) < 0) {
        log_error("%s", why);
        return 1;
    }
    if (!push_enabled())
        log_info("Web Push is off (no --vapid-subject)");
    if (pcfg.allow_http)
        log_warn("TESTS ONLY: Web Push to http:// endpoints (--push-allow-http)");
    if (pcfg.allow_loopback)
        log_warn("TESTS ONLY: Web Push to loopback endpoints (--push-allow-loopback)");
    if (api_wasm_load(wasm_file) < 0)
        log_warn("cannot read %s: the client's own rules (hints, analysis) are off", wasm_file);
    int restored = room_restore_all();
    if (restored < 0) {
        log_error("cannot restore games: %s", store_err_text(restored));
        return 1;
    }
    if (restored > 0)
        log_kv(LOG_INFO, "games in progress restored", "games=%d", restored);
    if (node != NULL) {
        /* Requests for rooms and the lobby other nodes hold go there. */
        const forward_hooks fh = {.run = dispatch_remote,
                                  .gone = dispatch_session_end,
                                  .came = dispatch_came,
                                  .lobby_moved = lobby_moved,
                                  .turns_changed = dispatch_turns_changed,
                                  .vacation_changed = dispatch_vacation_changed,
                                  .logins_ended = dispatch_logins_ended_elsewhere,
                                  .presence = presence_from_node,
                                  .place = place_message};
        if (forward_start(&loop, st, db, node, (unsigned)lease_ttl_ms, &fh, why, sizeof why) < 0) {
            log_error("--node %s: %s", node, why);
            return 1;
        }
        metrics_set_relay(forward_relay());
        presence_share_with(forward_presence);
        /* Lobby games on the node of the player who starts them. */
        place_init(&loop);
        lobby_set_placer(place_start);
        ident_name_guests_by_key();
    }
    if (node != NULL && room_takeover_start((unsigned)lease_ttl_ms, forward_taken) < 0) {
        log_error("cannot start the take-over timer");
        return 1;
    }
    notify_init(&loop, st);
    if ((serr = tournament_init(&loop, st)) < 0) {
        log_error("cannot restore tournaments: %s", store_err_text(serr));
        return 1;
    }
    tournament_api_init(st);
    relay *rl = NULL;
    if (relay_name != NULL) {
        char chan[RELAY_NAME_MAX + 16];
        snprintf(chan, sizeof chan, "chameleon_node_%s", relay_name);
        int rerr = 0;
        rl = relay_open(&loop, db, relay_name, relay_message, NULL, why, sizeof why);
        if (rl == NULL || (rerr = relay_listen(rl, chan)) < 0) {
            log_error("--relay-channel %s: %s", relay_name, rl ? relay_err_text(rerr) : why);
            return 1;
        }
        metrics_set_relay(rl);
        log_kv(LOG_INFO, "relay open", "node=%s channel=%s", relay_name, chan);
    }

    int port = net_start(&loop, &cfg, why, sizeof why);
    if (port < 0) {
        log_error("%s", why);
        /* lws cannot be torn down after a failed listen: leave at once. */
        fflush(stderr);
        _exit(2);
    }
    uv_signal_init(&loop, &sigint);
    uv_signal_init(&loop, &sigterm);
    uv_signal_start(&sigint, on_signal, SIGINT);
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_timer_init(&loop, &drain_timer);
    the_store = st;

    if (cfg.max_ws > 0 && cfg.max_ws > net_get_stats()->max_ws)
        log_warn("--max-connections %d is over what the descriptor limit allows: %lld", cfg.max_ws,
                 (long long)net_get_stats()->max_ws);
    if (cfg.hello_timeout_ms != NET_HELLO_TIMEOUT_MS)
        log_warn("TEST HELLO TIMEOUT: %u ms", cfg.hello_timeout_ms);
    log_kv(LOG_INFO, "listening", "addr=%s port=%d", cfg.host, port);
    /* The line tests and scripts wait for (stdout). */
    printf("chameleon listening on http://%s:%d/\n", cfg.host, port);
    fflush(stdout);
    notify_ready(&loop);

    store_serving(st);
    uv_run(&loop, UV_RUN_DEFAULT);

    uv_close((uv_handle_t *)&sigint, NULL);
    uv_close((uv_handle_t *)&sigterm, NULL);
    uv_close((uv_handle_t *)&drain_timer, NULL);
    log_info("writing what is queued");
    uv_close((uv_handle_t *)&watchdog, NULL);
    room_stop_clocks();
    notify_stop();
    tournament_stop();
    ident_stop();
    metrics_set_relay(NULL);
    relay_close(rl); /* before net_stop, whose uv_run waits for every handle */
    place_stop();
    forward_stop();
    net_stop(&loop); /* every session closes (dispatch_close) */
    push_stop();     /* before the store: its last answers delete subscriptions */
    mail_stop();     /* a send under way ends first; the outbox waits on disk */
    api_mail_stop();
    store_close(st); /* writes what is queued; its callbacks still see rooms */
    lobby_shutdown();
    presence_shutdown();
    challenge_shutdown();
    room_shutdown();
    tournament_shutdown();
    bot_shutdown(); /* every search was cancelled by room_stop_clocks */
    session_shutdown();
    uv_run(&loop, UV_RUN_DEFAULT); /* rooms are freed, their seats let go */
    ident_shutdown();
    quota_shutdown();
    accounts_shutdown();
    api_mail_shutdown();
    api_totp_shutdown();
    int rc = uv_loop_close(&loop);
    log_info("stopped");
    if (rc != 0)
        log_error("loop not closed cleanly: %s", uv_strerror(rc));
    config_free(args, nargs);
    return 0;
}
