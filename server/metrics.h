/*
 * metrics.h - counters shown by GET /metrics (Prometheus text) and
 * GET /healthz. Only the loop thread touches them.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>

#include "proto.h"

typedef struct metrics {
    int64_t connections;       /* open WebSocket connections */
    int64_t rooms;             /* rooms in memory */
    int64_t games_in_progress; /* rooms whose game is not over */
    int64_t seeks;             /* open seeks */
    uint64_t moves;            /* moves played and relayed */
    uint64_t messages_in, messages_out;
    uint64_t http_requests;
    uint64_t errors[PROTO_NERRORS]; /* error messages sent, by code */
    uint64_t started_ms;            /* uv_now at start */
} metrics;

extern metrics metrics_now;

/* Write the Prometheus text exposition of metrics_now into o. */
void metrics_write(proto_out *o);

#endif
