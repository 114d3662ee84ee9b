#!/usr/bin/env bash
# \brief Fresh-machine entry point: install missing packages (as root), build Release, run the main job.
#
# Usage: scripts/run.sh [demo options, e.g. --seed 7 --quick]
# Environment: ABFT_BUILD_DIR (default build/), ABFT_POLICY, ABFT_ISA, OMP_NUM_THREADS.
set -euo pipefail
# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

abft_setup
"$ABFT_BUILD_DIR/src/cli/abft" info
echo
exec "$ABFT_BUILD_DIR/src/cli/abft" demo "$@"
