# Writes that fail (a full disk, a file size limit), interrupted runs: exit 2 with
# the file and the reason, nothing in place, no temporary output left behind.
. "$E2E_LIB"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 3 -o sim -q
run 0 "$TRACESYNC" estimate sim/trace.otf2 -o maps.json -q
printf 'send_location,send_time_ns,recv_location,recv_time_ns\na,1000,b,90000\nb,2000,a,-85000\n' >m.csv

for cmd in sync clc; do
    limited 2 1 "$TRACESYNC" $cmd sim/trace.otf2 -o full-$cmd -q
    contains err.txt "full-$cmd/trace/"
    contains err.txt "File is too large"
    contains err.txt "nothing was written"
    absent full-$cmd
done
limited 2 1 "$TRACESYNC" apply maps.json sim/trace.otf2 -o full-apply -q
contains err.txt "File is too large"
absent full-apply
limited 2 1 "$TRACESYNC" simulate --scenario smoke -o full-sim -q
contains err.txt "File is too large"
absent full-sim
[ "$(find . -name '*Buffer deletion*' -o -name '.tracesync-*' | wc -l)" -eq 0 ] || fail "leftovers"

# A write that fails in the middle of a large run, once a location has more than
# libotf2's 4 MiB file buffer of events (libotf2 used that buffer after freeing it:
# a crash, or a double free).
limited 2 1 "$TRACESYNC" simulate --scenario smoke --duration 10h -o full-long -q
contains err.txt "full-long/trace/"
contains err.txt ".evt: File is too large; nothing was written"
absent full-long
run 0 "$TRACESYNC" simulate --scenario smoke --events 1500000 -o big -q
[ "$(stat -c %s big/trace/0.evt)" -gt $((5 << 20)) ] || fail "big/trace/0.evt: too small to test"
limited 2 1 "$TRACESYNC" sync big/trace.otf2 -o full-big -q
contains err.txt "full-big/trace/"
contains err.txt ".evt: File is too large; nothing was written"
absent full-big

# A report that fails only when written (it is larger than the limit, the corrected
# files are not): neither the trace nor the report is in place.
limited 2 16 "$TRACESYNC" sync sim/trace.otf2 -o rep-sync --report rep-sync/r.json -q
contains err.txt "--report rep-sync/r.json: cannot write: File too large; nothing was written"
nothing_in rep-sync
for cmd in sync clc; do
    limited 2 1 "$TRACESYNC" $cmd m.csv -o rep-$cmd-csv --report rep-$cmd-csv/r.json -q
    contains err.txt "rep-$cmd-csv/r.json: cannot write: File too large"
    nothing_in rep-$cmd-csv
done
# ... and an earlier trace and report stay as they were.
run 0 "$TRACESYNC" sync m.csv -o rep-keep --report rep-keep/r.json -q
before=$(tree_sum rep-keep)
limited 2 1 "$TRACESYNC" sync m.csv -o rep-keep --report rep-keep/r.json -q --estimator none
[ "$(tree_sum rep-keep)" = "$before" ] || fail "the earlier trace or report changed"
[ "$(ls -A rep-keep | tr '\n' ' ')" = "m.csv r.json " ] || fail "rep-keep: $(ls -A rep-keep)"

# An earlier output stays as it was when a new one cannot be written.
run 0 "$TRACESYNC" sync sim/trace.otf2 -o keep -q
before=$(tree_sum keep)
limited 2 1 "$TRACESYNC" sync sim/trace.otf2 -o keep -q --estimator none
[ "$(tree_sum keep)" = "$before" ] || fail "the earlier output changed"

# A real full disk, where mounting one is allowed (root in CI).
# on_full_tmpfs SIZE TRACE SIMULATE_OPTION...: sync TRACE and simulate into a tmpfs of
# SIZE (stderr to err.txt and err2.txt); both must exit 2 and leave nothing there.
on_full_tmpfs() {
    size=$1 trace=$2
    shift 2
    mount -t tmpfs -o size="$size" tmpfs small
    set +e
    "$TRACESYNC" sync "$trace" -o small/out -q >out.txt 2>err.txt
    rc=$?
    "$TRACESYNC" simulate --scenario smoke "$@" -o small/sim -q >out2.txt 2>err2.txt
    rc2=$?
    left=$(find small -mindepth 2)
    set -e
    umount small
    [ "$rc" -eq 2 ] && [ "$rc2" -eq 2 ] || fail "tmpfs of $size: exit $rc and $rc2, expected 2"
    [ -z "$left" ] || fail "tmpfs of $size: left $left"
}
mkdir -p small
if mount -t tmpfs -o size=24k tmpfs small 2>/dev/null; then
    umount small
    on_full_tmpfs 24k sim/trace.otf2
    contains err.txt "No space left on device"
    contains err2.txt "No space left on device"
    # ... and one that fills up in the middle of a large run.
    on_full_tmpfs 6m big/trace.otf2 --duration 10h
    contains err.txt "small/out/trace/"
    contains err.txt ".evt: No space left on device; nothing was written"
    contains err2.txt "small/sim/t"
    contains err2.txt ".evt: No space left on device; nothing was written"
else
    echo "tmpfs not mountable here: the full disk is tested with the file size limit only"
fi

# The corrected CSV follows the umask, like every output.
(umask 022 && "$TRACESYNC" sync m.csv -o csv -q >/dev/null)
[ "$(stat -c %a csv/m.csv)" = 644 ] || fail "csv/m.csv has mode $(stat -c %a csv/m.csv)"
python3 -c 'print("send_location,send_time_ns,recv_location,recv_time_ns")
for i in range(200): print("a,%d,b,%d" % (i * 1000, i * 1000 + 500))' >big.csv
limited 2 1 "$TRACESYNC" sync big.csv -o csvfull -q
contains err.txt "csvfull/big.csv: cannot write: File too large"
absent csvfull

# SIGTERM, SIGINT or SIGBUS (a mapped input cut short) while writing: the temporary
# output goes with the process.
cat >killrun.py <<'P'
import glob, os, subprocess, sys, time
sig, outdir, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t0 = time.time()
while p.poll() is None and not glob.glob(os.path.join(outdir, ".tracesync-*")):
    if time.time() - t0 > 120:
        break
    time.sleep(0.0002)
if p.poll() is not None:
    sys.exit("finished before the signal: make the trace bigger")
p.send_signal(sig)
print(-p.wait())
P
for sig in 15 2 7; do
    rm -rf killed
    [ "$(python3 killrun.py $sig killed "$TRACESYNC" sync big/trace.otf2 -o killed -q)" = $sig ] ||
        fail "signal $sig did not end the run"
    absent killed
done
# SIGKILL leaves it; the next run into the same OUTDIR removes it and says so.
rm -rf killed
[ "$(python3 killrun.py 9 killed "$TRACESYNC" sync big/trace.otf2 -o killed -q)" = 9 ] ||
    fail "SIGKILL did not end the run"
stale=$(ls -A killed)
case "$stale" in .tracesync-*) ;; *) fail "no temporary output after SIGKILL: $stale" ;; esac
run 0 "$TRACESYNC" sync m.csv -o killed
contains err.txt "killed/$stale: removed the temporary output of an interrupted run"
[ "$(ls -A killed)" = m.csv ] || fail "killed: $(ls -A killed)"
# ... but not the one of a run still going (this shell's).
mkdir "killed/.tracesync-$$@$(hostname)-abcdef"
run 0 "$TRACESYNC" sync m.csv -o killed -q
[ -d "killed/.tracesync-$$@$(hostname)-abcdef" ] || fail "removed a live run's directory"
echo ok
