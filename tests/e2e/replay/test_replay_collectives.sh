# test_replay_collectives.sh - collectives on sub-communicators, every class (scan
# and exscan on a communicator whose ranks run against the world's), matched where
# their instances meet and held by each process as its own members only: tracesync-mpi
# clc and sync write the serial archives on 1 to 8 processes (fewer than the 6
# locations, as many, more) and on 16, and warn what tracesync warns (a call with a
# member missing, a member with another operation), whichever process matched
# the call.
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

fixture "$DATA/fixtures/communicators.tsf" c/traces.otf2
run 0 "$TRACESYNC" clc c/traces.otf2 -o serial --no-presync
grep "warning:" err.txt >serial-warnings.txt
[ "$(wc -l <serial-warnings.txt)" -eq 2 ] || fail "expected two warnings: $(cat err.txt)"
for n in 1 2 3 4 5 6 7 8 16; do
    rm -rf "mpi$n"
    run 0 mpi "$n" clc c/traces.otf2 -o "mpi$n" --no-presync
    contains out.txt "116 events, 51 receives, 44 corrected (2 point-to-point, 42 collective)"
    grep "warning:" err.txt >warnings.txt || true
    cmp -s serial-warnings.txt warnings.txt || fail "on $n processes, other warnings:
$(cat err.txt)"
    same_archive serial/traces.otf2 "mpi$n/traces.otf2"
done
rm -rf serial mpi*
same_as_serial sync c/traces.otf2 "" 2 3 5 8
