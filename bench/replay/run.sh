#!/bin/sh
# run.sh - tracesync-mpi clc against tracesync clc on a simulated trace of EVENTS
# events (8 ranks on 4 nodes, scenario default, raw clocks: --no-presync, so that
# the clc corrects thousands of receives): seconds, events per second per process
# and peak memory per process (minus that of an MPI process that does nothing, the
# runtime's own), on 1 and 2 processes; the replay's exchanges and reductions for
# the scaling model of the README. Every output is checked to be the serial one.
# Usage: run.sh BUILD_DIR [EVENTS]
set -eu
build=$1
events=${2:-${BENCH_EVENTS:-4000000}}
work="$build/bench-work/replay"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work"
mkdir -p "$work"
n=$("$build/tracesync" simulate --scenario default --seed 1 --ranks 8 --nodes 4 --events "$events" \
    -o "$work/sim" 2>&1 | sed -n 's/.* \([0-9][0-9]*\) events,.*/\1/p')

# rate SECONDS RANKS: events per second per process.
rate() { awk "BEGIN { printf \"%.3g\", $n / $1 / $2 }"; }

/usr/bin/time -f "%e %M" -o "$work/serial.time" "$build/tracesync" clc "$work/sim/trace.otf2" \
    -o "$work/serial" -q --no-presync --threads 1 >/dev/null
read -r s kb <"$work/serial.time"
echo "stage=clc-command      procs=1 events=$n seconds=$s events/s=$(rate "$s" 1) bytes/event=$(awk "BEGIN { printf \"%.1f\", $kb * 1024 / $n }")"

# The memory of an MPI process that only starts and stops (usage error, exit 2).
mpirun --oversubscribe -np 1 /usr/bin/time -f "%M" -o "$work/base.time" "$build/tracesync-mpi" \
    >/dev/null 2>&1 || true
base=$(cat "$work/base.time" | tail -1)

for p in 1 2; do
    rm -rf "$work/mpi"
    mpirun --oversubscribe -np "$p" sh -c '/usr/bin/time -f "%e %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$work/rank.time" "$build/tracesync-mpi" clc "$work/sim/trace.otf2" -o "$work/mpi" -q \
        --no-presync >"$work/mpi.out"
    cat "$work/rank.time".* | awk -v n="$n" -v p="$p" -v base="$base" '
        { if ($1 > s) s = $1; if ($2 > m) m = $2; sum += $2 }
        END { printf "stage=mpi-clc          procs=%d events=%d seconds=%s events/s/proc=%.3g " \
              "peak_kb/proc=%d bytes/event/proc=%.1f (less the %d KB of an idle MPI process: %.1f) " \
              "bytes/event(sum)=%.1f\n", p, n, s, n / s / p, m, m * 1024 / (n / p), base,
              (m - base) * 1024 / (n / p), sum * 1024 / n }'
    tail -1 "$work/mpi.out" | sed 's/^/  /'
    for f in "$work/serial/trace/"*; do
        cmp -s "$f" "$work/mpi/trace/$(basename "$f")" || { echo "replay output differs: $f"; exit 1; }
    done
    rm -f "$work/rank.time".*
done
rm -rf "$work"
