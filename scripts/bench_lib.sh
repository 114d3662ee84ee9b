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
