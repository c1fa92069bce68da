# The collector preloaded into the unchanged pingring example on 4 ranks: the
# archive opens with otf2-print and tracesync check, every message matches, the
# sub-communicators are defined, sessions become sync messages; buffers flush
# to disk when full; SYNCED_CLUSTER exchanges nothing.
. "$E2E_LIB"
: "${PINGRING:?}"
. "$(dirname "$E2E_LIB")/collect/lib.sh"

run 0 mpirun_traced run 4 "$PINGRING" TRACESYNC_VERBOSE=3
contains out.txt "pingring: done on 4 ranks"
contains err.txt "tracesync-collect: wrote run/traces.otf2 and global.otf2"
contains err.txt "events on one clock tick"
for a in traces global; do
    run 0 otf2-print "run/$a.otf2"
    contains out.txt "MPI_COLLECTIVE_END"
    # 42 program messages, 10 exchanges x 3 children x 2 sessions x 2 directions;
    # global stamps carry the sessions' error: exit 1 when some are reversed
    "$TRACESYNC" check "run/$a.otf2" --json >out.txt || [ $? -eq 1 ] || fail "check run/$a.otf2 failed"
    json_eq out.txt 'd["messages"]' 162
    json_eq out.txt 'd["unmatched"]["sends"]' 0
    json_eq out.txt 'd["unmatched"]["receives"]' 0
    json_eq out.txt 'd["logical_messages"] > 0' True
done
# one clock on one host: the local stamps are already consistent
run 0 "$TRACESYNC" check run/traces.otf2 --json
json_eq out.txt 'd["reversed"]' 0

run 0 otf2-print -G run/traces.otf2
contains out.txt '"MPI communicator 2"'
contains out.txt '"MPI communicator 3"'
contains out.txt 'Name: "tracesync timesync"'
contains out.txt "2 Members: 0"
grep -q "Timer Resolution: 8192000000000\|8192000000000" out.txt || fail "timer resolution is not 2^13 per ns"
run 0 otf2-print -G run/global.otf2
grep -q "16384000000000" out.txt || fail "global timer resolution is not 2 x 2^13 per ns"
run 0 otf2-print -A run/traces.otf2
contains out.txt "TRACESYNC::EVENT_BITS"
# buffers of 2 KiB: flushed to disk, the same events come back
run 0 mpirun_traced small 4 "$PINGRING" TRACESYNC_MEM_BLOCKSIZE=1K TRACESYNC_MEM_MAXBLOCKS=2
grep -q "events on 4 ranks, [1-9][0-9]* flushes" err.txt || fail "no flush counted: $(cat err.txt)"
run 0 "$TRACESYNC" check small/traces.otf2 --json
json_eq out.txt 'd["messages"]' 162
json_eq out.txt 'd["unmatched"]["sends"] + d["unmatched"]["receives"]' 0

# clocks synchronized cluster-wide: no exchange at all
run 0 mpirun_traced cluster 4 "$PINGRING" TRACESYNC_SYNCED_CLUSTER=1 TRACESYNC_GLOBAL=off
[ ! -e cluster/global.otf2 ] || fail "TRACESYNC_GLOBAL=off wrote global.otf2"
run 0 "$TRACESYNC" check cluster/traces.otf2 --json
json_eq out.txt 'd["messages"]' 42

# sessions switched off (ITC: no exchange), clocks taken as synchronized
run 0 mpirun_traced off 4 "$PINGRING" TRACESYNC_SYNC_MAX_MESSAGES=0 TRACESYNC_GLOBAL=off
run 0 "$TRACESYNC" check off/traces.otf2 --json
json_eq out.txt 'd["messages"]' 42
