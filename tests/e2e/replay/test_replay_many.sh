# test_replay_many.sh - tracesync-mpi clc and sync on many processes, oversubscribed
# on a small machine: a tiny simulated run of 64 ranks on 8 nodes, replayed (and
# for sync estimated) by 16 processes (4 locations each) and by 64 (one each),
# gives the serial archive.
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

run 0 "$TRACESYNC" simulate --scenario smoke --seed 2 --ranks 64 --nodes 8 --events 6000 -o sim
run 0 "$TRACESYNC" clc sim/trace.otf2 -o serial -q --no-presync
for n in 16 64; do
    run 0 mpi "$n" clc sim/trace.otf2 -o "mpi$n" -q --no-presync
    contains out.txt "replay on $n processes): 6848 events, 895 receives, 115 corrected (58 point-to-point, 57 collective)"
    same_archive serial/trace.otf2 "mpi$n/trace.otf2"
done
run 0 "$TRACESYNC" sync sim/trace.otf2 -o serial-sync -q
for n in 16 64; do
    run 0 mpi "$n" sync sim/trace.otf2 -o "sync$n" -q
    same_archive serial-sync/trace.otf2 "sync$n/trace.otf2"
done
