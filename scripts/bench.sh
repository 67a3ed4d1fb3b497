#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The forwarding benchmark: highest loss-free rate of the bonded path
# against a bare NFQUEUE accept loop, the daemons' CPU share and memory,
# and userspace instructions per packet; prints one table (also written
# to build/bench/bench.md).  See tests/bench/README.md.
#
# usage: scripts/bench.sh [--quick] [--out DIR] [--no-callgrind] [BUILD_DIR]
#   (default BUILD_DIR: build; --quick: about 2 minutes).  Needs root.
#        scripts/bench.sh --many-cpes [--quick] [--cpes N] [--active A] [BUILD_DIR]
#   many CPEs on one concentrator (tests/bench/bench_cpes.sh): memory,
#   start-up and reload with N (10,000) configured CPEs, A (20) active.
set -euo pipefail
cd "$(dirname "$0")/.."
# valgrind, and build/ up to date, as the other entry points do
scripts/deps.sh
scripts/build.sh >/dev/null
if [ "${1:-}" = --many-cpes ]; then
	shift
	exec flock /tmp/l3bond-netns.lock bash tests/bench/bench_cpes.sh "$@"
fi
exec bash tests/bench/bench_fwd.sh "$@"
