#!/usr/bin/env python3
"""pcap_stamps.py - per-packet timestamp differences of two classic pcap files with
the same packets (a capture and its rewrite), for the capture tests.

usage: pcap_stamps.py A B   prints "packets N max_abs_ns M same_bytes 0|1"
"""
import struct
import sys


def stamps(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    scale = 1 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1000
    out, body, at = [], [], 24
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(order + "IIII", data[at:at + 16])
        out.append(sec * 1000000000 + frac * scale)
        body.append(data[at + 8:at + 16 + incl])
        at += 16 + incl
    return out, body


a, ab = stamps(sys.argv[1])
b, bb = stamps(sys.argv[2])
if len(a) != len(b):
    print("packets %d %d differ" % (len(a), len(b)))
    sys.exit(1)
worst = max(abs(x - y) for x, y in zip(a, b))
print("packets %d max_abs_ns %d same_bytes %d" % (len(a), worst, int(ab == bb)))
