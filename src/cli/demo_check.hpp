/** \file demo_check.hpp
 *  \brief How `abft demo` judges a protected result against the clean run: a fixed
 *  tolerance, or failing that the checksum bound (a fault too small to detect).
 *
 *  A fault whose effect lies below the checksum's rounding-error bound cannot be
 *  told apart from round-off, so it goes undetected by design; GUIDE §4 calls that
 *  outcome "masked" and requires only that such an escape leave C within the
 *  bound. In float the bound on a 700-term product is well above 1e-4·max|C|, so a
 *  random-value accumulator fault that lands close to the true value can escape
 *  while changing C by more than the fixed tolerance. The demo therefore accepts
 *  an element when it is within the tolerance (OK) or within twice the
 *  conservative checksum bound of its row and of its column (MASKED), and flags
 *  anything larger (MISMATCH): that would be a fault above the bound that got
 *  through, or a repair that lost precision.
 */
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "abft/abft.h"
#include "abft/checksum/bounds.hpp"

namespace abft::cli {

/** Read-only logical view of a caller matrix: element (i, j) of op(M). */
template <class T>
struct LogicalView {
  const T* data;
  int64_t ld;
  bool row_major, trans;
  T operator()(int64_t i, int64_t j) const {
    const int64_t r = trans ? j : i, c = trans ? i : j;
    return data[row_major ? r * ld + c : c * ld + r];
  }
};

enum class Verdict { Ok, Masked, Mismatch };

struct Comparison {
  double max_rel = 0.0;  ///< max |C - C_clean| / max |C_clean| (inf for an unrepaired NaN/Inf)
  Verdict verdict = Verdict::Ok;
};

/** Compare C (protected run) with Cref (clean run) for C = alpha op(A) op(B) + beta C0.
 *  rel_tol is relative to max|Cref|. The bound per element is the larger of the
 *  row and the column checksum bounds (the engine may verify either orientation,
 *  depending on layout), each from checksum::gemm_conservative_coefficient, which
 *  is no smaller than the coefficient of any blocking the engine may choose,
 *  times X = |alpha| (|op(A)||op(B)| summed along the checksum) + |beta| sum |C0|. */
template <class T>
Comparison compare_with_clean(int64_t m, int64_t n, int64_t k, double alpha, double beta,
                              LogicalView<T> A, LogicalView<T> B, LogicalView<T> C0,
                              LogicalView<T> C, LogicalView<T> Cref, double rel_tol) {
  Comparison out;
  double max_ref = 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) max_ref = std::max(max_ref, std::fabs(double(Cref(i, j))));
  const double tol = rel_tol * max_ref;

  // |op(A)| summed over rows (per p) and |op(B)| summed over columns (per p):
  // X for a column j is sum_p asum[p] |b_pj|, for a row i sum_p |a_ip| bsum[p].
  std::vector<double> asum(size_t(k), 0.0), bsum(size_t(k), 0.0);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t i = 0; i < m; ++i) asum[size_t(p)] += std::fabs(double(A(i, p)));
    for (int64_t j = 0; j < n; ++j) bsum[size_t(p)] += std::fabs(double(B(p, j)));
  }
  const bool beta_nz = beta != 0.0;
  const double aa = std::fabs(alpha), ba = std::fabs(beta);
  auto abs_term = [&](int64_t rows) {
    checksum::GemmShape s;
    s.mb = rows;
    s.k = s.kc = k;
    s.mr = 16;
    s.beta_nonzero = beta_nz;
    return checksum::gemm_column_abs_term<T>(s, aa, ba);
  };
  const double coef_col = checksum::gemm_conservative_coefficient<T>(m, k, beta_nz);
  const double coef_row = checksum::gemm_conservative_coefficient<T>(n, k, beta_nz);
  std::vector<double> col_bound(static_cast<size_t>(n)), row_bound(static_cast<size_t>(m));
  for (int64_t j = 0; j < n; ++j) {
    double x = 0.0;
    for (int64_t p = 0; p < k; ++p) x += asum[size_t(p)] * std::fabs(double(B(p, j)));
    double c0 = 0.0;
    if (beta_nz)
      for (int64_t i = 0; i < m; ++i) c0 += std::fabs(double(C0(i, j)));
    col_bound[size_t(j)] = coef_col * (aa * x + ba * c0) + abs_term(m);
  }
  for (int64_t i = 0; i < m; ++i) {
    double x = 0.0;
    for (int64_t p = 0; p < k; ++p) x += std::fabs(double(A(i, p))) * bsum[size_t(p)];
    double c0 = 0.0;
    if (beta_nz)
      for (int64_t j = 0; j < n; ++j) c0 += std::fabs(double(C0(i, j)));
    row_bound[size_t(i)] = coef_row * (aa * x + ba * c0) + abs_term(n);
  }

  double max_diff = 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double r = Cref(i, j), g = C(i, j);
      if (!std::isfinite(r)) continue;  // cannot happen with the demo's data; be safe
      const double d = std::isfinite(g) ? std::fabs(g - r) : INFINITY;
      max_diff = std::max(max_diff, d);
      if (d <= tol) continue;
      // An escape changes the checksum by d plus round-off no larger than the bound.
      const double bound = 2.0 * std::max(col_bound[size_t(j)], row_bound[size_t(i)]);
      out.verdict = d <= bound && out.verdict != Verdict::Mismatch ? Verdict::Masked
                                                                   : Verdict::Mismatch;
    }
  out.max_rel = max_ref > 0.0 ? max_diff / max_ref : max_diff;
  return out;
}

}  // namespace abft::cli
