# test_replay_clc.sh - tracesync-mpi clc writes the archive `tracesync clc` writes,
# to the bit, whatever the number of processes: one, fewer than the locations
# (several locations each), as many, and more (some hold none); on the EZTrace
# sample (point-to-point, collectives, three passes of the gamma controller), on
# simulated runs (with and without pre-synchronization) and on a cycle of messages.
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

# The sample: 4 locations; every count is the serial command's.
same_as_serial clc "$DATA/eztrace-pingring/eztrace_log.otf2" "" 1 3 5
contains out.txt "534 events, 52 receives, 9 corrected (7 point-to-point, 2 collective), max jump 0.218533658 s, 320 amortized, 383 moved, 3 passes"

# Simulated: 8 ranks on 4 nodes, every collective class; without the ClockOffset
# interpolation the raw clocks need large corrections.
run 0 "$TRACESYNC" simulate --scenario smoke --seed 5 --ranks 8 --nodes 4 --events 4000 -o sim
same_as_serial clc sim/trace.otf2 --no-presync 3 8
contains out.txt "33 corrected (27 point-to-point, 6 collective)"
# Pre-synchronized, with the drift left over after it.
run 0 "$TRACESYNC" simulate --scenario cacau --seed 3 --ranks 6 --nodes 3 --events 3000 -o cacau
same_as_serial clc cacau/trace.otf2 "" 4

# A cycle of messages (0 and 1 receive before they send to each other): every
# process agrees on the location that goes on without its send.
cat >cycle.tsf <<'TSF'
resolution 1000000000
node n0 0
node n1 1
node n2 2
0 100 recv 0 1 1 8
0 200 send 0 1 2 8
0 300 recv 0 2 3 8
0 400 send 0 2 4 8
1 100 recv 0 0 2 8
1 200 send 0 0 1 8
2 1000 send 0 0 3 8
2 1100 recv 0 0 4 8
TSF
fixture cycle.tsf cycle/traces.otf2
same_as_serial clc cycle/traces.otf2 "" 2 3
contains out.txt "4 receives, 3 corrected"
