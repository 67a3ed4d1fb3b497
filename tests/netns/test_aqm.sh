#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The overflow's AQM (mobile_aqm_ms = 60, the default; ingress/sched.c,
# aqm_drop) through the real daemons, on the testbed of lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#   dsl 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms, 50 ms buffers but the
#   LTE's downstream one: 150 ms.
#
# A UDP flow srv -> cli at 20 Mbit/s for 2 s lets the concentrator's train
# set the DSL's pace.  Then one at 150 Mbit/s, more than both lines carry,
# for 6 s: the DSL takes its pace and the rest overflows to the LTE, whose
# buffer stands full (a UDP sender does not back off), and a ping srv ->
# cli every 20 ms (a sparse flow) runs beside it.  Checked:
#   - the concentrator dropped overflow (aqm_drops > 0), on CoDel's law:
#     far fewer than the LTE's own buffer dropped (the law drops about
#     (T / 0.2 s)^2 packets in T seconds: 848-865 in 6 s, where the
#     LTE's buffer dropped 16 500);
#   - the dropped packets went nowhere: the receiver got at most what was
#     sent less what the AQM dropped, and nothing was let go natively
#     (no_path 0);
#   - no ping was lost: a sparse flow takes the DSL within its pace and is
#     never dropped;
#   - mobile_aqm_ms = 0 (l3bondctl set) stops the drops: a second
#     overload of 3 s adds none.
# The figures are printed.
#
# usage: test_aqm.sh [BUILD_DIR]
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

tb_init
tb_setup seed=5 lte_down_qlat=150
write_confs 0.5 ""
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up"
else
	bad "paths not up"
	tb_abort
fi
check "mobile_aqm_ms 60 by default" 'a == 60' "a=$(st conc mobile_aqm_ms)"

# the DSL's pace, from the train
UDP_DURATION=2 udp srv cli "$TB_CLI_IP" warm --size 1400 --rate 20
refresh conc
check "the DSL is paced" 'p > 0' "p=$(st conc path.dsl.pace_kbps)"

lte_drops() {
	tb_exec lte tc -s qdisc show dev cpe |
		awk '/dropped/ { sub(",", "", $7); print $7; exit }'
}
l0=$(lte_drops)
tb_bg srv "$TB_DIR/ping.log" "$TB_TRAFFIC" ping --dst "$TB_CLI_IP" \
	--count 300 --interval-ms 20 --timeout-ms 1000 \
	--json "$TB_DIR/ping.json"
ping=$TB_LAST_PID
UDP_DURATION=6 udp srv cli "$TB_CLI_IP" over --size 1400 --rate 150
tb_wait "$ping" 10 || true
refresh conc
drops=$(st conc ing.aqm_drops)
sent=$(jget "$TB_DIR/over.tx.json" sent)
got=$(jget "$TB_DIR/over.rx.json" unique)
echo "  150 Mbit/s for 6 s: sent $sent, received $got, the AQM dropped" \
	"$drops, overflowed $(st conc ing.overflow), paced $(st conc ing.paced);" \
	"the LTE's buffer dropped $(($(lte_drops) - l0)); pings" \
	"$(jget "$TB_DIR/ping.json" received) of $(jget "$TB_DIR/ping.json" sent)," \
	"rtt max $(jget "$TB_DIR/ping.json" rtt_max_ms) ms"
check "the AQM dropped overflow" 'd > 0' "d=$drops"
rate_check "on CoDel's law: fewer than the LTE's buffer dropped" \
	'd < l' "d=$drops" "l=$(($(lte_drops) - l0))"
check "what it dropped went nowhere" \
	's > 0 && g + d <= s && n == 0' "s=$sent" "g=$got" "d=$drops" \
	"n=$(st conc ing.no_path)"
check "no ping lost: a sparse flow is never dropped" 's == 300 && r == s' \
	"s=$(jget "$TB_DIR/ping.json" sent)" "r=$(jget "$TB_DIR/ping.json" received)"

# off at run time: no more drops
if "$L3BONDCTL" -s "$(ctl_socket conc)" set mobile_aqm_ms 0 >/dev/null; then
	UDP_DURATION=3 udp srv cli "$TB_CLI_IP" off --size 1400 --rate 150
	refresh conc
	check "mobile_aqm_ms = 0: no drop" 'a == 0 && d == d0 && o > 0' \
		"a=$(st conc mobile_aqm_ms)" "d=$(st conc ing.aqm_drops)" \
		"d0=$drops" "o=$(st conc ing.overflow)"
else
	bad "l3bondctl set mobile_aqm_ms 0 refused"
fi
tb_done
