# test_replay_errors.sh - bad input and faults in tracesync-mpi as in tracesync: an
# error on one process reaches every process, all exit 2, the process whose error
# it was prints it once (naming file, location and event), and nothing is left in
# OUTDIR.
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

# The event file of the last location (P#3T#0) cut in half: on 3 processes only
# process 2 reads it, the others fail with it.
cp -r "$DATA/eztrace-pingring" bad
evt=bad/eztrace_log/1610612733.evt
truncate -s $(($(stat -c %s "$evt") / 2)) "$evt"
run 2 mpi 3 clc bad/eztrace_log.otf2 -o out
contains err.txt "tracesync-mpi clc: bad/eztrace_log.otf2: location 1610612733 (P#3T#0): event 64: the event file is truncated or corrupt"
[ "$(grep -c "tracesync-mpi clc:" err.txt)" -eq 1 ] || fail "the error is printed more than once"
nothing_in out
# The serial command says the same.
run 2 "$TRACESYNC" clc bad/eztrace_log.otf2 -o out
contains err.txt "location 1610612733 (P#3T#0): event 64: the event file is truncated or corrupt"
nothing_in out

# A time beyond the clc's range on the last location: process 2 of 3, where the clc
# meets it, says so; the others only that it failed.
{
    cat "$DATA/fixtures/basic.tsf"
    echo "3 2305843009213693952 enter MPI_Finalize"
} >far.tsf
fixture far.tsf far/traces.otf2
run 2 "$TRACESYNC" clc far/traces.otf2 -o out
contains err.txt "far/traces.otf2: location 3: event 20: time"
run 2 mpi 3 clc far/traces.otf2 -o out
contains err.txt "tracesync-mpi clc: far/traces.otf2: location 3: event 20: time"
[ "$(grep -c "tracesync-mpi clc:" err.txt)" -eq 1 ] || fail "the error is printed more than once"
nothing_in out

# OUTDIR that cannot be made (a file is in its place): process 0's error, no output.
echo x >file
run 2 mpi 2 clc "$DATA/eztrace-pingring/eztrace_log.otf2" -o file/out
contains err.txt "tracesync-mpi clc: file/out"
[ "$(cat file)" = x ] || fail "the file was changed"

# Usage errors exit 2 everywhere.
run 2 mpi 2 clc "$DATA/eztrace-pingring/eztrace_log.otf2"
contains err.txt "no output directory"
run 2 mpi 2 clc "$DATA/eztrace-pingring/eztrace_log.otf2" -o out --gamma 2
nothing_in out

# An option the estimate checks against the trace: every process meets it, one
# prints it, as tracesync sync does.
run 2 mpi 3 sync "$DATA/eztrace-pingring/eztrace_log.otf2" -o out --reference nosuch
contains err.txt 'eztrace_log.otf2: estimate: reference domain "nosuch" is not in the trace'
[ "$(grep -c "tracesync-mpi sync:" err.txt)" -eq 1 ] || fail "the error is printed more than once"
nothing_in out
