# test_replay_sync.sh - tracesync-mpi sync writes the archive `tracesync sync`
# writes, to the bit: the time maps estimated by every process together
# (test_replay_estimate.sh has more of that), then the clc replayed and the shift;
# with each estimator, without the clc, and without the estimate (the ClockOffset
# interpolation then, as serial).
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

same_as_serial sync "$DATA/eztrace-pingring/eztrace_log.otf2" "" 3
contains out.txt "534 events, 52 receives, 1 corrected (0 point-to-point, 1 collective)"

run 0 "$TRACESYNC" simulate --scenario smoke --seed 5 --ranks 8 --nodes 4 --events 4000 -o sim
# Latencies above the simulated network's: the clc corrects after the maps.
same_as_serial sync sim/trace.otf2 "--latency intra=2us,inter=20us" 4
contains out.txt "289 corrected (229 point-to-point, 60 collective)"
same_as_serial sync sim/trace.otf2 "--estimator regression --no-clc" 3
contains out.txt "no clc"
same_as_serial sync sim/trace.otf2 "--estimator none" 2

# --report and --json belong to tracesync sync.
run 2 mpi 2 sync sim/trace.otf2 -o out --json
contains err.txt "--report and --json are tracesync sync's only"
