#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Many CPEs on one concentrator (issue 15): N configured CPEs (generated
# keys and prefixes, one file each in a cpe_dir), A of them active: real
# CPE daemons in namespaces, bonding to the concentrator over the
# testbed's access routers; the others configured and silent.
#
#   cli -- cpe (a01, 10.0.1.0/24) ==dsl/lte==+
#          cpe2 .. cpeA (a02 ..)  ==dsl/lte==+== conc (N CPEs) -- srv
#                  (dsl, lte: lib.sh's routers, one link per CPE into each)
#
# Prints (asserts no timing, no memory figure: the machine is shared):
#   - the concentrator's VmRSS and VmHWM with 0 CPEs and with N, and the
#     difference per configured CPE;
#   - start-up with N CPEs: exec to READY=1 (sd_notify, on a socket of
#     ours), and the daemon's own start_ms;
#   - SIGHUP with one file changed (an idle CPE's key): the signal to
#     READY=1 again, the daemon's reload_ms;
#   - a bonded flow srv -> cli (a01) across that reload: lost, reordered;
#   - the concentrator's CPU at rest, and what l3bondctl status gets: the
#     whole status, one CPE's (--cpe a01), the totals (--totals).
# Checks (functional only): every active CPE gets its session, the reload
# applies (one CPE with a new key, none added or removed), the flow across
# it loses nothing and a01's session is untouched (no new handshake).
#
# usage: bench_cpes.sh [--quick] [--cpes N] [--active A] [BUILD_DIR]
#   default N 10000, A 20; --quick: N 1000, A 2 (under a minute).
# Run under the lock (flock /tmp/l3bond-netns.lock), like the netns tests.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
N=10000
A=20
build=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) N=1000 A=2 ;;
	--cpes) N=$2 && shift ;;
	--active) A=$2 && shift ;;
	-*) echo "usage: $0 [--quick] [--cpes N] [--active A] [BUILD_DIR]" >&2 && exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
build=${build:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}
if [ "$A" -lt 1 ] || [ "$A" -gt 99 ] || [ "$N" -lt "$A" ]; then
	echo "bench_cpes: want 1 <= active <= 99 and active <= cpes" >&2
	exit 2
fi

TB_PREFIX=${TB_PREFIX:-l3b-bcpe-$$-}
# shellcheck source=../netns/lib.sh
source "$here/../netns/lib.sh"
tb_require ip tc iptables ipset python3 awk jq
tb_require_bin "$L3BONDD"

now_ms() {
	local t=$EPOCHREALTIME
	echo $((${t/./} / 1000))
}

# ---- the sd_notify listener: every datagram, with its time ----------------

NOTIFY_LOG=
notify_start() {
	NOTIFY_LOG=$TB_DIR/notify.log
	: >"$NOTIFY_LOG"
	NOTIFY_SOCKET=$TB_DIR/notify.sock
	tb_bg conc "$TB_DIR/notify.err" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
while True:
    msg = s.recv(4096).decode(errors="replace").replace("\n", " ")
    out.write("%d %s\n" % (time.time() * 1000, msg))
' "$NOTIFY_SOCKET" "$NOTIFY_LOG"
	tb_wait_file "$NOTIFY_SOCKET"
}

# notify_wait N [TENTHS]: the time (ms) of the N-th READY=1, once there
notify_wait() {
	local n=$1 tries=${2:-600} i t
	for ((i = 0; i < tries; i++)); do
		t=$(awk -v n="$n" '/READY=1/ && ++k == n { print $1; exit }' "$NOTIFY_LOG")
		[ -n "$t" ] && echo "$t" && return 0
		sleep 0.1
	done
	return 1
}

# ---- the configs ------------------------------------------------------------

# gen_cpes DIR N A: A active CPEs a01.. (a01: the testbed's site,
# 10.0.1.0/24; aK: 10.0.(100+K).0/24; session K), N-A idle ones g00001..
# (session 100000+i, a /30 of 100.64.0.0/10, every tenth an IPv6 /64 of
# fd00:bb::/32 too), a fresh random key each; the active ones' keys in
# DIR/../keys
gen_cpes() {
	python3 - "$1" "$2" "$3" <<-'EOF'
		import base64, ipaddress, os, sys
		d, n, a = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
		os.makedirs(d, exist_ok=True)
		keys = open(os.path.join(d, "..", "keys"), "w")
		def put(name, sid, prefixes):
		    key = base64.b64encode(os.urandom(32)).decode()
		    p = os.path.join(d, name + ".conf")
		    with open(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
		        f.write('session_id = %d;\nkey = "%s";\nprefixes = [ %s ];\n'
		                % (sid, key, ", ".join('"%s"' % x for x in prefixes)))
		    return key
		for k in range(1, a + 1):
		    pfx = "10.0.1.0/24" if k == 1 else "10.0.%d.0/24" % (100 + k)
		    keys.write("%d %s\n" % (k, put("a%02d" % k, k, [pfx])))
		base = int(ipaddress.IPv4Address("100.64.0.0"))
		for i in range(1, n - a + 1):
		    pf = ["%s/30" % ipaddress.IPv4Address(base + 4 * i)]
		    if i % 10 == 0:
		        pf.append("fd00:bb:%x::/64" % i)
		    put("g%05d" % i, 100000 + i, pf)
	EOF
}

conc_conf() {
	cat <<-EOF
		role = "concentrator";
		port = 7040;
		workers = 1;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl"; },
			{ name = "lte"; class = "mobile"; interface = "lte"; }
		);
		cpe_dir = "$1";
	EOF
}

# ---- the active CPEs beyond the testbed's own -------------------------------

# site_add K: namespace cpeK, one link into dsl (10.13.K.0/24) and one
# into lte (10.23.K.0/24, behind the carrier NAT), a LAN (a veth pair:
# no dummy module everywhere) with no host behind it
site_add() {
	local k=$1 b=cpe$1
	tb_netns_add "$(tb_ns "$b")"
	tb__sysctl "$b" net.ipv4.conf.all.rp_filter=2 \
		net.ipv4.conf.default.rp_filter=2 net.ipv4.ip_forward=1
	tb__veth "$b" dsl dsl "c$k"
	tb__veth "$b" lte lte "c$k"
	tb_exec "$b" ip link add lan type veth peer name lan-peer
	tb_exec "$b" ip link set lan up
	tb_exec "$b" ip link set lan-peer up
	tb__addr "$b" lan "10.0.$((100 + k)).1"
	tb__addr "$b" dsl "10.13.$k.1"
	tb__addr dsl "c$k" "10.13.$k.2"
	tb__addr "$b" lte "10.23.$k.1"
	tb__addr lte "c$k" "10.23.$k.2"
	tb_exec "$b" ip route add default via "10.13.$k.2" dev dsl
	tb_exec "$b" ip route add 10.12.0.0/24 via "10.13.$k.2" dev dsl
	tb_exec "$b" ip route add 10.22.0.0/24 via "10.23.$k.2" dev lte
	tb_exec "$b" ip route add default via "10.13.$k.2" dev dsl table $TB_DSL_MARK
	tb_exec "$b" ip route add default via "10.23.$k.2" dev lte table $TB_LTE_MARK
	tb_exec "$b" ip rule add fwmark $TB_DSL_MARK table $TB_DSL_MARK
	tb_exec "$b" ip rule add fwmark $TB_LTE_MARK table $TB_LTE_MARK
}

# the daemon's memory (kB): vm_kb PID VmRSS|VmHWM
vm_kb() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

# conc_start CONF: the concentrator started (DPID[conc]), exec to READY=1
# in START_MS; false if it never got ready.  No --status-file: the status
# of N CPEs is some 6 kB each, written every second (a test facility, not
# a unit's); its figures come from its log, the CPEs' from theirs.
READY_N=0
conc_start() {
	local t0 t
	cp "$1" "$TB_DIR/conc.conf"
	t0=$(now_ms)
	tb_bg conc "$TB_DIR/conc.log" env NOTIFY_SOCKET="$NOTIFY_SOCKET" \
		"$L3BONDD" -c "$TB_DIR/conc.conf" \
		--control-socket "$(ctl_socket conc)"
	DPID[conc]=$TB_LAST_PID
	READY_N=$((READY_N + 1))
	t=$(notify_wait $READY_N) || return 1
	START_MS=$((t - t0))
}

# log_ms PATTERN: the number after PATTERN in the concentrator's last log
# line holding it ("ready in N ms")
log_ms() {
	sed -n "s/.*$1 \([0-9]*\) ms.*/\1/p" "$TB_DIR/conc.log" | tail -1
}

conc_stop() {
	kill -TERM "${DPID[conc]}"
	tb_wait "${DPID[conc]}" 30 || true
	unset 'DPID[conc]'
}

# ---- run ----------------------------------------------------------------------

tb_init
tb_setup seed=5 dsl_qlat=200 lte_qlat=200
for ((k = 2; k <= A; k++)); do
	site_add "$k"
done
tb_exec conc ip route add 10.13.0.0/16 via "$TB_DSL_CONC_IP" dev dsl
notify_start
echo "generating $N CPEs ($A active) ..."
gen_cpes "$TB_DIR/cpes.d" "$N" "$A"
mkdir -p "$TB_DIR/empty.d"
conc_conf "$TB_DIR/empty.d" >"$TB_DIR/conc0.conf"
conc_conf "$TB_DIR/cpes.d" >"$TB_DIR/concN.conf"
chmod 600 "$TB_DIR"/*.conf

# 0 CPEs: the baseline
if ! conc_start "$TB_DIR/conc0.conf"; then
	bad "concentrator with 0 CPEs not ready"
	tb_abort
fi
sleep 2
rss0=$(vm_kb "${DPID[conc]}" VmRSS)
hwm0=$(vm_kb "${DPID[conc]}" VmHWM)
start0=$START_MS
conc_stop

# N CPEs
if ! conc_start "$TB_DIR/concN.conf"; then
	bad "concentrator with $N CPEs not ready"
	cat "$TB_DIR/conc.log"
	tb_abort
fi
startN=$START_MS
start_msN=$(log_ms 'ready in')
check "concentrator: $N CPEs configured" 'n == 1' \
	"n=$(cnt "role concentrator, $N CPEs" <"$TB_DIR/conc.log")"
check "capture set: every configured IPv4 prefix in it" 'n == want' \
	"n=$(tb_exec conc ipset list l3b_q0_v4 | awk '/^Number of entries:/ { print $4 }')" \
	"want=$N"

while read -r k key; do
	b=cpe$k
	[ "$k" = 1 ] && b=cpe
	cpe_conf_text "$k" "$key" >"$TB_DIR/$b.conf"
	chmod 600 "$TB_DIR/$b.conf"
	daemon_start "$b"
done <"$TB_DIR/keys"
# each active CPE's session up, both paths (its own status: a session
# is up only with the concentrator's HELLO_ACK)
up=0
for ((i = 0; i < 100; i++)); do
	up=0
	while read -r k _; do
		b=cpe$k
		[ "$k" = 1 ] && b=cpe
		[ -e "$(status_file "$b")" ] || continue
		refresh "$b"
		if [ "$(st "$b" session_state)" = up ] &&
			[ "$(st "$b" path.dsl.up)" = 1 ] &&
			[ "$(st "$b" path.lte.up)" = 1 ]; then
			up=$((up + 1))
		fi
	done <"$TB_DIR/keys"
	[ "$up" -ge "$A" ] && break
	sleep 0.2
done
check "every active CPE got its session, both paths up ($A)" 'up == a' \
	"up=$up" "a=$A"
sleep 1
rssN=$(vm_kb "${DPID[conc]}" VmRSS)
hwmN=$(vm_kb "${DPID[conc]}" VmHWM)
# the concentrator's CPU over 5 s with only the active CPEs' probes and
# reports (no traffic): what its N sessions cost at rest
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}
c0=$(cpu_ticks "${DPID[conc]}")
sleep 5
idle_cpu=$(awk -v a="$c0" -v b="$(cpu_ticks "${DPID[conc]}")" \
	-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz / 5 * 100 }')

# the flow across a reload with one file changed
refresh cpe
counters_mark cpe r handshakes rekeys egr.peer_restarts
rx_start() {
	rm -f "$TB_DIR/$3.ready"
	tb_bg "$1" "$TB_DIR/$3.rx.log" "$TB_TRAFFIC" recv --port "$2" \
		--duration 12 --linger-ms 500 --json "$TB_DIR/$3.rx.json" \
		--ready-file "$TB_DIR/$3.ready"
	RXPID=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$3.ready"
}
rx_start cli 5000 hup
tb_bg srv "$TB_DIR/hup.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --rate 4 --size 1000 --duration 6 --json "$TB_DIR/hup.tx.json"
TXPID=$TB_LAST_PID
sleep 2
victim=$TB_DIR/cpes.d/g$(printf '%05d' $(((N - A) / 2))).conf
sed -i "s|^key = .*|key = \"$(head -c32 /dev/urandom | base64)\";|" "$victim"
t0=$(now_ms)
kill -HUP "${DPID[conc]}"
READY_N=$((READY_N + 1))
t=$(notify_wait $READY_N) || t=
reload_ext=$((${t:-0} - t0))
tb_wait "$TXPID" 30 || true
tb_wait "$RXPID" 30 || true
refresh cpe
f=$TB_DIR/hup.rx.json
check "the reload applied: one CPE with a new key, none added or removed" \
	'r == 1 && k == 1 && a == 1' \
	"r=$(cnt 'reload done in' <"$TB_DIR/conc.log")" \
	"k=$(cnt 'key or encrypt changed: new session' <"$TB_DIR/conc.log")" \
	"a=$(cnt "sessions: 0 added, 0 removed, 1 with new keys, $N in all" <"$TB_DIR/conc.log")"
check "flow srv -> cli (a01) across the reload: nothing lost" \
	'expected > 0 && unique == expected' "unique=$(jget "$f" unique)" \
	"expected=$(jget "$f" expected)"
check "a01's session untouched by the reload (its CPE: no handshake, rekey, restart)" \
	'h == 0 && r == 0 && p == 0' "h=$(counters_delta cpe r handshakes)" \
	"r=$(counters_delta cpe r rekeys)" \
	"p=$(counters_delta cpe r egr.peer_restarts)"

# what l3bondctl gets of N CPEs' status (the control socket caps a reply)
ctl_rc=0
"$build/gateway/l3bondctl" -s "$(ctl_socket conc)" status --json \
	>"$TB_DIR/ctl.json" 2>"$TB_DIR/ctl.err" || ctl_rc=$?
ctl_bytes=$(wc -c <"$TB_DIR/ctl.json")
# ... and what an operator asks for there: one CPE, or the totals (bytes,
# ms: the daemon renders them in its event loop)
ctl_part() { # NAME ARGS...: "BYTES bytes in MS ms, exit RC"
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s%N)
	"$build/gateway/l3bondctl" -s "$(ctl_socket conc)" status --json "$@" \
		>"$TB_DIR/ctl-$name.json" 2>&1 || rc=$?
	echo "$(wc -c <"$TB_DIR/ctl-$name.json") bytes in" \
		"$((($(date +%s%N) - t0) / 1000000)) ms, exit $rc"
}
ctl_one=$(ctl_part one --cpe a01)
ctl_tot=$(ctl_part totals --totals)
check "l3bondctl status --cpe a01 shows a01's session up, --totals the queues' counters" \
	's == "up" && n == 1 && p > 0' \
	"s=$(jq -r '.sessions[0].session_state // "none"' "$TB_DIR/ctl-one.json" 2>/dev/null || echo bad)" \
	"n=$(jq -r '.sessions | length' "$TB_DIR/ctl-one.json" 2>/dev/null || echo 0)" \
	"p=$(jq -r 'select(.sessions == null) | .ingress.pkts // 0' "$TB_DIR/ctl-totals.json" 2>/dev/null || echo 0)"
per_cpe=$(((rssN - rss0) * 1024 / N))
cat <<EOF

  concentrator, $N configured CPEs ($A active, the others silent):
    VmRSS  0 CPEs: $rss0 kB   $N CPEs: $rssN kB
    VmHWM  0 CPEs: $hwm0 kB   $N CPEs: $hwmN kB
    per configured CPE: $per_cpe bytes (VmRSS difference / $N)
    CPU at rest (the active CPEs' probes and reports, no traffic): $idle_cpu % of a core
    start-up, exec to READY=1: 0 CPEs $start0 ms, $N CPEs $startN ms (start_ms $start_msN)
    SIGHUP, one file changed: signal to READY=1 $reload_ext ms (reload_ms $(log_ms 'reload done in'))
    l3bondctl status --json: $ctl_bytes bytes, exit $ctl_rc $(head -c 120 "$TB_DIR/ctl.err")
    l3bondctl status --json --cpe a01: $ctl_one; --totals: $ctl_tot
    flow srv -> cli (a01, 4 Mbit/s) across it: lost $(jget "$f" lost) of $(jget "$f" expected), reordered $(jget "$f" reordered), p99 delay $(jget "$f" delay_p99_ms) ms
EOF
tb_done
