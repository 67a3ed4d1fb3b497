#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The optimised builds packagers make, with warnings as errors: Release
# (-O3) and MinSizeRel (-Os), each with gcc and with clang-14 (Debian 12:
# scripts/deps.sh installs it), into build-matrix/<compiler>-<type>/.
# Everything is built, the tests too: optimisation brings warnings of its
# own (maybe-uninitialized at -O3, format-truncation at -Os), in test code
# as much as in the daemon's.  Build only: the tests run in build/ and
# build-asan/ (scripts/test.sh).  The scripts/test.sh step of CI.
#
#   scripts/build-matrix.sh        all four; $BUILD_JOBS jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${BUILD_JOBS:-2}
failed=()
for cc in gcc clang-14; do
	for type in Release MinSizeRel; do
		dir=build-matrix/$cc-$type
		start=$SECONDS
		mkdir -p "$dir"
		if { cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" \
			-DCMAKE_BUILD_TYPE="$type" -DL3BOND_WERROR=ON &&
			cmake --build "$dir" -j "$jobs"; } >"$dir/build.log" 2>&1; then
			echo "build-matrix: $cc $type: built in $((SECONDS - start)) s"
		else
			echo "build-matrix: $cc $type: FAILED; the errors ($dir/build.log):"
			grep -E -A3 'error|warning' "$dir/build.log" | head -60
			failed+=("$cc $type")
		fi
	done
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "build-matrix: ${#failed[@]} of 4 builds failed: ${failed[*]}"
	exit 1
fi
