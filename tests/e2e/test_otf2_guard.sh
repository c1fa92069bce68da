#!/bin/sh
# Anchor files that libotf2 would trust (fuzz findings): refused before libotf2
# reads them, exit 2, the file named, nothing written.
. "$E2E_LIB"

# corrupt NAME PYTHON: a copy of the basic archive whose anchor bytes `a` (a
# bytearray) PYTHON changes; `end` is where the header strings end.
corrupt() {
    rm -rf "$1"
    cp -r good "$1"
    python3 - "$1/traces.otf2" "$2" <<'PY'
import sys
path, code = sys.argv[1], sys.argv[2]
a = bytearray(open(path, 'rb').read())
end = 46
for _ in range(3):
    end = a.index(0, end) + 1
exec(code)
open(path, 'wb').write(a)
PY
}

fixture "$DATA/fixtures/basic.tsf" good/traces.otf2
run 1 "$TRACESYNC" check good/traces.otf2  # 1: INCONSISTENT, the fixture has violations

# 2^31 properties in a file of a hundred bytes: libotf2 would calloc 32 GiB.
corrupt props 'a[end:end + 4] = (0x7fffffff).to_bytes(4, "little")'
run 2 "$TRACESYNC" sync props/traces.otf2 -o props-out
contains err.txt "props/traces.otf2: corrupt OTF2 anchor file: it claims 2147483647 properties in"
[ ! -e props-out ] || fail "sync wrote props-out"

# An event chunk size of 2^40 bytes (OTF2 allows 256 KiB to 16 MiB).
corrupt chunk 'a[12:20] = (1 << 40).to_bytes(8, "little")'
run 2 "$TRACESYNC" check chunk/traces.otf2
contains err.txt "chunk/traces.otf2: corrupt OTF2 anchor file: chunk sizes 1099511627776 and"

# Cut inside the creator string; and not an OTF2 header at all.
corrupt cut 'del a[50:]'
run 2 "$TRACESYNC" check cut/traces.otf2
contains err.txt "cut/traces.otf2: corrupt OTF2 anchor file: it ends inside its header strings"
corrupt text 'a[:] = b"not a trace\n"'
run 2 "$TRACESYNC" check text/traces.otf2
contains err.txt "text/traces.otf2: not an OTF2 anchor file (no OTF2 header)"

# A compression byte libotf2 refuses (it then leaks the archive it had made).
corrupt zip 'a[29] = 0x1a'
run 2 "$TRACESYNC" check zip/traces.otf2
contains err.txt "zip/traces.otf2: corrupt OTF2 anchor file: unknown compression"
