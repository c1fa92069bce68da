# lib.sh - helpers for the tests of tracesync-mpi (sourced after the e2e lib.sh):
# ctest sets TRACESYNC_MPI (the command) and MPIEXEC.
: "${TRACESYNC_MPI:?}" "${MPIEXEC:?}"
# CI runs as root; Open MPI refuses unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI keeps memory until exit: leaks are not checked in MPI runs.
export ASAN_OPTIONS=detect_leaks=0

# mpi N ARGS...: tracesync-mpi on N processes (more than the cores: oversubscribed).
mpi() {
    n=$1
    shift
    "$MPIEXEC" --oversubscribe -np "$n" "$TRACESYNC_MPI" "$@"
}

# same_archive A B: the OTF2 archives A and B (anchor paths) hold the same bytes,
# but for the anchor's trace identifier, which libotf2 draws at random for every
# archive it writes (two serial runs differ there too): the anchors are compared
# as otf2-print shows them, without that line, every other file byte for byte.
same_archive() {
    a=$(dirname "$1") b=$(dirname "$2") name=$(basename "$1" .otf2)
    [ -f "$2" ] || fail "$2 is missing"
    otf2-print -A "$1" 2>/dev/null | grep -v "^Trace identifier" >anchor_a.txt
    otf2-print -A "$2" 2>/dev/null | grep -v "^Trace identifier" >anchor_b.txt
    cmp -s anchor_a.txt anchor_b.txt || fail "$1 and $2: anchors differ:
$(diff anchor_a.txt anchor_b.txt | head -20)"
    cmp "$a/$name.def" "$b/$name.def" || fail "$name.def differs"
    [ "$(ls "$a/$name")" = "$(ls "$b/$name")" ] || fail "$name/: other files"
    for f in "$a/$name"/*; do
        cmp "$f" "$b/$name/$(basename "$f")" || fail "$name/$(basename "$f") differs"
    done
}

# same_as_serial CMD INPUT OPTIONS N...: `tracesync CMD`, then `tracesync-mpi CMD` on
# each N processes, their archives compared (out.txt: the last replay's summary).
same_as_serial() {
    cmd=$1 input=$2 opts=$3
    shift 3
    # shellcheck disable=SC2086 # options split on purpose
    run 0 "$TRACESYNC" "$cmd" "$input" -o serial -q $opts
    for n in "$@"; do
        rm -rf "mpi$n"
        # shellcheck disable=SC2086
        run 0 mpi "$n" "$cmd" "$input" -o "mpi$n" -q $opts
        contains out.txt "$cmd (replay on $n process"
        same_archive "serial/$(basename "$input")" "mpi$n/$(basename "$input")"
    done
    rm -rf serial mpi*
}
