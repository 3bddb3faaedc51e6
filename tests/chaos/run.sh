#!/bin/sh
# Chaos suite: tests/chaos/chaos.mjs plays random legal actions of every kind
# against the sanitizer server for CHAOS_SECONDS (make test: 30; make chaos:
# 600), restarting it with SIGTERM and kill -9, and checks after each step
# that it answers and that every acknowledged move is stored. CHAOS_SEED=<n>
# repeats a run (a failure prints its seed). It shares
# ../integration/lib.mjs, which resolves ws from its own folder.
set -eu
cd "$(dirname "$0")"
if [ ! -d ../integration/node_modules/ws ]; then
    (cd ../integration && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
: "${CHAMELEON_BIN:=../../build/debug/chameleon}"
export CHAMELEON_BIN
: "${CHAOS_SECONDS:=30}"
export CHAOS_SECONDS
exec node ./chaos.mjs
