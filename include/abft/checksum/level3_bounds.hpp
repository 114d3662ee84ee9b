/** \file level3_bounds.hpp
 *  \brief How far a Level-3 BLAS result may lie from a reference (or from its clean run): the
 *  one rule the shim's tests (tests/blas/blas_level3_test.cpp) and the fault-injection
 *  campaign (src/campaign/kernel_blas3.cpp) judge results by.
 *
 *  Every Level-3 routine is assembled from protected GEMMs (and TRSM's checked diagonal
 *  blocks, docs/ABFT.md §8), so a result element went through one or more column checks.
 *  `scale` bounds the magnitude of every element those checks sum,
 *  |alpha| (|op(A)| |op(B)|)_ij + |beta| |C0_ij| (or what plays that role in TRMM / TRSM);
 *  a check sums at most `rows` of them over products of inner dimension at most `k`.
 */
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>

#include "abft/checksum/bounds.hpp"

namespace abft::checksum {

/** Absolute tolerance of every element of a Level-3 result (R: float or double, the real type
 *  of the data). Clean: 16 (k + 4) eps scale, the rounding of a k-term product with room.
 *  With `faults_below_bound` (faults that may stay under a checksum's bound, hence are not
 *  detected by design: bit flips, random values), what the column checks certify instead:
 *  16 c (rows + 1) scale with c = gemm_conservative_coefficient(rows + 1, k + 1) — the bound
 *  of one check over rows + 1 elements, for each of the checks a result goes through (a few
 *  levels of recursion), no smaller than the engine's for any blocking. */
template <class R>
inline double level3_tolerance(int64_t k, int64_t rows, double scale, bool faults_below_bound) {
  const double eps = static_cast<double>(std::numeric_limits<R>::epsilon());
  double tol = 16.0 * double(k + 4) * eps * scale;
  if (faults_below_bound) {
    const double c = gemm_conservative_coefficient<R>(rows + 1, k + 1, true);
    tol = std::max(tol, 16.0 * c * double(rows + 1) * scale);
  }
  return tol;
}

}  // namespace abft::checksum
