# The controlled logical clock through the command: simulated traces, the EZTrace
# sample, fixtures; no violation after, every record kept, bad input refused.
. "$E2E_LIB"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 11 -o sim -q
run 0 "$TRACESYNC" clc sim/trace.otf2 -o out --report report.json --latency intra=1us,inter=5us -q
json_eq report.json '"clc" in d' True
run 0 "$TRACESYNC" check out/trace.otf2 --latency intra=1us,inter=5us -q
otf2-print sim/trace.otf2 >in.txt 2>/dev/null
otf2-print out/trace.otf2 >out.txt 2>/dev/null
per_location in.txt >in.rec
per_location out.txt >out.rec
cmp -s in.rec out.rec || fail "records changed: $(diff in.rec out.rec | head)"
run 0 "$TRACESYNC" eval out/trace.otf2 sim/truth.otf2 --json --latency intra=1us,inter=5us
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["order_changed"]' False

# Without ClockOffset records to start from: the EZTrace sample, 220 ms apart.
run 0 "$TRACESYNC" clc "$DATA/eztrace-pingring/eztrace_log.otf2" -o ez -q --json
json_eq out.txt 'd["after"]["violations"]' 0
run 0 "$TRACESYNC" check ez/eztrace_log.otf2 -q

# Running it again on its own output changes nothing.
run 0 "$TRACESYNC" clc out/trace.otf2 -o again --latency intra=1us,inter=5us --no-presync -q
otf2-print out/trace.otf2 2>/dev/null >a.txt
otf2-print again/trace.otf2 2>/dev/null >b.txt
cmp -s a.txt b.txt || fail "clc is not idempotent: $(diff a.txt b.txt | head)"

# Bad input.
run 2 "$TRACESYNC" clc missing/trace.otf2 -o bad
[ ! -e bad/trace.otf2 ] || fail "output written for a missing input"
run 2 "$TRACESYNC" clc sim/trace.otf2
contains err.txt "-o"
run 2 "$TRACESYNC" clc sim/trace.otf2 -o bad --passes 0
