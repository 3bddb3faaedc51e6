#!/bin/sh
# Bench section "fairness": bots' searches shared between owners
# (tests/bench/fairness.mjs): a level-1 bot's reply alone and while another
# identity keeps 10 games against level-8 bots thinking, on the release
# server with 2 bot threads.
set -eu
cd "$(dirname "$0")/../.."
if [ ! -d tests/integration/node_modules/ws ]; then
    (cd tests/integration && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "fairness bench: a level-1 bot's replies, alone and beside 10 level-8 games" >&2
line=$(CHAMELEON_BIN="$PWD/build/chameleon" FLOOD=10 PLIES=16 node tests/bench/fairness.mjs)
field() { echo "$line" | node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log($1)"; }
echo "Bots' searches shared between owners (issue 31, item 7): one identity keeps"
echo "10 games against level-8 bots thinking (each of its moves queues a level-8"
echo "search) while another plays 16 moves against a level-1 bot; the time from"
echo "each of the latter's moves to its bot's reply. Release server, 2 bot threads,"
echo "loopback; measured $(date -u +%Y-%m-%d) on $(nproc) cores, load average before: $load."
echo
echo "| run | replies | p50 | p90 | max | level-8 replies meanwhile | command |"
echo "|---|---|---|---|---|---|---|"
echo "| alone | $(field j.alone.n) | $(field j.alone.p50) ms | $(field j.alone.p90) ms | $(field j.alone.max) ms | - | \`FLOOD=10 PLIES=16 node tests/bench/fairness.mjs\` |"
echo "| beside the flood | $(field j.flood.n) | $(field j.flood.p50) ms | $(field j.flood.p90) ms | $(field j.flood.max) ms | $(field j.flood_answered) | same |"
echo
echo "A search is not interrupted: the level-1 reply waits for a thread to free,"
echo "at most one level-8 search (the fair queue serves the owner with the"
echo "fewest searches running first), where one queue in order of arrival made"
echo "it wait behind every level-8 search queued before it."
