#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# The Debian package as a user gets it: built from this tree by
# scripts/deb.sh (DEB_BUILD_OPTIONS=nocheck: the test command has run the
# tests), linted, installed on this machine, installed again, purged.
#
#   0. debian/changelog's upstream version is CMakeLists.txt's project
#      version, the one source of the version (also without root);
#   1. lintian on the .changes, which takes in the .deb and the
#      .buildinfo: no error, no warning but those accepted in
#      debian/l3bond.lintian-overrides;
#  1b. what the maintainer scripts start, stop and restart on a systemd
#      machine (run with the systemd tools as stubs: this one may have no
#      systemd as PID 1): nothing at install; at an upgrade nothing stopped
#      before, a try-restart of every unit and l3bondd@ instance after; at
#      removal a stop of them all;
#   2. apt-get install ./l3bond_*.deb: the three binaries run, l3bondd
#      --check accepts both sample configurations, systemd-analyze verify
#      passes on the installed units, system user and group l3bond exist,
#      /etc/l3bond is 0750 root:l3bond, no unit is enabled or running;
#   3. the same .deb installed again (dpkg's upgrade path: prerm upgrade,
#      postinst configure OLD-VERSION) with a configuration in /etc/l3bond
#      and l3bondd.service enabled by the operator: the unit stays enabled
#      and stopped, the file stays, made 0640 root:l3bond, and user
#      l3bond can --check it; the checks of 2 still pass;
#   4. apt-get purge: no file of the package is left (dpkg -L, taken
#      before), nor a directory of it that no other package owns;
#      /etc/l3bond, the unit links and debhelper's state of them are
#      gone; the user l3bond stays (Debian keeps system users).
#
# This machine is left as it was but for that user and the build
# dependencies: the package is purged on any exit.  One left installed by
# an earlier run is purged first; the test refuses (fails) to run on a
# machine whose /etc/l3bond holds files other than its own, which the
# purge would delete.
#
# usage: test_deb.sh SOURCE_DIR
# Exit 0 if every check passes, 1 if one fails, 77 when not root (after
# check 0).
set -Eeuo pipefail

src=$(cd "${1:?usage: test_deb.sh SOURCE_DIR}" && pwd)

# ok, bad: one output format with the other test scripts
# shellcheck source=../netns/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../netns/checks.sh"
trap 'echo "error at line $LINENO: $BASH_COMMAND" >&2' ERR

# the test's own configuration (an l3bondd@ops-deb-test instance's)
test_conf=/etc/l3bond/ops-deb-test.conf

# ---- 0. one version ---------------------------------------------------------

cmake_version=$(sed -n 's/^project(l3bond VERSION \([0-9.]*\).*/\1/p' \
	"$src/CMakeLists.txt")
deb_version=$(sed -n '1s/^l3bond (\([^)]*\)).*/\1/p' "$src/debian/changelog")
deb_upstream=${deb_version#*:}
deb_upstream=${deb_upstream%-*}
if [ -n "$cmake_version" ] && [ "$deb_upstream" = "$cmake_version" ]; then
	ok "debian/changelog's $deb_version is CMakeLists.txt's version $cmake_version"
else
	bad "debian/changelog's upstream version '$deb_upstream' ($deb_version) is not CMakeLists.txt's '$cmake_version': add a changelog entry (dch -v $cmake_version-1)"
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: not root: the package is not built, installed nor purged"
	echo "$pass passed, $fail failed, 1 skipped"
	[ "$fail" -eq 0 ] || exit 1
	exit 77
fi

apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -y -qq --no-install-recommends \
		-o DPkg::Lock::Timeout=300 "$@"
}

installed() {
	local s
	s=$(dpkg-query -W -f='${db:Status-Status}' l3bond 2>/dev/null || true)
	[ -n "$s" ] && [ "$s" != not-installed ]
}

# Does /etc/l3bond hold a file that is not the test's own?
foreign_config() {
	[ -d /etc/l3bond ] &&
		find /etc/l3bond -mindepth 1 ! -path "$test_conf" | grep -q .
}

# One run at a time on this machine: they would install and purge the
# same package under each other (another build tree's ctest, say).
exec {lock}>/tmp/l3bond-deb.lock
flock "$lock"

tmp=
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	trap - ERR # the exit status of a failed run is no error of the cleanup
	if foreign_config; then
		return
	fi
	if installed; then
		apt_get purge l3bond >/dev/null 2>&1 || echo "cleanup: apt-get purge l3bond failed" >&2
	fi
	# what a broken purge may have left of the test's own
	rm -f "$test_conf"
	if [ -d /etc/l3bond ]; then
		rmdir /etc/l3bond
	fi
	if [ -n "$tmp" ]; then
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

if foreign_config; then
	bad "/etc/l3bond holds files of this machine ($(find /etc/l3bond -mindepth 1 -printf '%P ')): a purge would delete them; not run"
	exit 1
fi
if installed; then
	echo "  an earlier run left l3bond installed: purged first"
	apt_get purge l3bond >/dev/null
fi
if ! command -v lintian >/dev/null; then
	bad "lintian is not installed (scripts/deps.sh installs it)"
	exit 1
fi
tmp=$(mktemp -d /tmp/l3b-deb-XXXXXX)

# ---- 1. build, lintian ------------------------------------------------------

start=$SECONDS
if ! deb=$(DEB_BUILD_OPTIONS=nocheck "$src/scripts/deb.sh" "$tmp/out"); then
	bad "scripts/deb.sh failed"
	exit 1
fi
ok "scripts/deb.sh built $(basename "$deb") in $((SECONDS - start)) s"
version=$(dpkg-deb -f "$deb" Version)
if [ "$version" = "$deb_version" ]; then
	ok "the .deb's version is debian/changelog's $version"
else
	bad "the .deb's version '$version' is not debian/changelog's '$deb_version'"
fi

# -I: the info tags too, shown, not failing; the overridden warnings are
# not shown (--show-overrides would make them fail the run)
changes=$(echo "$tmp/out"/l3bond_*.changes)
rc=0
lintian -I --fail-on error,warning "$changes" >"$tmp/lintian.txt" 2>&1 || rc=$?
grep -v '^running with root privileges' "$tmp/lintian.txt" | sed 's/^/  lintian: /' || true
if [ $rc -eq 0 ]; then
	ok "lintian: no error, no warning (.deb, .buildinfo, .changes)"
else
	bad "lintian: errors or warnings (exit $rc)"
fi

# ---- 1b. the maintainer scripts as on a systemd machine ------------------

# Where systemd is not PID 1 (a container, as CI may be) the scripts start,
# stop and restart nothing.  What they would do is run here: the preinst,
# postinst and prerm of the .deb (not the postrm: its purge deletes files)
# with /run/systemd/system pointing at a directory of the test's and the
# systemd tools as stubs that log their calls.
ms=$tmp/maint
mkdir -p "$ms/ctl" "$ms/bin" "$ms/systemd"
dpkg-deb -e "$deb" "$ms/ctl"
for t in deb-systemd-invoke deb-systemd-helper systemctl systemd-sysusers \
	systemd-tmpfiles; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$t" "$ms/calls" >"$ms/bin/$t"
	chmod +x "$ms/bin/$t"
done
# actions SCRIPT ARG...: the starts, stops and restarts of SCRIPT run with
# ARG..., one line each, joined by "; "
actions() {
	local script=$ms/ctl/$1
	shift
	: >"$ms/calls"
	if [ -f "$script" ]; then
		sed "s#/run/systemd/system#$ms/systemd#g" "$script" >"$ms/run.sh"
		PATH=$ms/bin:$PATH DPKG_ROOT='' sh "$ms/run.sh" "$@" >/dev/null 2>&1 ||
			echo "exit $?"
	fi
	{ grep -E '^(deb-systemd-invoke|systemctl) [a-z-]*(start|stop)' \
		"$ms/calls" || true; } | paste -sd ';' | sed 's/;/; /g'
}
upgrade="deb-systemd-invoke try-restart l3bond-exporter.service l3bondd.service; deb-systemd-invoke try-restart l3bondd@*.service"
remove="deb-systemd-invoke stop l3bond-exporter.service l3bondd@*.service l3bondd.service"
for step in "preinst install::" "postinst configure::" \
	"preinst upgrade $version::" "prerm upgrade $version::" \
	"postinst configure $version::$upgrade" "prerm remove::$remove"; do
	want=${step#*::}
	step=${step%%::*}
	# shellcheck disable=SC2086 # the script and its arguments
	got=$(actions $step)
	if [ "$got" = "$want" ]; then
		ok "systemd: $step: ${want:-no start, stop nor restart}"
	else
		bad "systemd: $step: '$got', not '$want'"
	fi
done

# ---- 2. install ---------------------------------------------------------------

# The installed package as a user finds it; MODE: "fresh" or "again".
check_installed() {
	local mode=$1 b uid shell unit st out rc running

	if [ "$(dpkg-query -W -f='${Status} ${Version}' l3bond 2>/dev/null)" = \
		"install ok installed $version" ]; then
		ok "$mode: l3bond $version installed"
	else
		bad "$mode: dpkg says '$(dpkg-query -W -f='${Status} ${Version}' l3bond 2>&1)'"
	fi
	# the libraries resolve and the programs run
	# (a key: 32 bytes in base64; test_genkey.sh checks them closely)
	if /usr/sbin/l3bondd --genkey | grep -qE '^[A-Za-z0-9+/]{43}=$' &&
		/usr/sbin/l3bondctl genkey | grep -qE '^[A-Za-z0-9+/]{43}=$' &&
		/usr/sbin/l3bond-exporter --help >/dev/null 2>&1; then
		ok "$mode: l3bondd --genkey, l3bondctl genkey, l3bond-exporter --help run"
	else
		bad "$mode: a binary does not run: $(ldd /usr/sbin/l3bondd /usr/sbin/l3bondctl /usr/sbin/l3bond-exporter 2>&1 | grep 'not found' || true)"
	fi
	# the one version: CMakeLists.txt's, in what each program says
	for b in l3bondd l3bondctl l3bond-exporter; do
		out=$(/usr/sbin/$b --version 2>&1 || true)
		if [ "$out" = "$b $cmake_version" ]; then
			ok "$mode: $b --version says $cmake_version"
		else
			bad "$mode: $b --version says '$out', not '$b $cmake_version'"
		fi
	done
	for b in cpe concentrator; do
		if out=$(/usr/sbin/l3bondd -c "/usr/share/doc/l3bond/examples/$b.conf" --check 2>&1); then
			ok "$mode: l3bondd --check accepts examples/$b.conf"
		else
			bad "$mode: l3bondd --check examples/$b.conf: $out"
		fi
	done
	for unit in l3bondd.service l3bondd@ops-deb-test.service l3bond-exporter.service; do
		# verify also reads the machine's other units; what it says of
		# those is not ours to judge (as in test_install.sh)
		rc=0
		out=$(systemd-analyze verify "/lib/systemd/system/$unit" 2>&1) || rc=$?
		out=$(printf '%s\n' "$out" | grep -v \
			'^/lib/systemd/system/[^l]\|^/usr/lib/systemd/system/[^l]' || true)
		if [ $rc -eq 0 ] && [ -z "$out" ]; then
			ok "$mode: systemd-analyze verify $unit: clean"
		else
			bad "$mode: systemd-analyze verify $unit: $out"
		fi
	done
	uid=$(getent passwd l3bond | cut -d: -f3)
	shell=$(getent passwd l3bond | cut -d: -f7)
	if [ -n "$uid" ] && [ "$uid" -lt 1000 ] && [[ "$shell" == */nologin ]] &&
		getent group l3bond >/dev/null; then
		ok "$mode: system user l3bond ($uid) with group l3bond, no login"
	else
		bad "$mode: user l3bond: '$(getent passwd l3bond || true)', group '$(getent group l3bond || true)'"
	fi
	st=$(stat -c '%a %U %G' /etc/l3bond 2>&1 || true)
	if [ "$st" = "750 root l3bond" ]; then
		ok "$mode: /etc/l3bond 0750 root:l3bond"
	else
		bad "$mode: /etc/l3bond: $st"
	fi
	running=$(for p in /proc/[0-9]*; do
		# (a process may be gone, a kernel thread has no exe)
		case $(readlink "$p/exe" 2>/dev/null || true) in
		/usr/sbin/l3bondd | /usr/sbin/l3bond-exporter) echo "${p#/proc/}" ;;
		esac
	done)
	if [ -d /run/systemd/system ]; then
		for unit in l3bondd.service l3bond-exporter.service; do
			if systemctl --quiet is-active "$unit"; then
				running="$running $unit"
			fi
		done
	fi
	if [ -z "$running" ]; then
		ok "$mode: no l3bondd nor l3bond-exporter of the package running"
	else
		bad "$mode: running: $running"
	fi
}

# Is UNIT enabled (a link to it in /etc/systemd/system)?
enabled() {
	[ "$(systemctl is-enabled "$1" 2>/dev/null)" = enabled ]
}

if apt_get install "$deb" >"$tmp/apt.log" 2>&1; then
	ok "apt-get install ./$(basename "$deb")"
else
	bad "apt-get install: $(tail -n 5 "$tmp/apt.log")"
	exit 1
fi
dpkg -L l3bond >"$tmp/files.txt"
check_installed fresh
for unit in l3bondd.service l3bond-exporter.service; do
	if enabled "$unit"; then
		bad "fresh: $unit enabled"
	else
		ok "fresh: $unit not enabled ($(systemctl is-enabled "$unit" 2>&1 || true))"
	fi
done

# ---- 3. again: the upgrade path ---------------------------------------------

install -m 0644 /usr/share/doc/l3bond/examples/cpe.conf "$test_conf"
systemctl enable l3bondd.service >/dev/null 2>&1 || true
if apt_get install --reinstall "$deb" >"$tmp/apt.log" 2>&1; then
	ok "again: apt-get install --reinstall ./$(basename "$deb")"
else
	bad "again: apt-get install --reinstall: $(tail -n 5 "$tmp/apt.log")"
fi
check_installed again
if enabled l3bondd.service && ! enabled l3bond-exporter.service; then
	ok "again: l3bondd.service enabled as the operator left it, l3bond-exporter.service not"
else
	bad "again: enabled: l3bondd.service $(systemctl is-enabled l3bondd.service 2>&1 || true), l3bond-exporter.service $(systemctl is-enabled l3bond-exporter.service 2>&1 || true)"
fi
st=$(stat -c '%a %U %G' "$test_conf" 2>&1 || true)
if [ "$st" = "640 root l3bond" ]; then
	ok "again: $test_conf kept, made 0640 root:l3bond"
else
	bad "again: $test_conf: $st"
fi
if out=$(setpriv --reuid l3bond --regid l3bond --init-groups \
	/usr/sbin/l3bondd -c "$test_conf" --check 2>&1); then
	ok "again: user l3bond reads and accepts $test_conf"
else
	bad "again: l3bondd --check as user l3bond: $out"
fi

# ---- 4. purge ---------------------------------------------------------------

if apt_get purge l3bond >"$tmp/apt.log" 2>&1; then
	ok "apt-get purge l3bond"
else
	bad "apt-get purge: $(tail -n 5 "$tmp/apt.log")"
fi
if installed; then
	bad "purge: dpkg still lists l3bond: $(dpkg-query -W -f='${db:Status-Status}' l3bond)"
else
	ok "purge: dpkg no longer knows l3bond"
fi
left=
while IFS= read -r f; do
	if [ "$f" = /. ]; then
		continue
	elif [ -d "$f" ]; then
		# a directory the package shared with others (/usr/sbin, ...)
		dpkg -S "$f" >/dev/null 2>&1 || left="$left $f"
	elif [ -e "$f" ] || [ -L "$f" ]; then
		left="$left $f"
	fi
done <"$tmp/files.txt"
if [ -z "$left" ]; then
	ok "purge: none of the package's $(wc -l <"$tmp/files.txt") files and directories left"
else
	bad "purge: left:$left"
fi
if [ ! -e /etc/l3bond ]; then
	ok "purge: /etc/l3bond gone with its configuration"
else
	bad "purge: /etc/l3bond left: $(ls -la /etc/l3bond)"
fi
links=$(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
	/var/lib/systemd/deb-systemd-helper-masked -name '*l3bond*' 2>/dev/null || true)
if [ -z "$links" ]; then
	ok "purge: no unit link nor debhelper state of the units left"
else
	bad "purge: left: $links"
fi
if getent passwd l3bond >/dev/null; then
	ok "purge: system user l3bond kept, as Debian keeps system users"
else
	bad "purge: user l3bond gone (the package never removes it: who did?)"
fi
echo "  the whole test: $SECONDS s"

echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	exit 1
fi
exit 0
