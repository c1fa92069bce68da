# test_capture_merge.sh - sync's outputs for packet captures, read by tshark:
# OUTDIR/merged.pcapng holds every packet of both shipped captures (one distorted by
# a known clock model), an interface per host, in time order, each packet at the
# time of the rewritten capture to the nanosecond; a pcapng input comes back as
# pcapng, a pcap input as nanosecond pcap; a full disk leaves nothing.
. "$E2E_LIB"
command -v tshark >/dev/null || fail "tshark is not installed (scripts/install-deps.sh)"
here=$(dirname "$E2E_LIB")/..
C=$DATA/captures
lat="--latency intra=0ns,inter=0ns"

# fields FILE OUT FIELD...: tshark's fields of every packet of FILE, into OUT; tshark
# must read the whole file without a complaint.
fields() {
    file=$1 to=$2
    shift 2
    run 0 tshark -r "$file" -T fields "$@"
    mv out.txt "$to"
    if grep -v 'Running as user "root"' err.txt | grep -q .; then
        fail "tshark on $file: $(cat err.txt)"
    fi
}

# The client at offset 2.5 s and 40 ppm, as pcapng with if_tsoffset 100 s.
"$TOOLS/tsync_distort_pcap" "$C/client.pcap" client.pcap 2500000000 40
python3 "$here/tools/pcap2pcapng.py" client.pcap client.pcapng 9 100
run 0 "$TRACESYNC" sync $lat "$C/server.pcap" client.pcapng -o out
contains out.txt "result         CONSISTENT"
[ "$(ls out)" = "$(printf 'client.pcapng\nmerged.pcapng\nserver.pcap')" ] || fail "out: $(ls out)"

# The formats: pcapng back as pcapng, pcap as nanosecond pcap.
run 0 capinfos -t out/client.pcapng
contains out.txt "File type:           Wireshark/... - pcapng"
run 0 capinfos -t out/merged.pcapng
contains out.txt "File type:           Wireshark/... - pcapng"
run 0 capinfos -t out/server.pcap
contains out.txt "File type:           Wireshark/tcpdump/... - nanosecond pcap"
[ "$(head -c 4 out/client.pcapng | od -An -tx1 | tr -d ' ')" = 0a0d0d0a ] ||
    fail "out/client.pcapng: not a pcapng section header"
# Same packets, same order and bytes, corrected within a microsecond of the truth.
r=$(python3 "$here/tools/pcap_stamps.py" "$C/client.pcap" out/client.pcapng)
echo "$r" | grep -q "packets 280 .*same_bytes 1" || fail "out/client.pcapng: $r"
[ "$(echo "$r" | awk '{ print $4 }')" -le 1000 ] || fail "out/client.pcapng: $r"

# merged.pcapng: 560 packets, 280 on each host's interface, times non-decreasing.
fields out/merged.pcapng merged.txt -e frame.time_epoch -e frame.interface_name \
    -e frame.interface_description -e frame.len
[ "$(wc -l <merged.txt)" -eq 560 ] || fail "merged.pcapng: $(wc -l <merged.txt) packets"
[ "$(cut -f2,3 merged.txt | sort | uniq -c | tr -s ' ')" = \
  "$(printf ' 280 client\tclient\n 280 server\tserver')" ] ||
    fail "merged.pcapng interfaces: $(cut -f2,3 merged.txt | sort | uniq -c)"
cut -f1 merged.txt | sort -c -n || fail "merged.pcapng: times go back"
# Each host's packets at their times in the rewritten capture, to the nanosecond.
for host in server client; do
    file=$(ls out/$host.*)
    fields "$file" $host.txt -e frame.time_epoch -e frame.len
    awk -F '\t' -v h=$host '$2 == h { print $1 "\t" $4 }' merged.txt >merged_$host.txt
    cmp -s $host.txt merged_$host.txt ||
        fail "merged.pcapng, $host: $(diff $host.txt merged_$host.txt | head -5)"
done
grep -q '\.[0-9]\{9\}	' server.txt || fail "tshark prints no nanoseconds: $(head -1 server.txt)"

# A full disk, at the captures or at merged.pcapng: exit 2, nothing in OUTDIR.
limited 2 100 "$TRACESYNC" sync -q $lat "$C/server.pcap" client.pcapng -o full
contains err.txt "full/server.pcap: File too large"
nothing_in full
limited 2 250 "$TRACESYNC" sync -q $lat "$C/server.pcap" client.pcapng -o full
contains err.txt "full/merged.pcapng: cannot write: File too large; nothing was written"
nothing_in full
# An input named like the merged capture is refused before anything is written.
cp "$C/server.pcap" merged.pcapng
run 2 "$TRACESYNC" sync -q $lat merged.pcapng client.pcapng -o clash
contains err.txt "merged.pcapng: its file name is that of the merged capture, clash/merged.pcapng"
nothing_in clash
# Two captures of one host: an interface each, named by the host, described by the file.
run 0 "$TRACESYNC" sync -q --name server.pcap=one --name client.pcap=one "$C/server.pcap" \
    client.pcap -o one
fields one/merged.pcapng one.txt -e frame.interface_name -e frame.interface_description
[ "$(sort one.txt | uniq -c | tr -s ' ')" = \
  "$(printf ' 280 one\tclient.pcap\n 280 one\tserver.pcap')" ] ||
    fail "one/merged.pcapng interfaces: $(sort one.txt | uniq -c)"
