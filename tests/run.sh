#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
#
# Suites, in order:
#   1. each unit test binary build/debug/tests/test_* (cmocka, ASan+UBSan);
#   2. perft: each tests/perft/<game>.epd with the release build, and again
#      to depth 3 with the sanitizer build;
#   3. each tests/<suite>/run.sh (integration, end-to-end), which starts what
#      it needs and exits non-zero on failure.
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

for t in build/debug/tests/test_*; do
    [ -x "$t" ] || continue
    run_suite "$(basename "$t")" "$t"
done

for epd in tests/perft/*.epd; do
    [ -f "$epd" ] || continue
    game=$(basename "$epd" .epd)
    run_suite "perft $game" build/perft "$game" --epd "$epd"
    run_suite "perft $game (sanitizers, depth 3)" build/debug/perft "$game" --epd "$epd" --max-depth 3
done

for suite in tests/*/run.sh; do
    [ -f "$suite" ] || continue
    [ "$suite" = tests/bench/run.sh ] && continue # make bench, not a test
    run_suite "$(basename "$(dirname "$suite")")" sh "$suite"
done

echo "suites taking 10 s or more:"
echo "$timings" | awk '$1 >= 10' | sort -rn
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
