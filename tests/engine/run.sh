#!/bin/sh
# Engine suite: the real build/chameleon-engine driven over its stdin and
# stdout (node's test runner, no packages): a few plies of every game with
# each bestmove checked legal by build/perft --moves, malformed commands,
# stop after go infinite, go movetime on time, quit; short runs of
# build/match (result line, usage errors, --bench). The protocol checks run
# the sanitizer build when it exists; the timing checks the release build.
set -eu
cd "$(dirname "$0")"
: "${ENGINE_BIN:=../../build/chameleon-engine}"
if [ -z "${ENGINE_CHECK_BIN:-}" ]; then
    ENGINE_CHECK_BIN=$ENGINE_BIN
    [ -x ../../build/debug/chameleon-engine ] && ENGINE_CHECK_BIN=../../build/debug/chameleon-engine
fi
: "${PERFT_BIN:=../../build/perft}"
: "${MATCH_BIN:=../../build/match}"
export ENGINE_BIN ENGINE_CHECK_BIN PERFT_BIN MATCH_BIN
exec node --test --test-reporter=spec ./*.test.mjs
