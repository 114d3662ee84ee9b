#!/usr/bin/env bash
# \brief Run an unmodified Debian FFTW client on the system FFTW or on abft's drop-in
# libraries (LD_LIBRARY_PATH), optionally under injected faults, and judge its output.
#
# Usage: run_fftw_client.sh --tool minimodem|fftw-wisdom --mode system|abft --lib-dir DIR
#          --work DIR [--inject MODEL:RATE:SEED]
#   minimodem    (package minimodem; links libfftw3f.so.3, plans with
#                fftwf_plan_many_dft_r2c): a text is modulated into a WAV file by the
#                tool run plainly (Bell 202, 1200 bps), then demodulated
#                (`minimodem --rx -q -f tx.wav 1200`) on the library under test: the
#                decoded text must equal the sent text byte for byte.
#   fftw-wisdom  (package libfftw3-bin; links libfftw3.so.3): `fftw-wisdom -n -o w.txt
#                cof1024 rif4096` must exit 0 and write wisdom, which
#                `fftw-wisdom -n -w w.txt -o w2.txt cof1024` must read back (exit 0).
#   abft mode: the loader trace must show DIR/<the client's FFTW library> and no other
#   FFTW; the shim's report must count transforms (minimodem) — under --inject also
#   faults detected and repaired, and none uncorrectable or failed.
# Exit: 0 pass, 1 fail, 77 skipped (tool not installed).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/fftw/scripts/fftw_test_common.sh
source "$here/fftw_test_common.sh"

tool="" mode="" libdir="" work="" inject=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tool) tool="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    --lib-dir) libdir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --inject) inject="$2"; shift 2 ;;
    --skip) echo "SKIPPED: $2"; exit 77 ;;
    *) echo "run_fftw_client: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$tool" && -n "$mode" && -n "$work" ]] ||
  { echo "run_fftw_client: --tool, --mode and --work are required" >&2; exit 2; }
exe="$(command -v "$tool" || true)"
[[ -n "$exe" ]] || { echo "SKIPPED: $tool is not installed (package ${tool/fftw-wisdom/libfftw3-bin})"; exit 77; }
export FFTW_BUILD_LIBDIR="$libdir"
rm -rf "$work"
mkdir -p "$work"
unset ABFT_INJECT ABFT_INJECT_RATE ABFT_INJECT_SEED ABFT_INJECT_SITE ABFT_POLICY ABFT_REPORT
case "$tool" in
  minimodem) sonames=(libfftw3f.so.3); rows='fftwf_(c2c|r2c|c2r)' ;;
  fftw-wisdom) sonames=(libfftw3.so.3); rows='fftw_(c2c|r2c|c2r)' ;;
  *) echo "run_fftw_client: unknown tool $tool" >&2; exit 2 ;;
esac
if [[ "$mode" == abft ]]; then
  for so in "${sonames[@]}"; do
    [[ -e "$libdir/$so" ]] || { echo "FAILED: $libdir/$so was not built"; exit 1; }
  done
  if [[ -n "$inject" ]]; then
    IFS=: read -r model rate seed <<<"$inject"
    export ABFT_INJECT="$model" ABFT_INJECT_RATE="$rate" ABFT_INJECT_SEED="$seed"
    echo "injection: ABFT_INJECT=$model ABFT_INJECT_RATE=$rate ABFT_INJECT_SEED=$seed"
  fi
  under="$libdir"
else
  under=""
fi
fail=()

# traced STEP STDIN CMD...: one traced run in $work/STEP on the library under test.
traced() {
  local step="$1" input="$2"
  shift 2
  mkdir -p "$work/$step"
  local status=0
  fftw_run_traced "$work/$step" "$under" "$input" "$@" || status=$?
  echo "\$ $* -> exit $status"
  if [[ -s "$work/$step/stderr.log" ]]; then
    echo "--- stderr (last 10 lines):"
    tail -10 "$work/$step/stderr.log"
  fi
  fftw_check_loaded "$work/$step" "$under" "${sonames[@]}" || fail+=("$step: not the expected FFTW")
  if [[ "$mode" == abft && -s "$work/$step/report.json" ]]; then
    fftw_print_report "$work/$step/report.json"
  fi
  return $status
}

if [[ "$tool" == minimodem ]]; then
  text='the quick brown fox 0123456789 JUMPS over the lazy dog!'
  printf '%s\n' "$text" >"$work/sent.txt"
  # The transmitter runs plainly (system FFTW, no abft variable).
  ( cd "$work" && env -u LD_LIBRARY_PATH minimodem --tx -f "$work/tx.wav" 1200 <"$work/sent.txt" ) ||
    { echo "FAILED: minimodem --tx could not write $work/tx.wav"; exit 1; }
  traced rx - minimodem --rx -q -f "$work/tx.wav" 1200 || fail+=("minimodem --rx failed")
  echo "sent:    $(cat "$work/sent.txt")"
  echo "decoded: $(cat "$work/rx/stdout.log")"
  cmp -s "$work/sent.txt" "$work/rx/stdout.log" || fail+=("the decoded text differs from the sent text")
  report="$work/rx/report.json"
else
  traced wisdom - fftw-wisdom -n -o "$work/w.txt" cof1024 rif4096 || fail+=("fftw-wisdom (create) failed")
  if [[ -s "$work/w.txt" ]]; then
    echo "wisdom written ($(wc -c <"$work/w.txt") bytes): $(head -1 "$work/w.txt")"
  else
    fail+=("fftw-wisdom wrote no wisdom to $work/w.txt")
  fi
  traced reread - fftw-wisdom -n -w "$work/w.txt" -o "$work/w2.txt" cof1024 ||
    fail+=("fftw-wisdom could not read back its own wisdom")
  [[ -s "$work/w2.txt" ]] || fail+=("fftw-wisdom -w wrote no wisdom to $work/w2.txt")
  report="$work/wisdom/report.json"
fi

if [[ "$mode" == abft ]]; then
  if [[ ! -s "$report" ]]; then
    fail+=("no report written to $report (our library did not run to exit)")
  elif [[ "$tool" == minimodem ]]; then
    calls=$(fftw_report_sum "$report" "$rows" calls)
    echo "transforms executed: $calls"
    [[ $calls -gt 0 ]] || fail+=("the report counts no transform")
    if [[ -n "$inject" ]]; then
      det=$(fftw_report_sum "$report" "$rows" detected)
      rep=$(fftw_report_sum "$report" "$rows" corrected recomputed)
      bad=$(fftw_report_sum "$report" "$rows" uncorrectable failed)
      echo "detected $det, repairs (corrected + recomputed) $rep, uncorrectable + failed $bad"
      [[ $det -gt 0 && $rep -gt 0 ]] || fail+=("no fault detected and repaired under injection")
      [[ $bad -eq 0 ]] || fail+=("$bad uncorrectable faults or failed calls")
    fi
  fi
fi

what="$tool ($mode${inject:+, injected $inject})"
if [[ ${#fail[@]} -eq 0 ]]; then
  echo "PASSED: $what"
  exit 0
fi
echo "FAILED: $what:"
printf '  %s\n' "${fail[@]}"
exit 1
