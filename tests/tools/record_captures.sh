#!/bin/sh
# record_captures.sh - records real TCP and UDP traffic between two network
# namespaces joined by a veth pair, one tcpdump capture (nanosecond stamps) on each
# end: OUTDIR/server.pcap (10.200.0.1, an HTTP server and a UDP echo) and
# OUTDIR/client.pcap (10.200.0.2, REQUESTS HTTP requests and as many UDP datagrams).
# Both ends share this machine's clock, so the captures are each other's truth.
#
# usage: record_captures.sh OUTDIR [REQUESTS]   (as root)
# Exits 77 when namespaces cannot be made (not root, no ip, no tcpdump). Everything
# it starts is stopped and both namespaces are removed on exit.
set -eu
out=$1
requests=${2:-20}
tag=ts$$
ns_s=${tag}s
ns_c=${tag}c
pids=""

cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    ip netns del "$ns_s" 2>/dev/null || true
    ip netns del "$ns_c" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

[ "$(id -u)" -eq 0 ] || { echo "SKIP: not root" >&2; exit 77; }
command -v ip >/dev/null && command -v tcpdump >/dev/null ||
    { echo "SKIP: ip or tcpdump missing" >&2; exit 77; }
ip netns add "$ns_s" 2>/dev/null || { echo "SKIP: cannot make network namespaces" >&2; exit 77; }
ip netns add "$ns_c"
ip link add "v$ns_s" netns "$ns_s" type veth peer name "v$ns_c" netns "$ns_c" ||
    { echo "SKIP: cannot make a veth pair" >&2; exit 77; }
ip -n "$ns_s" addr add 10.200.0.1/24 dev "v$ns_s"
ip -n "$ns_c" addr add 10.200.0.2/24 dev "v$ns_c"
for ns in "$ns_s" "$ns_c"; do
    ip -n "$ns" link set lo up
done
ip -n "$ns_s" link set "v$ns_s" up
ip -n "$ns_c" link set "v$ns_c" up

mkdir -p "$out"
www=$(mktemp -d)
head -c 3000 /dev/zero | tr '\0' x > "$www/page.txt"

ip netns exec "$ns_s" tcpdump -q -n -Z root -U -i "v$ns_s" --time-stamp-precision=nano \
    -w "$out/server.pcap" 'ip and (tcp or udp)' 2>/dev/null &
pids="$pids $!"
ip netns exec "$ns_c" tcpdump -q -n -Z root -U -i "v$ns_c" --time-stamp-precision=nano \
    -w "$out/client.pcap" 'ip and (tcp or udp)' 2>/dev/null &
pids="$pids $!"
(cd "$www" && exec ip netns exec "$ns_s" python3 -m http.server -b 10.200.0.1 8000) \
    >/dev/null 2>&1 &
pids="$pids $!"
ip netns exec "$ns_s" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.200.0.1", 9000))
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data.upper(), peer)
' &
pids="$pids $!"
sleep 1.5   # tcpdump and the servers up

ip netns exec "$ns_c" python3 - "$requests" <<'PY'
import socket, sys, time, urllib.request
n = int(sys.argv[1])
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
for i in range(n):
    for attempt in range(20):
        try:
            urllib.request.urlopen("http://10.200.0.1:8000/page.txt", timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    u.sendto(b"datagram %d of the capture test" % i, ("10.200.0.1", 9000))
    try:
        u.recvfrom(2048)
    except OSError:
        pass
    time.sleep(0.02)
PY
sleep 1     # the last packets written
cleanup
pids=""
trap - EXIT INT TERM
rm -rf "$www"
[ -s "$out/server.pcap" ] && [ -s "$out/client.pcap" ] ||
    { echo "record_captures: no capture written" >&2; exit 1; }
