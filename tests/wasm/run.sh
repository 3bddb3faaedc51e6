#!/bin/sh
# The rules core in WebAssembly (build/rules.wasm through web-client/js/
# rules.js) under Node: perft of every tests/perft/*.epd line to depth 3,
# random games compared move by move with the native core
# (build/rules_trace), and every board (wasm_board, geometry.js) against
# geometry.snapshot.json. Node's own test runner; no package needed.
set -eu
cd "$(dirname "$0")"
exec node --test --test-reporter=spec ./*.test.mjs
