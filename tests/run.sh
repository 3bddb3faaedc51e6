#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
#
# Suites, in order:
#   1. each unit test binary build/debug/tests/test_* (cmocka, ASan+UBSan);
#   2. perft: each tests/perft/<game>.epd with the release build, and again
#      to depth 3 with the sanitizer build (1 and 2 two at a time);
#   3. each tests/<suite>/run.sh (integration, end-to-end), which starts what
#      it needs and exits non-zero on failure; the end-to-end (browser)
#      suite beside the others, which run one at a time.
# A suite passes when it exits 0. Output of every suite goes to the terminal.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=""

run_suite() {
    name=$1
    shift
    echo "=== $name"
    start=$(date +%s)
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures $name"
        echo "=== FAILED: $name"
    fi
    # The time of each suite, to keep make test within its budget.
    timings="$timings
$(($(date +%s) - start)) s  $name"
}
timings=""

# The unit tests and perft, two at a time (each is one single-threaded
# process: on make test's two cores this halves their time), the longest
# first; each one's output is kept and printed whole when it is done, in
# order, as run_suite would.
pool=$(mktemp -d "${TMPDIR:-/tmp}/chameleon-tests.XXXXXX")
trap 'rm -rf "$pool"' EXIT
n=0
# job NAME COMMAND...: one entry of the pool (the command's words must hold
# no space: paths and names here).
job() {
    n=$((n + 1))
    printf '%s\n' "$1" > "$pool/$n.name"
    shift
    printf '%s\n' "$*" > "$pool/$n.cmd"
}
for t in build/debug/tests/test_search build/debug/tests/test_*_cross build/debug/tests/test_*; do
    [ -x "$t" ] || continue
    [ -e "$pool/done-$(basename "$t")" ] && continue
    : > "$pool/done-$(basename "$t")"
    job "$(basename "$t")" "$t"
done
for epd in tests/perft/*.epd; do
    [ -f "$epd" ] || continue
    game=$(basename "$epd" .epd)
    job "perft $game" build/perft "$game" --epd "$epd"
    job "perft $game (sanitizers, depth 3)" build/debug/perft "$game" --epd "$epd" --max-depth 3
done
seq 1 "$n" | xargs -P 2 -n 1 sh -c '
    start=$(date +%s)
    # shellcheck disable=SC2046 # the words of the command
    $(cat "$0/$1.cmd") > "$0/$1.out" 2>&1
    echo $? > "$0/$1.rc"
    echo $(($(date +%s) - start)) > "$0/$1.secs"' "$pool"
for i in $(seq 1 "$n"); do
    name=$(cat "$pool/$i.name")
    echo "=== $name"
    cat "$pool/$i.out"
    if [ "$(cat "$pool/$i.rc" 2>/dev/null)" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures $name"
        echo "=== FAILED: $name"
    fi
    timings="$timings
$(cat "$pool/$i.secs" 2>/dev/null || echo 0) s  $name"
done

# The Node modules of every suite, before any suite runs: two suites at
# once must not run npm ci in one folder together (each run.sh installs
# what is missing the same way, for a suite run alone).
for lock in tests/*/package-lock.json; do
    dir=$(dirname "$lock")
    if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$lock" -nt "$dir/node_modules/.package-lock.json" ]; then
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
            { echo "npm ci failed in $dir" >&2; exit 1; }
    fi
done

# The browser suite waits far more than it computes (about 0.6 of a core
# on make test's two): it runs beside the other suites, which run one at a
# time, and its output is printed whole when it is done.
( start=$(date +%s)
  sh tests/e2e/run.sh > "$pool/e2e.out" 2>&1
  echo $? > "$pool/e2e.rc"
  echo $(($(date +%s) - start)) > "$pool/e2e.secs" ) &
browser=$!
for suite in tests/*/run.sh; do
    [ -f "$suite" ] || continue
    [ "$suite" = tests/bench/run.sh ] && continue # make bench, not a test
    [ "$suite" = tests/e2e/run.sh ] && continue   # beside them, above
    run_suite "$(basename "$(dirname "$suite")")" sh "$suite"
done
wait "$browser"
echo "=== e2e"
cat "$pool/e2e.out"
if [ "$(cat "$pool/e2e.rc" 2>/dev/null)" = 0 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    failures="$failures e2e"
    echo "=== FAILED: e2e"
fi
timings="$timings
$(cat "$pool/e2e.secs" 2>/dev/null || echo 0) s  e2e (beside the others)"

echo "suites taking 10 s or more:"
echo "$timings" | awk '$1 >= 10' | sort -rn
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
