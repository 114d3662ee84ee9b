#!/usr/bin/env bash
# \brief The GPU checks in one call (for the device machine's one-command budget, < 8 minutes):
#        configure a CUDA build (sm_90 + PTX) in build-gpu/, build only what the GPU tests need
#        (in parallel), run the CUDA engine's tests and the host checksum tests, and print a
#        summary table last. Exit status 0 when every test passed (a skipped GPU test — no
#        device — counts as a failure here: this script exists to run them).
#
# Usage: scripts/gpu-check.sh [--no-build] [--only STEP,...]
#   --only: a second, shorter call after a fix (the device tool keeps the machine warm for a
#   while): only these steps, of tests (the GoogleTest binaries; ABFT_GPU_GTEST_FILTER narrows
#   them), sdpa (the attention against PyTorch), campaigns, gemm, fft, attention (the forward's
#   benchmark with SDPA's timing), attention-bwd, preload, runtime. Default: every step.
# On the device machine, prefer the prebuilt path (the device has no GoogleTest or Google
# Benchmark, and its minutes are better spent running than compiling): here
# `scripts/gpu-bundle.sh`, there `bash scripts/gpu-run-bundle.sh` (carry .devbundle), which calls
# this script with --no-build. Knobs (environment): ABFT_GPU_BUILD_DIR (the build), ABFT_GPU_LOG_DIR
# (every job's whole output; default BUILD/gpu-logs), ABFT_GPU_TRIALS (campaign trials, 1000),
# ABFT_GPU_JOB_TIMEOUT (each correctness job, 150 s; fft_cuda_test 240 s at least), ABFT_GPU_FFT_FILTER (the FFT benchmark's rows),
# ABFT_GPU_ATTN_FILTER (the attention forward's rows), ABFT_GPU_DEADLINE_S (the whole run, 440 s,
# counted from ABFT_GPU_START when set — scripts/gpu-run-bundle.sh sets it to its own start, so
# the unpacking counts too — else from this script's start: the timing steps shrink to fit),
# ABFT_PRELOAD_BUDGET_S (the preload checks, 145 s at most), ABFT_GPU_RUNTIME_MODEL / _SEQ / _NEW
# (the runtime rows' preset, training sequence length and decoded tokens: gpt2-small, 128, 32),
# ABFT_GPU_PYTHON (the Python with PyTorch: /opt/torch/.venv/bin/python3 where it exists, else
# python3).
# scripts/gpu-rehearsal.sh runs this script on the CUDA emulator's builds (small shapes, no GPU)
# before any device run.
# Phase 1 runs the tests, the SDPA comparison and the campaigns at once; phase 2 times, one
# program at a time, the issues' bars first (GEMM, FFT, attention forward and backward, preload)
# and the runtime's rows last.
# Today (issues 9 and 10, first parts): the protected GEMM's and FFT's tests (tests/cuda), the
# checksum algebra on the host (tests/checksum), a 1000-trial campaign per type on the GPU GEMM
# (abft campaign --kernel cuda-gemm), the GEMM benchmark against cuBLAS (bench/cuda_gemm_bench.cpp:
# float, double, bfloat16; bar >= 0.9x cuBLAS for float and double at n >= 4096, >= 0.85x for
# bfloat16) and the FFT benchmark against cuFFT (bench/cuda_fft_bench.cpp: batched c2c / r2c,
# float and double, n = 2^8 ... 2^22; bar >= 0.85x cuFFT). Issue 11 (first part): the protected
# attention's tests (tests/cuda/attention_cuda_test.cpp, the host emulation of its checks in
# tests/checksum) and its benchmark (bench/cuda_attention_bench.cpp: protected vs the same kernel
# unprotected, bar overhead <= 10 %; PyTorch SDPA timed on the same shapes by
# scripts/gpu_attention_sdpa.py and joined in the table), its comparison with SDPA
# (scripts/gpu_attention_sdpa_check.py), the backward's tests, and the runtime's GPU engine
# (tests/runtime/gpu_engine_test.cpp). Issue 12: scripts/gpu-check-preload.sh (PyTorch under
# libabft_preload.so).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_GPU_BUILD_DIR:-$root/build-gpu}
log() { printf 'gpu-check.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/gpu_configure.sh
source "$root/scripts/gpu_configure.sh"
start=${ABFT_GPU_START:-$(date +%s)}
# The Python with PyTorch, for the comparisons with SDPA (the preload's default, where it is).
torch_py=${ABFT_GPU_PYTHON:-$(p=/opt/torch/.venv/bin/python3; [ -x $p ] && echo $p || echo python3)}

build_first=1 only=
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build_first=0 ;;
    --only) only=${2:-}; shift ;;
    --only=*) only=${1#--only=} ;;
    *) log "unknown argument: $1 (usage: gpu-check.sh [--no-build] [--only STEP,...])"; exit 2 ;;
  esac
  shift
done
steps=",tests,sdpa,campaigns,gemm,fft,attention,attention-bwd,preload,runtime,"
for st in ${only//,/ }; do
  [[ $steps == *",$st,"* ]] || { log "unknown step: $st (one of ${steps:1:${#steps}-2})"; exit 2; }
done
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }  # want STEP: whether this call runs it

if [ $build_first = 1 ]; then
  abft_gpu_configure "$build" >"$build.configure.log" 2>&1 \
    || { log "configure failed (see $build.configure.log)"; tail -20 "$build.configure.log"; exit 1; }
  # shellcheck source=scripts/gpu_programs.sh
  source "$root/scripts/gpu_programs.sh"
  targets=()
  for p in "${abft_gpu_programs[@]}"; do IFS=: read -r _ target _ <<<"$p"; targets+=("$target"); done
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$build.build.log" 2>&1 \
    || { log "build failed (see $build.build.log)"; grep -E "error" "$build.build.log" | head -20; exit 1; }
fi

logs=${ABFT_GPU_LOG_DIR:-$build/gpu-logs}
rm -rf "$logs" && mkdir -p "$logs"
trials=${ABFT_GPU_TRIALS:-1000}
[ -x "$build/src/cli/abft" ] && "$build/src/cli/abft" info 2>&1 | sed -n "/CUDA/,\$p" | head -8
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1
rows=() status=0

# Phase 1, correctness, all at once (one GPU, 16 cores: each job is small; a hung kernel or a
# crash costs its own row only, through timeout). Every job's whole output lands in $logs.
jobs_t=${ABFT_GPU_JOB_TIMEOUT:-150}
gtests=(gemm_cuda_test:tests/cuda gemm_batched_cuda_test:tests/cuda cuda_cpp_api_test:tests/cuda fft_cuda_test:tests/cuda library_check_test:tests/checksum
        fft_library_check_test:tests/checksum attention_cuda_test:tests/cuda
        attention_row_check_test:tests/checksum attention_backward_cuda_test:tests/cuda
        gpu_engine_test:tests/runtime fft_callback_sums_test:tests/checksum fft_callback_link_test:tests/cuda
        attention_key_sums_test:tests/cuda)
want tests || gtests=()
gfilter=()
[ -n "${ABFT_GPU_GTEST_FILTER:-}" ] && gfilter=(--gtest_filter="$ABFT_GPU_GTEST_FILTER")
for g in "${gtests[@]}"; do
  name=${g%%:*} dir=${g#*:} t=$jobs_t
  # fft_cuda_test makes its plans twice (callbacks, passes); a callback plan is linked by
  # nvJitLink at planning, at a cost no run has measured yet: 240 s for it.
  [ "$name" = fft_cuda_test ] && [ "$t" -lt 240 ] && t=240
  ( OMP_NUM_THREADS=2 timeout -k 5 "$t" "$build/$dir/$name" --gtest_brief=1 "${gfilter[@]}" >"$logs/$name.log" 2>&1
    echo $? >"$logs/$name.rc" ) &
done
# The attention forward against PyTorch's SDPA and a float64 reference (PyTorch is there).
# Once per product engine (ABFT_CUDA_ATTN_TC; log suffix:value): SIMT (unset), the WMMA tensor
# cores (1) and the mma.sync kernel (mma), the last two where they exist (16-bit, head_dim 64 /
# 128; the mma kernel without a mask), SIMT elsewhere.
sdpa_runs=(: _tc:1 _mma:mma)
want sdpa || sdpa_runs=()
for run in "${sdpa_runs[@]}"; do
  sfx=${run%%:*} tc=${run#*:}
  ( env -u ABFT_CUDA_ATTN_TC ${tc:+ABFT_CUDA_ATTN_TC=$tc} timeout -k 5 "$jobs_t" "$torch_py" \
      "$root/scripts/gpu_attention_sdpa_check.py" "$build/tests/cuda/attention_sdpa_tool" \
      >"$logs/sdpa_check$sfx.log" 2>&1; echo $? >"$logs/sdpa_check$sfx.rc" ) &
done
# Small campaigns on the GPU GEMM (random bit flips at the output and in operand copies), the
# GPU FFT (at the output and in the input cuFFT reads; c2c, r2c and a 2D c2r) and the GPU
# attention forward and backward (their six and eight sites), and the runtime's training step on
# the GPU engine's resident pass (every product and attention call of a gpt2-tiny step).
specs=("cuda-gemm f32 -" "cuda-gemm f64 -" "cuda-fft f32 c2c" "cuda-fft f64 r2c" "cuda-fft f32 c2r-2d"
       "cuda-attn-fwd f32 causal" "cuda-attn-bwd f32 causal" "cuda-train f32 gpt2-tiny")
want campaigns || specs=()
for spec in "${specs[@]}"; do
  set -- $spec
  k=$1 t=$2 var=$3 extra=()
  [ "$var" != - ] && extra=(--variant "$var")
  tag=${k}_$t && [ "$var" != - ] && tag=${tag}_$var  # (two FFT campaigns share kernel and type)
  ( OMP_WAIT_POLICY=PASSIVE timeout -k 5 "$jobs_t" "$build/src/cli/abft" campaign --kernel "$k" --type "$t" \
      "${extra[@]}" --trials "$trials" --jobs 2 --no-progress >"$logs/campaign_$tag.log" 2>&1
    echo $? >"$logs/campaign_$tag.rc" ) &
done
wait
echo "phase 1 (correctness) done after $(( $(date +%s) - start )) s"

for g in "${gtests[@]}"; do
  name=${g%%:*} out=$(cat "$logs/$name.log") rc=$(cat "$logs/$name.rc")
  passed=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  failed=$(printf '%s\n' "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  skipped=$(printf '%s\n' "$out" | sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
  if [ "$rc" != 0 ]; then
    status=1
    echo "== $name: exit $rc"; printf '%s\n' "$out" | grep -E -A3 "Failure|FAILED|error|Error" | head -40
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && { echo "   (timed out; last lines:)"; tail -5 "$logs/$name.log"; }
  fi
  [ -n "$skipped" ] && [ "$skipped" != 0 ] && status=1
  [ "$rc" = 0 ] && failed=${failed:-0}
  rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "$name" "${passed:-0}" "${failed:-?}" "${skipped:-0}")")
done
if [ -f "$logs/fft_cuda_test.log" ]; then  # cuFFT's clean error against the check's bound (ABFT.md §12.2)
  echo "FFT check sharpness on clean outputs (max |out - in| / bound per case; the largest, then the prime length's):"
  grep '^sharpness' "$logs/fft_cuda_test.log" | sort -t= -k2 -g | tail -4 | sed 's/^/  /'
  grep '^sharpness .* 1009 ' "$logs/fft_cuda_test.log" | head -2 | sed 's/^/  /'
fi
for run in "${sdpa_runs[@]}"; do
  sfx=${run%%:*} tc=${run#*:}
  echo "Attention forward${tc:+ (ABFT_CUDA_ATTN_TC=$tc)} vs PyTorch SDPA (errors relative to the float64 output's magnitude):"
  cat "$logs/sdpa_check$sfx.log"
  if [ "$(cat "$logs/sdpa_check$sfx.rc")" = 0 ]; then v=1; else v=0; status=1; fi
  rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "attention vs SDPA${tc:+ (tc=$tc)}" "$v" "$((1 - v))" 0)")
done
for spec in "${specs[@]}"; do
  set -- $spec
  k=$1 t=$2 var=$3
  tag=${k}_$t label="$k $t"
  [ "$var" != - ] && tag=${tag}_$var label="$k $t $var"
  if [ "$(cat "$logs/campaign_$tag.rc")" = 0 ]; then v=1; else v=0; status=1; fi
  grep -E "^(outcome|masked|corrected|recomputed|sdc|detected [0-9]|clean trials|verdict)" "$logs/campaign_$tag.log" \
    | sed "s/^/  [$label] /"
  [ $v = 0 ] && tail -8 "$logs/campaign_$tag.log" | sed "s/^/  [$label] /"
  rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "campaign $label" "$v" "$((1 - v))" 0)")
done

# Phase 2, timing, one program at a time, each under the time left of ABFT_GPU_DEADLINE_S (the
# whole run's budget, default 440 s) and its own cap; a step with under 15 s left is skipped.
deadline=$(( start + ${ABFT_GPU_DEADLINE_S:-440} ))
tl() {  # tl CAP CMD...: CMD under timeout min(CAP, time left - 5 s)
  local cap=$1 left=$(( deadline - $(date +%s) - 5 ))
  shift
  [ "$left" -lt "$cap" ] && cap=$left
  [ "$cap" -ge 15 ] || { log "no time left for: $*"; return 124; }
  timeout -k 5 "$cap" "$@"
}
if want gemm; then
  bench_json=$build/cuda_gemm_bench.json
  tl 100 "$build/bench/abft_bench_cuda_gemm" --benchmark_out="$bench_json" --benchmark_out_format=json >"$logs/bench_gemm.log" 2>&1 \
    || { status=1; log "benchmark failed"; }
  echo
  echo "GEMM vs cuBLAS (same run; ratio = cuBLAS time / protected time):"
  python3 "$root/scripts/gpu_bench_table.py" gemm "$bench_json" || status=1
fi

if want fft; then
  fft_json=$build/cuda_fft_bench.json
  # Planning a callback plan links the callbacks into cuFFT's kernels (seconds, perhaps): the
  # default filter keeps the 1D rows to 2^8, 2^12, 2^16, 2^22, and the 2D / 3D rows
  # (ABFT_GPU_FFT_FILTER: another regex).
  fft_filter=${ABFT_GPU_FFT_FILTER:-'/n(256|4096|65536|4194304)(/|$)|^cuda_fft-md/'}
  tl 140 "$build/bench/abft_bench_cuda_fft" --benchmark_filter="$fft_filter" --benchmark_out="$fft_json" \
    --benchmark_out_format=json >"$logs/bench_fft.log" 2>&1 \
    || { status=1; log "FFT benchmark failed"; }
  echo
  echo "FFT vs cuFFT (same run; ratio = cuFFT time / protected time; bar >= 0.85x; sums: inside cuFFT's kernels"
  echo "(callbacks) or in passes around it; plan ms: the protected plan's making, callbacks linked then):"
  python3 "$root/scripts/gpu_bench_table.py" fft "$fft_json" || status=1
fi

# The forward's rows (seq 1024, 4096 and 16384 by default: in the last run the SIMT rows moved by
# under 5 % across the six lengths, the tensor-core rows by up to a quarter, rising with length;
# ABFT_GPU_ATTN_FILTER: another regex), then the backward's (their own run and JSON). The
# forward's rows run in the benchmark's order, the mma.sync kernel's (fwd-mma, the bar's) first,
# so a run stopped by the deadline loses SIMT's and WMMA's rows before them; SDPA is timed
# before the forward's rows, so their ratio column survives such a stop too.
attn_json=$build/cuda_attention_bench.json attn_bwd_json=$build/cuda_attention_bwd_bench.json
sdpa_json=$build/sdpa_attention.json
# SDPA's times, forward and backward, for both attention tables (once).
sdpa_tried=0
sdpa_timing() {
  [ $sdpa_tried = 1 ] && return 0  # once, whether or not it finished
  sdpa_tried=1
  tl 75 "$torch_py" "$root/scripts/gpu_attention_sdpa.py" "$sdpa_json" >"$logs/sdpa_timing.log" 2>&1 || log "SDPA timing failed"
}
rm -f "$sdpa_json"
attn_filter=${ABFT_GPU_ATTN_FILTER:-'/fwd[^/]*/.*/seq(1024|4096|16384)(/|$)'}
# One run of the attention benchmark and its table: attention_rows LIMIT FILTER JSON LOG HEADING...
# (SDPA's times first, once for both directions).
attention_rows() {
  local limit=$1 filter=$2 json=$3 name=$4
  shift 4
  sdpa_timing
  tl "$limit" "$build/bench/abft_bench_cuda_attention" --benchmark_filter="$filter" --benchmark_out="$json" \
    --benchmark_out_format=json >"$logs/$name.log" 2>&1 || { status=1; log "$name failed"; }
  echo
  printf '%s\n' "$@"
  python3 "$root/scripts/gpu_bench_table.py" attention "$json" "$sdpa_json" || status=1
}
if want attention; then
  attention_rows 100 "$attn_filter" "$attn_json" bench_attention \
    "Attention forward: protected vs unprotected (same kernel, same run; bar overhead <= 10 %), and PyTorch SDPA" \
    "(fwd-mma rows: the mma.sync kernel, ABFT_CUDA_ATTN_TC=mma; fwd-tc: WMMA tensor cores, =1; fwd: SIMT;" \
    "-nokeysums rows: the key blocks' sums formed by every query block, ABFT_CUDA_ATTN_KEY_SUMS=0; no bar):"
fi

# Issue 11: the attention backward's rows (SDPA's backward was timed with the forward's).
if want attention-bwd; then
  attention_rows 90 '/bwd[^/]*/' "$attn_bwd_json" bench_attention_bwd \
    "Attention backward: protected vs unprotected (same kernels, same run; bar overhead <= 10 %), and PyTorch SDPA's backward" \
    "(bwd-mma rows: the mma.sync kernels, ABFT_CUDA_ATTN_TC=mma, first; bwd: SIMT):"
fi

# Issue 12: unmodified PyTorch programs under libabft_preload.so (its own table; < 2 minutes).
if want preload; then
  echo
  pl=$(( deadline - $(date +%s) - 10 ))
  [ "$pl" -gt "${ABFT_PRELOAD_BUDGET_S:-145}" ] && pl=${ABFT_PRELOAD_BUDGET_S:-145}
  if [ "$pl" -lt 40 ]; then log "no time left for the preload checks"; v=0; status=1
  elif ABFT_GPU_BUILD_DIR="$build" ABFT_GPU_LOG_DIR="$logs" ABFT_PRELOAD_BUDGET_S=$pl bash "$root/scripts/gpu-check-preload.sh" --no-build; then v=1; else v=0; status=1; fi
  rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "preload (PyTorch)" "$v" "$((1 - v))" 0)")
fi

# Issue 11: the transformer runtime on a GPT-2-small shape, CPU engine vs GPU engine (the GPU
# engine's resident pass: ops_resident.hpp), training step time and tokens/s,
# decoding tokens/s; clean runs, so any detection fails the row (the commands exit 1). Last: no
# bar rides on it, and gpu_engine_test checked the engine in phase 1. The corpus is read from
# this tree (the binaries' built-in path is the build machine's); training and decoding are
# separate rows' halves, so a failed training run still leaves the decode figure.
rt_model=${ABFT_GPU_RUNTIME_MODEL:-gpt2-small} rt_seq=${ABFT_GPU_RUNTIME_SEQ:-128} rt_new=${ABFT_GPU_RUNTIME_NEW:-32}
if want runtime; then
  echo
  echo "Runtime, $rt_model (3 training steps of 4 x $rt_seq tokens; $rt_new decoded tokens):"
  for eng in cpu gpu; do
    v=1
    out=$(tl 90 "$build/src/cli/abft" train --config "$rt_model" --engine $eng --steps 3 --batch 4 --seq "$rt_seq" \
            --corpus-root "$root" --quiet 2>&1) || v=0
    inf=$(tl 45 "$build/src/cli/abft" infer --config "$rt_model" --engine $eng --max-new "$rt_new" 2>&1) || v=0
    [ $v = 1 ] || status=1
    printf '  %s engine: train %s; infer %s\n' "$eng" "$(printf '%s\n' "$out" | grep -m1 'steps in' || echo '(failed)')" \
      "$(printf '%s\n' "$inf" | grep -m1 'tokens/s' || echo '(failed)')"
    rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "runtime $rt_model $eng" "$v" "$((1 - v))" 0)")
  done
  # The ABFT overhead of a resident training step and decode on the GPU engine: the transformer
  # bench's train and decode rows, policy correct against policy off on the same model, paired
  # per iteration (bench/transformer_bench.cpp; vs_off = correct time / off time).
  tf_json=$build/transformer_gpu_bench.json
  if ABFT_BENCH_ENGINE=gpu ABFT_BENCH_MODELS="$rt_model" ABFT_BENCH_SEQ="$rt_seq" ABFT_BENCH_TRAIN_BATCH=4 \
       tl 75 "$build/bench/abft_bench_transformer" --benchmark_filter='^(train|decode)/' \
       --benchmark_out="$tf_json" --benchmark_out_format=json >"$logs/bench_transformer.log" 2>&1; then
    echo "  GPU engine, resident (policy correct vs off, same run):"
    python3 - "$tf_json" <<'PY' || status=1
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
        continue
    print("    %-52s vs_off %.3f  tokens/s %.0f  correct %.4f s" % (b["name"].split("/manual_time")[0],
          b.get("vs_off", 0), b.get("tok_per_s", 0), b.get("correct_s", 0)))
PY
    v=1
  else
    v=0; status=1; tail -5 "$logs/bench_transformer.log"
  fi
  rows+=("$(printf '| %-26s | %6s | %6s | %7s |' "runtime bench gpu" "$v" "$((1 - v))" 0)")
fi

echo
echo "GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(( $(date +%s) - start )) s"
echo "| test                       | passed | failed | skipped |"
echo "|----------------------------|-------:|-------:|--------:|"
printf '%s\n' "${rows[@]}"
exit $status
