# The pcapng writer read by tshark: merged.pcapng from three captures of different
# link types (tests/tools/tsync_pcapng.c), every packet's time to the nanosecond,
# interface name and lengths as written, in merged time order. tshark and not
# libpcap: libpcap (1.10) reads only sections whose interfaces share one link type
# and snaplen (tests/unit/test_pcapng_write.c reads such files with it).
. "$E2E_LIB"
command -v tshark >/dev/null || fail "tshark is not installed (scripts/install-deps.sh)"

# fields FILE FIELD...: tshark's fields of every packet of FILE, into fields.txt;
# tshark must read the whole file without a complaint.
fields() {
    file=$1
    shift
    run 0 tshark -r "$file" -T fields "$@"
    mv out.txt fields.txt
    if grep -v 'Running as user "root"' err.txt | grep -q .; then
        fail "tshark on $file: $(cat err.txt)"
    fi
}

run 0 "$TOOLS/tsync_pcapng" out 2000
# The tool prints alpha's packets, then beta's, then gamma's: sorted stably on the
# time, that is the merge's order, equal times in input order.
sort -s -t "$(printf '\t')" -k1,1 out.txt >expected.txt
[ "$(wc -l <expected.txt)" -eq 6000 ] || fail "expected.txt: $(wc -l <expected.txt) lines"
[ "$(cut -f1 expected.txt | uniq -d | wc -l)" -gt 100 ] || fail "too few equal times to test"
fields out/merged.pcapng -e frame.time_epoch -e frame.interface_name -e frame.len -e frame.cap_len
cmp -s fields.txt expected.txt || fail "tshark reads otherwise: $(diff expected.txt fields.txt | head)"
# gamma's snaplen cut packets: lengths differ where they were longer than 96 bytes.
[ "$(awk -F '\t' '$2 == "gamma" && $4 == 96 && $3 > 96' fields.txt | wc -l)" -gt 500 ] ||
    fail "gamma's packets were not cut at its snaplen"

# The interfaces: link type, description (beta's given, the others' the host's name)
# and nanosecond resolution.
fields out/merged.pcapng -e frame.interface_id -e frame.encap_type -e frame.interface_description
[ "$(sort -u fields.txt | tr '\t\n' ',;')" = "0,1,alpha;1,7,beta: raw IP, times corrected;2,25,gamma;" ] ||
    fail "interfaces: $(sort -u fields.txt)"
run 0 capinfos out/merged.pcapng
contains out.txt "Time precision = nanoseconds (9)"
contains out.txt "Capture application: tracesync"
contains out.txt "Strict time order:   True"

# No packets: the header blocks alone are a valid file.
run 0 "$TOOLS/tsync_pcapng" empty 0
fields empty/merged.pcapng -e frame.number
[ ! -s fields.txt ] || fail "empty/merged.pcapng has packets"
run 0 capinfos empty/merged.pcapng
contains out.txt "Number of interfaces in file: 3"
echo ok
