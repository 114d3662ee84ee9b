/** \file fft_selftest_test.cpp
 *  \brief FFTW-style algebraic self-tests for sizes where no O(n^2) reference
 *  fits (Ergün's "testing multivariate linear functions", as FFTW's
 *  libbench2 verify does): linearity, impulse response, time shift =
 *  frequency modulation and frequency shift = time modulation, for c2c up to
 *  2^20 and a large prime (Bluestein), float and double; r2c/c2r linearity,
 *  impulses, shifts, agreement with c2c and round trip. Phase factors come
 *  from a table indexed by (s k mod n), reduced exactly for any n.
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

/** w[m] = exp(sign 2 pi i m / n), m in [0, n): the index is reduced exactly
 *  in integers (callers pass (s k) mod n), the angle folded into [0, pi/4]
 *  by symmetry and evaluated in double (error ~1e-16, far below the
 *  tolerances of either precision; long double sin/cos on 2^20 points would
 *  dominate the run time). */
std::vector<cld> phases(int64_t n, int sign) {
  std::vector<cld> w(static_cast<size_t>(n));
  const double two_pi = 6.283185307179586476925286766559005768;
  for (int64_t m = 0; m < n; ++m) {
    // exp(i 2 pi m/n) from the octant of m: angle a = 2 pi r / (8 n) with
    // r = 8 m reduced modulo n in integer arithmetic.
    const int64_t r8 = 8 * m;             // angle in units of 2 pi / (8 n)
    const int64_t oct = r8 / n;           // octant 0..7
    const int64_t rem = r8 - oct * n;     // in [0, n)
    const bool odd = oct & 1;
    const double a = two_pi * double(odd ? n - rem : rem) / (8.0 * double(n));  // [0, pi/4]
    const double c = std::cos(a), sn = std::sin(a);
    double re, im;  // cos/sin of (oct * pi/4 +- a) via the octant's swaps and signs
    switch (oct) {
      case 0: re = c, im = sn; break;
      case 1: re = sn, im = c; break;
      case 2: re = -sn, im = c; break;
      case 3: re = -c, im = sn; break;
      case 4: re = -c, im = -sn; break;
      case 5: re = -sn, im = -c; break;
      case 6: re = sn, im = -c; break;
      default: re = c, im = -sn; break;
    }
    w[size_t(m)] = cld(re, ld(sign) * im);
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
/** All c2c identities on one plan (plans of large Bluestein sizes are costly):
 *  linearity, impulses and a constant, time shift = frequency modulation,
 *  frequency shift = time modulation. */
template <class T>
void c2c_identities(int64_t n, int sign) {
  Op<T> F(ABFT_FFT_C2C, sign, n);
  ASSERT_EQ(F.status(), ABFT_STATUS_SUCCESS);
  const double tol = tolerance<T>(n), floor = tolerance_floor<T>(n);
  const std::vector<cld> w = phases(n, sign);
  const std::vector<cld> x1 = random_signal<T>(n, false, 1), x2 = random_signal<T>(n, false, 2);
  const std::vector<cld> y1 = F(x1);
  std::vector<cld> z(x1.size()), want(x1.size());
  {  // Linearity: F(a x1 + b x2) = a F(x1) + b F(x2); three transforms' errors + rounding of z.
    const cld a(0.75L, -0.375L), b(-1.125L, 0.5L);
    for (size_t i = 0; i < z.size(); ++i) z[i] = a * x1[i] + b * x2[i];
    const std::vector<cld> y2 = F(x2);
    for (size_t i = 0; i < want.size(); ++i) want[i] = a * y1[i] + b * y2[i];
    EXPECT_TRUE(close(F(z), want, 3.0 * tol, floor, "F(a x1 + b x2) vs a F(x1) + b F(x2)"));
  }
  {  // Impulse at j: y[k] = w[(j k) mod n].
    std::mt19937_64 g = rng_for(uint64_t(n));
    for (int64_t j : {int64_t(0), int64_t(1 + g() % uint64_t(n - 1))}) {
      std::fill(z.begin(), z.end(), cld(0, 0));
      z[size_t(j)] = cld(1, 0);
      for (int64_t k = 0; k < n; ++k) want[size_t(k)] = w[size_t(mulmod(j, k, n))];
      EXPECT_TRUE(close(F(z), want, tol, floor, "impulse at " + std::to_string(j)));
    }
    // A constant transforms to n at bin 0.
    std::fill(z.begin(), z.end(), cld(1, 0));
    std::fill(want.begin(), want.end(), cld(0, 0));
    want[0] = cld(ld(n), 0);
    EXPECT_TRUE(close(F(z), want, tol, floor, "constant"));
  }
  {  // Time shift: x'[t] = x[t - s] gives y'[k] = w[(s k) mod n] y[k].
    const int64_t s = n / 3 + 1;
    for (int64_t t = 0; t < n; ++t) z[size_t((t + s) % n)] = x1[size_t(t)];
    for (int64_t k = 0; k < n; ++k) want[size_t(k)] = w[size_t(mulmod(s, k, n))] * y1[size_t(k)];
    EXPECT_TRUE(close(F(z), want, 3.0 * tol, floor, "time shift by " + std::to_string(s)));
  }
  {  // Frequency shift: x'[t] = w[(s t) mod n] x[t] gives y'[k] = y[k + s].
    const int64_t s = n / 2 + 3;
    for (int64_t t = 0; t < n; ++t) z[size_t(t)] = w[size_t(mulmod(s, t, n))] * x1[size_t(t)];
    for (int64_t k = 0; k < n; ++k) want[size_t(k)] = y1[size_t((k + s) % n)];
    EXPECT_TRUE(close(F(z), want, 3.0 * tol, floor, "frequency shift by " + std::to_string(s)));
  }
}

// ---------------------------------------------------------------- r2c / c2r
/** r2c: linearity, time shift, impulse, agreement with c2c; c2r: linearity,
 *  c2r(r2c(x)) = n x, a single bin is 2 cos(2 pi k t / n). */
template <class T>
void real_identities(int64_t n) {
  Op<T> R(ABFT_FFT_R2C, -1, n), B(ABFT_FFT_C2R, +1, n), C(ABFT_FFT_C2C, -1, n);
  ASSERT_EQ(R.status(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(B.status(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(C.status(), ABFT_STATUS_SUCCESS);
  const double tol = tolerance<T>(n), floor = tolerance_floor<T>(n);
  const int64_t h = n / 2 + 1;
  const std::vector<cld> wf = phases(n, -1);
  const std::vector<cld> x1 = random_signal<T>(n, true, 5), x2 = random_signal<T>(n, true, 6);
  const std::vector<cld> y1 = R(x1);
  std::vector<cld> z(static_cast<size_t>(n)), want(static_cast<size_t>(h));
  {  // r2c linearity.
    const ld a = 0.625L, b = -1.375L;
    for (size_t i = 0; i < z.size(); ++i) z[i] = a * x1[i] + b * x2[i];
    const std::vector<cld> y2 = R(x2);
    for (int64_t k = 0; k < h; ++k) want[size_t(k)] = a * y1[size_t(k)] + b * y2[size_t(k)];
    EXPECT_TRUE(close(R(z), want, 3.0 * tol, floor, "r2c linearity"));
  }
  {  // r2c time shift.
    const int64_t s = n / 5 + 2;
    for (int64_t t = 0; t < n; ++t) z[size_t((t + s) % n)] = x1[size_t(t)];
    for (int64_t k = 0; k < h; ++k) want[size_t(k)] = wf[size_t(mulmod(s, k, n))] * y1[size_t(k)];
    EXPECT_TRUE(close(R(z), want, 3.0 * tol, floor, "r2c time shift"));
  }
  {  // r2c impulse.
    const int64_t j = n / 3 + 1;
    std::fill(z.begin(), z.end(), cld(0, 0));
    z[size_t(j)] = cld(1, 0);
    for (int64_t k = 0; k < h; ++k) want[size_t(k)] = wf[size_t(mulmod(j, k, n))];
    EXPECT_TRUE(close(R(z), want, tol, floor, "r2c impulse"));
  }
  {  // r2c(x) is the first n/2+1 bins of c2c(x + 0i).
    std::vector<cld> full = C(x1);
    full.resize(size_t(h));
    EXPECT_TRUE(close(y1, full, 2.0 * tol, floor, "r2c vs c2c"));
  }
  std::vector<cld> wr(static_cast<size_t>(n));
  {  // c2r linearity on Hermitian-consistent spectra.
    const std::vector<cld> X1 = random_half<T>(n, 8), X2 = random_half<T>(n, 9);
    const ld a = -0.8125L, b = 1.25L;
    std::vector<cld> Z(X1.size());
    for (size_t i = 0; i < Z.size(); ++i) Z[i] = a * X1[i] + b * X2[i];
    const std::vector<cld> v1 = B(X1), v2 = B(X2);
    for (size_t i = 0; i < wr.size(); ++i) wr[i] = a * v1[i] + b * v2[i];
    EXPECT_TRUE(close(B(Z), wr, 3.0 * tol, floor, "c2r linearity"));
  }
  {  // c2r(r2c(x)) = n x.
    for (size_t i = 0; i < wr.size(); ++i) wr[i] = x1[i] * ld(n);
    EXPECT_TRUE(close(B(y1), wr, 2.0 * tol, floor, "c2r(r2c(x)) = n x"));
  }
  {  // One bin k (and its mirror n-k): 2 cos(2 pi k t / n).
    const int64_t k = n / 7 + 1;
    std::vector<cld> d(static_cast<size_t>(h), cld(0, 0));
    d[size_t(k)] = cld(1, 0);
    for (int64_t t = 0; t < n; ++t) wr[size_t(t)] = cld(2.0L * wf[size_t(mulmod(k, t, n))].real(), 0);
    EXPECT_TRUE(close(B(d), wr, tol, floor, "c2r single bin"));
  }
}

// ---------------------------------------------------------------- registration
// c2c: 2^20 both ways, 2^17 (four-step), 3^12 (mixed radix 3), 262147 (prime:
// Bluestein). Real: 2^18, an even length whose half is prime (2 x 65537) and
// an odd prime.
struct C2CCase {
  int64_t n;
  int sign;
};
const C2CCase kC2C[] = {{1048576, -1}, {1048576, +1}, {131072, -1}, {531441, +1}, {262147, -1}};
const int64_t kReal[] = {262144, 131074, 100003};

template <class T>
void register_for() {
  for (const C2CCase& c : kC2C)
    register_test("FftSelfTest",
                  std::string("C2C_") + dir_tag(c.sign) + "_" + type_tag<T>() + "_n" + std::to_string(c.n),
                  [c] { c2c_identities<T>(c.n, c.sign); });
  for (int64_t n : kReal)
    register_test("FftSelfTest", std::string("R2C_C2R_") + type_tag<T>() + "_n" + std::to_string(n),
                  [n] { real_identities<T>(n); });
}

const bool kRegistered = [] {
  register_for<float>();
  register_for<double>();
  return true;
}();

}  // namespace
