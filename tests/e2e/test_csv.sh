# A CSV of messages: check it, apply maps, get the corrected CSV back.
. "$E2E_LIB"
cat > msgs.csv <<'C'
send_location,send_time_ns,recv_location,recv_time_ns
hostA,1000,hostB,900
hostB,2000,hostA,2600
hostA,3000,hostC,3500
C
cp msgs.csv orig.csv
run 1 "$TRACESYNC" check msgs.csv --json --latency inter=0ns
json_eq out.txt 'd["locations"]' 3
json_eq out.txt 'd["messages"]' 3
json_eq out.txt 'd["reversed"]' 1
json_eq out.txt 'd["domain_rule"]' location
cat > maps.json <<'J'
{ "format": "tracesync-maps", "version": 1, "maps": [ { "domain": "hostB", "offset": 300 } ] }
J
run 0 "$TRACESYNC" apply maps.json msgs.csv -o out
cat > want.csv <<'C'
send_location,send_time_ns,recv_location,recv_time_ns
hostA,1000,hostB,1200
hostB,2300,hostA,2600
hostA,3000,hostC,3500
C
cmp -s out/msgs.csv want.csv || fail "corrected CSV: $(cat out/msgs.csv)"
run 0 "$TRACESYNC" check out/msgs.csv --latency inter=0ns
cmp -s msgs.csv orig.csv || fail "the input was modified"
run 2 "$TRACESYNC" apply maps.json msgs.csv -o .
contains err.txt "overwrite the input"
printf 'send_location,send_time_ns,recv_location,recv_time_ns\nhostA,x,hostB,1\n' >bad.csv
run 2 "$TRACESYNC" check bad.csv
contains err.txt "bad.csv: line 2: send_time_ns"
# A bad row after many good ones (read in one pass each): the error names the file,
# the line and the field as well, for the estimate (message lists) and the others.
awk 'BEGIN { print "send_location,send_time_ns,recv_location,recv_time_ns"
             for (i = 0; i < 3000; i++) print (i % 2 ? "hostA" : "hostB") "," 1000 * i "," (i % 2 ? "hostB" : "hostA") "," 1000 * i + 700
             print "hostA,12x,hostB,5"; print "hostB,1,hostA,2" }' >late.csv
run 2 "$TRACESYNC" estimate late.csv
contains err.txt 'late.csv: line 3002: send_time_ns "12x" is not a whole number of nanoseconds'
run 2 "$TRACESYNC" sync late.csv -o late-out
contains err.txt 'late.csv: line 3002: send_time_ns "12x"'
sed '3002s/.*/hostA,7,hostB,4611686018427387905/' late.csv >late2.csv
run 2 "$TRACESYNC" estimate late2.csv
contains err.txt 'late2.csv: line 3002: recv_time_ns 4611686018427387905 is beyond +-2^62 ns'

# Numbers as location names, other than the indices inside: every report and maps
# file names the locations as the CSV does, never a name beside a different id.
printf 'send_location,send_time_ns,recv_location,recv_time_ns\n7,1000,5,90000\n5,2000,7,-85000\n5,3000,9,3500\n' >ids.csv
run 1 "$TRACESYNC" check ids.csv
contains out.txt "worst pairs          5 -> 7: 1 violation, max 87 us"
if grep -q "(id" out.txt; then fail "check prints ids beside CSV names: $(cat out.txt)"; fi
run 1 "$TRACESYNC" check ids.csv --json
json_eq out.txt 'd["worst_pairs"][0]["send_location"], d["worst_pairs"][0]["recv_location"]' "('5', '7')"
json_eq out.txt 'sorted(l["id"] for g in d["clock_domains"] for l in g["locations"])' "['5', '7', '9']"
run 0 "$TRACESYNC" estimate ids.csv -o ids-maps.json -q
json_eq ids-maps.json '[m["location"] for m in d["maps"]]' "['7', '5', '9']"
json_eq ids-maps.json '"name" in d["maps"][0]' "False"
json_eq ids-maps.json '[g["locations"] for g in d["estimate"]["domains"]]' "[['7'], ['5'], ['9']]"
run 0 "$TRACESYNC" apply ids-maps.json ids.csv -o ids-applied -q
contains ids-applied/ids.csv "7,89000,5,90000"
run 0 "$TRACESYNC" sync ids.csv -o ids-sync --json -q
json_eq out.txt '[p["send_location"] for p in d["before"]["worst_pairs"]]' "['5', '5']"
run 0 "$TRACESYNC" eval ids-applied/ids.csv ids-sync/ids.csv --json
json_eq out.txt 'sorted(l["location"] for l in d["per_location"])' "['5', '7', '9']"

# Counts for people: "1 violation", "1 domain", "1 message", never "1 violations".
run 0 "$TRACESYNC" sync ids.csv -o ids-sync
contains out.txt "before         2 violations, 1 reversed of 3 messages"
contains out.txt "hull: 1 domain bounded"
printf 'send_location,send_time_ns,recv_location,recv_time_ns\n1,1000,2,90000\n' >one.csv
run 0 "$TRACESYNC" sync one.csv -o one-sync --no-clc
contains out.txt "0 violations, 0 reversed of 1 message (0.00 %)"
run 0 "$TRACESYNC" check one.csv
contains out.txt "unmatched            0 sends, 0 receives"
echo ok

# A location name that is not UTF-8: every JSON output has it with U+FFFD for the bad
# byte (as Python's decode(errors="replace")), and apply finds it by that name.
printf 'send_location,send_time_ns,recv_location,recv_time_ns\nnode-0,1000,n\377,3000\nn\377,4000,node-0,5000\n' >bytes.csv
run 0 "$TRACESYNC" estimate --json bytes.csv
python3 -m json.tool out.txt >/dev/null || fail "estimate --json is not JSON: $(cat out.txt)"
json_eq out.txt '[g["name"] for g in d["estimate"]["domains"]] == ["node-0", "n\ufffd"]' True
run 0 "$TRACESYNC" check --json bytes.csv
json_eq out.txt 'sorted(l["id"] for g in d["clock_domains"] for l in g["locations"]) == ["node-0", "n\ufffd"]' True
run 0 "$TRACESYNC" sync bytes.csv -o bytes-sync --report bytes-report.json -q
python3 -m json.tool bytes-report.json >/dev/null || fail "sync --report is not JSON"
run 0 "$TRACESYNC" estimate bytes.csv -o bytes-maps.json -q
json_eq bytes-maps.json '[m["location"] for m in d["maps"]] == ["node-0", "n\ufffd"]' True
run 0 "$TRACESYNC" apply bytes-maps.json bytes.csv -o bytes-applied -q
printf 'send_location,send_time_ns,recv_location,recv_time_ns\nnode-0,1000,n\377,2500\nn\377,3500,node-0,5000\n' >bytes-want.csv
cmp -s bytes-applied/bytes.csv bytes-want.csv || fail "corrected CSV: $(cat bytes-applied/bytes.csv)"
# Two names that are one in JSON: their maps go to them in location order.
printf 'send_location,send_time_ns,recv_location,recv_time_ns\nnode-0,1000,n\377,3000\nn\377,4000,node-0,5000\nnode-0,1000,n\376,4000\nn\376,5000,node-0,5000\n' >twins.csv
run 0 "$TRACESYNC" estimate twins.csv -o twins-maps.json -q
run 0 "$TRACESYNC" apply twins-maps.json twins.csv -o twins-applied -q
printf 'send_location,send_time_ns,recv_location,recv_time_ns\nnode-0,1000,n\377,2500\nn\377,3500,node-0,5000\nnode-0,1000,n\376,2500\nn\376,3500,node-0,5000\n' >twins-want.csv
cmp -s twins-applied/twins.csv twins-want.csv || fail "corrected CSV: $(cat twins-applied/twins.csv)"
