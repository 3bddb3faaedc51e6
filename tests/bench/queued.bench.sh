#!/bin/sh
# The store's queued reads, as a player sees them: prints the markdown
# section "queued" of BENCHMARKS.md (run by tests/bench/run.sh). Release
# build on SQLite and on PostgreSQL (tests/tools/pg.sh, loopback): 300
# WebSockets opened one after the other with a session cookie, each timed
# from the open to its welcome (the cookie's account looked up by a queued
# call, then hello answered), then 300 GET /api/prefs (the session and the
# preferences, two queued reads). Since issue 20 every such read is queued
# to the writer thread instead of being read on the loop: this is what the
# hop costs.
set -eu
cd "$(dirname "$0")/../.."
pgdir=$(mktemp -d "${TMPDIR:-/tmp}/queued-bench-pg.XXXXXX")
dir=$(mktemp -d "${TMPDIR:-/tmp}/queued-bench.XXXXXX")
trap 'sh tests/tools/pg.sh stop "$pgdir"; rm -rf "$dir"' EXIT
sh tests/tools/pg.sh start "$pgdir" > /dev/null
if [ ! -d tests/integration/node_modules/ws ]; then
    (cd tests/integration && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
fi
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
bin=$(pwd)/build/chameleon

echo "Queued reads as a player sees them (release build): a WebSocket opened with a"
echo "session cookie until its welcome, and GET /api/prefs, 300 of each one after the"
echo "other, client and server on the same 2 cores. Measured $(date -u +%Y-%m-%d) on $machine."
echo
echo "| engine | run | result | command |"
echo "|---|---|---|---|"
for i in 1 2; do
    res=$(CHAMELEON_BIN=$bin node tests/bench/cookie_latency.mjs "$dir/q$i.db" 300 | tail -1)
    echo "| SQLite | $i | $res | \`CHAMELEON_BIN=build/chameleon node tests/bench/cookie_latency.mjs DB 300\` |"
    url=$(sh tests/tools/pg.sh createdb "$pgdir" "bench_queued_$i")
    res=$(CHAMELEON_BIN=$bin node tests/bench/cookie_latency.mjs "$url" 300 | tail -1)
    echo "| PostgreSQL | $i | $res | \`CHAMELEON_BIN=build/chameleon node tests/bench/cookie_latency.mjs postgresql://... 300\` |"
done
