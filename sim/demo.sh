#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The simulator demo: installs the dependencies, builds, prints the paper's
# k x T_dwd loss table next to ours, and plots the default setting
# (k = 0.5, T_dwd = 250 ms) like the paper's Figure 3.
# Output: out/sim/ramp-k0.5-dwd250.{csv,png,txt} and out/sim/grid/*.csv.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
scripts/build.sh >/dev/null
sim=build/sim/l3bond-sim
out=out/sim
mkdir -p "$out/grid"

echo "== the paper's grid, the paper's algorithm (--dwd-hold-ms 0)"
"$sim" --sweep paper --dwd-hold-ms 0
echo
echo "== the paper's grid, l3bond's defaults (DWD hold on)"
"$sim" --sweep paper --sweep-out "$out/grid"

echo
echo "== k = 0.5, T_dwd = 250 ms"
"$sim" --profile ramp --k 0.5 --t-dwd-ms 250 \
	--csv "$out/ramp-k0.5-dwd250.csv" | tee "$out/ramp-k0.5-dwd250.txt"
sim/plot.sh "$out/ramp-k0.5-dwd250.csv" "$out/ramp-k0.5-dwd250.png" \
	"l3bond-sim: ramp, k = 0.5, T_dwd = 250 ms" >/dev/null

echo
echo "files:"
echo "  $out/ramp-k0.5-dwd250.png   per-path throughput and w_mobile over time"
echo "  $out/ramp-k0.5-dwd250.csv   the same per 100 ms"
echo "  $out/ramp-k0.5-dwd250.txt   the run's summary"
echo "  $out/grid/                  one CSV per grid cell"
