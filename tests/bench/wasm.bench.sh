#!/bin/sh
# The rules core in WebAssembly against the native build: perft from the
# set-up on the lines of tests/bench/perft.list, one core each, run one
# after the other on the same machine (Node's V8 for the wasm).
set -eu
cd "$(dirname "$0")/../.."
echo "Rules core in WebAssembly (build/rules.wasm under Node $(node --version)) against the"
echo "native build, perft from the set-up, measured one after the other on the same machine."
echo
echo "| game | depth | nodes | native nodes/s | wasm nodes/s | wasm / native | command |"
echo "|---|---|---|---|---|---|---|"
grep -v '^#' tests/bench/perft.list | while read -r game depth expect; do
    [ -n "$game" ] || continue
    nat=$(build/perft "$game" "$depth" 2>&1 >/dev/null | sed -n 's/.*, \([0-9]*\) nodes\/s/\1/p')
    set -- $(node tests/bench/wasm_perft.mjs "$game" "$depth")
    nodes=$1 secs=$2
    wnps=$(awk -v n="$nodes" -v s="$secs" 'BEGIN { printf "%d", n / s }')
    ratio=$(awk -v w="$wnps" -v n="$nat" 'BEGIN { printf "%.2f", w / n }')
    [ "$nodes" = "$expect" ] || nodes="$nodes (MISMATCH: $expect)"
    echo "| $game | $depth | $nodes | $nat | $wnps | $ratio | \`node tests/bench/wasm_perft.mjs $game $depth\` |"
done
size=$(wc -c < build/rules.wasm)
gz=$(gzip -9 < build/rules.wasm | wc -c)
echo
echo "Size of build/rules.wasm: $size bytes, $gz bytes gzip -9 (\`gzip -9 < build/rules.wasm | wc -c\`)."
