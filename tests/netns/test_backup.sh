#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A backup path (class "backup", issue 13) on the testbed of lib.sh (dsl
# 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms), the LTE configured as backup
# on both ends, flows both ways at once (srv -> cli and cli -> srv):
#   1. the DSL up: the LTE carries no DATA either way, and next to no
#      control traffic (no REPORTs, idle probes only);
#   2. the DSL cut for 4 s: the LTE carries both flows, the longest gap in
#      delivery is within the failover bound (dead_after_ms + 300 ms, as
#      test_failover's), and the flows lose no more than that gap;
#   3. the DSL healed: the LTE carries nothing again.
# The figures are printed.  About 50 s.
#
# usage: test_backup.sh [BUILD_DIR]
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

DEAD_MS=1000
RATE=25

tb_init
tb_setup seed=1
TB_LTE_CLASS=backup write_confs 0.5 \
	"probe_interval_ms = 200; dead_after_ms = $DEAD_MS;"
daemons_up

# flows_bg NAME SECS: RATE Mbit/s srv -> cli (NAME-down) and cli -> srv
# (NAME-up) in the background; flows_end waits for them.
PIDS=()
flows_bg() {
	local name=$1 secs=$2 dir from to dst port
	PIDS=()
	for dir in down up; do
		if [ $dir = down ]; then
			from=srv to=cli dst=$TB_CLI_IP port=5000
		else
			from=cli to=srv dst=$TB_SRV_IP port=5001
		fi
		rm -f "$TB_DIR/$name-$dir.ready"
		tb_bg "$to" "$TB_DIR/$name-$dir.rx.log" "$TB_TRAFFIC" recv \
			--port $port --duration $((secs + 5)) --linger-ms 500 \
			--json "$TB_DIR/$name-$dir.rx.json" \
			--csv "$TB_DIR/$name-$dir.csv" --csv-interval-ms 100 \
			--ready-file "$TB_DIR/$name-$dir.ready"
		PIDS+=("$TB_LAST_PID")
		tb_wait_file "$TB_DIR/$name-$dir.ready" || true
	done
	for dir in down up; do
		if [ $dir = down ]; then
			from=srv dst=$TB_CLI_IP port=5000
		else
			from=cli dst=$TB_SRV_IP port=5001
		fi
		tb_bg "$from" "$TB_DIR/$name-$dir.tx.log" "$TB_TRAFFIC" send \
			--dst "$dst" --port $port --rate $RATE --size 1400 \
			--duration "$secs" --json "$TB_DIR/$name-$dir.tx.json"
		PIDS+=("$TB_LAST_PID")
	done
}

flows_end() {
	local p
	for p in "${PIDS[@]}"; do
		tb_wait "$p" 30 || true
	done
}

# The longest run of 100-ms rows without a packet between the first and
# the last row with one (ms).
gap_ms() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pkts") c = i; next }
		{ n++; p[n] = $c }
		END { for (i = 1; i <= n && p[i] == 0; i++) ;
		      for (j = n; j >= 1 && p[j] == 0; j--) ;
		      for (; i <= j; i++) { r = p[i] == 0 ? r + 100 : 0
					    if (r > best) best = r }
		      print best + 0 }' "$1"
}

MARK=(path.lte.tx_pkts path.lte.ctrl_tx path.dsl.tx_pkts path.dsl.ctrl_tx)
# the marks are kept per box (counters_mark's tags are not)
mark() {
	refresh conc
	refresh cpe
	counters_mark conc "$1.conc" "${MARK[@]}"
	counters_mark cpe "$1.cpe" "${MARK[@]}"
}
d() {
	counters_delta "$1" "$2.$1" "$3"
}

# ---- 1. the DSL up: nothing on the backup --------------------------------

mark a
flows_bg up 6
flows_end
refresh conc
refresh cpe
echo "  dsl up, ${RATE} Mbit/s each way for 6 s: DATA on lte conc" \
	"$(d conc a path.lte.tx_pkts), cpe $(d cpe a path.lte.tx_pkts);" \
	"on dsl conc $(d conc a path.dsl.tx_pkts), cpe" \
	"$(d cpe a path.dsl.tx_pkts); control packets on lte conc" \
	"$(d conc a path.lte.ctrl_tx), cpe $(d cpe a path.lte.ctrl_tx), on" \
	"dsl conc $(d conc a path.dsl.ctrl_tx), cpe $(d cpe a path.dsl.ctrl_tx);" \
	"lost down $(jget "$TB_DIR/up-down.rx.json" loss_pct) %, up" \
	"$(jget "$TB_DIR/up-up.rx.json" loss_pct) %"
check "dsl up: no DATA on the backup lte, either way" 'c == 0 && p == 0' \
	"c=$(d conc a path.lte.tx_pkts)" "p=$(d cpe a path.lte.tx_pkts)"
check "dsl up: the dsl carries both flows" 'c > 10000 && p > 10000' \
	"c=$(d conc a path.dsl.tx_pkts)" "p=$(d cpe a path.dsl.tx_pkts)"
# reports every 50 ms and probes every 200 ms go on the dsl (some 150 in
# 6 s each end); the lte gets a probe and a HELLO at most now and then
check "dsl up: next to no control traffic on the backup lte" \
	'c <= 6 && p <= 6 && dc > 60' "c=$(d conc a path.lte.ctrl_tx)" \
	"p=$(d cpe a path.lte.ctrl_tx)" "dc=$(d conc a path.dsl.ctrl_tx)"
check "dsl up: the flows arrive whole" 'a < 0.5 && b < 0.5' \
	"a=$(jget "$TB_DIR/up-down.rx.json" loss_pct)" \
	"b=$(jget "$TB_DIR/up-up.rx.json" loss_pct)"

# ---- 2. the DSL cut: the backup carries ------------------------------------

mark b
flows_bg cut 10
sleep 3
tb_cut dsl
sleep 4
refresh conc
refresh cpe
tb_heal dsl
flows_end
gd=$(gap_ms "$TB_DIR/cut-down.csv")
gu=$(gap_ms "$TB_DIR/cut-up.csv")
ld=$(jget "$TB_DIR/cut-down.rx.json" loss_pct)
lu=$(jget "$TB_DIR/cut-up.rx.json" loss_pct)
echo "  dsl cut 4 s under ${RATE} Mbit/s each way (10 s): DATA on lte" \
	"during the cut conc $(d conc b path.lte.tx_pkts), cpe" \
	"$(d cpe b path.lte.tx_pkts); longest gap in delivery down $gd ms," \
	"up $gu ms; lost down $ld %, up $lu %"
check "dsl cut: the backup lte carries both flows" 'c > 5000 && p > 5000' \
	"c=$(d conc b path.lte.tx_pkts)" "p=$(d cpe b path.lte.tx_pkts)"
check "dsl cut: no gap in delivery longer than dead_after_ms + 300 ms" \
	'a <= m && b <= m' "a=$gd" "b=$gu" "m=$((DEAD_MS + 300))"
# a 10-s flow that loses at most the gap (and its share around it)
check "dsl cut: the flows lose no more than the gap" \
	'a < 15 && b < 15' "a=$ld" "b=$lu"

# ---- 3. healed: the backup idle again ---------------------------------------

sleep 3
mark e
flows_bg healed 4
flows_end
refresh conc
refresh cpe
echo "  dsl healed, 4 s later: DATA on lte conc $(d conc e path.lte.tx_pkts)," \
	"cpe $(d cpe e path.lte.tx_pkts); on dsl conc" \
	"$(d conc e path.dsl.tx_pkts), cpe $(d cpe e path.dsl.tx_pkts)"
check "dsl healed: the backup lte carries nothing again" 'c == 0 && p == 0' \
	"c=$(d conc e path.lte.tx_pkts)" "p=$(d cpe e path.lte.tx_pkts)"
check "dsl healed: the dsl carries both flows" 'c > 5000 && p > 5000' \
	"c=$(d conc e path.dsl.tx_pkts)" "p=$(d cpe e path.dsl.tx_pkts)"

tb_done
