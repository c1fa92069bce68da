# The main job: simulated traces with truth, the EZTrace sample, a CSV, bad input.
. "$E2E_LIB"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 7 -o sim -q
run 1 "$TRACESYNC" check sim/trace.otf2 -q
run 0 "$TRACESYNC" sync sim/trace.otf2 -o synced --report report.json
contains out.txt "result         CONSISTENT"
# The summary names the reference and the rule that chose it.
contains out.txt "reference node0 (MPI rank 0, the ClockOffset master)"
json_eq report.json 'd["consistent"]' True
json_eq report.json 'd["estimate"]["estimate"]["references"][0]["rule"]' master
json_eq report.json 'd["after"]["violations"]' 0
json_eq report.json 'd["before"]["violations"] > 0' True
json_eq report.json 'd["estimate"]["estimate"]["estimator"]' hull
json_eq report.json 'len(d["estimate"]["maps"]) > 0' True
json_eq report.json '"clc" in d and "deviation" in d' True
# Which information each map came from: the simulator's messages, collectives and
# Score-P style ClockOffset records (no synchronization sessions).
contains out.txt "sources        1 map from messages 124 + collectives 21 + offsets 4"
json_eq report.json '[(x["name"], x["sources"]) for x in d["estimate"]["estimate"]["domains"]]' \
    "[('node0', {'from': [], 'messages': 0, 'collectives': 0, 'sessions': 0, 'offsets': 0}), ('node1', {'from': ['messages', 'collectives', 'offsets'], 'messages': 124, 'collectives': 21, 'sessions': 0, 'offsets': 4})]"
json_eq report.json '[x["sources"]["from"] for x in d["estimate"]["estimate"]["graph"]]' "[['messages', 'collectives', 'offsets']]"
run 0 "$TRACESYNC" sync sim/trace.otf2 -o nooffsets --no-offsets
grep -qx "  sources        1 map from messages 124 + collectives 21" out.txt || fail "--no-offsets: $(cat out.txt)"
run 0 "$TRACESYNC" estimate sim/trace.otf2
contains out.txt "messages 124 + collectives 21 + offsets 4 node0 > node1"
run 0 "$TRACESYNC" check synced/trace.otf2
# Against the truth: no violation, every location's order kept, and the error
# relative to the time axis far below the raw clock errors (milliseconds).
run 0 "$TRACESYNC" eval synced/trace.otf2 sim/truth.otf2 --json
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["order_changed"]' False
run 0 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --json
cp out.txt raw-eval.json

# Each stage can be switched off; the output is still consistent with the CLC.
run 0 "$TRACESYNC" sync sim/trace.otf2 -o none --estimator none -q --json
json_eq out.txt '"estimate" in d' False
json_eq out.txt 'd["after"]["violations"]' 0
run 0 "$TRACESYNC" sync sim/trace.otf2 -o noclc --no-clc -q --json
json_eq out.txt '"clc" in d' False
run 0 "$TRACESYNC" sync sim/trace.otf2 -o reg --estimator regression -q

# The EZTrace sample: its ranks do not share a clock, so one domain per location.
run 0 "$TRACESYNC" sync "$DATA/eztrace-pingring/eztrace_log.otf2" -o ez --domains location -q
contains out.txt "CONSISTENT"
run 0 "$TRACESYNC" check ez/eztrace_log.otf2 -q

# EZTrace-like: every rank starts its own clock (origins up to 40 ms apart), two
# ranks per node. By default both nodes are split by their messages and sync comes
# out as with --domains location (here 16 us against the truth); kept whole, 45 ms.
run 0 "$TRACESYNC" simulate --scenario smoke --seed 3 --clock-per-rank \
    --set clock.offset_max_s=40ms --offsets off -o ezsim -q
run 0 "$TRACESYNC" sync ezsim/trace.otf2 -o ezdef --report ezdef.json -q
contains out.txt 'split where their messages contradict one clock: "node0" into 2, "node1" into 2'
run 0 "$TRACESYNC" sync ezsim/trace.otf2 -o ezloc --domains location --report ezloc.json -q
python3 -c 'import json,sys; a=json.load(open("ezdef.json")); b=json.load(open("ezloc.json")); sys.exit(a["estimate"]["maps"] != b["estimate"]["maps"])' ||
    fail "the default grouping's maps differ from --domains location's"
run 0 "$TRACESYNC" eval ezdef/trace.otf2 ezsim/truth.otf2 --json
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["max_abs_error_s"] < 50e-6' True
run 0 "$TRACESYNC" sync ezsim/trace.otf2 -o eznode --domains node -q
run 0 "$TRACESYNC" eval eznode/trace.otf2 ezsim/truth.otf2 --json
json_eq out.txt 'd["max_abs_error_s"] > 1e-3' True

# A CSV of messages comes back as a corrected CSV.
cat > msgs.csv <<'C'
send_location,send_time_ns,recv_location,recv_time_ns
a,1000,b,90000
b,2000,a,-85000
a,50000,b,140000
b,60000,a,-30000
C
run 0 "$TRACESYNC" sync msgs.csv -o csvout -q
[ -f csvout/msgs.csv ] || fail "no corrected CSV"
run 0 "$TRACESYNC" check csvout/msgs.csv --latency inter=0ns -q

# ClockOffset records every 30 s, none at MPI_Init: MPI_Init, 30 s before the first
# session, goes along the line through the records (it went along the first
# session's own line, open by thousands of ppm: 276 us off; now 1.6 us).
run 0 "$TRACESYNC" simulate -q --scenario sleeps --seed 21 --set offsets.enabled=off \
    --set offsets.session_interval_s=30 --set app.duration_s=10s -o sessions
run 0 "$TRACESYNC" sync sessions/trace.otf2 -o sessions-out --no-clc -q
run 0 "$TRACESYNC" eval sessions-out/trace.otf2 sessions/truth.otf2 --json
json_eq out.txt 'd["relative_max_abs_error_s"] < 5e-6' True

# Sessions every 30 s on 16 nodes of one rank: the pairs with rank 0, a dozen
# collectives and a record each 30 s, follow their records (record_curve.c), and the
# collectives that waited no longer widen the bounds near the records (envelope.c),
# so the paths go straight to rank 0: 3.7 us before, rank 15 1.0 us; now 0.7 us, as
# close as the records' own linear interpolation (0.7 us, bench_accuracy).
run 0 "$TRACESYNC" simulate -q --scenario thermal --seed 21 --set ranks=16 --set nodes=16 \
    --set app.duration_s=5min --set offsets.session_interval_s=30 -o thermal
run 0 "$TRACESYNC" sync thermal/trace.otf2 -o thermal-out --no-clc -q
run 0 "$TRACESYNC" eval thermal-out/trace.otf2 thermal/truth.otf2 --json
json_eq out.txt '[p["relative_max_abs_error_s"] < 1e-6 for p in d["per_location"] if p["location"] == 15]' "[True]"
json_eq out.txt 'd["relative_max_abs_error_s"] < 1e-6' True

# Bad input: exit 2, nothing written.
run 2 "$TRACESYNC" sync sim/trace.otf2
contains err.txt "-o OUTDIR"
run 2 "$TRACESYNC" sync missing/trace.otf2 -o bad
[ ! -e bad/trace.otf2 ] || fail "output written for a missing input"
run 2 "$TRACESYNC" sync sim/trace.otf2 -o bad --estimator magic
contains err.txt "magic"
