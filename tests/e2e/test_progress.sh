# Progress on a terminal (a pseudo-terminal from script(1)): one line per stage,
# with its total, counting up and never starting again, reading counted over every
# location and thread; nothing with -q or when stderr is not a terminal.
. "$E2E_LIB"
if ! command -v script >/dev/null 2>&1; then
    echo "script(1) not found: progress on a terminal not tested"
    exit 0
fi
run 0 "$TRACESYNC" simulate --scenario smoke --seed 4 --events 300000 -o sim -q
# on_tty FILE ARGS...: tracesync ARGS with stderr on a pseudo-terminal, that to FILE.
on_tty() {
    out=$1
    shift
    script -qec "\"$TRACESYNC\" $* 2>&1 >/dev/null" /dev/null >"$out" </dev/null ||
        fail "script: tracesync $*"
}
on_tty tty.txt sync sim/trace.otf2 -o out --threads 2
cat >lines.py <<'P'
import re, sys
def count(s):
    m = re.fullmatch(r"([0-9.]+) ([MG])", s)
    if m:
        return float(m.group(1)) * (1e6 if m.group(2) == "M" else 1e9)
    return float(s.replace(" ", ""))
text = open(sys.argv[1], newline="").read().replace("\r\n", "\n")  # the terminal's newlines
stages = []
for line in text.split("\n"):
    parts = [p for p in line.split("\r") if p.strip()]
    if not parts:
        continue
    label, last = None, -1
    for p in parts:
        m = re.fullmatch(r"([a-z ]+): ([0-9. MG]+?)(?: of ([0-9. MG]+))?", p)
        if not m:
            sys.exit("not a progress line: %r" % p)
        if label not in (None, m.group(1)):
            sys.exit("two stages on one line: %r" % line)
        label, done = m.group(1), count(m.group(2))
        if done < last:
            sys.exit("counts back on one line: %r" % line)
        last = done
        total = m.group(3)
        if total and done > count(total):
            sys.exit("more than the total: %r" % p)
    stages.append((label, len(parts), p))
for label, n, final in stages:
    print("%s|%d|%s" % (label, n, final))
P
python3 lines.py tty.txt >stages.txt || fail "progress: $(tr '\r' '|' <tty.txt | head -c 2000)"
cat stages.txt
# Reading: one line, cumulative over the 4 locations and 2 threads, ending at the total.
[ "$(grep -c '^reading events|' stages.txt)" = 1 ] || fail "reading events: not one line"
grep -q '^reading events|[2-9][0-9]*|reading events: .* of ' stages.txt ||
    fail "reading events: no intermediate count with a total"
grep '^reading events|' stages.txt | grep -Eq 'reading events: ([0-9. MG]+) of \1$' ||
    fail "reading events: does not end at its total"
# The three checks (before, after the maps, after the clc) and every other stage end
# at their totals.
[ "$(grep -c '^checking messages|' stages.txt)" = 3 ] || fail "checking messages: not 3 lines"
for stage in 'checking messages' 'applying time maps' 'controlled logical clock' \
    'writing locations'; do
    grep "^$stage|" stages.txt | grep -Eq ": ([0-9. MG]+) of \1$" || fail "$stage: no total"
done

# -q, or stderr not a terminal: no progress.
on_tty q.txt sync sim/trace.otf2 -o out -q
[ ! -s q.txt ] || fail "-q: $(head -c 300 q.txt)"
run 0 "$TRACESYNC" sync sim/trace.otf2 -o out
if grep -q 'reading events' err.txt; then fail "progress when stderr is a file"; fi
echo ok
