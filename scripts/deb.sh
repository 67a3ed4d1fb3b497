#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Builds the Debian package of l3bond (debian/) with
# "dpkg-buildpackage -us -uc -b" in a copy of this tree without its build
# directories (build*/, out/, .git), so that the package never picks up a
# developer's build and no build of the package lands in the tree.  Puts
# the .deb (with its -dbgsym, .buildinfo, .changes and build.log) in
# OUT_DIR, a new directory under /tmp by default, and prints the .deb's
# path.  Installs the build dependencies (debian/control's Build-Depends,
# with apt-get build-dep) if some are missing.
#
# DEB_BUILD_OPTIONS=nocheck builds without the tests (L3BOND_TESTS=OFF)
# and without their build dependencies (the nocheck build profile); else
# the unit tests run in the build (ctest -L unit).
#
# usage: scripts/deb.sh [OUT_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

out=${1:-}
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/l3bond-deb-XXXXXX)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

profile=()
case " ${DEB_BUILD_OPTIONS:-} " in
*" nocheck "*) profile=(-Pnocheck) ;;
esac

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() {
	echo "deb: installing $*" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get -y -qq \
		--no-install-recommends -o DPkg::Lock::Timeout=300 "$@" >/dev/null
}
if ! command -v dpkg-checkbuilddeps >/dev/null; then
	apt_install install dpkg-dev
fi
if ! (cd "$src" && dpkg-checkbuilddeps "${profile[@]}" >/dev/null 2>&1); then
	apt_install "${profile[@]}" build-dep "$src"
fi

work=$(mktemp -d "$out/work-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/l3bond"
tar -C "$src" -cf - --exclude-vcs --exclude='./build*' --exclude=./out \
	--exclude='./obj-*' . | tar -C "$work/l3bond" -xf -

if ! (cd "$work/l3bond" &&
	dpkg-buildpackage -us -uc -b -J"$(nproc)" "${profile[@]}") \
	>"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log: $out/build.log" >&2
	exit 1
fi
deb=$(cd "$work" && echo l3bond_*.deb)
# the .changes names its files: they stay together
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out"/
echo "$out/$deb"
