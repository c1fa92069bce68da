# test_replay_estimate.sh - tracesync-mpi sync estimates the time maps on every
# process (each pair of clock domains fitted where its samples are gathered, the
# graph and the maps on process 0) and writes the archive `tracesync sync` writes,
# to the bit: simulated runs on several nodes with ClockOffset records and every
# collective class, on fewer processes than locations, as many and more; the
# global least squares and the regression; a clock per rank, whose nodes the
# messages split (the counts of every process), as the domain rule or file says;
# and idle gaps between busy periods. Process 0 warns as tracesync does.
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

run 0 "$TRACESYNC" simulate --scenario smoke --seed 5 --ranks 8 --nodes 4 --events 6000 \
    --set app.collectives=all --set app.collective_every=2 -o sim
same_as_serial sync sim/trace.otf2 "" 1 3 8 11
same_as_serial sync sim/trace.otf2 "--global-lsq --no-clc" 3
same_as_serial sync sim/trace.otf2 "--estimator regression" 4

# Every rank its own clock: the default grouping splits both nodes, from the
# messages of every process; the warnings are those of tracesync sync.
run 0 "$TRACESYNC" simulate --scenario smoke --seed 7 --ranks 8 --nodes 2 --clock-per-rank \
    --events 5000 -o cpr
run 0 "$TRACESYNC" sync cpr/trace.otf2 -o serial
grep "split into" err.txt >serial_warnings.txt
[ "$(wc -l <serial_warnings.txt)" -eq 2 ] || fail "expected two split nodes: $(cat err.txt)"
run 0 mpi 3 sync cpr/trace.otf2 -o mpi3
grep "split into" err.txt >mpi_warnings.txt
cmp serial_warnings.txt mpi_warnings.txt || fail "the split warnings differ: $(cat err.txt)"
same_archive serial/trace.otf2 mpi3/trace.otf2
rm -rf serial mpi3
same_as_serial sync cpr/trace.otf2 "" 5
same_as_serial sync cpr/trace.otf2 "--domains location" 2
printf 'left 0 1 2 3\nright 4 5 6 7\n' >domains.txt
same_as_serial sync cpr/trace.otf2 "--domains domains.txt" 3

# Twenty-second idle gaps around the main phase: three busy periods, each with its
# own paths.
run 0 "$TRACESYNC" simulate --scenario sleeps --seed 4 --ranks 4 --nodes 2 --events 4000 \
    --set app.sleep_before_s=20 --set app.sleep_after_s=20 -o sleeps
run 0 "$TRACESYNC" estimate sleeps/trace.otf2 --json
contains out.txt "\"periods\": 3"
same_as_serial sync sleeps/trace.otf2 "" 3
