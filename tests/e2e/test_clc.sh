# tracesync clc: after it, check finds no violation with the same latencies, every
# record is kept, its own output comes back unchanged, and bad input writes nothing.
. "$E2E_LIB"

# same_records IN OUT: per location, the same records in the same order (times aside).
same_records() {
    otf2-print "$1" >a.txt 2>/dev/null
    otf2-print "$2" >b.txt 2>/dev/null
    per_location a.txt >a.rec
    per_location b.txt >b.rec
    [ -s a.rec ] || fail "no records in $1"
    cmp -s a.rec b.rec || fail "records changed: $(diff a.rec b.rec | head)"
}

# --- The basic fixture: n1's clock 20 us ahead, ClockOffset records that say so.
fixture "$DATA/fixtures/basic.tsf" basic/traces.otf2
run 1 "$TRACESYNC" check basic/traces.otf2
run 0 "$TRACESYNC" clc basic/traces.otf2 -o out1 --report out1.json
[ -f out1/traces.otf2 ] || fail "no output archive"
contains out.txt "as recorded"
contains out.txt "CONSISTENT"
json_eq out1.json 'd["recorded"]["violations"] > 0' True
json_eq out1.json 'd["before"]["violations"]' 0
json_eq out1.json 'd["after"]["violations"]' 0
json_eq out1.json 'd["clc"]["presync_locations"]' 4
json_eq out1.json 'd["clc"]["offset_records"]' 8
json_eq out1.json 'd["output"].endswith("out1/traces.otf2")' True
json_eq out1.json 'len(d["deviation"]["distance"]["share_time"])' 6
run 0 "$TRACESYNC" check out1/traces.otf2
same_records basic/traces.otf2 out1/traces.otf2

# Without the ClockOffset records the clc itself removes the violations.
run 0 "$TRACESYNC" clc basic/traces.otf2 -o out2 --no-presync --json
json_eq out.txt 'd["before"]["violations"] > 0' True
json_eq out.txt 'd["after"]["violations"]' 0
json_eq out.txt 'd["clc"]["corrected"] > 0' True
json_eq out.txt 'd["clc"]["presync"]' False
json_eq out.txt '"recorded" in d' False
run 0 "$TRACESYNC" check out2/traces.otf2
same_records basic/traces.otf2 out2/traces.otf2

# Its own output comes back unchanged (ClockOffsets were dropped by the writer).
run 0 "$TRACESYNC" clc out2/traces.otf2 -o out3 --json
json_eq out.txt 'd["clc"]["moved_events"]' 0
json_eq out.txt 'd["clc"]["corrected"]' 0
json_eq out.txt 'd["deviation"]["distance"]["avg"]' 0.0
otf2-print out2/traces.otf2 >o2.txt 2>/dev/null
otf2-print out3/traces.otf2 >o3.txt 2>/dev/null
cmp -s o2.txt o3.txt || fail "a second clc changed the trace: $(diff o2.txt o3.txt | head)"

# --- Messages and collectives out of order, other latencies (the check must agree).
cat > mixed.tsf <<'S'
resolution 1000000000
node n0 0 1
node n1 2 3
0 1000 enter MPI_Send
0 1100 send 0 1 7 8
0 1200 leave MPI_Send
1 900 enter MPI_Recv
1 1050 recv 0 0 7 8
1 1300 leave MPI_Recv
0 2000 send 0 2 7 8
2 1500 enter MPI_Recv
2 2500 recv 0 0 7 8
2 2600 leave MPI_Recv
0 5000 coll_begin
0 5100 coll_end bcast 0 2 0 8
1 5000 coll_begin
1 5050 coll_end bcast 0 2 0 8
2 6000 coll_begin
2 6100 coll_end bcast 0 2 8 8
3 4000 coll_begin
3 4100 coll_end bcast 0 2 0 8
0 7000 coll_begin
0 7100 coll_end allreduce 0 - 8 8
1 7200 coll_begin
1 7250 coll_end allreduce 0 - 8 8
2 9000 coll_begin
2 9050 coll_end allreduce 0 - 8 8
3 6000 coll_begin
3 6200 coll_end allreduce 0 - 8 8
0 9500 coll_begin
0 9600 coll_end scan 0 - 8 8
1 9000 coll_begin
1 9100 coll_end scan 0 - 8 8
2 9500 coll_begin
2 9700 coll_end scan 0 - 8 8
3 8000 coll_begin
3 8100 coll_end scan 0 - 8 8
S
fixture mixed.tsf mixed/traces.otf2
run 1 "$TRACESYNC" check mixed/traces.otf2 --latency intra=0.5us,inter=2us
run 0 "$TRACESYNC" clc mixed/traces.otf2 -o out4 --latency intra=0.5us,inter=2us --report out4.json -q
json_eq out4.json 'd["clc"]["corrected_collective"] > 0' True
json_eq out4.json 'd["clc"]["corrected_p2p"] > 0' True
json_eq out4.json 'd["after"]["violations"]' 0
json_eq out4.json 'd["clc"]["latency_inter_s"]' 2e-06
run 0 "$TRACESYNC" check out4/traces.otf2 --latency intra=0.5us,inter=2us
same_records mixed/traces.otf2 out4/traces.otf2
# Per node pair latencies from a file.
printf '# node pairs\nn0 n1 3us\n' >pairs.txt
run 0 "$TRACESYNC" clc mixed/traces.otf2 -o out5 --latency-file pairs.txt --json -q
json_eq out.txt 'd["clc"]["latency_pairs"]' 2
run 0 "$TRACESYNC" check out5/traces.otf2 --latency intra=0.3us,inter=3us

# --- A simulated run with its truth (scenario smoke): consistent after, no
#     event order changed against the truth.
run 0 "$TRACESYNC" simulate --scenario smoke --seed 11 -o sim -q
run 0 "$TRACESYNC" clc sim/trace.otf2 -o out --report report.json --latency intra=1us,inter=5us -q
json_eq report.json '"clc" in d' True
run 0 "$TRACESYNC" check out/trace.otf2 --latency intra=1us,inter=5us -q
same_records sim/trace.otf2 out/trace.otf2
run 0 "$TRACESYNC" eval out/trace.otf2 sim/truth.otf2 --json --latency intra=1us,inter=5us
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["order_changed"]' False
# Its own output, again: unchanged.
run 0 "$TRACESYNC" clc out/trace.otf2 -o again --latency intra=1us,inter=5us --no-presync -q
otf2-print out/trace.otf2 2>/dev/null >a.txt
otf2-print again/trace.otf2 2>/dev/null >b.txt
cmp -s a.txt b.txt || fail "clc is not idempotent: $(diff a.txt b.txt | head)"

# --- Threads: locations read and written by 1, 2 or 3 threads (and one per
#     processor, the default) give the same archive and the same report.
run 0 "$TRACESYNC" simulate --scenario default --seed 5 --ranks 6 --nodes 3 --events 30000 \
    --sessions 1s -o simt -q
for n in 1 2 3 0; do
    run 0 "$TRACESYNC" clc simt/trace.otf2 -o thr$n --threads $n --json -q
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("output"); print(json.dumps(d, sort_keys=True))' \
        out.txt >thr$n.json
    otf2-print thr$n/trace.otf2 2>/dev/null >thr$n.txt
    cmp -s thr1.json thr$n.json || fail "--threads $n: another report: $(diff thr1.json thr$n.json | head)"
    cmp -s thr1.txt thr$n.txt || fail "--threads $n: another archive: $(diff thr1.txt thr$n.txt | head)"
done
json_eq thr1.json 'd["clc"]["presync_locations"]' 6
run 0 "$TRACESYNC" clc simt/trace.otf2 -o thr4 --threads 4 --no-presync -q
run 0 "$TRACESYNC" clc simt/trace.otf2 -o thr5 --threads 1 --no-presync -q
otf2-print thr4/trace.otf2 2>/dev/null >a.txt
otf2-print thr5/trace.otf2 2>/dev/null >b.txt
cmp -s a.txt b.txt || fail "--threads 4 --no-presync: another archive"
for bad in -1 x 2.5 1025; do
    run 2 "$TRACESYNC" clc simt/trace.otf2 -o thrbad --threads "$bad"
    contains err.txt "--threads"
done
[ -z "$(ls -A thrbad 2>/dev/null)" ] || fail "output after a bad --threads"

# --- The EZTrace sample: ranks with clock origins 220 ms apart, no ClockOffsets.
IN="$DATA/eztrace-pingring/eztrace_log.otf2"
before=$(tree_sum "$DATA/eztrace-pingring")
run 0 "$TRACESYNC" clc "$IN" -o ez --report ez.json
contains err.txt "unmatched"
json_eq ez.json 'd["before"]["p2p"]["reversed"]' 10
json_eq ez.json 'd["before"]["messages"]' 22
json_eq ez.json 'd["after"]["violations"]' 0
json_eq ez.json 'd["after"]["reversed"]' 0
json_eq ez.json 'd["clc"]["ignored"]' 0
json_eq ez.json 'd["clc"]["corrected"] > 0' True
json_eq ez.json 'round(d["clc"]["max_jump_s"], 1)' 0.2
run 0 "$TRACESYNC" check ez/eztrace_log.otf2
json_eq ez.json 'd["after"]["unmatched"]["sends"]' 20
same_records "$IN" ez/eztrace_log.otf2
[ "$(tree_sum "$DATA/eztrace-pingring")" = "$before" ] || fail "the input was modified"

# --- Bad input: exit 2, a message, nothing written.
run 2 "$TRACESYNC" clc nothere/traces.otf2 -o bad1
contains err.txt "nothere/traces.otf2"
[ -z "$(ls -A bad1 2>/dev/null)" ] || fail "output after a missing input: $(ls -A bad1)"
cp -r basic trunc
evt=$(ls trunc/traces/*.evt | head -1)
truncate -s $(($(wc -c <"$evt") / 2)) "$evt"
run 2 "$TRACESYNC" clc trunc/traces.otf2 -o bad2 --report bad2.json
contains err.txt "$evt: corrupt OTF2 event file: the "
[ -z "$(ls -A bad2 2>/dev/null)" ] || fail "output after a truncated input: $(ls -A bad2)"
[ ! -e bad2.json ] && [ ! -e bad2.json.tmp ] || fail "a report after a bad input"
run 2 "$TRACESYNC" clc basic/traces.otf2
contains err.txt "-o OUTDIR"
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad3 --latency inter=4xs
contains err.txt "unknown unit"
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad4 --gamma 2
contains err.txt "gamma"
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad5 --gamma x
contains err.txt "not a number"
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad6 --latency-file nothere.txt
contains err.txt "nothere.txt"
touch afile
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad7 --report afile/r.json
contains err.txt "--report afile/r.json: "
# The report's directory is made like OUTDIR (the README's example on a fresh directory).
run 0 "$TRACESYNC" clc basic/traces.otf2 -o fresh/ --report fresh/r.json -q
[ -f fresh/r.json ] && [ -f fresh/traces.otf2 ] || fail "fresh: $(ls -A fresh)"
contains out.txt "clc: basic/traces.otf2 -> fresh/traces.otf2"
run 2 "$TRACESYNC" clc basic/traces.otf2 -o bad8 --passes 0
contains err.txt "passes"
# ClockOffset records that would send time back: the pre-synchronization (which
# runs beside the matching of messages) fails, naming the location; nothing written.
sed 's/^2 20000 offset -20000 150.5$/2 20000 offset -20000 150.5\n2 20001 offset -30000 150.5/' \
    "$DATA/fixtures/basic.tsf" >back.tsf
fixture back.tsf back/traces.otf2
run 2 "$TRACESYNC" clc back/traces.otf2 -o bad9
contains err.txt "back/traces.otf2: location 2 (Master thread): ClockOffset records"
contains err.txt "negative slope"
run 0 "$TRACESYNC" clc back/traces.otf2 -o ok9 --no-presync -q
for d in bad3 bad4 bad5 bad6 bad7 bad8 bad9; do
    [ -z "$(ls -A $d 2>/dev/null)" ] || fail "output in $d after an error: $(ls -A $d)"
done
