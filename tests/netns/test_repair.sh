#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Repair of a line's errors (DESIGN.md, "Repair") through the real
# daemons, on the testbed of lib.sh with a DSL that loses 1 % of its
# packets at random, both directions (l3b-linkem), and no other loss.  A
# 20 Mbit/s UDP flow (it fits the DSL: no standing queue) goes down for
# 8 s:
#   1. with the defaults (repair_queue_ms = 5): the CPE's egress asks
#      the concentrator for each packet the DSL lost (NACK), the
#      concentrator sends it again on the lowest-delay path, the hole
#      waits for it: the flow loses under a quarter of what the line
#      lost (copies and NACKs cross the same lossy DSL, so a few go);
#   2. repair_queue_ms = 0, set at run time (l3bondctl): nothing is asked
#      for, the flow loses what the line loses (over half of 1 %).
# About 40 s.
#
# usage: test_repair.sh [BUILD_DIR]
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

FLOW_S=8

tb_init
tb_setup seed=5 dsl_loss=0.01
write_confs 0.5
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up"
else
	bad "paths not up"
	tb_abort
fi

# flow NAME: 20 Mbit/s down for FLOW_S; prints "expected unique"
flow() {
	local rx
	rm -f "$TB_DIR/$1.ready"
	tb_bg cli "$TB_DIR/$1.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((FLOW_S + 4)) --linger-ms 1000 \
		--json "$TB_DIR/$1.rx.json" --ready-file "$TB_DIR/$1.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$1.ready" 250 || bad "$1: receiver not ready"
	tb_exec srv "$TB_TRAFFIC" send --dst "$TB_CLI_IP" --port 5000 \
		--size 1400 --rate 20 --duration $FLOW_S \
		--json "$TB_DIR/$1.tx.json" >/dev/null || true
	tb_wait "$rx" 15 || true
	echo "$(jget "$TB_DIR/$1.rx.json" expected 0)" \
		"$(jget "$TB_DIR/$1.rx.json" unique 0)"
}

# the DSL's emulated loss downstream so far
line_lost() {
	tb_linkem_stats dsl down | jq -r '.dropped_loss // .lost // 0'
}

l0=$(line_lost)
read -r e1 u1 <<<"$(flow on)"
l1=$(line_lost)
refresh cpe
refresh conc
echo "  repair on: ${e1} sent, $((e1 - u1)) lost of the $((l1 - l0)) the" \
	"DSL lost down; the CPE asked $(st cpe egr.repair_asked) in" \
	"$(st cpe egr.nacks_sent) NACKs (queued $(st cpe egr.repair_queued)," \
	"capped $(st cpe egr.repair_capped)), filled $(st cpe egr.repair_filled)," \
	"timed out $(st cpe egr.repair_timeout); the concentrator repaired" \
	"$(st conc ing.repaired) (unknown $(st conc path.dsl.inflight_unknown))"
check "the DSL lost packets of the flow (the bed works)" \
	'l > 0.005 * e' "l=$((l1 - l0))" "e=$e1"
check "the CPE asked for them and the concentrator sent them again" \
	'a > 0 && r > 0 && f > 0' "a=$(st cpe egr.repair_asked)" \
	"r=$(st conc ing.repaired)" "f=$(st cpe egr.repair_filled)"
rate_check "with repair the flow lost under a quarter of what the line lost" \
	'e > 0 && (e - u) * 4 < l' "e=$e1" "u=$u1" "l=$((l1 - l0))"

if "$L3BONDCTL" -s "$(ctl_socket cpe)" set repair_queue_ms 0 >/dev/null; then
	refresh cpe
	check "repair_queue_ms = 0 at run time" 'q == 0' \
		"q=$(st cpe repair_queue_ms)"
else
	bad "l3bondctl set repair_queue_ms 0 refused"
fi
asked=$(st cpe egr.repair_asked)
l0=$(line_lost)
read -r e2 u2 <<<"$(flow off)"
l1=$(line_lost)
refresh cpe
echo "  repair off: ${e2} sent, $((e2 - u2)) lost of the $((l1 - l0))" \
	"the DSL lost down"
check "without repair nothing is asked for" 'a == b' \
	"a=$(st cpe egr.repair_asked)" "b=$asked"
rate_check "without repair the flow loses what the line loses" \
	'e > 0 && (e - u) * 2 > l && l > 0' "e=$e2" "u=$u2" "l=$((l1 - l0))"
tb_done
