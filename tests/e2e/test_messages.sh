# Messages a new user reads: files named, units people use, no silent loss, maps
# that leave the 64-bit time range refused.
. "$E2E_LIB"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 9 -o sim -q

# A missing or empty local definition file: a warning naming it (its ClockOffset
# records are lost); a missing event file: an error naming it.
cp -r sim md
rm md/trace/1.def
: >md/trace/2.def
run 1 "$TRACESYNC" check md/trace.otf2
contains err.txt "warning: md/trace/1.def: missing: location 1 (Rank 1) is read without local definitions"
contains err.txt "warning: md/trace/2.def: empty: location 2 (Rank 2)"
cp -r sim me
rm me/trace/3.evt
run 2 "$TRACESYNC" check me/trace.otf2
contains err.txt "location 3 (Rank 3): cannot open its events (me/trace/3.evt)"

# apply: a time leaving the int64 range is an error naming location and event;
# nothing is written (no saturation at INT64_MAX).
cat >huge.json <<'J'
{ "format": "tracesync-maps", "version": 1, "timer_resolution": 1000000000,
  "maps": [ { "default": true, "offset": 9223372036854775807 } ] }
J
run 2 "$TRACESYNC" apply huge.json sim/trace.otf2 -o huge
contains err.txt "sim/trace.otf2: location 0 (Rank 0): event 0: raw time"
contains err.txt "maps outside the 64-bit time range"
[ ! -e huge ] || fail "huge/ written"

# Durations in the units people use; singular and plural.
run 1 "$TRACESYNC" check sim/trace.otf2 --latency inter=1h
contains out.txt "minimum latency 300 ns intra-node, 1 h inter-node"
run 0 "$TRACESYNC" sync sim/trace.otf2 -o out
contains out.txt "hull: 1 domain bounded"
if grep -q "max 0.00 %" out.txt; then fail "a maximum printed as 0.00 %"; fi

# sync takes the options of the stages it runs, parsed as those commands parse them.
run 0 "$TRACESYNC" sync sim/trace.otf2 -o stages --max-gap 5s --max-drift 200 --no-segment \
    --no-offsets --min-segment 1s --max-segment 30s --threads 1 --gamma 0.999 --passes 3 -q --json
json_eq out.txt 'd["clc"]["gamma"] <= 0.999' True
run 2 "$TRACESYNC" sync sim/trace.otf2 -o stages2 --max-gap x
contains err.txt "tracesync sync: --max-gap: \"x\" is not a duration"
run 2 "$TRACESYNC" sync sim/trace.otf2 -o stages2 --latency-file nothere.txt
contains err.txt "nothere.txt"
[ ! -e stages2/trace.otf2 ] || fail "stages2 written"

# simulate warns before writing gigabytes (stopped here by SIGTERM, which removes
# what it had written).
set +e
timeout 2 "$TRACESYNC" simulate --scenario smoke --events 100000000 -o huge-sim 2>err.txt
rc=$?
set -e
[ $rc -eq 124 ] || [ $rc -eq 0 ] || fail "simulate: exit $rc"
contains err.txt "warning: about 1e+08 events, 3 GB in huge-sim; --events N or --duration T"
[ $rc -eq 0 ] || [ -z "$(ls -A huge-sim)" ] || fail "huge-sim: $(ls -A huge-sim)"

# Progress on a terminal: totals with units, one line per stage, never counting back.
if command -v script >/dev/null 2>&1; then
    run 0 "$TRACESYNC" simulate --scenario smoke --events 200000 -o big -q
    script -qec "'$TRACESYNC' sync big/trace.otf2 -o bigout" /dev/null >tty.txt </dev/null
    contains tty.txt "applying time maps: 0 of "
    contains tty.txt "checking messages: "
    tr '\r' '\n' <tty.txt | grep ': [0-9]' >stages.txt || fail "no progress: $(cat tty.txt)"
    # Every terminal line holds one stage only.
    awk -F'\r' '{ n = 0; delete seen; for (i = 1; i <= NF; i++) { split($i, p, ":"); if (p[1] != "" && !(p[1] in seen)) { seen[p[1]] = 1; n++ } } if (n > 1) { print "two stages on one line: " $0; bad = 1 } } END { exit bad }' tty.txt ||
        fail "progress mixed stages on one line"
fi
echo ok
