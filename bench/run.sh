#!/bin/sh
# run.sh - `make bench`: every benchmark on 10^7 events (BENCH_EVENTS to change), the
# pcapng writer and sync on captures on 10^6 packets (BENCH_PACKETS; mergecap is the
# captures' floor), the accuracy one on the trace classes of issue 11 and the
# named simulator scenarios, and tracesync-mpi's replay (bench/replay/run.sh).
# Usage: run.sh BUILD_DIR
set -eu
build=$1
events=${BENCH_EVENTS:-10000000}
packets=${BENCH_PACKETS:-1000000}
work="$build/bench-work"
mkdir -p "$work"
echo "== OTF2: read, match, map, write ($events events)"
"$build/bench/bench_otf2" "$events" "$work/otf2"
echo "== tracesync apply, whole command, against the libotf2 copy above"
cat >"$work/maps.json" <<'J'
{ "format": "tracesync-maps", "version": 1, "maps": [ { "default": true, "offset": 1000, "drift": 2e-6 } ] }
J
start=$(date +%s.%N)
"$build/tracesync" apply "$work/maps.json" "$work/otf2/in/traces.otf2" -o "$work/apply" -q
end=$(date +%s.%N)
echo "stage=apply-command    fmt=otf2 events=$events seconds=$(awk "BEGIN { printf \"%.3f\", $end - $start }")"
echo "== tracesync simulate: 10x shorter, as long, twice as long ($events events), and the write floor"
"$build/bench/bench_sim" "$events" "$work/sim"
echo "== clock estimation: tracesync estimate on a CSV against reading it, the hull on one pair, whole estimate runs, path vs global on loops ($events messages)"
"$build/bench/bench_estimate" "$events" "$work/estimate" "$build/tracesync"
echo "== controlled logical clock on a simulated trace ($events events), the whole command against the write floor"
"$build/bench/bench_clc" "$events" "$work/clc" "$build/tracesync"
echo "== pcapng: the writer and the merge of 4 captures ($packets packets), against libpcap's pcap_dump"
"$build/bench/bench_pcapng" "$packets" "$work/pcapng"
echo "== tracesync sync on two captures ($packets packets a host, snaplen 128), against mergecap merging them"
"$build/bench/bench_capture" "$build/tracesync" "$packets" "$work/capture"
echo "== accuracy against the truth: baseline, maps alone and sync, per estimator (trace classes of issue 11 and named scenarios, seed 1)"
"$build/bench/bench_accuracy" "$work/accuracy"
if [ -x "$build/tracesync-mpi" ]; then
    echo "== tracesync-mpi clc and sync: the replay on 1, 2 and 4 processes against tracesync clc and sync (4x10^6 events, BENCH_REPLAY_EVENTS)"
    sh bench/replay/run.sh "$build" "${BENCH_REPLAY_EVENTS:-4000000}"
fi
if [ -x "$build/bench/bench_collect" ]; then
    echo "== the MPI collector: ns per recorded event, ping-pong and small collectives, against no tracer and EZTrace"
    sh bench/collect/run.sh "$build"
fi
rm -rf "$work"
