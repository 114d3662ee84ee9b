/** \file gemm_robustness_test.cpp
 *  \brief Regression tests for corner cases of the protected GEMM found in review: a smaller
 *  OpenMP team than asked, overflow of unscaled partial sums with |alpha| < 1, flush-to-zero
 *  and denormals-are-zero modes, fingerprint strength for paired flips, and repairs that must
 *  re-verify at extreme k.
 */
#include <gtest/gtest.h>
#include <omp.h>
#include <xmmintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "abft/abft.h"
#include "abft/checksum/fingerprint.hpp"
#include "fault_util.hpp"

namespace {

// A call issued from inside the caller's own parallel region gets a team of one
// (nested parallelism is off) although the handle asks for two threads: every
// row block must still be computed and verified.
TEST(GemmRobustness, SmallerOpenMpTeamThanRequestedComputesEveryBlock) {
  const int n = 300;
  std::vector<float> A(n * n), B(n * n);
  for (int i = 0; i < n * n; ++i) {
    A[i] = float((i * 7) % 13) - 6.0f;
    B[i] = float((i * 5) % 11) - 5.0f;
  }
  abft_handle_t h;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_handle_set_threads(h, 4), ABFT_STATUS_SUCCESS);
  std::vector<float> ref(n * n), C(n * n, -1.0f);
  ASSERT_EQ(abft_sgemm(h, ABFT_POLICY_OFF, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, n, n,
                       1.0f, A.data(), n, B.data(), n, 0.0f, ref.data(), n, nullptr),
            ABFT_STATUS_SUCCESS);
  abft_status st = ABFT_STATUS_INTERNAL_ERROR;
  abft_report r{};
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    st = abft_sgemm(h, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, n, n,
                    1.0f, A.data(), n, B.data(), n, 0.0f, C.data(), n, &r);
  }
  EXPECT_EQ(st, ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.detected, 0u);
  for (int i = 0; i < n * n; ++i) ASSERT_EQ(C[i], ref[i]) << "element " << i;
  abft_handle_destroy(h);
}

// alpha shrinks a product whose unscaled partial sums overflow in T: the
// output is what an unprotected GEMM gives (Inf), and the check is skipped,
// not failed and "repaired".
template <class T>
void overflow_with_small_alpha(T alpha, T big) {
  const T A[2] = {big, -big}, B[1] = {big};
  T C[2] = {0, 0}, Coff[2] = {0, 0};
  abft_report r{};
  abft_status st;
  if constexpr (sizeof(T) == 4) {
    st = abft_sgemm(nullptr, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 2, 1, 1,
                    alpha, A, 1, B, 1, 0, C, 1, &r);
    abft_sgemm(nullptr, ABFT_POLICY_OFF, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 2, 1, 1, alpha, A,
               1, B, 1, 0, Coff, 1, nullptr);
  } else {
    st = abft_dgemm(nullptr, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 2, 1, 1,
                    alpha, A, 1, B, 1, 0, C, 1, &r);
    abft_dgemm(nullptr, ABFT_POLICY_OFF, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 2, 1, 1, alpha, A,
               1, B, 1, 0, Coff, 1, nullptr);
  }
  EXPECT_EQ(st, ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.detected, 0u);
  EXPECT_EQ(r.corrected, 0u);
  EXPECT_GE(r.skipped, 1u);
  EXPECT_EQ(C[0], Coff[0]);
  EXPECT_EQ(C[1], Coff[1]);
}
TEST(GemmRobustness, UnscaledOverflowWithSmallAlphaIsSkipped_f32) { overflow_with_small_alpha<float>(1e-10f, 1e20f); }
TEST(GemmRobustness, UnscaledOverflowWithSmallAlphaIsSkipped_f64) { overflow_with_small_alpha<double>(1e-200, 1e200); }

// Flush-to-zero and denormals-are-zero (what -ffast-math sets at start-up):
// subnormal operands are lost whole; the bound must still hold.
class FtzDaz {
 public:
  explicit FtzDaz(bool daz) : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8000u | (daz ? 0x0040u : 0u)); }
  ~FtzDaz() { _mm_setcsr(saved_); }
 private:
  unsigned saved_;
};

template <class T>
void no_false_positive_under_ftz(bool daz) {
  const T sub = std::numeric_limits<T>::min() / T(16);  // subnormal
  const T big = sizeof(T) == 4 ? T(1e30) : T(1e290);
  for (int variant = 0; variant < 3; ++variant) {
    const int m = 40, n = 24, k = 70;
    std::vector<T> A(m * k), B(k * n), C(m * n);
    for (int i = 0; i < m * k; ++i) A[i] = variant == 0 ? sub : (variant == 1 ? big * T(1e-3) : ((i % 2) ? sub : -sub * T(0.9)));
    for (int i = 0; i < k * n; ++i) B[i] = variant == 1 ? sub : big;
    abft_report r{};
    abft_status st;
    {
      FtzDaz mode(daz);
      if constexpr (sizeof(T) == 4)
        st = abft_sgemm(nullptr, ABFT_POLICY_DETECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k,
                        1, A.data(), m, B.data(), k, 0, C.data(), m, &r);
      else
        st = abft_dgemm(nullptr, ABFT_POLICY_DETECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k,
                        1, A.data(), m, B.data(), k, 0, C.data(), m, &r);
    }
    EXPECT_EQ(st, ABFT_STATUS_SUCCESS) << "variant " << variant << " daz " << daz;
    EXPECT_EQ(r.detected, 0u) << "variant " << variant << " daz " << daz;
  }
}
TEST(GemmRobustness, NoFalsePositiveUnderFlushToZero_f32) { no_false_positive_under_ftz<float>(false); }
TEST(GemmRobustness, NoFalsePositiveUnderFtzDaz_f32) { no_false_positive_under_ftz<float>(true); }
TEST(GemmRobustness, NoFalsePositiveUnderFlushToZero_f64) { no_false_positive_under_ftz<double>(false); }
TEST(GemmRobustness, NoFalsePositiveUnderFtzDaz_f64) { no_false_positive_under_ftz<double>(true); }

// Two flips of the same bit in opposite directions, or two sign flips, must
// not cancel in a packed-buffer fingerprint, wherever they sit.
template <class T>
void paired_flips_change_fingerprint() {
  using U = typename abft::checksum::FloatBits<T>::U;
  const int n = 512;
  std::vector<T> buf(n);
  for (int i = 0; i < n; ++i) buf[i] = T((i % 2) ? 1.5 : -2.25);
  const auto base = abft::checksum::fingerprint(buf.data(), n);
  const int bits = int(sizeof(T) * 8);
  int pairs = 0;
  for (int bit : {bits - 1, bits - 2, 30, 23, 3})
    for (int t1 = 0; t1 < 64; t1 += 5)
      for (int t2 = t1 + 1; t2 < n; ++t2) {
        std::vector<T> c = buf;
        for (int t : {t1, t2}) {
          U u;
          std::memcpy(&u, &c[t], sizeof u);
          u ^= U(1) << bit;
          std::memcpy(&c[t], &u, sizeof u);
        }
        ASSERT_NE(abft::checksum::fingerprint(c.data(), n), base)
            << "bit " << bit << " positions " << t1 << ", " << t2;
        ++pairs;
      }
  EXPECT_GT(pairs, 1000);
}
TEST(GemmRobustness, PairedFlipsChangeFingerprint_f32) { paired_flips_change_fingerprint<float>(); }
TEST(GemmRobustness, PairedFlipsChangeFingerprint_f64) { paired_flips_change_fingerprint<double>(); }

// A repair at large k must re-verify: the recomputation may round differently
// from the blocked kernel, and the re-verification accounts for it.
TEST(GemmRobustness, RepairReverifiesAtLargeK_f64) {
  const int m = 6, n = 4, k = 100000;
  std::vector<double> A(size_t(m) * k), B(size_t(k) * n, 1.0), C(m * n);
  const double tiny = 0.75 * std::numeric_limits<double>::epsilon() * 0.5;
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) A[size_t(i) + size_t(p) * m] = p == 0 ? 1.0 : tiny;
  abft_handle_t h;
  abft_injector_t inj;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(11, &inj), ABFT_STATUS_SUCCESS);
  const abft_fault f = abft_test::make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 62, 2, 1, 0);
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_dgemm(h, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k,
                       1.0, A.data(), m, B.data(), k, 0.0, C.data(), m, &r),
            ABFT_STATUS_SUCCESS);
  EXPECT_GE(r.detected, 1u);
  EXPECT_EQ(r.uncorrectable, 0u);
  // The repaired element is the kernel's own result (ABFT.md §5), within the forward error
  // bound of a k-term sum of the exact value. (This is a 4-row internal product: the small-M
  // path, whose one FMA chain per element loses the tiny terms that the blocked engine's
  // 256-term chunks keep.)
  const double exact = 1.0 + double(k - 1) * tiny;
  const double gk = double(k) * 0.5 * std::numeric_limits<double>::epsilon();
  for (int i = 0; i < m * n; ++i) EXPECT_NEAR(C[i], exact, gk * (1.0 + double(k) * tiny)) << "element " << i;
  abft_handle_destroy(h);
  abft_injector_destroy(inj);
}

}  // namespace
