# shellcheck shell=bash
# tests/netns/daemon_lib.sh: helpers of the l3bondd namespace tests, on top
# of lib.sh (source lib.sh first).  Test bookkeeping (ok, bad, check),
# reading l3b-traffic's JSON and the daemons' status files, starting the
# daemons with the testbed's configuration, traffic runs.
#
# Needs L3BONDD (the daemon) and TB_TRAFFIC (from lib.sh's tb_init).

pass=0
fail=0
declare -A DPID=()
# extra options of every l3bondd started (a test may set them)
L3BONDD_ARGS=("${L3BONDD_ARGS[@]+"${L3BONDD_ARGS[@]}"}")
# The pre-shared key of both boxes (the config's key): a fresh one per
# test run, never a constant that could end up in a real config.  A test
# may set TB_KEY before sourcing this file.
TB_KEY=${TB_KEY:-$(head -c32 /dev/urandom | base64)}

ok() {
	pass=$((pass + 1))
	echo "PASS: $1"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $1"
}

# check NAME COND-TEXT: COND-TEXT is an awk expression over the variables
# given as further arguments name=value.
# rate_check NAME EXPR K=V...: a check on a rate.  In a sanitizer build
# (L3B_SANITIZED=1, set by ctest there) the daemons are several times
# slower, so the figures are printed but not asserted; everything else
# still runs under the sanitizers.
rate_check() {
	if [ "${L3B_SANITIZED:-0}" = 1 ]; then
		echo "  (sanitizer build, not asserted) $1: $*"
		return 0
	fi
	check "$@"
}

check() {
	local name=$1 expr=$2 kv args=()
	shift 2
	for kv in "$@"; do
		args+=(-v "$kv")
	done
	if awk "${args[@]}" "BEGIN { exit !($expr) }" 2>/dev/null; then
		ok "$name"
	else
		bad "$name: want $expr, got $*"
	fi
}

# Lines of stdin matching a fixed string (0 is not an error here).
cnt() {
	grep -c -F -- "$1" || true
}

# A field of l3b-traffic's flat JSON output.
jget() {
	sed -n "s/.*\"$2\":\\([^,}]*\\).*/\\1/p" "$1" | tr -d '"' | head -n 1
}

# A key of a daemon's status (written on SIGUSR1, read once it changed).
status_file() {
	echo "$TB_DIR/$1.status"
}

# The box's control socket (l3bondctl -s): one per daemon, in the test's
# directory, not the default one of a real installation.
ctl_socket() {
	echo "$TB_DIR/$1.sock"
}

refresh() {
	local box=$1 f old i
	f=$(status_file "$box")
	old=$(stat -c %Y.%s "$f" 2>/dev/null || echo none)
	kill -USR1 "${DPID[$box]}"
	# the file is replaced by rename: wait for the new one
	for ((i = 0; i < 50; i++)); do
		sleep 0.02
		if [ -n "$(find "$f" -newermt "-0.5 seconds" 2>/dev/null)" ] &&
			[ "$(stat -c %Y.%s "$f" 2>/dev/null)" != "$old" ]; then
			break
		fi
	done
	sleep 0.05
}

st() {
	sed -n "s/^$2=//p" "$(status_file "$1")"
}

# write_confs [K [EXTRA]]: cpe.conf and conc.conf for the testbed, with k,
# the key TB_KEY and EXTRA (more "key = value;" lines, e.g.
# "encrypt = true;") in both.
write_confs() {
	local k=${1:-0.5} extra=${2:-}
	cat >"$TB_DIR/cpe.conf" <<-EOF
		role = "cpe";
		session_id = 4242;
		port = 7040;
		k = $k;
		key = "$TB_KEY";
		$extra
		lan_interfaces = [ "lan" ];
		release_mark = 0x100;
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl";
			  fwmark = $TB_DSL_MARK; peer = "$TB_CONC_DSL_IP"; },
			{ name = "lte"; class = "mobile"; interface = "lte";
			  fwmark = $TB_LTE_MARK; peer = "$TB_CONC_LTE_IP"; }
		);
	EOF
	cat >"$TB_DIR/conc.conf" <<-EOF
		role = "concentrator";
		session_id = 4242;
		port = 7040;
		k = $k;
		key = "$TB_KEY";
		$extra
		prefixes = [ "10.0.1.0/24" ];
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl"; },
			{ name = "lte"; class = "mobile"; interface = "lte"; }
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

# Waits until box's daemon has both paths up.
wait_up() {
	local box=$1 i
	for ((i = 0; i < 50; i++)); do
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

ping_count() {
	tb_exec "$1" "$TB_TRAFFIC" ping --dst "$2" --count "${3:-5}" \
		--interval-ms 100 --timeout-ms 500 | sed -n 's/.*"received":\([0-9]*\).*/\1/p'
}

# udp FROM TO DST NAME SEND-ARGS...: receiver in TO, sender in FROM;
# $TB_DIR/NAME.rx.json and NAME.tx.json.
udp() {
	local from=$1 to=$2 dst=$3 name=$4 rx i
	shift 4
	local dur=${UDP_DURATION:-3}
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration "$((dur + 5))" --linger-ms 500 \
		--json "$TB_DIR/$name.rx.json" --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	for ((i = 0; i < 100; i++)); do
		[ -e "$TB_DIR/$name.ready" ] && break
		sleep 0.02
	done
	tb_exec "$from" "$TB_TRAFFIC" send --dst "$dst" --port 5000 \
		--duration "$dur" --json "$TB_DIR/$name.tx.json" "$@" >/dev/null
	tb_wait "$rx" $((dur + 15)) || true
}

# tcp FROM TO DST NAME BYTES: goodput in $TB_DIR/NAME.rx.json
tcp() {
	local from=$1 to=$2 dst=$3 name=$4 bytes=$5 rx i
	rm -f "$TB_DIR/$name.ready"
	tb_bg "$to" "$TB_DIR/$name.rx.json" "$TB_TRAFFIC" tcp-recv --port 5001 \
		--duration 30 --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	for ((i = 0; i < 100; i++)); do
		[ -e "$TB_DIR/$name.ready" ] && break
		sleep 0.02
	done
	tb_exec "$from" "$TB_TRAFFIC" tcp-send --dst "$dst" --port 5001 \
		--bytes "$bytes" >"$TB_DIR/$name.tx.json" 2>&1 || true
	tb_wait "$rx" 35 || true
}

# Everything arrived, intact, in order.  "In order" allows 0.1 %: veth
# hands packets to the per-CPU backlog of the CPU the sender runs on, so a
# sender that migrates between the two cores can swap two packets at any
# hop, with or without the bond (seen here once in 12k 64-byte packets).
# Waits until the mobile weight that earlier tests raised has decayed
# (DWD) on both ends, so that a test starts from the idle state.
settle() {
	local i
	for ((i = 0; i < 80; i++)); do
		refresh conc
		refresh cpe
		if [ "$(st conc w_mobile)" = 0 ] && [ "$(st cpe w_mobile)" = 0 ]; then
			return 0
		fi
		sleep 0.1
	done
}

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
