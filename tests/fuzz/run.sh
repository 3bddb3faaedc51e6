#!/bin/sh
# libFuzzer targets (tests/fuzz/fuzz_*.c, built by `make fuzz-build` into
# build/fuzz/): each runs FUZZ_SECONDS (default 8: `make test`; `make fuzz`
# gives 60) from its checked-in corpus tests/fuzz/corpus/<target>/, whose
# every input is run first. What a run learns goes to a temporary folder, or
# with FUZZ_KEEP=1 (`make fuzz`) to build/fuzz/work/<target>/, kept between
# runs (never into the checked-in corpus: `make test` starts from that alone,
# so its time stays what FUZZ_SECONDS says). A crash goes to
# build/fuzz/crashes/, and the suite fails naming the file. Prints one line
# per target: executions, executions/s, crashes.
# FUZZ_TARGETS="proto pgn" runs only those.
set -u
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-8}
targets=${FUZZ_TARGETS:-$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)}
mkdir -p build/fuzz/crashes
if [ "${FUZZ_KEEP:-0}" = 1 ]; then
    workdir=build/fuzz/work
else
    workdir=$(mktemp -d)
    trap 'rm -rf "$workdir"' EXIT
fi
failed=0
printf '%-10s %8s %12s %10s %8s\n' target seconds executions exec/s crashes
for t in $targets; do
    bin=build/fuzz/fuzz_$t
    if [ ! -x "$bin" ]; then
        echo "missing $bin: run make fuzz-build"
        failed=1
        continue
    fi
    work=$workdir/$t
    log=build/fuzz/$t.log
    mkdir -p "$work" "tests/fuzz/corpus/$t"
    # -timeout: an input running 10 s counts as a hang (a crash).
    "$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/crashes/$t-" "$work" "tests/fuzz/corpus/$t" > "$log" 2>&1
    rc=$?
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
        echo "full log: $log; reproduce: $bin <that file>; then keep the file in tests/fuzz/corpus/$t/ and add a unit test"
    fi
done
exit "$failed"
