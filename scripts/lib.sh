# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# scripts/lib.sh: what the namespace entry points (demo.sh, paper.sh)
# share.  Sourced from the repository root.

# as_root SELF ARGS...: carry on as root; re-run SELF (the script's
# absolute path) under sudo when there is one, else fail with why.
as_root() {
	local self=$1
	shift
	[ "$(id -u)" -eq 0 ] && return 0
	if command -v sudo >/dev/null; then
		exec sudo -- "$self" "$@"
	fi
	echo "${self##*/}: needs root (network namespaces): run it as root" >&2
	exit 1
}

# build_for_run: installs what running needs (deps.sh --run) and builds;
# sets L3B_BUILD to the build directory: $L3B_BUILD_DIR, an existing build,
# if set, else build/.
build_for_run() {
	scripts/deps.sh --run
	if [ -n "${L3B_BUILD_DIR:-}" ]; then
		L3B_BUILD=$(cd "$L3B_BUILD_DIR" && pwd)
		echo "== building ($L3B_BUILD)"
		cmake --build "$L3B_BUILD" -j "$(nproc)" >/dev/null
	else
		L3B_BUILD=$(pwd)/build
		echo "== building (build/)"
		scripts/build.sh >/dev/null
	fi
}
