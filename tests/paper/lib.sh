# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# tests/paper/lib.sh: one cell of the paper's experiments on the namespace
# testbed with both daemons real.  Source it from run.sh or demo.sh after
# setting PAPER_BUILD (the build directory) and PAPER_OUT (output folder).
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#   receiver                        NAT                          UDP sender
#   cpe 10.11.0.1 <=========== TCP cross traffic, DSL only ===== conc 10.12.0.1
#
# UDP goes downstream srv -> cli through the bond, as in the paper.  The
# TCP cross traffic of the third experiment runs between the cpe's and the
# conc's own DSL addresses: it crosses the DSL link's emulator and tbf like
# the bonded traffic, but neither daemon captures it (the concentrator
# bonds what it routes to 10.0.1.0/24, the cpe what it forwards from its
# LAN; the egress rule takes only UDP to the tunnel port).
#
# API:
#   paper_testbed                 tb_init + tb_setup (tests/netns/lib.sh)
#   paper_cell NAME KIND K DWD WMAX HOLD PROFILE DURATION
#       KIND ramp, flows or tcp; PROFILE "paper" (the ramp) or a flows
#       file (START_S STOP_S MBIT lines, l3bond-sim's file: format); with
#       KIND tcp a greedy TCP flow runs from 0 to DURATION.  Restarts both
#       daemons with k K, t_dwd_ms DWD, w_mobile_max WMAX, dwd_hold_ms
#       HOLD (w_fixed 50, t_report_ms 50), runs the traffic under the
#       machine's heavy-run lock, writes PAPER_OUT/NAME/{run.csv,
#       summary.json,plot.png,...} and prints a one-line summary.
#   paper_tick                    if defined, called about once a second
#                                 during the traffic with the run's folder
#                                 and the seconds since the sender started
#
# Needs root, python3, gnuplot; the tools of tests/netns/lib.sh.

paper_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TB_PREFIX=${TB_PREFIX:-l3bp-$$-}
# shellcheck source-path=SCRIPTDIR source=../netns/lib.sh
source "$paper_here/../netns/lib.sh"

L3BONDD=${L3BONDD:-$PAPER_BUILD/gateway/l3bondd}
SIM=${SIM:-$PAPER_BUILD/sim/l3bond-sim}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$PAPER_BUILD/tests/tools}
# Rate-sensitive runs of different helpers and scripts on this machine
# take turns: one cell at a time holds it.
PAPER_LOCK=${PAPER_LOCK:-/tmp/l3b-heavy.lock}
PAPER_PORT=5000
PAPER_TCP_PORT=5001
PAPER_SIZE=1492
PAPER_LOCK_FD=
PAPER_SAMPLER_PID=
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
	PAPER_TERM=pngcairo
else
	PAPER_TERM=png
fi

paper_log() {
	echo "$*"
}

# shellcheck disable=SC2119 # the default testbed: no key=value overrides
paper_testbed() {
	tb_init
	tb_setup
}

# The lock is opened for the hold only, so that no daemon started outside
# it keeps the file open.
paper_lock() {
	exec {PAPER_LOCK_FD}>>"$PAPER_LOCK"
	if ! flock -n "$PAPER_LOCK_FD"; then
		paper_log "    waiting for $PAPER_LOCK (another heavy run)..."
		flock "$PAPER_LOCK_FD"
	fi
}

paper_unlock() {
	if [ -n "$PAPER_LOCK_FD" ]; then
		flock -u "$PAPER_LOCK_FD"
		exec {PAPER_LOCK_FD}>&-
		PAPER_LOCK_FD=
	fi
}

paper_stop_daemons() {
	local box
	for box in cpe conc; do
		if [ -n "${DPID[$box]:-}" ]; then
			kill -TERM "${DPID[$box]}" 2>/dev/null || true
			tb_wait "${DPID[$box]}" 10 || true
			unset "DPID[$box]"
		fi
	done
}

# paper_daemons K DWD WMAX HOLD: fresh daemons (w_mobile 0, counters 0).
paper_daemons() {
	local k=$1 dwd=$2 wmax=$3 hold=$4
	paper_stop_daemons
	write_confs "$k" "t_dwd_ms = $dwd;
		w_mobile_max = $wmax;
		dwd_hold_ms = $hold;
		t_lto_ms = 50;
		w_fixed = 50;
		t_report_ms = 50;"
	daemon_start conc
	daemon_start cpe
	if ! wait_up cpe || ! wait_up conc; then
		tb_log "daemons did not bring both paths up:"
		cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log" >&2
		return 1
	fi
}

# Flows (START STOP MBIT) to the sender's steps (SECONDS MBIT): the sum of
# the flows that are on, from each boundary on.
paper_flows_to_steps() {
	awk '{ sub(/#.*/, "") } NF >= 3 { n++; a[n] = $1; b[n] = $2; r[n] = $3;
		t[$1] = 1; t[$2] = 1 }
	END {
		m = 0
		for (x in t) ts[++m] = x + 0
		# insertion sort: a few dozen boundaries at most
		for (i = 2; i <= m; i++) {
			v = ts[i]
			for (j = i - 1; j >= 1 && ts[j] > v; j--) ts[j + 1] = ts[j]
			ts[j + 1] = v
		}
		if (ts[1] > 0) print 0, 0
		for (i = 1; i <= m; i++) {
			s = 0
			for (f = 1; f <= n; f++)
				if (a[f] <= ts[i] && ts[i] < b[f]) s += r[f]
			printf "%g %g\n", ts[i], s
		}
	}' "$1"
}

# The end of the last flow in a flows file.
paper_flows_end() {
	awk '{ sub(/#.*/, "") } NF >= 3 && $2 > e { e = $2 } END { print e + 0 }' "$1"
}

paper_wait_file() {
	tb_wait_file "$1" 250 && return 0
	tb_log "timed out waiting for $1"
	return 1
}

# Bytes the tbf of PATH sent towards the cpe, and the device counter the
# sampler reads, for the record: they must move together.
paper_tbf_check() {
	local path=$1 tbf dev
	tbf=$(tbf_down_bytes "$path")
	dev=$(tb_exec "$path" cat /sys/class/net/cpe/statistics/tx_bytes 2>/dev/null ||
		echo "?")
	echo "$path tbf_sent=$tbf dev_tx=$dev"
}

# Packets the tbf of PATH dropped towards the cpe (its queue overflowed).
paper_tbf_drops() {
	tb_exec "$1" tc -s qdisc show dev cpe |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

# How busy the machine is besides us: the 1-minute load average and the
# testbeds of other runs (6 namespaces each) that exist right now.
paper_load() {
	local n
	n=$(ip netns list | awk -v p="$TB_PREFIX" 'index($1, p) != 1' | wc -l)
	echo "$(cut -d' ' -f1 /proc/loadavg) $(((n + 5) / 6))"
}

# Waits up to PAPER_QUIET_S seconds (0: not at all) until no other
# testbed exists: other runs on this machine that do not take the lock
# (namespace tests) steal the CPU the emulators and daemons need.
paper_quiet() {
	local waited=0 n
	[ "${PAPER_QUIET_S:-0}" -gt 0 ] || return 0
	n=$(paper_load | cut -d' ' -f2)
	[ "$n" -gt 0 ] || return 0
	paper_log "    $n other testbed(s) running: waiting up to ${PAPER_QUIET_S} s for a quieter machine..."
	while [ "$n" -gt 0 ] && [ "$waited" -lt "$PAPER_QUIET_S" ]; do
		sleep 2
		waited=$((waited + 2))
		n=$(paper_load | cut -d' ' -f2)
	done
	paper_log "    waited $waited s; $n other testbed(s) now"
}

# paper_cell NAME KIND K DWD WMAX HOLD PROFILE DURATION
paper_cell() {
	local name=$1 kind=$2 k=$3 dwd=$4 wmax=$5 hold=$6 prof=$7 dur=$8
	# PAPER_OUT: set by the script that sources this file
	# shellcheck disable=SC2153
	local dir=$PAPER_OUT/$1 wall0=$EPOCHREALTIME sim_prof tx rx tcprx=""
	local tcptx="" t0 rx_t0 tcp_t0="" now el next box send_args=() load0 load1 wait0 wait1
	mkdir -p "$dir"
	rm -f "$dir"/*

	if [ "$prof" = paper ]; then
		"$TB_TRAFFIC" profile --profile paper --duration "$dur" \
			--step-ms 200 >"$dir/offered.txt"
		send_args=(--profile paper)
		sim_prof=ramp
	else
		paper_flows_to_steps "$prof" >"$dir/offered.txt"
		cp "$prof" "$dir/flows.txt"
		send_args=(--profile file --profile-file "$dir/offered.txt")
		sim_prof=file:$prof
	fi
	# What the simulator predicts for the same cell (it has no TCP).
	if [ "$kind" != tcp ] && [ -x "$SIM" ]; then
		"$SIM" --profile "$sim_prof" --k "$k" --t-dwd-ms "$dwd" \
			--w-mobile-max "$wmax" --dwd-hold-ms "$hold" \
			--csv "$dir/sim.csv" >"$dir/sim.txt"
	fi

	paper_daemons "$k" "$dwd" "$wmax" "$hold"
	wait0=$EPOCHREALTIME
	paper_quiet
	paper_lock
	wait1=$EPOCHREALTIME
	load0=$(paper_load)

	tb_bg cli "$dir/rx.log" "$TB_TRAFFIC" recv --port "$PAPER_PORT" \
		--duration "$((dur + 15))" --linger-ms 500 --json "$dir/rx.json" \
		--csv "$dir/rx.csv" --csv-interval-ms 100 \
		--ready-file "$dir/rx.ready"
	rx=$TB_LAST_PID
	paper_wait_file "$dir/rx.ready"
	# touched just before the receiver's clock starts
	rx_t0=$(stat -c %.6Y "$dir/rx.ready")

	if [ "$kind" = tcp ]; then
		tb_bg cpe "$dir/tcp-recv.log" "$TB_TRAFFIC" tcp-recv \
			--bind "$TB_CPE_DSL_IP" --port "$PAPER_TCP_PORT" \
			--duration "$((dur + 20))" --json "$dir/tcp.json" \
			--csv "$dir/tcp.csv" --csv-interval-ms 100 \
			--ready-file "$dir/tcp.ready"
		tcprx=$TB_LAST_PID
		paper_wait_file "$dir/tcp.ready"
	fi

	python3 "$paper_here/sampler.py" --out "$dir/sampler.csv" \
		--dsl-pid "$(ip netns pids "$(tb_ns dsl)" | head -n 1)" \
		--lte-pid "$(ip netns pids "$(tb_ns lte)" | head -n 1)" \
		--daemon-pid "${DPID[conc]}" --status "$(status_file conc)" \
		--duration "$((dur + 30))" --ready-file "$dir/sampler.ready" \
		2>"$dir/sampler.log" &
	PAPER_SAMPLER_PID=$!
	TB_PIDS+=("$PAPER_SAMPLER_PID")
	# its first interval must not start after the sender's
	paper_wait_file "$dir/sampler.ready"

	t0=$EPOCHREALTIME
	if [ "$kind" = tcp ]; then
		tcp_t0=$t0
		# greedy: more than the line carries in the run
		tb_bg conc "$dir/tcp-send.log" "$TB_TRAFFIC" tcp-send \
			--dst "$TB_CPE_DSL_IP" --port "$PAPER_TCP_PORT" \
			--bytes 100000000000 --json "$dir/tcp-send.json"
		tcptx=$TB_LAST_PID
	fi
	tb_bg srv "$dir/tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
		--port "$PAPER_PORT" --duration "$dur" --json "$dir/tx.json" \
		"${send_args[@]}"
	tx=$TB_LAST_PID

	next=1
	while tb__ours "$tx" && ! grep -q '^State:.*Z' "/proc/$tx/status" 2>/dev/null; do
		now=$EPOCHREALTIME
		el=$(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%d", b - a }')
		if [ "$el" -ge "$next" ]; then
			if declare -F paper_tick >/dev/null; then
				paper_tick "$dir" "$el"
			fi
			next=$((el + 1))
		fi
		sleep 0.2
	done
	tb_wait "$tx" 5 || true
	# The receiver stops 0.5 s after the sender's end marker.
	tb_wait "$rx" 20 || true
	if [ -n "$tcptx" ]; then
		kill -TERM "$tcptx" 2>/dev/null || true
		tb_wait "$tcptx" 5 || true
		tb_wait "$tcprx" 10 || true
	fi
	sleep 0.3
	kill -TERM "$PAPER_SAMPLER_PID" 2>/dev/null || true
	tb_wait "$PAPER_SAMPLER_PID" 5 || true
	PAPER_SAMPLER_PID=
	load1=$(paper_load)
	paper_unlock

	refresh conc
	cp "$(status_file conc)" "$dir/conc.status"
	refresh cpe
	cp "$(status_file cpe)" "$dir/cpe.status"
	{
		echo "NAME=$name"
		echo "KIND=$kind"
		echo "K=$k"
		echo "DWD=$dwd"
		echo "WMAX=$wmax"
		echo "HOLD=$hold"
		echo "DURATION=$dur"
		echo "SIZE=$PAPER_SIZE"
		echo "DSL_RATE=64"
		echo "LTE_RATE=60"
		echo "T0=$t0"
		echo "RX_T0=$rx_t0"
		echo "TCP_T0=$tcp_t0"
		echo "TBF_CHECK=$(paper_tbf_check dsl); $(paper_tbf_check lte)"
		echo "DSL_TBF_DROPS=$(paper_tbf_drops dsl)"
		echo "LTE_TBF_DROPS=$(paper_tbf_drops lte)"
		echo "LOAD_START=$load0"
		echo "LOAD_END=$load1"
		for box in conc cpe; do
			sed -n -E "s/^(w_mobile|ing\.(awi|iwi|dwd|dwd_held|bonded|no_path|kernel_dropped)|egr\.(hole_[a-z]*|late|released|kernel_dropped)|path\.[a-z]*\.data_lost)=/STATUS_${box}.\1=/p" \
				"$dir/$box.status"
		done
		echo "WAIT_S=$(awk -v a="$wait0" -v b="$wait1" 'BEGIN { printf "%.1f", b - a }')"
		now=$EPOCHREALTIME
		echo "WALL_S=$(awk -v a="$wall0" -v b="$now" 'BEGIN { printf "%.1f", b - a }')"
	} >"$dir/meta.env"
	python3 "$paper_here/analyse.py" merge "$dir" >"$dir/summary.txt"
	paper_plot "$dir" "$kind" "$name"
}

# paper_plot DIR KIND NAME: DIR/plot.png from DIR/run.csv.
paper_plot() {
	local dir=$1 kind=$2 name=$3 title
	case $kind in
	ramp) title="$name: one UDP flow, 63 -> 105 -> 63 Mbit/s (paper Fig. 3)" ;;
	flows) title="$name: UDP flows on and off (paper Fig. 4/5)" ;;
	tcp) title="$name: greedy TCP on DSL + bonded UDP (paper Fig. 6)" ;;
	esac
	title+=" - $(sed -n 1p "$dir/summary.txt")"
	gnuplot -e "csv='$dir/run.csv'; png='$dir/plot.png'; kind='$kind'; ttl='${title//\'/}'; term='$PAPER_TERM'" \
		"$paper_here/plot.gp" 2>"$dir/gnuplot.log" ||
		{
			tb_log "gnuplot failed:"
			cat "$dir/gnuplot.log" >&2
			return 1
		}
}
