/*
 * metrics.c - Prometheus text for GET /metrics.
 */
#include "metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "accounts.h"
#include "bot.h"
#include "store.h"

metrics metrics_now;

/* Append one formatted line. */
__attribute__((format(printf, 2, 3))) static void line(proto_out *o, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof b)
        n = sizeof b - 1;
    proto_out_append(o, b, (size_t)n);
}

static void gauge(proto_out *o, const char *name, const char *help, int64_t v)
{
    line(o, "# HELP chameleon_%s %s\n# TYPE chameleon_%s gauge\nchameleon_%s %" PRId64 "\n", name,
         help, name, name, v);
}

static void counter(proto_out *o, const char *name, const char *help, uint64_t v)
{
    line(o, "# HELP chameleon_%s %s\n# TYPE chameleon_%s counter\nchameleon_%s %" PRIu64 "\n", name,
         help, name, name, v);
}

void metrics_write(proto_out *o, const net_stats *net)
{
    const metrics *m = &metrics_now;
    gauge(o, "connections", "Open WebSocket connections.", net->connections);
    gauge(o, "rooms", "Game rooms in memory.", m->rooms);
    gauge(o, "games_in_progress", "Games not over.", m->games_in_progress);
    gauge(o, "seeks", "Open seeks.", m->seeks);
    counter(o, "moves_total", "Moves played and relayed.", m->moves);
    gauge(o, "store_memory_bytes", "Bytes SQLite holds, page caches included.",
          store_memory_bytes());
    counter(o, "messages_in_total", "WebSocket messages received.", net->messages_in);
    counter(o, "messages_out_total", "WebSocket messages queued to clients.", net->messages_out);
    counter(o, "http_requests_total", "HTTP requests served.", net->http_requests);
    bot_stats b = bot_get_stats();
    gauge(o, "bot_threads", "Bots' searches that may run at once.", b.threads);
    gauge(o, "bot_searches_running", "Bots' searches running now.", b.running);
    gauge(o, "bot_searches_queued", "Bots' searches waiting for a thread.", b.queued);
    counter(o, "bot_searches_total", "Bots' moves found.", b.searches);
    counter(o, "bot_overdue_total", "Bots' moves found by the loop's quick search (starved).",
            b.overdue);
    accounts_stats a = accounts_get_stats();
    gauge(o, "password_hashes_running", "argon2id hashes running (register, login).",
          a.hashes_running);
    gauge(o, "password_hashes_queued", "argon2id hashes waiting for a thread.", a.hashes_queued);
    counter(o, "password_busy_total", "Registers and logins refused with 503: hash queue full.",
            a.busy);
    counter(o, "login_throttled_total", "Logins refused with 429 (per account or address).",
            a.login_throttled);
    counter(o, "register_throttled_total", "Registrations refused with 429 (per address).",
            a.register_throttled);
    counter(o, "throttle_evicted_total", "Throttle entries pushed out of a full table.", a.evicted);
    line(o, "# HELP chameleon_errors_total Error messages sent, by code.\n"
            "# TYPE chameleon_errors_total counter\n");
    for (int i = 1; i < PROTO_NERRORS; i++)
        line(o, "chameleon_errors_total{code=\"%s\"} %" PRIu64 "\n", proto_err_code((proto_err)i),
             m->errors[i] + (i == PROTO_ETOO_LARGE ? net->too_large : 0));
}
