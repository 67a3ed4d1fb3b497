#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Regression: the paper's k x T_dwd grid in the simulator.
#
# 1. With the paper's algorithm (--queue-target-ms 0), the paper's trends
#    ("Multipath bonding at Layer 3", 5.2) hold:
#    - in every T_dwd column, loss at k = 0.1 is above loss at k = 1;
#    - loss at k = 0.1 is above 1 % in every column;
#    - at k = 0.5, T_dwd = 250 ms the fixed path is at least 90 % utilised
#      while the offered load is at or above its capacity.
# 2. With l3bond's defaults (the queue target on), the product's targets
#    hold: loss at most 0.25 % (half the paper's 0.53 % at k 0.5 / 250) in
#    every cell, and at k = 0.5, T_dwd = 250 ms the fixed path at least
#    95 % utilised.  Loss no longer falls as k rises: with the queueing
#    delay as a signal the bond engages before the fixed line drops, so
#    what loss remains (0 to 0.03 % here) is no longer k's doing.
# Both runs: 9 cells, releases in order, each sweep under 60 s.
# usage: tests/sim/paper_grid.sh PATH/TO/l3bond-sim
set -euo pipefail

sim=${1:?usage: $0 PATH/TO/l3bond-sim}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# check MODE: reads the sweep TSV in $out
check() {
	awk -F'\t' -v mode="$1" '
function fail(msg) { print "FAIL (" mode "): " msg > "/dev/stderr"; bad = 1 }
NR == 1 {
	for (i = 1; i <= NF; i++)
		col[$i] = i
	split("k t_dwd_ms loss_pct fixed_util_pct order_errors", want, " ")
	for (i in want)
		if (!(want[i] in col))
			fail("column " want[i] " missing")
	next
}
{
	k = $col["k"]; d = $col["t_dwd_ms"]
	loss[k, d] = $col["loss_pct"]; util[k, d] = $col["fixed_util_pct"]
	if ($col["order_errors"] != 0)
		fail("k " k " T_dwd " d ": " $col["order_errors"] " releases out of order")
	cells++
}
END {
	if (cells != 9)
		fail("expected 9 cells, got " cells)
	split("50 250 500", dwd, " ")
	for (i = 1; i <= 3; i++) {
		d = dwd[i]
		if (mode == "paper" && !(loss["0.1", d] + 0 > loss["1", d] + 0))
			fail("T_dwd " d ": loss at k=0.1 (" loss["0.1", d] \
			     "%) not above loss at k=1 (" loss["1", d] "%)")
		split("0.1 0.5 1", ks, " ")
		for (j = 1; j <= 3; j++)
			if (mode == "l3bond" && !(loss[ks[j], d] + 0 <= 0.25))
				fail("k=" ks[j] " T_dwd=" d ": loss " \
				     loss[ks[j], d] "% > 0.25%")
		if (mode == "paper" && !(loss["0.1", d] + 0 > 1))
			fail("T_dwd " d ": loss at k=0.1 is " loss["0.1", d] \
			     "%, not above 1%")
	}
	if (mode == "paper" && !(util["0.5", "250"] + 0 >= 90))
		fail("k=0.5 T_dwd=250: fixed-path utilisation " \
		     util["0.5", "250"] "% < 90%")
	if (mode == "l3bond" && !(util["0.5", "250"] + 0 >= 95))
		fail("k=0.5 T_dwd=250: fixed-path utilisation " \
		     util["0.5", "250"] "% < 95%")
	if (bad)
		exit 1
	print "PASS (" mode "): k=0.5 T_dwd=250: loss " loss["0.5", "250"] \
	      "%, fixed utilisation " util["0.5", "250"] "%"
}' "$out"
}

status=0
for mode in paper l3bond; do
	args=()
	[ $mode = paper ] && args=(--queue-target-ms 0 --t-lto-ms 50)
	start=$(date +%s)
	if ! timeout 60 "$sim" --sweep paper --format tsv "${args[@]}" >"$out"; then
		echo "FAIL ($mode): l3bond-sim --sweep paper failed or took over 60 s" >&2
		exit 1
	fi
	echo "== $mode (${args[*]:-defaults}), sweep took $(($(date +%s) - start)) s"
	column -t -s $'\t' "$out" 2>/dev/null || cat "$out"
	check $mode || status=1
done
exit $status
