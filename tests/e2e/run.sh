#!/bin/sh
# End-to-end browser tests: Debian's chromium (its headless shell, see
# lib.mjs) driven by playwright-core, run by Node's test runner. Screenshots go to tests/output/e2e/.
# Every test starts what it needs (a static file server or the real server
# on a free loopback port with a temporary database) and stops it.
# Arguments pick files by name: `sh tests/e2e/run.sh cluster room` runs
# cluster.test.mjs and room.test.mjs alone. cluster.test.mjs (three nodes,
# PostgreSQL, nginx: tests/pg/cluster.mjs) also needs tests/integration's
# modules (ws), installed here as the pg suite does.
# Two files at a time: a file mostly waits (on its server, on clocks, on
# the other players' pages), and with the headless shell the browser suite
# keeps the two cores 92% busy so (290 s against 450 s one at a time).
set -eu
cd "$(dirname "$0")"
command -v node >/dev/null || { echo "e2e: node is missing" >&2; exit 1; }
chromium=${CHROMIUM:-/usr/bin/chromium-headless-shell}
[ -x "$chromium" ] || { echo "e2e: $chromium is missing (make test installs chromium-headless-shell)" >&2; exit 1; }
if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
# Syntax check of every client module (ES modules, no build step).
for f in $(find ../../web-client -name '*.js'); do
    node --experimental-default-type=module --check "$f" || { echo "e2e: syntax error in $f" >&2; exit 1; }
done
if [ ! -d ../integration/node_modules/ws ]; then
    (cd ../integration && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
fi
mkdir -p ../output/e2e
if [ $# -gt 0 ]; then
    files=""
    for name in "$@"; do
        f=./${name%.test.mjs}.test.mjs
        [ -f "$f" ] || { echo "e2e: no $f" >&2; exit 2; }
        files="$files $f"
    done
    # shellcheck disable=SC2086 # one word a file
    exec node --test --test-concurrency=2 $files
fi
exec node --test --test-concurrency=2 ./*.test.mjs
