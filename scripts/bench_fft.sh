#!/usr/bin/env bash
# \brief Build abft_bench_fft (Release) and run the protected FFT against FFTW in one process;
#        JSON to <build>/bench/fft.json, a Markdown table of medians (abft off / detect /
#        correct and FFTW GFLOP/s, correct / FFTW, overheads vs off) and the two bars of
#        issue 4 (geometric means over c2c n = 2^10 ... 2^20) to stdout.
#
# Usage: scripts/bench_fft.sh [--quick] [--no-build] [-- EXTRA BENCHMARK ARGS...]
#   --quick     fewer cases (c2c 2^10, 2^13, 2^16, 2^20, 1000, 1009, the 1024 x 1024 batch,
#               r2c/c2r 2^16), 3 repetitions, 0.1 s per repetition
#   --no-build  run the binary already in the build folder
#
# Environment:
#   ABFT_BUILD_DIR        build folder (default: <repo>/build, reconfigured as Release if needed)
#   ABFT_BENCH_FILTER     --benchmark_filter regex (e.g. '^c2c/f64/n:[0-9]+/')
#   ABFT_BENCH_REPS       repetitions (default 5; quick 3); medians are reported
#   ABFT_BENCH_MIN_TIME   --benchmark_min_time in seconds (default 0.2; quick 0.1)
#   ABFT_BENCH_THREADS    threads for abft and FFTW alike (default: OpenMP's default)
#   ABFT_BENCH_FFTW_WISDOM  FFTW wisdom file reused between runs (default <build>/bench/fftw.wisdom;
#                         empty: none)
#   ABFT_BENCH_NO_INSTALL=1  never apt-get install missing packages (root only)
#   ABFT_BENCH_MAX_N, ABFT_BENCH_WARMUP_S, ABFT_BENCH_CHUNK_S, ABFT_BENCH_PAIRED,
#   ABFT_BENCH_FFTW_PLANNER  passed to the binary (see bench/fft_bench.cpp)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'bench_fft.sh: %s\n' "$*" >&2; }

quick=0 build_it=1 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --no-build) build_it=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown option $1 (try --help)"; exit 2 ;;
  esac
  shift
done

# --- packages (Debian, as root: Google Benchmark, the FFTW peer) and build folder: scripts/setup.sh
# shellcheck source=setup.sh
source "$root/scripts/setup.sh"
set +e  # setup.sh sets -e; failures are reported below instead
build=$ABFT_BUILD_DIR
out=$build/bench
bin=$out/abft_bench_fft
if [ $build_it = 1 ]; then
  if [ "$(id -u)" = 0 ] && [ "${ABFT_BENCH_NO_INSTALL:-0}" != 1 ]; then
    abft_install_packages >&2 || log "package installation failed (continuing)"
  fi
  # Configure every time (cheap): a FFTW installed since the last configure is found then.
  btype=""
  [ -f "$build/CMakeCache.txt" ] && btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
  [ -n "$btype" ] && [ "$btype" != Release ] && log "reconfiguring $build as Release (was $btype)"
  cmake -S "$ABFT_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DABFT_BUILD_BENCH=ON >&2 || exit 1
  cmake --build "$build" -j"$(nproc)" --target abft_bench_fft >&2 || exit 1
fi
[ -x "$bin" ] || { log "no $bin (build it, or drop --no-build)"; exit 1; }
mkdir -p "$out"
json=$out/fft.json
rm -f "$json" "$out/fft_table.md"

# --- run options
reps=${ABFT_BENCH_REPS:-5}
min_time=${ABFT_BENCH_MIN_TIME:-0.2}
if [ $quick = 1 ]; then
  export ABFT_BENCH_QUICK=1
  reps=${ABFT_BENCH_REPS:-3}
  min_time=${ABFT_BENCH_MIN_TIME:-0.1}
fi
export ABFT_BENCH_FFTW_WISDOM=${ABFT_BENCH_FFTW_WISDOM-$out/fftw.wisdom}
args=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true
      --benchmark_min_time="$min_time" --benchmark_out="$json" --benchmark_out_format=json)
[ -n "${ABFT_BENCH_FILTER:-}" ] && args+=(--benchmark_filter="$ABFT_BENCH_FILTER")
log "threads=${ABFT_BENCH_THREADS:-OpenMP default (OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, nproc=$(nproc))}" \
    "repetitions=$reps min_time=$min_time quick=$quick filter='${ABFT_BENCH_FILTER:-all}'" \
    "wisdom='${ABFT_BENCH_FFTW_WISDOM}'"

# Console table to stderr: stdout is the Markdown.
"$bin" "${args[@]}" "${extra[@]}" >&2
rc=$?
case $rc in
  0) ;;
  132) log "abft_bench_fft killed by SIGILL (the CPU lacks the ISA of a kernel)" ;;
  134) log "abft_bench_fft aborted (SIGABRT)" ;;
  139) log "abft_bench_fft crashed (SIGSEGV)" ;;
  *) log "abft_bench_fft failed: exit status $rc" ;;
esac
[ -s "$json" ] || { log "no results in $json"; exit 1; }

notes=()
[ $rc -ne 0 ] && notes+=(--note "abft_bench_fft exited with status $rc: the results are partial")
if command -v python3 >/dev/null; then
  python3 "$root/scripts/bench_fft_table.py" --describe "${notes[@]}" "$json" | tee "$out/fft_table.md"
  log "table also in $out/fft_table.md, JSON in $json"
else
  log "python3 not found: JSON results are in $json"
fi
exit $rc
