#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Concentrator high availability: two concentrators sharing the service
# addresses by VRRP (keepalived, advert_int 0.5), and a CPE's ordered list
# of concentrators (peers) without it.  The testbed of lib.sh with its
# second site (tb_site2_setup); its box conc becomes the provider segment:
# three bridges (dsl, lte, lan), each with a port to both concentrators.
#
#   cli  -- cpe  ==dsl/lte==+                   +-- c1 l3bondd keepalived (prio 150)
#                           +== [conc: bridges] +
#   cli2 -- cpe2 ==dsl/lte==+   dsl lte lan     +-- c2 l3bondd keepalived (prio 100)
#                                    |
#                                   srv 10.0.2.2
#
#   c1: dsl 10.12.0.11, lte 10.22.0.11, lan 10.0.2.11
#   c2: dsl 10.12.0.12, lte 10.22.0.12, lan 10.0.2.12
#   VIPs (the master's): 10.12.0.1 (dsl), 10.22.0.1 (lte), 10.0.2.1 (lan):
#   the addresses the CPEs' peers and srv's route name, as in the plain bed
#
# VRRP runs on lan (multicast, as an operator configures it), the VIPs of
# dsl and lte move with it; keepalived's check script asks l3bondd over its
# control socket (l3bondctl help) every second (its least interval): l3bondd dead, the box gives
# the addresses away.  (track_process, the sample's choice for a real box,
# cannot tell apart the l3bondd processes of the boxes here: they share
# one PID namespace.)  The dsl router forwards nothing native between the
# sites and srv: only bonded packets reach the receivers.
# Flows: srv -> cli, srv -> cli2, cli -> srv, cli2 -> srv, 1000 packets/s
# each, every packet's arrival logged; a phase's gap is, per flow, the time
# from the event to the end of the last silence (over 100 ms) that
# followed it.  Checked:
#   0. keepalived -t accepts the test's configuration and the shipped
#      conf/keepalived.conf.sample;
#   1. l3bondd alone killed on the master: the check script hands the
#      addresses over, both CPEs bonded again via c2 within 3 s;
#   2. l3bondd back on c1: c1 takes the addresses again (preempt), one
#      handshake more per CPE, no further one;
#   3. the master box dies (its links down, keepalived and l3bondd killed
#      together): both CPEs bonded via c2 within 3 s;
#   4. the box back: one handshake more per CPE;
#   5. no keepalived, cpe with peers = [ c1, c2 ] on each path: c1's
#      l3bondd killed, the upstream flow bonded via c2 within 3 s
#      (peer_entry 1, one move); c1 back: cpe returns to it (peer_entry
#      0, one return, one handshake).
# The gaps are printed.  About 100 s.
#
# usage: test_ha.sh [BUILD_DIR]   (l3bondd, l3bondctl in BUILD_DIR/gateway,
# the tools in BUILD_DIR/tests/tools unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root or
# without keepalived.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

TB_PREFIX=${TB_PREFIX:-l3b-ha-$$-}
# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk python3 keepalived
tb_require_bin "$L3BONDD" "$L3BONDCTL"

ID_A=11
ID_B=12
KEY_A=$(head -c32 /dev/urandom | base64)
KEY_B=$(head -c32 /dev/urandom | base64)
BOUND_MS=3000 # the issue's bound, kill to bonded again
RATE_MBIT=8 # 1000-byte packets: 1000 a second
FLOW_S=7
EVENT_AT_S=2
declare -A C_DSL=([c1]=10.12.0.11 [c2]=10.12.0.12)
declare -A C_LTE=([c1]=10.22.0.11 [c2]=10.22.0.12)
declare -A C_LAN=([c1]=10.0.2.11 [c2]=10.0.2.12)
declare -A PRIO=([c1]=150 [c2]=100)
declare -A KA=() # keepalived's PID per box

# cpe_conf ID KEY DSL_PEERS LTE_PEERS: a CPE's config ("a", "b" lists)
cpe_conf() {
	cat <<-EOF
		role = "cpe";
		session_id = $1;
		key = "$2";
		lan_interfaces = [ "lan" ];
		release_mark = 0x100;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl";
			  fwmark = $TB_DSL_MARK; peers = [ $3 ]; },
			{ name = "lte"; class = "mobile"; interface = "lte";
			  fwmark = $TB_LTE_MARK; peers = [ $4 ]; }
		);
	EOF
}

conc_conf() {
	cat <<-EOF
		role = "concentrator";
		workers = 1;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl"; },
			{ name = "lte"; class = "mobile"; interface = "lte"; }
		);
		cpes = (
			{ name = "alice"; session_id = $ID_A; key = "$KEY_A";
			  prefixes = [ "10.0.1.0/24" ]; },
			{ name = "bob"; session_id = $ID_B; key = "$KEY_B";
			  prefixes = [ "10.0.3.0/24" ]; }
		);
	EOF
}

# keepalived_conf BOX: VRRP on lan, the three VIPs, l3bondd checked over
# its control socket
keepalived_conf() {
	cat <<-EOF
		global_defs {
			router_id l3b-$1
			# VRRPv2 adverts are whole seconds
			vrrp_version 3
			enable_script_security
			script_user root
		}
		vrrp_script l3bondd {
			script "$L3BONDCTL -s $(ctl_socket "$1") help"
			interval 1
			timeout 1
			fall 1
			rise 1
		}
		vrrp_instance l3bond {
			state BACKUP
			interface lan
			virtual_router_id 51
			priority ${PRIO[$1]}
			advert_int 0.5
			virtual_ipaddress {
				$TB_CONC_LAN_IP/24 dev lan
				$TB_CONC_DSL_IP/24 dev dsl
				$TB_CONC_LTE_IP/24 dev lte
			}
			track_interface {
				dsl
				lte
			}
			track_script {
				l3bondd
			}
		}
	EOF
}

keepalived_start() {
	local box=$1
	tb_bg "$box" "$TB_DIR/$box.ka.log" keepalived -n -l -D -P \
		-f "$TB_DIR/$box.keepalived.conf" -p "$TB_DIR/$box.ka.pid" \
		-r "$TB_DIR/$box.ka-vrrp.pid" -c "$TB_DIR/$box.ka-chk.pid" \
		-b "$TB_DIR/$box.ka-bfd.pid"
	KA[$box]=$TB_LAST_PID
}

# keepalived's VRRP child (its parent's PID is in TB_PIDS)
ka_child() {
	cat "$TB_DIR/$1.ka-vrrp.pid" 2>/dev/null || true
}

# Our keepalived processes, also on failure: the VRRP children are not in
# TB_PIDS (tb_teardown stops their parents).
ha_cleanup() {
	local box pid
	for box in c1 c2; do
		pid=$(ka_child "$box")
		if [ -n "$pid" ] && [ "$(ip netns identify "$pid" 2>/dev/null)" = "$(tb_ns "$box")" ]; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
}

# has_vip BOX: BOX holds the lan VIP
has_vip() {
	tb_exec "$1" ip -4 -o addr show dev lan | grep -q " $TB_CONC_LAN_IP/"
}

# wait_vip BOX [TENTHS]: BOX holds the VIP and the other box does not
wait_vip() {
	local box=$1 other=c1 i
	[ "$box" = c1 ] && other=c2
	for ((i = 0; i < ${2:-100}; i++)); do
		if has_vip "$box" && ! has_vip "$other"; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

mono_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}

# flows_start NAME [down|up|both]: receivers, then the senders, of FLOW_S s
FLOWS=()
flows_start() {
	local name=$1 dir=${2:-both} f from to dst port
	local -a spec=()
	[ "$dir" = up ] || spec+=("srv cli $TB_CLI_IP 5000 down1" "srv cli2 $TB_CLI2_IP 5000 down2")
	[ "$dir" = down ] || spec+=("cli srv $TB_SRV_IP 5001 up1")
	[ "$dir" != both ] || spec+=("cli2 srv $TB_SRV_IP 5002 up2")
	FLOWS=()
	for f in "${spec[@]}"; do
		read -r from to dst port f <<<"$f"
		rm -f "$TB_DIR/$name.$f.ready"
		tb_bg "$to" "$TB_DIR/$name.$f.rx.log" "$TB_TRAFFIC" recv \
			--port "$port" --duration $((FLOW_S + 4)) --linger-ms 500 \
			--json "$TB_DIR/$name.$f.rx.json" \
			--pkt-log "$TB_DIR/$name.$f.plog" \
			--ready-file "$TB_DIR/$name.$f.ready"
		FLOWS+=("$f:$TB_LAST_PID")
		tb_wait_file "$TB_DIR/$name.$f.ready" || true
		tb_bg "$from" "$TB_DIR/$name.$f.tx.log" "$TB_TRAFFIC" send \
			--dst "$dst" --port "$port" --rate "$RATE_MBIT" \
			--size 1000 --duration "$FLOW_S"
		FLOWS+=("$f-tx:$TB_LAST_PID")
	done
}

flows_wait() {
	local f
	for f in "${FLOWS[@]}"; do
		tb_wait "${f#*:}" $((FLOW_S + 10)) || true
	done
}

# gaps NAME T_NS: per flow of phase NAME, "flow gap_ms silence_ms": the end
# of the last silence over 100 ms after T_NS (0: none, -1: nothing came
# after T_NS), and the longest silence after T_NS
write_gaps_py() {
	cat >"$TB_DIR/gaps.py" <<'EOF'
import glob, os, sys
name, t = sys.argv[1], int(sys.argv[2])
for f in sorted(glob.glob(name + ".*.plog")):
    rx = sorted(int(l.split()[2]) for l in open(f) if len(l.split()) == 3)
    before = [r for r in rx if r <= t]
    after = [r for r in rx if r > t]
    flow = os.path.basename(f).split(".")[-2]
    if not after:
        print(flow, -1, -1)
        continue
    prev, end, longest = (before[-1] if before else t), 0, 0
    for r in after:
        if r - prev > 100e6:
            end = r
        longest = max(longest, r - prev)
        prev = r
    print(flow, round((end - t) / 1e6) if end else 0, round(longest / 1e6))
EOF
}

# phase NAME DIR ACTION...: the flows, ACTION at EVENT_AT_S (its start time
# taken), the gaps into $TB_DIR/NAME.gaps
phase() {
	local name=$1 dir=$2 t
	shift 2
	flows_start "$name" "$dir"
	sleep "$EVENT_AT_S"
	t=$(mono_ns)
	"$@"
	flows_wait
	python3 "$TB_DIR/gaps.py" "$TB_DIR/$name" "$t" >"$TB_DIR/$name.gaps"
	tb_log "$name: gaps (ms) $(tr '\n' ' ' <"$TB_DIR/$name.gaps")"
}

# check_gaps NAME WHAT [COLUMN]: every flow of the phase bonded again
# within BOUND_MS of the event (COLUMN 2), or silent no longer than that
# (COLUMN 3: the master's return, whose moment keepalived decides)
check_gaps() {
	local name=$1 what=$2 col=${3:-2} worst
	worst=$(awk -v c="$col" 'BEGIN { w = 0 } $c < 0 { w = 999999 }
		$c > w { w = $c } END { print w }' "$TB_DIR/$name.gaps")
	check "$what: every flow $([ "$col" = 2 ] && echo "bonded again within" || echo "silent at most") $BOUND_MS ms (worst $worst ms; flow, ms to bonded again, longest silence ms: $(tr '\n' ' ' <"$TB_DIR/$name.gaps"))" \
		'n >= 2 && w <= b' "n=$(wc -l <"$TB_DIR/$name.gaps")" "w=$worst" \
		"b=$BOUND_MS"
}

kill_l3bondd() {
	kill -KILL "${DPID[$1]}"
}

# the box dies: its processes gone at once, before keepalived could say
# so (a link down first would make it enter FAULT and hand over at once,
# a graceful exit), then no more frames from it (the VIPs left on its
# devices must not answer ARP)
box_dies() {
	local box=$1 dev
	kill -KILL "$(ka_child "$box")" "${KA[$box]}" "${DPID[$box]}" 2>/dev/null || true
	for dev in lan dsl lte; do
		tb_exec "$box" ip link set "$dev" down
	done
}

# the box boots: links up without the VIPs it held, l3bondd, keepalived
box_boots() {
	local box=$1 dev
	for dev in dsl lte lan; do
		tb_exec "$box" ip addr flush dev "$dev"
		tb_exec "$box" ip link set "$dev" up
	done
	tb_exec "$box" ip addr add "${C_DSL[$box]}/24" dev dsl
	tb_exec "$box" ip addr add "${C_LTE[$box]}/24" dev lte
	tb_exec "$box" ip addr add "${C_LAN[$box]}/24" dev lan
	conc_routes "$box"
	daemon_start "$box"
	keepalived_start "$box"
}

conc_routes() {
	local box=$1 net
	for net in 10.0.1.0/24 10.11.0.0/24 10.0.3.0/24 10.13.0.0/24; do
		tb_exec "$box" ip route replace "$net" via "$TB_DSL_CONC_IP" dev dsl
	done
}

# ---- the bed ---------------------------------------------------------------

tb_init
ha_exit() {
	local rc=$?
	trap - ERR
	set +e
	ha_cleanup
	(exit "$rc")
	tb_teardown
}
trap ha_exit EXIT
write_gaps_py
tb_setup seed=3
tb_site2_setup

# conc becomes the provider segment: its addresses go, its three devices
# are bridge ports, each concentrator a port on each bridge
tb_exec conc ip -4 addr flush dev dsl
tb_exec conc ip -4 addr flush dev lte
tb_exec conc ip -4 addr flush dev lan
for box in c1 c2; do
	tb_netns_add "$(tb_ns "$box")"
	tb__sysctl "$box" net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=2 \
		net.ipv4.conf.default.rp_filter=2
done
for dev in dsl lte lan; do
	tb_exec conc ip link add "br-$dev" type bridge forward_delay 0
	tb_exec conc ip link set "br-$dev" up
	tb_exec conc ip link set "$dev" master "br-$dev"
	for box in c1 c2; do
		tb__veth conc "$box-$dev" "$box" "$dev"
		tb_exec conc ip link set "$box-$dev" master "br-$dev"
	done
done
for box in c1 c2; do
	tb_exec "$box" ip addr add "${C_DSL[$box]}/24" dev dsl
	tb_exec "$box" ip addr add "${C_LTE[$box]}/24" dev lte
	tb_exec "$box" ip addr add "${C_LAN[$box]}/24" dev lan
	conc_routes "$box"
done
# nothing native between the sites and srv: the receivers see the bond only
tb_exec dsl iptables -w -I FORWARD -s 10.0.2.0/24 -j DROP
tb_exec dsl iptables -w -I FORWARD -d 10.0.2.0/24 -j DROP

cpe_conf $ID_A "$KEY_A" "\"$TB_CONC_DSL_IP\"" "\"$TB_CONC_LTE_IP\"" >"$TB_DIR/cpe.conf"
cpe_conf $ID_B "$KEY_B" "\"$TB_CONC_DSL_IP\"" "\"$TB_CONC_LTE_IP\"" >"$TB_DIR/cpe2.conf"
for box in c1 c2; do
	conc_conf >"$TB_DIR/$box.conf"
	keepalived_conf "$box" >"$TB_DIR/$box.keepalived.conf"
done
chmod 600 "$TB_DIR"/*.conf
check_cmd "keepalived accepts the test's configuration" \
	tb_exec c1 keepalived -t -f "$TB_DIR/c1.keepalived.conf"
# the shipped sample, in a namespace with its device names
tb_netns_add "$(tb_ns sample)"
ip -n "$(tb_ns sample)" link add eth0 type veth peer name wan-dsl
ip -n "$(tb_ns sample)" link add wan-lte type veth peer name x
check_cmd "keepalived accepts conf/keepalived.conf.sample" \
	tb_exec sample keepalived -t -f "$here/../../conf/keepalived.conf.sample"

for box in c1 c2; do
	daemon_start "$box"
done
sleep 0.5
for box in c1 c2; do
	keepalived_start "$box"
done
if wait_vip c1 100; then
	ok "c1 (priority 150) holds the VIPs, c2 does not"
else
	bad "VIPs: c1 $(has_vip c1 && echo yes || echo no), c2 $(has_vip c2 && echo yes || echo no)"
	cat "$TB_DIR/c1.ka.log" "$TB_DIR/c2.ka.log" >&2
	tb_abort
fi
daemon_start cpe
daemon_start cpe2
if wait_sess_up cpe "" && wait_sess_up cpe2 "" &&
	wait_sess_up c1 cpe.alice. && wait_sess_up c1 cpe.bob.; then
	ok "both CPEs bonded via c1, both paths"
else
	bad "sessions not up: alice $(st c1 cpe.alice.session_state), bob $(st c1 cpe.bob.session_state)"
	tb_abort
fi
refresh c1
refresh c2
check "c1 answers from the VIP: the lte path, behind the carrier NAT, up" \
	'a == 1 && b == 1' "a=$(st c1 cpe.alice.path.lte.up)" \
	"b=$(st c1 cpe.bob.path.lte.up)"
check "c2 has no session" 'a == 0 && b == 0' \
	"a=$(stn c2 cpe.alice.handshakes)" "b=$(stn c2 cpe.bob.handshakes)"

# ---- 1. l3bondd alone dies on the master ----------------------------------

phase p1 both kill_l3bondd c1
check_gaps p1 "l3bondd killed on c1, keepalived's check hands over"
check_cmd "c2 holds the VIPs" wait_vip c2 10
check "both CPEs' sessions now at c2, both paths up" \
	'a == "up" && b == "up" && ad == 1 && al == 1 && bd == 1 && bl == 1' \
	"a=$(wait_sess_up c2 cpe.alice. 20; st c2 cpe.alice.session_state)" \
	"b=$(st c2 cpe.bob.session_state)" \
	"ad=$(st c2 cpe.alice.path.dsl.up)" "al=$(st c2 cpe.alice.path.lte.up)" \
	"bd=$(st c2 cpe.bob.path.dsl.up)" "bl=$(st c2 cpe.bob.path.lte.up)"

# ---- 2. l3bondd back on the master ------------------------------------------

refresh cpe
refresh cpe2
counters_mark cpe p2 handshakes
counters_mark cpe2 p2 handshakes
phase p2 both daemon_start c1
check_cmd "c1 takes the VIPs back (preempt)" wait_vip c1 30
sleep 2
refresh cpe
refresh cpe2
check "c1 back: one handshake more per CPE, no flap" 'a == 1 && b == 1' \
	"a=$(counters_delta cpe p2 handshakes)" "b=$(counters_delta cpe2 p2 handshakes)"
check_gaps p2 "c1 back" 3

# ---- 3. the master box dies ---------------------------------------------------

check_cmd "both CPEs bonded via c1 again" wait_sess_up c1 cpe.alice. 30
phase p3 both box_dies c1
check_gaps p3 "c1 box dead (links down, keepalived and l3bondd killed)"
check_cmd "c2 holds the VIPs" has_vip c2

# ---- 4. the box back --------------------------------------------------------

refresh cpe
refresh cpe2
counters_mark cpe p4 handshakes
counters_mark cpe2 p4 handshakes
phase p4 both box_boots c1
check_cmd "c1 takes the VIPs back" wait_vip c1 30
sleep 2
refresh cpe
refresh cpe2
check "c1 box back: one handshake more per CPE, no flap" 'a == 1 && b == 1' \
	"a=$(counters_delta cpe p4 handshakes)" "b=$(counters_delta cpe2 p4 handshakes)"
check_gaps p4 "c1 box back" 3

# ---- 5. no keepalived: a CPE's list of concentrators ------------------------

for box in c1 c2; do
	kill -TERM "${KA[$box]}"
	tb_wait "${KA[$box]}" 5 || true
done
check "keepalived stopped: no VIP left" 'a == 0 && b == 0' \
	"a=$(has_vip c1 && echo 1 || echo 0)" "b=$(has_vip c2 && echo 1 || echo 0)"
kill -TERM "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 5 || true
cpe_conf $ID_A "$KEY_A" "\"${C_DSL[c1]}\", \"${C_DSL[c2]}\"" \
	"\"${C_LTE[c1]}\", \"${C_LTE[c2]}\"" >"$TB_DIR/cpe.conf"
daemon_start cpe
if wait_sess_up cpe "" && wait_sess_up c1 cpe.alice. 20; then
	ok "peers: cpe bonded via the first, c1"
else
	bad "peers: cpe not up via c1"
	tb_abort
fi
refresh cpe
counters_mark cpe p5 handshakes
phase p5 up kill_l3bondd c1
refresh cpe
check "peers: c1 killed, cpe moved to the second (peer_entry 1, one move, path peers c2's)" \
	'e == 1 && m == 1 && d == dd && l == ll' \
	"e=$(st cpe peer_entry)" "m=$(st cpe peer_moves)" \
	"d=$(st cpe path.dsl.peer)" "dd=${C_DSL[c2]}:7040" \
	"l=$(st cpe path.lte.peer)" "ll=${C_LTE[c2]}:7040"
awk '$1 == "up1" { print $2 }' "$TB_DIR/p5.gaps" >"$TB_DIR/p5.up.gaps"
check "peers: the upstream flow bonded via c2 within $BOUND_MS ms ($(cat "$TB_DIR/p5.up.gaps"))" \
	'g >= 0 && g <= b' "g=$(cat "$TB_DIR/p5.up.gaps")" \
	"b=$BOUND_MS"
refresh cpe
counters_mark cpe p6 handshakes
t0=$EPOCHREALTIME
daemon_start c1
t1=$(now_ms)
while in_time "$t1" 20000; do
	refresh cpe
	[ "$(st cpe peer_entry)" = 0 ] && [ "$(st cpe session_state)" = up ] && break
	sleep 0.1
done
back_ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
tb_log "peers: cpe back on c1 $back_ms ms after c1's l3bondd started (polled)"
check "peers: c1 back, cpe returned to it ($back_ms ms after its start, polled)" \
	'e == 0 && r == 1 && m == 2' "e=$(st cpe peer_entry)" \
	"r=$(st cpe peer_returns)" "m=$(st cpe peer_moves)"
sleep 2
refresh cpe
check "peers: the return took one handshake" 'h == 1' \
	"h=$(counters_delta cpe p6 handshakes)"
check_cmd "peers: cpe bonded via c1 again" wait_sess_up c1 cpe.alice. 30

tb_log "test_ha: ${SECONDS} s"
tb_done
