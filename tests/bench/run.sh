#!/bin/sh
# make bench: measures and rewrites the generated sections of BENCHMARKS.md.
# Each section is delimited by <!-- bench:NAME --> ... <!-- /bench:NAME -->;
# text outside the sections is kept as written by hand.
# BENCH="engine wasm" (names of sections) measures only those.
set -eu
cd "$(dirname "$0")/../.."

out=BENCHMARKS.md
[ -f "$out" ] || printf '# Benchmarks\n' > "$out"

# replace_section NAME FILE: put FILE's content between the markers of NAME.
replace_section() {
    start="<!-- bench:$1 -->"
    end="<!-- /bench:$1 -->"
    replace=0
    grep -qxF "$start" "$out" && grep -qxF "$end" "$out" && replace=1
    new=$(mktemp)
    awk -v start="$start" -v end="$end" -v body="$2" -v replace="$replace" '
        BEGIN {
            while ((getline line < body) > 0)
                b[++nb] = line
            while (nb > 0 && b[nb] == "")
                nb--
        }
        function block(i) {
            out[++n] = start
            for (i = 1; i <= nb; i++)
                out[++n] = b[i]
            out[++n] = end
        }
        replace && $0 == start { block(); skip = 1; next }
        skip { if ($0 == end) skip = 0; next }
        { out[++n] = $0 }
        END {
            if (!replace) {
                while (n > 0 && out[n] == "")
                    n--
                out[++n] = ""
                block()
            }
            for (i = 1; i <= n; i++)
                print out[i]
        }' "$out" > "$new"
    mv "$new" "$out"
}

machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
date=$(date -u +%Y-%m-%d)

# wanted NAME: is section NAME to be measured this time?
wanted() { [ -z "${BENCH:-}" ] || case " $BENCH " in *" $1 "*) true ;; *) false ;; esac; }

# --- perft ---------------------------------------------------------------
if wanted perft; then
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
fi

# --- other benchmarks: every tests/bench/*.bench.sh prints a markdown section
for b in tests/bench/*.bench.sh; do
    [ -f "$b" ] || continue
    name=$(basename "$b" .bench.sh)
    wanted "$name" || continue
    tmp=$(mktemp)
    sh "$b" > "$tmp"
    replace_section "$name" "$tmp"
    rm -f "$tmp"
done
echo "BENCHMARKS.md updated"
