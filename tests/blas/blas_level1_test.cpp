/** \file blas_level1_test.cpp
 *  \brief BLAS Level 1 of the shim (Fortran-77 and CBLAS entries) against the reference BLAS.
 *
 *  Our entries are the exported symbols of the linked shim (looked up by name in the global
 *  scope, so every name is also an export check); the oracle is the reference library of
 *  ref_blas.hpp. Grids: n in {0, 1, 2, 7, 33} (and long vectors for the blocked paths),
 *  incx, incy in {1, 2, -1, -3}. Element-wise routines must match the reference bit for bit
 *  (same formulas, same rounding); reductions within a rounding bound (we sum in lanes).
 *  Special values: nrm2 with huge/tiny entries (no overflow/underflow), Inf and NaN; i?amax
 *  with ties, NaN and Inf; scal by 0 and 1 on NaN/Inf; rotg/rotmg edge cases.
 */
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/cblas.h"
#include "ref_blas.hpp"

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
template <class T> struct real_of { using type = T; };
template <class R> struct real_of<std::complex<R>> { using type = R; };
template <class T> using real_t = typename real_of<T>::type;
template <class T> constexpr bool is_cplx = !std::is_same_v<T, real_t<T>>;

const int kNs[] = {0, 1, 2, 7, 33};
const int kIncs[] = {1, 2, -1, -3};

/** An entry of ours (global scope: the linked shim) and the reference's, by name. */
template <class F> struct Both {
  F* ours;
  F* ref;
};
template <class F> Both<F> lookup(const std::string& name) {
  return {reinterpret_cast<F*>(dlsym(RTLD_DEFAULT, name.c_str())),
          RefBlas::get().fn<F>(name.c_str())};
}
#define LOOKUP_OR_SKIP(var, name, ...)                                      \
  const auto var = lookup<__VA_ARGS__>(name);                               \
  ASSERT_NE(var.ours, nullptr) << (name) << " is not exported by the shim"; \
  if (!var.ref) GTEST_SKIP() << RefBlas::get().why() << " / " << (name);

/** The reference's CBLAS entry with the type of ours. */
#define REF_CBLAS(f) RefBlas::get().fn<decltype(f)>(#f)

// ---- data and comparisons --------------------------------------------------------------
template <class T> T rnd(std::mt19937& g) {
  std::uniform_real_distribution<real_t<T>> u(-1, 1);
  if constexpr (is_cplx<T>) {
    const real_t<T> re = u(g);
    return T(re, u(g));
  } else {
    return u(g);
  }
}
/** Storage for n elements at stride inc (at least one element). */
template <class T> std::vector<T> vec(int n, int inc, unsigned seed) {
  const size_t len = n > 0 ? 1 + size_t(n - 1) * size_t(std::abs(inc)) : 1;
  std::mt19937 g(seed);
  std::vector<T> v(len);
  for (auto& e : v) e = rnd<T>(g);
  return v;
}
template <class R> bool same(R a, R b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
template <class R> bool same(std::complex<R> a, std::complex<R> b) {
  return same(a.real(), b.real()) && same(a.imag(), b.imag());
}
template <class R> bool near(R a, R b, R tol) {
  if (!std::isfinite(a) || !std::isfinite(b)) return same(a, b);
  return std::abs(a - b) <= tol;
}
template <class R> bool near(std::complex<R> a, std::complex<R> b, R tol) {
  return near(a.real(), b.real(), tol) && near(a.imag(), b.imag(), tol);
}
template <class T> void expect_same(const std::vector<T>& a, const std::vector<T>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same(a[i], b[i])) << "element " << i;
}
template <class R> R eps() { return std::numeric_limits<R>::epsilon(); }
/** Rounding bound of a sum of n terms of magnitude <= scale (generous constant). */
template <class R> R sum_tol(int n, R scale) {
  return R(4) * R(n + 2) * eps<R>() * scale + std::numeric_limits<R>::min();
}
std::string cfg(int n, int incx, int incy = 0) {
  return "n=" + std::to_string(n) + " incx=" + std::to_string(incx) +
         (incy ? " incy=" + std::to_string(incy) : "");
}

// ---- names per type --------------------------------------------------------------------
template <class T> struct Names;
template <> struct Names<float> {
  static constexpr const char *p = "s", *nrm2 = "snrm2_", *asum = "sasum_", *iamax = "isamax_",
                              *dotu = "sdot_", *dotc = "sdot_", *rot = "srot_";
};
template <> struct Names<double> {
  static constexpr const char *p = "d", *nrm2 = "dnrm2_", *asum = "dasum_", *iamax = "idamax_",
                              *dotu = "ddot_", *dotc = "ddot_", *rot = "drot_";
};
template <> struct Names<cfloat> {
  static constexpr const char *p = "c", *nrm2 = "scnrm2_", *asum = "scasum_",
                              *iamax = "icamax_", *dotu = "cdotu_", *dotc = "cdotc_",
                              *rot = "csrot_", *rscal = "csscal_";
};
template <> struct Names<cdouble> {
  static constexpr const char *p = "z", *nrm2 = "dznrm2_", *asum = "dzasum_",
                              *iamax = "izamax_", *dotu = "zdotu_", *dotc = "zdotc_",
                              *rot = "zdrot_", *rscal = "zdscal_";
};
template <class T> std::string name(const char* stem) {
  return std::string(Names<T>::p) + stem + "_";
}

template <class T> using VecFn = void(const int*, T*, const int*, T*, const int*);
template <class T> using CopyFn = void(const int*, const T*, const int*, T*, const int*);
template <class T>
using AxpyFn = void(const int*, const T*, const T*, const int*, T*, const int*);
template <class T, class S> using ScalFn = void(const int*, const S*, T*, const int*);
template <class T>
using RotFn = void(const int*, T*, const int*, T*, const int*, const real_t<T>*,
                   const real_t<T>*);
template <class T> using DotFn = T(const int*, const T*, const int*, const T*, const int*);
template <class T> using NormFn = real_t<T>(const int*, const T*, const int*);
template <class T> using IamaxFn = int(const int*, const T*, const int*);

struct TypeNames {
  template <class T> static std::string GetName(int) {
    if (std::is_same_v<T, float>) return "s";
    if (std::is_same_v<T, double>) return "d";
    if (std::is_same_v<T, cfloat>) return "c";
    return "z";
  }
};

template <class T> class Level1 : public ::testing::Test {};
using AllTypes = ::testing::Types<float, double, cfloat, cdouble>;
TYPED_TEST_SUITE(Level1, AllTypes, TypeNames);

// ---- element-wise routines: bitwise equal to the reference -------------------------------

/** Runs f(n, incx, incy) over the grid with a trace of the configuration. */
template <class F> void grid2(F f) {
  for (int n : kNs)
    for (int incx : kIncs)
      for (int incy : kIncs) {
        SCOPED_TRACE(cfg(n, incx, incy));
        f(n, incx, incy);
      }
}

TYPED_TEST(Level1, CopyAndSwapMatchReference) {
  using T = TypeParam;
  LOOKUP_OR_SKIP(copy, name<T>("copy"), CopyFn<T>);
  LOOKUP_OR_SKIP(swap, name<T>("swap"), VecFn<T>);
  grid2([&](int n, int incx, int incy) {
    const auto x = vec<T>(n, incx, 1);
    auto y1 = vec<T>(n, incy, 2), y2 = y1;
    copy.ours(&n, x.data(), &incx, y1.data(), &incy);
    copy.ref(&n, x.data(), &incx, y2.data(), &incy);
    expect_same(y1, y2);
    auto a1 = vec<T>(n, incx, 3), a2 = a1, b1 = vec<T>(n, incy, 4), b2 = b1;
    swap.ours(&n, a1.data(), &incx, b1.data(), &incy);
    swap.ref(&n, a2.data(), &incx, b2.data(), &incy);
    expect_same(a1, a2);
    expect_same(b1, b2);
  });
}

TYPED_TEST(Level1, AxpyMatchesReference) {
  using T = TypeParam;
  LOOKUP_OR_SKIP(axpy, name<T>("axpy"), AxpyFn<T>);
  std::vector<T> alphas = {T(real_t<T>(0.7)), T(0), T(-1)};
  if constexpr (is_cplx<T>) alphas.push_back(T(0.3, -0.4));
  for (const T alpha : alphas)
    grid2([&](int n, int incx, int incy) {
      const auto x = vec<T>(n, incx, 5);
      auto y1 = vec<T>(n, incy, 6), y2 = y1;
      axpy.ours(&n, &alpha, x.data(), &incx, y1.data(), &incy);
      axpy.ref(&n, &alpha, x.data(), &incx, y2.data(), &incy);
      expect_same(y1, y2);
    });
}

TYPED_TEST(Level1, RotMatchesReference) {
  using T = TypeParam;
  using R = real_t<T>;
  LOOKUP_OR_SKIP(rot, Names<T>::rot, RotFn<T>);
  const R c = R(0.6), s = R(-0.8);
  grid2([&](int n, int incx, int incy) {
    auto x1 = vec<T>(n, incx, 7), x2 = x1, y1 = vec<T>(n, incy, 8), y2 = y1;
    rot.ours(&n, x1.data(), &incx, y1.data(), &incy, &c, &s);
    rot.ref(&n, x2.data(), &incx, y2.data(), &incy, &c, &s);
    expect_same(x1, x2);
    expect_same(y1, y2);
  });
}

/** x <- alpha x for every alpha over n and incx (incx <= 0: untouched, as the reference). */
template <class T, class S> void check_scal(const Both<ScalFn<T, S>>& scal, std::vector<S> alphas) {
  for (const S alpha : alphas)
    for (int n : kNs)
      for (int incx : {1, 2, -1, 0}) {
        SCOPED_TRACE(cfg(n, incx));
        auto x1 = vec<T>(n, incx, 9), x2 = x1;
        if (x1.size() > 2) x1[1] = x2[1] = T(std::numeric_limits<real_t<T>>::quiet_NaN());
        if (x1.size() > 3) x1[2] = x2[2] = T(std::numeric_limits<real_t<T>>::infinity());
        scal.ours(&n, &alpha, x1.data(), &incx);
        scal.ref(&n, &alpha, x2.data(), &incx);
        expect_same(x1, x2);
      }
}

TYPED_TEST(Level1, ScalMatchesReferenceIncludingZeroOneAndNaN) {
  using T = TypeParam;
  using R = real_t<T>;
  LOOKUP_OR_SKIP(scal, name<T>("scal"), ScalFn<T, T>);
  std::vector<T> alphas = {T(R(2.5)), T(0), T(1), T(-1)};
  if constexpr (is_cplx<T>) {
    alphas.push_back(T(0.3, -1.2));
    alphas.push_back(T(0, 1));
    alphas.push_back(T(2, 0));
  }
  check_scal<T, T>(scal, alphas);
  if constexpr (is_cplx<T>) {
    LOOKUP_OR_SKIP(rscal, Names<T>::rscal, ScalFn<T, R>);
    check_scal<T, R>(rscal, {R(2.5), R(0), R(1), R(-0.5)});
  }
}

// ---- reductions: within rounding of the reference ------------------------------------------

TYPED_TEST(Level1, DotProductsMatchReference) {
  using T = TypeParam;
  using R = real_t<T>;
  LOOKUP_OR_SKIP(dotu, Names<T>::dotu, DotFn<T>);
  LOOKUP_OR_SKIP(dotc, Names<T>::dotc, DotFn<T>);
  for (int n : {0, 1, 2, 7, 33, 1000})
    for (int incx : kIncs)
      for (int incy : kIncs) {
        SCOPED_TRACE(cfg(n, incx, incy));
        const auto x = vec<T>(n, incx, 10), y = vec<T>(n, incy, 11);
        const R tol = sum_tol<R>(n, R(2));
        EXPECT_TRUE(near(dotu.ours(&n, x.data(), &incx, y.data(), &incy),
                         dotu.ref(&n, x.data(), &incx, y.data(), &incy), tol));
        EXPECT_TRUE(near(dotc.ours(&n, x.data(), &incx, y.data(), &incy),
                         dotc.ref(&n, x.data(), &incx, y.data(), &incy), tol));
      }
}

TYPED_TEST(Level1, AsumNrm2IamaxMatchReference) {
  using T = TypeParam;
  using R = real_t<T>;
  LOOKUP_OR_SKIP(asum, Names<T>::asum, NormFn<T>);
  LOOKUP_OR_SKIP(nrm2, Names<T>::nrm2, NormFn<T>);
  LOOKUP_OR_SKIP(iamax, Names<T>::iamax, IamaxFn<T>);
  for (int n : {0, 1, 2, 7, 33, 1000})
    for (int incx : {1, 2, -1, -3, 0}) {
      SCOPED_TRACE(cfg(n, incx));
      const auto x = vec<T>(n, incx, 12);
      const R a = asum.ours(&n, x.data(), &incx), ar = asum.ref(&n, x.data(), &incx);
      EXPECT_TRUE(near(a, ar, sum_tol<R>(n, R(2)))) << a << " vs " << ar;
      const R s = nrm2.ours(&n, x.data(), &incx), sr = nrm2.ref(&n, x.data(), &incx);
      EXPECT_TRUE(near(s, sr, sum_tol<R>(n, sr))) << s << " vs " << sr;
      EXPECT_EQ(iamax.ours(&n, x.data(), &incx), iamax.ref(&n, x.data(), &incx));
    }
}

/** nrm2 of n copies of v (unit, 2 and -1 strides) equals |v| sqrt(n) and the reference. */
template <class T> void check_nrm2_scale(const Both<NormFn<T>>& nrm2, real_t<T> v) {
  using R = real_t<T>;
  for (int n : {1, 7, 33, 1000})
    for (int incx : {1, 2, -1}) {
      SCOPED_TRACE(cfg(n, incx) + " v=" + std::to_string(double(v)));
      std::vector<T> x(1 + size_t(n - 1) * size_t(std::abs(incx)), T(v));
      const R s = nrm2.ours(&n, x.data(), &incx), sr = nrm2.ref(&n, x.data(), &incx);
      const R exact = R(std::abs(double(v)) * std::sqrt(double(n)));  // T(v) = (v, 0)
      // a sum of n squares' rounding, or a few units of the last place if subnormal
      const R tol = 2 * R(n + 2) * eps<R>() * exact + 4 * std::numeric_limits<R>::denorm_min();
      EXPECT_TRUE(std::isfinite(s) && s > 0) << s;
      EXPECT_NEAR(s, exact, tol);
      EXPECT_NEAR(s, sr, tol);
    }
}

TYPED_TEST(Level1, Nrm2NeitherOverflowsNorUnderflows) {
  using T = TypeParam;
  using R = real_t<T>;
  using L = std::numeric_limits<R>;
  LOOKUP_OR_SKIP(nrm2, Names<T>::nrm2, NormFn<T>);
  for (R v : {L::max() / R(1e4), L::max() / R(1e6), R(1), L::min() * 4, L::denorm_min() * 64,
              R(-L::min() / 2)})
    check_nrm2_scale<T>(nrm2, v);
  // Mixtures in one vector: huge, tiny, medium and zero entries, in the blocked path too.
  for (int n : {7, 600}) {
    SCOPED_TRACE(cfg(n, 1));
    std::vector<T> x = vec<T>(n, 1, 13);
    x[n / 2] = T(L::max() / 8);
    x[1] = T(L::min() * 2);
    x[n - 1] = T(0);
    const R s = nrm2.ours(&n, x.data(), &kIncs[0]), sr = nrm2.ref(&n, x.data(), &kIncs[0]);
    EXPECT_NEAR(s / sr, R(1), 16 * eps<R>());
    for (auto& e : x) e = e * T(L::min());  // all small or zero
    x[0] = T(0);
    const R t = nrm2.ours(&n, x.data(), &kIncs[0]), tr = nrm2.ref(&n, x.data(), &kIncs[0]);
    EXPECT_GT(t, R(0));
    EXPECT_NEAR(t / tr, R(1), 16 * eps<R>());
  }
}

TYPED_TEST(Level1, Nrm2AndAsumPropagateInfAndNaN) {
  using T = TypeParam;
  using R = real_t<T>;
  const R inf = std::numeric_limits<R>::infinity(), nan = std::numeric_limits<R>::quiet_NaN();
  LOOKUP_OR_SKIP(nrm2, Names<T>::nrm2, NormFn<T>);
  LOOKUP_OR_SKIP(asum, Names<T>::asum, NormFn<T>);
  for (int n : {3, 40, 600})
    for (int pos : {0, 1}) {
      SCOPED_TRACE(cfg(n, 1) + " pos=" + std::to_string(pos));
      const int one = 1;
      for (R special : {inf, -inf, nan}) {
        auto x = vec<T>(n, 1, 14);
        x[size_t(pos ? n - 1 : n / 2)] = T(special);
        EXPECT_TRUE(same(nrm2.ours(&n, x.data(), &one), nrm2.ref(&n, x.data(), &one)));
        EXPECT_TRUE(same(asum.ours(&n, x.data(), &one), asum.ref(&n, x.data(), &one)));
      }
      auto x = vec<T>(n, 1, 15);  // Inf and NaN together give NaN
      x[0] = T(inf);
      x[size_t(n - 1)] = T(nan);
      EXPECT_TRUE(std::isnan(nrm2.ours(&n, x.data(), &one)));
    }
}

TYPED_TEST(Level1, IamaxFirstMaximumNaNAndInfAsReference) {
  using T = TypeParam;
  using R = real_t<T>;
  const R inf = std::numeric_limits<R>::infinity(), nan = std::numeric_limits<R>::quiet_NaN();
  LOOKUP_OR_SKIP(iamax, Names<T>::iamax, IamaxFn<T>);
  for (int n : {1, 2, 7, 33, 300, 1000})
    for (int incx : {1, 2, -1, 0}) {
      SCOPED_TRACE(cfg(n, incx));
      const size_t len = 1 + size_t(n - 1) * size_t(std::abs(incx));
      auto check = [&](const std::vector<T>& x) {
        EXPECT_EQ(iamax.ours(&n, x.data(), &incx), iamax.ref(&n, x.data(), &incx));
      };
      check(std::vector<T>(len, T(R(0.5))));  // all equal: the first
      check(std::vector<T>(len, T(0)));
      for (size_t at : {size_t(0), len / 3, len - 1}) {
        for (R v : {nan, inf, R(3)}) {
          auto x = vec<T>(n, incx, 16);
          x[at] = T(v);
          check(x);
          if (len > 4) {  // a tie after the first maximum, and a NaN before it
            x[len - 2] = T(v);
            x[len / 4] = T(nan);
            check(x);
          }
        }
      }
    }
  const int n = 5, one = 1;  // |re| + |im| ranks complex values (3+3i beats 4)
  std::vector<T> x(5, T(R(1)));
  x[1] = T(R(4));
  if constexpr (is_cplx<T>) x[3] = T(3, -3);
  EXPECT_EQ(iamax.ours(&n, x.data(), &one), iamax.ref(&n, x.data(), &one));
}

// ---- rotation constructors ---------------------------------------------------------------

template <class R> std::vector<R> rotg_values() {
  using L = std::numeric_limits<R>;
  return {R(0), R(-0.0), R(1), R(-2), R(3), R(4e-3), R(-7.5e4), L::min() * 3,
          L::max() / 3, L::denorm_min() * 1000};
}

TYPED_TEST(Level1, RotgMatchesReference) {
  using T = TypeParam;
  using R = real_t<T>;
  using RotgFn =
      std::conditional_t<is_cplx<T>, void(T*, const T*, R*, T*), void(R*, R*, R*, R*)>;
  LOOKUP_OR_SKIP(rotg, name<T>("rotg"), RotgFn);
  const auto vals = rotg_values<R>();
  std::vector<T> args;
  if constexpr (is_cplx<T>) {
    for (R re : vals)
      for (R im : {R(0), R(1.5), R(-2e-3)}) args.push_back(T(re, im));
    args.push_back(T(vals[7], vals[8]));  // tiny and huge parts together
    args.push_back(T(vals[9], vals[9]));
  } else {
    args.assign(vals.begin(), vals.end());
  }
  const R tol = 8 * eps<R>();
  auto close = [&](T a, T b) {  // relative to the larger part
    const R scale = std::abs(std::real(b)) + std::abs(std::imag(b));
    return near(a, b, tol * scale + std::numeric_limits<R>::denorm_min());
  };
  for (T a0 : args)
    for (T b0 : args) {
      SCOPED_TRACE("a=" + std::to_string(double(std::real(a0))) + "," +
                   std::to_string(double(std::imag(a0))) +
                   " b=" + std::to_string(double(std::real(b0))) + "," +
                   std::to_string(double(std::imag(b0))));
      T a1 = a0, b1 = b0, a2 = a0, b2 = b0, s1 = T(9), s2 = T(9);
      R c1 = 9, c2 = 9;
      rotg.ours(&a1, &b1, &c1, &s1);
      rotg.ref(&a2, &b2, &c2, &s2);
      EXPECT_TRUE(close(a1, a2)) << "r " << a1 << " vs " << a2;
      EXPECT_TRUE(close(b1, b2)) << "b/z " << b1 << " vs " << b2;
      EXPECT_TRUE(near(c1, c2, tol)) << "c " << c1 << " vs " << c2;
      EXPECT_TRUE(close(s1, s2)) << "s " << s1 << " vs " << s2;
    }
}

// ---- real-only routines ----------------------------------------------------------------------

template <class R> class Level1Real : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Level1Real, RealTypes, TypeNames);

TYPED_TEST(Level1Real, RotmMatchesReferenceForEveryFlag) {
  using R = TypeParam;
  LOOKUP_OR_SKIP(rotm, name<R>("rotm"), void(const int*, R*, const int*, R*, const int*, const R*));
  for (R flag : {R(-2), R(-1), R(0), R(1)}) {
    const R param[5] = {flag, R(0.5), R(-1.25), R(2), R(0.75)};
    grid2([&](int n, int incx, int incy) {
      SCOPED_TRACE("flag " + std::to_string(double(flag)));
      auto x1 = vec<R>(n, incx, 17), x2 = x1, y1 = vec<R>(n, incy, 18), y2 = y1;
      rotm.ours(&n, x1.data(), &incx, y1.data(), &incy, param);
      rotm.ref(&n, x2.data(), &incx, y2.data(), &incy, param);
      expect_same(x1, x2);
      expect_same(y1, y2);
    });
  }
}

using RotmgCase = std::array<double, 4>;  // d1, d2, x1, y1
/** Cases of at most one rescaling step (where reference 3.11 is right), every branch. */
const RotmgCase kRotmgCases[] = {
    {0.1, 0.3, 1.2, 0.2},  {0.7, 0.2, 0.6, 4.2},  {0, 0, 0, 0},       {4, -1, 2, 4},
    {6e-10, 2e-2, 1e5, 10}, {4e10, 2e-2, 1e-5, 10}, {2e-10, 4e-2, 1e5, 10}, {2e10, 4e-2, 1e-5, 10},
    {4, -2, 8, 4},         {-1, 1, 1, 1},         {1, 0, 1, 1},       {1, 1, 0, 1},
    {1, 1, 1, 0},          {2, 3, -1.5, 0.25},    {1e-8, 1, 1, 2},    {1e8, 1e-3, 2, 1}};

TYPED_TEST(Level1Real, RotmgMatchesReference) {
  using R = TypeParam;
  LOOKUP_OR_SKIP(rotmg, name<R>("rotmg"), void(R*, R*, R*, const R*, R*));
  const R tol = 8 * eps<R>();
  for (const auto& k : kRotmgCases) {
    SCOPED_TRACE("d1=" + std::to_string(k[0]) + " d2=" + std::to_string(k[1]) +
                 " x1=" + std::to_string(k[2]) + " y1=" + std::to_string(k[3]));
    R d1 = R(k[0]), d2 = R(k[1]), x1 = R(k[2]), e1 = d1, e2 = d2, z1 = x1;
    const R y1 = R(k[3]);
    R p1[5] = {7, 7, 7, 7, 7}, p2[5] = {7, 7, 7, 7, 7};
    rotmg.ours(&d1, &d2, &x1, &y1, p1);
    rotmg.ref(&e1, &e2, &z1, &y1, p2);
    auto rel = [&](R a, R b) { return near(a, b, tol * std::abs(b)); };
    EXPECT_TRUE(rel(d1, e1)) << d1 << " vs " << e1;
    EXPECT_TRUE(rel(d2, e2)) << d2 << " vs " << e2;
    EXPECT_TRUE(rel(x1, z1)) << x1 << " vs " << z1;
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(rel(p1[i], p2[i])) << "param " << i;
  }
}

/** Where 3.11 rescales more than once it returns a wrong H (Reference-LAPACK #244); ours
 *  must satisfy the definition: H zeroes y1 and d1' x1'^2 = d1 x1^2 + d2 y1^2. */
TYPED_TEST(Level1Real, RotmgRescalingManyTimesStillZeroesY) {
  using R = TypeParam;
  LOOKUP_OR_SKIP(rotmg, name<R>("rotmg"), void(R*, R*, R*, const R*, R*));
  LOOKUP_OR_SKIP(rotm, name<R>("rotm"), void(const int*, R*, const int*, R*, const int*, const R*));
  const RotmgCase cases[] = {{1600000000, 800000000, 8, 7}, {1e-20, 1, 1, 2},
                             {1, 1e-20, 2, 1},              {1e20, 1, 1, 1e-10},
                             {1, 1e25, 1e-3, 1},            {4, 1e-30, 1, 3e-9}};
  for (const auto& k : cases) {
    SCOPED_TRACE("d1=" + std::to_string(k[0]) + " d2=" + std::to_string(k[1]));
    R d1 = R(k[0]), d2 = R(k[1]), x1 = R(k[2]), p[5];
    const R y1 = R(k[3]);
    rotmg.ours(&d1, &d2, &x1, &y1, p);
    R x = R(k[2]), y = y1;
    const int one = 1;
    rotm.ours(&one, &x, &one, &y, &one, p);
    EXPECT_NEAR(x / x1, R(1), 64 * eps<R>());
    EXPECT_LE(std::abs(y), 64 * eps<R>() * std::abs(x)) << "y not zeroed";
    const double before = k[0] * k[2] * k[2] + k[1] * k[3] * k[3];
    EXPECT_NEAR(double(d1) * double(x1) * double(x1) / before, 1.0, 64 * double(eps<R>()));
  }
}

TEST(Level1Mixed, SdsdotAndDsdotMatchReference) {
  using Sds = float(const int*, const float*, const float*, const int*, const float*, const int*);
  using Ds = double(const int*, const float*, const int*, const float*, const int*);
  LOOKUP_OR_SKIP(sdsdot, "sdsdot_", Sds);
  LOOKUP_OR_SKIP(dsdot, "dsdot_", Ds);
  const float sb = 0.25f;
  for (int n : {0, 1, 2, 7, 33, 1000})
    for (int incx : kIncs)
      for (int incy : kIncs) {
        SCOPED_TRACE(cfg(n, incx, incy));
        const auto x = vec<float>(n, incx, 19), y = vec<float>(n, incy, 20);
        EXPECT_TRUE(near(sdsdot.ours(&n, &sb, x.data(), &incx, y.data(), &incy),
                         sdsdot.ref(&n, &sb, x.data(), &incx, y.data(), &incy),
                         2 * eps<float>() * (1 + float(n))));
        EXPECT_TRUE(near(dsdot.ours(&n, x.data(), &incx, y.data(), &incy),
                         dsdot.ref(&n, x.data(), &incx, y.data(), &incy), sum_tol<double>(n, 1)));
      }
}

// ---- the subroutine helpers and CABS1 -----------------------------------------------------

TEST(Level1Mixed, SubroutineFormsEqualTheFunctions) {
  using SSub = void(const int*, const float*, const int*, float*);
  using ZSub = void(const int*, const cdouble*, const int*, double*);
  using ISub = void(const int*, const cfloat*, const int*, int*);
  using CDot = void(const int*, const cfloat*, const int*, const cfloat*, const int*, cfloat*);
  using ZDot = void(const int*, const cdouble*, const int*, const cdouble*, const int*, cdouble*);
  const int n = 9, inc = -2;
  const auto xs = vec<float>(n, inc, 21);
  const auto xc = vec<cfloat>(n, inc, 22), yc = vec<cfloat>(n, inc, 23);
  const auto xz = vec<cdouble>(n, inc, 24), yz = vec<cdouble>(n, inc, 25);
  float r = 0;
  double d = 0;
  int k = 0;
  cfloat cr;
  cdouble zr;
  auto f = [](const char* s, auto* type_tag) {
    auto* p = reinterpret_cast<std::remove_pointer_t<decltype(type_tag)>*>(dlsym(RTLD_DEFAULT, s));
    EXPECT_NE(p, nullptr) << s;
    return p;
  };
  f("snrm2sub_", (SSub*)nullptr)(&n, xs.data(), &inc, &r);
  EXPECT_EQ(r, cblas_snrm2(n, xs.data(), inc));
  f("sasumsub_", (SSub*)nullptr)(&n, xs.data(), &inc, &r);
  EXPECT_EQ(r, cblas_sasum(n, xs.data(), inc));
  f("dznrm2sub_", (ZSub*)nullptr)(&n, xz.data(), &inc, &d);
  EXPECT_EQ(d, cblas_dznrm2(n, xz.data(), inc));
  f("dzasumsub_", (ZSub*)nullptr)(&n, xz.data(), &inc, &d);
  EXPECT_EQ(d, cblas_dzasum(n, xz.data(), inc));
  const int pos = 1;
  f("icamaxsub_", (ISub*)nullptr)(&n, xc.data(), &pos, &k);
  EXPECT_EQ(size_t(k - 1), cblas_icamax(n, xc.data(), pos));
  f("cdotcsub_", (CDot*)nullptr)(&n, xc.data(), &inc, yc.data(), &inc, &cr);
  cfloat cc;
  cblas_cdotc_sub(n, xc.data(), inc, yc.data(), inc, &cc);
  EXPECT_EQ(cr, cc);
  f("zdotusub_", (ZDot*)nullptr)(&n, xz.data(), &inc, yz.data(), &inc, &zr);
  cdouble zz;
  cblas_zdotu_sub(n, xz.data(), inc, yz.data(), inc, &zz);
  EXPECT_EQ(zr, zz);
  const cfloat c1(-3, 4);
  EXPECT_EQ(cblas_scabs1(&c1), 7.0f);
  const cdouble z1(2, -0.5);
  EXPECT_EQ(cblas_dcabs1(&z1), 2.5);
  auto scabs1 = f("scabs1_", (float (*)(const cfloat*))nullptr);
  EXPECT_EQ(scabs1(&c1), 7.0f);
}

/** Every Level-1 symbol of the reference libblas.so.3 (Fortran and CBLAS) is exported. */
TEST(Level1Mixed, EveryReferenceLevel1SymbolIsExported) {
  const char* names[] = {
      "srotg_", "srotmg_", "srot_", "srotm_", "sswap_", "sscal_", "scopy_", "saxpy_", "sdot_",
      "sdsdot_", "snrm2_", "sasum_", "isamax_", "drotg_", "drotmg_", "drot_", "drotm_",
      "dswap_", "dscal_", "dcopy_", "daxpy_", "ddot_", "dsdot_", "dnrm2_", "dasum_", "idamax_",
      "crotg_", "csrot_", "cswap_", "cscal_", "csscal_", "ccopy_", "caxpy_", "cdotu_",
      "cdotc_", "scnrm2_", "scasum_", "icamax_", "zrotg_", "zdrot_", "zswap_", "zscal_",
      "zdscal_", "zcopy_", "zaxpy_", "zdotu_", "zdotc_", "dznrm2_", "dzasum_", "izamax_",
      "scabs1_", "dcabs1_", "sdotsub_", "ddotsub_", "sdsdotsub_", "dsdotsub_", "snrm2sub_",
      "dnrm2sub_", "sasumsub_", "dasumsub_", "scnrm2sub_", "dznrm2sub_", "scasumsub_",
      "dzasumsub_", "isamaxsub_", "idamaxsub_", "icamaxsub_", "izamaxsub_", "cdotusub_",
      "cdotcsub_", "zdotusub_", "zdotcsub_", "scabs1sub_", "dcabs1sub_",
      "cblas_sdsdot", "cblas_dsdot", "cblas_sdot", "cblas_ddot", "cblas_cdotu_sub",
      "cblas_cdotc_sub", "cblas_zdotu_sub", "cblas_zdotc_sub", "cblas_snrm2", "cblas_sasum",
      "cblas_dnrm2", "cblas_dasum", "cblas_scnrm2", "cblas_scasum", "cblas_dznrm2",
      "cblas_dzasum", "cblas_isamax", "cblas_idamax", "cblas_icamax", "cblas_izamax",
      "cblas_sswap", "cblas_scopy", "cblas_saxpy", "cblas_dswap", "cblas_dcopy", "cblas_daxpy",
      "cblas_cswap", "cblas_ccopy", "cblas_caxpy", "cblas_zswap", "cblas_zcopy", "cblas_zaxpy",
      "cblas_srotg", "cblas_srotmg", "cblas_srot", "cblas_srotm", "cblas_drotg",
      "cblas_drotmg", "cblas_drot", "cblas_drotm", "cblas_crotg", "cblas_zrotg", "cblas_csrot",
      "cblas_zdrot", "cblas_sscal", "cblas_dscal", "cblas_cscal", "cblas_zscal",
      "cblas_csscal", "cblas_zdscal", "cblas_scabs1", "cblas_dcabs1"};
  for (const char* s : names) EXPECT_NE(dlsym(RTLD_DEFAULT, s), nullptr) << s;
}

// ---- CBLAS entries against the reference CBLAS ------------------------------------------------

class Level1Cblas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!RefBlas::get().fn<void()>("cblas_sdot")) GTEST_SKIP() << "no reference CBLAS";
  }
  const int n = 7, ix = -2, iy = 3;
  const std::vector<float> xs = vec<float>(n, ix, 30), ys = vec<float>(n, iy, 31);
  const std::vector<double> xd = vec<double>(n, ix, 32), yd = vec<double>(n, iy, 33);
  const std::vector<cfloat> xc = vec<cfloat>(n, ix, 34), yc = vec<cfloat>(n, iy, 35);
  const std::vector<cdouble> xz = vec<cdouble>(n, ix, 36), yz = vec<cdouble>(n, iy, 37);
};

TEST_F(Level1Cblas, ReductionsAndIndices) {
  EXPECT_FLOAT_EQ(cblas_sdot(n, xs.data(), ix, ys.data(), iy),
                  REF_CBLAS(cblas_sdot)(n, xs.data(), ix, ys.data(), iy));
  EXPECT_DOUBLE_EQ(cblas_ddot(n, xd.data(), ix, yd.data(), iy),
                   REF_CBLAS(cblas_ddot)(n, xd.data(), ix, yd.data(), iy));
  EXPECT_FLOAT_EQ(cblas_sdsdot(n, 0.5f, xs.data(), ix, ys.data(), iy),
                  REF_CBLAS(cblas_sdsdot)(n, 0.5f, xs.data(), ix, ys.data(), iy));
  EXPECT_DOUBLE_EQ(cblas_dsdot(n, xs.data(), ix, ys.data(), iy),
                   REF_CBLAS(cblas_dsdot)(n, xs.data(), ix, ys.data(), iy));
  cfloat c1, c2;
  cblas_cdotu_sub(n, xc.data(), ix, yc.data(), iy, &c1);
  REF_CBLAS(cblas_cdotu_sub)(n, xc.data(), ix, yc.data(), iy, &c2);
  EXPECT_TRUE(near(c1, c2, 8 * eps<float>()));
  cblas_cdotc_sub(n, xc.data(), ix, yc.data(), iy, &c1);
  REF_CBLAS(cblas_cdotc_sub)(n, xc.data(), ix, yc.data(), iy, &c2);
  EXPECT_TRUE(near(c1, c2, 8 * eps<float>()));
  cdouble z1, z2;
  cblas_zdotu_sub(n, xz.data(), ix, yz.data(), iy, &z1);
  REF_CBLAS(cblas_zdotu_sub)(n, xz.data(), ix, yz.data(), iy, &z2);
  EXPECT_TRUE(near(z1, z2, 8 * eps<double>()));
  cblas_zdotc_sub(n, xz.data(), ix, yz.data(), iy, &z1);
  REF_CBLAS(cblas_zdotc_sub)(n, xz.data(), ix, yz.data(), iy, &z2);
  EXPECT_TRUE(near(z1, z2, 8 * eps<double>()));

  EXPECT_FLOAT_EQ(cblas_snrm2(n, xs.data(), ix), REF_CBLAS(cblas_snrm2)(n, xs.data(), ix));
  EXPECT_DOUBLE_EQ(cblas_dnrm2(n, xd.data(), ix), REF_CBLAS(cblas_dnrm2)(n, xd.data(), ix));
  EXPECT_FLOAT_EQ(cblas_scnrm2(n, xc.data(), ix), REF_CBLAS(cblas_scnrm2)(n, xc.data(), ix));
  EXPECT_DOUBLE_EQ(cblas_dznrm2(n, xz.data(), ix), REF_CBLAS(cblas_dznrm2)(n, xz.data(), ix));
  const int p = 2;  // asum and iamax need a positive increment
  EXPECT_FLOAT_EQ(cblas_sasum(n, xs.data(), p), REF_CBLAS(cblas_sasum)(n, xs.data(), p));
  EXPECT_DOUBLE_EQ(cblas_dasum(n, xd.data(), p), REF_CBLAS(cblas_dasum)(n, xd.data(), p));
  EXPECT_FLOAT_EQ(cblas_scasum(n, xc.data(), p), REF_CBLAS(cblas_scasum)(n, xc.data(), p));
  EXPECT_DOUBLE_EQ(cblas_dzasum(n, xz.data(), p), REF_CBLAS(cblas_dzasum)(n, xz.data(), p));
  EXPECT_EQ(cblas_sasum(n, xs.data(), ix), 0.0f);
  for (int m : {0, 1, n}) {
    EXPECT_EQ(cblas_isamax(m, xs.data(), p), REF_CBLAS(cblas_isamax)(m, xs.data(), p));
    EXPECT_EQ(cblas_idamax(m, xd.data(), p), REF_CBLAS(cblas_idamax)(m, xd.data(), p));
    EXPECT_EQ(cblas_icamax(m, xc.data(), p), REF_CBLAS(cblas_icamax)(m, xc.data(), p));
    EXPECT_EQ(cblas_izamax(m, xz.data(), p), REF_CBLAS(cblas_izamax)(m, xz.data(), p));
  }
  const std::vector<double> peak = {1, -5, 2, 5};  // 0-based index of the first maximum
  EXPECT_EQ(cblas_idamax(4, peak.data(), 1), 1u);
  EXPECT_EQ(cblas_idamax(0, peak.data(), 1), 0u);
  EXPECT_EQ(cblas_idamax(4, peak.data(), -1), 0u);
}

/** Applies ours and the reference's update to copies of (x, y) and expects equal results. */
template <class T, class Ours, class Ref>
void same_update(std::vector<T> x, std::vector<T> y, Ours ours, Ref ref) {
  auto x2 = x, y2 = y;
  ours(x.data(), y.data());
  ref(x2.data(), y2.data());
  expect_same(x, x2);
  expect_same(y, y2);
}

TEST_F(Level1Cblas, VectorUpdates) {
  using std::vector;
  same_update(xs, ys, [&](float* x, float* y) { cblas_sswap(n, x, ix, y, iy); },
              [&](float* x, float* y) { REF_CBLAS(cblas_sswap)(n, x, ix, y, iy); });
  same_update(xd, yd, [&](double* x, double* y) { cblas_dcopy(n, x, ix, y, iy); },
              [&](double* x, double* y) { REF_CBLAS(cblas_dcopy)(n, x, ix, y, iy); });
  same_update(xc, yc, [&](cfloat* x, cfloat* y) { cblas_cswap(n, x, ix, y, iy); },
              [&](cfloat* x, cfloat* y) { REF_CBLAS(cblas_cswap)(n, x, ix, y, iy); });
  same_update(xz, yz, [&](cdouble* x, cdouble* y) { cblas_zcopy(n, x, ix, y, iy); },
              [&](cdouble* x, cdouble* y) { REF_CBLAS(cblas_zcopy)(n, x, ix, y, iy); });
  same_update(xs, ys, [&](float* x, float* y) { cblas_scopy(n, x, ix, y, iy); },
              [&](float* x, float* y) { REF_CBLAS(cblas_scopy)(n, x, ix, y, iy); });
  same_update(xd, yd, [&](double* x, double* y) { cblas_dswap(n, x, ix, y, iy); },
              [&](double* x, double* y) { REF_CBLAS(cblas_dswap)(n, x, ix, y, iy); });
  same_update(xc, yc, [&](cfloat* x, cfloat* y) { cblas_ccopy(n, x, ix, y, iy); },
              [&](cfloat* x, cfloat* y) { REF_CBLAS(cblas_ccopy)(n, x, ix, y, iy); });
  same_update(xz, yz, [&](cdouble* x, cdouble* y) { cblas_zswap(n, x, ix, y, iy); },
              [&](cdouble* x, cdouble* y) { REF_CBLAS(cblas_zswap)(n, x, ix, y, iy); });

  const cfloat ac(0.5f, -2);
  const cdouble az(-1.5, 0.25);
  same_update(xs, ys, [&](float* x, float* y) { cblas_saxpy(n, 0.75f, x, ix, y, iy); },
              [&](float* x, float* y) { REF_CBLAS(cblas_saxpy)(n, 0.75f, x, ix, y, iy); });
  same_update(xd, yd, [&](double* x, double* y) { cblas_daxpy(n, -3.0, x, ix, y, iy); },
              [&](double* x, double* y) { REF_CBLAS(cblas_daxpy)(n, -3.0, x, ix, y, iy); });
  same_update(xc, yc, [&](cfloat* x, cfloat* y) { cblas_caxpy(n, &ac, x, ix, y, iy); },
              [&](cfloat* x, cfloat* y) { REF_CBLAS(cblas_caxpy)(n, &ac, x, ix, y, iy); });
  same_update(xz, yz, [&](cdouble* x, cdouble* y) { cblas_zaxpy(n, &az, x, ix, y, iy); },
              [&](cdouble* x, cdouble* y) { REF_CBLAS(cblas_zaxpy)(n, &az, x, ix, y, iy); });

  const int p = 2;
  same_update(xs, ys, [&](float* x, float*) { cblas_sscal(n, 1.5f, x, p); },
              [&](float* x, float*) { REF_CBLAS(cblas_sscal)(n, 1.5f, x, p); });
  same_update(xd, yd, [&](double* x, double*) { cblas_dscal(n, -0.5, x, p); },
              [&](double* x, double*) { REF_CBLAS(cblas_dscal)(n, -0.5, x, p); });
  same_update(xc, yc, [&](cfloat* x, cfloat*) { cblas_cscal(n, &ac, x, p); },
              [&](cfloat* x, cfloat*) { REF_CBLAS(cblas_cscal)(n, &ac, x, p); });
  same_update(xz, yz, [&](cdouble* x, cdouble*) { cblas_zscal(n, &az, x, p); },
              [&](cdouble* x, cdouble*) { REF_CBLAS(cblas_zscal)(n, &az, x, p); });
  same_update(xc, yc, [&](cfloat* x, cfloat*) { cblas_csscal(n, 3.0f, x, p); },
              [&](cfloat* x, cfloat*) { REF_CBLAS(cblas_csscal)(n, 3.0f, x, p); });
  same_update(xz, yz, [&](cdouble* x, cdouble*) { cblas_zdscal(n, -2.0, x, p); },
              [&](cdouble* x, cdouble*) { REF_CBLAS(cblas_zdscal)(n, -2.0, x, p); });
}

TEST_F(Level1Cblas, Rotations) {
  same_update(xs, ys, [&](float* x, float* y) { cblas_srot(n, x, ix, y, iy, 0.8f, 0.6f); },
              [&](float* x, float* y) { REF_CBLAS(cblas_srot)(n, x, ix, y, iy, 0.8f, 0.6f); });
  same_update(xd, yd, [&](double* x, double* y) { cblas_drot(n, x, ix, y, iy, 0.6, -0.8); },
              [&](double* x, double* y) { REF_CBLAS(cblas_drot)(n, x, ix, y, iy, 0.6, -0.8); });
  same_update(xc, yc, [&](cfloat* x, cfloat* y) { cblas_csrot(n, x, ix, y, iy, 0.8f, 0.6f); },
              [&](cfloat* x, cfloat* y) {
                REF_CBLAS(cblas_csrot)(n, x, ix, y, iy, 0.8f, 0.6f);
              });
  same_update(xz, yz, [&](cdouble* x, cdouble* y) { cblas_zdrot(n, x, ix, y, iy, 0.6, 0.8); },
              [&](cdouble* x, cdouble* y) {
                REF_CBLAS(cblas_zdrot)(n, x, ix, y, iy, 0.6, 0.8);
              });
  const float ps[5] = {-1, 0.5f, 2, -1, 0.25f};
  const double pd[5] = {1, 0.5, 0, 0, 2};
  same_update(xs, ys, [&](float* x, float* y) { cblas_srotm(n, x, ix, y, iy, ps); },
              [&](float* x, float* y) { REF_CBLAS(cblas_srotm)(n, x, ix, y, iy, ps); });
  same_update(xd, yd, [&](double* x, double* y) { cblas_drotm(n, x, ix, y, iy, pd); },
              [&](double* x, double* y) { REF_CBLAS(cblas_drotm)(n, x, ix, y, iy, pd); });

  float a1 = 3, b1 = -4, c1, s1, a2 = 3, b2 = -4, c2, s2;
  cblas_srotg(&a1, &b1, &c1, &s1);
  REF_CBLAS(cblas_srotg)(&a2, &b2, &c2, &s2);
  EXPECT_FLOAT_EQ(a1, a2);
  EXPECT_FLOAT_EQ(b1, b2);
  EXPECT_FLOAT_EQ(c1, c2);
  EXPECT_FLOAT_EQ(s1, s2);
  double da = -1e-3, db = 2e5, dc, ds, ea = da, eb = db, ec, es;
  cblas_drotg(&da, &db, &dc, &ds);
  REF_CBLAS(cblas_drotg)(&ea, &eb, &ec, &es);
  EXPECT_DOUBLE_EQ(da, ea);
  EXPECT_DOUBLE_EQ(db, eb);
  EXPECT_DOUBLE_EQ(dc, ec);
  EXPECT_DOUBLE_EQ(ds, es);
  cfloat ca(1, 2), cb(-3, 0.5f), cs, ca2 = ca, cs2;
  float cc, cc2;
  cblas_crotg(&ca, &cb, &cc, &cs);
  RefBlas::get().fn<void(void*, void*, float*, void*)>("cblas_crotg")(&ca2, &cb, &cc2, &cs2);
  EXPECT_TRUE(near(ca, ca2, 8 * eps<float>() * std::abs(ca2)));
  EXPECT_NEAR(cc, cc2, 8 * eps<float>());
  EXPECT_TRUE(near(cs, cs2, 8 * eps<float>()));
  cdouble za(0, 0), zb(2, -2), zs, za2 = za, zs2;
  double zc, zc2;
  cblas_zrotg(&za, &zb, &zc, &zs);
  RefBlas::get().fn<void(void*, void*, double*, void*)>("cblas_zrotg")(&za2, &zb, &zc2, &zs2);
  EXPECT_TRUE(near(za, za2, 8 * eps<double>() * std::abs(za2)));
  EXPECT_EQ(zc, zc2);
  EXPECT_TRUE(near(zs, zs2, 8 * eps<double>()));

  float d1 = 0.7f, d2 = 0.2f, x1 = 0.6f, e1 = d1, e2 = d2, z1 = x1, P1[5], P2[5];
  for (int i = 0; i < 5; ++i) P1[i] = P2[i] = 9;
  cblas_srotmg(&d1, &d2, &x1, 4.2f, P1);
  REF_CBLAS(cblas_srotmg)(&e1, &e2, &z1, 4.2f, P2);
  EXPECT_FLOAT_EQ(d1, e1);
  EXPECT_FLOAT_EQ(d2, e2);
  EXPECT_FLOAT_EQ(x1, z1);
  for (int i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(P1[i], P2[i]) << i;
  double g1 = 4e10, g2 = 2e-2, w1 = 1e-5, h1 = g1, h2 = g2, v1 = w1, Q1[5], Q2[5];
  for (int i = 0; i < 5; ++i) Q1[i] = Q2[i] = 9;
  cblas_drotmg(&g1, &g2, &w1, 10, Q1);
  REF_CBLAS(cblas_drotmg)(&h1, &h2, &v1, 10, Q2);
  EXPECT_DOUBLE_EQ(g1, h1);
  EXPECT_DOUBLE_EQ(g2, h2);
  EXPECT_DOUBLE_EQ(w1, v1);
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(Q1[i], Q2[i]) << i;
}

}  // namespace
