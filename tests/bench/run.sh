#!/bin/sh
# make bench: measures and rewrites the generated sections of BENCHMARKS.md.
# Each section is delimited by <!-- bench:NAME --> ... <!-- /bench:NAME -->;
# text outside the sections is kept as written by hand.
set -eu
cd "$(dirname "$0")/../.."

out=BENCHMARKS.md
[ -f "$out" ] || printf '# Benchmarks\n' > "$out"

# replace_section NAME FILE: put FILE's content between the markers of NAME.
replace_section() {
    python3 - "$out" "$1" "$2" <<'PY'
import sys, re
path, name, body_file = sys.argv[1:4]
text = open(path).read()
body = open(body_file).read().rstrip("\n")
start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
block = f"{start}\n{body}\n{end}"
if start in text and end in text:
    text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
PY
}

machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
date=$(date -u +%Y-%m-%d)

# --- perft ---------------------------------------------------------------
tmp=$(mktemp)
{
    echo "Rules core, perft from the set-up: one core, release build; every interior node is"
    echo "made and unmade, the last ply is counted from the legal move list (bulk counting)."
    echo "Measured $date on $machine."
    echo
    echo "| game | depth | nodes | expected | seconds | nodes/s | command |"
    echo "|---|---|---|---|---|---|---|"
} > "$tmp"
grep -v '^#' tests/bench/perft.list | while read -r game depth expect; do
    [ -n "$game" ] || continue
    res=$(build/perft "$game" "$depth" 2>&1 > /tmp/bench.$$)
    nodes=$(sed -n 's/^nodes //p' /tmp/bench.$$)
    secs=$(echo "$res" | sed -n 's/^time \([0-9.]*\)s.*/\1/p')
    nps=$(echo "$res" | sed -n 's/.*, \([0-9]*\) nodes\/s/\1/p')
    ok=$([ "$nodes" = "$expect" ] && echo "$expect" || echo "$expect (MISMATCH)")
    echo "$game depth $depth: $nodes nodes in ${secs}s, $nps nodes/s" >&2
    echo "| $game | $depth | $nodes | $ok | $secs | $nps | \`build/perft $game $depth\` |" >> "$tmp"
done
rm -f /tmp/bench.$$
replace_section perft "$tmp"
rm -f "$tmp"

# --- other benchmarks: every tests/bench/*.bench.sh prints a markdown section
for b in tests/bench/*.bench.sh; do
    [ -f "$b" ] || continue
    name=$(basename "$b" .bench.sh)
    tmp=$(mktemp)
    sh "$b" > "$tmp"
    replace_section "$name" "$tmp"
    rm -f "$tmp"
done
echo "BENCHMARKS.md updated"
