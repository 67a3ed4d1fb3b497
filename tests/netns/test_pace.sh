#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The rate a fixed path learns (rate_auto = true, the default) through the real
# daemons, while the DSL's rate changes under load, on the testbed of
# lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#   dsl 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms, 50 ms buffers.
#
# First a UDP flow srv -> cli at 20 Mbit/s for 2 s, which fits the DSL: no
# queue, so nothing but the concentrator's train measures the DSL's rate
# before the load comes (checked: the pace set from it, within 3 % over and 5 % under the
# line's 63.2 Mbit/s of IP bytes; a train answered; none on the LTE, none
# upstream, which carried nothing).  Then one UDP flow srv -> cli at 80 Mbit/s (more than the DSL: the excess must
# go to the LTE) for 38 s; the DSL's downstream tbf goes to 32 Mbit/s at
# 10 s and back to 64 at 18 s.  The concentrator's status is read every
# 0.5 s (the DSL's pace_kbps) and the DSL's tbf backlog sampled as often.
# Checked (behaviour, loose bounds: this machine is shared):
#   - the pace is learned from the defaults (no rate configured) and lies
#     near the line's rate (40-70 Mbit/s of line bytes);
#   - it follows the line down (under 38 Mbit/s within 5 s of the cut to
#     32) and back up (over 45 Mbit/s within 20 s of the return to 64:
#     2-4 s on a quiet machine; on a loaded one the delay the CPE reports
#     for the DSL carries some of the concentrator's own processing time,
#     which holds the probes until the floors take it in, as in two CI
#     runs that did not get there in 12 s);
#   - the DSL's own buffer stays short while paced: its median backlog
#     is under a third of the 50 ms buffer (unpaced, a flow over the
#     line's rate keeps it full);
#   - the flow loses under 1 %;
#   - the status says how the last rate was measured (rule, rate, what
#     the CPE counted, over how long);
#   - rate_auto = false (l3bondctl set) forgets the learned pace at once.
# The figures are printed.
#
# usage: test_pace.sh [BUILD_DIR]
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk jq
tb_require_bin "$L3BONDD" "$L3BONDCTL"

FLOW_S=38
DOWN_AT=10
UP_AT=18

tb_init
tb_setup seed=3
write_confs 0.5 "rate_auto = true;"
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up"
else
	bad "paths not up"
	tb_abort
fi
check "rate_auto on, no rate configured" \
	'a == 1 && r == 0 && p == 0' "a=$(st conc rate_auto)" \
	"r=$(st conc path.dsl.rate_mbit)" "p=$(st conc path.dsl.pace_kbps)"

# A flow the DSL carries alone: the concentrator's train measures the
# DSL's rate (a 64 Mbit/s tbf: 63.2 Mbit/s of IP bytes) before any queue
rm -f "$TB_DIR/rx0.ready"
tb_bg cli "$TB_DIR/rx0.log" "$TB_TRAFFIC" recv --port 5001 --duration 4 \
	--linger-ms 500 --json "$TB_DIR/rx0.json" \
	--ready-file "$TB_DIR/rx0.ready"
rx0=$TB_LAST_PID
tb_wait_file "$TB_DIR/rx0.ready" 250 || bad "receiver not ready"
tb_exec srv "$TB_TRAFFIC" send --dst "$TB_CLI_IP" --port 5001 --size 1400 \
	--rate 20 --duration 2 --json "$TB_DIR/tx0.json" >/dev/null 2>&1 ||
	bad "the 20 Mbit/s flow did not run"
tb_wait "$rx0" 10 || true
refresh conc
refresh cpe
echo "  train: $(st conc path.dsl.rate_rule), pace" \
	"$(st conc path.dsl.pace_kbps) kbit/s, measured" \
	"$(st conc path.dsl.rate_measured_kbps) over" \
	"$(st conc path.dsl.rate_over_ms) ms"
# (a bound of 3 % over: counting the middle packet too would read 3.2 %
# high; 5 % under: the bed's emulator releasing a packet of the 5-ms train
# 0.2 ms late reads 4 % low, as in a CI run whose DSL emulator released
# 2306 packets over 1 ms late, 60583 kbit/s)
check "a train measured the DSL's rate before any queue" \
	'r == 1 && p >= 60000 && p <= 65100 && o >= 1 && o <= 10 && g == 1' \
	"r=$([ "$(st conc path.dsl.rate_rule)" = train ] && echo 1 || echo 0)" \
	"p=$(st conc path.dsl.rate_measured_kbps)" \
	"o=$(st conc path.dsl.rate_over_ms)" \
	"g=$(st conc path.dsl.train_rates)"
check "the CPE answered it; no train on the LTE nor upstream" \
	'a == 1 && l == 0 && u == 0' "a=$(st cpe path.dsl.train_acks)" \
	"l=$(st conc path.lte.trains)" "u=$(st cpe path.dsl.trains)"

# DSL backlog (bytes) of the downstream tbf
backlog() {
	tb_exec dsl tc -s qdisc show dev cpe |
		awk '/backlog/ { sub("b", "", $2); print $2; exit }'
}

rm -f "$TB_DIR/rx.ready"
tb_bg cli "$TB_DIR/rx.log" "$TB_TRAFFIC" recv --port 5000 \
	--duration $((FLOW_S + 6)) --linger-ms 1000 \
	--json "$TB_DIR/rx.json" --ready-file "$TB_DIR/rx.ready"
rx=$TB_LAST_PID
tb_wait_file "$TB_DIR/rx.ready" 250 || bad "receiver not ready"
tb_bg srv "$TB_DIR/tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --size 1400 --rate 80 --duration $FLOW_S \
	--json "$TB_DIR/tx.json"
tx=$TB_LAST_PID
t0=$EPOCHREALTIME
: >"$TB_DIR/samples"
changed_down=0 changed_up=0
while kill -0 "$tx" 2>/dev/null; do
	t=$(awk -v a="$EPOCHREALTIME" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
	if [ $changed_down = 0 ] && awk -v t="$t" -v d=$DOWN_AT 'BEGIN { exit !(t >= d) }'; then
		tb_rate dsl down 32
		changed_down=1
	fi
	if [ $changed_up = 0 ] && awk -v t="$t" -v d=$UP_AT 'BEGIN { exit !(t >= d) }'; then
		tb_rate dsl down 64
		changed_up=1
	fi
	refresh conc
	echo "$t $(st conc path.dsl.pace_kbps) $(backlog)" \
		"$(st conc path.dsl.peer_queue_us)" >>"$TB_DIR/samples"
	sleep 0.4
done
tb_wait "$tx" 10 || true
tb_wait "$rx" 15 || true

# The figures: the pace at the end of each phase, when it first crossed
# the bounds after each change, the median backlog of the paced phases,
# the median queue the CPE reported for the DSL (us) in each phase.
read -r pace1 pace_low t_low pace_high t_high bl1 bl3 q1 q2 q3 <<<"$(awk \
	-v d=$DOWN_AT -v u=$UP_AT '
	function med(a, n,   i, j, x) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return n ? a[int((n + 1) / 2)] : -1
	}
	{ t = $1; p = $2; b = $3; q = $4 }
	t < d { p1 = p }
	t >= 4 && t < d { b1[++n1] = b; q1[++m1] = q }
	t >= d && t < u { pl = p; if (tl == "" && p > 0 && p < 38000) tl = t - d
		q2[++m2] = q }
	t >= u { ph = p; if (th == "" && p > 45000) th = t - u; q3[++m3] = q }
	t >= u + 8 { b3[++n3] = b }
	END { printf "%d %d %s %d %s %d %d %d %d %d\n", p1, pl,
		tl == "" ? -1 : tl, ph, th == "" ? -1 : th, med(b1, n1),
		med(b3, n3), med(q1, m1), med(q2, m2), med(q3, m3) }' \
	"$TB_DIR/samples")"
echo "  pace before the change ${pace1} kbit/s; at 32 Mbit/s ${pace_low}" \
	"(under 38 Mbit/s after ${t_low} s); back at 64 ${pace_high}" \
	"(over 45 Mbit/s after ${t_high} s); DSL backlog median ${bl1} B" \
	"(first phase) ${bl3} B (last); the DSL's reported queue median" \
	"${q1} / ${q2} / ${q3} us (64 / 32 / 64 Mbit/s)"
refresh conc
echo "  rate_learned $(st conc ing.rate_learned) rate_probed" \
	"$(st conc ing.rate_probed) overflow $(st conc ing.overflow);" \
	"dsl suspects $(st conc path.dsl.suspects) flaps" \
	"$(st conc path.dsl.flaps) holddowns $(st conc path.dsl.holddowns)," \
	"ing.frozen $(st conc ing.frozen), w_mobile $(st conc w_mobile)"
# how far the DSL's emulator fell behind (this machine is shared): what it
# held longer than the line would have is read by the CPE as queue
echo "  the DSL's downstream emulator: $(tb_linkem_stats dsl down |
	jq -r '"\(.late_1ms) of \(.delayed) released over 1 ms late (at most \(.late_max_us) us), \(.rx_lag_1ms) read over 1 ms after arrival (at most \(.rx_lag_max_us) us)"')"
rate_check "a pace learned near the DSL's rate (64 Mbit/s)" \
	'p >= 40000 && p <= 70000' "p=$pace1"
rate_check "the pace follows the line down to 32 Mbit/s within 5 s" \
	't >= 0 && t <= 5' "t=$t_low"
rate_check "the pace follows the line back up within 20 s" \
	't >= 0 && t <= 20' "t=$t_high"
# a third of 50 ms at 64 Mbit/s: 133 kB
rate_check "the DSL's buffer stays short while paced (median backlog)" \
	'b1 >= 0 && b1 < 133000 && b3 >= 0 && b3 < 133000' "b1=$bl1" "b3=$bl3"
check "the LTE took the excess: bulk overflowed" 'o > 0' \
	"o=$(st conc ing.overflow)"
# how the last rate was measured (the log says each at debug level)
rule=$(st conc path.dsl.rate_rule)
echo "  last measurement: $rule, $(st conc path.dsl.rate_measured_kbps)" \
	"kbit/s, the CPE counted $(st conc path.dsl.rate_counted_kbps)," \
	"sent $(st conc path.dsl.rate_sent_kbps), queue" \
	"$(st conc path.dsl.rate_queue_from_us) -> $(st conc path.dsl.rate_queue_us)" \
	"us over $(st conc path.dsl.rate_over_ms) ms, $(st conc path.dsl.rate_lost) lost"
check "the status says how the pace was last measured" \
	'r == 1 && m > 0 && c > 0 && o >= 100' \
	"r=$(case $rule in growth | full | held | stood) echo 1 ;; *) echo 0 ;; esac)" \
	"m=$(st conc path.dsl.rate_measured_kbps)" \
	"c=$(st conc path.dsl.rate_counted_kbps)" "o=$(st conc path.dsl.rate_over_ms)"
rate_check "the flow lost under 1 %" \
	'e > 0 && (e - u) * 100 < e' "e=$(jget "$TB_DIR/rx.json" expected)" \
	"u=$(jget "$TB_DIR/rx.json" unique)"

# rate_auto off at run time: the learned pace is forgotten at once
if "$L3BONDCTL" -s "$(ctl_socket conc)" set rate_auto false >/dev/null; then
	refresh conc
	check "rate_auto = false forgets the pace" 'a == 0 && p == 0' \
		"a=$(st conc rate_auto)" "p=$(st conc path.dsl.pace_kbps)"
else
	bad "l3bondctl set rate_auto false refused"
fi
tb_done
