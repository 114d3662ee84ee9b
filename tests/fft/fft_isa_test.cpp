/** \file fft_isa_test.cpp
 *  \brief Cross-ISA consistency of the FFT engine: the portable kernels and
 *  the best ones this CPU runs (AVX2 / AVX-512) give the same transforms to
 *  within round-off, and both detect and repair an injected fault. Skips the
 *  comparison when the CPU has nothing beyond the portable kernels.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "abft/fft.h"
#include "fault_util.hpp"

namespace {

template <class T>
abft_precision prec() { return sizeof(T) == 4 ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE; }

/** Output of one c2c forward transform of length n planned under `isa`. */
template <class T>
std::vector<T> run(abft_isa isa, int64_t n, const std::vector<T>& x, abft_report* rep,
                   abft_handle_t h = nullptr) {
  EXPECT_EQ(abft_set_isa(isa), ABFT_STATUS_SUCCESS);
  abft_fft_plan_t p = nullptr;
  EXPECT_EQ(abft_fft_plan_1d(&p, h, prec<T>(), ABFT_FFT_C2C, n, ABFT_FFT_FORWARD, 0), ABFT_STATUS_SUCCESS);
  std::vector<T> y(x.size());
  EXPECT_EQ(abft_fft_execute(p, x.data(), y.data(), rep), ABFT_STATUS_SUCCESS);
  abft_fft_destroy(p);
  return y;
}

template <class T>
void compare_isas(int64_t n) {
  const abft_isa best = abft_cpu_isa();
  if (best == ABFT_ISA_REFERENCE) GTEST_SKIP() << "this CPU runs only the portable kernels";
  std::mt19937_64 g(uint64_t(n) * 7 + sizeof(T));
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> x(size_t(2 * n));
  double xn = 0;
  for (auto& v : x) {
    v = T(d(g));
    xn += double(v) * double(v);
  }
  abft_report r1{}, r2{};
  const std::vector<T> a = run<T>(ABFT_ISA_REFERENCE, n, x, &r1);
  const std::vector<T> b = run<T>(best, n, x, &r2);
  abft_set_isa(best);
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
  // Both are within c u log2(n) ||y||_2 of the exact transform (||y|| = sqrt(n) ||x||).
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const double tol = 64.0 * u * (std::log2(double(n)) + 8.0) * std::sqrt(double(n) * xn);
  EXPECT_LE(diff, tol) << "n=" << n << " max |reference - " << abft_isa_name(best) << "| = " << diff;
  EXPECT_GT(r1.checks, 0u);
  EXPECT_EQ(r1.detected, 0u);
  EXPECT_EQ(r2.detected, 0u);
}

template <class T>
void repair_on_isa(abft_isa isa, int64_t n) {
  if (isa != ABFT_ISA_REFERENCE && abft_cpu_isa() < isa) GTEST_SKIP() << abft_isa_name(isa) << " not available";
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(11, &inj), ABFT_STATUS_SUCCESS);
  const abft_fault f = abft_test::make_spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_POS_INF, 0, 0, 7, 0);
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  std::vector<T> x(size_t(2 * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(std::sin(0.37 * double(i)) + 0.25);
  const abft_isa before = abft_cpu_isa();
  abft_report clean{}, rep{};
  const std::vector<T> want = run<T>(isa, n, x, &clean, h);
  ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  const std::vector<T> got = run<T>(isa, n, x, &rep, h);
  abft_set_isa(before);
  EXPECT_EQ(rep.detected, 1u) << abft_isa_name(isa) << " n=" << n;
  EXPECT_EQ(rep.corrected, 1u);
  EXPECT_EQ(got, want) << "the repaired output differs from the clean run";
  abft_injector_destroy(inj);
  abft_handle_destroy(h);
}

}  // namespace

TEST(FftIsa, ReferenceMatchesBest_f32) {
  for (int64_t n : {8, 12, 60, 64, 243, 1000, 1024, 1009, 4096, 65536}) compare_isas<float>(n);
}
TEST(FftIsa, ReferenceMatchesBest_f64) {
  for (int64_t n : {8, 12, 60, 64, 243, 1000, 1024, 1009, 4096, 65536}) compare_isas<double>(n);
}
TEST(FftIsa, RepairOnReference_f32) { repair_on_isa<float>(ABFT_ISA_REFERENCE, 1024); }
TEST(FftIsa, RepairOnReference_f64) { repair_on_isa<double>(ABFT_ISA_REFERENCE, 1000); }
TEST(FftIsa, RepairOnAvx2_f32) { repair_on_isa<float>(ABFT_ISA_AVX2, 1024); }
TEST(FftIsa, RepairOnAvx2_f64) { repair_on_isa<double>(ABFT_ISA_AVX2, 1000); }
TEST(FftIsa, RepairOnAvx512_f64) { repair_on_isa<double>(ABFT_ISA_AVX512, 1000); }
