# \brief Shell helpers the benchmark scripts share (sourced, not run): the build folder and
#        a Release build of the benchmark targets.
# The sourcing script defines `root` (the repository) and `log`.

# bench_build_dir: the build folder (ABFT_BUILD_DIR or <root>/build), made absolute.
bench_build_dir() {
  local b=${ABFT_BUILD_DIR:-$root/build}
  [[ "$b" == /* ]] || b=$PWD/$b
  printf '%s\n' "$b"
}

# bench_release_build BUILD TARGET...: configure BUILD as Release with the benchmarks when it
# is not, then build each target (ABFT_BUILD_JOBS parallel jobs, default nproc).
bench_release_build() {
  local build=$1 btype="" t
  shift
  [ -f "$build/CMakeCache.txt" ] && btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
  if [ "$btype" != Release ]; then
    [ -n "$btype" ] && log "reconfiguring $build as Release (was $btype)"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DABFT_BUILD_BENCH=ON >&2 || return 1
  fi
  for t in "$@"; do
    cmake --build "$build" -j"${ABFT_BUILD_JOBS:-$(nproc)}" --target "$t" >&2 || return 1
  done
}

# bench_busy_cpus: CPUs busy right now (2 s of /proc/stat; the load average lags a minute
# behind).
bench_busy_cpus() {
  local a b
  a=($(head -1 /proc/stat)); sleep 2; b=($(head -1 /proc/stat))
  awk -v n="$(nproc)" -v u="$(( b[1]+b[2]+b[3]+b[6]+b[7]+b[8] - a[1]-a[2]-a[3]-a[6]-a[7]-a[8] ))" \
      -v t="$(( b[1]+b[2]+b[3]+b[4]+b[5]+b[6]+b[7]+b[8] - a[1]-a[2]-a[3]-a[4]-a[5]-a[6]-a[7]-a[8] ))" \
      'BEGIN { printf "%.2f", (t > 0 ? n * u / t : 0) }'
}

# bench_warn_busy BUSY: the warning when other processes keep more than 0.2 CPUs busy.
bench_warn_busy() {
  if awk -v b="$1" 'BEGIN { exit !(b > 0.2) }'; then
    log "warning: other processes keep $1 of $(nproc) CPUs busy: OpenMP barriers spin, so timings" \
        "will be slow and noisy (the table marks rows measured under load: counter other_load)"
  fi
}

# bench_run_table SET BIN JSON TABLE TABLE_SCRIPT ARGS... [-- EXTRA...]: run the suite binary
# (environment ABFT_BENCH_SET=SET) with ARGS and EXTRA into JSON, then print the table of
# TABLE_SCRIPT and save it to TABLE, with the run's duration and final load as notes. Returns
# the binary's status (1 when it left no results).
bench_run_table() {
  local set=$1 bin=$2 json=$3 table=$4 script=$5 name start rc took load_end
  shift 5
  name=$(basename "$bin")
  rm -f "$json"
  start=$(date +%s)
  log "run: ABFT_BENCH_SET=$set $bin $*"
  ABFT_BENCH_SET=$set "$bin" "$@" >&2
  rc=$?
  took=$(( $(date +%s) - start )) load_end=$(cut -d' ' -f1-3 /proc/loadavg)
  log "benchmark took $took s; load at the end: $load_end"
  [ $rc -ne 0 ] && log "$name exited with status $rc"
  [ -s "$json" ] || { log "no results in $json"; return 1; }
  local notes=(--note "the run took $took s; load average at the end: $load_end")
  [ $rc -ne 0 ] && notes+=(--note "$name exited with status $rc: the results may be partial")
  python3 "$script" "${notes[@]}" "$json" | tee "$table"
  log "table also in $table; JSON: $json"
  return $rc
}
