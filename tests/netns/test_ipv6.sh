#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# IPv6 through l3bondd, on the testbed of lib.sh with IPv6 added here
# (ULA addresses beside the IPv4 ones; no NAT66):
#
#   cli fd00:1::2 - cpe ==dsl (IPv4)== conc - srv fd00:2::2
#                       ==lte (IPv4, then IPv6: fd21::1 -> fd22::1)==
#
# 1. Both paths IPv4 (as lib.sh makes them); the concentrator bonds
#    10.0.1.0/24 and fd00:1::/64:
#    - --print-rules ip6tables passes ip6tables-restore --test; the daemons
#      install the ip6tables chains beside the iptables ones;
#    - IPv6 UDP and TCP cli <-> srv both ways, intact, and the bond carried
#      them (ing.bonded; the egress released them through the TUN device:
#      IPv6 inside IPv4, egr.via_tun);
#    - the MSS clamp of IPv6 SYNs (1364 for 1500-byte IPv4 paths: the
#      ip6tables TCPMSS rule counted them and the peers' MSS is below it);
#    - a too-big IPv6 packet (1450 bytes > 1424) from srv: dropped, ICMPv6
#      packet too big sent back (ing.too_big), srv's route cache learns
#      1424, its next datagrams arrive (fragmented by srv);
#    - anti-spoofing: IPv6 from the CPE with a source outside its
#      prefixes is dropped by the concentrator (egr.spoofed), not
#      delivered.
# 2. The lte path's outer transport IPv6 (the CPE restarted with an IPv6
#    peer; lte routes IPv6):
#    - the concentrator learns the path at [fd21::1]:7040, inner maximum
#      and MSS from the IPv6 outer header (1404, clamp 1364/1344);
#    - 90 Mbit/s of IPv4 down over both paths (dsl released by verdict,
#      lte through the TUN device): lte carries its share, loss < 2 %,
#      reordering < 0.1 % (rate checks: run alone; not asserted in the
#      sanitizer build);
#    - with dsl cut, IPv4 (l3b-traffic) and IPv6 UDP both ways over lte
#      alone: intact; the inner IPv4 went through the TUN device
#      (egr.via_tun on both ends), the inner IPv6 was released in place;
#    - IPv6 "NAT rebinding": the CPE's lte address changes (fd21::1 ->
#      fd21::3): the concentrator answers the new one at once.
#
# usage: test_ipv6.sh [BUILD_DIR]
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root or
# without IPv6 / ip6tables / python3.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

TB_PREFIX=${TB_PREFIX:-l3b6-$$-}
# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables ip6tables ip6tables-restore ipset python3 awk
if [ ! -d /proc/sys/net/ipv6 ]; then
	echo "SKIP: no IPv6 in this kernel"
	exit 77
fi
tb_require_bin "$L3BONDD"

CLI6=fd00:1::2
SRV6=fd00:2::2
CPE_LTE6=fd21::1
CONC_LTE6=fd22::1

# IPv6 on the testbed: addresses (no DAD: usable at once), forwarding,
# routes, and the access links' emulators (l3b-linkem, which takes any
# packet) fed IPv6 too, as lib.sh feeds them IPv4.
ip6_setup() {
	local box
	for box in cpe dsl lte conc; do
		tb__sysctl "$box" net.ipv6.conf.all.forwarding=1
	done
	for box in dsl lte; do
		tb_exec "$box" ip6tables -w -t mangle -A FORWARD -i cpe \
			-j NFQUEUE --queue-num 0
		tb_exec "$box" ip6tables -w -t mangle -A FORWARD -i conc \
			-j NFQUEUE --queue-num 1
	done
	a6() { tb_exec "$1" ip -6 addr add "$3" dev "$2" nodad; }
	a6 cli eth0 $CLI6/64
	a6 cpe lan fd00:1::1/64
	a6 cpe dsl fd11::1/64
	a6 dsl cpe fd11::2/64
	a6 dsl conc fd12::2/64
	a6 conc dsl fd12::1/64
	a6 cpe lte $CPE_LTE6/64
	a6 lte cpe fd21::2/64
	a6 lte conc fd22::2/64
	a6 conc lte $CONC_LTE6/64
	a6 conc lan fd00:2::1/64
	a6 srv eth0 $SRV6/64
	tb_exec cli ip -6 route add default via fd00:1::1
	tb_exec srv ip -6 route add default via fd00:2::1
	tb_exec cpe ip -6 route add default via fd11::2 dev dsl
	tb_exec cpe ip -6 route add fd22::/64 via fd21::2 dev lte
	tb_exec dsl ip -6 route add fd00:1::/64 via fd11::1
	tb_exec dsl ip -6 route add fd00:2::/64 via fd12::1
	tb_exec conc ip -6 route add fd00:1::/64 via fd12::2 dev dsl
	tb_exec conc ip -6 route add fd21::/64 via fd22::2 dev lte
}

udp6_intact() {
	local name=$1 what=$2 want=$3 f=$TB_DIR/$1.rx.json
	check "$what: all $want arrived intact" \
		'u == w && c == 0 && d == 0' "u=$(jget "$f" unique)" "w=$want" \
		"c=$(jget "$f" corrupted)" "d=$(jget "$f" dup)"
}

tcp6_intact() {
	local name=$1 what=$2 want=$3 f=$TB_DIR/$1.rx.json
	check "$what: $want bytes intact" 'b == w && c == 0' \
		"b=$(jget "$f" bytes)" "w=$want" "c=$(jget "$f" corrupted)"
}

# sum of a counter over both directions' status keys
stsum() {
	local box=$1 key=$2
	refresh "$box"
	st "$box" "$key"
}

# the packets an ip6tables rule of box matched (a grep pattern)
ip6_rule_pkts() {
	tb_exec "$1" ip6tables -w -t mangle -L L3B_ING -v -x -n |
		awk -v p="$2" '$0 ~ p { n += $1 } END { print n + 0 }'
}

tb_init
write_confs 0.5
sed -i 's|prefixes = \[ "10.0.1.0/24" \];|prefixes = [ "10.0.1.0/24", "fd00:1::/64" ];|' \
	"$TB_DIR/conc.conf"

# ---- 0. configuration, rules text ------------------------------------------

if "$L3BONDD" -c "$TB_DIR/conc.conf" --check >/dev/null; then
	ok "--check accepts an IPv6 prefix"
else
	bad "--check refused an IPv6 prefix"
fi
"$L3BONDD" -c "$TB_DIR/conc.conf" --print-rules ip6tables >"$TB_DIR/conc.rules6"
"$L3BONDD" -c "$TB_DIR/conc.conf" --print-rules ipset >"$TB_DIR/conc.ipset"
check "conc: ip6tables rules bond the IPv6 set (fd00:1::/64 in it) with MSS 1364" \
	'n == 2 && s == 1 && m == 1' \
	"n=$(cnt 'L3B_ING -m set --match-set l3b_q0_v6 dst' <"$TB_DIR/conc.rules6")" \
	"s=$(cnt 'add l3b_q0_v6_new fd00:1::/64' <"$TB_DIR/conc.ipset")" \
	"m=$(cnt 'set-mss 1364' <"$TB_DIR/conc.rules6")"

# shellcheck disable=SC2119 # the defaults of lib.sh
tb_setup
ip6_setup
ok "testbed up, with IPv6"

for box in cpe conc; do
	check_print_rules "$box"
done

# native IPv6 first: the testbed routes it without the daemons
udp6 cli srv $SRV6 native6 20 200
udp6_intact native6 "IPv6 routed natively before the daemons" 20

# ---- 1. inner IPv6 over IPv4 paths --------------------------------------------

daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up on each"
else
	bad "paths not up"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi
for box in cpe conc; do
	check "$box: ip6tables chains installed, TUN device up" \
		'i == 1 && e == 1 && t == 1' \
		"i=$(tb_exec "$box" ip6tables -w -t mangle -S FORWARD | cnt '-j L3B_ING')" \
		"e=$(tb_exec "$box" ip6tables -w -t raw -S PREROUTING | cnt '-j L3B_EGR')" \
		"t=$(tb_exec "$box" ip -o link show up | cnt ': l3b')"
done

refresh cpe
refresh conc
cb0=$(st cpe ing.bonded)
kb0=$(st conc ing.bonded)
ct0=$(st cpe egr.via_tun)
kt0=$(st conc egr.via_tun)
udp6 cli srv $SRV6 u6up 300 1000
udp6_intact u6up "IPv6 UDP cli -> srv (bonded)" 300
udp6 srv cli $CLI6 u6down 300 1000
udp6_intact u6down "IPv6 UDP srv -> cli (bonded)" 300
tcp6 cli srv $SRV6 t6up 2000000
tcp6_intact t6up "IPv6 TCP cli -> srv" 2000000
tcp6 srv cli $CLI6 t6down 2000000
tcp6_intact t6down "IPv6 TCP srv -> cli" 2000000
refresh cpe
refresh conc
check "the bond carried the IPv6 both ways (bonded, released via the TUN)" \
	'cb >= 300 && kb >= 300 && ct >= 300 && kt >= 300' \
	"cb=$(($(st cpe ing.bonded) - cb0))" "kb=$(($(st conc ing.bonded) - kb0))" \
	"ct=$(($(st cpe egr.via_tun) - ct0))" "kt=$(($(st conc egr.via_tun) - kt0))"
check "MSS clamp: IPv6 SYNs clamped to 1364 on both ends" \
	'a >= 1 && b >= 1 && s <= 1364 && s > 0 && c <= 1364 && c > 0' \
	"a=$(ip6_rule_pkts cpe TCPMSS)" "b=$(ip6_rule_pkts conc TCPMSS)" \
	"s=$(jget "$TB_DIR/t6up.rx.json" maxseg)" \
	"c=$(jget "$TB_DIR/t6down.rx.json" maxseg)"
check "IPv4 still bonded beside it" 'p >= 4' "p=$(ping_count cli $TB_SRV_IP 4)"

# too big: 1450 bytes of IPv6 > 1424.  The first is dropped and answered;
# srv then fragments to 1424, conc's conntrack reassembles them before the
# queue, and the daemon, having told srv already, sends those whole in
# fragmented outer packets (ing.outer_frag) instead of answering again.
tb0=$(st conc ing.too_big)
of0=$(st conc ing.outer_frag)
udp6 srv cli $CLI6 big6 20 1402
refresh conc
check "too-big IPv6: one packet too big, srv learnt 1424, the rest arrived" \
	't == 1 && m == 1 && u == 19 && c == 0 && o == 19' \
	"t=$(($(st conc ing.too_big) - tb0))" \
	"m=$(tb_exec srv ip -6 route get $CLI6 | cnt 'mtu 1424')" \
	"u=$(jget "$TB_DIR/big6.rx.json" unique)" \
	"c=$(jget "$TB_DIR/big6.rx.json" corrupted)" \
	"o=$(($(st conc ing.outer_frag) - of0))"

# anti-spoofing: a source outside fd00:1::/64 from the CPE's LAN
tb_exec cli ip -6 addr add fd00:9::2/128 dev eth0 nodad
sp0=$(st conc egr.spoofed)
udp6 cli srv $SRV6 spoof6 20 200 fd00:9::2
refresh conc
check "IPv6 from outside the CPE's prefixes: dropped (spoofed), none delivered" \
	's >= 20 && u == 0' "s=$(($(st conc egr.spoofed) - sp0))" \
	"u=$(jget "$TB_DIR/spoof6.rx.json" unique)"

# ---- 2. the lte path's outer transport IPv6 ----------------------------------

kill -TERM "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 10 || true
sed -i "s|peer = \"$TB_CONC_LTE_IP\"|peer = \"$CONC_LTE6\"|" "$TB_DIR/cpe.conf"
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "CPE restarted with an IPv6 lte peer: both paths up"
else
	bad "paths not up after the switch to IPv6"
	tail -20 "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi
refresh cpe
refresh conc
check "conc learnt the lte path over IPv6, no NAT66" 'p == 1' \
	"p=$(st conc path.lte.peer | cnt "[$CPE_LTE6]:7040")"
check "inner maximum and MSS from the IPv6 outer header" \
	'ci == 1404 && ki == 1404 && cm == 1364 && km == 1364' \
	"ci=$(st cpe ing.inner_max)" "ki=$(st conc ing.inner_max)" \
	"cm=$(st cpe ing.mss)" "km=$(st conc ing.mss)"
check "the IPv6 clamp follows: 1344" 'a >= 1 && b >= 1' \
	"a=$(tb_exec cpe ip6tables -w -t mangle -S L3B_ING | cnt 'set-mss 1344')" \
	"b=$(tb_exec conc ip6tables -w -t mangle -S L3B_ING | cnt 'set-mss 1344')"

# Both paths, the two outer families: one flow over dsl (released by
# verdict) and lte (through the TUN device) stays in order and whole.
ct0=$(st cpe egr.via_tun)
UDP_DURATION=5 udp srv cli $TB_CLI_IP mix --rate 90 --size 1400
refresh cpe
f=$TB_DIR/mix.rx.json
echo "  90 Mbit/s over dsl (IPv4) + lte (IPv6): $(cat "$f")"
echo "  cpe: $(grep -E '^(egr\.(via_tun|tun_errors|late|dup|released)|path\.(dsl|lte)\.rx_bytes)=' "$(status_file cpe)" | tr '\n' ' ')"
echo "  drops: dsl tbf $(tb_exec dsl tc -s qdisc show dev cpe | awk '/dropped/ { print $7; exit }') lte tbf $(tb_exec lte tc -s qdisc show dev cpe | awk '/dropped/ { print $7; exit }')"
check "90 Mbit/s down over both families: lte carried a share through the TUN" \
	't * 1400 * 8 / s > 10e6' "t=$(($(st cpe egr.via_tun) - ct0))" \
	"s=$(jget "$f" seconds)"
rate_check "90 Mbit/s down over both families: loss < 2 %, reordered < 0.1 %" \
	'loss < 2 && reord / expected < 0.001' \
	"loss=$(jget "$f" loss_pct)" "reord=$(jget "$f" reordered)" \
	"expected=$(jget "$f" expected)"
check "90 Mbit/s down over both families: payload intact" \
	'corrupted == 0 && expected > 0' \
	"corrupted=$(jget "$f" corrupted)" "expected=$(jget "$f" expected)"

# dsl cut: everything over lte.  Without traffic down, the concentrator
# finds the dsl dead only at its idle probe (idle_probe_ms, 20 s), and
# in the sanitizer build of CI twice not within 40 s: a ping down (a
# sparse flow: it takes the dsl) makes its DATA go unanswered, so the
# concentrator finds it dead within a second or two, as the CPE does
tb_exec dsl iptables -w -I FORWARD -j DROP
tb_exec dsl ip6tables -w -I FORWARD -j DROP
tb_bg srv "$TB_DIR/cut-ping.log" ping -n -q -i 0.2 -w 40 "$TB_CLI_IP"
cut_ping=$TB_LAST_PID
t0=$(now_ms)
while in_time "$t0" 40000; do
	refresh cpe
	refresh conc
	[ "$(st cpe path.dsl.up)" = 0 ] && [ "$(st conc path.dsl.up)" = 0 ] && break
	sleep 0.1
done
kill "$cut_ping" 2>/dev/null || true
tb_wait "$cut_ping" 5 || true
echo "  dsl cut: both ends saw it down after $(($(now_ms) - t0)) ms"
check "dsl cut: down on both ends, lte up" 'a == 0 && b == 0 && c == 1 && d == 1' \
	"a=$(st cpe path.dsl.up)" "b=$(st conc path.dsl.up)" \
	"c=$(st cpe path.lte.up)" "d=$(st conc path.lte.up)"
ct0=$(st cpe egr.via_tun)
kt0=$(st conc egr.via_tun)
lr0=$(st conc path.lte.rx_bytes)
lc0=$(st cpe path.lte.rx_bytes)
UDP_DURATION=3 udp cli srv $TB_SRV_IP u4up --rate 5 --size 1000
udp_intact u4up "IPv4 UDP cli -> srv over the IPv6 lte path"
UDP_DURATION=3 udp srv cli $TB_CLI_IP u4down --rate 5 --size 1000
udp_intact u4down "IPv4 UDP srv -> cli over the IPv6 lte path"
refresh cpe
refresh conc
check "inner IPv4 in outer IPv6: through the TUN device on both ends" \
	'ct >= 1000 && kt >= 1000' \
	"ct=$(($(st cpe egr.via_tun) - ct0))" "kt=$(($(st conc egr.via_tun) - kt0))"
ct0=$(st cpe egr.via_tun)
kt0=$(st conc egr.via_tun)
udp6 cli srv $SRV6 u6lup 300 1000
udp6_intact u6lup "IPv6 UDP cli -> srv over the IPv6 lte path" 300
udp6 srv cli $CLI6 u6ldown 300 1000
udp6_intact u6ldown "IPv6 UDP srv -> cli over the IPv6 lte path" 300
tcp6 srv cli $CLI6 t6ldown 1000000
tcp6_intact t6ldown "IPv6 TCP srv -> cli over the IPv6 lte path" 1000000
refresh cpe
refresh conc
check "inner IPv6 in outer IPv6: released in place (no TUN), lte carried it" \
	'ct == 0 && kt == 0 && lr > 300000 && lc > 300000' \
	"ct=$(($(st cpe egr.via_tun) - ct0))" "kt=$(($(st conc egr.via_tun) - kt0))" \
	"lr=$(($(st conc path.lte.rx_bytes) - lr0))" \
	"lc=$(($(st cpe path.lte.rx_bytes) - lc0))"
# srv's route cache still says 1424 (> 1404): flushed, so that it sends
# 1450-byte datagrams again and learns 1404 from us; from another source
# address, which the concentrator has not told yet (it remembers whom it
# told, and sends to them whole, in outer fragments: see above)
tb_exec srv ip -6 addr add fd00:2::3/64 dev eth0 nodad
tb_exec srv ip -6 route flush cache
big0=$(st conc ing.too_big)
udp6 srv cli $CLI6 big6l 20 1402 fd00:2::3
refresh conc
check "too-big IPv6 over the IPv6 path: packet too big with 1404" \
	't == 1 && m == 1 && u == 19' "t=$(($(st conc ing.too_big) - big0))" \
	"m=$(tb_exec srv ip -6 route get $CLI6 | cnt 'mtu 1404')" \
	"u=$(jget "$TB_DIR/big6l.rx.json" unique)"

# the CPE's lte address changes: the concentrator follows at once
tb_exec cpe ip -6 addr add fd21::3/64 dev lte nodad
tb_exec cpe ip -6 addr del $CPE_LTE6/64 dev lte
for ((i = 0; i < 30; i++)); do
	refresh conc
	st conc path.lte.peer | grep -qF "[fd21::3]:" && break
	sleep 0.1
done
check "IPv6 address change: conc answers [fd21::3] within 3 s" 'p == 1' \
	"p=$(st conc path.lte.peer | cnt '[fd21::3]:7040')"
udp6 cli srv $SRV6 u6reb 100 500
udp6_intact u6reb "IPv6 UDP cli -> srv after the change" 100

# ---- 3. stop: no rule left ---------------------------------------------------

for box in cpe conc; do
	kill -TERM "${DPID[$box]}"
	rc=0
	tb_wait "${DPID[$box]}" 10 || rc=$?
	check "$box: SIGTERM: exit 0, no ip6tables chain left, no TUN device" \
		'r == 0 && c == 0 && t == 0' "r=$rc" \
		"c=$(tb_exec "$box" ip6tables-save | cnt L3B_)" \
		"t=$(tb_exec "$box" ip -o link show | cnt ': l3b')"
done
if grep -q 'runtime error\|AddressSanitizer\|: error: ' "$TB_DIR/cpe.log" "$TB_DIR/conc.log"; then
	bad "errors in the daemons' logs"
	grep 'runtime error\|AddressSanitizer\|: error: ' "$TB_DIR/cpe.log" "$TB_DIR/conc.log" | head
fi

tb_done
