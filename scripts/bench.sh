#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The forwarding benchmark: highest loss-free rate of the bonded path
# against a bare NFQUEUE accept loop, the daemons' CPU share and memory,
# and userspace instructions per packet; prints one table (also written
# to build/bench/bench.md).  With --workers, the workers' scaling
# benchmark instead: 2 and 8 CPEs on a concentrator with 1 and with 2
# workers, its CPU time per million packets and its loss-free rate
# (build/bench/workers.md).  With --many-cpes, many CPEs on one
# concentrator.  See tests/bench/README.md.
#
# usage: scripts/bench.sh [--quick] [--out DIR] [--no-callgrind] [BUILD_DIR]
#   (default BUILD_DIR: build; --quick: about 2 minutes).  Needs root.
#        scripts/bench.sh --workers [--quick] [--out DIR] [BUILD_DIR]
#        scripts/bench.sh --many-cpes [--quick] [--cpes N] [--active A] [BUILD_DIR]
#   many CPEs on one concentrator (tests/bench/bench_cpes.sh): memory,
#   start-up and reload with N (10,000) configured CPEs, A (20) active.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=tests/bench/bench_fwd.sh
lock=()
args=()
for a in "$@"; do
	case $a in
	--workers) bench=tests/bench/bench_workers.sh ;;
	--many-cpes)
		bench=tests/bench/bench_cpes.sh
		lock=(flock /tmp/l3bond-netns.lock)
		;;
	*) args+=("$a") ;;
	esac
done
# valgrind, and build/ up to date, as the other entry points do
scripts/deps.sh
scripts/build.sh >/dev/null
exec "${lock[@]}" bash "$bench" "${args[@]}"
