#!/bin/sh
# make bench, relay section (issue 20, "Several nodes"): the hop between two
# nodes, Redis pub/sub against PostgreSQL LISTEN/NOTIFY, measured by
# build/relay_bench (tests/bench/relay_bench.c). Starts its own redis-server
# and PostgreSQL (Debian's binaries, install-deps.sh --test) on loopback in a
# temporary directory, as the user nobody when run as root, and leaves
# nothing running. Prints a markdown section on stdout; progress on stderr.
# RELAY_SECONDS (default 10) sets the latency runs' length, RELAY_RUNS (3)
# the runs of each. RELAY_CHECK=1: the test (tests/relay/run.sh): one short
# run of each, and exit 1 unless every event was acknowledged once and in
# order, and PostgreSQL refused the 8,000-byte event that Redis relayed.
set -eu
cd "$(dirname "$0")/../.."

secs=${RELAY_SECONDS:-10}
runs=${RELAY_RUNS:-3}
tsecs=$(((secs + 1) / 2))
check=${RELAY_CHECK:-}
if [ -n "$check" ]; then
    secs=0.3
    tsecs=0.3
    runs=1
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)
command -v redis-server > /dev/null && [ -n "$pgbin" ] && [ -x "$pgbin/postgres" ] || {
    echo "relay bench: needs redis-server and postgresql (deploy/install-deps.sh --test)" >&2
    exit 1
}
make --no-print-directory build/relay_bench >&2

dir=$(mktemp -d "${TMPDIR:-/tmp}/relay-bench.XXXXXX")
chmod 755 "$dir"
as() { if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown nobody "$dir"
cleanup() {
    if [ -f "$dir/redis.pid" ]; then
        kill "$(cat "$dir/redis.pid")" 2> /dev/null || true
    fi
    [ -d "$dir/pg" ] && sh tests/tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A free loopback port (the kernel's pick, released for the server).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Redis: no persistence (pub/sub keeps nothing anyway).
rport=$(free_port)
as redis-server --bind 127.0.0.1 --port "$rport" --save '' --appendonly no \
    --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
for _ in $(seq 50); do
    redis-cli -p "$rport" ping > /dev/null 2>&1 && break
    sleep 0.1
done

# PostgreSQL: as the tests start it (tests/tools/pg.sh: fsync on).
sh tests/tools/pg.sh start "$dir/pg" > /dev/null
pport=$(cat "$dir/pg/port")
pg="host=127.0.0.1 port=$pport user=chameleon dbname=postgres sslmode=disable gssencmode=disable"

machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
field() { echo "$1" | sed -n "s|.* $2 \([0-9.]*\).*|\1|p"; }
row() { # label result command
    echo "| $1 | $(field "$2" msgs/s) | $(field "$2" p50_ms) ms | $(field "$2" p99_ms) ms | $(field "$2" max_ms) ms | $(field "$2" sent) / $(field "$2" lost) / $(($(field "$2" reordered) + $(field "$2" b_reordered))) | $3 |"
}
run() { # broker-label command...
    label=$1
    shift
    echo "relay bench: $label: $*" >&2
    res=$(build/relay_bench "$@") || {
        echo "relay bench: $label failed" >&2
        exit 1
    }
    echo "$res" >&2
    [ -z "$check" ] && return 0
    sent=$(field "$res" sent)
    [ "$sent" -gt 0 ] && [ "$(field "$res" acked)" = "$sent" ] && [ "$(field "$res" dup)" = 0 ] &&
        [ "$(field "$res" reordered)" = 0 ] && [ "$(field "$res" b_reordered)" = 0 ] || {
        echo "relay check: $label: events lost, doubled or reordered: $res" >&2
        exit 1
    }
}

echo "The relay hop between two nodes (issue 20): node A publishes a room's move"
echo "events (300 bytes of JSON, the event of PROTOCOL.md), node B receives each"
echo "and publishes an acknowledgement back on another channel; the time is A's,"
echo "from publishing to the acknowledgement (two hops through the broker). Two"
echo "threads, each its own libuv loop and two connections. Redis $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p')"
echo "(hiredis async) and PostgreSQL $("$pgbin/postgres" --version | sed -n 's/^postgres (PostgreSQL) \([0-9.]*\).*/\1/p') (libpq non-blocking, NOTIFYs queued"
echo "while a query is in flight sent as one transaction), each started by the"
echo "bench on loopback, PostgreSQL with fsync on. Rows \"committed\": A first"
echo "writes each event durably to PostgreSQL (an INSERT, grouped as above), as"
echo "the owner of a room commits a move before relaying it: for Redis the"
echo "PUBLISH follows the commit, for PostgreSQL the NOTIFY is in the same"
echo "transaction. ${runs} runs of each, as"
echo "measured; the machine was shared with other jobs (load average"
echo "$(cut -d' ' -f1-3 /proc/loadavg) at the start). Measured $(date -u +%Y-%m-%d) on $machine."
echo
echo "| broker, load | msgs/s delivered | p50 round trip | p99 | max | sent / lost / reordered | command |"
echo "|---|---|---|---|---|---|---|"
for mode in "latency 1000 $secs" "throughput 1000 $tsecs"; do
    case $mode in
    latency*) what="1,000 events/s for ${secs} s" ;;
    *) what="as fast as acknowledged, 1,000 in flight, ${tsecs} s" ;;
    esac
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        run redis redis 127.0.0.1 "$rport" $mode
        row "Redis, $what, run $i" "$res" "\`build/relay_bench redis 127.0.0.1 PORT $mode\`"
    done
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        run pg pg "$pg" $mode
        row "PostgreSQL, $what, run $i" "$res" "\`build/relay_bench pg 'host=127.0.0.1 port=PORT ...' $mode\`"
    done
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        run pg-async pg "$pg options='-c synchronous_commit=off'" $mode
        row "PostgreSQL, synchronous_commit off for the NOTIFYs, $what, run $i" "$res" "\`build/relay_bench pg '... options=-csynchronous_commit=off' $mode\`"
    done
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        run redis-store redis 127.0.0.1 "$rport" $mode --store "$pg"
        row "Redis, committed (INSERT, PUBLISH after the commit), $what, run $i" "$res" "\`build/relay_bench redis 127.0.0.1 PORT $mode --store 'host=...'\`"
    done
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        run pg-store pg "$pg" $mode --store
        row "PostgreSQL, committed (INSERT and NOTIFY in one transaction), $what, run $i" "$res" "\`build/relay_bench pg 'host=...' $mode --store\`"
    done
done

# The payload limit: PostgreSQL refuses a NOTIFY payload of 8,000 bytes or
# more (a whole position or a long chat line would need the store and a
# reference instead); Redis takes it.
echo
if err=$(build/relay_bench pg "$pg" latency 10 0.5 --size 8000 2>&1); then
    echo "An 8,000-byte event: PostgreSQL took it (unexpected: its limit is 7,999 bytes)."
    [ -z "$check" ] || exit 1
else
    [ -z "$check" ] || echo "$err" | grep -q "payload string too long" || {
        echo "relay check: the 8,000-byte event failed otherwise: $err" >&2
        exit 1
    }
    echo "An 8,000-byte event: PostgreSQL refuses it ($(echo "$err" | head -n 1 | sed 's/^relay_bench: //; s/ *$//'));"
fi
run redis-8000 redis 127.0.0.1 "$rport" latency 10 0.5 --size 8000
echo "Redis relays it (lost $(field "$res" lost) of $(field "$res" sent))."
