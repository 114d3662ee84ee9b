/** \file gemm_library_check.hpp
 *  \brief Checksums of a GEMM whose product a library computes (cuBLAS / cuBLASLt on the GPU
 *  engine): encoding, the precision-aware bound, verification and the row checks that locate
 *  a fault. Host and device (ABFT_HD): the bound, the reference combination and the verdict
 *  are the same functions in the device kernels (cuda/gemm_check.cuh, which form the sums by
 *  parallel reductions in double — any order, as the bound allows) and in the host tests
 *  (docs/ABFT.md §11).
 *
 *  The library's summation order, blocking, FMA use and split-k are unknown, so the bound is
 *  the any-order one. For C = alpha op(A) op(B) + beta C0 (m x n, inner dimension k):
 *    - operands are read as stored, or rounded to `u_in` on the way in (TF32 tensor-core math
 *      on float data: u_in = 2^-11; otherwise 0);
 *    - products and sums accumulate in a format of unit roundoff `u_acc` (float for the
 *      16-bit types and float, double for double), alpha and beta applied there;
 *    - the result is rounded to the output format (`u_out`: 2^-11 binary16, 2^-8 bfloat16).
 *  Hence, for each element, with M_ij = |alpha| (|op(A)| |op(B)|)_ij + |beta| |C0_ij| and y_ij
 *  the accumulated value before the output rounding,
 *      |y_ij - exact_ij| <= g M_ij,   g = (1 + u_in)^2 (1 + gamma_{k+2}(u_acc)) - 1
 *  (Higham, Accuracy and Stability, §3.1: any order of k terms, one alpha product, one
 *  beta product and add), and the output rounding (to nearest) moves it by at most
 *      |C_ij - y_ij| <= u_out b(C_ij),   b(x) = 2^floor(log2 |x|) (binade_floor)
 *  — half a unit in the last place of the STORED value, not u_out M_ij: M_ij exceeds |C_ij| by
 *  the cancellation of the k-term sum (about sqrt(k) times for random signs), and a bound in
 *  M would let a fault of that size through (an exponent flip that zeroes an element of a
 *  bfloat16 product of 96 terms went unnoticed). Every checksum is formed in double on the
 *  device, each row i of a column weighted by r_i = library_row_weight(i), 1 or 2 (2 for one
 *  row in eight):
 *      observed   obs_j = sum_i r_i C_ij,  W_j = sum_i r_i b(C_ij)          (m terms)
 *      reference  ref_j = alpha sum_p v_p op(B)_pj + beta sum_i r_i C0_ij,  v_p = sum_i r_i op(A)_ip
 *      magnitude  X_j   = |alpha| sum_p w_p |op(B)_pj| + |beta| sum_i r_i |C0_ij|,  w_p = sum_i r_i |op(A)_ip|
 *  The weights close a blind spot of plain sums: a fault in op(B)_pj moves column j of C by a
 *  multiple of column p of op(A), and a plain column sum sees it times sum_i op(A)_ip — zero
 *  for data whose columns are centred, as the gradients after a LayerNorm or a softmax are
 *  across their features (an SDC of the cuda-train campaign: a fault in X^T of dW = X^T dY,
 *  row-major, went unseen). A weighted sum sees it times sum_i r_i op(A)_ip, which such
 *  structure leaves nonzero. Weights of 1 and 2 scale exactly (no rounding, b(2x) = 2 b(x)), so
 *  the bound below holds as it is with the weighted magnitudes; a fault at row i counts r_i
 *  times in both the residual and W, so the escape bound is unchanged relative to them.
 *  so |obs_j - ref_j| <= c X_j + d W_j + abs with
 *      c = (g + gamma_{m+k+3}(u_d)) / (1 - gamma_{m+k+2}(u_d))   (library_line_coefficient)
 *      d = (u_out + 2 gamma_m(u_d)) / (1 - gamma_m(u_d))          (library_line_output_coefficient)
 *  (the rounding of obs is at most gamma_m(u_d) sum |C_ij| <= 2 gamma_m(u_d) W_j; the
 *  denominators make the computed X_j, W_j upper bounds of the exact ones). u_out is 0 when
 *  the output format is the accumulation format (its rounding is in g then). A fault at one
 *  element moves W_j by at most the change plus b of the element, so it cannot hide behind the
 *  W_j it inflates (library_line_escape). `abs` covers underflow: every rounding of the k-term
 *  sums, of the output and of the checksums may lose at most one smallest normal of its format
 *  (flush-to-zero included). Row checks (for location) are the same with the roles of m and n
 *  exchanged: lines of length n.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "abft/checksum/bounds.hpp"
#include "abft/checksum/float_bits.hpp"
#include "abft/checksum/num_format.hpp"

namespace abft::checksum {

/** The weight of row i in the column checksums of a library product: 2 for row 0 and for one
 *  row in eight (the top three bits of a 32-bit Fibonacci hash of i zero: one multiply, cheap
 *  beside the loads of the memory-bound check kernels), 1 for the others; the same on the host
 *  and the device. Powers of two: weighting is exact. Few weights of 2 keep the
 *  weighted magnitudes, hence the bound, within about 1/8 of the plain ones (a fault in a row
 *  of weight 1 meets a bound at most that much looser), while a centred line still sums to
 *  the sum of its weighted rows' entries, and a line of two to one of its entries. */
ABFT_HD double library_row_weight(int64_t i) {
  return i == 0 || (uint32_t(uint64_t(i)) * 0x9E3779B9u) >> 29 == 0 ? 2.0 : 1.0;
}

/** The precision a library product runs at. */
struct LibraryGemmPrecision {
  NumFormat input = NumFormat::F32;   ///< the operands' storage format
  NumFormat accum = NumFormat::F32;   ///< the accumulation format (compute type)
  NumFormat output = NumFormat::F32;  ///< C's storage format
  bool tf32 = false;                  ///< float operands rounded to TF32 by the tensor cores
};

/** The usual combinations: float, double, and the 16-bit types with float accumulation. */
ABFT_HD LibraryGemmPrecision library_precision(NumFormat storage, bool tf32 = false) {
  LibraryGemmPrecision p;
  p.input = p.output = storage;
  p.accum = storage == NumFormat::F64 ? NumFormat::F64 : NumFormat::F32;
  p.tf32 = tf32 && storage == NumFormat::F32;
  return p;
}

/** g: relative error of one element against M_ij before the output rounding (see the file
 *  comment). */
ABFT_HD double library_product_coefficient(const LibraryGemmPrecision& p, int64_t k) {
  const double u_in = p.tf32 ? format_unit_roundoff(NumFormat::TF32) : 0.0;
  const double u_acc = format_unit_roundoff(p.accum);
  const double g_acc = gamma(double(k) + 2.0, u_acc);
  return (1.0 + u_in) * (1.0 + u_in) * (1.0 + g_acc) - 1.0;
}

/** u_out: the output rounding's unit roundoff, 0 when C is stored in the accumulation format. */
ABFT_HD double library_output_roundoff(const LibraryGemmPrecision& p) {
  return p.output == p.accum ? 0.0 : format_unit_roundoff(p.output);
}

/** g_elem: relative error of one element against M_ij, output rounding included (the element
 *  bound |C_ij - exact_ij| <= g_elem M_ij; the line checks use the sharper u_out b(C_ij) for
 *  the output rounding instead). */
ABFT_HD double library_element_coefficient(const LibraryGemmPrecision& p, int64_t k) {
  const double u_out = library_output_roundoff(p);
  return u_out + (1.0 + u_out) * library_product_coefficient(p, k);
}

/** 2^floor(log2 |x|): the largest power of two not above |x| (0 for 0, |x| when not finite).
 *  A value rounded to nearest into a format of unit roundoff u, outside its subnormal range,
 *  is within u binade_floor(stored value) of what was rounded. Exact (the exponent bits of the
 *  double), for every value of the formats the checks read (their subnormals are normal
 *  doubles). */
ABFT_HD double binade_floor(double x) {
  return from_bits<double>(to_bits<double>(x) & 0x7FF0000000000000ull);
}

/** c of a line check over `len` elements of inner dimension k (column check: len = m; row
 *  check: len = n): the coefficient of X. Infinite when the shape makes the bound meaningless. */
ABFT_HD double library_line_coefficient(const LibraryGemmPrecision& p, int64_t len, int64_t k) {
  const double ud = unit_roundoff<double>();
  const double g = library_product_coefficient(p, k);
  const double g_ref = gamma(double(len + k) + 3.0, ud);
  const double lo = 1.0 - gamma(double(len + k) + 2.0, ud);
  return lo > 0.0 ? (g + g_ref) / lo * (1.0 + 1e-12) : std::numeric_limits<double>::infinity();
}

/** d of a line check over `len` elements: the coefficient of W = sum_i binade_floor(C_i) (the
 *  output rounding and the rounding of the observed sum). Infinite when meaningless. */
ABFT_HD double library_line_output_coefficient(const LibraryGemmPrecision& p, int64_t len) {
  const double ud = unit_roundoff<double>();
  const double g_len = gamma(double(len), ud);
  const double lo = 1.0 - g_len;
  return lo > 0.0 ? (library_output_roundoff(p) + 2.0 * g_len) / lo * (1.0 + 1e-12)
                  : std::numeric_limits<double>::infinity();
}

/** abs of a line check over `len` elements: one smallest normal of the accumulation format per
 *  rounding of each element's k-term sum (times the scalars), one of the output format per
 *  element, and a double's per checksum term. */
ABFT_HD double library_line_abs_term(const LibraryGemmPrecision& p, int64_t len, int64_t k, double alpha_abs,
                                     double beta_abs) {
  const double acc = format_min_normal(p.accum), out = format_min_normal(p.output);
  const double dmin = static_cast<double>(std::numeric_limits<double>::min());
  return double(len) * ((double(k) + 4.0) * acc * (alpha_abs + beta_abs + 1.0) + out) * 2.0 +
         double(len + k + 4) * dmin;
}

/** Reference and magnitude of one line from the encoded vectors: b(p) is op(B)_pj (column
 *  check) or op(A)_ip (row check); c0_sum / c0_abs the line's sums of C0 and |C0| (ignored
 *  when beta == 0: C0 is never read then). */
template <class F>
ABFT_HD void library_line_reference(int64_t k, const double* v, const double* w, F b, double alpha, double beta,
                                    double c0_sum, double c0_abs, double* ref, double* X) {
  double r = 0.0, x = 0.0;
  for (int64_t p = 0; p < k; ++p) {
    const double bp = double(b(p));
    r += v[p] * bp;
    x += w[p] * std::fabs(bp);
  }
  *ref = alpha * r + (beta != 0.0 ? beta * c0_sum : 0.0);
  *X = std::fabs(alpha) * x + (beta != 0.0 ? std::fabs(beta) * c0_abs : 0.0);
}

/** sum_i x(i) and sum_i g(x(i)) of one line, in double: the one loop behind the two below. */
template <class F, class G>
ABFT_HD void library_line_sum_and(int64_t len, F x, G g, double* sum, double* g_sum) {
  double s = 0.0, t = 0.0;
  for (int64_t i = 0; i < len; ++i) {
    const double v = double(x(i));
    s += v;
    t += g(v);
  }
  *sum = s;
  *g_sum = t;
}
struct LineAbs {
  ABFT_HD double operator()(double v) const { return std::fabs(v); }
};
struct LineBinade {
  ABFT_HD double operator()(double v) const { return binade_floor(v); }
};

/** The sums of one line, sum_i x(i) and sum_i |x(i)|, in double (abs_sum may be null): the
 *  encoding of op(A) (v_p, w_p over a column of op(A); over a row of op(B) for row checks),
 *  the sums of C0, and the observed sum of the stored C. */
template <class F>
ABFT_HD void library_line_sum(int64_t len, F x, double* sum, double* abs_sum) {
  double sa = 0.0;
  library_line_sum_and(len, x, LineAbs{}, sum, &sa);
  if (abs_sum) *abs_sum = sa;
}

/** The observed sums of one line of the stored C, in double: obs = sum_i x(i) and the output
 *  magnitude W = sum_i binade_floor(x(i)) of the check's bound. */
template <class F>
ABFT_HD void library_line_observed(int64_t len, F x, double* obs, double* W) {
  library_line_sum_and(len, x, LineBinade{}, obs, W);
}

/** Outcome of one line check. */
enum class LineVerdict : int {
  Ok = 0,       ///< within the bound
  Failed = 1,   ///< beyond the bound, or a non-finite observed sum (or W) where no element can overflow
  Skipped = 2   ///< not decidable by the sums: a non-finite reference (non-finite input data), or
                ///< a non-finite observed sum where an element may have overflowed legitimately
                ///< (the GPU engine then recomputes the line's non-finite elements to decide)
};

/** The check of one line: obs against ref within coef X + coef_out W + abs, NaN-safe (W: the
 *  line's sum of binade_floor of the stored elements, library_line_observed). A finite observed
 *  sum means no element overflowed, so the rounding bound holds whatever X is (binary16's range
 *  is small: X above its maximum is common and fine); a non-finite one from finite data is a
 *  fault unless X says an element may exceed the output format's range. */
ABFT_HD LineVerdict library_line_verdict(double obs, double W, double ref, double X, double coef, double coef_out,
                                         double abs, NumFormat output) {
  if (!std::isfinite(ref) || !std::isfinite(X)) return LineVerdict::Skipped;
  // A non-finite W with finite data is as telling as a non-finite obs: a clean line's W is at
  // most about 2 sum |C_ij|, finite while X is below the range. Left to the residual test, an
  // infinite W would make the bound infinite and pass anything (a double column blown up to
  // ~1e306 per element by an exponent flip in B kept obs finite and overflowed W: an SDC of the
  // GPU campaign, cuda-gemm f64 trial 75).
  if (!std::isfinite(obs) || !std::isfinite(W))
    return X <= format_max(output) * 0.25 ? LineVerdict::Failed : LineVerdict::Skipped;
  return residual_ok(obs, ref, coef * X + coef_out * W + abs) ? LineVerdict::Ok : LineVerdict::Failed;
}

/** The escape bound of a line (what an undetected fault may move one element of it by), from
 *  the clean line's X and W: a change e passes only if |e| <= (bound before) + (bound after),
 *  and the bound after has W grown by at most |e| + binade_floor(element) <= |e| + W. */
ABFT_HD double library_line_escape(double X, double W, double coef, double coef_out, double abs) {
  return (2.0 * (coef * X + abs) + 3.0 * coef_out * W) / (1.0 - coef_out);
}

}  // namespace abft::checksum
