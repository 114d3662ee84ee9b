/** \file fft_folded_check_test.cpp
 *  \brief The check sums a Stockham kernel folds into its first and last stages
 *  (Kernel1d::run_folded; stockham.hpp InAcc / OutAcc) against the definitions, for every
 *  kernel table this CPU runs (portable, AVX2, AVX-512), float and double, each radix the
 *  fold handles: sum x_j, sum c_j x_j and the sample sum_{j<m} |x_j|^2 of the input (m the
 *  first stage's butterflies), and sum w_k y_k of the
 *  output with w_k = exp(sign i pi k / n), all formed here in long double. The folded run
 *  must also leave the transform bit for bit what the plain run gives, and for powers of
 *  two the vector kernels must fold both sides (else the engine silently takes the
 *  separate passes and this test would check nothing).
 *
 *  Even R2C lines fold both sides too (LinePlan::compute_r2c_checked): the input side into
 *  the half-length kernel's first stage, from the packed z_j = x_2j + i x_2j+1, and the
 *  output side into the split step. Their sums must match the separate passes (check_in,
 *  check_out, the definitions of docs/ABFT.md §9.1) within the rounding the bound allows,
 *  out of place and in place, and the output must be bit for bit the unchecked transform's.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "abft/abft.h"
#include "cpu/fft/fft_kernel1d.hpp"
#include "cpu/fft/fft_line.hpp"
#include "cpu/fft/fft_math.hpp"

namespace {

using namespace abft::cpu::fft;
using cld = std::complex<long double>;

template <class T>
void check_folded(abft_isa isa, int64_t n, int sign) {
  const FftKernels<T>& K = fft_kernels<T>(isa);
  auto ker = make_kernel<T>(n, sign, K, 1);
  const int64_t B = kWeightBlock;
  // The line's weights, as fft_line.cpp builds them: v_j = 1 + i c_j (c_j = sign cot phi_j)
  // as (c, c) pairs; w_{bB+j} = R_b r_j with r as (re, re) then (im, im) pairs.
  std::vector<T> cdup(size_t(2 * n)), r(size_t(4 * B));
  std::vector<double> R(size_t(2 * ((n + B - 1) / B)));
  for (int64_t j = 0; j < n; ++j) {
    const cld c = root_ld(2 * j + 1, 4 * n, +1);
    cdup[size_t(2 * j)] = cdup[size_t(2 * j + 1)] = T((long double)sign * c.real() / c.imag());
  }
  for (int64_t j = 0; j < B; ++j) {
    const cld z = root_ld(j, 2 * n, sign);
    r[size_t(2 * j)] = r[size_t(2 * j + 1)] = T(z.real());
    r[size_t(2 * B + 2 * j)] = r[size_t(2 * B + 2 * j + 1)] = T(z.imag());
  }
  for (size_t b = 0; 2 * b < R.size(); ++b) {
    const cld z = root_ld(int64_t(b) * B, 2 * n, sign);
    R[2 * b] = double(z.real());
    R[2 * b + 1] = double(z.imag());
  }
  std::mt19937_64 g(uint64_t(n) * 31 + sizeof(T) + uint64_t(isa));
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> x(size_t(2 * n)), y(size_t(2 * n)), y0(size_t(2 * n)), work(size_t(ker->work_scalars()));
  for (auto& v : x) v = T(d(g));

  ker->run(x.data(), y0.data(), work.data(), nullptr);
  // The folded input side reads c_j once per element, in the kernel's order (FoldOrder).
  FoldOrder o;
  const bool ordered = ker->fold_in_order(&o);
  std::vector<T> cfold(static_cast<size_t>(n));
  if (ordered)
    for (int64_t j = 0; j < n; ++j) cfold[size_t(o.pos(j))] = cdup[size_t(2 * j)];
  FoldedCheck<T> fc;
  fc.cw = ordered ? cfold.data() : nullptr;
  fc.rr = r.data();
  fc.ri = r.data() + 2 * B;
  fc.R = R.data();
  ker->run_folded(x.data(), y.data(), work.data(), fc);
  for (int64_t i = 0; i < 2 * n; ++i) ASSERT_EQ(y[size_t(i)], y0[size_t(i)]) << "scalar " << i;

  EXPECT_EQ(fc.in_done, ordered) << "fold_in_order and run_folded disagree";
  const bool pow2 = (n & (n - 1)) == 0;
  if (isa != ABFT_ISA_REFERENCE && pow2 && n >= 64) {
    EXPECT_TRUE(fc.in_done) << "input side not folded";
    EXPECT_TRUE(fc.out_done) << "output side not folded";
  }
  // The definitions in long double; tolerances: a few units of T's roundoff per term.
  // The folded sum of squares takes the first stage's first inputs only, j < m (FoldOrder):
  // a lower bound of ||x||^2 that the judge takes as such.
  cld s = 0, cs = 0, out = 0;
  long double x2 = 0, xa = 0, ya = 0;
  for (int64_t j = 0; j < n; ++j) {
    const cld xj(x[size_t(2 * j)], x[size_t(2 * j + 1)]);
    const long double c = cdup[size_t(2 * j)];
    s += xj;
    cs += c * xj;
    if (ordered && j < o.m) x2 += std::norm(xj);
    xa += (1 + std::fabs(c)) * std::abs(xj);
    const cld yk(y[size_t(2 * j)], y[size_t(2 * j + 1)]);
    out += root_ld(j, 2 * n, sign) * yk;
    ya += std::abs(yk);
  }
  const double u = sizeof(T) == 4 ? 6e-8 : 1.2e-16;
  const double tol_in = 64 * u * double(xa), tol_out = 64 * u * double(ya);
  if (fc.in_done) {
    EXPECT_LE(std::abs(fc.sum - std::complex<double>(double(s.real()), double(s.imag()))), tol_in);
    EXPECT_LE(std::abs(fc.csum - std::complex<double>(double(cs.real()), double(cs.imag()))), tol_in);
    EXPECT_LE(std::fabs(fc.x2 - double(x2)), 64 * u * double(x2));
  }
  if (fc.out_done) {
    EXPECT_LE(std::abs(fc.out - std::complex<double>(double(out.real()), double(out.imag()))), tol_out)
        << "folded " << fc.out << " definition " << double(out.real()) << " " << double(out.imag());
  }
}

/** An even R2C line's folded check against its separate passes. */
template <class T>
void check_r2c_folded(abft_isa isa, int64_t n, bool in_place) {
  const FftKernels<T>& K = fft_kernels<T>(isa);
  LinePlan<T> line(ABFT_FFT_R2C, n, -1, K, 1);
  ASSERT_TRUE(line.r2c_foldable());
  std::mt19937_64 g(uint64_t(n) * 17 + sizeof(T) + uint64_t(isa));
  std::uniform_real_distribution<double> d(-1, 1);
  const int64_t h1 = n / 2 + 1;
  std::vector<T> x(size_t(2 * h1)), y0(size_t(2 * h1)), y(size_t(2 * h1)), work(size_t(line.work_scalars()));
  for (int64_t j = 0; j < n; ++j) x[size_t(j)] = T(d(g));
  // the unchecked transform with the same placement (the two split loops round differently)
  if (in_place) {
    y0 = x;
    line.compute(y0.data(), y0.data(), work.data(), nullptr);
  } else {
    line.compute(x.data(), y0.data(), work.data(), nullptr);
  }
  abft_report rep{};
  abft_status st = ABFT_STATUS_SUCCESS;
  std::mutex mu;
  std::complex<double> cin, cout;
  double x2 = 0;
  bool folded = false;
  T* out = y.data();
  if (in_place) std::copy(x.begin(), x.end(), y.begin());
  line.compute_r2c_checked(in_place ? y.data() : x.data(), out, work.data(), ABFT_POLICY_CORRECT, rep, st, mu, &cin,
                           &x2, &cout, &folded);
  for (int64_t i = 0; i < 2 * h1; ++i) ASSERT_EQ(y[size_t(i)], y0[size_t(i)]) << "scalar " << i;
  if (isa != ABFT_ISA_REFERENCE && (n & (n - 1)) == 0 && n >= 128 && n <= 4096) {
    EXPECT_TRUE(folded) << "input side not folded";
  }
  double x2s = 0;
  const std::complex<double> cin_s = line.check_in(x.data(), &x2s), cout_s = line.check_out(y.data());
  // Both sides differ from the separate passes by rounding only: far below the bound, which
  // covers both ways of forming them; a wrong weight or a missed bin moves them by O(|x|).
  const double bnd = line.bound(std::sqrt(x2s));
  EXPECT_LE(std::abs(cin - cin_s), 0.25 * bnd) << "folded " << cin << " separate " << cin_s;
  EXPECT_LE(std::abs(cout - cout_s), 0.25 * bnd) << "folded " << cout << " separate " << cout_s;
  if (folded) {
    // a sample of the squares (the half-length kernel's first inputs): a lower bound of the
    // exact sum, about 1/r of it on random data
    EXPECT_LE(x2, x2s * (1 + 1e-5));
    EXPECT_GE(x2, 0.02 * x2s);
  } else {
    EXPECT_LE(std::fabs(x2 - x2s), 1e-5 * x2s);
  }
  EXPECT_LE(std::abs(cout - cin), bnd);
}

// judge_sampled with any x2 <= ||x||^2 gives judge's verdict on the exact norm, falls back
// to it (x2 becomes exact) exactly when the sampled bound does not settle the check, and
// counts the check once.
TEST(FftJudgeSampled, SameVerdictAsTheExactNorm) {
  LinePlan<float> line(ABFT_FFT_C2C, 1024, -1, fft_kernels<float>(abft_cpu_isa()), 1);
  const double x2 = 4096.0, b = line.bound(std::sqrt(x2));
  for (double r : {0.0, 0.3, 0.99, 1.01, 3.0, 1e30}) {
    for (double f : {1.0, 0.5, 0.01, 0.0}) {
      SCOPED_TRACE(testing::Message() << "residual " << r << " x bound, sample " << f << " of x2");
      const std::complex<double> in(1.0, -2.0), out = in + std::complex<double>(0.6, 0.8) * (r * b);
      abft_report e{}, s{};
      const bool want = line.judge(in, x2, out, e);
      double xs = f * x2;
      int calls = 0;
      const bool got = line.judge_sampled(in, xs, out, s, [&] {
        ++calls;
        return x2;
      });
      EXPECT_EQ(got, want);
      EXPECT_EQ(s.checks, 1u);
      EXPECT_EQ(s.detected, e.detected);
      const bool settled = r * b <= line.bound(std::sqrt(f * x2));
      EXPECT_EQ(calls, settled ? 0 : 1);
      EXPECT_EQ(xs, settled ? f * x2 : x2);
    }
  }
  // non-finite sums: the exact path (judge counts the skip)
  abft_report s{};
  double xs = 1.0;
  EXPECT_FALSE(line.judge_sampled({NAN, 0.0}, xs, {0.0, 0.0}, s, [] { return double(INFINITY); }));
  EXPECT_EQ(s.skipped, 1u);
  EXPECT_EQ(s.checks, 0u);
}

class FftR2CFoldedCheck : public ::testing::TestWithParam<int64_t> {};

TEST_P(FftR2CFoldedCheck, MatchesTheSeparatePassesOnEveryIsa) {
  const int64_t n = GetParam();
  for (abft_isa isa : {ABFT_ISA_REFERENCE, ABFT_ISA_AVX2, ABFT_ISA_AVX512}) {
    if (int(isa) > int(abft_cpu_isa())) continue;
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(testing::Message() << "isa " << int(isa) << " in place " << in_place);
      check_r2c_folded<float>(isa, n, in_place);
      check_r2c_folded<double>(isa, n, in_place);
    }
  }
}

// The split step's last vector step may overlap its two blocks: a bin in both is computed
// from either side, and the two agree bit for bit only if the twist table has
// w_{h-k} = -conj(w_k) exactly (stockham.hpp, split_pairs_run).
TEST(FftR2CFoldedCheck, TwistTableIsExactlySymmetric) {
  for (int64_t n : {8, 14, 1000, 1024, 4096, 2 * 1009, 65536, 1 << 20}) {
    const int64_t h = n / 2;
    for (int s : {-1, +1})
      for (int64_t k = 1; k < h; ++k) {
        const auto a = root<float>(k, n, s), b = root<float>(h - k, n, s);
        const auto c = root<double>(k, n, s), d = root<double>(h - k, n, s);
        ASSERT_EQ(b.real(), -a.real()) << n << " " << k;
        ASSERT_EQ(b.imag(), a.imag()) << n << " " << k;
        ASSERT_EQ(d.real(), -c.real()) << n << " " << k;
        ASSERT_EQ(d.imag(), c.imag()) << n << " " << k;
      }
  }
}

// Split steps with and without a scalar middle, one and many weight blocks, a partial last
// block, kernels that fold the input side and ones that do not (radix 7, Bluestein: 2 * 1009,
// and 2^20, whose double half-length line is a four-step line checked per sub-transform).
INSTANTIATE_TEST_SUITE_P(Sizes, FftR2CFoldedCheck,
                         ::testing::Values(2, 4, 6, 8, 14, 16, 18, 32, 34, 64, 130, 128, 256, 1024, 2048, 4096,
                                           1000, 2 * 1009, 6 * 1792, 65536, 1 << 20));

class FftFoldedCheck : public ::testing::TestWithParam<int64_t> {};

TEST_P(FftFoldedCheck, MatchesTheDefinitionsOnEveryIsa) {
  const int64_t n = GetParam();
  for (abft_isa isa : {ABFT_ISA_REFERENCE, ABFT_ISA_AVX2, ABFT_ISA_AVX512}) {
    if (int(isa) > int(abft_cpu_isa())) continue;
    for (int sign : {-1, +1}) {
      SCOPED_TRACE(testing::Message() << "isa " << int(isa) << " sign " << sign);
      check_folded<float>(isa, n, sign);
      check_folded<double>(isa, n, sign);
    }
  }
}

// Powers of two (radices 8, 4, 2 at either end), the radix-3 and radix-5 butterflies,
// strides below and above one weight block (64), and sizes the fold declines (odd
// strides, a radix without a specialised butterfly: 7).
INSTANTIATE_TEST_SUITE_P(Sizes, FftFoldedCheck,
                         ::testing::Values(16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 24, 48, 96,
                                           192, 384, 1000, 2160, 3125, 6561, 15, 21, 448, 1792));

}  // namespace
