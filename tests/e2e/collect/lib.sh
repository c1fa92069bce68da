# lib.sh - helpers for the collector's end-to-end tests (sourced after ../lib.sh).
: "${COLLECT_LIB:?}" "${MPIEXEC:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# mpirun_traced DIR NP "PROGRAM [ARG]" [VAR=VALUE...]: the program under the collector.
mpirun_traced() {
    dir=$1 np=$2 prog=$3
    shift 3
    env TRACESYNC_DIR="$dir" TRACESYNC_SYNC_MAX_MESSAGES=10 "$@" \
        "$MPIEXEC" --oversubscribe -np "$np" -x LD_PRELOAD="${PRELOAD_FIRST:+$PRELOAD_FIRST:}$COLLECT_LIB" -x TRACESYNC_DIR \
        -x TRACESYNC_SYNC_MAX_MESSAGES $(for a in "$@"; do printf -- '-x %s ' "${a%%=*}"; done) $prog
}


# print_raw ANCHOR: otf2-print of the archive's local stamps, plus one tick.
# otf2-print applies ClockOffset records; tracesync apply drops them from a copy
# whose timestamps changed (here by one tick, 1/8192 ns).
print_raw() {
    printf '%s\n' '{ "format": "tracesync-maps", "version": 1, "maps": [ { "default": true, "offset": 1 } ] }' >shift1.json
    rm -rf raw-copy
    "$TRACESYNC" apply shift1.json "$1" -o raw-copy -q || fail "apply to $1 failed"
    otf2-print "raw-copy/$(basename "$1")"
}
