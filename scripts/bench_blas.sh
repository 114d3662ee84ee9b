#!/usr/bin/env bash
# \brief Build abft_bench_blas (Release) and run the BLAS shim against OpenBLAS through the
#        same cblas_* names in one process; JSON to <build>/bench/blas.json, a Markdown table
#        (medians of the repetitions, abft/OpenBLAS throughput ratio of the separate rows and,
#        for ?gemm, of the paired rows, which the bar is judged on) to stdout.
#
# Environment:
#   ABFT_BUILD_DIR      build folder (default: <repo>/build)
#   ABFT_BENCH_FILTER   --benchmark_filter regex (default: n >= 1024)
#   ABFT_BENCH_REPS     repetitions, randomly interleaved (default 5)
#   ABFT_BENCH_MIN_TIME seconds per repetition (default 0.3)
#   ABFT_BENCH_MAX_DIM  largest n (default 2048)
#   OMP_NUM_THREADS     threads of both libraries (default: nproc)
#   OMP_WAIT_POLICY     abft's idle OpenMP workers (default here: PASSIVE)
#   OPENBLAS_THREAD_TIMEOUT  OpenBLAS's idle spin, 2^n polls (default here: 4)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_BUILD_DIR:-$root/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build" -j"$(nproc)" --target abft_bench_blas abft_blas >&2
mkdir -p "$build/bench"
json=$build/bench/blas.json
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS
# Idle workers sleep in both libraries, so that neither pool takes the cores from the other
# library's next call (the paired rows alternate calls; the separate rows follow each other):
# abft's OpenMP workers at once (PASSIVE), OpenBLAS's after 2^4 polls instead of its default
# of about 0.1 s of spinning. Either can be set otherwise from the environment.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
echo "bench_blas.sh: OMP_WAIT_POLICY=$OMP_WAIT_POLICY OPENBLAS_THREAD_TIMEOUT=$OPENBLAS_THREAD_TIMEOUT OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}" >&2
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
pair = collections.defaultdict(list)    # case -> (abft GFLOP/s, OpenBLAS GFLOP/s, paired ratio) per repetition
g = lambda v: v / 1e9 if v > 1e6 else v  # GFLOP/s counters are rates: per second, in FLOP
for r in runs:
    if r.get("run_type") != "iteration":
        continue
    name = r["run_name"].replace("/manual_time", "")
    case, who = name.rsplit("/", 1)
    if who == "paired" and "x_openblas" in r:
        pair[case].append((r["abft_GFLOP/s"], r["openblas_GFLOP/s"], r["x_openblas"]))
    elif "GFLOP/s" in r:
        rates[(case, who)].append(g(r["GFLOP/s"]))
cases = sorted({c for c, _ in rates} | set(pair), key=lambda c: (int(c.split("n=")[1]), c))
med = lambda v: statistics.median(v) if v else float("nan")
print("Separate rows: medians of each library's repetitions. Paired: both libraries call by call "
      "in one row, abft / OpenBLAS the median of the per-pair time ratios (the bar's figure where present).")
print()
print("| routine / n | abft GFLOP/s | OpenBLAS GFLOP/s | abft / OpenBLAS | paired abft | paired OpenBLAS | paired abft / OpenBLAS | bar (>= 0.9x, ?gemm, n >= 1024) |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for c in cases:
    a = med(rates.get((c, "abft"), []))
    p = med(rates.get((c, "openblas"), []))
    ratio = a / p if p else float("nan")
    pa = med([x[0] for x in pair.get(c, [])])
    pp = med([x[1] for x in pair.get(c, [])])
    pr = med([x[2] for x in pair.get(c, [])])
    judged = pr if pair.get(c) else ratio
    gemm = "gemm" in c and int(c.split("n=")[1]) >= 1024
    verdict = ("(no ratio)" if judged != judged else "met" if judged >= 0.9 else "**miss**") if gemm else "(reported)"
    fmt = lambda v, suf="": "" if v != v else f"{v:.2f}{suf}" if suf else f"{v:.1f}"
    print(f"| {c} | {a:.1f} | {p:.1f} | {ratio:.2f}x | {fmt(pa)} | {fmt(pp)} | {fmt(pr, 'x')} | {verdict} |")
PY
