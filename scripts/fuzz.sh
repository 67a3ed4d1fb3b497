#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fuzzes the wire decoder and the config reader for a bounded time.
#
#   scripts/fuzz.sh [OUT_DIR]          (default: build-fuzz/out)
#
# Installs clang-14 and libFuzzer (Debian 12) if missing, builds the
# targets of tests/fuzz/ alone with clang, ASan and UBSan, warnings as
# errors (build dir $FUZZ_BUILD, default build-fuzz), then runs each target for
# $FUZZ_SECONDS seconds (default 30) on a copy of its seeds and saved
# crashers, in OUT_DIR/<target>/.  Prints execs/s and coverage per target.
# A crash, a leak, a sanitizer report, a hang (10 s per input) or a broken
# property fails the script; the input is saved as
# OUT_DIR/<target>/crash-* (or leak-*, timeout-*, oom-*): copy it into
# tests/fuzz/regress/<target>/ once fixed.  $FUZZ_TARGETS picks targets.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-30}
build=${FUZZ_BUILD:-build-fuzz}
out=${1:-$build/out}
read -ra targets <<<"${FUZZ_TARGETS:-fuzz_wire fuzz_conf fuzz_conf_set}"

if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
	echo "fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2
	exit 2
fi

# libFuzzer comes with clang's runtime libraries, packaged apart on Debian.
pkgs=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	echo "fuzz: installing ${missing[*]}" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== fuzz: building in $build"
# the project without its tests, and of it only the fuzz targets
home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' \
	"$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$home" ] && [ "$home" != "$PWD" ]; then
	echo "fuzz: $build is a build of $home; remove it or set FUZZ_BUILD" >&2
	exit 2
fi
mkdir -p "$build"
if ! { cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang-14 \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DL3BOND_FUZZ=ON \
	-DL3BOND_TESTS=OFF -DL3BOND_WERROR=ON &&
	cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"; } \
	>"$build/build.log" 2>&1; then
	cat "$build/build.log"
	echo "fuzz: the build failed" >&2
	exit 1
fi

# The last libFuzzer status line holds the coverage; the final stats the
# totals.
field() { # field NAME LINE: the number after "NAME: " in LINE
	sed -n "s/.* $1: *\([0-9][0-9]*[a-zA-Z]*\).*/\1/p" <<<"$2"
}

export ASAN_OPTIONS=detect_leaks=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
passed=0
failed=0
mkdir -p "$out"
for t in "${targets[@]}"; do
	work=$out/$t
	rm -rf "$work"
	mkdir -p "$work/corpus"
	for d in "tests/fuzz/corpus/$t" "tests/fuzz/regress/$t"; do
		[ -d "$d" ] || continue
		find "$d" -maxdepth 1 -type f ! -name '*.md' \
			-exec cp -t "$work/corpus" {} +
	done
	args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
		-print_final_stats=1 -artifact_prefix="$work/")
	[ -f "tests/fuzz/$t.dict" ] && args+=(-dict="tests/fuzz/$t.dict")
	# libFuzzer looks for leaks after each input whose mallocs and frees
	# do not match, with a full LeakSanitizer scan.  libconfig 1.5 leaks
	# on many syntax errors (tests/fuzz/lsan.supp), which would make
	# fuzz_conf scan after most inputs and run 6 times slower: it looks
	# for leaks only in the replay below.
	[ "$t" = fuzz_conf ] && args+=(-detect_leaks=0)

	echo "== $t: ${seconds} s"
	rc=0
	"$build/tests/fuzz/$t" "${args[@]}" "$work/corpus" >"$work/log" 2>&1 || rc=$?
	# Every input of the corpus it ended with, once, in one process:
	# LeakSanitizer then reports at exit whatever any of them leaked.
	if [ "$rc" -eq 0 ]; then
		find "$work/corpus" -type f -print0 |
			xargs -0 "$build/tests/fuzz/$t" >"$work/replay.log" 2>&1 || {
			rc=$?
			cat "$work/replay.log" >>"$work/log"
		}
	fi

	last=$(grep -E '^#[0-9]+.*cov: ' "$work/log" | tail -n 1 || true)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
	printf '%s: %s runs, %s exec/s, cov %s, ft %s, corpus %s inputs\n' \
		"$t" "${runs:-?}" "${rate:-?}" "$(field cov "$last")" \
		"$(field ft "$last")" "$(field corp "$last")"
	artifacts=$(find "$work" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) | sort)
	if [ "$rc" -ne 0 ] || [ -n "$artifacts" ]; then
		echo "$t: FAILED (exit $rc); the end of $work/log:"
		tail -n 40 "$work/log"
		echo "$t: saved input(s): ${artifacts:-none}"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done
# not "N passed, N failed": CI would read that as the test count
if [ "$failed" -eq 0 ]; then
	echo "fuzz: all $passed targets clean"
else
	echo "fuzz: $failed of $((passed + failed)) targets FAILED"
	exit 1
fi
