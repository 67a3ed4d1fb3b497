#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Installs what l3bond needs to build, test and plot on Debian 12.
# Idempotent: does nothing when everything is already there.
#
# usage: scripts/deps.sh          everything: build, every test, benchmark
#        scripts/deps.sh --run    what building and running the namespace
#                                 demos and experiments need (demo.sh,
#                                 paper.sh): quicker on a fresh machine
set -euo pipefail

# build, the namespace testbed and its tools, the plots
pkgs=(build-essential cmake pkg-config
	libconfig-dev libev-dev libmnl-dev libnetfilter-queue-dev
	libsodium-dev libcmocka-dev libjson-c-dev libmicrohttpd-dev
	iproute2 iptables ipset nftables conntrack procps bsdextrautils python3 jq
	gnuplot-nox)
case ${1:-} in
--run) ;;
"")
	pkgs+=(curl util-linux passwd
	systemd groff-base man-db shellcheck valgrind strace
	busybox musl-tools clang-14 libclang-rt-14-dev lua5.1
	iperf3 irtt iputils-ping keepalived
	debhelper dpkg-dev lintian)
	;;
*)
	echo "usage: scripts/deps.sh [--run]" >&2
	exit 2
	;;
esac
# json-c: l3bondctl's JSON; libmicrohttpd: l3bond-exporter's HTTP.
# jq reads the tools' JSON in the namespace tests (tests/netns/lib.sh);
# curl scrapes the metrics; util-linux's setpriv and passwd's useradd run
# the daemons as the unit's user; systemd (systemd-analyze), groff and
# man-db lint the units and man pages; shellcheck the OpenWrt scripts;
# valgrind (callgrind) counts instructions per packet in the benchmark;
# strace lists the daemon's system calls against the unit's filter;
# busybox (ash, awk) and musl-tools (musl-gcc) stand in for OpenWrt's
# shell and libc in the package test, lua5.1 for its Prometheus
# collector (prometheus-node-exporter-lua runs on Lua 5.1); clang-14 with
# its runtime builds the libFuzzer targets (scripts/fuzz.sh); iperf3, irtt,
# ping and jq are the quality benchmark's tools (scripts/quality.sh);
# keepalived runs VRRP between two concentrators in tests/netns/test_ha.sh;
# debhelper and dpkg-dev build the Debian package (scripts/deb.sh, from
# debian/control's Build-Depends, which are the build packages above)
# and lintian checks it (tests/ops/test_deb.sh).  No fakeroot: the
# package says Rules-Requires-Root: no, so dpkg-buildpackage needs no
# root, real or faked.

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# irtt's package enables a server on the host's port 2112, keepalived's a
# VRRP daemon on the host; the benchmark and test_ha run their own in
# namespaces
if [ -d /run/systemd/system ]; then
	$SUDO systemctl disable --now irtt.service >/dev/null 2>&1 || true
	$SUDO systemctl disable --now keepalived.service >/dev/null 2>&1 || true
fi
