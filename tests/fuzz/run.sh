#!/bin/sh
# libFuzzer targets (tests/fuzz/fuzz_*.c, built by `make fuzz-build` into
# build/fuzz/): each runs FUZZ_SECONDS (default 5: `make test`; `make fuzz`
# gives 60) from its checked-in corpus tests/fuzz/corpus/<target>/, whose
# every input is run first. What a run learns goes to a temporary folder, or
# with FUZZ_KEEP=1 (`make fuzz`) to build/fuzz/work/<target>/, kept between
# runs (never into the checked-in corpus: `make test` starts from that alone,
# so its time stays what FUZZ_SECONDS says). A crash goes to
# build/fuzz/crashes/, and the suite fails naming the file. Prints one line
# per target: executions, executions/s, crashes.
# FUZZ_TARGETS="proto pgn" runs only those; FUZZ_JOBS of them run at once
# (default 2: each target still gets its FUZZ_SECONDS of one core).
set -u
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-5}
targets=${FUZZ_TARGETS:-$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)}
mkdir -p build/fuzz/crashes
if [ "${FUZZ_KEEP:-0}" = 1 ]; then
    workdir=build/fuzz/work
else
    workdir=$(mktemp -d)
    trap 'rm -rf "$workdir"' EXIT
fi
failed=0
jobs=${FUZZ_JOBS:-2} # targets at once: one a core (make test's machine has 2)

# Run target $1 into build/fuzz/$1.log; its exit status in build/fuzz/$1.rc.
run_target() {
    t=$1
    work=$workdir/$t
    mkdir -p "$work" "tests/fuzz/corpus/$t"
    # -timeout: an input running 10 s counts as a hang (a crash).
    build/fuzz/fuzz_$t -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/crashes/$t-" "$work" "tests/fuzz/corpus/$t" > "build/fuzz/$t.log" 2>&1
    echo $? > "build/fuzz/$t.rc"
}

running=0
for t in $targets; do
    if [ ! -x "build/fuzz/fuzz_$t" ]; then
        echo "missing build/fuzz/fuzz_$t: run make fuzz-build"
        failed=1
        continue
    fi
    rm -f "build/fuzz/$t.rc"
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

printf '%-10s %8s %12s %10s %8s\n' target seconds executions exec/s crashes
for t in $targets; do
    [ -f "build/fuzz/$t.rc" ] || continue
    log=build/fuzz/$t.log
    rc=$(cat "build/fuzz/$t.rc")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    crashes=0
    if [ "$rc" -ne 0 ]; then
        crashes=1
        failed=1
    fi
    printf '%-10s %8s %12s %10s %8s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "$crashes"
    if [ "$rc" -ne 0 ]; then
        grep -a -E 'property broken|ERROR|SUMMARY|^    #[0-9]' "$log" | head -20
        grep -a -o "Test unit written to .*" "$log"
        echo "full log: $log; reproduce: build/fuzz/fuzz_$t <that file>; then keep the file in tests/fuzz/corpus/$t/ and add a unit test"
    fi
done
exit "$failed"
