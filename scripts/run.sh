#!/usr/bin/env bash
# \brief Fresh-machine entry point: install missing packages (as root), build Release, run the main job.
#
# The main job trains the small GPT-2-style model "gpt2-demo" (4 layers, 128 wide, byte
# vocabulary) on the corpus shipped in the repository (README.md and docs/*.md) with faults
# injected into its protected matrix products and attention calls (5 % of the calls, a random
# bit of a random element at a random site) and repaired (policy correct), then generates text
# from the trained model and prints the error statistics per op. About a minute on 2 cores;
# --quick is a few seconds. Exits 1 if a fault stayed unrepaired.
#
# Usage: scripts/run.sh [--quick] [more `abft train` options, e.g. --seed 7 --steps 300]
#        scripts/run.sh --demo [demo options, e.g. --seed 7 --quick]   (the kernel demo, `abft demo`)
# Environment: ABFT_BUILD_DIR (default build/), ABFT_ISA, OMP_NUM_THREADS, OMP_WAIT_POLICY
# (default PASSIVE here).
set -euo pipefail
# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

demo=0
quick=0
args=()
for a in "$@"; do
  case "$a" in
    --demo) demo=1 ;;
    --quick) quick=1 ;;
    *) args+=("$a") ;;
  esac
done

abft_setup
# Idle OpenMP threads sleep instead of spinning: the passes are many short parallel regions,
# and spinning threads slow everything down several times as soon as another process wants a
# core (set OMP_WAIT_POLICY=ACTIVE to spin).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
"$ABFT_BUILD_DIR/src/cli/abft" info
echo

if [[ $demo -eq 1 ]]; then
  [[ $quick -eq 1 ]] && args=(--quick "${args[@]+"${args[@]}"}")
  exec "$ABFT_BUILD_DIR/src/cli/abft" demo "${args[@]+"${args[@]}"}"
fi

if [[ $quick -eq 1 ]]; then
  size=(--steps 20 --batch 4 --seq 32 --generate 32)
else
  size=(--steps 120 --batch 8 --seq 64 --generate 96)
fi
# Later options win: the caller's arguments come last.
exec "$ABFT_BUILD_DIR/src/cli/abft" train --config gpt2-demo "${size[@]}" \
  --lr 3e-3 --warmup 10 --policy correct --inject rate=0.05,per=call,seed=7 \
  --prompt "The " --temperature 0.8 --top-k 40 \
  "${args[@]+"${args[@]}"}"
