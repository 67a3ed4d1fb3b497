#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The paper's experiments (sections 5.2-5.4 of "Multipath bonding at
# Layer 3") on the namespace testbed with both daemons real, downstream
# srv -> cli.  One testbed for the whole set; both daemons restarted with
# fresh state for every cell; each cell's traffic runs under the machine's
# heavy-run lock.  See tests/paper/README.md.
#
# usage: tests/paper/run.sh [--quick] [--only REGEX] [--out DIR] [--build DIR]
#   --quick   one cell: the ramp with k 0.5, T_dwd 250 ms (about a minute)
#   --only    only the cells whose name matches (grep -E), e.g. 'tcp|hold0';
#             the report covers every cell folder in DIR, old ones included
#   --out     output folder (default out/paper)
#   --build   build directory with l3bondd, l3bond-sim, the test tools
#             (default build)
# The full set waits before each cell up to PAPER_QUIET_S seconds (60) for
# the testbeds of other runs on the machine to go (0: no wait).
# Writes DIR/<cell>/{run.csv,plot.png,summary.json,...} and DIR/report.md.
# Exit 0 when every cell ran, 1 on a failure, 77 when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0
only=
out=$root/out/paper
PAPER_BUILD=$root/build
cmdline="$0 $*"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--only)
		only=${2:?--only needs a pattern}
		shift
		;;
	--out)
		out=${2:?--out needs a folder}
		shift
		;;
	--build)
		PAPER_BUILD=${2:?--build needs a folder}
		shift
		;;
	-h | --help)
		sed -n '2,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "run.sh: unknown option '$1' (see --help)" >&2
		exit 2
		;;
	esac
	shift
done
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces)"
	exit 77
fi
for tool in ip tc iptables python3 gnuplot flock; do
	if ! command -v "$tool" >/dev/null; then
		echo "run.sh: $tool not found (scripts/deps.sh installs it)" >&2
		exit 1
	fi
done
mkdir -p "$out"
PAPER_OUT=$(cd "$out" && pwd)
PAPER_BUILD=$(cd "$PAPER_BUILD" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"
if [ ! -x "$L3BONDD" ]; then
	echo "run.sh: no l3bondd in $PAPER_BUILD (build first)" >&2
	exit 1
fi

# The cells: NAME KIND K T_DWD W_MOBILE_MAX DWD_HOLD PROFILE DURATION
cells=()
if [ "$quick" = 1 ]; then
	cells+=("ramp-k0.5-dwd250 ramp 0.5 250 45 3 paper 40")
else
	for k in 0.1 0.5 1; do
		for dwd in 50 250 500; do
			cells+=("ramp-k$k-dwd$dwd ramp $k $dwd 45 3 paper 40")
		done
	done
	cells+=("ramp-k0.5-dwd250-hold0 ramp 0.5 250 45 0 paper 40")
	cells+=("flows-k0.5-dwd250 flows 0.5 250 45 3 $here/flows-fig4.txt 70")
	tcp_end=$(($(paper_flows_end "$here/tcp-fig6.txt" | cut -d. -f1) + 5))
	for dwd in 50 500 1000; do
		cells+=("tcp-k1-dwd$dwd tcp 1 $dwd 50 3 $here/tcp-fig6.txt $tcp_end")
	done
	# the paper's exact algorithm at both ends of its T_dwd range: the DWD
	# hold reacts to the queue TCP keeps on the DSL
	for dwd in 50 1000; do
		cells+=("tcp-k1-dwd$dwd-hold0 tcp 1 $dwd 50 0 $here/tcp-fig6.txt $tcp_end")
	done
	# before each cell, wait up to this long for other runs' testbeds to go
	PAPER_QUIET_S=${PAPER_QUIET_S:-60}
fi

if [ -n "$only" ]; then
	sel=()
	for c in "${cells[@]}"; do
		if grep -qE -- "$only" <<<"${c%% *}"; then
			sel+=("$c")
		fi
	done
	if [ ${#sel[@]} -eq 0 ]; then
		echo "run.sh: no cell matches '$only'" >&2
		exit 2
	fi
	cells=("${sel[@]}")
fi

start=$EPOCHSECONDS
elapsed() {
	local s=$((EPOCHSECONDS - start))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}

# Progress inside a cell: a line every 10 s.
paper_tick() {
	local dir=$1 t=$2
	[ $((t % 10)) -eq 0 ] || return 0
	awk -F, -v t="$t" 'NR > 1 { d = $4; l = $5; w = $6 }
		END { printf "      t=%3d s  DSL %5.1f  LTE %5.1f Mbit/s  w_mobile %s\n", t, d, l, w }' \
		"$dir/sampler.csv"
}

echo "== the paper's experiments on the real daemons: ${#cells[@]} cell(s), output $PAPER_OUT"
echo "   testbed: DSL 64 Mbit/s 13 ms, LTE 60 Mbit/s 25-45 ms; w_fixed 50, t_report 50 ms"
rm -f "$PAPER_OUT/report.md" "$PAPER_OUT/report.env"
paper_testbed
i=0
for c in "${cells[@]}"; do
	i=$((i + 1))
	read -r name kind k dwd wmax hold prof dur <<<"$c"
	echo "[$i/${#cells[@]}] $name: k $k, T_dwd $dwd ms, w_mobile_max $wmax, dwd_hold_ms $hold, ${dur} s of traffic (elapsed $(elapsed))"
	paper_cell "$name" "$kind" "$k" "$dwd" "$wmax" "$hold" "$prof" "$dur"
	echo "      -> $(cat "$PAPER_OUT/$name/summary.txt")  [$PAPER_OUT/$name/plot.png]"
done
paper_stop_daemons

{
	echo "COMMAND=${PAPER_COMMAND:-$cmdline}"
	echo "MACHINE=$(uname -sr), $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $( . /etc/os-release && echo "$PRETTY_NAME")"
	echo "STARTED=$(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC')"
	echo "ELAPSED=$(elapsed) (min:s)"
	echo "CELLS_RUN=${#cells[@]}"
} >"$PAPER_OUT/report.env"
python3 "$here/analyse.py" report "$PAPER_OUT"
echo "== done in $(elapsed): $PAPER_OUT/report.md"
