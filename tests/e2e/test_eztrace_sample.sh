# The shipped EZTrace sample (tests/data/eztrace-pingring, README there): a real
# MPI trace whose ranks start their clocks at different origins.
. "$E2E_LIB"
IN="$DATA/eztrace-pingring/eztrace_log.otf2"
before=$(tree_sum "$DATA/eztrace-pingring")

run 1 "$TRACESYNC" check "$IN" --json
json_eq out.txt 'd["locations"]' 4
json_eq out.txt 'd["messages"]' 22
json_eq out.txt 'd["p2p"]["reversed"]' 10
json_eq out.txt 'd["unmatched"]["sends"]' 20
json_eq out.txt 'd["unmatched"]["receives"]' 0
json_eq out.txt 'round(d["p2p"]["displacement_max_s"], 6)' 0.219823
json_eq out.txt 'd["domain_rule"]' node
# EZTrace records no receive for messages completed in MPI_Wait: a warning, not an error.
contains err.txt "unmatched"
# One node, but the ranks' messages contradict one clock: four clock domains.
json_eq out.txt 'd["domains"]' 4
run 1 "$TRACESYNC" check "$IN" --json --domains node -q
json_eq out.txt 'd["domains"]' 1

# Copy with unchanged timestamps: otf2-print sees the same trace.
cat > zero.json <<'J'
{ "format": "tracesync-maps", "version": 1, "maps": [ { "default": true, "offset": 0 } ] }
J
run 0 "$TRACESYNC" apply zero.json "$IN" -o same
otf2-print "$IN" >in.txt 2>/dev/null
otf2-print same/eztrace_log.otf2 >same.txt 2>/dev/null
cmp -s in.txt same.txt || fail "events differ after an identity copy: $(diff in.txt same.txt | head)"
otf2-print -G "$IN" >ing.txt 2>/dev/null
otf2-print -G same/eztrace_log.otf2 >sameg.txt 2>/dev/null
cmp -s ing.txt sameg.txt || fail "definitions differ after an identity copy: $(diff ing.txt sameg.txt | head)"

# The clock offsets measured while recording (README: -218542716, -220732794 and
# -218537055 ns to rank 0), all shifted by +220732794 ns so that no time becomes
# negative: with them applied, no point-to-point message is reversed any more.
cat > offsets.json <<'J'
{
  "format": "tracesync-maps", "version": 1, "timer_resolution": 1000000000,
  "maps": [
    { "location": 536870911, "offset": 2190078 },
    { "location": 1073741822, "offset": 0 },
    { "location": 1610612733, "offset": 2195739 },
    { "location": 0, "offset": 220732794 }
  ]
}
J
run 0 "$TRACESYNC" apply offsets.json "$IN" -o fixed
[ -f fixed/eztrace_log.otf2 ] && [ -f fixed/eztrace_log.def ] || fail "no output archive"
run 0 "$TRACESYNC" check fixed/eztrace_log.otf2 --json --latency intra=0ns
json_eq out.txt 'd["p2p"]["reversed"]' 0
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["messages"]' 22
# Only timestamps changed: per location, the same records in the same order.
otf2-print fixed/eztrace_log.otf2 2>/dev/null >fixed.txt
per_location in.txt >in.rec
per_location fixed.txt >fixed.rec
cmp -s in.rec fixed.rec || fail "records changed: $(diff in.rec fixed.rec | head)"
cmp -s in.txt fixed.txt && fail "timestamps did not change"

# sync with its defaults repairs the sample as well as --domains location: the same
# maps, the same trace, the report names the split and the reference.
run 0 "$TRACESYNC" sync "$IN" -o def --report def.json
contains out.txt '4 locations in 4 clock domains (by node; split where their messages contradict one clock: "pingring" into 4)'
contains out.txt "reference location 0 (MPI rank 0)"
contains out.txt "CONSISTENT"
run 0 "$TRACESYNC" sync "$IN" -o loc --domains location --report loc.json -q
json_eq def.json '(d["after_maps"]["violations"], d["after"]["violations"], round(d["after_maps"]["displacement_max_s"], 7))' "(1, 0, 3e-07)"
python3 - <<'P' || fail "the default sync differs from --domains location's"
import json, sys
a, b = json.load(open("def.json")), json.load(open("loc.json"))
for k in ("after_maps", "after", "deviation", "shift_ticks"):
    if k in ("after_maps", "after"):
        a[k].pop("domain_rule"); b[k].pop("domain_rule")
        a[k].pop("clock_domains", None); b[k].pop("clock_domains", None)
    if a[k] != b[k]:
        sys.exit("%s differs" % k)
if a["estimate"]["maps"] != b["estimate"]["maps"]:
    sys.exit("maps differ")
P
otf2-print def/eztrace_log.otf2 >def.txt 2>/dev/null
otf2-print loc/eztrace_log.otf2 >loc.txt 2>/dev/null
cmp -s def.txt loc.txt || fail "the default sync's trace differs from --domains location's"

[ "$(tree_sum "$DATA/eztrace-pingring")" = "$before" ] || fail "the input was modified"
