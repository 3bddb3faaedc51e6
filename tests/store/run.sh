#!/bin/sh
# kill -9 in the middle of a burst of moves, three times on the same
# database: after each kill every move the program had acknowledged (printed)
# is in the database, read back with plain SQLite, and every game's plies are
# contiguous; the next run resumes the same games from where the database
# says they are.
set -eu
cd "$(dirname "$0")/../.."
bin=build/store_load
[ -x "$bin" ] || { echo "missing $bin: run make"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

total=0
for round in 1 2 3; do
    "$bin" run "$dir/k.db" 50 30 > "$dir/acks$round" 2> "$dir/err$round" &
    pid=$!
    sleep "0.$((4 + round))"
    kill -9 "$pid"
    wait "$pid" 2> /dev/null || true
    n=$(grep -c '^ack ' "$dir/acks$round" || true)
    if [ "$n" -eq 0 ]; then
        echo "round $round: no move acknowledged before the kill"
        cat "$dir/err$round"
        exit 1
    fi
    echo "round $round: killed after $n acknowledged moves"
    "$bin" check "$dir/k.db" "$dir/acks$round"
    total=$((total + n))
done
echo "kill -9: $total acknowledged moves over 3 kills, all present"
