#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
#
# Suites:
#   1. each unit test binary build/debug/tests/test_* (cmocka, ASan+UBSan);
#   2. perft: each tests/perft/<game>.epd with the release build, and again
#      to depth 3 with the sanitizer build;
#   3. each tests/<suite>/run.sh (integration, end-to-end), which starts what
#      it needs and exits non-zero on failure.
# make test's two cores are used in two lanes. First: the browser suite
# (e2e, two files at a time) in the background, and beside it 1, 2 and the
# suites whose tests measure no time or measure it generously
# (BESIDE_BROWSER), one at a time. Then: the PostgreSQL suite (pg), which
# mostly waits on leases and the network, in the background, beside the
# suites whose tests count seconds (login delays, stalled readers, stop
# within 300 ms), one at a time. Run beside the browser suite, these failed
# (login delays, stalled readers) and the integration suite took 2.5 times
# as long. Every output is printed whole, in order.
# A suite passes when it exits 0. Output of every suite goes to the terminal.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=""
timings=""

# counted NAME STATUS SECONDS: a suite's result and time (the time of each,
# to keep make test within its budget).
counted() {
    if [ "$2" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures $1"
        echo "=== FAILED: $1"
    fi
    timings="$timings
$3 s  $1"
}

# run_suite NAME COMMAND...: the command now, its output as it goes.
run_suite() {
    name=$1
    shift
    echo "=== $name"
    start=$(date +%s)
    "$@"
    rc=$?
    counted "$name" "$rc" $(($(date +%s) - start))
}

# Output and status of the suites run in the background, kept until
# printed.
pool=$(mktemp -d "${TMPDIR:-/tmp}/chameleon-tests.XXXXXX")
trap 'rm -rf "$pool"' EXIT

# print_job NAME FILE-PREFIX: a job run in the background, its output
# and status kept in FILE-PREFIX.{out,rc,secs}.
print_job() {
    echo "=== $1"
    cat "$2.out"
    counted "$1" "$(cat "$2.rc" 2>/dev/null || echo 1)" "$(cat "$2.secs" 2>/dev/null || echo 0)"
}

# The Node modules of every suite, before any suite runs: two suites at
# once must not run npm ci in one folder together (each run.sh installs
# what is missing the same way, for a suite run alone).
for lock in tests/*/package-lock.json; do
    [ -f "$lock" ] || continue
    dir=$(dirname "$lock")
    if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$lock" -nt "$dir/node_modules/.package-lock.json" ]; then
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
            { echo "npm ci failed in $dir" >&2; exit 1; }
    fi
done

# background NAME: tests/NAME/run.sh started in the background, its output
# and status kept for print_job "$pool/NAME".
background() {
    ( start=$(date +%s)
      sh "tests/$1/run.sh" > "$pool/$1.out" 2>&1
      echo $? > "$pool/$1.rc"
      echo $(($(date +%s) - start)) > "$pool/$1.secs" ) &
}

background e2e
browser=$!

# Beside it: the unit tests (test_search and the cross-checks, the
# longest, first) and perft, one at a time.
ran=""
for t in build/debug/tests/test_search build/debug/tests/test_*_cross build/debug/tests/test_*; do
    [ -x "$t" ] || continue
    case " $ran " in *" $t "*) continue ;; esac
    ran="$ran $t"
    run_suite "$(basename "$t")" "$t"
done
for epd in tests/perft/*.epd; do
    [ -f "$epd" ] || continue
    game=$(basename "$epd" .epd)
    run_suite "perft $game" build/perft "$game" --epd "$epd"
    run_suite "perft $game (sanitizers, depth 3)" build/debug/perft "$game" --epd "$epd" --max-depth 3
done

# Then, still beside it, the suites that measure no time or measure it
# generously.
BESIDE_BROWSER="deploy fuzz layers store wasm chaos relay"
for name in $BESIDE_BROWSER; do
    [ -f "tests/$name/run.sh" ] && run_suite "$name" sh "tests/$name/run.sh"
done
wait "$browser"
print_job e2e "$pool/e2e"

# The second lane: pg in the background, the others one at a time.
postgres=""
if [ -f tests/pg/run.sh ]; then
    background pg
    postgres=$!
fi
for suite in tests/*/run.sh; do
    [ -f "$suite" ] || continue
    name=$(basename "$(dirname "$suite")")
    case " bench e2e pg $BESIDE_BROWSER " in *" $name "*) continue ;; esac # bench: make bench, not a test
    run_suite "$name" sh "$suite"
done
if [ -n "$postgres" ]; then
    wait "$postgres"
    print_job pg "$pool/pg"
fi

echo "suites taking 10 s or more:"
echo "$timings" | awk '$1 >= 10' | sort -rn
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
