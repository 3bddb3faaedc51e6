#!/bin/sh
# Integration suite: the real server (sanitizer build) on a free loopback port
# with a temporary database, driven by real WebSocket clients (node + ws).
set -eu
cd "$(dirname "$0")"
if [ ! -d node_modules/ws ]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
: "${CHAMELEON_BIN:=../../build/debug/chameleon}"
export CHAMELEON_BIN
# Two files at once: their servers mostly wait on the network, and on
# make test's two cores this takes half the time (node's default is one).
exec node --test --test-concurrency=2 --test-reporter=spec ./*.test.mjs
