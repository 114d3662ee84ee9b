/** \file gemm_escape.hpp
 *  \brief How far an undetected fault may move a GEMM output: the per-line escape bound that
 *  the fault-matrix tests and the campaigns (`abft campaign`) hold the engine to.
 *
 *  The engine checks, for each column L of its internal row-major view C_int (M_int rows),
 *  sums over row blocks. A bound no smaller than any block's (gemm_conservative_coefficient)
 *  with the magnitude scale taken over all rows is
 *      X_L     = |alpha| max_p(sum_i |A_int(i,p)|) sum_p |B_int(p,L)| + |beta| sum_i |C0_int(i,L)|
 *      bound_L = gemm_conservative_coefficient<T>(M_int, k, beta != 0) X_L + abs term.
 *  A fault that moves an element of line L by more than bound_L plus the clean residual
 *  (itself at most bound_L) fails the check, so an undetected fault moves every element of
 *  line L by at most 2 bound_L: the escape bound (docs/RELIABILITY.md §3, §11).
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "abft/checksum/bounds.hpp"

namespace abft::checksum {

/** bound_L for every line L < lines of the internal view: A_int(i, p) (M_int x k),
 *  B_int(p, L) (k x lines), C0_int(i, L) (read only when beta != 0), as doubles. */
template <class T, class FA, class FB, class FC>
std::vector<double> gemm_line_bounds(int64_t M_int, int64_t k, int64_t lines, double alpha,
                                     double beta, FA A_int, FB B_int, FC C0_int) {
  const bool bnz = beta != 0.0;
  double maxcol = 0.0;
  for (int64_t q = 0; q < k; ++q) {
    double s = 0.0;
    for (int64_t i = 0; i < M_int; ++i) s += std::fabs(A_int(i, q));
    maxcol = s > maxcol ? s : maxcol;
  }
  const double coef = gemm_conservative_coefficient<T>(M_int, k, bnz);
  const GemmShape sh = gemm_conservative_shape(M_int, k, bnz);
  const double aa = std::fabs(alpha), ba = std::fabs(beta);
  const double abs_term = gemm_column_abs_term<T>(sh, aa, ba);
  std::vector<double> b(static_cast<size_t>(lines));
  for (int64_t L = 0; L < lines; ++L) {
    double sb = 0.0, sc = 0.0;
    for (int64_t q = 0; q < k; ++q) sb += std::fabs(B_int(q, L));
    if (bnz)
      for (int64_t i = 0; i < M_int; ++i) sc += std::fabs(C0_int(i, L));
    const double X = aa * maxcol * sb + ba * sc;
    // A few ulps of inflation: X is formed here in another order than the engine's.
    b[static_cast<size_t>(L)] = coef * X * (1.0 + 1e-12) + abs_term;
  }
  return b;
}

}  // namespace abft::checksum
