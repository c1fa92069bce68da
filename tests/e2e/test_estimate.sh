# tracesync estimate: maps from messages on archives with known clock offsets, the
# JSON that apply reads, and the EZTrace sample whose ranks do not share a clock.
. "$E2E_LIB"

# within MAPS.json LOC_ID TRUTH_OFFSET [SLACK]: at every point of the location's map,
# map(x) - x - shift is within the point's bound (+ SLACK ticks) of TRUTH_OFFSET
# (the amount to add to the location's times to put them on the reference clock).
within() {
    python3 - "$@" <<'P' || fail "location $2: offset not within the bound of $3"
import json, sys
d = json.load(open(sys.argv[1]))
loc, truth = int(sys.argv[2]), int(sys.argv[3])
slack = int(sys.argv[4]) if len(sys.argv) > 4 else 0
shift = d["estimate"]["components"][0]["shift"]
m = [m for m in d["maps"] if m["location"] == loc][0]
points = m["points"] if "points" in m else [[0, m["offset"]]]
bounds = m.get("bounds", [m.get("bound")])
for (x, y), b in zip(points, bounds):
    got = y - x - shift
    if b is None or abs(got - truth) > b + slack:
        sys.exit("location %d at %d: offset %d, truth %d, bound %s" % (loc, x, got, truth, b))
P
}

# ---- basic.tsf: ranks 2 and 3 on n1, whose clock is 20000 ticks ahead -------------------
fixture "$DATA/fixtures/basic.tsf" in/traces.otf2
run 0 "$TRACESYNC" estimate in/traces.otf2 --json
cp out.txt maps.json
json_eq maps.json 'd["format"]' tracesync-maps
json_eq maps.json 'd["estimate"]["estimator"]' hull
json_eq maps.json '[r["domain"] for r in d["estimate"]["references"]]' "['n0']"
# The trace's own time base: rank 0 records offset 0, the others' offsets refer to it.
json_eq maps.json 'd["estimate"]["references"][0]["rule"]' master
json_eq maps.json 'd["estimate"]["references"][0]["reason"]' "MPI rank 0, the ClockOffset master"
json_eq maps.json 'd["estimate"]["reference_rule"]' global
json_eq maps.json '[x["kind"] for x in d["estimate"]["domains"]]' "['exact', 'bounded']"
json_eq maps.json 'd["estimate"]["domains"][1]["path"]' "['n0', 'n1']"
json_eq maps.json 'd["estimate"]["grouping"]["rule"]' node
json_eq maps.json 'd["estimate"]["graph"][0]["in_tree"]' True
json_eq maps.json 'len(d["maps"])' 4
within maps.json 2 -20000
within maps.json 3 -20000
# What estimate writes, apply reads; the result is consistent.
run 0 "$TRACESYNC" apply maps.json in/traces.otf2 -o fixed
run 0 "$TRACESYNC" check fixed/traces.otf2 --json
json_eq out.txt 'd["violations"]' 0
# -o writes the same maps.
run 0 "$TRACESYNC" estimate in/traces.otf2 -o maps2.json -q
python3 -c 'import json,sys; a=json.load(open("maps.json")); b=json.load(open("maps2.json")); sys.exit(a != b)' ||
    fail "-o and --json differ"

# The summary for people.
run 0 "$TRACESYNC" estimate in/traces.otf2
contains out.txt "estimator   hull"
contains out.txt "grouping    node"
contains out.txt "references  n0 (MPI rank 0, the ClockOffset master)"
contains out.txt "n0 > n1"
# Seed 003's rule on request.
run 0 "$TRACESYNC" estimate in/traces.otf2 --reference auto
contains out.txt "(smallest sum of shortest-path errors)"
run 0 "$TRACESYNC" estimate in/traces.otf2 --reference auto --json
json_eq out.txt 'd["estimate"]["references"][0]["rule"]' auto
json_eq out.txt 'd["estimate"]["reference_rule"]' auto

# Regression, and a reference given by name.
run 0 "$TRACESYNC" estimate in/traces.otf2 --estimator regression --reference n1 --json
json_eq out.txt 'd["estimate"]["estimator"]' regression
json_eq out.txt '[(r["domain"], r["rule"]) for r in d["estimate"]["references"]]' "[('n1', 'given')]"
json_eq out.txt 'd["estimate"]["reference_given"]' True

# ---- basic.tsf with a latency file: one latency model for every stage ------------------------
# n0 -> n1 and back at least 1.05 us instead of 1 us: the hull's band narrows by 50 ns on
# each side (139 -> 89 ticks). At 25 us every message between the nodes (4 point-to-point,
# 10 logical, about 20 us one way) is faster than that: 14 violations instead of 6, in
# check and in sync's check as recorded.
json_eq maps.json 'd["estimate"]["domains"][1]["segments"][0]["bound"]' 139
printf 'n0 n1 1.05us  # both directions\n' > lat.txt
run 0 "$TRACESYNC" estimate in/traces.otf2 --json --latency-file lat.txt
json_eq out.txt 'd["estimate"]["domains"][1]["segments"][0]["bound"]' 89
json_eq out.txt 'd["estimate"]["latency_pairs"]' 2
run 0 "$TRACESYNC" estimate in/traces.otf2 --latency-file lat.txt
contains out.txt "(minimum latency 300 ns within a node, 1 us between nodes, 2 node pairs from a file; drift"
json_eq maps.json '"latency_pairs" in d["estimate"]' False
printf 'n0 n1 25us\n' > lat.txt
run 1 "$TRACESYNC" check in/traces.otf2 --json
json_eq out.txt 'd["violations"]' 6
run 1 "$TRACESYNC" check in/traces.otf2 --json --latency-file lat.txt
json_eq out.txt '(d["violations"], d["p2p"]["violations"], d["collective"]["violations"])' \
    '(14, 4, 10)'
json_eq out.txt 'd["latency_pairs"]' 2
run 1 "$TRACESYNC" check in/traces.otf2 --latency-file lat.txt
contains out.txt "14 (63.64 %) with minimum latency 300 ns intra-node, 1 us inter-node, 2 node pairs from a file"
run 0 "$TRACESYNC" sync in/traces.otf2 -o synced --json --latency-file lat.txt
json_eq out.txt 'd["before"]["violations"]' 14
json_eq out.txt 'd["after"]["violations"]' 0
run 2 "$TRACESYNC" estimate in/traces.otf2 --latency-file missing.txt
contains err.txt "missing.txt"

# ---- three nodes, offsets and drifts, ping-pongs over 2 s ----------------------------------
# n0 is true time; n1 = true + 500000 + 20 ppm; n2 = true - 300000 - 15 ppm. Every
# message takes 1.5 us (1 us minimum) plus up to 2 us; n1 - n2 only through n0.
python3 - <<'P' >drift.tsf
import random
random.seed(5)
clock = {0: (0, 0.0), 1: (500000, 20e-6), 2: (-300000, -15e-6)}
def local(n, t, up):
    o, r = clock[n]
    v = o + (1 + r) * t
    return int(v) + (1 if up and v != int(v) else 0)
print("resolution 1000000000")
print("node n0 0\nnode n1 1\nnode n2 2")
ev = []
for k in range(200):
    t = 1000000 + k * 10000000
    for peer in (1, 2):
        d1, d2 = 1500 + random.randint(0, 2000), 1500 + random.randint(0, 2000)
        t1 = t + peer * 100000
        ev.append((0, local(0, t1, 0), "send 0 %d 1 8" % peer))
        ev.append((peer, local(peer, t1 + d1, 1), "recv 0 0 1 8"))
        ev.append((peer, local(peer, t1 + d1 + 3000, 0), "send 0 0 2 8"))
        ev.append((0, local(0, t1 + d1 + 3000 + d2, 1), "recv 0 %d 2 8" % peer))
for r, t, what in sorted(ev, key=lambda e: (e[0], e[1])):
    print(r, t, what)
P
fixture drift.tsf drift/traces.otf2
run 0 "$TRACESYNC" estimate drift/traces.otf2 --json --reference n0
cp out.txt drift.json
json_eq drift.json '[x["kind"] for x in d["estimate"]["domains"]]' "['exact', 'bounded', 'bounded']"
json_eq drift.json 'round(d["estimate"]["domains"][1]["drift"] * 1e6)' -20
json_eq drift.json 'round(d["estimate"]["domains"][2]["drift"] * 1e6)' 15
# The truth at each map point: n1 and n2 go back to true time t = (x - o) / (1 + r).
python3 - <<'P' || fail "drift: truth outside the bound"
import json, sys
d = json.load(open("drift.json"))
clock = {1: (500000, 20e-6), 2: (-300000, -15e-6)}
for m in d["maps"]:
    if m["location"] == 0:
        continue
    o, r = clock[m["location"]]
    for (x, y), b in zip(m["points"], m["bounds"]):
        truth = (x - o) / (1 + r)
        if abs(y - truth) > b + 1:
            sys.exit("location %d at %d: map %d, truth %.1f, bound %d" % (m["location"], x, y, truth, b))
        if b > 3000:
            sys.exit("location %d at %d: bound %d is loose" % (m["location"], x, b))
P
run 0 "$TRACESYNC" apply drift.json drift/traces.otf2 -o drift-fixed
run 0 "$TRACESYNC" check drift-fixed/traces.otf2 --json
json_eq out.txt 'd["violations"]' 0
# The global solution has no loop to cancel here, and must not spoil anything.
run 0 "$TRACESYNC" estimate drift/traces.otf2 --json --global-lsq
json_eq out.txt 'd["estimate"]["global_lsq"]' True

# ---- the EZTrace sample: all ranks below one node, each with its own clock ------------------
IN="$DATA/eztrace-pingring/eztrace_log.otf2"
# --domains node keeps the node whole, as asked: the messages contradict it.
run 0 "$TRACESYNC" estimate "$IN" --domains node
contains out.txt "grouping    node"
contains out.txt "(as asked), but contradicted"
contains out.txt "try --domains location"
contains err.txt "do not share a clock"
run 0 "$TRACESYNC" estimate "$IN" --json -q --domains node
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 10
json_eq out.txt 'd["estimate"]["grouping"]["split"]' "[]"
json_eq out.txt 'd["estimate"]["domains"][0]["kind"]' absent
# By default the data decide: the node is split, here into its four ranks, and the
# report says what was split and why.
run 0 "$TRACESYNC" estimate "$IN"
contains out.txt "grouping    node: all locations of a node share one clock (the default), except where their own messages contradict it: 1 node split (\"pingring\" into 4 domains: 34 of 86 messages (collectives' logical ones too)"
contains err.txt 'clock domain "pingring" split into 4'
run 0 "$TRACESYNC" estimate "$IN" --json -q
cp out.txt ez-default.json
json_eq out.txt 'd["estimate"]["grouping"]["rule"]' node
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 0
json_eq out.txt '[(s["domain"], s["messages"], s["contradicting"], round(s["max_reversal_s"], 6), s["limit_s"]) for s in d["estimate"]["grouping"]["split"]]' "[('pingring', 86, 34, 0.220708, 1e-05)]"
json_eq out.txt 'd["estimate"]["grouping"]["split"][0]["into"]' "['location 0', 'location 536870911', 'location 1073741822', 'location 1610612733']"
# The limit follows the minimum latencies (10 of the larger one).
run 0 "$TRACESYNC" estimate "$IN" --json -q --latency intra=1us,inter=3us
json_eq out.txt 'd["estimate"]["grouping"]["split"][0]["limit_s"]' 3e-05

# One clock per location: the offsets measured while recording (README: relative to
# location 0, from the start and end samples, 1203 ns apart at most) lie within the
# bounds (their reference, location 0, is MPI rank 0's domain).
run 0 "$TRACESYNC" estimate "$IN" --domains location --json -q
cp out.txt ez.json
json_eq ez.json 'd["estimate"]["grouping"]["rule"]' location
json_eq ez.json '[r["domain"] for r in d["estimate"]["references"]]' "['location 0']"
# EZTrace writes no ClockOffset records: MPI rank 0's clock is the reference.
json_eq ez.json 'd["estimate"]["references"][0]["rule"]' rank0
json_eq ez.json '[x["kind"] for x in d["estimate"]["domains"]]' "['exact', 'bounded', 'bounded', 'bounded']"
within ez.json 536870911 -218542716 1203
within ez.json 1073741822 -220732794 1203
within ez.json 1610612733 -218537055 1203
within ez.json 536870911 -218541969 1203
# The default grouping gives the same maps.
python3 -c 'import json,sys; a=json.load(open("ez.json")); b=json.load(open("ez-default.json")); sys.exit(a["maps"] != b["maps"] or a["estimate"]["domains"] != b["estimate"]["domains"])' ||
    fail "the default grouping's maps differ from --domains location's"
# The shift keeps every corrected time positive: apply can write the archive.
run 0 "$TRACESYNC" apply ez.json "$IN" -o ez-fixed -q
[ -f ez-fixed/eztrace_log.otf2 ] || fail "no corrected archive"

# ---- usage errors ------------------------------------------------------------------------
run 2 "$TRACESYNC" estimate in/traces.otf2 --estimator chull
contains err.txt "--estimator"
run 2 "$TRACESYNC" estimate in/traces.otf2 --reference nowhere
contains err.txt '"nowhere"'
run 2 "$TRACESYNC" estimate
contains err.txt "no input"
