# SPDX-License-Identifier: BSD-2-Clause
# tests/paper/plot.gp: one run of the paper's experiments, laid out like
# the paper's figures.  Variables (gnuplot -e): csv (run.csv of
# analyse.py), png, kind (ramp | flows | tcp), ttl (title).
#
#   ramp   Figure 3: per-link throughput with the DSL capacity (dashed
#          red, the paper's "ideal throughput for zero loss on the fixed
#          line") and the offered load; below, w_mobile and the losses.
#   flows  Figure 5: per-link throughput; offered, received and in-order
#          throughput; losses per 100 ms; w_mobile.
#   tcp    Figure 6: per-link throughput and the TCP flow's goodput;
#          UDP offered / received; losses; w_mobile.
#
# run.csv columns: 1 t_s, 2 offered_mbit, 3 dsl_mbit, 4 lte_mbit,
# 5 rx_mbit, 6 inorder_mbit, 7 lost_pkts, 8 lost_total, 9 w_mobile,
# 10 tcp_mbit, 11 dsl_cap_mbit, 12 offered_line_mbit.

# term: "pngcairo" or "png" (lib.sh picks what this gnuplot has)
if (!exists("term")) term = "pngcairo"
h = (kind eq "ramp") ? 720 : 1000
if (term eq "pngcairo") {
	set terminal pngcairo size 1100,h font "sans,10" noenhanced
} else {
	set terminal png size 1100,h noenhanced
}
set output png
set datafile separator ","
set datafile columnheaders
set grid
set key top right horizontal font ",9"
set xlabel ""
set lmargin 10
set rmargin 10

c_dsl = "#1f77b4"
c_lte = "#2ca02c"
c_off = "#7f7f7f"
c_cap = "#d62728"
c_rx = "#ff7f0e"
c_ino = "#9467bd"
c_tcp = "#8c564b"

if (kind eq "ramp") {
	set multiplot layout 2,1 title ttl font ",11"
	set size 1,0.62
	set origin 0,0.36
	set ylabel "Mbit/s"
	set yrange [0:*]
	plot csv using 1:2 with lines lw 1.5 lc rgb c_off title "offered (inner packets)", \
	     "" using 1:11 with lines lw 2 dt 2 lc rgb c_cap title "DSL capacity", \
	     "" using 1:3 with lines lw 1.5 lc rgb c_dsl title "DSL (line)", \
	     "" using 1:4 with lines lw 1.5 lc rgb c_lte title "LTE (line)"
	set size 1,0.36
	set origin 0,0
	set xlabel "time (s)"
	set ylabel "w_mobile"
	set y2label "lost packets / 100 ms"
	set y2tics
	set ytics nomirror
	set yrange [0:*]
	set y2range [0:*]
	plot csv using 1:9 with lines lw 1.5 lc rgb "black" title "w_mobile", \
	     "" using 1:7 axes x1y2 with impulses lw 1.5 lc rgb c_cap title "lost"
	unset multiplot
} else {
	set multiplot layout 4,1 title ttl font ",11"
	set ylabel "Mbit/s"
	set yrange [0:*]
	set size 1,0.32
	set origin 0,0.66
	if (kind eq "tcp") {
		plot csv using 1:11 with lines lw 2 dt 2 lc rgb c_cap title "DSL capacity", \
		     "" using 1:3 with lines lw 1.5 lc rgb c_dsl title "DSL (line, TCP + bond)", \
		     "" using 1:4 with lines lw 1.5 lc rgb c_lte title "LTE (line)", \
		     "" using 1:10 with lines lw 1.5 lc rgb c_tcp title "TCP goodput"
	} else {
		plot csv using 1:11 with lines lw 2 dt 2 lc rgb c_cap title "DSL capacity", \
		     "" using 1:3 with lines lw 1.5 lc rgb c_dsl title "DSL (line)", \
		     "" using 1:4 with lines lw 1.5 lc rgb c_lte title "LTE (line)"
	}
	set size 1,0.25
	set origin 0,0.42
	plot csv using 1:2 with lines lw 2 lc rgb c_off title "offered UDP (inner)", \
	     "" using 1:5 with lines lw 1.2 lc rgb c_rx title "received", \
	     "" using 1:6 with lines lw 1.2 dt 3 lc rgb c_ino title "in order"
	set size 1,0.2
	set origin 0,0.22
	set ylabel "lost / 100 ms"
	plot csv using 1:7 with impulses lw 1.5 lc rgb c_cap title "lost packets"
	set size 1,0.22
	set origin 0,0
	set xlabel "time (s)"
	set ylabel "w_mobile"
	plot csv using 1:9 with lines lw 1.5 lc rgb "black" title "w_mobile"
	unset multiplot
}
