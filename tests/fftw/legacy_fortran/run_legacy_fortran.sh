#!/usr/bin/env bash
# \brief Run the legacy Fortran FFTW client (legacy_fortran.f90, linked against the system
# FFTW) on the system libraries or on abft's drop-ins, and judge it.
#
# Usage: run_legacy_fortran.sh --mode system|abft --lib-dir DIR --work DIR -- PROGRAM
#        run_legacy_fortran.sh --skip WHY
#   system  the program as built (no LD_LIBRARY_PATH): every check passes and the loader
#           trace shows FFTW's libfftw3{,f}{,_threads}.so.3 from outside DIR.
#   abft    LD_LIBRARY_PATH=DIR, ABFT_REPORT=WORK/report.json: every check passes, the
#           loader trace shows DIR/libfftw3{,f}{,_threads}.so.3 and no other FFTW library,
#           the report comes from "abft-fftw3" with double and float transforms executed,
#           and (when nm is there) DIR's libfftw3.so.3 / libfftw3f.so.3 define every
#           dfftw_* / sfftw_* symbol the system's libfftw3{,f}{,_threads}.so.3 define.
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/fftw/scripts/fftw_test_common.sh
source "$here/../scripts/fftw_test_common.sh"

mode="" libdir="" work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mode) mode="$2"; shift 2 ;;
    --lib-dir) libdir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --skip) echo "SKIPPED: $2"; exit 77 ;;
    --) shift; break ;;
    *) echo "run_legacy_fortran: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$mode" && -n "$libdir" && -n "$work" && $# -eq 1 ]] ||
  { echo "run_legacy_fortran: --mode, --lib-dir, --work and one program are required" >&2; exit 2; }
prog="$1"
[[ -x "$prog" ]] || { echo "SKIPPED: $prog was not built (gfortran and the system FFTW are needed)"; exit 77; }
libdir="$(cd "$libdir" 2>/dev/null && pwd -P)" || { echo "FAIL: library folder missing"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
fail=()

# The program's own libraries, as the loader finds them without LD_LIBRARY_PATH.
sys_libs=()
while read -r path; do
  sys_libs+=("$path")
done < <(env -u LD_LIBRARY_PATH ldd "$prog" 2>/dev/null |
         awk '$1 ~ /^libfftw3f?(_threads)?\.so\.3$/ && $3 ~ /^\// {print $3}')

libs=(libfftw3.so.3 libfftw3f.so.3 libfftw3_threads.so.3 libfftw3f_threads.so.3)
export FFTW_BUILD_LIBDIR="$libdir"   # the system run must not see abft's folder
status=0
if [[ "$mode" == system ]]; then
  fftw_run_traced "$work" "" - "$prog" || status=$?
elif [[ "$mode" == abft ]]; then
  for so in "${libs[@]}"; do
    [[ -e "$libdir/$so" ]] || fail+=("$libdir/$so is missing (build abft's FFTW targets)")
  done
  if [[ ${#fail[@]} -gt 0 ]]; then printf 'FAIL: %s\n' "${fail[@]}"; exit 1; fi
  fftw_run_traced "$work" "$libdir" - "$prog" || status=$?
else
  echo "run_legacy_fortran: --mode must be system or abft" >&2
  exit 2
fi
cat "$work/stdout.log"
if [[ -s "$work/stderr.log" ]]; then
  echo "--- stderr (last 10 lines):"
  tail -10 "$work/stderr.log"
fi
[[ $status -eq 0 ]] || fail+=("exit status $status ($(grep -c '^FAIL' "$work/stdout.log") failed checks)")
grep -q '^legacy_fortran: [0-9]* passed, 0 failed$' "$work/stdout.log" ||
  fail+=("the program did not finish with '0 failed'")

# What the loader initialised: the expected four, from the right folder, nothing else.
if [[ "$mode" == abft ]]; then
  fftw_check_loaded "$work" "$libdir" "${libs[@]}" || fail+=("the loader trace does not show abft's libraries alone")
else
  fftw_check_loaded "$work" "" "${libs[@]}" || fail+=("the loader trace does not show the system FFTW alone")
fi

if [[ "$mode" == abft ]]; then
  if [[ -s "$work/report.json" ]] && grep -q '"library":"abft-fftw3"' "$work/report.json"; then
    grep -qE '"fftw_c2c":\{"calls":[1-9]' "$work/report.json" || fail+=("the report shows no double transforms")
    grep -qE '"fftwf_c2c":\{"calls":[1-9]' "$work/report.json" || fail+=("the report shows no float transforms")
  else
    fail+=("no abft-fftw3 report in $work/report.json: abft's library did not run")
  fi
  # The legacy symbols: all of the system's, in both manglings.
  if command -v nm >/dev/null && [[ ${#sys_libs[@]} -gt 0 ]]; then
    nm -D --defined-only "${sys_libs[@]}" 2>/dev/null | awk '$3 ~ /^[ds]fftw_/ {print $3}' | sort -u >"$work/system_symbols.txt"
    nm -D --defined-only "$libdir/libfftw3.so.3" "$libdir/libfftw3f.so.3" 2>/dev/null |
      awk '$3 ~ /^[ds]fftw_/ {print $3}' | sort -u >"$work/abft_symbols.txt"
    missing="$(comm -23 "$work/system_symbols.txt" "$work/abft_symbols.txt")"
    echo "--- legacy Fortran symbols: system $(wc -l <"$work/system_symbols.txt"), abft $(wc -l <"$work/abft_symbols.txt")"
    [[ -z "$missing" ]] || fail+=("symbols the system FFTW exports and abft's does not: $(tr '\n' ' ' <<<"$missing")")
  else
    echo "--- (nm or the system FFTW paths unavailable: symbol comparison not done)"
  fi
fi

if [[ ${#fail[@]} -gt 0 ]]; then
  printf 'FAIL: %s\n' "${fail[@]}"
  exit 1
fi
echo "OK: legacy Fortran client passed on the $mode FFTW"
exit 0
