/** \file fft_selftest_test.cpp
 *  \brief FFTW-style algebraic self-tests for sizes where no O(n^2) reference
 *  fits (Ergün's "testing multivariate linear functions", as FFTW's
 *  libbench2 verify does): linearity, impulse response, time shift =
 *  frequency modulation and frequency shift = time modulation, for c2c up to
 *  2^20 and a large prime (Bluestein), float and double; r2c/c2r linearity,
 *  impulses, shifts, agreement with c2c and round trip. Phase factors come
 *  from a long-double table indexed by (s k mod n), exact for any n.
 */
#include <gtest/gtest.h>

#include "fft_test_util.hpp"

using namespace abft_fft_test;

namespace {

/** One contiguous 1D plan applied to long-double vectors (rounded to T on
 *  the way in). Every execution must pass its checks. */
template <class T>
class Op {
 public:
  Op(abft_fft_kind kind, int sign, int64_t n) : kind_(kind), sign_(sign), n_(n) {
    status_ = abft_fft_plan_1d(plan_.out(), h_.get(), precision_of<T>(), kind, n, sign, 0);
  }
  abft_status status() const { return status_; }
  std::vector<cld> operator()(const std::vector<cld>& x) {
    Transform<T> t;
    t.g = contiguous(kind_, sign_, {n_});
    t.allocate();
    t.set_input(0, x);
    const Run<T> r = t.execute(plan_.get());
    EXPECT_EQ(r.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.status);
    EXPECT_EQ(r.report.detected, 0u) << "false positive in a self-test transform";
    return t.output(0);
  }

 private:
  abft::Handle h_;
  Plan plan_;
  abft_fft_kind kind_;
  int sign_;
  int64_t n_;
  abft_status status_ = ABFT_STATUS_INTERNAL_ERROR;
};

/** w[m] = exp(sign 2 pi i m / n), m in [0, n), long double. */
std::vector<cld> phases(int64_t n, int sign) {
  std::vector<cld> w(static_cast<size_t>(n));
  const ld two_pi = 6.283185307179586476925286766559005768L;
  for (int64_t m = 0; m < n; ++m) {
    const ld a = two_pi * ld(m) / ld(n);
    w[size_t(m)] = cld(std::cos(a), ld(sign) * std::sin(a));
  }
  return w;
}
inline int64_t mulmod(int64_t a, int64_t b, int64_t n) {
  return int64_t((static_cast<unsigned __int128>(uint64_t(a)) * uint64_t(b)) % uint64_t(n));
}

template <class T>
std::vector<cld> random_signal(int64_t n, bool real, uint64_t seed) {
  std::vector<cld> v(static_cast<size_t>(n));
  if (real) {
    const auto r = random_real<T>(n, seed);
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = cld(r[size_t(i)], 0.0L);
  } else {
    const auto r = random_complex<T>(n, seed);
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = cld(r[size_t(i)].real(), r[size_t(i)].imag());
  }
  return v;
}
/** A random Hermitian-consistent half spectrum of a length-n real signal. */
template <class T>
std::vector<cld> random_half(int64_t n, uint64_t seed) {
  std::vector<cld> v = random_signal<T>(n / 2 + 1, false, seed);
  make_hermitian(&v, {n});
  return v;
}

::testing::AssertionResult close(const std::vector<cld>& got, const std::vector<cld>& want,
                                 double tol, double floor, const std::string& what) {
  const ErrStats s = compare(got, want);
  ::testing::AssertionResult r = within(s, tol, floor, got, want);
  if (!r) return ::testing::AssertionFailure() << what << ": " << r.message();
  return r;
}

// ---------------------------------------------------------------- c2c
template <class T>
void c2c_linearity(int64_t n, int sign) {
  Op<T> F(ABFT_FFT_C2C, sign, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> x1 = random_signal<T>(n, false, 1), x2 = random_signal<T>(n, false, 2);
  const cld a(0.75L, -0.375L), b(-1.125L, 0.5L);
  std::vector<cld> z(x1.size());
  for (size_t i = 0; i < z.size(); ++i) z[i] = a * x1[i] + b * x2[i];
  const std::vector<cld> y1 = F(x1), y2 = F(x2), yz = F(z);
  std::vector<cld> want(y1.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = a * y1[i] + b * y2[i];
  // Three transforms' errors plus the rounding of z to T.
  EXPECT_TRUE(close(yz, want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n),
                    "F(a x1 + b x2) vs a F(x1) + b F(x2)"));
}

template <class T>
void c2c_impulse(int64_t n, int sign) {
  Op<T> F(ABFT_FFT_C2C, sign, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> w = phases(n, sign);
  std::mt19937_64 g = rng_for(uint64_t(n));
  for (int64_t j : {int64_t(0), int64_t(1), int64_t(g() % uint64_t(n)), n - 1}) {
    std::vector<cld> x(static_cast<size_t>(n), cld(0, 0));
    x[size_t(j)] = cld(1, 0);
    std::vector<cld> want(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) want[size_t(k)] = w[size_t(mulmod(j, k, n))];
    EXPECT_TRUE(close(F(x), want, tolerance<T>(n), tolerance_floor<T>(n),
                      "impulse at " + std::to_string(j)));
  }
  // A constant transforms to n at bin 0.
  std::vector<cld> one(static_cast<size_t>(n), cld(1, 0)), want(static_cast<size_t>(n), cld(0, 0));
  want[0] = cld(ld(n), 0);
  EXPECT_TRUE(close(F(one), want, tolerance<T>(n), tolerance_floor<T>(n), "constant"));
}

/** x'[t] = x[t - s] gives y'[k] = exp(sign 2 pi i s k / n) y[k]. */
template <class T>
void c2c_time_shift(int64_t n, int sign) {
  Op<T> F(ABFT_FFT_C2C, sign, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> w = phases(n, sign);
  const std::vector<cld> x = random_signal<T>(n, false, 3);
  const std::vector<cld> y = F(x);
  for (int64_t s : {int64_t(1), n / 3 + 1}) {
    std::vector<cld> xs(x.size());
    for (int64_t t = 0; t < n; ++t) xs[size_t((t + s) % n)] = x[size_t(t)];
    std::vector<cld> want(y.size());
    for (int64_t k = 0; k < n; ++k) want[size_t(k)] = w[size_t(mulmod(s, k, n))] * y[size_t(k)];
    EXPECT_TRUE(close(F(xs), want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n),
                      "time shift by " + std::to_string(s)));
  }
}

/** x'[t] = exp(sign 2 pi i s t / n) x[t] gives y'[k] = y[k + s]. */
template <class T>
void c2c_frequency_shift(int64_t n, int sign) {
  Op<T> F(ABFT_FFT_C2C, sign, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> w = phases(n, sign);
  const std::vector<cld> x = random_signal<T>(n, false, 4);
  const std::vector<cld> y = F(x);
  for (int64_t s : {int64_t(1), n / 2 + 3}) {
    std::vector<cld> xm(x.size());
    for (int64_t t = 0; t < n; ++t) xm[size_t(t)] = w[size_t(mulmod(s, t, n))] * x[size_t(t)];
    std::vector<cld> want(y.size());
    for (int64_t k = 0; k < n; ++k) want[size_t(k)] = y[size_t((k + s) % n)];
    EXPECT_TRUE(close(F(xm), want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n),
                      "frequency shift by " + std::to_string(s)));
  }
}

// ---------------------------------------------------------------- r2c / c2r
template <class T>
void r2c_linearity_and_shift(int64_t n) {
  Op<T> F(ABFT_FFT_R2C, -1, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const int64_t h = n / 2 + 1;
  const std::vector<cld> x1 = random_signal<T>(n, true, 5), x2 = random_signal<T>(n, true, 6);
  const ld a = 0.625L, b = -1.375L;
  std::vector<cld> z(x1.size());
  for (size_t i = 0; i < z.size(); ++i) z[i] = a * x1[i] + b * x2[i];
  const std::vector<cld> y1 = F(x1), y2 = F(x2), yz = F(z);
  std::vector<cld> want(static_cast<size_t>(h));
  for (int64_t k = 0; k < h; ++k) want[size_t(k)] = a * y1[size_t(k)] + b * y2[size_t(k)];
  EXPECT_TRUE(close(yz, want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n), "r2c linearity"));
  // Time shift.
  const std::vector<cld> w = phases(n, -1);
  const int64_t s = n / 5 + 2;
  std::vector<cld> xs(x1.size());
  for (int64_t t = 0; t < n; ++t) xs[size_t((t + s) % n)] = x1[size_t(t)];
  for (int64_t k = 0; k < h; ++k) want[size_t(k)] = w[size_t(mulmod(s, k, n))] * y1[size_t(k)];
  EXPECT_TRUE(close(F(xs), want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n), "r2c time shift"));
  // Impulse.
  const int64_t j = n / 3 + 1;
  std::vector<cld> d(static_cast<size_t>(n), cld(0, 0));
  d[size_t(j)] = cld(1, 0);
  for (int64_t k = 0; k < h; ++k) want[size_t(k)] = w[size_t(mulmod(j, k, n))];
  EXPECT_TRUE(close(F(d), want, tolerance<T>(n), tolerance_floor<T>(n), "r2c impulse"));
}

/** r2c(x) is the first n/2+1 bins of c2c(x + 0i). */
template <class T>
void r2c_matches_c2c(int64_t n) {
  Op<T> R(ABFT_FFT_R2C, -1, n), C(ABFT_FFT_C2C, -1, n);
  ASSERT_EQ(R.status(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(C.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> x = random_signal<T>(n, true, 7);
  std::vector<cld> full = C(x);
  full.resize(size_t(n / 2 + 1));
  EXPECT_TRUE(close(R(x), full, 2.0 * tolerance<T>(n), tolerance_floor<T>(n), "r2c vs c2c"));
}

template <class T>
void c2r_linearity_and_round_trip(int64_t n) {
  Op<T> B(ABFT_FFT_C2R, +1, n), F(ABFT_FFT_R2C, -1, n);
  ASSERT_EQ(B.status(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const std::vector<cld> X1 = random_half<T>(n, 8), X2 = random_half<T>(n, 9);
  const ld a = -0.8125L, b = 1.25L;
  std::vector<cld> Z(X1.size());
  for (size_t i = 0; i < Z.size(); ++i) Z[i] = a * X1[i] + b * X2[i];
  const std::vector<cld> y1 = B(X1), y2 = B(X2), yz = B(Z);
  std::vector<cld> want(y1.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = a * y1[i] + b * y2[i];
  EXPECT_TRUE(close(yz, want, 3.0 * tolerance<T>(n), tolerance_floor<T>(n), "c2r linearity"));
  // c2r(r2c(x)) = n x.
  const std::vector<cld> x = random_signal<T>(n, true, 10);
  const std::vector<cld> back = B(F(x));
  for (size_t i = 0; i < want.size(); ++i) want[i] = x[i] * ld(n);
  EXPECT_TRUE(close(back, want, 2.0 * tolerance<T>(n), tolerance_floor<T>(n), "c2r(r2c(x)) = n x"));
  // A single bin k (and its mirror) is 2 cos(2 pi k t / n); the DC bin a constant.
  const std::vector<cld> w = phases(n, +1);
  const int64_t k = n / 7 + 1;
  std::vector<cld> d(static_cast<size_t>(n / 2 + 1), cld(0, 0));
  d[size_t(k)] = cld(1, 0);
  for (int64_t t = 0; t < n; ++t) want[size_t(t)] = cld(2.0L * w[size_t(mulmod(k, t, n))].real(), 0);
  EXPECT_TRUE(close(B(d), want, tolerance<T>(n), tolerance_floor<T>(n), "c2r single bin"));
}

// ---------------------------------------------------------------- registration
// 2^17 (four-step), 2^20, 3^12 (mixed radix), 1048573 (prime: Bluestein).
const int64_t kC2CSizes[] = {131072, 1048576, 531441, 1048573};
// Even (half length a power of two / a prime) and odd (prime) real lengths.
const int64_t kRealSizes[] = {1048576, 1048574, 999983, 262144};

template <class T>
void register_for() {
  for (int64_t n : kC2CSizes) {
    const std::string sfx = std::string("_") + type_tag<T>() + "_n" + std::to_string(n);
    for (int sign : {-1, +1}) {
      const std::string dir = dir_tag(sign);
      register_test("FftSelfTest", "C2C_Linearity_" + dir + sfx, [n, sign] { c2c_linearity<T>(n, sign); });
      register_test("FftSelfTest", "C2C_Impulse_" + dir + sfx, [n, sign] { c2c_impulse<T>(n, sign); });
    }
    register_test("FftSelfTest", "C2C_TimeShift_Forward" + sfx, [n] { c2c_time_shift<T>(n, -1); });
    register_test("FftSelfTest", "C2C_FrequencyShift_Backward" + sfx,
                  [n] { c2c_frequency_shift<T>(n, +1); });
  }
  for (int64_t n : kRealSizes) {
    const std::string sfx = std::string("_") + type_tag<T>() + "_n" + std::to_string(n);
    register_test("FftSelfTest", "R2C_LinearityShiftImpulse" + sfx, [n] { r2c_linearity_and_shift<T>(n); });
    register_test("FftSelfTest", "R2C_MatchesC2C" + sfx, [n] { r2c_matches_c2c<T>(n); });
    register_test("FftSelfTest", "C2R_LinearityRoundTripBin" + sfx,
                  [n] { c2r_linearity_and_round_trip<T>(n); });
  }
}

const bool kRegistered = [] {
  register_for<float>();
  register_for<double>();
  return true;
}();

}  // namespace
