#!/usr/bin/env bash
# \brief Per-kernel times and how close each kernel runs to the memory and compute ceilings, for a
#        few benchmark shapes, with Nsight Compute (ncu) on the device machine: where a protected
#        call's time goes (cuBLAS / cuFFT vs our checksum kernels). Diagnostic, not a test: it
#        never fails the caller (exit 0 unless ncu is missing).
#
# Usage: scripts/gpu-kernel-profile.sh BUILD_DIR [SECONDS]    (default 90 s in all)
# ncu runs with --clock-control none (the clocks are left as found: METHOD.md) and reads three
# metrics per kernel launch: duration, DRAM throughput and SM throughput in % of peak.
set -uo pipefail
build=${1:?usage: gpu-kernel-profile.sh BUILD_DIR [SECONDS]}
budget=${2:-90}
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "gpu-kernel-profile.sh: no ncu on this machine"; exit 1; }
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
start=$(date +%s)
profile() {  # profile LABEL BENCH FILTER: the kernels of a few iterations after the warm-up
  local label=$1 bench=$2 filter=$3 left=$(( start + budget - $(date +%s) ))
  [ "$left" -ge 15 ] || { echo "[$label] no time left"; return; }
  echo "[$label] $filter"
  timeout -k 5 "$left" "$ncu" --clock-control none --csv --page raw --metrics "$metrics" --launch-skip 12 \
      --launch-count 12 "$build/bench/$bench" --benchmark_filter="$filter" 2>/dev/null \
    | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
hdr = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if hdr is None:
    print("  (no ncu rows)"); sys.exit(0)
h = rows[hdr]; k = h.index("Kernel Name")
t = h.index("gpu__time_duration.sum"); d = h.index("dram__throughput.avg.pct_of_peak_sustained_elapsed")
s = h.index("sm__throughput.avg.pct_of_peak_sustained_elapsed")
for r in rows[hdr + 2:]:
    if len(r) > max(k, t, d, s):
        print("  %-60.60s %10s ns  dram %6s %%  sm %6s %%" % (r[k], r[t], r[d], r[s]))
'
}
profile "fft c2c f32 1024" abft_bench_cuda_fft '^cuda_fft/c2c/f32/n1024$'
profile "fft r2c f32 4096" abft_bench_cuda_fft '^cuda_fft/r2c/f32/n4096$'
profile "fft c2c f32 2^22" abft_bench_cuda_fft '^cuda_fft/c2c/f32/n4194304$'
profile "gemm bf16 2048" abft_bench_cuda_gemm '^cuda_gemm/bf16/m2048n2048k2048$'
profile "gemm bf16 2048x3072x768" abft_bench_cuda_gemm '^cuda_gemm/bf16/m2048n3072k768$'
exit 0
