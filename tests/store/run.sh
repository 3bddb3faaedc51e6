#!/bin/sh
# kill -9 in the middle of a burst of moves, KILL_ROUNDS times (default 8)
# on the same database: after each kill every move the program had acknowledged (printed)
# is in the database, read back on a connection of its own, and every game's
# plies are contiguous; the next run resumes the same games from where the
# database says they are. STORE_DB: another database than a new SQLite file
# (tests/pg/run.sh: a postgresql:// URL).
set -eu
cd "$(dirname "$0")/../.."
bin=build/store_load
[ -x "$bin" ] || { echo "missing $bin: run make"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

db=${STORE_DB:-$dir/k.db}
rounds=${KILL_ROUNDS:-8}
total=0
round=0
while [ "$round" -lt "$rounds" ]; do
    round=$((round + 1))
    : > "$dir/acks$round"
    "$bin" run "$db" 50 30 >> "$dir/acks$round" 2> "$dir/err$round" &
    pid=$!
    # Mid-burst: once moves are being acknowledged, a little later each round.
    waited=0
    while [ "$(grep -c '^ack ' "$dir/acks$round" || true)" -lt 100 ] && [ "$waited" -lt 200 ]; do
        sleep 0.05
        waited=$((waited + 1))
    done
    sleep "0.0$((round % 10))"
    kill -9 "$pid"
    wait "$pid" 2> /dev/null || true
    n=$(grep -c '^ack ' "$dir/acks$round" || true)
    if [ "$n" -eq 0 ]; then
        echo "round $round: no move acknowledged before the kill"
        cat "$dir/err$round"
        exit 1
    fi
    echo "round $round: killed after $n acknowledged moves"
    "$bin" check "$db" "$dir/acks$round"
    total=$((total + n))
done
echo "kill -9: $total acknowledged moves over $rounds kills, all present"
