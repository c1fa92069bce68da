#!/usr/bin/env python3
"""pcap2pcapng.py - rewrites a classic pcap as pcapng (one section, one interface,
enhanced packet blocks) with a chosen if_tsresol and if_tsoffset, for the tests of
the capture reader: the same packets at the same times in another encoding.

usage: pcap2pcapng.py IN.pcap OUT.pcapng [TSRESOL [TSOFFSET_S]]
TSRESOL is if_tsresol's byte (9: nanoseconds, 6: microseconds, 0x80|k: 2^-k s).
"""
import struct
import sys


def block(kind, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)


def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


src, dst = sys.argv[1], sys.argv[2]
resol = int(sys.argv[3], 0) if len(sys.argv) > 3 else 9
offset = int(sys.argv[4]) if len(sys.argv) > 4 else 0
data = open(src, "rb").read()
magic = data[:4]
order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
scale = 1 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1000
snap, link = struct.unpack(order + "II", data[16:24])
per_s = 2 ** (resol & 0x7F) if resol & 0x80 else 10 ** resol
out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + option(0, b"")),
       block(1, struct.pack("<HHI", link, 0, snap) + option(9, bytes([resol])) +
             (option(14, struct.pack("<q", offset)) if offset else b"") + option(0, b""))]
at = 24
while at + 16 <= len(data):
    sec, frac, incl, orig = struct.unpack(order + "IIII", data[at:at + 16])
    ns = (sec - offset) * 1000000000 + frac * scale
    ticks = ns * per_s // 1000000000
    out.append(block(6, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, incl, orig) +
                     data[at + 16:at + 16 + incl]))
    at += 16 + incl
open(dst, "wb").write(b"".join(out))
