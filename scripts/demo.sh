#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The main job of the quick start: the paper's experiment on the real
# daemons.  Installs what it needs (scripts/deps.sh) and builds (build/),
# brings up the two-box testbed in network namespaces (tests/netns/lib.sh:
# DSL 64 Mbit/s 13 ms, LTE 60 Mbit/s 25-45 ms), starts l3bondd on the CPE
# and on the concentrator with k 0.5 and T_dwd 250 ms, and sends the
# paper's single UDP flow downstream (63 -> 105 -> 63 Mbit/s over 40 s,
# 1492-byte packets).  Once a second it prints the per-path line rates,
# w_mobile and the loss so far; then it writes the plot, prints the
# summary next to the paper's and the simulator's figures, and removes the
# testbed (also on Ctrl-C or failure).  About 50 s once built.
#
# usage: scripts/demo.sh [--out DIR]      (default out/demo)
#        L3B_BUILD_DIR=DIR scripts/demo.sh  (an existing build instead of build/)
# The simulator's demo (the whole k x T_dwd grid in a second): sim/demo.sh.
# All the paper's experiments, with a report: scripts/paper.sh.
set -Eeuo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/.."
root=$(pwd)
out=$root/out/demo
case ${1:-} in
--out)
	out=${2:?--out needs a folder}
	;;
"") ;;
*)
	echo "usage: scripts/demo.sh [--out DIR]" >&2
	exit 2
	;;
esac

# shellcheck source-path=SCRIPTDIR source=lib.sh
source scripts/lib.sh
as_root "$self" "$@"
build_for_run
PAPER_BUILD=$L3B_BUILD

mkdir -p "$out"
PAPER_OUT=$(cd "$out" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/paper/lib.sh
source tests/paper/lib.sh

# Once a second: the last second's mean line rates (at the links' tbfs),
# the sending daemon's w_mobile and the receiver's loss so far.
paper_tick() {
	local dir=$1 t=$2
	awk -F, -v t="$t" '
		FNR == 1 { next }
		FILENAME ~ /sampler/ { n++; d[n % 10] = $4; l[n % 10] = $5; w = $6 }
		FILENAME ~ /rx/ { pk += $3; lost = $4 }
		END {
			m = n < 10 ? n : 10
			for (i = 0; i < m; i++) { sd += d[i]; sl += l[i] }
			if (m) { sd /= m; sl /= m }
			printf "t=%3d s   DSL %5.1f Mbit/s   LTE %5.1f Mbit/s   w_mobile %5.1f   loss %.2f %% (%d of %d)\n",
				t, sd, sl, w, pk + lost ? lost * 100 / (pk + lost) : 0, lost, pk + lost
		}' "$dir/sampler.csv" "$dir/rx.csv"
}

echo "== testbed: cli - cpe =DSL 64 Mbit/s 13 ms / LTE 60 Mbit/s 25-45 ms= conc - srv"
paper_testbed
echo "== l3bondd on cpe and conc: k 0.5, T_dwd 250 ms, w_fixed 50, w_mobile_max 45, t_report 50 ms"
echo "== the paper's ramp, srv -> cli: 63 -> 105 -> 63 Mbit/s over 40 s (DSL and LTE: line rates incl. tunnel overhead)"
paper_cell ramp-k0.5-dwd250 ramp 0.5 250 45 3 paper 40
paper_stop_daemons

dir=$PAPER_OUT/ramp-k0.5-dwd250
python3 - "$dir/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sim = s.get("sim", {})
f = lambda v, n=1: "n/a" if v is None else "%.*f" % (n, v)
print()
print("== result (k 0.5, T_dwd 250 ms)      loss %       DSL utilisation %   LTE share %")
print("   l3bond, real daemons          %8s %18s %14s" % (
    f(s["loss_pct"], 2), f(s["dsl_util_pct"]), f(s["lte_share_pct"])))
print("   l3bond-sim, same settings     %8s %18s %14s" % (
    f(sim.get("loss_pct"), 2), f(sim.get("fixed_util_pct")),
    f(sim.get("mobile_share_pct"))))
print("   the paper (section 5.2)       %8s %18s %14s" % (
    f(s["paper_loss_pct"], 2), "n/a", "n/a"))
print("   (%d of %d packets lost, %d reordered, one-way delay p50 %s ms, "
      "p99 %s ms)" % (s["lost"], s["expected"], s["reordered"],
                      f(s["delay_p50_ms"], 0), f(s["delay_p99_ms"], 0)))
PY
echo
echo "plot: $dir/plot.png   (per-path throughput, w_mobile and losses over time, like the paper's Figure 3)"
echo "data: $dir/run.csv    (per 100 ms)"
