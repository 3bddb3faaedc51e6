/*
 * metrics.c - Prometheus text for GET /metrics.
 */
#include "metrics.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>

#include "accounts.h"
#include "bot.h"
#include "mail.h"
#include "store.h"

static const relay *shown_relay;

void metrics_set_relay(const relay *r)
{
    shown_relay = r;
}

/* The relay's counters (relay.h), when there is one. */
static void write_relay(proto_out *o, const relay *r);
static void write_forward(proto_out *o, const metrics *m);

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

/* A counter with two values of one label. */
static void labelled(proto_out *o, const char *name, const char *help, const char *label,
                     const char *a, uint64_t va, const char *b, uint64_t vb)
{
    line(o, "# HELP chameleon_%s %s\n# TYPE chameleon_%s counter\n", name, help, name);
    line(o, "chameleon_%s{%s=\"%s\"} %" PRIu64 "\n", name, label, a, va);
    line(o, "chameleon_%s{%s=\"%s\"} %" PRIu64 "\n", name, label, b, vb);
}

void metrics_write(proto_out *o, const net_stats *net, const store_stats *st)
{
    const metrics *m = &metrics_now;
    gauge(o, "connections", "Open WebSocket connections.", net->connections);
    gauge(o, "rooms", "Game rooms in memory.", m->rooms);
    gauge(o, "games_in_progress", "Games not over.", m->games_in_progress);
    gauge(o, "games_set_aside",
          "Games in progress set aside at start (they did not restore): chameleon set-aside.",
          m->games_set_aside);
    line(o, "# HELP chameleon_games Games not over, by game id.\n"
            "# TYPE chameleon_games gauge\n");
    for (int i = 0; rules_variants[i] != NULL && i < METRICS_VARIANTS_MAX; i++)
        line(o, "chameleon_games{game=\"%s\"} %" PRId64 "\n", rules_variants[i]->id,
             m->games_by_variant[i]);
    gauge(o, "seeks", "Open seeks.", m->seeks);
    gauge(o, "tournaments_open", "Tournaments open for entry.", m->tournaments_open);
    gauge(o, "tournaments_running", "Tournaments whose games are being played.",
          m->tournaments_running);
    counter(o, "tournament_games_total", "Games started by tournaments.", m->tournament_games);
    counter(o, "moves_total", "Moves played and relayed.", m->moves);
    counter(o, "takebacks_total", "Takebacks agreed and stored.", m->takebacks);
    gauge(o, "store_memory_bytes", "Bytes SQLite holds, page caches included.",
          store_memory_bytes());
    int64_t pages_in_use, pages_touched;
    store_page_region(&pages_in_use, &pages_touched);
    gauge(o, "store_page_region_bytes",
          "Bytes of SQLite's page region ever used (resident; in use or free for the next page).",
          pages_touched);
    /* glibc's own count (all arenas): what the program holds against what
     * malloc keeps from the system, to tell growth from retention. */
    struct mallinfo2 mi = mallinfo2();
    gauge(o, "heap_bytes", "Bytes held through malloc (SQLite's included).",
          (int64_t)(mi.uordblks + mi.hblkhd));
    gauge(o, "heap_system_bytes", "Bytes malloc has taken from the system (held and free).",
          (int64_t)(mi.arena + mi.hblkhd));
    counter(o, "messages_in_total", "WebSocket messages received.", net->messages_in);
    counter(o, "messages_out_total", "WebSocket messages queued to clients.", net->messages_out);
    counter(o, "http_requests_total", "HTTP requests served.", net->http_requests);
    gauge(o, "sockets", "Accepted connections open (HTTP and WebSocket).", net->sockets);
    gauge(o, "sockets_max", "Accepted connections allowed (descriptor limit less a reserve).",
          net->max_sockets);
    gauge(o, "connections_max", "WebSocket connections allowed.", net->max_ws);
    counter(o, "connections_refused_address_total",
            "Connections closed at once: their address had its cap.", net->refused_address);
    counter(o, "connections_refused_full_total",
            "Connections closed at once: every connection slot in use.", net->refused_full);
    counter(o, "connections_refused_ws_total", "WebSocket upgrades answered 503: at the cap.",
            net->refused_ws);
    counter(o, "bad_origin_total", "Upgrades and POSTs answered 403: a foreign Origin.",
            net->bad_origin);
    counter(o, "http_length_required_total", "POSTs answered 411: no Content-Length.",
            net->no_length);
    counter(o, "http_bad_content_type_total", "POSTs answered 415: not JSON.", net->bad_type);
    counter(o, "http_uri_too_long_total", "Requests answered 414.", net->uri_too_long);
    counter(o, "http_headers_too_large_total", "Requests answered 431.", net->headers_too_large);
    counter(o, "http_outside_root_total", "Files answered 404: resolved outside the web root.",
            net->outside_root);
    counter(o, "http_not_modified_total", "Files answered 304: If-None-Match named the ETag.",
            net->not_modified);
    counter(o, "hello_timeouts_total", "WebSockets closed (1008) for sending no hello in time.",
            net->hello_timeouts);
    counter(o, "unmasked_frames_total", "WebSockets closed (1002) for an unmasked frame.",
            net->unmasked);
    bot_stats b = bot_get_stats();
    gauge(o, "bot_threads", "Bots' searches that may run at once.", b.threads);
    gauge(o, "bot_searches_running", "Bots' searches running now.", b.running);
    gauge(o, "bot_searches_queued", "Bots' searches waiting for a thread.", b.queued);
    counter(o, "bot_searches_total", "Bots' moves found.", b.searches);
    counter(o, "bot_failed_total",
            "Bots' searches that failed or whose move was refused: a legal move played instead.",
            b.failed);
    counter(o, "push_sent_total", "Web Push messages accepted by a push service.", m->push_sent);
    counter(o, "push_failed_total",
            "Web Push messages given up (refused, tries spent, queue full).", m->push_failed);
    counter(o, "push_refused_address_total",
            "Web Push endpoints refused: not a public address (subscribed, or resolved at send).",
            m->push_refused_address);
    counter(o, "push_dropped_total",
            "Web Push messages not queued: the queue, or the account's share of it, was full.",
            m->push_dropped);
    counter(o, "push_removed_total",
            "Web Push subscriptions removed: the service answered 404/410.", m->push_removed);
    gauge(o, "exports_running", "Game exports whose reply is not yet written whole.",
          m->exports_running);
    counter(o, "exports_refused_total", "Game exports refused with 429 (server or address full).",
            m->exports_refused);
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
    mail_stats ms = mail_get_stats();
    gauge(o, "mail_on", "1 when a mail relay is set (--smtp-url).", ms.on);
    counter(o, "mail_queued_total", "Mails written to the outbox.", ms.queued);
    counter(o, "mail_sent_total", "Mails the relay accepted.", ms.sent);
    counter(o, "mail_retries_total", "Tries of a mail that failed and will be made again.",
            ms.retries);
    counter(o, "mail_failed_total", "Mails given up (refused for good, or every try failed).",
            ms.failed);
    gauge(o, "mail_outbox", "Mails waiting in the outbox.", ms.depth);
    labelled(o, "messages_throttled_total", "Messages refused with rate_limited, by limit.",
             "scope", "connection", m->throttled_conn, "identity", m->throttled_ident);
    counter(o, "excess_closes_total",
            "Connections closed with 1008 for going on past rate_limited.", m->excess_closes);
    labelled(o, "chat_refused_total", "Chat lines refused, by reason.", "reason", "rate",
             m->chat_rate, "not_joined", m->chat_not_joined);
    labelled(o, "seeks_refused_total", "seek_create refused, by limit.", "limit", "open",
             m->seeks_refused_open, "rate", m->seeks_refused_rate);
    counter(o, "lobby_changes_total", "Public seeks added, updated or removed.", m->lobby_changes);
    counter(o, "lobby_flushes_total", "Batches of lobby changes sent to the lobby's watchers.",
            m->lobby_flushes);
    gauge(o, "online", "Players online (persons with a connection).", m->online);
    gauge(o, "challenges", "Open challenges to a named player.", m->challenges);
    counter(o, "challenges_total", "Challenges made.", m->challenges_made);
    counter(o, "challenges_accepted_total", "Challenges accepted (a game started).",
            m->challenges_accepted);
    counter(o, "challenges_refused_total", "challenge_create refused by a limit.",
            m->challenges_refused);
    line(o, "# HELP chameleon_identities Identities in memory, by kind.\n"
            "# TYPE chameleon_identities gauge\n");
    line(o, "chameleon_identities{kind=\"guest\"} %" PRId64 "\n", m->identities_guest);
    line(o, "chameleon_identities{kind=\"account\"} %" PRId64 "\n", m->identities_account);
    line(o, "chameleon_identities{kind=\"bot\"} %" PRId64 "\n", m->identities_bot);
    counter(o, "identities_expired_total", "Identities forgotten after their idle time.",
            m->identities_expired);
    counter(o, "guests_evicted_total", "Idle guests forgotten to make room for a new one.",
            m->guests_evicted);
    line(o, "# HELP chameleon_limit_refused_total Requests refused by a cap, by cap.\n"
            "# TYPE chameleon_limit_refused_total counter\n");
    const struct {
        const char *limit;
        uint64_t n;
    } refused[] = {{"guests", m->refused_guests},
                   {"games_per_identity", m->refused_games_ident},
                   {"games_per_address", m->refused_games_addr},
                   {"watched_rooms_per_identity", m->refused_watched_ident},
                   {"watched_rooms_per_address", m->refused_watched_addr}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        line(o, "chameleon_limit_refused_total{limit=\"%s\"} %" PRIu64 "\n", refused[i].limit,
             refused[i].n);
    gauge(o, "store_writable", "1 while the database takes writes, 0 after a failed one.",
          st->writable);
    counter(o, "store_write_failures_total",
            "Write batches (moves...) failed after every retry; probes included.",
            st->write_failures);
    counter(o, "store_write_retries_total", "Write batches tried again after a failure.",
            st->write_retries);
    counter(o, "store_reconnects_total",
            "PostgreSQL sessions opened again after a lost connection (every connection).",
            st->reconnects);
    gauge(o, "store_queue_operations", "Store operations waiting for the next batch.",
          (int64_t)st->queued);
    gauge(o, "store_inflight_operations", "Store operations of the batch being written.",
          (int64_t)st->inflight);
    line(o, "# HELP chameleon_store_commit_seconds Time to write and commit one batch "
            "(retries included), measured on the writer thread.\n"
            "# TYPE chameleon_store_commit_seconds histogram\n");
    for (int i = 0; i < STORE_COMMIT_NBUCKETS; i++) {
        if (i == STORE_COMMIT_NBUCKETS - 1)
            line(o, "chameleon_store_commit_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
                 st->commit_buckets[i]);
        else
            line(o, "chameleon_store_commit_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                 store_commit_bounds[i], st->commit_buckets[i]);
    }
    line(o, "chameleon_store_commit_seconds_sum %.6f\n", st->commit_seconds);
    line(o, "chameleon_store_commit_seconds_count %" PRIu64 "\n", st->commits);
    line(o, "# HELP chameleon_errors_total Error messages sent, by code.\n"
            "# TYPE chameleon_errors_total counter\n");
    for (int i = 1; i < PROTO_NERRORS; i++)
        line(o, "chameleon_errors_total{code=\"%s\"} %" PRIu64 "\n", proto_err_code((proto_err)i),
             m->errors[i] + (i == PROTO_ETOO_LARGE ? net->too_large : 0));
    if (shown_relay != NULL)
        write_relay(o, shown_relay);
}

/* Node mode's forwarding (forward.c), shown with the relay. */
static void write_forward(proto_out *o, const metrics *m)
{
    counter(o, "forward_sent_total", "Requests sent to the node of their room or of the lobby.",
            m->forward_sent);
    counter(o, "forward_run_total", "Requests of other nodes' clients run here.", m->forward_run);
    counter(o, "forward_back_total", "Messages sent back to other nodes' clients.",
            m->forward_back);
    counter(o, "forward_copies_total",
            "Other nodes' clients those messages were for (one message a node for all).",
            m->forward_copies);
    counter(o, "forward_delivered_total", "Messages from other nodes given to clients here.",
            m->forward_delivered);
    counter(o, "forward_lost_total", "Messages between nodes dropped: a part missing.",
            m->forward_lost);
    counter(o, "forward_reconnects_total",
            "Clients asked to reconnect (1001): their room or the lobby moved.",
            m->forward_reconnects);
    gauge(o, "remote_sessions", "Sessions here for clients connected to other nodes.",
          m->remote_sessions);
}

static void write_relay(proto_out *o, const relay *r)
{
    write_forward(o, &metrics_now);
    relay_stats rs;
    relay_get_stats(r, &rs);
    gauge(o, "relay_connected",
          "1 while the relay's PostgreSQL session is up and LISTENs on its channels.",
          rs.connected);
    gauge(o, "relay_queue_messages", "Messages waiting to be published (in flight included).",
          (int64_t)rs.queued);
    counter(o, "relay_published_total", "Messages published (their NOTIFY committed).",
            rs.published);
    counter(o, "relay_received_total", "Notifications received (this node's own included).",
            rs.received);
    counter(o, "relay_reconnects_total", "Relay sessions opened again after one was lost.",
            rs.reconnects);
    line(o, "# HELP chameleon_relay_dropped_total Messages not published, by reason: the queue "
            "was full, in flight when the session broke (perhaps delivered), refused by "
            "PostgreSQL.\n"
            "# TYPE chameleon_relay_dropped_total counter\n");
    line(o, "chameleon_relay_dropped_total{reason=\"queue_full\"} %" PRIu64 "\n", rs.dropped_full);
    line(o, "chameleon_relay_dropped_total{reason=\"in_flight\"} %" PRIu64 "\n",
         rs.dropped_in_flight);
    line(o, "chameleon_relay_dropped_total{reason=\"refused\"} %" PRIu64 "\n", rs.dropped_refused);
}
