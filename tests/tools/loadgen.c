/*
 * loadgen.c - load generator for the chameleon server: real WebSocket
 * clients (libwebsockets on a libuv loop) that play many games at once with
 * legal moves, chosen at random from the rules core's legal move list.
 *
 *   loadgen --port N [--host 127.0.0.1] [--game ID] [--games G]
 *           [--rate MOVES_PER_S] [--seconds S] [--idle C] [--seed N]
 *           [--bot-games B] [--bot-level L] [--ports P0,P1] [--warmup S]
 *
 * Each game is two connections (hello with "board":false, so that events
 * carry no board: the generator keeps every position itself with the rules
 * core). One creates a private seek, the other accepts its invitation; when
 * a game ends both part and a new game starts between them. --rate 0 plays
 * as fast as the server answers; otherwise each game paces its moves so that
 * all games together send about MOVES_PER_S.
 *
 * Latency: from the moment a move is sent to the moment the OPPONENT
 * receives its event (both ends are in this process, one clock).
 * --idle C opens C connections that say hello and then do nothing.
 * --bot-games B opens B more connections, each playing the computer
 * (bot_game at --bot-level L, default 8, no clock) with random legal moves
 * as fast as its bot answers, a new game after each end: load on the
 * server's bot threads while the games above measure the relay of moves
 * between people. Their moves are counted apart (bot_moves), not in the
 * latency figures.
 *
 * --ports P0,P1: each game's first player (who creates the seek) connects
 * to port P0, the second (who accepts it) to P1, instead of both to
 * --port: several nodes of one site (tests/bench/nodes.bench.sh), a
 * player on each. --warmup S: connections, first games and first moves
 * for S seconds before the --seconds measured (moves and latencies of
 * the warm-up are not counted).
 *
 * A move answered unknown_room (several nodes: see on_message) is sent
 * again 10 ms later, counted apart (unknown_room_retries, and the games
 * that met it: unknown_room_games), not as an error.
 *
 * Prints one line per figure ("moves_per_s 21034.2", "p99_us 812", ...) and
 * exits 0 if no protocol error was received and at least one move was played
 * (or, with --idle, every connection was welcomed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <jansson.h>
#include <libwebsockets.h>
#include <uv.h>

#include "rules.h"

enum { OUTQ = 8, MAX_SAMPLES = 4 * 1000 * 1000 };

struct game;

struct botgame;

typedef struct client {
    struct lws *wsi;
    struct game *game;  /* NULL for an idle connection or a bot game */
    struct botgame *bg; /* a game against the computer, or NULL */
    int role;           /* 0 creates the seek, 1 accepts */
    int seat;           /* seat in the current room */
    bool welcomed, connected;
    char *outq[OUTQ];
    size_t outlen[OUTQ];
    int qhead, qcount;
    char *rx;
    size_t rxlen, rxcap;
} client;

typedef struct game {
    client *c[2];
    int64_t room;
    rules_game *g;
    int started;      /* clients that got the room state of `room` */
    uint64_t sent_ns; /* when the move in flight was sent */
    uv_timer_t pace;
    uint64_t next_due_ns;
    bool waiting_pace;
    char last[RULES_MOVE_TEXT]; /* the move in flight, sent again on unknown_room */
    client *last_by;
    int64_t retried; /* the last room whose move was answered unknown_room */
} game;

/* A connection playing the computer. */
typedef struct botgame {
    client c;
    int64_t room;
    int seat;
    rules_game *g;
} botgame;

/* Options and totals. */
static const char *host = "127.0.0.1";
static int port;
static int ports[2]; /* the two players' ports (--ports), 0: --port */
static double warmup;
static bool counting = true; /* false during the warm-up */
static const char *game_id;
static int ngames = 100, nidle, nbots, bot_level = 8;
static botgame *bots;
static uint64_t bot_moves, bot_games_done;
static double rate, seconds = 10;
static uint64_t seed = 1;

static uv_loop_t loop;
static struct lws_context *ctx;
static game *games;
static client *idle;
static uint64_t t_start_ns, t_end_ns;
static uint64_t moves, errors, games_done, welcomed_idle, conn_errors, retries, retried_games,
    games_started;
static uint32_t *samples;
static size_t nsamples;
static bool stopping;
static uv_timer_t stop_timer;

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* ------------------------------------------------------------------------ */
/* Sending. */

static void send_text(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void send_text(client *c, const char *fmt, ...)
{
    if (c->qcount == OUTQ || !c->connected) {
        errors++;
        return;
    }
    char body[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    char *b = malloc(LWS_PRE + (size_t)n + 1);
    if (b == NULL)
        return;
    memcpy(b + LWS_PRE, body, (size_t)n + 1);
    int slot = (c->qhead + c->qcount) % OUTQ;
    c->outq[slot] = b;
    c->outlen[slot] = (size_t)n;
    c->qcount++;
    lws_callback_on_writable(c->wsi);
}

/* ------------------------------------------------------------------------ */
/* Playing. */

static void start_game(game *gm)
{
    rules_game_free(gm->g);
    gm->g = NULL;
    gm->room = 0;
    gm->started = 0;
    send_text(gm->c[0],
              "{\"type\":\"seek_create\",\"game\":\"%s\",\"base_ms\":0,"
              "\"inc_ms\":0,\"private\":true}",
              game_id);
}

static void send_move(game *gm)
{
    gm->waiting_pace = false;
    if (stopping || gm->g == NULL || gm->g->result.over)
        return;
    int s = rules_game_to_move(gm->g);
    client *c = gm->c[0]->seat == s ? gm->c[0] : gm->c[1];
    rules_move m = gm->g->legal[rnd() % (uint64_t)gm->g->nlegal];
    char text[RULES_MOVE_TEXT];
    gm->g->variant->print_move(&gm->g->pos, m, text, sizeof text);
    gm->sent_ns = uv_hrtime();
    memcpy(gm->last, text, sizeof gm->last);
    gm->last_by = c;
    send_text(c, "{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)gm->room, text);
}

/* The move in flight again (its latency counted from its first send). */
static void on_retry(uv_timer_t *t)
{
    game *gm = t->data;
    if (stopping || gm->g == NULL || gm->last_by == NULL)
        return;
    send_text(gm->last_by, "{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)gm->room,
              gm->last);
}

static void on_pace(uv_timer_t *t)
{
    send_move(t->data);
}

/* Send the next move now or when the pace allows. */
static void next_move(game *gm)
{
    if (rate <= 0) {
        send_move(gm);
        return;
    }
    uint64_t now = uv_hrtime();
    uint64_t interval = (uint64_t)(1e9 * ngames / rate);
    if (gm->next_due_ns == 0)
        /* Spread the games over one interval: a steady rate, not bursts of
         * every game at once. */
        gm->next_due_ns = now + rnd() % interval;
    if (gm->next_due_ns < now)
        gm->next_due_ns = now;
    uint64_t due = gm->next_due_ns;
    gm->next_due_ns += interval;
    if (due <= now + 500000) {
        send_move(gm);
        return;
    }
    gm->waiting_pace = true;
    uv_timer_start(&gm->pace, on_pace, (due - now) / 1000000, 0);
}

static void game_over(game *gm)
{
    games_done++;
    send_text(gm->c[0], "{\"type\":\"part\",\"room\":%lld}", (long long)gm->room);
    send_text(gm->c[1], "{\"type\":\"part\",\"room\":%lld}", (long long)gm->room);
    if (!stopping)
        start_game(gm);
}

/* ------------------------------------------------------------------------ */
/* Games against the computer. */

static void bot_start(botgame *b)
{
    rules_game_free(b->g);
    b->g = NULL;
    b->room = 0;
    if (!stopping)
        send_text(&b->c,
                  "{\"type\":\"bot_game\",\"game\":\"%s\",\"level\":%d,\"seat\":0,"
                  "\"base_ms\":0,\"inc_ms\":0}",
                  game_id, bot_level);
}

static void bot_our_move(botgame *b)
{
    if (stopping || b->g == NULL || b->g->result.over || rules_game_to_move(b->g) != b->seat)
        return;
    rules_move m = b->g->legal[rnd() % (uint64_t)b->g->nlegal];
    char text[RULES_MOVE_TEXT];
    b->g->variant->print_move(&b->g->pos, m, text, sizeof text);
    send_text(&b->c, "{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)b->room, text);
}

static void bot_over(botgame *b)
{
    bot_games_done++;
    send_text(&b->c, "{\"type\":\"part\",\"room\":%lld}", (long long)b->room);
    bot_start(b);
}

static void bot_message(botgame *b, const char *type, json_t *m)
{
    if (strcmp(type, "welcome") == 0) {
        b->c.welcomed = true;
        bot_start(b);
    } else if (strcmp(type, "room") == 0) {
        b->seat = (int)json_integer_value(json_object_get(m, "you"));
        b->room = json_integer_value(json_object_get(m, "room"));
        char why[RULES_WHY_TEXT];
        if (rules_game_new(&b->g, game_id, NULL, why, sizeof why) < 0) {
            fprintf(stderr, "loadgen: %s\n", why);
            exit(1);
        }
        bot_our_move(b);
    } else if (strcmp(type, "event") == 0 && b->g != NULL &&
               json_integer_value(json_object_get(m, "room")) == b->room) {
        const char *kind = json_string_value(json_object_get(m, "kind"));
        int seat = (int)json_integer_value(json_object_get(m, "seat"));
        if (kind && strcmp(kind, "move") == 0) {
            const char *text = json_string_value(json_object_get(m, "move"));
            char why[RULES_WHY_TEXT];
            if (rules_game_play_text(b->g, seat, text, NULL, why, sizeof why) < 0) {
                fprintf(stderr, "loadgen: the bot played %s: %s\n", text, why);
                errors++;
                return;
            }
            bot_moves += seat != b->seat;
            if (b->g->result.over)
                bot_over(b);
            else
                bot_our_move(b);
        } else if (kind && (strcmp(kind, "left") == 0 || strcmp(kind, "end") == 0)) {
            bot_over(b); /* the bot resigned */
        }
    }
}

static void on_message(client *c, const char *buf, size_t len)
{
    json_error_t jerr;
    json_t *m = json_loadb(buf, len, 0, &jerr);
    if (m == NULL) {
        errors++;
        return;
    }
    const char *type = json_string_value(json_object_get(m, "type"));
    game *gm = c->game;
    if (type != NULL && c->bg != NULL && strcmp(type, "error") != 0) {
        bot_message(c->bg, type, m);
    } else if (type == NULL) {
        errors++;
    } else if (strcmp(type, "welcome") == 0) {
        c->welcomed = true;
        if (gm == NULL)
            welcomed_idle++;
        else if (gm->c[0]->welcomed && gm->c[1]->welcomed)
            start_game(gm);
    } else if (strcmp(type, "seek_created") == 0) {
        const char *inv = json_string_value(json_object_get(m, "invite"));
        if (inv)
            send_text(gm->c[1], "{\"type\":\"seek_accept\",\"invite\":\"%s\"}", inv);
    } else if (strcmp(type, "room") == 0) {
        c->seat = (int)json_integer_value(json_object_get(m, "you"));
        gm->room = json_integer_value(json_object_get(m, "room"));
        if (++gm->started == 2) {
            games_started++;
            char why[RULES_WHY_TEXT];
            if (rules_game_new(&gm->g, game_id, NULL, why, sizeof why) < 0) {
                fprintf(stderr, "loadgen: %s\n", why);
                exit(1);
            }
            next_move(gm);
        }
    } else if (strcmp(type, "event") == 0) {
        const char *kind = json_string_value(json_object_get(m, "kind"));
        int seat = (int)json_integer_value(json_object_get(m, "seat"));
        if (kind && strcmp(kind, "move") == 0 && gm->g != NULL &&
            json_integer_value(json_object_get(m, "room")) == gm->room) {
            /* Both clients get it; the opponent's copy advances the game. */
            if (seat != c->seat && counting) {
                uint64_t now = uv_hrtime();
                if (nsamples < MAX_SAMPLES)
                    samples[nsamples++] = (uint32_t)((now - gm->sent_ns) / 1000);
                moves++;
            }
            if (seat != c->seat) {
                const char *text = json_string_value(json_object_get(m, "move"));
                char why[RULES_WHY_TEXT];
                if (rules_game_play_text(gm->g, seat, text, NULL, why, sizeof why) < 0) {
                    fprintf(stderr, "loadgen: server played %s: %s\n", text, why);
                    errors++;
                } else if (gm->g->result.over) {
                    game_over(gm);
                } else {
                    next_move(gm);
                }
            }
        }
    } else if (strcmp(type, "error") == 0 && gm != NULL && gm->g != NULL && c == gm->last_by &&
               json_is_string(json_object_get(m, "code")) &&
               strcmp(json_string_value(json_object_get(m, "code")), "unknown_room") == 0 &&
               json_is_string(json_object_get(m, "request")) &&
               strcmp(json_string_value(json_object_get(m, "request")), "move") == 0) {
        /* Several nodes: a new game's first move sent from another node
         * than the room's may be answered unknown_room while its creation
         * has not committed (the node asks the store who holds the room).
         * Counted apart, and the move sent again 10 ms later. */
        retries++;
        if (gm->retried != gm->room) {
            gm->retried = gm->room;
            retried_games++;
        }
        uv_timer_start(&gm->pace, on_retry, 10, 0);
    } else if (strcmp(type, "error") == 0) {
        errors++;
        if (errors < 10)
            fprintf(stderr, "loadgen: error %.*s\n", (int)len, buf);
    }
    json_decref(m);
}

/* ------------------------------------------------------------------------ */
/* libwebsockets. */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    client *c = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED: {
        int one = 1;
        setsockopt(lws_get_socket_fd(wsi), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->connected = true;
        send_text(c, "{\"type\":\"hello\",\"board\":false}");
        break;
    }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        conn_errors++;
        if (conn_errors < 5)
            fprintf(stderr, "loadgen: connection error: %s\n", in ? (char *)in : "?");
        c->wsi = NULL;
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        bool final = lws_is_final_fragment(wsi);
        if (final && c->rxlen == 0) {
            on_message(c, in, len);
            break;
        }
        if (c->rxlen + len > c->rxcap) {
            c->rxcap = (c->rxlen + len) * 2;
            c->rx = realloc(c->rx, c->rxcap);
        }
        memcpy(c->rx + c->rxlen, in, len);
        c->rxlen += len;
        if (final) {
            on_message(c, c->rx, c->rxlen);
            c->rxlen = 0;
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c->qcount) {
            char *b = c->outq[c->qhead];
            size_t n = c->outlen[c->qhead];
            c->qhead = (c->qhead + 1) % OUTQ;
            c->qcount--;
            int w = lws_write(wsi, (unsigned char *)b + LWS_PRE, n, LWS_WRITE_TEXT);
            free(b);
            if (w < (int)n)
                return -1;
            if (c->qcount)
                lws_callback_on_writable(wsi);
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        c->connected = false;
        c->wsi = NULL;
        if (!stopping)
            conn_errors++;
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"loadgen", callback, 0, 64 * 1024, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void connect_client(client *c)
{
    struct lws_client_connect_info i;
    memset(&i, 0, sizeof i);
    i.context = ctx;
    i.address = host;
    i.port = c->game != NULL && ports[c->role] > 0 ? ports[c->role] : port;
    i.path = "/";
    i.host = host;
    i.origin = host;
    i.local_protocol_name = "loadgen";
    i.opaque_user_data = c;
    i.pwsi = &c->wsi;
    if (lws_client_connect_via_info(&i) == NULL)
        conn_errors++;
}

/* Connect in batches so the listen backlog never overflows. */
static int next_to_connect, total_clients;
static uv_timer_t connect_timer;

static client *client_at(int k)
{
    if (k < 2 * ngames)
        return games[k / 2].c[k % 2];
    if (k < 2 * ngames + nidle)
        return &idle[k - 2 * ngames];
    return &bots[k - 2 * ngames - nidle].c;
}

static void on_connect_batch(uv_timer_t *t)
{
    for (int n = 0; n < 500 && next_to_connect < total_clients; n++)
        connect_client(client_at(next_to_connect++));
    if (next_to_connect >= total_clients)
        uv_timer_stop(t);
}

static void on_warm(uv_timer_t *t)
{
    (void)t;
    counting = true;
    t_start_ns = uv_hrtime();
}

static void on_stop(uv_timer_t *t)
{
    stopping = true;
    t_end_ns = uv_hrtime();
    uv_stop(&loop);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    fprintf(stderr, "usage: loadgen --port N [--host ADDR] [--game ID] [--games G]\n"
                    "               [--rate MOVES_PER_S] [--seconds S] [--idle C] [--seed N]\n"
                    "               [--bot-games B] [--bot-level L] [--ports P0,P1]\n"
                    "               [--warmup S]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        const char *a = argv[i], *v = argv[++i];
        if (!strcmp(a, "--port"))
            port = atoi(v);
        else if (!strcmp(a, "--host"))
            host = v;
        else if (!strcmp(a, "--game"))
            game_id = v;
        else if (!strcmp(a, "--games"))
            ngames = atoi(v);
        else if (!strcmp(a, "--rate"))
            rate = atof(v);
        else if (!strcmp(a, "--seconds"))
            seconds = atof(v);
        else if (!strcmp(a, "--idle"))
            nidle = atoi(v);
        else if (!strcmp(a, "--bot-games"))
            nbots = atoi(v);
        else if (!strcmp(a, "--bot-level"))
            bot_level = atoi(v);
        else if (!strcmp(a, "--ports")) {
            if (sscanf(v, "%d,%d", &ports[0], &ports[1]) != 2 || ports[0] <= 0 || ports[1] <= 0)
                usage();
            if (port <= 0)
                port = ports[0];
        } else if (!strcmp(a, "--warmup"))
            warmup = atof(v);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10) | 1;
        else
            usage();
    }
    if (port <= 0 || ngames < 0 || nidle < 0 || nbots < 0 || seconds <= 0 || seconds > 600 ||
        warmup < 0 || warmup > 600)
        usage();
    if (game_id == NULL) {
        for (int i = 0; rules_variants[i] && !game_id; i++)
            if (rules_variants[i]->nplayers == 2)
                game_id = rules_variants[i]->id;
        if (game_id == NULL) {
            fprintf(stderr, "loadgen: no two-player game in the rules core\n");
            return 1;
        }
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    lws_set_log_level(LLL_ERR, NULL);
    uv_loop_init(&loop);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[] = {&loop};
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    info.fd_limit_per_thread = 1 << 16;
    ctx = lws_create_context(&info);
    if (ctx == NULL) {
        fprintf(stderr, "loadgen: cannot create the lws context\n");
        return 1;
    }

    samples = malloc(MAX_SAMPLES * sizeof *samples);
    games = calloc((size_t)ngames + 1, sizeof *games);
    idle = calloc((size_t)nidle + 1, sizeof *idle);
    for (int i = 0; i < ngames; i++) {
        games[i].c[0] = calloc(1, sizeof(client));
        games[i].c[1] = calloc(1, sizeof(client));
        for (int k = 0; k < 2; k++) {
            games[i].c[k]->game = &games[i];
            games[i].c[k]->role = k;
        }
        uv_timer_init(&loop, &games[i].pace);
        games[i].pace.data = &games[i];
    }
    bots = calloc((size_t)nbots + 1, sizeof *bots);
    for (int i = 0; i < nbots; i++)
        bots[i].c.bg = &bots[i];
    total_clients = 2 * ngames + nidle + nbots;
    uv_timer_init(&loop, &connect_timer);
    uv_timer_start(&connect_timer, on_connect_batch, 0, 20);
    uv_timer_init(&loop, &stop_timer);
    uv_timer_start(&stop_timer, on_stop, (uint64_t)((warmup + seconds) * 1000), 0);
    static uv_timer_t warm_timer;
    if (warmup > 0) {
        counting = false;
        uv_timer_init(&loop, &warm_timer);
        uv_timer_start(&warm_timer, on_warm, (uint64_t)(warmup * 1000), 0);
    }

    t_start_ns = uv_hrtime();
    uv_run(&loop, UV_RUN_DEFAULT);

    double secs = (double)(t_end_ns - t_start_ns) / 1e9;
    qsort(samples, nsamples, sizeof *samples, cmp_u32);
    uint32_t p50 = nsamples ? samples[nsamples / 2] : 0;
    uint32_t p99 = nsamples ? samples[(size_t)(nsamples * 0.99)] : 0;
    uint32_t pmax = nsamples ? samples[nsamples - 1] : 0;
    printf("game %s\ngames %d\nidle %d\nrate_target %.0f\nseconds %.2f\n", game_id, ngames, nidle,
           rate, secs);
    printf("warmup %.2f\n", warmup);
    printf("moves %llu\nmoves_per_s %.1f\ngames_finished %llu\n", (unsigned long long)moves,
           moves / secs, (unsigned long long)games_done);
    printf("p50_us %u\np99_us %u\nmax_us %u\n", p50, p99, pmax);
    printf("bot_games %d\nbot_level %d\nbot_moves %llu\nbot_moves_per_s %.1f\nbot_games_finished "
           "%llu\n",
           nbots, bot_level, (unsigned long long)bot_moves, bot_moves / secs,
           (unsigned long long)bot_games_done);
    printf("idle_welcomed %llu\nerrors %llu\nconnection_errors %llu\n",
           (unsigned long long)welcomed_idle, (unsigned long long)errors,
           (unsigned long long)conn_errors);
    printf("games_started %llu\nunknown_room_retries %llu\nunknown_room_games %llu\n",
           (unsigned long long)games_started, (unsigned long long)retries,
           (unsigned long long)retried_games);
    fflush(stdout);
    bool ok = errors == 0 && conn_errors == 0 && (ngames == 0 || moves > 0) &&
              welcomed_idle == (uint64_t)nidle;
    /* Exit without tearing down thousands of connections one by one. */
    _exit(ok ? 0 : 1);
}
