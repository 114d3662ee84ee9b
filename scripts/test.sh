#!/usr/bin/env bash
# \brief Fresh-machine test entry point: install missing packages (as root), build Release, run ctest.
#
# Usage: scripts/test.sh [extra ctest arguments, e.g. -R gemm]
# Exit status: ctest's. Environment: ABFT_BUILD_DIR (default build/).
set -euo pipefail
# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

abft_setup
# ctest prints its own summary ("100% tests passed, 0 tests failed out of N");
# keep its status as ours.
status=0
ctest --test-dir "$ABFT_BUILD_DIR" --output-on-failure -j2 "$@" || status=$?
echo "test.sh: ctest exit status $status (build: $ABFT_BUILD_DIR)"
exit "$status"
