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
