# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# tests/netns/lib.sh: the namespace test library.  Every script of
# tests/netns sources it (and tests/paper, tests/bench for the testbed); a
# script says what it checks, this file does the plumbing:
#   - checks, one output format: "PASS: NAME" / "FAIL: NAME: why", and
#     "N passed, M failed" at the end (tb_done), and JSON (what l3b-traffic,
#     l3b-linkem and the helpers print) read with jq: checks.sh, sourced
#     here;
#   - the l3bond testbed (section 5 of the shared design notes, not this
#     repository's DESIGN.md) built from network namespaces and veth
#     pairs, set up and torn down on any exit;
#   - traffic runs on it (udp, tcp, ping_count);
#   - the daemons on it (daemon_lib.sh, sourced at the end of this file).
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#                      ===lte=== [lte] ===lte===
#                                 NAT
#
#   cli  eth0 10.0.1.2 ---- lan 10.0.1.1   cpe
#   cpe  dsl  10.11.0.1 --- cpe 10.11.0.2  dsl  conc 10.12.0.2 --- dsl 10.12.0.1  conc
#   cpe  lte  10.21.0.1 --- cpe 10.21.0.2  lte  conc 10.22.0.2 --- lte 10.22.0.1  conc
#   conc lan  10.0.2.1 ---- eth0 10.0.2.2  srv
#
# Every box is a namespace named ${TB_PREFIX}<box>, TB_PREFIX = l3b-<pid>-
# by default, so parallel runs never meet.  Addresses exist only inside the
# namespaces.  dsl and lte are routers in the middle where the links are
# emulated, each direction on its own:
#   - rate: tbf on the egress veth (up = towards conc, down = towards cpe);
#   - delay, jitter, loss, cut: l3b-linkem on NFQUEUE 0 (up) and 1 (down),
#     hooked in mangle FORWARD by input device.  No --queue-bypass: if the
#     emulator dies, the link is cut, never silently undelayed.  A delay
#     counts from the kernel's receive stamp; what the emulator released
#     late because the machine was busy, tb_linkem_stats counts (late_*).
#     TB_LINKEM_RT=PRIO runs it under SCHED_FIFO (not by default: on this
#     2-core machine it took the CPUs from the daemons and the RRUL latency
#     grew, 2026-11-27).
# lte also emulates carrier-grade NAT: MASQUERADE towards conc, and nothing
# unsolicited gets in from conc.  Every link is FIFO: each veth end steers
# its packets to one CPU (see tb__rps).
#
# Without the bonding daemon, traffic cli <-> srv goes natively over dsl
# (cpe's default route).  For the daemon: cpe reaches conc's addresses on
# each link through that link (10.12.0.0/24 via dsl, 10.22.0.0/24 via lte),
# and routing tables 101 (dsl) and 102 (lte) with fwmark rules of the same
# numbers pin a socket to a link.
#
# Preamble: tb_require TOOL... (skip, exit 77, unless root and TOOLs),
#   tb_require_bin FILE... (exit 1 unless built).
# Checks (checks.sh; pass and fail count them):
#   ok NAME / bad NAME          one passed / failed check
#   check NAME EXPR K=V...      passes if the awk expression EXPR holds over
#                               the variables K=V (a rate: rate_check, only
#                               printed in a sanitizer build)
#   check_cmd NAME CMD...       passes if CMD succeeds
#   jcheck NAME FILE EXPR       check over the members of a JSON object
#   tb_done                     prints the totals; false if any failed
#   tb_abort                    prints the totals, exits 1
# JSON: jget FILE KEY [DEFAULT] (a member of the first object holding it),
#   json_members FILE (key=value lines).
# Traffic (l3b-traffic; receivers write $TB_DIR/NAME.rx.json):
#   udp FROM TO DST NAME SEND-ARGS...   UDP_DURATION s (3), receiver waits
#                               UDP_SLACK s more (5), lingers UDP_LINGER_MS
#   tcp FROM TO DST NAME BYTES  a verified bulk transfer
#   ping_count BOX DST [N]      echo replies received of N (5)
#   udp6 / tcp6                 the same over IPv6 (ip6_traffic.py)
#   tb_wait_file FILE [TRIES]   waits for a ready file (TRIES x 20 ms)
#
# Testbed API (all tb_ functions; "PATH" is dsl or lte, "DIR" up, down or
# both):
#   tb_init [--no-tools]        checks tools (not with --no-tools: a script
#                               with its own topology), makes TB_DIR (in
#                               /tmp) and TB_RUN_DIR (on a tmpfs: in
#                               TB_RUN_ROOT, /dev/shm; else TB_DIR) for
#                               what the daemons write every second,
#                               installs the traps
#   tb_netns_add NAME           a namespace NAME (lo up), deleted on exit
#   tb_setup [key=value...]     builds everything; keys: {dsl,lte}[_{up,down}]_
#                               {rate (Mbit/s, 0 = none),delay,jitter (ms),loss
#                               (0..1),qlat (tbf queue, ms)}, seed=N
#   tb_exec BOX cmd...          runs cmd in a box
#   tb_bg BOX LOG cmd...        starts cmd in a box in the background;
#                               TB_LAST_PID is its PID (call it in this
#                               shell, not in $(...): the PID must be ours)
#   tb_wait PID [SECONDS]       waits for it (kills it at the timeout: 124)
#   tb_linkem_set PATH DIR PARAMS...   e.g. delay 25 jitter 20 loss 0.01
#   tb_linkem_stats PATH DIR [mark]  prints the emulator's counters (JSON);
#                               mark: its late_mark_max_us starts again
#   tb_rate PATH DIR MBIT       changes the tbf rate at run time
#   tb_cut PATH / tb_heal PATH  link down / up, both directions
#   tb_flap PATH CUT_MS HEAL_MS SECS   cut and healed in turn, for SECS s
#   tb_site_setup N             CPE site N (2..9) beside site 1: cliN,
#                               cpeN (see "more CPE sites" below)
#   tb_teardown                 kills what we started (by PID), deletes
#                               the namespaces, TB_DIR and TB_RUN_DIR;
#                               runs on EXIT.
#                               Sanitizer reports in the background tools'
#                               logs are printed, counted in TB_SAN_REPORTS
#                               and make it return 1
#
# Needs root, iproute2, iptables (xt_NFQUEUE, conntrack, MASQUERADE), tc
# with tbf, and l3b-linkem / l3b-traffic in L3B_TOOLS_DIR.

TB_PREFIX=${TB_PREFIX:-l3b-$$-}
TB_PY6=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ip6_traffic.py
TB_BOXES=(cli cpe dsl lte conc srv)
TB_PIDS=()
TB_NS_MADE=()
TB_DIR=
TB_RUN_DIR=
TB_LAST_PID=
TB_SAN_REPORTS=0
declare -A TB_CFG=()

TB_CLI_IP=10.0.1.2
TB_CPE_LAN_IP=10.0.1.1
TB_CPE_DSL_IP=10.11.0.1
TB_DSL_CPE_IP=10.11.0.2
TB_DSL_CONC_IP=10.12.0.2
TB_CONC_DSL_IP=10.12.0.1
TB_CPE_LTE_IP=10.21.0.1
TB_LTE_CPE_IP=10.21.0.2
TB_LTE_CONC_IP=10.22.0.2 # the carrier NAT's public address
TB_CONC_LTE_IP=10.22.0.1
TB_CONC_LAN_IP=10.0.2.1
TB_SRV_IP=10.0.2.2
TB_DSL_MARK=101
TB_LTE_MARK=102

# tb_require TOOL...: exits 77 (ctest's skip) unless root and every TOOL
# is installed (jq, which this library reads JSON with, always).
tb_require() {
	local t
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root (network namespaces)"
		exit 77
	fi
	for t in jq "$@"; do
		if ! command -v "$t" >/dev/null; then
			echo "SKIP: $t not installed"
			exit 77
		fi
	done
}

# tb_require_bin FILE...: exits 1 unless every FILE is executable (a
# missing daemon is a broken build, not a skip).
tb_require_bin() {
	local b
	for b in "$@"; do
		if [ ! -x "$b" ]; then
			echo "FAIL: no $b"
			exit 1
		fi
	done
}

tb_log() {
	echo "tb: $*" >&2
}

tb_ns() {
	echo "${TB_PREFIX}$1"
}

tb_exec() {
	local box=$1
	shift
	ip netns exec "${TB_PREFIX}${box}" "$@"
}

# ---- checks and JSON: checks.sh (also used by tests/ops, tests/openwrt) ----

# shellcheck source=checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"

# ---- the testbed -------------------------------------------------------------

tb__on_err() {
	tb_log "command failed (status $1) at ${BASH_SOURCE[2]:-?}:$2: $3"
}

# A run killed with SIGKILL (ctest's timeout) cannot tear down: its
# namespaces l3b-PID-* stay.  Those of a PID no longer alive, with no
# process left in them, are removed at the next start.
# tb__gone NAME: NAME (l3b-PID-...) is a run's whose PID is gone
tb__gone() {
	local pid=${1##*l3b-}
	! kill -0 "${pid%%-*}" 2>/dev/null
}

tb__sweep() {
	local ns d
	for ns in $(ip netns list 2>/dev/null | awk '/^l3b-[0-9]+-/ { print $1 }'); do
		tb__gone "$ns" || continue
		[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] || continue
		ip netns del "$ns" 2>/dev/null &&
			tb_log "removed $ns, left by a run killed before its teardown"
	done
	# the tmpfs directories of such runs hold memory
	for d in "${TB_RUN_ROOT:-/dev/shm}"/l3b-[0-9]*-*; do
		[ -d "$d" ] && tb__gone "$d" || continue
		rm -rf "$d" && tb_log "removed $d, left by a run killed before its teardown"
	done
}

tb_init() {
	if [ "$(id -u)" -ne 0 ]; then
		tb_log "needs root"
		return 1
	fi
	if [ "${1:-}" != --no-tools ]; then
		L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-}
		TB_LINKEM=${TB_LINKEM:-$L3B_TOOLS_DIR/l3b-linkem}
		TB_TRAFFIC=${TB_TRAFFIC:-$L3B_TOOLS_DIR/l3b-traffic}
		if [ ! -x "$TB_LINKEM" ] || [ ! -x "$TB_TRAFFIC" ]; then
			tb_log "l3b-linkem / l3b-traffic not found in" \
				"'$L3B_TOOLS_DIR' (set L3B_TOOLS_DIR)"
			return 1
		fi
	fi
	tb__sweep
	TB_DIR=$(mktemp -d "/tmp/${TB_PREFIX}XXXXXX")
	# What a daemon writes every second (its status file) goes to a
	# tmpfs: a write on a disk the machine shares took 60-500 ms under
	# load, stalled both daemons at once, and their paths were found
	# suspect (2026-11-27).  A real status file belongs in /run.
	if ! TB_RUN_DIR=$(mktemp -d \
		"${TB_RUN_ROOT:-/dev/shm}/${TB_PREFIX}XXXXXX" 2>/dev/null); then
		tb_log "no tmpfs at ${TB_RUN_ROOT:-/dev/shm}: the status files" \
			"go to $TB_DIR (a busy disk can stall the daemons)"
		TB_RUN_DIR=$TB_DIR
	fi
	set -E
	trap 'tb__on_err $? $LINENO "$BASH_COMMAND"' ERR
	trap 'tb_teardown' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# tb_netns_add NAME: a namespace of a script's own topology, lo up;
# tb_teardown deletes it.
tb_netns_add() {
	ip netns add "$1"
	TB_NS_MADE+=("$1")
	ip -n "$1" link set lo up
}

# The value of key for PATH DIR: PATH_DIR_key, else PATH_key, else default.
tb__param() {
	local path=$1 dir=$2 key=$3 def=$4
	local v=${TB_CFG[${path}_${dir}_${key}]:-${TB_CFG[${path}_${key}]:-$def}}
	echo "$v"
}

# ip -n NS link add A type veth peer name B netns NS2
tb__veth() {
	local ns1=$1 dev1=$2 ns2=$3 dev2=$4
	ip -n "$(tb_ns "$ns1")" link add "$dev1" type veth peer name "$dev2" \
		netns "$(tb_ns "$ns2")"
	ip -n "$(tb_ns "$ns1")" link set "$dev1" up
	ip -n "$(tb_ns "$ns2")" link set "$dev2" up
}

# Every veth end hands its packets to one fixed CPU (RPS with a one-CPU
# mask).  Without it a packet goes to the backlog of whatever CPU sent it:
# a sender or emulator that migrates between CPUs, or a busy CPU whose
# softirqs are deferred to ksoftirqd, lets later packets overtake earlier
# ones, and the links would not be FIFO.  Upstream receivers (cli -> srv)
# use CPU 0, downstream ones CPU 1, to spread the load.
tb__rps() {
	local ncpu up down box dev box_dev
	ncpu=$(nproc)
	up=$(printf '%x' $((1 << 0)))
	down=$(printf '%x' $((1 << (1 % ncpu))))
	for box_dev in cpe:lan dsl:cpe lte:cpe conc:dsl conc:lte srv:eth0; do
		box=${box_dev%%:*} dev=${box_dev#*:}
		tb_exec "$box" sh -c "echo $up > /sys/class/net/$dev/queues/rx-0/rps_cpus"
	done
	for box_dev in cli:eth0 cpe:dsl cpe:lte dsl:conc lte:conc conc:lan; do
		box=${box_dev%%:*} dev=${box_dev#*:}
		tb_exec "$box" sh -c "echo $down > /sys/class/net/$dev/queues/rx-0/rps_cpus"
	done
}

tb__addr() {
	ip -n "$(tb_ns "$1")" addr add "$3/24" dev "$2"
}

tb__sysctl() {
	local box=$1
	shift
	tb_exec "$box" sysctl -qw "$@" >/dev/null
}

tb__tbf() {
	local box=$1 dev=$2 rate=$3 qlat=$4 op=${5:-replace}
	local burst
	if [ "$rate" = 0 ]; then
		tc -n "$(tb_ns "$box")" qdisc del dev "$dev" root 2>/dev/null || true
		return 0
	fi
	# Enough tokens for 2 ms at the rate, and never less than a few
	# packets: the long-term rate is exact either way.
	burst=$(awk -v r="$rate" 'BEGIN { b = r * 1e6 / 8 * 0.002;
		if (b < 16000) b = 16000; printf "%d", b }')
	tc -n "$(tb_ns "$box")" qdisc "$op" dev "$dev" root tbf \
		rate "${rate}mbit" burst "$burst" latency "${qlat}ms"
}

tb__linkem_start() {
	local path=$1 dir=$2 queue=$3 seed=$4
	local sock=$TB_DIR/$path-$dir.sock i
	tb_bg "$path" "$TB_DIR/$path-$dir.log" "$TB_LINKEM" --queue "$queue" \
		--delay "$(tb__param "$path" "$dir" delay 0)" \
		--jitter "$(tb__param "$path" "$dir" jitter 0)" \
		--loss "$(tb__param "$path" "$dir" loss 0)" \
		--seed "$seed" --ctl "$sock" --stats "$TB_DIR/$path-$dir.stats" \
		--rt "${TB_LINKEM_RT:-0}"
	# The control socket appears once the queue is bound.
	for ((i = 0; i < 100; i++)); do
		[ -S "$sock" ] && return 0
		kill -0 "$TB_LAST_PID" 2>/dev/null || break
		sleep 0.05
	done
	tb_log "l3b-linkem $path $dir did not start:"
	cat "$TB_DIR/$path-$dir.log" >&2
	return 1
}

# Delay/jitter/loss on NFQUEUE, rate with tbf, both directions of one link.
tb__link() {
	local path=$1 seed=$2
	tb_exec "$path" iptables -w -t mangle -A FORWARD -i cpe \
		-j NFQUEUE --queue-num 0
	tb_exec "$path" iptables -w -t mangle -A FORWARD -i conc \
		-j NFQUEUE --queue-num 1
	tb__tbf "$path" conc "$(tb__param "$path" up rate 0)" \
		"$(tb__param "$path" up qlat 50)"
	tb__tbf "$path" cpe "$(tb__param "$path" down rate 0)" \
		"$(tb__param "$path" down qlat 50)"
	tb__linkem_start "$path" up 0 "$seed"
	tb__linkem_start "$path" down 1 "$((seed + 1))"
}

tb_setup() {
	local kv box seed
	if [ -z "$TB_DIR" ]; then
		tb_init
	fi
	# the shared design notes, section 5
	TB_CFG=([dsl_rate]=64 [dsl_delay]=13 [dsl_jitter]=0 [dsl_loss]=0
		[lte_rate]=60 [lte_delay]=25 [lte_jitter]=20 [lte_loss]=0
		[seed]=1)
	for kv in "$@"; do
		if [[ "$kv" != *=* ]]; then
			tb_log "tb_setup: want key=value, got '$kv'"
			return 1
		fi
		# a misspelt key would leave the bed at its default unseen
		if ! [[ "${kv%%=*}" =~ ^((dsl|lte)(_up|_down)?_(rate|delay|jitter|loss|qlat)|seed)$ ]]; then
			tb_log "tb_setup: unknown key '${kv%%=*}'"
			return 1
		fi
		TB_CFG[${kv%%=*}]=${kv#*=}
	done
	seed=${TB_CFG[seed]}

	for box in "${TB_BOXES[@]}"; do
		tb_netns_add "$(tb_ns "$box")"
		tb__sysctl "$box" net.ipv4.conf.all.rp_filter=2 \
			net.ipv4.conf.default.rp_filter=2
	done
	for box in cpe dsl lte conc; do
		tb__sysctl "$box" net.ipv4.ip_forward=1
	done

	tb__veth cli eth0 cpe lan
	tb__veth cpe dsl dsl cpe
	tb__veth dsl conc conc dsl
	tb__veth cpe lte lte cpe
	tb__veth lte conc conc lte
	tb__veth conc lan srv eth0
	tb__rps

	tb__addr cli eth0 $TB_CLI_IP
	tb__addr cpe lan $TB_CPE_LAN_IP
	tb__addr cpe dsl $TB_CPE_DSL_IP
	tb__addr dsl cpe $TB_DSL_CPE_IP
	tb__addr dsl conc $TB_DSL_CONC_IP
	tb__addr conc dsl $TB_CONC_DSL_IP
	tb__addr cpe lte $TB_CPE_LTE_IP
	tb__addr lte cpe $TB_LTE_CPE_IP
	tb__addr lte conc $TB_LTE_CONC_IP
	tb__addr conc lte $TB_CONC_LTE_IP
	tb__addr conc lan $TB_CONC_LAN_IP
	tb__addr srv eth0 $TB_SRV_IP

	tb_exec cli ip route add default via $TB_CPE_LAN_IP
	tb_exec srv ip route add default via $TB_CONC_LAN_IP

	tb_exec cpe ip route add default via $TB_DSL_CPE_IP dev dsl
	tb_exec cpe ip route add 10.12.0.0/24 via $TB_DSL_CPE_IP dev dsl
	tb_exec cpe ip route add 10.22.0.0/24 via $TB_LTE_CPE_IP dev lte
	tb_exec cpe ip route add default via $TB_DSL_CPE_IP dev dsl table $TB_DSL_MARK
	tb_exec cpe ip route add default via $TB_LTE_CPE_IP dev lte table $TB_LTE_MARK
	tb_exec cpe ip rule add fwmark $TB_DSL_MARK table $TB_DSL_MARK
	tb_exec cpe ip rule add fwmark $TB_LTE_MARK table $TB_LTE_MARK

	tb_exec dsl ip route add 10.0.1.0/24 via $TB_CPE_DSL_IP
	tb_exec dsl ip route add 10.0.2.0/24 via $TB_CONC_DSL_IP

	# The carrier: everything goes to conc's side, behind NAT.
	tb_exec lte ip route add default via $TB_CONC_LTE_IP
	tb_exec lte ip route add 10.0.1.0/24 via $TB_CPE_LTE_IP
	tb_exec lte iptables -w -t nat -A POSTROUTING -o conc -j MASQUERADE
	tb_exec lte iptables -w -A FORWARD -i conc \
		-m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
	tb_exec lte iptables -w -A FORWARD -i conc -j DROP
	tb_exec lte iptables -w -A INPUT -i conc \
		-m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
	tb_exec lte iptables -w -A INPUT -i conc -j DROP

	tb_exec conc ip route add 10.0.1.0/24 via $TB_DSL_CONC_IP dev dsl
	tb_exec conc ip route add 10.11.0.0/24 via $TB_DSL_CONC_IP dev dsl

	tb__link dsl "$((seed * 10))"
	tb__link lte "$((seed * 10 + 2))"
}

tb_bg() {
	local box=$1 log=$2
	shift 2
	ip netns exec "${TB_PREFIX}${box}" "$@" >"$log" 2>&1 &
	TB_LAST_PID=$!
	TB_PIDS+=("$TB_LAST_PID")
}

tb__forget() {
	local pid=$1 i
	for i in "${!TB_PIDS[@]}"; do
		if [ "${TB_PIDS[$i]}" = "$pid" ]; then
			unset "TB_PIDS[$i]"
		fi
	done
}

# Is pid a live child of this shell?  Never signal a recycled PID.
tb__ours() {
	local pid=$1 stat
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	# Fields after the command name, which may hold spaces: state ppid ...
	stat=${stat##*) }
	set -- $stat
	[ "${2:-}" = "$$" ]
}

tb_wait() {
	local pid=$1 secs=${2:-60} i rc=0
	for ((i = 0; i < secs * 10; i++)); do
		tb__ours "$pid" || break
		grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
		sleep 0.1
	done
	if tb__ours "$pid" && ! grep -q '^State:.*Z' "/proc/$pid/status"; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		tb__forget "$pid"
		return 124
	fi
	wait "$pid" || rc=$?
	tb__forget "$pid"
	return $rc
}

# tb_wait_file FILE [TRIES]: waits until FILE exists (a receiver's ready
# file), TRIES times 20 ms (100); false if it never appeared.
tb_wait_file() {
	local f=$1 n=${2:-100} i
	for ((i = 0; i < n; i++)); do
		[ -e "$f" ] && return 0
		sleep 0.02
	done
	return 1
}

# ---- traffic ---------------------------------------------------------------

# udp FROM TO DST NAME SEND-ARGS...: a receiver in box TO, a sender in box
# FROM for UDP_DURATION s (3); reports in $TB_DIR/NAME.tx.json and
# NAME.rx.json.  The receiver stops UDP_SLACK s (5) after the sender's
# end, or UDP_LINGER_MS (500) after the last packet.
udp() {
	local from=$1 to=$2 dst=$3 name=$4 rx
	shift 4
	local dur=${UDP_DURATION:-3}
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration "$((dur + ${UDP_SLACK:-5}))" \
		--linger-ms "${UDP_LINGER_MS:-500}" \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_exec "$from" "$TB_TRAFFIC" send --dst "$dst" --port 5000 \
		--duration "$dur" --json "$TB_DIR/$name.tx.json" "$@" >/dev/null
	tb_wait "$rx" $((dur + 15)) || true
}

# tcp FROM TO DST NAME BYTES: a verified transfer of BYTES; the receiver's
# report (goodput, complete, corrupted_bytes) in $TB_DIR/NAME.rx.json.
tcp() {
	local from=$1 to=$2 dst=$3 name=$4 bytes=$5 rx
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.json" "$TB_TRAFFIC" tcp-recv --port 5001 \
		--duration "${TCP_DURATION:-30}" --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_exec "$from" "$TB_TRAFFIC" tcp-send --dst "$dst" --port 5001 \
		--bytes "$bytes" >"$TB_DIR/$name.tx.json" 2>&1 || true
	tb_wait "$rx" $((${TCP_DURATION:-30} + 5)) || true
}

# ping_count BOX DST [N]: how many of N (5) echo requests, 100 ms apart,
# were answered within 500 ms.
ping_count() {
	local f=$TB_DIR/ping.json
	rm -f "$f"
	tb_exec "$1" "$TB_TRAFFIC" ping --dst "$2" --count "${3:-5}" \
		--interval-ms 100 --timeout-ms 500 --json "$f" >/dev/null || true
	jget "$f" received
}

# tb__py6_recv TO NAME ARGS...: ip6_traffic.py's receiver (ARGS) in box
# TO, its report in $TB_DIR/NAME.rx.json; returns once it is listening (it
# says so on stderr, into NAME.ready).  TB_LAST_PID is its PID.
tb__py6_recv() {
	local to=$1 name=$2 i
	shift 2
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.json" sh -c \
		"python3 '$TB_PY6' $* 2>'$TB_DIR/$name.ready'"
	for ((i = 0; i < 100; i++)); do
		[ -s "$TB_DIR/$name.ready" ] && return 0
		sleep 0.05
	done
}

# udp6 FROM TO DST NAME COUNT SIZE [SRC]: IPv6 (ip6_traffic.py: l3b-traffic
# speaks IPv4 only), COUNT datagrams of SIZE bytes, 5 ms apart, to port
# 5006; the receiver's JSON in NAME.rx.json
udp6() {
	local from=$1 to=$2 dst=$3 name=$4 count=$5 size=$6 src=${7:-} rx
	tb__py6_recv "$to" "$name" udp-recv 5006 $((count / 100 + 4))
	rx=$TB_LAST_PID
	tb_exec "$from" python3 "$TB_PY6" udp-send "$dst" 5006 "$count" "$size" \
		5 ${src:+"$src"} >"$TB_DIR/$name.tx.json"
	tb_wait "$rx" $((count / 100 + 20)) || true
}

# tcp6 FROM TO DST NAME BYTES: an IPv6 TCP transfer, verified
tcp6() {
	local from=$1 to=$2 dst=$3 name=$4 bytes=$5 rx
	tb__py6_recv "$to" "$name" tcp-recv 5007 30
	rx=$TB_LAST_PID
	tb_exec "$from" python3 "$TB_PY6" tcp-send "$dst" 5007 "$bytes" \
		>"$TB_DIR/$name.tx.json" 2>&1 || true
	tb_wait "$rx" 35 || true
}

tb__dirs() {
	case $1 in
	both) echo up down ;;
	up | down) echo "$1" ;;
	*)
		tb_log "direction must be up, down or both, not '$1'"
		return 1
		;;
	esac
}

tb__path() {
	case $1 in
	dsl | lte) return 0 ;;
	*)
		tb_log "path must be dsl or lte, not '$1'"
		return 1
		;;
	esac
}

tb_linkem_set() {
	local path=$1 dirs d out
	dirs=$(tb__dirs "$2") || return 1
	tb__path "$path" || return 1
	shift 2
	for d in $dirs; do
		if ! out=$("$TB_LINKEM" ctl "$TB_DIR/$path-$d.sock" "$@"); then
			tb_log "linkem $path $d: $* -> $out"
			return 1
		fi
	done
}

tb_linkem_stats() {
	tb__path "$1" || return 1
	"$TB_LINKEM" ctl "$TB_DIR/$1-$2.sock" stats "${@:3}"
}

tb_rate() {
	local path=$1 dirs d rate=$3
	dirs=$(tb__dirs "$2") || return 1
	tb__path "$path" || return 1
	for d in $dirs; do
		if [ "$d" = up ]; then
			tb__tbf "$path" conc "$rate" "$(tb__param "$path" up qlat 50)"
		else
			tb__tbf "$path" cpe "$rate" "$(tb__param "$path" down qlat 50)"
		fi
	done
}

tb_cut() {
	tb_linkem_set "$1" both down
}

tb_heal() {
	tb_linkem_set "$1" both up
}

# tb_flap PATH CUT_MS HEAL_MS SECS: PATH cut for CUT_MS, healed for
# HEAL_MS, over and over for SECS s, healed at the end; the number of cuts
# on stdout.  The times are deadlines from the start, so the pattern does
# not drift with what the commands take.  Run it in the background (&,
# stdout to a file) beside a flow.
tb_flap() {
	local path=$1 cut=$2 heal=$3 secs=$4 t end n=0
	t=$EPOCHREALTIME
	end=$(awk -v t="$t" -v s="$secs" 'BEGIN { printf "%.6f", t + s }')
	while awk -v t="$t" -v e="$end" 'BEGIN { exit !(t < e) }'; do
		sleep "$(awk -v t="$t" -v n="$EPOCHREALTIME" \
			'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')"
		if ((n % 2 == 0)); then
			tb_cut "$path"
			t=$(awk -v t="$t" -v d="$cut" 'BEGIN { printf "%.6f", t + d / 1000 }')
		else
			tb_heal "$path"
			t=$(awk -v t="$t" -v d="$heal" 'BEGIN { printf "%.6f", t + d / 1000 }')
		fi
		n=$((n + 1))
	done
	tb_heal "$path"
	echo $(((n + 1) / 2))
}

tb_teardown() {
	local rc=$? pid ns i left log d run
	trap - EXIT ERR INT TERM
	set +e
	# Newest first: the traffic, then the emulators.
	for ((i = ${#TB_PIDS[@]} - 1; i >= 0; i--)); do
		pid=${TB_PIDS[$i]:-}
		[ -n "$pid" ] && tb__ours "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${TB_PIDS[@]}"; do
		for ((i = 0; i < 30; i++)); do
			tb__ours "$pid" || break
			grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
			sleep 0.1
		done
		tb__ours "$pid" && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	TB_PIDS=()
	# Sanitizer reports of background tools (ASan builds) would otherwise
	# vanish with TB_DIR.
	TB_SAN_REPORTS=0
	if [ -n "$TB_DIR" ] && [ -d "$TB_DIR" ]; then
		for log in "$TB_DIR"/*.log; do
			[ -e "$log" ] || continue
			if grep -qE 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$log"; then
				TB_SAN_REPORTS=$((TB_SAN_REPORTS + 1))
				tb_log "sanitizer report in $log:"
				cat "$log" >&2
			fi
		done
	fi
	if [ "$TB_SAN_REPORTS" -gt 0 ] && [ "$rc" -eq 0 ]; then
		rc=1
	fi
	for ns in "${TB_NS_MADE[@]}"; do
		left=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		if [ -n "$left" ]; then
			tb_log "processes not started by us left in $ns: $left"
		fi
		ip netns del "$ns" 2>/dev/null
	done
	TB_NS_MADE=()
	run=
	[ "${TB_RUN_DIR:-}" = "$TB_DIR" ] || run=${TB_RUN_DIR:-}
	for d in "$TB_DIR" "$run"; do
		if [ -n "$d" ] && [ -d "$d" ]; then
			if [ -n "${TB_KEEP:-}" ]; then
				tb_log "kept $d"
			else
				rm -rf "$d"
			fi
		fi
	done
	TB_DIR= TB_RUN_DIR=
	return $rc
}

# ---- more CPE sites (tests of many CPEs on one concentrator) ----------------
#
#   cliN ---------- cpeN ===dsl=== [dsl] ===dsl=== conc ---------- srv
#                        ===lte=== [lte] (NAT) =lte=
#
#   site N (2..9):
#   cliN eth0 10.0.<N+1>.2 ---- lan 10.0.<N+1>.1   cpeN
#   cpeN dsl  10.<11+N>.0.1 --- cpeN 10.<11+N>.0.2 dsl
#   cpeN lte  10.<21+N>.0.1 --- cpeN 10.<21+N>.0.2 lte
#   (site 2: 10.0.3.0/24, 10.13.0.0/24, 10.23.0.0/24)
#
# tb_site_setup N (after tb_setup): site N reaches the concentrator
# through the same access routers as site 1, each on its own link into
# them (device cpeN in dsl and lte): its own addresses, its own
# down-direction tbf (the rates of tb_setup's down direction), the same
# up-direction emulator (l3b-linkem queue 0: the same delay, jitter and
# loss), and on LTE the same carrier NAT, so every site's LTE path comes
# from one public address.  The links towards conc are shared.  Natively
# (no daemon) site N goes over dsl like site 1.  cpeN has the routing
# tables and fwmark rules of cpe.  tb_site_ip N ROLE prints an address
# (ROLE: cli, cpe_lan, cpe_dsl, dsl_cpe, cpe_lte, lte_cpe); tb_site2_setup
# is tb_site_setup 2, whose addresses are also in TB_CLI2_IP and the like.
# shellcheck disable=SC2034 # for the tests (test_cpes.sh)
declare TB_CLI2_IP=10.0.3.2 TB_CPE2_LAN_IP=10.0.3.1 \
	TB_CPE2_DSL_IP=10.13.0.1 TB_DSL_CPE2_IP=10.13.0.2 \
	TB_CPE2_LTE_IP=10.23.0.1 TB_LTE_CPE2_IP=10.23.0.2

tb_site_ip() {
	local n=$1
	case $2 in
	cli) echo "10.0.$((n + 1)).2" ;;
	cpe_lan) echo "10.0.$((n + 1)).1" ;;
	cpe_dsl) echo "10.$((11 + n)).0.1" ;;
	dsl_cpe) echo "10.$((11 + n)).0.2" ;;
	cpe_lte) echo "10.$((21 + n)).0.1" ;;
	lte_cpe) echo "10.$((21 + n)).0.2" ;;
	*)
		tb_log "tb_site_ip: no address '$2'"
		return 1
		;;
	esac
}

tb_site_setup() {
	local n=$1 box up down box_dev dev path cli cpe
	if ! [[ "$n" =~ ^[2-9]$ ]]; then
		tb_log "tb_site_setup: site number 2..9, not '$n'"
		return 1
	fi
	cli=cli$n cpe=cpe$n
	for box in "$cli" "$cpe"; do
		tb_netns_add "$(tb_ns "$box")"
		tb__sysctl "$box" net.ipv4.conf.all.rp_filter=2 \
			net.ipv4.conf.default.rp_filter=2
	done
	tb__sysctl "$cpe" net.ipv4.ip_forward=1
	tb__veth "$cli" eth0 "$cpe" lan
	tb__veth "$cpe" dsl dsl "$cpe"
	tb__veth "$cpe" lte lte "$cpe"
	# FIFO links, as tb__rps: upstream receivers CPU 0, downstream CPU 1
	up=$(printf '%x' $((1 << 0)))
	down=$(printf '%x' $((1 << (1 % $(nproc)))))
	for box_dev in "$cpe:lan" "dsl:$cpe" "lte:$cpe"; do
		box=${box_dev%%:*} dev=${box_dev#*:}
		tb_exec "$box" sh -c "echo $up > /sys/class/net/$dev/queues/rx-0/rps_cpus"
	done
	for box_dev in "$cli:eth0" "$cpe:dsl" "$cpe:lte"; do
		box=${box_dev%%:*} dev=${box_dev#*:}
		tb_exec "$box" sh -c "echo $down > /sys/class/net/$dev/queues/rx-0/rps_cpus"
	done

	tb__addr "$cli" eth0 "$(tb_site_ip "$n" cli)"
	tb__addr "$cpe" lan "$(tb_site_ip "$n" cpe_lan)"
	tb__addr "$cpe" dsl "$(tb_site_ip "$n" cpe_dsl)"
	tb__addr dsl "$cpe" "$(tb_site_ip "$n" dsl_cpe)"
	tb__addr "$cpe" lte "$(tb_site_ip "$n" cpe_lte)"
	tb__addr lte "$cpe" "$(tb_site_ip "$n" lte_cpe)"

	tb_exec "$cli" ip route add default via "$(tb_site_ip "$n" cpe_lan)"
	tb_exec "$cpe" ip route add default via "$(tb_site_ip "$n" dsl_cpe)" dev dsl
	tb_exec "$cpe" ip route add 10.12.0.0/24 via "$(tb_site_ip "$n" dsl_cpe)" dev dsl
	tb_exec "$cpe" ip route add 10.22.0.0/24 via "$(tb_site_ip "$n" lte_cpe)" dev lte
	tb_exec "$cpe" ip route add default via "$(tb_site_ip "$n" dsl_cpe)" dev dsl table $TB_DSL_MARK
	tb_exec "$cpe" ip route add default via "$(tb_site_ip "$n" lte_cpe)" dev lte table $TB_LTE_MARK
	tb_exec "$cpe" ip rule add fwmark $TB_DSL_MARK table $TB_DSL_MARK
	tb_exec "$cpe" ip rule add fwmark $TB_LTE_MARK table $TB_LTE_MARK

	tb_exec dsl ip route add "10.0.$((n + 1)).0/24" via "$(tb_site_ip "$n" cpe_dsl)"
	tb_exec lte ip route add "10.0.$((n + 1)).0/24" via "$(tb_site_ip "$n" cpe_lte)"
	tb_exec conc ip route add "10.0.$((n + 1)).0/24" via $TB_DSL_CONC_IP dev dsl
	tb_exec conc ip route add "10.$((11 + n)).0.0/24" via $TB_DSL_CONC_IP dev dsl

	for path in dsl lte; do
		# after tb__link's rules: the same up-direction emulator
		tb_exec "$path" iptables -w -t mangle -A FORWARD -i "$cpe" \
			-j NFQUEUE --queue-num 0
		tb__tbf "$path" "$cpe" "$(tb__param "$path" down rate 0)" \
			"$(tb__param "$path" down qlat 50)"
	done
}

tb_site2_setup() {
	tb_site_setup 2
}

# ---- the daemons -------------------------------------------------------------

# shellcheck source=daemon_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemon_lib.sh"
