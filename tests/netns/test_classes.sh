#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Traffic classes (issue 13) on the testbed of lib.sh (dsl 64 Mbit/s 13
# ms, lte 60 Mbit/s 25-45 ms), the CPE's classes for its upstream, UDP
# flows cli -> srv told apart by their port:
#   5001 "voip"    pin dsl             5004 "lteonly" pin lte
#   5002 "backup"  bypass              5005 "voipfb"  pin dsl, fallback
#   5003 "game"    lowest_delay        5006 "call"    redundant
#   5007-5010 "flowa" .. "flowd" flow   5000 the default class (bond)
#   1. beside a 70 Mbit/s bulk flow (both paths), 1 Mbit/s of each class:
#      a pinned class only on its path, the bulk on both, every class
#      counted per path; 2 Mbit/s in each flow class (a flow each), each
#      on one path, none reordered;
#   2. bypass: the capture rules leave it out (a class's chains before
#      the queue, their counters), the daemon never sees it, bonds none
#      of it, and it arrives; --print-rules passes iptables-restore
#      --test and nft -c;
#   3. the DSL cut: "voip" (no fallback) is dropped and counted,
#      "voipfb" moves to the LTE, "call" (a copy on each path) loses
#      nothing, the concentrator's egress counting the second copies;
#   4. reloaded without a bypass class: the classes' chains gone, the
#      capture rules those without classes, the flow of 5002 bonded.
# About 45 s.
#
# usage: test_classes.sh [BUILD_DIR]
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk
tb_require_bin "$L3BONDD" "$L3BONDCTL"

tb_init
tb_setup seed=1
udp_class() {
	echo "{ name = \"$1\"; match = { proto = [ \"udp\" ]; dport = [ $2 ]; };" \
		"mode = \"$3\"; ${4:-} }"
}
TB_CPE_EXTRA="traffic_classes = (
	$(udp_class voip 5001 pin 'path = "dsl";'),
	$(udp_class backup 5002 bypass),
	$(udp_class game 5003 lowest_delay),
	$(udp_class lteonly 5004 pin 'path = "lte";'),
	$(udp_class voipfb 5005 pin 'path = "dsl"; fallback = true;'),
	$(udp_class call 5006 redundant),
	$(udp_class flowa 5007 flow), $(udp_class flowb 5008 flow),
	$(udp_class flowc 5009 flow), $(udp_class flowd 5010 flow)
);" write_confs 0.5 "probe_interval_ms = 200; dead_after_ms = 1000;"
daemons_up

# flow_bg NAME PORT RATE SECS [SIZE]: cli -> srv in the background (PIDS),
# packets of SIZE bytes (200)
PIDS=()
flow_bg() {
	local name=$1 port=$2 rate=$3 secs=$4 size=${5:-200}
	rm -f "$TB_DIR/$name.ready"
	tb_bg srv "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port "$port" \
		--duration $((secs + 5)) --linger-ms 500 \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	PIDS+=("$TB_LAST_PID")
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_bg cli "$TB_DIR/$name.tx.log" "$TB_TRAFFIC" send --dst "$TB_SRV_IP" \
		--port "$port" --rate "$rate" --size "$size" --duration "$secs" \
		--json "$TB_DIR/$name.tx.json"
	PIDS+=("$TB_LAST_PID")
}
flows_end() {
	local p
	for p in "${PIDS[@]}"; do
		tb_wait "$p" 30 || true
	done
	PIDS=()
}
KEYS=()
FLOWS="flowa flowb flowc flowd"
for c in default voip backup game lteonly voipfb call $FLOWS; do
	KEYS+=("path.dsl.class_pkts.$c" "path.lte.class_pkts.$c"
		"ing.class_drops.$c" "ing.class_bypassed.$c")
done
KEYS+=(ing.bonded ing.copies ing.flow_starts ing.flow_moves)
d() {
	counters_delta cpe "$1" "$2"
}

# ---- 1. the classes beside a bulk flow ----------------------------------------

refresh cpe
counters_mark cpe a "${KEYS[@]}"
flow_bg bulk 5000 70 6 1400
for f in voip:5001 game:5003 lteonly:5004 voipfb:5005; do
	flow_bg "${f%:*}" "${f#*:}" 1 6
done
sleep 1 # the flows of mode flow start with the bulk going
for f in flowa:5007 flowb:5008 flowc:5009 flowd:5010; do
	flow_bg "${f%:*}" "${f#*:}" 2 5 1400
done
flows_end
refresh cpe
for c in default voip game lteonly voipfb; do
	echo "  $c: dsl $(d a "path.dsl.class_pkts.$c"), lte" \
		"$(d a "path.lte.class_pkts.$c") packets; lost" \
		"$(jget "$TB_DIR/$([ $c = default ] && echo bulk || echo $c).rx.json" loss_pct) %"
done
check "pin dsl: every packet of voip on the dsl" 'l == 0 && d > 500' \
	"l=$(d a path.lte.class_pkts.voip)" "d=$(d a path.dsl.class_pkts.voip)"
check "pin lte: every packet of lteonly on the lte" 'd == 0 && l > 500' \
	"l=$(d a path.lte.class_pkts.lteonly)" "d=$(d a path.dsl.class_pkts.lteonly)"
check "the default class bonded over both paths" 'd > 1000 && l > 1000' \
	"d=$(d a path.dsl.class_pkts.default)" "l=$(d a path.lte.class_pkts.default)"
check "lowest_delay: game counted on the paths" 'd + l > 500' \
	"d=$(d a path.dsl.class_pkts.game)" "l=$(d a path.lte.class_pkts.game)"
on_one=0
for c in $FLOWS; do
	dd=$(d a "path.dsl.class_pkts.$c")
	ll=$(d a "path.lte.class_pkts.$c")
	echo "  $c (mode flow): dsl $dd, lte $ll packets; reordered" \
		"$(jget "$TB_DIR/$c.rx.json" reordered), lost" \
		"$(jget "$TB_DIR/$c.rx.json" loss_pct) %, delay p50" \
		"$(jget "$TB_DIR/$c.rx.json" delay_p50_ms) p99" \
		"$(jget "$TB_DIR/$c.rx.json" delay_p99_ms) ms"
	if [ $((dd + ll)) -gt 500 ] && { [ "$dd" = 0 ] || [ "$ll" = 0 ]; } &&
		[ "$(jget "$TB_DIR/$c.rx.json" reordered)" = 0 ]; then
		on_one=$((on_one + 1))
	fi
done
echo "  the bulk (default, bond): delay p50 $(jget "$TB_DIR/bulk.rx.json" delay_p50_ms)" \
	"p99 $(jget "$TB_DIR/bulk.rx.json" delay_p99_ms) ms"
check "flow: each flow on one path, none reordered, none moved" \
	'n == 4 && s >= 4 && m == 0' "n=$on_one" "s=$(d a ing.flow_starts)" \
	"m=$(d a ing.flow_moves)"
check "the pinned flows arrive" 'a < 2 && b < 2' \
	"a=$(jget "$TB_DIR/voip.rx.json" loss_pct)" \
	"b=$(jget "$TB_DIR/lteonly.rx.json" loss_pct)"

# ---- 2. bypass --------------------------------------------------------------

check_print_rules cpe
# the packets the ACCEPT rules of a chain counted (iptables-save -c:
# "[pkts:bytes] -A CHAIN ...")
accepted() {
	tb_exec cpe iptables-save -c -t mangle |
		awk -v c="$1" '$2 == "-A" && $3 == c && / -j ACCEPT/ {
			split($1, a, ":"); n += substr(a[1], 2) } END { print n + 0 }'
}
refresh cpe
counters_mark cpe b "${KEYS[@]}"
acc0=$(accepted L3B_C1_0) # the class backup's only chain: its dport
flow_bg backup 5002 5 3
flows_end
refresh cpe
sent=$(jget "$TB_DIR/backup.tx.json" sent)
acc=$(($(accepted L3B_C1_0) - acc0))
echo "  bypass: sent $sent, the capture rules let $acc go natively; the" \
	"daemon let $(d b ing.class_bypassed.backup) go and bonded" \
	"$(d b ing.bonded); lost $(jget "$TB_DIR/backup.rx.json" loss_pct) %"
check "bypass: the capture rules let every packet go, the daemon saw none" \
	'a >= s && s > 1000 && p == 0 && b == 0' "a=$acc" "s=${sent:-0}" \
	"p=$(d b ing.class_bypassed.backup)" "b=$(d b ing.bonded)"
check "bypass: the flow arrives (routed natively)" 'l < 1' \
	"l=$(jget "$TB_DIR/backup.rx.json" loss_pct)"

# ---- 3. the DSL cut: a pin without and with fallback --------------------------

refresh cpe
refresh conc
counters_mark cpe c "${KEYS[@]}"
counters_mark conc c egr.copy_dup egr.dup egr.too_old egr.late
flow_bg voip2 5001 1 6
flow_bg voipfb2 5005 1 6
flow_bg call 5006 1 6
sleep 2
tb_cut dsl
sleep 3
tb_heal dsl
flows_end
refresh cpe
refresh conc
echo "  dsl cut 3 s: voip (no fallback) dropped $(d c ing.class_drops.voip)," \
	"dsl $(d c path.dsl.class_pkts.voip); voipfb dsl" \
	"$(d c path.dsl.class_pkts.voipfb), lte $(d c path.lte.class_pkts.voipfb);" \
	"call (redundant): sent $(jget "$TB_DIR/call.tx.json" sent), dsl" \
	"$(d c path.dsl.class_pkts.call), lte $(d c path.lte.class_pkts.call)," \
	"copies $(d c ing.copies), lost $(jget "$TB_DIR/call.rx.json" loss_pct) %," \
	"duplicates $(jget "$TB_DIR/call.rx.json" duplicates); the" \
	"concentrator dropped $(counters_delta conc c egr.copy_dup) second" \
	"copies (dup $(counters_delta conc c egr.dup), too old" \
	"$(counters_delta conc c egr.too_old))"
check "cut: a pin without fallback drops its packets, counted" 'n > 300' \
	"n=$(d c ing.class_drops.voip)"
check "cut: a pin with fallback goes on the other path" 'l > 300' \
	"l=$(d c path.lte.class_pkts.voipfb)"
check "cut: the redundant class on both paths, nothing lost, no duplicate delivered" \
	'd > 500 && l > 3000 && x == 0 && u == 0' \
	"d=$(d c path.dsl.class_pkts.call)" "l=$(d c path.lte.class_pkts.call)" \
	"x=$(jget "$TB_DIR/call.rx.json" loss_pct)" \
	"u=$(jget "$TB_DIR/call.rx.json" duplicates)"
check "cut: the concentrator counts the second copies as such" 'c > 500' \
	"c=$(counters_delta conc c egr.copy_dup)"

# ---- 4. reloaded without a bypass class -------------------------------------------

sed -i 's/mode = "bypass";/mode = "bond";/' "$TB_DIR/cpe.conf"
kill -HUP "${DPID[cpe]}"
for ((i = 0; i < 50; i++)); do
	grep -q 'rules: L3B_ING updated' "$TB_DIR/cpe.log" && break
	sleep 0.1
done
chains=$(tb_exec cpe iptables-save -t mangle | grep -c '^:L3B_C\|^:L3B_CAP\|^:L3B_Q' || true)
chains6=$(tb_exec cpe ip6tables-save -t mangle | grep -c '^:L3B_C\|^:L3B_CAP\|^:L3B_Q' || true)
plain=$(tb_exec cpe iptables-save -t mangle | grep -c -- '-A L3B_ING .* -j NFQUEUE' || true)
check "reload: the classes' chains gone (both families), capture queues at once" \
	'c == 0 && c6 == 0 && q > 0' "c=$chains" "c6=$chains6" "q=$plain"
refresh cpe
counters_mark cpe e "${KEYS[@]}"
flow_bg backup2 5002 5 3
flows_end
refresh cpe
check "reload: the flow of 5002 bonded now, nothing bypassed" \
	'b > 1000 && p == 0 && l < 1' \
	"b=$(($(d e path.dsl.class_pkts.backup) + $(d e path.lte.class_pkts.backup)))" \
	"p=$(d e ing.class_bypassed.backup)" \
	"l=$(jget "$TB_DIR/backup2.rx.json" loss_pct)"

tb_done
