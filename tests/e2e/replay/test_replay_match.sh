# test_replay_match.sh - point-to-point messages matched on the processes of their
# receivers (the sends sent there), collective calls on the processes of their
# communicators, give the archives of the serial commands, on one process, fewer
# than the locations and more: channels whose first sends are in another order
# than their receivers, receives completed out of their posting order, a send and
# a receive without a match; collectives on four communicators whose calls
# interleave; and the small MPI run of basic.tsf (wildcard receive, Isend and
# Irecv, collectives, ClockOffsets).
. "$E2E_LIB"
. "$(dirname "$E2E_LIB")/replay/lib.sh"

# Rank 4, the last location, sends first in time, but its channels come last in
# the serial list of sends; rank 0 posts receives from 3 with tags 5 and 6 and
# completes them in the other order; 3 -> 1 (tag 9) has no receive, 2 <- 4 (tag
# 8) no send.
cat >match.tsf <<'TSF'
resolution 1000000000
node n0 0 1
node n1 2 3
node n2 4
4 100 send 0 0 1 64
4 200 send 0 2 2 64
0 300 irecv_request 11
0 310 irecv_request 12
3 400 send 0 0 5 64
3 410 send 0 0 6 64
0 500 irecv 0 3 6 64 12
0 510 irecv 0 3 5 64 11
0 600 recv 0 4 1 64
1 700 send 0 2 3 64
2 800 recv 0 1 3 64
2 900 recv 0 4 2 64
3 1000 send 0 1 9 64
2 1100 recv 0 4 8 64
0 1200 send 0 4 4 64
4 1300 recv 0 0 4 64
1 1400 send 0 2 3 64
2 1500 recv 0 1 3 64
3 1600 send 0 0 5 64
0 1700 recv 0 3 5 64
TSF
fixture match.tsf m/traces.otf2
same_as_serial clc m/traces.otf2 "" 1 2 3 5
contains out.txt "8 receives"
same_as_serial sync m/traces.otf2 "" 1 2 3 5
# The unmatched ones counted over every process, warned once.
run 0 mpi 3 clc m/traces.otf2 -o warned
contains err.txt "m/traces.otf2: 1 send and 1 receive are unmatched"
[ "$(grep -c "unmatched" err.txt)" -eq 1 ] || fail "the unmatched records are warned more than once"

fixture "$DATA/fixtures/basic.tsf" basic/traces.otf2
same_as_serial clc basic/traces.otf2 "" 2 3
same_as_serial sync basic/traces.otf2 "" 1 3 4

# Four communicators (world, {2,3}, {0,1}, {1,2,3}), matched on different
# processes, their calls interleaved in time: the instances in the serial order.
cat >colls.tsf <<'TSF'
resolution 1000000000
node n0 0 1
node n1 2 3
comm 5 2 3
comm 7 0 1
comm 9 1 2 3
0 100 coll_begin
0 150 coll_end barrier 0 - 0 0
1 100 coll_begin
1 160 coll_end barrier 0 - 0 0
2 100 coll_begin
2 170 coll_end barrier 0 - 0 0
3 100 coll_begin
3 180 coll_end barrier 0 - 0 0
2 300 coll_begin
2 350 coll_end bcast 5 0 64 0
3 310 coll_begin
3 360 coll_end bcast 5 0 0 64
0 400 coll_begin
0 450 coll_end allreduce 7 - 8 8
1 410 coll_begin
1 460 coll_end allreduce 7 - 8 8
1 500 coll_begin
1 550 coll_end reduce 9 0 8 8
2 510 coll_begin
2 560 coll_end reduce 9 0 8 0
3 520 coll_begin
3 570 coll_end reduce 9 0 8 0
2 600 coll_begin
2 650 coll_end allgather 5 - 8 16
3 610 coll_begin
3 660 coll_end allgather 5 - 8 16
0 700 coll_begin
0 750 coll_end gather 7 1 8 0
1 710 coll_begin
1 740 coll_end gather 7 1 8 16
0 800 send 0 3 1 8
3 790 recv 0 0 1 8
TSF
fixture colls.tsf c/traces.otf2
same_as_serial clc c/traces.otf2 "--no-presync" 1 2 3 4
contains out.txt "corrected"
same_as_serial sync c/traces.otf2 "" 2 3
