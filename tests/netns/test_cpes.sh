#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Many CPEs on one concentrator: two CPE sites with their own keys and
# prefixes on one concentrator daemon (one UDP port, one pair of queues),
# on the testbed of lib.sh plus its second site (tb_site2_setup):
#
#   cli  10.0.1.2 -- cpe  l3bondd ==dsl/lte==+
#                                            +== conc l3bondd -- srv 10.0.2.2
#   cli2 10.0.3.2 -- cpe2 l3bondd ==dsl/lte==+
#                                (both LTE paths behind the one carrier NAT)
#
# The concentrator's config has both config forms: CPE "alice" (site 1,
# 10.0.1.0/24, session 11) in cpes, CPE "bob" (site 2, 10.0.3.0/24,
# session 12) in a file of cpe_dir.  Checked:
#   1. both sessions up at the concentrator: one handshake each, both paths
#      up for each CPE (cpe.<name>.path.*.up), site 2's LTE path at the same
#      NAT address as site 1's, another port; l3bondctl status --cpe alice
#      and metrics --cpe bob show that CPE only, status --totals none (the
#      queues' counters still), --cpe of an unknown name is refused (exit 1);
#   2. both bonded at once: UDP srv -> cli, srv -> cli2 (12 Mbit/s each),
#      cli -> srv and cli2 -> srv (4 Mbit/s each) simultaneously for 4 s,
#      all intact, no foreign packets; every
#      packet of a site's flows (and nothing else) counted by that site's
#      session on both ends (ing.bonded, egr.released);
#   3. spoofing: cli2 sends through cpe2's session with a source in site
#      1's prefix: every packet dropped and counted in cpe.bob.egr.spoofed,
#      none reaches srv (iptables counter and receiver), while a legitimate
#      flow of site 2 at the same time arrives whole (the spoofed packets
#      are dropped in their turn, not left as gaps);
#   4. a wrong key: a third CPE daemon (namespace rogue) with bob's session
#      id and another key never gets a session (cpe.bob.egr.auth.bad_tag
#      grows), bob's session untouched (handshakes, peer_restarts, peers);
#   5. SIGHUP: bob's file removed during a flow to site 1: the flow intact,
#      alice's session untouched; bob's keys gone from the status, site 2
#      works natively; the file back: bob re-established within 2 s;
#   6. SIGHUP with an overlapping third CPE: refused, nothing changes;
#      SIGHUP with a new key and encrypt = true in bob's file (cpe2
#      restarted with them): a fresh, encrypted session for bob, alice
#      untouched (not encrypted), both sites bonded again;
#   7. the concentrator's memory with 2 CPEs (VmRSS printed, peak < 64 MiB).
#   8. with L3B_WORKERS=N (N > 1; ctest's netns_cpes_workers: 2) the
#      concentrator runs N workers and everything above holds as it is
#      (without it, workers = 1; with it, no workers key where the
#      default, one per core, gives N: then the default runs for real);
#      then: the same config without the key gives one per core (its
#      printed rules), and a reload to it with a class in mode bypass
#      (one worker) is refused; the status says N workers up; alice (session 11) and bob (12)
#      on different workers, which the kernel's own queue counters show
#      (worker k's queues are 2k and 2k+1); the first process's status adds
#      the workers' queue counters up; alice's worker killed (SIGKILL): it
#      is started again (worker_restarts 1), alice handshakes again and a
#      flow to cli arrives intact, bob's session untouched; SIGTERM ends
#      the workers with the first process.
# Throughout, the capture's kernel sets (ipset l3b_q0_v4, and with
# workers one per worker: l3b_q<its ingress queue>_v4): both CPEs'
# prefixes in it at the start, bob's gone from it when his file is removed
# (the same set, swapped: never empty while alice's flow goes on), back
# with it; the set gone once the concentrator exited.
# About 60 s.  After a failed flow check the daemons' drop counters and the
# emulated links' drops are printed (diag).
#
# usage: test_cpes.sh [BUILD_DIR]   (l3bondd in BUILD_DIR/gateway, the tools
# in BUILD_DIR/tests/tools unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

TB_PREFIX=${TB_PREFIX:-l3b-cpes-$$-}
# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables ipset awk jq
tb_require_bin "$L3BONDD" "$L3BONDCTL"

ID_A=11
ID_B=12
KEY_A=$(head -c32 /dev/urandom | base64)
KEY_B=$(head -c32 /dev/urandom | base64)
KEY_B2=$(head -c32 /dev/urandom | base64)
KEY_X=$(head -c32 /dev/urandom | base64)
TB_ROGUE_IP=10.14.0.1
TB_DSL_ROGUE_IP=10.14.0.2
SPOOF_SRC=10.0.1.77 # site 1's prefix, on site 2's client
SPOOF_DST=10.0.2.3  # a second address of srv, reached only from SPOOF_SRC
FIN=3               # l3b-traffic send ends with 3 FIN packets

# cpe_conf ID KEY [IFACE_LTE PEER_LTE]: a CPE's config
cpe_conf() {
	local lte_if=${3:-lte} lte_peer=${4:-$TB_CONC_LTE_IP}
	local lte_mark=$TB_LTE_MARK
	[ "$lte_if" = lte ] || lte_mark=0
	cat <<-EOF
		role = "cpe";
		session_id = $1;
		port = 7040;
		key = "$2";
		lan_interfaces = [ "lan" ];
		release_mark = 0x100;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl";
			  fwmark = $([ "$lte_if" = lte ] && echo "$TB_DSL_MARK" || echo 0);
			  peer = "$TB_CONC_DSL_IP"; },
			{ name = "lte"; class = "mobile"; interface = "$lte_if";
			  fwmark = $lte_mark; peer = "$lte_peer"; }
		);
	EOF
}

# bob's file in cpe_dir: session_id, key, prefixes, encrypt (name = file
# name): bob_file KEY [ENCRYPT]
bob_file() {
	cat <<-EOF
		# site 2
		session_id = $ID_B;
		key = "$1";
		prefixes = [ "10.0.3.0/24" ];
		encrypt = ${2:-false};
	EOF
}

# The workers key of the concentrator's config: workers = 1 without
# L3B_WORKERS; with it, none where the default (one per core) gives as
# many (so the default runs here for real), else workers = N.
workers_line() {
	if [ -z "${L3B_WORKERS:-}" ]; then
		echo "workers = 1;"
	elif [ "$L3B_WORKERS" != "$(nproc)" ]; then
		echo "workers = $L3B_WORKERS;"
	fi
}

write_all_confs() {
	cpe_conf $ID_A "$KEY_A" >"$TB_DIR/cpe.conf"
	cpe_conf $ID_B "$KEY_B" >"$TB_DIR/cpe2.conf"
	mkdir -p "$TB_DIR/cpes.d"
	bob_file "$KEY_B" >"$TB_DIR/cpes.d/bob.conf"
	cat >"$TB_DIR/conc.conf" <<-EOF
		role = "concentrator";
		port = 7040;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl"; },
			{ name = "lte"; class = "mobile"; interface = "lte"; }
		);
		cpes = (
			{ name = "alice"; session_id = $ID_A; key = "$KEY_A";
			  prefixes = [ "10.0.1.0/24" ]; encrypt = false; }
		);
		cpe_dir = "$TB_DIR/cpes.d";
		$(workers_line)
	EOF
	chmod 600 "$TB_DIR"/*.conf "$TB_DIR/cpes.d"/*.conf
}

# The members of the concentrator's IPv4 capture sets (one, or one per
# worker), sorted, one line.
set_members() {
	local set
	for set in $(tb_exec conc ipset list -n | grep '^l3b_q[0-9]*_v4$'); do
		tb_exec conc ipset list "$set" 2>/dev/null |
			awk '/^Members:/ { m = 1; next } m && NF { print $1 }'
	done | sort | tr '\n' ' '
}

# has_keys BOX PREFIX: does the status hold a key starting with PREFIX?
has_keys() {
	grep -q "^$2" "$(status_file "$1")"
}

# Flows: rx_start BOX PORT NAME SECS, then tx_start BOX DST PORT NAME MBIT
# SECS [SIZE]; flows_wait waits for every sender, then every receiver.
declare -A RXP=() TXP=()
rx_start() {
	local box=$1 port=$2 name=$3 secs=$4 i
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$box" "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port "$port" \
		--duration "$secs" --linger-ms 500 --json "$TB_DIR/$name.rx.json" \
		--ready-file "$TB_DIR/$name.ready"
	RXP[$name]=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" && return 0
	tb_log "receiver $name not ready"
	return 1
}

tx_start() {
	local box=$1 dst=$2 port=$3 name=$4 rate=$5 secs=$6 size=${7:-1000}
	tb_bg "$box" "$TB_DIR/$name.tx.log" "$TB_TRAFFIC" send --dst "$dst" \
		--port "$port" --rate "$rate" --size "$size" --duration "$secs" \
		--json "$TB_DIR/$name.tx.json"
	TXP[$name]=$TB_LAST_PID
}

flows_wait() {
	local n
	for n in "${!TXP[@]}"; do
		tb_wait "${TXP[$n]}" 30 || true
	done
	for n in "${!RXP[@]}"; do
		tb_wait "${RXP[$n]}" 30 || true
	done
	TXP=()
	RXP=()
}

# sent NAME: packets the sender of flow NAME sent, its FIN packets included
sent() {
	local s
	s=$(jget "$TB_DIR/$1.tx.json" sent)
	echo $((${s:-0} + FIN))
}

# flow_intact NAME WHAT: all arrived, intact, in order (0.1 %, see
# daemon_lib.sh's udp_intact), and nothing of another run
flow_intact() {
	local f=$TB_DIR/$1.rx.json
	check "$2: all arrived intact, in order, nothing foreign" \
		'unique == expected && expected > 0 && corrupted == 0 &&
		 dup == 0 && reordered <= expected / 1000 && foreign == 0 &&
		 oor == 0' \
		"unique=$(jget "$f" unique)" "expected=$(jget "$f" expected)" \
		"corrupted=$(jget "$f" corrupted)" "dup=$(jget "$f" duplicates)" \
		"reordered=$(jget "$f" reordered)" "foreign=$(jget "$f" foreign)" \
		"oor=$(jget "$f" out_of_range)"
}

# Packets the emulated links' rate limiters dropped (all tbf of dsl, lte):
# a loss a flow check reports is the testbed's if it shows here.
tbf_drops() {
	local box
	for box in dsl lte; do
		tb_exec "$box" tc -s qdisc show
	done | awk '/dropped/ { sub(",", "", $7); n += $7 } END { print n + 0 }'
}

# diag: after a failed check, the daemons' non-zero drop and wait counters
# (since their start) and the links' drops, to tell a daemon's loss from
# the testbed's.
diag() {
	local box
	echo "  diagnostics: link rate limiters dropped $(tbf_drops)"
	for box in conc cpe cpe2; do
		refresh "$box"
		grep -E '(late|hole_timeout|hole_overflow|kernel_dropped|kernel_user_dropped|no_path|no_session|no_slot|verdict_errors|awi|oversize|too_big)=' \
			"$(status_file "$box")" | grep -v '=0$' | sed "s/^/  $box /" || true
	done
}

log_lines() {
	cnt "$2" <"$TB_DIR/$1.log"
}

# ---- setup ------------------------------------------------------------------

tb_init
# Deep tbf queues (200 ms): no flow here comes near a link's rate, but on a
# loaded machine a starved emulator releases what it held in one burst,
# which a 50 ms queue would partly drop.
tb_setup seed=3 dsl_qlat=200 lte_qlat=200
tb_site2_setup
write_all_confs

daemon_start conc
daemon_start cpe
daemon_start cpe2
if wait_sess_up cpe "" && wait_sess_up cpe2 "" &&
	wait_sess_up conc cpe.alice. && wait_sess_up conc cpe.bob.; then
	ok "three daemons up: both CPEs' sessions up, both paths each"
else
	bad "sessions not up: alice $(st conc cpe.alice.session_state)" \
		"$(st conc cpe.alice.path.dsl.up)/$(st conc cpe.alice.path.lte.up)," \
		"bob $(st conc cpe.bob.session_state)" \
		"$(st conc cpe.bob.path.dsl.up)/$(st conc cpe.bob.path.lte.up)"
	cat "$TB_DIR/conc.log"
	tb_abort
fi

# ---- 1. both sessions at the concentrator -------------------------------------

check "the capture set holds both CPEs' prefixes, one rule per family matches it" \
	'm == "10.0.1.0/24 10.0.3.0/24 " && r == 2 * w' "m=$(set_members)" \
	"r=$(tb_exec conc iptables -w -t mangle -S L3B_ING | grep -c 'match-set l3b_q[0-9]*_v4 dst' || true)" \
	"w=${L3B_WORKERS:-1}"

refresh conc
check "concentrator: 2 CPEs from cpes and cpe_dir, started as such" \
	'n == 1' "n=$(log_lines conc 'role concentrator, 2 CPEs')"
check "concentrator: each session its id, one handshake, no restart" \
	'ia == a && ib == b && ha == 1 && hb == 1 && ra == 0 && rb == 0' \
	"a=$ID_A" "b=$ID_B" "ia=$(st conc cpe.alice.session)" \
	"ib=$(st conc cpe.bob.session)" "ha=$(st conc cpe.alice.handshakes)" \
	"hb=$(st conc cpe.bob.handshakes)" \
	"ra=$(st conc cpe.alice.egr.peer_restarts)" \
	"rb=$(st conc cpe.bob.egr.peer_restarts)"
peer_a_dsl=$(st conc cpe.alice.path.dsl.peer)
peer_b_dsl=$(st conc cpe.bob.path.dsl.peer)
peer_a_lte=$(st conc cpe.alice.path.lte.peer)
peer_b_lte=$(st conc cpe.bob.path.lte.peer)
echo "  peers at the concentrator: alice dsl $peer_a_dsl lte $peer_a_lte;" \
	"bob dsl $peer_b_dsl lte $peer_b_lte"
if [ "$peer_a_dsl" = "$TB_CPE_DSL_IP:7040" ] &&
	[ "$peer_b_dsl" = "$TB_CPE2_DSL_IP:7040" ] &&
	[ "${peer_a_lte%:*}" = "$TB_LTE_CONC_IP" ] &&
	[ "${peer_b_lte%:*}" = "$TB_LTE_CONC_IP" ] &&
	[ "$peer_a_lte" != "$peer_b_lte" ]; then
	ok "each session its own peers; both LTE paths at the NAT's address, two ports"
else
	bad "peers: alice $peer_a_dsl $peer_a_lte, bob $peer_b_dsl $peer_b_lte"
fi
# the queues' own counters are not a session's
if has_keys conc "ing.pkts=" && has_keys conc "egr.session=" &&
	! has_keys conc "cpe.alice.ing.pkts=" && has_keys conc "cpe.bob.egr.spoofed="; then
	ok "status: queue counters global, session keys under cpe.<name>."
else
	bad "status key layout"
fi
# l3bondctl's answer for one CPE, or for none (the status of thousands
# takes megabytes): with workers, the first process asks each worker
ctl() {
	"$L3BONDCTL" -s "$(ctl_socket conc)" "$@"
}
cpes_shown() { # the CPEs of a status table, sorted, one line
	awk '$1 == "cpe" { print $2 }' | sort | tr '\n' ' '
}
all=$(ctl status | cpes_shown)
one=$(ctl status --cpe alice | cpes_shown)
none=$(ctl status --totals | cpes_shown)
tot_pkts=$(ctl status --totals --json |
	jq -r 'select((.sessions // []) == []) | .ingress.pkts // empty' || true)
met=$(ctl metrics --cpe bob | grep -o 'cpe="[a-z]*"' | sort -u | tr '\n' ' ')
nobody=$(ctl status --cpe nobody 2>&1) && nobody_rc=0 || nobody_rc=$?
echo "  l3bondctl status: all '$all', --cpe alice '$one', --totals '$none'" \
	"(its pkts '$tot_pkts'), metrics --cpe bob '$met';" \
	"--cpe nobody: rc $nobody_rc '$nobody'"
if [ "$all" = "alice bob " ] && [ "$one" = "alice " ] && [ -z "$none" ] &&
	[ -n "$tot_pkts" ] && [ "$met" = 'cpe="bob" ' ] &&
	[ "$nobody_rc" = 1 ] && [[ $nobody == *"no CPE named 'nobody'"* ]]; then
	ok "l3bondctl status/metrics --cpe NAME show one CPE, --totals none, an unknown name refused"
else
	bad "l3bondctl status --cpe / --totals"
fi

# ---- 2. both bonded at once ---------------------------------------------------

fail_before=$fail
KEYS_CONC=(cpe.alice.ing.bonded cpe.bob.ing.bonded cpe.alice.egr.released
	cpe.bob.egr.released cpe.alice.egr.spoofed cpe.bob.egr.spoofed
	ing.no_cpe egr.session)
KEYS_CPE=(ing.bonded egr.released ing.pkts)
refresh conc
refresh cpe
refresh cpe2
counters_mark conc f "${KEYS_CONC[@]}"
counters_mark cpe f "${KEYS_CPE[@]}"
counters_mark cpe2 f "${KEYS_CPE[@]}"
rx_start cli 5000 a_down 9
rx_start cli2 5000 b_down 9
rx_start srv 5001 a_up 9
rx_start srv 5002 b_up 9
tx_start srv "$TB_CLI_IP" 5000 a_down 12 4
tx_start srv "$TB_CLI2_IP" 5000 b_down 12 4
tx_start cli "$TB_SRV_IP" 5001 a_up 4 4
tx_start cli2 "$TB_SRV_IP" 5002 b_up 4 4
flows_wait
flow_intact a_down "srv -> cli (alice, 12 Mbit/s)"
flow_intact b_down "srv -> cli2 (bob, 12 Mbit/s, at the same time)"
flow_intact a_up "cli -> srv (alice, 4 Mbit/s, at the same time)"
flow_intact b_up "cli2 -> srv (bob, 4 Mbit/s, at the same time)"
refresh conc
refresh cpe
refresh cpe2
echo "  rate limiters of the emulated links dropped $(tbf_drops) packets so far"
echo "  figures: down alice $(jget "$TB_DIR/a_down.rx.json" throughput_mbit)" \
	"bob $(jget "$TB_DIR/b_down.rx.json" throughput_mbit) Mbit/s; p99 delay" \
	"$(jget "$TB_DIR/a_down.rx.json" delay_p99_ms) / $(jget "$TB_DIR/b_down.rx.json" delay_p99_ms) ms"
check "concentrator: alice's session bonded exactly srv -> cli, bob's exactly srv -> cli2" \
	'ba == sa && bb == sb' "ba=$(counters_delta conc f cpe.alice.ing.bonded)" \
	"sa=$(sent a_down)" "bb=$(counters_delta conc f cpe.bob.ing.bonded)" \
	"sb=$(sent b_down)"
check "concentrator: alice's session released exactly cli -> srv, bob's exactly cli2 -> srv" \
	'ra == sa && rb == sb' "ra=$(counters_delta conc f cpe.alice.egr.released)" \
	"sa=$(sent a_up)" "rb=$(counters_delta conc f cpe.bob.egr.released)" \
	"sb=$(sent b_up)"
check "cpe: bonded exactly cli -> srv, released exactly srv -> cli" \
	'b == su && r == sd' "b=$(counters_delta cpe f ing.bonded)" \
	"su=$(sent a_up)" \
	"r=$(counters_delta cpe f egr.released)" "sd=$(sent a_down)"
check "cpe2: bonded exactly cli2 -> srv, released exactly srv -> cli2" \
	'b == su && r == sd' "b=$(counters_delta cpe2 f ing.bonded)" \
	"su=$(sent b_up)" \
	"r=$(counters_delta cpe2 f egr.released)" "sd=$(sent b_down)"
check "no spoofed drop, no unknown session, nothing unrouted" \
	'a == 0 && b == 0 && s == 0 && n == 0' \
	"a=$(counters_delta conc f cpe.alice.egr.spoofed)" \
	"b=$(counters_delta conc f cpe.bob.egr.spoofed)" \
	"s=$(counters_delta conc f egr.session)" \
	"n=$(counters_delta conc f ing.no_cpe)"

[ "$fail" -eq "$fail_before" ] || diag

# ---- 3. spoofing: site 2 sends as site 1 -----------------------------------

tb_exec cli2 ip addr add "$SPOOF_SRC/32" dev eth0
tb_exec cli2 ip route add "$SPOOF_DST/32" via "$TB_CPE2_LAN_IP" src "$SPOOF_SRC"
tb_exec srv ip addr add "$SPOOF_DST/32" dev eth0
# counters (the target only gives the listing its source column)
tb_exec srv iptables -w -A INPUT -s "$SPOOF_SRC" -j ACCEPT
tb_exec srv iptables -w -A FORWARD -s "$SPOOF_SRC" -j ACCEPT
refresh conc
refresh cpe2
DIAG_CONC=(cpe.bob.egr.hole_timeout cpe.bob.egr.hole_early cpe.bob.egr.late
	cpe.bob.egr.dup cpe.bob.egr.hole_path_down egr.kernel_dropped
	egr.kernel_user_dropped ing.kernel_dropped cpe.bob.path.dsl.data_lost
	cpe.bob.path.lte.data_lost)
DIAG_CPE=(path.dsl.sent path.lte.sent ing.awi ing.no_path ing.no_session
	ing.unfit ing.kernel_dropped ing.kernel_user_dropped)
counters_mark conc s "${KEYS_CONC[@]}" "${DIAG_CONC[@]}"
counters_mark cpe2 s "${KEYS_CPE[@]}" "${DIAG_CPE[@]}"
rx_start srv 5003 spoof 7
rx_start srv 5002 legit 7
tx_start cli2 "$SPOOF_DST" 5003 spoof 4 2 500
tx_start cli2 "$TB_SRV_IP" 5002 legit 4 2 500
flows_wait
refresh conc
refresh cpe2
spoof_sent=$(sent spoof)
check "spoofing: every packet of cli2 with source $SPOOF_SRC bonded by cpe2 and dropped as cpe.bob.egr.spoofed" \
	'sp == n && n > 900 && bonded == n + l' \
	"sp=$(counters_delta conc s cpe.bob.egr.spoofed)" "n=$spoof_sent" \
	"bonded=$(counters_delta cpe2 s ing.bonded)" "l=$(sent legit)"
check "spoofing: not counted against alice, not released by either session" \
	'a == 0 && ra == 0 && rb <= l' \
	"a=$(counters_delta conc s cpe.alice.egr.spoofed)" \
	"ra=$(counters_delta conc s cpe.alice.egr.released)" \
	"rb=$(counters_delta conc s cpe.bob.egr.released)" "l=$(sent legit)"
spoof_rx=$(tb_exec srv iptables -w -nvxL INPUT | awk -v s="$SPOOF_SRC" '$8 == s { n += $1 } END { print n + 0 }')
spoof_fw=$(tb_exec srv iptables -w -nvxL FORWARD | awk -v s="$SPOOF_SRC" '$8 == s { n += $1 } END { print n + 0 }')
check "spoofing: nothing from $SPOOF_SRC reached srv" \
	'ipt == 0 && fw == 0 && rx == 0' "ipt=$spoof_rx" "fw=$spoof_fw" \
	"rx=$(jget "$TB_DIR/spoof.rx.json" received)"
# bob's own flow at the same time arrives whole: a spoofed DATA packet is
# authentic, so it keeps its place in the session's sequence and is
# dropped in its turn (not a gap the resequencer would wait for, nor loss
# in the reports to cpe2).
lf=$TB_DIR/legit.rx.json
check "cli2 -> srv during the spoofing (bob's own source): intact, nothing foreign" \
	'unique > 0 && corrupted == 0 && dup == 0 && foreign == 0 && oor == 0' \
	"unique=$(jget "$lf" unique)" "corrupted=$(jget "$lf" corrupted)" \
	"dup=$(jget "$lf" duplicates)" "foreign=$(jget "$lf" foreign)" \
	"oor=$(jget "$lf" out_of_range)"
check "spoofing: no gap, no timeout, no loss reported for the spoofed packets" \
	'ht == 0 && dl == 0 && ll == 0' \
	"ht=$(counters_delta conc s cpe.bob.egr.hole_timeout)" \
	"dl=$(counters_delta conc s cpe.bob.path.dsl.data_lost)" \
	"ll=$(counters_delta conc s cpe.bob.path.lte.data_lost)"
rate_check "cli2 -> srv during the spoofing: all arrived" \
	'expected > 0 && unique == expected' \
	"unique=$(jget "$lf" unique)" "expected=$(jget "$lf" expected)"
echo "  bob's flow during the spoofing: lost $(jget "$lf" lost) of" \
	"$(jget "$lf" expected), delay p50 $(jget "$lf" delay_p50_ms) p99" \
	"$(jget "$lf" delay_p99_ms) ms; counters (growth):"
for k in "${DIAG_CONC[@]}"; do
	printf '  conc %s +%s\n' "$k" "$(counters_delta conc s "$k")"
done
for k in "${DIAG_CPE[@]}"; do
	printf '  cpe2 %s +%s\n' "$k" "$(counters_delta cpe2 s "$k")"
done
tb_exec cli2 ip route del "$SPOOF_DST/32"
tb_exec cli2 ip addr del "$SPOOF_SRC/32" dev eth0

# ---- 4. a third CPE with bob's session id and another key --------------------

ip netns add "$(tb_ns rogue)"
TB_NS_MADE+=("$(tb_ns rogue)")
tb_exec rogue ip link set lo up
tb__veth rogue dsl dsl rogue
tb__addr rogue dsl $TB_ROGUE_IP
tb__addr dsl rogue $TB_DSL_ROGUE_IP
tb_exec rogue ip route add default via $TB_DSL_ROGUE_IP
tb_exec conc ip route add 10.14.0.0/24 via "$TB_DSL_CONC_IP" dev dsl
# both paths over its one link, to conc's dsl address
cpe_conf $ID_B "$KEY_X" dsl "$TB_CONC_DSL_IP" >"$TB_DIR/rogue.conf"
chmod 600 "$TB_DIR/rogue.conf"
refresh conc
counters_mark conc r cpe.bob.egr.auth.bad_tag cpe.bob.handshakes \
	cpe.bob.egr.peer_restarts cpe.bob.path.dsl.up_events \
	cpe.bob.path.lte.up_events cpe.alice.egr.auth.bad_tag
daemon_start rogue
sleep 2.5
refresh rogue
refresh conc
check "wrong key: the rogue CPE has no session, never got a HELLO_ACK" \
	'state == "none" && hs == 0 && acks == 0 && hellos > 4' \
	"state=$(st rogue session_state)" "hs=$(stn rogue handshakes)" \
	"acks=$(stn rogue egr.ctrl.hello_ack)" "hellos=$(stn rogue hellos)"
check "wrong key: its HELLOs counted in cpe.bob.egr.auth.bad_tag, none against alice" \
	'bt >= 4 && at == 0' "bt=$(counters_delta conc r cpe.bob.egr.auth.bad_tag)" \
	"at=$(counters_delta conc r cpe.alice.egr.auth.bad_tag)"
check "wrong key: bob's session untouched (handshakes, restarts, paths, peers)" \
	'hs == 0 && pr == 0 && ud == 0 && ul == 0 && st == "up" && pd == ed && pl == el' \
	"hs=$(counters_delta conc r cpe.bob.handshakes)" \
	"pr=$(counters_delta conc r cpe.bob.egr.peer_restarts)" \
	"ud=$(counters_delta conc r cpe.bob.path.dsl.up_events)" \
	"ul=$(counters_delta conc r cpe.bob.path.lte.up_events)" \
	"st=$(st conc cpe.bob.session_state)" \
	"pd=$(st conc cpe.bob.path.dsl.peer)" "ed=$peer_b_dsl" \
	"pl=$(st conc cpe.bob.path.lte.peer)" "el=$peer_b_lte"
kill -TERM "${DPID[rogue]}"
tb_wait "${DPID[rogue]}" 5 || true
check "wrong key: site 2 still bonded (3 pings cli2 -> srv)" 'n == 3' \
	"n=$(ping_count cli2 $TB_SRV_IP 3)"

# ---- 5. SIGHUP: bob removed and added back during alice's flow ---------------

settle_two() {
	local t0
	t0=$(now_ms)
	while in_time "$t0" 30000; do
		refresh conc
		[ "$(st conc cpe.alice.w_mobile)" = 0 ] && return 0
		sleep 0.1
	done
}
settle_two
fail_before=$fail
refresh conc
refresh cpe
counters_mark conc h cpe.alice.handshakes cpe.alice.egr.peer_restarts cpe.alice.tx_pn \
	cpe.alice.path.dsl.up_events cpe.alice.path.lte.up_events egr.session \
	cpe.alice.ing.bonded ing.pkts ing.no_cpe
counters_mark cpe h handshakes rekeys egr.peer_restarts
rx_start cli 5000 hup 14
tx_start srv "$TB_CLI_IP" 5000 hup 12 10
sleep 1.5
mv "$TB_DIR/cpes.d/bob.conf" "$TB_DIR/cpes.d/bob.conf.off"
kill -HUP "${DPID[conc]}"
t0=$(now_ms)
gone_ms=-1
for ((i = 0; i < 30; i++)); do
	refresh conc
	if ! has_keys conc "cpe.bob."; then
		gone_ms=$(($(now_ms) - t0))
		break
	fi
	sleep 0.05
done
check "SIGHUP without bob's file: bob's keys gone from the status (${gone_ms} ms), alice's there" \
	'g >= 0 && a == "up"' "g=$gone_ms" "a=$(st conc cpe.alice.session_state)"
check "SIGHUP without bob's file: his prefix gone from the capture set, alice's there" \
	'm == "10.0.1.0/24 "' "m=$(set_members)"
# cpe2 hears nothing any more: its idle session's next probe
# (idle_probe_ms, 20 s) goes unanswered, its paths go down after
# dead_after_ms, then it lets site 2's traffic go natively
down=0
t0=$(now_ms)
while in_time "$t0" 40000; do
	refresh cpe2
	if [ "$(st cpe2 path.dsl.up)" = 0 ] && [ "$(st cpe2 path.lte.up)" = 0 ]; then
		down=1
		break
	fi
	sleep 0.1
done
check "bob removed: cpe2's paths down (nothing answers its session)" 'd == 1' \
	"d=$down"
refresh conc
refresh cpe2
counters_mark conc n ing.pkts cpe.alice.ing.bonded ing.no_cpe egr.session
counters_mark cpe2 n ing.bonded egr.released
n_native=$(ping_count cli2 $TB_SRV_IP 3)
refresh conc
refresh cpe2
check "bob removed: site 2 goes natively (pings answered, nothing bonded by cpe2 or the concentrator)" \
	'n == 3 && b2 == 0 && r2 == 0 && q == a && nc == 0' "n=$n_native" \
	"b2=$(counters_delta cpe2 n ing.bonded)" \
	"r2=$(counters_delta cpe2 n egr.released)" \
	"q=$(counters_delta conc n ing.pkts)" \
	"a=$(counters_delta conc n cpe.alice.ing.bonded)" \
	"nc=$(counters_delta conc n ing.no_cpe)"
check "bob removed: cpe2's tunnel packets refused as an unknown session (egr.session)" \
	's > 0' "s=$(counters_delta conc h egr.session)"
mv "$TB_DIR/cpes.d/bob.conf.off" "$TB_DIR/cpes.d/bob.conf"
kill -HUP "${DPID[conc]}"
t0=$(now_ms)
back_ms=-1
for ((i = 0; i < 60; i++)); do
	refresh conc
	if [ "$(st conc cpe.bob.session_state)" = up ] &&
		[ "$(st conc cpe.bob.path.dsl.up)" = 1 ] &&
		[ "$(st conc cpe.bob.path.lte.up)" = 1 ]; then
		back_ms=$(($(now_ms) - t0))
		break
	fi
	sleep 0.05
done
check "SIGHUP with bob's file back: bob's session and both paths up within 2 s (${back_ms} ms)" \
	'b >= 0 && b <= 2000 && h == 1' "b=$back_ms" \
	"h=$(stn conc cpe.bob.handshakes)"
check "SIGHUP with bob's file back: his prefix back in the capture set" \
	'm == "10.0.1.0/24 10.0.3.0/24 "' "m=$(set_members)"
flows_wait
refresh conc
refresh cpe
flow_intact hup "srv -> cli (alice) across both SIGHUPs"
echo "  rate limiters of the emulated links dropped $(tbf_drops) packets so far"
echo "  alice's flow across the reloads: lost $(jget "$TB_DIR/hup.rx.json" lost)" \
	"of $(jget "$TB_DIR/hup.rx.json" expected), p99 delay" \
	"$(jget "$TB_DIR/hup.rx.json" delay_p99_ms) ms"
check "SIGHUPs: alice's session untouched at the concentrator (handshakes, restarts, path up events, tx_pn)" \
	'h == 0 && r == 0 && d == 0 && l == 0 && pn > 15000' \
	"pn=$(counters_delta conc h cpe.alice.tx_pn)" \
	"h=$(counters_delta conc h cpe.alice.handshakes)" \
	"r=$(counters_delta conc h cpe.alice.egr.peer_restarts)" \
	"d=$(counters_delta conc h cpe.alice.path.dsl.up_events)" \
	"l=$(counters_delta conc h cpe.alice.path.lte.up_events)"
check "SIGHUPs: site 1's CPE saw nothing (handshakes, rekeys, restarts)" \
	'h == 0 && r == 0 && p == 0' "h=$(counters_delta cpe h handshakes)" \
	"r=$(counters_delta cpe h rekeys)" \
	"p=$(counters_delta cpe h egr.peer_restarts)"
check "SIGHUPs: logged (bob removed, 1 added)" 'r == 1 && a == 1' \
	"r=$(log_lines conc 'cpe bob: removed from the configuration')" \
	"a=$(log_lines conc 'sessions: 1 added, 0 removed')"

[ "$fail" -eq "$fail_before" ] || diag

# A reload that cannot apply (a third CPE whose prefix overlaps alice's)
# is refused as a whole: both sessions go on as they were.
refresh conc
counters_mark conc b cpe.alice.handshakes cpe.bob.handshakes \
	cpe.alice.path.dsl.up_events cpe.bob.path.dsl.up_events
printf 'session_id = 13;\nkey = "%s";\nprefixes = [ "10.0.1.128/25" ];\n' \
	"$KEY_X" >"$TB_DIR/cpes.d/carol.conf"
kill -HUP "${DPID[conc]}"
for ((i = 0; i < 30; i++)); do
	[ "$(log_lines conc 'reload refused')" -ge 1 ] && break
	sleep 0.05
done
rm -f "$TB_DIR/cpes.d/carol.conf"
refresh conc
check "SIGHUP with an overlapping prefix: refused (naming the file), both sessions as they were" \
	'r == 1 && o == 1 && c == 0 && ha == 0 && hb == 0 && ua == 0 && ub == 0 && sa == "up" && sb == "up"' \
	"r=$(log_lines conc 'reload refused, old configuration kept')" \
	"o=$(grep 'reload refused' "$TB_DIR/conc.log" | cnt 'carol.conf')" \
	"c=$(grep -c '^cpe\.carol\.' "$(status_file conc)" || true)" \
	"ha=$(counters_delta conc b cpe.alice.handshakes)" \
	"hb=$(counters_delta conc b cpe.bob.handshakes)" \
	"ua=$(counters_delta conc b cpe.alice.path.dsl.up_events)" \
	"ub=$(counters_delta conc b cpe.bob.path.dsl.up_events)" \
	"sa=$(st conc cpe.alice.session_state)" "sb=$(st conc cpe.bob.session_state)"

# ---- 6. SIGHUP: a new key for bob, and encryption for bob only ---------------

refresh conc
refresh cpe
counters_mark conc k cpe.alice.handshakes cpe.alice.egr.peer_restarts cpe.alice.tx_pn \
	cpe.alice.path.dsl.up_events cpe.alice.path.lte.up_events
counters_mark cpe k handshakes rekeys
rx_start cli 5000 rekey 10
tx_start srv "$TB_CLI_IP" 5000 rekey 10 5
sleep 1
bob_file "$KEY_B2" true >"$TB_DIR/cpes.d/bob.conf"
kill -HUP "${DPID[conc]}"
new=0
for ((i = 0; i < 30; i++)); do
	if [ "$(log_lines conc 'cpe bob: key or encrypt changed: new session')" = 1 ]; then
		new=1
		break
	fi
	sleep 0.05
done
# cpe2 still has the old key: its packets fail the new session's keys.
# Its session is idle (it probes every idle_probe_ms): bob's own traffic
# makes it send (the pings' answers cannot come)
ping_count cli2 "$TB_SRV_IP" 3 >/dev/null
sleep 0.3
refresh conc
check "new key for bob: a fresh session at the concentrator, the old key refused" \
	'n == 1 && st == "none" && h == 0 && bt > 0' "n=$new" \
	"st=$(st conc cpe.bob.session_state)" "h=$(stn conc cpe.bob.handshakes)" \
	"bt=$(stn conc cpe.bob.egr.auth.bad_tag)"
kill -TERM "${DPID[cpe2]}"
tb_wait "${DPID[cpe2]}" 5 || true
{
	cpe_conf $ID_B "$KEY_B2"
	echo "encrypt = true;"
} >"$TB_DIR/cpe2.conf"
daemon_start cpe2
if wait_sess_up cpe2 "" && wait_sess_up conc cpe.bob.; then
	ok "new key for bob: cpe2 with the new key up, bob's session up"
else
	bad "bob not up with the new key: $(st conc cpe.bob.session_state)"
fi
flows_wait
refresh conc
refresh cpe
refresh cpe2
check "new key for bob: one handshake in bob's fresh session, encrypted; alice's not" \
	'h == 1 && eb == 1 && e2 == 1 && ea == 0 && e1 == 0' \
	"h=$(stn conc cpe.bob.handshakes)" "eb=$(st conc cpe.bob.encrypt)" \
	"e2=$(st cpe2 encrypt)" "ea=$(st conc cpe.alice.encrypt)" \
	"e1=$(st cpe encrypt)"
flow_intact rekey "srv -> cli (alice) across bob's new key"
check "new key for bob: alice untouched (both ends)" \
	'h == 0 && r == 0 && d == 0 && l == 0 && ch == 0 && cr == 0 && pn > 6000' \
	"pn=$(counters_delta conc k cpe.alice.tx_pn)" \
	"h=$(counters_delta conc k cpe.alice.handshakes)" \
	"r=$(counters_delta conc k cpe.alice.egr.peer_restarts)" \
	"d=$(counters_delta conc k cpe.alice.path.dsl.up_events)" \
	"l=$(counters_delta conc k cpe.alice.path.lte.up_events)" \
	"ch=$(counters_delta cpe k handshakes)" \
	"cr=$(counters_delta cpe k rekeys)"
refresh conc
counters_mark conc g cpe.alice.ing.bonded cpe.bob.ing.bonded
rx_start cli 5000 a2 7
rx_start cli2 5000 b2 7
tx_start srv "$TB_CLI_IP" 5000 a2 12 2
tx_start srv "$TB_CLI2_IP" 5000 b2 12 2
flows_wait
refresh conc
flow_intact a2 "srv -> cli after the reloads"
flow_intact b2 "srv -> cli2 after the reloads (bob's new key, encrypted)"
check "after the reloads: each session bonded exactly its own flow" \
	'ba == sa && bb == sb' "ba=$(counters_delta conc g cpe.alice.ing.bonded)" \
	"sa=$(sent a2)" \
	"bb=$(counters_delta conc g cpe.bob.ing.bonded)" \
	"sb=$(sent b2)"

# ---- 7. memory ----------------------------------------------------------------

rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/${DPID[conc]}/status")
hwm_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/${DPID[conc]}/status")
echo "  concentrator with 2 CPEs: VmRSS $rss_kb kB (peak $hwm_kb kB)"
check "concentrator memory with 2 CPEs below 64 MiB" 'hwm < 65536' \
	"hwm=$hwm_kb"
check "no error logged by any daemon (but the refused reload)" 'e == 1' \
	"e=$(cat "$TB_DIR"/{conc,cpe,cpe2}.log | cnt ': error: ')"

# ---- 8. workers ---------------------------------------------------------------

# qseq Q: packets the kernel has queued to NFQUEUE Q in the concentrator's
# namespace (its id_sequence), 0 when nothing is bound to it
qseq() {
	tb_exec conc cat /proc/net/netfilter/nfnetlink_queue |
		awk -v q="$1" '$1 == q { n = $8 } END { print n + 0 }'
}

if [ -n "${L3B_WORKERS:-}" ]; then
	nw=$L3B_WORKERS
	check_print_rules conc
	# the default (no workers key): one per core, as the rules say
	grep -v '^[[:space:]]*workers = ' "$TB_DIR/conc.conf" >"$TB_DIR/default.conf"
	chmod 600 "$TB_DIR/default.conf"
	check "workers: without the key, one per core ($(nproc) cores online)" \
		'q == (c > 64 ? 64 : c)' "c=$(nproc)" \
		"q=$("$L3BONDD" -c "$TB_DIR/default.conf" --print-rules iptables |
			grep -o 'l3b_q[0-9]*_v4 dst' | sort -u | wc -l)"
	# ... and the count holds while the daemon runs: a reload to it with
	# a class in mode bypass (which makes the default one worker) is
	# refused, naming both counts
	cp "$TB_DIR/conc.conf" "$TB_DIR/conc.conf.keep"
	{ cat "$TB_DIR/default.conf"
	  echo 'traffic_classes = ( { name = "v"; match = { dscp = [46]; }; mode = "bypass"; } );'
	} >"$TB_DIR/conc.conf"
	out=$(ctl reload 2>&1) && rrc=0 || rrc=$?
	cp "$TB_DIR/conc.conf.keep" "$TB_DIR/conc.conf"
	echo "  reload to the default with a bypass class: rc $rrc: $out"
	# running on the default: the count it would give is refused; on
	# workers = N, the key's change is
	if [ -z "$(workers_line)" ]; then
		want="workers would be 1, not the $nw running"
	else
		want="workers changed; restart"
	fi
	check "workers: a reload that would change their count is refused" \
		'r == 1 && m == 1' "r=$rrc" \
		"m=$([[ $out == *"$want"* ]] && echo 1 || echo 0)"
	refresh conc
	wpids=$(pgrep -P "${DPID[conc]}" | sort -n | tr '\n' ' ')
	check "workers: $nw up, as the status and the processes say" \
		'w == n && u == n && p == n && r == 0' "n=$nw" \
		"w=$(st conc workers)" "u=$(st conc workers_up)" \
		"p=$(echo $wpids | wc -w)" "r=$(st conc worker_restarts)"
	# alice: 11 mod nw, bob: 12 mod nw; worker k: queues 2k, 2k+1
	wa=$((ID_A % nw))
	wb=$((ID_B % nw))
	qa=$(qseq $((2 * wa)))
	qb=$(qseq $((2 * wb)))
	ea=$(qseq $((2 * wa + 1)))
	eb=$(qseq $((2 * wb + 1)))
	echo "  kernel queues: alice's worker $wa ingress $qa egress $ea;" \
		"bob's worker $wb ingress $qb egress $eb"
	check "workers: alice's and bob's packets steered by the kernel to their own workers' queues" \
		'wa != wb && qa > 0 && qb > 0 && ea > 0 && eb > 0' \
		"wa=$wa" "wb=$wb" "qa=$qa" "qb=$qb" "ea=$ea" "eb=$eb"
	# the queues' own counters: the workers' summed (each packet of the
	# kernel's queues was taken by its worker, nothing else)
	check "workers: the first process's ing.pkts and egr.pkts are the workers' queues' sums" \
		'ip >= qa + qb - 2 * slack && ip <= qa + qb && ep >= ea + eb - 2 * slack && ep <= ea + eb' \
		"ip=$(st conc ing.pkts)" "ep=$(st conc egr.pkts)" \
		"qa=$(qseq $((2 * wa)))" "qb=$(qseq $((2 * wb)))" \
		"ea=$(qseq $((2 * wa + 1)))" "eb=$(qseq $((2 * wb + 1)))" \
		"slack=200"
	hb0=$(st conc cpe.bob.handshakes)
	# alice's worker: the child whose control socket is ".wa"
	apid=""
	for p in $wpids; do
		if tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- "--worker $wa:"; then
			apid=$p
		fi
	done
	kill -KILL "$apid"
	t0=$(now_ms)
	# an idle CPE learns that its session is gone at its idle probe
	# (idle_probe_ms, 20 s); one that sends does from its next HELLO
	# (every 500 ms on a path in use): a trickle cli -> srv wakes it
	rx_start srv 5302 wake 9
	tx_start cli "$TB_SRV_IP" 5302 wake 1 8 200
	up=""
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		refresh conc
		if [ "$(st conc workers_up)" = "$nw" ] &&
			[ "$(st conc cpe.alice.session_state)" = up ] &&
			[ "$(st conc cpe.alice.path.dsl.up)" = 1 ] &&
			[ "$(st conc cpe.alice.path.lte.up)" = 1 ]; then
			up=$(($(now_ms) - t0))
			break
		fi
	done
	flows_wait
	echo "  alice's worker (pid $apid) killed: started again, alice's session and both paths up in ${up:-never} ms"
	check "workers: the killed worker started again, alice's session up again on it" \
		'up > 0 && r == 1 && ha == 1' "up=${up:-0}" \
		"r=$(st conc worker_restarts)" "ha=$(st conc cpe.alice.handshakes)"
	check "workers: bob's session untouched by alice's worker's death" \
		'hb == hb0 && s == 1' "hb=$(st conc cpe.bob.handshakes)" \
		"hb0=$hb0" "s=$([ "$(st conc cpe.bob.session_state)" = up ] && echo 1 || echo 0)"
	rx_start cli 5301 a3 4
	tx_start srv "$TB_CLI_IP" 5301 a3 8 3
	flows_wait
	flow_intact a3 "srv -> cli after alice's worker came back"
fi
wpids=$(pgrep -P "${DPID[conc]}" | tr '\n' ' ' || true)
kill -TERM "${DPID[conc]}"
tb_wait "${DPID[conc]}" 10 || true
check "the concentrator exited: its sets and capture rules gone" \
	's == 0 && r == 0' \
	"s=$(tb_exec conc ipset list -n | cnt 'l3b_q')" \
	"r=$(tb_exec conc iptables -w -t mangle -S | cnt 'L3B_ING')"
if [ -n "${L3B_WORKERS:-}" ]; then
	left=0
	for p in $wpids; do
		[ -e "/proc/$p" ] && left=$((left + 1))
	done
	check "workers: SIGTERM to the first process ends every worker, their steering rules gone" \
		'left == 0 && r == 0' "left=$left" \
		"r=$(tb_exec conc iptables -t raw -S | cnt L3B_EGR)"
fi

tb_done
