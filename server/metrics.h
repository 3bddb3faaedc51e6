/*
 * metrics.h - the counters shown by GET /metrics (Prometheus text) and
 * GET /healthz.
 *
 * Owns: metrics_now, the counters of the server above the transport
 * (rooms, games, seeks, moves, errors sent); the Prometheus text of them
 * and of the transport's own counters (net_stats).
 * May call: net.h (the net_stats type only), bot.h and accounts.h (their
 * counters), store.h (store_memory_bytes), proto.h. Only the loop thread
 * touches the counters.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>

#include "net.h"
#include "proto.h"

typedef struct metrics {
    int64_t rooms;                  /* rooms in memory */
    int64_t games_in_progress;      /* rooms whose game is not over */
    int64_t seeks;                  /* open seeks */
    uint64_t moves;                 /* moves played and relayed */
    uint64_t errors[PROTO_NERRORS]; /* error messages sent, by code */
    uint64_t started_ms;            /* uv_now at start */
} metrics;

extern metrics metrics_now;

/* Write the Prometheus text exposition of metrics_now and of the
 * transport's counters into o. */
void metrics_write(proto_out *o, const net_stats *net);

#endif
