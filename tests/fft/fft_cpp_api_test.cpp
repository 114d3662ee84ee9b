/** \file fft_cpp_api_test.cpp
 *  \brief The C++ FFT API (abft/fft.hpp): typed plans, round trips, r2c/c2r,
 *  batches, policy through the plan, exceptions on bad arguments, move semantics.
 *  The transforms themselves are tested through the C API elsewhere; here the
 *  wrapper must pass arguments, statuses and ownership through unchanged.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "abft/fft.hpp"

namespace {

namespace af = abft::fft;

template <class T>
std::vector<std::complex<T>> random_complex(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<std::complex<T>> v(n);
  for (auto& x : v) x = {T(d(g)), T(d(g))};
  return v;
}
template <class T>
std::vector<T> random_real(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(g));
  return v;
}

template <class T> double tol();
template <> double tol<float>() { return 2e-5; }
template <> double tol<double>() { return 1e-13; }

/** max |a[i]/scale - b[i]| over max |b|. */
template <class A, class B>
double rel_diff(const std::vector<A>& a, const std::vector<B>& b, double scale) {
  double md = 0, mb = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    md = std::max(md, double(std::abs(a[i] / static_cast<decltype(std::abs(a[i]))>(scale) - b[i])));
    mb = std::max(mb, double(std::abs(b[i])));
  }
  return md / mb;
}

/** The direct DFT in long double of one signal. */
template <class T>
std::vector<std::complex<long double>> direct_dft(const std::vector<std::complex<T>>& x, int sign) {
  const size_t n = x.size();
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<std::complex<long double>> y(n);
  for (size_t k = 0; k < n; ++k) {
    std::complex<long double> s = 0;
    for (size_t j = 0; j < n; ++j) {
      const long double a = sign * 2 * pi * (long double)((j * k) % n) / (long double)n;
      s += std::complex<long double>(x[j].real(), x[j].imag()) * std::complex<long double>(std::cos(a), std::sin(a));
    }
    y[k] = s;
  }
  return y;
}

// ------------------------------------------------------------------ types
static_assert(std::is_same_v<af::C2CPlan<float>, af::Plan<std::complex<float>, std::complex<float>>>);
static_assert(std::is_same_v<af::C2CPlan<std::complex<double>>, af::C2CPlan<double>>,
              "the factories take the real or the complex type");
static_assert(af::R2CPlan<double>::kind == ABFT_FFT_R2C && af::C2RPlan<float>::kind == ABFT_FFT_C2R);
static_assert(af::C2CPlan<double>::precision == ABFT_PRECISION_DOUBLE);
static_assert(!std::is_copy_constructible_v<af::C2CPlan<float>> &&
              !std::is_copy_assignable_v<af::C2CPlan<float>>, "plans are move-only");
static_assert(std::is_nothrow_move_constructible_v<af::C2CPlan<float>> &&
              std::is_nothrow_move_assignable_v<af::C2CPlan<float>>);

// ------------------------------------------------------------------ transforms
template <class T>
void c2c_round_trip(int64_t n) {
  auto fwd = af::c2c<T>(n, af::Direction::Forward);
  auto bwd = af::c2c<std::complex<T>>(n, af::Direction::Backward);
  fwd.set_policy(abft::Policy::Correct);
  const auto x = random_complex<T>(size_t(n), 11);
  std::vector<std::complex<T>> y(x.size()), z(x.size());
  abft::Report rep{};
  EXPECT_EQ(fwd.execute(x, y, &rep), ABFT_STATUS_SUCCESS);
  EXPECT_GE(rep.checks, 1u) << "policy correct verifies";
  EXPECT_EQ(rep.detected, 0u);
  EXPECT_EQ(bwd.execute(y.data(), z.data()), ABFT_STATUS_SUCCESS);
  EXPECT_LT(rel_diff(z, x, double(n)), tol<T>() * std::log2(double(n) + 1));
}
TEST(FftCppApi, C2C_RoundTrip_f32_n1000) { c2c_round_trip<float>(1000); }
TEST(FftCppApi, C2C_RoundTrip_f64_n1009) { c2c_round_trip<double>(1009); }
TEST(FftCppApi, C2C_RoundTrip_f32_n131072) { c2c_round_trip<float>(131072); }

TEST(FftCppApi, C2C_MatchesDirectDft_f64_n12) {
  auto p = af::c2c<double>(12, af::Direction::Backward);
  const auto x = random_complex<double>(12, 3);
  std::vector<std::complex<double>> y(12);
  ASSERT_EQ(p.execute(x, y), ABFT_STATUS_SUCCESS);
  const auto ref = direct_dft(x, +1);
  for (size_t k = 0; k < 12; ++k) {
    EXPECT_NEAR(y[k].real(), double(ref[k].real()), 1e-13) << k;
    EXPECT_NEAR(y[k].imag(), double(ref[k].imag()), 1e-13) << k;
  }
}

TEST(FftCppApi, C2C_InPlaceVector_f64_2D) {
  const af::Dims n{16, 12};
  auto p = af::c2c<double>(n, af::Direction::Forward);
  auto q = af::c2c<double>(n, af::Direction::Backward);
  EXPECT_EQ(p.in_size(), 16 * 12);
  EXPECT_EQ(p.out_size(), 16 * 12);
  const auto x = random_complex<double>(16 * 12, 5);
  std::vector<std::complex<double>> v = x, oop(x.size());
  ASSERT_EQ(p.execute(x, oop), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(p.execute(v, v), ABFT_STATUS_SUCCESS);  // the same vector twice: in place
  EXPECT_LT(rel_diff(v, oop, 1.0), 1e-15);
  ASSERT_EQ(q.execute(v, v), ABFT_STATUS_SUCCESS);
  EXPECT_LT(rel_diff(v, x, 16.0 * 12.0), 1e-14);
}

template <class T>
void real_round_trip(const af::Dims& n) {
  auto r2c = af::r2c<T>(n);
  auto c2r = af::c2r<T>(n, nullptr, af::PreserveInput);
  int64_t real = 1, half = 1;
  for (size_t d = 0; d < n.size(); ++d) {
    real *= n[d];
    half *= d + 1 == n.size() ? n[d] / 2 + 1 : n[d];
  }
  EXPECT_EQ(r2c.in_size(), real);
  EXPECT_EQ(r2c.out_size(), half);
  EXPECT_EQ(c2r.in_size(), half);
  EXPECT_EQ(c2r.out_size(), real);
  const auto x = random_real<T>(size_t(real), 7);
  std::vector<std::complex<T>> X(static_cast<size_t>(half));
  std::vector<T> z(static_cast<size_t>(real));
  ASSERT_EQ(r2c.execute(x, X), ABFT_STATUS_SUCCESS);
  // DC bin: the sum of the input.
  double sum = 0;
  for (T v : x) sum += v;
  EXPECT_NEAR(X[0].real(), sum, 100 * tol<T>() * std::sqrt(double(real)));
  const auto X0 = X;
  ASSERT_EQ(c2r.execute(X, z), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(X.data(), X0.data(), X.size() * sizeof X[0]), 0)
      << "PreserveInput: the input was written";
  EXPECT_LT(rel_diff(z, x, double(real)), tol<T>() * std::log2(double(real) + 1));
}
TEST(FftCppApi, R2C_C2R_RoundTrip_f32_n1000) { real_round_trip<float>({1000}); }
TEST(FftCppApi, R2C_C2R_RoundTrip_f64_n4000) { real_round_trip<double>({4000}); }
TEST(FftCppApi, R2C_C2R_RoundTrip_f64_8x6x10) { real_round_trip<double>({8, 6, 10}); }

TEST(FftCppApi, Many_Interleaved_MatchesSingle_f32) {
  // 3 signals of 64 interleaved (stride 3, dist 1) vs one 1D plan per signal.
  const int64_t n = 64, b = 3;
  af::Side side;
  side.stride = b;
  side.dist = 1;
  auto many = af::c2c_many<float>({n}, b, side, side, af::Direction::Forward);
  auto one = af::c2c<float>(n, af::Direction::Forward);
  EXPECT_EQ(many.in_size(), n * b);
  const auto x = random_complex<float>(size_t(n * b), 9);
  std::vector<std::complex<float>> y(x.size());
  ASSERT_EQ(many.execute(x, y), ABFT_STATUS_SUCCESS);
  for (int64_t s = 0; s < b; ++s) {
    std::vector<std::complex<float>> xs(static_cast<size_t>(n)), ys(xs.size()), ym(xs.size());
    for (int64_t j = 0; j < n; ++j) {
      xs[size_t(j)] = x[size_t(j * b + s)];
      ym[size_t(j)] = y[size_t(j * b + s)];
    }
    ASSERT_EQ(one.execute(xs, ys), ABFT_STATUS_SUCCESS);
    EXPECT_LT(rel_diff(ym, ys, 1.0), 1e-6) << "signal " << s;
  }
}

TEST(FftCppApi, Many_PackedDefaultDist_R2C_C2R_f64) {
  // Unset dist: signals one after another, the complex side n/2+1 apart.
  const int64_t n = 30, b = 4;
  auto r2c = af::r2c_many<double>({n}, b, {}, {});
  auto c2r = af::c2r_many<double>({n}, b, {}, {});
  EXPECT_EQ(r2c.in_size(), n * b);
  EXPECT_EQ(r2c.out_size(), (n / 2 + 1) * b);
  EXPECT_EQ(c2r.out_size(), n * b);
  const auto x = random_real<double>(size_t(n * b), 13);
  std::vector<std::complex<double>> X(size_t((n / 2 + 1) * b));
  std::vector<double> z(x.size());
  ASSERT_EQ(r2c.execute(x, X), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(c2r.execute(X, z), ABFT_STATUS_SUCCESS);
  EXPECT_LT(rel_diff(z, x, double(n)), 1e-14);
}

// ------------------------------------------------------------------ queries
TEST(FftCppApi, Queries) {
  auto p = af::c2c<float>(64, af::Direction::Forward);
  const std::string d = p.describe();
  EXPECT_EQ(d.rfind("c2c float n=[64]", 0), 0u) << d;
  EXPECT_NE(d.find("isa="), std::string::npos) << d;
  EXPECT_DOUBLE_EQ(p.flops(), 5.0 * 64 * 6);
  EXPECT_GE(p.units(), 1);
  auto q = af::r2c<double>(std::vector<int64_t>{4, 8});
  EXPECT_EQ(q.describe().rfind("r2c double n=[4,8]", 0), 0u) << q.describe();
  EXPECT_NO_THROW(p.set_threads(2));
  EXPECT_NO_THROW(p.set_threads(0));
}

// ------------------------------------------------------------------ policy
/** A plan on a handle with a NaN injected into output element 5 of the only line. */
struct NanBench {
  abft::Handle h;
  abft::Injector inj{1};
  af::C2CPlan<double> plan;
  std::vector<std::complex<double>> x = random_complex<double>(256, 21), clean, y;
  NanBench() : plan(af::c2c<double>(256, af::Direction::Forward, &h)), clean(256), y(256) {
    EXPECT_EQ(plan.execute(x, clean), ABFT_STATUS_SUCCESS);
    abft_fault f{};
    f.site = ABFT_SITE_OUTPUT;
    f.model = ABFT_FAULT_NAN;
    f.row = 0;
    f.col = 10;  // scalar 10: the real part of element 5
    f.kpos = 0;
    inj.add(f);
    h.set_injector(&inj);
  }
};

TEST(FftCppApi, Policy_Correct_RepairsToTheCleanRun) {
  NanBench b;
  b.plan.set_policy(abft::Policy::Correct);
  abft::Report rep{};
  EXPECT_EQ(b.plan.execute(b.x, b.y, &rep), ABFT_STATUS_SUCCESS);
  EXPECT_GE(rep.detected, 1u);
  EXPECT_GE(rep.corrected + rep.recomputed, 1u);
  EXPECT_EQ(std::memcmp(b.y.data(), b.clean.data(), b.y.size() * sizeof b.y[0]), 0)
      << "the repaired output must equal the clean run bit for bit";
  EXPECT_EQ(b.h.stats(ABFT_KERNEL_DFFT).detected, rep.detected);
}

TEST(FftCppApi, Policy_Detect_ReturnsThePositiveStatus) {
  NanBench b;
  b.plan.set_policy(abft::Policy::Detect);
  abft::Report rep{};
  abft::Status s = ABFT_STATUS_SUCCESS;
  EXPECT_NO_THROW(s = b.plan.execute(b.x, b.y, &rep)) << "a detected fault is a status, not an exception";
  EXPECT_EQ(s, ABFT_STATUS_FAULT_DETECTED);
  EXPECT_GE(rep.detected, 1u);
  EXPECT_TRUE(std::isnan(b.y[5].real())) << "detect leaves the output as computed";
}

TEST(FftCppApi, Policy_Off_NoChecks_PlanOverridesHandle) {
  NanBench b;
  b.h.set_policy(abft::Policy::Correct);
  b.plan.set_policy(abft::Policy::Off);
  abft::Report rep{};
  EXPECT_EQ(b.plan.execute(b.x, b.y, &rep), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(rep.checks, 0u);
  EXPECT_TRUE(std::isnan(b.y[5].real()));
  // Back to the handle's policy (correct).
  b.plan.set_policy(abft::Policy::Default);
  EXPECT_EQ(b.plan.execute(b.x, b.y, &rep), ABFT_STATUS_SUCCESS);
  EXPECT_GE(rep.detected, 1u);
  EXPECT_EQ(std::memcmp(b.y.data(), b.clean.data(), b.y.size() * sizeof b.y[0]), 0);
}

// ------------------------------------------------------------------ errors
template <class F>
abft::Status thrown_status(F&& f) {
  try {
    f();
  } catch (const abft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ABFT_STATUS_"), std::string::npos) << e.what();
    return e.status();
  }
  ADD_FAILURE() << "no abft::Error thrown";
  return ABFT_STATUS_SUCCESS;
}

TEST(FftCppApi, BadArguments_Throw) {
  EXPECT_EQ(thrown_status([] { af::c2c<float>(0, af::Direction::Forward); }), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(thrown_status([] { af::c2c<double>(af::Dims{}, af::Direction::Forward); }),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(thrown_status([] { af::r2c<float>(af::Dims{4, -2}); }), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(thrown_status([] { af::c2c<float>(8, static_cast<af::Direction>(0)); }),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(thrown_status([] { af::c2r<double>(8, nullptr, af::PreserveInput | af::DestroyInput); }),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(thrown_status([] { af::c2r<double>(8, nullptr, 1u << 20); }), ABFT_STATUS_INVALID_VALUE);
  af::Side zero;
  zero.stride = 0;
  EXPECT_EQ(thrown_status([&] { af::c2c_many<float>({8}, 2, zero, {}, af::Direction::Forward); }),
            ABFT_STATUS_INVALID_LD);
  af::Side bad_embed;
  bad_embed.embed = {8, 8};  // two entries for a rank-1 transform
  EXPECT_EQ(thrown_status([&] { af::c2c_many<float>({8}, 2, bad_embed, {}, af::Direction::Forward); }),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(thrown_status([] { af::c2c_many<float>({8}, -1, {}, {}, af::Direction::Forward); }),
            ABFT_STATUS_INVALID_SIZE);

  auto p = af::c2c<double>(16, af::Direction::Forward);
  EXPECT_EQ(thrown_status([&] { p.set_threads(-1); }), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(thrown_status([&] { p.set_policy(static_cast<abft::Policy>(7)); }), ABFT_STATUS_INVALID_VALUE);
  std::vector<std::complex<double>> x(16, {1.0, 0.0});
  EXPECT_EQ(thrown_status([&] { p.execute(nullptr, x.data()); }), ABFT_STATUS_NULL_POINTER);
  // Arrays too short for the plan: an exception and nothing written.
  std::vector<std::complex<double>> shorter(15, {7.0, 7.0});
  const auto before = shorter;
  EXPECT_EQ(thrown_status([&] { p.execute(x, shorter); }), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(thrown_status([&] { p.execute(shorter, x); }), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(shorter, before);
  // R2C sizes count elements of each side: 16 reals in, 9 complex out.
  auto r = af::r2c<float>(16);
  std::vector<float> rin(16, 1.0f);
  std::vector<std::complex<float>> rout(8);
  EXPECT_EQ(thrown_status([&] { r.execute(rin, rout); }), ABFT_STATUS_INVALID_SIZE);
  rout.resize(9);
  EXPECT_EQ(r.execute(rin, rout), ABFT_STATUS_SUCCESS);
  EXPECT_FLOAT_EQ(rout[0].real(), 16.0f);
}

// ------------------------------------------------------------------ ownership
TEST(FftCppApi, MoveSemantics) {
  auto a = af::c2c<float>(32, af::Direction::Forward);
  ASSERT_TRUE(a);
  const abft_fft_plan_t raw = a.get();
  af::C2CPlan<float> b(std::move(a));
  EXPECT_FALSE(a) << "a moved-from plan is empty";
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(b.get(), raw);
  // Every call on the empty plan throws rather than crashing.
  std::vector<std::complex<float>> x = random_complex<float>(32, 1), y(32), y2(32);
  EXPECT_EQ(thrown_status([&] { a.execute(x, y); }), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(thrown_status([&] { a.describe(); }), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(thrown_status([&] { a.flops(); }), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(thrown_status([&] { a.set_policy(abft::Policy::Off); }), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(b.execute(x, y), ABFT_STATUS_SUCCESS);

  // Move assignment: the target's old plan is destroyed, the source emptied.
  auto c = af::c2c<float>(32, af::Direction::Backward);
  c = std::move(b);
  EXPECT_FALSE(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_EQ(c.execute(x, y2), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(y, y2) << "the moved plan still computes the forward transform";

  // Plans in a container survive reallocation.
  std::vector<af::C2CPlan<float>> plans;
  for (int i = 0; i < 5; ++i) plans.push_back(af::c2c<float>(8 << i, af::Direction::Forward));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(plans[size_t(i)].flops(), 5.0 * (8 << i) * (3 + i));

  // release() hands the plan to the caller, who destroys it through the C API.
  abft_fft_plan_t r = c.release();
  EXPECT_FALSE(c);
  EXPECT_EQ(r, raw);
  af::C2CPlan<float> adopted(r);
  EXPECT_EQ(adopted.execute(x, y2), ABFT_STATUS_SUCCESS);
  adopted.reset();
  EXPECT_FALSE(adopted);
}

}  // namespace
