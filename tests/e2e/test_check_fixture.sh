# check on archives written by the tests, with known counts.
. "$E2E_LIB"
# Two nodes; rank 0 -> 1 intra-node, rank 0 -> 2 inter-node. Times in ns.
cat > msgs.tsf <<'S'
resolution 1000000000
node n0 0 1
node n1 2 3
0 1000 enter MPI_Send
0 1100 send 0 1 7 8
0 1200 leave MPI_Send
1 900 enter MPI_Recv
1 1050 recv 0 0 7 8
1 1300 leave MPI_Recv
0 2000 enter MPI_Send
0 2000 send 0 2 7 8
0 2100 leave MPI_Send
2 1500 enter MPI_Recv
2 2500 recv 0 0 7 8
2 2600 leave MPI_Recv
0 3000 send 0 3 7 8
3 3200 recv 0 0 7 8
0 4000 send 0 1 9 8
1 4000 recv 0 0 9 8
S
fixture msgs.tsf in/traces.otf2
# message 1 reversed by 50 ns; message 2 takes 500 ns < 1 us inter: violation;
# message 3 takes 200 ns inter-node: violation; message 4 takes 0 ns: violation.
run 1 "$TRACESYNC" check in/traces.otf2 --json
json_eq out.txt 'd["locations"]' 4
json_eq out.txt 'd["messages"]' 4
json_eq out.txt 'd["logical_messages"]' 0
json_eq out.txt 'd["reversed"]' 1
json_eq out.txt 'd["violations"]' 4
json_eq out.txt 'round(d["displacement_max_s"] * 1e9)' 50
json_eq out.txt 'round(d["displacement_avg_s"] * 1e9)' 50
json_eq out.txt 'd["unmatched"]["sends"]' 0
json_eq out.txt 'd["domain_rule"]' node

# With zero latencies only the reversed message violates.
run 1 "$TRACESYNC" check in/traces.otf2 --json --latency intra=0ns,inter=0ns
json_eq out.txt 'd["violations"]' 1
# Text report for people.
run 1 "$TRACESYNC" check in/traces.otf2 --latency intra=0ns,inter=0ns
contains out.txt "reversed"
contains out.txt "violations"

# A consistent trace exits 0.
cat > ok.tsf <<'S'
resolution 1000000000
node n0 0 1
0 100 send 0 1 1 4
1 5000 recv 0 0 1 4
0 6000 coll_begin
1 6000 coll_begin
0 9000 coll_end barrier 0 - 0 0
1 9000 coll_end barrier 0 - 0 0
S
fixture ok.tsf ok/traces.otf2
run 0 "$TRACESYNC" check ok/traces.otf2 --json
json_eq out.txt 'd["messages"]' 1
json_eq out.txt 'd["logical_messages"]' 2
json_eq out.txt 'd["violations"]' 0
json_eq out.txt 'd["consistent"]' True

# Collectives: bcast from root 1 whose receivers leave before the root entered.
cat > coll.tsf <<'S'
resolution 1000000000
node n0 0 1 2
0 100 coll_begin
0 200 coll_end bcast 0 1 0 8
1 500 coll_begin
1 600 coll_end bcast 0 1 8 8
2 100 coll_begin
2 700 coll_end bcast 0 1 0 8
S
fixture coll.tsf coll/traces.otf2
run 1 "$TRACESYNC" check coll/traces.otf2 --json --latency intra=0ns
json_eq out.txt 'd["logical_messages"]' 2
json_eq out.txt 'd["reversed"]' 1
json_eq out.txt 'round(d["displacement_max_s"] * 1e9)' 300
