# tracesync record: the collector found next to tracesync in the build tree and
# preloaded through mpirun -x into every rank; the options reach the collector; it
# says where the archive is and what to run next, and that works; the program's
# exit status passes through; what stops the run before it starts exits 2.
. "$E2E_LIB"
: "${FAMILIES:?}"
. "$(dirname "$E2E_LIB")/collect/lib.sh"

# Under the sanitizers their runtime comes first (record keeps an LD_PRELOAD).
rec() {
    env ${PRELOAD_FIRST:+LD_PRELOAD=$PRELOAD_FIRST} "$TRACESYNC" record "$@"
}

# test mode, 3 ranks, sessions 1 s apart (as test_collect_testmode): 28 program messages; 10 exchanges x 2 children x 3 sessions
# (one mid-run) x 2
run 0 rec -o run --sync-messages 10 --test-clocks "0,0;2ms,30;-1ms,-20,2,5s" -- \
    "$MPIEXEC" --oversubscribe -np 3 "$FAMILIES" 1
contains out.txt "mpi_families: ok"
contains err.txt "tracesync record: the archive is run/traces.otf2 (local clocks), global.otf2"
contains err.txt "truth.otf2 (the true times)"
contains err.txt "next: tracesync sync run/traces.otf2 -o run/synced"
contains err.txt "tracesync eval run/synced/traces.otf2 run/truth.otf2"
"$TRACESYNC" check run/traces.otf2 --json >out.txt || [ $? -eq 1 ] || fail "check failed"
json_eq out.txt 'd["messages"]' 148
json_eq out.txt 'd["reversed"] > 0' True
# the events of one call share two clock readings: a send is on its Enter's tick,
# a Leave on its receive's, one event counter apart (seed 001)
run 0 print_raw run/traces.otf2
awk '$2 !~ /^[0-9]+$/ { next }
     $1 == "MPI_SEND" && prev[$2] ~ /^ENTER .*Region: "MPI_(Send|Ssend|Sendrecv)/ { n++; bad += $3 - t[$2] != 1 }
     $1 == "LEAVE" && prev[$2] ~ /^MPI_RECV / && $0 !~ /tracesync_timesync/ { n++; bad += $3 - t[$2] != 1 }
     { prev[$2] = $0; t[$2] = $3 }
     END { print n, bad + 0; exit !(n >= 10 && bad == 0) }' out.txt >pairs.txt ||
    fail "events of one call not one counter apart (pairs, bad): $(cat pairs.txt)"
run 0 "$TRACESYNC" sync run/traces.otf2 -o run/synced
"$TRACESYNC" eval run/synced/traces.otf2 run/truth.otf2 --json >out.txt || true
json_eq out.txt 'd["max_abs_error_s"] < 5e-5' True

# the default directory, named after the program (.1 when taken); -q silences
# record and the collector; flags: no exchange, no global.otf2
run 0 rec -q -- "$MPIEXEC" --oversubscribe -np 2 "$FAMILIES"
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
# 19 program messages; 100 exchanges (the default) x 1 child x 3 sessions x 2
"$TRACESYNC" check tracesync-collect_families/traces.otf2 --json >out.txt || [ $? -eq 1 ] || fail "check failed"
json_eq out.txt 'd["messages"]' 619
run 0 env TRACESYNC_COLLECT_LIB="$COLLECT_LIB" ${PRELOAD_FIRST:+LD_PRELOAD=$PRELOAD_FIRST} \
    "$TRACESYNC" record --synced-cluster --no-global -- \
    "$MPIEXEC" --oversubscribe -np 2 "$FAMILIES"
contains err.txt "the archive is tracesync-collect_families.1/traces.otf2 (local clocks)"
[ ! -e tracesync-collect_families.1/global.otf2 ] || fail "--no-global wrote global.otf2"
run 0 "$TRACESYNC" check tracesync-collect_families.1/traces.otf2 --json
json_eq out.txt 'd["messages"]' 19

# the command's exit status; the empty directory it made goes
run 3 rec -o failed -- sh -c 'exit 3'
contains err.txt "tracesync record: 'sh' exited with status 3"
[ ! -e failed ] || fail "the empty directory stayed"
# a command that records nothing
run 2 rec -o none -- true
contains err.txt "no archive was written (none/traces.otf2)"

# stopped before anything runs
run 2 rec -o run -- "$MPIEXEC" -np 2 "$FAMILIES"
contains err.txt "-o run already holds an archive (run/traces)"
run 2 rec --sync-duration soon -- "$MPIEXEC" -np 2 "$FAMILIES"
contains err.txt "--sync-duration soon: not understood"
run 2 rec --test-clocks "2ms" -- "$MPIEXEC" -np 2 "$FAMILIES"
contains err.txt "--test-clocks 2ms: not understood"
run 2 env TRACESYNC_TIMER=sundial "$TRACESYNC" record -- true
contains err.txt "TRACESYNC_TIMER=sundial in the environment: not understood"
run 2 env TRACESYNC_COLLECT_LIB=/nonexistent/lib.so "$TRACESYNC" record -- true
contains err.txt "libtracesync-collect.so not found (tried TRACESYNC_COLLECT_LIB=/nonexistent/lib.so)"
run 2 rec -o x -- /nonexistent/mpirun
contains err.txt "cannot run '/nonexistent/mpirun': No such file or directory"
[ ! -e x ] || fail "a directory stayed after a command that could not start"
run 2 rec -o x
contains err.txt "no command given"
