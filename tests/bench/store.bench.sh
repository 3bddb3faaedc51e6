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

field() { echo "$1" | sed -n "s|.* $2 \([0-9.]*\).*|\1|p"; }
row() { # label result command
    echo "| $1 | $(field "$2" moves/s) | $(field "$2" p50_ms) ms | $(field "$2" p99_ms) ms | $(field "$2" max_ms) ms | $(field "$4" p99_ms) ms | \`$3\` |"
}

echo "Durable moves (store, SQLite WAL + synchronous=FULL, commits grouped: 1 ms"
echo "tick + the fsync itself, on the loop; checkpoints on the thread pool),"
echo "1,000 concurrent games, each move acknowledged only once on disk. Three"
echo "runs of each, as measured (the disk is shared: the last column is the"
echo "disk's own fsync p99 just before the run, 16 KiB + fsync x 200, and no"
echo "durable acknowledgement can beat one fsync). Measured $(date -u +%Y-%m-%d)"
echo "on $machine."
echo
echo "| load | moves/s acknowledged | p50 ack | p99 ack | max | disk fsync p99 | command |"
echo "|---|---|---|---|---|---|---|"
for i in 1 2 3; do
    probe=$("$bin" fsync "$dir/probe" 200)
    rm -f "$dir"/open.db*
    res=$("$bin" bench "$dir/open.db" 1000 5 20000)
    row "20,000 moves/s offered over 1,000 games (open loop), run $i" "$res" "build/store_load bench DB 1000 5 20000" "$probe"
done
for i in 1 2 3; do
    probe=$("$bin" fsync "$dir/probe" 200)
    rm -f "$dir"/closed.db*
    res=$("$bin" bench "$dir/closed.db" 1000 5)
    row "as fast as acknowledged (closed loop: one move in flight per game), run $i" "$res" "build/store_load bench DB 1000 5" "$probe"
done
