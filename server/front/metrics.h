/*
 * metrics.h - GET /metrics (Prometheus text): the counters of counters.h,
 * the transport's own (net_stats), the store's and the relay's.
 *
 * Owns: the Prometheus text.
 * May call: counters.h, net.h (the net_stats type only), bot.h, accounts.h,
 * mail.h and relay.h (their counters), store.h (the store_stats type,
 * store_memory_bytes, store_page_region), libc's mallinfo2 (malloc's
 * counts).
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>

#include "counters.h"
#include "net.h"
#include "relay.h"
#include "store.h"

/* Write the Prometheus text exposition of metrics_now, of the
 * transport's counters and of the store's into o. */
void metrics_write(proto_out *o, const net_stats *net, const store_stats *store);

/* The relay between nodes whose counters metrics_write shows
 * (chameleon_relay_*), NULL for none (the default: they are then not
 * shown). main.c sets it while the relay is open. */
void metrics_set_relay(const relay *r);

#endif
