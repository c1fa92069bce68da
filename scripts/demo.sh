#!/bin/sh
# demo.sh - the main job on the sample that ships with the project: check the
# EZTrace sample, apply the clock offsets measured while it was recorded, check again.
# Usage: demo.sh TRACESYNC SAMPLE_ANCHOR
set -u
tracesync=$1
sample=$2
maps=$(dirname "$sample")/measured-offsets.json
out=${DEMO_OUT:-build/demo}

echo "== tracesync check $sample"
"$tracesync" check -q "$sample"
rc=$?
# Exit 1 means "violations found": the expected finding on this sample.
[ "$rc" -le 1 ] || exit "$rc"
echo
echo "== tracesync apply $maps $sample -o $out"
"$tracesync" apply -q "$maps" "$sample" -o "$out" || exit $?
echo
echo "== tracesync check $out/$(basename "$sample")"
"$tracesync" check -q "$out/$(basename "$sample")"
rc=$?
[ "$rc" -le 1 ] || exit "$rc"
exit 0
