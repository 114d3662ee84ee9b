#!/usr/bin/env bash
# \brief Build abft_bench_attention (Release) and run the fused attention engine protected
#        (policy correct) against itself unprotected (off) and a naive unfused baseline made of
#        our GEMM, forward and backward, plus our GEMM as the throughput reference, all in one
#        process (bench/attention_bench.cpp: the variants alternate inside each iteration);
#        JSON to <build>/bench/attention[_quick|_full].json, a Markdown table (GFLOP/s, overheads,
#        fraction of our GEMM's GFLOP/s, the bar) to stdout and <build>/bench/attention*_table.md.
#
# Usage: scripts/bench_attention.sh [--quick | --full] [--no-build] [-- EXTRA BENCHMARK ARGS...]
#   (default)  heads {12,16} x head_dim {64,128} x seq 128 ... 4096 x causal {0,1}, plus seq 8192
#              at heads 16, head_dim 128; 1 repetition, each row iterated for >= 1 s of rounds
#              (about 8 minutes on the idle 2-core dev VM)
#   --quick    h12 d64 s {256,1024,4096} and h16 d128 s {1024,2048}, causal {0,1}; 2 repetitions
#              of >= 0.5 s (about 2 minutes)
#   --full     the whole grid (seq 8192 for every heads/head_dim: 30+ minutes)
#
# Environment:
#   ABFT_BUILD_DIR        build folder (default: <repo>/build, configured as Release if needed)
#   ABFT_BUILD_JOBS       parallel build jobs (default: nproc)
#   ABFT_BENCH_THREADS    threads for every variant (default: OpenMP's default, all cores)
#   ABFT_BENCH_REPS       repetitions (default 1; --quick 2); medians are reported
#   ABFT_BENCH_MIN_TIME   seconds of rounds per row and repetition (default 1; --quick 0.5)
#   ABFT_BENCH_FILTER     --benchmark_filter regex (default: every row of the set)
#   ABFT_BENCH_MAX_SEQ    drop shapes with a longer sequence
#   ABFT_BENCH_NAIVE=0    no naive baseline (a third less time)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'bench_attention.sh: %s\n' "$*" >&2; }

build_it=1 set=default extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) set=quick ;;
    --full) set=full ;;
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
bin=$out/abft_bench_attention
if [ $build_it = 1 ]; then
  bench_release_build "$build" abft_bench_attention || exit 1
fi
[ -x "$bin" ] || { log "no $bin (build it, or drop --no-build)"; exit 1; }
mkdir -p "$out"

if [ $set = quick ]; then reps=${ABFT_BENCH_REPS:-2} min_time=${ABFT_BENCH_MIN_TIME:-0.5}
else reps=${ABFT_BENCH_REPS:-1} min_time=${ABFT_BENCH_MIN_TIME:-1}; fi
suffix=""
[ $set != default ] && suffix=_$set
json=$out/attention$suffix.json
table=$out/attention${suffix}_table.md

# The variants are paired inside each row, and consecutive rows share tensors (the backward
# reuses the forward's output): no random interleaving.
args=(--benchmark_repetitions="$reps" --benchmark_min_time="$min_time"
      --benchmark_out_format=json --benchmark_out="$json")
[ -n "${ABFT_BENCH_FILTER:-}" ] && args+=(--benchmark_filter="$ABFT_BENCH_FILTER")

busy=$(bench_busy_cpus)
bench_warn_busy "$busy"
log "set=$set repetitions=$reps min_time=$min_time threads=${ABFT_BENCH_THREADS:-OpenMP default}" \
    "filter='${ABFT_BENCH_FILTER:-all}' busy CPUs: $busy"
bench_run_table "$set" "$bin" "$json" "$table" "$root/scripts/bench_attention_table.py" \
  "${args[@]}" "${extra[@]}"
