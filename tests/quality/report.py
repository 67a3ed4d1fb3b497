#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""tests/quality/report.py OUT: the quality benchmark's report.

Reads OUT/results.tsv (buffer_ms, mode, case, metric, value) written by
run.sh and the RTT samples OUT/BUF-MODE-rrul-CC.ping.txt; writes
OUT/report.md (a table per kind of case, modes side by side, with the
ratio to DSL alone where it means something) and, with gnuplot, per
buffer a goodput bar chart (OUT/goodput-BUF.png) and the CDF of the ping
RTT under the RRUL load (OUT/latency-BUF.png), in the manner of flent."""
import collections
import csv
import os
import shutil
import subprocess
import sys

out = sys.argv[1]
rows = collections.OrderedDict()
buffers, modes = [], []
with open(os.path.join(out, "results.tsv")) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        key = (r["buffer_ms"], r["case"])
        rows.setdefault(key, {}).setdefault(r["mode"], {})[r["metric"]] = \
            r["value"]
        if r["buffer_ms"] not in buffers:
            buffers.append(r["buffer_ms"])
        if r["mode"] not in modes:
            modes.append(r["mode"])


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def fmt(x, d=1):
    v = num(x)
    return "-" if v is None else "%.*f" % (d, v)


def grade(a):
    a = num(a)
    if a is None:
        return "?"
    return "A+" if a < 5 else "A" if a < 30 else "B" if a < 60 else "C"


md = ["# l3bond quality benchmark", "",
      "Namespace testbed, both daemons real: DSL 64 Mbit/s 13 ms, LTE "
      "60 Mbit/s 25 ms + 0-20 ms FIFO jitter, each direction emulated; "
      "modes: `dsl` = DSL alone (no daemon), `paper` = the paper's "
      "algorithm (queue target 0, T_lto 50 ms), `l3bond` = the defaults "
      "(the DSL's rate learned), `weights` = the defaults with `rate_auto = false`, "
      "`auto` = the defaults with `rate_auto = true` said, "
      "`rate` = "
      "the defaults with the DSL's `rate_mbit = 64` on both boxes, "
      "`norepair` = the defaults with `repair_queue_ms = 0`. "
      "`tests/quality/run.sh` says what each case does.", ""]


def table(title, kind, cols, ratio=None):
    """cols: (header, metric, digits) shown per mode."""
    keys = [k for k in rows if k[1].startswith(kind)]
    if not keys:
        return
    md.extend(["## " + title, ""])
    head = ["buffer", "case"]
    for m in modes:
        head += ["%s %s" % (m, c[0]) for c in cols]
    if ratio:
        head += ["%s / dsl" % m for m in modes if m != "dsl"]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    for b, case in keys:
        cells = [b + " ms", case]
        per = rows[(b, case)]
        for m in modes:
            for _, metric, d in cols:
                cells.append(fmt(per.get(m, {}).get(metric), d))
        if ratio:
            base = num(per.get("dsl", {}).get(ratio))
            for m in modes:
                if m == "dsl":
                    continue
                v = num(per.get(m, {}).get(ratio))
                cells.append("%.2f" % (v / base) if v is not None and base
                             else "-")
        md.append("| " + " | ".join(cells) + " |")
    md.append("")


table("TCP (iperf3), goodput in Mbit/s", "tcp",
      [("Mbit/s", "goodput_mbit", 1), ("retr", "retransmits", 0),
       ("LTE MB", "lte_mb", 0), ("DSL drops", "dsl_drops", 0),
       ("LTE drops", "lte_drops", 0)],
      ratio="goodput_mbit")
# what the sender's TCP saw: its loss recoveries (each a cut of its
# window, but those a DSACK undid) and its retransmits a DSACK showed
# spurious (the packet was late, not lost)
table("TCP: what the sender saw (recoveries, spurious retransmits)", "tcp",
      [("recov", "snd_TCPSackRecovery", 0),
       ("undone", "snd_TCPPartialUndo", 0),
       ("DSACKs", "snd_TCPDSACKRecv", 0),
       ("timeouts", "snd_TCPTimeouts", 0)])
table("Latency under the RRUL load (4 TCP down + 4 up), ms added over "
      "idle", "rrul",
      [("ping p50", "ping_added_p50_ms", 1),
       ("ping p99", "ping_added_p99_ms", 1),
       ("irtt p99", "irtt_added_p99_ms", 1),
       ("irtt up p99", "irtt_up_added_p99_ms", 1),
       ("irtt down p99", "irtt_down_added_p99_ms", 1),
       ("down", "down_mbit", 0), ("up", "up_mbit", 0)])
table("UDP: the paper's ramp and 40 Mbit/s constant", "ramp",
      [("loss %", "loss_pct", 3), ("DSL util %", "dsl_util_pct", 1),
       ("p50 ms", "delay_p50_ms", 1), ("p99 ms", "delay_p99_ms", 1)])
table("UDP: 40 Mbit/s constant (fits the DSL)", "c40",
      [("loss %", "loss_pct", 3), ("LTE share %", "lte_share_pct", 2),
       ("p99 ms", "delay_p99_ms", 1)])

table("The bed: packets its link emulators released late (delay the "
      "lines would not have had: this machine is shared)", "",
      [("% over 1 ms", "emu_late_1ms_pct", 2),
       ("over 5 ms", "emu_late_5ms", 0),
       ("most late, ms", "emu_late_max_ms", 1)])

grades = []
for (b, case), per in rows.items():
    if case.startswith("rrul"):
        for m in modes:
            g = grade(per.get(m, {}).get("ping_added_p99_ms"))
            grades.append("%s ms %s %s: %s" % (b, case, m, g))
if grades:
    md.extend(["Grades of the ping's added p99 (A+ < 5 ms, A < 30, B < 60): "
               + "; ".join(grades) + ".", ""])

plots = []
if shutil.which("gnuplot"):
    for b in buffers:
        dat = os.path.join(out, "goodput-%s.dat" % b)
        cases = [c for (bb, c) in rows if bb == b and c.startswith("tcp")]
        if cases:
            with open(dat, "w") as f:
                f.write("case " + " ".join(modes) + "\n")
                for c in cases:
                    f.write(c + " " + " ".join(
                        fmt(rows[(b, c)].get(m, {}).get("goodput_mbit"))
                        for m in modes) + "\n")
            png = os.path.join(out, "goodput-%s.png" % b)
            gp = ("set terminal png size 1000,420; set output '%s';"
                  "set title 'TCP goodput, buffer %s ms'; set style data "
                  "histograms; set style fill solid; set ylabel 'Mbit/s';"
                  "set xtics rotate by -30; set key top left; set yrange [0:*];"
                  "plot " % (png, b) + ", ".join(
                      "'%s' using %d:xtic(1) title '%s'" % (dat, i + 2, m)
                      for i, m in enumerate(modes)))
            subprocess.run(["gnuplot", "-e", gp], check=False)
            plots.append(png)
        series = []
        for m in modes:
            for cc in ("cubic", "bbr"):
                f = os.path.join(out, "%s-%s-rrul-%s.ping.txt" % (b, m, cc))
                if os.path.exists(f) and os.path.getsize(f):
                    v = sorted(float(x) for x in open(f) if x.strip())
                    cdf = f + ".cdf"
                    with open(cdf, "w") as g:
                        for i, x in enumerate(v):
                            g.write("%g %g\n" % (x, (i + 1) / len(v)))
                    series.append("'%s' using 1:2 with lines title '%s %s'"
                                  % (cdf, m, cc))
        if series:
            png = os.path.join(out, "latency-%s.png" % b)
            gp = ("set terminal png size 1000,420; set output '%s';"
                  "set title 'ping RTT under the RRUL load, buffer %s ms';"
                  "set xlabel 'RTT (ms)'; set ylabel 'CDF'; set key bottom "
                  "right; plot " % (png, b) + ", ".join(series))
            subprocess.run(["gnuplot", "-e", gp], check=False)
            plots.append(png)
if plots:
    md.extend(["## Plots", ""] + ["![](%s)" % os.path.basename(p)
                                  for p in plots] + [""])
with open(os.path.join(out, "report.md"), "w") as f:
    f.write("\n".join(md))
print("\n".join(md))
