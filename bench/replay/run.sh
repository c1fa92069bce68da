#!/bin/sh
# run.sh - tracesync-mpi clc and sync against tracesync clc and sync on a simulated
# trace of EVENTS events (8 ranks on 4 nodes, scenario default, raw clocks: clc with
# --no-presync, so that it corrects thousands of receives): seconds, events per
# second per process and peak memory of each process (minus that of an MPI process
# that does nothing, the runtime's own), on PROCS processes (default 1 2 4); the
# replay's exchanges and reductions for the scaling model of the README. Every
# output is checked to be the serial one. CMDS chooses the commands (default clc sync),
# SIM the simulator's further options (e.g. SIM="--set app.collective_every=1").
# Usage: run.sh BUILD_DIR [EVENTS]
set -eu
build=$1
events=${2:-${BENCH_EVENTS:-4000000}}
procs=${PROCS:-1 2 4}
cmds=${CMDS:-clc sync}
sim=${SIM:-}
work="$build/bench-work/replay"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2086 # options split on purpose
n=$("$build/tracesync" simulate --scenario default --seed 1 --ranks 8 --nodes 4 --events "$events" \
    $sim -o "$work/sim" 2>&1 | sed -n 's/.* \([0-9][0-9]*\) events,.*/\1/p')

# rate SECONDS RANKS: events per second per process.
rate() { awk "BEGIN { printf \"%.3g\", $n / $1 / $2 }"; }

# The memory of an MPI process that only starts and stops (usage error, exit 2).
mpirun --oversubscribe -np 1 /usr/bin/time -f "%M" -o "$work/base.time" "$build/tracesync-mpi" \
    >/dev/null 2>&1 || true
base=$(cat "$work/base.time" | tail -1)

# replay CMD OPTIONS...: `tracesync CMD`, then `tracesync-mpi CMD` on each of $procs,
# each process's peak memory (peak_kb per rank, in rank order).
replay() {
    cmd=$1
    shift
    rm -rf "$work/serial"
    /usr/bin/time -f "%e %M" -o "$work/serial.time" "$build/tracesync" "$cmd" \
        "$work/sim/trace.otf2" -o "$work/serial" -q --threads 1 "$@" >/dev/null
    read -r s kb <"$work/serial.time"
    echo "stage=$cmd-command procs=1 events=$n seconds=$s events/s=$(rate "$s" 1) bytes/event=$(awk "BEGIN { printf \"%.1f\", $kb * 1024 / $n }")"
    for p in $procs; do
        rm -rf "$work/mpi"
        mpirun --oversubscribe -np "$p" sh -c '/usr/bin/time -f "%e %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
            "$work/rank.time" "$build/tracesync-mpi" "$cmd" "$work/sim/trace.otf2" -o "$work/mpi" -q \
            "$@" >"$work/mpi.out"
        for r in $(seq 0 $((p - 1))); do cat "$work/rank.time.$r"; done | awk -v n="$n" -v p="$p" \
            -v base="$base" -v cmd="$cmd" '
            { if ($1 > s) s = $1; if ($2 > m) m = $2; sum += $2; per = per sep $2; sep = "," }
            END { printf "stage=mpi-%s procs=%d events=%d seconds=%s events/s/proc=%.3g " \
                  "peak_kb/rank=%s bytes/event/proc=%.1f (less the %d KB of an idle MPI " \
                  "process: %.1f) bytes/event(sum)=%.1f\n", cmd, p, n, s, n / s / p, per,
                  m * 1024 / (n / p), base, (m - base) * 1024 / (n / p), sum * 1024 / n }'
        tail -1 "$work/mpi.out" | sed 's/^/  /'
        for f in "$work/serial/trace/"*; do
            cmp -s "$f" "$work/mpi/trace/$(basename "$f")" || { echo "replay output differs: $f"; exit 1; }
        done
        rm -f "$work/rank.time".*
    done
}

for cmd in $cmds; do
    case $cmd in
    clc) replay clc --no-presync ;;
    *) replay "$cmd" ;;
    esac
done
rm -rf "$work"
