# Small MPI_Isends pending at once (mpi_isends, 3 ranks, under tracesync record):
# Open MPI completes each when posted and gives them all one shared handle. Every
# send has its MpiIsend and, unless freed, one MpiIsendComplete, inside the
# completion call that completed it (MPI_Wait, Waitall, Waitany, Waitsome and
# the MPI_Test family), as every receive has its MpiIrecv; a freed send has none,
# and the send posted after it is completed under its own request id.
. "$E2E_LIB"
: "${ISENDS:?}"
. "$(dirname "$E2E_LIB")/collect/lib.sh"

mkdir expect
run 0 env ${PRELOAD_FIRST:+LD_PRELOAD=$PRELOAD_FIRST} "$TRACESYNC" record -o run --sync-messages 10 -- \
    "$MPIEXEC" --oversubscribe -np 3 "$ISENDS" expect
contains out.txt "mpi_isends: ok"
run 0 otf2-print run/traces.otf2
# Per rank: the program's calls (expect/expect.RANK: the requests each completed
# or freed, sN the Nth MPI_Isend, rN the Nth MPI_Irecv, s? and r? one of those
# that shared a handle) against the completion events recorded inside each call.
python3 - out.txt expect 3 <<'EOF' || fail "completions differ from the program's"
import re, sys
from collections import Counter, defaultdict

lines = defaultdict(list)  # location -> its records in order
for line in open(sys.argv[1]):
    f = line.split(None, 3)
    if len(f) == 4 and f[1].isdigit() and f[2].isdigit():
        lines[int(f[1])].append((f[0], f[3]))

ok = True
for rank in range(int(sys.argv[3])):
    sends, recvs = {}, {}   # request id -> ordinal
    done = Counter()
    calls, region = [], None
    for kind, rest in lines[rank]:
        req = re.search(r"Request: (\d+)", rest)
        if kind == "MPI_ISEND":
            sends[req.group(1)] = "s%d" % len(sends)
        elif kind == "MPI_IRECV_REQUEST":
            recvs[req.group(1)] = "r%d" % len(recvs)
        elif kind == "ENTER":
            region, tokens = re.search(r'Region: "([^"]*)"', rest).group(1), []
        elif kind in ("MPI_ISEND_COMPLETE", "MPI_IRECV"):
            ids = sends if kind == "MPI_ISEND_COMPLETE" else recvs
            token = ids.get(req.group(1), "unknown request " + req.group(1))
            done[token] += 1
            tokens.append(token)
        elif kind == "LEAVE" and region and tokens:
            calls.append((region, tokens))
            region = None
    expected = [l.split() for l in open("%s/expect.%d" % (sys.argv[2], rank))]
    freed = sum(len(e) - 1 for e in expected if e[0] == "MPI_Request_free")
    expected = [(e[0], e[1:]) for e in expected if e[0] != "MPI_Request_free"]
    n_complete = sum(n for t, n in done.items() if t.startswith("s"))
    print("rank %d: %d MpiIsend, %d MpiIsendComplete, %d freed; %d calls, %d expected"
          % (rank, len(sends), n_complete, freed, len(calls), len(expected)))
    if len(sends) != n_complete + freed or freed != 2 or len(sends) != 70:
        ok = False
    if any(n > 1 for n in done.values()):
        print("rank %d: completed twice: %s" % (rank, [t for t, n in done.items() if n > 1]))
        ok = False
    for i in range(max(len(calls), len(expected))):
        got = calls[i] if i < len(calls) else None
        want = expected[i] if i < len(expected) else None
        # s? and r? match any request of their kind that the call completed
        match = got and want and got[0] == want[0] and len(got[1]) == len(want[1])
        if match:
            left = Counter(got[1])
            left.subtract(t for t in want[1] if "?" not in t)
            match = min(left.values(), default=0) >= 0 and sorted(t[0] for t in left.elements()) == \
                sorted(t[0] for t in want[1] if "?" in t)
        if not match:
            print("rank %d call %d: recorded %s, the program completed %s" % (rank, i, got, want))
            ok = False
            break
sys.exit(0 if ok else 1)
EOF
