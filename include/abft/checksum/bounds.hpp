/** \file bounds.hpp
 *  \brief Rounding-error bounds for checksum residuals (GUIDE §3 rule 1), from
 *  the standard model fl(x op y) = (x op y)(1 + d), |d| <= u, and Higham's
 *  gamma_n = n u / (1 - n u) (Accuracy and Stability of Numerical Algorithms,
 *  2nd ed., §3.1, §4.2). Derivations are in docs/ABFT.md; every engine uses
 *  these functions, so the bound a test checks is the bound the kernel uses.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "abft/checksum/host_device.hpp"

namespace abft::checksum {

/** Unit roundoff of T (2^-24 for float, 2^-53 for double). */
template <class T>
ABFT_HD constexpr double unit_roundoff() {
  return static_cast<double>(std::numeric_limits<T>::epsilon()) * 0.5;
}

/** gamma_n for unit roundoff u; +inf when n u >= 1 (the bound is then useless
 *  and callers skip the check rather than risk a false positive). */
ABFT_HD double gamma(double n, double u) {
  const double nu = n * u;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

/** Shape of one protected GEMM block, as the engine computes it.
 *  C_blk (mb x nb) = alpha * A_blk (mb x k) * B (k x nb) + beta * C0_blk,
 *  with k split into chunks of at most kc (k_chunks of them), each chunk
 *  accumulated sequentially by FMA in a register, then added into C.
 *  Column checksums sum `mr`-row tile slices in T, then those partials in
 *  double (ceil(mb/mr) of them). The reference side rounds v = e^T A_chunk to
 *  T and forms v^T B_chunk in T (kc terms), accumulated over chunks in double. */
struct GemmShape {
  int64_t mb = 0, k = 0, kc = 0, mr = 1;
  bool beta_nonzero = false;
};

/** Relative coefficient c of the column-checksum residual bound
 *      |obs_j - ref_j| <= c * X_j + abs_term,
 *      X_j = |alpha| sum_i (|A||B|)_ij + |beta| sum_i |C0_ij|,
 *  for data type T with checksums accumulated in double. */
template <class T>
ABFT_HD double gemm_column_coefficient(const GemmShape& s) {
  const double u = unit_roundoff<T>();
  const double ud = unit_roundoff<double>();
  const double chunks = s.kc > 0 ? std::ceil(double(s.k) / double(s.kc)) : 1.0;
  const double kc = double(s.kc < s.k ? s.kc : s.k);
  // (1) each computed C_ij: kc sequential FMAs, alpha scaling, one add per
  //     chunk into C, beta scaling of C0 on the first chunk.
  const double g_elem = gamma(kc + chunks + 3.0, u);
  // (2) observed sum: mr-row partials in T, then double accumulation.
  const double parts = std::ceil(double(s.mb) / double(s.mr > 0 ? s.mr : 1));
  const double g_obs = gamma(double(s.mr), u) * (1.0 + g_elem) + gamma(parts + 2.0, ud) * 1.01;
  // (3) reference: v rounded to T (v itself summed in double over mb rows),
  //     kc-term product in T, alpha scaling and chunk accumulation in double.
  const double g_ref = (u + gamma(double(s.mb) + 1.0, ud)) * (1.0 + gamma(kc + 1.0, u)) +
                       gamma(kc + 1.0, u) + gamma(chunks + 3.0, ud);
  // (4) beta * C0 column sums: mr partials in T, parts in double.
  const double g_c0 = s.beta_nonzero ? gamma(double(s.mr), u) + gamma(parts + 3.0, ud) : 0.0;
  // X_j itself is formed in double (relative error <= gamma(k+mb+8, ud));
  // inflate so the computed X bounds the exact one.
  const double inflate = 1.0 + 2.0 * gamma(double(s.k + s.mb) + 16.0, ud);
  return (g_elem + g_obs + g_ref + g_c0) * inflate;
}


/** Absolute term for underflow: every rounding may add up to the smallest
 *  normal number of T (covers gradual underflow and flush-to-zero modes). */
template <class T>
ABFT_HD double gemm_column_abs_term(const GemmShape& s, double alpha_abs, double beta_abs) {
  const double tiny = static_cast<double>(std::numeric_limits<T>::min());
  const double ops = double(s.k) + double(s.kc) + double(s.mr) + 16.0;
  return 2.0 * (alpha_abs + beta_abs + 1.0) * double(s.mb + 1) * ops * tiny;
}

/** Coefficient for a check recomputed from the caller's operands in double
 *  (the lazy row checks used for location and the re-verification of a
 *  repaired column): the elements carry g_elem, the sums are formed in
 *  double over `terms` values. */
template <class T>
ABFT_HD double gemm_fresh_coefficient(const GemmShape& s, int64_t terms) {
  const double u = unit_roundoff<T>();
  const double ud = unit_roundoff<double>();
  const double chunks = s.kc > 0 ? std::ceil(double(s.k) / double(s.kc)) : 1.0;
  const double kc = double(s.kc < s.k ? s.kc : s.k);
  const double g_elem = gamma(kc + chunks + 3.0, u);
  const double g_sums = 4.0 * gamma(double(terms + s.k) + 8.0, ud);
  return (g_elem * (1.0 + g_sums) + g_sums) * (1.0 + 2.0 * gamma(double(terms + s.k) + 16.0, ud));
}

/** The small-M GEMM path (few rows of C, B streamed unpacked; docs/ABFT.md §1.1). Every
 *  element is a sum of k products in T formed by FMA chains over `lanes` interleaved lanes
 *  that are then added in T (depth at most k + 2 lanes), scaled by alpha and added to
 *  beta*C0 by one FMA; the reference r_j = sum_p s_p b_pj and the magnitude
 *  Xh_j = sum_p t_p |b_pj| are formed the same way from s = fl(e^T A) and t = fl(e^T |A|);
 *  column sums of C are formed in double over m rows. Returns c such that
 *      |obs_j - (alpha r_j + beta sum_i C0_ij)| <= c |alpha| Xh_j + 3u |beta| sum_i |C0_ij|
 *  up to the underflow term gemm_small_abs_term. */
template <class T>
ABFT_HD double gemm_small_coefficient(int64_t k, int64_t m, int64_t lanes) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double depth = double(k) + 2.0 * double(lanes);
  const double g_elem = gamma(depth + 2.0, u);      // an element, alpha's rounding included
  const double g_ref = gamma(depth + 1.0, u) + u;   // the reference, s's rounding included
  const double lo = 1.0 - gamma(depth + 1.0, u);    // Xh >= lo * sum_p t_p |b_pj|, t's rounding included
  const double g_sum = gamma(double(m) + 4.0, ud);  // the double sums
  return lo > 0.0 ? ((g_elem + g_ref) / lo) * (1.0 + g_sum) + 4.0 * g_sum
                  : std::numeric_limits<double>::infinity();
}

/** What gradual underflow (or flush-to-zero) can lose in one small-M column check: at most
 *  one smallest normal per rounding of every element, the reference and the magnitude. */
template <class T>
ABFT_HD double gemm_small_abs_term(int64_t k, int64_t m, int64_t lanes, double alpha_abs) {
  const double depth = double(k) + 2.0 * double(lanes) + 2.0;
  return 2.0 * (double(m) + 2.0) * depth * static_cast<double>(std::numeric_limits<T>::min()) *
         (alpha_abs > 1.0 ? alpha_abs : 1.0);
}

/** A coefficient no smaller than the engine's for any path and blocking it may choose
 *  (blocked: kc = k, mr = 16, mb = all m_rows rows of the checksum; small-M: up to 16 lanes):
 *  what tests and campaigns use to judge "within the bound" without knowing the kernel. */
/** The shape the conservative bounds assume: one block of all m_rows rows, kc = k, mr = 16. */
ABFT_HD GemmShape gemm_conservative_shape(int64_t m_rows, int64_t k, bool beta_nonzero) {
  GemmShape s;
  s.mb = m_rows;
  s.k = k;
  s.kc = k;
  s.mr = 16;
  s.beta_nonzero = beta_nonzero;
  return s;
}

template <class T>
ABFT_HD double gemm_conservative_coefficient(int64_t m_rows, int64_t k, bool beta_nonzero) {
  const GemmShape s = gemm_conservative_shape(m_rows, k, beta_nonzero);
  const double blocked = gemm_column_coefficient<T>(s);
  const double small = gemm_small_coefficient<T>(k, m_rows, 16);
  return blocked > small ? blocked : small;
}

/** True when the checksum may be trusted: X (the magnitude scale) is finite
 *  and small enough that no element of T can have overflowed legitimately. */
template <class T>
ABFT_HD bool checkable(double X) {
  return X <= static_cast<double>(std::numeric_limits<T>::max()) * 0.25;  // false for NaN/Inf
}

/** Residual test, NaN-safe: a NaN or Inf observed sum always fails. */
ABFT_HD bool residual_ok(double obs, double ref, double bound) {
  return std::fabs(obs - ref) <= bound;
}

}  // namespace abft::checksum
