/** \file fft_bounds.hpp
 *  \brief Checksum weights and round-off bounds for FFT units (docs/ABFT.md §9).
 *
 *  A unit is one 1D transform y = F x of length n with sign s (each signal of
 *  a batch, each line of a multi-dimensional pass, each sub-transform of a
 *  four-step decomposition). Its check compares
 *      out = sum_k w_k y_k     against     in = sum_j v_j x_j ,
 *  where v = F^T w (F is symmetric, so v = F w). For complex units we use the
 *  half-bin exponential  w_k = exp(s i pi k / n),  whose transform has the
 *  closed form  v_j = 1 + s i cot(pi (2j+1) / (2n))  (a geometric sum with
 *  ratio q, q^n = -1). |w_k| = 1 and |v_j| >= 1: every output and every input
 *  element is seen. In a decimation-in-frequency pipeline a value p changed by
 *  d after stage t moves the output checksum by d * (a geometric sum of the
 *  same kind) whose modulus is >= |d|, while it moves no output element by more
 *  than |d|: a fault that escapes the check leaves every output element within
 *  the bound.
 *
 *  Bound (rigorous, norm-based; Higham, Accuracy and Stability, §24.1):
 *      |out - in| <= X * ( ||w||_2 E + c_dot (||w||_2 Y + ||v||_2) + d_w (..) ) + abs,
 *  with X = ||x||_2, E the unit's absolute 2-norm error per unit input norm
 *  (||fl(F x) - F x||_2 <= E X), Y = ||F x||_2 / X and c_dot the error of the
 *  two dot products. Functions below compute each piece; the engine and the
 *  tests use the same code.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "abft/checksum/bounds.hpp"

namespace abft::checksum {

/** Relative 2-norm error added by one stage of a Stockham pipeline: a
 *  radix-r butterfly followed by a twiddle multiply with twiddles accurate to
 *  mu (relative); the product adds mu + sqrt(2) gamma_2 (1 + mu) (Higham
 *  Lemma 3.5).
 *  Butterflies built from radix-2 levels (r = 2, 4, 8) are sums and
 *  differences whose roundings are each <= u |result| componentwise, so a
 *  level is a scaled unitary map with relative 2-norm error <= u and the levels
 *  compose: r = 2: u; r = 4: 2u (the product by +-i is exact); r = 8: 2u for
 *  the two radix-4 halves, <= 3u on the odd half's products by (1 +- i)/sqrt 2
 *  (a sum, the rounded constant, the product), u for the last level: 6u.
 *  Radix 3 and 5 (docs/ABFT.md §9.2): every output is a sum of at most 4
 *  (radix 3) or 6 (radix 5) rounded terms with coefficients of modulus <= 1,
 *  componentwise <= k u sum_t |a_t| <= k u sqrt(r) ||a||_2, i.e. a relative
 *  2-norm error <= k u sqrt(r) (over r outputs and ||b|| = sqrt(r) ||a||):
 *  radix 3: 4 sqrt(3) u, radix 5: 6 sqrt(5) u. Any other odd radix: every
 *  output a sum of r products in at most 2r+4 sequential roundings,
 *  sqrt(2r) gamma_{2r+4} + sqrt(r) u. Each figure carries a 1.25 margin for
 *  second-order terms. */
template <class T>
ABFT_HD double fft_stage_eta(int radix, double mu) {
  const double u = unit_roundoff<T>();
  const double r = double(radix);
  double bfly;
  switch (radix) {
    case 2: bfly = 1.25 * u; break;
    case 4: bfly = 2.5 * u; break;
    case 8: bfly = 7.5 * u; break;
    case 3: bfly = 1.25 * 4.0 * std::sqrt(3.0) * u; break;
    case 5: bfly = 1.25 * 6.0 * std::sqrt(5.0) * u; break;
    default: bfly = std::sqrt(2.0 * r) * gamma(2.0 * r + 4.0, u) + std::sqrt(r) * u; break;
  }
  const double tw = mu + std::sqrt(2.0) * gamma(2.0, u) * (1.0 + mu);
  return (1.0 + bfly) * (1.0 + tw) - 1.0;
}

/** Relative 2-norm error of a pipeline whose stages have errors eta_s:
 *  prod (1 + eta_s) - 1 (each stage is a scaled unitary map, so an error made
 *  at stage s is carried to the output without growth relative to ||y||). */
ABFT_HD double fft_compose(double eps_so_far, double eta) {
  return (1.0 + eps_so_far) * (1.0 + eta) - 1.0;
}

/** Twiddle accuracy assumed for tables computed in long double and rounded
 *  to T (correct rounding of an accurate value: <= u, with margin). */
template <class T>
ABFT_HD double fft_twiddle_mu() {
  return 2.0 * unit_roundoff<T>();
}

/** Error of one weighted dot product of length n as the engine forms it
 *  (stockham.hpp: cdot_sep, csum, rdot and their batched forms): every SIMD
 *  lane sums at most 32 products in T within a block, then the lanes and
 *  blocks are added in double (at most n/32 + 96 sequential additions, the
 *  tail included).
 *  Relative to sum |w_k| |y_k|; complex products carry sqrt(2). */
template <class T>
ABFT_HD double fft_dot_coefficient(int64_t n) {
  const double u = unit_roundoff<T>();
  const double ud = unit_roundoff<double>();
  const double g_block = gamma(34.0, u);
  return std::sqrt(2.0) * (g_block + gamma(double(n) / 32.0 + 96.0, ud) * (1.0 + g_block));
}

/** Pieces of one unit's bound, fixed at plan time. */
struct FftUnitBound {
  double w_norm = 0;  ///< ||w||_2 (output weights)
  double v_norm = 0;  ///< ||v||_2 (input weights)
  double E = 0;       ///< ||fl(y) - y||_2 <= E ||x||_2
  double Y = 0;       ///< ||y||_2 <= Y ||x||_2
  double dot = 0;     ///< fft_dot_coefficient<T>(n)
  double dw = 0;      ///< relative error of the stored weights (w and v)
  double abs = 0;     ///< absolute term for underflow, per unit of "1"
  /** Coefficient c with |out - in| <= c ||x||_2 + abs. The inflation covers
   *  the rounding of ||x||_2 itself (formed in double from |x|^2). */
  ABFT_HD double coefficient() const {
    const double ud = unit_roundoff<double>();
    const double main = w_norm * E + (dot + dw) * (w_norm * (Y + E) + v_norm);
    return main * (1.0 + 64.0 * ud) * 1.0001;
  }
  ABFT_HD double bound(double x_norm) const { return coefficient() * x_norm + abs; }
};

/** Absolute underflow term of a unit of length n with `stages` stages of
 *  radix at most rmax: every rounding may add the smallest normal number;
 *  carried to the checksum through ||w||_2 and the transform's norm. */
template <class T>
ABFT_HD double fft_abs_term(int64_t n, int stages, int rmax) {
  const double tiny = static_cast<double>(std::numeric_limits<T>::min());
  const double nn = double(n);
  return 4.0 * nn * std::sqrt(nn) * double(stages + 2) * double(2 * rmax + 8) * tiny;
}

/** A bound no smaller than the engine's for any c2c unit of length n that
 *  the library plans (any decomposition, Bluestein included): for tests and
 *  campaigns that judge "within the bound" without knowing the plan.
 *  Returns the coefficient c (bound = c ||x||_2 + abs). */
template <class T>
ABFT_HD double fft_conservative_coefficient(int64_t n) {
  // Bluestein on a smooth length m < 4n with at most log2(m)+2 stages of
  // radix <= 16, plus four chirp/pointwise products, then a growth factor of
  // sqrt(m/n) * max|B| <= 4 for the convolution's intermediate norms.
  const double m = 4.0 * double(n);
  const int stages = int(std::ceil(std::log2(m))) + 2;
  double eps = 0;
  for (int s = 0; s < 2 * stages + 4; ++s) eps = fft_compose(eps, fft_stage_eta<T>(16, fft_twiddle_mu<T>()));
  FftUnitBound b;
  b.w_norm = std::sqrt(double(n));
  b.v_norm = double(n);
  b.Y = std::sqrt(double(n));
  b.E = 16.0 * eps * std::sqrt(m);
  b.dot = fft_dot_coefficient<T>(n);
  b.dw = 8.0 * unit_roundoff<double>() + 4.0 * unit_roundoff<T>();
  return b.coefficient();
}

/** The escape bound of one signal of N points (the transform's size, all dimensions) whose
 *  input has 2-norm x_norm: an undetected fault leaves every output element of the signal
 *  within this distance of the clean run (docs/RELIABILITY.md §7.2). No smaller than any
 *  unit's bound whatever the plan's decomposition: the conservative coefficient, a 1e-9
 *  margin for the rounding of x_norm, and the underflow term of a Bluestein line (stages
 *  ceil(log2 4N) + 2 of radix <= 16). For a C2R signal pass the norm of the Hermitian
 *  signal its half spectrum stands for: at most sqrt(2) times the half spectrum's norm.
 *  The fault-matrix test (tests/fft) and the campaign's fft adapter judge escapes by it. */
template <class T>
ABFT_HD double fft_escape_bound(int64_t N, double x_norm) {
  const double n = double(N > 1 ? N : 1);
  const int stages = int(std::ceil(std::log2(4.0 * n))) + 2;
  return fft_conservative_coefficient<T>(N) * x_norm * (1.0 + 1e-9) + fft_abs_term<T>(N, stages, 16);
}

}  // namespace abft::checksum
