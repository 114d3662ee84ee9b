/** \file gemm_correctness_test.cpp
 *  \brief Protected GEMM vs a long-double reference: every ISA, layout and
 *  transpose pair; shapes with 0/1/prime dimensions; padded leading dimensions;
 *  alpha/beta special cases (beta == 0 never reads C, alpha == 0 never reads
 *  A/B); every policy; 1 and 2 threads; the C++ API.
 */
#include <gtest/gtest.h>

#include <array>
#include <tuple>

#include "test_util.hpp"

using namespace abft_test;

namespace {

struct Shape {
  int64_t m, n, k;
};

std::vector<Shape> shapes() {
  std::vector<Shape> s;
  const int64_t small[] = {0, 1, 2, 7};
  for (int64_t m : small)
    for (int64_t n : small)
      for (int64_t k : small) s.push_back({m, n, k});
  const Shape more[] = {{13, 31, 97},  {31, 13, 128}, {97, 128, 257}, {128, 97, 31},
                        {257, 13, 7},  {7, 257, 13},  {1, 300, 600},  {300, 1, 600},
                        {257, 257, 1}, {64, 64, 128}, {37, 31, 600}, {300, 160, 61},
                        {31, 97, 2},   {2, 7, 257},
                        // K over every ISA's kc (1024 for AVX-512): uneven passes, C reloaded
                        {45, 33, 1601}};
  for (const Shape& x : more) s.push_back(x);
  return s;
}

const double kAlphas[] = {1.0, -2.5, 0.0};
const double kBetas[] = {0.0, 1.0, 0.5};
const abft_policy kPolicies[] = {ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT};

using CorrParam = std::tuple<bool /*double*/, abft_isa, abft_layout, abft_op, abft_op>;

class GemmCorrectness : public ::testing::TestWithParam<CorrParam> {
 protected:
  void SetUp() override { ABFT_REQUIRE_ISA(std::get<1>(GetParam())); }
  IsaGuard guard_;

  template <class T>
  void Body() {
    const abft_layout layout = std::get<2>(GetParam());
    const abft_op ta = std::get<3>(GetParam()), tb = std::get<4>(GetParam());
    abft::Handle h1, h2;
    h1.set_threads(1);
    h2.set_threads(2);
    std::mt19937_64 rng(0xC0FFEEu + unsigned(layout) * 7u + unsigned(ta) * 131u + unsigned(tb));
    const std::vector<Shape> all = shapes();
    for (size_t si = 0; si < all.size(); ++si) {
      const Shape sh = all[si];
      Problem<T> base;
      const int64_t pad = (si % 3 == 1) ? 3 : (si % 3 == 2) ? 17 : 0;
      base.shape(layout, ta, tb, sh.m, sh.n, sh.k, pad, (pad * 2) % 5, pad ? pad + 1 : 0);
      base.fill_uniform(rng);
      const Product P = product(base);
      for (int combo = 0; combo < 9; ++combo) {
        Problem<T> p = base;
        p.alpha = T(kAlphas[combo / 3]);
        p.beta = T(kBetas[combo % 3]);
        const abft_policy pol = kPolicies[(combo + si) % 3];
        abft::Handle& h = ((combo + si / 3) % 2) ? h2 : h1;
        const T qnan = std::numeric_limits<T>::quiet_NaN();
        // beta == 0: C must not be read -> NaN there must not reach the output.
        if (p.beta == T(0)) p.fill_C([&](int64_t, int64_t) { return qnan; });
        // alpha == 0: A and B must not be read.
        std::vector<T> A = p.A, B = p.B;
        if (p.alpha == T(0)) {
          std::fill(A.begin(), A.end(), qnan);
          std::fill(B.begin(), B.end(), qnan);
        }
        SCOPED_TRACE(p.describe() + " policy=" + policy_tag(pol) + " threads=" +
                     (&h == &h2 ? "2" : "1"));
        const Reference ref = reference(p, P);
        std::vector<T> C = p.C0;
        abft_report rep{};
        const bool want_report = (combo != 4);
        const abft_status st =
            gemm_call(h.get(), pol, p, A.data(), B.data(), C.data(), want_report ? &rep : nullptr);
        ASSERT_EQ(st, ABFT_STATUS_SUCCESS) << abft_status_string(st);
        ASSERT_TRUE(check_result(p, C, ref));
        if (!want_report) continue;
        EXPECT_EQ(rep.detected, 0u);
        EXPECT_EQ(rep.corrected, 0u);
        EXPECT_EQ(rep.recomputed, 0u);
        EXPECT_EQ(rep.uncorrectable, 0u);
        EXPECT_EQ(rep.skipped, 0u);
        if (pol == ABFT_POLICY_OFF) {
          EXPECT_EQ(rep.checks, 0u) << "policy OFF must not verify anything";
        } else if (p.m > 0 && p.n > 0 && p.k > 0 && p.alpha != T(0)) {
          EXPECT_GE(rep.checks, 1u) << "a protected call performed no check";
          EXPECT_LE(rep.max_ratio, 1.0);
        }
      }
    }
  }
};

TEST_P(GemmCorrectness, MatchesReference) {
  if (std::get<0>(GetParam()))
    Body<double>();
  else
    Body<float>();
}

std::string CorrName(const ::testing::TestParamInfo<CorrParam>& info) {
  std::ostringstream os;
  os << (std::get<0>(info.param) ? "f64" : "f32") << "_" << isa_tag(std::get<1>(info.param))
     << "_" << layout_tag(std::get<2>(info.param)) << "_" << op_tag(std::get<3>(info.param))
     << op_tag(std::get<4>(info.param));
  return os.str();
}

INSTANTIATE_TEST_SUITE_P(
    AllIsaLayoutOps, GemmCorrectness,
    ::testing::Combine(::testing::Bool(),
                       ::testing::Values(ABFT_ISA_REFERENCE, ABFT_ISA_AVX2, ABFT_ISA_AVX512),
                       ::testing::Values(ABFT_ROW_MAJOR, ABFT_COL_MAJOR),
                       ::testing::Values(ABFT_NO_TRANS, ABFT_TRANS, ABFT_CONJ_TRANS),
                       ::testing::Values(ABFT_NO_TRANS, ABFT_TRANS, ABFT_CONJ_TRANS)),
    CorrName);

// ---------------------------------------------------------------- conj == trans
template <class T>
void ConjTransIsTrans() {
  std::mt19937_64 rng(42);
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    Problem<T> p;
    p.shape(l, ABFT_CONJ_TRANS, ABFT_CONJ_TRANS, 23, 19, 41);
    p.fill_uniform(rng);
    p.beta = T(0.5);
    Problem<T> q = p;
    q.ta = q.tb = ABFT_TRANS;
    const Outcome<T> a = run(p, nullptr, ABFT_POLICY_CORRECT);
    const Outcome<T> b = run(q, nullptr, ABFT_POLICY_CORRECT);
    ASSERT_EQ(a.status, ABFT_STATUS_SUCCESS);
    ASSERT_EQ(b.status, ABFT_STATUS_SUCCESS);
    for (size_t t = 0; t < a.C.size(); ++t)
      ASSERT_TRUE(same_value(a.C[t], b.C[t])) << "element " << t << " of " << p.describe();
  }
}
TEST(GemmConjTrans, SameAsTrans_f32) { ConjTransIsTrans<float>(); }
TEST(GemmConjTrans, SameAsTrans_f64) { ConjTransIsTrans<double>(); }

// ---------------------------------------------------------------- policy resolution
template <class T>
void PolicyResolution() {
  std::mt19937_64 rng(7);
  Problem<T> p;
  p.shape(ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 33, 35, 37);
  p.fill_uniform(rng);
  const Reference ref = reference(p);
  abft::Handle h;
  abft_policy got = ABFT_POLICY_CORRECT;
  ASSERT_EQ(abft_handle_get_policy(h.get(), &got), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(got, ABFT_POLICY_DEFAULT) << "a new handle defers to the process default";

  h.set_policy(abft::Policy::Off);
  Outcome<T> o = run(p, h.get(), ABFT_POLICY_DEFAULT);
  ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(check_result(p, o.C, ref));
  EXPECT_EQ(o.report.checks, 0u) << "handle policy OFF ignored";

  o = run(p, h.get(), ABFT_POLICY_CORRECT);  // the call overrides the handle
  ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(check_result(p, o.C, ref));
  EXPECT_GE(o.report.checks, 1u) << "call policy CORRECT did not override handle OFF";

  h.set_policy(abft::Policy::Detect);
  o = run(p, h.get(), ABFT_POLICY_DEFAULT);
  ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(check_result(p, o.C, ref));
  EXPECT_GE(o.report.checks, 1u) << "handle policy DETECT ignored";

  o = run(p, h.get(), ABFT_POLICY_OFF);
  EXPECT_EQ(o.report.checks, 0u) << "call policy OFF did not override handle DETECT";

  // NULL handle: process defaults (env ABFT_POLICY or CORRECT).
  o = run(p, nullptr, ABFT_POLICY_DEFAULT);
  ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(check_result(p, o.C, ref));
  if (abft_default_policy() != ABFT_POLICY_OFF) {
    EXPECT_GE(o.report.checks, 1u);
  }
}
TEST(GemmPolicy, ResolutionCallHandleDefault_f32) { PolicyResolution<float>(); }
TEST(GemmPolicy, ResolutionCallHandleDefault_f64) { PolicyResolution<double>(); }

// ---------------------------------------------------------------- threads
/** Thread counts 1..4 all give results within tolerance (and the same checks pass). */
template <class T>
void ThreadCounts() {
  std::mt19937_64 rng(99);
  Problem<T> p;
  p.shape(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, 301, 263, 300, 1, 2, 3);
  p.fill_uniform(rng);
  p.beta = T(-0.75);
  const Reference ref = reference(p);
  for (int t : {1, 2, 3, 4, 0}) {
    SCOPED_TRACE("threads=" + std::to_string(t));
    abft::Handle h;
    h.set_threads(t);
    const Outcome<T> o = run(p, h.get(), ABFT_POLICY_CORRECT);
    ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(check_result(p, o.C, ref));
    EXPECT_EQ(o.report.detected, 0u);
    EXPECT_GE(o.report.checks, 1u);
  }
}
TEST(GemmThreads, OneToFourThreads_f32) { ThreadCounts<float>(); }
TEST(GemmThreads, OneToFourThreads_f64) { ThreadCounts<double>(); }

// ---------------------------------------------------------------- C++ API
template <class T>
void CppApiRun() {
  std::mt19937_64 rng(5);
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    Problem<T> p;
    p.shape(l, ABFT_TRANS, ABFT_NO_TRANS, 40, 29, 53, 2, 0, 5);
    p.fill_uniform(rng);
    p.alpha = T(1.5);
    p.beta = T(-1);
    const Reference ref = reference(p);
    abft::Handle h;
    h.set_policy(abft::Policy::Correct);
    h.set_threads(2);
    std::vector<T> C = p.C0;
    abft::Report rep{};
    const abft::Status st = abft::gemm::run<T>(
        &h, static_cast<abft::Layout>(l), abft::Op::T, abft::Op::N, p.m, p.n, p.k, p.alpha,
        p.A.data(), p.lda, p.B.data(), p.ldb, p.beta, C.data(), p.ldc, &rep);
    ASSERT_EQ(st, ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(check_result(p, C, ref));
    EXPECT_GE(rep.checks, 1u);
    EXPECT_EQ(rep.detected, 0u);
    const abft::Counters c = h.stats(std::is_same<T, float>::value ? ABFT_KERNEL_SGEMM
                                                                    : ABFT_KERNEL_DGEMM);
    EXPECT_EQ(c.calls, 1u);
    EXPECT_EQ(c.checks, rep.checks);

    // View form: shapes come from the views.
    const abft::Layout L = static_cast<abft::Layout>(l);
    abft::MatrixView<const T> va{p.A.data(), p.a_rows(), p.a_cols(), p.lda, L};
    abft::MatrixView<const T> vb{p.B.data(), p.b_rows(), p.b_cols(), p.ldb, L};
    std::vector<T> C2 = p.C0;
    abft::MatrixView<T> vc{C2.data(), p.m, p.n, p.ldc, L};
    ASSERT_EQ(abft::gemm::run<T>(&h, abft::Op::T, va, abft::Op::N, vb, vc, p.alpha, p.beta, &rep,
                                 abft::Policy::Detect),
              ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(check_result(p, C2, ref));
    EXPECT_EQ(h.stats(std::is_same<T, float>::value ? ABFT_KERNEL_SGEMM : ABFT_KERNEL_DGEMM).calls,
              2u);
    // NULL handle through the C++ API.
    std::vector<T> C3 = p.C0;
    ASSERT_EQ(abft::gemm::run<T>(nullptr, abft::Op::T, va, abft::Op::N, vb,
                                 abft::MatrixView<T>{C3.data(), p.m, p.n, p.ldc, L}, p.alpha,
                                 p.beta),
              ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(check_result(p, C3, ref));
  }
}
TEST(GemmCppApi, RunAndViews_f32) { CppApiRun<float>(); }
TEST(GemmCppApi, RunAndViews_f64) { CppApiRun<double>(); }

TEST(GemmCppApi, ExceptionCarriesStatus) {
  try {
    abft::check(ABFT_STATUS_INVALID_LD);
    FAIL() << "abft::check did not throw on a negative status";
  } catch (const abft::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_LD);
    EXPECT_NE(std::string(e.what()).find("INVALID_LD"), std::string::npos);
  }
  EXPECT_NO_THROW(abft::check(ABFT_STATUS_FAULT_DETECTED));  // positive: not an argument error
}

// ---------------------------------------------------------------- ISA info
TEST(GemmDispatch, KernelInfoNamesIsa) {
  for (abft_kernel k : {ABFT_KERNEL_SGEMM, ABFT_KERNEL_DGEMM}) {
    const char* info = abft_gemm_kernel_info(k);
    ASSERT_NE(info, nullptr);
    EXPECT_GT(std::strlen(info), 0u);
    RecordProperty(std::string("kernel_") + abft_kernel_name(k), info);
  }
  IsaGuard g;
  ASSERT_EQ(abft_set_isa(ABFT_ISA_REFERENCE), ABFT_STATUS_SUCCESS);
  EXPECT_NE(std::string(abft_gemm_kernel_info(ABFT_KERNEL_DGEMM))
                .find(abft_isa_name(ABFT_ISA_REFERENCE)),
            std::string::npos)
      << abft_gemm_kernel_info(ABFT_KERNEL_DGEMM);
}

}  // namespace
