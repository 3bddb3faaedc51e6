#!/bin/sh
# Durable moves on one node, SQLite vs PostgreSQL: prints the markdown
# section "store_pg" of BENCHMARKS.md (run by tests/bench/run.sh). Release
# build, one process (build/store_load, as store.bench.sh): the store on its
# libuv loop and its writer thread with 1,000 games; a move counts once its
# group-committed transaction is durable (SQLite: WAL + synchronous=FULL;
# PostgreSQL: synchronous_commit on, fsync on, the server on loopback,
# started from Debian's binaries by tests/tools/pg.sh with its defaults).
# On this 2-core machine the PostgreSQL server shares the cores with the
# store: the figures measure the cost per durable move of each engine, not
# a capacity. Node mode (STORE_NODE, as --node) adds the fence check of
# several nodes on PostgreSQL.
set -eu
cd "$(dirname "$0")/../.."
bin=build/store_load
dir=$(mktemp -d "${TMPDIR:-/tmp}/store-pg-bench.XXXXXX")
pgdir=$(mktemp -d "${TMPDIR:-/tmp}/store-pg-bench-pg.XXXXXX")
trap 'sh tests/tools/pg.sh stop "$pgdir"; rm -rf "$dir"' EXIT
sh tests/tools/pg.sh start "$pgdir" > /dev/null
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

field() { echo "$1" | sed -n "s|.* $2 \([0-9.]*\).*|\1|p"; }
row() { # engine load result command
    echo "| $1 | $2 | $(field "$3" moves/s) | $(field "$3" p50_ms) ms | $(field "$3" p99_ms) ms | $(field "$3" max_ms) ms | \`$4\` |"
}

echo "Durable moves on one node, SQLite vs PostgreSQL (the same store, the same"
echo "writer thread and group commit; only the engine differs), 1,000 concurrent"
echo "games, each move acknowledged only once its commit is durable. PostgreSQL"
echo "15 on loopback on the same 2 cores (a cost per move, not a capacity)."
echo "Measured $(date -u +%Y-%m-%d) on $machine."
echo
echo "| engine | load | moves/s acknowledged | p50 ack | p99 ack | max | command |"
echo "|---|---|---|---|---|---|---|"
for i in 1 2; do
    rm -f "$dir"/closed.db*
    res=$("$bin" bench "$dir/closed.db" 1000 5)
    row SQLite "closed loop (one move in flight per game), run $i" "$res" "build/store_load bench DB 1000 5"
    url=$(sh tests/tools/pg.sh createdb "$pgdir" "bench_closed_$i")
    res=$("$bin" bench "$url" 1000 5)
    row PostgreSQL "closed loop (one move in flight per game), run $i" "$res" "build/store_load bench postgresql://... 1000 5"
done
for i in 1 2; do
    # Node mode (--node): the same store holding a lease per game, every
    # batch's lease rows read and locked FOR SHARE after its BEGIN (the
    # fence check of issue 20's several nodes).
    url=$(sh tests/tools/pg.sh createdb "$pgdir" "bench_node_$i")
    res=$(STORE_NODE=a "$bin" bench "$url" 1000 5)
    row "PostgreSQL, node mode" "closed loop (one move in flight per game), run $i" "$res" "STORE_NODE=a build/store_load bench postgresql://... 1000 5"
done
for i in 1 2; do
    rm -f "$dir"/open.db*
    res=$("$bin" bench "$dir/open.db" 1000 5 5000)
    row SQLite "5,000 moves/s offered (open loop), run $i" "$res" "build/store_load bench DB 1000 5 5000"
    url=$(sh tests/tools/pg.sh createdb "$pgdir" "bench_open_$i")
    res=$("$bin" bench "$url" 1000 5 5000)
    row PostgreSQL "5,000 moves/s offered (open loop), run $i" "$res" "build/store_load bench postgresql://... 1000 5 5000"
done
