#!/usr/bin/env python3
"""pcap_stamps.py - per-packet timestamp differences of two captures with the same
packets (a capture and its rewrite), for the capture tests: classic pcap, or pcapng
of one section in this machine's byte order as tracesync writes it.

usage: pcap_stamps.py A B   prints "packets N max_abs_ns M same_bytes 0|1"
"""
import struct
import sys


def pcapng_stamps(data):
    out, body, at, resol = [], [], 0, {}
    while at + 12 <= len(data):
        kind, size = struct.unpack("<II", data[at:at + 8])
        if kind == 1:  # interface: if_tsresol (option 9), else microseconds
            tsresol, opt = 6, at + 16
            while opt + 4 <= at + size - 4:
                code, n = struct.unpack("<HH", data[opt:opt + 4])
                if code == 0:
                    break
                if code == 9:
                    tsresol = data[opt + 4]
                opt += 4 + (n + 3) // 4 * 4
            resol[len(resol)] = tsresol
        elif kind == 6:
            iface, hi, lo, incl, orig = struct.unpack("<IIIII", data[at + 8:at + 28])
            ticks, r = hi << 32 | lo, resol[iface]
            out.append(ticks * 10 ** (9 - r) if r <= 9 else ticks // 10 ** (r - 9))
            body.append((incl, orig, data[at + 28:at + 28 + incl]))
        at += size
    return out, body


def stamps(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        return pcapng_stamps(data)
    order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    scale = 1 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1000
    out, body, at = [], [], 24
    while at + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(order + "IIII", data[at:at + 16])
        out.append(sec * 1000000000 + frac * scale)
        body.append((incl, orig, data[at + 16:at + 16 + incl]))
        at += 16 + incl
    return out, body


a, ab = stamps(sys.argv[1])
b, bb = stamps(sys.argv[2])
if len(a) != len(b):
    print("packets %d %d differ" % (len(a), len(b)))
    sys.exit(1)
worst = max(abs(x - y) for x, y in zip(a, b))
print("packets %d max_abs_ns %d same_bytes %d" % (len(a), worst, int(ab == bb)))
