#!/bin/sh
# Anchor, definition and event files that libotf2 would trust (fuzz findings and
# what they taught): refused before libotf2 reads them, exit 2, the file named,
# nothing written.
. "$E2E_LIB"

# corrupt NAME FILE PYTHON: a copy of the basic archive whose FILE's bytes `d` (a
# bytearray) PYTHON changes. In the anchor, `end` is where the header strings end;
# in a definition file, group() is where the first Group record begins.
corrupt() {
    rm -rf "$1"
    cp -r good "$1"
    python3 - "$1/$2" "$3" <<'PY'
import sys
path, code = sys.argv[1], sys.argv[2]
d = bytearray(open(path, 'rb').read())
end = 46
for _ in range(3 if path.endswith('.otf2') else 0):
    end = d.index(0, end) + 1
def group():  # records after the 18-byte chunk header: type, length, data
    pos = 18
    while d[pos] != 18:
        pos += 2 + d[pos + 1]
    return pos
exec(code)
open(path, 'wb').write(d)
PY
}

fixture "$DATA/fixtures/basic.tsf" good/traces.otf2
run 1 "$TRACESYNC" check good/traces.otf2  # 1: INCONSISTENT, the fixture has violations

# 2^31 properties in a file of a hundred bytes: libotf2 would calloc 32 GiB.
corrupt props traces.otf2 'd[end:end + 4] = (0x7fffffff).to_bytes(4, "little")'
run 2 "$TRACESYNC" sync props/traces.otf2 -o props-out
contains err.txt "props/traces.otf2: corrupt OTF2 anchor file: it claims 2147483647 properties in"
[ ! -e props-out ] || fail "sync wrote props-out"

# An event chunk size of 2^40 bytes (OTF2 allows 256 KiB to 16 MiB).
corrupt chunk traces.otf2 'd[12:20] = (1 << 40).to_bytes(8, "little")'
run 2 "$TRACESYNC" check chunk/traces.otf2
contains err.txt "chunk/traces.otf2: corrupt OTF2 anchor file: chunk sizes 1099511627776 and"

# Cut inside the creator string; and not an OTF2 header at all.
corrupt cut traces.otf2 'del d[50:]'
run 2 "$TRACESYNC" check cut/traces.otf2
contains err.txt "cut/traces.otf2: corrupt OTF2 anchor file: it ends inside its header strings"
corrupt text traces.otf2 'd[:] = b"not a trace\n"'
run 2 "$TRACESYNC" check text/traces.otf2
contains err.txt "text/traces.otf2: not an OTF2 anchor file (no OTF2 header)"

# A compression byte libotf2 refuses (it then leaks the archive it had made).
corrupt zip traces.otf2 'd[29] = 0x1a'
run 2 "$TRACESYNC" check zip/traces.otf2
contains err.txt "zip/traces.otf2: corrupt OTF2 anchor file: unknown compression"

# A first byte that is not a chunk header (libotf2 then leaks the anchor's file).
corrupt head traces.otf2 'd[0] = 0x01'
run 2 "$TRACESYNC" check head/traces.otf2
contains err.txt "head/traces.otf2: corrupt OTF2 anchor file: it does not begin with a chunk header"

# A local mapping table of 2^35 ids in a 56-byte file: libotf2 would allocate 256 GiB.
corrupt ids traces/0.def 'd[18:] = bytes([5, 14, 0, 5, 0, 0, 0, 0, 8, 0, 1, 5, 1, 6, 1, 7, 2, 1])'
run 2 "$TRACESYNC" sync ids/traces.otf2 -o ids-out
contains err.txt "ids/traces/0.def: corrupt OTF2 local definition file: the mapping table at byte 18 claims 34359738368 ids in a record of 14 bytes"
[ ! -e ids-out ] || fail "sync wrote ids-out"
# ... and the same file cut inside that record.
corrupt cutdef traces/0.def 'd[18:] = bytes([5, 14, 0, 5, 0, 0, 0])'
run 2 "$TRACESYNC" check cutdef/traces.otf2
contains err.txt "cutdef/traces/0.def: corrupt OTF2 local definition file: the record at byte 18 is longer than the 5 bytes left in its chunk"

# A group of 2^32-1 members: libotf2 would allocate 32 GiB.
corrupt members traces.def 'g = group(); d[g + 1] += 3; d[g + 5:g + 7] = bytes([4, 255, 255, 255, 255])'
run 2 "$TRACESYNC" check members/traces.otf2
contains err.txt "members/traces.def: corrupt OTF2 global definition file: the group at byte 479 claims 4294967295 members in a record of 18 bytes"

# The fuzz finding behind it: a record of type 1 (end of buffer, which libotf2's
# definition readers skip as an unknown record) first, then a group whose number of
# members is undefined (0xff, read as 2^32 - 1).
corrupt endbuf traces.def 'g = group(); d[g + 5] = 0xff; d[18:18] = bytes([1, 2, 0, 0])'
run 2 "$TRACESYNC" check endbuf/traces.otf2
contains err.txt "endbuf/traces.def: corrupt OTF2 global definition file: the group at byte 483 gives an undefined number of members (0xff)"

# A ProgramBegin event (type 83) whose number of arguments is undefined, or 2^31 in a
# record of 6 bytes: libotf2 would allocate 16 or 8 GiB.
corrupt progundef traces/1.evt 'd[18:18] = bytes([5] + [0] * 8 + [83, 3, 0, 0xff, 0])'
run 2 "$TRACESYNC" check progundef/traces.otf2
contains err.txt "progundef/traces/1.evt: corrupt OTF2 event file: the ProgramBegin event at byte 27 gives an undefined number of arguments (0xff)"
corrupt progargs traces/1.evt 'd[18:18] = bytes([5] + [0] * 8 + [83, 6, 0, 4, 0, 0, 0, 0x80])'
run 2 "$TRACESYNC" sync progargs/traces.otf2 -o progargs-out
contains err.txt "progargs/traces/1.evt: corrupt OTF2 event file: the ProgramBegin event at byte 27 claims 2147483648 arguments in a record of 6 bytes"
[ ! -e progargs-out ] || fail "sync wrote progargs-out"
# A timestamp cut by the end of the file.
corrupt evtcut traces/1.evt 'd[:] = d[:18] + bytes([5, 1, 2, 3])'
run 2 "$TRACESYNC" check evtcut/traces.otf2
contains err.txt "evtcut/traces/1.evt: corrupt OTF2 event file: the timestamp at byte 18 is cut by the end of its chunk"

# Event files: one that does not begin with a chunk header, an empty one.
corrupt evthead traces/1.evt 'd[0] = 0'
run 2 "$TRACESYNC" check evthead/traces.otf2
contains err.txt "evthead/traces/1.evt: corrupt OTF2 event file: no chunk header at byte 0"
corrupt evtempty traces/1.evt 'd[:] = b""'
run 2 "$TRACESYNC" check evtempty/traces.otf2
contains err.txt "evtempty/traces/1.evt: corrupt OTF2 event file: it is empty"
