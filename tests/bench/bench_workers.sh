#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The workers' scaling benchmark (issue 15): a concentrator with 2 and
# with 8 CPEs, run with 1 worker and with 2 workers (`workers = 2`) in the
# same run on the same machine, against a bare NFQUEUE accept loop there.
# Prints figures, asserts nothing.
#
# Topology: lib.sh's testbed plus sites 2..8 (tb_site_setup), links
# unshaped and without the link emulator, as bench_fwd.sh:
#
#   srv ---- conc ==== dsl ==== cpe  ---- cli     (site 1)
#   sender        ==== lte ==== cpe2 ---- cli2    (site 2)
#                               ...
#                               cpe8 ---- cli8    (site 8)
#                       (every site on its own links into dsl and lte)
#
# Each site's cpeN runs its own l3bondd (session id 100 + N, its own key);
# conc runs one l3bondd with the CPEs of the run in `cpes`, `workers = W`.
# Session ids 101, 102, ... alternate between the two workers (id modulo
# 2), so each worker has half the CPEs and, with equal flows, half the
# packets.  Every client counts what reaches it (iptables INPUT -j DROP).
#
# Traffic: downstream, srv -> every client, one flow per site of equal
# rate (l3b-bench-send round-robin over the destinations), UDP payloads
# of 1400 bytes.  Downstream is the concentrator's ingress: the rules
# steer each packet by its destination prefix to its CPE's worker's
# ingress queue, and the worker schedules it over the paths, tags it and
# sends it: the side of a concentrator that carries the most (downloads)
# and does the most per packet.  Its upstream side (egress: validation,
# resequencing) is steered by the session id in the tunnel header and
# is the same per-worker design; the CPE side of the same packets is
# spread over the CPE daemons here, one each.
#
# For C CPEs (2 and 8) and W workers (1 and 2):
#   1. the highest total offered rate with < 0.1 % loss, the bisection of
#      bench_fwd.sh (bench_lib.sh's search), and, for each C, the bare
#      loop's: conc queues srv's traffic (mangle FORWARD -i lan) to
#      nfq-probe accept, no daemon anywhere, the packets go on natively;
#      the ratio bonded / bare;
#   2. the concentrator's CPU time per million packets at fixed rates
#      (CPU_PPS, 20 kpps, below every loss-free rate seen here, and
#      half of it: 2 workers at CPU_PPS have the load per worker of 1
#      worker at half) for CPU_S s each: utime + stime from
#      /proc/PID/stat of the first process and of every worker, summed,
#      over the packets the kernel queued to the concentrator's queues
#      (id_sequence in /proc/net/netfilter/nfnetlink_queue), and per
#      worker over its own queues' packets (worker k: queues 2k and
#      2k + 1); with W = 1 the one process is the worker.  Also every
#      CPU's busy time (/proc/stat) over the same packets: the whole
#      machine, whoever runs on it.
# Before part 1, once every session is up at the concentrator: a warm-up
# (warm_up), since sessions just up lose their first packets.
# One table at the end, also written as markdown to OUT/workers.md; the
# probes go to OUT/workers-probes.log.
#
# usage: bench_workers.sh [--quick] [--out DIR] [BUILD_DIR]
#   --quick: 1-second probes, 10 % search precision, 3-second CPU runs:
#   about 3 minutes.  Full: 3-second probes, 4 %, 10 s: about 5 minutes.
# Knobs (environment): BENCH_CPES ("2 8"), BENCH_WORKERS ("1 2"),
# BENCH_CPU_PPS (20000), BENCH_PIN_SEND (0: the downstream hops' receive
# work is on CPU 1, see lib.sh's tb__rps; "none": unpinned).
# Needs root (exit 77 otherwise).
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=bench_lib.sh
source "$here/bench_lib.sh"
bench_args "[--quick] [--out DIR] [BUILD_DIR]" "$@"

if [ $quick = 1 ]; then
	PROBE_S=1
	SETTLE=0.3
	PREC=0.10
	CPU_S=3
else
	PROBE_S=3
	SETTLE=0.5
	PREC=0.04
	CPU_S=10
fi
START_PPS=10000
MAX_PPS=2000000
LOSS_MAX=0.1
SIZE=1400
CPU_PPS=${BENCH_CPU_PPS:-20000}
CPES=${BENCH_CPES:-2 8}
WORKERS=${BENCH_WORKERS:-1 2}
BURST=32
PORT=9000
ID0=100 # site N's session id: ID0 + N
PIN_SEND=()
pin=${BENCH_PIN_SEND:-0}
if [ "$pin" != none ] && [ "$(nproc)" -gt "$pin" ]; then
	PIN_SEND=(taskset -c "$pin")
fi
hz=$(getconf CLK_TCK)

maxc=0
for c in $CPES; do
	if ! [[ "$c" =~ ^[1-9]$ ]]; then
		echo "BENCH_CPES: numbers of CPEs 1..9, not '$c'" >&2
		exit 2
	fi
	[ "$c" -gt "$maxc" ] && maxc=$c
done

# shellcheck disable=SC2034 # lib.sh's namespace prefix
TB_PREFIX=l3b-wb-$$-
# shellcheck source=../netns/lib.sh
source "$src/tests/netns/lib.sh"

LOG=$out/workers-probes.log
: >"$LOG"

# --- testbed: site 1 and sites 2..maxc ------------------------------------

# the boxes of site N
cli_of() { if [ "$1" = 1 ]; then echo cli; else echo "cli$1"; fi; }
cpe_of() { if [ "$1" = 1 ]; then echo cpe; else echo "cpe$1"; fi; }

t0=$SECONDS
bench_testbed
for ((n = 2; n <= maxc; n++)); do
	tb_site_setup $n
done
# tb_site_setup hooks each site into the (stopped) emulator's queue
for box in dsl lte; do
	tb_exec "$box" iptables -w -t mangle -F FORWARD
done
for ((n = 1; n <= maxc; n++)); do
	tb_exec "$(cli_of $n)" iptables -w -A INPUT -p udp --dport $PORT -j DROP
done
log "testbed with $maxc sites in $((SECONDS - t0)) s"

# --- configs and daemons ----------------------------------------------------

declare -A KEY=()
for ((n = 1; n <= maxc; n++)); do
	KEY[$n]=$(head -c32 /dev/urandom | base64)
	cat >"$TB_DIR/$(cpe_of $n).conf" <<-EOF
		role = "cpe";
		session_id = $((ID0 + n));
		port = 7040;
		key = "${KEY[$n]}";
		lan_interfaces = [ "lan" ];
		release_mark = 0x100;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl";
			  fwmark = $TB_DSL_MARK; peer = "$TB_CONC_DSL_IP"; },
			{ name = "lte"; class = "mobile"; interface = "lte";
			  fwmark = $TB_LTE_MARK; peer = "$TB_CONC_LTE_IP"; }
		);
	EOF
done
chmod 600 "$TB_DIR"/*.conf

# conc_conf C W: the concentrator with sites 1..C, W workers
conc_conf() {
	local c=$1 w=$2 n
	{
		echo 'role = "concentrator";'
		echo 'port = 7040;'
		echo "workers = $w;"
		echo 'paths = ('
		echo '	{ name = "dsl"; class = "fixed"; interface = "dsl"; },'
		echo '	{ name = "lte"; class = "mobile"; interface = "lte"; }'
		echo ');'
		echo 'cpes = ('
		for ((n = 1; n <= c; n++)); do
			echo "	{ name = \"site$n\"; session_id = $((ID0 + n));" \
				"key = \"${KEY[$n]}\";" \
				"prefixes = [ \"10.0.$([ $n = 1 ] && echo 1 || echo $((n + 1))).0/24\" ];" \
				"}$([ $n -lt "$c" ] && echo ,)"
		done
		echo ');'
	} >"$TB_DIR/conc.conf"
	chmod 600 "$TB_DIR/conc.conf"
}

# the client addresses of sites 1..C
dsts() {
	local n
	echo "$TB_CLI_IP"
	for ((n = 2; n <= $1; n++)); do
		tb_site_ip $n cli
	done
}

NC=0 # CPEs of the run
NW=0 # workers of the run (0: the bare loop)
MODE=

# bond_start C W: the concentrator and C CPE daemons, every session up
bond_start() {
	local c=$1 w=$2 n i up
	conc_conf "$c" "$w"
	daemon_start conc
	for ((n = 1; n <= c; n++)); do
		daemon_start "$(cpe_of $n)"
	done
	for ((i = 0; i < 200; i++)); do
		sleep 0.1
		[ -e "$(status_file conc)" ] || continue
		refresh conc
		up=0
		for ((n = 1; n <= c; n++)); do
			if [ "$(st conc "cpe.site$n.session_state")" = up ] &&
				[ "$(st conc "cpe.site$n.path.dsl.up")" = 1 ]; then
				up=$((up + 1))
			fi
		done
		if [ $up = "$c" ] && [ "$(st conc workers_up)" = "$w" ]; then
			NC=$c NW=$w MODE=bond
			worker_pids
			warm_up
			return 0
		fi
	done
	log "bench: $c CPEs on $w workers did not come up ($up up)"
	tail -n 20 "$TB_DIR/conc.log" >&2
	return 1
}

# warm_up: 1-second rounds of 2 kpps until one loses nothing (at most
# 15): sessions just up at both ends lose a site's packets for some
# seconds (see the log's drop counters), which is not what is measured.
warm_up() {
	local i res got n v per
	for ((i = 1; i <= 15; i++)); do
		zero_counters
		res=$(send 2000 1)
		sleep $SETTLE
		got=$(delivered)
		if [ "$got" -ge "$(kv sent "$res")" ]; then
			log "  warm-up: no loss from round $i"
			return 0
		fi
		per=
		for ((n = 1; n <= NC; n++)); do
			v=$(tb_exec "$(cli_of $n)" iptables -w -nvxL INPUT |
				awk -v p="dpt:$PORT" '$0 ~ p { print $1; exit }')
			per+=" $v"
		done
		log "  warm-up round $i: $got of $(kv sent "$res") delivered; per site:$per"
		if [ "$i" = 1 ]; then
			for box in conc $(for ((n = 1; n <= NC; n++)); do cpe_of $n; done); do
				refresh "$box"
				grep -E '(no_path|no_session|no_cpe|unfit|egr\.session|late|too_old|hole_[a-z]*|overflow|no_slot|spoofed|kernel_dropped|kernel_user_dropped|egr\.path|tx_errors|verdict_errors)=[1-9]' \
					"$(status_file "$box")" | grep -v '\.up=\|handshakes\|_ms=' |
					sed "s/^/    $box /" | tee -a "$LOG" >&2 || true
			done
		fi
	done
	log "  warm-up: still losing after $((i - 1)) rounds"
}

bond_stop() {
	local n
	for ((n = 1; n <= NC; n++)); do
		kill -TERM "${DPID[$(cpe_of $n)]}"
	done
	kill -TERM "${DPID[conc]}"
	for ((n = 1; n <= NC; n++)); do
		tb_wait "${DPID[$(cpe_of $n)]}" 30 || true
	done
	tb_wait "${DPID[conc]}" 30 || true
	MODE=
}

# WPID[k]: worker k's PID (with one worker: the daemon itself)
declare -A WPID=()
worker_pids() {
	local p k
	WPID=()
	if [ "$NW" = 1 ]; then
		WPID[0]=${DPID[conc]}
		return 0
	fi
	for p in $(pgrep -P "${DPID[conc]}"); do
		k=$(tr '\0' '\n' <"/proc/$p/cmdline" |
			sed -n '/^--worker$/{n;s/:.*//p}')
		[ -n "$k" ] && WPID[$k]=$p
	done
	if [ ${#WPID[@]} != "$NW" ]; then
		log "bench: found ${#WPID[@]} of $NW workers"
		return 1
	fi
}

bare_start() {
	nfq_bare_start conc -i lan
	NC=$1 NW=0 MODE=bare
}

bare_stop() {
	nfq_bare_stop
	MODE=
}

# --- readers ---------------------------------------------------------------------

delivered() {
	local n got=0 v
	for ((n = 1; n <= NC; n++)); do
		v=$(tb_exec "$(cli_of $n)" iptables -w -nvxL INPUT |
			awk -v p="dpt:$PORT" '$0 ~ p { print $1; exit }')
		got=$((got + v))
	done
	echo $got
}

zero_counters() {
	local n
	for ((n = 1; n <= NC; n++)); do
		tb_exec "$(cli_of $n)" iptables -w -Z INPUT
	done
}

# the kernel's drops at the CPEs' egress queues (1), all sites of the run
cpe_qdrops() {
	local n d=0
	for ((n = 1; n <= NC; n++)); do
		d=$((d + $(qdrops "$(cpe_of $n)" 1)))
	done
	echo $d
}

# "queue id_sequence dropped" of every NFQUEUE bound in conc
conc_queues() {
	tb_exec conc awk '{ print $1, $8, $6 + $7 }' \
		/proc/net/netfilter/nfnetlink_queue
}

# qdelta BEFORE AFTER Q: packets queued to Q between two conc_queues
qdelta() {
	awk -v q="$3" 'NR == FNR { if ($1 == q) b = $2; next }
		$1 == q { a = $2 } END { print a - b }' <(echo "$1") <(echo "$2")
}

# drops BEFORE AFTER: the kernel's queue drops at conc, all queues
qdrops_all() {
	awk 'NR == FNR { b += $3; next } { a += $3 } END { print a - b }' \
		<(echo "$1") <(echo "$2")
}

# conc_ticks: "first k0 k1 ..." utime + stime of the first process and
# each worker (with one worker: the one process, twice)
conc_ticks() {
	local k line
	line=$(cpu_ticks "${DPID[conc]}")
	for ((k = 0; k < NW; k++)); do
		line+=" $(cpu_ticks "${WPID[$k]}")"
	done
	echo "$line"
}

# send PPS SECONDS: srv -> every client of the run; the sender's key=value
send() {
	# shellcheck disable=SC2046 # one address per word
	tb_exec srv "${PIN_SEND[@]}" "$SEND" --rate="$1" --size=$SIZE \
		--seconds="$2" --burst=$BURST $(dsts "$NC") $PORT
}

# --- one probe (bench_lib.sh's search calls it) ------------------------------

# probe PPS SIZE: sets P_OK, P_SENT_PPS, P_GOT_PPS, P_LOSS
probe() {
	local pps=$1 res got q0 q1 c0 c1 s0 s1 pid e0 e1 n0 n1
	# the queue reader: nfq-probe, or the first process (with workers,
	# theirs are in cpu_run)
	pid=${DPID[conc]:-}
	[ "$MODE" = bare ] && pid=$PROBE_PID
	zero_counters
	q0=$(conc_queues)
	e0=$(cpe_qdrops)
	n0=$(softnet_drops)
	c0=$(cpu_ticks "$pid")
	s0=$(cpu_stat)
	res=$(send "$pps" $PROBE_S)
	s1=$(cpu_stat)
	c1=$(cpu_ticks "$pid")
	sleep $SETTLE
	got=$(delivered)
	q1=$(conc_queues)
	e1=$(cpe_qdrops)
	n1=$(softnet_drops)
	probe_result "$res" "$got"
	log "$(printf '  %-4s C=%s W=%s offered %7s sent %7s got %7s pps loss %7s%% | qdrop conc %s cpes %s backlog %s | %s| %s %.0f%%' \
		"$MODE" "$NC" "$NW" "$pps" "$P_SENT_PPS" "$P_GOT_PPS" "$P_LOSS" \
		"$(qdrops_all "$q0" "$q1")" $((e1 - e0)) $((n1 - n0)) "$(cpu_usage "$s0" "$s1")" \
		"$([ "$MODE" = bare ] && echo probe || echo conc)" \
		"$(awk -v d=$((c1 - c0)) -v hz="$hz" -v t="$(kv seconds "$res")" 'BEGIN { print d / hz / t * 100 }')")"
}

# --- the CPU run -------------------------------------------------------------------

# cpu_run PPS: PPS for CPU_S s; sets CPU_TOT (CPU s per million packets,
# all processes), CPU_FIRST (the first process's, per million of all),
# CPU_W (per worker: "s/Mpkt (share of the packets %)"), CPU_WMEAN (the
# workers' mean s/Mpkt), CPU_MACH (the whole machine's busy time per
# million packets: every box, the sender, the softirqs), CPU_LOSS
cpu_run() {
	local pps=$1 q0 q1 res got k pk tot=0 f0 f1 line v sum=0 s0 s1
	local -a a b
	zero_counters
	q0=$(conc_queues)
	read -r -a a <<<"$(conc_ticks)"
	s0=$(cpu_stat)
	res=$(send "$pps" $CPU_S)
	s1=$(cpu_stat)
	read -r -a b <<<"$(conc_ticks)"
	sleep $SETTLE
	got=$(delivered)
	q1=$(conc_queues)
	probe_result "$res" "$got"
	CPU_LOSS=$P_LOSS
	declare -A pkw=()
	for ((k = 0; k < NW; k++)); do
		pk=$(($(qdelta "$q0" "$q1" $((2 * k))) + $(qdelta "$q0" "$q1" $((2 * k + 1)))))
		pkw[$k]=$pk
		tot=$((tot + pk))
	done
	CPU_W=
	line="cpu run: C=$NC W=$NW $pps pps x $CPU_S s, sent $(kv sent "$res"), loss $CPU_LOSS %, packets queued at conc $tot"
	for ((k = 0; k < NW; k++)); do
		v=$(awk -v d=$((b[k + 1] - a[k + 1])) -v p="${pkw[$k]}" -v hz="$hz" \
			-v t="$tot" 'BEGIN { printf "%.2f s (%.0f %%)", p ? d / hz / p * 1e6 : 0, t ? p * 100 / t : 0 }')
		CPU_W+="${CPU_W:+; }w$k $v"
		sum=$(awk -v s="$sum" -v v="${v%% *}" 'BEGIN { print s + v }')
		line+=", worker $k: $((b[k + 1] - a[k + 1])) ticks for ${pkw[$k]} packets"
	done
	f0=$((b[0] - a[0]))
	f1=0
	if [ "$NW" -gt 1 ]; then
		f1=$f0
		for ((k = 0; k < NW; k++)); do
			f0=$((f0 + b[k + 1] - a[k + 1]))
		done
	fi
	CPU_MACH=$(awk -v p=$tot -v hz="$hz" 'NR == FNR { b[$1] = $2; next }
		{ d += $2 - b[$1] } END { printf "%.1f", p ? d / hz / p * 1e6 : 0 }' \
		<(echo "$s0") <(echo "$s1"))
	CPU_WMEAN=$(awk -v s="$sum" -v n="$NW" 'BEGIN { printf "%.2f", s / n }')
	CPU_TOT=$(awk -v d=$f0 -v p=$tot -v hz="$hz" 'BEGIN { printf "%.2f", p ? d / hz / p * 1e6 : 0 }')
	CPU_FIRST=$(awk -v d=$f1 -v p=$tot -v hz="$hz" 'BEGIN { printf "%.3f", p ? d / hz / p * 1e6 : 0 }')
	log "$line, first process $f1 ticks; all: $CPU_TOT s per million packets; the machine: $CPU_MACH"
}

# --- the runs ------------------------------------------------------------------------

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
# [C,W] -> the figures; [C,W,h]: at half the rate
declare -A BEST=() NOTE=() TOT=() FIRST=() PERW=() WMEAN=() MACH=() CLOSS=()
for c in $CPES; do
	lock
	log "search: bare loop, $c sites"
	bare_start "$c"
	search $SIZE
	bare_stop
	BEST[$c,bare]=$S_PPS NOTE[$c,bare]=$S_NOTE
	log "  => bare, $c sites: $S_PPS pps ${S_NOTE:+($S_NOTE)}"
	for w in $WORKERS; do
		log "search: $c CPEs, $w worker(s)"
		bond_start "$c" "$w"
		search $SIZE
		BEST[$c,$w]=$S_PPS NOTE[$c,$w]=$S_NOTE
		log "  => $c CPEs, $w worker(s): $S_PPS pps ${S_NOTE:+($S_NOTE)}"
		for half in 0 1; do
			h=${half/#1/,h}
			h=${h/#0/}
			cpu_run $((CPU_PPS >> half))
			TOT[$c,$w$h]=$CPU_TOT FIRST[$c,$w$h]=$CPU_FIRST
			PERW[$c,$w$h]=$CPU_W WMEAN[$c,$w$h]=$CPU_WMEAN
			CLOSS[$c,$w$h]=$CPU_LOSS MACH[$c,$w$h]=$CPU_MACH
		done
		bond_stop
	done
	unlock
done

# --- the table -------------------------------------------------------------------------

{
	echo "## l3bond workers' scaling benchmark"
	echo
	echo "$(bench_header);" \
		"traffic srv -> every CPE's client (downstream: the concentrator's ingress), $SIZE-byte UDP payloads, equal flows;" \
		"load average before: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	echo "| CPEs | concentrator | highest rate < $LOSS_MAX % loss | ratio to the bare loop | conc CPU s per million packets at $((CPU_PPS / 1000)) kpps: all processes | per worker (its share of the packets) | first process | the machine | at $((CPU_PPS / 2000)) kpps: all processes | per worker | the machine |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for c in $CPES; do
		printf '| %s | bare NFQUEUE accept loop (nfq-probe, 1 queue) | %s%s | 1 | | | | | | | |\n' "$c" \
			"$(fmt_rate "${BEST[$c,bare]}" $SIZE)" "${NOTE[$c,bare]:+, ${NOTE[$c,bare]}}"
		for w in $WORKERS; do
			printf '| %s | l3bondd, workers = %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
				"$c" "$w" "$(fmt_rate "${BEST[$c,$w]}" $SIZE)" \
				"${NOTE[$c,$w]:+, ${NOTE[$c,$w]}}" \
				"$(fmt_ratio "${BEST[$c,$w]}" "${BEST[$c,bare]}")" \
				"${TOT[$c,$w]}" "${PERW[$c,$w]}" \
				"$([ "$w" = 1 ] && echo "(is the worker)" || echo "${FIRST[$c,$w]}")" \
				"${MACH[$c,$w]}" "${TOT[$c,$w,h]}" "${PERW[$c,$w,h]}" \
				"${MACH[$c,$w,h]}"
		done
	done
	echo
	echo "CPU: utime + stime (/proc/PID/stat) of the concentrator's processes during $CPU_S s at $CPU_PPS and" \
		"at $((CPU_PPS / 2)) pps in all, in CPU seconds per million packets the kernel queued to the concentrator's" \
		"queues (per worker: its queues 2k, 2k+1 and its own time; with 1 worker the one process);" \
		"the machine: every CPU's busy time (/proc/stat) over the same packets: all boxes, the sender, the softirqs." \
		"Loss in the CPU runs: $(for k in "${!CLOSS[@]}"; do echo "${CLOSS[$k]}"; done | sort -n | sed -n '1p;$p' | paste -sd- -) %."
	for c in $CPES; do
		if [ -z "${WMEAN[$c,1,h]:-}" ] || [ -z "${WMEAN[$c,2]:-}" ]; then
			continue
		fi
		echo "$c CPEs, each worker at the same load ($((CPU_PPS / 2000)) kpps):" \
			"1 worker ${WMEAN[$c,1,h]} s per million packets, 2 workers ${WMEAN[$c,2]} per worker" \
			"(ratio $(awk -v a="${WMEAN[$c,2]}" -v b="${WMEAN[$c,1,h]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }'));" \
			"at the same total rate ($((CPU_PPS / 1000)) kpps): ${WMEAN[$c,1]} and ${WMEAN[$c,2]}" \
			"(ratio $(awk -v a="${WMEAN[$c,2]}" -v b="${WMEAN[$c,1]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }'))."
	done
	echo "Command: \`scripts/bench.sh --workers$([ $quick = 1 ] && echo " --quick")\`; every probe in workers-probes.log."
} >"$out/workers.md"
echo
cat "$out/workers.md"
