#!/usr/bin/env bash
# The main job of the quick start.  For now: the paper's experiment in the
# simulator (table and plot); see sim/demo.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
exec sim/demo.sh "$@"
