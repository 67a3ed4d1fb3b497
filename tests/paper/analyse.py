#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The paper's experiments: turn one run's raw files into its CSV and
summary (merge), and all runs into the markdown report (report).

  analyse.py merge RUNDIR   reads RUNDIR/meta.env (written by lib.sh),
                            sampler.csv, rx.csv, rx.json, [tcp.csv],
                            offered.txt, [sim.txt]; writes RUNDIR/run.csv
                            (one row per 100 ms) and RUNDIR/summary.json
  analyse.py report OUTDIR  reads OUTDIR/*/summary.json and run.csv,
                            writes OUTDIR/report.md

Rates: dsl_mbit and lte_mbit are line rates, the bytes the link's tbf
sent towards the cpe (Ethernet frames: tunnel overhead and both fragments
of a 1556-byte outer packet included), so the DSL line tops out at exactly
its tbf rate.  offered_mbit, rx_mbit and inorder_mbit count the inner IPv4
packets (1492 bytes each), as the paper's sender and receiver do.
Everything computed here comes from the measured files: no figure is
written in advance, except the paper's own numbers (PAPER_LOSS).
"""
import csv
import json
import math
import os
import sys

# "Multipath bonding at Layer 3", section 5.2 (its loss figures for the
# single-flow ramp, k x T_dwd; the paper gives them in the text of 5.2).
PAPER_LOSS = {
    (0.1, 50): 6.25, (0.1, 250): 4.72, (0.1, 500): 4.1,
    (0.5, 50): 1.79, (0.5, 250): 0.53, (0.5, 500): 0.34,
    (1.0, 50): 1.14, (1.0, 250): 0.29, (1.0, 500): 0.15,
}

BIN = 0.1  # seconds per row
COLS = ["t_s", "offered_mbit", "dsl_mbit", "lte_mbit", "rx_mbit",
        "inorder_mbit", "lost_pkts", "lost_total", "w_mobile", "tcp_mbit",
        "dsl_cap_mbit", "offered_line_mbit", "awi", "dwd", "dwd_held"]


def line_bytes(size, overhead=64, mtu=1500, eth=14):
    """Bytes on the emulated line for one inner packet of size bytes."""
    outer = size + overhead
    frags = 1 if outer <= mtu else math.ceil((outer - 20) / (mtu - 20))
    return outer + 20 * (frags - 1) + eth * frags


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def read_steps(path):
    """'SECONDS MBIT' lines: the offered rate is MBIT from SECONDS on."""
    steps = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) >= 2:
                steps.append((float(line[0]), float(line[1])))
    steps.sort()
    return steps


def rate_at(steps, t, end):
    if t < 0 or t >= end:
        return 0.0
    r = 0.0
    for s, v in steps:
        if s <= t:
            r = v
        else:
            break
    return r


def fnum(v, default=None):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def sim_summary(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[0] in ("loss_pct", "fixed_util_pct",
                                        "mobile_share_pct"):
                out[p[0]] = float(p[1])
    return out


def merge(rundir):
    env = read_env(os.path.join(rundir, "meta.env"))
    t0 = float(env["T0"])
    size = int(env.get("SIZE", "1492"))
    dur = float(env["DURATION"])
    dsl_cap = float(env.get("DSL_RATE", "64"))
    lb = line_bytes(size)
    steps = read_steps(os.path.join(rundir, "offered.txt"))

    rows = {}

    def row(i):
        if i not in rows:
            rows[i] = {c: "" for c in COLS}
            rows[i]["t_s"] = "%.1f" % (i * BIN)
        return rows[i]

    with open(os.path.join(rundir, "sampler.csv")) as f:
        for r in csv.DictReader(f):
            i = round((float(r["time"]) - t0) / BIN)
            if i < 1:
                continue
            x = row(i)
            x["dsl_mbit"] = r["dsl_mbit"]
            x["lte_mbit"] = r["lte_mbit"]
            x["w_mobile"] = r["w_mobile"]
            x["_cum"] = [fnum(r.get(k)) for k in ("awi", "dwd", "dwd_held")]
    last = max(rows) if rows else 0
    # the scheduler's counters: events per interval
    prev = None
    for i in sorted(rows):
        cum = rows[i].pop("_cum", None)
        if cum and prev and None not in cum and None not in prev:
            for name, a, b in zip(("awi", "dwd", "dwd_held"), cum, prev):
                rows[i][name] = "%d" % (a - b)
        if cum:
            prev = cum

    rx_t0 = float(env["RX_T0"])
    prev_lost = 0
    prev_reord = 0
    with open(os.path.join(rundir, "rx.csv")) as f:
        for r in csv.DictReader(f):
            lost = int(r["lost"])
            reord = int(r["reordered"])
            i = round((rx_t0 + float(r["t_s"]) - t0) / BIN)
            pkts = int(r["pkts"])
            if 1 <= i <= last:
                x = row(i)
                x["rx_mbit"] = r["mbit_s"]
                inord = max(pkts - (reord - prev_reord), 0)
                x["inorder_mbit"] = "%.3f" % (inord * size * 8 / BIN / 1e6)
                x["lost_pkts"] = str(lost - prev_lost)
                x["lost_total"] = str(lost)
            prev_lost, prev_reord = lost, reord

    tcp_csv = os.path.join(rundir, "tcp.csv")
    if os.path.exists(tcp_csv) and env.get("TCP_T0"):
        tcp_t0 = float(env["TCP_T0"])
        with open(tcp_csv) as f:
            for r in csv.DictReader(f):
                i = round((tcp_t0 + float(r["t_s"]) - t0) / BIN)
                if 1 <= i <= last:
                    row(i)["tcp_mbit"] = r["mbit_s"]

    for i in range(1, last + 1):
        x = row(i)
        # mean offered rate over the bin [t - BIN, t)
        t = i * BIN
        o = sum(rate_at(steps, t - BIN + (j + 0.5) * BIN / 10, dur)
                for j in range(10)) / 10
        x["offered_mbit"] = "%.3f" % o
        x["offered_line_mbit"] = "%.3f" % (o * lb / size)
        x["dsl_cap_mbit"] = "%g" % dsl_cap
    with open(os.path.join(rundir, "run.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLS)
        for i in range(1, last + 1):
            w.writerow([rows[i][c] for c in COLS])

    with open(os.path.join(rundir, "rx.json")) as f:
        rx = json.load(f)
    data = [rows[i] for i in range(1, last + 1)]
    busy = [x for x in data
            if fnum(x["t_s"]) <= dur and fnum(x["dsl_mbit"]) is not None
            and fnum(x["offered_line_mbit"]) >= dsl_cap]
    util = (sum(fnum(x["dsl_mbit"]) for x in busy) / len(busy) / dsl_cap
            * 100) if busy else None
    # Bytes of the run: until the sender stopped, plus 1 s of drain.
    run = [x for x in data if fnum(x["t_s"]) <= dur + 1
           and fnum(x["dsl_mbit"]) is not None]
    dsl_sum = sum(fnum(x["dsl_mbit"]) for x in run)
    lte_sum = sum(fnum(x["lte_mbit"]) for x in run)
    tcp_sum = sum(fnum(x["tcp_mbit"], 0) for x in run)
    s = {
        "name": env.get("NAME"), "kind": env.get("KIND"),
        "k": fnum(env.get("K")), "t_dwd_ms": int(env.get("DWD", 0)),
        "w_mobile_max": fnum(env.get("WMAX")),
        "dwd_hold_ms": int(env.get("HOLD", 0)),
        "duration_s": dur, "wall_s": fnum(env.get("WALL_S")),
        "wait_s": fnum(env.get("WAIT_S")),
        "loss_pct": rx["loss_pct"], "lost": rx["lost"],
        "expected": rx["expected"], "reordered": rx["reordered"],
        "duplicates": rx["duplicates"], "corrupted": rx["corrupted"],
        "delay_p50_ms": rx["delay_p50_ms"], "delay_p99_ms": rx["delay_p99_ms"],
        "dsl_util_pct": util, "util_bins": len(busy),
        "lte_share_pct": lte_sum / (dsl_sum + lte_sum) * 100
        if dsl_sum + lte_sum > 0 else None,
        "lte_share_udp_pct": lte_sum / (dsl_sum - tcp_sum + lte_sum) * 100
        if dsl_sum - tcp_sum + lte_sum > 0 else None,
        "tbf_check": env.get("TBF_CHECK", ""),
        "sim": sim_summary(os.path.join(rundir, "sim.txt")),
        "paper_loss_pct": PAPER_LOSS.get(
            (fnum(env.get("K")), int(env.get("DWD", 0))))
        if env.get("KIND") == "ramp" else None,
        "status": {k[7:]: v for k, v in env.items() if k.startswith("STATUS_")},
        "load_start": env.get("LOAD_START", ""),
        "load_end": env.get("LOAD_END", ""),
        "tbf_drops": [int(env.get("DSL_TBF_DROPS") or 0),
                      int(env.get("LTE_TBF_DROPS") or 0)],
    }
    held = sum(fnum(x["dwd_held"], 0) for x in data)
    dwd = sum(fnum(x["dwd"], 0) for x in data)
    # loss-free reports after T_dwd that the DWD hold kept from
    # decrementing w_mobile (l3bond's addition; 0 with dwd_hold_ms 0)
    s["dwd_held_pct"] = held / (held + dwd) * 100 if held + dwd else None
    # ... and those of them while the DSL was under-used although the
    # demand exceeded it: there the hold costs DSL utilisation
    under = [x for x in busy if fnum(x["dsl_mbit"]) < 0.95 * dsl_cap]
    uh = sum(fnum(x["dwd_held"], 0) for x in under)
    ud = sum(fnum(x["dwd"], 0) for x in under)
    s["under_s"] = len(under) * BIN
    s["under_held"] = int(uh)
    s["under_dwd"] = int(ud)
    st = s["status"]
    # Where the lost packets went: the cpe's egress counts losses per path
    # (sequence gaps: the link dropped them) and packets that came so long
    # after their hole had been given up that their slot was reused (too
    # old, dropped; a packet merely late, reordered beyond the timeout, is
    # released out of order: egr.late, not a loss).
    s["lost_dsl"] = int(st.get("cpe.path.dsl.data_lost") or 0)
    s["lost_lte"] = int(st.get("cpe.path.lte.data_lost") or 0)
    s["lost_late"] = int(st.get("cpe.egr.too_old") or 0)
    with open(os.path.join(rundir, "summary.json"), "w") as f:
        json.dump(s, f, indent=1)
    return s


# --- report ------------------------------------------------------------


def load_runs(outdir):
    runs = []
    for d in sorted(os.listdir(outdir)):
        p = os.path.join(outdir, d, "summary.json")
        if os.path.exists(p):
            with open(p) as f:
                s = json.load(f)
            s["dir"] = d
            with open(os.path.join(outdir, d, "run.csv")) as f:
                s["rows"] = list(csv.DictReader(f))
            runs.append(s)
    order = {"ramp": 0, "flows": 1, "tcp": 2}
    runs.sort(key=lambda r: (order.get(r["kind"], 3), r["k"] or 0,
                             -(r["dwd_hold_ms"] or 0), r["t_dwd_ms"]))
    return runs


def busy(r):
    a = (r.get("load_start") or "? ?").split()
    b = (r.get("load_end") or "? ?").split()
    return "%s-%s, %s-%s" % (a[0], b[0], a[-1], b[-1])


def f1(v, nd=1):
    return "n/a" if v is None else ("%.*f" % (nd, v))


def mean(vals):
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def col(rows, name, t1, t2):
    return [fnum(r[name]) for r in rows if t1 < fnum(r["t_s"]) <= t2]


def changes(rows):
    """Times where the offered rate changes by more than 1 Mbit/s."""
    out = []
    prev = None
    for r in rows:
        o = fnum(r["offered_mbit"])
        if prev is not None and abs(o - prev) > 1:
            out.append((fnum(r["t_s"]) - BIN, prev, o))
        prev = o
    return out


def ramp_section(runs, md):
    ramp = [r for r in runs if r["kind"] == "ramp"]
    if not ramp:
        return
    md.append("## 1. One UDP flow, the ramp (the paper's Figure 3 and its "
              "loss figures)\n")
    md.append("63 -> 105 -> 63 Mbit/s over 40 s, 1492-byte packets, "
              "downstream srv -> cli; w_fixed 50, t_report 50 ms, "
              "w_mobile_max 45.  Loss: packets the receiver never got / "
              "packets sent.  DSL utilisation: bytes the DSL tbf sent / its "
              "capacity, over the 100-ms intervals where the offered load "
              "(with tunnel overhead) is at least the DSL rate.  LTE share: "
              "LTE line bytes / all line bytes.  Simulator: `l3bond-sim "
              "--profile ramp` with the same k, T_dwd, w_mobile_max and DWD "
              "hold.  Paper: section 5.2.\n")
    md.append("| cell | loss % | DSL util % | LTE share % | sim loss % | "
              "sim DSL util % | paper loss % | lost on DSL / LTE / late | "
              "DWD held % | delay p50/p99 ms | load, other testbeds | plot |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ramp:
        cell = "k %g, T_dwd %d ms" % (r["k"], r["t_dwd_ms"])
        if r["dwd_hold_ms"] == 0:
            cell += ", dwd_hold_ms 0 (the paper's algorithm)"
        md.append("| %s | **%s** | **%s** | %s | %s | %s | %s | %d / %d / %d "
                  "| %s | %s / %s | %s | [png](%s/plot.png) |" % (
                      cell, f1(r["loss_pct"], 2), f1(r["dsl_util_pct"]),
                      f1(r["lte_share_pct"]),
                      f1(r["sim"].get("loss_pct"), 2),
                      f1(r["sim"].get("fixed_util_pct")),
                      f1(r["paper_loss_pct"], 2), r["lost_dsl"],
                      r["lost_lte"], r["lost_late"],
                      f1(r.get("dwd_held_pct"), 0),
                      f1(r["delay_p50_ms"], 0), f1(r["delay_p99_ms"], 0),
                      busy(r), r["dir"]))
    md.append("")
    md.append("Lost on DSL / LTE: sequence gaps the cpe's egress saw on "
              "that path (the link's tbf queue overflowed); late: packets "
              "that arrived so long after the egress had given their hole "
              "up that they were dropped (egr.too_old; one less late is "
              "released out of order).  DWD held: of the loss-free reports after T_dwd, "
              "the share in which l3bond's DWD hold kept w_mobile from "
              "falling because the egress saw the DSL queue more than "
              "dwd_hold_ms (the smallest queueing delay of the report interval: a standing queue).  "
              "Load: the machine's 1-minute load average "
              "when the cell's traffic started and ended, and how many "
              "other testbeds (other runs on this shared machine) existed "
              "then.\n")
    obs = []
    main = [r for r in ramp if r["dwd_hold_ms"] != 0]
    if main:
        best = min(main, key=lambda r: r["loss_pct"])
        worst = max(main, key=lambda r: r["loss_pct"])
        obs.append("Lowest loss: k %g / T_dwd %d ms at %.2f %%; highest: "
                   "k %g / T_dwd %d ms at %.2f %%." % (
                       best["k"], best["t_dwd_ms"], best["loss_pct"],
                       worst["k"], worst["t_dwd_ms"], worst["loss_pct"]))
        beat = [r for r in main if r["paper_loss_pct"] is not None
                and r["loss_pct"] <= r["paper_loss_pct"]]
        withp = [r for r in main if r["paper_loss_pct"] is not None]
        obs.append("At or below the paper's loss in %d of %d cells%s." % (
            len(beat), len(withp),
            "" if len(beat) == len(withp) else "; above it in: " + ", ".join(
                "k %g / T_dwd %d (%.2f vs %.2f %%)" % (
                    r["k"], r["t_dwd_ms"], r["loss_pct"], r["paper_loss_pct"])
                for r in withp if r not in beat)))
        u = [r["dsl_util_pct"] for r in main if r["dsl_util_pct"] is not None]
        if u:
            obs.append("DSL utilisation while demand exceeds it: %.1f-%.1f %%"
                       " over the cells (>= 95 %% in %d of %d)." % (
                           min(u), max(u), sum(1 for v in u if v >= 95),
                           len(u)))
        for k in sorted({r["k"] for r in main}):
            row = sorted((r for r in main if r["k"] == k),
                         key=lambda r: r["t_dwd_ms"])
            if len(row) > 1:
                obs.append("k %g: loss %s %% and LTE share %s %% for T_dwd %s"
                           " ms." % (k, " / ".join(
                               "%.2f" % r["loss_pct"] for r in row),
                               " / ".join(f1(r["lte_share_pct"])
                                          for r in row),
                               " / ".join(str(r["t_dwd_ms"]) for r in row)))
        sims = [r for r in main if r["sim"].get("loss_pct") is not None]
        if sims:
            d = [r["loss_pct"] - r["sim"]["loss_pct"] for r in sims]
            obs.append("Measured minus simulated loss: %+.2f to %+.2f "
                       "percentage points (mean %+.2f)." % (
                           min(d), max(d), mean(d)))
        # oscillation of w_mobile during the hold phase (15-25 s)
        for r in main:
            w = [v for v in col(r["rows"], "w_mobile", 15, 25)
                 if v is not None]
            if w:
                r["_wspread"] = (min(w), max(w))
        osc = [r for r in main if "_wspread" in r]
        if osc:
            obs.append("w_mobile during the 105 Mbit/s hold (15-25 s), min-"
                       "max: " + "; ".join(
                           "k %g/%d: %.0f-%.0f" % (
                               r["k"], r["t_dwd_ms"], *r["_wspread"])
                           for r in osc) + ".")
        und = [r for r in main if r.get("under_s")]
        if und:
            obs.append("Time with the DSL under 95 % although demand "
                       "exceeded it, and the DWD steps the hold blocked "
                       "then (held / held + taken): " + "; ".join(
                           "k %g/%d: %.1f s, %d/%d" % (
                               r["k"], r["t_dwd_ms"], r["under_s"],
                               r.get("under_held", 0),
                               r.get("under_held", 0) + r.get("under_dwd", 0))
                           for r in und) + ".")
    hold0 = [r for r in ramp if r["dwd_hold_ms"] == 0]
    for h in hold0:
        twin = [r for r in main if r["k"] == h["k"]
                and r["t_dwd_ms"] == h["t_dwd_ms"]]
        if twin:
            t = twin[0]
            obs.append("The paper's exact algorithm (dwd_hold_ms 0) at k %g /"
                       " T_dwd %d: loss %.2f %% vs %.2f %% with the DWD hold, "
                       "DSL %s %% vs %s %%, LTE share %s %% vs %s %%." % (
                           h["k"], h["t_dwd_ms"], h["loss_pct"],
                           t["loss_pct"], f1(h["dsl_util_pct"]),
                           f1(t["dsl_util_pct"]), f1(h["lte_share_pct"]),
                           f1(t["lte_share_pct"])))
    md.append("Observations (computed from the runs):\n")
    md.extend("- " + o for o in obs)
    md.append("")


def settle_time(rows, t_from, t_to, target, tol):
    """Seconds after t_from until the LTE rate (1-s moving mean) first
    comes within tol of target in [t_from, t_to]; None if it never does."""
    pts = [(fnum(r["t_s"]), fnum(r["lte_mbit"])) for r in rows
           if t_from < fnum(r["t_s"]) <= t_to
           and fnum(r["lte_mbit"]) is not None]
    sm = []
    for i in range(len(pts)):
        win = [v for _, v in pts[max(0, i - 9):i + 1]]
        sm.append((pts[i][0], sum(win) / len(win)))
    for t, v in sm[9:]:
        if abs(v - target) <= tol:
            return t - t_from
    return None


def flows_section(runs, md, line_factor):
    fl = [r for r in runs if r["kind"] == "flows"]
    if not fl:
        return
    md.append("## 2. UDP flows switching on and off (the paper's Figures 4 "
              "and 5)\n")
    for r in fl:
        rows = r["rows"]
        md.append("k %g, T_dwd %d ms, w_mobile_max %g, dwd_hold_ms %d.  "
                  "Loss %.2f %% (%d of %d packets; on DSL / LTE / late: "
                  "%d / %d / %d), reordered %d, DSL utilisation while demand "
                  "exceeds it %s %%, LTE share %s %%, DWD held %s %%; "
                  "simulator: loss %s %%, DSL %s %%.  Load %s.  "
                  "[plot](%s/plot.png)\n" % (
                      r["k"], r["t_dwd_ms"], r["w_mobile_max"],
                      r["dwd_hold_ms"], r["loss_pct"], r["lost"],
                      r["expected"], r["lost_dsl"], r["lost_lte"],
                      r["lost_late"], r["reordered"],
                      f1(r["dsl_util_pct"]), f1(r["lte_share_pct"]),
                      f1(r.get("dwd_held_pct"), 0),
                      f1(r["sim"].get("loss_pct"), 2),
                      f1(r["sim"].get("fixed_util_pct")), busy(r), r["dir"]))
        md.append("| change at | offered Mbit/s | lost in the next 1 s | "
                  "LTE (1 s mean) within 2 Mbit/s of the excess after | mean LTE "
                  "Mbit/s until the next change |")
        md.append("|---|---|---|---|---|")
        ch = [c for c in changes(rows) if c[0] < r["duration_s"] - 0.5]
        ends = [c[0] for c in ch[1:]] + [r["duration_s"]]
        cap = fnum(rows[0]["dsl_cap_mbit"])
        for (t, a, b), t_end in zip(ch, ends):
            lost = sum(v for v in col(rows, "lost_pkts", t, t + 1)
                       if v is not None)
            excess = max(b * line_factor - cap, 0)
            st = settle_time(rows, t, t_end, excess, 2)
            lte = mean(col(rows, "lte_mbit", t + 1, t_end))
            md.append("| %.1f s | %.1f -> %.1f | %d | %s | %s |" % (
                t, a, b, lost, "not within the phase" if st is None
                else "%.1f s" % st, f1(lte)))
        md.append("")
        ino = sum(fnum(x["inorder_mbit"], 0) for x in rows)
        rxs = sum(fnum(x["rx_mbit"], 0) for x in rows)
        md.append("Observations (computed from the run):\n")
        md.append("- In-order throughput is %.2f %% of the received "
                  "throughput (the rest arrived after a later packet)." % (
                      ino / rxs * 100 if rxs else 0))
        ups = [c for c in ch if c[2] > c[1]]
        if ups:
            bursts = [sum(v for v in col(rows, "lost_pkts", t, t + 1)
                          if v is not None) for t, _, _ in ups]
            tot = r["lost"]
            md.append("- Flow starts cost %d of the %d lost packets (first "
                      "second after each rise in demand)." % (sum(bursts),
                                                             tot))
        downs = []
        for (t, a, b), t_end in zip(ch, ends):
            if b < a:
                st = settle_time(rows, t, t_end,
                                 max(b * line_factor - cap, 0), 2)
                downs.append("%s at %.0f s" % (
                    "never" if st is None else "%.1f s" % st, t))
        if downs:
            md.append("- When demand falls, the LTE load came back to the "
                      "new excess after: " + ", ".join(downs) + ".  The "
                      "paper reports about 5 s to take 11 Mbit/s off the "
                      "LTE after its flow stopped at 12 s (Figure 5).")
        md.append("")


def tlabel(r):
    return "T_dwd %d ms%s" % (r["t_dwd_ms"], ", hold 0" if r["dwd_hold_ms"]
                              == 0 else "")


def tcp_section(runs, md):
    tc = [r for r in runs if r["kind"] == "tcp"]
    if not tc:
        return
    md.append("## 3. Greedy TCP on the DSL line with UDP through the bond "
              "(the paper's Figure 6, shortened)\n")
    md.append("TCP: one connection conc -> cpe over the DSL link only "
              "(their own addresses: not captured by the daemons), from "
              "t = 0.  UDP through the bond: 41.5 Mbit/s and 63 Mbit/s "
              "phases (below).  k 1, w_mobile_max 50.  Means per phase; "
              "the first 2 s of each phase are left out (transient).\n")
    ph = None
    for r in tc:
        ch = changes(r["rows"])
        if ph is None:
            edges = [0.0] + [c[0] for c in ch] + [r["duration_s"]]
            ph = [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)
                  if edges[i + 1] - edges[i] > 3]
    md.append("| cell | phase | UDP offered | TCP goodput | DSL line | "
              "LTE line | UDP lost | w_mobile mean |")
    md.append("|---|---|---|---|---|---|---|---|")
    sums = {}
    for r in tc:
        rows = r["rows"]
        for a, b in ph:
            tcp = mean(col(rows, "tcp_mbit", a + 2, b))
            off = mean(col(rows, "offered_mbit", a + 2, b))
            lost = sum(v for v in col(rows, "lost_pkts", a, b)
                       if v is not None)
            md.append("| %s | %.0f-%.0f s | %s | %s | %s | %s | %d | %s |"
                      % (tlabel(r), a, b, f1(off), f1(tcp),
                         f1(mean(col(rows, "dsl_mbit", a + 2, b))),
                         f1(mean(col(rows, "lte_mbit", a + 2, b))), lost,
                         f1(mean(col(rows, "w_mobile", a + 2, b)))))
            sums[(tlabel(r), a)] = (tcp, off)
    md.append("")
    md.append("| cell | UDP loss % | lost on DSL / LTE / late | LTE share "
              "of the UDP % | DWD held % | load, other testbeds | plot |")
    md.append("|---|---|---|---|---|---|---|")
    for r in tc:
        md.append("| %s | %.2f | %d / %d / %d | %s | %s | %s | [png]"
                  "(%s/plot.png) |" % (
                      tlabel(r), r["loss_pct"], r["lost_dsl"], r["lost_lte"],
                      r["lost_late"], f1(r["lte_share_udp_pct"]),
                      f1(r.get("dwd_held_pct"), 0), busy(r), r["dir"]))
    md.append("")
    md.append("Observations (computed from the runs):\n")
    for a, b in ph:
        vals = [(tlabel(r), sums.get((tlabel(r), a), (None,))[0])
                for r in tc]
        off = mean([sums.get((tlabel(r), a), (None, None))[1]
                    for r in tc])
        what = ("with %s Mbit/s of UDP" % f1(off)) if off and off > 1 \
            else "without UDP"
        md.append("- %.0f-%.0f s, %s: TCP gets %s." % (
            a, b, what, ", ".join("%s Mbit/s (%s)" % (f1(v), t)
                                  for t, v in vals)))
    md.append("")


def report(outdir):
    runs = load_runs(outdir)
    env = read_env(os.path.join(outdir, "report.env")) \
        if os.path.exists(os.path.join(outdir, "report.env")) else {}
    md = ["# l3bond: the paper's experiments on the real daemons\n"]
    md.append("Command: `%s`  " % env.get("COMMAND", "?"))
    md.append("Machine: %s  " % env.get("MACHINE", "?"))
    md.append("Started %s; this invocation ran %s cell(s) in %s; the "
              "report covers the %d cell folders of the output folder.\n" % (
                  env.get("STARTED", "?"), env.get("CELLS_RUN", "?"),
                  env.get("ELAPSED", "?"), len(runs)))
    md.append("Testbed (tests/netns/lib.sh): cli - cpe =dsl/lte= conc - srv "
              "in network namespaces, DSL 64 Mbit/s 13 ms, LTE 60 Mbit/s "
              "25-45 ms (tbf for the rate with a 50 ms queue, l3b-linkem for "
              "delay and jitter), both daemons (l3bondd) real, traffic "
              "downstream srv -> cli as in the paper.  Per-run files: "
              "`run.csv` (per 100 ms), `plot.png`, `summary.json`, the raw "
              "samples.  See tests/paper/README.md.\n")
    ramp_section(runs, md)
    flows_section(runs, md, line_bytes(1492) / 1492)
    tcp_section(runs, md)
    md.append("## Run times\n")
    md.append("| run | traffic s | waited s (other testbeds, lock) | "
              "wall s (all of the cell) |")
    md.append("|---|---|---|---|")
    for r in runs:
        md.append("| %s | %.0f | %s | %s |" % (
            r["dir"], r["duration_s"], f1(r.get("wait_s"), 0),
            f1(r["wall_s"], 0)))
    md.append("")
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("merge", "report"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "merge":
        s = merge(sys.argv[2])
        print("loss %.2f %%  DSL util %s %%  LTE share %s %%  reordered %d" % (
            s["loss_pct"], f1(s["dsl_util_pct"]), f1(s["lte_share_pct"]),
            s["reordered"]))
    else:
        report(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
