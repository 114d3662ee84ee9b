/** \file stockham.hpp
 *  \brief One stage of a mixed-radix Stockham (self-sorting, decimation in
 *  frequency) FFT, and the dot products of the checks, on L complex lanes.
 *  Included by the per-ISA translation units (fft_kernels_*.cpp) only.
 *
 *  Stage with radix r, stride s (product of the earlier radices) and m
 *  butterflies per sub-problem (n = s r m):
 *      a_t = x[q + s (p + t m)],            t < r
 *      y[q + s (r p + u)] = w^{p u} sum_t a_t exp(sign 2 pi i t u / r),
 *  with w = exp(sign 2 pi i / (r m)). q runs over s contiguous elements (the
 *  SIMD lanes when s >= L); the first stage (s = 1) vectorizes over p instead
 *  and stores transposed.
 */
#pragma once
#include <complex>
#include <cstdint>

#include "cpu/fft/butterflies.hpp"
#include "cpu/fft/fft_kernels.hpp"

namespace abft::cpu::fft {
inline namespace ABFT_TARGET_NS {

template <class C, int R, class T>
inline void bfly_dispatch(typename C::V* a, int r, typename C::V sp, const BflyConst<T>& k) {
  using B = Bfly<C>;
  if constexpr (R == 2) B::r2(a);
  else if constexpr (R == 3) B::template r3<T>(a, sp, k);
  else if constexpr (R == 4) B::r4(a, sp);
  else if constexpr (R == 5) B::template r5<T>(a, sp, k);
  else if constexpr (R == 8) B::template r8<T>(a, sp, k.h8);
  else B::template rgen<T>(a, r, sp, k);
}

/** Stage over q (s >= lanes of C, or C scalar): twiddles [p][u-1]. q in [q0, q1). */
template <class C, int R, class T>
inline void stage_q(const StageArgs<T>& g, const T* x, T* y, int64_t q0, int64_t q1) {
  using V = typename C::V;
  const int r = R > 0 ? R : g.radix;
  const int64_t s = g.s, m = g.m;
  const V sp = C::altsign() * C::splat(T(g.sign));
  V a[32];
  for (int64_t p = 0; p < m; ++p) {
    V wr[32], wi[32];
    const bool tw = g.tw && p > 0;
    if (tw) {
      const T* t = (s == 1) ? nullptr : g.tw + 2 * (p * (r - 1));
      for (int u = 1; u < r; ++u) {
        T re, im;
        if (t) { re = t[2 * (u - 1)]; im = t[2 * (u - 1) + 1]; }
        else { re = g.tw[2 * ((u - 1) * m + p)]; im = g.tw[2 * ((u - 1) * m + p) + 1]; }
        wr[u] = C::splat(re);
        wi[u] = C::altsign() * C::splat(im);
      }
    }
    for (int64_t q = q0; q + C::lanes <= q1; q += C::lanes) {
      for (int t = 0; t < r; ++t) a[t] = C::load(x + 2 * (q + s * (p + t * m)));
      bfly_dispatch<C, R, T>(a, r, sp, g.k);
      C::store(y + 2 * (q + s * (r * p)), a[0]);
      for (int u = 1; u < r; ++u) {
        const V b = tw ? C::cmul_b(a[u], wr[u], wi[u]) : a[u];
        C::store(y + 2 * (q + s * (r * p + u)), b);
      }
    }
  }
}

/** First stage (s == 1), vectorized over p in [0, p1) (p1 a multiple of the
 *  lanes); twiddles [u-1][p]; stores transposed through a small buffer. */
template <class C, int R, class T>
inline void stage_p(const StageArgs<T>& g, const T* x, T* y, int64_t p1) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  const int r = R > 0 ? R : g.radix;
  const int64_t m = g.m;
  const V sp = C::altsign() * C::splat(T(g.sign));
  V a[32];
  alignas(64) T buf[32][2 * L];
  for (int64_t p = 0; p < p1; p += L) {
    for (int t = 0; t < r; ++t) a[t] = C::load(x + 2 * (p + t * m));
    bfly_dispatch<C, R, T>(a, r, sp, g.k);
    C::store(buf[0], a[0]);
    for (int u = 1; u < r; ++u) {
      const V b = g.tw ? C::cmul(a[u], C::load(g.tw + 2 * ((u - 1) * m + p))) : a[u];
      C::store(buf[u], b);
    }
    for (int l = 0; l < L; ++l) {
      T* dst = y + 2 * (r * (p + l));
      for (int u = 0; u < r; ++u) {
        dst[2 * u] = buf[u][2 * l];
        dst[2 * u + 1] = buf[u][2 * l + 1];
      }
    }
  }
}

/** Scalar butterflies p in [p0, m) of a stage with s == 1. */
template <class S, int R, class T>
inline void stage_tail(const StageArgs<T>& g, const T* x, T* y, int64_t p0) {
  using V = typename S::V;
  const int r = R > 0 ? R : g.radix;
  const int64_t m = g.m;
  const V sp = S::altsign() * S::splat(T(g.sign));
  V a[32];
  for (int64_t p = p0; p < m; ++p) {
    for (int t = 0; t < r; ++t) a[t] = S::load(x + 2 * (p + t * m));
    bfly_dispatch<S, R, T>(a, r, sp, g.k);
    for (int u = 0; u < r; ++u) {
      V b = a[u];
      if (u > 0 && g.tw && p > 0) b = S::cmul(b, S::load(g.tw + 2 * ((u - 1) * m + p)));
      S::store(y + 2 * (r * p + u), b);
    }
  }
}

template <class C, class S, int R, class T>
inline void stage_r(const StageArgs<T>& g, const T* x, T* y) {
  constexpr int L = C::lanes;
  if (g.s >= L) {
    const int64_t qv = g.s - g.s % L;
    stage_q<C, R, T>(g, x, y, 0, qv);
    if (qv < g.s) stage_q<S, R, T>(g, x, y, qv, g.s);
  } else if (g.s == 1 && g.m >= L) {
    const int64_t pv = g.m - g.m % L;
    stage_p<C, R, T>(g, x, y, pv);
    if (pv < g.m) {
      // the remaining butterflies p in [pv, m), one at a time
      StageArgs<T> h = g;
      stage_tail<S, R, T>(h, x, y, pv);
    }
  } else {
    stage_q<S, R, T>(g, x, y, 0, g.s);
  }
}

template <class C, class S, class T>
void stage_any(const StageArgs<T>& g, const T* x, T* y) {
  switch (g.radix) {
    case 2: stage_r<C, S, 2, T>(g, x, y); break;
    case 3: stage_r<C, S, 3, T>(g, x, y); break;
    case 4: stage_r<C, S, 4, T>(g, x, y); break;
    case 5: stage_r<C, S, 5, T>(g, x, y); break;
    case 8: stage_r<C, S, 8, T>(g, x, y); break;
    default: stage_r<C, S, 0, T>(g, x, y); break;
  }
}

// ------------------------------------------------------------------ checks
/** Block length per lane of the dot products: partial sums in T over at most
 *  64 terms, then in double (fft_dot_coefficient). */
constexpr int64_t kDotBlock = 64;

template <class C>
inline void reduce_pairs(typename C::V v, double& re, double& im) {
  for (int l = 0; l < C::lanes; ++l) {
    re += double(v[2 * l]);
    im += double(v[2 * l + 1]);
  }
}

/** sum_k w_k y_k over n complex elements. */
template <class C, class S, class T>
std::complex<double> cdot_impl(const T* w, const T* y, int64_t n) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  double re = 0, im = 0;
  int64_t k = 0;
  const V alt = C::altsign();
  while (k + L <= n) {
    const int64_t end = std::min<int64_t>(n - (n - k) % L, k + kDotBlock * L);
    V acc = C::zero(), acc2 = C::zero();
    for (; k < end; k += L) {
      const V wv = C::load(w + 2 * k), yv = C::load(y + 2 * k);
      acc += yv * C::dupre(wv);
      acc2 += C::swap(yv) * C::dupim(wv);
    }
    reduce_pairs<C>(acc + acc2 * alt, re, im);
  }
  for (; k < n; ++k) {
    const double wr = w[2 * k], wi = w[2 * k + 1], yr = y[2 * k], yi = y[2 * k + 1];
    re += wr * yr - wi * yi;
    im += wr * yi + wi * yr;
  }
  return {re, im};
}

/** sum_j (wr_j + i wi_j) x_j over ns real scalars. */
template <class C, class S, class T>
std::complex<double> rdot_impl(const T* wr, const T* wi, const T* x, int64_t ns) {
  using V = typename C::V;
  constexpr int W = C::width;
  double re = 0, im = 0;
  int64_t j = 0;
  while (j + W <= ns) {
    const int64_t end = std::min<int64_t>(ns - (ns - j) % W, j + kDotBlock * W);
    V ar = C::zero(), ai = C::zero();
    for (; j < end; j += W) {
      const V xv = C::load(x + j);
      ar += xv * C::load(wr + j);
      ai += xv * C::load(wi + j);
    }
    for (int l = 0; l < W; ++l) { re += double(ar[l]); im += double(ai[l]); }
  }
  for (; j < ns; ++j) {
    re += double(wr[j]) * double(x[j]);
    im += double(wi[j]) * double(x[j]);
  }
  return {re, im};
}

/** sum_j x_j^2 over ns real scalars (non-finite in, non-finite out). */
template <class C, class S, class T>
double nrm2sq_impl(const T* x, int64_t ns) {
  using V = typename C::V;
  constexpr int W = C::width;
  double s = 0;
  int64_t j = 0;
  while (j + W <= ns) {
    const int64_t end = std::min<int64_t>(ns - (ns - j) % W, j + kDotBlock * W);
    V acc = C::zero();
    for (; j < end; j += W) {
      const V xv = C::load(x + j);
      acc += xv * xv;
    }
    for (int l = 0; l < W; ++l) s += double(acc[l]);
  }
  for (; j < ns; ++j) s += double(x[j]) * double(x[j]);
  return s;
}

/** y_k = a_k * b_k over n complex elements (y may alias a). */
template <class C, class S, class T>
void cmul_impl(T* y, const T* a, const T* b, int64_t n) {
  constexpr int L = C::lanes;
  int64_t k = 0;
  for (; k + L <= n; k += L) C::store(y + 2 * k, C::cmul(C::load(a + 2 * k), C::load(b + 2 * k)));
  for (; k < n; ++k) S::store(y + 2 * k, S::cmul(S::load(a + 2 * k), S::load(b + 2 * k)));
}

template <class C, class S, class T>
FftKernels<T> make_kernels(const char* isa) {
  FftKernels<T> k;
  k.stage = &stage_any<C, S, T>;
  k.cdot = &cdot_impl<C, S, T>;
  k.rdot = &rdot_impl<C, S, T>;
  k.nrm2sq = &nrm2sq_impl<C, S, T>;
  k.cmul = &cmul_impl<C, S, T>;
  k.lanes = C::lanes;
  k.isa = isa;
  return k;
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::fft
