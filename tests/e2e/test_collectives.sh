# Collectives as samples (seed 002, section 4.1): a simulated run whose ranks only
# call collectives, without ClockOffset records, gets estimated maps from their
# logical messages; sync with them is closer to the truth than the input and than
# the CLC alone (--estimator none). The EZTrace sample's collectives add samples.
. "$E2E_LIB"

run 0 "$TRACESYNC" simulate -q --scenario smoke --set app.patterns=none \
    --set app.collective_every=1 --offsets off -o sim
run 1 "$TRACESYNC" check sim/trace.otf2 --json
json_eq out.txt 'd["messages"]' 0
run 0 "$TRACESYNC" estimate sim/trace.otf2 --json
json_eq out.txt 'sorted(x["kind"] for x in d["estimate"]["domains"])' "['bounded', 'exact']"
json_eq out.txt 'min(x["samples"] for x in d["estimate"]["graph"]) > 100' True

for e in hull none; do
    run 0 "$TRACESYNC" sync -q sim/trace.otf2 -o "out-$e" --estimator "$e"
    run 0 "$TRACESYNC" eval -q "out-$e/trace.otf2" sim/truth.otf2 --json
    cp out.txt "eval-$e.json"
done
run 0 "$TRACESYNC" eval -q sim/trace.otf2 sim/truth.otf2 --json
cp out.txt eval-input.json
python3 - <<'P' || fail "collectives: sync not better than the input and the CLC alone"
import json
m = {k: json.load(open("eval-%s.json" % k))["max_abs_error_s"] for k in ("hull", "none", "input")}
print(m)
assert m["hull"] < 10e-6, m
assert m["hull"] < m["none"] / 100 and m["hull"] < m["input"] / 100, m
P

# The EZTrace sample, every location its own clock: the collectives relate them too.
run 0 "$TRACESYNC" estimate "$DATA/eztrace-pingring/eztrace_log.otf2" --domains location --json
json_eq out.txt '[x["kind"] for x in d["estimate"]["domains"]].count("bounded")' 3
# 22 point-to-point messages in all; the rest of the samples are logical messages.
json_eq out.txt 'sum(x["samples"] for x in d["estimate"]["graph"]) > 22' True
