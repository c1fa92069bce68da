#!/bin/sh
# CSV fuzz findings: times whose differences overflow int64 in estimation are
# refused when read (exit 2, file and line named), before any stage runs.
. "$E2E_LIB"

for f in "$DATA"/fuzz-regressions/csv/*.csv; do
    run 2 "$TRACESYNC" sync "$f" -o out
    contains err.txt "$f: line 2:"
    contains err.txt "is beyond +-2^62 ns"
    [ ! -e out ] || fail "sync wrote out for $f"
done
