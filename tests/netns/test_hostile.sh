#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile traffic at the tunnel ports of running l3bondd daemons (issue 4):
# forged, truncated, wrong-key and replayed packets from an attacker
# namespace, during a bonded UDP flow, on the testbed of lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                                  |
#                                 atk 10.13.0.2 (l3b-hostile)
#
# The attacker hangs off the dsl router: the DSL side is the public side
# of both boxes, and the daemons take tunnel packets only from their path
# interfaces (raw PREROUTING, -i dsl / -i lte), so an attacker must come
# in through one; a veth straight into conc would be another interface,
# never seen by the daemon.  Not through lte: its carrier NAT lets nothing
# unsolicited in from the concentrator's side and would hide the
# attacker's address.  Its packets skip the link emulator (hooked on the
# cpe and conc interfaces) but share the dsl line's rate limit, so the
# attack is paced to leave the flow its room.
#
# Rates: the attack and the 20 Mbit/s flow stay under the dsl line's 64
# Mbit/s (random 3000/s of 750 bytes on average, forged packets 5000/s,
# replays of full-size DATA 2000/s): the flow must not lose packets to the
# attacker's bandwidth, only to the daemon, if at all.  The packet rate is
# kept moderate too: a CPU's input backlog holds 1000 packets
# (netdev_max_backlog), and on a busy machine a CPU that stalls for 100 ms
# under 10000 packets/s drops the flow's packets there, daemon or not.
#
# Every packet of the attacker leaves with TTL 99 and arrives with 98
# (one router): a counting rule (no target) at the head of raw PREROUTING
# of the attacked box counts what reached it, spoofed replays included
# (they carry the CPE's or the concentrator's source address).  Every
# packet that reached must be in a drop counter of the box's egress.
#
# Phases:
#   1. baseline: 20 Mbit/s UDP cli -> srv through the bond, no attack;
#   2. the same flow, and during it against the concentrator's dsl
#      address 10.12.0.1:7040: random (20k), truncated (30k), badtag
#      (30k), wrongkey (20k), capture+replay of the CPE's packets at once
#      from the attacker's address, at once from the CPE's own address
#      (spoofed), 4 s later (too old), and replay-hello;
#   3. baseline downstream srv -> cli, then the same flow with random,
#      truncated, badtag, wrongkey and replays against the CPE's dsl
#      address 10.11.0.1:7040;
#   4. the CPE's packets captured, the CPE restarted (a new session),
#      the old packets replayed to the concentrator during a flow of the
#      new session, from the attacker's address and spoofed.
# Asserted for each kind: what reached the box is in its drop counters
# (the sum over egr.outer_bad, egr.wire.*, egr.session, egr.path,
# egr.auth.*, the kernel's queue drops), and in the counters of its kind;
# replayed HELLOs are authentic: counted in egr.ctrl.hello(_ack) and
# answered, or counted in egr.auth.hello_limited.  For the session: the
# flow's loss within the baseline's (+0.1 % of its packets, at least 20),
# reordering within 0.1 %, no duplicate or corrupted packet; handshakes,
# egr.peer_restarts and the path peers unchanged on both daemons; the
# replayer got nothing back but HELLO_ACKs and the concentrator's log
# never names it as a peer (its path address never moved to the
# attacker, not even for a moment); no inner packet of a forged DATA
# reached srv or cli.  Memory: VmRSS of the concentrator's daemon before
# and after more than 100k hostile packets differs by less than 1 MiB
# (printed only in a sanitizer build, as the rates are).  Both daemons
# alive at the end, no sanitizer report, and l3bondctl status shows the
# concentrator's drop counters as the status file does.  Where a flow's
# packets could have been dropped meanwhile (the lines' rate limiters,
# the daemons' queues) is printed with its figures.
#
# usage: test_hostile.sh [BUILD_DIR]   (l3bondd, l3bondctl in
# BUILD_DIR/gateway, the tools in BUILD_DIR/tests/tools unless
# L3B_TOOLS_DIR says otherwise).  L3B_HOSTILE_SEED fixes the seeds of the
# random attacks (each kind prints the seed it used).
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}
HOSTILE=${HOSTILE:-$L3B_TOOLS_DIR/l3b-hostile}
TB_PREFIX=${TB_PREFIX:-l3bhos-$$-}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk python3
tb_require_bin "$L3BONDD" "$L3BONDCTL" "$HOSTILE"

ATK_IP=10.13.0.2
DSL_ATK_IP=10.13.0.1
ATK_TTL=99
ARRIVE_TTL=$((ATK_TTL - 1))
PORT=7040
INNER_PORT=9
FLOW_MBIT=20
UP_S=55   # the attacked upstream flow: the attacks last about 50 s
BASE_S=20 # its baseline: compared by rates
DOWN_S=20

# ---- the attacker's namespace, the counting rules ---------------------------

atk_setup() {
	local ns
	ns=$(tb_ns atk)
	ip netns add "$ns"
	TB_NS_MADE+=("$ns")
	ip -n "$ns" link set lo up
	ip -n "$(tb_ns dsl)" link add atk type veth peer name eth0 netns "$ns"
	ip -n "$(tb_ns dsl)" link set atk up
	ip -n "$ns" link set eth0 up
	ip -n "$(tb_ns dsl)" addr add "$DSL_ATK_IP/24" dev atk
	ip -n "$ns" addr add "$ATK_IP/24" dev eth0
	ip -n "$ns" route add default via "$DSL_ATK_IP"
	# the concentrator has no default route: without this its rp_filter
	# (loose) would drop the attacker's packets before the daemon
	tb_exec conc ip route add 10.13.0.0/24 via "$TB_DSL_CONC_IP" dev dsl
}

# count_rule BOX: counts the attacker's packets to the tunnel port as the
# box receives them on its dsl interface (before the daemon's rule; no
# target: the packet goes on)
count_rule() {
	tb_exec "$1" iptables -w -t raw -I PREROUTING 1 -i dsl -p udp \
		--dport "$PORT" -m ttl --ttl-eq "$ARRIVE_TTL" \
		-m comment --comment l3b-hostile
}

reached() {
	tb_exec "$1" iptables -w -t raw -nvxL PREROUTING |
		awk '/l3b-hostile/ { n = $1 } END { print n + 0 }'
}

# leak_rule BOX: counts packets to the inner port of the forged DATA
leak_rule() {
	tb_exec "$1" iptables -w -t raw -I PREROUTING 1 -p udp \
		--dport "$INNER_PORT" -m comment --comment l3b-leak
}

leaked() {
	tb_exec "$1" iptables -w -t raw -nvxL PREROUTING |
		awk '/l3b-leak/ { n = $1 } END { print n + 0 }'
}

# ---- status snapshots (daemon_lib.sh's status_save, status_saved) ----------

# Drop counters of the egress: everything a tunnel packet can be dropped
# for before it changes any state.
DROPS='egr\.(outer_bad|wire\.[a-z_]+|session|path|auth\.(no_session|bad_tag|replay|too_old|wrong_dir|stale_ack)|kernel_dropped|kernel_user_dropped)'

# dsum NAME REGEX: sum of the keys matching REGEX (whole key) in NAME.st
dsum() {
	RE="^($2)\$" awk -F= '$1 ~ ENVIRON["RE"] { s += $2 }
		END { printf "%d\n", s }' "$TB_DIR/$1.st"
}

# ddelta A B REGEX: growth of that sum from snapshot A to B
ddelta() {
	echo $(($(dsum "$2" "$3") - $(dsum "$1" "$3")))
}

# dlist A B: the drop counters that grew from snapshot A to B, by name
dlist() {
	RE="^($DROPS|egr\.auth\.hello_limited)\$" awk -F= '
		NR == FNR { if ($1 ~ ENVIRON["RE"]) a[$1] = $2; next }
		$1 ~ ENVIRON["RE"] && $2 - a[$1] > 0 {
			printf " %s +%d", $1, $2 - a[$1] }' \
		"$TB_DIR/$1.st" "$TB_DIR/$2.st"
}

rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

seed_args() {
	if [ -n "${L3B_HOSTILE_SEED:-}" ]; then
		echo "--seed $L3B_HOSTILE_SEED"
	fi
}

# ---- one attack -------------------------------------------------------------

# attack BOX NAME GROUP ARGS...: runs l3b-hostile ARGS from atk against
# BOX, snapshots before/after (NAME.0, NAME.1), and checks that what
# reached is in the drop counters, and in GROUP (a regex of counter keys)
# for all but the authentic HELLOs among replays.  Leaves the figures in
# A_SENT, A_REACHED, A_ALL, A_GROUP, A_HELLO.
attack() {
	local box=$1 name=$2 group=$3 r0 r1 j
	shift 3
	j=$TB_DIR/$name.json
	status_save "$box" "$name.0"
	r0=$(reached "$box")
	# shellcheck disable=SC2046 # the seed option is two words or none
	tb_exec atk "$HOSTILE" --ttl "$ATK_TTL" $(seed_args) "$@" >"$j" ||
		bad "$name: l3b-hostile failed: $(cat "$j")"
	# what is still on the line (tbf queue, the daemon's queue)
	sleep 0.5
	status_save "$box" "$name.1"
	r1=$(reached "$box")
	A_SENT=$(jget "$j" sent)
	A_SENT=${A_SENT:-0}
	A_REACHED=$((r1 - r0))
	A_ALL=$(ddelta "$name.0" "$name.1" "$DROPS")
	A_GROUP=$(ddelta "$name.0" "$name.1" "$group")
	# replayed HELLOs and HELLO_ACKs are authentic: not drops (a HELLO
	# is answered, or its answer rate-limited)
	A_HELLO=0
	case $name in
	*replay*) A_HELLO=$(jget "$j" hello_key) ;;
	esac
	printf '  %-16s sent %6d, reached %6d, dropped %6d (%s: %d), seed %s\n' \
		"$name" "$A_SENT" "$A_REACHED" "$A_ALL" "$group" "$A_GROUP" \
		"$(jget "$j" seed)"
	echo "    by counter:$(dlist "$name.0" "$name.1")"
	check "$name: sent, and reached $box (>= 95 %)" \
		's > 0 && r <= s && r >= s * 0.95' "s=$A_SENT" "r=$A_REACHED"
	check "$name: every packet that reached $box is in a drop counter" \
		'all >= r - h' "all=$A_ALL" "r=$A_REACHED" "h=$A_HELLO"
	check "$name: counted as $group" 'g >= r - h' "g=$A_GROUP" \
		"r=$A_REACHED" "h=$A_HELLO"
	if [ "$A_HELLO" -gt 0 ]; then
		check "$name: the authentic HELLO(_ACK)s among them counted in egr.ctrl" \
			'c >= h' "h=$A_HELLO" \
			"c=$(ddelta "$name.0" "$name.1" 'egr\.ctrl\.hello(_ack)?')"
	fi
}

# answered_only_hellos NAME: the replayer got nothing back but HELLO_ACKs
# (answers to replayed HELLOs): had the concentrator taken its address
# for the CPE's, even for a moment, session packets would have come back
answered_only_hellos() {
	local j=$TB_DIR/$1.json
	check "$1: nothing but HELLO_ACKs came back to the replayer" \
		'a == k' "a=$(jget "$j" answers)" "k=$(jget "$j" answers_hello_ack)"
}

# ---- flows ------------------------------------------------------------------

# flow_start NAME FROM TO DST SECONDS: a 20 Mbit/s UDP flow in the
# background; flow_end NAME waits for it.
declare -A FLOW_RX=() FLOW_TX=()
flow_start() {
	local name=$1 from=$2 to=$3 dst=$4 secs=$5 i
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration "$((secs + 6))" --linger-ms 500 \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	FLOW_RX[$name]=$TB_LAST_PID
	where "$name.w0"
	tb_wait_file "$TB_DIR/$name.ready" || true
	tb_bg "$from" "$TB_DIR/$name.tx.log" "$TB_TRAFFIC" send --dst "$dst" \
		--port 5000 --rate "$FLOW_MBIT" --size 1400 --duration "$secs" \
		--json "$TB_DIR/$name.tx.json"
	FLOW_TX[$name]=$TB_LAST_PID
}

flow_end() {
	local name=$1
	tb_wait "${FLOW_TX[$name]}" 90 || true
	tb_wait "${FLOW_RX[$name]}" 30 || true
	where "$name.w1"
}

# packets the qdisc of DEV in BOX dropped (the tbf of a line)
qdisc_drops() {
	tb_exec "$1" tc -s qdisc show dev "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "(dropped") {
			sub(",", "", $(i + 1)); print $(i + 1); exit } }'
}

# packets the CPUs' input backlogs dropped (softnet_stat column 2, hex)
backlog_drops() {
	local n=0 _a d _r
	while read -r _a d _r; do
		n=$((n + 16#$d))
	done </proc/net/softnet_stat
	echo "$n"
}

# where NAME: the counters of the places a flow can lose packets, in
# $TB_DIR/NAME: the lines' rate limiters and the daemons' queues
where() {
	refresh conc
	refresh cpe
	{
		echo "dsl_up=$(qdisc_drops dsl conc)"
		echo "dsl_down=$(qdisc_drops dsl cpe)"
		echo "lte_up=$(qdisc_drops lte conc)"
		echo "lte_down=$(qdisc_drops lte cpe)"
		echo "conc_egr_q=$(st conc egr.kernel_dropped)"
		echo "conc_ing_q=$(st conc ing.kernel_dropped)"
		echo "cpe_egr_q=$(st cpe egr.kernel_dropped)"
		echo "cpe_ing_q=$(st cpe ing.kernel_dropped)"
		# the CPUs' input backlogs, machine-wide (other namespaces'
		# traffic included): column 2 of softnet_stat, in hex
		echo "backlog_all=$(backlog_drops)"
	} >"$TB_DIR/$1"
}

# fj NAME KEY: a key of flow NAME's receiver report, 0 if absent
fj() {
	jget "$TB_DIR/$1.rx.json" "$2" 0
}

flow_report() {
	echo "  $1: expected $(fj "$1" expected), lost $(fj "$1" lost)" \
		"($(fj "$1" loss_pct) %), reordered $(fj "$1" reordered)," \
		"duplicates $(fj "$1" duplicates), corrupted $(fj "$1" corrupted)"
	# where packets were dropped meanwhile (any packets, not only the
	# flow's): a loss of the flow on a loaded machine shows up here
	echo "    drops meanwhile:$(awk -F= 'NR == FNR { a[$1] = $2; next }
		{ printf " %s +%d", $1, $2 - a[$1] }' \
		"$TB_DIR/$1.w0" "$TB_DIR/$1.w1")"
}

# flow_checks NAME BASE WHAT: the attacked flow against its baseline
flow_checks() {
	local n=$1 b=$2 what=$3
	flow_report "$b"
	flow_report "$n"
	check "$what: the flow arrived (> 90 % of its packets)" \
		'e > 0 && u >= e * 0.9 && fin == "true"' "e=$(fj "$n" expected)" \
		"u=$(fj "$n" unique)" "fin=$(fj "$n" fin)"
	check "$what: no duplicate, no corrupted packet" 'd == 0 && c == 0' \
		"d=$(fj "$n" duplicates)" "c=$(fj "$n" corrupted)"
	rate_check "$what: loss within the baseline's (+0.1 % of the packets, at least 20)" \
		'l <= bl * e / be + (e / 1000 > 20 ? e / 1000 : 20)' \
		"l=$(fj "$n" lost)" "e=$(fj "$n" expected)" "bl=$(fj "$b" lost)" \
		"be=$(fj "$b" expected)"
	rate_check "$what: reordering within the baseline's + 0.1 %" \
		'r <= br * e / be + e / 1000' "r=$(fj "$n" reordered)" \
		"e=$(fj "$n" expected)" "br=$(fj "$b" reordered)" \
		"be=$(fj "$b" expected)"
}

# session_same A B BOX WHAT: handshakes, peer restarts, path peers
session_same() {
	local a=$1 b=$2 box=$3 what=$4
	check "$what: $box: handshakes and egr.peer_restarts unchanged" \
		'h0 == h1 && p0 == p1 && h1 >= 1' \
		"h0=$(status_saved "$a" handshakes)" \
		"h1=$(status_saved "$b" handshakes)" \
		"p0=$(status_saved "$a" egr.peer_restarts)" \
		"p1=$(status_saved "$b" egr.peer_restarts)"
	check "$what: $box: path peers unchanged, both paths up" \
		'd0 == d1 && l0 == l1 && d1 != "" && du == 1 && lu == 1' \
		"d0=$(status_saved "$a" path.dsl.peer)" \
		"d1=$(status_saved "$b" path.dsl.peer)" \
		"l0=$(status_saved "$a" path.lte.peer)" \
		"l1=$(status_saved "$b" path.lte.peer)" \
		"du=$(status_saved "$b" path.dsl.up)" \
		"lu=$(status_saved "$b" path.lte.up)"
}

# ---- setup ------------------------------------------------------------------

tb_init
# shellcheck disable=SC2119 # the testbed's defaults
tb_setup
atk_setup
write_confs 0.5
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up"
else
	bad "paths not up: cpe $(st cpe path.dsl.up)/$(st cpe path.lte.up)"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
	tb_abort
fi
count_rule conc
count_rule cpe
leak_rule srv
leak_rule cli
check "the attacker reaches both boxes' dsl addresses (ping)" \
	'a == 3 && b == 3' "a=$(ping_count atk "$TB_CONC_DSL_IP" 3)" \
	"b=$(ping_count atk "$TB_CPE_DSL_IP" 3)"

# ---- 1. baseline upstream ---------------------------------------------------

echo "== baseline: $FLOW_MBIT Mbit/s cli -> srv, ${BASE_S} s, no attack"
flow_start base_up cli srv "$TB_SRV_IP" "$BASE_S"
flow_end base_up
settle

# ---- 2. the concentrator under attack ---------------------------------------

echo "== attack on the concentrator (10.12.0.1:$PORT) during $FLOW_MBIT Mbit/s cli -> srv"
status_save conc c.start
status_save cpe p.start
TO=(--to "$TB_CONC_DSL_IP:$PORT")
CAP=(--capture-netns "$(tb_ns conc)" --capture-if dsl)
flow_start att_up cli srv "$TB_SRV_IP" "$UP_S"
sleep 3
rss0=$(rss_kb "${DPID[conc]}" || true)
total=0
attack conc random 'egr\.(outer_bad|wire\.[a-z_]+|session|path)' \
	"${TO[@]}" --pps 3000 random 20000
total=$((total + A_SENT))
attack conc truncated 'egr\.(outer_bad|wire\.[a-z_]+|auth\.(bad_tag|wrong_dir|too_old|replay))' \
	"${TO[@]}" --pps 5000 truncated 30000
total=$((total + A_SENT))
check "truncated: those shorter than header + tag in egr.wire.short / egr.outer_bad" \
	'w >= s - (n - r)' \
	"w=$(ddelta truncated.0 truncated.1 'egr\.(wire\.short|outer_bad)')" \
	"s=$(jget "$TB_DIR/truncated.json" short)" "n=$A_SENT" "r=$A_REACHED"
attack conc badtag 'egr\.(path|auth\.(bad_tag|wrong_dir|too_old|replay))' \
	"${TO[@]}" --pps 5000 badtag 30000
total=$((total + A_SENT))
check "badtag: path ids beyond the concentrator's 2 paths in egr.path" \
	'p >= o - (n - r)' "p=$(ddelta badtag.0 badtag.1 'egr\.path')" \
	"o=$(jget "$TB_DIR/badtag.json" path_out)" "n=$A_SENT" "r=$A_REACHED"
check "badtag: the rest (paths 0, 1) in egr.auth.bad_tag / too_old / wrong_dir" \
	'a >= i - (n - r)' \
	"a=$(ddelta badtag.0 badtag.1 'egr\.auth\.(bad_tag|too_old|replay|wrong_dir)')" \
	"i=$(jget "$TB_DIR/badtag.json" path_in)" "n=$A_SENT" "r=$A_REACHED"
attack conc wrongkey 'egr\.auth\.(bad_tag|wrong_dir)' \
	"${TO[@]}" --pps 5000 --dir c2s wrongkey 20000
total=$((total + A_SENT))
check "wrongkey: HELLO_ACKs at the concentrator in egr.auth.wrong_dir, the rest in bad_tag" \
	'w >= a - (n - r) && b >= n - a - (n - r)' \
	"w=$(ddelta wrongkey.0 wrongkey.1 'egr\.auth\.wrong_dir')" \
	"b=$(ddelta wrongkey.0 wrongkey.1 'egr\.auth\.bad_tag')" \
	"a=$(jget "$TB_DIR/wrongkey.json" hello_ack)" "n=$A_SENT" "r=$A_REACHED"
rss1=$(rss_kb "${DPID[conc]}" || true)

# replays: the CPE's packets as the concentrator received them, sent
# again once captured (within the replay window) from the attacker's
# address, then from the CPE's own address and port, then 4 s later
attack conc replay_now 'egr\.auth\.(replay|too_old)' \
	"${TO[@]}" "${CAP[@]}" --capture-count 1000 --pps 2000 \
	--listen-ms 1000 capture+replay
total=$((total + A_SENT))
answered_only_hellos replay_now
check "replay_now: the replays mostly within the window: egr.auth.replay" \
	'rp >= (r - h) / 2' "rp=$(ddelta replay_now.0 replay_now.1 'egr\.auth\.replay')" \
	"r=$A_REACHED" "h=$A_HELLO"
session_same c.start replay_now.1 conc "replay from the attacker's address"
attack conc replay_spoof 'egr\.auth\.(replay|too_old)' \
	"${TO[@]}" "${CAP[@]}" --capture-count 500 --pps 2000 --spoof \
	capture+replay
total=$((total + A_SENT))
attack conc replay_late 'egr\.auth\.too_old' \
	"${TO[@]}" "${CAP[@]}" --capture-count 1000 --pps 2000 --delay-ms 4000 \
	--listen-ms 1000 capture+replay
total=$((total + A_SENT))
answered_only_hellos replay_late
echo "  replay_late: captured pn $(jget "$TB_DIR/replay_late.json" first_pn).." \
	"$(jget "$TB_DIR/replay_late.json" last_pn), the CPE's tx_pn after: $(st cpe tx_pn)"
# HELLOs: 4 captured, each replayed 25 times at once; answered (to the
# attacker) or rate-limited, never a new session.  The CPE sends a HELLO
# every 500 ms only on a path in use (an idle one at its idle probe, 20
# s): pings through the bond keep the DSL in use while the attacker
# captures, whether or not the attacked flow has ended by then.
status_save conc hello.0
tb_bg cli "$TB_DIR/hello_ping.log" ping -n -q -i 0.2 -c 50 "$TB_SRV_IP"
hello_ping=$TB_LAST_PID
tb_exec atk "$HOSTILE" --ttl "$ATK_TTL" "${TO[@]}" "${CAP[@]}" \
	--capture-timeout-ms 5000 --repeat 25 --listen-ms 1500 replay-hello \
	>"$TB_DIR/hello.json" || bad "replay-hello: $(cat "$TB_DIR/hello.json")"
tb_wait "$hello_ping" 15 || true
sleep 0.5
status_save conc hello.1
hsent=$(jget "$TB_DIR/hello.json" sent)
hans=$(jget "$TB_DIR/hello.json" answers)
hlim=$(ddelta hello.0 hello.1 'egr\.auth\.hello_limited')
echo "  replay-hello: $(jget "$TB_DIR/hello.json" captured) HELLOs captured," \
	"$hsent sent, $hans answered, $hlim rate-limited"
total=$((total + ${hsent:-0}))
answered_only_hellos hello
check "replay-hello: every replayed HELLO answered, rate-limited or dropped" \
	's > 0 && a + l + d >= s' "s=${hsent:-0}" "a=${hans:-0}" "l=$hlim" \
	"d=$(ddelta hello.0 hello.1 "$DROPS")"
# the captured HELLOs are the running session's: one r_cpe, answered at
# most 6 times a second per path (GW_ACK_PER_RCPE), over about 2 s, 2 paths
check "replay-hello: at most 6 answers a second per path for one r_cpe" \
	'a <= 6 * 2 * 2' "a=${hans:-0}"
check "replay-hello: the replayed HELLOs authentic (hellos grew by them)" \
	'h >= s' "h=$(ddelta hello.0 hello.1 'hellos')" "s=${hsent:-0}"
flow_end att_up
status_save conc c.end
status_save cpe p.end
rss2=$(rss_kb "${DPID[conc]}" || true)

echo "  the concentrator's l3bondd VmRSS: $rss0 kB before, $rss1 kB after" \
	"100k forged, $rss2 kB after the replays; $total hostile packets"
check "more than 100k hostile packets sent to the concentrator" \
	't >= 100000' "t=$total"
# In a sanitizer build ASan's quarantine keeps freed memory for a while,
# so RSS grows with any allocation; leaks are LeakSanitizer's business
# there (at the daemons' exit, in their logs: tb_teardown fails on them).
rate_check "memory flat: VmRSS before/after 100k hostile packets within 1 MiB" \
	'a > 0 && b > 0 && b - a < 1024 && a - b < 1024' "a=$rss0" "b=$rss1"
rate_check "memory flat to the end of the replays" \
	'a > 0 && b > 0 && b - a < 1024 && a - b < 1024' "a=$rss0" "b=$rss2"
flow_checks att_up base_up "upstream under attack"
session_same c.start c.end conc "upstream under attack"
session_same p.start p.end cpe "upstream under attack"
check "the concentrator never took the attacker's address for a peer (log)" \
	'n == 0 && m == 2' "n=$(cnt "peer is $ATK_IP" <"$TB_DIR/conc.log")" \
	"m=$(cnt ": peer is " <"$TB_DIR/conc.log")"
check "no forged DATA released: nothing arrived at srv:$INNER_PORT" \
	'n == 0' "n=$(leaked srv)"

# ---- 3. the CPE under attack ------------------------------------------------

echo "== baseline: $FLOW_MBIT Mbit/s srv -> cli, ${DOWN_S} s, no attack"
settle
flow_start base_down srv cli "$TB_CLI_IP" "$DOWN_S"
flow_end base_down
settle
echo "== attack on the CPE (10.11.0.1:$PORT) during $FLOW_MBIT Mbit/s srv -> cli"
status_save cpe p2.start
status_save conc c2.start
TO=(--to "$TB_CPE_DSL_IP:$PORT" --inner-src "$TB_SRV_IP" --inner-dst "$TB_CLI_IP")
CAP=(--capture-netns "$(tb_ns cpe)" --capture-if dsl)
flow_start att_down srv cli "$TB_CLI_IP" "$DOWN_S"
sleep 2
attack cpe cpe_random 'egr\.(outer_bad|wire\.[a-z_]+|session|path)' \
	"${TO[@]}" --pps 3000 random 5000
attack cpe cpe_truncated 'egr\.(outer_bad|wire\.[a-z_]+|auth\.(bad_tag|wrong_dir|too_old|replay))' \
	"${TO[@]}" --pps 5000 truncated 5000
attack cpe cpe_badtag 'egr\.(path|auth\.(bad_tag|wrong_dir|too_old|replay))' \
	"${TO[@]}" --pps 5000 badtag 5000
attack cpe cpe_wrongkey 'egr\.auth\.(bad_tag|wrong_dir)' \
	"${TO[@]}" --pps 5000 --dir s2c wrongkey 5000
check "cpe_wrongkey: HELLOs at the CPE in egr.auth.wrong_dir" \
	'w >= h - (n - r)' \
	"w=$(ddelta cpe_wrongkey.0 cpe_wrongkey.1 'egr\.auth\.wrong_dir')" \
	"h=$(jget "$TB_DIR/cpe_wrongkey.json" hello)" "n=$A_SENT" "r=$A_REACHED"
attack cpe cpe_replay 'egr\.auth\.(replay|too_old)' \
	"${TO[@]}" "${CAP[@]}" --capture-count 500 --pps 2000 capture+replay
check "cpe_replay: the capture held the flow's DATA" 'd > 0' \
	"d=$(jget "$TB_DIR/cpe_replay.json" data)"
flow_end att_down
status_save cpe p2.end
status_save conc c2.end
flow_checks att_down base_down "downstream, CPE under attack"
session_same p2.start p2.end cpe "downstream, CPE under attack"
session_same c2.start c2.end conc "downstream, CPE under attack"
check "no forged DATA released: nothing arrived at cli:$INNER_PORT" \
	'n == 0' "n=$(leaked cli)"

# ---- 4. replays from an earlier session -------------------------------------

# The CPE's packets captured during a flow (DATA, PROBEs, REPORTs and a
# few HELLOs), the CPE restarted (a new session: new keys), then the old
# packets replayed to the concentrator during a flow of the new session:
# the session packets no longer open (bad_tag); the old HELLOs are
# authentic, and may be answered (a pending session nobody can use), but
# the running session must stay as it is.
echo "== replays of the CPE's previous session after a CPE restart"
settle
TO=(--to "$TB_CONC_DSL_IP:$PORT")
CAP=(--capture-netns "$(tb_ns conc)" --capture-if dsl)
flow_start old_up cli srv "$TB_SRV_IP" 6
sleep 2
tb_exec atk "$HOSTILE" "${TO[@]}" "${CAP[@]}" --capture-count 4000 \
	--out "$TB_DIR/old.cap" capture >"$TB_DIR/oldcap.json" ||
	bad "capture of the old session: $(cat "$TB_DIR/oldcap.json")"
flow_end old_up
kill -TERM "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 10 || true
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "the CPE restarted, both paths up again"
else
	bad "paths not up after the CPE's restart"
fi
settle
status_save conc c4.start
status_save cpe p4.start
check "the restart made a new session on the concentrator" \
	'h1 == h0 + 1' "h0=$(status_saved c.end handshakes)" \
	"h1=$(status_saved c4.start handshakes)"
flow_start new_up cli srv "$TB_SRV_IP" 10
sleep 2
attack conc old_replay 'egr\.auth\.(bad_tag|too_old|replay)' \
	"${TO[@]}" --pps 2000 --listen-ms 1000 replay "$TB_DIR/old.cap"
answered_only_hellos old_replay
check "old_replay: the capture held DATA and HELLOs of the old session" \
	'd > 0 && h > 0' "d=$(jget "$TB_DIR/old_replay.json" data)" \
	"h=$(jget "$TB_DIR/old_replay.json" hello)"
attack conc old_replay_spoof 'egr\.auth\.(bad_tag|too_old|replay)' \
	"${TO[@]}" --pps 2000 --spoof replay "$TB_DIR/old.cap"
flow_end new_up
status_save conc c4.end
status_save cpe p4.end
flow_checks new_up base_up "the new session, old one replayed"
session_same c4.start c4.end conc "old session replayed"
session_same p4.start p4.end cpe "old session replayed"
check "old_replay_spoof: the concentrator's answers to the old HELLOs (to the CPE's address) refused by the CPE as stale" \
	's >= 1 && s <= h' "s=$(ddelta p4.start p4.end 'egr\.auth\.stale_ack')" \
	"h=$(jget "$TB_DIR/old_replay_spoof.json" hello)"

# ---- 5. alive, clean, the control socket agrees -----------------------------

for box in conc cpe; do
	check "$box: l3bondd alive at the end" 'a == 1' \
		"a=$(kill -0 "${DPID[$box]}" 2>/dev/null && echo 1 || echo 0)"
	check "$box: no sanitizer report in its log" 'n == 0' \
		"n=$(grep -cE 'ERROR: [A-Za-z]+Sanitizer|runtime error:' \
			"$TB_DIR/$box.log" || true)"
done
# the drop counters as l3bondctl status --json gives them, flattened to
# the status file's keys (egress -> egr., ingress -> ing., the paths left
# out), against the status file read right before
status_save conc final
"$L3BONDCTL" -s "$(ctl_socket conc)" status --json >"$TB_DIR/ctl.json" ||
	bad "l3bondctl status --json failed"
python3 - "$TB_DIR/ctl.json" >"$TB_DIR/ctl.st" <<'EOF' || bad "status --json does not parse"
import json, sys
def flat(pre, v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "egress":
                flat("egr.", x)
            elif k == "ingress":
                flat("ing.", x)
            elif k == "sessions":
                if x:
                    flat(pre, x[0])
            elif k != "paths":
                flat(pre + k + ".", x)
    elif not isinstance(v, list):
        print("%s=%s" % (pre[:-1], v))
flat("", json.load(open(sys.argv[1])))
EOF
check "l3bondctl status shows the concentrator's drop counters (status file <= ctl, and close)" \
	'f > 0 && c >= f && c - f <= 10' "f=$(dsum final "$DROPS")" \
	"c=$(dsum ctl "$DROPS")"
"$L3BONDCTL" -s "$(ctl_socket conc)" status >"$TB_DIR/ctl.txt" 2>&1 ||
	bad "l3bondctl status failed"

tb_done
