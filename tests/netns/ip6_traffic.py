#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 traffic for test_ipv6.sh (l3b-traffic speaks IPv4 only).

Every payload is checkable on its own: a datagram carries its sequence
number and a pattern derived from it; the TCP stream is a pattern of its
byte offsets.  Output: one JSON line.

  udp-recv PORT SECONDS                 -> {"received", "unique", "corrupted",
                                            "dup", "reordered", "sizes"}
  udp-send DST PORT COUNT SIZE GAP_MS [SRC]
                                        -> {"sent", "errors"}
  tcp-recv PORT SECONDS                 -> {"bytes", "corrupted", "maxseg"}
  tcp-send DST PORT BYTES               -> {"sent", "maxseg"}
Addresses: IPv6 literals (an IPv4 one for udp-* works as well).
"""
import json
import socket
import struct
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def pattern(seq, n):
    b = bytes((seq * 7 + i) & 0xFF for i in range(256))
    return (b * (n // 256 + 1))[:n]


def udp_recv(port, secs):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    s.settimeout(0.2)
    print("ready", file=sys.stderr, flush=True)
    end = time.time() + secs
    seen, got, bad, dup, reord, last, sizes = set(), 0, 0, 0, 0, -1, set()
    while time.time() < end:
        try:
            d = s.recv(65535)
        except socket.timeout:
            continue
        got += 1
        if len(d) < 4:
            bad += 1
            continue
        seq = struct.unpack("!I", d[:4])[0]
        if d[4:] != pattern(seq, len(d) - 4):
            bad += 1
            continue
        sizes.add(len(d))
        if seq in seen:
            dup += 1
            continue
        if seq < last:
            reord += 1
        last = max(last, seq)
        seen.add(seq)
    print(json.dumps({"received": got, "unique": len(seen), "corrupted": bad,
                      "dup": dup, "reordered": reord,
                      "sizes": sorted(sizes)}, separators=(",", ":")))


def udp_send(dst, port, count, size, gap_ms, src=None):
    s = socket.socket(family(dst), socket.SOCK_DGRAM)
    if src:
        s.bind((src, 0))
    sent = errors = 0
    for seq in range(count):
        d = struct.pack("!I", seq) + pattern(seq, size - 4)
        try:
            s.sendto(d, (dst, port))
            sent += 1
        except OSError:
            errors += 1
        time.sleep(gap_ms / 1000.0)
    print(json.dumps({"sent": sent, "errors": errors}, separators=(",", ":")))


def tcp_recv(port, secs):
    ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    ls.bind(("::", port))
    ls.listen(1)
    ls.settimeout(secs)
    print("ready", file=sys.stderr, flush=True)
    total = bad = 0
    maxseg = 0
    try:
        c, _ = ls.accept()
        maxseg = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
        c.settimeout(secs)
        while True:
            d = c.recv(65536)
            if not d:
                break
            want = bytes((total + i) % 251 for i in range(len(d)))
            if d != want:
                bad += 1
            total += len(d)
    except socket.timeout:
        pass
    print(json.dumps({"bytes": total, "corrupted": bad, "maxseg": maxseg}, separators=(",", ":")))


def tcp_send(dst, port, nbytes):
    s = socket.create_connection((dst, port), timeout=20)
    maxseg = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
    off = 0
    while off < nbytes:
        n = min(65536, nbytes - off)
        s.sendall(bytes((off + i) % 251 for i in range(n)))
        off += n
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    print(json.dumps({"sent": off, "maxseg": maxseg}, separators=(",", ":")))


def main():
    a = sys.argv[1:]
    if a[0] == "udp-recv":
        udp_recv(int(a[1]), float(a[2]))
    elif a[0] == "udp-send":
        udp_send(a[1], int(a[2]), int(a[3]), int(a[4]), float(a[5]),
                 a[6] if len(a) > 6 else None)
    elif a[0] == "tcp-recv":
        tcp_recv(int(a[1]), float(a[2]))
    elif a[0] == "tcp-send":
        tcp_send(a[1], int(a[2]), int(a[3]))
    else:
        sys.exit("usage: see the head of this file")


if __name__ == "__main__":
    main()
