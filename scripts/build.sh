#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds l3bond: build/ (release with debug info) or, with --asan,
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer).  Both with
# warnings as errors (L3BOND_WERROR, off in a plain cmake build).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
args=(-DL3BOND_WERROR=ON)
if [ "${1:-}" = "--asan" ]; then
	dir=build-asan
	args+=(-DL3BOND_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
cmake -S . -B "$dir" "${args[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
