#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# MTU through the bond, end to end, on the testbed of lib.sh with both
# daemons (CPE and concentrator l3bondd), in both directions (cli -> srv,
# where the CPE's ingress decides, and srv -> cli, the concentrator's):
#
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#
# The tunnel carries inner packets of at most inner_max = min path MTU -
# 76 bytes (outer IPv4 20 + UDP 8 + header 32 + tag 16): 1424 on 1500-byte
# paths.  Phases (each starts from a sender without learnt path MTU: its
# routes are deleted and added again, which drops their exceptions):
#   1. 1500-byte UDP datagrams WITH DF (IP_PMTUDISC_DO, IP_RECVERR): the
#      first is dropped by the ingress and the sender gets an ICMP
#      fragmentation-needed (type 3 code 4) from the gateway's LAN address
#      with next-hop MTU 1424 (read from its socket's error queue); its
#      socket and route cache then say mtu 1424, the same size fails
#      locally with EMSGSIZE, 1424 bytes pass.  19 more 1500-byte DF
#      datagrams (IP_PMTUDISC_PROBE: DF set, the learnt MTU ignored) get
#      19 more ICMPs; the daemon's ing.too_big grows by exactly the 20
#      sent, ing.too_big_mute not at all, and the receiver gets no
#      1500-byte datagram, only the 1424-byte one, intact;
#   2. 1500-byte UDP datagrams WITHOUT DF (IP_PMTUDISC_DONT), 20: all
#      delivered, whole (the receiver's socket gets 1472-byte payloads,
#      compared byte by byte), ing.fragmented grows by 20;
#   3. TCP bulk transfers both ways (l3b-traffic tcp-send/tcp-recv, the
#      stream verified): every SYN and SYN-ACK leaves its host with MSS
#      1460 and arrives with 1384 (iptables tcpmss counters in OUTPUT and
#      INPUT of cli and srv), the sender's socket uses an MSS of at most
#      1384 (ss -ti), the transfer completes intact, no ing.too_big nor
#      ing.fragmented on either daemon;
#   4. both daemons restarted with "mtu = 1400;" on the lte path:
#      path.lte.mtu 1400, ing.inner_max 1324, ing.mss 1284, the installed
#      TCPMSS rule (iptables -t mangle -S L3B_ING) sets 1284; 1400-byte DF
#      datagrams get ICMP with 1324 both ways, 1324 bytes pass, 1400-byte
#      ones without DF arrive whole (fragmented), TCP SYNs clamped to 1284;
#   5. the interface's MTU as the default: the CPE's dsl device set to
#      1380, the daemon reloaded (SIGHUP): path.dsl.mtu 1380, inner_max
#      1304, mss 1264 and the rule follows, 1350-byte DF datagrams from
#      cli get ICMP with 1304; back to 1500 after.
# Throughout, the routers in the middle count the outer packets: the
# largest are exactly the path's MTU, none above, none fragmented.
# The figures are printed (the closing note quotes them).
#
# usage: test_mtu.sh [BUILD_DIR]   (l3bondd in BUILD_DIR/gateway, the
# tools in BUILD_DIR/tests/tools unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

export TB_PREFIX=${TB_PREFIX:-l3b-mtu-$$-}
# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables ss awk python3
tb_require_bin "$L3BONDD"

UDP_PORT=5003
TCP_PORT=5001

tb_init

# ---- the UDP end points: python3 sockets, so that DF can be chosen ------
#
# Payloads: an 8-byte head (magic, sequence number) and a pattern of the
# sequence number, so that the receiver checks every byte.
#   mtu.py recv PORT SECONDS READY OUT   until an "END" datagram (+0.3 s)
#       or SECONDS; OUT: flat JSON, n<IP length> = datagrams of that size,
#       intact, bad, end
#   mtu.py df DST PORT SIZE PROBES FIT   (sizes are IPv4 packet bytes)
#   mtu.py nodf DST PORT SIZE COUNT
cat >"$TB_DIR/mtu.py" <<'EOF'
import errno, json, select, socket, struct, sys, time

IP_MTU_DISCOVER, IP_MTU, IP_RECVERR = 10, 14, 11
PMTU_DONT, PMTU_DO, PMTU_PROBE = 0, 2, 3
SO_EE_ORIGIN_ICMP = 2
MAGIC = 0x4C334D54
HDRS = 28  # IPv4 + UDP


def payload(seq, n):
    return struct.pack("!II", MAGIC, seq) + bytes(
        (seq * 31 + i * 7 + 1) & 0xFF for i in range(n - 8))


def intact(data):
    if len(data) < 8:
        return False
    magic, seq = struct.unpack("!II", data[:8])
    return magic == MAGIC and data == payload(seq, len(data))


def cmd_recv(port, secs, ready, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind(("0.0.0.0", int(port)))
    open(ready, "w").close()
    res = {"intact": 0, "bad": 0, "end": 0}
    stop = time.time() + float(secs)
    while time.time() < stop:
        if not select.select([s], [], [], 0.05)[0]:
            continue
        data = s.recv(65535)
        if data == b"END":
            res["end"] = 1
            stop = min(stop, time.time() + 0.3)
            continue
        k = "n%d" % (len(data) + HDRS)
        res[k] = res.get(k, 0) + 1
        res["intact" if intact(data) else "bad"] += 1
    with open(out, "w") as f:
        json.dump(res, f, separators=(",", ":"))
        f.write("\n")


def udp(dst, port, pmtu):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, pmtu)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
    s.connect((dst, int(port)))
    return s


def errors(s, wait, want):
    """The ICMP errors in s's error queue, waiting up to wait seconds
    for want of them: (type, code, info, offender) each."""
    got = []
    stop = time.time() + wait
    p = select.poll()
    p.register(s, select.POLLERR)
    while True:
        left = stop - time.time()
        if len(got) >= want or left <= 0:
            break
        if not p.poll(left * 1000):
            continue
        try:
            _, anc, _, _ = s.recvmsg(2048, 512, socket.MSG_ERRQUEUE)
        except BlockingIOError:
            continue
        for level, typ, d in anc:
            if level != socket.IPPROTO_IP or typ != IP_RECVERR:
                continue
            ee_errno, origin, t, c, _, info, _ = struct.unpack(
                "=IBBBBII", d[:16])
            if origin == SO_EE_ORIGIN_ICMP:
                got.append((t, c, info, socket.inet_ntoa(d[20:24])))
    return got


def send(s, data):
    """'sent' or the errno's name; an error left on the socket by an
    ICMP may come with the first try."""
    err = "?"
    for _ in range(3):
        try:
            s.send(data)
            return "sent"
        except OSError as e:
            err = errno.errorcode.get(e.errno, str(e.errno))
            errors(s, 0, 99)
    return err


def cmd_df(dst, port, size, probes, fit):
    size, probes, fit = int(size), int(probes), int(fit)
    s = udp(dst, port, PMTU_DO)
    r = {"mtu_before": s.getsockopt(socket.IPPROTO_IP, IP_MTU)}
    r["first"] = send(s, payload(0, size - HDRS))
    e = errors(s, 3.0, 1)
    r["icmp"] = len(e)
    if e:
        r["icmp_type"], r["icmp_code"], r["icmp_mtu"], r["icmp_from"] = e[0]
    r["mtu_after"] = s.getsockopt(socket.IPPROTO_IP, IP_MTU)
    # the same size again: refused by the sender's own stack now
    r["again"] = send(s, payload(1, size - HDRS))
    r["fit"] = send(s, payload(2, fit - HDRS))
    # DF set, the learnt MTU ignored: each goes out at size
    p = udp(dst, port, PMTU_PROBE)
    sent, got = 0, []
    for i in range(probes):
        if send(p, payload(100 + i, size - HDRS)) == "sent":
            sent += 1
        time.sleep(0.02)
        got += errors(p, 0, 99)
    got += errors(p, 2.0, sent - len(got))
    r["probes_sent"] = sent
    r["probe_icmp"] = len(got)
    r["probe_icmp_ok"] = sum(1 for g in got if g[:3] == e[0][:3]) if e else 0
    r["big_sent"] = sent + (r["first"] == "sent") + (r["again"] == "sent")
    s.send(b"END")
    print(json.dumps(r, separators=(",", ":")))


def cmd_nodf(dst, port, size, count):
    size, count = int(size), int(count)
    s = udp(dst, port, PMTU_DONT)
    r = {"mtu_before": s.getsockopt(socket.IPPROTO_IP, IP_MTU), "sent": 0}
    for i in range(count):
        if send(s, payload(i, size - HDRS)) == "sent":
            r["sent"] += 1
        time.sleep(0.01)
    r["icmp"] = len(errors(s, 0.3, 99))
    s.send(b"END")
    print(json.dumps(r, separators=(",", ":")))


{"recv": cmd_recv, "df": cmd_df, "nodf": cmd_nodf}[sys.argv[1]](*sys.argv[2:])
EOF

# ---- helpers ------------------------------------------------------------

# The default route of box again: its path MTU exceptions (learnt from
# ICMP) go with the old one.  Prints "ip route get" afterwards.
pmtu_forget() {
	local box=$1 gw=$2 dst=$3
	tb_exec "$box" ip route del default
	tb_exec "$box" ip route add default via "$gw"
	tb_exec "$box" ip route get "$dst" | tr -s ' \n' ' '
}

other() {
	if [ "$1" = cli ]; then echo srv; else echo cli; fi
}

ip_of() {
	if [ "$1" = cli ]; then echo "$TB_CLI_IP"; else echo "$TB_SRV_IP"; fi
}

lan_gw() {
	if [ "$1" = cli ]; then echo "$TB_CPE_LAN_IP"; else echo "$TB_CONC_LAN_IP"; fi
}

# the daemon whose ingress takes what box sends
gw_of() {
	if [ "$1" = cli ]; then echo cpe; else echo conc; fi
}

# udp_recv BOX NAME: a receiver in BOX; RX_PID
udp_recv() {
	local box=$1 name=$2 i
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$box" "$TB_DIR/$name.rx.log" python3 "$TB_DIR/mtu.py" recv \
		"$UDP_PORT" 20 "$TB_DIR/$name.ready" "$TB_DIR/$name.rx.json"
	RX_PID=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" 250 && return 0
	bad "$name: the receiver did not start: $(cat "$TB_DIR/$name.rx.log")"
	return 1
}

udp_recv_done() {
	local name=$1
	tb_wait "$RX_PID" 25 || true
	[ -s "$TB_DIR/$name.rx.json" ] || echo '{}' >"$TB_DIR/$name.rx.json"
}

# A key of a flat JSON object, 0 if absent.
jv() {
	jget "$1" "$2" 0
}

# df_phase SRC SIZE WANT_MTU PROBES: DF datagrams of SIZE from SRC to the
# other side; the ingress must answer with WANT_MTU.
df_phase() {
	local src=$1 size=$2 mtu=$3 probes=$4 dst g name f r route
	dst=$(ip_of "$(other "$src")") g=$(gw_of "$src")
	name=df-$src-$size f=$TB_DIR/df-$src-$size.json r=$TB_DIR/df-$src-$size.rx.json
	echo "== $src -> $(other "$src"): $size-byte datagrams with DF (ingress of $g, inner_max $mtu)"
	route=$(pmtu_forget "$src" "$(lan_gw "$src")" "$dst")
	check "$name: no path MTU learnt before ($route)" 'm == 0' \
		"m=$(grep -c ' mtu ' <<<"$route" || true)"
	refresh "$g"
	local tb0 mute0 frag0
	tb0=$(st "$g" ing.too_big) mute0=$(st "$g" ing.too_big_mute)
	frag0=$(st "$g" ing.fragmented)
	udp_recv "$(other "$src")" "$name" || return 0
	tb_exec "$src" python3 "$TB_DIR/mtu.py" df "$dst" "$UDP_PORT" "$size" \
		"$probes" "$mtu" >"$f" 2>"$TB_DIR/$name.err" ||
		bad "$name: sender: $(cat "$TB_DIR/$name.err")"
	[ -s "$f" ] || echo '{}' >"$f"
	udp_recv_done "$name"
	route=$(tb_exec "$src" ip route get "$dst" | tr -s ' \n' ' ')
	refresh "$g"
	echo "  sender: $(cat "$f")"
	echo "  receiver: $(cat "$r")"
	echo "  route: $route"
	check "$name: ICMP frag-needed (3/4) from $g's LAN address with mtu $mtu" \
		'n == 1 && t == 3 && c == 4 && m == want && from == gw' \
		"n=$(jv "$f" icmp)" "t=$(jv "$f" icmp_type)" "c=$(jv "$f" icmp_code)" \
		"m=$(jv "$f" icmp_mtu)" "want=$mtu" "from=$(jv "$f" icmp_from)" \
		"gw=$(lan_gw "$src")"
	check "$name: the sender's socket learnt mtu $mtu, the same size then fails locally (EMSGSIZE)" \
		'before == 1500 && after == want && again == "EMSGSIZE"' \
		"before=$(jv "$f" mtu_before)" "after=$(jv "$f" mtu_after)" \
		"want=$mtu" "again=$(jv "$f" again)"
	check "$name: the sender's route cache says mtu $mtu" 'n == 1' \
		"n=$(grep -c " mtu $mtu " <<<"$route " || true)"
	check "$name: every DF datagram that went out got its ICMP (mtu $mtu)" \
		'ps == want && pi == ps && ok == ps' "want=$probes" \
		"ps=$(jv "$f" probes_sent)" "pi=$(jv "$f" probe_icmp)" \
		"ok=$(jv "$f" probe_icmp_ok)"
	check "$name: ing.too_big of $g grew by what was sent, no mute drop" \
		'tb == sent && sent == want + 1 && mute == 0' \
		"tb=$(($(st "$g" ing.too_big) - tb0))" "sent=$(jv "$f" big_sent)" \
		"want=$probes" "mute=$(($(st "$g" ing.too_big_mute) - mute0))"
	check "$name: nothing fragmented for DF" 'n == 0' \
		"n=$(($(st "$g" ing.fragmented) - frag0))"
	check "$name: the receiver got the $mtu-byte resend, intact, and no $size-byte one (no black hole)" \
		'fit == "sent" && nfit == 1 && nbig == 0 && ok == 1 && bad == 0 && e == 1' \
		"fit=$(jv "$f" fit)" "nfit=$(jv "$r" "n$mtu")" \
		"nbig=$(jv "$r" "n$size")" "ok=$(jv "$r" intact)" \
		"bad=$(jv "$r" bad)" "e=$(jv "$r" end)"
	FIG+=("$name: $((probes + 1)) DF datagrams of $size bytes -> ing.too_big +$(($(st "$g" ing.too_big) - tb0)), ICMP mtu $(jv "$f" icmp_mtu) first + $(jv "$f" probe_icmp) more, resend $mtu bytes delivered $(jv "$r" "n$mtu")")
}

# ip statistics of box: "ReasmOKs FragCreates ..."
ip_stat() {
	tb_exec "$1" cat /proc/net/snmp | awk -v k="$2" '/^Ip:/ {
		if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 }
		else { print $c[k]; exit } }'
}

# nodf_phase SRC SIZE COUNT: datagrams without DF, fragmented by the ingress
nodf_phase() {
	local src=$1 size=$2 count=$3 dst g name f r reasm0 fc0
	dst=$(ip_of "$(other "$src")") g=$(gw_of "$src")
	name=nodf-$src-$size f=$TB_DIR/nodf-$src-$size.json r=$TB_DIR/nodf-$src-$size.rx.json
	echo "== $src -> $(other "$src"): $size-byte datagrams without DF (ingress of $g)"
	pmtu_forget "$src" "$(lan_gw "$src")" "$dst" >/dev/null
	refresh "$g"
	local frag0 tb0
	frag0=$(st "$g" ing.fragmented) tb0=$(st "$g" ing.too_big)
	reasm0=$(ip_stat "$(other "$src")" ReasmOKs)
	fc0=$(ip_stat "$src" FragCreates)
	udp_recv "$(other "$src")" "$name" || return 0
	tb_exec "$src" python3 "$TB_DIR/mtu.py" nodf "$dst" "$UDP_PORT" "$size" \
		"$count" >"$f" 2>"$TB_DIR/$name.err" ||
		bad "$name: sender: $(cat "$TB_DIR/$name.err")"
	[ -s "$f" ] || echo '{}' >"$f"
	udp_recv_done "$name"
	refresh "$g"
	local reasm fc nfrag
	reasm=$(($(ip_stat "$(other "$src")" ReasmOKs) - reasm0))
	fc=$(($(ip_stat "$src" FragCreates) - fc0))
	nfrag=$(($(st "$g" ing.fragmented) - frag0))
	echo "  sender: $(cat "$f")"
	echo "  receiver: $(cat "$r"), its kernel reassembled $reasm"
	check "$name: the sender sent them whole (mtu $(jv "$f" mtu_before), no fragments of its own, no ICMP back)" \
		'sent == want && fc == 0 && icmp == 0' "sent=$(jv "$f" sent)" \
		"want=$count" "fc=$fc" "icmp=$(jv "$f" icmp)"
	check "$name: all delivered whole, byte for byte" \
		'n == want && ok == want && bad == 0 && e == 1' \
		"n=$(jv "$r" "n$size")" "ok=$(jv "$r" intact)" "bad=$(jv "$r" bad)" \
		"want=$count" "e=$(jv "$r" end)"
	check "$name: ing.fragmented of $g grew by $count, no too_big" \
		'nf == want && tb == 0' "nf=$nfrag" "want=$count" \
		"tb=$(($(st "$g" ing.too_big) - tb0))"
	check "$name: the receiver's kernel reassembled each (the bond carried fragments)" \
		'r == want' "r=$reasm" "want=$count"
	FIG+=("$name: $count datagrams of $size bytes without DF -> ing.fragmented +$nfrag, delivered $(jv "$r" "n$size") intact, receiver ReasmOKs +$reasm")
}

# SYN/SYN-ACK MSS counters in cli and srv: OUTPUT (as sent) and INPUT
# (as received after the bond).
mss_counters() {
	local want=$1 box
	for box in cli srv; do
		tb_exec "$box" iptables -w -F OUTPUT
		tb_exec "$box" iptables -w -F INPUT
		tb_exec "$box" iptables -w -A OUTPUT -p tcp --tcp-flags SYN SYN \
			-m tcpmss --mss 1460 -m comment --comment out_1460
		tb_exec "$box" iptables -w -A OUTPUT -p tcp --tcp-flags SYN SYN \
			-m comment --comment out_all
		tb_exec "$box" iptables -w -A INPUT -p tcp --tcp-flags SYN SYN \
			-m tcpmss --mss "$want" -m comment --comment in_want
		tb_exec "$box" iptables -w -A INPUT -p tcp --tcp-flags SYN SYN \
			-m tcpmss --mss "$((want + 1)):65535" -m comment --comment in_over
		tb_exec "$box" iptables -w -A INPUT -p tcp --tcp-flags SYN SYN \
			-m comment --comment in_all
	done
}

mss_count() {
	tb_exec "$1" iptables -w -L "$2" -n -v -x |
		awk -v c="/* $3 */" 'index($0, c) { print $1; exit }'
}

# tcp_phase SRC BYTES CLAMP: a bulk transfer SRC -> other side
tcp_phase() {
	local src=$1 bytes=$2 clamp=$3 dst to name rx tx i mss="" ss
	to=$(other "$src") dst=$(ip_of "$to") name=tcp-$src-$clamp
	echo "== TCP $src -> $to, $bytes bytes (clamp $clamp)"
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.json" "$TB_TRAFFIC" tcp-recv \
		--port "$TCP_PORT" --duration 30 --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_bg "$src" "$TB_DIR/$name.tx.json" "$TB_TRAFFIC" tcp-send \
		--dst "$dst" --port "$TCP_PORT" --bytes "$bytes"
	tx=$TB_LAST_PID
	# the sender's MSS while the connection is up
	for ((i = 0; i < 40; i++)); do
		sleep 0.05
		ss=$(tb_exec "$src" ss -tinH state established dst "$dst" 2>/dev/null || true)
		mss=$(sed -n 's/.* mss:\([0-9]*\).*/\1/p' <<<"$ss" | head -n 1)
		[ -n "$mss" ] && break
	done
	tb_wait "$tx" 30 || bad "$name: tcp-send failed: $(cat "$TB_DIR/$name.tx.json")"
	tb_wait "$rx" 35 || true
	echo "  sender: $(cat "$TB_DIR/$name.tx.json")"
	echo "  receiver: $(cat "$TB_DIR/$name.rx.json")"
	echo "  sender's socket: $(grep -o 'mss:[0-9]*\|advmss:[0-9]*\|pmtu:[0-9]*\|rcvmss:[0-9]*' <<<"$ss" | tr '\n' ' ')"
	check "$name: transfer complete and intact" \
		'c == "true" && b == want && bad == 0' \
		"c=$(jget "$TB_DIR/$name.rx.json" complete)" \
		"b=$(jget "$TB_DIR/$name.rx.json" bytes)" "want=$bytes" \
		"bad=$(jget "$TB_DIR/$name.rx.json" corrupted_bytes)"
	check "$name: the sender's MSS fits the clamp (ss -ti)" \
		'mss > 0 && mss <= clamp' "mss=${mss:-0}" "clamp=$clamp"
	TCP_FIG+=("$name: $(jget "$TB_DIR/$name.rx.json" goodput_mbit) Mbit/s, sender mss ${mss:-?}")
}

# The SYN counters after tcp_phase runs both ways: each of cli and srv sent
# its SYN or SYN-ACK with 1460 and received the other's clamped to want.
mss_assert() {
	local want=$1 n box
	for box in cli srv; do
		n=$(mss_count "$box" INPUT in_all)
		check "$box: every SYN/SYN-ACK sent with MSS 1460, received clamped to exactly $want" \
			'o1460 == oall && oall >= 2 && w == all && all == oall && over == 0' \
			"o1460=$(mss_count "$box" OUTPUT out_1460)" \
			"oall=$(mss_count "$box" OUTPUT out_all)" \
			"w=$(mss_count "$box" INPUT in_want)" "all=$n" \
			"over=$(mss_count "$box" INPUT in_over)"
	done
	FIG+=("SYN/SYN-ACK MSS: sent 1460, received $want (cli in $(mss_count cli INPUT in_want)/$(mss_count cli INPUT in_all), srv in $(mss_count srv INPUT in_want)/$(mss_count srv INPUT in_all))")
}

# The outer packets on the access links, counted by the routers in the
# middle (filter FORWARD, before anything else, both directions): UDP of
# exactly MAX bytes (the smallest path MTU: every path carries inner
# packets up to inner_max, which is min MTU - 76), above MAX, and
# fragments.  lte has conntrack (its NAT), whose defragmentation would make
# an outer packet sent in fragments one above MAX there; dsl sees the
# fragments themselves.
outer_counters() {
	local max=$1 path
	for path in dsl lte; do
		tb_exec "$path" iptables -w -D FORWARD -j OUTER 2>/dev/null || true
		tb_exec "$path" iptables -w -F OUTER 2>/dev/null ||
			tb_exec "$path" iptables -w -N OUTER
		tb_exec "$path" iptables -w -I FORWARD 1 -j OUTER
		tb_exec "$path" iptables -w -A OUTER -p udp -m length \
			--length "$max" -m comment --comment o_max
		tb_exec "$path" iptables -w -A OUTER -m length \
			--length "$((max + 1)):65535" -m comment --comment o_over
		tb_exec "$path" iptables -w -A OUTER -f -m comment --comment o_frag
		tb_exec "$path" iptables -w -A OUTER -p udp -m comment --comment o_all
	done
}

# outer_assert MAX: on both links the largest outer packets were exactly
# MAX bytes (the overhead accounted to the byte), none above, none
# fragmented; no send the daemons' sockets refused.
outer_assert() {
	local max=$1 path box
	for path in dsl lte; do
		check "$path link: outer packets of exactly $max bytes, none above, no fragments" \
			'at > 0 && over == 0 && frag == 0 && all > at' \
			"at=$(mss_count "$path" OUTER o_max)" \
			"over=$(mss_count "$path" OUTER o_over)" \
			"frag=$(mss_count "$path" OUTER o_frag)" \
			"all=$(mss_count "$path" OUTER o_all)"
		FIG+=("$path link: $(mss_count "$path" OUTER o_max) outer packets of $max bytes of $(mss_count "$path" OUTER o_all), $(mss_count "$path" OUTER o_over) above, $(mss_count "$path" OUTER o_frag) fragments")
	done
	for box in cpe conc; do
		refresh "$box"
		check "$box: no send refused on a path" 'd == 0 && l == 0' \
			"d=$(st "$box" path.dsl.tx_errors)" "l=$(st "$box" path.lte.tx_errors)"
	done
}

daemons_stop() {
	local box
	for box in cpe conc; do
		kill -TERM "${DPID[$box]}"
		tb_wait "${DPID[$box]}" 10 || bad "$box daemon did not stop"
	done
}

daemons_start() {
	daemon_start conc
	daemon_start cpe
	if wait_up cpe && wait_up conc; then
		ok "both daemons up, both paths up"
	else
		bad "paths not up: cpe $(st cpe path.dsl.up)/$(st cpe path.lte.up)," \
			"conc $(st conc path.dsl.up)/$(st conc path.lte.up)"
		tb_abort
	fi
}

# mtu_state BOX DSL LTE INNER MSS: status keys and the installed clamp
mtu_state() {
	local box=$1 dsl=$2 lte=$3 inner=$4 mss=$5 rules
	refresh "$box"
	rules=$(tb_exec "$box" iptables -w -t mangle -S L3B_ING)
	check "$box: path MTUs $dsl/$lte, inner_max $inner, mss $mss" \
		'd == dsl && l == lte && i == inner && m == mss' \
		"d=$(st "$box" path.dsl.mtu)" "l=$(st "$box" path.lte.mtu)" \
		"i=$(st "$box" ing.inner_max)" "m=$(st "$box" ing.mss)" \
		"dsl=$dsl" "lte=$lte" "inner=$inner" "mss=$mss"
	check "$box: L3B_ING clamps SYNs to $mss, nothing else" \
		'n >= 1 && n == all' \
		"n=$(grep -c -- "--set-mss $mss\$" <<<"$rules" || true)" \
		"all=$(grep -c -- '-j TCPMSS' <<<"$rules" || true)"
	FIG+=("$box: path.dsl.mtu $(st "$box" path.dsl.mtu) path.lte.mtu $(st "$box" path.lte.mtu) ing.inner_max $(st "$box" ing.inner_max) ing.mss $(st "$box" ing.mss); rule: $(grep -- '-j TCPMSS' <<<"$rules" | head -n 1 | sed 's/.*--mss/--mss/')")
}

FIG=()
TCP_FIG=()
t_start=$(date +%s)

tb_setup seed=3
write_confs 0.5 "probe_interval_ms = 200; dead_after_ms = 1000;"
daemons_start

echo "=== paths of 1500 bytes (interfaces' MTU)"
mtu_state cpe 1500 1500 1424 1384
mtu_state conc 1500 1500 1424 1384
outer_counters 1500

nodf_phase cli 1500 20
nodf_phase srv 1500 20
df_phase cli 1500 1424 19
df_phase srv 1500 1424 19

refresh cpe
refresh conc
tbc0=$(st cpe ing.too_big) tbk0=$(st conc ing.too_big)
frc0=$(st cpe ing.fragmented) frk0=$(st conc ing.fragmented)
pmtu_forget cli "$TB_CPE_LAN_IP" "$TB_SRV_IP" >/dev/null
pmtu_forget srv "$TB_CONC_LAN_IP" "$TB_CLI_IP" >/dev/null
mss_counters 1384
tcp_phase cli 30000000 1384
tcp_phase srv 30000000 1384
mss_assert 1384
refresh cpe
refresh conc
check "TCP: no ing.too_big nor ing.fragmented on either daemon (the clamp suffices)" \
	'tc == 0 && tk == 0 && fc == 0 && fk == 0' \
	"tc=$(($(st cpe ing.too_big) - tbc0))" "tk=$(($(st conc ing.too_big) - tbk0))" \
	"fc=$(($(st cpe ing.fragmented) - frc0))" "fk=$(($(st conc ing.fragmented) - frk0))"
outer_assert 1500

echo "=== mtu = 1400 on the lte path (both configs)"
daemons_stop
write_confs 0.5 "probe_interval_ms = 200; dead_after_ms = 1000;"
conf_path_keys "$TB_DIR/cpe.conf" lte "mtu = 1400;"
conf_path_keys "$TB_DIR/conc.conf" lte "mtu = 1400;"
daemons_start
mtu_state cpe 1500 1400 1324 1284
mtu_state conc 1500 1400 1324 1284
outer_counters 1400
df_phase cli 1400 1324 9
df_phase srv 1400 1324 9
nodf_phase cli 1400 10
nodf_phase srv 1400 10
pmtu_forget cli "$TB_CPE_LAN_IP" "$TB_SRV_IP" >/dev/null
pmtu_forget srv "$TB_CONC_LAN_IP" "$TB_CLI_IP" >/dev/null
mss_counters 1284
tcp_phase cli 10000000 1284
tcp_phase srv 10000000 1284
mss_assert 1284
outer_assert 1400

echo "=== the CPE's dsl interface at MTU 1380, daemon reloaded"
tb_exec cpe ip link set dsl mtu 1380
kill -HUP "${DPID[cpe]}"
sleep 0.5
mtu_state cpe 1380 1400 1304 1264
# Upstream only: the concentrator knows nothing of the CPE's interface.
# Below 1380: cpe's kernel checks the MTU of its own route (dsl) before
# the FORWARD hook and would answer a larger packet itself.
df_phase cli 1350 1304 4
tb_exec cpe ip link set dsl mtu 1500
kill -HUP "${DPID[cpe]}"
sleep 0.5
mtu_state cpe 1500 1400 1324 1284

echo "=== figures"
for l in "${FIG[@]}" "${TCP_FIG[@]}"; do
	echo "  $l"
done
echo "  run time $(($(date +%s) - t_start)) s"
tb_done
