/** \file gemm_args_test.cpp
 *  \brief Argument checking: every bad argument gives its documented status and
 *  leaves C byte-for-byte untouched; empty problems; k == 0; status strings;
 *  handle, injector, statistics and ISA API misuse.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <tuple>

#include "test_util.hpp"

using namespace abft_test;

namespace {

/** Runs a call with one argument altered and checks status + untouched C. */
template <class T>
struct ArgHarness {
  Problem<T> p;
  ArgHarness(abft_layout l, abft_op ta, abft_op tb, int64_t m = 5, int64_t n = 6, int64_t k = 7) {
    std::mt19937_64 rng(1);
    p.shape(l, ta, tb, m, n, k);
    p.fill_uniform(rng);
    p.beta = T(0.5);
  }
  /** f may modify a copy of the problem and the pointers before the call. */
  template <class F>
  ::testing::AssertionResult expect(abft_status want, F f) const {
    Problem<T> q = p;
    std::vector<T> C = q.C0;
    const std::vector<T> before = C;
    const T* A = q.A.data();
    const T* B = q.B.data();
    T* Cp = C.data();
    abft_policy pol = ABFT_POLICY_CORRECT;
    f(q, A, B, Cp, pol);
    abft_report rep{};
    rep.checks = 12345;
    const abft_status got = gemm_call(nullptr, pol, q, A, B, Cp, &rep);
    if (got != want)
      return ::testing::AssertionFailure()
             << q.describe() << ": status " << abft_status_string(got) << ", expected "
             << abft_status_string(want);
    if (std::memcmp(C.data(), before.data(), C.size() * sizeof(T)) != 0)
      return ::testing::AssertionFailure() << q.describe() << ": C was modified by a rejected call";
    return ::testing::AssertionSuccess();
  }
};

using ArgParam = std::tuple<bool, abft_layout, abft_op, abft_op>;
class GemmArgs : public ::testing::TestWithParam<ArgParam> {
 protected:
  template <class T>
  void Body() {
    const abft_layout l = std::get<1>(GetParam());
    const abft_op ta = std::get<2>(GetParam()), tb = std::get<3>(GetParam());
    const ArgHarness<T> H(l, ta, tb);
    using P = Problem<T>;
    using Ptr = const T*;
    // Baseline: the unaltered call succeeds.
    {
      Problem<T> q = H.p;
      std::vector<T> C = q.C0;
      ASSERT_EQ(gemm_call(nullptr, ABFT_POLICY_CORRECT, q, q.A.data(), q.B.data(), C.data(), nullptr),
                ABFT_STATUS_SUCCESS);
    }
    // Negative sizes.
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_SIZE, [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.m = -1; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_SIZE, [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.n = -3; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_SIZE, [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.k = -1; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_SIZE,
                         [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.k = INT64_MIN; }));
    // Leading dimensions one below the minimum (BLAS: ld >= max(1, stored rows),
    // which for row-major storage is the number of stored columns).
    const int64_t lda_min = P::min_ld(l, H.p.a_rows(), H.p.a_cols());
    const int64_t ldb_min = P::min_ld(l, H.p.b_rows(), H.p.b_cols());
    const int64_t ldc_min = P::min_ld(l, H.p.m, H.p.n);
    ASSERT_EQ(H.p.lda, lda_min);
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_LD,
                         [&](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.lda = lda_min - 1; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_LD,
                         [&](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.ldb = ldb_min - 1; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_LD,
                         [&](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.ldc = ldc_min - 1; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_LD, [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.lda = 0; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_LD, [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.ldc = -4; }));
    // The other extent is not the one that counts: an ld equal to the *other*
    // dimension is wrong whenever it is smaller (shape 5x6x7 makes them differ).
    // NULL pointers with non-zero sizes.
    EXPECT_TRUE(H.expect(ABFT_STATUS_NULL_POINTER, [](P&, Ptr& A, Ptr&, T*&, abft_policy&) { A = nullptr; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_NULL_POINTER, [](P&, Ptr&, Ptr& B, T*&, abft_policy&) { B = nullptr; }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_NULL_POINTER, [](P&, Ptr&, Ptr&, T*& C, abft_policy&) { C = nullptr; }));
    // Unknown enums.
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.layout = abft_layout(0); }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.layout = abft_layout(103); }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.ta = abft_op(110); }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P& q, Ptr&, Ptr&, T*&, abft_policy&) { q.tb = abft_op(114); }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P&, Ptr&, Ptr&, T*&, abft_policy& pol) { pol = abft_policy(3); }));
    EXPECT_TRUE(H.expect(ABFT_STATUS_INVALID_VALUE,
                         [](P&, Ptr&, Ptr&, T*&, abft_policy& pol) { pol = abft_policy(-2); }));
  }
};
TEST_P(GemmArgs, BadArgumentsLeaveCUntouched) {
  if (std::get<0>(GetParam())) Body<double>(); else Body<float>();
}
INSTANTIATE_TEST_SUITE_P(
    LayoutOps, GemmArgs,
    ::testing::Combine(::testing::Bool(), ::testing::Values(ABFT_ROW_MAJOR, ABFT_COL_MAJOR),
                       ::testing::Values(ABFT_NO_TRANS, ABFT_TRANS),
                       ::testing::Values(ABFT_NO_TRANS, ABFT_TRANS)),
    [](const ::testing::TestParamInfo<ArgParam>& info) {
      return std::string(std::get<0>(info.param) ? "f64" : "f32") + "_" +
             layout_tag(std::get<1>(info.param)) + "_" + op_tag(std::get<2>(info.param)) +
             op_tag(std::get<3>(info.param));
    });

// ---------------------------------------------------------------- leading-dimension rule
/** ld minimum per layout/transpose, exactly at the boundary (ld == min passes). */
TEST(GemmArgs, LeadingDimensionBoundaryPerLayout) {
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS})
      for (abft_op tb : {ABFT_NO_TRANS, ABFT_TRANS}) {
        Problem<double> p;
        p.shape(l, ta, tb, 3, 11, 7);  // distinct m, n, k
        std::mt19937_64 rng(3);
        p.fill_uniform(rng);
        SCOPED_TRACE(p.describe());
        // Expected minima, spelled out (not via Problem::min_ld).
        const bool row = l == ABFT_ROW_MAJOR, na = ta == ABFT_NO_TRANS, nb = tb == ABFT_NO_TRANS;
        const int64_t lda = row ? (na ? 7 : 3) : (na ? 3 : 7);
        const int64_t ldb = row ? (nb ? 11 : 7) : (nb ? 7 : 11);
        const int64_t ldc = row ? 11 : 3;
        EXPECT_EQ(p.lda, lda);
        EXPECT_EQ(p.ldb, ldb);
        EXPECT_EQ(p.ldc, ldc);
        std::vector<double> C = p.C0;
        EXPECT_EQ(gemm_call(nullptr, ABFT_POLICY_CORRECT, p, p.A.data(), p.B.data(), C.data(), nullptr),
                  ABFT_STATUS_SUCCESS);
        EXPECT_TRUE(check_result(p, C, reference(p)));
      }
}

/** Zero dimensions still obey ld >= 1 (BLAS). */
TEST(GemmArgs, ZeroDimensionsStillNeedLdAtLeastOne) {
  double a = 0, b = 0, c = 42;
  EXPECT_EQ(abft_dgemm(nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS,
                       0, 0, 0, 1.0, &a, 0, &b, 1, 0.0, &c, 1, nullptr),
            ABFT_STATUS_INVALID_LD);
  EXPECT_EQ(c, 42.0);
}

// ---------------------------------------------------------------- empty problems
template <class T>
void EmptyProblems() {
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    for (int64_t m : {0, 4})
      for (int64_t n : {0, 5}) {
        if (m && n) continue;
        abft_report rep{};
        rep.detected = 99;
        // NULL pointers are fine when there is nothing to read or write.
        const abft_status s =
            gemm_call(nullptr, ABFT_POLICY_CORRECT,
                      [&] {
                        Problem<T> p;
                        p.layout = l;
                        p.m = m;
                        p.n = n;
                        p.k = 3;
                        p.lda = std::max<int64_t>(1, l == ABFT_ROW_MAJOR ? 3 : m);
                        p.ldb = std::max<int64_t>(1, l == ABFT_ROW_MAJOR ? n : 3);
                        p.ldc = std::max<int64_t>(1, l == ABFT_ROW_MAJOR ? n : m);
                        p.beta = T(2);
                        return p;
                      }(),
                      nullptr, nullptr, nullptr, &rep);
        EXPECT_EQ(s, ABFT_STATUS_SUCCESS) << "m=" << m << " n=" << n;
        EXPECT_EQ(rep.detected, 0u) << "report not filled for an empty call";
      }
  }
}
TEST(GemmEmpty, ZeroMorNIsNoOpWithNullPointers_f32) { EmptyProblems<float>(); }
TEST(GemmEmpty, ZeroMorNIsNoOpWithNullPointers_f64) { EmptyProblems<double>(); }

template <class T>
void KZeroScalesC() {
  std::mt19937_64 rng(4);
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (double beta : {0.0, 1.0, -0.5}) {
      Problem<T> p;
      p.shape(l, ABFT_NO_TRANS, ABFT_TRANS, 9, 7, 0, 0, 0, 2);
      p.fill_uniform(rng);
      p.beta = T(beta);
      if (beta == 0.0) p.fill_C([](int64_t, int64_t) { return std::numeric_limits<T>::quiet_NaN(); });
      SCOPED_TRACE(p.describe());
      for (abft_policy pol : {ABFT_POLICY_OFF, ABFT_POLICY_CORRECT}) {
        const Outcome<T> o = run(p, nullptr, pol);
        ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j) {
            const T want = beta == 0.0 ? T(0) : T(p.beta * p.c0(i, j));
            EXPECT_EQ(o.C[p.ic(i, j)], want) << "C(" << i << "," << j << ")";
          }
        EXPECT_TRUE(check_result(p, o.C, reference(p)));  // also: padding untouched
      }
    }
}
TEST(GemmEmpty, KZeroGivesBetaC_f32) { KZeroScalesC<float>(); }
TEST(GemmEmpty, KZeroGivesBetaC_f64) { KZeroScalesC<double>(); }

// ---------------------------------------------------------------- strings and enums
TEST(GemmApi, StatusStringNeverNull) {
  for (int s = -64; s <= 64; ++s) {
    const char* str = abft_status_string(abft_status(s));
    ASSERT_NE(str, nullptr) << s;
    EXPECT_GT(std::strlen(str), 0u) << s;
  }
  for (abft_status s : {ABFT_STATUS_SUCCESS, ABFT_STATUS_FAULT_DETECTED,
                        ABFT_STATUS_FAULT_UNCORRECTABLE, ABFT_STATUS_INVALID_VALUE,
                        ABFT_STATUS_INVALID_SIZE, ABFT_STATUS_INVALID_LD, ABFT_STATUS_NULL_POINTER,
                        ABFT_STATUS_ALLOC_FAILED, ABFT_STATUS_NOT_SUPPORTED,
                        ABFT_STATUS_INTERNAL_ERROR})
    EXPECT_EQ(std::string(abft_status_string(s)).rfind("ABFT_STATUS_", 0), 0u) << s;
  // Distinct codes have distinct strings.
  EXPECT_STRNE(abft_status_string(ABFT_STATUS_INVALID_LD), abft_status_string(ABFT_STATUS_INVALID_SIZE));
  EXPECT_NE(abft_status_string(abft_status(1000)), nullptr);
  EXPECT_NE(abft_status_string(abft_status(-1000)), nullptr);
  EXPECT_NE(abft_kernel_name(abft_kernel(77)), nullptr);
  EXPECT_NE(abft_isa_name(abft_isa(77)), nullptr);
  EXPECT_STREQ(abft_kernel_name(ABFT_KERNEL_SGEMM), "sgemm");
  EXPECT_STREQ(abft_kernel_name(ABFT_KERNEL_DGEMM), "dgemm");
  ASSERT_NE(abft_version(), nullptr);
  EXPECT_GT(std::strlen(abft_version()), 0u);
}

TEST(GemmApi, HandleMisuse) {
  EXPECT_EQ(abft_handle_create(nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_set_policy(nullptr, ABFT_POLICY_CORRECT), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_set_threads(nullptr, 1), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_set_injector(nullptr, nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_set_inject_hook(nullptr, nullptr, nullptr), ABFT_STATUS_NULL_POINTER);
  abft_policy pol;
  EXPECT_EQ(abft_handle_get_policy(nullptr, &pol), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_destroy(nullptr), ABFT_STATUS_SUCCESS);

  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(abft_handle_get_policy(h, nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_handle_set_policy(h, abft_policy(3)), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_handle_set_policy(h, abft_policy(-2)), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_handle_set_policy(h, ABFT_POLICY_DETECT), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_handle_set_policy(h, abft_policy(42)), ABFT_STATUS_INVALID_VALUE);
  ASSERT_EQ(abft_handle_get_policy(h, &pol), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(pol, ABFT_POLICY_DETECT) << "a rejected set_policy changed the handle";
  EXPECT_EQ(abft_handle_set_threads(h, -1), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_handle_set_threads(h, 0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_handle_destroy(h), ABFT_STATUS_SUCCESS);

  // C++ wrapper throws abft::Error with the status.
  abft::Handle hh;
  try {
    hh.set_policy(static_cast<abft::Policy>(9));
    ADD_FAILURE() << "Handle::set_policy accepted an unknown policy";
  } catch (const abft::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_VALUE);
  }
}

TEST(GemmApi, InjectorMisuse) {
  EXPECT_EQ(abft_injector_create(1, nullptr), ABFT_STATUS_NULL_POINTER);
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_injector_create(1, &inj), ABFT_STATUS_SUCCESS);
  abft_fault f{};
  f.site = ABFT_SITE_OUTPUT;
  f.model = ABFT_FAULT_NAN;
  f.bit = -1;
  f.row = f.col = f.kpos = -1;
  EXPECT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_injector_add(nullptr, &f), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_injector_add(inj, nullptr), ABFT_STATUS_NULL_POINTER);
  abft_fault g = f;
  g.site = ABFT_SITE_COUNT_;
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  g.site = abft_site(-1);
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  g = f;
  g.model = abft_fault_model(7);
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  g.model = abft_fault_model(-3);
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  g = f;
  g.row = -2;  // only -1 means "random"
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  g = f;
  g.bit = 64;
  EXPECT_EQ(abft_injector_add(inj, &g), ABFT_STATUS_INVALID_VALUE);
  int count = -1;
  EXPECT_EQ(abft_injector_last(inj, nullptr, 0, &count), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(count, 0) << "no call yet";
  EXPECT_EQ(abft_injector_last(inj, nullptr, 0, nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_injector_last(inj, nullptr, 4, &count), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_injector_clear(nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_injector_clear(inj), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_injector_destroy(inj), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_injector_destroy(nullptr), ABFT_STATUS_SUCCESS);
}

TEST(GemmApi, StatsMisuse) {
  abft_counters c;
  EXPECT_EQ(abft_stats_get(nullptr, ABFT_KERNEL_SGEMM, nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_stats_get(nullptr, ABFT_KERNEL_COUNT_, &c), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_stats_get(nullptr, abft_kernel(-1), &c), ABFT_STATUS_INVALID_VALUE);
  char buf[4];
  EXPECT_EQ(abft_stats_format(nullptr, abft_format(2), buf, sizeof buf, nullptr),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_stats_format(nullptr, ABFT_FORMAT_TEXT, nullptr, 16, nullptr),
            ABFT_STATUS_NULL_POINTER);
  size_t need = 0;
  EXPECT_EQ(abft_stats_format(nullptr, ABFT_FORMAT_JSON, nullptr, 0, &need), ABFT_STATUS_SUCCESS);
  EXPECT_GT(need, 1u);
}

TEST(GemmApi, IsaSelection) {
  IsaGuard g;
  EXPECT_EQ(abft_set_isa(abft_isa(9)), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_set_isa(abft_isa(-1)), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_set_isa(ABFT_ISA_REFERENCE), ABFT_STATUS_SUCCESS) << "reference always works";
  const abft_isa best = abft_cpu_isa();
  EXPECT_EQ(abft_set_isa(best), ABFT_STATUS_SUCCESS);
  if (best < ABFT_ISA_AVX512 && !std::getenv("ABFT_ISA")) {
    EXPECT_EQ(abft_set_isa(ABFT_ISA_AVX512), ABFT_STATUS_NOT_SUPPORTED)
        << "forcing an ISA beyond the CPU's must fail";
  }
}

// ---------------------------------------------------------------- C++ view API errors
TEST(GemmCppApi, ViewMismatchErrors) {
  std::vector<double> a(12, 1.0), b(12, 1.0), c(9, 5.0);
  const std::vector<double> c_before = c;
  using V = abft::MatrixView<const double>;
  using W = abft::MatrixView<double>;
  const auto CM = abft::Layout::ColMajor, RM = abft::Layout::RowMajor;
  // Layout mismatch.
  EXPECT_EQ(abft::gemm::run<double>(nullptr, abft::Op::N, V{a.data(), 3, 4, 3, RM}, abft::Op::N,
                                    V{b.data(), 4, 3, 4, CM}, W{c.data(), 3, 3, 3, CM}),
            ABFT_STATUS_INVALID_VALUE);
  // Inner dimension mismatch (k = 4 vs 3).
  EXPECT_EQ(abft::gemm::run<double>(nullptr, abft::Op::N, V{a.data(), 3, 4, 3, CM}, abft::Op::N,
                                    V{b.data(), 3, 3, 3, CM}, W{c.data(), 3, 3, 3, CM}),
            ABFT_STATUS_INVALID_SIZE);
  // Output shape mismatch.
  EXPECT_EQ(abft::gemm::run<double>(nullptr, abft::Op::T, V{a.data(), 3, 4, 3, CM}, abft::Op::N,
                                    V{b.data(), 3, 3, 3, CM}, W{c.data(), 3, 3, 3, CM}),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(c, c_before);
}

}  // namespace

// ---------------------------------------------------------------- environment
namespace env_tests {

/** ABFT_POLICY=off|detect|correct sets the process default (ctest also runs
 *  this with the variable set; see tests/CMakeLists.txt). */
TEST(GemmEnv, PolicyFromEnvironment) {
  const char* e = std::getenv("ABFT_POLICY");
  const std::string v = e ? e : "";
  const abft_policy want = (v == "off" || v == "0" || v == "none") ? ABFT_POLICY_OFF
                           : (v == "detect" || v == "1")          ? ABFT_POLICY_DETECT
                                                                   : ABFT_POLICY_CORRECT;
  EXPECT_EQ(abft_default_policy(), want) << "ABFT_POLICY=" << v;
  Problem<float> p;
  p.shape(ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 20, 20, 20);
  std::mt19937_64 rng(2);
  p.fill_uniform(rng);
  const Outcome<float> o = run(p, nullptr, ABFT_POLICY_DEFAULT);
  ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
  if (want == ABFT_POLICY_OFF)
    EXPECT_EQ(o.report.checks, 0u);
  else
    EXPECT_GE(o.report.checks, 1u);
  EXPECT_TRUE(check_result(p, o.C, reference(p)));
}

/** One sgemm call; with ABFT_STATS=json the process prints its totals at exit
 *  (checked by a ctest regular expression). */
TEST(GemmEnv, OneCallForExitStats) {
  Problem<float> p;
  p.shape(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 9, 9, 9);
  std::mt19937_64 rng(3);
  p.fill_uniform(rng);
  EXPECT_EQ(run(p, nullptr, ABFT_POLICY_CORRECT).status, ABFT_STATUS_SUCCESS);
}

}  // namespace env_tests
