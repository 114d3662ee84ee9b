/** \file trsm_leaf.cpp
 *  \brief The checked diagonal-block substitution of TRSM (docs/ABFT.md §8).
 *
 *  Layout: the right-hand sides of a chunk are gathered (scaled by alpha) into a row-major
 *  workspace X (row i holds x_i of every right-hand side), so each substitution step
 *  x_i -= m_ij x_j is a unit-stride loop over the right-hand sides. The gathered b is kept
 *  (Bs) with its sums until the chunk verifies.
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

/** x[r] -= m * y[r] for r in [r0, r1). */
template <class T>
void axpy_neg(const T& m, const T* y, T* x, blas_int r0, blas_int r1) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R mr = m.real(), mi = m.imag();
    const R* yv = reinterpret_cast<const R*>(y);
    R* xv = reinterpret_cast<R*>(x);
    for (blas_int r = r0; r < r1; ++r) {
      const R a = yv[2 * r], b = yv[2 * r + 1];
      xv[2 * r] -= mr * a - mi * b;
      xv[2 * r + 1] -= mr * b + mi * a;
    }
  } else {
    for (blas_int r = r0; r < r1; ++r) x[r] -= m * y[r];
  }
}

/** x[r] /= d. Complex: the textbook formula x conj(d) / |d|^2 on d scaled by a power of two
 *  (exact), whose error is at most sqrt(2) gamma_4 (Higham Lemma 3.5); zero, subnormal or
 *  non-finite divisors take the library's division. */
template <class T>
void divide(const T& d, T* x, blas_int r0, blas_int r1) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R big = std::max(std::fabs(d.real()), std::fabs(d.imag()));
    R s = R(0);
    if (big > R(0) && std::isfinite(big)) s = std::scalbn(R(1), -std::ilogb(big));
    if (!(s > R(0)) || !std::isfinite(s)) {
      for (blas_int r = r0; r < r1; ++r) x[r] /= d;
      return;
    }
    const R dr = d.real() * s, di = d.imag() * s, den = dr * dr + di * di;
    R* xv = reinterpret_cast<R*>(x);
    for (blas_int r = r0; r < r1; ++r) {
      const R a = xv[2 * r], b = xv[2 * r + 1];
      xv[2 * r] = (a * dr + b * di) / den * s;
      xv[2 * r + 1] = (b * dr - a * di) / den * s;
    }
  } else {
    for (blas_int r = r0; r < r1; ++r) x[r] /= d;
  }
}

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

/** Substitution on rows of X (row i at X + i*cs), right-hand sides r0..r1. `acc` are
 *  accumulator faults sorted by kpos (applied after kpos of row i's terms). */
template <class T>
void solve(const System<T>& S, T* X, std::size_t cs, blas_int r0, blas_int r1,
           const std::vector<abft_fault*>& acc) {
  const blas_int n = S.n;
  for (blas_int s = 0; s < n; ++s) {
    const blas_int i = S.lower ? s : n - 1 - s;
    const blas_int nt = S.terms(i);
    T* xi = X + std::size_t(i) * cs;
    blas_int t = 0;
    auto run_terms = [&](blas_int t1) {
      for (; t < t1; ++t) {
        const blas_int j = S.term(i, t);
        axpy_neg(S.at(i, j), X + std::size_t(j) * cs, xi, r0, r1);
      }
    };
    for (abft_fault* f : acc) {
      if (f->row != i || f->col < r0 || f->col >= r1) continue;
      run_terms(std::min<blas_int>(blas_int(f->kpos), nt));
      corrupt(xi[f->col], *f);
    }
    run_terms(nt);
    if (!S.unit) divide(S.at(i, i), xi, r0, r1);
  }
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
    const blas_int n = blas_int(W.w.size());
    for (blas_int j = 0; j < n; ++j) {
      const T* x = X + std::size_t(j) * cs;
      const double wa = W.wa[j], wa2 = W.wa2[j];
      if constexpr (is_complex_v<T>) {
        using R = real_t<T>;
        const R* xv = reinterpret_cast<const R*>(x);
        const double wr = W.w[j].real(), wi = W.w[j].imag();
        const double w2r = W.w2[j].real(), w2i = W.w2[j].imag();
        for (blas_int r = 0; r < count; ++r) {
          const double a = double(xv[2 * r]), b = double(xv[2 * r + 1]);
          const double ax = std::fabs(a) + std::fabs(b);
          re[r] += wr * a - wi * b;
          im[r] += wr * b + wi * a;
          re2[r] += w2r * a - w2i * b;
          im2[r] += w2r * b + w2i * a;
          mag[r] += wa * ax;
          mag2[r] += wa2 * ax;
          sx[r] += ax;
        }
      } else {
        const double w = W.w[j], w2 = W.w2[j];
        for (blas_int r = 0; r < count; ++r) {
          const double a = double(x[r]), ax = std::fabs(a);
          re[r] += w * a;
          re2[r] += w2 * a;
          mag[r] += wa * ax;
          mag2[r] += wa2 * ax;
          sx[r] += ax;
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
    abft_call_info call{kid, nb, cw, nb, 0};
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
    const std::size_t cs = std::size_t(cw);
    const bool check = L_.pol != ABFT_POLICY_OFF;
    X_.resize(std::size_t(nb) * cs);
    if (check) {
      Bs_.resize(X_.size());
      rhs_.assign(cw, RhsSums<T>{});
    }
    auto take = [&](blas_int i, blas_int r, T v) {
      if (alpha != T(1)) v = alpha * v;
      X_[std::size_t(i) * cs + r] = v;
      if (check) {
        Bs_[std::size_t(i) * cs + r] = v;
        rhs_[r].add(i, v);
      }
    };
    if (L_.left) {
      for (blas_int r = 0; r < cw; ++r)
        for (blas_int i = 0; i < nb; ++i) take(i, r, B[(i0 + i) + std::size_t(c0 + r) * ldb]);
    } else {
      for (blas_int i = 0; i < nb; ++i)
        for (blas_int r = 0; r < cw; ++r) take(i, r, B[(c0 + r) + std::size_t(i0 + i) * ldb]);
    }

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
      for (blas_int r = 0; r < cw; ++r)
        for (blas_int i = 0; i < nb; ++i)
          B[(i0 + i) + std::size_t(c0 + r) * ldb] = X_[std::size_t(i) * cs + r];
    } else {
      for (blas_int i = 0; i < nb; ++i)
        for (blas_int r = 0; r < cw; ++r)
          B[(c0 + r) + std::size_t(i0 + i) * ldb] = X_[std::size_t(i) * cs + r];
    }
  }

 private:
  /** Solve right-hand side r again from the saved b with M re-read from A, into y. */
  void resolve(blas_int r, std::size_t cs, std::vector<T>& y) {
    const blas_int nb = L_.nb;
    if (!fresh_ready_) {
      fresh_.build(L_.E, L_.left, L_.i0, nb);
      fresh_ready_ = true;
    }
    y.resize(nb);
    for (blas_int i = 0; i < nb; ++i) y[i] = Bs_[std::size_t(i) * cs + r];
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
    switch (verify(S, L_.W, bound_, rhs_[r], Bs_.data() + r, cs, X_.data() + r, cs, obs_, r,
                   ratio)) {
      case Verdict::Pass:
        ++rep.checks;
        rep.max_ratio = std::max(rep.max_ratio, ratio);
        return;
      case Verdict::NonFinite:  // NaN/Inf in the input is data: what the plain solve gives
        ++rep.skipped;
        return;
      case Verdict::Unsure: {
        // Possibly a legitimate overflow: a deterministic re-solve gives the same bits.
        resolve(r, cs, y_);
        if (same(y_, cs, r)) {
          ++rep.skipped;
          return;
        }
        ++rep.detected;
        if (!correct) return;
        resolve(r, cs, y2_);
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
        resolve(r, cs, y_);
        store(y_, cs, r);
        ++rep.checks;
        one_.compute(L_.W, y_.data(), 1, 1);
        if (verify(fresh_, L_.W, bound_, rhs_[r], Bs_.data() + r, cs, y_.data(), 1, one_, 0,
                   ratio) == Verdict::Pass) {
          ++rep.recomputed;
          return;
        }
        // The checksums themselves may be what was hit: recompute them from A and retry.
        Sums<T> Wf;
        Wf.build(fresh_);
        ++rep.checks;
        one_.compute(Wf, y_.data(), 1, 1);
        if (verify(fresh_, Wf, bound_, rhs_[r], Bs_.data() + r, cs, y_.data(), 1, one_, 0,
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
  std::vector<T> X_, Bs_, y_, y2_;
  std::vector<RhsSums<T>> rhs_;
  Observed obs_, one_;
};

void add_report(abft_report& to, const abft_report& r) {
  to.checks += r.checks;
  to.detected += r.detected;
  to.corrected += r.corrected;
  to.recomputed += r.recomputed;
  to.uncorrectable += r.uncorrectable;
  to.skipped += r.skipped;
  to.max_ratio = std::max(to.max_ratio, r.max_ratio);
}

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
    for (const abft_report& r : reps) add_report(rep, r);
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
