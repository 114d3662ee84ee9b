#!/usr/bin/env bash
# \brief Run a program linked only against the system libblas on our libblas.so.3
# (LD_LIBRARY_PATH), clean or under injected faults, and judge it.
#
# Usage: run_unmodified_test.sh --lib-dir DIR --work DIR [--inject MODEL:RATE:SEED]
#          -- PROGRAM [ARGS...]
#   The program checks its own results (against naive loops within rounding bounds, and
#   against a clean run's results when given one) and exits 0 when they are right.
#   Pass: exit status 0, our library was the one loaded (blas_test_common.sh), and with
#   --inject: the shim's report counts at least one correction or recomputation and no
#   uncorrectable fault or failed call, i.e. the program saw clean results *because*
#   faults were repaired, not because none landed.
# Exit: 0 pass, 1 fail, 77 skipped (program not built).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/blas/scripts/blas_test_common.sh
source "$here/blas_test_common.sh"

libdir="" work="" inject=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lib-dir) libdir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --inject) inject="$2"; shift 2 ;;
    --skip) echo "SKIPPED: $2"; exit 77 ;;
    --) shift; break ;;
    *) echo "run_unmodified_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$libdir" && -n "$work" && $# -gt 0 ]] ||
  { echo "run_unmodified_test: --lib-dir, --work and a program are required" >&2; exit 2; }
[[ -x "$1" ]] || { echo "SKIPPED: $1 was not built"; exit 77; }
[[ -e "$libdir/libblas.so.3" ]] || { echo "FAILED: $libdir/libblas.so.3 not built"; exit 1; }
mkdir -p "$work"

# The program must really be unmodified: linked against libblas.so.3 by soname, with no
# run path that could point at our build (the swap has to come from LD_LIBRARY_PATH).
# (Output captured first: `cmd | grep -q` under pipefail fails when grep exits early.)
dynamic="$(readelf -d "$1")"
if ! grep -q 'NEEDED.*\[libblas\.so\.3\]' <<<"$dynamic"; then
  echo "FAILED: $1 does not need libblas.so.3"; exit 1
fi
if grep -qE 'R(UN)?PATH' <<<"$dynamic"; then
  echo "FAILED: $1 carries a run path: $(grep -E 'R(UN)?PATH' <<<"$dynamic")"; exit 1
fi

if [[ -n "$inject" ]]; then
  IFS=: read -r model rate seed <<<"$inject"
  export ABFT_INJECT="$model" ABFT_INJECT_RATE="$rate" ABFT_INJECT_SEED="$seed"
  echo "injection: ABFT_INJECT=$model ABFT_INJECT_RATE=$rate ABFT_INJECT_SEED=$seed"
else
  unset ABFT_INJECT ABFT_INJECT_RATE ABFT_INJECT_SEED ABFT_INJECT_SITE
fi

status=0
abft_run_traced "$work" "$libdir" - "$@" || status=$?
cat "$work/stdout.log"
fail=()
[[ $status -eq 0 ]] || fail+=("exit status $status")
abft_check_loaded "$work" "$libdir" || fail+=("not our BLAS")
if [[ -s "$work/report.json" ]]; then
  abft_print_report "$work/report.json"
  if [[ -n "$inject" ]]; then
    repaired=$(abft_report_total "$work/report.json" corrected recomputed)
    bad=$(abft_report_total "$work/report.json" uncorrectable failed)
    echo "repairs (corrected + recomputed): $repaired; uncorrectable + failed: $bad"
    [[ $repaired -gt 0 ]] || fail+=("no correction or recomputation counted under injection")
    [[ $bad -eq 0 ]] || fail+=("$bad uncorrectable faults or failed calls")
  fi
fi
if [[ ${#fail[@]} -eq 0 ]]; then
  echo "PASSED: $(basename "$1")${inject:+ under injection}"
  exit 0
fi
echo "FAILED: $(basename "$1"): ${fail[*]}"
echo "--- stderr (last 20 lines):"; tail -20 "$work/stderr.log"
exit 1
