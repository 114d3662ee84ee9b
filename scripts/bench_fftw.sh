#!/usr/bin/env bash
# \brief Build abft_bench_fftw (Release) and run abft's FFTW3 shim against FFTW through the same
#        FFTW API in one process (bench/fftw_api_bench.cpp), for each thread count; JSON to
#        <build>/bench/fftw_t<T>.json (protection on) and fftw_t<T>_off.json (ABFT_POLICY=off,
#        abft rows only), a Markdown table (medians, abft / FFTW, geometric means over
#        n = 2^10 ... 2^20 and the bar >= 0.8x) to stdout and <build>/bench/fftw_table.md.
#
# Usage: scripts/bench_fftw.sh [--no-build] [-- EXTRA BENCHMARK ARGS...]
#
# Environment:
#   ABFT_BUILD_DIR        build folder (default: <repo>/build, configured as Release if needed)
#   ABFT_BUILD_JOBS       parallel build jobs (default: nproc)
#   ABFT_BENCH_THREADS    thread counts to run, in turn (default "1 2"); both libraries get
#                         fftw_plan_with_nthreads(T) and OMP_NUM_THREADS=T
#   ABFT_BENCH_REPS       repetitions, randomly interleaved (default 5); medians are reported
#   ABFT_BENCH_MIN_TIME   seconds per repetition (default 0.2)
#   ABFT_BENCH_FILTER     --benchmark_filter regex (default: every case)
#   ABFT_BENCH_OFF        1 (default): also run ours with ABFT_POLICY=off; 0: protected only
#   ABFT_BENCH_FFTW_PLANNER  measure (default) | estimate | patient, for both libraries
#   ABFT_FFTW_BENCH_OURS  our library set (default <build>/lib/libabft_fftw3.so.0); e.g. the
#                         system FFTW to test the harness (then ABFT_BENCH_ALLOW_SAME=1)
#   ABFT_FFTW_BENCH_PEER  the FFTW set (default: the FFTW libraries found at configure time)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'bench_fftw.sh: %s\n' "$*" >&2; }

build_it=1 extra=()
while [ $# -gt 0 ]; do
  case $1 in
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
bin=$out/abft_bench_fftw
if [ $build_it = 1 ]; then
  bench_release_build "$build" abft_bench_fftw || exit 1
  # Our library: only when the default path is used (an override may point anywhere).
  if [ -z "${ABFT_FFTW_BENCH_OURS:-}" ]; then
    bench_release_build "$build" abft_fftw3 ||
      log "building abft_fftw3 failed: the abft rows will report the missing library"
  fi
fi
[ -x "$bin" ] || { log "no $bin (build it, or drop --no-build)"; exit 1; }
mkdir -p "$out"

reps=${ABFT_BENCH_REPS:-5}
min_time=${ABFT_BENCH_MIN_TIME:-0.2}
common=(--benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true
        --benchmark_min_time="$min_time" --benchmark_out_format=json)
[ "${ABFT_BENCH_ALLOW_SAME:-0}" = 1 ] && common+=(--allow-same)
log "threads='${ABFT_BENCH_THREADS:-1 2}' repetitions=$reps min_time=$min_time" \
    "filter='${ABFT_BENCH_FILTER:-all}' planner=${ABFT_BENCH_FFTW_PLANNER:-measure}" \
    "load: $(cut -d' ' -f1-3 /proc/loadavg)"

rc=0 jsons=()
run() {  # run <json> <filter or ""> <own flag or ""> [env assignments...]: one benchmark process
  local json=$1 filter=$2 flag=$3; shift 3
  local args=("${common[@]}" --benchmark_out="$json")
  [ -n "$filter" ] && args+=(--benchmark_filter="$filter")
  [ -n "$flag" ] && args+=("$flag")
  rm -f "$json"
  log "run: $* $bin ${args[*]} ${extra[*]}"
  env "$@" "$bin" "${args[@]}" "${extra[@]}" >&2
  local r=$?
  [ $r -ne 0 ] && { log "abft_bench_fftw exited with status $r"; rc=$r; }
  [ -s "$json" ] && jsons+=("$json")
}
for t in ${ABFT_BENCH_THREADS:-1 2}; do
  # Protection on: ABFT_POLICY unset (our library's default, correct).
  run "$out/fftw_t$t.json" "${ABFT_BENCH_FILTER:-}" "" -u ABFT_POLICY \
      ABFT_BENCH_THREADS="$t" OMP_NUM_THREADS="$t"
  if [ "${ABFT_BENCH_OFF:-1}" = 1 ]; then
    # abft rows only (the table takes FFTW from the protected run); --no-compare: no FFTW
    # plans in this process.
    run "$out/fftw_t${t}_off.json" "${ABFT_BENCH_FILTER:-lib:abft}" --no-compare ABFT_POLICY=off \
        ABFT_BENCH_THREADS="$t" OMP_NUM_THREADS="$t"
  fi
done
[ ${#jsons[@]} -gt 0 ] || { log "no results"; exit 1; }

notes=()
[ $rc -ne 0 ] && notes+=(--note "abft_bench_fftw exited with status $rc: the results may be partial")
python3 "$root/scripts/bench_fftw_table.py" "${notes[@]}" "${jsons[@]}" | tee "$out/fftw_table.md"
log "table also in $out/fftw_table.md; JSON: ${jsons[*]}"
exit $rc
