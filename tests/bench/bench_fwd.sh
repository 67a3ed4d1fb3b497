#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The forwarding benchmark of l3bond (issue 5): how fast the bonded path
# forwards, against a bare NFQUEUE accept loop on the same machine, in the
# same run.  Prints figures, asserts nothing.
#
# Topology: lib.sh's testbed, links unshaped (no tbf) and without the link
# emulator (its NFQUEUE rules are removed and its processes stopped), so
# every hop is a plain veth:
#
#   cli ---- cpe ==== dsl ==== conc ---- srv
#   sender       ==== lte ====       counter (iptables INPUT -j DROP)
#                     NAT
#
#   bonded: cpe runs l3bondd (ingress: NFQUEUE 0 in mangle FORWARD, sendmmsg
#           on the dsl/lte path sockets), conc runs l3bondd (egress: NFQUEUE
#           1 in raw PREROUTING, resequenced, released as the inner packet);
#   bare:   no daemon; cpe queues the same traffic (mangle FORWARD -i lan
#           -o dsl, queue 0) to nfq-probe accept, one verdict per packet,
#           batched, and it goes on natively over dsl.
#
# Measured, traffic cli -> srv, UDP payloads of 1400 and 64 bytes:
#   1. the highest offered rate delivered with < 0.1 % loss (doubling, then
#      bisection; each probe sends for a few seconds), bonded and bare, and
#      their ratio;
#   2. each daemon's CPU share at 100 Mbit/s of 1400-byte payloads
#      (utime + stime from /proc/PID/stat over the interval / wall time, in
#      % of one core) and its memory (VmRSS, VmHWM);
#   3. userspace instructions per packet under valgrind --tool=callgrind,
#      the real daemons on the real path, instrumented only in a window
#      (callgrind_control -i on/off) in which N packets go through in T
#      seconds, then again with 2N in the same T: (Ir(2N) - Ir(N)) / N per
#      daemon, so that start-up and the time-driven work (reports,
#      keepalives, status file) cancel; the CPE's figure is the ingress
#      side, the concentrator's the egress side.  Repeated to show how
#      repeatable it is.
# One table at the end, also written as markdown to OUT/bench.md; the raw
# probes go to OUT/probes.log, callgrind's files and per-function costs to
# OUT/.
#
# Every rate-sensitive part (and callgrind, which loads both cores) holds
# /tmp/l3b-heavy.lock, a few minutes at a time, so that other heavy runs on
# this machine do not overlap with it.
#
# usage: bench_fwd.sh [--quick] [--out DIR] [--no-callgrind] [BUILD_DIR]
#   BUILD_DIR: the build tree (gateway/l3bondd, tests/tools, and
#   tests/bench/l3b-bench-send, which is compiled into OUT if missing).
#   --quick: 1-second probes, 10 % search precision, one repetition,
#   shorter callgrind runs: about 2 minutes in all.
# Needs root (exit 77 otherwise), valgrind for part 3.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=bench_lib.sh
source "$here/bench_lib.sh"
bench_args "[--quick] [--out DIR] [--no-callgrind] [BUILD_DIR]" "$@"
if [ $do_cg = 1 ] && ! command -v callgrind_control >/dev/null; then
	echo "bench: valgrind not installed, no instruction counts" >&2
	do_cg=0
fi

if [ $quick = 1 ]; then
	PROBE_S=1    # seconds per probe
	SETTLE=0.3   # seconds for what is still on the way after a probe
	PREC=0.10    # search stops when (hi - lo) / hi <= PREC
	MODES=${BENCH_MODES:-bare bond}
	REPEAT=1     # searches per size and mode
	CPU_S=3      # seconds at 100 Mbit/s
	CG_T=2       # seconds per callgrind run
	CG_N=2000    # packets in the N run (2N in the other)
	CG_REPEAT=1
else
	PROBE_S=3
	SETTLE=0.5
	PREC=0.04
	# plain: no queue at all, the testbed's own ceiling
	MODES=${BENCH_MODES:-plain bare bond}
	REPEAT=2
	CPU_S=10
	CG_T=10
	CG_N=10000
	CG_REPEAT=2
fi
START_PPS=10000 # first rate of the doubling
SIZES=${BENCH_SIZES:-1400 64}
# The sender runs on CPU 1: lib.sh steers the receive work of every hop
# from cli to srv to CPU 0 (RPS, for FIFO links), and a sender there pays
# for that work inside its own sends (softirqs run when it re-enables
# them), so it, not the router under test, would set the limit.
# BENCH_PIN_SEND=none leaves it to the scheduler.
PIN_SEND=()
pin=${BENCH_PIN_SEND:-1}
if [ "$pin" != none ] && [ "$(nproc)" -gt "$pin" ]; then
	PIN_SEND=(taskset -c "$pin")
fi
MAX_PPS=2000000
BURST=${BENCH_BURST:-32} # packets per sendmmsg of the sender
LOSS_MAX=0.1             # percent
PORT=9000

# shellcheck disable=SC2034 # lib.sh's namespace prefix
TB_PREFIX=l3b-bench-$$-
# shellcheck source=../netns/lib.sh
source "$src/tests/netns/lib.sh"
LOG=$out/probes.log
: >"$LOG"

# --- testbed ----------------------------------------------------------

bench_testbed
tb_exec srv iptables -w -A INPUT -p udp --dport $PORT -j DROP

delivered() {
	tb_exec srv iptables -w -nvxL INPUT | awk -v p="dpt:$PORT" \
		'$0 ~ p { print $1; exit }'
}

# --- the two routers under test ------------------------------------------

MODE=

bare_start() {
	nfq_bare_start cpe -i lan -o dsl
	MODE=bare
}

bare_stop() {
	nfq_bare_stop
	MODE=
}

# bond_start [PREFIX...]: both daemons, optionally under a wrapper
# (valgrind); waits until both see both paths up.
bond_start() {
	local box i
	for box in conc cpe; do
		rm -f "$(status_file "$box")"
		tb_bg "$box" "$TB_DIR/$box.log" "$@" "$L3BONDD" \
			-c "$TB_DIR/$box.conf" --status-file "$(status_file "$box")" \
			--control-socket "$(ctl_socket "$box")"
		DPID[$box]=$TB_LAST_PID
	done
	for ((i = 0; i < 300; i++)); do
		if [ -e "$(status_file cpe)" ] && [ -e "$(status_file conc)" ]; then
			refresh cpe
			refresh conc
			if [ "$(st cpe path.dsl.up)$(st cpe path.lte.up)" = 11 ] &&
				[ "$(st conc path.dsl.up)$(st conc path.lte.up)" = 11 ]; then
				MODE=bond
				return 0
			fi
		fi
		sleep 0.1
	done
	log "bench: the daemons did not come up"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log" >&2
	return 1
}

bond_stop() {
	local box
	for box in cpe conc; do
		kill -TERM "${DPID[$box]}"
	done
	for box in cpe conc; do
		tb_wait "${DPID[$box]}" 60 || true
	done
	MODE=
}

# --- one probe ------------------------------------------------------------

# probe PPS SIZE: sends PROBE_S seconds at PPS; sets P_OK (1: loss under
# LOSS_MAX), P_SENT_PPS (what the sender achieved), P_GOT_PPS, P_LOSS.
probe() {
	local pps=$1 size=$2 res got q0 q1 c0 c1 c2 c3 wall0 wall1
	local cpu="" s0 s1 n0 n1
	tb_exec srv iptables -w -Z INPUT
	if [ "$MODE" = bond ]; then
		q0="$(qdrops cpe 0) $(qdrops conc 1)"
		c0=$(cpu_ticks "${DPID[cpe]}")
		c1=$(cpu_ticks "${DPID[conc]}")
	elif [ "$MODE" = bare ]; then
		q0=$(qdrops cpe 0)
		c0=$(cpu_ticks "$PROBE_PID")
	fi
	s0=$(cpu_stat)
	n0=$(softnet_drops)
	wall0=$(date +%s.%N)
	res=$(tb_exec cli "${PIN_SEND[@]}" "$SEND" --rate="$pps" --size="$size" \
		--seconds="$PROBE_S" --burst="$BURST" "$TB_SRV_IP" $PORT)
	wall1=$(date +%s.%N)
	s1=$(cpu_stat)
	if [ "$MODE" = bond ]; then
		c2=$(cpu_ticks "${DPID[cpe]}")
		c3=$(cpu_ticks "${DPID[conc]}")
		cpu=$(awk -v a=$((c2 - c0)) -v b=$((c3 - c1)) -v t0="$wall0" \
			-v t1="$wall1" -v hz="$(getconf CLK_TCK)" \
			'BEGIN { printf "cpe %.0f%% conc %.0f%%", a / hz / (t1 - t0) * 100, b / hz / (t1 - t0) * 100 }')
	elif [ "$MODE" = bare ]; then
		c2=$(cpu_ticks "$PROBE_PID")
		cpu=$(awk -v a=$((c2 - c0)) -v t0="$wall0" -v t1="$wall1" \
			-v hz="$(getconf CLK_TCK)" \
			'BEGIN { printf "probe %.0f%%", a / hz / (t1 - t0) * 100 }')
	fi
	sleep $SETTLE # what is still queued on the way
	got=$(delivered)
	if [ "$MODE" = bond ]; then
		q1="$(qdrops cpe 0) $(qdrops conc 1)"
		q1="ing $((${q1% *} - ${q0% *})) egr $((${q1#* } - ${q0#* }))"
	elif [ "$MODE" = bare ]; then
		q1=$(($(qdrops cpe 0) - q0))
	else
		q1=-
	fi
	n1=$(softnet_drops)
	probe_result "$res" "$got"
	log "$(printf '  %-5s %4sB offered %7s sent %7s got %7s pps loss %7s%% | qdrop %s backlog %s | %s| %s' \
		"$MODE" "$size" "$pps" "$P_SENT_PPS" "$P_GOT_PPS" "$P_LOSS" \
		"$q1" $((n1 - n0)) "$(cpu_usage "$s0" "$s1")" "$cpu")"
}

plain_start() {
	MODE=plain
}

plain_stop() {
	MODE=
}

# --- part 1: highest rate under 0.1 % loss ------------------------------------

write_confs 0.5
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A BEST=() # [mode,size] -> "pps pps ..." (one per repetition)
declare -A NOTE=()
for size in $SIZES; do
	lock
	for ((rep = 1; rep <= REPEAT; rep++)); do
		# every other repetition in reverse order, against drift
		order=$MODES
		if [ $((rep % 2)) = 0 ]; then
			order=$(echo "$MODES" | tr ' ' '\n' | tac | tr '\n' ' ')
		fi
		for mode in $order; do
			log "search: $mode, $size-byte payloads (repetition $rep)"
			"${mode}_start"
			search "$size"
			"${mode}_stop"
			BEST[$mode,$size]="${BEST[$mode,$size]:-} $S_PPS"
			if [ -n "$S_NOTE" ]; then
				NOTE[$mode,$size]=$S_NOTE
			fi
			log "  => $mode $size B: $S_PPS pps offered, $S_GOT delivered ${S_NOTE:+($S_NOTE)}"
		done
	done
	unlock
done

if [ "${BENCH_SEARCH_ONLY:-0}" = 1 ]; then
	exit 0
fi

# --- part 2: CPU share at 100 Mbit/s, memory -------------------------------------

CPU_PPS=$(((100000000 / 8 + 1399) / 1400))
hz=$(getconf CLK_TCK)
# user and system ticks of a process
cpu_us() {
	awk '{ sub(/.*\) /, ""); print $12, $13 }' "/proc/$1/stat"
}
declare -A CPU=() # [box] -> "total% total% ..."
declare -A CPUS=() # [box] -> "user/sys" of the last run
CPU_LOSS=
lock
bond_start
for ((rep = 1; rep <= REPEAT; rep++)); do
	declare -A u0=() u1=()
	for box in cpe conc; do
		u0[$box]=$(cpu_us "${DPID[$box]}")
	done
	tb_exec srv iptables -w -Z INPUT
	t0=$(date +%s.%N)
	res=$(tb_exec cli "${PIN_SEND[@]}" "$SEND" --rate=$CPU_PPS --size=1400 \
		--seconds=$CPU_S --burst="$BURST" "$TB_SRV_IP" $PORT)
	t1=$(date +%s.%N)
	for box in cpe conc; do
		u1[$box]=$(cpu_us "${DPID[$box]}")
	done
	sleep 0.5
	got=$(delivered)
	loss=$(awk -v s="$(kv sent "$res")" -v g="$got" 'BEGIN { printf "%.3f", s ? (s - g) * 100 / s : 100 }')
	CPU_LOSS="${CPU_LOSS:+$CPU_LOSS, }$loss %"
	line="cpu at 100 Mbit/s ($CPU_PPS pps x 1400 B, $CPU_S s, run $rep):"
	for box in cpe conc; do
		read -r ua sa <<<"${u0[$box]}"
		read -r ub sb <<<"${u1[$box]}"
		v=$(awk -v u=$((ub - ua)) -v s=$((sb - sa)) -v hz="$hz" -v t0="$t0" \
			-v t1="$t1" 'BEGIN { w = (t1 - t0) * hz / 100
			printf "%.1f %.1f/%.1f", (u + s) / w, u / w, s / w }')
		CPU[$box]="${CPU[$box]:-} ${v%% *}"
		CPUS[$box]=${v#* }
		line+=" $box ${v%% *} % (user/sys ${v#* })"
	done
	log "$line; sent $(kv sent "$res"), loss $loss %"
done
refresh cpe
log "  cpe sent on dsl $(st cpe path.dsl.tx_pkts), on lte $(st cpe path.lte.tx_pkts) packets since its start"
declare -A MEM=()
for box in cpe conc; do
	MEM[$box]=$(awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 }
		END { printf "VmRSS %.1f MiB, VmHWM %.1f MiB", r / 1024, h / 1024 }' \
		"/proc/${DPID[$box]}/status")
	log "memory $box: ${MEM[$box]}"
done
bond_stop
unlock

# --- part 3: instructions per packet (callgrind) --------------------------------------

declare -A IR=() # [box,n,rep] -> Ir
# cg_run N REP: both daemons under callgrind, instrumentation off until
# the paths are up; on for a window of CG_T + 1 s in which N packets go
# through at N / CG_T pps, one per send; then off again.  The window has
# the same length for N and 2N, so the timers' work in it cancels too.
cg_run() {
	local n=$1 rep=$2 box res got
	# callgrind names its file after the PID, which is the daemon's
	# (ip netns exec and valgrind exec in place)
	bond_start valgrind --tool=callgrind -q --instr-atstart=no \
		--callgrind-out-file="$TB_DIR/callgrind.%p.out"
	sleep 1
	tb_exec srv iptables -w -Z INPUT
	for box in cpe conc; do
		callgrind_control -i on "${DPID[$box]}" >/dev/null 2>&1
	done
	res=$(tb_exec cli "${PIN_SEND[@]}" "$SEND" --rate=$((n / CG_T)) \
		--size=1400 --count="$n" --burst=1 "$TB_SRV_IP" $PORT)
	sleep 1
	for box in cpe conc; do
		callgrind_control -i off "${DPID[$box]}" >/dev/null 2>&1
	done
	got=$(delivered)
	refresh cpe
	log "callgrind run: $n packets in $CG_T s (repetition $rep): sent $(kv sent "$res") in $(kv seconds "$res") s, delivered $got, bonded by the cpe $(st cpe ing.bonded)"
	local -A pid=([cpe]=${DPID[cpe]} [conc]=${DPID[conc]})
	bond_stop
	for box in cpe conc; do
		mv "$TB_DIR/callgrind.${pid[$box]}.out" \
			"$out/callgrind.$box.$n.$rep.out"
		IR[$box,$n,$rep]=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' \
			"$out/callgrind.$box.$n.$rep.out")
		log "  $box: Ir ${IR[$box,$n,$rep]}"
	done
}

declare -A IPP=() # [box] -> "v v" per repetition
if [ $do_cg = 1 ]; then
	lock
	for ((rep = 1; rep <= CG_REPEAT; rep++)); do
		for n in $CG_N $((2 * CG_N)); do
			cg_run "$n" "$rep"
		done
		for box in cpe conc; do
			v=$(((IR[$box,$((2 * CG_N)),$rep] - IR[$box,$CG_N,$rep]) / CG_N))
			IPP[$box]="${IPP[$box]:-} $v"
			log "instructions per packet, $box (repetition $rep): $v"
		done
	done
	unlock
	if command -v callgrind_annotate >/dev/null; then
		for box in cpe conc; do
			callgrind_annotate --inclusive=no \
				"$out/callgrind.$box.$((2 * CG_N)).1.out" 2>/dev/null |
				head -n 60 >"$out/callgrind.$box.functions.txt" || true
		done
	fi
fi

# --- the table ----------------------------------------------------------

{
	echo "## l3bond forwarding benchmark"
	echo
	echo "$(bench_header)," \
		"$REPEAT search(es) per cell, sender bursts of $BURST; traffic cli -> srv, links unshaped;" \
		"load average before: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	echo "Highest offered rate with < $LOSS_MAX % loss (Mbit/s of UDP payload):"
	echo
	printf '| |'
	for size in $SIZES; do
		printf ' %s-byte payload |' "$size"
	done
	printf '\n|---|'
	for size in $SIZES; do
		printf -- '---|'
	done
	echo
	for mode in plain bare bond; do
		case " $MODES " in *" $mode "*) ;; *) continue ;; esac
		case $mode in
		plain) printf '| plain forwarding, no queue (testbed ceiling) |' ;;
		bare) printf '| bare NFQUEUE accept loop (nfq-probe, 1 queue) |' ;;
		bond) printf '| bonded: cpe l3bondd -> dsl/lte -> conc l3bondd |' ;;
		esac
		for size in $SIZES; do
			printf ' %s%s |' "$(fmt_rate "${BEST[$mode,$size]:-}" "$size")" \
				"${NOTE[$mode,$size]:+, ${NOTE[$mode,$size]}}"
		done
		echo
	done
	if [ -n "${BEST[bare,${SIZES%% *}]:-}" ] && [ -n "${BEST[bond,${SIZES%% *}]:-}" ]; then
		printf '| **ratio bonded / bare** |'
		for size in $SIZES; do
			printf ' **%s** |' "$(fmt_ratio "${BEST[bond,$size]}" "${BEST[bare,$size]}")"
		done
		echo
	fi
	echo
	echo "| daemon | CPU at 100 Mbit/s (1400 B, $CPU_PPS pps) | memory after the runs | userspace instructions per packet (callgrind) |"
	echo "|---|---|---|---|"
	for box in cpe conc; do
		if [ $box = cpe ]; then
			name="cpe (ingress side)"
			cpu=$(fmt_pct "${CPU[cpe]}")
		else
			name="conc (egress side)"
			cpu=$(fmt_pct "${CPU[conc]}")
		fi
		printf '| %s | %s %% of one core (user/sys %s) | %s | %s |\n' "$name" "$cpu" \
			"${CPUS[$box]}" "${MEM[$box]}" \
			"$(if [ $do_cg = 1 ]; then fmt_list "${IPP[$box]}"; else echo "not measured"; fi)"
	done
	echo
	echo "Loss during the CPU runs: $CPU_LOSS. Instructions per packet: (Ir(2N) - Ir(N)) / N," \
		"N = $CG_N, both runs $CG_T s long (start-up and timers cancel), one packet per send."
	echo "Command: \`scripts/bench.sh$([ $quick = 1 ] && echo " --quick")\`; every probe in probes.log."
} >"$out/bench.md"
echo
cat "$out/bench.md"
