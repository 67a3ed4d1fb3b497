#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end test of the testbed itself (no bonding daemon yet): the link
# emulator and the traffic tool, on the topology of lib.sh:
#
#   cli ---- cpe ===dsl=== [dsl] ===dsl=== conc ---- srv
#                ===lte=== [lte] ===lte===
#                           NAT
#
# Traffic cli <-> srv goes natively over dsl (13 ms, 64 Mbit/s).  Checks:
# ping; 13 ms one-way delay; tbf rate, also changed at run time; jitter
# keeps FIFO order; 1 % loss; a stalled emulator counts its lateness;
# cut and heal; lte path with delay 25-45 ms and carrier NAT; teardown
# leaves nothing, also when a script fails half-way.
#
# usage: test_testbed.sh [TOOLS_DIR]   (or L3B_TOOLS_DIR=...)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export L3B_TOOLS_DIR=${1:-${L3B_TOOLS_DIR:-}}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces)"
	exit 77
fi
for tool in ip tc iptables awk; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not installed"
		exit 77
	fi
done

# shellcheck source=lib.sh
source "$here/lib.sh"

# the receivers stop 300 ms after the last packet (the cut flow sends
# nothing that arrives)
UDP_LINGER_MS=300

tb_init
tb_setup
ok "setup: $(ip netns list | grep -c "^$TB_PREFIX") namespaces"

# 1. Plain reachability through the whole chain.
n=$(ping_count cli "$TB_SRV_IP" 3)
if [ "$n" = 3 ]; then ok "ping cli -> srv"; else bad "ping cli -> srv: $n/3"; fi

# 2. dsl delay 13 ms, both directions, at 10 Mbit/s.
udp cli srv "$TB_SRV_IP" delay --rate 10 --size 1400
jcheck "dsl up one-way delay 13 ms" "$TB_DIR/delay.rx.json" \
	'delay_p50_ms > 11.5 && delay_p50_ms < 14.5 && lost == 0'
udp srv cli "$TB_CLI_IP" delay_down --rate 10 --size 1400
jcheck "dsl down one-way delay 13 ms" "$TB_DIR/delay_down.rx.json" \
	'delay_p50_ms > 11.5 && delay_p50_ms < 14.5 && lost == 0'
jcheck "payloads intact" "$TB_DIR/delay.rx.json" \
	'corrupted == 0 && duplicates == 0 && unique == expected'

# 3. tbf 64 Mbit/s: 80 offered, 60-65 arrive.
UDP_DURATION=4 udp cli srv "$TB_SRV_IP" rate --rate 80 --size 1400
jcheck "dsl rate 64 Mbit/s under 80 offered" "$TB_DIR/rate.rx.json" \
	'throughput_mbit > 60 && throughput_mbit < 65'
jcheck "sender paced 80 Mbit/s" "$TB_DIR/rate.tx.json" \
	'rate_mbit > 79 && rate_mbit < 81'

# ... and changed at run time.
tb_rate dsl up 20
udp cli srv "$TB_SRV_IP" rate20 --rate 30 --size 1400
jcheck "dsl rate changed to 20 Mbit/s" "$TB_DIR/rate20.rx.json" \
	'throughput_mbit > 18.5 && throughput_mbit < 20.5'
tb_rate dsl up 64

# 4. Jitter 25-45 ms keeps FIFO order.
tb_linkem_set dsl up delay 25 jitter 20
udp cli srv "$TB_SRV_IP" jitter --rate 10 --size 1400
jcheck "jitter keeps order" "$TB_DIR/jitter.rx.json" \
	'reordered == 0 && lost == 0'
jcheck "jitter delays within 25-45 ms" "$TB_DIR/jitter.rx.json" \
	'delay_min_ms > 24.5 && delay_p90_ms < 46.5 &&
	 delay_p90_ms - delay_min_ms > 2'

# 5. 1 % loss over 20k packets (5 kpps for 4 s).
tb_linkem_set dsl up delay 13 jitter 0 loss 0.01
UDP_DURATION=4 udp cli srv "$TB_SRV_IP" loss --rate 40 --size 1000
jcheck "20k packets sent" "$TB_DIR/loss.tx.json" 'sent >= 19900'
jcheck "loss 1 % -> 0.6-1.4 %" "$TB_DIR/loss.rx.json" \
	'loss_pct > 0.6 && loss_pct < 1.4 && reordered == 0'
tb_linkem_stats dsl up >"$TB_DIR/loss.linkem.json"
jcheck "linkem counted the losses" "$TB_DIR/loss.linkem.json" \
	'dropped_loss > 0 && kernel_queue_dropped == 0 &&
	 kernel_user_dropped == 0 && verdict_errors == 0'
tb_linkem_set dsl up loss 0

# 5b. An emulator that stalls says by how much, since the mark a bench
# sets at a case's start (tests/quality: emu_late_max_ms): 60 ms stopped
# (our own process) in a 2-s flow.
tb_linkem_stats dsl up mark >/dev/null
emu=$(pgrep -f -- "--stats $TB_DIR/dsl-up.stats")
(sleep 0.5 && kill -STOP "$emu" && sleep 0.06 && kill -CONT "$emu") &
stall=$!
UDP_DURATION=2 udp cli srv "$TB_SRV_IP" stall --rate 10 --size 1000
wait $stall || kill -CONT "$emu"
tb_linkem_stats dsl up mark >"$TB_DIR/stall.linkem.json"
jcheck "stall: released up to 40 ms late or more since the mark" \
	"$TB_DIR/stall.linkem.json" 'late_mark_max_us >= 40000'
tb_linkem_stats dsl up >"$TB_DIR/stall2.linkem.json"
jcheck "stall: the mark starts again, the lifetime's stays" \
	"$TB_DIR/stall2.linkem.json" \
	'late_mark_max_us < 40000 && late_max_us >= 40000'

# 6. Cut drops everything, heal restores.
tb_cut dsl
n=$(ping_count cli "$TB_SRV_IP" 3)
if [ "$n" = 0 ]; then ok "cut: no ping"; else bad "cut: ping got $n/3"; fi
UDP_DURATION=2 UDP_SLACK=1 udp cli srv "$TB_SRV_IP" cut --rate 10 --size 1000
jcheck "cut: nothing arrives" "$TB_DIR/cut.rx.json" 'received == 0'
tb_linkem_stats dsl up >"$TB_DIR/cut.linkem.json"
jcheck "cut: linkem dropped it" "$TB_DIR/cut.linkem.json" \
	'dropped_down >= 2000 && state == "down"'
tb_heal dsl
n=$(ping_count cli "$TB_SRV_IP" 3)
if [ "$n" = 3 ]; then ok "heal: ping"; else bad "heal: ping got $n/3"; fi
udp cli srv "$TB_SRV_IP" heal --rate 10 --size 1000
jcheck "heal: everything arrives" "$TB_DIR/heal.rx.json" \
	'lost == 0 && unique > 3000'

# 7. lte: 25-45 ms, carrier NAT (conc sees the NAT's address, and nothing
# gets in unsolicited).
tb_exec conc iptables -w -A INPUT -s "$TB_LTE_CONC_IP" -p udp --dport 5000 \
	-j ACCEPT
udp cpe conc "$TB_CONC_LTE_IP" lte --rate 10 --size 1400
jcheck "lte delay 25-45 ms, in order" "$TB_DIR/lte.rx.json" \
	'lost == 0 && reordered == 0 && delay_min_ms > 24.5 &&
	 delay_p90_ms < 46.5'
natted=$(tb_exec conc iptables -w -L INPUT -n -v -x |
	awk -v s="$TB_LTE_CONC_IP" '{ for (i = 2; i <= NF; i++)
		if ($i == s) { print $1; exit } }')
sent=$(jget "$TB_DIR/lte.tx.json" sent)
if [ "${natted:-0}" -ge "$sent" ] && [ "$sent" -gt 0 ]; then
	ok "lte: conc sees the NAT address ($natted packets)"
else
	bad "lte: conc saw ${natted:-0} of $sent packets from $TB_LTE_CONC_IP"
fi
n=$(ping_count conc "$TB_LTE_CONC_IP" 3)
if [ "$n" = 0 ]; then ok "lte: NAT refuses unsolicited"; else
	bad "lte: unsolicited ping answered $n/3"; fi

# 8. TCP bulk transfer, verified.
TCP_DURATION=20 tcp cli srv "$TB_SRV_IP" tcp 20000000
jcheck "tcp 20 MB intact at < 64 Mbit/s" "$TB_DIR/tcp.rx.json" \
	'complete == "true" && corrupted_bytes == 0 && goodput_mbit > 20 &&
	 goodput_mbit < 65'

# 9. Teardown leaves nothing: ours, and a script that fails half-way.
pids=("${TB_PIDS[@]}")
prefix=$TB_PREFIX
tb_teardown || true
if [ "$TB_SAN_REPORTS" = 0 ]; then
	ok "no sanitizer report from the background tools"
else
	bad "$TB_SAN_REPORTS background tools reported sanitizer errors"
fi
left=$(ip netns list | grep -c "^$prefix" || true)
alive=0
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null && alive=$((alive + 1))
done
if [ "$left" = 0 ] && [ "$alive" = 0 ]; then
	ok "teardown: no namespace, no process"
else
	bad "teardown: $left namespaces, $alive processes left"
fi

fprefix=l3b-$$-f-
fdir=$(mktemp -d)
set +e
TB_PREFIX=$fprefix bash -c '
	set -Eeuo pipefail
	source "$1/lib.sh"
	tb_init
	tb_setup
	echo "${TB_PIDS[*]}" >"$2/pids"
	echo "$TB_DIR" >"$2/dir"
	echo "$TB_RUN_DIR" >"$2/rundir"
	false   # a failing step
	echo reached >"$2/reached"
' _ "$here" "$fdir" 2>"$fdir/log"
frc=$?
set -e
left=$(ip netns list | grep -c "^$fprefix" || true)
alive=0
for p in $(cat "$fdir/pids" 2>/dev/null); do
	if [ -r "/proc/$p/cmdline" ] &&
		tr '\0' ' ' <"/proc/$p/cmdline" | grep -q l3b-linkem; then
		alive=$((alive + 1))
	fi
done
if [ "$frc" -ne 0 ] && [ ! -e "$fdir/reached" ] && [ -s "$fdir/pids" ] &&
	[ "$left" = 0 ] && [ "$alive" = 0 ] &&
	[ ! -e "$(cat "$fdir/dir")" ] && [ -s "$fdir/rundir" ] &&
	[ ! -e "$(cat "$fdir/rundir")" ] && grep -q 'command failed' "$fdir/log"; then
	ok "failing script tears down (status $frc)"
else
	bad "failing script: status $frc, $left namespaces, $alive emulators"
	cat "$fdir/log"
fi
rm -rf "$fdir"

tb_done
