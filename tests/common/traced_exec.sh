#!/usr/bin/env bash
# \brief The part of a whole-program test that every drop-in library's suite shares
# (tests/blas/scripts, tests/fftw/scripts): run a program with the dynamic loader's trace
# written to files, so the test can prove which shared libraries the process really used.
# Sourced, never executed.

# traced_clean WORKDIR: remove the previous run's logs, trace and report.
traced_clean() {
  rm -f "$1"/ld.* "$1"/stdout.log "$1"/stderr.log "$1"/report.json
}

# traced_exec WORKDIR STDIN_FILE|- CMD...
#   Replaces the calling (sub)shell by CMD: stdout to WORKDIR/stdout.log, stderr to
#   WORKDIR/stderr.log, the loader's trace (LD_DEBUG=libs) to WORKDIR/ld.<pid>. Call it in
#   a subshell, after setting the environment the run needs.
traced_exec() {
  local work="$1" input="$2"
  shift 2
  export LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld"
  if [[ "$input" == - ]]; then
    exec "$@" </dev/null >"$work/stdout.log" 2>"$work/stderr.log"
  else
    exec "$@" <"$input" >"$work/stdout.log" 2>"$work/stderr.log"
  fi
}
