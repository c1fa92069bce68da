#!/bin/sh
# CSV fuzz findings: times whose differences overflow int64 in estimation are
# refused when read (exit 2, file and line named), before any stage runs; messages
# that fix a drift far beyond --max-drift are dropped as contradicting, with a
# warning; pieces 1.4e18 ns apart are joined.
. "$E2E_LIB"

for f in "$DATA"/fuzz-regressions/csv/time-*.csv; do
    run 2 "$TRACESYNC" sync "$f" -o out
    contains err.txt "$f: line 2:"
    contains err.txt "is beyond +-2^62 ns"
    [ ! -e out ] || fail "sync wrote out for $f"
done

# A receive at 1500 ns for a send at 10^15 ns beside messages 1.5 us apart: the pair
# had been given a slope of 3e11 (node-1 "bounded", drift -1e+06 ppm), whose inverse
# put times at -2^63. Now the samples that ask for more than 1000 ppm are left out,
# and what remains (node-1's clock stepping by 10^15 ns) is no longer extrapolated.
f=$DATA/fuzz-regressions/csv/receive-1e15-early.csv
run 0 "$TRACESYNC" estimate "$f"
contains err.txt "domains \"node-0\" and \"node-1\": 12 of 23 samples contradict linear clocks"
contains err.txt "or a drift beyond --max-drift)"
contains out.txt "dropped     12 samples contradicting linear clocks"
grep -qa "^  node-1 fallback " out.txt || fail "node-1: $(grep -a '^  node-1 ' out.txt)"
# sync goes through (a cycle of messages is left: exit 1, INCONSISTENT).
run 1 "$TRACESYNC" sync "$f" -o out
[ -s out/receive-1e15-early.csv ] || fail "sync wrote no out/receive-1e15-early.csv"

# A send at 1.4e18 ns among times of 1e15: the gap between node-1's two pieces is
# drawn at 1/8 steps, and gap * 7 overflowed int64 (caught here under the sanitizers).
f=$DATA/fuzz-regressions/csv/gap-1e18-between-pieces.csv
run 0 "$TRACESYNC" estimate "$f"
contains err.txt "domains \"node-0\" and \"node-1\": 2 of 56 samples contradict linear clocks"
