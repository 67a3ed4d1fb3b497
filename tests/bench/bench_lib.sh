# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# tests/bench/bench_lib.sh: what the benchmarks of tests/bench share
# (bench_fwd.sh, bench_workers.sh source it after tests/netns/lib.sh):
#   lock / unlock         the heavy-run lock, /tmp/l3b-heavy.lock (fd 9)
#   log MSG               to stderr and LOG
#   cpu_ticks PID         utime + stime, clock ticks
#   qdrops BOX Q          the kernel's drops at NFQUEUE Q in BOX
#   cpu_stat, cpu_usage   per-CPU busy / softirq between two snapshots
#   softnet_drops         CPU backlog drops, machine-wide
#   kv KEY TEXT           a key=value line's value
#   probe_result RES GOT  a probe's P_SENT_PPS, P_GOT_PPS, P_LOSS (%) and
#                         P_OK (loss under LOSS_MAX) from the sender's
#                         output and the packets delivered
#   search SIZE           the highest rate under LOSS_MAX % loss, by the
#                         caller's probe PPS SIZE (which sets P_OK,
#                         P_SENT_PPS, P_GOT_PPS); START_PPS, MAX_PPS, PREC
#   fmt_rate, fmt_ratio, fmt_pct, fmt_list   the tables' cells
#   bench_header          the table's first words: date, commit, kernel,
#                         cores, probes and precision (PROBE_S, PREC)
#   bench_args USAGE ARGS...   the options: --quick (quick=1), --out DIR,
#                         -h (the script's header), BUILD_DIR, and
#                         --no-callgrind (do_cg=0) where USAGE names it;
#                         sets build, out (made), exits 77 unless root;
#                         L3BONDD, L3B_TOOLS_DIR, PROBE, then bench_bins
#   bench_bins            checks L3BONDD and PROBE, sets SEND (l3b-bench-send
#                         of the build, else compiled into OUT: out)
#   bench_testbed         lib.sh's testbed, links unshaped, no emulator
#   nfq_bare_start BOX MATCH...   the bare NFQUEUE accept loop (nfq-probe,
#                         PROBE) on queue 0 for mangle FORWARD MATCH...;
#                         PROBE_PID; nfq_bare_stop undoes it
# Needs LOG (a file) set before the first log, and src and here (the
# source tree, the sourcing script's directory).
# shellcheck disable=SC2034,SC2154 # results for the caller; src, here: its

log() {
	echo "$*" | tee -a "$LOG" >&2
}

# --- the heavy-run lock ------------------------------------------------

LOCK=/tmp/l3b-heavy.lock
exec 9>"$LOCK"
lock() {
	local t0=$SECONDS
	flock 9
	if [ $((SECONDS - t0)) -gt 1 ]; then
		log "  (waited $((SECONDS - t0)) s for $LOCK)"
	fi
}
unlock() {
	flock -u 9
}

# --- small readers ------------------------------------------------------

# utime + stime of a process, in clock ticks
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# queue_dropped + user_dropped of NFQUEUE Q in BOX (0 when not bound)
qdrops() {
	tb_exec "$1" awk -v q="$2" '$1 == q { d = $6 + $7 } END { print d + 0 }' \
		/proc/net/netfilter/nfnetlink_queue
}

# per-CPU jiffies: "cpuN busy softirq idle" lines
cpu_stat() {
	awk '/^cpu[0-9]/ { idle = $5 + $6; si = $8; busy = 0
		for (i = 2; i <= NF; i++) busy += $i
		print $1, busy - idle, si, idle }' /proc/stat
}

# cpu_usage BEFORE AFTER: "cpu0 97% (si 60%) cpu1 ..." between two
# cpu_stat snapshots
cpu_usage() {
	awk 'NR == FNR { b[$1] = $2; s[$1] = $3; i[$1] = $4; next }
		{ db = $2 - b[$1]; ds = $3 - s[$1]; di = $4 - i[$1]
		  t = db + di; if (t <= 0) t = 1
		  printf "%s %.0f%% (si %.0f%%) ", $1, db * 100 / t, ds * 100 / t }' \
		<(echo "$1") <(echo "$2")
}

# packets the kernel dropped because a CPU's input backlog was full
# (machine-wide: veth hands every packet to a backlog)
softnet_drops() {
	local d=0 _ drop _rest
	while read -r _ drop _rest; do
		d=$((d + 16#$drop))
	done </proc/net/softnet_stat
	echo $d
}

kv() {
	sed -n "s/^$1=//p" <<<"$2"
}

probe_result() {
	local res=$1 got=$2 sent secs
	sent=$(kv sent "$res")
	secs=$(kv seconds "$res")
	P_SENT_PPS=$(kv pps "$res")
	P_GOT_PPS=$(awk -v g="$got" -v s="$secs" 'BEGIN { printf "%.0f", g / s }')
	P_LOSS=$(awk -v s="$sent" -v g="$got" \
		'BEGIN { printf "%.3f", s ? (s - g) * 100 / s : 100 }')
	P_OK=$(awk -v l="$P_LOSS" -v m="$LOSS_MAX" -v s="$sent" \
		'BEGIN { print (s > 0 && l < m) ? 1 : 0 }')
}

# search SIZE: the highest offered rate with loss < LOSS_MAX; sets
# S_PPS (offered pps), S_GOT (delivered pps at it) and S_NOTE.
search() {
	local size=$1 lo=0 lo_got=0 hi=0 r=$START_PPS
	S_NOTE=
	while :; do
		probe "$r" "$size"
		if [ "$P_OK" = 1 ]; then
			lo=$r lo_got=$P_GOT_PPS
			if awk -v s="$P_SENT_PPS" -v r="$r" 'BEGIN { exit !(s < 0.97 * r) }'; then
				S_NOTE="sender-limited"
				break
			fi
			if [ "$r" -ge "$MAX_PPS" ]; then
				S_NOTE="search cap"
				break
			fi
			r=$((r * 2))
		else
			hi=$r
			break
		fi
	done
	if [ "$hi" -gt 0 ]; then
		while awk -v lo="$lo" -v hi="$hi" -v p="$PREC" \
			'BEGIN { exit !((hi - lo) / hi > p) }'; do
			r=$(((lo + hi) / 2))
			probe "$r" "$size"
			if [ "$P_OK" = 1 ]; then
				lo=$r lo_got=$P_GOT_PPS
			else
				hi=$r
			fi
		done
	fi
	S_PPS=$lo
	S_GOT=$lo_got
}

# fmt_rate "pps pps ..." SIZE: "kpps (Mbit/s)" of the mean, with the range
fmt_rate() {
	awk -v l="$1" -v sz="$2" 'BEGIN {
		n = split(l, v, " "); s = 0; lo = hi = v[1]
		if (n == 0) { printf "-"; exit }
		for (i = 1; i <= n; i++) { s += v[i]; if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
		m = s / n
		printf "%.1f kpps = %.0f Mbit/s", m / 1e3, m * sz * 8 / 1e6
		if (n > 1) printf " (%.1f-%.1f kpps)", lo / 1e3, hi / 1e3
	}'
}

# fmt_ratio "bond..." "bare...": mean(bond) / mean(bare), range of the
# per-repetition ratios
fmt_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " "); sa = sb = 0
		for (i = 1; i <= n; i++) {
			sa += x[i]; sb += y[i]; r = y[i] ? x[i] / y[i] : 0
			if (i == 1 || r < lo) lo = r
			if (i == 1 || r > hi) hi = r
		}
		printf "%.2f", sb ? sa / sb : 0
		if (n > 1) printf " (%.2f-%.2f)", lo, hi
	}'
}

fmt_pct() {
	awk -v l="$1" 'BEGIN { n = split(l, v, " "); s = 0
		for (i = 1; i <= n; i++) { s += v[i]; if (i == 1 || v[i] < lo) lo = v[i]; if (i == 1 || v[i] > hi) hi = v[i] }
		printf "%.1f", s / n; if (n > 1) printf " (%.1f-%.1f)", lo, hi }'
}

fmt_list() {
	awk -v l="$1" 'BEGIN { n = split(l, v, " "); s = 0
		for (i = 1; i <= n; i++) { s += v[i]; o = o (i > 1 ? ", " : "") v[i] }
		printf "%.0f", s / n; if (n > 1) printf " (runs: %s)", o }'
}


bench_header() {
	local commit dirty=''
	commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if git -C "$src" status --porcelain -- gateway common 2>/dev/null |
		grep -q .; then
		dirty="+changes"
	fi
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$dirty, kernel $(uname -r), $(nproc) cores," \
		"$([ "$quick" = 1 ] && echo "--quick: " || echo)probes of $PROBE_S s, search precision $(awk -v p="$PREC" 'BEGIN { print p * 100 }') %"
}

# --- options and programs ----------------------------------------------------

bench_args() {
	local usage=$1
	shift
	quick=0 do_cg=1 out='' build=''
	while [ $# -gt 0 ]; do
		case $1 in
		--quick) quick=1 ;;
		--out)
			out=${2:?--out needs a directory}
			shift
			;;
		--out=*) out=${1#--out=} ;;
		-h | --help)
			sed -n '2,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'
			exit 0
			;;
		-*)
			if [ "$1" != --no-callgrind ] ||
				[[ $usage != *--no-callgrind* ]]; then
				echo "usage: $0 $usage" >&2
				exit 2
			fi
			do_cg=0
			;;
		*) build=$1 ;;
		esac
		shift
	done
	build=$(cd "${build:-$src/build}" && pwd)
	out=${out:-$build/bench}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root (network namespaces)"
		exit 77
	fi
	L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
	export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}
	PROBE=$L3B_TOOLS_DIR/nfq-probe
	bench_bins
}


bench_bins() {
	local f
	SEND=$build/tests/bench/l3b-bench-send
	for f in "$L3BONDD" "$PROBE"; do
		if [ ! -x "$f" ]; then
			echo "missing $f: build first (scripts/build.sh)" >&2
			exit 2
		fi
	done
	if [ ! -x "$SEND" ]; then
		SEND=$out/l3b-bench-send
		${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror \
			"$here/bench-send.c" -o "$SEND"
	fi
}

# --- the testbed and the bare loop ------------------------------------------

# bench_testbed: lib.sh's testbed with the links unshaped and without the
# link emulator (its queue rules dropped, its processes stopped: the only
# ones started so far), so every hop is a plain veth.
bench_testbed() {
	local box pid
	tb_init
	tb_setup dsl_rate=0 lte_rate=0 dsl_delay=0 lte_delay=0 dsl_jitter=0 \
		lte_jitter=0
	for box in dsl lte; do
		tb_exec "$box" iptables -w -t mangle -F FORWARD
	done
	for pid in "${TB_PIDS[@]}"; do
		kill -TERM "$pid"
		tb_wait "$pid" 10 || true
	done
}

# nfq_bare_start BOX MATCH...: BOX queues what mangle FORWARD MATCH...
# takes (where a daemon's ingress rule sits) to nfq-probe accept on queue
# 0, with the daemon's ingress queue settings (maxlen 4096, 8 MiB buffer):
# one verdict per packet, batched per drain.
PROBE_PID=
BARE_RULE=()
nfq_bare_start() {
	local box=$1 i
	shift
	BARE_RULE=("$box" "$@")
	tb_exec "$box" iptables -w -t mangle -A FORWARD "$@" \
		-j NFQUEUE --queue-num 0
	tb_bg "$box" "$TB_DIR/probe.log" "$PROBE" --maxlen=4096 \
		--rcvbuf=8388608 0 accept
	PROBE_PID=$TB_LAST_PID
	for ((i = 0; i < 100; i++)); do
		grep -q '^ready' "$TB_DIR/probe.log" && break
		sleep 0.05
	done
}

nfq_bare_stop() {
	kill -TERM "$PROBE_PID"
	tb_wait "$PROBE_PID" 10 || true
	tb_exec "${BARE_RULE[0]}" iptables -w -t mangle -D FORWARD \
		"${BARE_RULE[@]:1}" -j NFQUEUE --queue-num 0
}
