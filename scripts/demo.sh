#!/bin/sh
# demo.sh - the main job on the sample that ships with the project: a real EZTrace
# trace of 4 MPI ranks whose clocks started at different times.
# Usage: demo.sh TRACESYNC SAMPLE_ANCHOR
set -u
tracesync=$1
sample=$2
out=${DEMO_OUT:-build/demo}

echo "== tracesync check $sample"
"$tracesync" check "$sample"
rc=$?
# Exit 1 means "violations found": the expected finding on this sample.
[ "$rc" -le 1 ] || exit "$rc"
echo
# EZTrace starts every rank's clock at its own time: one clock domain per location.
echo "== tracesync sync $sample -o $out --domains location --report $out/report.json"
mkdir -p "$out"
"$tracesync" sync "$sample" -o "$out" --domains location --report "$out/report.json" || exit $?
echo
echo "== tracesync check $out/$(basename "$sample")"
"$tracesync" check "$out/$(basename "$sample")"
