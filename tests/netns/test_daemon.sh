#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end test of l3bondd: a CPE daemon and a concentrator daemon on the
# testbed of lib.sh, bonding dsl (fixed) and lte (mobile, carrier NAT):
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                                   NAT
#   dsl 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms, each direction emulated.
#
# The CPE bonds what it forwards from "lan"; the concentrator what it
# routes to 10.0.1.0/24.  Checks, each asserting what it claims:
#   - config check, --print-rules iptables (iptables-restore --test) and
#     nft (nft -c; the kernel here lacks the queue statement, see below);
#   - ICMP, UDP (64, 1400 and the paper's 1492 bytes, above the tunnel's
#     1424: the sender learns that by ICMP and fragments) and TCP pass
#     both ways through the bond, payload
#     intact, and the tunnel carried them (daemon counters); malformed and
#     foreign tunnel packets are dropped and counted by reason;
#   - 40 Mbit/s down: LTE under 1 % of the bytes; 90 Mbit/s down: DSL at
#     least 90 % utilised, LTE carries the rest, loss under 2 %, reordering
#     under 0.1 %; TCP srv -> cli goodput above DSL alone;
#   - SIGHUP with a new k: the status shows it, sequence state and session
#     kept, no loss meanwhile; a bad file is refused and the old k kept;
#   - CPE daemon SIGKILLed: LAN traffic flows natively over dsl both ways;
#     restarted (now with bond_output): the stale rules are replaced,
#     bonding resumes, the cpe's own traffic is bonded too;
#   - concentrator restarted: the CPE sees its new session, bonding resumes
#     both ways; dsl cut: everything over lte, healed: dsl back;
#   - SIGTERM: exit 0, no rule or chain, no queue binding, rp_filter back.
#
# usage: test_daemon.sh [BUILD_DIR]   (l3bondd in BUILD_DIR/gateway, the
# tools in BUILD_DIR/tests/tools unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables iptables-restore ipset awk
tb_require_bin "$L3BONDD"

tb_init
write_confs 0.5

# ---- 0. configuration, rules text ------------------------------------------

if "$L3BONDD" -c "$TB_DIR/cpe.conf" --check >/dev/null &&
	"$L3BONDD" -c "$TB_DIR/conc.conf" --check >/dev/null; then
	ok "--check accepts both configs"
else
	bad "--check refused a good config"
fi
sed 's/k = 0.5;/k = 11;/' "$TB_DIR/cpe.conf" >"$TB_DIR/bad.conf"
if out=$("$L3BONDD" -c "$TB_DIR/bad.conf" --check 2>&1); then
	bad "--check accepted k = 11"
else
	kline=$(grep -n 'k = 11;' "$TB_DIR/bad.conf" | cut -d: -f1)
	check "--check names file:line: key: value" 'm == 1' \
		"m=$(echo "$out" | cnt "bad.conf:$kline: k: bad value '11'")"
fi

tb_setup
ok "testbed up"

for box in cpe conc; do
	check_print_rules "$box"
done

# ---- 1. start, both paths up ---------------------------------------------------

# strict reverse-path filtering on the cpe: the daemon must loosen it
tb_exec cpe sysctl -qw net.ipv4.conf.all.rp_filter=1 \
	net.ipv4.conf.lte.rp_filter=1 >/dev/null
# counts what the cpe's egress releases with release_mark (0x100)
tb_exec cpe iptables -w -A FORWARD -o lan -m mark --mark 0x100/0x100
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up on each"
else
	bad "paths not up: cpe $(st cpe path.dsl.up)/$(st cpe path.lte.up), conc $(st conc path.dsl.up)/$(st conc path.lte.up)"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi
check "cpe rp_filter loosened (all, lte)" 'a == 2 && l == 2' \
	"a=$(tb_exec cpe sysctl -n net.ipv4.conf.all.rp_filter)" \
	"l=$(tb_exec cpe sysctl -n net.ipv4.conf.lte.rp_filter)"
check "conc learnt the lte path behind NAT" 'p == 1' \
	"p=$(st conc path.lte.peer | cnt "$TB_LTE_CONC_IP:")"

# ---- 2. ICMP, UDP, TCP both ways ---------------------------------------------------

refresh cpe
refresh conc
cb0=$(st cpe ing.bonded)
kb0=$(st conc ing.bonded)
n=$(ping_count cli "$TB_SRV_IP" 5)
m=$(ping_count srv "$TB_CLI_IP" 5)
refresh cpe
refresh conc
check "ICMP both ways through the bond" \
	'up == 5 && down == 5 && cb >= 10 && kb >= 10' "up=$n" "down=$m" \
	"cb=$(($(st cpe ing.bonded) - cb0))" "kb=$(($(st conc ing.bonded) - kb0))"

# ---- malformed and foreign tunnel packets, from the dsl line -------------------------

# python3 (scripts/deps.sh installs it) crafts the packets; without it the
# checks fail rather than vanish
if ! command -v python3 >/dev/null; then
	bad "malformed packets: python3 missing (scripts/deps.sh installs it)"
else
	refresh conc
	peer0=$(st conc path.dsl.peer)
	# the wire version, from its one source
	wv=$(sed -n 's/^\tWIRE_VERSION = \([0-9]*\),.*/\1/p' "$here/../../common/wire.h")
	tb_exec dsl python3 - "$TB_CONC_DSL_IP" "$wv" <<-'EOF'
		import socket, struct, sys
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		V = int(sys.argv[2])  # WIRE_VERSION
		def hdr(ver, typ, path, session, gseq=1, lseq=1, pn=1):
		    return struct.pack(">BBHIQIIIHBB", ver << 4 | typ, path, 0,
		                       session, pn, gseq, lseq, 0, 0, 0, 0)
		# an inner IPv4 header of 20 bytes claiming total length tot
		def inner(tot):
		    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, tot, 0, 0, 64, 17, 0,
		                       bytes(4), bytes(4))
		tag = bytes(16)
		pkts = [b"x" * 10,                                     # short
		        hdr(1, 1, 0, 4242) + inner(20) + tag,          # bad_version
		        hdr(V, 1, 0, 4242) + inner(40) + tag,          # bad_tag
		        hdr(V, 1, 0, 999) + inner(20) + tag,           # session
		        hdr(V, 1, 9, 4242) + inner(20) + tag,          # path
		        hdr(V, 1, 0, 4242) + b"\x60" + bytes(39) + tag] # bad_tag
		for p in pkts:
		    for i in range(3):
		        s.sendto(p, (sys.argv[1], 7040))
	EOF
	sleep 0.3
	refresh conc
	check "malformed/foreign/forged tunnel packets dropped by reason, peer not moved" \
		'sh == 3 && ver == 3 && tag == 6 && ses == 3 && path == 3 &&
		 same == 1' \
		"sh=$(st conc egr.wire.short)" "ver=$(st conc egr.wire.bad_version)" \
		"tag=$(st conc egr.auth.bad_tag)" \
		"ses=$(st conc egr.session)" "path=$(st conc egr.path)" \
		"same=$([ "$(st conc path.dsl.peer)" = "$peer0" ] && echo 1 || echo 0)"
fi

udp cli srv "$TB_SRV_IP" up10 --rate 10 --size 1400
udp_intact up10 "UDP up 10 Mbit/s"
udp srv cli "$TB_CLI_IP" down10 --rate 10 --size 1400
udp_intact down10 "UDP down 10 Mbit/s"
check "released packets carry release_mark" 'm >= n && n > 0' \
	"m=$(tb_exec cpe iptables -w -L FORWARD -n -v -x | awk '/mark match/ { print $1; exit }')" \
	"n=$(jget "$TB_DIR/down10.rx.json" expected)"
for d in up10 down10; do
	f=$TB_DIR/$d.rx.json
	echo "  $d: delay p50 $(jget "$f" delay_p50_ms) p99 $(jget "$f" delay_p99_ms) max $(jget "$f" delay_max_ms) ms, lost $(jget "$f" lost)"
done
udp cli srv "$TB_SRV_IP" upsmall --rate 2 --size 64
udp_intact upsmall "UDP up 64-byte packets"
# the paper's size, above what the tunnel carries (1424 bytes on 1500-byte
# paths): the sender's sockets set DF (path MTU discovery), so the first
# one gets an ICMP fragmentation-needed from the ingress and the sender
# fragments from then on; only what it sent before the ICMP arrived is
# lost (tests/netns/test_mtu.sh checks MTU handling in detail)
big_intact() {
	local name=$1 what=$2 box=$3 f=$TB_DIR/$1.rx.json
	refresh "$box"
	check "$what: ICMP frag-needed to the sender, then all intact" \
		'expected - unique <= 3 && expected > 0 && corrupted == 0 &&
		 dup == 0 && tb >= 1' \
		"unique=$(jget "$f" unique)" "expected=$(jget "$f" expected)" \
		"corrupted=$(jget "$f" corrupted)" "dup=$(jget "$f" duplicates)" \
		"tb=$(st "$box" ing.too_big)"
}
udp srv cli "$TB_CLI_IP" down1492 --rate 10 --size 1492
big_intact down1492 "UDP down 1492-byte packets" conc
udp cli srv "$TB_SRV_IP" up1492 --rate 10 --size 1492
big_intact up1492 "UDP up 1492-byte packets" cpe
refresh cpe
refresh conc
check "the tunnel carried it (egress releases)" \
	'c >= down + dbig && k >= up + small + ubig' \
	"c=$(st cpe egr.released)" "k=$(st conc egr.released)" \
	"down=$(jget "$TB_DIR/down10.rx.json" expected)" \
	"dbig=$(jget "$TB_DIR/down1492.rx.json" expected)" \
	"up=$(jget "$TB_DIR/up10.rx.json" expected)" \
	"small=$(jget "$TB_DIR/upsmall.rx.json" expected)" \
	"ubig=$(jget "$TB_DIR/up1492.rx.json" expected)"
# the egress times arrivals by the kernel's receive stamp (NFQA_TIMESTAMP,
# switched on by SO_TIMESTAMPNS), not by when the daemon got to them
check "every DATA packet carried a kernel receive stamp" \
	'c == 0 && k == 0' \
	"c=$(st cpe egr.no_kernel_time)" "k=$(st conc egr.no_kernel_time)"

tcp cli srv "$TB_SRV_IP" tcpup 20000000
check "TCP up 20 MB intact" 'c == 1 && bad == 0' \
	"c=$(cnt '"complete":true' <"$TB_DIR/tcpup.rx.json")" \
	"bad=$(jget "$TB_DIR/tcpup.rx.json" corrupted_bytes)"
settle
refresh cpe
refresh conc
trel0=$(st cpe egr.released)
tlte0=$(st conc path.lte.tx_bytes)
tcp srv cli "$TB_CLI_IP" tcpdown 40000000
tcp_bond=$(jget "$TB_DIR/tcpdown.rx.json" goodput_mbit)
refresh cpe
refresh conc
# 40 MB in segments of at most 1384 bytes (the MSS clamp): at least 28600
# packets released by the CPE's egress, and LTE carried a share
check "TCP down went through the bond, over both paths" \
	'rel >= 28600 && lte > 4000000' \
	"rel=$(($(st cpe egr.released) - trel0))" \
	"lte=$(($(st conc path.lte.tx_bytes) - tlte0))"
echo "  TCP goodput: up $(jget "$TB_DIR/tcpup.rx.json" goodput_mbit), down $tcp_bond Mbit/s"
check "TCP down 40 MB intact" 'c == 1 && bad == 0' \
	"c=$(cnt '"complete":true' <"$TB_DIR/tcpdown.rx.json")" \
	"bad=$(jget "$TB_DIR/tcpdown.rx.json" corrupted_bytes)"

# ---- 3. throughput and split ----------------------------------------------------------

settle
refresh cpe
d0=$(path_rx dsl)
l0=$(path_rx lte)
UDP_DURATION=6 udp srv cli "$TB_CLI_IP" d40 --rate 40 --size 1400
refresh cpe
d1=$(path_rx dsl)
l1=$(path_rx lte)
check "40 Mbit/s down: LTE under 1 % of the bytes, no loss" \
	'lte / (dsl + lte) < 0.01 && lost == 0' "dsl=$((d1 - d0))" \
	"lte=$((l1 - l0))" "lost=$(jget "$TB_DIR/d40.rx.json" lost)"
echo "  40 Mbit/s: dsl $((d1 - d0)) B, lte $((l1 - l0)) B"

settle
refresh cpe
d1=$(path_rx dsl)
l1=$(path_rx lte)
t1=$(tbf_down_bytes dsl)
UDP_DURATION=10 udp srv cli "$TB_CLI_IP" d90 --rate 90 --size 1400
refresh cpe
d2=$(path_rx dsl)
l2=$(path_rx lte)
t2=$(tbf_down_bytes dsl)
f=$TB_DIR/d90.rx.json
secs=$(jget "$f" seconds)
echo "  90 Mbit/s: $(cat "$f")"
refresh conc
echo "  conc: $(grep -E '^(w_mobile|ing.awi|ing.iwi|ing.dwd|ing.dwd_held)=' "$(status_file conc)" | tr '\n' ' ')"
# utilisation as the line's rate limiter counts it (Ethernet frames)
rate_check "90 Mbit/s down: DSL >= 90 % utilised, LTE carries the rest" \
	'tbf * 8 / secs / 64e6 >= 0.90 && lte * 8 / secs > 15e6' \
	"tbf=$((t2 - t1))" "lte=$((l2 - l1))" "secs=$secs"
echo "  dsl utilisation $(awk -v b=$((t2 - t1)) -v s="$secs" 'BEGIN { printf "%.1f %%", b * 8 / s / 64e6 * 100 }') (tbf), tunnel bytes: dsl $(awk -v b=$((d2 - d1)) -v s="$secs" 'BEGIN { printf "%.1f", b * 8 / s / 1e6 }'), lte $(awk -v b=$((l2 - l1)) -v s="$secs" 'BEGIN { printf "%.1f Mbit/s", b * 8 / s / 1e6 }')"
rate_check "90 Mbit/s down: loss < 2 %, reordered < 0.1 %" \
	'loss < 2 && reord / expected < 0.001' \
	"loss=$(jget "$f" loss_pct)" "reord=$(jget "$f" reordered)" \
	"expected=$(jget "$f" expected)"
check "90 Mbit/s down: payload intact" 'corrupted == 0 && expected > 0' \
	"corrupted=$(jget "$f" corrupted)" "expected=$(jget "$f" expected)"

# ---- 4. SIGHUP ---------------------------------------------------------------------------

refresh conc
hs0=$(st conc handshakes)
restarts0=$(st cpe egr.peer_restarts)
rm -f "$TB_DIR/hup.ready"
tb_bg cli "$TB_DIR/hup.rx.log" "$TB_TRAFFIC" recv --port 5000 --duration 9 \
	--linger-ms 500 --json "$TB_DIR/hup.rx.json" \
	--ready-file "$TB_DIR/hup.ready"
hrx=$TB_LAST_PID
tb_wait_file "$TB_DIR/hup.ready" || true
tb_bg srv "$TB_DIR/hup.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --rate 10 --size 1400 --duration 4
htx=$TB_LAST_PID
sleep 1
write_confs 1
kill -HUP "${DPID[conc]}"
sleep 0.5
refresh conc
k_new=$(st conc k)
g_new=$(st conc gseq)
sed -i 's/k = 1;/k = 11;/' "$TB_DIR/conc.conf"
kill -HUP "${DPID[conc]}"
sleep 0.5
refresh conc
k_bad=$(st conc k)
write_confs 1
sed -i 's/port = 7040;/port = 7041;/' "$TB_DIR/conc.conf"
kill -HUP "${DPID[conc]}"
sleep 0.3
refresh conc
k_struct=$(st conc port 2>/dev/null)
write_confs 1
tb_wait "$htx" 10 || true
tb_wait "$hrx" 15 || true
refresh cpe
refresh conc
check "SIGHUP: new k applied, bad file and port change refused" \
	'kn == 1 && kb == 1 && refused == 2 && g > 1000' "kn=$k_new" "kb=$k_bad" \
	"refused=$(cnt 'reload refused' <"$TB_DIR/conc.log")" "g=$g_new"
check "SIGHUP: session kept (no new handshake, no peer restart, no loss)" \
	'e == 0 && r == 0 && lost == 0 && unique == expected' \
	"e=$(($(st conc handshakes) - hs0))" \
	"r=$(($(st cpe egr.peer_restarts) - restarts0))" \
	"lost=$(jget "$TB_DIR/hup.rx.json" lost)" \
	"unique=$(jget "$TB_DIR/hup.rx.json" unique)" \
	"expected=$(jget "$TB_DIR/hup.rx.json" expected)"
: "$k_struct"

# ---- 5. CPE daemon killed: native; restarted: bonded again -----------------------

kill -KILL "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 5 || true
# An idle session is probed by the CPE alone (idle_probe_ms): the
# concentrator finds the CPE gone once it has traffic for it.  Its probes
# go at the busy interval then and its DATA is not acknowledged: the paths
# are suspect within 3 probe intervals and T, down at once (nothing
# answered for far longer than dead_after_ms).  Pings wake it (answers
# lost, or native if already down), then 1.5 s.
ping_count srv "$TB_CLI_IP" 10 >/dev/null
sleep 1.5
refresh conc
n=$(ping_count cli "$TB_SRV_IP" 5)
m=$(ping_count srv "$TB_CLI_IP" 5)
check "CPE daemon killed: native traffic both ways, conc paths down" \
	'up == 5 && down == 5 && d == 0 && l == 0' "up=$n" "down=$m" \
	"d=$(st conc path.dsl.up)" "l=$(st conc path.lte.up)"
udp cli srv "$TB_SRV_IP" native --rate 10 --size 1400
udp_intact native "CPE daemon killed: UDP up natively"
check "killed daemon left its rules (fail-open by --queue-bypass)" 'n == 1' \
	"n=$(tb_exec cpe iptables-save | cnt '-A FORWARD -j L3B_ING')"

# SIGKILL left rp_filter loose; as a fresh box would have it, strict again
tb_exec cpe sysctl -qw net.ipv4.conf.all.rp_filter=1 \
	net.ipv4.conf.lte.rp_filter=1 >/dev/null
# restarted with bond_output: the cpe's own traffic is bonded too
sed -i 's/^\(\s*\)lan_interfaces/\1bond_output = true;\n\1lan_interfaces/' \
	"$TB_DIR/cpe.conf"
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "CPE daemon restarted, paths up again"
else
	bad "after restart: cpe paths $(st cpe path.dsl.up)/$(st cpe path.lte.up)"
fi
check "restart replaced the stale rules (one jump each)" 'f == 1 && p == 1' \
	"f=$(tb_exec cpe iptables-save | cnt '-A FORWARD -j L3B_ING')" \
	"p=$(tb_exec cpe iptables-save | cnt '-A PREROUTING -j L3B_EGR')"
refresh conc
kb0=$(st conc ing.bonded)
udp srv cli "$TB_CLI_IP" resumed --rate 10 --size 1400
udp_intact resumed "after restart: UDP down bonded"
refresh conc
refresh cpe
check "after restart: bonded again, conc saw the new session" \
	'kb > 2000 && rel > 2000 && r >= 1' \
	"kb=$(($(st conc ing.bonded) - kb0))" "rel=$(st cpe egr.released)" \
	"r=$(st conc egr.peer_restarts)"
# The concentrator takes from a CPE only what comes from that CPE's
# prefixes: the cpe's own traffic is sourced from its LAN address, as a
# route's src makes it.  First without: dropped and counted as spoofed.
refresh cpe
refresh conc
cb0=$(st cpe ing.bonded)
sp0=$(st conc egr.spoofed)
n=$(ping_count cpe "$TB_SRV_IP" 3 || true)
refresh conc
check "bond_output: the cpe's own ping from its WAN address: dropped as spoofed" \
	'n == 0 && sp >= 3' "n=${n:-0}" "sp=$(($(st conc egr.spoofed) - sp0))"
tb_exec cpe ip route add "$TB_SRV_IP/32" via "$TB_DSL_CPE_IP" dev dsl \
	src "$TB_CPE_LAN_IP"
n=$(ping_count cpe "$TB_SRV_IP" 5)
refresh cpe
check "bond_output: the cpe's own ping to srv is bonded, tunnel not looped" \
	'n == 5 && cb >= 8 && cb < 50' "n=$n" "cb=$(($(st cpe ing.bonded) - cb0))"

# ---- 5b. concentrator restarted: the CPE sees its new session ---------------------------

refresh cpe
crestarts0=$(st cpe egr.peer_restarts)
kill -TERM "${DPID[conc]}"
tb_wait "${DPID[conc]}" 10 || true
daemon_start conc
if wait_up conc && wait_up cpe; then
	ok "concentrator restarted, paths up again"
else
	bad "after conc restart: conc paths $(st conc path.dsl.up)/$(st conc path.lte.up)"
fi
udp srv cli "$TB_CLI_IP" cresumed --rate 10 --size 1400
udp_intact cresumed "after conc restart: UDP down"
udp cli srv "$TB_SRV_IP" cresumedup --rate 10 --size 1400
udp_intact cresumedup "after conc restart: UDP up"
refresh cpe
check "after conc restart: the CPE reset its sequence state once, no late drops" \
	'r == 1 && late == 0' "r=$(($(st cpe egr.peer_restarts) - crestarts0))" \
	"late=$(st cpe egr.late)"

# ---- 5c. dsl cut: everything over lte; healed: dsl back ---------------------------------

tb_cut dsl
# The cut may find the session idle: then nothing probes the dsl for
# idle_probe_ms (20 s), and a flow's first packets on it are lost and sent
# again on the lte, released out of order (the failover's business,
# test_failover.sh).  A trickle of traffic wakes the detection; the flow
# that checks "everything over lte" starts once the concentrator has the
# dsl down.
UDP_DURATION=1 udp srv cli "$TB_CLI_IP" cutwake --rate 1 --size 200
t0=$(now_ms)
while in_time "$t0" 20000; do
	refresh conc
	[ "$(st conc path.dsl.up)" = 0 ] && break
	sleep 0.1
done
udp srv cli "$TB_CLI_IP" cutdown --rate 10 --size 1400
udp_intact cutdown "dsl cut: UDP down over lte"
refresh conc
check "dsl cut: dsl down, lte up at the concentrator" 'd == 0 && l == 1' \
	"d=$(st conc path.dsl.up)" "l=$(st conc path.lte.up)"
tb_heal dsl
if wait_up cpe && wait_up conc; then
	ok "dsl healed: both paths up again"
else
	bad "dsl healed: conc paths $(st conc path.dsl.up)/$(st conc path.lte.up)"
fi

# ---- 5d. CPE restarted while traffic flows to it ----------------------------------------
# The concentrator sees the CPE's new session and resets what it knew of the
# CPE's numbering, but keeps its own: the CPE's fresh egress follows
# whatever it sees first.  (Restarting the numbering at 0 instead was
# dropped as late by the peer until it caught up: a blackout.)

rm -f "$TB_DIR/rsflow.ready"
tb_bg cli "$TB_DIR/rsflow.rx.log" "$TB_TRAFFIC" recv --port 5000 \
	--duration 15 --linger-ms 500 --json "$TB_DIR/rsflow.rx.json" \
	--ready-file "$TB_DIR/rsflow.ready"
rsrx=$TB_LAST_PID
tb_wait_file "$TB_DIR/rsflow.ready" || true
tb_bg srv "$TB_DIR/rsflow.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --rate 20 --size 1400 --duration 8
rstx=$TB_LAST_PID
sleep 3
kill -TERM "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 10 || true
daemon_start cpe
tb_wait "$rstx" 20 || true
tb_wait "$rsrx" 20 || true
wait_up cpe || true
refresh cpe
check "CPE restarted under 20 Mbit/s down: loss only around the restart (< 10 %), no late drops" \
	'loss < 10 && late == 0 && fin == "true"' \
	"loss=$(jget "$TB_DIR/rsflow.rx.json" loss_pct)" \
	"late=$(st cpe egr.late)" "fin=$(jget "$TB_DIR/rsflow.rx.json" fin)"
echo "  restart under traffic: lost $(jget "$TB_DIR/rsflow.rx.json" lost) of $(jget "$TB_DIR/rsflow.rx.json" expected)"

# ---- 6. SIGTERM: nothing left -----------------------------------------------------------

for box in cpe conc; do
	kill -TERM "${DPID[$box]}"
	rc=0
	tb_wait "${DPID[$box]}" 10 || rc=$?
	check "$box: SIGTERM: exit 0, no rule or chain, no queue bound" \
		'rc == 0 && rules == 0 && queues == 0' "rc=$rc" \
		"rules=$(tb_exec "$box" iptables-save | cnt L3B)" \
		"queues=$(tb_exec "$box" cat /proc/net/netfilter/nfnetlink_queue 2>/dev/null | wc -l)"
done
check "cpe: rp_filter restored" 'a == 1 && l == 1' \
	"a=$(tb_exec cpe sysctl -n net.ipv4.conf.all.rp_filter)" \
	"l=$(tb_exec cpe sysctl -n net.ipv4.conf.lte.rp_filter)"
tb_exec cpe sysctl -qw net.ipv4.conf.all.rp_filter=2 >/dev/null

# ---- 7. TCP over DSL alone, for comparison --------------------------------------------

tcp srv cli "$TB_CLI_IP" tcpdsl 40000000
tcp_dsl=$(jget "$TB_DIR/tcpdsl.rx.json" goodput_mbit)
echo "  TCP srv -> cli goodput: bonded $tcp_bond Mbit/s, DSL alone $tcp_dsl Mbit/s"
rate_check "TCP down: bonded goodput above DSL alone (by 15 %)" 'b > 1.15 * d' \
	"b=$tcp_bond" "d=$tcp_dsl"

tb_done
