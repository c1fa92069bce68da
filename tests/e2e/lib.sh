# lib.sh - helpers for the end-to-end tests (sourced). ctest sets TRACESYNC (the
# command), TOOLS (test tools), DATA (tests/data) and WORK (a scratch directory).
set -eu
: "${TRACESYNC:?}" "${TOOLS:?}" "${DATA:?}" "${WORK:?}"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# run CODE CMD...: runs CMD, stdout to out.txt, stderr to err.txt, asserts its exit code.
run() {
    want=$1
    shift
    set +e
    "$@" >out.txt 2>err.txt
    got=$?
    set -e
    [ "$got" -eq "$want" ] || fail "exit $got, expected $want: $*
--- stdout:
$(head -40 out.txt)
--- stderr:
$(head -40 err.txt)"
}

# contains FILE TEXT: FILE contains TEXT (fixed string).
contains() {
    grep -qF -- "$2" "$1" || fail "$1 does not contain '$2':
$(head -40 "$1")"
}

# json_eq FILE EXPR VALUE: the Python expression EXPR over the JSON document `d`
# in FILE equals VALUE (compared as text).
json_eq() {
    got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2")
    [ "$got" = "$3" ] || fail "$2 = $got, expected $3"
}

# fixture SCRIPT ANCHOR: writes an OTF2 archive from a fixture script (tsync_mkfixture).
fixture() {
    "$TOOLS/tsync_mkfixture" "$1" "$2" || fail "tsync_mkfixture $1 failed"
}

# limited CODE LIMIT_BLOCKS CMD...: CMD with a file size limit (512-byte blocks);
# SIGXFSZ ignored, so that a write past it fails with EFBIG instead of killing.
limited() {
    want=$1 blocks=$2
    shift 2
    run "$want" sh -c 'trap "" XFSZ; ulimit -f "$0"; exec "$@"' "$blocks" "$@"
}

# nothing_in OUTDIR: no output and no temporary directory.
nothing_in() {
    [ -z "$(ls -A "$1" 2>/dev/null)" ] || fail "$1 is not empty: $(ls -A "$1")"
}

# absent OUTDIR: a run that made OUTDIR and failed (or was killed) left no trace of it.
absent() {
    [ ! -e "$1" ] || fail "$1 is left behind: $(ls -A "$1")"
}

# tree_sum DIR: one checksum over every file below DIR (to prove it is untouched).
tree_sum() {
    (cd "$1" && find . -type f | LC_ALL=C sort | xargs cat | md5sum)
}

# per_location OTF2_PRINT_OUTPUT: the event records of each location in order,
# without timestamps (otf2-print merges locations by time, which maps change).
per_location() {
    awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { $3 = ""; print }' "$1" | sort -s -k2,2n
}
