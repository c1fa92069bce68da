# test_captures.sh - packet captures (tests/data/captures: real traffic between two
# network namespaces, recorded by tests/tools/record_captures.sh) through check and
# sync: one capture distorted by a known clock model and synchronized back within a
# microsecond, pcapng in other resolutions and offsets, --name, and bad input.
. "$E2E_LIB"
here=$(dirname "$E2E_LIB")/..
C=$DATA/captures
lat="--latency intra=0ns,inter=0ns"   # veth: both ends stamp within a microsecond
stamps() { python3 "$here/tools/pcap_stamps.py" "$1" "$2"; }
# within FILE_A FILE_B NS: same packets, every stamp within NS of the other's.
within() {
    r=$(stamps "$1" "$2")
    echo "$2: $r"
    err=$(echo "$r" | awk '{ print $4 }')
    echo "$r" | grep -q "same_bytes 1" || fail "$2: packets changed: $r"
    [ "$err" -le "$3" ] || fail "$2: per-packet error $err ns beyond $3 ns"
}

# The shipped pair: 280 packets each, all paired, none reversed.
run 0 "$TRACESYNC" check $lat "$C/server.pcap" "$C/client.pcap"
contains out.txt "messages             280 point-to-point"
contains out.txt "reversed             0 (0.00 %)"
contains err.txt "280 packets paired (139 one way, 141 the other), 237 exchanges, 0 ambiguous keys left out"

# Offset 2.5 s and 40 ppm on the client: half the packets received before sent.
"$TOOLS/tsync_distort_pcap" "$C/client.pcap" client.pcap 2500000000 40
run 1 "$TRACESYNC" check $lat "$C/server.pcap" client.pcap
contains out.txt "reversed             141 (50.36 %)"
run 0 "$TRACESYNC" sync $lat "$C/server.pcap" client.pcap -o out --report report.json
contains out.txt "result         CONSISTENT"
json_eq report.json 'd["before"]["reversed"]' 141
json_eq report.json 'd["after"]["reversed"]' 0
# The report per pair of captures: pairing, and the packets received before sent.
contains out.txt "server.pcap and client.pcap: 280 paired (139 one way, 141 the other), 237 exchanges, 0 ambiguous keys left out, 0 of undecided direction"
json_eq report.json '[d["packet_pairs"][0][k] for k in ("b", "paired", "a_to_b", "b_to_a", "exchanges", "ambiguous", "undecided", "reversed_before", "reversed_after")]' "['client.pcap', 280, 139, 141, 237, 0, 0, 141, 0]"
# ... and per pair of hosts: the same counts, client's map to server and its bound
# (the offset put back, 40 ppm less its own drift against server's clock).
contains out.txt "host pairs     server and client: 280 packets paired, 237 exchanges, 0 ambiguous keys; map client -> server: offset -2.5 s, drift -40.134 ppm, bound 1.724 us; received before sent: 141 before, 0 after"
json_eq report.json '[d["host_pairs"][0][k] for k in ("a", "b", "paired", "exchanges", "ambiguous", "undecided", "reversed_before", "reversed_after")]' "['server', 'client', 280, 237, 0, 0, 141, 0]"
json_eq report.json '[(m["domain"], m["reference"], m["kind"], round(m["bound_s"] * 1e9)) for m in d["host_pairs"][0]["maps"]]' "[('server', 'server', 'exact', 0), ('client', 'server', 'bounded', 1724)]"
json_eq report.json 'round(d["host_pairs"][0]["maps"][1]["offset_s"], 4), round(d["host_pairs"][0]["maps"][1]["drift"] * 1e6, 1)' "(-2.5, -40.1)"
# The exchanges are the regression's: the samples it kept and those it rejected.
run 0 "$TRACESYNC" sync -q --estimator regression $lat "$C/server.pcap" client.pcap -o reg --report reg.json
json_eq reg.json 'sum(e["samples"] + e["rejected"] for e in d["estimate"]["estimate"]["graph"])' 237
json_eq reg.json 'd["host_pairs"][0]["exchanges"]' 237
# A retransmitted segment (a key twice in client's capture) is an ambiguous key of
# the pair, left out: one packet less paired, one reversed less before (the
# exchanges, in the middle of a burst of client's, stay as many: the regression's too).
python3 - client.pcap retrans.pcap <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
head, at, recs = data[:24], 24, []
while at < len(data):
    n = struct.unpack_from("<IIII", data, at)[2]
    recs.append(data[at:at + 16 + n])
    at += 16 + n
recs.insert(101, recs[100])   # the same packet again, at the same time
open(sys.argv[2], "wb").write(head + b"".join(recs))
PY
run 0 "$TRACESYNC" sync $lat "$C/server.pcap" retrans.pcap -o retrans --report retrans.json
json_eq retrans.json '[d["host_pairs"][0][k] for k in ("b", "paired", "exchanges", "ambiguous", "reversed_before", "reversed_after")]' "['retrans', 279, 237, 1, 140, 0]"
contains out.txt "server and retrans: 279 packets paired, 237 exchanges, 1 ambiguous key;"
run 0 "$TRACESYNC" sync -q --estimator regression $lat "$C/server.pcap" retrans.pcap -o reg --report reg.json
json_eq reg.json 'sum(e["samples"] + e["rejected"] for e in d["estimate"]["estimate"]["graph"])' 237
json_eq report.json '[(p["send_name"], p["violations"]) for p in d["before"]["worst_pairs"]]' "[('client.pcap', 141)]"
json_eq report.json 'd["after"]["worst_pairs"]' "[]"
within "$C/server.pcap" out/server.pcap 1000
within "$C/client.pcap" out/client.pcap 1000
run 0 "$TRACESYNC" check $lat out/server.pcap out/client.pcap
contains out.txt "reversed             0 (0.00 %)"

# estimate takes the set too.
run 0 "$TRACESYNC" estimate $lat "$C/server.pcap" client.pcap
contains out.txt "client"

# pcapng: nanoseconds with if_tsoffset 100 s, microseconds, 2^-30 s.
python3 "$here/tools/pcap2pcapng.py" client.pcap client_off.pcapng 9 100
python3 "$here/tools/pcap2pcapng.py" "$C/server.pcap" server_us.pcapng 6
python3 "$here/tools/pcap2pcapng.py" client.pcap client_bin.pcapng 0x9e
run 0 "$TRACESYNC" sync -q $lat server_us.pcapng client_off.pcapng -o ng
within "$C/client.pcap" ng/client_off.pcapng 2000
run 0 "$TRACESYNC" sync -q $lat "$C/server.pcap" client_bin.pcapng -o bin
within "$C/client.pcap" bin/client_bin.pcapng 1000

# --name: the hosts' names; two captures of one host pair nothing.
run 0 "$TRACESYNC" sync $lat --name server.pcap=web --name "$PWD/client.pcap=laptop" \
    "$C/server.pcap" "$PWD/client.pcap" -o named
contains out.txt "reference web"
run 0 "$TRACESYNC" check --name server.pcap=one --name client.pcap=one "$C/server.pcap" "$C/client.pcap"
contains out.txt "messages             0 point-to-point"
contains err.txt "280 between captures of one host"
run 2 "$TRACESYNC" check --name nope "$C/server.pcap"
contains err.txt "--name: expected FILE=HOST"
run 2 "$TRACESYNC" check --name other.pcap=x "$C/server.pcap" "$C/client.pcap"
contains err.txt 'name "other.pcap=x": expected FILE=HOST with FILE one of the inputs'

# Bad input. A capture cut inside a packet: read up to it, with a warning.
head -c 50000 "$C/client.pcap" > cut.pcap
run 0 "$TRACESYNC" check $lat "$C/server.pcap" cut.pcap
contains err.txt "cut.pcap: packet 160 is cut short by the end of the file"
contains out.txt "messages             159 point-to-point"
# A corrupt record length: exit 2 naming the file and packet.
cp "$C/client.pcap" corrupt.pcap
printf '\377\377\377\177' | dd of=corrupt.pcap bs=1 seek=32 conv=notrunc 2>/dev/null
run 2 "$TRACESYNC" sync "$C/server.pcap" corrupt.pcap -o bad
contains err.txt "corrupt.pcap: packet 1: invalid packet capture length"
[ ! -e bad/server.pcap ] || fail "a partial output was written"
# A time stamp's fraction beyond a second (nanosecond capture): exit 2, no output.
cp "$C/client.pcap" stamp.pcap
printf '\377\377\377\377' | dd of=stamp.pcap bs=1 seek=28 conv=notrunc 2>/dev/null
run 2 "$TRACESYNC" sync "$C/server.pcap" stamp.pcap -o bad
contains err.txt "stamp.pcap: packet 1: time stamp out of range ("
[ ! -e bad/server.pcap ] || fail "a partial output was written"
# An unsupported link type (802.11), and captures that share no traffic.
python3 - <<'PY'
import struct
def pcap(path, link, pkts):
    out = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, link)
    for t, p in pkts:
        out += struct.pack("<IIII", t // 10**9, t % 10**9, len(p), len(p)) + p
    open(path, "wb").write(out)
ip = bytes([0x45, 0, 0, 32, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 9, 9, 1, 10, 9, 9, 2]) + \
    struct.pack(">HHHH", 5, 6, 12, 0) + b"abcd"
pcap("lonely.pcap", 101, [(1700000000 * 10**9 + i * 1000, ip[:28] + bytes([i]) + ip[29:]) for i in range(3)])
pcap("wifi.pcap", 105, [(1700000000 * 10**9, bytes(30))])
pcap("empty.pcap", 1, [])
PY
run 2 "$TRACESYNC" check wifi.pcap
contains err.txt "wifi.pcap: link type 105 (IEEE802_11) is not supported"
run 2 "$TRACESYNC" check empty.pcap
contains err.txt "empty.pcap: the capture has no packets"
run 0 "$TRACESYNC" check "$C/server.pcap" lonely.pcap
contains err.txt "the captures share no traffic"
# A capture and a trace of another format are separate traces.
printf 'send_location,send_time_ns,recv_location,recv_time_ns\na,1,b,5000\n' > m.csv
run 0 "$TRACESYNC" check "$C/server.pcap" m.csv
contains out.txt "check: m.csv"
