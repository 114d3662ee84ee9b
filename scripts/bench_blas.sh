#!/usr/bin/env bash
# \brief Build abft_bench_blas (Release) and run the BLAS shim against OpenBLAS through the
#        same cblas_* names in one process; JSON to <build>/bench/blas.json, a Markdown table
#        (medians of the repetitions, abft/OpenBLAS throughput ratio) to stdout.
#
# Environment:
#   ABFT_BUILD_DIR      build folder (default: <repo>/build)
#   ABFT_BENCH_FILTER   --benchmark_filter regex (default: n >= 1024)
#   ABFT_BENCH_REPS     repetitions, randomly interleaved (default 5)
#   ABFT_BENCH_MIN_TIME seconds per repetition (default 0.3)
#   ABFT_BENCH_MAX_DIM  largest n (default 2048)
#   OMP_NUM_THREADS     threads of both libraries (default: nproc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_BUILD_DIR:-$root/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build" -j"$(nproc)" --target abft_bench_blas abft_blas >&2
mkdir -p "$build/bench"
json=$build/bench/blas.json
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS
# OpenMP's default wait policy (what a user gets): abft's workers spin briefly at the
# barriers inside a call. Set OMP_WAIT_POLICY to compare others.
"$build/bench/abft_bench_blas" \
  --benchmark_filter="${ABFT_BENCH_FILTER:-n=(1024|2048)/}" \
  --benchmark_repetitions="${ABFT_BENCH_REPS:-5}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_min_time="${ABFT_BENCH_MIN_TIME:-0.3}" \
  --benchmark_out="$json" --benchmark_out_format=json >&2
python3 - "$json" <<'PY'
import json, statistics, sys, collections
runs = json.load(open(sys.argv[1]))["benchmarks"]
rates = collections.defaultdict(list)   # (case, who) -> GFLOP/s of each repetition
for r in runs:
    if r.get("run_type") != "iteration" or "GFLOP/s" not in r:
        continue
    name = r["run_name"].replace("/manual_time", "")
    case, who = name.rsplit("/", 1)
    rates[(case, who)].append(r["GFLOP/s"] / 1e9 if r["GFLOP/s"] > 1e6 else r["GFLOP/s"])
cases = sorted({c for c, _ in rates}, key=lambda c: (int(c.split("n=")[1]), c))
print("| routine / n | abft GFLOP/s | OpenBLAS GFLOP/s | abft / OpenBLAS | bar (>= 0.9x, ?gemm, n >= 1024) |")
print("|---|---:|---:|---:|---|")
for c in cases:
    a = statistics.median(rates.get((c, "abft"), [float("nan")]))
    p = statistics.median(rates.get((c, "openblas"), [float("nan")]))
    ratio = a / p if p else float("nan")
    gemm = "gemm" in c and int(c.split("n=")[1]) >= 1024
    verdict = ("met" if ratio >= 0.9 else "**miss**") if gemm else "(reported)"
    print(f"| {c} | {a:.1f} | {p:.1f} | {ratio:.2f}x | {verdict} |")
PY
