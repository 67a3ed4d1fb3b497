#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end test of l3bondd's control socket and of l3bondctl, on the
# testbed of lib.sh with a CPE and a concentrator daemon:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                  |                NAT              |
#              cpe.sock                          conc.sock   (l3bondctl -s)
#
# The cpe's socket belongs to the group of uid 65534 (control_group), the
# concentrator's to no group (the default "l3bond" does not exist here:
# root only).  Checks, each asserting what it claims:
#   - sockets: modes 0660 root:group and 0600, the warning about the
#     missing group;
#   - status: the table lists both paths; the table, the JSON and the
#     metrics give the daemon's version, CMakeLists.txt's; status --json
#     parses, and its counters agree with l3b-traffic's figures for a UDP
#     flow each way (receiver's packets <= released by the receiving daemon's egress,
#     and >= 99 % of it; tx_pkts over the paths of the sending daemon ==
#     ing bonded); srtt_us > 0 on the CPE's paths (only the CPE probes);
#   - set k 0.7 shows in the table, the JSON and the status file; bad sets
#     (k -1, k abc, t_dwd_ms 275, port 1, nosuch 1) exit 1 naming the key
#     (and the value, where conf_set names it) and change nothing; reload
#     brings the file's k back; a bad file: reload exits 1 with
#     file:line: key, the daemon runs on with its old values;
#   - l3bondctl metrics prints the exposition of the same data;
#   - exit codes: wrong socket path 3, a listener that never answers 3
#     after 5 s, usage errors 2; L3BOND_SOCKET, -s wins;
#   - who may connect: uid 65534 without the group: EACCES at connect on
#     both (exit 3); with the group as primary or supplementary group:
#     allowed; the socket opened to all (0666): the daemon itself refuses
#     by SO_PEERCRED ("permission denied", exit 3);
#   - robustness: 16 silent connections fill the slots: the 17th client is
#     told "too many connections" (exit 3), the silent ones are closed
#     after 2 s and status answers again; 20 parallel clients and a silent
#     one during a 20 Mbit/s flow: the flow arrives intact, status answers
#     in well under a second; requests over 256 bytes, unknown, empty
#     and malformed requests (status json, set with one or three words,
#     control bytes not echoed) are answered with an error; status is
#     data: the versioned format of gateway/facts.h;
#   - a second l3bondd on the concentrator's socket path (in a namespace
#     of its own) fails with "another l3bondd listens on PATH" and leaves
#     the first one running and reachable; a stale socket file is
#     replaced, a missing directory created, a regular file refused;
#   - SIGTERM removes the socket.
#
# usage: test_ctl.sh [BUILD_DIR]   (l3bondd and l3bondctl in
# BUILD_DIR/gateway, the tools in BUILD_DIR/tests/tools unless
# L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces)"
	exit 77
fi
for tool in ip tc iptables awk setpriv getent stat; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not installed"
		exit 77
	fi
done
for bin in "$L3BONDD" "$L3BONDCTL"; do
	if [ ! -x "$bin" ]; then
		echo "FAIL: no $bin"
		exit 1
	fi
done
# python3 (scripts/deps.sh installs it) parses the JSON and holds silent
# connections; without it the checks would vanish, so the test fails
if ! command -v python3 >/dev/null; then
	echo "FAIL: python3 missing (scripts/deps.sh installs it)"
	exit 1
fi

# shellcheck source=lib.sh
source "$here/lib.sh"

# shellcheck source=daemon_lib.sh
source "$here/daemon_lib.sh"

# ctl BOX ARGS...: l3bondctl on BOX's socket; stdout in $TB_DIR/out,
# stderr in $TB_DIR/err, exit code in rc.  As SETPRIV (an array of
# setpriv options) when that is set.
rc=0
SETPRIV=()
ctl() {
	local box=$1
	shift
	rc=0
	if [ -n "${SETPRIV[*]:-}" ]; then
		setpriv "${SETPRIV[@]}" "$L3BONDCTL" -s "$(ctl_socket "$box")" "$@" \
			>"$TB_DIR/out" 2>"$TB_DIR/err" || rc=$?
	else
		"$L3BONDCTL" -s "$(ctl_socket "$box")" "$@" \
			>"$TB_DIR/out" 2>"$TB_DIR/err" || rc=$?
	fi
}

# jx FILE EXPR: a value of a status --json file; in EXPR, d is the
# document, s its (one) session and p that session's paths.
jx() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["sessions"][0]
p = s["paths"]
print(eval(sys.argv[2]))' "$1" "$2"
}

# snap BOX NAME: status --json of BOX into $TB_DIR/NAME.json
snap() {
	ctl "$1" status --json
	cp "$TB_DIR/out" "$TB_DIR/$2.json"
}

tb_init
# other users must reach the sockets in here (permission checks)
chmod 711 "$TB_DIR"
grp=$(getent group 65534 | cut -d: -f1)
write_confs 0.5
echo "control_group = \"$grp\";" >>"$TB_DIR/cpe.conf"
# shellcheck disable=SC2119 # the testbed's defaults
tb_setup
ok "testbed up"

daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up on each"
else
	bad "paths not up"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi

# ---- 1. the sockets' owners and modes ------------------------------------------

check "cpe socket: 0660 root:$grp" 'm == "660 0 65534 socket"' \
	"m=$(stat -c '%a %u %g %F' "$(ctl_socket cpe)")"
if [ -z "$(getent group l3bond)" ]; then
	check "conc socket (no group l3bond): 0600 root, warning logged" \
		'm == "600 0 socket" && w == 1' \
		"m=$(stat -c '%a %u %F' "$(ctl_socket conc)")" \
		"w=$(cnt "group 'l3bond' does not exist" <"$TB_DIR/conc.log")"
fi

# ---- 2. status, JSON, against the traffic ----------------------------------------

ctl cpe status
check "status: exit 0, a row for each path, up" \
	'rc == 0 && d == 1 && l == 1 && h == 1' "rc=$rc" \
	"d=$(grep -cE '^dsl +fixed +up +10\.12\.0\.1:7040 ' "$TB_DIR/out")" \
	"l=$(grep -cE '^lte +mobile +up +10\.22\.0\.1:7040 ' "$TB_DIR/out")" \
	"h=$(grep -cE '^path +class +state +peer' "$TB_DIR/out")"
cp "$TB_DIR/out" "$TB_DIR/table.txt"
# the version from its one source, CMakeLists.txt, not from this script
VERSION=$(sed -n 's/^project(l3bond VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt")
check "status: the daemon's version line is CMakeLists.txt's ($VERSION)" \
	'v != "" && n == 1' "v=$VERSION" \
	"n=$(grep -cxF "version   $VERSION" "$TB_DIR/table.txt" || true)"

# flow FROM TO DST NAME SENDER RECEIVER: a UDP flow, JSON status of both
# daemons before and after; checks the daemons' counters against it
flow() {
	local from=$1 to=$2 dst=$3 name=$4 tx=$5 rx=$6 recv rel
	snap "$rx" "$name.rx0"
	UDP_DURATION=3 udp "$from" "$to" "$dst" "$name" --rate 10 --size 1000
	snap "$tx" "$name.tx1"
	snap "$rx" "$name.rx1"
	recv=$(jget "$TB_DIR/$name.rx.json" received)
	rel=$(($(jx "$TB_DIR/$name.rx1.json" "s['egress']['released']") -
		$(jx "$TB_DIR/$name.rx0.json" "s['egress']['released']")))
	check "$name: $to received <= released by $rx's egress, >= 99 % of it" \
		'r > 0 && r <= e && r >= 0.99 * e' "r=$recv" "e=$rel"
	check "$name: $tx's paths sent what its ingress bonded (tx_pkts + tx_errors)" \
		'b > 0 && t == b' \
		"b=$(jx "$TB_DIR/$name.tx1.json" "s['ingress']['bonded']")" \
		"t=$(jx "$TB_DIR/$name.tx1.json" "sum(x['tx_pkts'] + x['tx_errors'] for x in p)")"
	echo "  $name: received $recv, released $rel"
}
flow cli srv "$TB_SRV_IP" up cpe conc
flow srv cli "$TB_CLI_IP" down conc cpe

for box in cpe conc; do
	f=$TB_DIR/down.tx1.json
	[ "$box" = cpe ] && f=$TB_DIR/up.tx1.json
	check "$box: status --json parses: role, 2 paths named dsl and lte" \
		'r == 1' "r=$(jx "$f" "int(d['role'] in ('cpe', 'concentrator') and [x['name'] for x in p] == ['dsl', 'lte'])")"
	check "$box: status --json: version is CMakeLists.txt's ($VERSION)" \
		'v == 1' "v=$(jx "$f" "int(d['version'] == '$VERSION')")"
	echo "  $box: srtt/rttvar dsl $(jx "$f" "p[0]['srtt_us']")/$(jx "$f" "p[0]['rttvar_us']") us, lte $(jx "$f" "p[1]['srtt_us']")/$(jx "$f" "p[1]['rttvar_us']") us"
done
# Both ends probe every path (the CPE to keep the carrier's NAT open, the
# concentrator once it has learnt the path): both measure round trips,
# and the table shows them in ms.
for box in cpe conc; do
	f=$TB_DIR/down.tx1.json
	[ "$box" = cpe ] && f=$TB_DIR/up.tx1.json
	check "$box: srtt_us > 0 on both paths" 'a > 0 && b > 0' \
		"a=$(jx "$f" "p[0]['srtt_us']")" "b=$(jx "$f" "p[1]['srtt_us']")"
done
ctl conc status
check "conc: the table shows the round trips in ms" 't == 2' \
	"t=$(grep -cE '^(dsl|lte) +(fixed|mobile) +up +[0-9.:]+ +[0-9]+\.[0-9]' "$TB_DIR/out" || true)"
# the queues' own counters (wire: before any session is known) at the top,
# a session's in the session (ctrl by type, auth by reason)
check "JSON: labelled counters as objects (queue wire by reason, session ctrl by type and auth by reason)" \
	'w == 1 && c == 1 && a == 1' \
	"w=$(jx "$TB_DIR/up.tx1.json" "int(isinstance(d['egress']['wire']['short'], int))")" \
	"c=$(jx "$TB_DIR/up.tx1.json" "int(s['egress']['ctrl']['report'] > 0)")" \
	"a=$(jx "$TB_DIR/up.tx1.json" "int(isinstance(s['egress']['auth']['bad_tag'], int))")"

# ---- 3. set, reload ------------------------------------------------------------

ctl cpe set k 0.7
setrc=$rc
ctl cpe status
tbl=$(grep -c '^tunables .*k 0\.7 ' "$TB_DIR/out" || true)
snap cpe setk
refresh cpe
check "set k 0.7: exit 0; table, JSON and status file show 0.7" \
	'rc == 0 && t == 1 && j == 0.7 && f == 0.7' "rc=$setrc" "t=$tbl" \
	"j=$(jx "$TB_DIR/setk.json" "s['k']")" "f=$(st cpe k)"

badset() {
	local key=$1 val=$2 named_val=$3 kv
	ctl cpe set "$key" "$val"
	kv=$(cnt "$key" <"$TB_DIR/err")
	if [ "$named_val" = 1 ]; then
		kv=$(grep -cF -- "$key: bad value '$val'" "$TB_DIR/err" || true)
	fi
	check "set $key $val: exit 1, message names it ($(head -c 150 "$TB_DIR/err"))" \
		'rc == 1 && n >= 1 && p == 1' "rc=$rc" "n=$kv" \
		"p=$(cnt 'l3bondctl: ' <"$TB_DIR/err")"
}
badset k -1 1
badset k abc 1
badset t_dwd_ms 275 1
badset port 1 0
badset nosuch 1 0
snap cpe afterbad
check "bad sets changed nothing (k 0.7, t_dwd_ms 250)" 'k == 0.7 && t == 250' \
	"k=$(jx "$TB_DIR/afterbad.json" "s['k']")" \
	"t=$(jx "$TB_DIR/afterbad.json" "s['t_dwd_ms']")"

ctl cpe reload
rrc=$rc
snap cpe reload
check "reload: exit 0, k back to the file's 0.5 (set was runtime only)" \
	'rc == 0 && k == 0.5' "rc=$rrc" "k=$(jx "$TB_DIR/reload.json" "s['k']")"

cp "$TB_DIR/cpe.conf" "$TB_DIR/cpe.conf.good"
sed -i 's/^k = 0.5;/k = 11;/' "$TB_DIR/cpe.conf"
ctl cpe set k 0.6
ctl cpe reload
kline=$(grep -n '^k = 11;' "$TB_DIR/cpe.conf" | cut -d: -f1)
check "bad file: reload exits 1 with file:line: key: value" 'rc == 1 && m == 1' \
	"rc=$rc" "m=$(cnt "cpe.conf:$kline: k: bad value '11'" <"$TB_DIR/err")"
ctl cpe status --json
check "bad file: the daemon runs on with its values (k 0.6)" \
	'alive == 1 && rc == 0 && k == 0.6' \
	"alive=$(kill -0 "${DPID[cpe]}" 2>/dev/null && echo 1 || echo 0)" \
	"rc=$rc" "k=$(jx "$TB_DIR/out" "s['k']")"
cp "$TB_DIR/cpe.conf.good" "$TB_DIR/cpe.conf"
ctl cpe reload

ctl cpe help
check "help: exit 0, says set is runtime only" 'rc == 0 && n == 1' "rc=$rc" \
	"n=$(grep -c 'a reload or a restart reads the file again' "$TB_DIR/out" || true)"

ctl cpe metrics
check "metrics: exit 0, the exposition (role, k of the session, dsl up, build_info of CMakeLists.txt's version)" \
	'rc == 0 && r == 1 && k == 1 && u == 1 && b == 1' "rc=$rc" \
	"b=$(grep -cxF "l3bond_build_info{version=\"$VERSION\"} 1" "$TB_DIR/out" || true)" \
	"r=$(grep -c '^l3bond_role_info{role=\"cpe\"} 1$' "$TB_DIR/out" || true)" \
	"k=$(grep -c '^l3bond_k{session=\"4242\"} 0.5$' "$TB_DIR/out" || true)" \
	"u=$(grep -c '^l3bond_path_up{session=\"4242\",path=\"dsl\"} 1$' "$TB_DIR/out" || true)"

# ---- 4. exit codes ---------------------------------------------------------------

rc=0
"$L3BONDCTL" -s "$TB_DIR/nosuch.sock" status >/dev/null 2>"$TB_DIR/err" || rc=$?
check "wrong socket path: exit 3, path and errno text" 'rc == 3 && m == 1' \
	"rc=$rc" "m=$(cnt "$TB_DIR/nosuch.sock: No such file or directory" <"$TB_DIR/err")"
# a listener that never answers: l3bondctl gives up after 5 s
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4); open(sys.argv[1] + ".up", "w").close()
time.sleep(9)' "$TB_DIR/mute.sock" &
mpid=$!
for ((i = 0; i < 100; i++)); do
	[ -e "$TB_DIR/mute.sock.up" ] && break
	sleep 0.02
done
rc=0
t0=$(date +%s%N)
"$L3BONDCTL" -s "$TB_DIR/mute.sock" status >/dev/null 2>"$TB_DIR/err" || rc=$?
t1=$(date +%s%N)
check "a daemon that does not answer: exit 3 after 5 s, says so" \
	'rc == 3 && m == 1 && ms >= 4900 && ms < 7000' "rc=$rc" \
	"m=$(cnt "no reply from $TB_DIR/mute.sock within 5 s" <"$TB_DIR/err")" \
	"ms=$(((t1 - t0) / 1000000))"
kill "$mpid" 2>/dev/null || true
wait "$mpid" 2>/dev/null || true
rc=0
L3BOND_SOCKET=$(ctl_socket conc) "$L3BONDCTL" status >/dev/null 2>&1 || rc=$?
check "L3BOND_SOCKET is honoured" 'rc == 0' "rc=$rc"
rc=0
L3BOND_SOCKET=$TB_DIR/nosuch.sock "$L3BONDCTL" -s "$(ctl_socket conc)" \
	status >/dev/null 2>&1 || rc=$?
check "-s wins over L3BOND_SOCKET" 'rc == 0' "rc=$rc"
nusage=0
for args in "" "status --bogus" "status --json x" "set k" "set k 1 2" \
	"reload now" "frobnicate" "-x status" "metrics --json"; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	"$L3BONDCTL" -s "$(ctl_socket cpe)" $args >/dev/null 2>&1 || rc=$?
	if [ "$rc" = 2 ]; then
		nusage=$((nusage + 1))
	else
		echo "  usage error '$args': exit $rc"
	fi
done
check "usage errors exit 2 (9 cases)" 'n == 9' "n=$nusage"
rc=0
"$L3BONDCTL" --help >"$TB_DIR/out" 2>&1 || rc=$?
check "--help: exit 0, usage on stdout" 'rc == 0 && n >= 1' "rc=$rc" \
	"n=$(cnt 'usage: l3bondctl' <"$TB_DIR/out")"

# ---- 5. who may connect ------------------------------------------------------------

SETPRIV=(--reuid 65534 --regid 65534 --clear-groups)
ctl conc status
check "uid 65534 on the root-only socket: exit 3, Permission denied" \
	'rc == 3 && m == 1' "rc=$rc" "m=$(cnt 'Permission denied' <"$TB_DIR/err")"
ctl cpe status
check "uid 65534 with the control group as primary group: allowed" \
	'rc == 0 && n == 1' "rc=$rc" "n=$(grep -c '^dsl ' "$TB_DIR/out" || true)"
SETPRIV=(--reuid 65534 --regid 100 --groups 65534)
ctl cpe status
check "uid 65534 with the control group as supplementary group: allowed" \
	'rc == 0' "rc=$rc"
SETPRIV=(--reuid 65534 --regid 100 --clear-groups)
ctl cpe status
check "uid 65534 not in the group: exit 3, Permission denied at connect" \
	'rc == 3 && m == 1' "rc=$rc" "m=$(cnt 'Permission denied' <"$TB_DIR/err")"
# opened to everyone, the daemon's own check must refuse
chmod 0666 "$(ctl_socket cpe)"
ctl cpe set k 0.9
check "socket opened to all: the daemon refuses by SO_PEERCRED (exit 3)" \
	'rc == 3 && m == 1' "rc=$rc" "m=$(cnt 'permission denied' <"$TB_DIR/err")"
chmod 0660 "$(ctl_socket cpe)"
SETPRIV=()
ctl cpe status --json
check "... and k was not changed" 'k == 0.5' "k=$(jx "$TB_DIR/out" "s['k']")"

# ---- 6. robustness -------------------------------------------------------------------

# hold N [SECS] [DATA]: N connections to conc's socket that send DATA (or
# nothing), then wait for the daemon to close each; prints, per
# connection, seconds until closed and what it said, one per line.
hold() {
	python3 - "$(ctl_socket conc)" "$@" <<-'EOF'
		import socket, sys, time
		path, n = sys.argv[1], int(sys.argv[2])
		secs = float(sys.argv[3]) if len(sys.argv) > 3 else 6
		data = sys.argv[4].encode() if len(sys.argv) > 4 else b""
		t0 = time.time()
		socks = []
		for i in range(n):
		    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		    s.connect(path)
		    if data:
		        s.sendall(data)
		    socks.append(s)
		open(path + ".held", "w").close()
		for s in socks:
		    s.settimeout(max(0.1, secs - (time.time() - t0)))
		    got = b""
		    try:
		        while True:
		            b = s.recv(4096)
		            if not b:
		                break
		            got += b
		        print("%.2f %s" % (time.time() - t0, got.decode().split("\n")[0]))
		    except socket.timeout:
		        print("open")
		    except ConnectionResetError:
		        print("%.2f %s" % (time.time() - t0, got.decode().split("\n")[0]))
	EOF
}

# wait_held: the holders are connected
wait_held() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -e "$(ctl_socket conc).held" ] && break
		sleep 0.02
	done
	rm -f "$(ctl_socket conc).held"
}

rm -f "$(ctl_socket conc).held"
hold 16 >"$TB_DIR/hold16.txt" &
hpid=$!
wait_held
sleep 0.2
ctl conc status
check "16 silent connections: the 17th client is told too many (exit 3)" \
	'rc == 3 && m == 1' "rc=$rc" "m=$(cnt 'too many connections' <"$TB_DIR/err")"
wait "$hpid" || true
check "the 16 silent connections were closed after 2 s with an error" \
	'n == 16 && lo >= 1.9 && hi < 3.5' \
	"n=$(grep -c 'error: no request within 2 s' "$TB_DIR/hold16.txt" || true)" \
	"lo=$(sort -n "$TB_DIR/hold16.txt" | awk 'NR == 1 { print $1 }')" \
	"hi=$(sort -n "$TB_DIR/hold16.txt" | awk 'END { print $1 }')"
echo "  silent connections closed after $(sort -n "$TB_DIR/hold16.txt" | awk 'NR == 1 { a = $1 } END { print a " to " $1 }') s"
ctl conc status
check "then status answers again" 'rc == 0' "rc=$rc"

long=$(head -c 300 /dev/zero | tr '\0' 'x')
hold 1 3 "$long" >"$TB_DIR/long.txt"
check "a request over 256 bytes: error, closed" 'n == 1' \
	"n=$(cnt 'error: request longer than 255 bytes' <"$TB_DIR/long.txt")"
hold 1 3 $'frobnicate\n' >"$TB_DIR/unk.txt"
check "an unknown request: error" 'n == 1' \
	"n=$(cnt "error: unknown request 'frobnicate'" <"$TB_DIR/unk.txt")"
# raw requests as l3bondctl never sends them: the daemon's own answers
# rawreq WHAT REQUEST WANT: the first line of the reply is WANT
rawreq() {
	hold 1 3 "$2" >"$TB_DIR/raw.txt"
	check "$1: '$3'" 'n == 1' "n=$(cnt "$3" <"$TB_DIR/raw.txt")"
}
rawreq "an empty request" $'\n' "error: empty request (try help)"
rawreq "status json (the daemon renders no JSON)" $'status json\n' \
	"error: status: wrong arguments (try help)"
rawreq "set with one word" $'set k\n' "error: set: wrong arguments (try help)"
rawreq "set with three words" $'set k 1 2\n' "error: set: wrong arguments (try help)"
rawreq "control bytes are not echoed" $'fr\x01ob\x1b[2J\n' \
	"error: unknown request 'fr?ob?[2J' (try help)"
rawreq "set of a key that needs a restart" $'set port 1\n' \
	"error: port: not a runtime setting"
hold 1 3 $'status\n' >"$TB_DIR/raw.txt"
check "status: data, not a table: 'ok' then the versioned format (facts.h)" 'n == 1' \
	"n=$(cnt "ok" <"$TB_DIR/raw.txt")"
python3 - "$(ctl_socket conc)" >"$TB_DIR/raw.txt" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.connect(sys.argv[1])
	s.sendall(b"status\n")
	r = b""
	while True:
	    b = s.recv(65536)
	    if not b:
	        break
	    r += b
	print(r.decode().split("\n")[1].split("\t")[0])
	print(sum(1 for l in r.decode().split("\n") if l.startswith("v\t")))
EOF
refresh conc
check "status data: 'l3bond-status 1' header, a value line per line of the status file" \
	'h == "l3bond-status 1" && n > 100 && n == f' "h=$(head -n 1 "$TB_DIR/raw.txt")" \
	"n=$(sed -n 2p "$TB_DIR/raw.txt")" "f=$(wc -l <"$(status_file conc)")"

# 20 parallel clients and a silent one while 20 Mbit/s flow down
rm -f "$TB_DIR/busy.ready" "$(ctl_socket conc).held"
tb_bg cli "$TB_DIR/busy.rx.log" "$TB_TRAFFIC" recv --port 5000 \
	--duration 12 --linger-ms 500 --json "$TB_DIR/busy.rx.json" \
	--ready-file "$TB_DIR/busy.ready"
brx=$TB_LAST_PID
for ((i = 0; i < 100; i++)); do
	[ -e "$TB_DIR/busy.ready" ] && break
	sleep 0.02
done
tb_bg srv "$TB_DIR/busy.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
	--port 5000 --rate 20 --size 1400 --duration 5
btx=$TB_LAST_PID
sleep 1
hold 1 >"$TB_DIR/silent.txt" &
hpid=$!
wait_held
okc=0
busyc=0
for round in 1 2 3; do
	pids=()
	for ((i = 0; i < 20; i++)); do
		"$L3BONDCTL" -s "$(ctl_socket conc)" status --json \
			>"$TB_DIR/par.$i.out" 2>"$TB_DIR/par.$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		prc=0
		wait "${pids[$i]}" || prc=$?
		if [ "$prc" = 0 ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
			"$TB_DIR/par.$i.out" 2>/dev/null; then
			okc=$((okc + 1))
		elif [ "$prc" = 3 ] && grep -q 'too many connections' "$TB_DIR/par.$i.err"; then
			busyc=$((busyc + 1))
		else
			echo "  parallel client $i (round $round): exit $prc: $(cat "$TB_DIR/par.$i.err")"
		fi
	done
	t0=$(date +%s%N)
	ctl conc status
	t1=$(date +%s%N)
	check "round $round: 20 parallel clients and a silent one, then status answers in < 1 s" \
		'rc == 0 && ms < 1000' "rc=$rc" "ms=$(((t1 - t0) / 1000000))"
	echo "  round $round: status answered in $(((t1 - t0) / 1000000)) ms"
done
check "parallel clients: every one got valid JSON or 'too many connections'; most got JSON" \
	'ok + busy == 60 && ok >= 30' "ok=$okc" "busy=$busyc"
tb_wait "$btx" 20 || true
tb_wait "$brx" 20 || true
wait "$hpid" || true
f=$TB_DIR/busy.rx.json
check "the flow went on meanwhile: 20 Mbit/s down intact, loss < 1 %" \
	'u > 0 && u >= 0.99 * e && c == 0 && dup == 0' \
	"u=$(jget "$f" unique)" "e=$(jget "$f" expected)" \
	"c=$(jget "$f" corrupted)" "dup=$(jget "$f" duplicates)"
echo "  busy flow: $(jget "$f" unique) of $(jget "$f" expected), delay p99 $(jget "$f" delay_p99_ms) ms; parallel: $okc ok, $busyc busy"
check "the silent connection was closed after 2 s" 'n == 1' \
	"n=$(cnt 'error: no request within 2 s' <"$TB_DIR/silent.txt")"

# ---- 7. a second daemon, stale and foreign files ------------------------------------
# In a namespace of its own (the queues of conc's namespace are taken)
# with the interfaces the concentrator's config names.

x=$(tb_ns x)
ip netns add "$x"
TB_NS_MADE+=("$x")
ip -n "$x" link set lo up
ip -n "$x" link add dsl type veth peer name dslp
ip -n "$x" link add lte type veth peer name ltep
for d in dsl dslp lte ltep; do
	ip -n "$x" link set "$d" up
done

# xstart SOCKET: the concentrator's config in namespace x on SOCKET;
# XPID; waits until it runs or exited
xstart() {
	rm -f "$TB_DIR/x.log"
	tb_bg x "$TB_DIR/x.log" "$L3BONDD" -c "$TB_DIR/conc.conf" \
		--control-socket "$1"
	XPID=$TB_LAST_PID
	for ((i = 0; i < 100; i++)); do
		grep -q 'started:\|start failed' "$TB_DIR/x.log" 2>/dev/null && break
		tb__ours "$XPID" || break
		sleep 0.05
	done
}

xstart "$(ctl_socket conc)"
xrc=0
tb_wait "$XPID" 10 || xrc=$?
ctl conc status
check "second daemon on conc's socket: exit 1, 'another l3bondd listens on PATH'; the first runs on, reachable" \
	'x == 1 && m == 1 && alive == 1 && rc == 0 && s == 1' "x=$xrc" \
	"m=$(cnt "another l3bondd listens on $(ctl_socket conc)" <"$TB_DIR/x.log")" \
	"alive=$(kill -0 "${DPID[conc]}" 2>/dev/null && echo 1 || echo 0)" "rc=$rc" \
	"s=$([ -S "$(ctl_socket conc)" ] && echo 1 || echo 0)"

# a stale socket (bound, never listened, closed) in a missing directory's
# place: replaced
xsock=$TB_DIR/run/sub/x.sock
mkdir -p "$TB_DIR/run/sub"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1])' "$xsock"
xstart "$xsock"
rc=0
"$L3BONDCTL" -s "$xsock" status >/dev/null 2>&1 || rc=$?
check "stale socket file: replaced, the new daemon answers" \
	'rc == 0 && m == 1' "rc=$rc" "m=$(cnt 'removing a stale socket' <"$TB_DIR/x.log")"
kill -TERM "$XPID"
xrc=0
tb_wait "$XPID" 10 || xrc=$?
check "SIGTERM: exit 0, the socket removed" 'x == 0 && s == 0' "x=$xrc" \
	"s=$([ -e "$xsock" ] && echo 1 || echo 0)"

rm -rf "$TB_DIR/run"
xstart "$xsock"
rc=0
"$L3BONDCTL" -s "$xsock" status >/dev/null 2>&1 || rc=$?
check "missing directories created 0755" 'rc == 0 && m == 755' "rc=$rc" \
	"m=$(stat -c %a "$TB_DIR/run/sub")"
kill -TERM "$XPID"
tb_wait "$XPID" 10 || true

echo "not a socket" >"$xsock"
xstart "$xsock"
xrc=0
tb_wait "$XPID" 10 || xrc=$?
check "a regular file at the path: start fails, file kept" \
	'x == 1 && m == 1 && f == 1' "x=$xrc" \
	"m=$(cnt 'exists and is not a socket' <"$TB_DIR/x.log")" \
	"f=$(grep -c 'not a socket' "$xsock" || true)"

# ---- 8. SIGTERM ------------------------------------------------------------------------

for box in cpe conc; do
	kill -TERM "${DPID[$box]}"
	rc=0
	tb_wait "${DPID[$box]}" 10 || rc=$?
	check "$box: SIGTERM: exit 0, socket removed" 'rc == 0 && s == 0' "rc=$rc" \
		"s=$([ -e "$(ctl_socket "$box")" ] && echo 1 || echo 0)"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
