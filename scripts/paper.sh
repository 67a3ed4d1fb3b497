#!/usr/bin/env bash
# The paper's experiments on the real daemons, with plots and a report:
# installs what it needs (scripts/deps.sh), builds (build/), and runs
# tests/paper/run.sh (see tests/paper/README.md).  As root (re-runs itself
# with sudo otherwise).  The whole set takes about 20 minutes; --quick
# runs one cell (the ramp, k 0.5, T_dwd 250 ms) in about a minute.
#
# usage: scripts/paper.sh [--quick] [--only REGEX] [--out DIR]
#        L3B_BUILD_DIR=DIR scripts/paper.sh ...  (an existing build instead of build/)
# Output: DIR (default out/paper)/report.md and one folder per cell.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null; then
		exec sudo -- "$0" "$@"
	fi
	echo "paper.sh: needs root (network namespaces): run it as root" >&2
	exit 1
fi

scripts/deps.sh --run
if [ -n "${L3B_BUILD_DIR:-}" ]; then
	build=$(cd "$L3B_BUILD_DIR" && pwd)
	echo "== building ($build)"
	cmake --build "$build" -j "$(nproc)" >/dev/null
else
	build=$root/build
	echo "== building (build/)"
	scripts/build.sh >/dev/null
fi
export PAPER_COMMAND="scripts/paper.sh $*"
exec tests/paper/run.sh --build "$build" "$@"
