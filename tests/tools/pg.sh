#!/bin/sh
# A throw-away PostgreSQL for the tests, from Debian's binaries
# (/usr/lib/postgresql/*/bin: the postgresql package of install-deps.sh
# --test), never the system's service:
#
#   dir=$(mktemp -d)
#   url=$(sh tests/tools/pg.sh start "$dir")   # prints the postgresql:// URL
#   ...                                         # createdb: sh tests/tools/pg.sh createdb "$dir" NAME
#   sh tests/tools/pg.sh stop "$dir"            # stops it and removes $dir
#   sh tests/tools/pg.sh halt "$dir"            # stops it (-m fast), keeps $dir
#   sh tests/tools/pg.sh crash "$dir"           # kill -9 of the postmaster, keeps $dir
#   sh tests/tools/pg.sh resume "$dir"          # starts it again on its port
#
# The cluster lives in $dir (initdb, trust authentication for the user
# "chameleon"), listens on 127.0.0.1 on a free port and on a socket in $dir,
# fsync on (the default: the durability tests mean it). Run as root, it
# runs as the unprivileged user nobody (PostgreSQL refuses root), with $dir
# given to it. Starting takes a second or two.
set -eu

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || {
    echo "usage: $0 start|stop|halt|crash|resume|createdb DIR [NAME]" >&2
    exit 2
}

bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)
[ -n "$bin" ] && [ -x "$bin/postgres" ] || {
    echo "pg.sh: no PostgreSQL server binaries (install-deps.sh --test installs postgresql)" >&2
    exit 1
}

# pg_ctl start on $port (the server's options in one place).
pg_start() {
    as "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c max_connections=200 -c shared_buffers=32MB" \
        start > /dev/null 2>&1
}

# As the unprivileged user when root.
as() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    [ -d "$dir" ] || mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir"
    chmod 700 "$dir"
    as "$bin/initdb" -D "$dir/data" -U chameleon --auth=trust --no-sync -E UTF8 \
        --locale=C > "$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    tries=0
    while :; do
        tries=$((tries + 1))
        # A free port: the kernel's pick, released and taken by postgres
        # (another process may take it between: then again).
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        if pg_start; then
            break
        fi
        if [ "$tries" -ge 3 ]; then
            echo "pg.sh: postgres did not start:" >&2
            cat "$dir/postgres.log" >&2
            exit 1
        fi
    done
    echo "$port" > "$dir/port"
    echo "postgresql://chameleon@127.0.0.1:$port/postgres"
    ;;
createdb)
    name=${3:?a database name}
    port=$(cat "$dir/port")
    PGOPTIONS="-c client_min_messages=warning" as "$bin/psql" -q -h "$dir" -p "$port" -U chameleon -d postgres -v ON_ERROR_STOP=1 \
        -c "DROP DATABASE IF EXISTS \"$name\"" -c "CREATE DATABASE \"$name\"" > /dev/null
    echo "postgresql://chameleon@127.0.0.1:$port/$name"
    ;;
halt)
    as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null
    ;;
crash)
    # As a machine lost: the postmaster killed, its backends leaving on
    # their own (resume, crash recovery, needs them gone: their shared
    # memory).
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    kids=$(ps -o pid= --ppid "$pid" || true)
    kill -9 "$pid"
    for k in $kids; do
        n=0
        while kill -0 "$k" 2> /dev/null && [ "$n" -lt 100 ]; do
            sleep 0.1
            n=$((n + 1))
        done
    done
    ;;
resume)
    port=$(cat "$dir/port")
    pg_start || {
        cat "$dir/postgres.log" >&2
        exit 1
    }
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|stop|halt|crash|resume|createdb DIR [NAME]" >&2
    exit 2
    ;;
esac
