#!/bin/sh
# Several nodes (issue 20): prints the markdown section "nodes" of
# BENCHMARKS.md (run by tests/bench/run.sh; BENCH=nodes make bench).
# Release build, every process unprivileged (nobody when run as root): one
# PostgreSQL (tests/tools/pg.sh: fsync on, loopback), then for each set-up
# a fresh database and the nodes on it (--node n1..nN, as
# chameleon@.service runs them), and build/loadgen (real WebSocket
# clients, legal random moves) with each game's two players on the nodes
# the set-up names (--ports). The lobby is held by n1 (the live node whose
# name sorts first): every seek goes there, and its game is placed on the
# node of the player who fills it, the second of --ports (server/cluster/place.c);
# the first player, if on another node, has each move forwarded there (a
# NOTIFY) and each event relayed back (another). After each run the rooms'
# leases are counted by node.
#
# Loads, on one cluster started afresh per set-up and run: 200 games paced
# at 1,000 moves/s in all (the cost of a hop with the machine not full),
# then 1,000 games as a closed loop (each game's next move sent
# when the opponent has received the last: moves/s is what the 2 cores
# give with everything on them). Latency: from a move sent to the
# opponent receiving its event (durable first: every move is committed
# before it is relayed). CPU: the servers' and PostgreSQL's user + system
# time (/proc) over the measured seconds, per 1,000 moves. From /metrics:
# the mean commit time of the store holding the rooms and the moves per
# commit (what bounds the closed loop on this disk), and the relay's
# messages (NOTIFYs) per move. loadgen sends again a move answered
# unknown_room (a new game's first move from another node, raced with the
# game's creation: see the section's note) and counts the games it hit.
#
# Two references on the same machine at the same time: one server (no
# --node) on PostgreSQL and on SQLite. Run by run, every set-up in each.
# BENCH_SECONDS (5) measured after a warm-up of 2 s; BENCH_RUNS (3); about
# 4 min 40 s in all.
set -eu
cd "$(dirname "$0")/../.."
[ -x build/chameleon ] && [ -x build/loadgen ] || { echo "build first (make)" >&2; exit 1; }
secs=${BENCH_SECONDS:-5}
runs=${BENCH_RUNS:-3}
warm=2
dir=$(mktemp -d "${TMPDIR:-/tmp}/nodes-bench.XXXXXX")
pgdir=$(mktemp -d "${TMPDIR:-/tmp}/nodes-bench-pg.XXXXXX")
chmod 755 "$dir"
pids=
servers=
stop_nodes() {
    for p in $pids; do kill "$p" 2> /dev/null || true; done
    for p in $pids; do
        i=0
        while kill -0 "$p" 2> /dev/null && [ $i -lt 200 ]; do
            sleep 0.05
            i=$((i + 1))
        done
        kill -9 "$p" 2> /dev/null || true
        wait "$p" 2> /dev/null || true
    done
    pids=
    servers=
}
cleanup() {
    stop_nodes
    sh tests/tools/pg.sh stop "$pgdir"
    rm -rf "$dir"
}
trap cleanup EXIT
sh tests/tools/pg.sh start "$pgdir" > /dev/null
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
load=$(cut -d' ' -f1-3 /proc/loadavg)

# As the unprivileged user when root (PostgreSQL runs so too); setpriv
# execs the server, so $! is the server's pid.
nobody=
[ "$(id -u)" -eq 0 ] && nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"

# start NAME DB [--node NAME]: a server on a free port, its port in
# $dir/NAME.port and its pid added to $pids. loadgen's players move and
# start games far faster than people, all from 127.0.0.1: every cap one
# address meets is lifted (the same flags as server.bench.sh), or the
# bench measures the caps.
start() {
    name=$1
    db=$2
    shift 2
    : > "$dir/$name.out"
    $nobody build/chameleon --host 127.0.0.1 --port 0 --db "$db" --web-root web-client "$@" \
        --messages-per-identity 1000000000 --seeks-per-minute 1000000000 \
        --live-games-per-address 1000000 --corr-games-per-address 1000000 \
        --live-games-per-identity 1000000 --watched-rooms-per-address 1000000 \
        --watched-rooms-per-identity 1000000 --max-connections-per-address 1000000 \
        --register-per-address 1000000000 --max-guests 100000000 \
        > "$dir/$name.out" 2> "$dir/$name.err" &
    pids="$pids $!"
    for _ in $(seq 150); do
        port=$(sed -n 's/.*:\([0-9]*\)\/$/\1/p' "$dir/$name.out")
        if [ -n "$port" ]; then
            echo "$port" > "$dir/$name.port"
            servers="$servers $port"
            return 0
        fi
        sleep 0.1
    done
    echo "$name did not start" >&2
    cat "$dir/$name.err" >&2
    exit 1
}
port() { cat "$dir/$1.port"; }

# cluster N DBNAME: PostgreSQL database DBNAME afresh, nodes n1..nN on it,
# each knowing that n1 holds the lobby before the load starts.
cluster() {
    url=$(sh tests/tools/pg.sh createdb "$pgdir" "$2")
    for i in $(seq "$1"); do
        start "n$i" "$url" --node "n$i"
    done
    for i in $(seq "$1"); do
        for _ in $(seq 100); do
            grep -q 'lobby.s node.*node=n1' "$dir/n$i.err" && break
            sleep 0.1
        done
    done
}

# CPU ticks (user + system) of the nodes, and of PostgreSQL (the
# postmaster and its backends).
ticks() {
    t=0
    for p in "$@"; do
        [ -r "/proc/$p/stat" ] || continue
        t=$((t + $(sed 's/^.*) //' "/proc/$p/stat" | cut -d' ' -f12,13 | tr ' ' '+')))
    done
    echo "$t"
}
pg_pids() {
    pm=$(head -1 "$pgdir/data/postmaster.pid")
    echo "$pm" $(ps -o pid= --ppid "$pm")
}
hz=$(getconf CLK_TCK)

# metric PORT NAME: a counter of the server on PORT (0 if absent).
metric() {
    curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }'
}
# notifies: the relay's messages published, all servers together.
notifies() {
    t=0
    for p in $servers; do
        t=$((t + $(metric "$p" chameleon_relay_published_total)))
    done
    echo "$t"
}

# measure LABEL PORTS HOME LOADGEN-ARGS...: one run (HOME: the port of the
# server holding the rooms); its figures appended to $dir/LABEL, one line:
# moves/s p50_us p99_us max_us nodes_cpu_ms pg_cpu_ms retries rooms errors
# commit_ms moves_per_commit notifies_per_move unknown_room_games
# games_started (CPU per 1,000 moves).
measure() {
    label=$1
    ports=$2
    home=$3
    shift 3
    echo "nodes bench: $label, --ports $ports $*" >&2
    build/loadgen --ports "$ports" --warmup "$warm" --seconds "$secs" "$@" > "$dir/lg" &
    lg=$!
    sleep "$warm"
    n0=$(ticks $pids)
    p0=$(ticks $(pg_pids))
    c0=$(metric "$home" chameleon_store_commit_seconds_count)
    s0=$(metric "$home" chameleon_store_commit_seconds_sum)
    r0=$(notifies)
    wait "$lg" || echo "nodes bench: loadgen failed: $(grep -E '^(errors|connection_errors)' "$dir/lg" | tr '\n' ' ')" >&2
    # Fewer games than asked, or errors: the figures are not those of the
    # load this run names; the bench stops here, loudly.
    asked=$(echo " $* " | sed -n 's/.* --games \([0-9]*\) .*/\1/p')
    started=$(sed -n 's/^games_started //p' "$dir/lg")
    errs=$(sed -n 's/^errors //p' "$dir/lg")
    if [ "${started:-0}" -lt "${asked:-0}" ] || [ "${errs:-1}" -ne 0 ]; then
        echo "nodes bench: FAILED: $label: ${asked:-?} games asked, ${started:-none} started, ${errs:-?} errors" >&2
        cat "$dir/lg" >&2
        exit 1
    fi
    n1=$(ticks $pids)
    p1=$(ticks $(pg_pids))
    c1=$(metric "$home" chameleon_store_commit_seconds_count)
    s1=$(metric "$home" chameleon_store_commit_seconds_sum)
    r1=$(notifies)
    f() { sed -n "s/^$1 //p" "$dir/lg"; }
    moves=$(f moves)
    ms() { awk -v t="$1" -v m="$moves" -v hz="$hz" 'BEGIN { printf "%.0f", m ? t * 1000 / hz / m * 1000 : 0 }'; }
    rooms=-
    if [ -n "${url:-}" ]; then
        rooms=$(psql "$url" -Atc "SELECT string_agg(node || ':' || c, ',' ORDER BY node) FROM (SELECT node, count(*) c FROM room_leases GROUP BY node) x")
        [ -n "$rooms" ] || rooms=-
    fi
    echo "$(f moves_per_s) $(f p50_us) $(f p99_us) $(f max_us) $(ms $((n1 - n0))) $(ms $((p1 - p0))) $(f unknown_room_retries) $rooms $(f errors) $(awk -v c="$((c1 - c0))" -v s0="$s0" -v s1="$s1" -v m="$moves" -v r="$((r1 - r0))" \
        'BEGIN { printf "%.1f %.0f %.2f", c ? (s1 - s0) * 1000 / c : 0, c ? m / c : 0, m ? r / m : 0 }') $(f unknown_room_games) $(f games_started)" >> "$dir/$label"
}

# A set-up, run RUN: LABEL-PREFIX, how to start it (a command), the
# servers of the two players and the one holding the rooms (nK, or s for
# one server).
setup() {
    r=$1
    pre=$2
    how=$3
    a=$4
    b=$5
    h=$6
    url=
    $how "${pre}_$r"
    pa=$(port "$a")
    pb=$(port "$b")
    measure "$pre.paced" "$pa,$pb" "$(port "$h")" --games 200 --rate 1000
    measure "$pre.1000" "$pa,$pb" "$(port "$h")" --games 1000
    stop_nodes
}
one_node() { cluster 1 "$1"; }
two_nodes() { cluster 2 "$1"; }
three_nodes() { cluster 3 "$1"; }
single_pg() { url=$(sh tests/tools/pg.sh createdb "$pgdir" "$1"); start s "$url"; }
single_sqlite() {
    rm -rf "$dir/sq"
    mkdir -p "$dir/sq"
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir/sq"
    start s "$dir/sq/b.db"
}

# Run by run, every set-up in each: a slow spell of the shared machine
# falls on all of them alike.
for r in $(seq "$runs"); do
    setup "$r" sqlite single_sqlite s s s
    setup "$r" pg single_pg s s s
    setup "$r" one one_node n1 n1 n1
    setup "$r" two_remote two_nodes n2 n2 n1
    setup "$r" two_split two_nodes n1 n2 n1
    setup "$r" three three_nodes n2 n3 n1
done

# row LABEL SET-UP PLAYERS LOAD COMMAND: the runs' figures, "run 1 / 2 / 3"
# in each cell.
row() {
    awk -v setup="$2" -v players="$3" -v load="$4" -v cmd="$5" '
        function cell(k, scale, fmt,   i, s) {
            for (i = 1; i <= n; i++)
                s = s (i > 1 ? " / " : "") (scale ? sprintf(fmt, f[i, k] / scale) : f[i, k])
            return s
        }
        function games(   i, s) {
            for (i = 1; i <= n; i++)
                s = s (i > 1 ? " / " : "") f[i, 13] " of " f[i, 14]
            return s
        }
        { n++; for (k = 1; k <= NF; k++) f[n, k] = $k }
        END {
            printf "| %s | %s | %s | %s | %s | %s | %s; %s | %s | %s | %s | %s; %s | %s | `%s` |\n",
                setup, players, load, cell(1, 1, "%.0f"), cell(2, 1000, "%.1f"),
                cell(3, 1000, "%.1f"), cell(5, 1, "%d"), cell(6, 1, "%d"), cell(10, 0),
                cell(11, 0), cell(12, 0), games(), cell(9, 1, "%d"), cell(8, 0), cmd
        }' "$dir/$1"
}

cat << MD
Several nodes (issue 20), release build, every process unprivileged on
loopback: PostgreSQL 15 (fsync on, \`synchronous_commit\` on), the nodes
(\`--node n1..nN\` on a fresh database per run) and \`build/loadgen\` (real
WebSocket clients playing legal random moves of \`$(sed -n 's/^game //p' "$dir/lg")\`), all on
the same $(nproc) cores. n1 holds the lobby: every seek goes there, and
its game is placed on the node of the player who fills it, the second
"players on" (\`server/cluster/place.c\`; "rooms": the leases by node after the
run); the first player, if on another node, has each move forwarded to the
room's node and each event relayed back (PostgreSQL \`LISTEN/NOTIFY\`, one
hop each way). Every move is durable before it is
relayed. Two loads: 200 games paced at 1,000 moves/s in all (the cost of
the hops with the machine not full) and 1,000 games as a closed loop (a
game's next move sent when the opponent has received the last: what the
2 cores give with everything on them). Latency: a move sent to the
opponent receiving it. CPU: the servers' and PostgreSQL's user + system
time over the measured seconds, per 1,000 moves (the load generator's is
not counted). "commit ms": the mean time of one commit of the store of
the server holding the rooms (its \`chameleon_store_commit_seconds\`), with
the moves each commit carried; "NOTIFYs per move": the relay's messages
published by all the nodes (\`chameleon_relay_published_total\`) per
move. **On this 2-core machine, shared by the load generator, PostgreSQL
and every node, these figures measure the cost per move and per hop of
each set-up, not its capacity**: three nodes on two cores cannot relay
more than one. One server without \`--node\` on SQLite and on
PostgreSQL, measured in the same run, for reference. Three runs each (run
1 / 2 / 3 in each cell), a cluster started afresh per run, ${warm} s of
warm-up then ${secs} s measured; load average before the runs: $load (the
machine is shared). Measured $(date -u +%Y-%m-%d) on $machine.

| set-up | players on | load | moves/s | p50 ms | p99 ms | CPU ms per 1,000 moves: servers; PostgreSQL | commit ms | moves per commit | NOTIFYs per move | games whose move met unknown_room; errors | rooms | command |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
MD
for l in paced 1000; do
    case $l in
    paced) load="200 games, 1,000 moves/s" a="--games 200 --rate 1000" ;;
    1000) load="1,000 games, closed loop" a="--games 1000" ;;
    esac
    w="--warmup $warm --seconds $secs"
    row "sqlite.$l" "one server, SQLite" "it" "$load" "build/loadgen --ports P,P $a $w"
    row "pg.$l" "one server, PostgreSQL" "it" "$load" "build/loadgen --ports P,P $a $w"
    row "one.$l" "1 node" "n1, n1" "$load" "build/loadgen --ports P1,P1 $a $w"
    row "two_remote.$l" "2 nodes" "n2, n2" "$load" "build/loadgen --ports P2,P2 $a $w"
    row "two_split.$l" "2 nodes" "n1, n2" "$load" "build/loadgen --ports P1,P2 $a $w"
    row "three.$l" "3 nodes" "n2, n3" "$load" "build/loadgen --ports P2,P3 $a $w"
done
cat << MD

"unknown_room": the games (of those started in the run, warm-up
included) whose first move, sent by a player on another node than the
room's, was answered \`unknown_room\`: the room's state reaches the player
(relayed at once) before the game's creation has committed on its node, and the
player's node, asking the store who holds the room, finds no lease yet.
The load generator sends the move again 10 ms later (its latency counts
from the first send); a person's client would show the error. Nodes
started as \`build/chameleon --node nK --db postgresql://... --port 0\`
with every limit one address meets lifted (the flags of the server
section: \`--messages-per-identity\`, \`--seeks-per-minute\`,
\`--live-games-per-address\`, \`--max-connections-per-address\`, ...);
a run that starts fewer games than asked, or has errors, stops the bench.
The one server the same without \`--node\`. All of it: \`BENCH=nodes make bench\`
(\`tests/bench/nodes.bench.sh\`).
MD
