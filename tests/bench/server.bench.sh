#!/bin/sh
# make bench, server section: the release server on a free loopback port with
# a fresh database (on disk, every move durable before it is relayed), driven
# by build/loadgen (real WebSocket clients on libwebsockets that play legal
# moves). Prints a markdown section on stdout; progress on stderr.
set -eu
cd "$(dirname "$0")/../.."
[ -x build/chameleon ] && [ -x build/loadgen ] || { echo "build first (make)" >&2; exit 1; }
dir=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

# start_server [DBDIR]: a fresh database in DBDIR (default: the temp dir, on
# disk).
start_server() {
    dbdir=${1:-$dir}
    rm -f "$dbdir"/b.db*
    # loadgen's players move and start games far faster than people, all
    # from 127.0.0.1: lift every cap that one address meets (messages and
    # seek creations per identity; games, watched rooms and connections
    # per address; guests and connections in all), or the bench measures
    # the caps (it once played 128 games where it said 1,000).
    build/chameleon --host 127.0.0.1 --port 0 --db "$dbdir/b.db" --web-root web-client \
        --messages-per-identity 1000000000 --seeks-per-minute 1000000000 \
        --live-games-per-address 1000000 --corr-games-per-address 1000000 \
        --live-games-per-identity 1000000 --watched-rooms-per-address 1000000 \
        --watched-rooms-per-identity 1000000 --max-connections-per-address 1000000 \
        --register-per-address 1000000000 --max-guests 100000000 \
        > "$dir/out" 2> "$dir/err" &
    pid=$!
    for _ in $(seq 50); do
        port=$(sed -n 's/.*:\([0-9]*\)\/$/\1/p' "$dir/out" 2>/dev/null || true)
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    echo "server did not start" >&2
    cat "$dir/err" >&2
    exit 1
}
stop_server() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
# played FILE GAMES: the run of FILE started its GAMES games with no error,
# or the bench stops here, loudly: figures of fewer games are not the
# figures of the load it names.
played() {
    started=$(field games_started "$1")
    errors=$(field errors "$1")
    if [ "${started:-0}" -lt "$2" ] || [ "${errors:-1}" -ne 0 ]; then
        echo "server bench: FAILED: $2 games asked, ${started:-none} started, ${errors:-?} errors ($1)" >&2
        cat "$dir/err" >&2
        exit 1
    fi
}
rss_kb() { sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status"; }
field() { sed -n "s/^$1 //p" "$2"; }

secs=${BENCH_SECONDS:-10}
load=$(cut -d' ' -f1-3 /proc/loadavg)

# 1. Throughput: 1000 concurrent games, moves as fast as the server relays.
start_server
echo "server bench: 1000 games, full speed, ${secs}s" >&2
build/loadgen --port "$port" --games 1000 --seconds "$secs" > "$dir/max" || true
stop_server
played "$dir/max" 1000

# 2. Latency at a fixed rate: 1000 games pacing 5000 moves/s in all.
start_server
echo "server bench: 1000 games at 5000 moves/s, ${secs}s" >&2
build/loadgen --port "$port" --games 1000 --rate 5000 --seconds "$secs" > "$dir/paced" || true
stop_server
played "$dir/paced" 1000

# 2c. The same while 50 games against the computer (level 8, the bot threads
# always busy: --bot-threads defaults to the cores) run beside them: the
# relay of people's moves must not wait for the bots' searches.
start_server
echo "server bench: same, with 50 games against level-8 bots" >&2
build/loadgen --port "$port" --games 1000 --rate 5000 --seconds "$secs" --bot-games 50 --bot-level 8 \
    > "$dir/bots" || true
stop_server
played "$dir/bots" 1000

# 2b. The same on a RAM disk: what the server costs without the disk's fsync.
shm=
if [ -d /dev/shm ] && shm=$(mktemp -d /dev/shm/chameleon-bench.XXXXXX); then
    start_server "$shm"
    echo "server bench: same, database on /dev/shm" >&2
    build/loadgen --port "$port" --games 1000 --rate 5000 --seconds "$secs" > "$dir/shm" || true
    stop_server
    played "$dir/shm" 1000
    rm -rf "$shm"
fi

# 3. Memory: 10,000 idle connections (hello, then nothing).
start_server
sleep 0.3
rss0=$(rss_kb)
echo "server bench: 10000 idle connections" >&2
build/loadgen --port "$port" --games 0 --idle 10000 --seconds 16 > "$dir/idle" &
lg=$!
sleep 14
rss1=$(rss_kb)
wait "$lg" || true
stop_server
welcomed=$(field idle_welcomed "$dir/idle")
if [ "${welcomed:-0}" -lt 10000 ]; then
    echo "server bench: FAILED: 10000 idle connections asked, ${welcomed:-none} welcomed" >&2
    exit 1
fi

machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat <<MD
Live server, release build, loopback, load generator on the same $(nproc) cores
(\`build/loadgen\`: real WebSocket clients on libwebsockets, legal random moves
of \`$(field game "$dir/max")\` kept with the rules core, \`"board":false\`).
Every move is durable in SQLite (WAL, synchronous=FULL, grouped commits)
before it is relayed. Latency: from a move sent to the opponent receiving it.
Measured $(date -u +%Y-%m-%d) on $machine; load average before the runs:
$load (the machine is shared).

| run | games | target moves/s | moves/s | p50 | p99 | max | errors | command |
|---|---|---|---|---|---|---|---|---|
| full speed | 1000 | - | $(field moves_per_s "$dir/max") | $(field p50_us "$dir/max") us | $(field p99_us "$dir/max") us | $(field max_us "$dir/max") us | $(field errors "$dir/max") | \`build/loadgen --port P --games 1000 --seconds $secs\` |
| paced | 1000 | 5000 | $(field moves_per_s "$dir/paced") | $(field p50_us "$dir/paced") us | $(field p99_us "$dir/paced") us | $(field max_us "$dir/paced") us | $(field errors "$dir/paced") | \`build/loadgen --port P --games 1000 --rate 5000 --seconds $secs\` |
| paced, with 50 games against level-8 bots | 1000 | 5000 | $(field moves_per_s "$dir/bots") | $(field p50_us "$dir/bots") us | $(field p99_us "$dir/bots") us | $(field max_us "$dir/bots") us | $(field errors "$dir/bots") | \`build/loadgen --port P --games 1000 --rate 5000 --seconds $secs --bot-games 50 --bot-level 8\` |
| paced, database on /dev/shm (no disk fsync) | 1000 | 5000 | $(field moves_per_s "$dir/shm") | $(field p50_us "$dir/shm") us | $(field p99_us "$dir/shm") us | $(field max_us "$dir/shm") us | $(field errors "$dir/shm") | same, \`--db /dev/shm/...\` |

With bots: the 50 games against the computer played $(field bot_moves_per_s "$dir/bots") bot moves/s
($(field bot_moves "$dir/bots") in all) on the server's bot threads (SCHED_IDLE: searches run on
what the loop and the store leave), while the latency above is only the
moves between people.

Idle connections: $(field idle_welcomed "$dir/idle") of 10000 welcomed; server RSS
$((rss0 / 1024)) MiB before, $((rss1 / 1024)) MiB with them open
($(( (rss1 - rss0) * 1024 / 10000 )) bytes per connection); command
\`build/loadgen --port P --games 0 --idle 10000 --seconds 16\`.

Targets (issue 6): 20,000 moves/s at 1000 games; p99 under 10 ms at 5,000
moves/s; 10,000 idle connections under 150 MB. A move cannot be relayed
before one fsync of the shared disk (see the store section for its p99), and
the load average above says how much of the 2 cores the runs had.
MD
