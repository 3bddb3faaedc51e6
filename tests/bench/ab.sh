#!/bin/bash
# ab.sh DIR LABEL: one full-speed and one paced run (database on /dev/shm) of the
# server built in DIR (a checkout of any commit, after make), with its own
# loadgen (LG=path overrides). For comparing two commits on one machine.
cd "$1"
d=$(mktemp -d /dev/shm/ab.XXXXXX)
# Every load client is 127.0.0.1: lift the games per address where there is
# such a cap.
lift=$(build/chameleon --help | grep -q -- --live-games-per-address && echo --live-games-per-address 1000000)
build/chameleon --host 127.0.0.1 --port 0 --db "$d/b.db" --web-root web-client $lift > "$d/out" 2>&1 &
pid=$!
for i in $(seq 50); do port=$(grep -o 'localhost:[0-9]*\|127.0.0.1:[0-9]*' "$d/out" | head -1 | cut -d: -f2); [ -n "$port" ] && break; sleep 0.1; done
full=$(${LG:-build/loadgen} --port "$port" --games 1000 --seconds 8 | tr '\n' ' ')
paced=$(${LG:-build/loadgen} --port "$port" --games 1000 --rate 5000 --seconds 8 | tr '\n' ' ')
kill $pid; wait $pid 2>/dev/null; rm -rf "$d"
echo "$2 full: $full"
echo "$2 paced: $paced"
