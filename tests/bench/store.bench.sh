#!/bin/sh
# Durable correspondence moves: prints the markdown section "store" of
# BENCHMARKS.md (run by tests/bench/run.sh). Release build, one process:
# the store on its libuv loop with 1,000 games; a move counts once its
# group-committed transaction (WAL, synchronous=FULL) is on disk.
set -eu
cd "$(dirname "$0")/../.."
bin=build/store_load
dir=$(mktemp -d "${TMPDIR:-/tmp}/store-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

probe=$("$bin" fsync "$dir/probe" 300)
closed=$("$bin" bench "$dir/closed.db" 1000 5)
open=$("$bin" bench "$dir/open.db" 1000 5 20000)
field() { echo "$1" | sed -n "s|.* $2 \([0-9.]*\).*|\1|p"; }

echo "Durable moves (store, SQLite WAL + synchronous=FULL, commits grouped every"
echo "4 ms on the loop, checkpoints on the thread pool), 1,000 concurrent games,"
echo "acknowledged only once on disk. Measured $(date -u +%Y-%m-%d) on $machine."
echo
echo "| load | moves/s acknowledged | p50 ack | p99 ack | max | command |"
echo "|---|---|---|---|---|---|"
echo "| as fast as acknowledged (closed loop, 1 move in flight per game) | $(field "$closed" moves/s) | $(field "$closed" p50_ms) ms | $(field "$closed" p99_ms) ms | $(field "$closed" max_ms) ms | \`build/store_load bench DB 1000 5\` |"
echo "| 20,000 moves/s offered (open loop) | $(field "$open" moves/s) | $(field "$open" p50_ms) ms | $(field "$open" p99_ms) ms | $(field "$open" max_ms) ms | \`build/store_load bench DB 1000 5 20000\` |"
echo
echo "The disk's own fsync latency at the same time (16 KiB + fsync, 300 times,"
echo "\`build/store_load fsync FILE 300\`): p50 $(field "$probe" p50_ms) ms,"
echo "p99 $(field "$probe" p99_ms) ms, max $(field "$probe" max_ms) ms. No durable"
echo "acknowledgement can be faster than one fsync."
