# The command line contract: exit codes, messages that say what is wrong and where,
# outputs checked before the work, results that could not be printed.
. "$E2E_LIB"
run 0 "$TRACESYNC" simulate --scenario smoke --seed 5 -o sim -q

# Every command documents its exit status; `tracesync help [COMMAND]`.
run 0 "$TRACESYNC" help
contains out.txt "tracesync help COMMAND"
for cmd in $(sed -n 's/^  \([a-z]*\) .*/\1/p' out.txt); do
    run 0 "$TRACESYNC" help "$cmd"
    contains out.txt "usage: tracesync $cmd"
    contains out.txt "Exit status: 0 "
done
run 2 "$TRACESYNC" help nosuch
contains err.txt "unknown command 'nosuch'"

# An option without its value, an unknown option: which one, and what is missing.
run 2 "$TRACESYNC" sync sim/trace.otf2 -o
contains err.txt "option -o needs a value"
run 2 "$TRACESYNC" clc sim/trace.otf2 --report
contains err.txt "option --report needs a value"
run 2 "$TRACESYNC" check sim/trace.otf2 --bogus
contains err.txt "unknown option --bogus"

# sync exits 1 when its result line says INCONSISTENT, as check does.
run 1 "$TRACESYNC" sync sim/trace.otf2 -o noclc --no-clc --estimator none
contains out.txt "result         INCONSISTENT"
[ -f noclc/trace.otf2 ] || fail "the INCONSISTENT result was not written"
run 0 "$TRACESYNC" sync sim/trace.otf2 -o ok/ -q
# No doubled slash in the paths printed.
run 0 "$TRACESYNC" sync sim/trace.otf2 -o ok/
contains out.txt "sync: sim/trace.otf2 -> ok/trace.otf2"

# Two inputs with the same file name would write the same output: refused, named.
mkdir -p a b
cp -r sim/trace sim/trace.otf2 sim/trace.def a/
cp -r sim/trace sim/trace.otf2 sim/trace.def b/
run 2 "$TRACESYNC" sync a/trace.otf2 b/trace.otf2 -o same
contains err.txt "a/trace.otf2 and b/trace.otf2 have the same file name"
contains err.txt "same/trace.otf2"
[ ! -e same ] || fail "same/ was written"

# Report paths are checked before the work; their directory is made like OUTDIR.
touch afile
run 2 "$TRACESYNC" sync sim/trace.otf2 -o rep1 --report afile/r.json
contains err.txt "--report afile/r.json: "
[ ! -e rep1 ] || fail "rep1 written although the report cannot be"
run 0 "$TRACESYNC" sync sim/trace.otf2 -o rep2/ --report rep2/sub/r.json -q
[ -f rep2/sub/r.json ] && [ -f rep2/trace.otf2 ] || fail "rep2: $(ls -AR rep2)"
# estimate -o names its own option.
run 2 "$TRACESYNC" estimate sim/trace.otf2 -o afile/maps.json
contains err.txt "tracesync estimate: -o afile/maps.json: "
run 0 "$TRACESYNC" estimate sim/trace.otf2 -o maps/m.json -q
[ -f maps/m.json ] || fail "no maps/m.json"

# Results that cannot be printed: exit 2 with a message.
if [ -w /dev/full ]; then
    set +e
    "$TRACESYNC" check sim/trace.otf2 -q >/dev/full 2>err.txt
    rc=$?
    "$TRACESYNC" sync sim/trace.otf2 -o full -q --json >/dev/full 2>err2.txt
    rc2=$?
    set -e
    [ $rc -eq 2 ] && [ $rc2 -eq 2 ] || fail "stdout /dev/full: exit $rc and $rc2, expected 2"
    contains err.txt "tracesync check: cannot write to the standard output: No space left on device"
    contains err2.txt "tracesync sync: cannot write to the standard output"
fi

# A CSV line that starts with NUL is an error naming the line, not skipped.
printf 'send_location,send_time_ns,recv_location,recv_time_ns\na,1000,b,90000\n\000b,2000,a,85000\n' >nul.csv
run 2 "$TRACESYNC" check nul.csv
contains err.txt "nul.csv: line 3: contains a NUL byte"
echo ok
