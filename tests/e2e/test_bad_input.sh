# Bad input: a clear message naming file, location and event; exit 2; no output.
. "$E2E_LIB"
cat > good.tsf <<'S'
resolution 1000000000
node n0 0 1
0 100 enter MPI_Send
0 110 send 0 1 1 8
0 120 leave MPI_Send
1 100 enter MPI_Recv
1 300 recv 0 0 1 8
1 310 leave MPI_Recv
S
fixture good.tsf good/traces.otf2
cat > id.json <<'J'
{ "format": "tracesync-maps", "version": 1, "maps": [] }
J

# Missing anchor file, a directory, a file that is not OTF2.
run 2 "$TRACESYNC" check nothere/traces.otf2
contains err.txt "nothere/traces.otf2"
contains err.txt "No such file"
run 2 "$TRACESYNC" check good
contains err.txt "is a directory"
echo "not a trace" >bogus.otf2
run 2 "$TRACESYNC" check bogus.otf2
contains err.txt "bogus.otf2"

# Timestamps going backward on one location: named with location and event.
# libotf2 refuses to write such a trace, so the stored timestamp of event 1 of
# location 0 (7654321, a full 64-bit field in OTF2) is patched to 1111.
cat > back.tsf <<'S'
resolution 1000000000
node n0 0 1
0 1234567 enter MPI_Send
0 7654321 send 0 1 1 8
1 9000000 recv 0 0 1 8
S
fixture back.tsf back/traces.otf2
python3 - back/traces/0.evt <<'P'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
old = struct.pack("<Q", 7654321)
at = data.find(old)
assert at >= 0 and data.find(old, at + 1) < 0, "timestamp not found once"
data[at:at + 8] = struct.pack("<Q", 1111)
open(path, "wb").write(data)
P
run 2 "$TRACESYNC" check back/traces.otf2
contains err.txt "back/traces.otf2: location 0"
contains err.txt "event 1"
contains err.txt "backward"

# Truncated event file.
cp -r good trunc
evt=$(ls trunc/traces/*.evt | head -1)
size=$(wc -c <"$evt")
truncate -s $((size / 2)) "$evt"
run 2 "$TRACESYNC" check trunc/traces.otf2
contains err.txt "$evt: corrupt OTF2 event file: the "

# Truncated and corrupt global definitions: refused before libotf2 reads them.
cp -r good corrupt
truncate -s $(($(wc -c <corrupt/traces.def) / 2)) corrupt/traces.def
run 2 "$TRACESYNC" check corrupt/traces.otf2
contains err.txt "corrupt/traces.def: corrupt OTF2 global definition file: the record at byte"
contains err.txt "is longer than the"
cp -r good garbage
printf 'XXXXXXXXXXXXXXXXXXXXXXXX' | dd of=garbage/traces.def bs=1 seek=0 conv=notrunc 2>/dev/null
run 2 "$TRACESYNC" check garbage/traces.otf2
contains err.txt "garbage/traces.def: corrupt OTF2 global definition file: no chunk header at byte 0"

# An empty trace: locations but no events.
cat > empty.tsf <<'S'
resolution 1000000000
node n0 0 1
S
fixture empty.tsf empty/traces.otf2
run 2 "$TRACESYNC" check empty/traces.otf2
contains err.txt "empty trace"

# Unmatched messages are warnings, counted, not errors.
cat > unmatched.tsf <<'S'
resolution 1000000000
node n0 0 1
0 100 send 0 1 1 8
0 200 send 0 1 1 8
1 5000 recv 0 0 1 8
S
fixture unmatched.tsf unmatched/traces.otf2
run 0 "$TRACESYNC" check unmatched/traces.otf2 --json
json_eq out.txt 'd["unmatched"]["sends"]' 1
contains err.txt "unmatched/traces.otf2: location 0"
contains err.txt "no matching receive"

# apply: nothing is written when the input or the maps are bad, the input stays.
before=$(tree_sum good)
run 2 "$TRACESYNC" apply id.json trunc/traces.otf2 -o out1
[ ! -e out1/traces.otf2 ] || fail "partial output after a bad input"
[ -z "$(ls -A out1 2>/dev/null)" ] || fail "leftovers in out1: $(ls -A out1)"
cat > backward.json <<'J'
{ "format": "tracesync-maps", "version": 1, "maps": [ { "location": 0, "offset": 0, "drift": -2 } ] }
J
run 2 "$TRACESYNC" apply backward.json good/traces.otf2 -o out2
contains err.txt "backward.json"
[ ! -e out2/traces.otf2 ] || fail "output written with a non-monotone map"
echo '{ "format": "tracesync-maps", "maps": [ ' >broken.json
run 2 "$TRACESYNC" apply broken.json good/traces.otf2 -o out3
contains err.txt "broken.json"
run 2 "$TRACESYNC" apply id.json good/traces.otf2
contains err.txt "-o OUTDIR"
run 2 "$TRACESYNC" apply id.json good/traces.otf2 -o good
contains err.txt "input"
[ "$(tree_sum good)" = "$before" ] || fail "the input was modified"

# A good apply replaces an existing output only when complete.
run 0 "$TRACESYNC" apply id.json good/traces.otf2 -o out4
run 0 "$TRACESYNC" apply id.json good/traces.otf2 -o out4
[ -z "$(ls -A out4 | grep tracesync)" ] || fail "temporary files left in out4"
run 0 "$TRACESYNC" check out4/traces.otf2 --latency intra=0ns
