/** \file blas_level3_test.cpp
 *  \brief Level-3 BLAS of the shim against the reference BLAS: every routine for s, d, c, z
 *  through its Fortran-77 symbol and through CBLAS in both layouts, every side/uplo/trans/
 *  diag combination, on small odd shapes (sizes 0 and 1 included), alpha and beta in
 *  {0, 1, other}, and on one shape per routine that spans several blocks of the recursive
 *  algorithms (300); then argument errors (nothing written, the reference message on stderr).
 *
 *  Reference semantics that the comparison sees: operands that must not be read hold NaN
 *  (A and B when alpha == 0 or k == 0, C when beta == 0, the unreferenced triangle of a
 *  symmetric or triangular A, a unit diagonal, the imaginary part of a Hermitian diagonal),
 *  and what must not be written holds a sentinel (padding rows, the other triangle of C).
 *  Whole arrays are compared, padding included.
 *
 *  Level3Injection.* are also run by level3_injection.cmake with faults injected into every
 *  protected kernel (ABFT_INJECT=...): the results must still match the oracle — exactly as
 *  clean results for NaN faults (always detected), within the bound the checksums certify
 *  for bit flips (a flip below the bound is not detected, by design) — and the report the
 *  shim writes at exit must count the repairs (checked by the same cmake file).
 */
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "abft/cblas.h"
#include "abft/checksum/level3_bounds.hpp"
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
template <class T> using f77_gemm = void(C, C, I, I, I, const T*, const T*, I, const T*, I, const T*, T*, I, L, L);
template <class T> using f77_symm = void(C, C, I, I, const T*, const T*, I, const T*, I, const T*, T*, I, L, L);
/** ?SYRK with scalars of type S (T, or R<T> for ?HERK). */
template <class T, class S> using f77_syrk = void(C, C, I, I, const S*, const T*, I, const S*, T*, I, L, L);
/** ?SYR2K with beta of type S (T, or R<T> for ?HER2K). */
template <class T, class S> using f77_syr2k = void(C, C, I, I, const T*, const T*, I, const T*, I, const S*, T*, I, L, L);
template <class T> using f77_trmm = void(C, C, C, C, I, I, const T*, const T*, I, T*, I, L, L, L, L);

template <class T> using Sc = std::conditional_t<kCplx<T>, const void*, T>;
template <class T> using P = std::conditional_t<kCplx<T>, const void*, const T*>;
template <class T> using M = std::conditional_t<kCplx<T>, void*, T*>;
using Lay = CBLAS_LAYOUT;
using Tr = CBLAS_TRANSPOSE;
using Ul = CBLAS_UPLO;
using Sd = CBLAS_SIDE;
using Dg = CBLAS_DIAG;
template <class T> using cb_gemm = void(Lay, Tr, Tr, int, int, int, Sc<T>, P<T>, int, P<T>, int, Sc<T>, M<T>, int);
template <class T> using cb_symm = void(Lay, Sd, Ul, int, int, Sc<T>, P<T>, int, P<T>, int, Sc<T>, M<T>, int);
template <class T, class S> using cb_syrk = void(Lay, Ul, Tr, int, int, S, P<T>, int, S, M<T>, int);
template <class T, class S> using cb_syr2k = void(Lay, Ul, Tr, int, int, Sc<T>, P<T>, int, P<T>, int, S, M<T>, int);
template <class T> using cb_trmm = void(Lay, Sd, Ul, Tr, Dg, int, int, Sc<T>, P<T>, int, M<T>, int);

// The header's prototypes have exactly these types.
static_assert(std::is_same_v<decltype(cblas_sgemm), cb_gemm<float>>);
static_assert(std::is_same_v<decltype(cblas_zgemm), cb_gemm<cdouble>>);
static_assert(std::is_same_v<decltype(cblas_chemm), cb_symm<cfloat>>);
static_assert(std::is_same_v<decltype(cblas_dsymm), cb_symm<double>>);
static_assert(std::is_same_v<decltype(cblas_dsyrk), cb_syrk<double, double>>);
static_assert(std::is_same_v<decltype(cblas_csyrk), cb_syrk<cfloat, const void*>>);
static_assert(std::is_same_v<decltype(cblas_zherk), cb_syrk<cdouble, double>>);
static_assert(std::is_same_v<decltype(cblas_ssyr2k), cb_syr2k<float, float>>);
static_assert(std::is_same_v<decltype(cblas_zsyr2k), cb_syr2k<cdouble, const void*>>);
static_assert(std::is_same_v<decltype(cblas_cher2k), cb_syr2k<cfloat, float>>);
static_assert(std::is_same_v<decltype(cblas_strmm), cb_trmm<float>>);
static_assert(std::is_same_v<decltype(cblas_ztrsm), cb_trmm<cdouble>>);

// ---- lookup ----------------------------------------------------------------------------
template <class T> char prefix() {
  return std::is_same_v<T, float> ? 's' : std::is_same_v<T, double> ? 'd' : std::is_same_v<T, cfloat> ? 'c' : 'z';
}
template <class F> struct Pair {
  F* ours = nullptr;
  F* ref = nullptr;
  std::string name;
};
/** Our symbol and the reference's for `name`; ok() false (with a reason) if either lacks it. */
template <class F> Pair<F> lookup(const std::string& name) {
  return {reinterpret_cast<F*>(dlsym(our_lib(), name.c_str())), RefBlas::get().fn<F>(name.c_str()), name};
}
#define REQUIRE(p)                                                                \
  do {                                                                            \
    if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();               \
    if (!(p).ref) GTEST_SKIP() << "reference BLAS lacks " << (p).name;            \
    ASSERT_NE((p).ours, nullptr) << (p).name << " not exported by the shim";      \
  } while (0)

// ---- data -------------------------------------------------------------------------------
template <class T> R<T> nan_of() { return std::numeric_limits<R<T>>::quiet_NaN(); }
constexpr double kSentinel = 555.0;  ///< never written: padding, the other triangle of C

/** A rows x cols operand in column- or row-major storage with two rows (columns) of padding;
 *  at(i, j) is the logical element. */
template <class T> struct Mat {
  int rows = 0, cols = 0, ld = 1;
  bool col = true;
  std::vector<T> v;
  Mat(int r, int c, bool colmajor) : rows(r), cols(c), ld(std::max(1, (colmajor ? r : c) + 2)), col(colmajor) {
    v.assign(std::size_t(ld) * std::max(1, colmajor ? c : r), T(R<T>(kSentinel)));
  }
  T& at(int i, int j) { return col ? v[i + std::size_t(j) * ld] : v[j + std::size_t(i) * ld]; }
  T* data() { return v.data(); }
};

template <class T> T rnd(std::mt19937& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (kCplx<T>) return T(R<T>(u(g)), R<T>(u(g)));
  else return T(u(g));
}
/** Fill the logical rows x cols of m: random, or NaN when the operand must not be read. */
template <class T> void fill(Mat<T>& m, std::mt19937& g, bool unread = false) {
  for (int j = 0; j < m.cols; ++j)
    for (int i = 0; i < m.rows; ++i) m.at(i, j) = unread ? T(nan_of<T>()) : rnd<T>(g);
}
/** A square symmetric/Hermitian/triangular operand: the unreferenced triangle is NaN. For
 *  a triangular one (tri) the diagonal is made dominant (well-conditioned solves) or, for a
 *  unit diagonal, NaN; for a Hermitian one the diagonal's imaginary part is garbage. */
template <class T>
void fill_structured(Mat<T>& m, std::mt19937& g, char uplo, bool herm, bool tri, char diag) {
  const int n = m.rows;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool stored = uplo == 'U' ? i <= j : i >= j;
      m.at(i, j) = stored ? rnd<T>(g) : T(nan_of<T>());
    }
  for (int i = 0; i < n; ++i) {
    if (tri) m.at(i, i) = diag == 'U' ? T(nan_of<T>()) : m.at(i, i) + T(R<T>(n + 2));
    if constexpr (kCplx<T>)
      if (herm) m.at(i, i) = T(m.at(i, i).real(), R<T>(7));
  }
}

template <class T> double maxabs(const std::vector<T>& v) {
  double s = 0;
  for (const T& x : v)
    if (std::isfinite(std::abs(x)) && std::abs(x) != kSentinel) s = std::max(s, double(std::abs(x)));
  return s;
}

/** Injection runs (ABFT_INJECT set to a model that can stay below the checksum bound):
 *  compare within the bound the checks certify instead of the clean tolerance. */
bool small_faults_injected() {
  const char* m = std::getenv("ABFT_INJECT");
  return m && (!std::strcmp(m, "bitflip") || !std::strcmp(m, "bitflip2") || !std::strcmp(m, "random"));
}

/** Absolute tolerance of a product-like result: `terms` products of magnitude `prod` plus
 *  |beta| cmax, k the inner dimension, rows the order of the column checks (for injection). */
template <class T> double tolerance(int k, int rows, double prod, double cmax, double beta_abs) {
  const double scale = prod + beta_abs * cmax + 1e-30;
  // A fault below the column bound is not detected: under injection, allow what the bound
  // certifies (the rule the fault-injection campaign shares, level3_bounds.hpp).
  return abft::checksum::level3_tolerance<R<T>>(k, rows, scale, small_faults_injected());
}

/** got == want within tol, element by element over whole arrays (padding included). */
template <class T>
::testing::AssertionResult close(const std::vector<T>& got, const std::vector<T>& want, double tol) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool nan_g = std::isnan(std::abs(got[i])), nan_w = std::isnan(std::abs(want[i]));
    if (nan_g != nan_w || (!nan_w && !(std::abs(got[i] - want[i]) <= tol)))
      return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs reference "
                                           << want[i] << " (tolerance " << tol << ")";
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

template <class T> Sc<T> sc(const T& a) {
  if constexpr (kCplx<T>) return static_cast<const void*>(&a);
  else return a;
}
Tr cb_trans(char t) { return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans; }
Ul cb_uplo(char u) { return u == 'U' ? CblasUpper : CblasLower; }
Sd cb_side(char s) { return s == 'L' ? CblasLeft : CblasRight; }
Dg cb_diag(char d) { return d == 'U' ? CblasUnit : CblasNonUnit; }

/** The three ways in: the Fortran-77 symbol, CBLAS column-major, CBLAS row-major. */
enum class Via { F77, ColMajor, RowMajor };
const Via kVias[3] = {Via::F77, Via::ColMajor, Via::RowMajor};
const char* via_name(Via v) { return v == Via::F77 ? "f77" : v == Via::ColMajor ? "cblas-col" : "cblas-row"; }
Lay layout_of(Via v) { return v == Via::RowMajor ? CblasRowMajor : CblasColMajor; }

/** Shapes: (m, n, k). Small odd ones, empty ones, and one spanning several blocks. */
struct Shape {
  int m, n, k;
};
const Shape kSmall[] = {{3, 5, 4}, {1, 1, 1}, {7, 2, 9}, {0, 3, 2}, {3, 0, 2}, {2, 3, 0}};

/** Scalar pairs (alpha, beta): other, 0 and 1 in the combinations the reference treats
 *  specially. */
template <class T> std::vector<std::pair<T, T>> scalar_pairs(bool real_beta = false) {
  T a, b;
  if constexpr (kCplx<T>) {
    a = T(R<T>(0.7), R<T>(-0.4));
    b = real_beta ? T(R<T>(1.3)) : T(R<T>(1.3), R<T>(0.2));
  } else {
    a = T(0.7);
    b = T(1.3);
  }
  return {{a, b}, {T(0), b}, {a, T(0)}, {T(1), T(1)}, {T(0), T(0)}, {T(0), T(1)}, {a, T(1)}};
}

template <class T> class Level3 : public ::testing::Test {
 protected:
  std::mt19937 gen{20240611};
};
using Types = ::testing::Types<float, double, cfloat, cdouble>;
struct TypeNames {
  template <class T> static std::string GetName(int) { return std::string(1, prefix<T>()); }
};
TYPED_TEST_SUITE(Level3, Types, TypeNames);

// ---- one call of each routine, ours vs the reference ------------------------------------------

template <class T> struct Gemm {
  Pair<f77_gemm<T>> f = lookup<f77_gemm<T>>(std::string(1, prefix<T>()) + "gemm_");
  Pair<cb_gemm<T>> c = lookup<cb_gemm<T>>(std::string("cblas_") + prefix<T>() + "gemm");

  void run(std::mt19937& g, Via via, char ta, char tb, Shape s, T alpha, T beta) {
    const bool col = via != Via::RowMajor;
    const int m = s.m, n = s.n, k = s.k;
    Mat<T> A(ta == 'N' ? m : k, ta == 'N' ? k : m, col), B(tb == 'N' ? k : n, tb == 'N' ? n : k, col);
    Mat<T> Cm(m, n, col);
    const bool no_ab = alpha == T(0) || k == 0;
    fill(A, g, no_ab);
    fill(B, g, no_ab);
    fill(Cm, g, beta == T(0));
    const double cmax = maxabs(Cm.v);
    auto c1 = Cm.v, c2 = Cm.v;
    if (via == Via::F77) {
      f.ours(&ta, &tb, &m, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c1.data(), &Cm.ld, 1, 1);
      f.ref(&ta, &tb, &m, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c2.data(), &Cm.ld, 1, 1);
    } else {
      const Lay lay = layout_of(via);
      c.ours(lay, cb_trans(ta), cb_trans(tb), m, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c1.data(), Cm.ld);
      c.ref(lay, cb_trans(ta), cb_trans(tb), m, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c2.data(), Cm.ld);
    }
    const double prod = std::abs(alpha) * k * 2.0;  // |a|, |b| <= sqrt(2)
    EXPECT_TRUE(close(c1, c2, tolerance<T>(k, std::max(m, n), prod, cmax, std::abs(beta))))
        << (Ctx()("via", via_name(via))("ta", ta)("tb", tb)("m", m)("n", n)("k", k)("alpha", alpha)("beta", beta)).str();
  }
};

template <class T> struct Symm {
  Pair<f77_symm<T>> f;
  Pair<cb_symm<T>> c;
  bool herm;
  explicit Symm(bool h)
      : f(lookup<f77_symm<T>>(std::string(1, prefix<T>()) + (h ? "hemm_" : "symm_"))),
        c(lookup<cb_symm<T>>(std::string("cblas_") + prefix<T>() + (h ? "hemm" : "symm"))),
        herm(h) {}

  void run(std::mt19937& g, Via via, char side, char uplo, int m, int n, T alpha, T beta) {
    const bool col = via != Via::RowMajor;
    const int ka = side == 'L' ? m : n;
    Mat<T> A(ka, ka, col), B(m, n, col), Cm(m, n, col);
    fill_structured(A, g, uplo, herm, false, 'N');
    if (alpha == T(0)) fill(A, g, true);
    fill(B, g, alpha == T(0));
    fill(Cm, g, beta == T(0));
    const double cmax = maxabs(Cm.v);
    auto c1 = Cm.v, c2 = Cm.v;
    if (via == Via::F77) {
      f.ours(&side, &uplo, &m, &n, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c1.data(), &Cm.ld, 1, 1);
      f.ref(&side, &uplo, &m, &n, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c2.data(), &Cm.ld, 1, 1);
    } else {
      const Lay lay = layout_of(via);
      c.ours(lay, cb_side(side), cb_uplo(uplo), m, n, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c1.data(), Cm.ld);
      c.ref(lay, cb_side(side), cb_uplo(uplo), m, n, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c2.data(), Cm.ld);
    }
    EXPECT_TRUE(close(c1, c2, tolerance<T>(ka, std::max(m, n), std::abs(alpha) * ka * 2.0, cmax, std::abs(beta))))
        << (Ctx()("routine", f.name)("via", via_name(via))("side", side)("uplo", uplo)("m", m)("n", n)("alpha", alpha)("beta", beta)).str();
  }
};

/** ?SYRK / ?HERK (herm: real alpha and beta) and ?SYR2K / ?HER2K (two: real beta if herm). */
template <class T> struct RankK {
  using S1 = std::conditional_t<kCplx<T>, R<T>, T>;  // HERK / HER2K real scalar type
  Pair<f77_syrk<T, T>> fs;
  Pair<f77_syrk<T, S1>> fh;
  Pair<f77_syr2k<T, T>> f2s;
  Pair<f77_syr2k<T, S1>> f2h;
  Pair<cb_syrk<T, Sc<T>>> cs;
  Pair<cb_syrk<T, S1>> ch;
  Pair<cb_syr2k<T, Sc<T>>> c2s;
  Pair<cb_syr2k<T, S1>> c2h;
  bool herm, two;
  std::string name;
  RankK(bool h, bool t) : herm(h), two(t) {
    const std::string p(1, prefix<T>());
    name = p + (t ? (h ? "her2k" : "syr2k") : (h ? "herk" : "syrk"));
    if (!t && !h) fs = lookup<f77_syrk<T, T>>(name + "_"), cs = lookup<cb_syrk<T, Sc<T>>>("cblas_" + name);
    if (!t && h) fh = lookup<f77_syrk<T, S1>>(name + "_"), ch = lookup<cb_syrk<T, S1>>("cblas_" + name);
    if (t && !h) f2s = lookup<f77_syr2k<T, T>>(name + "_"), c2s = lookup<cb_syr2k<T, Sc<T>>>("cblas_" + name);
    if (t && h) f2h = lookup<f77_syr2k<T, S1>>(name + "_"), c2h = lookup<cb_syr2k<T, S1>>("cblas_" + name);
  }
  bool ok_ref() const { return fs.ref || fh.ref || f2s.ref || f2h.ref; }
  bool ok_ours() const { return fs.ours || fh.ours || f2s.ours || f2h.ours; }

  void run(std::mt19937& g, Via via, char uplo, char trans, int n, int k, T alpha, T beta) {
    const bool col = via != Via::RowMajor;
    const bool nt = trans == 'N';
    Mat<T> A(nt ? n : k, nt ? k : n, col), B(nt ? n : k, nt ? k : n, col), Cm(n, n, col);
    const bool no_ab = alpha == T(0) || k == 0;
    fill(A, g, no_ab);
    fill(B, g, no_ab);
    fill(Cm, g, beta == T(0));
    for (int j = 0; j < n; ++j)  // the other triangle is never read or written
      for (int i = 0; i < n; ++i)
        if (uplo == 'U' ? i > j : i < j) Cm.at(i, j) = T(R<T>(kSentinel));
    if constexpr (kCplx<T>)
      if (herm && beta != T(0))
        for (int i = 0; i < n; ++i) Cm.at(i, i) = T(Cm.at(i, i).real(), R<T>(3));  // zeroed by HERK
    const double cmax = maxabs(Cm.v);
    auto c1 = Cm.v, c2 = Cm.v;
    const R<T> ra = std::real(alpha), rb = std::real(beta);
    const Lay lay = layout_of(via);
    const Ul cu = cb_uplo(uplo);
    const Tr ct = cb_trans(trans);
    if (!two && !herm) {
      if (via == Via::F77) {
        fs.ours(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, &beta, c1.data(), &Cm.ld, 1, 1);
        fs.ref(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, &beta, c2.data(), &Cm.ld, 1, 1);
      } else {
        cs.ours(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, sc(beta), c1.data(), Cm.ld);
        cs.ref(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, sc(beta), c2.data(), Cm.ld);
      }
    } else if (!two) {
      const S1 a1 = S1(ra), b1 = S1(rb);
      if (via == Via::F77) {
        fh.ours(&uplo, &trans, &n, &k, &a1, A.data(), &A.ld, &b1, c1.data(), &Cm.ld, 1, 1);
        fh.ref(&uplo, &trans, &n, &k, &a1, A.data(), &A.ld, &b1, c2.data(), &Cm.ld, 1, 1);
      } else {
        ch.ours(lay, cu, ct, n, k, a1, A.data(), A.ld, b1, c1.data(), Cm.ld);
        ch.ref(lay, cu, ct, n, k, a1, A.data(), A.ld, b1, c2.data(), Cm.ld);
      }
    } else if (!herm) {
      if (via == Via::F77) {
        f2s.ours(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c1.data(), &Cm.ld, 1, 1);
        f2s.ref(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &beta, c2.data(), &Cm.ld, 1, 1);
      } else {
        c2s.ours(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c1.data(), Cm.ld);
        c2s.ref(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, sc(beta), c2.data(), Cm.ld);
      }
    } else {
      const S1 b1 = S1(rb);
      if (via == Via::F77) {
        f2h.ours(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &b1, c1.data(), &Cm.ld, 1, 1);
        f2h.ref(&uplo, &trans, &n, &k, &alpha, A.data(), &A.ld, B.data(), &B.ld, &b1, c2.data(), &Cm.ld, 1, 1);
      } else {
        c2h.ours(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, b1, c1.data(), Cm.ld);
        c2h.ref(lay, cu, ct, n, k, sc(alpha), A.data(), A.ld, B.data(), B.ld, b1, c2.data(), Cm.ld);
      }
    }
    const double prod = std::abs(alpha) * k * (two ? 4.0 : 2.0);
    EXPECT_TRUE(close(c1, c2, tolerance<T>(k, n, prod, cmax, std::abs(beta))))
        << (Ctx()("routine", name)("via", via_name(via))("uplo", uplo)("trans", trans)("n", n)("k", k)("alpha", alpha)("beta", beta)).str();
  }
};

/** ?TRMM (solve = false) and ?TRSM (solve = true). */
template <class T> struct Tri {
  Pair<f77_trmm<T>> f;
  Pair<cb_trmm<T>> c;
  bool solve;
  explicit Tri(bool s)
      : f(lookup<f77_trmm<T>>(std::string(1, prefix<T>()) + (s ? "trsm_" : "trmm_"))),
        c(lookup<cb_trmm<T>>(std::string("cblas_") + prefix<T>() + (s ? "trsm" : "trmm"))),
        solve(s) {}

  void run(std::mt19937& g, Via via, char side, char uplo, char ta, char diag, int m, int n, T alpha) {
    const bool col = via != Via::RowMajor;
    const int ka = side == 'L' ? m : n;
    Mat<T> A(ka, ka, col), B(m, n, col);
    fill_structured(A, g, uplo, false, true, diag);
    if (alpha == T(0)) fill(A, g, true);
    fill(B, g, alpha == T(0));
    const double bmax = maxabs(B.v);
    auto b1 = B.v, b2 = B.v;
    if (via == Via::F77) {
      f.ours(&side, &uplo, &ta, &diag, &m, &n, &alpha, A.data(), &A.ld, b1.data(), &B.ld, 1, 1, 1, 1);
      f.ref(&side, &uplo, &ta, &diag, &m, &n, &alpha, A.data(), &A.ld, b2.data(), &B.ld, 1, 1, 1, 1);
    } else {
      const Lay lay = layout_of(via);
      c.ours(lay, cb_side(side), cb_uplo(uplo), cb_trans(ta), cb_diag(diag), m, n, sc(alpha), A.data(), A.ld, b1.data(), B.ld);
      c.ref(lay, cb_side(side), cb_uplo(uplo), cb_trans(ta), cb_diag(diag), m, n, sc(alpha), A.data(), A.ld, b2.data(), B.ld);
    }
    // TRMM: ka products of |a| <= ka + 3, |b| <= sqrt(2). TRSM: the diagonal dominates by
    // a margin of 2, so |x| <= |alpha| bmax and the residual scale is that of the product.
    const double prod = std::abs(alpha) * (solve ? std::max(bmax, maxabs(b2)) * 2.0 : (2.0 * ka + 4.0) * 2.0);
    EXPECT_TRUE(close(b1, b2, tolerance<T>(ka, std::max(m, n), prod, 0.0, 0.0)))
        << (Ctx()("routine", f.name)("via", via_name(via))("side", side)("uplo", uplo)("transa", ta)("diag", diag)("m", m)("n", n)("alpha", alpha)).str();
  }
};

// ---- the routines over their configurations ------------------------------------------------

TYPED_TEST(Level3, GemmMatchesReference) {
  using T = TypeParam;
  Gemm<T> r;
  REQUIRE(r.f);
  REQUIRE(r.c);
  for (Via via : kVias)
    for (char ta : {'N', 'T', 'C'})
      for (char tb : {'N', 'T', 'C'}) {
        for (const Shape& s : kSmall)
          for (auto [alpha, beta] : scalar_pairs<T>()) r.run(this->gen, via, ta, tb, s, alpha, beta);
        r.run(this->gen, via, ta, tb, {300, 23, 37}, scalar_pairs<T>()[0].first, scalar_pairs<T>()[0].second);
      }
}

template <class T> void symm_cases(std::mt19937& g, bool herm) {
  Symm<T> r(herm);
  REQUIRE(r.f);
  REQUIRE(r.c);
  for (Via via : kVias)
    for (char side : {'L', 'R'})
      for (char uplo : {'U', 'L'}) {
        for (const Shape& s : kSmall)
          for (auto [alpha, beta] : scalar_pairs<T>()) r.run(g, via, side, uplo, s.m, s.n, alpha, beta);
        const auto [a, b] = scalar_pairs<T>()[0];
        r.run(g, via, side, uplo, side == 'L' ? 300 : 17, side == 'L' ? 17 : 300, a, b);
      }
}
TYPED_TEST(Level3, SymmMatchesReference) { symm_cases<TypeParam>(this->gen, false); }
TYPED_TEST(Level3, HemmMatchesReference) {
  if constexpr (!kCplx<TypeParam>) GTEST_SKIP() << "HEMM is complex only";
  else symm_cases<TypeParam>(this->gen, true);
}

template <class T> void rank_cases(std::mt19937& g, bool herm, bool two) {
  RankK<T> r(herm, two);
  if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();
  if (!r.ok_ref()) GTEST_SKIP() << "reference BLAS lacks " << r.name;
  ASSERT_TRUE(r.ok_ours()) << r.name << " not exported by the shim";
  // Real types accept N, T, C; complex symmetric N, T; Hermitian N, C.
  std::vector<char> transes = {'N', 'T', 'C'};
  if (kCplx<T>) transes = herm ? std::vector<char>{'N', 'C'} : std::vector<char>{'N', 'T'};
  for (Via via : kVias)
    for (char uplo : {'U', 'L'})
      for (char trans : transes) {
        for (const Shape& s : kSmall)
          for (auto [alpha, beta] : scalar_pairs<T>(herm)) {
            const T a = herm && !two ? T(std::real(alpha)) : alpha;
            r.run(g, via, uplo, trans, s.m, s.k, a, beta);
          }
        const auto [a, b] = scalar_pairs<T>(herm)[0];
        r.run(g, via, uplo, trans, 300, 19, herm && !two ? T(std::real(a)) : a, b);
      }
}
TYPED_TEST(Level3, SyrkMatchesReference) { rank_cases<TypeParam>(this->gen, false, false); }
TYPED_TEST(Level3, Syr2kMatchesReference) { rank_cases<TypeParam>(this->gen, false, true); }
TYPED_TEST(Level3, HerkMatchesReference) {
  if constexpr (!kCplx<TypeParam>) GTEST_SKIP() << "HERK is complex only";
  else rank_cases<TypeParam>(this->gen, true, false);
}
TYPED_TEST(Level3, Her2kMatchesReference) {
  if constexpr (!kCplx<TypeParam>) GTEST_SKIP() << "HER2K is complex only";
  else rank_cases<TypeParam>(this->gen, true, true);
}

template <class T> void tri_cases(std::mt19937& g, bool solve) {
  Tri<T> r(solve);
  REQUIRE(r.f);
  REQUIRE(r.c);
  std::vector<T> alphas = {scalar_pairs<T>()[0].first, T(1), T(0)};
  for (Via via : kVias)
    for (char side : {'L', 'R'})
      for (char uplo : {'U', 'L'})
        for (char ta : {'N', 'T', 'C'})
          for (char diag : {'N', 'U'}) {
            for (const Shape& s : kSmall)
              for (const T& alpha : alphas) r.run(g, via, side, uplo, ta, diag, s.m, s.n, alpha);
            // Several levels of the recursion (leaves of 64 or 128, then GEMM updates).
            r.run(g, via, side, uplo, ta, diag, side == 'L' ? 300 : 13, side == 'L' ? 13 : 300, alphas[0]);
          }
}
TYPED_TEST(Level3, TrmmMatchesReference) { tri_cases<TypeParam>(this->gen, false); }
TYPED_TEST(Level3, TrsmMatchesReference) { tri_cases<TypeParam>(this->gen, true); }

/** Many right-hand sides: more than one workspace chunk of the checked TRSM leaf. */
TYPED_TEST(Level3, TrsmManyRightHandSidesMatchReference) {
  using T = TypeParam;
  Tri<T> r(true);
  REQUIRE(r.f);
  for (char side : {'L', 'R'})
    r.run(this->gen, Via::F77, side, 'L', 'N', 'N', side == 'L' ? 70 : 600, side == 'L' ? 600 : 70, T(1));
}

// ---- protection: the same oracle with faults injected (level3_injection.cmake) -------------

/** Every routine once or twice at shapes that span several blocks. Clean runs pass as the
 *  tests above; injected runs must give the repaired results (see the file comment). */
TYPED_TEST(Level3, InjectionEveryRoutineMatchesReference) {
  using T = TypeParam;
  if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();
  std::mt19937& g = this->gen;
  const auto [a, b] = scalar_pairs<T>()[0];
  Gemm<T> gemm;
  REQUIRE(gemm.f);
  gemm.run(g, Via::F77, 'N', 'T', {200, 40, 150}, a, b);
  gemm.run(g, Via::RowMajor, 'C', 'N', {40, 200, 150}, a, b);
  for (bool herm : {false, true}) {
    if (herm && !kCplx<T>) continue;
    Symm<T> s(herm);
    REQUIRE(s.f);
    s.run(g, Via::F77, 'L', 'U', 200, 30, a, b);
    s.run(g, Via::RowMajor, 'R', 'L', 30, 200, a, b);
    for (bool two : {false, true}) {
      RankK<T> r(herm, two);
      const T ra = herm && !two ? T(std::real(a)) : a;
      const T rb = herm ? T(std::real(b)) : b;
      r.run(g, Via::F77, 'U', 'N', 300, 30, ra, rb);
      r.run(g, Via::RowMajor, 'L', herm ? 'C' : 'T', 300, 30, ra, rb);
    }
  }
  for (bool solve : {false, true}) {
    Tri<T> t(solve);
    REQUIRE(t.f);
    t.run(g, Via::F77, 'L', 'L', 'N', 'N', 300, 30, a);
    t.run(g, Via::F77, 'R', 'U', 'C', 'U', 30, 300, a);
    t.run(g, Via::RowMajor, 'L', 'U', 'T', 'N', 300, 30, T(1));
  }
}

/** Many small solves: one diagonal block each, so every injected fault lands in the checked
 *  substitution itself (with rate 1, thousands of faults per type, exponent flips included).
 *  Diagonals near 1 (not dominant) let a flipped exponent stay finite and checkable. */
TYPED_TEST(Level3, InjectionManySmallSolvesMatchReference) {
  using T = TypeParam;
  Tri<T> t(true);
  REQUIRE(t.f);
  std::mt19937& g = this->gen;
  const char sides[2] = {'L', 'R'}, uplos[2] = {'U', 'L'}, transes[3] = {'N', 'T', 'C'}, diags[2] = {'N', 'U'};
  for (int c = 0; c < 4000; ++c) {
    const char side = sides[c % 2], uplo = uplos[(c / 2) % 2], ta = transes[(c / 4) % 3], diag = diags[(c / 12) % 2];
    const int m = 1 + int(g() % 9), n = 1 + int(g() % 9), ka = side == 'L' ? m : n;
    Mat<T> A(ka, ka, true), B(m, n, true);
    fill_structured(A, g, uplo, false, true, diag);
    for (int i = 0; i < ka && diag == 'N'; ++i) A.at(i, i) = T(R<T>(1)) + T(R<T>(0.5)) * rnd<T>(g);
    fill(B, g);
    const T alpha = c % 3 ? T(1) : scalar_pairs<T>()[0].first;
    auto b1 = B.v, b2 = B.v;
    t.f.ours(&side, &uplo, &ta, &diag, &m, &n, &alpha, A.data(), &A.ld, b1.data(), &B.ld, 1, 1, 1, 1);
    t.f.ref(&side, &uplo, &ta, &diag, &m, &n, &alpha, A.data(), &A.ld, b2.data(), &B.ld, 1, 1, 1, 1);
    // Not diagonally dominant: judge relative to the solution's size (and the bound).
    const double scale = std::max(maxabs(b2), 1.0) * 4.0 * ka;
    EXPECT_TRUE(close(b1, b2, tolerance<T>(ka, std::max(m, n), scale, 0.0, 0.0)))
        << (Ctx()("side", side)("uplo", uplo)("transa", ta)("diag", diag)("m", m)("n", n)).str();
  }
}

// ---- adversarial data: no false alarm (level3_injection.cmake judges the report) -----------

/** Flush-to-zero and denormals-are-zero on (x86) for the scope, as -ffast-math programs run. */
struct FlushScope {
#if defined(__x86_64__) || defined(__i386__)
  unsigned saved;
  explicit FlushScope(bool on) : saved(_mm_getcsr()) {
    if (on) _mm_setcsr(saved | 0x8040u);
  }
  ~FlushScope() { _mm_setcsr(saved); }
#else
  explicit FlushScope(bool) {}
#endif
};

/** Data the checks must not mistake for faults. kind: 0 right-hand sides near and below the
 *  smallest normal number; 1 mostly zero right-hand sides and a sparse triangle; 2 entries
 *  of A spread over 2^-20..2^20; 3 a small diagonal (growth; float may overflow, which is
 *  data); 4 identical right-hand sides; 5 right-hand sides near realmax / 16. */
template <class T> T adversarial_value(std::mt19937& g, int kind, bool in_b, int idx) {
  std::uniform_int_distribution<int> e(-20, 20);
  const double tiny = double(std::numeric_limits<R<T>>::min());
  const double big = double(std::numeric_limits<R<T>>::max()) / 16;
  T v = rnd<T>(g);
  switch (kind) {
    case 0: return in_b ? v * T(R<T>(tiny * std::ldexp(1.0, e(g) / 2))) : v;
    case 1: return idx % 3 ? T(0) : v;
    case 2: return in_b ? v : v * T(R<T>(std::ldexp(1.0, e(g))));
    case 4: return in_b ? T(R<T>(0.25 * (idx % 7 + 1))) : v;
    case 5: return in_b ? v * T(R<T>(big)) : v;
    default: return v;
  }
}

template <class T> void adversarial_trsm(std::mt19937& g, int kind, bool compare) {
  Tri<T> r(true);
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (char ta : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'})
          for (int n : {1, 5, 32, 70}) {
            const int m = side == 'L' ? n : 9, nn = side == 'L' ? 9 : n;
            Mat<T> A(n, n, true), B(m, nn, true);
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i)
                A.at(i, j) = (uplo == 'U' ? i <= j : i >= j) ? adversarial_value<T>(g, kind, false, i + 3 * j) : T(nan_of<T>());
            for (int i = 0; i < n; ++i)
              A.at(i, i) = diag == 'U' ? T(nan_of<T>()) : kind == 3 ? T(R<T>(0.05)) + T(R<T>(0.02)) * rnd<T>(g) : T(R<T>(n + 2)) + rnd<T>(g);
            for (int j = 0; j < nn; ++j)
              for (int i = 0; i < m; ++i) B.at(i, j) = adversarial_value<T>(g, kind, true, kind == 4 ? i : i + j);
            const T alpha(1);
            auto b1 = B.v, b2 = B.v;
            r.f.ours(&side, &uplo, &ta, &diag, &m, &nn, &alpha, A.data(), &A.ld, b1.data(), &B.ld, 1, 1, 1, 1);
            if (!compare) continue;
            r.f.ref(&side, &uplo, &ta, &diag, &m, &nn, &alpha, A.data(), &A.ld, b2.data(), &B.ld, 1, 1, 1, 1);
            const double eps = std::numeric_limits<R<T>>::epsilon();
            const double tol = 64.0 * (n + 4) * eps * std::max(maxabs(b2), maxabs(B.v)) +
                               64.0 * (n + 4) * double(std::numeric_limits<R<T>>::denorm_min());
            EXPECT_TRUE(close(b1, b2, tol)) << (Ctx()("kind", kind)("side", side)("uplo", uplo)("transa", ta)("diag", diag)("n", n)).str();
          }
}

/** Every kind with and without FTZ/DAZ, for TRSM (whose diagonal blocks carry the shim's own
 *  check) and for the GEMM-built routines (the engine's checks). Results are compared where
 *  the reference computes the same thing (gradual underflow, well-conditioned data). */
TYPED_TEST(Level3, AdversarialDataRaisesNoFalseAlarm) {
  using T = TypeParam;
  if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();
  std::mt19937& g = this->gen;
  for (bool ftz : {false, true}) {
    FlushScope scope(ftz);
    for (int kind = 0; kind < 6; ++kind) {
      SCOPED_TRACE((Ctx()("ftz", ftz)("kind", kind)).str());
      adversarial_trsm<T>(g, kind, !ftz && kind != 2 && kind != 3 && kind != 5);
    }
    // The GEMM-built routines on the same kinds of data (results judged by the report).
    for (int kind : {0, 1, 2, 5}) {
      Mat<T> A(70, 70, true), B(70, 70, true), Cm(70, 70, true);
      for (int j = 0; j < 70; ++j)
        for (int i = 0; i < 70; ++i) {
          A.at(i, j) = adversarial_value<T>(g, kind == 5 ? 2 : kind, false, i + j);
          B.at(i, j) = adversarial_value<T>(g, kind, true, i + 2 * j);
          Cm.at(i, j) = adversarial_value<T>(g, kind, true, i * j);
        }
      const int n = 70;
      const T one(1), half(R<T>(0.5));
      auto syrk = lookup<f77_syrk<T, T>>(std::string(1, prefix<T>()) + "syrk_");
      auto symm = lookup<f77_symm<T>>(std::string(1, prefix<T>()) + "symm_");
      auto trmm = lookup<f77_trmm<T>>(std::string(1, prefix<T>()) + "trmm_");
      ASSERT_TRUE(syrk.ours && symm.ours && trmm.ours);
      auto c = Cm.v;
      syrk.ours("L", "T", &n, &n, &half, B.data(), &B.ld, &one, c.data(), &Cm.ld, 1, 1);
      c = Cm.v;
      symm.ours("R", "U", &n, &n, &half, A.data(), &A.ld, B.data(), &B.ld, &one, c.data(), &Cm.ld, 1, 1);
      c = B.v;
      trmm.ours("L", "U", "C", "N", &n, &n, &half, A.data(), &A.ld, c.data(), &B.ld, 1, 1, 1, 1);
    }
  }
}

// ---- reference semantics on special values ----------------------------------------------------

/** alpha == 0: TRMM/TRSM set B to zero without reading A or B; SYRK with k == 0 only scales;
 *  beta == 0 never reads C (NaN in C does not propagate). Checked directly, not only against
 *  the oracle. */
TYPED_TEST(Level3, SpecialScalarsDoNotReadOperands) {
  using T = TypeParam;
  auto trsm = lookup<f77_trmm<T>>(std::string(1, prefix<T>()) + "trsm_");
  auto trmm = lookup<f77_trmm<T>>(std::string(1, prefix<T>()) + "trmm_");
  auto gemm = lookup<f77_gemm<T>>(std::string(1, prefix<T>()) + "gemm_");
  auto syrk = lookup<f77_syrk<T, T>>(std::string(1, prefix<T>()) + "syrk_");
  ASSERT_TRUE(trsm.ours && trmm.ours && gemm.ours && syrk.ours);
  const int n = 5;
  const T nan(nan_of<T>()), zero(0), two(2);
  std::vector<T> A(n * n, nan), B(n * n, nan), Cm(n * n, nan);
  for (auto* f : {trsm.ours, trmm.ours}) {
    std::fill(B.begin(), B.end(), nan);
    f("L", "U", "N", "N", &n, &n, &zero, A.data(), &n, B.data(), &n, 1, 1, 1, 1);
    for (const T& v : B) EXPECT_EQ(v, zero);
  }
  std::vector<T> X(n * n, T(1));
  gemm.ours("N", "N", &n, &n, &n, &two, X.data(), &n, X.data(), &n, &zero, Cm.data(), &n, 1, 1);
  for (const T& v : Cm) EXPECT_EQ(v, T(2 * n));
  const int k0 = 0;
  syrk.ours("U", "N", &n, &k0, &two, A.data(), &n, &two, Cm.data(), &n, 1, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) EXPECT_EQ(Cm[i + j * n], i <= j ? T(4 * n) : T(2 * n));
}

// ---- argument errors ------------------------------------------------------------------------

TEST(Level3Errors, FortranEntriesReportReferencePositions) {
  using D = double;
  using Z = cdouble;
  const int m1 = -1, one = 1, two = 2;
  const D al = 1, be = 1;
  const Z zal = 1, zbe = 1;
  auto gemm = ours<f77_gemm<D>>("dgemm_");
  auto symm = ours<f77_symm<D>>("dsymm_");
  auto syrk = ours<f77_syrk<D, D>>("dsyrk_");
  auto syr2k = ours<f77_syr2k<D, D>>("dsyr2k_");
  auto trmm = ours<f77_trmm<D>>("dtrmm_");
  auto trsm = ours<f77_trmm<D>>("dtrsm_");
  auto zsyrk = ours<f77_syrk<Z, Z>>("zsyrk_");
  auto zherk = ours<f77_syrk<Z, D>>("zherk_");
  auto zher2k = ours<f77_syr2k<Z, D>>("zher2k_");
  auto zhemm = ours<f77_symm<Z>>("zhemm_");
  if (HasFailure()) return;
  using V = D*;
  using W = Z*;
  expect_rejected<D>(f77_msg("DGEMM", 1), [&](V a, V b, V c) { gemm("X", "N", &one, &one, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 2), [&](V a, V b, V c) { gemm("N", "R", &one, &one, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 3), [&](V a, V b, V c) { gemm("N", "N", &m1, &one, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 5), [&](V a, V b, V c) { gemm("N", "N", &one, &one, &m1, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 8), [&](V a, V b, V c) { gemm("T", "N", &one, &one, &two, &al, a, &one, b, &two, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 10), [&](V a, V b, V c) { gemm("N", "c", &one, &two, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DGEMM", 13), [&](V a, V b, V c) { gemm("n", "t", &two, &one, &one, &al, a, &two, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYMM", 1), [&](V a, V b, V c) { symm("X", "U", &one, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYMM", 7), [&](V a, V b, V c) { symm("R", "U", &one, &two, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYMM", 9), [&](V a, V b, V c) { symm("L", "L", &two, &one, &al, a, &two, b, &one, &be, c, &two, 1, 1); });
  expect_rejected<D>(f77_msg("DSYMM", 12), [&](V a, V b, V c) { symm("L", "L", &two, &one, &al, a, &two, b, &two, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYRK", 2), [&](V a, V, V c) { syrk("U", "X", &one, &one, &al, a, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYRK", 4), [&](V a, V, V c) { syrk("U", "N", &one, &m1, &al, a, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYRK", 7), [&](V a, V, V c) { syrk("U", "C", &one, &two, &al, a, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYRK", 10), [&](V a, V, V c) { syrk("L", "N", &two, &one, &al, a, &two, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DSYR2K", 9), [&](V a, V b, V c) { syr2k("U", "N", &two, &one, &al, a, &two, b, &one, &be, c, &two, 1, 1); });
  expect_rejected<D>(f77_msg("DSYR2K", 12), [&](V a, V b, V c) { syr2k("U", "T", &two, &one, &al, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<D>(f77_msg("DTRMM", 1), [&](V a, V b, V) { trmm("X", "U", "N", "N", &one, &one, &al, a, &one, b, &one, 1, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRMM", 4), [&](V a, V b, V) { trmm("L", "U", "N", "X", &one, &one, &al, a, &one, b, &one, 1, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRMM", 6), [&](V a, V b, V) { trmm("L", "U", "N", "N", &one, &m1, &al, a, &one, b, &one, 1, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRSM", 3), [&](V a, V b, V) { trsm("L", "U", "X", "N", &one, &one, &al, a, &one, b, &one, 1, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRSM", 9), [&](V a, V b, V) { trsm("R", "L", "T", "U", &one, &two, &al, a, &one, b, &one, 1, 1, 1, 1); });
  expect_rejected<D>(f77_msg("DTRSM", 11), [&](V a, V b, V) { trsm("L", "L", "C", "N", &two, &one, &al, a, &two, b, &one, 1, 1, 1, 1); });
  expect_rejected<Z>(f77_msg("ZSYRK", 2), [&](W a, W, W c) { zsyrk("U", "C", &one, &one, &zal, a, &one, &zbe, c, &one, 1, 1); });
  expect_rejected<Z>(f77_msg("ZHERK", 2), [&](W a, W, W c) { zherk("U", "T", &one, &one, &al, a, &one, &be, c, &one, 1, 1); });
  expect_rejected<Z>(f77_msg("ZHER2K", 2), [&](W a, W b, W c) { zher2k("L", "T", &one, &one, &zal, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<Z>(f77_msg("ZHER2K", 3), [&](W a, W b, W c) { zher2k("L", "C", &m1, &one, &zal, a, &one, b, &one, &be, c, &one, 1, 1); });
  expect_rejected<Z>(f77_msg("ZHEMM", 2), [&](W a, W b, W c) { zhemm("L", "X", &one, &one, &zal, a, &one, b, &one, &zbe, c, &one, 1, 1); });
}

TEST(Level3Errors, CblasEntriesReportCallerPositions) {
  const auto bad_layout = CBLAS_LAYOUT(0);
  const auto bad_trans = CBLAS_TRANSPOSE(0);
  const auto bad_uplo = CBLAS_UPLO(0);
  const auto bad_side = CBLAS_SIDE(0);
  const auto bad_diag = CBLAS_DIAG(0);
  const auto Row = CblasRowMajor, Col = CblasColMajor;
  const cdouble za = 1;
  using V = double*;
  using W = cdouble*;
  const auto N = CblasNoTrans, T = CblasTrans, Cj = CblasConjTrans;
  // Layout and enums first, then the Fortran-style check of the column-major form (+1);
  // row-major positions are mapped back to the caller's list, as the reference does.
  expect_rejected<double>(cblas_msg("cblas_dgemm", 1), [&](V a, V b, V c) { cblas_dgemm(bad_layout, N, N, 1, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 2), [&](V a, V b, V c) { cblas_dgemm(Row, bad_trans, N, 1, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 3), [&](V a, V b, V c) { cblas_dgemm(Row, N, bad_trans, 1, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 4), [&](V a, V b, V c) { cblas_dgemm(Row, N, N, -1, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 5), [&](V a, V b, V c) { cblas_dgemm(Row, N, N, 1, -1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 9), [&](V a, V b, V c) { cblas_dgemm(Row, N, N, 2, 2, 2, 1, a, 1, b, 2, 1, c, 2); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 11), [&](V a, V b, V c) { cblas_dgemm(Row, N, N, 2, 2, 2, 1, a, 2, b, 1, 1, c, 2); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 9), [&](V a, V b, V c) { cblas_dgemm(Col, N, N, 2, 2, 2, 1, a, 1, b, 2, 1, c, 2); });
  expect_rejected<double>(cblas_msg("cblas_dgemm", 14), [&](V a, V b, V c) { cblas_dgemm(Row, N, N, 2, 2, 2, 1, a, 2, b, 2, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsymm", 2), [&](V a, V b, V c) { cblas_dsymm(Row, bad_side, CblasUpper, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsymm", 3), [&](V a, V b, V c) { cblas_dsymm(Col, CblasLeft, bad_uplo, 1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsymm", 4), [&](V a, V b, V c) { cblas_dsymm(Row, CblasLeft, CblasUpper, -1, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsymm", 8), [&](V a, V b, V c) { cblas_dsymm(Row, CblasLeft, CblasUpper, 2, 1, 1, a, 1, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsyrk", 3), [&](V a, V, V c) { cblas_dsyrk(Row, CblasUpper, bad_trans, 1, 1, 1, a, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsyrk", 8), [&](V a, V, V c) { cblas_dsyrk(Row, CblasUpper, N, 1, 2, 1, a, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dsyr2k", 10), [&](V a, V b, V c) { cblas_dsyr2k(Col, CblasLower, T, 1, 2, 1, a, 2, b, 1, 1, c, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrmm", 5), [&](V a, V b, V) { cblas_dtrmm(Row, CblasLeft, CblasUpper, N, bad_diag, 1, 1, 1, a, 1, b, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrsm", 6), [&](V a, V b, V) { cblas_dtrsm(Row, CblasLeft, CblasUpper, N, CblasUnit, -1, 1, 1, a, 1, b, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrsm", 7), [&](V a, V b, V) { cblas_dtrsm(Row, CblasRight, CblasUpper, N, CblasUnit, 1, -1, 1, a, 1, b, 1); });
  expect_rejected<double>(cblas_msg("cblas_dtrsm", 10), [&](V a, V b, V) { cblas_dtrsm(Row, CblasRight, CblasLower, T, CblasUnit, 1, 2, 1, a, 1, b, 2); });
  expect_rejected<double>(cblas_msg("cblas_dtrsm", 12), [&](V a, V b, V) { cblas_dtrsm(Row, CblasLeft, CblasLower, T, CblasUnit, 1, 2, 1, a, 1, b, 1); });
  // Complex: the routine's own TRANS rules, in both layouts.
  expect_rejected<cdouble>(cblas_msg("cblas_zsyrk", 3), [&](W a, W, W c) { cblas_zsyrk(Col, CblasUpper, Cj, 1, 1, &za, a, 1, &za, c, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zsyrk", 3), [&](W a, W, W c) { cblas_zsyrk(Row, CblasUpper, Cj, 1, 1, &za, a, 1, &za, c, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zherk", 3), [&](W a, W, W c) { cblas_zherk(Row, CblasUpper, T, 1, 1, 1.0, a, 1, 1.0, c, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zher2k", 3), [&](W a, W b, W c) { cblas_zher2k(Col, CblasLower, T, 1, 1, &za, a, 1, b, 1, 1.0, c, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zher2k", 8), [&](W a, W b, W c) { cblas_zher2k(Row, CblasLower, N, 1, 2, &za, a, 1, b, 2, 1.0, c, 1); });
  expect_rejected<cdouble>(cblas_msg("cblas_zhemm", 13), [&](W a, W b, W c) { cblas_zhemm(Col, CblasLeft, CblasUpper, 2, 1, &za, a, 2, b, 2, &za, c, 1); });
}

}  // namespace
