#!/usr/bin/env bash
# Installs what l3bond needs to build, test and plot on Debian 12.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

pkgs=(build-essential cmake pkg-config
	libconfig-dev libev-dev libmnl-dev libnetfilter-queue-dev
	libsodium-dev libcmocka-dev
	iproute2 iptables nftables conntrack procps bsdextrautils python3
	gnuplot-nox)

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
