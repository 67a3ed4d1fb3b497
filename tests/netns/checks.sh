# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# tests/netns/checks.sh: the checks of the test scripts, one output format:
# "PASS: NAME" or "FAIL: NAME: why" per check, "N passed, M failed" at the
# end.  lib.sh (the namespace tests) sources it; so do the scripts of
# tests/ops and tests/openwrt, which need no testbed.  Needs bash, awk and
# jq (for the JSON readers).

pass=0
fail=0

ok() {
	pass=$((pass + 1))
	echo "PASS: $*"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# check NAME EXPR K=V...: EXPR is an awk expression over the variables
# given as further arguments name=value.
check() {
	local name=$1 expr=$2 kv args=()
	shift 2
	for kv in "$@"; do
		args+=(-v "$kv")
	done
	if awk "${args[@]}" "BEGIN { exit !($expr) }" 2>/dev/null; then
		ok "$name"
	else
		bad "$name: want $expr, got $*"
	fi
}

# rate_check NAME EXPR K=V...: a check on a rate.  In a sanitizer build
# (L3B_SANITIZED=1, set by ctest there) the daemons are several times
# slower, so the figures are printed but not asserted; everything else
# still runs under the sanitizers.
rate_check() {
	if [ "${L3B_SANITIZED:-0}" = 1 ]; then
		echo "  (sanitizer build, not asserted) $1: $*"
		return 0
	fi
	check "$@"
}

# check_cmd NAME CMD...: passes if CMD exits 0.  CMD may be an eval of the
# caller's variables: no local here may shadow them.
check_cmd() {
	if "${@:2}"; then
		ok "$1"
	else
		bad "$1"
	fi
}

# tb_done: the totals; its status is the script's (0: every check passed).
tb_done() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# tb_abort: the totals, then exit 1: a step the rest depends on failed.
tb_abort() {
	echo "$pass passed, $fail failed"
	exit 1
}

# Lines of stdin matching a fixed string (0 is not an error here).
cnt() {
	grep -c -F -- "$1" || true
}

# ---- JSON ------------------------------------------------------------------
#
# The tools print one flat object per file; a receiver's log may hold
# other lines too (tb_bg's stderr), so every line that parses is read.

# jget FILE KEY [DEFAULT]: the member KEY of the first object in FILE that
# has it (strings bare, true/false as words); DEFAULT (empty) when none has.
jget() {
	local v
	v=$(jq -nRr --arg k "$2" '[inputs | fromjson? | objects |
		select(has($k)) | .[$k]] | .[:1][] |
		if type == "string" then . else tojson end' "$1" 2>/dev/null) || true
	echo "${v:-${3:-}}"
}

# json_members FILE: the members of the first object in FILE, one
# key=value a line.
json_members() {
	jq -nRr '[inputs | fromjson? | objects] | .[:1][] | to_entries[] |
		"\(.key)=\(.value | if type == "string" then . else tojson end)"' \
		"$1" 2>/dev/null || true
}

# jcheck NAME FILE EXPR: the awk expression EXPR, over the members of the
# JSON object in FILE as variables, is true.  Every name in EXPR must be a
# member: a typo must not read as 0 and pass.
jcheck() {
	local name=$1 file=$2 expr=$3 kv id members args=()
	members=$(json_members "$file")
	while IFS= read -r kv; do
		[ -n "$kv" ] && args+=(-v "$kv")
	done <<<"$members"
	for id in $(sed 's/"[^"]*"//g' <<<"$expr" | grep -oE '[A-Za-z_][A-Za-z0-9_]*'); do
		if ! grep -q "^$id=" <<<"$members"; then
			bad "$name: no '$id' in $file"
			cat "$file" 2>/dev/null || true
			return 0
		fi
	done
	if awk "${args[@]}" "BEGIN { exit !($expr) }"; then
		ok "$name"
	else
		bad "$name: want $expr, got:"
		cat "$file"
	fi
}
