#!/usr/bin/env bash
# \brief GPU check of libabft_preload.so (issue 12): unmodified PyTorch programs run with and
#        without LD_PRELOAD, ending with a short table. Exit status 0 when every row passed.
#
# Usage: scripts/gpu-check-preload.sh [--no-build]
#   --no-build          use the library already built (scripts/gpu-check.sh builds it up front)
#   ABFT_GPU_BUILD_DIR  the CUDA build (default build-gpu/; configured here when missing)
#   ABFT_PRELOAD_PYTHON the Python with PyTorch (default /opt/torch/.venv/bin/python3)
#   ABFT_PRELOAD_BUDGET_S  the time budget in seconds after the build (default 145)
#
# Time: everything after the build runs under one deadline (ABFT_PRELOAD_BUDGET_S, so the script
# ends within 2.5 minutes with --no-build even when runs hang): each run gets at most 60 s and
# what is left, a run that would get less than 15 s is skipped (its rows FAIL: "no time left"),
# and every process is killed 5 s after its limit. The table is always printed.
#
# Rows:
#   policy off        LD_PRELOAD with ABFT_POLICY=off: results bit-identical to the clean run
#   protected         default policy: a 2-layer MLP's training steps (fp32, bf16), bmm / mm and
#                     torch.fft (fft, ifft, rfft, irfft, fft2, rfft2, irfft2) match the clean
#                     run; the report counts protected calls and no failures; an irfft2 of a
#                     non-Hermitian spectrum is shown (same / diff), not required
#   injected          ABFT_PRELOAD_INJECT (a bit flip in the exponent's top bit at the output of
#                     every protected call): detected and corrected, results match the clean run
#   detect only       same faults under ABFT_POLICY=detect: detected, and the results differ
#                     (the faults land; nothing repairs them)
#   overhead          a GPT-2-small-shaped training step (scripts/preload/overhead.py; bf16
#                     autocast, batch 8 x 512), median step time without / with the preload in
#                     one run; bar: ratio <= 1.10. PyTorch's addmm goes through cuBLASLt's bias
#                     epilogue by default, which the interposer protects since 2026-12-07 (until
#                     then this row set DISABLE_ADDMM_CUDA_LT=1 to reach a protected entry point);
#                     ABFT_PRELOAD_OVH_ENV adds variables to both runs (e.g. that one); the
#                     coverage is printed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_GPU_BUILD_DIR:-$root/build-gpu}
py=${ABFT_PRELOAD_PYTHON:-/opt/torch/.venv/bin/python3}
lib=$build/lib/libabft_preload.so
log() { printf 'gpu-check-preload.sh: %s\n' "$*" >&2; }

if [ "${1:-}" != --no-build ] || [ ! -f "$lib" ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    # shellcheck source=scripts/gpu_configure.sh
    source "$root/scripts/gpu_configure.sh"
    abft_gpu_configure "$build" >"$build.configure.log" 2>&1 \
      || { log "configure failed (see $build.configure.log)"; exit 1; }
  fi
  cmake --build "$build" -j"$(nproc)" --target abft_preload >"$build.preload.log" 2>&1 \
    || { log "build failed (see $build.preload.log)"; grep -E "error" "$build.preload.log" | head; exit 1; }
fi
# The budget counts from here: the preflight's Python and nm below are inside it.
start=$(date +%s)
deadline=$(( start + ${ABFT_PRELOAD_BUDGET_S:-145} ))
# limit CAP: seconds a step may take now (CAP at most; what is left before the deadline, less
# the 5 s kill grace and 3 s for the table); 0 when that is under 15 s.
limit() {
  local left=$(( deadline - $(date +%s) - 8 )) cap=$1
  [ "$left" -gt "$cap" ] && left=$cap
  [ "$left" -ge 15 ] && echo "$left" || echo 0
}
bounded() {  # bounded CAP CMD...: CMD under timeout (exit 124 and no run when no time is left)
  local l
  l=$(limit "$1"); shift
  [ "$l" -gt 0 ] || return 124
  timeout -k 5 "$l" "$@"
}

[ -f "$lib" ] || { log "no $lib"; exit 1; }
[ -x "$py" ] || { log "no Python at $py"; exit 1; }

# Preflight: the interposer sees only calls PyTorch makes through the dynamic linker. A
# libtorch_cuda.so without an undefined cublasGemmEx (cuBLAS linked statically) cannot be
# protected: say so up front rather than through failing rows.
torch_dir=$(bounded 20 "$py" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("torch").origin))' 2>/dev/null)
tcuda=$(ls "$torch_dir"/lib/libtorch_cuda.so 2>/dev/null | head -1)
if [ -z "$tcuda" ]; then
  log "note: libtorch_cuda.so not found under ${torch_dir:-?}/lib: cannot check how PyTorch reaches cuBLAS"
elif ! command -v nm >/dev/null; then
  log "note: nm not available: cannot check how $tcuda reaches cuBLAS"
else
  imports=$(nm -D --undefined-only "$tcuda" 2>/dev/null)
  for fn in cublasGemmEx cublasLtMatmul cufftXtExec; do
    if ! grep -qE "[[:space:]]$fn(@|$)" <<<"$imports"; then
      log "note: $tcuda does not import $fn dynamically (statically linked?): LD_PRELOAD cannot intercept it"
    fi
  done
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/abft-preload-check.XXXXXX")
wl=$root/scripts/preload/workload.py
cmp=$root/scripts/preload/compare.py
ovh=$root/scripts/preload/overhead.py
rows=() status=0
row() {  # row CHECK VERDICT DETAIL
  rows+=("$(printf '| %-32s | %-4s | %s |' "$1" "$2" "$3")")
  [ "$2" = ok ] || status=1
}
# info CHECK COMMAND...: a compare.py call as a row that does not fail the check — a behaviour
# to know, not a requirement ("same" or "diff").
info() {
  local name=$1 line rc=0
  shift
  line=$(bounded 30 "$py" "$cmp" "$@" 2>&1) || rc=$?
  line=$(echo "$line" | tr '\n' ' ')
  rows+=("$(printf '| %-32s | %-4s | %s |' "$name" "$([ $rc = 0 ] && echo same || echo diff)" "$line")")
}
# workload TAG [VAR=VALUE ...] -- ARGS: one run of workload.py (VARs set for it; PRELOAD=1 adds
# LD_PRELOAD and a report file $out/TAG.report). Failing runs print their stderr's tail.
workload() {
  local tag=$1 vars=() pre=0
  shift
  while [ "$1" != -- ]; do
    if [ "$1" = PRELOAD=1 ]; then pre=1; else vars+=("$1"); fi
    shift
  done
  shift
  [ $pre = 1 ] && vars+=("LD_PRELOAD=$lib" "ABFT_PRELOAD_REPORT=$out/$tag.report")
  # timeout first, env after it: the variables (LD_PRELOAD above all) reach Python only, not the
  # timeout process (whose own empty report would otherwise land in the same file).
  local rc=0
  bounded 60 env ${vars[@]+"${vars[@]}"} "$py" "$wl" --out "$out/$tag.pt" "$@" >"$out/$tag.log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then
    if [ $rc = 124 ] || [ $rc = 137 ]; then log "run $tag: no time left or timed out (rc $rc)"
    else log "run $tag failed:"; tail -15 "$out/$tag.log" >&2; fi
    return 1
  fi
}
# check CHECK COMMAND...: a compare.py call as one row.
check() {
  local name=$1 line
  shift
  local rc=0
  line=$(bounded 30 "$py" "$cmp" "$@" 2>&1) || rc=$?
  line=$(echo "$line" | tr '\n' ' ')
  if [ $rc = 0 ]; then row "$name" ok "$line"
  elif [ $rc = 124 ] || [ $rc = 137 ]; then row "$name" FAIL "${line}no time left or timed out"
  else row "$name" FAIL "$line"; fi
}

# 1. Clean, and with the preload under policy off (nothing may change). --rtol 0: under policy
# off every call reaches the same cuBLAS / cuFFT functions with the same arguments, handles and
# streams, in the same order, and one process's runs are deterministic for this workload (fixed
# seeds and data, no atomics-based reductions in its kernels): a difference of even one ulp means
# something was not forwarded unchanged. (Were cuBLAS to pick another algorithm across processes
# this row would show it; then a tolerance of a few ulps would be the fix, not a looser check.)
workload clean -- --dtype both --fft || row "clean run" FAIL "see above"
if workload off PRELOAD=1 ABFT_POLICY=off -- --dtype both --fft; then
  check "policy off: identical" results "$out/clean.pt" "$out/off.pt" --rtol 0
  check "policy off: report" report "$out/off.report"
else row "policy off" FAIL "run failed"; fi

# 2. Protected (default policy), no faults.
if workload prot PRELOAD=1 -- --dtype both --fft; then
  check "protected: fp32 MLP = clean" results "$out/clean.pt" "$out/prot.pt" --prefix fp32. --rtol 1e-4
  check "protected: bf16 MLP = clean" results "$out/clean.pt" "$out/prot.pt" --prefix bf16. --rtol 3e-2
  check "protected: torch.fft = clean" results "$out/clean.pt" "$out/prot.pt" --prefix fft. --rtol 1e-5
  # A C2R of a spectrum that is not Hermitian in its self-conjugate planes: the engine computes
  # the transform of the Hermitian part (as NumPy and FFTW do; docs/ABFT.md §12.1); plain cuFFT's
  # result depends on its algorithm. "same" means cuFFT computes that too.
  info "protected: irfft2, non-Hermitian" results "$out/clean.pt" "$out/prot.pt" --prefix fftnh. --rtol 1e-5
  check "protected: report" report "$out/prot.report" --need-protected 1
else row "protected" FAIL "run failed"; fi

# 3. Injected faults, corrected: fp32 (+ FFT) with bit 30, bf16 with bit 14 (the exponent's top bit).
if workload inj32 PRELOAD=1 ABFT_PRELOAD_INJECT=bitflip,bit=30,site=output,seed=5 -- --dtype fp32 --fft; then
  check "injected fp32: loss = clean" results "$out/clean.pt" "$out/inj32.pt" --prefix fp32. --rtol 1e-4
  check "injected fft: = clean" results "$out/clean.pt" "$out/inj32.pt" --prefix fft. --rtol 1e-5
  check "injected fp32+fft: report" report "$out/inj32.report" --need-protected 1 --need-detected --need-corrected
else row "injected fp32" FAIL "run failed"; fi
if workload inj16 PRELOAD=1 ABFT_PRELOAD_INJECT=bitflip,bit=14,site=output,seed=6 -- --dtype bf16; then
  check "injected bf16: loss = clean" results "$out/clean.pt" "$out/inj16.pt" --prefix bf16. --rtol 3e-2
  check "injected bf16: report" report "$out/inj16.report" --need-protected 1 --need-detected --need-corrected
else row "injected bf16" FAIL "run failed"; fi

# 4. The same faults under DETECT: reported, not repaired — the results must differ.
if workload det PRELOAD=1 ABFT_POLICY=detect ABFT_PRELOAD_INJECT=bitflip,bit=30,site=output,seed=5 -- --dtype fp32; then
  check "detect only: faults land" results "$out/clean.pt" "$out/det.pt" --prefix fp32. --rtol 1e-4 --expect-different
  check "detect only: report" report "$out/det.report" --need-protected 1 --need-detected
else row "detect only" FAIL "run failed"; fi

# 5. Overhead: GPT-2-small-shaped training step, without and with the preload, one run each.
# shellcheck disable=SC2086  # (ABFT_PRELOAD_OVH_ENV: words of NAME=VALUE)
t_clean=$(bounded 60 env ${ABFT_PRELOAD_OVH_ENV:-} "$py" "$ovh" 2>"$out/ovh_clean.err" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
# shellcheck disable=SC2086
t_pre=$(bounded 60 env ${ABFT_PRELOAD_OVH_ENV:-} LD_PRELOAD="$lib" ABFT_PRELOAD_REPORT="$out/ovh.report" "$py" "$ovh" \
        2>"$out/ovh_pre.err" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
if [ -n "$t_clean" ] && [ -n "$t_pre" ]; then
  ratio=$(awk -v a="$t_pre" -v b="$t_clean" 'BEGIN { printf "%.3f", a / b }')
  cov=$(bounded 15 "$py" "$cmp" report "$out/ovh.report" 2>&1 | sed -n 's/.*calls=\([0-9]*\) protected=\([0-9]*\).*/\2 of \1 calls protected/p')
  verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "ok" : "FAIL" }')
  row "GPT-2 small step (bar <= 1.10)" "$verdict" "clean ${t_clean} ms, preload ${t_pre} ms, ratio ${ratio}; ${cov:-coverage n/a}"
else
  row "GPT-2 small step" FAIL "run failed or no time left (see $out/ovh_*.err)"
  tail -5 "$out/ovh_clean.err" "$out/ovh_pre.err" >&2 2>/dev/null
fi

# The runs' logs and reports beside the GPU check's own (scripts/gpu-check.sh sets the folder).
[ -n "${ABFT_GPU_LOG_DIR:-}" ] && mkdir -p "$ABFT_GPU_LOG_DIR/preload" && cp "$out"/*.log "$out"/*.report "$out"/*.err \
  "$ABFT_GPU_LOG_DIR/preload/" 2>/dev/null
echo
echo "libabft_preload.so on $(timeout 5 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) ($(( $(date +%s) - start )) s; files in $out)"
printf '| %-32s | %-4s | %s |\n' "check" "ok?" "detail"
printf '|%s|%s|%s|\n' "----------------------------------" "------" "------"
printf '%s\n' "${rows[@]}"
exit $status
