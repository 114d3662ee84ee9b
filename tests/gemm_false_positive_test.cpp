/** \file gemm_false_positive_test.cpp
 *  \brief Zero false positives on adversarial clean inputs (wide magnitude
 *  ranges, scaled rows/columns, heavy cancellation, identical rows/columns,
 *  Hilbert matrices, denormals, zeros, huge k, extreme alpha/beta, huge C0),
 *  many random trials with the observed sharpness (bound / largest clean
 *  residual), and the non-finite-input rule (NaN/Inf is data: same result as
 *  the unprotected path, check skipped, never "corrected").
 */
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <tuple>

#include "test_util.hpp"

using namespace abft_test;

namespace {

template <class T>
constexpr double kSpan = std::is_same<T, float>::value ? 15.0 : 30.0;  // 10^+-span

using FpParam = std::tuple<bool /*double*/, abft_isa>;

std::string FpName(const ::testing::TestParamInfo<FpParam>& info) {
  return std::string(std::get<0>(info.param) ? "f64" : "f32") + "_" +
         isa_tag(std::get<1>(info.param));
}

/** Assert a clean call raised nothing and is accurate, under CORRECT and DETECT. */
template <class T>
void expect_clean(const Problem<T>& p, abft_handle_t h, const Reference& ref) {
  for (abft_policy pol : {ABFT_POLICY_CORRECT, ABFT_POLICY_DETECT}) {
    SCOPED_TRACE(std::string("policy ") + policy_tag(pol));
    const Outcome<T> o = run(p, h, pol);
    EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS) << abft_status_string(o.status);
    EXPECT_EQ(o.report.detected, 0u) << "false positive";
    EXPECT_EQ(o.report.corrected, 0u);
    EXPECT_EQ(o.report.recomputed, 0u);
    EXPECT_EQ(o.report.uncorrectable, 0u);
    EXPECT_LE(o.report.max_ratio, 1.0);
    EXPECT_TRUE(check_result(p, o.C, ref));
  }
}

// ====================================================================== adversarial
template <class T>
struct AdvCase {
  const char* name;
  int64_t m, n, k;
  double alpha, beta;
  std::function<void(Problem<T>&, std::mt19937_64&)> fill;
};

template <class T>
std::vector<AdvCase<T>> adversarial_cases() {
  const double E = kSpan<T>;
  using R = std::mt19937_64;
  auto U = [](R& r, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); };
  auto sgn = [](R& r) { return (r() & 1) ? 1.0 : -1.0; };
  auto wide = [=](R& r) { return sgn(r) * std::pow(10.0, U(r, -E, E)); };
  const double tiny = double(std::numeric_limits<T>::denorm_min());
  const double minn = double(std::numeric_limits<T>::min());
  const double big = std::is_same<T, float>::value ? 1e10 : 1e20;
  const double huge_c0 = std::is_same<T, float>::value ? 1e36 : 1e300;
  const double near_ovf = std::is_same<T, float>::value ? 1e18 : 1e153;
  std::vector<AdvCase<T>> c;
  c.push_back({"magnitudes_span_1e+-E", 67, 45, 129, 1.0, 1.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return wide(r); });
                 p.fill_B([&](int64_t, int64_t) { return wide(r); });
                 p.fill_C([&](int64_t, int64_t) { return wide(r); });
               }});
  c.push_back({"row_and_column_scales", 150, 40, 300, -1.0, 0.0, [=](Problem<T>& p, R& r) {
                 std::vector<double> rs(size_t(p.m)), cs(size_t(p.n));
                 for (auto& x : rs) x = std::pow(10.0, U(r, -E, E));
                 for (auto& x : cs) x = std::pow(10.0, U(r, -E, E));
                 p.fill_A([&](int64_t i, int64_t) { return U(r, -1, 1) * rs[size_t(i)]; });
                 p.fill_B([&](int64_t, int64_t j) { return U(r, -1, 1) * cs[size_t(j)]; });
               }});
  c.push_back({"k_index_scales", 40, 150, 200, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 std::vector<double> ks(size_t(p.k));
                 for (auto& x : ks) x = std::pow(10.0, U(r, -E / 2, E / 2));
                 p.fill_A([&](int64_t, int64_t q) { return U(r, -1, 1) * ks[size_t(q)]; });
                 p.fill_B([&](int64_t q, int64_t) { return U(r, -1, 1) / ks[size_t(q)]; });
               }});
  c.push_back({"cancellation_x_minus_x", 61, 59, 256, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 const int64_t h = p.k / 2;  // A = [X X], B = [Y; -Y]: exact result 0
                 std::vector<double> X(size_t(p.m * h)), Y(size_t(h * p.n));
                 for (auto& x : X) x = U(r, -1, 1);
                 for (auto& y : Y) y = U(r, -1, 1);
                 p.fill_A([&](int64_t i, int64_t q) { return X[size_t(i * h + q % h)]; });
                 p.fill_B([&](int64_t q, int64_t j) {
                   return (q < h ? 1.0 : -1.0) * Y[size_t((q % h) * p.n + j)];
                 });
               }});
  c.push_back({"cancellation_minus_rounded_product", 70, 66, 280, 1.0, -1.0,
               [=](Problem<T>& p, R& r) {  // C0 = fl(A B): result is pure rounding error
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_B([&](int64_t, int64_t) { return U(r, 0, 1); });
                 const Product P = product(p);
                 p.fill_C([&](int64_t i, int64_t j) { return T(P.val[size_t(i * p.n + j)]); });
               }});
  c.push_back({"nearly_equal_columns_difference", 50, 48, 200, 1.0, 0.0,
               [=](Problem<T>& p, R& r) {  // B(:,j) = fl(x (1 + eps_j)) - x
                 std::vector<double> x(size_t(p.k));
                 for (auto& v : x) v = U(r, 1, 2);
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_B([&](int64_t q, int64_t j) {
                   const T a = T(x[size_t(q)] * (1.0 + 1e-6 * double(j + 1)));
                   return double(a) - x[size_t(q)];
                 });
               }});
  c.push_back({"identical_rows_and_columns", 90, 80, 150, 1.0, 1.0, [=](Problem<T>& p, R& r) {
                 std::vector<double> a(size_t(p.k)), b(size_t(p.k));
                 for (auto& v : a) v = U(r, -1, 1);
                 for (auto& v : b) v = U(r, -1, 1);
                 const double c0 = U(r, -1, 1);
                 p.fill_A([&](int64_t, int64_t q) { return a[size_t(q)]; });
                 p.fill_B([&](int64_t q, int64_t) { return b[size_t(q)]; });
                 p.fill_C([&](int64_t, int64_t) { return c0; });
               }});
  c.push_back({"hilbert_ill_conditioned", 64, 64, 64, 1.0, 0.0, [=](Problem<T>& p, R&) {
                 p.fill_A([&](int64_t i, int64_t q) { return 1.0 / double(i + q + 1); });
                 p.fill_B([&](int64_t q, int64_t j) {
                   return ((q + j) % 2 ? -1.0 : 1.0) / double(q + j + 1);
                 });
               }});
  c.push_back({"denormal_A", 40, 36, 100, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return sgn(r) * tiny * double(1 + r() % 4096); });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -4, 4); });
               }});
  c.push_back({"denormal_products", 40, 36, 100, 1.0, 1.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1) * minn * 8.0; });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1) * 0.01; });
                 p.fill_C([&](int64_t, int64_t) { return sgn(r) * tiny * double(1 + r() % 64); });
               }});
  c.push_back({"denormal_times_denormal", 33, 35, 77, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return sgn(r) * tiny * double(1 + r() % 1000); });
                 p.fill_B([&](int64_t, int64_t) { return sgn(r) * tiny * double(1 + r() % 1000); });
               }});
  c.push_back({"all_zero", 50, 50, 50, 1.0, 0.0, [=](Problem<T>&, R&) {}});
  c.push_back({"zero_operands_beta", 50, 50, 50, 1.0, 0.5, [=](Problem<T>& p, R& r) {
                 p.fill_C([&](int64_t, int64_t) { return U(r, -1, 1); });
               }});
  c.push_back({"huge_k", 8, 8, 20000, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1); });
               }});
  c.push_back({"huge_k_positive", 8, 8, 20000, 1.0, 1.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return U(r, 0, 1); });
                 p.fill_B([&](int64_t, int64_t) { return U(r, 0, 1); });
                 p.fill_C([&](int64_t, int64_t) { return U(r, 0, 1); });
               }});
  c.push_back({"alpha_large_beta_small", 45, 47, 120, big, 1.0 / big, [=](Problem<T>& p, R& r) {
                 p.fill_uniform(r);
               }});
  c.push_back({"alpha_small_beta_large", 45, 47, 120, 1.0 / big, big, [=](Problem<T>& p, R& r) {
                 p.fill_uniform(r);
               }});
  c.push_back({"huge_C0", 52, 41, 90, 1.0, 0.5, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_C([&](int64_t, int64_t) { return U(r, -1, 1) * huge_c0; });
               }});
  c.push_back({"near_overflow_result", 60, 60, 50, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t, int64_t) { return U(r, -1, 1) * near_ovf; });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1) * near_ovf; });
               }});
  c.push_back({"one_huge_element", 100, 70, 140, 1.0, 0.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t i, int64_t q) {
                   return (i == 17 && q == 33) ? std::pow(10.0, E) : U(r, -1, 1);
                 });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1); });
               }});
  c.push_back({"block_of_tiny_rows", 200, 30, 60, 1.0, 1.0, [=](Problem<T>& p, R& r) {
                 p.fill_A([&](int64_t i, int64_t) {
                   return U(r, -1, 1) * (i >= 150 ? std::pow(10.0, -E) : 1.0);
                 });
                 p.fill_B([&](int64_t, int64_t) { return U(r, -1, 1); });
                 p.fill_C([&](int64_t i, int64_t) {
                   return U(r, -1, 1) * (i < 150 ? std::pow(10.0, -E) : 1.0);
                 });
               }});
  return c;
}

class GemmFalsePositive : public ::testing::TestWithParam<FpParam> {
 protected:
  void SetUp() override { ABFT_REQUIRE_ISA(std::get<1>(GetParam())); }
  IsaGuard guard_;

  template <class T>
  void Adversarial() {
    abft::Handle h;
    h.set_threads(2);
    const struct {
      abft_layout l;
      abft_op a, b;
    } variants[] = {{ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS},
                    {ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS},
                    {ABFT_ROW_MAJOR, ABFT_TRANS, ABFT_NO_TRANS},
                    {ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS}};
    for (const AdvCase<T>& c : adversarial_cases<T>()) {
      for (const auto& v : variants) {
        std::mt19937_64 rng(2024);
        Problem<T> p;
        p.shape(v.l, v.a, v.b, c.m, c.n, c.k);
        p.alpha = T(c.alpha);
        p.beta = T(c.beta);
        c.fill(p, rng);
        SCOPED_TRACE(std::string(c.name) + ": " + p.describe());
        expect_clean(p, h.get(), reference(p));
      }
    }
  }

  template <class T>
  void RandomTrials() {
    abft::Handle h1, h2;
    h1.set_threads(1);
    h2.set_threads(2);
    std::mt19937_64 rng(0xFA15E + int(std::get<1>(GetParam())));
    auto U = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    auto I = [&](int64_t lo, int64_t hi) { return lo + int64_t(rng() % uint64_t(hi - lo + 1)); };
    const abft_op ops[] = {ABFT_NO_TRANS, ABFT_TRANS};
    double worst = 0.0;
    uint64_t checks = 0;
    std::string worst_what;
    const int trials = 300;
    for (int t = 0; t < trials; ++t) {
      Problem<T> p;
      const int64_t m = I(1, 96), n = I(1, 96);
      const int64_t k = (t % 10 == 0) ? I(300, 900) : I(1, 300);
      p.shape((t & 1) ? ABFT_ROW_MAJOR : ABFT_COL_MAJOR, ops[rng() & 1], ops[rng() & 1], m, n, k,
              I(0, 2), I(0, 2), I(0, 2));
      const int dist = int(rng() % 4);
      auto draw = [&]() -> double {
        switch (dist) {
          case 0: return U(-1, 1);
          case 1: return U(0, 1);  // no cancellation: residual closest to the bound
          case 2: return std::normal_distribution<double>(0.0, 1.0)(rng);
          default: return ((rng() & 1) ? 1 : -1) * std::pow(10.0, U(-3, 3));
        }
      };
      p.fill_A([&](int64_t, int64_t) { return draw(); });
      p.fill_B([&](int64_t, int64_t) { return draw(); });
      p.fill_C([&](int64_t, int64_t) { return draw(); });
      const int ab = int(rng() % 3);
      p.alpha = T(ab == 0 ? 1.0 : ab == 1 ? -1.0 : U(-3, 3));
      const int bb = int(rng() % 3);
      p.beta = T(bb == 0 ? 0.0 : bb == 1 ? 1.0 : U(-2, 2));
      SCOPED_TRACE("trial " + std::to_string(t) + " dist " + std::to_string(dist) + ": " +
                   p.describe());
      const Reference ref = reference(p);
      const Outcome<T> o = run(p, ((t / 2) % 2 ? h2 : h1).get(), ABFT_POLICY_CORRECT);
      ASSERT_EQ(o.status, ABFT_STATUS_SUCCESS);
      ASSERT_EQ(o.report.detected, 0u) << "false positive";
      ASSERT_EQ(o.report.corrected + o.report.recomputed, 0u);
      ASSERT_TRUE(check_result(p, o.C, ref));
      checks += o.report.checks;
      if (o.report.max_ratio > worst) {
        worst = o.report.max_ratio;
        worst_what = p.describe();
      }
    }
    const double sharp = worst > 0 ? 1.0 / worst : 0.0;
    std::cout << "[ sharpness ] " << type_tag<T>() << " " << isa_tag(std::get<1>(GetParam()))
              << ": bound / largest clean residual = " << sharp << " (max_ratio " << worst
              << " over " << checks << " checks in " << trials << " calls; worst: " << worst_what
              << ")" << std::endl;
    RecordProperty("sharpness", std::to_string(sharp));
    RecordProperty("max_ratio", std::to_string(worst));
    EXPECT_LE(worst, 1.0) << "a residual exceeded its bound in a passing check";
    EXPECT_GT(worst, 0.0) << "no clean residual observed: max_ratio not reported";
    EXPECT_GT(checks, uint64_t(trials));
  }
};

TEST_P(GemmFalsePositive, AdversarialCleanInputs) {
  if (std::get<0>(GetParam())) Adversarial<double>(); else Adversarial<float>();
}
TEST_P(GemmFalsePositive, RandomTrialsSharpness) {
  if (std::get<0>(GetParam())) RandomTrials<double>(); else RandomTrials<float>();
}
INSTANTIATE_TEST_SUITE_P(
    Isa, GemmFalsePositive,
    ::testing::Combine(::testing::Bool(),
                       ::testing::Values(ABFT_ISA_REFERENCE, ABFT_ISA_AVX2, ABFT_ISA_AVX512)),
    FpName);

// ====================================================================== non-finite input
/** NaN/Inf in the inputs is data: the result equals the unprotected path's
 *  (same NaN/Inf positions, finite values accurate), nothing is detected or
 *  corrected, and the affected checks are counted as skipped. */
template <class T>
void NonFiniteInputs() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  struct Case {
    const char* name;
    double beta;
    std::function<void(Problem<T>&)> poke;
  };
  const std::vector<Case> cases = {
      {"nan_in_A", 0.0, [&](Problem<T>& p) { p.A[p.ia(5, 7)] = nan; }},
      {"inf_in_A", 1.0, [&](Problem<T>& p) { p.A[p.ia(0, p.k - 1)] = inf; }},
      {"neg_inf_in_B", 0.5, [&](Problem<T>& p) { p.B[p.ib(3, p.n - 1)] = -inf; }},
      {"nan_in_B", 0.0, [&](Problem<T>& p) { p.B[p.ib(p.k - 1, 2)] = nan; }},
      {"nan_in_C_beta_nonzero", 1.0, [&](Problem<T>& p) { p.C0[p.ic(4, 9)] = nan; }},
      {"inf_in_C_beta_nonzero", -2.0, [&](Problem<T>& p) { p.C0[p.ic(p.m - 1, 0)] = inf; }},
      {"inf_times_zero", 0.0,
       [&](Problem<T>& p) {
         p.A[p.ia(2, 3)] = inf;
         p.B[p.ib(3, 6)] = T(0);
       }},
      {"inf_minus_inf", 0.0,
       [&](Problem<T>& p) {
         p.A[p.ia(8, 1)] = inf;
         p.A[p.ia(8, 2)] = inf;
         p.B[p.ib(1, 4)] = T(1);
         p.B[p.ib(2, 4)] = T(-1);
       }},
      {"several_nonfinite", 1.0,
       [&](Problem<T>& p) {
         p.A[p.ia(1, 1)] = nan;
         p.B[p.ib(2, 10)] = inf;
         p.C0[p.ic(p.m - 2, p.n - 2)] = -inf;
       }},
  };
  std::mt19937_64 rng(31);
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (const Case& c : cases) {
      Problem<T> p;
      p.shape(l, l == ABFT_ROW_MAJOR ? ABFT_NO_TRANS : ABFT_TRANS, ABFT_NO_TRANS, 37, 29, 41, 1,
              0, 2);
      p.fill_uniform(rng);
      p.beta = T(c.beta);
      c.poke(p);
      SCOPED_TRACE(std::string(c.name) + ": " + p.describe());
      const Reference ref = reference(p);
      abft::Handle h;
      const Outcome<T> off = run(p, h.get(), ABFT_POLICY_OFF);
      ASSERT_EQ(off.status, ABFT_STATUS_SUCCESS);
      EXPECT_TRUE(check_result(p, off.C, ref)) << "unprotected path";
      for (abft_policy pol : {ABFT_POLICY_CORRECT, ABFT_POLICY_DETECT}) {
        SCOPED_TRACE(policy_tag(pol));
        const Outcome<T> o = run(p, h.get(), pol);
        EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS) << abft_status_string(o.status);
        EXPECT_EQ(o.report.detected, 0u) << "non-finite input treated as a fault";
        EXPECT_EQ(o.report.corrected, 0u);
        EXPECT_EQ(o.report.recomputed, 0u);
        EXPECT_GE(o.report.skipped, 1u) << "check not counted as skipped";
        EXPECT_TRUE(check_result(p, o.C, ref));
        int64_t mismatch = 0;
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j) {
            const T a = o.C[p.ic(i, j)], b = off.C[p.ic(i, j)];
            if (std::isnan(a) != std::isnan(b) || std::isinf(a) != std::isinf(b) ||
                (std::isinf(a) && (a > 0) != (b > 0)))
              ++mismatch;
          }
        EXPECT_EQ(mismatch, 0) << "NaN/Inf pattern differs from the unprotected path";
      }
    }
}
TEST(GemmNonFinite, InputIsData_f32) { NonFiniteInputs<float>(); }
TEST(GemmNonFinite, InputIsData_f64) { NonFiniteInputs<double>(); }

/** Finite inputs whose exact product overflows: Inf in C is what BLAS gives,
 *  not a fault (the check is skipped as "may overflow"). */
template <class T>
void OverflowingFiniteInputs() {
  const double s = std::is_same<T, float>::value ? 1e20 : 1e200;
  std::mt19937_64 rng(8);
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    Problem<T> p;
    p.shape(l, ABFT_NO_TRANS, ABFT_NO_TRANS, 20, 24, 30);
    p.fill_A([&](int64_t, int64_t) { return std::uniform_real_distribution<double>(0.5, 1)(rng) * s; });
    p.fill_B([&](int64_t, int64_t q) { return (q % 2 ? 1.0 : 0.5) * s; });
    SCOPED_TRACE(p.describe());
    abft::Handle h;
    const Outcome<T> off = run(p, h.get(), ABFT_POLICY_OFF);
    const Outcome<T> o = run(p, h.get(), ABFT_POLICY_CORRECT);
    EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS);
    EXPECT_EQ(o.report.detected, 0u);
    EXPECT_EQ(o.report.corrected + o.report.recomputed, 0u);
    EXPECT_GE(o.report.skipped, 1u);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        EXPECT_TRUE(std::isinf(o.C[p.ic(i, j)]) && o.C[p.ic(i, j)] > 0);
        EXPECT_TRUE(same_value(o.C[p.ic(i, j)], off.C[p.ic(i, j)]));
      }
  }
}
TEST(GemmNonFinite, OverflowIsNotAFault_f32) { OverflowingFiniteInputs<float>(); }
TEST(GemmNonFinite, OverflowIsNotAFault_f64) { OverflowingFiniteInputs<double>(); }

}  // namespace
