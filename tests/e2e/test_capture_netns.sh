# test_capture_netns.sh - real traffic between two network namespaces, captured on
# both ends (tests/tools/record_captures.sh), one capture's clock distorted by a
# known model (offset 3.2 s, skew 35 ppm, a 2 us wander over 0.5 s), synchronized:
# every packet of both captures within 20 us of its original time (the other capture
# is the reference, moved only where the CLC puts receives forward), the packets
# unchanged, no segment received before it was sent. Skipped (77) where
# namespaces cannot be made; the recording script removes them on exit.
. "$E2E_LIB"
here=$(dirname "$E2E_LIB")/..

set +e
sh "$here/tools/record_captures.sh" rec 60
got=$?
set -e
[ "$got" -eq 77 ] && exit 77
[ "$got" -eq 0 ] || fail "record_captures.sh exited $got"

"$TOOLS/tsync_distort_pcap" rec/client.pcap client.pcap 3200000000 35 2000 0.5
lat="--latency intra=0ns,inter=0ns"   # veth: both ends stamp within a microsecond
run 0 "$TRACESYNC" check $lat rec/server.pcap rec/client.pcap
contains out.txt "reversed             0 (0.00 %)"
run 1 "$TRACESYNC" check $lat rec/server.pcap client.pcap
contains out.txt "worst pairs          client.pcap -> rec/server.pcap"

run 0 "$TRACESYNC" sync $lat rec/server.pcap client.pcap -o out --report report.json
contains out.txt "result         CONSISTENT"
json_eq report.json 'd["after"]["reversed"]' 0
stamps() { python3 "$here/tools/pcap_stamps.py" "$1" "$2"; }
s=$(stamps rec/server.pcap out/server.pcap)
c=$(stamps rec/client.pcap out/client.pcap)
echo "server: $s; client: $c"
for r in "$s" "$c"; do
    err=$(echo "$r" | awk '{ print $4 }')
    echo "$r" | grep -q "same_bytes 1" || fail "packets changed: $r"
    [ "$err" -le 20000 ] || fail "per-packet error $err ns beyond 20 us"
done
run 0 "$TRACESYNC" check $lat out/server.pcap out/client.pcap
contains out.txt "reversed             0 (0.00 %)"
