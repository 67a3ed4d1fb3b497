#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The paper's experiments on the real daemons, with plots and a report:
# installs what it needs (scripts/deps.sh), builds (build/), and runs
# tests/paper/run.sh (see tests/paper/README.md).  As root (re-runs itself
# with sudo otherwise).  The whole set takes about 20 minutes; --quick
# runs one cell (the ramp, k 0.5, T_dwd 250 ms) in about a minute.
#
# usage: scripts/paper.sh [--quick] [--only REGEX] [--out DIR]
#        L3B_BUILD_DIR=DIR scripts/paper.sh ...  (an existing build instead of build/)
# Output: DIR (default out/paper)/report.md and one folder per cell.
set -Eeuo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/.."

# shellcheck source-path=SCRIPTDIR source=lib.sh
source scripts/lib.sh
as_root "$self" "$@"
build_for_run
export PAPER_COMMAND="scripts/paper.sh $*"
exec tests/paper/run.sh --build "$L3B_BUILD" "$@"
