# --domains FILE: clock domains as a domain file says, across nodes, for OTF2 and
# CSV inputs; the grouping in check and estimate; errors exit 2 naming the line.
. "$E2E_LIB"

# Two clocks that do not follow the nodes: ranks 0 and 2 run on clock A (local =
# global), ranks 1 and 3 on clock B (local = global + 20000). Global times: every
# message takes 1 or 2 us.
cat > cross.tsf <<'S'
resolution 1000000000
node n0 0 1
node n1 2 3
location_names rank
0 1000 send 0 1 1 8
1 22000 recv 0 0 1 8
2 3000 send 0 3 2 8
3 24000 recv 0 2 2 8
0 5000 send 0 2 3 8
2 7000 recv 0 0 3 8
1 30000 send 0 3 4 8
3 32000 recv 0 1 4 8
1 50000 send 0 0 5 8
0 31000 recv 0 1 5 8
3 60000 send 0 2 6 8
2 41000 recv 0 3 6 8
S
fixture cross.tsf in/traces.otf2
cat > clocks.txt <<'D'
# NAME   LOCATION...        (ids, names as the trace has them, or MPI ranks)
clockA   "Rank 0" rank:2
clockB   1 3                # the second clock
D

# By node, the messages inside n0 and n1 contradict one clock per node: with
# --domains node a warning, ...
run 0 "$TRACESYNC" estimate in/traces.otf2 --json --domains node
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 2
contains err.txt "do not share a clock"
# ... by default both nodes are split, here into single locations (the pairs inside
# them are contradicted, and no pair across them is inside a node).
run 0 "$TRACESYNC" estimate in/traces.otf2 --json
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 0
json_eq out.txt '[(x["domain"], x["into"]) for x in d["estimate"]["grouping"]["split"]]' \
    "[('n0', ['location 0', 'location 1']), ('n1', ['location 2', 'location 3'])]"
# A domain file is never split: its contradicting messages are a warning.
printf 'nodeA 0 1\nnodeB 2 3\n' > bynode.txt
run 0 "$TRACESYNC" estimate in/traces.otf2 --json --domains bynode.txt
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 2
json_eq out.txt 'd["estimate"]["grouping"]["split"]' "[]"
contains err.txt "correct the domain file"

# check shows the grouping of the file.
run 1 "$TRACESYNC" check in/traces.otf2 --domains clocks.txt --json
json_eq out.txt 'd["domain_rule"]' file
json_eq out.txt 'd["domain_file"]' clocks.txt
json_eq out.txt 'd["domains"]' 2
json_eq out.txt '[x["name"] for x in d["clock_domains"]]' "['clockA', 'clockB']"
json_eq out.txt '[[l["id"] for l in x["locations"]] for x in d["clock_domains"]]' "[[0, 2], [1, 3]]"
json_eq out.txt 'd["clock_domains"][0]["locations"][1]' \
    "{'id': 2, 'name': 'Rank 2', 'node': 'n1', 'rank': 2}"
[ -s err.txt ] && fail "unexpected warnings: $(cat err.txt)"
run 1 "$TRACESYNC" check in/traces.otf2 --domains clocks.txt
contains out.txt "(clock domains from clocks.txt: 2)"

# estimate: one map per clock; the messages inside them agree; B is 20 us ahead.
run 0 "$TRACESYNC" estimate in/traces.otf2 --domains clocks.txt --json
json_eq out.txt '[(x["name"], x["locations"]) for x in d["estimate"]["domains"]]' \
    "[('clockA', [0, 2]), ('clockB', [1, 3])]"
json_eq out.txt 'd["estimate"]["grouping"]["messages"]' 2
json_eq out.txt 'd["estimate"]["grouping"]["contradicting"]' 0
json_eq out.txt 'd["estimate"]["grouping"]["rule"]' file
json_eq out.txt 'sorted(round(x["offset_s"] * 1e6) for x in d["estimate"]["domains"])' "[-20, 0]"
json_eq out.txt '[m.get("points") for m in d["maps"]]' \
    "[None, [[22000, 2000], [60000, 40000]], None, [[22000, 2000], [60000, 40000]]]"
[ -s err.txt ] && fail "unexpected warnings: $(cat err.txt)"

# sync with the file: consistent, and the summary names the file.
run 0 "$TRACESYNC" sync in/traces.otf2 --domains clocks.txt -o synced --json
json_eq out.txt 'd["domain_rule"]' file
json_eq out.txt 'd["domain_file"]' clocks.txt
json_eq out.txt 'd["consistent"]' True
run 0 "$TRACESYNC" sync in/traces.otf2 --domains clocks.txt -o synced
contains out.txt "4 locations in 2 clock domains (from clocks.txt)"

# Locations the file does not list keep their own clock; one warning says so.
printf 'clockA 0 2\n' > partial.txt
run 1 "$TRACESYNC" check in/traces.otf2 --domains partial.txt --json
json_eq out.txt '[x["name"] for x in d["clock_domains"]]' "['clockA', 'location 1', 'location 3']"
contains err.txt "in/traces.otf2: 2 of 4 locations are not in the domain file partial.txt and keep a clock of their own: \"Rank 1\" (id 1), \"Rank 3\" (id 3)"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one warning: $(cat err.txt)"
run 1 "$TRACESYNC" check in/traces.otf2 --domains partial.txt --json -q
[ -s err.txt ] && fail "-q: $(cat err.txt)"

# Errors: exit 2, the file and the line, nothing else done.
printf 'clockA 0 2\nclockB 1 "Rank 9"\n' > unknown.txt
run 2 "$TRACESYNC" estimate in/traces.otf2 --domains unknown.txt
contains err.txt "unknown.txt:2: location \"Rank 9\" is not in in/traces.otf2; its 4 locations:"
contains err.txt "tracesync check --json in/traces.otf2"
printf 'clockA 0 2\nclockB 1 2\n' > twice.txt
run 2 "$TRACESYNC" check in/traces.otf2 --domains twice.txt
contains err.txt "twice.txt:2: 2 is listed twice: location 2 (\"Rank 2\") is already in domain \"clockA\" on line 1"
printf 'clockA 0 2\nclockA 1 3\n' > dup.txt
run 2 "$TRACESYNC" check in/traces.otf2 --domains dup.txt
contains err.txt "dup.txt:2: domain \"clockA\" is already defined on line 1"
printf 'clockA 0 2\nclockB\n' > empty.txt
run 2 "$TRACESYNC" check in/traces.otf2 --domains empty.txt
contains err.txt "empty.txt:2: domain \"clockB\" lists no locations"
printf 'clockA "Rank 0 2\n' > quote.txt
run 2 "$TRACESYNC" sync in/traces.otf2 --domains quote.txt -o never
contains err.txt "quote.txt:1: the quote at column 8 is not closed"
[ -e never ] && fail "sync wrote output after a domain file error"
run 2 "$TRACESYNC" check in/traces.otf2 --domains nosuch.txt
contains err.txt "nosuch.txt: cannot read the domain file: No such file or directory"
run 2 "$TRACESYNC" check in/traces.otf2 --domains ""
contains err.txt "--domains: expected node, location or a domain file"

# A CSV of messages: locations by name (or id, in order of first appearance).
cat > msgs.csv <<'C'
send_location,send_time_ns,recv_location,recv_time_ns
hostA,1000,hostB,900
hostB,2000,hostA,2600
hostA,3000,hostC,3500
C
printf '# hostA and hostC share a clock\nac hostA 2\nb hostB\n' > hosts.txt
run 1 "$TRACESYNC" check msgs.csv --domains hosts.txt --json --latency inter=0ns
json_eq out.txt 'd["domain_rule"]' file
json_eq out.txt '[(x["name"], [l["name"] for l in x["locations"]]) for x in d["clock_domains"]]' \
    "[('ac', ['hostA', 'hostC']), ('b', ['hostB'])]"
run 0 "$TRACESYNC" estimate msgs.csv --domains hosts.txt --json
json_eq out.txt '[x["name"] for x in d["estimate"]["domains"]]' "['ac', 'b']"
printf 'x hostA hostD\n' > badhost.txt
run 2 "$TRACESYNC" check msgs.csv --domains badhost.txt
contains err.txt "badhost.txt:1: location hostD is not in msgs.csv"

# --help shows the form.
for cmd in check estimate sync; do
    run 0 "$TRACESYNC" "$cmd" --help
    contains out.txt "--domains RULE|FILE"
    contains out.txt "--domains clocks.txt"
done
