#!/bin/sh
# Hardening suite (issue 18): the real server (sanitizer build) attacked as
# the internet would: limits, storage faults, bad input, kills. Each
# *.test.mjs starts its own servers on loopback (helpers in
# ../integration/lib.mjs); each *.test.sh is a shell scenario run after them.
set -eu
cd "$(dirname "$0")"
# The tests share ../integration/lib.mjs, which resolves ws from its own
# folder: install both (this suite may run before the integration suite).
for dir in . ../integration; do
    if [ ! -d "$dir/node_modules/ws" ]; then
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
done
: "${CHAMELEON_BIN:=../../build/debug/chameleon}"
export CHAMELEON_BIN
set -- ./*.test.mjs
if [ -f "$1" ]; then
    # Two files at once: their servers mostly wait on the network, and on
    # make test's two cores this takes half the time (node's default is one).
    node --test --test-concurrency=2 --test-reporter=spec "$@"
fi
for t in ./*.test.sh; do
    [ -f "$t" ] || continue
    echo "--- $t"
    sh "$t"
done
