#!/bin/sh
# The store on PostgreSQL: one PostgreSQL started from Debian's binaries
# (tests/tools/pg.sh: an unprivileged process, a temporary directory, a
# loopback port), then
#   1. every unit test that opens a store, with CHAMELEON_TEST_PG set (and
#      test_store_lease: two nodes on one database, PostgreSQL only): each
#      case runs on a fresh PostgreSQL database (tests/unit/pg_fixture.h)
#      instead of a SQLite file; and test_relay (server/cluster/relay.c, the
#      LISTEN/NOTIFY relay between nodes, which needs PostgreSQL);
#   2. the kill -9 test of tests/store/run.sh (a burst of moves killed four
#      times, every acknowledged move in the database) on a database of it;
#   3. the server itself on it (pg.test.mjs: games across a kill -9, one
#      server per database, accounts; nodes.test.mjs: two nodes (--node)
#      side by side, a single server excluded; reconnect.test.mjs, on a PostgreSQL
#      of its own: a game across terminated backends and a restart of
#      PostgreSQL; relay.test.mjs: --relay-channel, the relay between
#      nodes, LISTENing on its session and back after pg_terminate_backend;
#      takeover.test.mjs: a node killed three times mid-game, the other one
#      taking its room over, a lease lost by a live node, a correspondence
#      game between accounts taken over; cluster.test.mjs: three nodes
#      behind nginx with deploy/nginx-nodes.conf (tests/pg/cluster.mjs),
#      WebSockets spread over them, a node killed passed over and back;
#      loadgen.test.mjs: build/loadgen --ports with games on n1 played
#      from n2 and from both nodes, the load of BENCH=nodes make bench;
#      shutdown.test.mjs, on a PostgreSQL of its own: a node and a single
#      server stop on SIGTERM after a kill -9 of PostgreSQL);
#   4. with PG_FULL=1 (not by default: it takes minutes), the whole
#      integration suite again with every server on PostgreSQL
#      (CHAMELEON_IT_PG, tests/integration/lib.mjs).
# The same unit tests run on SQLite in the unit suite (tests/run.sh).
set -eu
cd "$(dirname "$0")/../.."
dir=$(mktemp -d "${TMPDIR:-/tmp}/chameleon-pg.XXXXXX")
trap 'sh tests/tools/pg.sh stop "$dir"' EXIT INT TERM
CHAMELEON_TEST_PG=$(sh tests/tools/pg.sh start "$dir")
CHAMELEON_TEST_PG_DIR=$dir
export CHAMELEON_TEST_PG CHAMELEON_TEST_PG_DIR

status=0
for t in test_sql test_sql_pg test_store test_store_accounts test_store_mail test_store_ratings \
    test_store_tourney test_store_lease test_pgn test_room test_lobby test_relay; do
    bin=build/debug/tests/$t
    [ -x "$bin" ] || { echo "missing $bin: run make debug"; exit 1; }
    echo "--- $t on PostgreSQL"
    "$bin" || status=1
done

echo "--- tests/store/run.sh (kill -9) on PostgreSQL"
STORE_DB=$(sh tests/tools/pg.sh createdb "$dir" chameleon_kill) KILL_ROUNDS=4 \
    sh tests/store/run.sh || status=1

if [ ! -d tests/integration/node_modules/ws ]; then
    (cd tests/integration && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
fi
: "${CHAMELEON_BIN:=build/debug/chameleon}"
CHAMELEON_BIN=$(cd "$(dirname "$CHAMELEON_BIN")" && pwd)/$(basename "$CHAMELEON_BIN")
export CHAMELEON_BIN
# Two files at once (each on databases of its own): they mostly wait on
# leases and the network, and on make test's two cores this halves the time.
node --test --test-concurrency=2 --test-reporter=spec tests/pg/*.test.mjs || status=1
if [ -n "${PG_FULL:-}" ]; then
    echo "--- tests/integration on PostgreSQL"
    (cd tests/integration && CHAMELEON_IT_PG=1 node --test --test-reporter=spec ./*.test.mjs) ||
        status=1
fi
exit $status
