#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Samples the testbed every INTERVAL while an experiment runs.

Per row: the wall-clock time (seconds since the epoch, the clock bash's
$EPOCHREALTIME reads, so that the run script can align its own marks), the
bytes the dsl and lte links have sent towards the cpe so far (downstream
line bytes, after the tbf), the rates over the interval in Mbit/s, and the
mobile weight of the sending daemon.

The link bytes are the transmit counter of the device the tbf sits on
(/proc/PID/net/dev, PID any process inside the link's namespace): every
byte the tbf releases is handed to that device, so its counter moves as the
tbf's "Sent" does (run.sh checks the two at the end of each run), without
forking tc ten times a second on a 2-core machine that carries the traffic.

The weight: SIGUSR1 makes l3bondd rewrite its status file (by rename);
we wait for the new file (at most 40 ms) and read w_mobile from it, with
the scheduler's cumulative counts of weight changes (AWI, IWI, DWD, and
DWD held back by the DWD hold).

Stops on SIGTERM/SIGINT or after --duration seconds.
"""
import argparse
import os
import signal
import sys
import time

stop = False


def on_stop(_sig, _frm):
    global stop
    stop = True


def tx_bytes(pid, dev):
    with open(f"/proc/{pid}/net/dev") as f:
        for line in f:
            name, sep, rest = line.partition(":")
            if sep and name.strip() == dev:
                # rx: bytes packets errs drop fifo frame compressed multicast
                return int(rest.split()[8])
    raise RuntimeError(f"no device {dev} in /proc/{pid}/net/dev")


KEYS = ("w_mobile", "ing.awi", "ing.iwi", "ing.dwd", "ing.dwd_held")


def status_keys(path):
    out = dict.fromkeys(KEYS, "")
    try:
        with open(path) as f:
            for line in f:
                k, sep, v = line.partition("=")
                if sep and k in out:
                    out[k] = v.strip()
    except OSError:
        pass
    return [out[k] for k in KEYS]


def fresh_status(pid, path):
    """Signals the daemon and returns KEYS from the rewritten file."""
    try:
        old = os.stat(path).st_mtime_ns
    except OSError:
        old = None
    try:
        os.kill(pid, signal.SIGUSR1)
    except ProcessLookupError:
        return [""] * len(KEYS)
    deadline = time.monotonic() + 0.04
    while time.monotonic() < deadline:
        try:
            if os.stat(path).st_mtime_ns != old:
                break
        except OSError:
            pass
        time.sleep(0.002)
    return status_keys(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval-ms", type=int, default=100)
    ap.add_argument("--dsl-pid", type=int, required=True)
    ap.add_argument("--lte-pid", type=int, required=True)
    ap.add_argument("--dev", default="cpe",
                    help="the links' device towards the receiving box")
    ap.add_argument("--daemon-pid", type=int, required=True)
    ap.add_argument("--status", required=True)
    ap.add_argument("--duration", type=float, default=3600)
    ap.add_argument("--ready-file",
                    help="created once the first counters are read")
    a = ap.parse_args()

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    ivl = a.interval_ms / 1000.0
    out = open(a.out, "w", buffering=1)
    out.write("time,dsl_bytes,lte_bytes,dsl_mbit,lte_mbit,w_mobile,awi,iwi,"
              "dwd,dwd_held\n")
    d0 = tx_bytes(a.dsl_pid, a.dev)
    l0 = tx_bytes(a.lte_pid, a.dev)
    t0 = time.monotonic()
    prev = (t0, d0, l0)
    if a.ready_file:
        open(a.ready_file, "w").close()
    end = t0 + a.duration
    n = 0
    while not stop:
        n += 1
        nxt = t0 + n * ivl
        if nxt > end:
            break
        while not stop:
            left = nxt - time.monotonic()
            if left <= 0:
                break
            time.sleep(left)
        if stop:
            break
        now = time.monotonic()
        wall = time.time()
        d = tx_bytes(a.dsl_pid, a.dev)
        l = tx_bytes(a.lte_pid, a.dev)
        dt = now - prev[0]
        st = fresh_status(a.daemon_pid, a.status)
        out.write("%.4f,%d,%d,%.3f,%.3f,%s\n" % (
            wall, d, l, (d - prev[1]) * 8 / dt / 1e6,
            (l - prev[2]) * 8 / dt / 1e6, ",".join(st)))
        prev = (now, d, l)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
