#!/usr/bin/env bash
# \brief Build abft_bench_gemm (Release) and run it as OpenBLAS configures itself
#        and with OPENBLAS_CORETYPE=SkylakeX; JSON to build/bench/, Markdown tables to stdout.
#
# Environment:
#   ABFT_BUILD_DIR        build folder (default: <repo>/build, reused when present)
#   ABFT_BENCH_FILTER     --benchmark_filter regex (e.g. '^dgemm/n=(1024|2048)/')
#   ABFT_BENCH_QUICK=1    quick run: shapes up to 1024, 3 repetitions, short min time
#   ABFT_BENCH_MAX_DIM    skip shapes with a dimension above this (quick: 1024)
#   ABFT_BENCH_REPS       repetitions (default 5; quick 3); medians are reported
#   ABFT_BENCH_MIN_TIME   --benchmark_min_time in seconds (default 0.5; quick 0.1)
#   ABFT_BENCH_INTERLEAVE=1  all rows' repetitions in random order (default: row by row)
#   ABFT_BENCH_SKX=0      skip the OPENBLAS_CORETYPE=SkylakeX run; =force runs it
#                         even if OpenBLAS falls back to another core
#   ABFT_BENCH_NO_INSTALL=1  never apt-get install missing packages (root only)
#   OMP_NUM_THREADS       threads for abft and OpenBLAS alike (default: nproc)
#   OPENBLAS_THREAD_TIMEOUT  OpenBLAS's idle spin, 2^n polls (default here: 4; the correct
#                         rows time OpenBLAS call by call: x_openblas)
#   ABFT_BENCH_WARMUP_S, ABFT_BENCH_PAIRED  passed to the binary (see bench/gemm_bench.cpp)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_BUILD_DIR:-$root/build}
out=$build/bench
bin=$out/abft_bench_gemm
log() { printf 'bench.sh: %s\n' "$*" >&2; }

# --- packages (Debian, as root): Google Benchmark, the OpenBLAS peer
if [ "$(id -u)" = 0 ] && [ "${ABFT_BENCH_NO_INSTALL:-0}" != 1 ] && command -v dpkg-query >/dev/null; then
  missing=()
  for p in cmake g++ libbenchmark-dev libopenblas-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get install -y "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && apt-get install -y "${missing[@]}" >/dev/null 2>&1; } ||
      log "could not install ${missing[*]} (continuing)"
  fi
fi

# --- configure (Release) and build only the benchmark
if [ -f "$build/CMakeCache.txt" ]; then
  btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
  bbench=$(sed -n 's/^ABFT_BUILD_BENCH:[A-Z]*=//p' "$build/CMakeCache.txt")
  if [ "$btype" != Release ] || [ "$bbench" = OFF ]; then
    log "reconfiguring $build as Release with benchmarks (was: ${btype:-none}, bench ${bbench:-?})"
    cmake "$build" -DCMAKE_BUILD_TYPE=Release -DABFT_BUILD_BENCH=ON >&2 || exit 1
  fi
else
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2 || exit 1
fi
cmake --build "$build" -j"$(nproc)" --target abft_bench_gemm >&2 || exit 1
[ -x "$bin" ] || { log "no $bin after the build"; exit 1; }
mkdir -p "$out"
rm -f "$out"/gemm_default.json "$out"/gemm_skylakex.json "$out"/gemm_table.md

# --- run options
reps=${ABFT_BENCH_REPS:-5}
min_time=${ABFT_BENCH_MIN_TIME:-0.5}
if [ "${ABFT_BENCH_QUICK:-0}" = 1 ]; then
  export ABFT_BENCH_MAX_DIM=${ABFT_BENCH_MAX_DIM:-1024}
  reps=${ABFT_BENCH_REPS:-3}
  min_time=${ABFT_BENCH_MIN_TIME:-0.1}
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS
# The correct rows time OpenBLAS in the same iterations (x_openblas): its idle workers must
# sleep after a call (2^4 polls) instead of spinning for about 0.1 s, its default, which
# would take the cores from the next abft call. Set it otherwise from the environment.
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
# ABFT_BENCH_INTERLEAVE=1 runs the repetitions of all rows in random order instead of row by
# row (Google Benchmark's random interleaving); on the disturbed VM of docs/PERFORMANCE.md's
# run 3 it did not steady the ratio to OpenBLAS, so it is not the default.
args=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true
      --benchmark_min_time="$min_time" --benchmark_out_format=json)
[ "${ABFT_BENCH_INTERLEAVE:-0}" = 1 ] && args+=(--benchmark_enable_random_interleaving=true)
[ -n "${ABFT_BENCH_FILTER:-}" ] && args+=(--benchmark_filter="$ABFT_BENCH_FILTER")
log "threads=$OMP_NUM_THREADS OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)} OPENBLAS_THREAD_TIMEOUT=$OPENBLAS_THREAD_TIMEOUT repetitions=$reps min_time=$min_time filter='${ABFT_BENCH_FILTER:-all}' max_dim=${ABFT_BENCH_MAX_DIM:-none}"

# describe_rc RC: what an exit status means (signals included)
describe_rc() {
  case $1 in
    0) echo "ok" ;;
    132) echo "killed by SIGILL (illegal instruction: the CPU lacks the ISA of that kernel)" ;;
    134) echo "aborted (SIGABRT)" ;;
    139) echo "crashed (SIGSEGV)" ;;
    *) if [ "$1" -gt 128 ]; then echo "killed by signal $(($1 - 128))"; else echo "exit status $1"; fi ;;
  esac
}

jsons=()
notes=()  # lines for the table header (what happened to the SkylakeX run)
# run_suite TAG: run the whole suite with the current environment into $out/gemm_TAG.json
run_suite() {
  local json=$out/gemm_$1.json
  rm -f "$json"
  log "suite '$1' (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}) -> $json"
  "$bin" "${args[@]}" --benchmark_out="$json" >&2  # console table to stderr: stdout is the Markdown
  local rc=$?
  if [ $rc -ne 0 ]; then log "suite '$1' failed: $(describe_rc $rc)"; fi
  if [ -s "$json" ]; then jsons+=("$json"); fi
}

# 1. OpenBLAS as it configures itself on this machine
(unset OPENBLAS_CORETYPE; "$bin" --abft_probe_openblas) >&2
probe_rc=$?
saved_coretype=${OPENBLAS_CORETYPE-}
unset OPENBLAS_CORETYPE
run_suite default

# 2. OpenBLAS forced to its AVX-512 kernel (SkylakeX): probe first, in a child,
#    because a forced core the CPU cannot execute dies with SIGILL.
skx=${ABFT_BENCH_SKX:-1}
if [ "$skx" = 0 ]; then
  notes+=("SkylakeX run skipped (ABFT_BENCH_SKX=0)")
elif [ $probe_rc -eq 3 ]; then
  notes+=("SkylakeX run skipped: abft_bench_gemm was built without OpenBLAS")
else
  avx512=no
  grep -qw avx512f /proc/cpuinfo 2>/dev/null && avx512=yes
  probe=$(OPENBLAS_CORETYPE=SkylakeX "$bin" --abft_probe_openblas 2>&1)
  rc=$?
  core=$(printf '%s\n' "$probe" | sed -n 's/.*core=\([^ ]*\).*/\1/p' | head -n1)
  if [ $rc -ne 0 ]; then
    notes+=("OPENBLAS_CORETYPE=SkylakeX: OpenBLAS refused: $(describe_rc $rc); CPU avx512f: $avx512; SkylakeX run skipped")
  elif [ "$core" != SkylakeX ] && [ "$skx" != force ]; then
    notes+=("OPENBLAS_CORETYPE=SkylakeX: OpenBLAS fell back to core '${core:-?}' (CPU avx512f: $avx512); SkylakeX run skipped (ABFT_BENCH_SKX=force runs it anyway)")
  else
    log "OPENBLAS_CORETYPE=SkylakeX: $probe"
    OPENBLAS_CORETYPE=SkylakeX run_suite skylakex
  fi
fi
[ -n "$saved_coretype" ] && export OPENBLAS_CORETYPE=$saved_coretype
for n in "${notes[@]}"; do log "$n"; done
note_args=()
for n in "${notes[@]}"; do note_args+=(--note "$n"); done

# 3. Markdown tables (also kept next to the JSON)
if [ ${#jsons[@]} -eq 0 ]; then log "no results"; exit 1; fi
if command -v python3 >/dev/null; then
  python3 "$root/scripts/bench_table.py" "${note_args[@]}" "${jsons[@]}" | tee "$out/gemm_table.md"
  log "table also in $out/gemm_table.md"
else
  log "python3 not found: JSON results are in ${jsons[*]}"
fi
