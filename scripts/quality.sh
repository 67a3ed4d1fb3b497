#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The quality benchmark: TCP goodput (iperf3, cubic and bbr), latency under
# load (RRUL: ping, irtt), the paper's ramp and a 40 Mbit/s flow, for link
# buffers of 30, 50, 100 and 200 ms, each beside DSL alone and the paper's
# algorithm in the same run; a markdown report and plots (build/quality/).
# See tests/quality/run.sh.  About 2 hours; --quick: about 3 minutes.
#
# usage: scripts/quality.sh [--quick] [--out DIR] [--buffers LIST]
#                           [--modes LIST] [--duration S]   Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh >/dev/null
exec bash tests/quality/run.sh "$@"
