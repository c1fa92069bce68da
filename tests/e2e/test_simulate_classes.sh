# The trace classes of issue 11 through the command line: simulate (cyclic
# placement, per-rank clock origins, message lists between hosts as CSV), sync and
# eval on the files the simulator wrote.
. "$E2E_LIB"

# Cyclic placement: rank r on node r % nodes (scenario.json's layout says so).
run 0 "$TRACESYNC" simulate --scenario smoke --set cyclic=on -o cyc
json_eq cyc/scenario.json 'd["layout"]["rank_node"]' '[0, 1, 0, 1]'
json_eq cyc/scenario.json 'd["parameters"]["cyclic"]' True
run 0 "$TRACESYNC" sync cyc/trace.otf2 -o cyc/out
run 0 "$TRACESYNC" eval cyc/out/trace.otf2 cyc/truth.otf2 --json
json_eq out.txt 'd["max_abs_error_s"] < 1e-3' True

# EZTrace-like origins: ranks 0 and 1 share node 0's oscillator but not its origin;
# the uncorrected trace is off by their gap (25 to 40 ms) on rank 1.
run 0 "$TRACESYNC" simulate --scenario eztrace --ranks 4 --nodes 2 --events 2000 -o ez
json_eq ez/scenario.json 'd["parameters"]["offsets"]["enabled"]' False
json_eq ez/scenario.json 'len(d["clocks"])' 2
run 0 "$TRACESYNC" eval ez/trace.otf2 ez/truth.otf2 --json
json_eq out.txt '0.02 < d["max_abs_error_s"] < 0.05' True
run 0 "$TRACESYNC" sync ez/trace.otf2 -o ez/out
run 0 "$TRACESYNC" eval ez/out/trace.otf2 ez/truth.otf2 --json

# Messages between hosts as CSV: a mesh of 4 hosts, 20 messages per direction of
# each of its 6 links; the truth has the same rows and is causal at 50 us.
run 0 "$TRACESYNC" simulate --scenario hosts --set nodes=4 --set ranks=4 \
    --set hosts.topology=mesh --set hosts.messages=20 --duration 10min -o mesh
contains err.txt "wrote mesh/trace.csv, truth.csv"
[ "$(wc -l <mesh/trace.csv)" -eq 241 ] || fail "mesh/trace.csv: $(wc -l <mesh/trace.csv) lines"
[ "$(cut -d, -f1,3 mesh/trace.csv | md5sum)" = "$(cut -d, -f1,3 mesh/truth.csv | md5sum)" ] ||
    fail "trace.csv and truth.csv name other hosts"
run 0 "$TRACESYNC" check mesh/truth.csv --latency inter=50us --json
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["locations"]' 4
run 0 "$TRACESYNC" eval mesh/trace.csv mesh/truth.csv --json
raw=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_abs_error_s"])' out.txt)
run 0 "$TRACESYNC" sync mesh/trace.csv -o mesh/out
run 0 "$TRACESYNC" eval mesh/out/trace.csv mesh/truth.csv --json
json_eq out.txt 'd["events"]' 480
json_eq out.txt "d['max_abs_error_s'] < $raw" True

# Ten messages in all (k), and a topology that needs two hosts.
run 0 "$TRACESYNC" simulate --scenario hosts --set hosts.messages=5 -o ten
[ "$(wc -l <ten/trace.csv)" -eq 11 ] || fail "ten/trace.csv: $(wc -l <ten/trace.csv) lines"
run 0 "$TRACESYNC" sync ten/trace.csv -o ten/out
run 0 "$TRACESYNC" eval ten/out/trace.csv ten/truth.csv
run 2 "$TRACESYNC" simulate --scenario hosts --set nodes=3 --set ranks=3 -o bad
contains err.txt "hosts.topology pair"
run 2 "$TRACESYNC" simulate --scenario hosts --set hosts.topology=tree -o bad
contains err.txt "pair, chain, star, ring or mesh"
