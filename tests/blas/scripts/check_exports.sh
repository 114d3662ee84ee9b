#!/usr/bin/env bash
# \brief Every symbol of the reference BLAS + CBLAS interface (the list Debian's libblas.so.3
#        3.11 exports, tests/blas/reference_blas_symbols.txt) is defined by our library, and
#        nothing of the C++ internals leaks out (only BLAS/CBLAS names, abft_* and the two
#        reference-CBLAS globals may be exported).
# Usage: check_exports.sh LIBRARY SYMBOL_LIST
set -uo pipefail
lib=$1 list=$2
command -v nm >/dev/null || { echo "SKIP: nm not found"; exit 77; }
defined=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
missing=$(comm -23 <(sort -u "$list") <(echo "$defined"))
extra=$(comm -13 <(sort -u "$list") <(echo "$defined") | grep -vE '^(abft_.*|RowMajorStrg|CBLAS_CallFromC)$')
echo "$(echo "$defined" | wc -l) symbols defined by $(basename "$lib"); reference list: $(sort -u "$list" | wc -l)"
status=0
if [[ -n "$missing" ]]; then echo "MISSING:"; echo "$missing"; status=1; fi
if [[ -n "$extra" ]]; then echo "UNEXPECTED EXPORTS:"; echo "$extra"; status=1; fi
[[ $status -eq 0 ]] && echo "PASSED: complete interface, no internal symbols exported"
exit $status
