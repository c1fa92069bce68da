#!/bin/sh
# run.sh - the collector's overhead per recorded event on a point-to-point loop and
# on a loop of small collectives (bench_collect), against the same loop without a
# tracer and with EZTrace (`eztrace -t openmpi`, or mpich: its MPI module's name;
# `-t mpi` loads nothing) when installed.
#
# Each tracer's events per iteration are counted in its own archive (otf2-print:
# the records inside the loop's MPI regions, Enter and Leave included), so that a
# tracer is charged for what it records: on 1 rank EZTrace records MPI_Sendrecv as
# Enter and Leave only, the collector adds MpiSend and MpiRecv. The cost is the
# loop's CPU seconds on rank 0's thread (what other processes on a shared machine
# take is not in them), the smallest of RUNS interleaved runs, minus the same
# without a tracer. On 1 rank the difference is the tracer's cost alone; on 2
# ranks (a ping-pong) it is mixed with the scheduling of two processes.
# Usage: run.sh BUILD_DIR [ITERATIONS]
#   BENCH_COLLECT_RANKS: "1 2" by default; BENCH_COLLECT_RUNS: 7 by default;
#   BENCH_COLLECT_LIB: another build of the collector, to compare
set -eu
build=$(cd "$1" && pwd)
n=${2:-100000}
runs=${BENCH_COLLECT_RUNS:-7}
prog="$build/bench/bench_collect"
lib=${BENCH_COLLECT_LIB:-$build/src/collect/libtracesync-collect.so}
work="$build/bench-work/collect"
rm -rf "$work"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$work"
tracers="none tracesync"
if command -v eztrace >/dev/null; then
    tracers="$tracers eztrace"
    module=mpich
    command -v ompi_info >/dev/null && module=openmpi
fi

# once TRACER: one run; its loop times go to runs.TRACER, its archive stays in
# arch.TRACER, its stderr in err.TRACER
once() {
    rm -rf "arch.$1"
    case $1 in
    none) $mpi "$prog" "$n" ;;
    tracesync) env TRACESYNC_DIR="arch.$1" TRACESYNC_SYNC_MAX_MESSAGES=10 \
        $mpi -x LD_PRELOAD="$lib" -x TRACESYNC_DIR -x TRACESYNC_SYNC_MAX_MESSAGES "$prog" "$n" ;;
    eztrace) env EZTRACE_TRACE_DIR="arch.$1" $mpi -x EZTRACE_TRACE_DIR eztrace -t "$module" "$prog" "$n" ;;
    esac 2>"err.$1" | grep pingpong_s | tr '=' ' ' >>"runs.$1" || {
        echo "bench_collect under $1 failed:" >&2
        tail -5 "err.$1" >&2
        exit 2
    }
}

# events LOOP_REGIONS TRACER: records per iteration and rank inside those regions
events() {
    case $2 in
    tracesync) a=arch.tracesync/traces.otf2 ;;
    eztrace) a=$(find arch.eztrace -name '*.otf2' | head -1) ;;
    esac
    otf2-print "$a" 2>/dev/null | awk -v regions="$1" -v per="$((n * np))" '
        BEGIN { split(regions, r, " "); for (i in r) want[r[i]] = 1 }
        $1 == "ENTER" { match($0, /Region: "[^"]*"/); cur[$2] = substr($0, RSTART + 9, RLENGTH - 10) }
        $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && want[cur[$2]] { k++ }
        $1 == "LEAVE" { cur[$2] = "" }
        END { printf "%.2f\n", k / per }'
}

for np in ${BENCH_COLLECT_RANKS:-1 2}; do
    mpi="mpirun --oversubscribe -np $np --bind-to none"
    rm -f runs.*
    i=0
    while [ $i -lt "$runs" ]; do
        for t in $tracers; do once "$t"; done
        i=$((i + 1))
    done
    p2p="MPI_Send MPI_Recv"
    [ "$np" -eq 1 ] && p2p=MPI_Sendrecv
    flushes=$(sed -n 's/.* \([0-9]*\) flushes.*/\1/p' err.tracesync)
    for loop in p2p collectives; do
        if [ $loop = p2p ]; then col=6 regions=$p2p; else col=8 regions=MPI_Allreduce; fi
        line="stage=collect ranks=$np loop=$loop iterations=$n"
        base=$(awk -v c=$col '{ print $c }' runs.none | sort -g | head -1)
        line="$line none_cpu_s=$base"
        for t in $tracers; do
            [ $t = none ] && continue
            s=$(awk -v c=$col '{ print $c }' "runs.$t" | sort -g | head -1)
            e=$(events "$regions" $t)
            ns=$(awk -v s="$s" -v b="$base" -v e="$e" -v n="$n" 'BEGIN { printf "%.0f", (s - b) / (e * n) * 1e9 }')
            line="$line ${t}_cpu_s=$s ${t}_events=$e ${t}_ns_per_event=$ns"
            eval "ns_$t=$ns"
        done
        if [ -n "${ns_eztrace:-}" ]; then
            line="$line ratio=$(awk -v a="$ns_tracesync" -v b="$ns_eztrace" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
        fi
        echo "$line flushes=$flushes"
    done
done
cd - >/dev/null
rm -rf "$work"
