#!/usr/bin/env python3
"""count_messages.py - match MPI point-to-point messages in `otf2-print` output.

Reads the text printed by `otf2-print -A ANCHOR.otf2` (definitions + events)
from stdin; stdlib only. Usage:

    otf2-print -A tests/data/eztrace-pingring/eztrace_log.otf2 2>/dev/null \
        | python3 tests/data/eztrace-pingring/count_messages.py [--json]
        [--stats] [--pairs] [--offset LOCATION=NS ...]

Matching is MPI-style: a message is keyed by (communicator, sender world
rank, receiver world rank, tag); per key, the n-th send (in the sender
location's event order) matches the n-th receive (in the receiver location's
order). Send records are MPI_SEND and MPI_ISEND, receive records are MPI_RECV
and MPI_IRECV. The peer rank in a record is a rank in the record's
communicator; it is resolved through the communicator's COMM_GROUP (member i
= world rank of comm rank i) and the MPI COMM_LOCATIONS group (member w =
location of world rank w). The location otf2-print prints next to the peer
rank is cross-checked against this resolution.

Reported: matched pairs, unmatched sends/receives, "reversed" pairs
(receive timestamp < send timestamp), and max(send - receive) in seconds
(timer resolution from CLOCK_PROPERTIES). --offset LOC=NS adds NS ticks to
every timestamp of location LOC before comparing (e.g. to apply the ground
truth offsets from README.md). --stats also prints per-location record
counts and per ordered location pair min(recv - send); --pairs lists every
matched pair (sorted by send timestamp).
"""

import json
import re
import sys
from collections import defaultdict, deque

RE_DEF = re.compile(r"^(GROUP|COMM|LOCATION|CLOCK_PROPERTIES)\s+(.*)$")
RE_EVT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$")
RE_PEER = re.compile(
    r"(Receiver|Sender): (\d+) \(\"[^\"]*\" <(\d+)>\), "
    r"Communicator: \"[^\"]*\" <(\d+)>, Tag: (-?\d+), Length: (\d+)"
)
RE_REF = re.compile(r"<(\d+)>")

SEND_TYPES = ("MPI_SEND", "MPI_ISEND")
RECV_TYPES = ("MPI_RECV", "MPI_IRECV")


def parse_members(text):
    """Member list after 'N Members: ' / '1 Member: '."""
    m = re.search(r"\d+ Members?: (.*)$", text)
    if not m:
        return []
    body = m.group(1)
    # COMM_GROUP: 0 ("P#0T#0" <0>), 2 ("P#2T#0" <1073741822>)
    vals = re.findall(r"(\d+) \(\"[^\"]*\" <\d+>\)", body)
    if vals:
        return [int(v) for v in vals]
    # COMM_LOCATIONS: "P#0T#0" <0>, "P#1T#0" <536870911>
    return [int(v) for v in re.findall(r"\"[^\"]*\" <(\d+)>", body)]


def main(argv):
    want_json = "--json" in argv
    want_stats = "--stats" in argv
    want_pairs = "--pairs" in argv
    offsets = {}
    i = 0
    while i < len(argv):
        if argv[i] == "--offset" and i + 1 < len(argv):
            loc, ns = argv[i + 1].split("=", 1)
            offsets[int(loc)] = int(ns)
            i += 2
            continue
        i += 1

    ticks_per_sec = None
    comm_locations = None  # world rank -> location
    comm_groups = {}  # group id -> [world rank per comm rank]
    comms = {}  # comm id -> group id
    locations = {}  # location id -> (name, numberOfEvents)
    sends = []  # (loc, ts, kind, comm, peer_comm_rank, printed_peer_loc, tag)
    recvs = []
    rec_counts = defaultdict(lambda: defaultdict(int))
    in_events = False

    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("=== Events"):
            in_events = True
            continue
        if line.startswith("=== "):
            in_events = False
            continue
        if not in_events:
            m = RE_DEF.match(line)
            if not m:
                continue
            kind, rest = m.group(1), m.group(2)
            if kind == "CLOCK_PROPERTIES":
                t = re.search(r"Ticks per Seconds: (\d+)", rest)
                if t:
                    ticks_per_sec = int(t.group(1))
                continue
            parts = rest.split(None, 1)
            if len(parts) < 2 or not parts[0].isdigit():
                continue
            ident, attrs = int(parts[0]), parts[1]
            if kind == "GROUP":
                if "Paradigm: MPI" not in attrs:
                    continue
                if "Type: COMM_LOCATIONS" in attrs:
                    comm_locations = parse_members(attrs)
                elif "Type: COMM_GROUP" in attrs:
                    comm_groups[ident] = parse_members(attrs)
            elif kind == "COMM":
                g = re.search(r"Group: \"[^\"]*\" <(\d+)>", attrs)
                if g:
                    comms[ident] = int(g.group(1))
            elif kind == "LOCATION":
                n = re.search(r"Name: \"([^\"]*)\"", attrs)
                e = re.search(r"# Events: (\d+)", attrs)
                locations[ident] = (n.group(1) if n else "", int(e.group(1)) if e else None)
            continue

        m = RE_EVT.match(line)
        if not m:
            continue
        rtype, loc, ts, attrs = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        rec_counts[loc][rtype] += 1
        if rtype in SEND_TYPES or rtype in RECV_TYPES:
            p = RE_PEER.search(attrs)
            if not p:
                raise SystemExit("cannot parse p2p record: " + line)
            rec = (loc, ts + offsets.get(loc, 0), rtype, int(p.group(4)),
                   int(p.group(2)), int(p.group(3)), int(p.group(5)))
            (sends if rtype in SEND_TYPES else recvs).append(rec)

    if comm_locations is None:
        raise SystemExit("no MPI COMM_LOCATIONS group found: feed `otf2-print -A` output")
    if ticks_per_sec is None:
        ticks_per_sec = 1
        print("warning: no CLOCK_PROPERTIES, seconds are raw ticks", file=sys.stderr)

    world_of_loc = {l: w for w, l in enumerate(comm_locations)}
    resolve_mismatch = 0

    def to_world(comm, comm_rank):
        members = comm_groups[comms[comm]]
        return members[comm_rank]

    send_q = defaultdict(deque)
    recv_q = defaultdict(deque)
    for loc, ts, rtype, comm, peer, peer_loc, tag in sends:
        src_w = world_of_loc[loc]
        dst_w = to_world(comm, peer)
        if comm_locations[dst_w] != peer_loc:
            resolve_mismatch += 1
        send_q[(comm, src_w, dst_w, tag)].append((loc, ts, rtype))
    for loc, ts, rtype, comm, peer, peer_loc, tag in recvs:
        dst_w = world_of_loc[loc]
        src_w = to_world(comm, peer)
        if comm_locations[src_w] != peer_loc:
            resolve_mismatch += 1
        recv_q[(comm, src_w, dst_w, tag)].append((loc, ts, rtype))

    pairs = []
    unmatched_sends = defaultdict(int)
    unmatched_recvs = defaultdict(int)
    for key in set(send_q) | set(recv_q):
        sq, rq = send_q.get(key, deque()), recv_q.get(key, deque())
        while sq and rq:
            pairs.append((key, sq.popleft(), rq.popleft()))
        for s in sq:
            unmatched_sends[s[2]] += 1
        for r in rq:
            unmatched_recvs[r[2]] += 1

    reversed_pairs = [p for p in pairs if p[2][1] < p[1][1]]
    max_sr = max((p[1][1] - p[2][1] for p in pairs), default=0)
    by_kind = defaultdict(int)
    by_comm = defaultdict(int)
    for key, s, r in pairs:
        by_kind[s[2] + "->" + r[2]] += 1
        by_comm[key[0]] += 1

    out = {
        "ticks_per_second": ticks_per_sec,
        "send_records": len(sends),
        "recv_records": len(recvs),
        "matched_pairs": len(pairs),
        "matched_by_kind": dict(sorted(by_kind.items())),
        "matched_by_comm": {str(k): v for k, v in sorted(by_comm.items())},
        "unmatched_sends": dict(sorted(unmatched_sends.items())),
        "unmatched_recvs": dict(sorted(unmatched_recvs.items())),
        "reversed_pairs": len(reversed_pairs),
        "max_send_minus_recv_ticks": max_sr,
        "max_send_minus_recv_s": max_sr / ticks_per_sec,
        "peer_resolution_mismatches": resolve_mismatch,
    }
    if offsets:
        out["offsets_applied"] = {str(k): v for k, v in sorted(offsets.items())}

    if want_stats:
        min_lat = {}
        for key, s, r in pairs:
            k = "%d->%d" % (s[0], r[0])
            d = r[1] - s[1]
            min_lat[k] = d if k not in min_lat else min(min_lat[k], d)
        out["min_recv_minus_send_ticks_by_location_pair"] = dict(sorted(min_lat.items()))
        out["records_per_location"] = {
            str(l): dict(sorted(c.items())) for l, c in sorted(rec_counts.items())
        }
        out["events_per_location"] = {
            str(l): sum(c.values()) for l, c in sorted(rec_counts.items())
        }
        out["numberOfEvents_in_location_defs"] = {
            str(l): v[1] for l, v in sorted(locations.items())
        }

    if want_pairs:
        out["pairs"] = [
            {"comm": k[0], "src_world": k[1], "dst_world": k[2], "tag": k[3],
             "send_loc": s[0], "send_ts": s[1], "send_type": s[2],
             "recv_loc": r[0], "recv_ts": r[1], "recv_type": r[2]}
            for k, s, r in sorted(pairs, key=lambda p: (p[1][1], p[1][0]))
        ]

    if want_json:
        json.dump(out, sys.stdout, indent=2, sort_keys=False)
        print()
    else:
        for k, v in out.items():
            if k == "pairs":
                print("pairs:")
                for q in v:
                    print("  comm=%(comm)d %(src_world)d->%(dst_world)d tag=%(tag)d "
                          "%(send_type)s@%(send_ts)d %(recv_type)s@%(recv_ts)d" % q
                          + ("  REVERSED" if q["recv_ts"] < q["send_ts"] else ""))
                continue
            print("%s: %s" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
