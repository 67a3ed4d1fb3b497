#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The test command: installs dependencies, builds twice (plain and with
# ASan+UBSan) and runs every test in both builds; before that, the
# optimised builds (Release and MinSizeRel, gcc and clang) must compile
# without a warning.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
echo "== optimised builds"
scripts/build-matrix.sh
for variant in plain asan; do
	if [ $variant = asan ]; then
		scripts/build.sh --asan
		dir=build-asan
	else
		scripts/build.sh
		dir=build
	fi
	# the install, unit-file and OpenWrt checks (label ops) test files and
	# scripts, not compiled code: once, in the plain build; so do the
	# namespace tests labelled plain_only (see tests/netns/CMakeLists.txt:
	# the sanitizer build runs the ones with hostile input, restarts and
	# reloads, and every unit test)
	filter=()
	[ $variant = asan ] && filter=(-LE 'ops|plain_only')
	echo "== tests ($variant build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" \
		"${filter[@]}"
done

# The quality benchmark's quick form (tests/quality/run.sh: one buffer, one
# case of each kind, DSL alone, the paper's algorithm and l3bond): it
# prints its figures and fails only if a case measured nothing.  As root.
if [ "$(id -u)" -eq 0 ]; then
	echo "== quality benchmark (quick form)"
	bash tests/quality/run.sh --quick --build build --out build/quality
fi

# The libFuzzer targets (wire decoder, config reader, l3bondctl set) for a
# bounded time with clang; their seeds and saved crashers already ran in
# both builds above as unit tests.
echo "== fuzzing (${FUZZ_SECONDS:=20} s per target)"
FUZZ_SECONDS=$FUZZ_SECONDS scripts/fuzz.sh
