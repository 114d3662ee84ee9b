#!/usr/bin/env bash
# \brief Run one reference BLAS test program (Debian's libblas-test) against our libblas.so.3
# and judge its output: pass only if every routine it tests passed and nothing failed.
#
# Usage: run_reference_blas_test.sh --lib-dir DIR --program PATH --kind blat1|blat|cblat
#          --work DIR [--input FILE] [--summary NAME] [--inject MODEL:RATE:SEED]
#          [--skip REASON]
#   --lib-dir  the build's lib/ (our libblas.so.3, libcblas.so.3), put first on LD_LIBRARY_PATH
#   --kind     blat1: xblat1? / x?cblat1 (a "----- PASS -----" line per subprogram);
#              blat:  xblat2? / xblat3? (summary in the file named by --summary);
#              cblat: x?cblat2 / x?cblat3 (summary on stdout, both data layouts)
#   --input    the program's stdin ({p}blat2.in, {p}in3, ...); it also names the routines
#              that must appear as passed
#   --inject   run with ABFT_INJECT=MODEL ABFT_INJECT_RATE=RATE ABFT_INJECT_SEED=SEED and
#              also require that the shim corrected or recomputed something: the results
#              the program checks were then the repaired ones
#   --skip     print REASON and exit 77 (ctest SKIP_RETURN_CODE): the programs are absent
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/blas/scripts/blas_test_common.sh
source "$here/blas_test_common.sh"

libdir="" program="" kind="" work="" input="" summary="" inject=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lib-dir) libdir="$2"; shift 2 ;;
    --program) program="$2"; shift 2 ;;
    --kind) kind="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --input) input="$2"; shift 2 ;;
    --summary) summary="$2"; shift 2 ;;
    --inject) inject="$2"; shift 2 ;;
    --skip) echo "SKIPPED: $2"; exit 77 ;;
    *) echo "run_reference_blas_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$libdir" && -n "$program" && -n "$kind" && -n "$work" ]] ||
  { echo "run_reference_blas_test: --lib-dir, --program, --kind and --work are required" >&2; exit 2; }
[[ -x "$program" ]] || { echo "SKIPPED: $program is not there (install libblas-test)"; exit 77; }
[[ -e "$libdir/libblas.so.3" ]] || { echo "FAILED: $libdir/libblas.so.3 not built"; exit 1; }

mkdir -p "$work"
# A previous run's outputs must not be judged as this run's.
rm -f "$work"/*.out "$work"/*.SNAP "$work"/verdicts.txt

if [[ -n "$inject" ]]; then
  IFS=: read -r model rate seed <<<"$inject"
  export ABFT_INJECT="$model" ABFT_INJECT_RATE="$rate" ABFT_INJECT_SEED="$seed"
  echo "injection: ABFT_INJECT=$model ABFT_INJECT_RATE=$rate ABFT_INJECT_SEED=$seed"
else
  unset ABFT_INJECT ABFT_INJECT_RATE ABFT_INJECT_SEED ABFT_INJECT_SITE
fi

start=$(date +%s.%N)
status=0
abft_run_traced "$work" "$libdir" "${input:--}" "$program" || status=$?
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "ran $(basename "$program") in ${elapsed}s, exit status $status (scratch: $work)"

# The program's own verdicts: the Fortran level-2/3 testers write them to the summary
# file named in their input; everything else prints them on stdout. C parts of the CBLAS
# testers (error exits) print on stdout as well.
out="$work/verdicts.txt"
cat "$work/stdout.log" > "$out"
if [[ -n "$summary" ]]; then
  if [[ -f "$work/$summary" ]]; then cat "$work/$summary" >> "$out"
  else echo "(no summary file $summary was written)" >> "$out"; fi
fi

fail=()
# A crash, a Fortran runtime error or a missing symbol ends the run early with a status.
[[ $status -eq 0 ]] || fail+=("exit status $status")

# Failure markers, from the testers' FORMAT statements: "FAIL" (level 1 per-case lines,
# "FAILED ON CALL NUMBER", "FAILED THE TESTS OF ERROR-EXITS"), "*****" (every fatal or
# suspect message is framed by stars), "SUSPECT" (test ratio above threshold), "NOT
# DETECTED" (an illegal argument our xerbla path missed), "XERBLA WAS CALLED" (wrong
# routine name or argument position reported), "ABANDONED", "FATAL", "NOT TESTED",
# "NOT RECOGNIZED", "Shouldn't be here", and any "ERROR" other than the pass line
# "PASSED THE TESTS OF ERROR-EXITS".
markers="$(grep -nE "FAIL|\*\*\*\*\*|SUSPECT|NOT DETECTED|XERBLA WAS CALLED|ABANDONED|FATAL|NOT TESTED|NOT RECOGNIZED|Shouldn't be here|LESS THAN HALF" "$out";
           grep -n "ERROR" "$out" | grep -v "PASSED THE TESTS OF ERROR-EXITS")"
[[ -z "$markers" ]] || fail+=("failure markers in the output")

# Every routine must be seen passing: a program that stops early or skips a routine
# prints no failure marker for it, so absence of failures alone proves nothing.
missing=()
case "$kind" in
  blat1)
    # One header per subprogram, and one PASS line under each that passed.
    headers=$(grep -c "Test of subprogram number" "$out")
    passes=$(grep -c -- "----- PASS -----" "$out")
    echo "subprograms: $headers tested, $passes passed"
    [[ $headers -gt 0 && $headers -eq $passes ]] || fail+=("$((headers - passes)) of $headers subprograms without PASS")
    ;;
  blat|cblat)
    grep -q "END OF TESTS" "$out" || fail+=("no END OF TESTS")
    # Routines to check: the input file's "NAME T PUT F FOR NO TEST" lines.
    mapfile -t routines < <(awk '$2 == "T" && $3 == "PUT" { print $1 }' "$input")
    [[ ${#routines[@]} -gt 0 ]] || fail+=("no routines listed in $input")
    # Computational verdicts per routine: one per data layout tested. The CBLAS testers
    # announce the layouts ("COLUMN-MAJOR AND ROW-MAJOR DATA LAYOUTS ARE TESTED") and word
    # the line "PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS", except the complex level-2
    # one, which says "PASSED THE COMPUTATIONAL TESTS" once per layout.
    layouts=1
    if [[ $kind == cblat ]] && grep -q "COLUMN-MAJOR AND ROW-MAJOR DATA LAYOUTS ARE TESTED" "$out"; then
      layouts=2
    fi
    for r in "${routines[@]}"; do
      # " NAME<padding> PASSED": the padding keeps SSYR from matching SSYR2.
      n=$(grep -c "^ *$r  *PASSED THE .*COMPUTATIONAL TESTS" "$out")
      [[ $n -ge $layouts ]] || missing+=("$r: $n of $layouts computational passes")
    done
    # Error exits: one "PASSED THE TESTS OF ERROR-EXITS" line per routine. Counted in
    # total, not per name, because the complex CBLAS level-2 tester prints cblas_cgeru
    # (cblas_zgeru) for its ?gerc check as well; a failure prints FAILED (a marker above).
    exits=$(grep -c "PASSED THE TESTS OF ERROR-EXITS" "$out")
    [[ $exits -eq ${#routines[@]} ]] || missing+=("error exits: $exits of ${#routines[@]} routines passed")
    echo "routines: ${#routines[@]} listed ($layouts layout(s) each);" \
         "$exits passed the error exits; ${#missing[@]} shortfall(s)"
    [[ ${#missing[@]} -eq 0 ]] || fail+=("${#missing[@]} routines without all their pass lines")
    ;;
  *) echo "run_reference_blas_test: unknown --kind $kind" >&2; exit 2 ;;
esac

# Which BLAS ran: ours, alone, to the end (see blas_test_common.sh).
abft_check_loaded "$work" "$libdir" || fail+=("not our BLAS")

# Under injection the test must also have exercised the repair path.
if [[ -n "$inject" && -s "$work/report.json" ]]; then
  abft_print_report "$work/report.json"
  repaired=$(abft_report_total "$work/report.json" corrected recomputed)
  echo "repairs (corrected + recomputed): $repaired;" \
       "uncorrectable: $(abft_report_total "$work/report.json" uncorrectable)"
  [[ $repaired -gt 0 ]] || fail+=("no correction or recomputation counted under injection")
fi

if [[ ${#fail[@]} -eq 0 ]]; then
  echo "PASSED: $(basename "$program")"
  exit 0
fi
echo "FAILED: $(basename "$program"): ${fail[*]}"
[[ -z "$markers" ]] || { echo "--- failure lines (first 40):"; head -40 <<<"$markers"; }
[[ ${#missing[@]} -eq 0 ]] || { echo "--- missing pass lines (first 40):"; printf '  %s\n' "${missing[@]:0:40}"; }
echo "--- stderr (last 20 lines):"; tail -20 "$work/stderr.log"
echo "--- output (last 30 lines):"; tail -30 "$out"
exit 1
