# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# tests/netns/daemon_lib.sh: the l3bondd part of the namespace test library
# (lib.sh sources it; the checks, JSON and traffic helpers are there): the
# testbed's configurations, starting the daemons, their status files and
# snapshots of them.
#
#   write_confs [K [EXTRA]]     cpe.conf and conc.conf for the testbed
#   daemon_start BOX            l3bondd in BOX (cpe or conc); DPID[BOX]
#   wait_up BOX                 both paths up
#   daemons_up                  both started, both up, or the run aborts
#   refresh BOX, st BOX KEY     the status file rewritten (SIGUSR1), a key
#   stn BOX KEY                 a key, 0 when absent
#   wait_sess_up BOX PREFIX [S] a session and both its paths up
#   now_ms, in_time T0 MS       the bound of a polling loop, in time
#   status_save BOX NAME        the whole status now, kept as NAME;
#   status_saved NAME KEY       a key of it
#   counters_mark BOX TAG KEY.. some keys now, kept under TAG;
#   counters_delta BOX TAG KEY  the growth of KEY since (refresh first)
#   settle, udp_intact, path_rx, tbf_down_bytes, conf_path_keys,
#   check_print_rules BOX     --print-rules passes iptables-, ip6tables-restore, nft -c
#
# Needs L3BONDD (the daemon) and TB_TRAFFIC (from lib.sh's tb_init).

# sourced once (scripts that predate lib.sh sourcing it source it again)
[ -n "${L3B_DAEMON_LIB:-}" ] && return 0
L3B_DAEMON_LIB=1

declare -A DPID=()
# extra options of every l3bondd started (a test may set them)
L3BONDD_ARGS=("${L3BONDD_ARGS[@]+"${L3BONDD_ARGS[@]}"}")
# The pre-shared key of both boxes (the config's key): a fresh one per
# test run, never a constant that could end up in a real config.  A test
# may set TB_KEY before sourcing this file.
TB_KEY=${TB_KEY:-$(head -c32 /dev/urandom | base64)}

# A key of a daemon's status (written on SIGUSR1, read once it changed).
status_file() {
	echo "${TB_RUN_DIR:-$TB_DIR}/$1.status"
}

# The box's control socket (l3bondctl -s): one per daemon, in the test's
# directory, not the default one of a real installation.
ctl_socket() {
	echo "$TB_DIR/$1.sock"
}

refresh() {
	local box=$1 f old i
	f=$(status_file "$box")
	# the file is replaced by rename: a new one has another inode or
	# mtime (to the nanosecond; whole seconds and the size, as this read
	# before, missed a rewrite within the second of the same size, and
	# every such refresh waited its full second)
	old=$(stat -c %i.%.9Y "$f" 2>/dev/null || echo none)
	kill -USR1 "${DPID[$box]}"
	for ((i = 0; i < 50; i++)); do
		sleep 0.02
		if [ -n "$(find "$f" -newermt "-0.5 seconds" 2>/dev/null)" ] &&
			[ "$(stat -c %i.%.9Y "$f" 2>/dev/null)" != "$old" ]; then
			break
		fi
	done
	sleep 0.05
}

st() {
	sed -n "s/^$2=//p" "$(status_file "$1")"
}

# stn BOX KEY: a key of the status, 0 when absent (a counter of a session
# that is gone)
stn() {
	local v
	v=$(st "$1" "$2")
	echo "${v:-0}"
}

# now_ms: the time in ms (the epoch's)
now_ms() {
	local t=$EPOCHREALTIME
	echo $((${t/./} / 1000))
}

# in_time T0 MS: true until MS ms have passed since T0 (now_ms).  A loop
# that polls the status is bounded in time, not in rounds: a round's
# refresh takes from 20 ms to a second.
in_time() {
	[ $(($(now_ms) - $1)) -lt "$2" ]
}

# wait_sess_up BOX PREFIX [SECONDS]: both paths of a session up ("" for a
# CPE's own session, "cpe.NAME." for one at the concentrator), within
# SECONDS (10)
wait_sess_up() {
	local box=$1 p=$2 ms=$((${3:-10} * 1000)) t0
	t0=$(now_ms)
	while in_time "$t0" "$ms"; do
		if [ -e "$(status_file "$box")" ]; then
			refresh "$box"
			if [ "$(st "$box" "${p}path.dsl.up")" = 1 ] &&
				[ "$(st "$box" "${p}path.lte.up")" = 1 ] &&
				[ "$(st "$box" "${p}session_state")" = up ]; then
				return 0
			fi
		fi
		sleep 0.1
	done
	return 1
}

# ---- snapshots of the status ------------------------------------------------

# status_save BOX NAME: the box's whole status now, in $TB_DIR/NAME.st
status_save() {
	refresh "$1"
	cp "$(status_file "$1")" "$TB_DIR/$2.st"
}

# status_saved NAME KEY: a key of the status status_save kept as NAME
status_saved() {
	sed -n "s/^$2=//p" "$TB_DIR/$1.st" | head -n 1
}

# counters_mark BOX TAG KEY...: remembers the keys' values (0 when absent:
# a counter of a session that is gone) as COUNTERS[TAG.KEY]
declare -A COUNTERS=()
counters_mark() {
	local box=$1 tag=$2 k v
	shift 2
	for k in "$@"; do
		v=$(st "$box" "$k")
		COUNTERS[$tag.$k]=${v:-0}
	done
}

# counters_delta BOX TAG KEY: the growth of KEY since counters_mark (the
# status refreshed before)
counters_delta() {
	local v
	v=$(st "$1" "$3")
	echo $((${v:-0} - ${COUNTERS[$2.$3]}))
}

# write_confs [K [EXTRA]]: cpe.conf and conc.conf for the testbed, with k,
# the key TB_KEY and EXTRA (more "key = value;" lines, e.g.
# "encrypt = true;") in both; the lte's class TB_LTE_CLASS (default
# mobile) on both; TB_CPE_EXTRA (more top-level keys) in the CPE's only
# (a path's keys: conf_path_keys).
# cpe_conf_text ID KEY [KEYS]: a CPE's config on the testbed, LAN "lan",
# both paths with lib.sh's routing marks (lte of class TB_LTE_CLASS,
# mobile); KEYS: more top-level keys
cpe_conf_text() {
	cat <<-EOF
		role = "cpe";
		session_id = $1;
		port = 7040;
		key = "$2";
		${3:-}
		lan_interfaces = [ "lan" ];
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl";
			  fwmark = $TB_DSL_MARK; peer = "$TB_CONC_DSL_IP"; },
			{ name = "lte"; class = "${TB_LTE_CLASS:-mobile}"; interface = "lte";
			  fwmark = $TB_LTE_MARK; peer = "$TB_CONC_LTE_IP"; }
		);
	EOF
}

write_confs() {
	local k=${1:-0.5} extra=${2:-} lte=${TB_LTE_CLASS:-mobile}
	cpe_conf_text 4242 "$TB_KEY" "k = $k;
		$extra
		${TB_CPE_EXTRA:-}
		release_mark = 0x100;" >"$TB_DIR/cpe.conf"
	cat >"$TB_DIR/conc.conf" <<-EOF
		role = "concentrator";
		session_id = 4242;
		port = 7040;
		workers = ${L3B_CONC_WORKERS:-1};
		k = $k;
		key = "$TB_KEY";
		$extra
		prefixes = [ "10.0.1.0/24" ];
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl"; },
			{ name = "lte"; class = "$lte"; interface = "lte"; }
		);
	EOF
}

daemon_start() {
	local box=$1
	rm -f "$(status_file "$box")"
	tb_bg "$box" "$TB_DIR/$box.log" "$L3BONDD" -c "$TB_DIR/$box.conf" \
		--status-file "$(status_file "$box")" \
		--control-socket "$(ctl_socket "$box")" "${L3BONDD_ARGS[@]}"
	DPID[$box]=$TB_LAST_PID
}

# check_print_rules BOX: what l3bondd --print-rules prints for BOX's
# config passes iptables-restore --test and ip6tables-restore --test (in
# BOX.rules and BOX.rules6), and nft -c (ok/bad lines)
check_print_rules() {
	local box=$1 fam v sets
	# a concentrator's rules name its sets of CPEs' prefixes: made first
	# (by ipset restore, from --print-rules ipset), unless its daemon
	# runs (then they are there) and removed after
	"$L3BONDD" -c "$TB_DIR/$box.conf" --print-rules ipset >"$TB_DIR/$box.ipset"
	sets=$(awk '$1 == "swap" { print $3 }' "$TB_DIR/$box.ipset")
	if [ -n "$sets" ] && [ -z "${DPID[$box]:-}" ]; then
		if tb_exec "$box" ipset restore <"$TB_DIR/$box.ipset"; then
			ok "$box: --print-rules ipset passes ipset restore"
		else
			bad "$box: ipset restore refused --print-rules ipset"
		fi
	else
		sets=
	fi
	for fam in iptables ip6tables; do
		v=${fam%tables}
		v=${v#ip}
		"$L3BONDD" -c "$TB_DIR/$box.conf" --print-rules "$fam" \
			>"$TB_DIR/$box.rules$v"
		if tb_exec "$box" "$fam-restore" --test --noflush \
			<"$TB_DIR/$box.rules$v" 2>"$TB_DIR/$box.rules$v.err"; then
			ok "$box: --print-rules $fam passes $fam-restore --test"
		else
			bad "$box: $fam-restore --test: $(cat "$TB_DIR/$box.rules$v.err")"
		fi
	done
	"$L3BONDD" -c "$TB_DIR/$box.conf" --print-rules nft >"$TB_DIR/$box.nft"
	if command -v nft >/dev/null; then
		# This kernel has no nft queue statement: nft -c fails on those
		# lines in the kernel ("Could not process rule"), not in the
		# parser.  So: the whole file must parse, and with each queue
		# statement swapped for a verdict the kernel must accept it.
		tb_exec "$box" nft -c -f "$TB_DIR/$box.nft" \
			>"$TB_DIR/$box.nft.err" 2>&1 || true
		sed -e 's/queue num [0-9]* bypass/accept/' \
			-e 's/queue num [0-9]*/drop/' "$TB_DIR/$box.nft" \
			>"$TB_DIR/$box.noq.nft"
		if ! grep -qi 'syntax error\|unexpected' "$TB_DIR/$box.nft.err" &&
			tb_exec "$box" nft -c -f "$TB_DIR/$box.noq.nft"; then
			ok "$box: --print-rules nft parses; accepted by nft -c without the queue statement"
		else
			bad "$box: nft: $(cat "$TB_DIR/$box.nft.err")"
		fi
	fi
	for v in $sets; do
		tb_exec "$box" ipset destroy "$v"
	done
}

# Waits until box's daemon has both paths up (20 s at most).
wait_up() {
	local box=$1 t0
	t0=$(now_ms)
	while in_time "$t0" 20000; do
		if [ -e "$(status_file "$box")" ]; then
			refresh "$box"
			if [ "$(st "$box" path.dsl.up)" = 1 ] &&
				[ "$(st "$box" path.lte.up)" = 1 ]; then
				return 0
			fi
		fi
		sleep 0.1
	done
	return 1
}

# Waits until the mobile weight that earlier tests raised has decayed
# (DWD) on both ends, so that a test starts from the idle state.  An idle
# session sends no REPORT, and its peer's DWD takes the steps of the idle
# intervals with the next one (ingress/sched.c): once neither end sent a
# REPORT for 0.3 s, the weight is as good as decayed after the time DWD
# needs from its ceiling (w_mobile_max 45 steps of 50 ms and its hold).
settle() {
	local t0 quiet=0 r r0=
	t0=$(now_ms)
	while in_time "$t0" 30000; do
		refresh conc
		refresh cpe
		if [ "$(st conc w_mobile)" = 0 ] && [ "$(st cpe w_mobile)" = 0 ]; then
			return 0
		fi
		r="$(st conc egr.reports_sent) $(st cpe egr.reports_sent)"
		if [ "$r" = "$r0" ]; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
		r0=$r
		if [ "$quiet" -ge 3 ]; then
			sleep 2.5
			return 0
		fi
		sleep 0.1
	done
}

# daemons_up: both daemons started (conc first), both paths up on both;
# the run aborted otherwise.
daemons_up() {
	daemon_start conc
	daemon_start cpe
	if wait_up cpe && wait_up conc; then
		ok "both daemons up, both paths up"
	else
		bad "paths not up: cpe $(st cpe path.dsl.up)/$(st cpe path.lte.up)"
		tb_abort
	fi
}

# Everything arrived, intact, in order.  "In order" allows 0.1 %: veth
# hands packets to the per-CPU backlog of the CPU the sender runs on, so a
# sender that migrates between the two cores can swap two packets at any
# hop, with or without the bond (seen here once in 12k 64-byte packets).
udp_intact() {
	local name=$1 what=$2 f=$TB_DIR/$1.rx.json
	check "$what: all arrived intact, in order" \
		'unique == expected && expected > 0 && corrupted == 0 &&
		 dup == 0 && reordered <= expected / 1000' \
		"unique=$(jget "$f" unique)" "expected=$(jget "$f" expected)" \
		"corrupted=$(jget "$f" corrupted)" "dup=$(jget "$f" duplicates)" \
		"reordered=$(jget "$f" reordered)"
}

# bytes a path carried downstream, seen at the cpe's egress
path_rx() {
	st cpe "path.$1.rx_bytes"
}

# Bytes the tbf of PATH (dsl or lte) sent towards the cpe: what the
# emulated line carried downstream, as the rate limiter counts it
# (Ethernet frames, fragments and control packets included).
tbf_down_bytes() {
	tb_exec "$1" tc -s qdisc show dev cpe | awk '/Sent/ { print $2; exit }'
}

# conf_path_keys FILE PATH TEXT: adds TEXT (more "key = value;" of a path,
# e.g. "mtu = 1400;") to the path named PATH in a config write_confs wrote.
conf_path_keys() {
	local f=$1 path=$2 text=$3
	awk -v n="name = \"$path\";" -v t="$text" '{
		i = index($0, n)
		if (i) {
			$0 = substr($0, 1, i + length(n) - 1) " " t \
				substr($0, i + length(n))
			done++
		}
		print
	} END { exit done != 1 }' "$f" >"$f.new"
	mv "$f.new" "$f"
}
