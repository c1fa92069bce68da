# Every command's outputs on the shipped inputs, byte for byte as committed under
# tests/data/expected/same-outputs/ (made by the release that a refactoring must
# not change): the eztrace sample, the basic fixture and a CSV of messages, through
# check, estimate, sync, clc and apply; stdout, stderr, exit status, reports, and
# the written traces (OTF2 through otf2-print). Inputs are copied into the work
# directory and named relatively, so that no output holds a path of this machine.
# UPDATE=DIR writes the outputs to DIR instead of comparing.
. "$E2E_LIB"
command -v otf2-print >/dev/null || fail "otf2-print not found (scripts/install-deps.sh)"

mkdir -p in got
cp -r "$DATA/eztrace-pingring/eztrace_log" "$DATA/eztrace-pingring/eztrace_log.def" \
    "$DATA/eztrace-pingring/eztrace_log.otf2" in/
fixture "$DATA/fixtures/basic.tsf" in/basic/traces.otf2
cat > in/msgs.csv <<'C'
send_location,send_time_ns,recv_location,recv_time_ns
hostA,1000,hostB,900
hostB,2000,hostA,2600
hostA,3000,hostC,3500
hostC,4000,hostA,4700
hostB,5000,hostC,5200
hostC,6000,hostB,6900
hostA,7000,hostB,7100
C

# record NAME CMD...: stdout, stderr and exit status of CMD as got/NAME.*
record() {
    name=$1
    shift
    set +e
    "$@" >"got/$name.out" 2>"got/$name.err"
    echo $? >"got/$name.rc"
    set -e
}

# dump NAME PATH: a written trace as text: an OTF2 archive through otf2-print
# (definitions and events), a CSV as it is; nothing when it was not written.
dump() {
    case $2 in
    *.otf2) [ -f "$2" ] || return 0
            otf2-print "$2" >"got/$1.events.txt" 2>/dev/null
            otf2-print -G "$2" >"got/$1.defs.txt" 2>/dev/null ;;
    *) [ -f "$2" ] && cp "$2" "got/$1.csv" ;;
    esac
    return 0
}

for pair in ez:in/eztrace_log.otf2 basic:in/basic/traces.otf2 csv:in/msgs.csv; do
    n=${pair%%:*}
    input=${pair#*:}
    file=${input##*/}
    record "$n.check" "$TRACESYNC" check "$input"
    record "$n.check-json" "$TRACESYNC" check "$input" --json
    record "$n.estimate" "$TRACESYNC" estimate "$input"
    record "$n.estimate-json" "$TRACESYNC" estimate "$input" --json -o "got/$n.maps.json"
    record "$n.sync" "$TRACESYNC" sync "$input" -o "out/$n.sync" --report "got/$n.sync-report.json"
    dump "$n.sync" "out/$n.sync/$file"
    record "$n.sync-noclc" "$TRACESYNC" sync "$input" -o "out/$n.sync-noclc" --no-clc --json
    dump "$n.sync-noclc" "out/$n.sync-noclc/$file"
    record "$n.clc" "$TRACESYNC" clc "$input" -o "out/$n.clc" --report "got/$n.clc-report.json"
    dump "$n.clc" "out/$n.clc/$file"
    record "$n.apply" "$TRACESYNC" apply "got/$n.maps.json" "$input" -o "out/$n.apply"
    dump "$n.apply" "out/$n.apply/$file"
done

if [ -n "${UPDATE:-}" ]; then
    rm -rf "$UPDATE"
    cp -r got "$UPDATE"
    exit 0
fi
diff -r "$DATA/expected/same-outputs" got >diff.txt || fail "outputs differ from tests/data/expected/same-outputs:
$(head -60 diff.txt)"
