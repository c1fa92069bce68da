# Fortran programs under tracesync record, unchanged: mpi_fortran (`use mpi`, 3
# ranks, test mode) and mpi_fortran_f08 (`use mpi_f08`, 2 ranks). Their MPI calls
# are recorded through the collector's Fortran bindings: every message and
# collective is in the archive, every receive matches a send, the mid-run session
# of CALL TRACESYNC_TIMESYNC(IERR) is there, and tracesync sync comes within
# 50 us of the truth (mpi_fortran).
. "$E2E_LIB"
: "${FORTRAN:?}" "${FORTRAN_F08:?}"
. "$(dirname "$E2E_LIB")/collect/lib.sh"

rec() {
    env ${PRELOAD_FIRST:+LD_PRELOAD=$PRELOAD_FIRST} "$TRACESYNC" record "$@"
}

# count FILE PATTERN: lines of otf2-print output that match the extended regex.
count() {
    grep -cE -- "$2" "$1" || true
}

run 0 rec -o run --sync-messages 10 --test-clocks "0,0;2ms,30;-1ms,-20,2,5s" -- \
    "$MPIEXEC" --oversubscribe -np 3 "$FORTRAN" 1
contains out.txt "mpi_fortran: ok"
contains err.txt "truth.otf2 (the true times)"
# 13 program messages a rank; 10 exchanges x 2 children x 3 sessions (one mid-run) x 2
"$TRACESYNC" check run/traces.otf2 --json >out.txt || [ $? -eq 1 ] || fail "check failed"
json_eq out.txt 'd["messages"]' 159
json_eq out.txt 'd["unmatched"]["sends"] + d["unmatched"]["receives"]' 0
json_eq out.txt 'd["reversed"] > 0' True
run 0 otf2-print run/traces.otf2
cp out.txt print.txt
# each rank: 13 sends and 13 receives of its own, 12 collectives (one on a split
# communicator, one on a duplicate), 3 sessions; every call in its region
[ "$(count print.txt '^MPI_COLLECTIVE_END ')" -eq 36 ] || fail "collectives: $(count print.txt '^MPI_COLLECTIVE_END ')"
[ "$(count print.txt '^ENTER .*"tracesync_timesync"')" -eq 9 ] || fail "sessions: $(count print.txt '^ENTER .*"tracesync_timesync"')"
[ "$(count print.txt '^MPI_(SEND|ISEND) .*"MPI_COMM_WORLD"')" -eq 39 ] || fail "program sends"
[ "$(count print.txt '^MPI_(RECV|IRECV) .*"MPI_COMM_WORLD"')" -eq 39 ] || fail "program receives"
for region in MPI_Init MPI_Finalize MPI_Send MPI_Ssend MPI_Issend MPI_Recv MPI_Isend MPI_Irecv MPI_Wait \
    MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall MPI_Testany MPI_Testsome MPI_Sendrecv \
    MPI_Sendrecv_replace MPI_Barrier MPI_Bcast MPI_Reduce MPI_Allreduce MPI_Gather MPI_Scatter \
    MPI_Allgather MPI_Alltoall MPI_Scan MPI_Exscan MPI_Comm_split MPI_Comm_dup MPI_Comm_free; do
    [ "$(count print.txt "^ENTER .*Region: \"$region\"")" -ge 3 ] || fail "no $region on every rank"
done
# the split and duplicated communicators are defined and named in the records
[ "$(count print.txt '^MPI_COLLECTIVE_END .*Operation: BCAST, Communicator: "MPI communicator')" -eq 3 ] ||
    fail "MPI_Bcast on the split communicator"

# tracesync sync against the truth
"$TRACESYNC" eval run/traces.otf2 run/truth.otf2 --json >raw.json || true
json_eq raw.json 'd["max_abs_error_s"] > 5e-4' True
run 0 "$TRACESYNC" sync run/traces.otf2 -o synced
"$TRACESYNC" eval synced/traces.otf2 run/truth.otf2 --json >synced.json || true
json_eq synced.json 'd["max_abs_error_s"] < 5e-5' True

# use mpi_f08 (error arguments left out): 4 program messages a rank; 10 exchanges
# x 1 child x 3 sessions x 2
run 0 rec -o f08 --sync-messages 10 --test-clocks "0,0;2ms,30" -- "$MPIEXEC" --oversubscribe -np 2 "$FORTRAN_F08"
contains out.txt "mpi_fortran_f08: ok"
"$TRACESYNC" check f08/traces.otf2 --json >out.txt || [ $? -eq 1 ] || fail "check failed"
json_eq out.txt 'd["messages"]' 68
json_eq out.txt 'd["unmatched"]["sends"] + d["unmatched"]["receives"]' 0
run 0 otf2-print f08/traces.otf2
[ "$(count out.txt '^MPI_COLLECTIVE_END ')" -eq 6 ] || fail "f08 collectives: $(count out.txt '^MPI_COLLECTIVE_END ')"
[ "$(count out.txt '^ENTER .*"tracesync_timesync"')" -eq 6 ] || fail "f08 sessions"
run 0 "$TRACESYNC" sync f08/traces.otf2 -o f08-synced
"$TRACESYNC" eval f08-synced/traces.otf2 f08/truth.otf2 --json >out.txt || true
# a run of a fraction of a second: MPI_Init's Enter, before the first session, is
# extrapolated (30 us off was seen), the rest as above
json_eq out.txt 'd["p99_abs_error_s"] < 5e-6 and d["max_abs_error_s"] < 1e-4' True
