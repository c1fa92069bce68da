#!/bin/sh
# make_corpus.sh BUILD - rebuilds fuzz/corpus/otf2 from real archives: the EZTrace
# sample, two small simulator runs (`simulate --scenario smoke`) and the archives of
# tests/data/fixtures/basic.tsf and fuzz/seeds/kinds.tsf (every record kind).
# BUILD holds tracesync and tests/tsync_mkfixture (e.g. build).
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus/otf2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
"$build/tracesync" simulate -q --scenario smoke --ranks 4 --nodes 2 --events 300 -o "$tmp/sim1"
"$build/tracesync" simulate -q --scenario smoke --seed 2 --ranks 3 --nodes 3 --events 150 \
    --clock-per-rank --set app.patterns=all -o "$tmp/sim2"
for s in sim1 sim2; do
    rm -rf "$tmp/$s/truth" "$tmp/$s/truth.otf2" "$tmp/$s/truth.def" "$tmp/$s/scenario.json"
done
"$build/tests/tsync_mkfixture" "$here/../tests/data/fixtures/basic.tsf" "$tmp/basic/traces.otf2"
"$build/tests/tsync_mkfixture" "$here/seeds/kinds.tsf" "$tmp/kinds/traces.otf2"
mkdir "$tmp/eztrace"
cp -r "$here/../tests/data/eztrace-pingring/eztrace_log"* "$tmp/eztrace/"
for a in sim1 sim2 basic kinds eztrace; do
    sh "$here/pack_otf2.sh" "$tmp/$a" "$out/$a.bin"
done
