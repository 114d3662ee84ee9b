/** \file trsm_leaf.cpp
 *  \brief The checked diagonal-block substitution of TRSM (docs/ABFT.md §8).
 *
 *  Layout: the right-hand sides of a chunk are gathered (scaled by alpha) into a row-major
 *  workspace X (row i holds x_i of every right-hand side), so each substitution step
 *  x_i -= m_ij x_j is a unit-stride loop over the right-hand sides; the solve runs on strips
 *  of right-hand sides whose partial sums stay in registers. The sums of b are taken from
 *  the gathered copy; b itself is not copied again: the caller's B holds it (b = alpha B)
 *  until the chunk, verified, is scattered back.
 */
#include "blas/level3/trsm_leaf.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "abft/checksum/bounds.hpp"
#include "abft/checksum/fault_models.hpp"
#include "core/internal.hpp"
#include "core/report.hpp"

namespace abft::blas::l3 {
namespace {

namespace ck = abft::checksum;

constexpr blas_int kRhsChunk = 256;  ///< right-hand sides per workspace chunk

/** Checksum accumulator type: double, or complex<double>. */
template <class T>
using Acc = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;

template <class T> Acc<T> widen(const T& x) {
  if constexpr (is_complex_v<T>) return Acc<T>(double(x.real()), double(x.imag()));
  else return double(x);
}
template <class T> bool is_finite(const T& x) {
  if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
  else return std::isfinite(x);
}
/** Whether results below the smallest normal number may be flushed to zero (FTZ) or such
 *  operands read as zero (DAZ) in this thread; unknown platforms answer yes. */
inline bool flush_to_zero() {
#if defined(__x86_64__) || defined(__i386__)
  return (_mm_getcsr() & 0x8040u) != 0;  // FTZ (bit 15) or DAZ (bit 6)
#else
  return true;
#endif
}

template <class T> constexpr abft_kernel kernel_of() {
  if constexpr (std::is_same_v<T, float>) return ABFT_KERNEL_SGEMM;
  else if constexpr (std::is_same_v<T, double>) return ABFT_KERNEL_DGEMM;
  else if constexpr (std::is_same_v<T, cfloat>) return ABFT_KERNEL_CGEMM;
  else return ABFT_KERNEL_ZGEMM;
}

/** The dense system matrix of a leaf: M = op(A_kk) (side L) or op(A_kk)^T (side R). */
template <class T>
struct System {
  blas_int n = 0;
  bool lower = false, unit = false;
  std::vector<T> M;  // n x n, column-major; explicit zeros, ones on a unit diagonal

  void build(const TriOp<T>& E, bool left, blas_int i0, blas_int nb) {
    n = nb;
    unit = E.unit;
    M.resize(std::size_t(n) * n);
    E.expand_diag(i0, n, M.data());
    if (!left)
      for (blas_int j = 0; j < n; ++j)
        for (blas_int i = 0; i < j; ++i) std::swap(M[i + std::size_t(j) * n], M[j + std::size_t(i) * n]);
    lower = left ? !E.eff_upper() : E.eff_upper();
  }
  const T& at(blas_int i, blas_int j) const { return M[i + std::size_t(j) * n]; }
  /** Row i's off-diagonal terms, in substitution order: t = 0 .. terms(i) - 1. */
  blas_int terms(blas_int i) const { return lower ? i : n - 1 - i; }
  blas_int term(blas_int i, blas_int t) const { return lower ? t : i + 1 + t; }
  /** Whether the solve reads M(i, j). */
  bool structural(blas_int i, blas_int j) const {
    return i == j ? !unit : (lower ? i > j : i < j);
  }
};

/** The division of row i by its diagonal d, as the solve applies it to every right-hand
 *  side. Complex: the textbook formula x conj(d) / |d|^2 on d scaled by a power of two
 *  (exact), whose error is at most sqrt(2) gamma_4 (Higham Lemma 3.5); zero, subnormal or
 *  non-finite divisors take the library's division. */
template <class T>
struct Divider {
  using R = real_t<T>;
  T d;
  bool plain = true;
  R dr = 0, di = 0, den = 0, s = 0;

  explicit Divider(const T& dd) : d(dd) {
    if constexpr (is_complex_v<T>) {
      const R big = std::max(std::fabs(d.real()), std::fabs(d.imag()));
      R sc = R(0);
      if (big > R(0) && std::isfinite(big)) sc = std::scalbn(R(1), -std::ilogb(big));
      if (sc > R(0) && std::isfinite(sc)) {
        plain = false;
        s = sc;
        dr = d.real() * sc;
        di = d.imag() * sc;
        den = dr * dr + di * di;
      }
    }
  }
  /** x /= d for the L reals of a (complex: interleaved pairs). */
  template <int L>
  void apply(R (&a)[L]) const {
    if constexpr (is_complex_v<T>) {
      if (plain) {
        for (int q = 0; q < L; q += 2) {
          T v(a[q], a[q + 1]);
          v /= d;
          a[q] = v.real();
          a[q + 1] = v.imag();
        }
      } else {
        for (int q = 0; q < L; q += 2) {
          const R x = a[q], y = a[q + 1];
          a[q] = (x * dr + y * di) / den * s;
          a[q + 1] = (y * dr - x * di) / den * s;
        }
      }
    } else {
      for (int q = 0; q < L; ++q) a[q] /= d;
    }
  }
};

/** Corrupt v (its real part for complex T) as fault f says, and record it in f. */
template <class T>
void corrupt(T& v, abft_fault& f) {
  using R = real_t<T>;
  R re;
  if constexpr (is_complex_v<T>) re = v.real();
  else re = v;
  const R c = ck::apply_fault<R>(re, f.model, f.bit, f.value);
  f.original = double(re);
  f.corrupted = double(c);
  f.applied = 1;
  if constexpr (is_complex_v<T>) v.real(c);
  else v = c;
}

/** Right-hand sides (columns of B, each on a page of its own once ldb is large) that the
 *  gather of side L requests ahead of the one it copies. */
constexpr blas_int kAhead = 8;

/** A hint to fetch the n values at p into the cache (no effect where unsupported). */
template <class T>
inline void prefetch(const T* p, blas_int n) {
#if defined(__GNUC__)
  const char* c = reinterpret_cast<const char*>(p);
  const std::size_t bytes = std::size_t(n) * sizeof(T);
  for (std::size_t o = 0; o < bytes; o += 64) __builtin_prefetch(c + o);
  __builtin_prefetch(c + bytes - 1);
#else
  (void)p, (void)n;
#endif
}

/** Elements in a cache line of 64 bytes: the padding of X's rows. */
template <class T> constexpr std::size_t kPad = 64 / sizeof(T);

/** Reals per strip of right-hand sides for T: a strip's partial sums stay in registers. */
template <class T> constexpr int kStrip = std::is_same_v<real_t<T>, float> ? 32 : 16;

/** a -= sum over terms [t0, t1) of row i of m_ij x_j (x_j: the strip of row j of X at r). */
template <class T, int L>
inline void strip_terms(const System<T>& S, blas_int i, blas_int t0, blas_int t1, const T* X,
                        std::size_t cs, blas_int r, real_t<T> (&a)[L]) {
  using R = real_t<T>;
  for (blas_int t = t0; t < t1; ++t) {
    const blas_int j = S.term(i, t);
    const T m = S.at(i, j);
    const R* y = reinterpret_cast<const R*>(X + std::size_t(j) * cs + r);
    if constexpr (is_complex_v<T>) {
      const R mr = m.real(), mi = m.imag();
      for (int q = 0; q < L; q += 2) {
        const R ya = y[q], yb = y[q + 1];
        a[q] -= mr * ya - mi * yb;
        a[q + 1] -= mr * yb + mi * ya;
      }
    } else {
      for (int q = 0; q < L; ++q) a[q] -= m * y[q];
    }
  }
}

/** Substitution for the L / (1 or 2) right-hand sides from column r of X (row i at
 *  X + i*cs): every row's partial sums are held in a, so X is read once per term and
 *  written once per row. Accumulator faults (sorted by kpos) are applied after kpos of
 *  row i's terms. The operations and their order per element do not depend on L, so any
 *  strip width gives the same bits (the re-solves of the repair path rely on it). */
template <class T, int L>
void solve_strip(const System<T>& S, T* X, std::size_t cs, blas_int r,
                 const std::vector<abft_fault*>& acc) {
  using R = real_t<T>;
  constexpr blas_int width = is_complex_v<T> ? L / 2 : L;
  const blas_int n = S.n;
  for (blas_int s = 0; s < n; ++s) {
    const blas_int i = S.lower ? s : n - 1 - s;
    const blas_int nt = S.terms(i);
    R* xi = reinterpret_cast<R*>(X + std::size_t(i) * cs + r);
    R a[L];
    for (int q = 0; q < L; ++q) a[q] = xi[q];
    blas_int t = 0;
    for (abft_fault* f : acc) {
      if (f->row != i || f->col < r || f->col >= r + width) continue;
      const blas_int t1 = std::min<blas_int>(blas_int(f->kpos), nt);
      if (t1 > t) {
        strip_terms<T, L>(S, i, t, t1, X, cs, r, a);
        t = t1;
      }
      const int q = int(f->col - r) * (is_complex_v<T> ? 2 : 1);
      T v;
      if constexpr (is_complex_v<T>) v = T(a[q], a[q + 1]);
      else v = a[q];
      corrupt(v, *f);
      if constexpr (is_complex_v<T>) a[q] = v.real(), a[q + 1] = v.imag();
      else a[q] = v;
    }
    strip_terms<T, L>(S, i, t, nt, X, cs, r, a);
    if (!S.unit) Divider<T>(S.at(i, i)).apply(a);
    for (int q = 0; q < L; ++q) xi[q] = a[q];
  }
}

/** Substitution on rows of X (row i at X + i*cs), right-hand sides r0..r1: strips of
 *  kStrip reals, then one right-hand side at a time. */
template <class T>
void solve(const System<T>& S, T* X, std::size_t cs, blas_int r0, blas_int r1,
           const std::vector<abft_fault*>& acc) {
  constexpr int L = kStrip<T>;
  constexpr int one = is_complex_v<T> ? 2 : 1;
  constexpr blas_int width = L / one;
  blas_int r = r0;
  for (; r + width <= r1; r += width) solve_strip<T, L>(S, X, cs, r, acc);
  for (; r < r1; ++r) solve_strip<T, one>(S, X, cs, r, acc);
}

/** Column checksums of M: w = M^T e, w2 = M^T c (c_i = i + 1), their magnitudes, and the
 *  underflow terms of docs/ABFT.md §8. */
template <class T>
struct Sums {
  std::vector<Acc<T>> w, w2;
  std::vector<double> wa, wa2;
  double abs_e = 0, abs_w = 0;
  bool finite = true;

  void build(const System<T>& S) {
    const blas_int n = S.n;
    w.assign(n, Acc<T>(0));
    w2.assign(n, Acc<T>(0));
    wa.assign(n, 0.0);
    wa2.assign(n, 0.0);
    finite = true;
    abs_e = abs_w = 0;
    for (blas_int j = 0; j < n; ++j) {
      for (blas_int i = 0; i < n; ++i) {
        const T m = S.at(i, j);
        const double c = double(i + 1), am = double(abs1(m));
        w[j] += widen(m);
        w2[j] += c * widen(m);
        wa[j] += am;
        wa2[j] += c * am;
        finite = finite && is_finite(m);
      }
    }
    for (blas_int i = 0; i < n; ++i) {
      const double t = 2.0 * i + 4.0 + double(abs1(S.at(i, i)));
      abs_e += t;
      abs_w += double(i + 1) * t;
    }
  }
};

/** Sums of one right-hand side b: e^T b, c^T b, e^T|b|, c^T|b|. */
template <class T>
struct RhsSums {
  Acc<T> s{0}, s2{0};
  double a = 0, a2 = 0;
  bool has_zero = false;
  void add(blas_int i, const T& v) {
    const double c = double(i + 1), av = double(abs1(v));
    has_zero = has_zero || v == T(0);
    s += widen(v);
    s2 += c * widen(v);
    a += av;
    a2 += c * av;
  }
};

/** RhsSums of every right-hand side of a chunk, formed row by row over the gathered X (unit
 *  stride over the right-hand sides; per right-hand side, the same additions in the same
 *  order as RhsSums::add). */
template <class T>
struct RhsBlock {
  std::vector<double> sr, si, s2r, s2i, a, a2, zero;  // zero: how many b_i are 0

  void compute(const T* X, std::size_t cs, blas_int nb, blas_int count) {
    for (auto* v : {&sr, &si, &s2r, &s2i, &a, &a2, &zero}) v->assign(std::size_t(count), 0.0);
    double* ps = sr.data(); double* pi = si.data(); double* ps2 = s2r.data();
    double* pi2 = s2i.data(); double* pa = a.data(); double* pa2 = a2.data();
    double* pz = zero.data();
    for (blas_int i = 0; i < nb; ++i) {
      const T* x = X + std::size_t(i) * cs;
      const double c = double(i + 1);
      if constexpr (is_complex_v<T>) {
        const real_t<T>* xv = reinterpret_cast<const real_t<T>*>(x);
#pragma omp simd
        for (blas_int r = 0; r < count; ++r) {
          const double re = double(xv[2 * r]), im = double(xv[2 * r + 1]);
          const double av = double(std::fabs(xv[2 * r]) + std::fabs(xv[2 * r + 1]));
          pz[r] += double(re == 0.0 && im == 0.0);
          ps[r] += re;
          pi[r] += im;
          ps2[r] += c * re;
          pi2[r] += c * im;
          pa[r] += av;
          pa2[r] += c * av;
        }
      } else {
#pragma omp simd
        for (blas_int r = 0; r < count; ++r) {
          const double v = double(x[r]), av = std::fabs(v);
          pz[r] += double(v == 0.0);
          ps[r] += v;
          ps2[r] += c * v;
          pa[r] += av;
          pa2[r] += c * av;
        }
      }
    }
  }

 public:
  RhsSums<T> of(blas_int r) const {
    RhsSums<T> b;
    if constexpr (is_complex_v<T>) {
      b.s = Acc<T>(sr[r], si[r]);
      b.s2 = Acc<T>(s2r[r], s2i[r]);
    } else {
      b.s = sr[r];
      b.s2 = s2r[r];
    }
    b.a = a[r];
    b.a2 = a2[r];
    b.has_zero = zero[r] > 0;
    return b;
  }
};

/** Coefficients of the residual bound of one leaf (docs/ABFT.md §8). */
struct Bound {
  double coef_x = 0, coef_b = 0, inflate = 1, eta = 0, fac = 1, tiny = 0, n = 0;

  /** ftz: whether any thread that formed the checksums may flush (this one is asked too). */
  template <class T>
  static Bound of(blas_int nb, bool ftz_elsewhere) {
    using R = real_t<T>;
    const double u = ck::unit_roundoff<R>(), ud = ck::unit_roundoff<double>(), n = double(nb);
    Bound b;
    b.n = n;
    if constexpr (is_complex_v<T>) {
      b.coef_x = ck::gamma(2 * n + 16, u) + 3 * ck::gamma(2 * n + 8, ud);
      b.coef_b = ck::gamma(2 * n + 4, ud);
      b.fac = 4;
    } else {
      b.coef_x = ck::gamma(n + 2, u) + 3 * ck::gamma(n + 2, ud);
      b.coef_b = ck::gamma(n + 2, ud);
      b.fac = 1;
    }
    b.inflate = 1 + 4 * ck::gamma(2 * n + 8, ud);
    // Underflow: with gradual underflow an operation adds at most u * realmin (half the
    // subnormal spacing; additions are exact), under FTZ/DAZ up to realmin itself. For
    // double data u * realmin is not representable: its double neighbour above, the
    // smallest subnormal, is used (and the terms are formed as multiples of it).
    const bool ftz = ftz_elsewhere || flush_to_zero();
    const double rmin = double(std::numeric_limits<R>::min());
    const double rmin_d = std::numeric_limits<double>::min();
    const double sub_d = std::numeric_limits<double>::denorm_min();
    b.eta = ftz ? rmin : std::max(u * rmin, sub_d);
    b.tiny = 8 * (n + 2) * (n + 2) * b.fac * (ftz ? rmin_d : sub_d) + 4 * sub_d;
    return b;
  }
};

enum class Verdict { Pass, Fail, NonFinite, Unsure };

/** The observed side of the checks for `count` right-hand sides (columns of a row-major
 *  X with row stride cs): w^T x, w2^T x, wa^T |x|, wa2^T |x|, e^T |x|. Rows of X are read
 *  contiguously (unit-stride loops over the right-hand sides). */
struct Observed {
  std::vector<double> re, im, re2, im2, mag, mag2, sx;

  template <class T>
  void compute(const Sums<T>& W, const T* X, std::size_t cs, blas_int count) {
    for (auto* v : {&re, &im, &re2, &im2, &mag, &mag2, &sx}) v->assign(std::size_t(count), 0.0);
    double* o_re = re.data(); double* o_im = im.data(); double* o_re2 = re2.data();
    double* o_im2 = im2.data(); double* o_mag = mag.data(); double* o_mag2 = mag2.data();
    double* o_sx = sx.data();
    const blas_int n = blas_int(W.w.size());
    for (blas_int j = 0; j < n; ++j) {
      const T* x = X + std::size_t(j) * cs;
      const double wa = W.wa[j], wa2 = W.wa2[j];
      if constexpr (is_complex_v<T>) {
        using R = real_t<T>;
        const R* xv = reinterpret_cast<const R*>(x);
        const double wr = W.w[j].real(), wi = W.w[j].imag();
        const double w2r = W.w2[j].real(), w2i = W.w2[j].imag();
#pragma omp simd
        for (blas_int r = 0; r < count; ++r) {
          const double a = double(xv[2 * r]), b = double(xv[2 * r + 1]);
          const double ax = std::fabs(a) + std::fabs(b);
          o_re[r] += wr * a - wi * b;
          o_im[r] += wr * b + wi * a;
          o_re2[r] += w2r * a - w2i * b;
          o_im2[r] += w2r * b + w2i * a;
          o_mag[r] += wa * ax;
          o_mag2[r] += wa2 * ax;
          o_sx[r] += ax;
        }
      } else {
        const double w = W.w[j], w2 = W.w2[j];
#pragma omp simd
        for (blas_int r = 0; r < count; ++r) {
          const double a = double(x[r]), ax = std::fabs(a);
          o_re[r] += w * a;
          o_re2[r] += w2 * a;
          o_mag[r] += wa * ax;
          o_mag2[r] += wa2 * ax;
          o_sx[r] += ax;
        }
      }
    }
  }
};

/** Judge one solved right-hand side: x (n values at stride cs) with its observed sums
 *  o[k], against b (values bv at stride bs, and their sums). */
template <class T>
Verdict verify(const System<T>& S, const Sums<T>& W, const Bound& bd, const RhsSums<T>& b,
               const T* bv, std::size_t bs, const T* x, std::size_t cs, const Observed& o,
               blas_int k, double& ratio) {
  if (!W.finite || !std::isfinite(b.a) || !std::isfinite(b.a2)) return Verdict::NonFinite;
  const blas_int n = S.n;
  // Exact part: where b_i = 0 and every term m_ij x_j of row i is a product with an exact
  // zero (finite operands), the substitution gives x_i = 0 exactly. This catches what no
  // rounding bound can: a zero turned into a tiny number. O(n) per row with b_i = 0.
  if (b.has_zero) {
    for (blas_int i = 0; i < n; ++i) {
      if (bv[std::size_t(i) * bs] != T(0) || (!S.unit && S.at(i, i) == T(0))) continue;
      bool zero_terms = true;
      for (blas_int t = 0, nt = S.terms(i); t < nt && zero_terms; ++t) {
        const blas_int j = S.term(i, t);
        const T xj = x[std::size_t(j) * cs];
        zero_terms = S.at(i, j) == T(0) ? is_finite(xj) : xj == T(0);
      }
      if (zero_terms && x[std::size_t(i) * cs] != T(0)) return Verdict::Fail;
    }
  }
  const double mag = o.mag[k], mag2 = o.mag2[k], sx = o.sx[k];
  // Beyond realmax/4 an element or a partial sum of the solve may have overflowed
  // legitimately; the bound no longer holds (also catches NaN/Inf in x).
  const double lim = double(std::numeric_limits<real_t<T>>::max()) * 0.25;
  if (!(mag <= lim) || !(b.a <= lim)) return Verdict::Unsure;
  // The tiny factors first: (count * sx) alone may overflow when x is huge.
  const double under = 2 * bd.fac * bd.eta;
  const double b1 = (bd.coef_x * mag + bd.coef_b * b.a) * bd.inflate + under * W.abs_e +
                    (under * bd.n) * sx + bd.tiny;
  const double b2 = (bd.coef_x * mag2 + bd.coef_b * b.a2) * bd.inflate + under * W.abs_w +
                    (under * 0.5 * bd.n * (bd.n + 1)) * sx + bd.tiny * bd.n;
  if (!std::isfinite(b1) || !std::isfinite(b2)) return Verdict::Unsure;
  double d1, d2;
  if constexpr (is_complex_v<T>) {
    d1 = std::hypot(o.re[k] - b.s.real(), o.im[k] - b.s.imag());
    d2 = std::hypot(o.re2[k] - b.s2.real(), o.im2[k] - b.s2.imag());
  } else {
    d1 = std::fabs(o.re[k] - b.s);
    d2 = std::fabs(o.re2[k] - b.s2);
  }
  if (!(d1 <= b1) || !(d2 <= b2)) return Verdict::Fail;
  ratio = std::max(b1 > 0 ? d1 / b1 : 0.0, b2 > 0 ? d2 / b2 : 0.0);
  return Verdict::Pass;
}

/** Injection plan of one chunk, split by site. */
struct Faults {
  core::InjectionPlan plan;
  std::vector<abft_fault*> acc, out, pa, pb;

  Faults(abft_kernel kid, blas_int nb, blas_int cw) {
    abft_call_info call{kid, nb, cw, nb, 0, 1};
    plan = core::plan_injection(shim_handle(), call);
    for (abft_fault& f : plan.faults) {
      switch (f.site) {
        case ABFT_SITE_ACCUMULATOR: acc.push_back(&f); break;
        case ABFT_SITE_OUTPUT: out.push_back(&f); break;
        case ABFT_SITE_PACKED_A: pa.push_back(&f); break;
        case ABFT_SITE_PACKED_B: pb.push_back(&f); break;
        default: break;
      }
    }
    std::sort(acc.begin(), acc.end(),
              [](const abft_fault* a, const abft_fault* b) { return a->kpos < b->kpos; });
  }
  ~Faults() { core::finish_injection(plan); }
};

/** What every chunk of one leaf shares (read-only once built): the system matrix from the
 *  caller's A and its checksums. */
template <class T>
struct LeafSystem {
  TriOp<T> E;
  bool left;
  blas_int i0, nb;
  abft_policy pol;
  bool ftz;  ///< the underflow mode of the thread that formed W
  System<T> S;
  Sums<T> W;

  LeafSystem(const TriOp<T>& e, bool l, blas_int i, blas_int n, abft_policy p)
      : E(e), left(l), i0(i), nb(n), pol(p), ftz(flush_to_zero()) {
    S.build(E, left, i0, nb);
    if (pol != ABFT_POLICY_OFF) W.build(S);
  }
};

/** The workspace of one chunk of right-hand sides: gather (scaled by alpha), solve with the
 *  chunk's faults applied, verify, repair, scatter. One per thread, built in that thread:
 *  the bound depends on the thread's underflow mode (FTZ/DAZ), which is per thread. */
template <class T>
class Chunk {
 public:
  explicit Chunk(const LeafSystem<T>& L) : L_(L), bound_(Bound::of<T>(L.nb, L.ftz)) {}

  void run(T alpha, T* B, blas_int ldb, blas_int c0, blas_int cw, Faults& F, abft_report& rep) {
    const blas_int nb = L_.nb, i0 = L_.i0;
    // Row stride of X: one cache line more than the chunk, so that the rows of a strip do
    // not all fall into the same few cache sets (a power-of-two stride does that).
    const std::size_t cs = std::size_t(cw) + kPad<T>;
    const bool check = L_.pol != ABFT_POLICY_OFF;
    alpha_ = alpha;
    B_ = B;
    ldb_ = ldb;
    c0_ = c0;
    X_.resize(std::size_t(nb) * cs);
    if (L_.left) {
      for (blas_int r = 0; r < cw; ++r) {
        const T* b = B + i0 + std::size_t(c0 + r) * ldb;
        if (r + kAhead < cw) prefetch(b + std::size_t(kAhead) * ldb, nb);
        if (alpha != T(1))
          for (blas_int i = 0; i < nb; ++i) X_[std::size_t(i) * cs + r] = alpha * b[i];
        else
          for (blas_int i = 0; i < nb; ++i) X_[std::size_t(i) * cs + r] = b[i];
      }
    } else {
      for (blas_int i = 0; i < nb; ++i) {
        const T* b = B + c0 + std::size_t(i0 + i) * ldb;
        T* x = X_.data() + std::size_t(i) * cs;
        if (alpha != T(1))
          for (blas_int r = 0; r < cw; ++r) x[r] = alpha * b[r];
        else std::copy(b, b + cw, x);
      }
    }
    // The sums of b are taken from the gathered copy before any fault can reach it; b
    // itself stays in the caller's B (read again, as alpha * B, by the exact-zero test and
    // the repair) until the chunk is scattered back.
    if (check) rhs_.compute(X_.data(), cs, nb, cw);

    // A memory fault in the copy of op(A_kk) lands after its checksums were taken; it hits
    // a private copy, so that other chunks keep reading the clean one.
    const System<T>* S = &L_.S;
    for (abft_fault* f : F.pa)
      if (L_.S.structural(blas_int(f->row), blas_int(f->kpos))) {
        if (S == &L_.S) S = &(hit_ = L_.S);
        corrupt(hit_.M[f->row + std::size_t(f->kpos) * nb], *f);
      }
    for (abft_fault* f : F.pb) corrupt(X_[std::size_t(f->kpos) * cs + f->col], *f);
    solve(*S, X_.data(), cs, 0, cw, F.acc);
    for (abft_fault* f : F.out) corrupt(X_[std::size_t(f->row) * cs + f->col], *f);

    if (check) {
      obs_.compute(L_.W, X_.data(), cs, cw);
      for (blas_int r = 0; r < cw; ++r) verify_rhs(*S, r, cs, rep);
    }

    if (L_.left) {
      for (blas_int r = 0; r < cw; ++r) {
        T* b = B + i0 + std::size_t(c0 + r) * ldb;
        for (blas_int i = 0; i < nb; ++i) b[i] = X_[std::size_t(i) * cs + r];
      }
    } else {
      for (blas_int i = 0; i < nb; ++i) {
        const T* x = X_.data() + std::size_t(i) * cs;
        std::copy(x, x + cw, B + c0 + std::size_t(i0 + i) * ldb);
      }
    }
  }

 private:
  /** b_ <- right-hand side r as gathered: alpha times the caller's B, which the chunk has
   *  not written yet (the same products as the gather, so the same values). */
  void load_b(blas_int r) {
    const blas_int nb = L_.nb, i0 = L_.i0;
    b_.resize(std::size_t(nb));
    for (blas_int i = 0; i < nb; ++i) {
      const T v = L_.left ? B_[(i0 + i) + std::size_t(c0_ + r) * ldb_]
                          : B_[(c0_ + r) + std::size_t(i0 + i) * ldb_];
      b_[std::size_t(i)] = alpha_ != T(1) ? alpha_ * v : v;
    }
  }
  /** Solve right-hand side r again from b with M re-read from A, into y. */
  void resolve(blas_int r, std::vector<T>& y) {
    const blas_int nb = L_.nb;
    if (!fresh_ready_) {
      fresh_.build(L_.E, L_.left, L_.i0, nb);
      fresh_ready_ = true;
    }
    load_b(r);
    y = b_;
    solve(fresh_, y.data(), 1, 0, 1, {});
  }
  bool same(const std::vector<T>& y, std::size_t cs, blas_int r) const {
    for (blas_int i = 0; i < L_.nb; ++i)
      if (std::memcmp(&y[i], &X_[std::size_t(i) * cs + r], sizeof(T)) != 0) return false;
    return true;
  }
  void store(const std::vector<T>& y, std::size_t cs, blas_int r) {
    for (blas_int i = 0; i < L_.nb; ++i) X_[std::size_t(i) * cs + r] = y[i];
  }

  void verify_rhs(const System<T>& S, blas_int r, std::size_t cs, abft_report& rep) {
    const bool correct = L_.pol == ABFT_POLICY_CORRECT;
    double ratio = 0;
    const RhsSums<T> rs = rhs_.of(r);
    if (rs.has_zero) load_b(r);  // the exact-zero test reads b
    switch (verify(S, L_.W, bound_, rs, b_.data(), 1, X_.data() + r, cs, obs_, r, ratio)) {
      case Verdict::Pass:
        ++rep.checks;
        rep.max_ratio = std::max(rep.max_ratio, ratio);
        return;
      case Verdict::NonFinite:  // NaN/Inf in the input is data: what the plain solve gives
        ++rep.skipped;
        return;
      case Verdict::Unsure: {
        // Possibly a legitimate overflow: a deterministic re-solve gives the same bits.
        resolve(r, y_);
        if (same(y_, cs, r)) {
          ++rep.skipped;
          return;
        }
        ++rep.detected;
        if (!correct) return;
        resolve(r, y2_);
        if (std::memcmp(y2_.data(), y_.data(), sizeof(T) * y_.size()) == 0) {
          store(y_, cs, r);
          ++rep.recomputed;
        } else {
          ++rep.uncorrectable;
        }
        return;
      }
      case Verdict::Fail: {
        ++rep.checks;
        ++rep.detected;
        if (!correct) return;
        resolve(r, y_);
        store(y_, cs, r);
        ++rep.checks;
        one_.compute(L_.W, y_.data(), 1, 1);
        if (verify(fresh_, L_.W, bound_, rs, b_.data(), 1, y_.data(), 1, one_, 0,
                   ratio) == Verdict::Pass) {
          ++rep.recomputed;
          return;
        }
        // The checksums themselves may be what was hit: recompute them from A and retry.
        Sums<T> Wf;
        Wf.build(fresh_);
        ++rep.checks;
        one_.compute(Wf, y_.data(), 1, 1);
        if (verify(fresh_, Wf, bound_, rs, b_.data(), 1, y_.data(), 1, one_, 0,
                   ratio) == Verdict::Pass)
          ++rep.recomputed;
        else ++rep.uncorrectable;
        return;
      }
    }
  }

  const LeafSystem<T>& L_;
  Bound bound_;
  System<T> hit_, fresh_;
  bool fresh_ready_ = false;
  std::vector<T> X_, b_, y_, y2_;
  RhsBlock<T> rhs_;
  T alpha_{1};
  T* B_ = nullptr;
  blas_int ldb_ = 0, c0_ = 0;
  Observed obs_, one_;
};

}  // namespace

template <class T>
void trsm_leaf(ProtectedCall& pc, const TriOp<T>& E, bool left, blas_int i0, blas_int nb,
               T alpha, T* B, blas_int ldb, blas_int nrhs) {
  const abft_policy pol = shim_policy();
  abft_report rep{};
  abft_status st = ABFT_STATUS_SUCCESS;
  try {
    const LeafSystem<T> L(E, left, i0, nb, pol);
    const blas_int chunks = (nrhs + kRhsChunk - 1) / kRhsChunk;
    // Faults are planned in chunk order before any thread starts, so that a seeded run is
    // reproducible whatever the schedule.
    std::vector<std::unique_ptr<Faults>> plans;
    plans.reserve(std::size_t(chunks));
    for (blas_int c = 0; c < chunks; ++c)
      plans.push_back(std::make_unique<Faults>(kernel_of<T>(), nb, std::min(kRhsChunk, nrhs - c * kRhsChunk)));
    std::vector<abft_report> reps(std::size_t(chunks), abft_report{});
    bool alloc_failed = false;
    const int threads = chunks > 1 ? std::min<int>(core::resolve_threads(shim_handle()), chunks) : 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      Chunk<T> work(L);
#pragma omp for schedule(dynamic)
      for (blas_int c = 0; c < chunks; ++c) {
        const blas_int c0 = c * kRhsChunk;
        try {  // an exception must not leave the worksharing loop
          work.run(alpha, B, ldb, c0, std::min(kRhsChunk, nrhs - c0), *plans[std::size_t(c)],
                   reps[std::size_t(c)]);
        } catch (const std::bad_alloc&) {
#pragma omp atomic write
          alloc_failed = true;
        }
      }
    }
    for (const abft_report& r : reps) core::add_report(rep, r);
    if (alloc_failed) st = ABFT_STATUS_ALLOC_FAILED;
    else if (rep.uncorrectable) st = ABFT_STATUS_FAULT_UNCORRECTABLE;
    else if (rep.detected && pol == ABFT_POLICY_DETECT) st = ABFT_STATUS_FAULT_DETECTED;
  } catch (const std::bad_alloc&) {
    st = ABFT_STATUS_ALLOC_FAILED;
  }
  pc.absorb(rep, st);
}

#define ABFT_L3_TRSM_LEAF(T)                                                                  \
  template void trsm_leaf<T>(ProtectedCall&, const TriOp<T>&, bool, blas_int, blas_int, T, T*, \
                             blas_int, blas_int);
ABFT_L3_TRSM_LEAF(float)
ABFT_L3_TRSM_LEAF(double)
ABFT_L3_TRSM_LEAF(cfloat)
ABFT_L3_TRSM_LEAF(cdouble)
#undef ABFT_L3_TRSM_LEAF

}  // namespace abft::blas::l3
