#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Draws an l3bond-sim CSV like the paper's Figure 3: per-path throughput and
# offered load over time (top), w_mobile over time (bottom).
# usage: sim/plot.sh CSV PNG [title]
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 CSV PNG [title]" >&2
	exit 2
fi
csv=$1
png=$2
title=${3:-$(basename "$csv" .csv)}

if [ ! -r "$csv" ]; then
	echo "$0: cannot read '$csv'" >&2
	exit 2
fi
command -v gnuplot >/dev/null || {
	echo "$0: gnuplot not found (scripts/deps.sh installs gnuplot-nox)" >&2
	exit 1
}
header=$(head -n 1 "$csv")
case $header in
t_s,offered_mbit,*) ;;
*)
	echo "$0: '$csv' is not an l3bond-sim CSV" >&2
	exit 2
	;;
esac

# Path columns sit between offered_mbit and inorder_mbit.
IFS=, read -r -a cols <<<"$header"
paths=()
wcol=0
for i in "${!cols[@]}"; do
	case ${cols[$i]} in
	offered_mbit | inorder_mbit | t_s | lost_pkts | reorder_*) ;;
	w_mobile) wcol=$((i + 1)) ;;
	*_mbit) paths+=("$((i + 1)):${cols[$i]%_mbit}") ;;
	esac
done

# gnuplot's enhanced text would read _ as a subscript and " ends the string
gtitle=${title//\"/}
gtitle=${gtitle//_/\\\\_}

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
	term="pngcairo size 1000,700 font 'sans,10'"
else
	term="png size 1000,700"
fi

plot="plot '$csv' using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'offered'"
colors=('#1f77b4' '#2ca02c' '#9467bd' '#8c564b' '#e377c2' '#7f7f7f')
n=0
for p in "${paths[@]}"; do
	col=${p%%:*}
	name=${p#*:}
	name=${name//_/\\\\_}
	plot+=", '' using 1:$col with lines lw 1.5 lc rgb '${colors[$((n % 6))]}' title '$name'"
	n=$((n + 1))
done

gnuplot <<GP
set terminal $term
set output '$png'
set datafile separator ','
set multiplot layout 2,1 title "$gtitle"
set grid
set key top right
set ylabel 'Mbit/s'
set size 1,0.62
set origin 0,0.36
set xlabel ''
$plot
set size 1,0.36
set origin 0,0
set xlabel 'time (s)'
set ylabel 'w\_mobile'
set yrange [0:*]
plot '$csv' using 1:$wcol with steps lw 1.5 lc rgb '#ff7f0e' title 'w\_mobile'
unset multiplot
GP
echo "$png"
