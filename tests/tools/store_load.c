/*
 * store_load.c - drives the store like a busy server: N games, each sending
 * its next move as soon as the previous one is acknowledged (closed loop).
 *
 *   store_load run   <db> <games> <seconds>   print "ack <game> <ply> <text>"
 *                                             for every acknowledged move
 *                                             (for the kill -9 test); games
 *                                             in progress are resumed
 *   store_load check <db> <ack-file>          every acknowledged move is in
 *                                             the database (read on a
 *                                             connection of its own through
 *                                             sql.h, not the store); exit 1
 *                                             naming the first missing one
 *   <db>: an SQLite file or a postgresql:// URL
 *   store_load fsync <file> <n>               the disk's fsync latency
 *   store_load bench <db> <games> <seconds> [rate]
 *                                             durable moves/s and the p50 /
 *                                             p99 acknowledgement latency;
 *                                             with a rate (moves/s), moves
 *                                             are offered at that rate over
 *                                             the games (open loop) instead
 *                                             of as fast as acknowledged
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql.h"
#include "store.h"

typedef struct lgame {
    struct load *l;
    int64_t id;
    int ply;
    int nplayers;
    bool busy; /* a move is waiting for its acknowledgement */
    uint64_t sent_ns;
} lgame;

typedef struct load {
    store *s;
    uv_loop_t *loop;
    lgame *games;
    int ngames;
    bool print, stop;
    double rate; /* 0: closed loop */
    uint64_t acked, offered, t0;
    int next_game;
    uint32_t *lat_us; /* one per acknowledged move (bench) */
    size_t nlat, caplat;
} load;

static void move_text(int64_t game, int ply, char *buf, size_t len)
{
    /* Any text: the store records what the rules core accepted. */
    snprintf(buf, len, "c%d-c%d", (int)(game % 13) + 1, ply % 97 + 1);
}

static void send_move(lgame *g);

static void acked(void *arg, int status)
{
    lgame *g = arg;
    load *l = g->l;
    if (status != 0) {
        fprintf(stderr, "store_load: move not durable: %s\n", store_err_text(status));
        exit(1);
    }
    if (l->print) {
        char text[RULES_MOVE_TEXT], line[128];
        move_text(g->id, g->ply, text, sizeof text);
        int n = snprintf(line, sizeof line, "ack %lld %d %s\n", (long long)g->id, g->ply, text);
        /* One write per acknowledgement: what is printed is what was acked. */
        if (write(1, line, (size_t)n) != n)
            exit(1);
    }
    if (l->lat_us) {
        if (l->nlat == l->caplat) {
            l->caplat = l->caplat ? l->caplat * 2 : 1 << 16;
            l->lat_us = realloc(l->lat_us, l->caplat * sizeof *l->lat_us);
        }
        l->lat_us[l->nlat++] = (uint32_t)((uv_hrtime() - g->sent_ns) / 1000);
    }
    l->acked++;
    g->ply++;
    g->busy = false;
    if (!l->stop && l->rate == 0)
        send_move(g);
}

static void send_move(lgame *g)
{
    char text[RULES_MOVE_TEXT];
    move_text(g->id, g->ply, text, sizeof text);
    store_move m = {.ply = g->ply,
                    .player = g->ply % g->nplayers,
                    .next = (g->ply + 1) % g->nplayers,
                    .text = text};
    g->sent_ns = uv_hrtime();
    g->busy = true;
    int err = store_move_append(g->l->s, g->id, &m, acked, g);
    if (err != 0) {
        fprintf(stderr, "store_load: append: %s\n", store_err_text(err));
        exit(1);
    }
}

static void resume_cb(void *arg, const store_game_info *gi)
{
    load *l = arg;
    if (l->ngames == 0)
        return;
    lgame *g = &l->games[--l->ngames];
    g->id = gi->id;
    g->ply = gi->nmoves;
    g->nplayers = gi->nplayers;
}

static void stop_cb(uv_timer_t *t)
{
    load *l = t->data;
    l->stop = true;
}

/* Open loop: every millisecond, offer the moves due by now to idle games in
 * turn. */
static void tick_cb(uv_timer_t *t)
{
    load *l = t->data;
    uint64_t due = (uint64_t)(l->rate * (double)(uv_hrtime() - l->t0) / 1e9);
    for (int tries = 0; l->offered < due && tries < l->ngames; tries++) {
        lgame *g = &l->games[l->next_game];
        l->next_game = (l->next_game + 1) % l->ngames;
        if (g->busy)
            continue;
        send_move(g);
        l->offered++;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int drive(const char *db, int ngames, double seconds, bool print, bool bench, double rate)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    load l = {.loop = &loop, .ngames = ngames, .print = print, .rate = rate};
    l.games = calloc((size_t)ngames, sizeof *l.games);
    char why[256];
    /* STORE_GROUP_MS: try another group commit tick. STORE_NODE: the
     * store in node mode under that name (PostgreSQL: every move fenced;
     * games in progress are not resumed). */
    store_options o = {.group_ms =
                           getenv("STORE_GROUP_MS") ? (unsigned)atoi(getenv("STORE_GROUP_MS")) : 0,
                       .node = getenv("STORE_NODE")};
    int err = store_open(&l.s, &loop, db, &o, why, sizeof why);
    if (err != 0) {
        fprintf(stderr, "store_load: %s\n", why);
        return 2;
    }
    for (int i = 0; i < ngames; i++)
        l.games[i].l = &l;
    /* Resume games in progress; create the rest. */
    store_load_in_progress(l.s, resume_cb, &l);
    for (int i = 0; i < l.ngames; i++) {
        store_new_game ng = {
            .variant = "ultima", .kind = STORE_LIVE, .nplayers = 2, .tc = {600000, 0, 0}};
        snprintf(ng.players[0].name, STORE_NAME_MAX, "load-a");
        snprintf(ng.players[1].name, STORE_NAME_MAX, "load-b");
        if (store_game_create(l.s, &ng, &l.games[i].id, NULL, NULL, why, sizeof why)) {
            fprintf(stderr, "store_load: %s\n", why);
            return 2;
        }
        l.games[i].nplayers = 2;
    }
    store_flush(l.s);
    l.ngames = ngames;
    if (bench)
        l.lat_us = malloc(sizeof *l.lat_us);
    uv_timer_t stop;
    uv_timer_init(&loop, &stop);
    stop.data = &l;
    uv_timer_start(&stop, stop_cb, (uint64_t)(seconds * 1000), 0);
    uint64_t t0 = uv_hrtime();
    l.t0 = t0;
    uv_timer_t tick;
    uv_timer_init(&loop, &tick);
    tick.data = &l;
    if (rate > 0)
        uv_timer_start(&tick, tick_cb, 1, 1);
    else
        for (int i = 0; i < ngames; i++)
            send_move(&l.games[i]);
    while (!l.stop)
        uv_run(&loop, UV_RUN_ONCE);
    uv_timer_stop(&tick);
    uv_close((uv_handle_t *)&tick, NULL);
    double secs = (double)(uv_hrtime() - t0) / 1e9;
    uint64_t acked = l.acked;
    store_close(l.s);
    uv_close((uv_handle_t *)&stop, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (bench && l.nlat > 0) {
        qsort(l.lat_us, l.nlat, sizeof *l.lat_us, cmp_u32);
        printf("games %d offered/s %.0f seconds %.2f acked %llu moves/s %.0f "
               "p50_ms %.2f p99_ms %.2f max_ms %.2f\n",
               ngames, rate, secs, (unsigned long long)acked, (double)acked / secs,
               l.lat_us[l.nlat / 2] / 1000.0, l.lat_us[l.nlat * 99 / 100] / 1000.0,
               l.lat_us[l.nlat - 1] / 1000.0);
    }
    free(l.lat_us);
    free(l.games);
    return 0;
}

static int check(const char *db, const char *acks)
{
    FILE *f = fopen(acks, "r");
    sql_conn *d = NULL;
    char why[256] = "";
    if (f == NULL || sql_open(&d, db, 0, why, sizeof why) != SQL_OK) {
        fprintf(stderr, "store_load: cannot open %s or %s %s\n", db, acks, why);
        return 2;
    }
    sql_stmt *st;
    if (sql_prepare(d,
                    sql_conn_engine(d) == SQL_POSTGRES
                        ? "SELECT text FROM moves WHERE game = $1 AND ply = $2"
                        : "SELECT text FROM moves WHERE game = ? AND ply = ?",
                    &st) != SQL_OK) {
        fprintf(stderr, "store_load: %s\n", sql_errmsg(d));
        return 2;
    }
    char line[256];
    long n = 0, partial = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        long long game;
        int ply;
        char text[RULES_MOVE_TEXT];
        if (strchr(line, '\n') == NULL) {
            partial++; /* the line being written when the process died */
            continue;
        }
        if (sscanf(line, "ack %lld %d %63s", &game, &ply, text) != 3)
            continue;
        sql_reset(st);
        sql_bind_i64(st, 1, game);
        sql_bind_int(st, 2, ply);
        if (sql_step(st) != SQL_ROW || strcmp(sql_column_text(st, 0), text) != 0) {
            fprintf(stderr, "store_load: acknowledged move missing: game %lld ply %d %s\n", game,
                    ply, text);
            rc = 1;
            break;
        }
        n++;
    }
    sql_finalize(st);
    /* Each game's plies are 0..n-1 without a gap and games.nmoves agrees. */
    static const char *const consistent[] = {
        "SELECT count(*) FROM (SELECT game FROM moves GROUP BY game"
        " HAVING count(*) <> max(ply) + 1) AS bad",
        "SELECT count(*) FROM games g WHERE nmoves <>"
        " (SELECT count(*) FROM moves m WHERE m.game = g.id)",
    };
    for (int i = 0; i < 2 && rc == 0; i++) {
        if (sql_prepare(d, consistent[i], &st) != SQL_OK || sql_step(st) != SQL_ROW ||
            sql_column_int(st, 0) != 0) {
            fprintf(stderr, "store_load: inconsistent: %s\n", consistent[i]);
            rc = 1;
        }
        sql_finalize(st);
    }
    sql_close(d);
    fclose(f);
    printf("checked %ld acknowledged moves%s: %s\n", n, partial ? " (and one cut line)" : "",
           rc ? "MISSING" : "all present");
    return rc;
}

/* The disk's own fsync latency (16 KiB appended then fsync, n times): the
 * floor under any durable acknowledgement. */
static int fsync_probe(const char *path, int n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 2;
    uint32_t *lat = calloc((size_t)n, sizeof *lat);
    static char buf[16384];
    for (int i = 0; i < n; i++) {
        fwrite(buf, 1, sizeof buf, f);
        fflush(f);
        uint64_t t = uv_hrtime();
        fsync(fileno(f));
        lat[i] = (uint32_t)((uv_hrtime() - t) / 1000);
    }
    fclose(f);
    unlink(path);
    qsort(lat, (size_t)n, sizeof *lat, cmp_u32);
    printf("fsync n %d p50_ms %.2f p99_ms %.2f max_ms %.2f\n", n, lat[n / 2] / 1000.0,
           lat[n * 99 / 100] / 1000.0, lat[n - 1] / 1000.0);
    free(lat);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "fsync") == 0)
        return fsync_probe(argv[2], atoi(argv[3]));
    if (argc == 5 && strcmp(argv[1], "run") == 0)
        return drive(argv[2], atoi(argv[3]), atof(argv[4]), true, false, 0);
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "bench") == 0)
        return drive(argv[2], atoi(argv[3]), atof(argv[4]), false, true,
                     argc == 6 ? atof(argv[5]) : 0);
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return check(argv[2], argv[3]);
    fprintf(stderr, "usage: store_load run <db> <games> <seconds>\n"
                    "       store_load bench <db> <games> <seconds> [rate]\n"
                    "       store_load check <db> <ack-file>\n");
    return 2;
}
