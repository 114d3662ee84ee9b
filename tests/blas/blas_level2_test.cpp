/** \file blas_level2_test.cpp
 *  \brief Level-2 BLAS of the shim against the reference BLAS: every routine for s, d, c, z
 *  through its Fortran-77 symbol and through CBLAS in both layouts, over small shapes
 *  (sizes 0 and 1, band widths, strides 1 and -2, alpha and beta in {0, 1, other}); then
 *  argument errors (nothing written, the reference message on stderr) and the threaded
 *  path of a large GEMV.
 *
 *  Both sides are looked up by name: ours in libabft_blas.so.0 (as a user program would
 *  bind them), the oracle in the reference BLAS opened by ref_blas.hpp. Whole arrays are
 *  compared, padding included, so a write outside the operand shows up too.
 */
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <complex>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/cblas.h"
#include "blas_test_util.hpp"
#include "ref_blas.hpp"

namespace {

using blas_test::cblas_msg;
using blas_test::expect_rejected;
using blas_test::f77_msg;
using blas_test::our_lib;
using blas_test::ours;

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
template <class T> struct real_of { using type = T; };
template <class R> struct real_of<std::complex<R>> { using type = R; };
template <class T> using R = typename real_of<T>::type;
template <class T> constexpr bool kCplx = !std::is_same_v<T, R<T>>;

// ---- symbol types ------------------------------------------------------------------------
using I = const int*;
using C = const char*;
using L = size_t;
template <class T> using f77_gemv = void(C, I, I, const T*, const T*, I, const T*, I, const T*, T*, I, L);
template <class T> using f77_gbmv = void(C, I, I, I, I, const T*, const T*, I, const T*, I, const T*, T*, I, L);
template <class T> using f77_hemv = void(C, I, const T*, const T*, I, const T*, I, const T*, T*, I, L);
template <class T> using f77_hbmv = void(C, I, I, const T*, const T*, I, const T*, I, const T*, T*, I, L);
template <class T> using f77_hpmv = void(C, I, const T*, const T*, const T*, I, const T*, T*, I, L);
template <class T> using f77_trmv = void(C, C, C, I, const T*, I, T*, I, L, L, L);
template <class T> using f77_tbmv = void(C, C, C, I, I, const T*, I, T*, I, L, L, L);
template <class T> using f77_tpmv = void(C, C, C, I, const T*, T*, I, L, L, L);
template <class T> using f77_ger = void(I, I, const T*, const T*, I, const T*, I, T*, I);
template <class T> using f77_her = void(C, I, const R<T>*, const T*, I, T*, I, L);
template <class T> using f77_hpr = void(C, I, const R<T>*, const T*, I, T*, L);
template <class T> using f77_her2 = void(C, I, const T*, const T*, I, const T*, I, T*, I, L);
template <class T> using f77_hpr2 = void(C, I, const T*, const T*, I, const T*, I, T*, L);

/** CBLAS passes real scalars by value, complex ones (and complex arrays) through void*. */
template <class T> using S = std::conditional_t<kCplx<T>, const void*, T>;
template <class T> using P = std::conditional_t<kCplx<T>, const void*, const T*>;
template <class T> using M = std::conditional_t<kCplx<T>, void*, T*>;
using Lay = CBLAS_LAYOUT;
using Tr = CBLAS_TRANSPOSE;
using Ul = CBLAS_UPLO;
using Dg = CBLAS_DIAG;
template <class T> using cb_gemv = void(Lay, Tr, int, int, S<T>, P<T>, int, P<T>, int, S<T>, M<T>, int);
template <class T> using cb_gbmv = void(Lay, Tr, int, int, int, int, S<T>, P<T>, int, P<T>, int, S<T>, M<T>, int);
template <class T> using cb_hemv = void(Lay, Ul, int, S<T>, P<T>, int, P<T>, int, S<T>, M<T>, int);
template <class T> using cb_hbmv = void(Lay, Ul, int, int, S<T>, P<T>, int, P<T>, int, S<T>, M<T>, int);
template <class T> using cb_hpmv = void(Lay, Ul, int, S<T>, P<T>, P<T>, int, S<T>, M<T>, int);
template <class T> using cb_trmv = void(Lay, Ul, Tr, Dg, int, P<T>, int, M<T>, int);
template <class T> using cb_tbmv = void(Lay, Ul, Tr, Dg, int, int, P<T>, int, M<T>, int);
template <class T> using cb_tpmv = void(Lay, Ul, Tr, Dg, int, P<T>, M<T>, int);
template <class T> using cb_ger = void(Lay, int, int, S<T>, P<T>, int, P<T>, int, M<T>, int);
template <class T> using cb_her = void(Lay, Ul, int, R<T>, P<T>, int, M<T>, int);
template <class T> using cb_hpr = void(Lay, Ul, int, R<T>, P<T>, int, M<T>);
template <class T> using cb_her2 = void(Lay, Ul, int, S<T>, P<T>, int, P<T>, int, M<T>, int);
template <class T> using cb_hpr2 = void(Lay, Ul, int, S<T>, P<T>, int, P<T>, int, M<T>);

// The header's prototypes have exactly these types.
static_assert(std::is_same_v<decltype(cblas_dgemv), cb_gemv<double>>);
static_assert(std::is_same_v<decltype(cblas_cgbmv), cb_gbmv<cfloat>>);
static_assert(std::is_same_v<decltype(cblas_zhemv), cb_hemv<cdouble>>);
static_assert(std::is_same_v<decltype(cblas_ssbmv), cb_hbmv<float>>);
static_assert(std::is_same_v<decltype(cblas_chpmv), cb_hpmv<cfloat>>);
static_assert(std::is_same_v<decltype(cblas_ztrsv), cb_trmv<cdouble>>);
static_assert(std::is_same_v<decltype(cblas_stbsv), cb_tbmv<float>>);
static_assert(std::is_same_v<decltype(cblas_dtpmv), cb_tpmv<double>>);
static_assert(std::is_same_v<decltype(cblas_zgerc), cb_ger<cdouble>>);
static_assert(std::is_same_v<decltype(cblas_cher), cb_her<cfloat>>);
static_assert(std::is_same_v<decltype(cblas_dspr), cb_hpr<double>>);
static_assert(std::is_same_v<decltype(cblas_zher2), cb_her2<cdouble>>);
static_assert(std::is_same_v<decltype(cblas_sspr2), cb_hpr2<float>>);

// ---- lookup ----------------------------------------------------------------------------
template <class T> char prefix() {
  return std::is_same_v<T, float> ? 's' : std::is_same_v<T, double> ? 'd' : std::is_same_v<T, cfloat> ? 'c' : 'z';
}
/** Routine name for T: real_name for s/d, cplx_name for c/z (e.g. "symv" / "hemv"). */
template <class T> std::string routine(const char* real_name, const char* cplx_name = nullptr) {
  return std::string(1, prefix<T>()) + (kCplx<T> && cplx_name ? cplx_name : real_name);
}
template <class F> struct Pair {
  F* ours;
  F* ref;
};
/** Our symbol and the reference's; skips the calling test if the reference lacks it. */
#define LOOKUP(var, F, name)                                                              \
  const std::string var##_name = (name);                                                  \
  const Pair<F> var{reinterpret_cast<F*>(dlsym(our_lib(), var##_name.c_str())),           \
                    RefBlas::get().fn<F>(var##_name.c_str())};                            \
  if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();                         \
  if (!var.ref) GTEST_SKIP() << "reference BLAS lacks " << var##_name;                    \
  ASSERT_NE(var.ours, nullptr) << var##_name << " not exported by the shim";

// ---- data -------------------------------------------------------------------------------
template <class T> std::vector<T> random_vec(std::size_t n, std::mt19937& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(std::max<std::size_t>(n, 1));
  for (auto& e : v) {
    if constexpr (kCplx<T>) e = T(R<T>(u(g)), R<T>(u(g)));
    else e = T(u(g));
  }
  return v;
}
/** Storage length of a vector of n elements with stride inc. */
std::size_t vlen(int n, int inc) { return n > 0 ? std::size_t(1 + (n - 1) * std::abs(inc)) : 1; }
/** Scalars {0, 1, other}. */
template <class T> std::vector<T> scalars(double re, double im) {
  if constexpr (kCplx<T>) return {T(0), T(1), T(R<T>(re), R<T>(im))};
  else return {T(0), T(1), T(re)};
}
template <class T> S<T> sc(const T& a) {
  if constexpr (kCplx<T>) return static_cast<const void*>(&a);
  else return a;
}

template <class T> double mag(const T& a) { return std::abs(a); }

/** got == want up to rounding, element by element over whole arrays (padding included). */
template <class T>
::testing::AssertionResult close(const std::vector<T>& got, const std::vector<T>& want) {
  const double eps = std::numeric_limits<R<T>>::epsilon();
  double scale = 1;
  for (const T& w : want) scale = std::max(scale, mag(w));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool nan_g = std::isnan(mag(got[i])), nan_w = std::isnan(mag(want[i]));
    if (nan_g != nan_w || (!nan_w && mag(got[i] - want[i]) > 64 * eps * scale))
      return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs reference " << want[i];
  }
  return ::testing::AssertionSuccess();
}

/** Failure context: "name=value ..." */
struct Ctx {
  std::ostringstream s;
  template <class V> Ctx& operator()(const char* k, const V& v) {
    s << k << '=' << v << ' ';
    return *this;
  }
  std::string str() const { return s.str(); }
};

const char kTrans[3] = {'N', 'T', 'C'};
const char kUplo[2] = {'U', 'L'};
const char kDiag[2] = {'N', 'U'};
const int kIncs[2] = {1, -2};
Tr cb_trans(char t) { return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans; }
Ul cb_uplo(char u) { return u == 'U' ? CblasUpper : CblasLower; }
Dg cb_diag(char d) { return d == 'U' ? CblasUnit : CblasNonUnit; }
const Lay kLayouts[2] = {CblasColMajor, CblasRowMajor};

/** Makes the stored diagonal of a triangle dominant (well-conditioned solves). */
template <class T>
void strengthen_diagonal(std::vector<T>& a, char storage, bool upper, int n, int k, int lda) {
  for (int j = 0; j < n; ++j) {
    std::size_t d;
    if (storage == 'r') d = std::size_t(j) * lda + j;
    else if (storage == 'b') d = std::size_t(j) * lda + (upper ? k : 0);
    else d = upper ? std::size_t(j) * (j + 1) / 2 + j : std::size_t(j) * (2 * n - j + 1) / 2;
    a[d] += T(R<T>(3));
  }
}

/** The reference CBLAS ?gemv/?gbmv never return from a complex row-major ConjTrans call
 *  with M == 0 (they restore conj(y) with an unset loop bound). The right answer is y
 *  untouched, as for any empty product, so the test expects exactly that there. */
template <class T> bool ref_cblas_hangs(Lay lay, char tr, int m) {
  return kCplx<T> && lay == CblasRowMajor && tr == 'C' && m == 0;
}

template <class T> class Level2 : public ::testing::Test {
 protected:
  std::mt19937 gen{12345};
};
using Types = ::testing::Types<float, double, cfloat, cdouble>;
struct TypeNames {
  template <class T> static std::string GetName(int) { return std::string(1, prefix<T>()); }
};
TYPED_TEST_SUITE(Level2, Types, TypeNames);

// ---- general --------------------------------------------------------------------------
TYPED_TEST(Level2, GemvMatchesReference) {
  using T = TypeParam;
  LOOKUP(f, f77_gemv<T>, routine<T>("gemv_"));
  LOOKUP(c, cb_gemv<T>, "cblas_" + routine<T>("gemv"));
  for (char tr : kTrans)
    for (int m : {0, 1, 3, 6})
      for (int n : {0, 1, 4, 7})
        for (int incx : kIncs)
          for (int incy : kIncs)
            for (T alpha : scalars<T>(0.7, -0.3))
              for (T beta : scalars<T>(1.3, -1.1)) {
                const int lda = std::max(m, n) + 1, lx = tr == 'N' ? n : m, ly = tr == 'N' ? m : n;
                const auto A = random_vec<T>(std::size_t(lda) * std::max(m, n), this->gen);
                const auto x = random_vec<T>(vlen(lx, incx), this->gen);
                const auto y = random_vec<T>(vlen(ly, incy), this->gen);
                const std::string at = Ctx()("trans", tr)("m", m)("n", n)("incx", incx)("incy", incy)("alpha", alpha)("beta", beta).str();
                auto y1 = y, y2 = y;
                f.ours(&tr, &m, &n, &alpha, A.data(), &lda, x.data(), &incx, &beta, y1.data(), &incy, 1);
                f.ref(&tr, &m, &n, &alpha, A.data(), &lda, x.data(), &incx, &beta, y2.data(), &incy, 1);
                EXPECT_TRUE(close(y1, y2)) << "f77 " << at;
                for (Lay lay : kLayouts) {
                  y1 = y, y2 = y;
                  c.ours(lay, cb_trans(tr), m, n, sc(alpha), A.data(), lda, x.data(), incx, sc(beta), y1.data(), incy);
                  if (!ref_cblas_hangs<T>(lay, tr, m))
                    c.ref(lay, cb_trans(tr), m, n, sc(alpha), A.data(), lda, x.data(), incx, sc(beta), y2.data(), incy);
                  EXPECT_TRUE(close(y1, y2)) << "cblas layout=" << lay << ' ' << at;
                }
              }
}

TYPED_TEST(Level2, GbmvMatchesReference) {
  using T = TypeParam;
  LOOKUP(f, f77_gbmv<T>, routine<T>("gbmv_"));
  LOOKUP(c, cb_gbmv<T>, "cblas_" + routine<T>("gbmv"));
  for (char tr : kTrans)
    for (int m : {0, 1, 5})
      for (int n : {0, 1, 6})
        for (int kl : {0, 1, 3})
          for (int ku : {0, 2})
            for (int inc : kIncs)
              for (T alpha : scalars<T>(0.7, -0.3))
                for (T beta : scalars<T>(1.3, -1.1)) {
                  const int lda = kl + ku + 2, mn = std::max(m, n);
                  const auto A = random_vec<T>(std::size_t(lda) * mn, this->gen);
                  const auto x = random_vec<T>(vlen(mn, inc), this->gen);
                  const auto y = random_vec<T>(vlen(mn, inc), this->gen);
                  const std::string at = Ctx()("trans", tr)("m", m)("n", n)("kl", kl)("ku", ku)("inc", inc)("alpha", alpha)("beta", beta).str();
                  auto y1 = y, y2 = y;
                  f.ours(&tr, &m, &n, &kl, &ku, &alpha, A.data(), &lda, x.data(), &inc, &beta, y1.data(), &inc, 1);
                  f.ref(&tr, &m, &n, &kl, &ku, &alpha, A.data(), &lda, x.data(), &inc, &beta, y2.data(), &inc, 1);
                  EXPECT_TRUE(close(y1, y2)) << "f77 " << at;
                  for (Lay lay : kLayouts) {
                    y1 = y, y2 = y;
                    c.ours(lay, cb_trans(tr), m, n, kl, ku, sc(alpha), A.data(), lda, x.data(), inc, sc(beta), y1.data(), inc);
                    if (!ref_cblas_hangs<T>(lay, tr, m))
                      c.ref(lay, cb_trans(tr), m, n, kl, ku, sc(alpha), A.data(), lda, x.data(), inc, sc(beta), y2.data(), inc);
                    EXPECT_TRUE(close(y1, y2)) << "cblas layout=" << lay << ' ' << at;
                  }
                }
}

// ---- symmetric / Hermitian products (full, band, packed) --------------------------------
TYPED_TEST(Level2, SymmetricProductsMatchReference) {
  using T = TypeParam;
  LOOKUP(fm, f77_hemv<T>, routine<T>("symv_", "hemv_"));
  LOOKUP(fb, f77_hbmv<T>, routine<T>("sbmv_", "hbmv_"));
  LOOKUP(fp, f77_hpmv<T>, routine<T>("spmv_", "hpmv_"));
  LOOKUP(cm, cb_hemv<T>, "cblas_" + routine<T>("symv", "hemv"));
  LOOKUP(cbb, cb_hbmv<T>, "cblas_" + routine<T>("sbmv", "hbmv"));
  LOOKUP(cp, cb_hpmv<T>, "cblas_" + routine<T>("spmv", "hpmv"));
  for (char ul : kUplo)
    for (int n : {0, 1, 3, 6})
      for (int k : {0, 1, 4})
        for (int incx : kIncs)
          for (int incy : kIncs)
            for (T alpha : scalars<T>(0.7, -0.3))
              for (T beta : scalars<T>(1.3, -1.1)) {
                const int lda = n + 1, ldb = k + 2;
                const auto A = random_vec<T>(std::size_t(lda) * n, this->gen);
                const auto B = random_vec<T>(std::size_t(ldb) * n, this->gen);
                const auto AP = random_vec<T>(std::size_t(n) * (n + 1) / 2, this->gen);
                const auto x = random_vec<T>(vlen(n, incx), this->gen);
                const auto y = random_vec<T>(vlen(n, incy), this->gen);
                const std::string at = Ctx()("uplo", ul)("n", n)("k", k)("incx", incx)("incy", incy)("alpha", alpha)("beta", beta).str();
                auto y1 = y, y2 = y;
                if (k == 0) {  // full and packed do not depend on k
                  fm.ours(&ul, &n, &alpha, A.data(), &lda, x.data(), &incx, &beta, y1.data(), &incy, 1);
                  fm.ref(&ul, &n, &alpha, A.data(), &lda, x.data(), &incx, &beta, y2.data(), &incy, 1);
                  EXPECT_TRUE(close(y1, y2)) << fm_name << ' ' << at;
                  y1 = y, y2 = y;
                  fp.ours(&ul, &n, &alpha, AP.data(), x.data(), &incx, &beta, y1.data(), &incy, 1);
                  fp.ref(&ul, &n, &alpha, AP.data(), x.data(), &incx, &beta, y2.data(), &incy, 1);
                  EXPECT_TRUE(close(y1, y2)) << fp_name << ' ' << at;
                  for (Lay lay : kLayouts) {
                    y1 = y, y2 = y;
                    cm.ours(lay, cb_uplo(ul), n, sc(alpha), A.data(), lda, x.data(), incx, sc(beta), y1.data(), incy);
                    cm.ref(lay, cb_uplo(ul), n, sc(alpha), A.data(), lda, x.data(), incx, sc(beta), y2.data(), incy);
                    EXPECT_TRUE(close(y1, y2)) << cm_name << " layout=" << lay << ' ' << at;
                    y1 = y, y2 = y;
                    cp.ours(lay, cb_uplo(ul), n, sc(alpha), AP.data(), x.data(), incx, sc(beta), y1.data(), incy);
                    cp.ref(lay, cb_uplo(ul), n, sc(alpha), AP.data(), x.data(), incx, sc(beta), y2.data(), incy);
                    EXPECT_TRUE(close(y1, y2)) << cp_name << " layout=" << lay << ' ' << at;
                  }
                }
                y1 = y, y2 = y;
                fb.ours(&ul, &n, &k, &alpha, B.data(), &ldb, x.data(), &incx, &beta, y1.data(), &incy, 1);
                fb.ref(&ul, &n, &k, &alpha, B.data(), &ldb, x.data(), &incx, &beta, y2.data(), &incy, 1);
                EXPECT_TRUE(close(y1, y2)) << fb_name << ' ' << at;
                for (Lay lay : kLayouts) {
                  y1 = y, y2 = y;
                  cbb.ours(lay, cb_uplo(ul), n, k, sc(alpha), B.data(), ldb, x.data(), incx, sc(beta), y1.data(), incy);
                  cbb.ref(lay, cb_uplo(ul), n, k, sc(alpha), B.data(), ldb, x.data(), incx, sc(beta), y2.data(), incy);
                  EXPECT_TRUE(close(y1, y2)) << cbb_name << " layout=" << lay << ' ' << at;
                }
              }
}

// ---- triangular products and solves -----------------------------------------------------
TYPED_TEST(Level2, TriangularMatchReference) {
  using T = TypeParam;
  LOOKUP(frm, f77_trmv<T>, routine<T>("trmv_"));
  LOOKUP(fbm, f77_tbmv<T>, routine<T>("tbmv_"));
  LOOKUP(fpm, f77_tpmv<T>, routine<T>("tpmv_"));
  LOOKUP(frs, f77_trmv<T>, routine<T>("trsv_"));
  LOOKUP(fbs, f77_tbmv<T>, routine<T>("tbsv_"));
  LOOKUP(fps, f77_tpmv<T>, routine<T>("tpsv_"));
  LOOKUP(crm, cb_trmv<T>, "cblas_" + routine<T>("trmv"));
  LOOKUP(cbm, cb_tbmv<T>, "cblas_" + routine<T>("tbmv"));
  LOOKUP(cpm, cb_tpmv<T>, "cblas_" + routine<T>("tpmv"));
  LOOKUP(crs, cb_trmv<T>, "cblas_" + routine<T>("trsv"));
  LOOKUP(cbs, cb_tbmv<T>, "cblas_" + routine<T>("tbsv"));
  LOOKUP(cps, cb_tpmv<T>, "cblas_" + routine<T>("tpsv"));
  const Pair<f77_trmv<T>> f_full[2] = {frm, frs};
  const Pair<f77_tbmv<T>> f_band[2] = {fbm, fbs};
  const Pair<f77_tpmv<T>> f_pack[2] = {fpm, fps};
  const Pair<cb_trmv<T>> c_full[2] = {crm, crs};
  const Pair<cb_tbmv<T>> c_band[2] = {cbm, cbs};
  const Pair<cb_tpmv<T>> c_pack[2] = {cpm, cps};
  for (char ul : kUplo)
    for (char tr : kTrans)
      for (char dg : kDiag)
        for (int n : {0, 1, 3, 7})
          for (int k : {0, 1, 3})
            for (int inc : kIncs) {
              const int lda = n + 2, ldb = k + 1;
              auto A = random_vec<T>(std::size_t(lda) * n, this->gen);
              auto B = random_vec<T>(std::size_t(ldb) * n, this->gen);
              auto AP = random_vec<T>(std::size_t(n) * (n + 1) / 2, this->gen);
              const bool up = ul == 'U';
              // Both triangles' diagonals: a row-major call reads the other triangle's storage.
              for (bool u : {up, !up}) {
                strengthen_diagonal(B, 'b', u, n, k, ldb);
                strengthen_diagonal(AP, 'p', u, n, k, 0);
              }
              strengthen_diagonal(A, 'r', up, n, k, lda);
              const auto x = random_vec<T>(vlen(n, inc), this->gen);
              const std::string at = Ctx()("uplo", ul)("trans", tr)("diag", dg)("n", n)("k", k)("inc", inc).str();
              for (int s = 0; s < 2; ++s) {  // 0: products, 1: solves
                auto x1 = x, x2 = x;
                if (k == 0) {
                  f_full[s].ours(&ul, &tr, &dg, &n, A.data(), &lda, x1.data(), &inc, 1, 1, 1);
                  f_full[s].ref(&ul, &tr, &dg, &n, A.data(), &lda, x2.data(), &inc, 1, 1, 1);
                  EXPECT_TRUE(close(x1, x2)) << (s ? frs_name : frm_name) << ' ' << at;
                  x1 = x, x2 = x;
                  f_pack[s].ours(&ul, &tr, &dg, &n, AP.data(), x1.data(), &inc, 1, 1, 1);
                  f_pack[s].ref(&ul, &tr, &dg, &n, AP.data(), x2.data(), &inc, 1, 1, 1);
                  EXPECT_TRUE(close(x1, x2)) << (s ? fps_name : fpm_name) << ' ' << at;
                  for (Lay lay : kLayouts) {
                    x1 = x, x2 = x;
                    c_full[s].ours(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, A.data(), lda, x1.data(), inc);
                    c_full[s].ref(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, A.data(), lda, x2.data(), inc);
                    EXPECT_TRUE(close(x1, x2)) << (s ? crs_name : crm_name) << " layout=" << lay << ' ' << at;
                    x1 = x, x2 = x;
                    c_pack[s].ours(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, AP.data(), x1.data(), inc);
                    c_pack[s].ref(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, AP.data(), x2.data(), inc);
                    EXPECT_TRUE(close(x1, x2)) << (s ? cps_name : cpm_name) << " layout=" << lay << ' ' << at;
                  }
                }
                x1 = x, x2 = x;
                f_band[s].ours(&ul, &tr, &dg, &n, &k, B.data(), &ldb, x1.data(), &inc, 1, 1, 1);
                f_band[s].ref(&ul, &tr, &dg, &n, &k, B.data(), &ldb, x2.data(), &inc, 1, 1, 1);
                EXPECT_TRUE(close(x1, x2)) << (s ? fbs_name : fbm_name) << ' ' << at;
                for (Lay lay : kLayouts) {
                  x1 = x, x2 = x;
                  c_band[s].ours(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, k, B.data(), ldb, x1.data(), inc);
                  c_band[s].ref(lay, cb_uplo(ul), cb_trans(tr), cb_diag(dg), n, k, B.data(), ldb, x2.data(), inc);
                  EXPECT_TRUE(close(x1, x2)) << (s ? cbs_name : cbm_name) << " layout=" << lay << ' ' << at;
                }
              }
            }
}

// ---- rank updates -------------------------------------------------------------------------
TYPED_TEST(Level2, GeneralRankOneMatchesReference) {
  using T = TypeParam;
  // s, d: ger; c, z: geru and gerc.
  const std::vector<std::string> names = kCplx<T> ? std::vector<std::string>{routine<T>("geru"), routine<T>("gerc")}
                                                  : std::vector<std::string>{routine<T>("ger")};
  for (const std::string& nm : names) {
    LOOKUP(f, f77_ger<T>, nm + "_");
    LOOKUP(c, cb_ger<T>, "cblas_" + nm);
    for (int m : {0, 1, 4, 6})
      for (int n : {0, 1, 5})
        for (int incx : kIncs)
          for (int incy : kIncs)
            for (T alpha : scalars<T>(0.7, -0.3)) {
              const int lda = std::max(m, n) + 1;
              const auto A = random_vec<T>(std::size_t(lda) * std::max(m, n), this->gen);
              const auto x = random_vec<T>(vlen(std::max(m, n), incx), this->gen);
              const auto y = random_vec<T>(vlen(std::max(m, n), incy), this->gen);
              const std::string at = Ctx()("m", m)("n", n)("incx", incx)("incy", incy)("alpha", alpha).str();
              auto A1 = A, A2 = A;
              f.ours(&m, &n, &alpha, x.data(), &incx, y.data(), &incy, A1.data(), &lda);
              f.ref(&m, &n, &alpha, x.data(), &incx, y.data(), &incy, A2.data(), &lda);
              EXPECT_TRUE(close(A1, A2)) << f_name << ' ' << at;
              for (Lay lay : kLayouts) {
                A1 = A, A2 = A;
                c.ours(lay, m, n, sc(alpha), x.data(), incx, y.data(), incy, A1.data(), lda);
                c.ref(lay, m, n, sc(alpha), x.data(), incx, y.data(), incy, A2.data(), lda);
                EXPECT_TRUE(close(A1, A2)) << c_name << " layout=" << lay << ' ' << at;
              }
            }
  }
}

TYPED_TEST(Level2, SymmetricRankUpdatesMatchReference) {
  using T = TypeParam;
  LOOKUP(f1, f77_her<T>, routine<T>("syr_", "her_"));
  LOOKUP(fp1, f77_hpr<T>, routine<T>("spr_", "hpr_"));
  LOOKUP(f2, f77_her2<T>, routine<T>("syr2_", "her2_"));
  LOOKUP(fp2, f77_hpr2<T>, routine<T>("spr2_", "hpr2_"));
  LOOKUP(c1, cb_her<T>, "cblas_" + routine<T>("syr", "her"));
  LOOKUP(cp1, cb_hpr<T>, "cblas_" + routine<T>("spr", "hpr"));
  LOOKUP(c2, cb_her2<T>, "cblas_" + routine<T>("syr2", "her2"));
  LOOKUP(cp2, cb_hpr2<T>, "cblas_" + routine<T>("spr2", "hpr2"));
  for (char ul : kUplo)
    for (int n : {0, 1, 3, 6})
      for (int incx : kIncs)
        for (int incy : kIncs)
          for (T alpha : scalars<T>(0.7, -0.3)) {
            const R<T> ralpha = std::real(alpha) == R<T>(1) ? R<T>(1) : std::real(alpha) == R<T>(0) ? R<T>(0) : R<T>(-0.6);
            const int lda = n + 2;
            const auto A = random_vec<T>(std::size_t(lda) * n, this->gen);
            const auto AP = random_vec<T>(std::size_t(n) * (n + 1) / 2, this->gen);
            const auto x = random_vec<T>(vlen(n, incx), this->gen);
            const auto y = random_vec<T>(vlen(n, incy), this->gen);
            const std::string at = Ctx()("uplo", ul)("n", n)("incx", incx)("incy", incy)("alpha", alpha).str();
            auto A1 = A, A2 = A;
            f1.ours(&ul, &n, &ralpha, x.data(), &incx, A1.data(), &lda, 1);
            f1.ref(&ul, &n, &ralpha, x.data(), &incx, A2.data(), &lda, 1);
            EXPECT_TRUE(close(A1, A2)) << f1_name << ' ' << at;
            A1 = AP, A2 = AP;
            fp1.ours(&ul, &n, &ralpha, x.data(), &incx, A1.data(), 1);
            fp1.ref(&ul, &n, &ralpha, x.data(), &incx, A2.data(), 1);
            EXPECT_TRUE(close(A1, A2)) << fp1_name << ' ' << at;
            A1 = A, A2 = A;
            f2.ours(&ul, &n, &alpha, x.data(), &incx, y.data(), &incy, A1.data(), &lda, 1);
            f2.ref(&ul, &n, &alpha, x.data(), &incx, y.data(), &incy, A2.data(), &lda, 1);
            EXPECT_TRUE(close(A1, A2)) << f2_name << ' ' << at;
            A1 = AP, A2 = AP;
            fp2.ours(&ul, &n, &alpha, x.data(), &incx, y.data(), &incy, A1.data(), 1);
            fp2.ref(&ul, &n, &alpha, x.data(), &incx, y.data(), &incy, A2.data(), 1);
            EXPECT_TRUE(close(A1, A2)) << fp2_name << ' ' << at;
            for (Lay lay : kLayouts) {
              const Ul u = cb_uplo(ul);
              A1 = A, A2 = A;
              c1.ours(lay, u, n, ralpha, x.data(), incx, A1.data(), lda);
              c1.ref(lay, u, n, ralpha, x.data(), incx, A2.data(), lda);
              EXPECT_TRUE(close(A1, A2)) << c1_name << " layout=" << lay << ' ' << at;
              A1 = AP, A2 = AP;
              cp1.ours(lay, u, n, ralpha, x.data(), incx, A1.data());
              cp1.ref(lay, u, n, ralpha, x.data(), incx, A2.data());
              EXPECT_TRUE(close(A1, A2)) << cp1_name << " layout=" << lay << ' ' << at;
              A1 = A, A2 = A;
              c2.ours(lay, u, n, sc(alpha), x.data(), incx, y.data(), incy, A1.data(), lda);
              c2.ref(lay, u, n, sc(alpha), x.data(), incx, y.data(), incy, A2.data(), lda);
              EXPECT_TRUE(close(A1, A2)) << c2_name << " layout=" << lay << ' ' << at;
              A1 = AP, A2 = AP;
              cp2.ours(lay, u, n, sc(alpha), x.data(), incx, y.data(), incy, A1.data());
              cp2.ref(lay, u, n, sc(alpha), x.data(), incx, y.data(), incy, A2.data());
              EXPECT_TRUE(close(A1, A2)) << cp2_name << " layout=" << lay << ' ' << at;
            }
          }
}

// ---- larger products: unrolled and threaded paths -------------------------------------------
TYPED_TEST(Level2, LargeGemvAndSymvMatchReference) {
  using T = TypeParam;
  LOOKUP(c, cb_gemv<T>, "cblas_" + routine<T>("gemv"));
  LOOKUP(s, cb_hemv<T>, "cblas_" + routine<T>("symv", "hemv"));
  const int m = 1500, n = 1400, lda = 1501;  // m*n above the threading threshold
  const auto A = random_vec<T>(std::size_t(lda) * std::max(m, n), this->gen);
  const auto x = random_vec<T>(std::max(m, n), this->gen);
  const auto y = random_vec<T>(std::max(m, n), this->gen);
  const T alpha = scalars<T>(0.7, -0.3)[2], beta = scalars<T>(1.3, -1.1)[2];
  for (Lay lay : kLayouts)
    for (char tr : kTrans) {
      auto y1 = y, y2 = y;
      c.ours(lay, cb_trans(tr), m, n, sc(alpha), A.data(), lda, x.data(), 1, sc(beta), y1.data(), 1);
      c.ref(lay, cb_trans(tr), m, n, sc(alpha), A.data(), lda, x.data(), 1, sc(beta), y2.data(), 1);
      EXPECT_TRUE(close(y1, y2)) << c_name << " layout=" << lay << " trans=" << tr;
    }
  for (Lay lay : kLayouts)
    for (char ul : kUplo) {
      auto y1 = y, y2 = y;
      s.ours(lay, cb_uplo(ul), n, sc(alpha), A.data(), lda, x.data(), 1, sc(beta), y1.data(), 1);
      s.ref(lay, cb_uplo(ul), n, sc(alpha), A.data(), lda, x.data(), 1, sc(beta), y2.data(), 1);
      EXPECT_TRUE(close(y1, y2)) << s_name << " layout=" << lay << " uplo=" << ul;
    }
}

TYPED_TEST(Level2, BlockedTriangularAndSymmetricPathsMatchReference) {
  using T = TypeParam;
  LOOKUP(trmv, f77_trmv<T>, routine<T>("trmv_"));
  LOOKUP(trsv, f77_trmv<T>, routine<T>("trsv_"));
  LOOKUP(tpmv, f77_tpmv<T>, routine<T>("tpmv_"));
  LOOKUP(tpsv, cb_tpmv<T>, "cblas_" + routine<T>("tpsv"));
  LOOKUP(hemv, f77_hemv<T>, routine<T>("symv_", "hemv_"));
  LOOKUP(hpmv, cb_hpmv<T>, "cblas_" + routine<T>("spmv", "hpmv"));
  const T alpha = scalars<T>(0.7, -0.3)[2], beta = scalars<T>(1.3, -1.1)[2];
  for (int n : {5, 8, 37})
    for (char ul : kUplo)
      for (int inc : kIncs) {
        const int lda = n + 3;
        auto A = random_vec<T>(std::size_t(lda) * n, this->gen);
        auto AP = random_vec<T>(std::size_t(n) * (n + 1) / 2, this->gen);
        for (int j = 0; j < n; ++j) A[std::size_t(j) * lda + j] += T(R<T>(n));  // well-conditioned solves
        for (bool u : {true, false}) strengthen_diagonal(AP, 'p', u, n, 0, 0);
        for (auto& v : AP) v *= R<T>(4) / R<T>(n);
        const auto x = random_vec<T>(vlen(n, inc), this->gen);
        const auto y = random_vec<T>(vlen(n, inc), this->gen);
        for (char tr : kTrans)
          for (char dg : kDiag) {
            const std::string at = Ctx()("n", n)("uplo", ul)("trans", tr)("diag", dg)("inc", inc).str();
            auto x1 = x, x2 = x;
            trmv.ours(&ul, &tr, &dg, &n, A.data(), &lda, x1.data(), &inc, 1, 1, 1);
            trmv.ref(&ul, &tr, &dg, &n, A.data(), &lda, x2.data(), &inc, 1, 1, 1);
            EXPECT_TRUE(close(x1, x2)) << trmv_name << ' ' << at;
            x1 = x, x2 = x;
            tpmv.ours(&ul, &tr, &dg, &n, AP.data(), x1.data(), &inc, 1, 1, 1);
            tpmv.ref(&ul, &tr, &dg, &n, AP.data(), x2.data(), &inc, 1, 1, 1);
            EXPECT_TRUE(close(x1, x2)) << tpmv_name << ' ' << at;
            if (dg == 'N') {  // random unit triangles of order 37 are too ill-conditioned to compare
              x1 = x, x2 = x;
              trsv.ours(&ul, &tr, &dg, &n, A.data(), &lda, x1.data(), &inc, 1, 1, 1);
              trsv.ref(&ul, &tr, &dg, &n, A.data(), &lda, x2.data(), &inc, 1, 1, 1);
              EXPECT_TRUE(close(x1, x2)) << trsv_name << ' ' << at;
              for (Lay lay : kLayouts) {
                x1 = x, x2 = x;
                tpsv.ours(lay, cb_uplo(ul), cb_trans(tr), CblasNonUnit, n, AP.data(), x1.data(), inc);
                tpsv.ref(lay, cb_uplo(ul), cb_trans(tr), CblasNonUnit, n, AP.data(), x2.data(), inc);
                EXPECT_TRUE(close(x1, x2)) << tpsv_name << " layout=" << lay << ' ' << at;
              }
            }
          }
        auto y1 = y, y2 = y;
        hemv.ours(&ul, &n, &alpha, A.data(), &lda, x.data(), &inc, &beta, y1.data(), &inc, 1);
        hemv.ref(&ul, &n, &alpha, A.data(), &lda, x.data(), &inc, &beta, y2.data(), &inc, 1);
        EXPECT_TRUE(close(y1, y2)) << hemv_name << " n=" << n << " uplo=" << ul << " inc=" << inc;
        for (Lay lay : kLayouts) {
          y1 = y, y2 = y;
          hpmv.ours(lay, cb_uplo(ul), n, sc(alpha), AP.data(), x.data(), inc, sc(beta), y1.data(), inc);
          hpmv.ref(lay, cb_uplo(ul), n, sc(alpha), AP.data(), x.data(), inc, sc(beta), y2.data(), inc);
          EXPECT_TRUE(close(y1, y2)) << hpmv_name << " layout=" << lay << " n=" << n << " uplo=" << ul;
        }
      }
}

// ---- reference semantics on special values ---------------------------------------------------
TYPED_TEST(Level2, BetaZeroNeverReadsYAndAlphaZeroNeverReadsA) {
  using T = TypeParam;
  LOOKUP(f, f77_gemv<T>, routine<T>("gemv_"));
  const int m = 5, n = 4, one = 1;
  const R<T> nan = std::numeric_limits<R<T>>::quiet_NaN();
  auto A = random_vec<T>(std::size_t(m) * n, this->gen);
  const auto x = random_vec<T>(n, this->gen);
  std::vector<T> y(m, T(nan));
  const T alpha(1), zero(0), beta(2);
  f.ours("N", &m, &n, &alpha, A.data(), &m, x.data(), &one, &zero, y.data(), &one, 1);
  for (const T& v : y) EXPECT_FALSE(std::isnan(std::abs(v)));
  std::fill(A.begin(), A.end(), T(nan));
  auto y2 = y;
  f.ours("N", &m, &n, &zero, A.data(), &m, x.data(), &one, &beta, y.data(), &one, 1);
  for (int i = 0; i < m; ++i) EXPECT_EQ(y[i], T(2) * y2[i]);
}

// ---- argument errors ------------------------------------------------------------------------

TEST(Level2Errors, FortranEntriesReportReferencePositions) {
  using D = double;
  using Z = cdouble;
  const int m1 = -1, z = 0, one = 1, two = 2;
  const D al = 1, be = 1;
  const Z zal = 1, zbe = 1;
  auto gemv = ours<f77_gemv<D>>("dgemv_");
  auto gbmv = ours<f77_gbmv<D>>("dgbmv_");
  auto symv = ours<f77_hemv<D>>("dsymv_");
  auto sbmv = ours<f77_hbmv<D>>("dsbmv_");
  auto spmv = ours<f77_hpmv<D>>("dspmv_");
  auto trmv = ours<f77_trmv<D>>("dtrmv_");
  auto tbsv = ours<f77_tbmv<D>>("dtbsv_");
  auto tpsv = ours<f77_tpmv<D>>("dtpsv_");
  auto ger = ours<f77_ger<D>>("dger_");
  auto syr = ours<f77_her<D>>("dsyr_");
  auto spr = ours<f77_hpr<D>>("dspr_");
  auto syr2 = ours<f77_her2<D>>("dsyr2_");
  auto spr2 = ours<f77_hpr2<D>>("dspr2_");
  auto gerc = ours<f77_ger<Z>>("zgerc_");
  auto her = ours<f77_her<Z>>("zher_");
  auto hpr2 = ours<f77_hpr2<Z>>("zhpr2_");
  auto hemv = ours<f77_hemv<Z>>("zhemv_");
  if (HasFailure()) return;
  using V = D*;
  expect_rejected<D>(f77_msg("DGEMV", 1), [&](V a, V x, V y) { gemv("X", &one, &one, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGEMV", 2), [&](V a, V x, V y) { gemv("N", &m1, &one, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGEMV", 3), [&](V a, V x, V y) { gemv("T", &one, &m1, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGEMV", 6), [&](V a, V x, V y) { gemv("N", &two, &one, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGEMV", 8), [&](V a, V x, V y) { gemv("C", &one, &one, &al, a, &one, x, &z, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGEMV", 11), [&](V a, V x, V y) { gemv("n", &one, &one, &al, a, &one, x, &one, &be, y, &z, 1); });
  expect_rejected<D>(f77_msg("DGBMV", 4), [&](V a, V x, V y) { gbmv("N", &one, &one, &m1, &z, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DGBMV", 8), [&](V a, V x, V y) { gbmv("N", &one, &one, &one, &one, &al, a, &two, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DSYMV", 1), [&](V a, V x, V y) { symv("X", &one, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DSBMV", 3), [&](V a, V x, V y) { sbmv("U", &one, &m1, &al, a, &one, x, &one, &be, y, &one, 1); });
  expect_rejected<D>(f77_msg("DSPMV", 9), [&](V a, V x, V y) { spmv("L", &one, &al, a, x, &one, &be, y, &z, 1); });
  expect_rejected<D>(f77_msg("DTRMV", 2), [&](V a, V x, V) { trmv("U", "R", "N", &one, a, &one, x, &one, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRMV", 3), [&](V a, V x, V) { trmv("U", "N", "X", &one, a, &one, x, &one, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTBSV", 7), [&](V a, V x, V) { tbsv("L", "T", "U", &two, &one, a, &one, x, &one, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTPSV", 7), [&](V a, V x, V) { tpsv("L", "T", "U", &two, a, x, &z, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DGER", 9), [&](V a, V x, V y) { ger(&two, &one, &al, x, &one, y, &one, a, &one); });
  expect_rejected<D>(f77_msg("DSYR", 7), [&](V a, V x, V) { syr("U", &two, &al, x, &one, a, &one, 1); });
  expect_rejected<D>(f77_msg("DSPR", 5), [&](V a, V x, V) { spr("U", &two, &al, x, &z, a, 1); });
  expect_rejected<D>(f77_msg("DSYR2", 7), [&](V a, V x, V y) { syr2("L", &one, &al, x, &one, y, &z, a, &one, 1); });
  expect_rejected<D>(f77_msg("DSPR2", 2), [&](V a, V x, V y) { spr2("L", &m1, &al, x, &one, y, &one, a, 1); });
  using W = Z*;
  expect_rejected<Z>(f77_msg("ZGERC", 7), [&](W a, W x, W y) { gerc(&one, &one, &zal, x, &one, y, &z, a, &one); });
  expect_rejected<Z>(f77_msg("ZHER", 1), [&](W a, W x, W) { her("X", &one, &al, x, &one, a, &one, 1); });
  expect_rejected<Z>(f77_msg("ZHPR2", 5), [&](W a, W x, W y) { hpr2("U", &one, &zal, x, &z, y, &one, a, 1); });
  expect_rejected<Z>(f77_msg("ZHEMV", 5), [&](W a, W x, W y) { hemv("U", &two, &zal, a, &one, x, &one, &zbe, y, &one, 1); });
}

TEST(Level2Errors, CblasEntriesReportCallerPositions) {
  const auto bad_layout = CBLAS_LAYOUT(0);
  const auto bad_trans = CBLAS_TRANSPOSE(0);
  const auto bad_uplo = CBLAS_UPLO(0);
  const auto bad_diag = CBLAS_DIAG(0);
  const auto Row = CblasRowMajor, Col = CblasColMajor;
  const cdouble za = 1;
  using V = double*;
  using W = cdouble*;
  // Layout and enums, then the Fortran-style check on the column-major form (+1); row-major
  // positions come back in the caller's terms.
  expect_rejected<double>(cblas_msg("cblas_dgemv", 1), [&](V a, V x, V y) { cblas_dgemv(bad_layout, CblasNoTrans, 1, 1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 2), [&](V a, V x, V y) { cblas_dgemv(Row, bad_trans, 1, 1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 3), [&](V a, V x, V y) { cblas_dgemv(Col, CblasNoTrans, -1, 1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 3), [&](V a, V x, V y) { cblas_dgemv(Row, CblasNoTrans, -1, 1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 4), [&](V a, V x, V y) { cblas_dgemv(Row, CblasTrans, 1, -1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 7), [&](V a, V x, V y) { cblas_dgemv(Row, CblasNoTrans, 1, 2, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 9), [&](V a, V x, V y) { cblas_dgemv(Row, CblasNoTrans, 1, 1, 1, a, 1, x, 0, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemv", 12), [&](V a, V x, V y) { cblas_dgemv(Row, CblasNoTrans, 1, 1, 1, a, 1, x, 1, 1, y, 0); });
  expect_rejected<double>(cblas_msg("cblas_dgbmv", 5), [&](V a, V x, V y) { cblas_dgbmv(Row, CblasNoTrans, 1, 1, -1, 0, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgbmv", 6), [&](V a, V x, V y) { cblas_dgbmv(Row, CblasNoTrans, 1, 1, 0, -1, 1, a, 1, x, 1, 1, y, 1); });
  expect_rejected<double>(cblas_msg("cblas_dger", 2), [&](V a, V x, V y) { cblas_dger(Row, -1, 1, 1, x, 1, y, 1, a, 1); });
  expect_rejected<double>(cblas_msg("cblas_dger", 3), [&](V a, V x, V y) { cblas_dger(Row, 1, -1, 1, x, 1, y, 1, a, 1); });
  expect_rejected<double>(cblas_msg("cblas_dger", 6), [&](V a, V x, V y) { cblas_dger(Row, 1, 1, 1, x, 0, y, 1, a, 1); });
  expect_rejected<double>(cblas_msg("cblas_dger", 8), [&](V a, V x, V y) { cblas_dger(Row, 1, 1, 1, x, 1, y, 0, a, 1); });
  expect_rejected<double>(cblas_msg("cblas_dger", 10), [&](V a, V x, V y) { cblas_dger(Row, 1, 2, 1, x, 1, y, 1, a, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrmv", 2), [&](V a, V x, V) { cblas_dtrmv(Col, bad_uplo, CblasNoTrans, CblasUnit, 1, a, 1, x, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrmv", 3), [&](V a, V x, V) { cblas_dtrmv(Row, CblasUpper, bad_trans, CblasUnit, 1, a, 1, x, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrmv", 4), [&](V a, V x, V) { cblas_dtrmv(Row, CblasUpper, CblasNoTrans, bad_diag, 1, a, 1, x, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtpsv", 8), [&](V a, V x, V) { cblas_dtpsv(Row, CblasLower, CblasTrans, CblasNonUnit, 1, a, x, 0); });
  expect_rejected<double>(cblas_msg("cblas_dsyr2", 6), [&](V a, V x, V y) { cblas_dsyr2(Row, CblasLower, 1, 1, x, 0, y, 1, a, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zher2", 6), [&](W a, W x, W y) { cblas_zher2(Row, CblasLower, 1, &za, x, 0, y, 1, a, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zher2", 8), [&](W a, W x, W y) { cblas_zher2(Row, CblasUpper, 1, &za, x, 1, y, 0, a, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zhpr2", 6), [&](W a, W x, W y) { cblas_zhpr2(Row, CblasUpper, 1, &za, x, 0, y, 1, a); });
  expect_rejected<cdouble>(cblas_msg("cblas_zgerc", 8), [&](W a, W x, W y) { cblas_zgerc(Row, 1, 1, &za, x, 1, y, 0, a, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zhemv", 6), [&](W a, W x, W y) { cblas_zhemv(Row, CblasUpper, 2, &za, a, 1, x, 1, &za, y, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zher", 8), [&](W a, W x, W) { cblas_zher(Col, CblasUpper, 1, 1.0, x, 1, a, 0); });
}

}  // namespace
