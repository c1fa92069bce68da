# simulate and eval end to end: files, truth against itself, the injected clock
# errors, causality of the truth, determinism per seed, --config, errors.
. "$E2E_LIB"

run 0 "$TRACESYNC" simulate --scenario smoke --seed 3 -o sim
contains err.txt "wrote sim/trace.otf2"
for f in trace.otf2 truth.otf2 scenario.json trace.def truth.def; do
    [ -e "sim/$f" ] || fail "sim/$f is missing"
done
[ -z "$(ls -A sim | grep '^\.tracesync')" ] || fail "a temporary directory was left in sim/"

# The truth is causal: no violation even at the scenario's own minimum latencies.
run 0 "$TRACESYNC" check sim/truth.otf2
run 0 "$TRACESYNC" check sim/truth.otf2 --latency intra=1us,inter=5us --json
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["messages"] > 100 and d["logical_messages"] > 50' True

# Truth against itself: no error at all.
run 0 "$TRACESYNC" eval sim/truth.otf2 sim/truth.otf2 --json
json_eq out.txt 'd["max_abs_error_s"]' 0.0
json_eq out.txt 'd["events"] >= 2000' True
json_eq out.txt 'd["reversed"]' 0
json_eq out.txt 'd["order_changed"]' False
json_eq out.txt 'd["relative_max_abs_error_s"]' 0.0
json_eq out.txt 'd["relative_bin_s"]' 1.0
json_eq out.txt 'd["per_location"][0]["relative_mean_abs_error_s"]' 0.0

# The uncorrected trace: the error is the difference of the two nodes' clocks
# (their offsets, plus up to 50 ppm of skew over the 1 s run).
run 0 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --json
cp out.txt eval.json
python3 - sim/scenario.json eval.json <<'P' || fail "eval error does not match the clock offsets"
import json, sys
sc = json.load(open(sys.argv[1])); ev = json.load(open(sys.argv[2]))
o = [c["offset_s"] for c in sc["clocks"]]
assert len(o) == 2, o
want = abs(o[1] - o[0])
got = ev["max_abs_error_s"]
print("clock offsets", o, "difference", want, "eval max", got)
assert want > 1e-4 and abs(got - want) < 2e-4, (got, want)
# Every event of one node is off by about the same: both nodes' ranks show it.
per = sorted(p["mean_abs_error_s"] for p in ev["per_location"])
assert per[0] < 1e-4 and abs(per[-1] - want) < 2e-4, per
assert ev["reversed"] > 0 and ev["violations"] >= ev["reversed"]
# Relative to the time axis: the common-mode error c(t) lies between the two
# clocks, so what is left of their difference on each node is at most all of it.
print("relative max", ev["relative_max_abs_error_s"], "bin", ev["relative_bin_s"])
assert 0 < ev["relative_max_abs_error_s"] <= want + 2e-4, ev["relative_max_abs_error_s"]
for k in ("relative_max_abs_error_s", "relative_p99_abs_error_s", "relative_mean_abs_error_s"):
    assert all(0 <= p[k] <= want + 2e-4 for p in ev["per_location"]), k
P
run 0 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2
contains out.txt "|error|"
contains out.txt "ms"
contains out.txt "Table 4"
contains out.txt "relative to the time axis: max"
run 0 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --bin 200ms --json
json_eq out.txt 'd["relative_bin_s"]' 0.2

# Same seed, same traces (otf2-print: the anchor's trace id is random).
run 0 "$TRACESYNC" simulate --scenario smoke --seed 3 -o again -q
for a in trace truth; do
    otf2-print "sim/$a.otf2" >"p1-$a.txt"
    otf2-print "again/$a.otf2" >"p2-$a.txt"
    cmp -s "p1-$a.txt" "p2-$a.txt" || fail "$a.otf2 differs between two runs with seed 3"
done
cmp -s sim/scenario.json again/scenario.json || fail "scenario.json differs between two runs"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 4 -o other -q
otf2-print other/trace.otf2 >p3.txt
! cmp -s p1-trace.txt p3.txt || fail "seeds 3 and 4 gave the same trace"

# A run repeated from its scenario.json.
run 0 "$TRACESYNC" simulate --config sim/scenario.json -o repeat -q
otf2-print repeat/trace.otf2 >p4.txt
cmp -s p1-trace.txt p4.txt || fail "--config sim/scenario.json did not repeat the run"

# Overrides, and writing over an earlier output.
run 0 "$TRACESYNC" simulate --scenario smoke --ranks 6 --nodes 3 --events 3000 --offsets off \
    --timer-resolution 1e6 --set app.patterns=ring --set net.latency_inter_s=7.7us -o sim -q
run 0 "$TRACESYNC" check sim/truth.otf2 --latency intra=1us,inter=7.7us --json
json_eq out.txt 'd["locations"]' 6
json_eq out.txt 'd["violations"]' 0
json_eq sim/scenario.json 'd["parameters"]["app"]["patterns"]' "['ring']"
json_eq sim/scenario.json 'd["parameters"]["offsets"]["enabled"]' False
json_eq sim/scenario.json 'd["result"]["clock_offsets"]' 0
run 0 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --json
json_eq out.txt 'd["corrected_resolution"]' 1000000
json_eq out.txt 'd["truth_resolution"]' 1000000000

# Help and the lists.
run 0 "$TRACESYNC" simulate --help
contains out.txt "Example:"
run 0 "$TRACESYNC" eval --help
contains out.txt "Example:"
run 0 "$TRACESYNC" simulate --list
contains out.txt "marenostrum"
contains out.txt "net.latency_inter_s"

# Usage and input errors exit 2 and say what is wrong.
run 2 "$TRACESYNC" simulate --scenario smok -o x
contains err.txt "unknown scenario"
run 2 "$TRACESYNC" simulate --scenario smoke
contains err.txt "-o OUTDIR"
run 2 "$TRACESYNC" simulate --ranks 0 -o x
contains err.txt "ranks"
run 2 "$TRACESYNC" simulate --set net.latency=1us -o x
contains err.txt "net.latency_inter_s"
run 2 "$TRACESYNC" simulate --duration 3parsecs -o x
contains err.txt "app.duration_s"
run 2 "$TRACESYNC" simulate --bogus -o x
run 2 "$TRACESYNC" eval sim/trace.otf2
contains err.txt "expected CORRECTED and TRUTH"
run 2 "$TRACESYNC" eval other/trace.otf2 sim/truth.otf2
contains err.txt "not in the"
run 2 "$TRACESYNC" eval again/trace.otf2 other/truth.otf2
contains err.txt "events in the corrected trace"
run 2 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --bin 0
contains err.txt "--bin 0"
run 2 "$TRACESYNC" eval sim/trace.otf2 sim/truth.otf2 --bin 3parsecs
contains err.txt "positive duration"
[ ! -e x ] || fail "a failed simulate left x/ behind"

# A run of gigabytes is announced, with its size and how to make it smaller, before
# anything is written (here smoke for ten hours: stopped once it has said so); the
# small runs of the README say nothing.
cat >announce.py <<'P'
import subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
line = p.stderr.readline()
p.terminate()
p.wait()
print(line, end="")
P
python3 announce.py "$TRACESYNC" simulate --scenario smoke --duration 10h -o huge >warn.txt
contains warn.txt "tracesync simulate: warning: about 2.3e+10 events, 645 GB in huge; --events N or --duration T"
[ -z "$(ls -A huge 2>/dev/null)" ] || fail "huge: $(ls -A huge)"
run 0 "$TRACESYNC" simulate --ranks 16 --nodes 4 --duration 10s --sessions 2s -o readme
if grep -q warning err.txt; then fail "a README example warns: $(cat err.txt)"; fi
echo ok
