#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# What an idle bond costs on the LTE (issue 14's goal: <= 50 MB a month,
# both directions): l3bondd on both ends of the namespace testbed
# (tests/netns/lib.sh), no user traffic, and the bytes the emulated LTE
# line carried in each direction over DURATION seconds, as its rate
# limiters count them (Ethernet frames: what the line carries).
#
# usage: scripts/idle_cost.sh [BUILD_DIR [DURATION_S]]   (root; run it
# under the namespace lock: flock /tmp/l3bond-netns.lock ...)
# L3BONDD, L3BONDCTL and L3B_TOOLS_DIR override the binaries of BUILD_DIR
# (to measure another build of the daemon on the same testbed).
set -Eeuo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
dur=${2:-60}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=../tests/netns/lib.sh
source "$root/tests/netns/lib.sh"
tb_require ip tc awk
tb_require_bin "$L3BONDD"

# bytes the LTE line's rate limiter towards DEV (cpe: down, conc: up) sent
lte_bytes() {
	tb_exec lte tc -s qdisc show dev "$1" | awk '/Sent/ { print $2; exit }'
}

tb_init
tb_setup seed=1
write_confs 0.5
daemons_up
# the handshake's and the first probes' burst is not the idle cost
sleep 3
refresh cpe
refresh conc
counters_mark cpe i0 path.lte.rx_bytes path.lte.rx_pkts
counters_mark conc i0 path.lte.rx_bytes path.lte.rx_pkts
d0=$(lte_bytes cpe)
u0=$(lte_bytes conc)
sleep "$dur"
d1=$(lte_bytes cpe)
u1=$(lte_bytes conc)
refresh cpe
refresh conc
awk -v d=$((d1 - d0)) -v u=$((u1 - u0)) -v s="$dur" 'BEGIN {
	printf "idle LTE over %d s, Ethernet frames (ours and the veths'"'"'" \
	       " ARP): down %.1f B/s, up %.1f B/s, both %.1f B/s" \
	       " = %.1f MB per 30 days\n", s, d / s, u / s, (d + u) / s,
	       (d + u) / s * 86400 * 30 / 1e6
}'
# what the daemons received on the LTE, with 28 bytes of IPv4 and UDP
# header each: the tunnel's own packets as an IP line (LTE) carries them
down=$(($(counters_delta cpe i0 path.lte.rx_bytes) +
	28 * $(counters_delta cpe i0 path.lte.rx_pkts)))
up=$(($(counters_delta conc i0 path.lte.rx_bytes) +
	28 * $(counters_delta conc i0 path.lte.rx_pkts)))
awk -v d="$down" -v u="$up" -v s="$dur" \
	-v pd="$(counters_delta cpe i0 path.lte.rx_pkts)" \
	-v pu="$(counters_delta conc i0 path.lte.rx_pkts)" 'BEGIN {
	printf "idle LTE over %d s, l3bond'"'"'s IP packets: down %d pkts %.1f B/s," \
	       " up %d pkts %.1f B/s, both %.1f B/s = %.1f MB per 30 days\n",
	       s, pd, d / s, pu, u / s, (d + u) / s,
	       (d + u) / s * 86400 * 30 / 1e6
}'
ok "measured"
tb_done
