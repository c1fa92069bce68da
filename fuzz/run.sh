#!/bin/sh
# run.sh BUILD SECONDS TARGET... - runs each libFuzzer target for SECONDS, one at a
# time in one process on one core, starting from fuzz/corpus/<target> and every earlier
# finding in tests/data/fuzz-regressions/<target>. New coverage is kept in
# BUILD/corpus/<target>, crashes, leaks and timeouts in BUILD/findings/<target>/.
# Memory: -malloc_limit_mb and -rss_limit_mb 2048, so a huge allocation is a finding.
# Leaks: the slow unwinder, without which the suppressions of libotf2's own leaks
# (tests/lsan.supp) do not match and every one of them is a finding.
set -e
build=$1
seconds=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
status=0
for t in "$@"; do
    mkdir -p "$build/corpus/$t" "$build/findings/$t"
    regress=$src/tests/data/fuzz-regressions/$t
    [ -d "$regress" ] || regress=
    echo "fuzz_$t: $seconds s"
    LSAN_OPTIONS=suppressions=$src/tests/lsan.supp ASAN_OPTIONS=fast_unwind_on_malloc=0 \
    "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/findings/$t/" \
        "$build/corpus/$t" "$src/fuzz/corpus/$t" $regress \
        > "$build/findings/$t/log.txt" 2>&1 || status=1
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==.*ERROR|SUMMARY)' \
        "$build/findings/$t/log.txt" || true
    ls "$build/findings/$t" | grep -v '^log.txt$' || echo "  no finding"
done
exit $status
