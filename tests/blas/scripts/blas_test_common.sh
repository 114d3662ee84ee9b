#!/usr/bin/env bash
# \brief Shared helpers of the BLAS whole-program tests: run a program with our libraries
# swapped in, prove that they were the ones loaded, and read the shim's JSON report.
#
# Sourced by run_reference_blas_test.sh and run_unmodified_test.sh, never executed.
# A whole-program test is only meaningful if the process really ran on our libblas.so.3:
# a stale LD_LIBRARY_PATH, an RPATH in the program or an /etc/ld.so.preload entry would
# silently hand it the system BLAS, and every test would "pass" against the wrong library.
# So each run is traced (LD_DEBUG=libs, written to a file, not mixed into the output) and
# checked three ways; see abft_check_loaded.

# abft_run_traced WORKDIR LIBDIR STDIN_FILE|- CMD...
#   Runs CMD in WORKDIR with LIBDIR first on LD_LIBRARY_PATH (the way a user swaps a BLAS
#   in), stdout to WORKDIR/stdout.log, stderr to WORKDIR/stderr.log, the dynamic loader's
#   trace to WORKDIR/ld.<pid>. ABFT_REPORT is always WORKDIR/report.json, so the shim
#   leaves evidence that it ran inside this very process (and its counters for the tests
#   under injection). Returns CMD's exit status.
# shellcheck source=../../common/traced_exec.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../common/traced_exec.sh"

abft_run_traced() {
  local work="$1" libdir="$2" input="$3"
  shift 3
  traced_clean "$work"
  local status=0
  (
    cd "$work" || exit 125
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export ABFT_REPORT="$work/report.json"
    traced_exec "$work" "$input" "$@"
  ) || status=$?
  return "$status"
}

# abft_check_loaded WORKDIR LIBDIR
#   Fails (status 1, saying why) unless the traced run used our BLAS:
#   1. the loader initialised LIBDIR/libblas.so.3 (or libcblas.so.3) in this process;
#   2. it initialised no other libblas.so.3 / libcblas.so.3 / libopenblas (two BLAS in one
#      process would let some calls reach the unprotected one);
#   3. the shim wrote its report (ABFT_REPORT) at exit: the trace shows what was mapped,
#      the report shows that our code actually ran, and ran to the end.
abft_check_loaded() {
  local work="$1" libdir="$2"
  local ours_blas ours_cblas
  ours_blas="$(readlink -f "$libdir/libblas.so.3")"
  ours_cblas="$(readlink -f "$libdir/libcblas.so.3")"
  local traces=("$work"/ld.*)
  if [[ ! -e "${traces[0]}" ]]; then
    echo "check: no loader trace in $work (LD_DEBUG ignored?); cannot tell which BLAS ran" 
    return 1
  fi
  local found=0 foreign=() path real
  while IFS= read -r path; do
    real="$(readlink -f "$path" 2>/dev/null || echo "$path")"
    case "$(basename "$path")" in
      libblas.so*|libcblas.so*|libopenblas*|libblis*|libmkl_rt*)
        if [[ "$real" == "$ours_blas" || "$real" == "$ours_cblas" ]]; then
          found=1
        else
          foreign+=("$path")
        fi ;;
    esac
  done < <(sed -n 's/.*calling init: //p' "${traces[@]}" | sort -u)
  if [[ $found -eq 0 ]]; then
    echo "check: FAILED: our $libdir/libblas.so.3 was not loaded; the loader initialised:"
    sed -n 's/.*calling init: /  /p' "${traces[@]}" | sort -u 
    return 1
  fi
  if [[ ${#foreign[@]} -gt 0 ]]; then
    echo "check: FAILED: another BLAS was loaded next to ours: ${foreign[*]}" 
    return 1
  fi
  if ! grep -q '"library":"abft-blas"' "$work/report.json" 2>/dev/null; then
    echo "check: FAILED: the shim wrote no report to $work/report.json" \
         "(our library did not run to exit in this process)" 
    return 1
  fi
  echo "check: loaded $ours_blas (and no other BLAS); the shim reported at exit"
}

# abft_report_total REPORT FIELD...
#   Prints the sum of the given counters (e.g. corrected recomputed) over every routine
#   of the shim's JSON report ({"routines":{"dgemm":{"calls":..,"corrected":..},..}}).
abft_report_total() {
  local report="$1"
  shift
  local f pattern=""
  for f in "$@"; do pattern+="${pattern:+|}\"$f\":[0-9]+"; done
  grep -oE "$pattern" "$report" | awk -F: '{ s += $2 } END { print s + 0 }'
}

# abft_print_report REPORT: the report, one routine a line, for the test log.
abft_print_report() {
  echo "report ($1):"
  sed -e 's/},"/},\n  "/g' -e 's/"routines":{/"routines":{\n  /' "$1"
}
