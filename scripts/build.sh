#!/usr/bin/env bash
# Builds l3bond: build/ (release with debug info) or, with --asan,
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
args=()
if [ "${1:-}" = "--asan" ]; then
	dir=build-asan
	args=(-DL3BOND_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
cmake -S . -B "$dir" "${args[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
