#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The CPE's data budget of its LTE (issue 13) on the testbed of lib.sh (dsl
# 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms), budget_mb on the CPE's lte:
#   1. spent mid-run: a 90 Mbit/s flow srv -> cli (more than the DSL) puts
#      some 25 Mbit/s on the LTE until its 12 MB are spent: the CPE warns
#      at 80 % and 100 %, flags the path spent, asks the concentrator
#      (WIRE_RF_BACKUP), which stops sending DATA on it (both directions:
#      the CPE's own scheduler too); what it counted is near what the
#      emulated LTE carried both ways;
#   2. kept across a restart (SIGTERM writes the state file) and a SIGKILL
#      (l3bondctl budget lte set writes it at once);
#   3. a corrupt state file: reported (file and line) and replaced, the
#      count starting at budget_used_mb;
#   4. l3bondctl budget lte reset: the LTE carries again; bad requests
#      refused.
# About 70 s.
#
# usage: test_budget.sh [BUILD_DIR]
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk python3
tb_require_bin "$L3BONDD" "$L3BONDCTL"

BUDGET_MB=12
USED_MB=3

tb_init
tb_setup seed=1
STATE=$TB_DIR/budget.state
TB_CPE_EXTRA="budget_state_file = \"$STATE\"; budget_save_min = 1;" \
	write_confs 0.5 "probe_interval_ms = 200; dead_after_ms = 1000;"
conf_path_keys "$TB_DIR/cpe.conf" lte \
	"budget_mb = $BUDGET_MB; budget_used_mb = $USED_MB;"
daemons_up

ctl() {
	"$L3BONDCTL" -s "$(ctl_socket cpe)" "$@"
}

# A flow srv -> cli at RATE Mbit/s for SECS s in the background.
flow_bg() {
	local name=$1 rate=$2 secs=$3
	rm -f "$TB_DIR/$name.ready"
	tb_bg cli "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((secs + 5)) --linger-ms 500 \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	RX_PID=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_bg srv "$TB_DIR/$name.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
		--port 5000 --rate "$rate" --size 1400 --duration "$secs" \
		--json "$TB_DIR/$name.tx.json"
	TX_PID=$TB_LAST_PID
}

flow_end() {
	tb_wait "$TX_PID" 30 || true
	tb_wait "$RX_PID" 30 || true
}

# dstart BOX / dstop BOX (SIGTERM) / dkill BOX (SIGKILL): the daemon again
NSTART=0
dstart() {
	NSTART=$((NSTART + 1))
	# wait_up signals once the status file exists: the old daemon's must
	# not be taken for the new one's (a SIGUSR1 before l3bondd's main()
	# ignores it kills the process)
	rm -f "$(status_file cpe)"
	tb_bg cpe "$TB_DIR/cpe.$NSTART.log" "$L3BONDD" -c "$TB_DIR/cpe.conf" \
		--status-file "$(status_file cpe)" \
		--control-socket "$(ctl_socket cpe)" \
		"${L3BONDD_ARGS[@]+"${L3BONDD_ARGS[@]}"}"
	DPID[cpe]=$TB_LAST_PID
	CPE_LOG=$TB_DIR/cpe.$NSTART.log
	wait_up cpe || true
}
dstop() {
	kill -TERM "${DPID[cpe]}"
	tb_wait "${DPID[cpe]}" 10 || true
}
dkill() {
	kill -KILL "${DPID[cpe]}"
	tb_wait "${DPID[cpe]}" 5 2>/dev/null || true
}
CPE_LOG=$TB_DIR/cpe.log

mb() {
	awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'
}

# ---- 1. spent mid-run --------------------------------------------------------

refresh cpe
used0=$(st cpe path.lte.budget_used_bytes)
check "start: budget_used_mb counted, no state file yet" \
	'u >= m * 1e6 && u < (m + 1) * 1e6 && b == 12' "u=$used0" "m=$USED_MB" \
	"b=$(st cpe path.lte.budget_mb)"
check "start: no state file yet is reported" 'n > 0' \
	"n=$(grep -c "no budget state in $STATE yet" "$CPE_LOG" || true)"
lte0=$(tbf_down_bytes lte)
flow_bg spend 90 12
t0=$EPOCHREALTIME
spent_at=-1
for ((i = 0; i < 120; i++)); do
	sleep 0.1
	refresh cpe
	if [ "$(st cpe path.lte.budget_spent)" = 1 ]; then
		spent_at=$(awk -v a="$t0" -v b="$EPOCHREALTIME" \
			'BEGIN { printf "%d", (b - a) * 1000 }')
		break
	fi
done
# the concentrator is told within a report interval; 2 s to settle
sleep 2
refresh conc
counters_mark conc s path.lte.tx_pkts path.dsl.tx_pkts
sleep 3
refresh conc
refresh cpe
late_lte=$(counters_delta conc s path.lte.tx_pkts)
late_dsl=$(counters_delta conc s path.dsl.tx_pkts)
flow_end
refresh cpe
refresh conc
used1=$(st cpe path.lte.budget_used_bytes)
lte1=$(tbf_down_bytes lte)
echo "  90 Mbit/s down with a ${BUDGET_MB}-MB budget (${USED_MB} MB used):" \
	"spent (seen) after $spent_at ms; the CPE counted $(mb "$used1") MB" \
	"(its $(mb "$used0") MB at the start, and the emulated LTE carried" \
	"$(mb $((lte1 - lte0))) MB of Ethernet frames downstream since);" \
	"in 3 s after" \
	"it the concentrator sent $late_lte DATA on lte, $late_dsl on dsl;" \
	"lost $(jget "$TB_DIR/spend.rx.json" loss_pct) %"
check "spent: the budget was spent mid-run" 's >= 0' "s=$spent_at"
check "spent: the CPE flags it (level 100, a backup path)" \
	'l == 100 && u == "backup"' "l=$(st cpe path.lte.budget_level)" \
	"u=$(st cpe path.lte.used_as)"
check "spent: warned at 80 % and at 100 %" 'a > 0 && b > 0' \
	"a=$(grep -c '80 % of its data budget used' "$CPE_LOG" || true)" \
	"b=$(grep -c 'data budget spent' "$CPE_LOG" || true)"
check "spent: the concentrator was asked (peer_backup) and obeys" \
	'p == 1 && u == "backup"' "p=$(st conc path.lte.peer_backup)" \
	"u=$(st conc path.lte.used_as)"
check "spent: no DATA on the lte downstream after it, the dsl carrying" \
	'l == 0 && d > 5000' "l=$late_lte" "d=$late_dsl"
# l3bond counts IP packets both ways; the line's rate limiter counts
# Ethernet frames (14 bytes more each) downstream, where the flow is: the
# upstream's REPORTs and probes are a few % more
check "spent: counted near what the LTE carried (within 20 %)" \
	'c > 0 && (u - u0) > 0.8 * c && (u - u0) < 1.2 * c' \
	"u=$used1" "u0=$used0" "c=$((lte1 - lte0))"

# ---- 2. kept across a restart and a SIGKILL -------------------------------

dstop
check "restart: the state file written at exit" 'n == 1' \
	"n=$(grep -c "^path lte used " "$STATE" || true)"
dstart
refresh cpe
check "restart: the use kept, still spent" 'u >= b && s == 1' \
	"u=$(st cpe path.lte.budget_used_bytes)" "b=$used1" \
	"s=$(st cpe path.lte.budget_spent)"
ctl budget lte set 5 >"$TB_DIR/set.out"
dkill
dstart
refresh cpe
u=$(st cpe path.lte.budget_used_bytes)
check "SIGKILL: what l3bondctl budget set wrote is kept (5 MB and what came since)" \
	'u >= 5e6 && u < 6e6 && s == 0' "u=$u" "s=$(st cpe path.lte.budget_spent)"

# ---- 3. a corrupt state file ----------------------------------------------------

dstop
printf 'l3bond-budget 1\npath lte used 12x start 0\nend 0\n' >"$STATE"
dstart
refresh cpe
u=$(st cpe path.lte.budget_used_bytes)
check "corrupt: reported with the file and its line" 'n > 0' \
	"n=$(grep -c "$STATE:2" "$CPE_LOG" || true)"
check "corrupt: the count starts at budget_used_mb" \
	'u >= m * 1e6 && u < (m + 1) * 1e6' "u=$u" "m=$USED_MB"
ctl budget lte reset >"$TB_DIR/reset.out"
check "corrupt: replaced by a good file (l3bondctl budget wrote it)" \
	'h == 1 && e == 1' "h=$(grep -c '^l3bond-budget 1$' "$STATE" || true)" \
	"e=$(grep -c '^end ' "$STATE" || true)"

# ---- 4. reset, and bad requests ------------------------------------------------

refresh cpe
check "reset: nothing used, not spent" 'u < 1e6 && s == 0' \
	"u=$(st cpe path.lte.budget_used_bytes)" "s=$(st cpe path.lte.budget_spent)"
# checked within a second: at 90 Mbit/s the LTE takes some 4 MB a second,
# and the 12 MB would be spent again in three
flow_bg again 90 3
sleep 0.5
refresh conc
counters_mark conc r path.lte.tx_pkts
sleep 0.5
refresh conc
check "reset: the concentrator uses the lte again" 'p == 0 && l > 100' \
	"p=$(st conc path.lte.peer_backup)" "l=$(counters_delta conc r path.lte.tx_pkts)"
flow_end
rc=0
ctl budget dsl reset >"$TB_DIR/bad1.out" 2>&1 || rc=$?
check "l3bondctl budget on a path without a budget: refused (exit 1)" \
	'r == 1 && n > 0' "r=$rc" "n=$(grep -c 'has no data budget' "$TB_DIR/bad1.out" || true)"
rc=0
ctl budget wifi reset >"$TB_DIR/bad2.out" 2>&1 || rc=$?
check "l3bondctl budget on no path: refused (exit 1)" \
	'r == 1 && n > 0' "r=$rc" "n=$(grep -c "no path named 'wifi'" "$TB_DIR/bad2.out" || true)"
rc=0
ctl budget lte set -3 >"$TB_DIR/bad3.out" 2>&1 || rc=$?
check "l3bondctl budget set -3: refused (exit 1)" 'r == 1' "r=$rc"
rc=0
ctl budget lte >"$TB_DIR/bad4.out" 2>&1 || rc=$?
check "l3bondctl budget without a request: usage (exit 2)" 'r == 2' "r=$rc"

tb_done
