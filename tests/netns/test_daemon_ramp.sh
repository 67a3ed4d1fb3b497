#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The paper's experiment through the real daemons: one UDP flow of
# 1492-byte packets ramping 63 -> 105 -> 63 Mbit/s over 40 s
# (l3b-traffic --profile paper), downstream srv -> cli, then upstream,
# on the testbed of lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                                   NAT
#   dsl 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms, each direction emulated.
#
# A benchmark more than a test: it prints loss, reordering, one-way delay
# percentiles, DSL utilisation while demand exceeds the line (t = 1..39 s,
# as the line's tbf counts bytes: Ethernet frames, both fragments of the
# 1556-byte outer packets), the LTE share, the weight updates, and what
# the simulator predicts for the same settings when it is built.  It
# asserts only loose bounds: loss < 2 %, reordered < 1 %, DSL >= 90 %,
# and that the daemons' memory does not grow over a further 20 s of
# 90 Mbit/s both ways at once.  Reordered was bounded at 0.1 % before the
# resequencer released late packets out of order rather than dropping
# them (2026-11-26): since, 0 in most runs, and down 0.16 % (476
# packets, loss 1.13 %) and 0.46 % (1359, loss 0.03 %) in two CI runs of
# 2026-11-27; a resequencer that did not order would leave tens of
# percent (MLVPN's static split: 50 %).
#
# usage: test_daemon_ramp.sh [BUILD_DIR] [K [T_DWD_MS]]
# Exit 0 if the bounds hold, 1 if not, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
k=${2:-0.5}
dwd=${3:-250}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
SIM=${SIM:-$build/sim/l3bond-sim}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk
tb_require_bin "$L3BONDD"

rss_kb() {
	awk '/^VmRSS/ { print $2 }' "/proc/$1/status"
}

tbf_up_bytes() {
	tb_exec "$1" tc -s qdisc show dev conc | awk '/Sent/ { print $2; exit }'
}

# ramp DIR: the paper's profile in direction DIR (down: srv -> cli).
ramp() {
	local dir=$1 from to dst rx tx t1 t2 l1 l2 f
	if [ "$dir" = down ]; then
		from=srv to=cli dst=$TB_CLI_IP
	else
		from=cli to=srv dst=$TB_SRV_IP
	fi
	settle
	rm -f "$TB_DIR/$dir.ready"
	tb_bg "$to" "$TB_DIR/$dir.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration 50 --linger-ms 500 --json "$TB_DIR/$dir.rx.json" \
		--ready-file "$TB_DIR/$dir.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$dir.ready" || true
	tb_bg "$from" "$TB_DIR/$dir.tx.json" "$TB_TRAFFIC" send --dst "$dst" \
		--port 5000 --profile paper --duration 40
	tx=$TB_LAST_PID
	sleep 1
	if [ "$dir" = down ]; then
		t1=$(tbf_down_bytes dsl)
		l1=$(tbf_down_bytes lte)
	else
		t1=$(tbf_up_bytes dsl)
		l1=$(tbf_up_bytes lte)
	fi
	sleep 38
	if [ "$dir" = down ]; then
		t2=$(tbf_down_bytes dsl)
		l2=$(tbf_down_bytes lte)
	else
		t2=$(tbf_up_bytes dsl)
		l2=$(tbf_up_bytes lte)
	fi
	tb_wait "$tx" 10 || true
	tb_wait "$rx" 20 || true
	f=$TB_DIR/$dir.rx.json
	echo "  $dir: $(cat "$f")"
	if [ "$dir" = down ]; then
		refresh conc
		echo "  weights (conc): $(grep -E '^(w_mobile|ing.awi|ing.iwi|ing.dwd|ing.dwd_held)=' "$(status_file conc)" | tr '\n' ' ')"
	else
		refresh cpe
		echo "  weights (cpe): $(grep -E '^(w_mobile|ing.awi|ing.iwi|ing.dwd|ing.dwd_held)=' "$(status_file cpe)" | tr '\n' ' ')"
	fi
	util=$(awk -v b=$((t2 - t1)) 'BEGIN { printf "%.1f", b * 8 / 38 / 64e6 * 100 }')
	lshare=$(awk -v d=$((t2 - t1)) -v l=$((l2 - l1)) 'BEGIN { printf "%.1f", l / (d + l) * 100 }')
	echo "  $dir: loss $(jget "$f" loss_pct) %, reordered $(jget "$f" reordered), delay p50 $(jget "$f" delay_p50_ms) p99 $(jget "$f" delay_p99_ms) ms, DSL utilisation $util %, LTE share $lshare % of the line bytes"
	# the receiver's resequencer: a packet that comes within t_lto_ms
	# of its hole's timeout is released late, out of order (egr.late)
	rbox=cpe
	[ "$dir" = up ] && rbox=conc
	refresh $rbox
	echo "  resequencer ($rbox): $(grep -E '^egr\.(late|too_old|hole_timeout|hole_early)=' "$(status_file $rbox)" | tr '\n' ' ')"
	check "ramp $dir: loss < 2 %, reordered < 1 %, DSL >= 90 %, intact" \
		'loss < 2 && reord / expected < 0.01 && util >= 90 &&
		 corrupted == 0 && expected > 0' \
		"loss=$(jget "$f" loss_pct)" "reord=$(jget "$f" reordered)" \
		"expected=$(jget "$f" expected)" "util=$util" \
		"corrupted=$(jget "$f" corrupted)"
}

tb_init
write_confs "$k" "t_dwd_ms = $dwd;"
tb_setup
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up on each"
else
	bad "paths not up"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi

if [ -x "$SIM" ]; then
	echo "  simulator, same settings: $("$SIM" --profile ramp --k "$k" \
		--t-dwd-ms "$dwd" | awk '/^(loss_pct|fixed_util_pct|mobile_share_pct)/ { printf "%s %s  ", $1, $2 }')"
fi
ramp down
ramp up

# Memory: after both ramps (every buffer the traffic needs touched), 20 s
# of 90 Mbit/s both ways at once must not grow either daemon.
rss1_cpe=$(rss_kb "${DPID[cpe]}")
rss1_conc=$(rss_kb "${DPID[conc]}")
tb_bg cli "$TB_DIR/m.down.rx" "$TB_TRAFFIC" recv --port 5000 --duration 30 \
	--linger-ms 500 --json "$TB_DIR/m.down.json"
mrx1=$TB_LAST_PID
tb_bg srv "$TB_DIR/m.up.rx" "$TB_TRAFFIC" recv --port 5000 --duration 30 \
	--linger-ms 500 --json "$TB_DIR/m.up.json"
mrx2=$TB_LAST_PID
sleep 0.5
tb_bg srv "$TB_DIR/m.down.tx" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --rate 90 --size 1400 --duration 20
mtx1=$TB_LAST_PID
tb_exec cli "$TB_TRAFFIC" send --dst "$TB_SRV_IP" --port 5000 --rate 90 \
	--size 1400 --duration 20 >/dev/null
tb_wait "$mtx1" 10 || true
tb_wait "$mrx1" 20 || true
tb_wait "$mrx2" 20 || true
rss2_cpe=$(rss_kb "${DPID[cpe]}")
rss2_conc=$(rss_kb "${DPID[conc]}")
echo "  90 Mbit/s both ways for 20 s: loss down $(jget "$TB_DIR/m.down.json" loss_pct) %, up $(jget "$TB_DIR/m.up.json" loss_pct) %"
echo "  RSS kB before / after: cpe $rss1_cpe / $rss2_cpe, conc $rss1_conc / $rss2_conc"
if ldd "$L3BONDD" 2>/dev/null | grep -q libasan; then
	echo "  (no memory check under ASan: its quarantine keeps freed memory)"
else
	check "no memory growth over 20 s at 90 Mbit/s both ways (< 64 kB)" \
		'c2 - c1 < 64 && k2 - k1 < 64' "c1=$rss1_cpe" "c2=$rss2_cpe" \
		"k1=$rss1_conc" "k2=$rss2_conc"
fi

for box in cpe conc; do
	kill -TERM "${DPID[$box]}"
	rc=0
	tb_wait "${DPID[$box]}" 10 || rc=$?
	check "$box: SIGTERM: exit 0" 'rc == 0' "rc=$rc"
done

tb_done
