#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/openwrt/test_openwrt.sh BUILD_DIR: the OpenWrt package
# (openwrt/net/l3bond) on a Debian machine.
#
#   1. shellcheck: the OpenWrt scripts as sh (busybox ash), this one as bash.
#   2. l3bond-uci2conf under dash, bash and busybox ash+awk (when busybox is
#      installed): the shipped sample, a CPE, a concentrator and a file of
#      syntax edge cases (quotes, escapes, comments, ';', lists, booleans,
#      hex and 64-bit integers, CR LF line ends) give exactly the files in
#      cases/ (written by hand), which `l3bondd --check` accepts; each .uci
#      file in bad/ fails with exit 1, nothing on stdout and the message its
#      first line expects (file, line, section, option); a value only the
#      daemon refuses leads back to its UCI line (a bad key without
#      being quoted whole); usage errors exit 2; a concentrator's cpe_dir
#      (a directory made for the test, with a CPE file) is passed on and
#      read by --check.
#   3. The init script's logic, sourced into dash and busybox ash as
#      rc.common would, with stand-ins for what only exists on OpenWrt:
#      procd's shell API (procd_open_instance, procd_set_param, ...,
#      procd_running, procd_send_signal: they only build and send ubus
#      messages to procd; here they write what they were given to a log),
#      rc.common's start (which wraps start_service in those messages), and
#      the programs fw4 and logger (a log again).  Everything else is the
#      real thing: the translator, `l3bondd --check`, the files written,
#      the structure digest, the ifindex bookkeeping (a /sys/class/net
#      stand-in), the fw4 fragment.  Checked: the command line, netdev and
#      data given to procd; SIGHUP on a tunable change only; no SIGHUP
#      after a structural change, a new ifindex or a crashed instance; a
#      bad file keeps the running instance on its previous file; one
#      instance per box; stop removes the files and the fw4 rule; the
#      generated file, which holds the key, is mode 0600.
#   4. The hotplug script: reload on ifup of a path device only.  The
#      exporter's init script, the same way (rc.common's config_load and
#      config_get stood in for too): nothing while disabled; the socket of
#      l3bond's enabled instance, or its options socket, listen and port;
#      not started, saying why, without either; its reload triggers.
#   5. As root, in a network namespace of its own: `--print-rules nft` of
#      each translated file passes `nft -c` (with the queue statement,
#      which this kernel lacks, swapped for a verdict, as
#      tests/netns/test_daemon.sh does), `--print-rules iptables` passes
#      `iptables-restore --test` (iptables-nft, what the daemon runs on
#      OpenWrt; a concentrator's after `ipset restore` of its
#      `--print-rules ipset`), and the fw4 fragment is valid inside
#      fw4-like chains.  The namespace: L3B_OWRT_NS, or l3bowrt-PID.
#   6. The package Makefile, read by GNU make with stand-ins for OpenWrt's
#      rules.mk, package.mk and cmake.mk (sdk/): its steps run in OpenWrt's
#      order with OpenWrt's flags (Release, -Os) on the host compiler; its
#      three packages (l3bond, l3bond-exporter,
#      prometheus-node-exporter-lua-l3bond) hold exactly the expected
#      files, modes and fw4 links; the version comes from CMakeLists.txt,
#      the license is BSD-2-Clause with its file, DEPENDS and conffiles are
#      set.  The NEEDED entries (readelf -d) of every binary of a package,
#      mapped through a table from library to OpenWrt package, must each
#      have their package in that package's DEPENDS: the check fails naming
#      the library otherwise, or when the table has no entry for it; shown
#      failing on the Makefiles of bad/makefile-*.sed (a library's package
#      left out) and with a library left out of the table.
#   7. With musl-gcc (Debian: musl-tools): the sources of the three
#      programs compile against musl's headers with the project's -Werror
#      warnings.
#   8. With lua5.1: the prometheus-node-exporter-lua collector passes on
#      what `l3bondctl metrics` prints from a (stand-in) daemon, and prints
#      nothing when no daemon answers.
#
# What only an OpenWrt build and a router can test is in openwrt/README.md.
# Exit: 0 all passed, 1 a failure, 77 shellcheck missing (scripts/deps.sh
# installs it).
set -Eeuo pipefail

build=${1:?usage: test_openwrt.sh BUILD_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
files=$top/openwrt/net/l3bond/files
uci2conf=$files/l3bond-uci2conf
l3bondd=$(cd "$build" && pwd)/gateway/l3bondd
# the version's one source
version=$(sed -n 's/^project(l3bond VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")

if ! command -v shellcheck >/dev/null; then
	echo "SKIP: shellcheck is not installed (scripts/deps.sh installs it)"
	exit 77
fi
if [[ ! -x $l3bondd ]]; then
	echo "FAIL: $l3bondd is not built"
	exit 1
fi

tmp=$(mktemp -d /tmp/l3b-owrt.XXXXXX)
ns=
cleanup() {
	if [[ -n $ns ]]; then
		ip netns del "$ns" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# ok, bad, tb_done: one output format with the other test scripts
# shellcheck source=../netns/checks.sh disable=SC1091
source "$here/../netns/checks.sh"
# Shows file $1 indented, for a failure.
show() {
	sed 's/^/    /' "$1"
}

# Runners: the shells (with their awk) the scripts must work with.
runners=()
command -v dash >/dev/null && runners+=(dash)
runners+=(bash)
bbdir=$tmp/busybox
if command -v busybox >/dev/null; then
	mkdir -p "$bbdir"
	for app in awk sed grep cut md5sum sort cat basename mkdir mv rm \
		printf; do
		ln -s "$(command -v busybox)" "$bbdir/$app"
	done
	runners+=(busybox)
else
	echo "note: busybox is not installed: the busybox ash+awk runs are left out"
fi

# run_sh RUNNER SCRIPT ARGS...: SCRIPT under that shell (and its awk).
run_sh() {
	local r=$1
	shift
	case $r in
	busybox) PATH="$bbdir:$PATH" busybox sh "$@" ;;
	*) "$r" "$@" ;;
	esac
}

# ---- 1. shellcheck ------------------------------------------------------------

for f in "$files/l3bond-uci2conf" "$files/l3bond.init" "$files/l3bond.hotplug" \
	"$files/l3bond-exporter.init"; do
	if shellcheck -s sh "$f" >"$tmp/sc.out" 2>&1; then
		ok "shellcheck -s sh ${f#"$top"/}"
	else
		bad "shellcheck -s sh ${f#"$top"/}:"
		show "$tmp/sc.out"
	fi
done
if shellcheck -s bash "$here/test_openwrt.sh" >"$tmp/sc.out" 2>&1; then
	ok "shellcheck -s bash tests/openwrt/test_openwrt.sh"
else
	bad "shellcheck tests/openwrt/test_openwrt.sh:"
	show "$tmp/sc.out"
fi

# ---- 2. the translator --------------------------------------------------------

# a CR LF copy of edge.uci under the same name (the name is in the output)
mkdir -p "$tmp/crlf"
sed 's/$/\r/' "$here/cases/edge.uci" >"$tmp/crlf/edge.uci"

# dir|uci file|instance|expected file|label
good_cases=(
	"$files|l3bond.config|cpe|$here/cases/sample-cpe.conf|shipped sample"
	"$here/cases|cpe.uci|home|$here/cases/cpe.conf|cpe"
	"$here/cases|concentrator.uci|conc|$here/cases/concentrator.conf|concentrator"
	"$here/cases|edge.uci|edge|$here/cases/edge.conf|edge cases"
	"$tmp/crlf|edge.uci|edge|$here/cases/edge.conf|edge cases, CR LF"
)

# cpe_dir: a concentrator's further CPEs, a file each in a directory that
# must exist for --check (hence made here, not in cases/)
mkdir -p "$tmp/cpedir/cpe.d"
sed -e "s|^\toption early_release '1'|\toption cpe_dir '$tmp/cpedir/cpe.d'|" \
	"$here/cases/concentrator.uci" >"$tmp/cpedir/conc.uci"
printf '%s\n' 'session_id = 7;' \
	"key = \"$("$l3bondd" --genkey)\";" \
	'prefixes = [ "192.0.2.0/24" ];' >"$tmp/cpedir/cpe.d/bob.conf"
dline=$(grep -n "option cpe_dir" "$tmp/cpedir/conc.uci" | cut -d: -f1)

for r in "${runners[@]}"; do
	out=$tmp/$r-cpedir.conf
	if (cd "$tmp/cpedir" && run_sh "$r" "$uci2conf" -f conc.uci conc) \
		>"$out" 2>"$tmp/err" &&
		grep -qxF "cpe_dir = \"$tmp/cpedir/cpe.d\"; # line $dline" "$out" &&
		"$l3bondd" -c "$out" --check >"$tmp/check" 2>&1; then
		ok "$r: option cpe_dir: passed on with its UCI line, l3bondd --check reads the CPE file in it"
	else
		bad "$r: option cpe_dir:"
		show "$tmp/err"
		show "$out"
		show "$tmp/check"
	fi
	for c in "${good_cases[@]}"; do
		IFS='|' read -r dir uci inst want label <<<"$c"
		out=$tmp/$r-$inst-${label// /_}.conf
		if ! (cd "$dir" && run_sh "$r" "$uci2conf" -f "$uci" "$inst") \
			>"$out" 2>"$tmp/err"; then
			bad "$r: $label: l3bond-uci2conf failed:"
			show "$tmp/err"
			continue
		fi
		if diff -u "$want" "$out" >"$tmp/diff"; then
			ok "$r: $label: output equals ${want#"$here"/}"
		else
			bad "$r: $label: output differs from ${want#"$here"/}:"
			show "$tmp/diff"
		fi
		if "$l3bondd" -c "$out" --check >"$tmp/check" 2>&1; then
			ok "$r: $label: l3bondd --check accepts it"
		else
			bad "$r: $label: l3bondd --check:"
			show "$tmp/check"
		fi
	done

	# -l: the instances and whether they are enabled
	got=$(cd "$here/cases" && run_sh "$r" "$uci2conf" -f edge.uci -l)
	if [[ $got == $'edge 1\nother 0' ]]; then
		ok "$r: -l lists the instances with their enabled flag"
	else
		bad "$r: -l on edge.uci gave '$got'"
	fi

	# bad files: exit 1, nothing on stdout, the expected message
	for f in "$here"/bad/*.uci; do
		want=$(sed -n '1s/^# expect: //p' "$f")
		[[ -n $want ]] || continue
		name=$(basename "$f")
		rc=0
		(cd "$here/bad" && run_sh "$r" "$uci2conf" -f "$name" cpe) \
			>"$tmp/out" 2>"$tmp/err" || rc=$?
		if [[ $rc -eq 1 && ! -s $tmp/out ]] &&
			grep -qF -- "l3bond-uci2conf: $want" "$tmp/err"; then
			ok "$r: bad/$name: exit 1 with '$want'"
		else
			bad "$r: bad/$name: exit $rc, want 1 and '$want'; stderr:"
			show "$tmp/err"
		fi
	done

	# a value the translator passes on and the daemon refuses: its
	# message names the generated line, which names the UCI line; a key
	# the daemon refuses is not quoted whole, by neither of them
	for f in "$here"/bad/check-*.uci; do
		name=$(basename "$f" .uci)
		want=$(sed -n '1s/^# check: //p' "$f")
		uline=$(sed -n '2s/^# line: //p' "$f")
		secret=$(sed -n "s/^[[:space:]]*option key '\(.*\)'\$/\1/p" "$f")
		gen=$tmp/$r-$name.conf
		if (cd "$here/bad" && run_sh "$r" "$uci2conf" -f "$name.uci" cpe) \
			>"$gen" 2>"$tmp/err"; then
			rc=0
			"$l3bondd" -c "$gen" --check >"$tmp/check" 2>&1 || rc=$?
			gline=$(sed -n "s|^l3bondd: $gen:\([0-9]*\): .*|\1|p" "$tmp/check")
			if [[ $rc -eq 1 ]] && grep -qF -- "$want" "$tmp/check" &&
				[[ -n $gline ]] &&
				sed -n "${gline}p" "$gen" | grep -q "# line $uline\$" &&
				{ [[ -z $secret ]] ||
					! grep -qF -- "${secret:0:5}" "$tmp/check" "$tmp/err"; }; then
				ok "$r: $name: a value l3bondd refuses: its error leads to UCI line $uline"
			else
				bad "$r: $name: exit $rc, line '$gline':"
				show "$tmp/check"
			fi
		else
			bad "$r: $name.uci did not translate"
			show "$tmp/err"
		fi
	done

	# usage
	for args in "" "-f $here/cases/cpe.uci" "-f $here/cases/cpe.uci a b" \
		"-x home" "-l home"; do
		rc=0
		# shellcheck disable=SC2086 # the words of args are the arguments
		run_sh "$r" "$uci2conf" $args >/dev/null 2>&1 || rc=$?
		if [[ $rc -eq 2 ]]; then
			ok "$r: usage '$args': exit 2"
		else
			bad "$r: usage '$args': exit $rc, want 2"
		fi
	done
	rc=0
	run_sh "$r" "$uci2conf" -f "$tmp/none" home >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $rc -eq 1 ]] && grep -q "$tmp/none: cannot read it" "$tmp/err"; then
		ok "$r: a missing file: exit 1, named"
	else
		bad "$r: missing file: exit $rc"
	fi
done

# ---- 3. the init script ---------------------------------------------------------

# The stand-ins (see the header).  PROCD_RUNNING: the instances procd runs.
cat >"$tmp/procd-stubs.sh" <<'EOF'
procd_open_instance() { echo "open $*" >>"$PROCD_LOG"; }
procd_set_param() { echo "set $*" >>"$PROCD_LOG"; }
procd_append_param() { echo "append $*" >>"$PROCD_LOG"; }
procd_close_instance() { echo "close" >>"$PROCD_LOG"; }
procd_send_signal() { echo "signal $*" >>"$PROCD_LOG"; }
procd_add_reload_trigger() { echo "trigger $*" >>"$PROCD_LOG"; }
procd_running() {
	case " $PROCD_RUNNING " in
	*" $2 "*) return 0 ;;
	esac
	return 1
}
start() { start_service "$@"; }
EOF
# rc.common's config_load and config_get (/lib/functions.sh), enough for a
# file of one section per name: the option's value without its quotes
cat >"$tmp/config-stubs.sh" <<'EOF'
config_load() { CONFIG_FILE="${UCI_CONFIG_DIR:-/etc/config}/$1"; }
config_get() {
	v=$(awk -v s="$2" -v o="$3" -v q="'" '
		$1 == "config" { cur = $3; gsub(q, "", cur) }
		$1 == "option" && cur == s && $2 == o { v = $3; gsub(q, "", v); print v; exit }
	' "$CONFIG_FILE")
	eval "$1=\${v:-\$4}"
}
EOF
stubbin=$tmp/stubbin
mkdir -p "$stubbin"
# stub NAME: a program NAME that logs its arguments to $STUB_LOG
stub() {
	cat >"$stubbin/$1" <<'EOF'
#!/bin/sh
echo "${0##*/} $*" >>"$STUB_LOG"
EOF
	chmod +x "$stubbin/$1"
}
stub fw4
stub logger
stub init

# init_env RUNNER: a fresh box (UCI file, /var, /sys/class/net).
init_env() {
	box=$tmp/box-$1
	rm -rf "$box"
	mkdir -p "$box/sys/pppoe-wan" "$box/sys/wwan0"
	echo 5 >"$box/sys/pppoe-wan/ifindex"
	echo 6 >"$box/sys/wwan0/ifindex"
	sed "s/option enabled '0'/option enabled '1'/" "$files/l3bond.config" \
		>"$box/l3bond"
	: >"$box/procd.log"
	: >"$box/stub.log"
}

# init_do RUNNER RUNNING COMMANDS: COMMANDS in the init script $init_script,
# as rc.common runs it (a new shell each time); RUNNING: what procd runs.
init_script=$files/l3bond.init
init_do() {
	local r=$1 running=$2 cmds=$3
	: >"$box/procd.log"
	: >"$box/stub.log"
	UCI_CONFIG_DIR=$box L3BOND_EXPORTER_PROG=/usr/sbin/l3bond-exporter \
		L3BOND_UCI=$box/l3bond L3BOND_PROG=$l3bondd \
		L3BOND_UCI2CONF=$uci2conf L3BOND_CONF_DIR=$box/etc \
		L3BOND_RUN_DIR=$box/run L3BOND_SYS_NET=$box/sys \
		PROCD_LOG=$box/procd.log STUB_LOG=$box/stub.log \
		PROCD_RUNNING=$running PATH="$stubbin:$PATH" \
		run_sh "$r" -c ". '$tmp/procd-stubs.sh'; . '$tmp/config-stubs.sh'; . '$init_script'; $cmds" \
		>"$box/out" 2>&1 || echo "exit $?" >>"$box/out"
}

# has FILE TEXT: FILE has a line equal to TEXT
has() {
	grep -qxF -- "$2" "$1"
}

for r in dash busybox; do
	[[ " ${runners[*]} " == *" $r "* ]] || continue
	init_env "$r"
	conf=$box/etc/cpe.conf
	fw=$box/etc/fw4.nft

	# start
	init_do "$r" "" start_service
	digest=$(sed -n 's/^set data structure=\([0-9a-f]\{32\}\)$/\1/p' "$box/procd.log")
	if has "$box/procd.log" "open cpe" &&
		has "$box/procd.log" "set command $l3bondd -c $conf" &&
		has "$box/procd.log" "append command --control-socket $box/run/cpe.sock" &&
		has "$box/procd.log" "set respawn" &&
		has "$box/procd.log" "set stdout 1" &&
		has "$box/procd.log" "set stderr 1" &&
		has "$box/procd.log" "set netdev pppoe-wan wwan0" &&
		[[ -n $digest ]] && has "$box/procd.log" "close" &&
		! grep -q '^signal' "$box/procd.log"; then
		ok "$r: init start: instance cpe with command, respawn, logs, netdev, structure"
	else
		bad "$r: init start: procd got:"
		show "$box/procd.log"
		show "$box/out"
	fi
	if [[ -f $conf ]] && diff <(tail -n +4 "$here/cases/sample-cpe.conf") \
		<(tail -n +4 "$conf") >"$tmp/diff"; then
		ok "$r: init start: $conf is the translated UCI file"
	else
		bad "$r: init start: $conf:"
		show "$tmp/diff"
	fi
	# it holds the key: root only, also over a stale world-readable .new
	# left by an earlier start (a redirection would keep that mode)
	mode=$(stat -c %a "$conf" 2>/dev/null || echo none)
	if [[ $mode == 600 ]]; then
		ok "$r: init start: $conf is mode 0600 (it holds the key)"
	else
		bad "$r: init start: $conf is mode $mode, want 600"
	fi
	if [[ -f $fw ]] &&
		has "$fw" 'meta mark & 0x100 == 0x100 accept comment "l3bond: released by l3bondd"' &&
		has "$box/stub.log" "fw4 -q reload"; then
		ok "$r: init start: fw4 fragment accepts release_mark 0x100, fw4 reloaded"
	else
		bad "$r: init start: fw4:"
		show "$box/stub.log"
	fi
	cp "$fw" "$tmp/fw4-$r.nft"
	(umask 022 && : >"$conf.new")
	init_do "$r" "cpe" start_service
	mode=$(stat -c %a "$conf" 2>/dev/null || echo none)
	if [[ $mode == 600 ]]; then
		ok "$r: init start over a stale 0644 $conf.new: still 0600"
	else
		bad "$r: init start over a stale .new: mode $mode, want 600"
	fi
	init_do "$r" "" service_triggers
	if has "$box/procd.log" "trigger l3bond"; then
		ok "$r: init: reload trigger on config l3bond"
	else
		bad "$r: init: service_triggers:"
		show "$box/procd.log"
	fi

	# a tunable: SIGHUP, same structure, fw4 left alone
	sed -i "s/option k '0.5'/option k '0.7'/" "$box/l3bond"
	kline=$(grep -n "option k '0.7'" "$box/l3bond" | cut -d: -f1)
	init_do "$r" cpe reload_service
	if has "$box/procd.log" "signal l3bond cpe HUP" &&
		has "$box/procd.log" "set data structure=$digest" &&
		has "$conf" "k = 0.7; # line $kline" && [[ ! -s $box/stub.log ]]; then
		ok "$r: init reload, k changed: SIGHUP, structure unchanged, fw4 not reloaded"
	else
		bad "$r: init reload k:"
		show "$box/procd.log"
		show "$box/stub.log"
	fi

	# the same with the instance not running (crashed): no signal
	init_do "$r" "" reload_service
	if ! grep -q '^signal' "$box/procd.log" && has "$box/procd.log" "open cpe"; then
		ok "$r: init reload, instance not running: declared, no SIGHUP"
	else
		bad "$r: init reload, not running:"
		show "$box/procd.log"
	fi

	# a structural change: procd restarts it (other data), no signal
	sed -i "s/option port '7040'/option port '7041'/" "$box/l3bond"
	init_do "$r" cpe reload_service
	if ! grep -q '^signal' "$box/procd.log" &&
		grep -q '^set data structure=' "$box/procd.log" &&
		! has "$box/procd.log" "set data structure=$digest"; then
		ok "$r: init reload, port changed: new structure digest, no SIGHUP"
	else
		bad "$r: init reload port:"
		show "$box/procd.log"
	fi

	# nothing changed: SIGHUP (the same file read again)
	init_do "$r" cpe reload_service
	if has "$box/procd.log" "signal l3bond cpe HUP"; then
		ok "$r: init reload, nothing changed: SIGHUP"
	else
		bad "$r: init reload unchanged:"
		show "$box/procd.log"
	fi

	# a path device came back with another ifindex: restart, no signal
	echo 9 >"$box/sys/wwan0/ifindex"
	init_do "$r" cpe reload_service
	if ! grep -q '^signal' "$box/procd.log" &&
		has "$box/procd.log" "set netdev pppoe-wan wwan0"; then
		ok "$r: init reload, wwan0 has a new ifindex: no SIGHUP (procd restarts it)"
	else
		bad "$r: init reload ifindex:"
		show "$box/procd.log"
	fi

	# release_mark (a tunable): fw4 fragment and fw4 follow
	sed -i "s/option release_mark '0x100'/option release_mark '0x200'/" "$box/l3bond"
	init_do "$r" cpe reload_service
	if has "$fw" 'meta mark & 0x200 == 0x200 accept comment "l3bond: released by l3bondd"' &&
		! grep -q 0x100 "$fw" && has "$box/stub.log" "fw4 -q reload" &&
		has "$box/procd.log" "signal l3bond cpe HUP"; then
		ok "$r: init reload, release_mark 0x200: fw4 fragment rewritten, fw4 reloaded, SIGHUP"
	else
		bad "$r: init reload release_mark:"
		show "$fw"
		show "$box/stub.log"
	fi

	# a value l3bondd refuses: logged, the instance keeps its file
	cp "$conf" "$tmp/before.conf"
	sed -i "s/option port '7041'/option port '99999'/" "$box/l3bond"
	init_do "$r" cpe reload_service
	if grep -qF "port: bad value '99999': out of range 1..65535" "$box/stub.log" &&
		grep -qF "instance cpe: keeps running on its previous configuration" "$box/stub.log" &&
		has "$box/procd.log" "set command $l3bondd -c $conf" &&
		cmp -s "$conf" "$tmp/before.conf" && [[ ! -e $conf.new ]]; then
		ok "$r: init reload, port 99999: error logged, instance kept on its previous file"
	else
		bad "$r: init reload bad value:"
		show "$box/stub.log"
		show "$box/procd.log"
	fi
	sed -i "s/option port '99999'/option port '7040'/" "$box/l3bond"

	# a UCI syntax error on reload: the running instance keeps its file
	cp "$box/l3bond" "$tmp/good.uci"
	sed -i "s/option role 'cpe'/option role 'cpe/" "$box/l3bond"
	qline=$(grep -n "option role 'cpe\$" "$box/l3bond" | cut -d: -f1)
	init_do "$r" cpe reload_service
	if grep -qF "l3bond-uci2conf: $box/l3bond:$qline: unterminated ' quote" "$box/stub.log" &&
		grep -qF "instance cpe: keeps running on its previous configuration" "$box/stub.log" &&
		has "$box/procd.log" "set command $l3bondd -c $conf" &&
		cmp -s "$conf" "$tmp/before.conf"; then
		ok "$r: init reload, UCI syntax error: logged with its line, instance kept on its previous file"
	else
		bad "$r: init reload syntax error:"
		show "$box/stub.log"
		show "$box/procd.log"
	fi
	# and from stopped: nothing starts
	init_do "$r" "" "stop_service; start_service"
	if grep -qF "l3bond-uci2conf: $box/l3bond:$qline: unterminated ' quote" "$box/stub.log" &&
		grep -qF "nothing started" "$box/stub.log" &&
		! grep -q '^open' "$box/procd.log"; then
		ok "$r: init start, UCI syntax error: nothing started, error logged with its line"
	else
		bad "$r: init start syntax error:"
		show "$box/stub.log"
		show "$box/procd.log"
	fi
	cp "$tmp/good.uci" "$box/l3bond"

	# control_socket in UCI: no --control-socket on the command line
	sed -i "s|#option control_socket '/var/run/l3bond/cpe.sock'|option control_socket '/tmp/x.sock'|" "$box/l3bond"
	init_do "$r" "" start_service
	if has "$box/procd.log" "set command $l3bondd -c $conf" &&
		! grep -q '^append command' "$box/procd.log"; then
		ok "$r: init start, control_socket set: the file's socket is used"
	else
		bad "$r: init start control_socket:"
		show "$box/procd.log"
	fi
	cp "$tmp/good.uci" "$box/l3bond"

	# a second enabled instance: not started (one l3bondd per box)
	cat >>"$box/l3bond" <<'EOF'

config l3bond 'two'
	option role 'concentrator'
	option session_id '2'
	list prefixes '10.9.0.0/16'
config path 'p1'
	option instance 'two'
	option class 'fixed'
	option interface 'eth5'
config path 'p2'
	option instance 'two'
	option class 'mobile'
	option interface 'eth6'
EOF
	init_do "$r" "" start_service
	init_do "$r" cpe "start_service two"
	if grep -qF "instance two: not started: instance cpe runs" "$box/stub.log" &&
		! has "$box/procd.log" "open two"; then
		ok "$r: init: a second enabled instance is refused (one per box)"
	else
		bad "$r: init second instance:"
		show "$box/stub.log"
		show "$box/procd.log"
	fi
	init_do "$r" "" start_service
	if has "$box/procd.log" "open cpe" && ! has "$box/procd.log" "open two" &&
		grep -qF "instance two: not started" "$box/stub.log"; then
		ok "$r: init start: the first enabled instance only"
	else
		bad "$r: init start two instances:"
		show "$box/procd.log"
	fi
	cp "$tmp/good.uci" "$box/l3bond"

	# stop: files and the fw4 rule go
	init_do "$r" cpe stop_service
	if [[ ! -e $conf && ! -e $fw && ! -e $box/run/cpe.state ]] &&
		has "$box/stub.log" "fw4 -q reload"; then
		ok "$r: init stop: configuration, state and fw4 fragment removed, fw4 reloaded"
	else
		bad "$r: init stop:"
		find "$box/etc" "$box/run" | sed 's/^/    /'
		show "$box/stub.log"
	fi
	# a disabled sample: nothing starts, no fw4 rule
	sed -i "s/option enabled '1'/option enabled '0'/" "$box/l3bond"
	init_do "$r" "" start_service
	if ! grep -q '^open' "$box/procd.log" && [[ ! -e $fw ]] &&
		[[ ! -s $box/stub.log ]]; then
		ok "$r: init start, instance disabled: nothing declared, no fw4 rule"
	else
		bad "$r: init start disabled:"
		show "$box/procd.log"
	fi

	# ---- 4. the hotplug script (same box) ----
	cp "$tmp/good.uci" "$box/l3bond"
	init_do "$r" "" start_service
	for ev in "ifup wwan0 init reload" "ifup pppoe-wan init reload" \
		"ifup eth9 -" "ifup wwan -" "ifdown wwan0 -" "ifupdate wwan0 -" \
		"ifup '' -"; do
		read -r action dev want <<<"$ev"
		[[ $dev == "''" ]] && dev=
		: >"$box/stub.log"
		ACTION=$action DEVICE=$dev INTERFACE=wan L3BOND_CONF_DIR=$box/etc \
			L3BOND_INIT=$stubbin/init STUB_LOG=$box/stub.log \
			PATH="$stubbin:$PATH" run_sh "$r" "$files/l3bond.hotplug"
		got=$(grep '^init' "$box/stub.log" || true)
		if [[ $want == - && -z $got ]] || [[ $got == "$want" ]]; then
			ok "$r: hotplug $action '$dev': ${want/-/nothing}"
		else
			bad "$r: hotplug $action '$dev': got '$got', want '$want'"
		fi
	done

	# ---- 4b. the exporter's init script (same box) ----
	init_script=$files/l3bond-exporter.init
	cp "$files/l3bond-exporter.config" "$box/l3bond-exporter"
	init_do "$r" "" start_service
	if ! grep -q '^open' "$box/procd.log" && ! grep -q '^exit' "$box/out"; then
		ok "$r: exporter init, sample (disabled): nothing declared"
	else
		bad "$r: exporter init, disabled sample:"
		show "$box/procd.log"
		show "$box/out"
	fi
	sed -i "s/option enabled '0'/option enabled '1'/" "$box/l3bond-exporter"
	init_do "$r" "" start_service
	if has "$box/procd.log" "open " &&
		has "$box/procd.log" "set command /usr/sbin/l3bond-exporter -s $box/run/cpe.sock -l 127.0.0.1 -p 9470" &&
		has "$box/procd.log" "set respawn" && has "$box/procd.log" "close"; then
		ok "$r: exporter init, enabled: the socket of l3bond's enabled instance cpe, 127.0.0.1:9470, respawn"
	else
		bad "$r: exporter init, enabled:"
		show "$box/procd.log"
		show "$box/out"
	fi
	sed -i -e "s|#option socket '/var/run/l3bond/cpe.sock'|option socket '/tmp/x.sock'|" \
		-e "s/option listen '127.0.0.1'/option listen '::'/" \
		-e "s/option port '9470'/option port '9101'/" "$box/l3bond-exporter"
	init_do "$r" "" start_service
	if has "$box/procd.log" "set command /usr/sbin/l3bond-exporter -s /tmp/x.sock -l :: -p 9101"; then
		ok "$r: exporter init: options socket, listen and port"
	else
		bad "$r: exporter init, options:"
		show "$box/procd.log"
	fi
	sed -i "s|option socket '/tmp/x.sock'|#option socket '/tmp/x.sock'|" "$box/l3bond-exporter"
	sed -i "s/option enabled '1'/option enabled '0'/" "$box/l3bond"
	init_do "$r" "" start_service
	if ! grep -q '^open' "$box/procd.log" && grep -q '^exit 1' "$box/out" &&
		grep -qF "no enabled l3bond instance" "$box/out"; then
		ok "$r: exporter init, no enabled l3bond instance and no socket: not started, says why"
	else
		bad "$r: exporter init without an l3bond instance:"
		show "$box/procd.log"
		show "$box/out"
	fi
	init_do "$r" "" service_triggers
	if has "$box/procd.log" "trigger l3bond-exporter l3bond"; then
		ok "$r: exporter init: reload triggers on l3bond-exporter and l3bond"
	else
		bad "$r: exporter init, service_triggers:"
		show "$box/procd.log"
	fi
	init_script=$files/l3bond.init
done

# ---- 5. nft and iptables, as root --------------------------------------------------

if [[ $(id -u) -ne 0 ]] || ! command -v nft >/dev/null ||
	! command -v ip >/dev/null; then
	echo "note: not root (or no nft/ip): the nft -c and iptables-restore --test checks are left out"
else
	ns=${L3B_OWRT_NS:-l3bowrt-$$}
	ip netns add "$ns"
	for c in "${good_cases[@]}"; do
		IFS='|' read -r dir uci inst want label <<<"$c"
		[[ $label == *"CR LF"* ]] && continue
		gen=$tmp/nft-$inst.conf
		(cd "$dir" && "$uci2conf" -f "$uci" "$inst") >"$gen"
		"$l3bondd" -c "$gen" --print-rules nft >"$tmp/$inst.nft"
		# this kernel has no nft queue statement: the file must parse,
		# and with each queue statement swapped for a verdict the kernel
		# must accept it
		ip netns exec "$ns" nft -c -f "$tmp/$inst.nft" >"$tmp/nft.err" 2>&1 || true
		sed -e 's/queue num [0-9]* bypass/accept/' \
			-e 's/queue num [0-9]*/drop/' "$tmp/$inst.nft" >"$tmp/$inst.noq.nft"
		if ! grep -qi 'syntax error\|unexpected' "$tmp/nft.err" &&
			grep -q 'queue num' "$tmp/$inst.nft" &&
			ip netns exec "$ns" nft -c -f "$tmp/$inst.noq.nft" >"$tmp/nft.err2" 2>&1; then
			ok "$label: --print-rules nft of the translated file passes nft -c (queue swapped)"
		else
			bad "$label: nft -c:"
			show "$tmp/nft.err"
			show "$tmp/nft.err2"
		fi
		"$l3bondd" -c "$gen" --print-rules iptables >"$tmp/$inst.ipt"
		# a concentrator's rules name its sets of CPEs' prefixes:
		# made first, as the daemon does (they go with the namespace)
		"$l3bondd" -c "$gen" --print-rules ipset >"$tmp/$inst.ipset"
		if [[ -s $tmp/$inst.ipset ]] &&
			! ip netns exec "$ns" ipset restore <"$tmp/$inst.ipset" \
				>"$tmp/ipset.err" 2>&1; then
			bad "$label: ipset restore of --print-rules ipset:"
			show "$tmp/ipset.err"
		fi
		if ip netns exec "$ns" iptables-restore --test --noflush \
			<"$tmp/$inst.ipt" >"$tmp/ipt.err" 2>&1; then
			ok "$label: --print-rules iptables passes iptables-restore --test ($(iptables -V))"
		else
			bad "$label: iptables-restore --test:"
			show "$tmp/ipt.err"
		fi
	done
	# the fw4 fragment where fw4 includes it: top of input and forward
	for r in dash busybox; do
		f=$tmp/fw4-$r.nft
		[[ -f $f ]] || continue
		cat >"$tmp/fw4-wrap.nft" <<EOF
table inet l3bond_fw4_test {
	chain input {
		type filter hook input priority filter; policy drop;
		include "$f"
		ct state established,related accept
	}
	chain forward {
		type filter hook forward priority filter; policy drop;
		include "$f"
		ct state established,related accept
	}
}
EOF
		if ip netns exec "$ns" nft -c -f "$tmp/fw4-wrap.nft" >"$tmp/nft.err" 2>&1; then
			ok "$r: the init script's fw4 fragment passes nft -c inside input and forward chains"
		else
			bad "$r: fw4 fragment:"
			show "$tmp/nft.err"
		fi
	done
fi

# ---- 6. the package Makefile against stand-ins of OpenWrt's includes ----------

# sdk/ holds stand-ins for rules.mk, package.mk and cmake.mk (their headers
# say what they do): enough for GNU make to read net/l3bond/Makefile and
# run its steps in OpenWrt's order with OpenWrt's compiler flags, on the
# host's compiler.  Not the real build system: see openwrt/README.md.
# mksdk DIR: a stand-in SDK there
mksdk() {
	mkdir -p "$1"
	ln -s "$here/sdk/rules.mk" "$1/rules.mk"
	ln -s "$here/sdk/include" "$1/include"
}

# The library of each NEEDED entry of a binary -> the OpenWrt packages that
# provide it (any one of them will do); "-": the C library, on every
# OpenWrt system (musl: libc, libm, libpthread and the loader are one).
# A library with no entry fails the check: add it here with its package.
lib_pkgs=(
	'libconfig.so.*|libconfig'
	'libev.so.*|libev'
	'libmnl.so.*|libmnl'
	'libsodium.so.*|libsodium'
	'libjson-c.so.*|libjson-c'
	'libmicrohttpd.so.*|libmicrohttpd-no-ssl libmicrohttpd-ssl'
	'libc.so.*|-'
	'libm.so.*|-'
	'libpthread.so.*|-'
	'ld-linux*|-'
	'ld-musl-*|-'
)

# is_elf FILE: FILE starts with the ELF magic
is_elf() {
	[[ $(head -c 4 "$1" | od -An -c | tr -d ' ') == '177ELF' ]]
}

# needed_check PKG ROOT FIELDS: each ELF file in the package root ROOT
# links only libraries whose package is in the DEPENDS of FIELDS; prints
# one line per library that is not so, or that the table lacks, and fails.
needed_check() {
	local pkg=$1 root=$2 fields=$3 deps f lib e want p found rc=0
	deps=" $(sed -n 's/^DEPENDS=//p' "$fields") "
	while IFS= read -r -d '' f; do
		is_elf "$f" || continue
		while read -r lib; do
			want=
			for e in "${lib_pkgs[@]}"; do
				# shellcheck disable=SC2053 # the table's globs
				if [[ $lib == ${e%%|*} ]]; then
					want=${e#*|}
					break
				fi
			done
			if [[ -z $want ]]; then
				echo "$pkg: ${f#"$root"/} links $lib, which has no entry in the table of libraries to packages"
				rc=1
				continue
			fi
			[[ $want == - ]] && continue
			found=
			for p in $want; do
				[[ $deps == *" +$p "* || $deps == *" $p "* ]] && found=$p
			done
			if [[ -z $found ]]; then
				echo "$pkg: ${f#"$root"/} links $lib, of ${want// / or }, which DEPENDS lacks"
				rc=1
			fi
		done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
	done < <(find "$root" -type f -print0)
	return $rc
}

# elves ROOT: the ELF files of a package root and what they link, a line each
elves() {
	local f
	while IFS= read -r -d '' f; do
		is_elf "$f" || continue
		echo "${f#"$1"/}: $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')"
	done < <(find "$1" -type f -print0 | sort -z)
}

sdk=$tmp/sdk
mksdk "$sdk"
packages=(l3bond l3bond-exporter prometheus-node-exporter-lua-l3bond)
if ! command -v readelf >/dev/null; then
	bad "readelf is not installed (binutils): the packages' libraries cannot be checked"
elif make -C "$top/openwrt/net/l3bond" TOPDIR="$sdk" \
	CONFIG_PACKAGE_l3bond-exporter=y >"$tmp/make.log" 2>&1; then
	ok "package Makefile: prepare, configure, compile, install and the install of ${packages[*]} run"
	fields=$sdk/build_dir/root-l3bond.fields
	deps=$(sed -n 's/^DEPENDS=//p' "$fields")
	missing=
	for d in +libconfig +libev +libmnl +libsodium +libjson-c +iptables-nft \
		+IPV6:ip6tables-nft +iptables-mod-nfqueue +iptables-mod-ipopt +iptables-mod-extra \
		+kmod-ipt-conntrack; do
		[[ " $deps " == *" $d "* ]] || missing="$missing $d"
	done
	if has "$fields" "PKG_VERSION=$version" && [[ -n $version ]] &&
		has "$fields" "CONFFILES=/etc/config/l3bond" &&
		has "$fields" "SECTION=net" && [[ -z $missing ]]; then
		ok "package Makefile: version $version from CMakeLists.txt, conffiles, DEPENDS"
	else
		bad "package Makefile: fields (missing DEPENDS:$missing):"
		show "$fields"
	fi
	copy=$sdk/build_dir/l3bond-$version
	if has "$fields" "PKG_LICENSE=BSD-2-Clause" &&
		has "$fields" "PKG_LICENSE_FILES=LICENSE" &&
		cmp -s "$copy/LICENSE" "$top/LICENSE"; then
		ok "package Makefile: PKG_LICENSE BSD-2-Clause, PKG_LICENSE_FILES LICENSE, in the source copy"
	else
		bad "package Makefile: license fields, or LICENSE in the source copy:"
		show "$fields"
	fi
	# the exporter is configured in only when its package is selected (a
	# .config's CONFIG_PACKAGE_l3bond-exporter): libmicrohttpd is built
	# for l3bond only then
	off=$(make -n -s -C "$top/openwrt/net/l3bond" TOPDIR="$sdk" build 2>&1 |
		grep -o 'L3BOND_EXPORTER=[A-Z]*' || true)
	on=$(make -n -s -C "$top/openwrt/net/l3bond" TOPDIR="$sdk" \
		CONFIG_PACKAGE_l3bond-exporter=y build 2>&1 |
		grep -o 'L3BOND_EXPORTER=[A-Z]*' || true)
	if [[ $off == L3BOND_EXPORTER=OFF && $on == L3BOND_EXPORTER=ON ]]; then
		ok "package Makefile: the exporter built only with its package selected"
	else
		bad "package Makefile: L3BOND_EXPORTER without the package '$off', with it '$on'"
	fi
	# the exporter and the collector: packages of their own, each
	# depending on l3bond (the daemon it asks, l3bondctl it runs)
	efields=$sdk/build_dir/root-l3bond-exporter.fields
	cfields=$sdk/build_dir/root-prometheus-node-exporter-lua-l3bond.fields
	edeps=" $(sed -n 's/^DEPENDS=//p' "$efields") "
	cdeps=" $(sed -n 's/^DEPENDS=//p' "$cfields") "
	if [[ $edeps == *" +l3bond "* && $cdeps == *" +l3bond "* &&
		$cdeps == *" +prometheus-node-exporter-lua "* ]] &&
		has "$cfields" "PKGARCH=all" && has "$cfields" "SECTION=utils" &&
		has "$efields" "CONFFILES=/etc/config/l3bond-exporter"; then
		ok "package Makefile: l3bond-exporter depends on l3bond, its conffile; prometheus-node-exporter-lua-l3bond on l3bond and prometheus-node-exporter-lua, architecture all"
	else
		bad "package Makefile: the exporter's and the collector's fields:"
		show "$efields"
		show "$cfields"
	fi
	# exactly these files in each package
	printf '%s\n' \
		'-rw------- ./etc/config/l3bond ' \
		'-rw-r--r-- ./etc/hotplug.d/iface/30-l3bond ' \
		'-rwxr-xr-x ./etc/init.d/l3bond ' \
		'-rwxr-xr-x ./usr/sbin/l3bond-uci2conf ' \
		'-rwxr-xr-x ./usr/sbin/l3bondctl ' \
		'-rwxr-xr-x ./usr/sbin/l3bondd ' \
		'lrwxrwxrwx ./usr/share/nftables.d/chain-pre/forward/30-l3bond.nft /var/etc/l3bond/fw4.nft' \
		'lrwxrwxrwx ./usr/share/nftables.d/chain-pre/input/30-l3bond.nft /var/etc/l3bond/fw4.nft' \
		>"$tmp/files.want.l3bond"
	printf '%s\n' \
		'-rw------- ./etc/config/l3bond-exporter ' \
		'-rwxr-xr-x ./etc/init.d/l3bond-exporter ' \
		'-rwxr-xr-x ./usr/sbin/l3bond-exporter ' \
		>"$tmp/files.want.l3bond-exporter"
	printf '%s\n' '-rw-r--r-- ./usr/lib/lua/prometheus-collectors/l3bond.lua ' \
		>"$tmp/files.want.prometheus-node-exporter-lua-l3bond"
	for pkg in "${packages[@]}"; do
		(cd "$sdk/build_dir/root-$pkg" &&
			find . ! -type d -printf '%M %p %l\n' | sort -k2) >"$tmp/files.$pkg"
		if diff -u "$tmp/files.want.$pkg" "$tmp/files.$pkg" >"$tmp/diff"; then
			ok "package $pkg: exactly the expected files and links"
		else
			bad "package $pkg: its files:"
			show "$tmp/diff"
		fi
	done
	root=$sdk/build_dir/root-l3bond

	# What each package's binaries link (the NEEDED entries of the
	# binaries this build made: glibc's sonames for the C library, the
	# others as on OpenWrt) against its DEPENDS.
	for pkg in "${packages[@]}"; do
		if needed_check "$pkg" "$sdk/build_dir/root-$pkg" \
			"$sdk/build_dir/root-$pkg.fields" >"$tmp/needed" 2>&1; then
			ok "package $pkg: DEPENDS has the package of every library its binaries link"
			elves "$sdk/build_dir/root-$pkg" | sed 's/^/    /'
		else
			bad "package $pkg: libraries without their package in DEPENDS:"
			show "$tmp/needed"
		fi
	done
	# The check fails as it should: on Makefiles made to miss a library's
	# package (bad/makefile-*.sed, each applied to a copy of the Makefile;
	# its first line says which package's check must fail, and on what),
	# and on a library its table lacks.
	for f in "$here"/bad/makefile-*.sed; do
		name=$(basename "$f" .sed)
		want=$(sed -n '1s/^# expect: //p' "$f")
		pkg=${want%%: *}
		feed=$tmp/$name/openwrt/net/l3bond
		mkdir -p "$feed"
		ln -s "$top/CMakeLists.txt" "$tmp/$name/CMakeLists.txt"
		sed -f "$f" "$top/openwrt/net/l3bond/Makefile" >"$feed/Makefile"
		mksdk "$tmp/$name/sdk"
		rc=0
		if [[ -z $want ]] ||
			cmp -s "$feed/Makefile" "$top/openwrt/net/l3bond/Makefile"; then
			bad "bad/$name.sed: no expectation, or the Makefile unchanged (its sed matches nothing)"
		elif ! make -C "$feed" TOPDIR="$tmp/$name/sdk" fields \
			>"$tmp/make.bad" 2>&1; then
			bad "bad/$name.sed: make fields failed:"
			show "$tmp/make.bad"
		else
			needed_check "$pkg" "$sdk/build_dir/root-$pkg" \
				"$tmp/$name/sdk/build_dir/root-$pkg.fields" \
				>"$tmp/needed" 2>&1 || rc=$?
			if [[ $rc -ne 0 ]] && grep -qF -- "$want" "$tmp/needed"; then
				ok "bad/$name.sed: the check fails: $(head -n 1 "$tmp/needed")"
			else
				bad "bad/$name.sed: exit $rc, want 1 and '$want':"
				show "$tmp/needed"
			fi
		fi
	done
	saved=("${lib_pkgs[@]}")
	lib_pkgs=()
	for e in "${saved[@]}"; do
		[[ $e == libev.so.* ]] || lib_pkgs+=("$e")
	done
	rc=0
	needed_check l3bond "$root" "$fields" >"$tmp/needed" 2>&1 || rc=$?
	lib_pkgs=("${saved[@]}")
	if [[ $rc -ne 0 ]] &&
		grep -q '^l3bond: usr/sbin/l3bondd links libev\.so\.[0-9]*, which has no entry in the table' "$tmp/needed"; then
		ok "the check fails on a library with no entry in its table (libev left out)"
	else
		bad "the check with libev left out of its table: exit $rc:"
		show "$tmp/needed"
	fi

	# the links point where the init script writes: its default directory
	# (sourced without the overrides) and the file section 3 saw written
	confdir=$(env -u L3BOND_CONF_DIR sh -c \
		". '$tmp/procd-stubs.sh'; . '$files/l3bond.init'; echo \"\$L3BOND_CONF_DIR\"")
	target=$confdir/$(basename "$fw")
	if [[ $(readlink "$root/usr/share/nftables.d/chain-pre/input/30-l3bond.nft") == "$target" &&
		$(readlink "$root/usr/share/nftables.d/chain-pre/forward/30-l3bond.nft") == "$target" ]]; then
		ok "package Makefile: the fw4 links point to the file the init script writes ($target)"
	else
		bad "package Makefile: the fw4 links do not point to $target"
	fi
	if [[ -f $copy/CMakeLists.txt && ! -e $copy/.git && ! -e $copy/openwrt ]] &&
		! compgen -G "$copy/build-*" >/dev/null; then
		ok "package Makefile: the source copy leaves out build trees, .git and the feed"
	else
		bad "package Makefile: source copy:"
		find "$copy" -maxdepth 1 | sed 's/^/    /'
	fi
	if (cd "$files" && "$root/usr/sbin/l3bond-uci2conf" -f l3bond.config cpe) >"$tmp/pkg.conf" &&
		"$root/usr/sbin/l3bondd" -c "$tmp/pkg.conf" --check >/dev/null 2>"$tmp/err"; then
		ok "package Makefile: the packaged l3bondd checks the packaged sample"
	else
		bad "package Makefile: packaged binaries:"
		show "$tmp/err"
	fi
else
	bad "package Makefile: make failed:"
	tail -30 "$tmp/make.log" | sed 's/^/    /'
fi

# ---- 7. musl: OpenWrt's C library ------------------------------------------------

# The sources of the daemon, l3bondctl and the exporter against musl's
# headers (musl-gcc of Debian's musl-tools, with the kernel's and the
# libraries' headers beside them), with the project's warnings as errors: what the OpenWrt
# build would stumble on first.  Syntax only: no musl builds of the
# libraries here to link with.
if command -v musl-gcc >/dev/null; then
	inc=$tmp/musl-include
	mkdir -p "$inc"
	ln -s /usr/include/linux "$inc/linux"
	ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$inc/asm"
	ln -s /usr/include/asm-generic "$inc/asm-generic"
	ln -s /usr/include/libconfig.h "$inc/libconfig.h"
	ln -s /usr/include/ev.h "$inc/ev.h"
	ln -s /usr/include/libmnl "$inc/libmnl"
	ln -s /usr/include/sodium.h "$inc/sodium.h"
	ln -s /usr/include/sodium "$inc/sodium"
	ln -s /usr/include/json-c "$inc/json-c"
	ln -s /usr/include/microhttpd.h "$inc/microhttpd.h"
	nbad=0
	nsrc=0
	for f in "$top"/common/*.c "$top"/ingress/*.c "$top"/egress/*.c \
		"$top"/gateway/*.c; do
		nsrc=$((nsrc + 1))
		# L3BOND_VERSION: as CMake defines it (l3bond_version)
		if ! musl-gcc -fsyntax-only -std=gnu11 -D_GNU_SOURCE -Os -Wall \
			-DL3BOND_VERSION="\"$version\"" \
			-Wextra -Werror -Wshadow -Wstrict-prototypes \
			-Wmissing-prototypes -Wformat=2 \
			-Wno-missing-field-initializers -Wno-strict-aliasing \
			-I"$top" -I"$inc" "$f" >"$tmp/musl.err" 2>&1; then
			nbad=$((nbad + 1))
			bad "musl: ${f#"$top"/}:"
			head -20 "$tmp/musl.err" | sed 's/^/    /'
		fi
	done
	if [[ $nbad -eq 0 ]]; then
		ok "musl: the $nsrc sources of l3bondd, l3bondctl and l3bond-exporter compile against musl's headers (-Werror)"
	fi
else
	echo "note: musl-gcc is not installed (Debian: musl-tools): the musl check is left out"
fi

# ---- 8. the Prometheus collector ---------------------------------------------------

# files/l3bond.lua under Lua 5.1 (prometheus-node-exporter-lua's), its
# output() a stand-in that prints: with a stand-in daemon on a socket of
# the run directory it passes on what `l3bondctl metrics` (this build's)
# prints; with no daemon answering, nothing.
l3bondctl=$(cd "$build" && pwd)/gateway/l3bondctl
if command -v lua5.1 >/dev/null; then
	run=$tmp/lua-run
	mkdir -p "$run"
	python3 - "$run/cpe.sock" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
s.settimeout(10)  # a collector that never asks fails the check, not the test
open(sys.argv[1] + ".up", "w").close()
for _ in range(2):
    c, _ = s.accept()
    c.recv(300)
    c.sendall(b"ok\nl3bond-status 1\t9.9\nd\tdaemon\trole\ttext\tthe role\n"
              b"v\tdaemon\trole\t\t\t\t\t\tcpe\n")
    c.close()
EOF
	fake=$!
	for ((i = 0; i < 100; i++)); do
		[[ -e $run/cpe.sock.up ]] && break
		sleep 0.02
	done
	collect() {
		L3BOND_RUN_DIR=$1 L3BONDCTL=$l3bondctl lua5.1 \
			-e 'function output(...) io.write(...) end' \
			-e "dofile('$files/l3bond.lua').scrape()" 2>&1
	}
	got=$(collect "$run")
	want=$("$l3bondctl" -s "$run/cpe.sock" metrics 2>&1 || true)
	if [[ $got == "$want" && $got == *'l3bond_role_info{role="cpe"} 1'* &&
		$got == *'l3bond_build_info{version="9.9"} 1'* ]]; then
		ok "collector: passes on what l3bondctl metrics prints"
	else
		bad "collector: got '$got', want '$want'"
	fi
	wait "$fake" 2>/dev/null || true
	got=$(collect "$tmp/nowhere")
	if [[ -z $got ]]; then
		ok "collector: no daemon, no output (and no error)"
	else
		bad "collector without a daemon: '$got'"
	fi
else
	echo "note: lua5.1 is not installed (scripts/deps.sh installs it): the collector is not run"
fi

tb_done
