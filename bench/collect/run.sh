#!/bin/sh
# run.sh - the collector's overhead: ns per recorded event on a point-to-point
# loop and on a loop of small collectives (bench_collect), without a tracer, with
# libtracesync-collect (LD_PRELOAD) and with EZTrace (`eztrace -t mpi`) when
# installed. Each run 5 times; the median loop time counts. On 1 rank (Sendrecv to
# itself: 4 events an iteration; Allreduce: 4) the difference is the tracer's cost
# alone; on 2 ranks (ping-pong: 6 events an iteration and rank) it is mixed with
# the scheduling of two processes on a shared machine.
# Usage: run.sh BUILD_DIR [ITERATIONS]   (BENCH_COLLECT_RANKS: "1 2" by default)
set -eu
build=$(cd "$1" && pwd)
n=${2:-20000}
prog="$build/bench/bench_collect"
lib="$build/src/collect/libtracesync-collect.so"
work="$build/bench-work/collect"
rm -rf "$work"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$work"

# median LABEL CMD...: runs CMD 5 times, prints the median ping-pong and collective seconds
median() {
    label=$1
    shift
    for i in 1 2 3 4 5; do
        rm -rf tr ezt
        "$@" "$prog" "$n" 2>/dev/null | grep pingpong_s | tr '=' ' ' >>"runs.$label"
    done
    p=$(awk '{ print $2 }' "runs.$label" | sort -g | sed -n 3p)
    c=$(awk '{ print $4 }' "runs.$label" | sort -g | sed -n 3p)
    echo "$label $p $c"
}

for np in ${BENCH_COLLECT_RANKS:-1 2}; do
mpi="mpirun --oversubscribe -np $np --bind-to none"
rm -f runs.*
{
    median none $mpi
    median tracesync env TRACESYNC_DIR=tr TRACESYNC_SYNC_MAX_MESSAGES=10 TRACESYNC_VERBOSE=0 \
        $mpi -x LD_PRELOAD="$lib" -x TRACESYNC_DIR -x TRACESYNC_SYNC_MAX_MESSAGES -x TRACESYNC_VERBOSE
    if command -v eztrace >/dev/null; then
        median eztrace env EZTRACE_TRACE_DIR=ezt $mpi -x EZTRACE_TRACE_DIR eztrace -t mpi
    fi
} >times.txt
awk -v n="$n" -v np="$np" -v pe=$((np == 1 ? 4 : 6)) '
    $1 == "none" { p0 = $2; c0 = $3 }
    { p[$1] = $2; c[$1] = $3; order[NR] = $1 }
    END {
        for (i = 1; i <= NR; i++) {
            t = order[i]
            printf "stage=collect ranks=%d tracer=%-9s iterations=%d p2p_s=%.4f collectives_s=%.4f", np, t, n, p[t], c[t]
            if (t != "none")
                printf " ns/event: p2p=%.0f collectives=%.0f", (p[t] - p0) / (pe * n) * 1e9, (c[t] - c0) / (4 * n) * 1e9
            printf "\n"
        }
    }' times.txt
done
cd - >/dev/null
rm -rf "$work"
