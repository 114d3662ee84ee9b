#!/usr/bin/env bash
# \brief Build abft_bench_transformer (Release) and time the transformer runtime protected
#        (policy correct) against itself unprotected (off), in one process: prefill, decode and a
#        training step (AdamW included) of GPT-2-small and Llama-small shaped models with random
#        weights, seq 256 (bench/transformer_bench.cpp: the two policies run back to back inside
#        each iteration, the first alternating); JSON to <build>/bench/transformer[_quick].json,
#        a Markdown table (time per unit, overhead = correct / off - 1, tokens/s, the bar) to
#        stdout and <build>/bench/transformer[_quick]_table.md.
#
# Usage: scripts/bench_transformer.sh [--quick] [--no-build] [-- EXTRA BENCHMARK ARGS...]
#   (default)  gpt2-small and llama-small: prefill 1 x 256 tokens (4 rounds per repetition),
#              decode 4 sequences x 32 steps after a 256-token prefill (1 round, the two
#              policies interleaved step by step), train step B 1 x T 256 (3 rounds);
#              5 repetitions, plus one untimed warm-up round per row
#              (a round = one unit of each policy; estimated 5-10 minutes on the idle 2-core VM,
#              most of it decode and train; much longer under load: OpenMP barriers spin)
#   --quick    a smoke test: gpt2-demo and llama-demo (4 layers, 128 wide, byte vocabulary),
#              seq 64, decode 4 x 8 steps; 2 repetitions of 2 rounds (seconds)
#
# Environment:
#   ABFT_BUILD_DIR        build folder (default: <repo>/build, configured as Release if needed)
#   ABFT_BUILD_JOBS       parallel build jobs (default: nproc)
#   ABFT_BENCH_THREADS    threads of the model (default: OpenMP's default, all cores)
#   ABFT_BENCH_REPS       repetitions (default 5; --quick 2); medians are reported
#   ABFT_BENCH_ITERS      rounds per repetition of every row (default: see above)
#   ABFT_BENCH_FILTER     --benchmark_filter regex (e.g. '^train/' or 'llama')
#   ABFT_BENCH_MODELS, ABFT_BENCH_SEQ, ABFT_BENCH_DECODE_BATCH, ABFT_BENCH_DECODE_STEPS,
#   ABFT_BENCH_TRAIN_BATCH, ABFT_BENCH_WARMUP=0   shapes and warm-up (bench/transformer_bench.cpp)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'bench_transformer.sh: %s\n' "$*" >&2; }

build_it=1 set=default extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) set=quick ;;
    --no-build) build_it=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown option $1 (try --help)"; exit 2 ;;
  esac
  shift
done

# shellcheck source=bench_lib.sh
source "$root/scripts/bench_lib.sh"
build=$(bench_build_dir)
out=$build/bench
bin=$out/abft_bench_transformer
if [ $build_it = 1 ]; then
  bench_release_build "$build" abft_bench_transformer || exit 1
fi
[ -x "$bin" ] || { log "no $bin (build it, or drop --no-build)"; exit 1; }
mkdir -p "$out"

if [ $set = quick ]; then reps=${ABFT_BENCH_REPS:-2}; else reps=${ABFT_BENCH_REPS:-5}; fi
suffix=""
[ $set != default ] && suffix=_$set
json=$out/transformer$suffix.json
table=$out/transformer${suffix}_table.md

# The two policies are paired inside each row, and consecutive rows share one model (built once
# per preset): no random interleaving. Iterations per row are fixed by the binary (no min_time).
args=(--benchmark_repetitions="$reps" --benchmark_out_format=json --benchmark_out="$json")
[ -n "${ABFT_BENCH_FILTER:-}" ] && args+=(--benchmark_filter="$ABFT_BENCH_FILTER")

busy=$(bench_busy_cpus)
bench_warn_busy "$busy"
log "set=$set repetitions=$reps threads=${ABFT_BENCH_THREADS:-OpenMP default}" \
    "filter='${ABFT_BENCH_FILTER:-all}' busy CPUs: $busy"
bench_run_table "$set" "$bin" "$json" "$table" "$root/scripts/bench_transformer_table.py" \
  "${args[@]}" "${extra[@]}"
