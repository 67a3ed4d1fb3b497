#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The key generators: `l3bondctl genkey` and `l3bondd --genkey`.
#
#   - exit 0, one line on stdout, nothing on stderr;
#   - the line is standard base64 with padding of 32 bytes (44 characters),
#     and decodes back to the same text (no stray bits);
#   - no daemon, socket or config needed: l3bondctl with -s and
#     $L3BOND_SOCKET naming nothing still prints a key;
#   - 20 keys of each are pairwise distinct (fresh randomness each run);
#   - l3bondd --check accepts a config holding a key of each, and refuses
#     the same config with the key cut short, without quoting it whole;
#   - "l3bondctl genkey x" is a usage error (exit 2, nothing on stdout).
#
# usage: test_genkey.sh BUILD_DIR
# Exit 0 if every check passes, 1 if one fails.
set -Eeuo pipefail

build=$(cd "${1:?usage: test_genkey.sh BUILD_DIR}" && pwd)
ctl=$build/gateway/l3bondctl
daemon=$build/gateway/l3bondd
tmp=$(mktemp -d /tmp/l3b-genkey.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../netns/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../netns/checks.sh"

# key_ok FILE: FILE is one line, 32 bytes of base64 that round-trip.
key_ok() {
	local k
	[[ $(wc -l <"$1") -eq 1 ]] || return 1
	k=$(cat "$1")
	[[ $k =~ ^[A-Za-z0-9+/]{43}=$ ]] || return 1
	[[ $(base64 -d <<<"$k" | wc -c) -eq 32 ]] || return 1
	[[ $(base64 -d <<<"$k" | base64 -w0) == "$k" ]]
}

# conf FILE KEY: a minimal valid CPE config holding KEY.
conf() {
	cat >"$1" <<-EOC
		role = "cpe";
		session_id = 1;
		key = "$2";
		lan_interfaces = [ "lan0" ];
		paths = (
			{ name = "dsl"; class = "fixed"; interface = "dsl0"; peer = "192.0.2.1"; },
			{ name = "lte"; class = "mobile"; interface = "lte0"; peer = "192.0.2.1"; }
		);
	EOC
}

for tool in "l3bondctl genkey" "l3bondd --genkey"; do
	read -r prog arg <<<"$tool"
	bin=$build/gateway/$prog
	if [[ ! -x $bin ]]; then
		bad "$tool: $bin is not built"
		continue
	fi
	rc=0
	L3BOND_SOCKET=$tmp/none "$bin" "$arg" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $rc -eq 0 && ! -s $tmp/err ]] && key_ok "$tmp/out"; then
		ok "$tool: exit 0, one key of 32 bytes in base64 ($(wc -c <"$tmp/out") bytes with the newline)"
	else
		bad "$tool: exit $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
	fi
	key=$(cat "$tmp/out")

	: >"$tmp/all"
	for _ in $(seq 20); do
		"$bin" "$arg" >>"$tmp/all"
	done
	n=$(sort -u "$tmp/all" | wc -l)
	if [[ $n -eq 20 ]]; then
		ok "$tool: 20 keys, 20 distinct"
	else
		bad "$tool: 20 keys, only $n distinct"
	fi

	conf "$tmp/good.conf" "$key"
	if "$daemon" -c "$tmp/good.conf" --check >"$tmp/check" 2>&1; then
		ok "$tool: l3bondd --check accepts a config with its key"
	else
		bad "$tool: l3bondd --check refused its key: $(cat "$tmp/check")"
	fi
	conf "$tmp/short.conf" "${key%?}"
	rc=0
	"$daemon" -c "$tmp/short.conf" --check >"$tmp/check" 2>&1 || rc=$?
	if [[ $rc -eq 1 ]] &&
		grep -qF "short.conf:3: key: bad value '${key:0:4}...' (43 chars)" "$tmp/check" &&
		! grep -qF -- "${key:0:5}" "$tmp/check"; then
		ok "$tool: the key cut short is refused, quoted by 4 characters"
	else
		bad "$tool: the key cut short: exit $rc: $(cat "$tmp/check")"
	fi
done

rc=0
"$ctl" -s "$tmp/none" genkey >"$tmp/out" 2>"$tmp/err" || rc=$?
if [[ $rc -eq 0 ]] && key_ok "$tmp/out"; then
	ok "l3bondctl -s SOCKET genkey: a key, the socket not looked at"
else
	bad "l3bondctl -s SOCKET genkey: exit $rc: $(cat "$tmp/err")"
fi
rc=0
"$ctl" genkey x >"$tmp/out" 2>"$tmp/err" || rc=$?
if [[ $rc -eq 2 && ! -s $tmp/out ]] && grep -q "genkey: unexpected 'x'" "$tmp/err"; then
	ok "l3bondctl genkey x: usage error, exit 2"
else
	bad "l3bondctl genkey x: exit $rc, stdout '$(cat "$tmp/out")'"
fi

tb_done
