#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/quality/run.sh: l3bond measured the way users measure it (entry:
# scripts/quality.sh).  On the namespace testbed with both daemons real,
# for each link buffer, in the same run: DSL alone (no daemon: the traffic
# goes natively over the DSL), the paper's algorithm (queue target 0 and T_lto 50 ms: loss
# is the only congestion signal), l3bond with its defaults (the DSL's rate
# learned: rate_auto), l3bond with the DSL's rate configured on both boxes
# (rate_mbit = 64: paced), and (mode weights) l3bond without either
# (rate_auto = false: the queue target and the weights alone), and (mode
# norepair) the defaults without the repair of line errors
# (repair_queue_ms = 0); mode auto (rate_auto = true said in the config)
# is the defaults too.
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#   iperf3, ping, irtt,           NAT                    iperf3, irtt server,
#   l3b-traffic                                          l3b-traffic
#   DSL 64 Mbit/s 13 ms, LTE 60 Mbit/s 25 ms + 0..20 ms FIFO jitter, both
#   directions; link buffer (tbf latency) BUF ms on both.
#
# Cases, each direction in its own run:
#   tcp    Debian's iperf3, 1 and 4 streams, down (srv -> cli) and up, with
#          cubic and bbr senders (iperf3 -C): goodput, retransmits, the
#          bytes each line carried (tbf counters);
#   rrul   4 TCP streams down and 4 up, a ping every 10 ms and irtt's
#          VoIP-like stream (-i 20ms -l 172): added latency p50/p99 over
#          the idle figure measured just before, and its grade (A+ < 5 ms,
#          A < 30, B < 60, C beyond); irtt's one-way p99, up and down,
#          over their idle p50 (where the delay is added);
#   ramp   the paper's UDP ramp (63 -> 105 -> 63 Mbit/s) with 1424-byte
#          packets (the largest that wire v3 carries without a fragment on
#          1500-byte paths) and 1492-byte ones (two fragments each), down
#          and up: loss, one-way delay p50/p99, DSL
#          utilisation while the offered line rate exceeds the DSL's;
#   c40    40 Mbit/s constant (fits the DSL): the LTE share.
# With each case, how many packets the link emulators released late
# (emu_late_1ms_pct, emu_late_5ms) and how late the most late was
# (emu_late_max_ms): a bed that stalled says so.
# Prints a line per case and writes OUT/report.md, OUT/results.tsv,
# plots (goodput bars and ping CDFs under the RRUL load, per buffer) and
# both daemons' status after each case (OUT/status/).
#
# usage: run.sh [--quick] [--out DIR] [--build DIR] [--buffers "30 50 .."]
#               [--modes "dsl paper l3bond weights rate norepair"]
#               [--duration S]
#               [--cases "tcp rrul ramp c40"] [--bed "KEY=VALUE ..."]
#               [--tcp "DIR:CC:STREAMS ..."] [--conf "KEY = VALUE; ..."]
#   --quick: one case of each kind, short runs, one buffer (50 ms) unless
#   --buffers says otherwise (what CI runs: it checks that the benchmark
#   works, it asserts no figure).
#   --cases: only these kinds of case (all four by default).
#   --bed: more testbed keys (tb_setup's, tests/netns/lib.sh), e.g.
#   "dsl_loss=0.002" for the DSL's line errors or "lte_jitter=40"; the
#   DSL's utilisation in the ramp is still taken against 64 Mbit/s.
#   --tcp: only these TCP cases, e.g. "down:cubic:1 up:cubic:1" (all
#   eight by default).
#   --conf: more top-level keys for both daemons in every mode but dsl,
#   e.g. "repair_queue_ms = 15;" (a key the mode sets too is refused by
#   the daemon as a duplicate).
# Needs root, iperf3, irtt, ping (scripts/deps.sh), gnuplot for the plots.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

quick=0
buffers_set=
out=$root/build/quality
build=$root/build
buffers="30 50 100 200"
modes="dsl paper l3bond weights rate"
dur=30
cases="tcp rrul ramp c40"
bed=
tcp_cases=
xconf=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--out) out=$2; shift ;;
	--build) build=$2; shift ;;
	--buffers) buffers=$2; buffers_set=$2; shift ;;
	--modes) modes=$2; shift ;;
	--duration) dur=$2; shift ;;
	--cases) cases=$2; shift ;;
	--bed) bed=$2; shift ;;
	--tcp) tcp_cases=$2; shift ;;
	--conf) xconf=$2; shift ;;
	*)
		echo "usage: $0 [--quick] [--out DIR] [--build DIR]" \
			"[--buffers LIST] [--modes LIST] [--duration S]" \
			"[--cases LIST] [--bed \"KEY=VALUE ...\"]" \
			"[--tcp \"DIR:CC:STREAMS ...\"]" \
			"[--conf \"KEY = VALUE; ...\"]" >&2
		exit 2
		;;
	esac
	shift
done
if [ $quick = 1 ]; then
	buffers=${buffers_set:-50}
	dur=10
fi
if [ -z "$tcp_cases" ]; then
	for dir in down up; do
		for cc in cubic bbr; do
			tcp_cases+="$dir:$cc:1 $dir:$cc:4 "
		done
	done
fi
for t in $tcp_cases; do
	[[ $t =~ ^(down|up):[a-z0-9]+:[1-9][0-9]?$ ]] || {
		echo "quality: --tcp: '$t' is not DIR:CC:STREAMS" \
			"(e.g. down:cubic:1)" >&2
		exit 2
	}
done
for t in iperf3 irtt ping jq; do
	command -v $t >/dev/null || {
		echo "quality: $t missing (scripts/deps.sh installs it)" >&2
		exit 1
	}
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
export L3B_TOOLS_DIR=$build/tests/tools
L3BONDD=$build/gateway/l3bondd
TB_PREFIX=${TB_PREFIX:-l3bq-$$-}
# shellcheck source=../netns/lib.sh
source "$root/tests/netns/lib.sh"
# shellcheck source=../netns/daemon_lib.sh
source "$root/tests/netns/daemon_lib.sh"

results=$out/results.tsv
printf 'buffer_ms\tmode\tcase\tmetric\tvalue\n' >"$results"

say() {
	echo "quality: $*"
}

put() { # CASE METRIC VALUE (buffer and mode from the loop)
	printf '%s\t%s\t%s\t%s\t%s\n' "$buf" "$mode" "$1" "$2" "$3" >>"$results"
}

# Bytes a line's tbf sent in a direction: down = towards the cpe.
line_bytes() { # PATH DIR
	local dev=cpe
	[ "$2" = up ] && dev=conc
	tb_exec "$1" tc -s qdisc show dev $dev | awk '/Sent/ { print $2; exit }'
}

# Packets a line's buffer dropped in a direction (its tbf's tail drops).
line_drops() { # PATH DIR
	local dev=cpe
	[ "$2" = up ] && dev=conc
	tb_exec "$1" tc -s qdisc show dev $dev |
		awk '/dropped/ { sub(/,/, "", $7); print $7; exit }'
}

# The boxes of a direction: sender and receiver, and the receiver's address.
ends() { # DIR -> "SENDER RECEIVER RECEIVER_IP"
	if [ "$1" = down ]; then
		echo "srv cli $TB_CLI_IP"
	else
		echo "cli srv $TB_SRV_IP"
	fi
}

percentiles() { # FILE of numbers -> "p50 p99 n"
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan nan 0"; exit }
		i50 = int(NR * 0.50); if (i50 < 1) i50 = 1
		i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
		print v[i50], v[i99], NR }'
}

grade() { # added ms -> grade
	awk -v a="$1" 'BEGIN { if (a != a + 0) print "?"; else if (a < 5) print "A+";
		else if (a < 30) print "A"; else if (a < 60) print "B"; else print "C" }'
}

start_mode() {
	case $mode in
	dsl) return 0 ;;
	# the paper's algorithm: loss its only signal, its T_lto of 50 ms
	paper) write_confs 0.5 "queue_target_ms = 0; t_lto_ms = 50; $xconf" ;;
	l3bond) write_confs 0.5 "$xconf" ;;
	weights) write_confs 0.5 "rate_auto = false; $xconf" ;;
	# the defaults without the repair of line errors
	norepair) write_confs 0.5 "repair_queue_ms = 0; $xconf" ;;
	# the defaults with the rate learned said, as when it was opt-in
	auto) write_confs 0.5 "rate_auto = true; $xconf" ;;
	rate)
		# the DSL's rate known on both boxes: paced just below it
		write_confs 0.5 "$xconf"
		conf_path_keys "$TB_DIR/cpe.conf" dsl "rate_mbit = 64;"
		conf_path_keys "$TB_DIR/conc.conf" dsl "rate_mbit = 64;"
		;;
	esac
	daemon_start conc
	daemon_start cpe
	wait_up cpe || say "warning: paths not both up on the cpe"
	wait_up conc || say "warning: paths not both up on the concentrator"
}

stop_mode() {
	local b
	[ $mode = dsl ] && return 0
	for b in cpe conc; do
		kill -TERM "${DPID[$b]}" 2>/dev/null || true
		tb_wait "${DPID[$b]}" 10 || true
	done
}

# Each case starts from the idle state: the mobile weight an earlier case
# raised has decayed (DWD) on both boxes.  (A learned pace stays, as it
# does in a running daemon.)
between() {
	[ $mode = dsl ] || settle
	emu_mark
}

# The emulators' own lag over a case, summed over the four of them, and
# how late the most late of their releases since the case's mark (ctl
# "stats mark" at its start) was: what they released late is delay the
# lines would not have had (this machine is shared; a host that stalls
# for 60 ms shows here, and in every figure of the case).
emu_counts() { # [mark]
	local p d
	for p in dsl lte; do
		for d in up down; do
			tb_linkem_stats $p $d "$@"
		done
	done | jq -rs '[(map(.delayed) | add), (map(.late_1ms) | add),
		(map(.late_5ms) | add), (map(.late_mark_max_us) | max)] | @tsv'
}
emu_mark() {
	read -r EMU0 EMU1 EMU5 _ <<<"$(emu_counts mark)"
}
emu_put() { # CASE
	local n l1 l5 lmax
	read -r n l1 l5 lmax <<<"$(emu_counts)"
	put "$1" emu_late_1ms_pct "$(awk -v n=$((n - EMU0)) -v l=$((l1 - EMU1)) \
		'BEGIN { printf "%.3f", n ? l * 100 / n : 0 }')"
	put "$1" emu_late_5ms "$((l5 - EMU5))"
	lmax=$(awk -v u="$lmax" 'BEGIN { printf "%.1f", u / 1000 }')
	put "$1" emu_late_max_ms "$lmax"
	if awk -v m="$lmax" 'BEGIN { exit !(m > 10) }'; then
		say "$buf ms $mode $1: the bed stalled: an emulator released a packet $lmax ms late (this case's figures carry it)"
	fi
}

# Both daemons' status after a case, for what the figures do not say:
# OUT/status/BUF-MODE-CASE.BOX
keep_status() { # CASE
	local b
	emu_put "$1"
	[ $mode = dsl ] && return 0
	mkdir -p "$out/status"
	for b in cpe conc; do
		refresh $b
		cp "$(status_file $b)" "$out/status/$buf-$mode-$1.$b" || true
	done
}

# A box's TCP counters (TcpExt and Tcp of /proc/net/{netstat,snmp}), one
# "NAME VALUE" a line: what the sender and the receiver saw of a case.
tcp_counters() { # BOX
	tb_exec "$1" cat /proc/net/netstat /proc/net/snmp | awk '
		$1 == "TcpExt:" || $1 == "Tcp:" {
			if (!(($1) in hdr)) { hdr[$1] = 1; for (i = 2; i <= NF; i++) k[i] = $i; next }
			for (i = 2; i <= NF; i++) print k[i], $i
			delete hdr[$1]
		}'
}

# What TCP saw of a case, from the counters before and after: the
# sender's retransmits that were spurious (undone on a DSACK: a late
# packet, reordering) against the losses it recovered from, its
# timeouts, and what the receiver queued out of order.
tcp_seen() { # CASE SENDER RECEIVER BEFORE-S BEFORE-R
	local k
	for k in TCPDSACKRecv TCPDSACKUndo TCPLossUndo TCPFullUndo \
		TCPPartialUndo TCPTimeouts TCPLossProbes TCPSackRecovery \
		TCPLostRetransmit RetransSegs TCPSACKReorder; do
		put "$1" "snd_$k" "$(tcp_counters "$2" | awk -v k=$k -v f="$4" '
			BEGIN { while ((getline l < f) > 0) { split(l, a, " "); b[a[1]] = a[2] } }
			$1 == k { print $2 - b[k]; exit }')"
	done
	for k in TCPOFOQueue TCPDSACKOldSent TCPDSACKOfoSent; do
		put "$1" "rcv_$k" "$(tcp_counters "$3" | awk -v k=$k -v f="$5" '
			BEGIN { while ((getline l < f) > 0) { split(l, a, " "); b[a[1]] = a[2] } }
			$1 == k { print $2 - b[k]; exit }')"
	done
	say "$buf ms $mode $1: TCP $(awk -F'\t' -v c="$1" -v b="$buf" -v m="$mode" '
		$1 == b && $2 == m && $3 == c && $4 ~ /^(snd|rcv)_/ {
			sub(/^(snd|rcv)_(TCP)?/, "", $4); printf "%s %s ", $4, $5 }' "$results")"
}

case_tcp() { # DIR CC STREAMS
	local dir=$1 cc=$2 p=$3 s r ip name j d0 l0 d1 l1 dd0 ld0 dd ld
	between
	read -r s r ip <<<"$(ends "$dir")"
	name=tcp-$dir-$cc-$p
	j=$TB_DIR/$name.json
	d0=$(line_bytes dsl "$dir")
	l0=$(line_bytes lte "$dir")
	dd0=$(line_drops dsl "$dir")
	ld0=$(line_drops lte "$dir")
	tcp_counters "$s" >"$TB_DIR/$name.snd0"
	tcp_counters "$r" >"$TB_DIR/$name.rcv0"
	tb_exec "$s" iperf3 -c "$ip" -p 5201 -t "$dur" -C "$cc" -P "$p" -J \
		>"$j" 2>/dev/null || true
	d1=$(line_bytes dsl "$dir")
	l1=$(line_bytes lte "$dir")
	dd=$(($(line_drops dsl "$dir") - dd0))
	ld=$(($(line_drops lte "$dir") - ld0))
	put "$name" goodput_mbit "$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' "$j")"
	put "$name" retransmits "$(jq -r '.end.sum_sent.retransmits // 0' "$j")"
	keep_status "$name"
	put "$name" dsl_mb "$(((d1 - d0) / 1000000))"
	put "$name" lte_mb "$(((l1 - l0) / 1000000))"
	put "$name" dsl_drops "$dd"
	put "$name" lte_drops "$ld"
	tcp_seen "$name" "$s" "$r" "$TB_DIR/$name.snd0" "$TB_DIR/$name.rcv0"
	say "$buf ms $mode $name: $(jq -r '((.end.sum_received.bits_per_second // 0) / 1e6 | floor | tostring) + " Mbit/s, " + ((.end.sum_sent.retransmits // 0) | tostring) + " retransmits"' "$j"), DSL $(((d1 - d0) / 1000000)) MB (buffer dropped $dd), LTE $(((l1 - l0) / 1000000)) MB (dropped $ld)"
}

# ping and irtt for S seconds from cli to srv: RTTs in ms, one a line
probe() { # NAME SECONDS
	local name=$1 secs=$2 ppid ipid
	tb_bg cli "$TB_DIR/$name.ping" ping -D -n -i 0.01 -w "$secs" "$TB_SRV_IP"
	ppid=$TB_LAST_PID
	tb_bg cli "$TB_DIR/$name.irtt.log" irtt client -Q -i 20ms -l 172 \
		-d "${secs}s" --wait=200ms -o "$TB_DIR/$name.irtt.json" "$TB_SRV_IP"
	ipid=$TB_LAST_PID
	tb_wait $ppid $((secs + 10)) || true
	tb_wait $ipid $((secs + 10)) || true
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' "$TB_DIR/$name.ping" >"$out/$buf-$mode-$name.ping.txt"
	jq -r '.round_trips[] | select(.delay.rtt != null) | .delay.rtt / 1e6' \
		"$TB_DIR/$name.irtt.json" >"$out/$buf-$mode-$name.irtt.txt" 2>/dev/null || true
	# one way, up (send) and down (receive): the namespaces share the
	# clock, so irtt's one-way delays are exact here
	jq -r '.round_trips[] | select(.delay.send != null) | .delay.send / 1e6' \
		"$TB_DIR/$name.irtt.json" >"$out/$buf-$mode-$name.irtt-up.txt" 2>/dev/null || true
	jq -r '.round_trips[] | select(.delay.receive != null) | .delay.receive / 1e6' \
		"$TB_DIR/$name.irtt.json" >"$out/$buf-$mode-$name.irtt-dn.txt" 2>/dev/null || true
}

case_rrul() { # CC
	local cc=$1 a b i50 i99 n p50 p99 ii50 ii99 in j50 j99 jn k iu50 id50 u50 u99 d50 d99
	between
	probe idle 5
	read -r i50 i99 in <<<"$(percentiles "$out/$buf-$mode-idle.ping.txt")"
	read -r ii50 ii99 n <<<"$(percentiles "$out/$buf-$mode-idle.irtt.txt")"
	tb_bg srv "$TB_DIR/rrul-dn.json" iperf3 -c "$TB_CLI_IP" -p 5201 \
		-t $((dur + 4)) -C "$cc" -P 4 -J
	a=$TB_LAST_PID
	tb_bg cli "$TB_DIR/rrul-up.json" iperf3 -c "$TB_SRV_IP" -p 5202 \
		-t $((dur + 4)) -C "$cc" -P 4 -J
	b=$TB_LAST_PID
	sleep 3
	probe "rrul-$cc" "$dur"
	tb_wait $a $((dur + 20)) || true
	tb_wait $b $((dur + 20)) || true
	read -r p50 p99 n <<<"$(percentiles "$out/$buf-$mode-rrul-$cc.ping.txt")"
	read -r j50 j99 jn <<<"$(percentiles "$out/$buf-$mode-rrul-$cc.irtt.txt")"
	read -r iu50 _ _ <<<"$(percentiles "$out/$buf-$mode-idle.irtt-up.txt")"
	read -r id50 _ _ <<<"$(percentiles "$out/$buf-$mode-idle.irtt-dn.txt")"
	read -r u50 u99 _ <<<"$(percentiles "$out/$buf-$mode-rrul-$cc.irtt-up.txt")"
	read -r d50 d99 _ <<<"$(percentiles "$out/$buf-$mode-rrul-$cc.irtt-dn.txt")"
	k=rrul-$cc
	keep_status $k
	put $k down_mbit "$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' "$TB_DIR/rrul-dn.json")"
	put $k up_mbit "$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' "$TB_DIR/rrul-up.json")"
	put $k ping_idle_p50_ms "$i50"
	put $k ping_added_p50_ms "$(awk -v a="$p50" -v b="$i50" 'BEGIN { print a - b }')"
	put $k ping_added_p99_ms "$(awk -v a="$p99" -v b="$i50" 'BEGIN { print a - b }')"
	put $k ping_samples "$n"
	put $k irtt_idle_p50_ms "$ii50"
	put $k irtt_added_p50_ms "$(awk -v a="$j50" -v b="$ii50" 'BEGIN { print a - b }')"
	put $k irtt_added_p99_ms "$(awk -v a="$j99" -v b="$ii50" 'BEGIN { print a - b }')"
	put $k irtt_samples "$jn"
	put $k irtt_up_added_p99_ms "$(awk -v a="$u99" -v b="$iu50" 'BEGIN { print a - b }')"
	put $k irtt_down_added_p99_ms "$(awk -v a="$d99" -v b="$id50" 'BEGIN { print a - b }')"
	say "$buf ms $mode $k: down $(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6 | floor' "$TB_DIR/rrul-dn.json") up $(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6 | floor' "$TB_DIR/rrul-up.json") Mbit/s; ping idle $i50 ms, loaded p50 $p50 p99 $p99 (grade $(grade "$(awk -v a="$p99" -v b="$i50" 'BEGIN { print a - b }')")); irtt idle $ii50, loaded p50 $j50 p99 $j99 (one way: up idle $iu50, loaded p50 $u50 p99 $u99; down idle $id50, loaded p50 $d50 p99 $d99)"
}

# UDP from l3b-traffic: the paper's ramp (63 -> 105 -> 63 Mbit/s) or a
# constant rate.  Samples the DSL's tbf every 200 ms for its utilisation
# while the offered line rate is above the DSL's 64 Mbit/s.
case_udp() { # NAME DIR SIZE PROFILE-ARGS...
	local name=$1 dir=$2 size=$3 s r ip secs rx samp line d0 l0 d1 l1
	shift 3
	between
	read -r s r ip <<<"$(ends "$dir")"
	secs=$(awk -v a="$*" 'BEGIN { n = split(a, w, " ");
		for (i = 1; i < n; i++) if (w[i] == "--duration") print w[i + 1] }')
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$r" "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((secs + 6)) --linger-ms 1000 \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	for _ in $(seq 100); do
		[ -e "$TB_DIR/$name.ready" ] && break
		sleep 0.02
	done
	(
		while :; do
			echo "$(date +%s.%N) $(line_bytes dsl "$dir")"
			sleep 0.2
		done
	) >"$TB_DIR/$name.dsl" 2>/dev/null &
	samp=$!
	d0=$(line_bytes dsl "$dir")
	l0=$(line_bytes lte "$dir")
	tb_exec "$s" "$TB_TRAFFIC" send --dst "$ip" --port 5000 --size "$size" \
		--json "$TB_DIR/$name.tx.json" "$@" >/dev/null || true
	kill $samp 2>/dev/null || true
	wait $samp 2>/dev/null || true
	tb_wait $rx $((secs + 20)) || true
	d1=$(line_bytes dsl "$dir")
	l1=$(line_bytes lte "$dir")
	keep_status "$name"
	# line bytes per inner packet on the DSL: Ethernet 14 + outer 76, twice
	# for a packet the ingress fragments (over 1424: 20 more of IP header)
	line=$(awk -v z="$size" 'BEGIN { print (z > 1424) ? z + 20 + 2 * 90 : z + 90 }')
	put "$name" loss_pct "$(jq -r '.loss_pct // ((.expected - .unique) * 100 / (if .expected > 0 then .expected else 1 end))' "$TB_DIR/$name.rx.json")"
	put "$name" delay_p50_ms "$(jq -r '.delay_p50_ms' "$TB_DIR/$name.rx.json")"
	put "$name" delay_p99_ms "$(jq -r '.delay_p99_ms' "$TB_DIR/$name.rx.json")"
	put "$name" lte_share_pct "$(awk -v d=$((d1 - d0)) -v l=$((l1 - l0)) 'BEGIN { print (d + l) ? l * 100 / (d + l) : 0 }')"
	if [ "${name#ramp}" != "$name" ]; then
		put "$name" dsl_util_pct "$("$TB_TRAFFIC" profile "$@" --step-ms 200 |
			awk -v z="$size" -v line="$line" -v f="$TB_DIR/$name.dsl" '
			BEGIN {
				# the DSL line rate in each 200 ms sample
				while ((getline l < f) > 0) {
					split(l, a, " ")
					if (n++ && a[1] > t0) {
						r[n - 1] = (a[2] - b0) * 8 / (a[1] - t0) / 1e6
					}
					t0 = a[1]; b0 = a[2]
				}
			}
			{ off[NR] = $2 * line / z }
			END {
				# samples and profile steps both every 200 ms from
				# the start; the first sample is the baseline
				for (i = 2; i <= NR && i < n; i++)
					if (off[i] >= 64) { s += r[i] / 64; k++ }
				printf "%.1f\n", k ? s / k * 100 : 0
			}')"
	fi
	say "$buf ms $mode $name: $(jq -r '"\(.unique)/\(.expected) received, delay p50 \(.delay_p50_ms) p99 \(.delay_p99_ms) ms"' "$TB_DIR/$name.rx.json"), LTE $(((l1 - l0) / 1000000)) MB of $(((d1 - d0 + l1 - l0) / 1000000))"
}

want() {
	[[ " $cases " == *" $1 "* ]]
}

run_buffer() {
	tb_init
	# shellcheck disable=SC2086 # the keys are words
	tb_setup dsl_qlat="$buf" lte_qlat="$buf" $bed
	tb_bg cli "$TB_DIR/iperf-cli.log" iperf3 -s -p 5201
	tb_bg srv "$TB_DIR/iperf-srv.log" iperf3 -s -p 5202
	tb_bg srv "$TB_DIR/irtt.log" irtt server -b "$TB_SRV_IP:2112"
	# iperf3 -s in srv serves the up direction; cli's the down one
	tb_bg srv "$TB_DIR/iperf-srv2.log" iperf3 -s -p 5201
	sleep 0.5
	for mode in $modes; do
		say "== buffer $buf ms, $mode"
		start_mode
		if [ $quick = 1 ]; then
			if want tcp; then case_tcp down bbr 1; fi
			if want rrul; then case_rrul bbr; fi
			if want ramp; then
				case_udp ramp1424-down down 1424 \
					--profile paper --duration 20
			fi
			if want c40; then
				case_udp c40-down down 1424 --rate 40 \
					--duration "$dur"
			fi
		else
			if want tcp; then
				for t in $tcp_cases; do
					case_tcp ${t//:/ }
				done
			fi
			if want rrul; then
				case_rrul cubic
				case_rrul bbr
			fi
			if want ramp; then
				for size in 1424 1492; do
					for dir in down up; do
						case_udp ramp$size-$dir $dir \
							$size --profile paper \
							--duration 40
					done
				done
			fi
			if want c40; then
				case_udp c40-down down 1424 --rate 40 \
					--duration "$dur"
			fi
		fi
		stop_mode
	done
	tb_teardown
}

for buf in $buffers; do
	run_buffer
done
python3 "$here/report.py" "$out" && say "report: $out/report.md"
# The run worked: every case measured something (no figure is judged
# here: the figures are for the report, this machine is shared).
awk -F'\t' 'NR > 1 && ($4 == "goodput_mbit" || $4 == "ping_samples" ||
	$4 == "irtt_samples" || $4 == "delay_p50_ms") && !($5 + 0 > 0) {
		print "quality: no measure: " $0; bad = 1 }
	END { exit bad }' "$results"
