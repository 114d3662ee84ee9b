/** \file gemm_openblas_oracle_test.cpp
 *  \brief Optional oracle: abft_sgemm/abft_dgemm against OpenBLAS cblas_?gemm on a
 *  few shapes, every layout and transpose pair. Skips (saying why) when
 *  OpenBLAS was not found at configure time.
 */
#include <gtest/gtest.h>

#include "test_util.hpp"

#if defined(ABFT_TEST_HAVE_OPENBLAS)
#include <cblas.h>
#endif

using namespace abft_test;

namespace {

#if defined(ABFT_TEST_HAVE_OPENBLAS)
CBLAS_ORDER cb_layout(abft_layout l) { return l == ABFT_ROW_MAJOR ? CblasRowMajor : CblasColMajor; }
CBLAS_TRANSPOSE cb_op(abft_op o) { return o == ABFT_NO_TRANS ? CblasNoTrans : CblasTrans; }

void cblas_call(const Problem<float>& p, float* C) {
  cblas_sgemm(cb_layout(p.layout), cb_op(p.ta), cb_op(p.tb), int(p.m), int(p.n), int(p.k), p.alpha,
              p.A.data(), int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
}
void cblas_call(const Problem<double>& p, double* C) {
  cblas_dgemm(cb_layout(p.layout), cb_op(p.ta), cb_op(p.tb), int(p.m), int(p.n), int(p.k), p.alpha,
              p.A.data(), int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
}

/** Both results are within the componentwise bound of the reference, and
 *  within twice of each other. */
template <class T>
void Oracle() {
  struct S { int64_t m, n, k; } shapes[] = {{1, 1, 1}, {17, 33, 65}, {128, 96, 257}, {300, 200, 150}};
  std::mt19937_64 rng(17);
  for (const S& s : shapes)
    for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
      for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS})
        for (abft_op tb : {ABFT_NO_TRANS, ABFT_TRANS}) {
          Problem<T> p;
          p.shape(l, ta, tb, s.m, s.n, s.k, 1, 2, 3);
          p.fill_uniform(rng);
          p.alpha = T(0.75);
          p.beta = T(-1.25);
          // OpenBLAS may read padding (it is allowed to); use finite padding here.
          for (auto& x : p.A) if (std::isnan(x)) x = T(0);
          for (auto& x : p.B) if (std::isnan(x)) x = T(0);
          SCOPED_TRACE(p.describe());
          const Reference ref = reference(p);
          std::vector<T> Cb = p.C0;
          cblas_call(p, Cb.data());
          const Outcome<T> o = run(p, nullptr, ABFT_POLICY_CORRECT);
          ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
          EXPECT_EQ(o.report.detected, 0u);
          EXPECT_TRUE(check_result(p, o.C, ref)) << "abft";
          EXPECT_TRUE(check_result(p, Cb, ref)) << "OpenBLAS";
          for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) {
              const double tol = 2.0 * elem_tol(p, ref.mag[size_t(i * p.n + j)]);
              ASSERT_LE(std::fabs(double(o.C[p.ic(i, j)]) - double(Cb[p.ic(i, j)])), tol)
                  << "C(" << i << "," << j << ")";
            }
        }
}
TEST(GemmOpenBlasOracle, MatchesCblas_f32) { Oracle<float>(); }
TEST(GemmOpenBlasOracle, MatchesCblas_f64) { Oracle<double>(); }
#else
TEST(GemmOpenBlasOracle, MatchesCblas_f32) { GTEST_SKIP() << "OpenBLAS not found at configure time"; }
TEST(GemmOpenBlasOracle, MatchesCblas_f64) { GTEST_SKIP() << "OpenBLAS not found at configure time"; }
#endif

}  // namespace
