#!/usr/bin/env bash
# \brief Shared helpers of the FFTW whole-program tests: run a program on the system FFTW
# or with abft's libraries swapped in (LD_LIBRARY_PATH), prove which library was loaded,
# and read the shim's JSON report.
#
# Sourced by run_fftw_conformance.sh and run_fftw_client.sh, never executed. As for the
# BLAS shim (tests/blas/scripts/blas_test_common.sh): a swap-in test is only meaningful if
# the process really ran on our libfftw3*.so.3, so every run is traced with LD_DEBUG=libs
# (to files, not mixed into the output) and the trace is checked.

# shellcheck source=../../common/traced_exec.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../common/traced_exec.sh"

# fftw_run_traced WORKDIR LIBDIR|"" STDIN_FILE|- CMD...
#   Runs CMD in WORKDIR; stdout to WORKDIR/stdout.log, stderr to WORKDIR/stderr.log, the
#   loader's trace to WORKDIR/ld.<pid>. With LIBDIR: LIBDIR first on LD_LIBRARY_PATH and
#   ABFT_REPORT=WORKDIR/report.json (unless ABFT_REPORT is set already). Without LIBDIR
#   (the system FFTW): every entry of LD_LIBRARY_PATH naming FFTW_BUILD_LIBDIR (if set)
#   is removed and the ABFT_* variables are unset. Returns CMD's exit status.
fftw_run_traced() {
  local work="$1" libdir="$2" input="$3"
  shift 3
  traced_clean "$work"
  local status=0
  (
    cd "$work" || exit 125
    if [[ -n "$libdir" ]]; then
      export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      export ABFT_REPORT="${ABFT_REPORT:-$work/report.json}"
    else
      if [[ -n "${FFTW_BUILD_LIBDIR:-}" && -n "${LD_LIBRARY_PATH:-}" ]]; then
        local keep="" e
        IFS=: read -r -a parts <<<"$LD_LIBRARY_PATH"
        for e in "${parts[@]}"; do
          [[ "$(readlink -f "$e" 2>/dev/null)" == "$(readlink -f "$FFTW_BUILD_LIBDIR")" ]] && continue
          keep+="${keep:+:}$e"
        done
        export LD_LIBRARY_PATH="$keep"
      fi
      unset ABFT_REPORT ABFT_INJECT ABFT_INJECT_RATE ABFT_INJECT_SEED ABFT_INJECT_SITE ABFT_POLICY
    fi
    traced_exec "$work" "$input" "$@"
  ) || status=$?
  return "$status"
}

# fftw_loaded_libs WORKDIR: every FFTW library the loader initialised in the traced run
# (resolved paths, one a line).
fftw_loaded_libs() {
  local work="$1" path
  sed -n 's/.*calling init: //p' "$work"/ld.* 2>/dev/null | sort -u |
    while IFS= read -r path; do
      case "$(basename "$path")" in
        libfftw3*) readlink -f "$path" 2>/dev/null || echo "$path" ;;
      esac
    done | sort -u
}

# fftw_check_loaded WORKDIR LIBDIR SONAME...
#   Fails (status 1, saying why) unless the traced run initialised LIBDIR/SONAME for every
#   SONAME given, and no libfftw3* from anywhere else (one system FFTW library next to ours
#   would let calls reach the unprotected code). With LIBDIR "" it checks the opposite: the
#   SONAMEs were loaded, and none of them from FFTW_BUILD_LIBDIR.
fftw_check_loaded() {
  local work="$1" libdir="$2"
  shift 2
  local traces=("$work"/ld.*)
  if [[ ! -e "${traces[0]}" ]]; then
    echo "check: no loader trace in $work (LD_DEBUG ignored?); cannot tell which FFTW ran"
    return 1
  fi
  local loaded so ok=1 real
  loaded="$(fftw_loaded_libs "$work")"
  if [[ -n "$libdir" ]]; then
    local ours f
    # every file of LIBDIR's libfftw3* (resolved: the loader reports resolved names too)
    ours="$(for f in "$libdir"/libfftw3*; do readlink -f "$f"; done | sort -u)"
    for so in "$@"; do
      real="$(readlink -f "$libdir/$so" 2>/dev/null)"
      if ! grep -qxF "$real" <<<"$loaded"; then
        echo "check: FAILED: $libdir/$so was not loaded"
        ok=0
      fi
    done
    local foreign
    foreign="$(grep -vxF -f <(echo "$ours") <<<"$loaded" || true)"
    if [[ -n "$foreign" ]]; then
      echo "check: FAILED: FFTW libraries from outside $libdir were loaded next to ours:"
      sed 's/^/  /' <<<"$foreign"
      ok=0
    fi
  else
    for so in "$@"; do
      if ! grep -q "/${so%%.so*}\.so" <<<"$loaded"; then
        echo "check: FAILED: no $so was loaded"
        ok=0
      fi
    done
    if [[ -n "${FFTW_BUILD_LIBDIR:-}" ]] &&
       grep -qxF -f <(for f in "$FFTW_BUILD_LIBDIR"/libfftw3*; do readlink -f "$f"; done) <<<"$loaded"; then
      echo "check: FAILED: the system run loaded abft's libraries from $FFTW_BUILD_LIBDIR"
      ok=0
    fi
  fi
  echo "check: FFTW libraries initialised in the process:"
  sed 's/^/  /' <<<"$loaded"
  [[ $ok -eq 1 ]]
}

# fftw_report_sum REPORT ROW_REGEX FIELD...
#   Sum of the given counters over the report's rows whose name matches ROW_REGEX (an ERE
#   for the whole row name, e.g. 'fftw_(c2c|r2c|c2r)'), over every line of the file (each
#   abft library of the process appends its own line).
fftw_report_sum() {
  local report="$1" rows="$2"
  shift 2
  local f pattern=""
  for f in "$@"; do pattern+="${pattern:+|}\"$f\":[0-9]+"; done
  grep -oE "\"($rows)\":\{[^}]*\}" "$report" 2>/dev/null | grep -oE "$pattern" |
    awk -F: '{ s += $2 } END { print s + 0 }'
}

# fftw_print_report REPORT: the report, one row a line, for the test log.
fftw_print_report() {
  echo "report ($1):"
  sed -e 's/},"/},\n  "/g' -e 's/"routines":{/"routines":{\n  /' "$1"
}

# fftw_check_unmodified PROGRAM SONAME...: the program needs each SONAME and has no run
# path (the swap has to come from LD_LIBRARY_PATH, as for any installed program).
fftw_check_unmodified() {
  local prog="$1"
  shift
  command -v readelf >/dev/null 2>&1 || return 0
  local dynamic so ok=0
  dynamic="$(readelf -d "$prog")"
  for so in "$@"; do
    if ! grep -qF "[$so]" <<<"$dynamic"; then
      echo "check: FAILED: $prog does not need $so"
      ok=1
    fi
  done
  if grep -qE 'R(UN)?PATH' <<<"$dynamic"; then
    echo "check: FAILED: $prog carries a run path: $(grep -E 'R(UN)?PATH' <<<"$dynamic")"
    ok=1
  fi
  return $ok
}

# fftw_check_exports PROGRAM LIBDIR: every fftw symbol PROGRAM imports is exported by our
# libfftw3{,f}{,_threads}.so.3 (a missing one would end the run with "symbol lookup
# error" at its first call, long after the start).
fftw_check_exports() {
  local prog="$1" libdir="$2"
  command -v nm >/dev/null 2>&1 || { echo "check: nm not found, imports not compared"; return 0; }
  local missing
  missing="$(comm -23 \
    <(nm -D --undefined-only "$prog" | awk '{print $NF}' | sed 's/@.*//' | grep -E '^fftwf?_' | sort -u) \
    <(nm -D --defined-only "$libdir"/libfftw3{,f}{,_threads}.so.3 2>/dev/null |
        awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u))"
  if [[ -n "$missing" ]]; then
    echo "check: FAILED: symbols imported by $(basename "$prog") but not exported by $libdir:" $missing
    return 1
  fi
  echo "check: every fftw symbol $(basename "$prog") imports is exported by $libdir"
}
