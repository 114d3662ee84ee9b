#!/usr/bin/env bash
# \brief Run the FFTW conformance program (built against the system FFTW) on the system
# library or on abft's drop-in libraries, clean, under injected faults, or with policy off,
# and judge it.
#
# Usage: run_fftw_conformance.sh --mode system|abft --lib-dir DIR --work DIR
#          [--inject MODEL:RATE:SEED[:SITE]] [--policy off|detect|correct] [--tol C] -- PROGRAM
#        run_fftw_conformance.sh --skip WHY
#   system   the program as built (plain loader search); it must report the system FFTW,
#            and pass every case (UNSUPPORTED = a NULL plan where FFTW documents one).
#   abft     LD_LIBRARY_PATH=DIR: the program must report abft's version, the loader trace
#            must show DIR/libfftw3{,f}{,_threads}.so.3 and no other FFTW, and every case
#            must pass; the shim's report must show transforms executed.
#   --inject each precision runs alone (--precision d, then f), each with its own report;
#            besides passing every case (the program's own norm-wise bound, --tol), the
#            report must show, for each of c2c, r2c and c2r of that precision, faults
#            detected and repaired (corrected + recomputed > 0) and none uncorrectable or
#            failed: the results are right *because* faults were repaired.
#   --policy off  ABFT_POLICY=off: results still right, and the report shows policy off
#            with no verification done (checks = 0).
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/fftw/scripts/fftw_test_common.sh
source "$here/fftw_test_common.sh"

mode="" libdir="" work="" inject="" policy="" tol=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mode) mode="$2"; shift 2 ;;
    --lib-dir) libdir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --inject) inject="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    --tol) tol="$2"; shift 2 ;;
    --skip) echo "SKIPPED: $2"; exit 77 ;;
    --) shift; break ;;
    *) echo "run_fftw_conformance: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$mode" && -n "$work" && $# -gt 0 ]] ||
  { echo "run_fftw_conformance: --mode, --work and a program are required" >&2; exit 2; }
prog="$1"
shift
[[ -x "$prog" ]] || { echo "SKIPPED: $prog was not built"; exit 77; }
mkdir -p "$work"
export FFTW_BUILD_LIBDIR="$libdir"
sonames=(libfftw3.so.3 libfftw3f.so.3 libfftw3_threads.so.3 libfftw3f_threads.so.3)
fail=()
fftw_check_unmodified "$prog" "${sonames[@]}" || fail+=("the program is not a plain system-FFTW client")
extra=()
[[ -n "$tol" ]] && extra+=(--tol "$tol")

# run_one SUBDIR ARGS...: one traced run of the program; prints its output; appends to fail.
run_one() {
  local sub="$1"
  shift
  local w="$work/$sub" status=0
  mkdir -p "$w"
  if [[ "$mode" == system ]]; then
    fftw_run_traced "$w" "" - "$prog" --expect system --wisdom-file "$w/wisdom.txt" "${extra[@]}" "$@" || status=$?
  else
    fftw_run_traced "$w" "$libdir" - "$prog" --expect abft --wisdom-file "$w/wisdom.txt" "${extra[@]}" "$@" || status=$?
  fi
  cat "$w/stdout.log"
  if [[ -s "$w/stderr.log" ]]; then
    echo "--- stderr ($sub, last 10 lines):"
    tail -10 "$w/stderr.log"
  fi
  [[ $status -eq 0 ]] || fail+=("$sub: exit status $status ($(grep -c '^FAIL' "$w/stdout.log") failed cases)")
  if [[ "$mode" == system ]]; then
    fftw_check_loaded "$w" "" "${sonames[@]}" || fail+=("$sub: not the system FFTW")
  else
    fftw_check_loaded "$w" "$libdir" "${sonames[@]}" || fail+=("$sub: not abft's FFTW")
  fi
}

if [[ "$mode" == system ]]; then
  run_one system
elif [[ "$mode" == abft ]]; then
  for so in "${sonames[@]}"; do
    [[ -e "$libdir/$so" ]] || { echo "FAILED: $libdir/$so was not built"; exit 1; }
  done
  fftw_check_exports "$prog" "$libdir" || fail+=("missing exports")
  unset ABFT_INJECT ABFT_INJECT_RATE ABFT_INJECT_SEED ABFT_INJECT_SITE ABFT_POLICY ABFT_REPORT
  [[ -n "$policy" ]] && export ABFT_POLICY="$policy" && echo "policy: ABFT_POLICY=$policy"
  if [[ -n "$inject" ]]; then
    IFS=: read -r model rate seed site <<<"$inject"
    export ABFT_INJECT="$model" ABFT_INJECT_RATE="$rate" ABFT_INJECT_SEED="$seed"
    [[ -n "$site" ]] && export ABFT_INJECT_SITE="$site"
    echo "injection: ABFT_INJECT=$model ABFT_INJECT_RATE=$rate ABFT_INJECT_SEED=$seed${site:+ ABFT_INJECT_SITE=$site}"
    for prec in d f; do
      run_one "$prec" --precision "$prec"
      report="$work/$prec/report.json"
      [[ -s "$report" ]] || { fail+=("$prec: no report written to $report"); continue; }
      fftw_print_report "$report"
      p=fftw; [[ $prec == f ]] && p=fftwf
      for kind in c2c r2c c2r; do
        row="${p}_$kind"
        calls=$(fftw_report_sum "$report" "$row" calls)
        det=$(fftw_report_sum "$report" "$row" detected)
        rep=$(fftw_report_sum "$report" "$row" corrected recomputed)
        bad=$(fftw_report_sum "$report" "$row" uncorrectable failed)
        echo "$row: calls $calls, detected $det, repairs (corrected + recomputed) $rep, uncorrectable + failed $bad"
        [[ $calls -gt 0 ]] || fail+=("$row: no call counted")
        [[ $det -gt 0 && $rep -gt 0 ]] || fail+=("$row: no fault detected and repaired under injection")
        [[ $bad -eq 0 ]] || fail+=("$row: $bad uncorrectable faults or failed calls")
      done
    done
  else
    run_one abft
    report="$work/abft/report.json"
    if [[ ! -s "$report" ]]; then
      fail+=("no report written to $report (our library did not run to exit)")
    else
      fftw_print_report "$report"
      grep -q '"library":"abft-fftw3' "$report" || fail+=("the report does not come from abft-fftw3")
      calls_d=$(fftw_report_sum "$report" 'fftw_(c2c|r2c|c2r)' calls)
      calls_f=$(fftw_report_sum "$report" 'fftwf_(c2c|r2c|c2r)' calls)
      echo "transforms executed: double $calls_d, float $calls_f"
      [[ $calls_d -gt 0 && $calls_f -gt 0 ]] || fail+=("the report counts no transform of one precision")
      if [[ "$policy" == off ]]; then
        checks=$(fftw_report_sum "$report" 'fftwf?_(c2c|r2c|c2r)' checks)
        echo "checks under policy off: $checks"
        grep -q '"policy":"off"' "$report" || fail+=("the report does not say policy off")
        [[ $checks -eq 0 ]] || fail+=("$checks checks counted under ABFT_POLICY=off")
      fi
    fi
  fi
else
  echo "run_fftw_conformance: --mode system|abft" >&2
  exit 2
fi

if [[ ${#fail[@]} -eq 0 ]]; then
  echo "PASSED: fftw_conformance ($mode${inject:+, injected $inject}${policy:+, policy $policy})"
  exit 0
fi
echo "FAILED: fftw_conformance ($mode${inject:+, injected $inject}${policy:+, policy $policy}):"
printf '  %s\n' "${fail[@]}"
exit 1
