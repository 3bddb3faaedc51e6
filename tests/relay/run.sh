#!/bin/sh
# The relay bench's tool works (make test): build/relay_bench between two
# loops through Redis pub/sub and PostgreSQL LISTEN/NOTIFY, each started on
# loopback by tests/bench/relay.bench.sh; a short run of each of its
# measurements, every event acknowledged once and in order, the durable
# ("committed") paths included, and PostgreSQL's 8,000-byte payload limit
# seen where Redis relays the same event. About 8 s; the figures themselves
# are make bench's (BENCH=relay).
set -eu
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if RELAY_CHECK=1 sh tests/bench/relay.bench.sh > /dev/null 2> "$log"; then
    echo "relay: ok ($(grep -c '^relay bench: ' "$log") runs, every event acknowledged once, in order)"
else
    cat "$log" >&2
    echo "relay: FAILED" >&2
    exit 1
fi
