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
#include <cstring>
#include <type_traits>

#include "cpu/fft/butterflies.hpp"
#include "cpu/fft/fft_kernels.hpp"

namespace abft::cpu::fft {
inline namespace ABFT_TARGET_NS {

/** No check folded into a stage (the plain transform). */
struct NoAcc {
  template <int R, class V>
  void in(const V*, int64_t, int64_t) {}
  template <int R, class V>
  void out(const V*, int64_t) {}
};

/** f(Lo) + ... + f(Lo + N - 1) as a balanced tree (short dependency chains; depth
 *  ceil(log2 N)), unrolled at compile time. */
template <int Lo, int N, class F>
inline auto tree_sum(F&& f) {
  if constexpr (N == 1) return f(Lo);
  else return tree_sum<Lo, N / 2>(f) + tree_sum<Lo + N / 2, N - N / 2>(f);
}

/** The input side of a complex check folded into the first stage (s == 1), from the
 *  values it loads: sum x_j and sum c_j x_j (csum_impl's sums), and sum |x_j|^2 over the
 *  butterflies' first inputs only (elements j < m: a lower bound of ||x||^2, which the
 *  judge takes as such, LinePlan::judge_sampled). No lane of an accumulator takes a chain
 *  of more than 32 roundings in T before it is added in double (fft_dot_coefficient). */
template <class C, class T, bool Pairs>
struct InAcc {
  using V = typename C::V;
  using D = typename C::DV;
  /** Accumulators per weighted sum: with 32 vector registers (AVX-512) four, so that a
   *  radix-8 butterfly adds two terms to each (the chains of multiply-adds set the pace
   *  otherwise); two with 16. */
  static constexpr int NA = sizeof(V) == 64 ? 4 : 2;
  /** The weights' factors in FoldOrder: Pairs, a (re, im) pair per element (an even R2C
   *  line's (c_2j, c_2j+1)); else one c_j per element, applied to both parts (a complex line),
   *  which the loads duplicate in registers: half the bytes of stored pairs. */
  const T* cw;
  V s = C::zero(), c[NA], q = C::zero();
  D ds{}, dc{}, dq{};
  int cnt = 0;  ///< butterflies since the last flush
  explicit InAcc(const T* w) : cw(w) {
    for (int i = 0; i < NA; ++i) c[i] = C::zero();
  }
  /** The r vectors a butterfly loaded: a[t] holds elements p + t m .. p + t m + L - 1.
   *  The plain sum adds a balanced tree of the r terms; the weighted sum goes round NA
   *  accumulators, one multiply-add per term; the squares take a[0] only (the sample). */
  template <int R>
  void in(const V* a, int64_t p, int64_t) {
    static_assert(R > 0, "the fold takes the specialised radices only");
    s += tree_sum<0, R>([&](int t) { return a[t]; });
    constexpr int L = C::lanes;
    if constexpr (Pairs) {
      const T* cb = cw + 2 * R * p;  // FoldOrder: the block's R vectors of pairs, in t order
      for (int t = 0; t < R; ++t) c[t % NA] += a[t] * C::load(cb + 2 * t * L);
    } else {
      const T* cb = cw + R * p;  // the block's R runs of L factors, in t order
      for (int t = 0; t < R; ++t) c[t % NA] += a[t] * C::dup_load(cb + t * L);
    }
    q += a[0] * a[0];
    // A butterfly adds ceil(R / NA) terms to each weighted accumulator, and one term of
    // tree depth ceil(log2 R) to the plain sum: flush before a chain would pass 32.
    constexpr int per = (R + NA - 1) / NA, depth = R > 4 ? 3 : R > 2 ? 2 : 1;
    constexpr int most = (32 / per < 32 - depth) ? 32 / per : 32 - depth;
    if (++cnt == most) flush();
  }
  void flush() {
    ds += C::widen(s);
    dq += C::widen(q);
    for (int i = 0; i < NA; ++i) {
      dc += C::widen(c[i]);
      c[i] = C::zero();
    }
    s = q = C::zero();
    cnt = 0;
  }
  template <int R, class V2>
  void out(const V2*, int64_t) {}
  void finish(std::complex<double>* sum, std::complex<double>* csum, double* x2) {
    flush();
    *sum = C::dsum(ds);
    *csum = C::dsum(dc);
    const std::complex<double> q2 = C::dsum(dq);
    *x2 = q2.real() + q2.imag();
  }
};

/** The output side of a complex check folded into the last stage (m == 1, stride
 *  s = n / r, s a multiple of the lanes): output k = q + s u has the weight
 *  w_k = exp(sign i pi k / n) = w_q e_u with e_u = exp(sign i pi u / r), and w_q = R_b r_j
 *  (q = bB + j) as in cdot_sep_impl. Per vector of q, z = sum_u e_u y_{q + s u} = P + i Q
 *  with the real parts and imaginary parts of e_u as real factors, paired by the symmetry
 *  e_{r-u} = -conj(e_u):
 *      P = y_0 + sum_{0<u<r/2} Re e_u (y_u - y_{r-u}),
 *      Q = sum_{0<u<r/2} Im e_u (y_u + y_{r-u}) + [r even] sign y_{r/2}
 *  (Re e_{r/2} = 0 exactly), then z (r_j + i ri_j) goes into four accumulators
 *  (rr P, -ri Q, rr Q, ri P) flushed to double every 16 vectors of q and at each block's
 *  end, where R_b is applied: a chain of at most 5 + 16 roundings (docs/ABFT.md §9.2). */
template <class C, class T>
struct OutAcc {
  using V = typename C::V;
  using D = typename C::DV;
  static constexpr int64_t B = kWeightBlock;
  const T *rr, *ri;
  const double* R;
  V er[4], ei[4], mid;
  V X1 = C::zero(), X2 = C::zero(), Y1 = C::zero(), Y2 = C::zero();
  D dA{}, dB{}, tot{};
  int cnt = 0;      ///< vectors of q since the last flush
  int64_t j = 0;    ///< q within its weight block (q = blk B + j): out() takes q = 0, L, 2L, ...
  int64_t blk = 0;
  /** e: the stage's e_u as (re, im) pairs (StageArgs::half), r <= 8. */
  OutAcc(const T* rr_, const T* ri_, const double* R_, const T* e, int r) : rr(rr_), ri(ri_), R(R_) {
    for (int u = 1; 2 * u < r && u < 4; ++u) {
      er[u] = C::splat(e[2 * u]);
      ei[u] = C::splat(e[2 * u + 1]);
    }
    mid = C::splat(r % 2 == 0 && e[r + 1] < 0 ? T(-1) : T(1));
  }
  template <int R, class V2>
  void in(const V2*, int64_t, int64_t) {}
  /** The R values b[u] the stage stores for the lanes q .. q + L - 1 (output q + s u). */
  template <int R>
  void out(const V* b, int64_t) {
    static_assert(R > 0 && R <= 8, "the fold takes the specialised radices only");
    V P = b[0], Q = C::zero();
    for (int u = 1; 2 * u < R; ++u) {
      P += er[u] * (b[u] - b[R - u]);
      Q += ei[u] * (b[u] + b[R - u]);
    }
    if constexpr (R % 2 == 0) Q += mid * b[R / 2];
    const V wr = C::load(rr + 2 * j), wi = C::load(ri + 2 * j);
    X1 += wr * P;
    X2 -= wi * Q;
    Y1 += wr * Q;
    Y2 += wi * P;
    j += C::lanes;
    if (j == B) {
      flush();
      close(blk++);
      j = 0;
    } else if (++cnt == 16) {
      flush();
    }
  }
  void flush() {
    dA += C::widen(X1) + C::widen(X2);
    dB += C::widen(Y1) + C::widen(Y2);
    X1 = X2 = Y1 = Y2 = C::zero();
    cnt = 0;
  }
  /** Block b's lane sums X + i Y times R_b, per lane. */
  void close(int64_t b) {
    tot += C::dcmul(C::dplus_i(dA, dB), R[2 * b], R[2 * b + 1]);
    dA = dB = D{};
  }
  std::complex<double> finish() {
    if (j != 0) {
      flush();
      close(blk);
    }
    return C::dsum(tot);
  }
};

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

/** In-register transpose of an L x L block of complex values: on return a[k] holds lane k
 *  of the L inputs (lane l of a[k] is the former lane k of a[l]). Register shuffles for
 *  L = 2 and 4; for 8 lanes (AVX-512 float) the complex values move as 64-bit units
 *  through two-register permutes. */
template <class C>
inline void transpose_lanes(typename C::V* a) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  if constexpr (L == 2) {
    const V t0 = __builtin_shufflevector(a[0], a[1], 0, 1, 4, 5);
    const V t1 = __builtin_shufflevector(a[0], a[1], 2, 3, 6, 7);
    a[0] = t0;
    a[1] = t1;
  } else if constexpr (L == 4) {
    const V t0 = __builtin_shufflevector(a[0], a[1], 0, 1, 8, 9, 4, 5, 12, 13);
    const V t1 = __builtin_shufflevector(a[0], a[1], 2, 3, 10, 11, 6, 7, 14, 15);
    const V t2 = __builtin_shufflevector(a[2], a[3], 0, 1, 8, 9, 4, 5, 12, 13);
    const V t3 = __builtin_shufflevector(a[2], a[3], 2, 3, 10, 11, 6, 7, 14, 15);
    a[0] = __builtin_shufflevector(t0, t2, 0, 1, 2, 3, 8, 9, 10, 11);
    a[1] = __builtin_shufflevector(t1, t3, 0, 1, 2, 3, 8, 9, 10, 11);
    a[2] = __builtin_shufflevector(t0, t2, 4, 5, 6, 7, 12, 13, 14, 15);
    a[3] = __builtin_shufflevector(t1, t3, 4, 5, 6, 7, 12, 13, 14, 15);
  } else if constexpr (L == 8) {
    using Q = typename C::Q;  // the lanes as 64-bit units
    static_assert(sizeof(Q) == 8 * sizeof(long long), "8 complex lanes of 64 bits");
    // Per group of four inputs g, P_g[k] holds lanes 2k and 2k+1 of them, in output order.
    Q P[2][4];
    for (int g = 0; g < 2; ++g) {
      const Q a0 = (Q)a[4 * g], a1 = (Q)a[4 * g + 1], a2 = (Q)a[4 * g + 2], a3 = (Q)a[4 * g + 3];
      const Q t0 = C::template perm2<0, 8, 1, 9, 2, 10, 3, 11>(a0, a1);
      const Q t1 = C::template perm2<4, 12, 5, 13, 6, 14, 7, 15>(a0, a1);
      const Q t2 = C::template perm2<0, 8, 1, 9, 2, 10, 3, 11>(a2, a3);
      const Q t3 = C::template perm2<4, 12, 5, 13, 6, 14, 7, 15>(a2, a3);
      P[g][0] = C::template perm2<0, 1, 8, 9, 2, 3, 10, 11>(t0, t2);
      P[g][1] = C::template perm2<4, 5, 12, 13, 6, 7, 14, 15>(t0, t2);
      P[g][2] = C::template perm2<0, 1, 8, 9, 2, 3, 10, 11>(t1, t3);
      P[g][3] = C::template perm2<4, 5, 12, 13, 6, 7, 14, 15>(t1, t3);
    }
    for (int k = 0; k < 4; ++k) {
      a[2 * k] = (V)C::template perm2<0, 1, 2, 3, 8, 9, 10, 11>(P[0][k], P[1][k]);
      a[2 * k + 1] = (V)C::template perm2<4, 5, 6, 7, 12, 13, 14, 15>(P[0][k], P[1][k]);
    }
  }
}

/** Stage over q (s >= lanes of C, or C scalar): twiddles [p][u-1]. q in [q0, q1). */
template <class C, int R, class T, class Acc = NoAcc>
inline void stage_q(const StageArgs<T>& g, const T* x, T* y, int64_t q0, int64_t q1, Acc&& acc = Acc{}) {
  using V = typename C::V;
  const int r = R > 0 ? R : g.radix;
  const int64_t s = g.s, m = g.m;
  const V sp = C::altsign() * C::splat(T(g.sign));
  V a[32];
  for (int64_t p = 0; p < m; ++p) {
    V wr[32], wi[32];
    const bool tw = g.tw && p > 0;
    if (tw) {
      if (s > 1) {  // (re, re, -im, im) per twiddle: two broadcast loads, no shuffle
        const T* t = g.tw + 4 * (p * (r - 1));
        for (int u = 1; u < r; ++u) {
          wr[u] = C::bcast2(t + 4 * (u - 1));
          wi[u] = C::bcast2(t + 4 * (u - 1) + 2);
        }
      } else {  // the first stage's layout, one butterfly at a time
        for (int u = 1; u < r; ++u) {
          wr[u] = C::splat(g.tw[2 * ((u - 1) * m + p)]);
          wi[u] = C::altsign() * C::splat(g.tw[2 * (r - 1) * m + 2 * ((u - 1) * m + p) + 1]);
        }
      }
    }
    for (int64_t q = q0; q + C::lanes <= q1; q += C::lanes) {
      for (int t = 0; t < r; ++t) a[t] = C::load(x + 2 * (q + s * (p + t * m)));
      bfly_dispatch<C, R, T>(a, r, sp, g.k);
      C::store(y + 2 * (q + s * (r * p)), a[0]);
      for (int u = 1; u < r; ++u) {
        if (tw) a[u] = C::cmul_b(a[u], wr[u], wi[u]);
        C::store(y + 2 * (q + s * (r * p + u)), a[u]);
      }
      acc.template out<R>(a, q);
    }
  }
}

/** First stage (s == 1), vectorized over p in [0, p1) (p1 a multiple of the
 *  lanes); twiddles [u-1][p]; the r x L block of results is stored transposed
 *  (register shuffles for L = 2 and 4, a small buffer otherwise). */
template <class C, int R, class T, class Acc = NoAcc>
inline void stage_p(const StageArgs<T>& g, const T* x, T* y, int64_t p1, Acc&& acc = Acc{}) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  const int r = R > 0 ? R : g.radix;
  const int64_t m = g.m;
  const V sp = C::altsign() * C::splat(T(g.sign));
  V a[32];
  alignas(64) T buf[32][2 * L];
  for (int64_t p = 0; p < p1; p += L) {
    for (int t = 0; t < r; ++t) a[t] = C::load(x + 2 * (p + t * m));
    acc.template in<R>(a, p, m);
    bfly_dispatch<C, R, T>(a, r, sp, g.k);
    if (g.tw) {
      const T* ti = g.tw + 2 * (r - 1) * m;
      for (int u = 1; u < r; ++u) {
        const int64_t o = 2 * ((u - 1) * m + p);
        a[u] = C::cmul_b(a[u], C::load(g.tw + o), C::load(ti + o));
      }
    }
    if constexpr (R > 0 && L > 1 && R % L == 0) {
      // L x L blocks: results u .. u+L-1 of lanes p .. p+L-1, stored as rows of the lanes
      for (int u = 0; u < R; u += L) {
        transpose_lanes<C>(a + u);
        for (int l = 0; l < L; ++l) C::store(y + 2 * (R * (p + l) + u), a[u + l]);
      }
    } else if constexpr (R == 4 && L == 8) {
      // rows of four results, two lanes' rows per store (adjacent, since R == 4): the
      // first half of an 8 x 8 transpose whose other four inputs are not needed
      using Q = typename C::Q;
      const Q a0 = (Q)a[0], a1 = (Q)a[1], a2 = (Q)a[2], a3 = (Q)a[3];
      const Q t0 = C::template perm2<0, 8, 1, 9, 2, 10, 3, 11>(a0, a1);
      const Q t1 = C::template perm2<4, 12, 5, 13, 6, 14, 7, 15>(a0, a1);
      const Q t2 = C::template perm2<0, 8, 1, 9, 2, 10, 3, 11>(a2, a3);
      const Q t3 = C::template perm2<4, 12, 5, 13, 6, 14, 7, 15>(a2, a3);
      C::store(y + 2 * (R * p), (V)C::template perm2<0, 1, 8, 9, 2, 3, 10, 11>(t0, t2));
      C::store(y + 2 * (R * (p + 2)), (V)C::template perm2<4, 5, 12, 13, 6, 7, 14, 15>(t0, t2));
      C::store(y + 2 * (R * (p + 4)), (V)C::template perm2<0, 1, 8, 9, 2, 3, 10, 11>(t1, t3));
      C::store(y + 2 * (R * (p + 6)), (V)C::template perm2<4, 5, 12, 13, 6, 7, 14, 15>(t1, t3));
    } else {
      for (int u = 0; u < r; ++u) C::store(buf[u], a[u]);
      for (int l = 0; l < L; ++l) {
        T* dst = y + 2 * (r * (p + l));
        for (int u = 0; u < r; ++u) {
          dst[2 * u] = buf[u][2 * l];
          dst[2 * u + 1] = buf[u][2 * l + 1];
        }
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
      if (u > 0 && g.tw && p > 0) {
        const int64_t o = 2 * ((u - 1) * m + p);
        b = S::cmul_b(b, S::load(g.tw + o), S::load(g.tw + 2 * (r - 1) * m + o));
      }
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

/** Radices whose stage has a specialised butterfly (the folded checks take only these). */
inline bool fused_radix(int r) { return r == 2 || r == 3 || r == 4 || r == 5 || r == 8; }

template <class C, class T, class F>
inline void with_radix(int r, F f) {
  switch (r) {
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    default: f(std::integral_constant<int, 8>{}); break;
  }
}

/** first_foldable (fft_kernels.hpp). */
template <class C, class T>
bool first_foldable_impl(const StageArgs<T>& g) {
  constexpr int L = C::lanes;
  return L >= 2 && g.s == 1 && g.m >= L && g.m % L == 0 && fused_radix(g.radix);
}

/** stage_first_csum (fft_kernels.hpp): the first stage with csum_impl's sums folded in.
 *  Flattened: with the stage inlined the accumulators are locals the compiler keeps in
 *  registers (through a reference they would be reloaded after every store of the stage,
 *  which may alias them). */
template <class C, class S, class T, bool Pairs>
__attribute__((flatten)) bool stage_first_csum_impl(const StageArgs<T>& g, const T* x, T* y, const T* cw, std::complex<double>* sum,
                           std::complex<double>* csum, double* x2) {
  if (!first_foldable_impl<C>(g)) return false;
  InAcc<C, T, Pairs> acc(cw);
  with_radix<C, T>(g.radix, [&](auto R) { stage_p<C, decltype(R)::value, T>(g, x, y, g.m, acc); });
  acc.finish(sum, csum, x2);
  return true;
}

/** stage_last_cdot (fft_kernels.hpp): the last stage with cdot_sep_impl's sum folded in
 *  (flattened like stage_first_csum_impl). */
template <class C, class S, class T>
__attribute__((flatten)) bool stage_last_cdot_impl(const StageArgs<T>& g, const T* x, T* y, const T* rr, const T* ri, const double* R,
                          std::complex<double>* out) {
  constexpr int L = C::lanes;
  if (L < 2 || g.m != 1 || !g.half || g.s < L || g.s % L != 0 || !fused_radix(g.radix)) return false;
  OutAcc<C, T> acc(rr, ri, R, g.half, g.radix);
  with_radix<C, T>(g.radix, [&](auto Rc) { stage_q<C, decltype(Rc)::value, T>(g, x, y, 0, g.s, acc); });
  *out = acc.finish();
  return true;
}

// ------------------------------------------------------------------ checks
/** Block length per lane of the dot products: partial sums in T over at most
 *  64 terms, then in double (fft_dot_coefficient). */
constexpr int64_t kDotBlock = 64;

/** Output side of a complex check: sum_k w_k y_k with block-separable weights
 *  w_{bB + j} = R_b r_j (B = kWeightBlock): the inner sums use the small
 *  table r (L1-resident, given as (re, re) and (im, im) pairs so the loop has
 *  no shuffles), the block sums are multiplied by R_b in double:
 *      A += y * (rr, rr) -> (sum rr yr, sum rr yi),  Bv += y * (ri, ri),
 *      inner = (A.re - Bv.im, A.im + Bv.re).
 *  Two accumulator sets per product hide the FMA latency; a lane sums at
 *  most B / L terms in T. */
template <class C, class S, class T>
std::complex<double> cdot_sep_impl(const T* rr, const T* ri, const double* R, const T* y, int64_t n) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  constexpr int64_t B = kWeightBlock;
  static_assert(B % (2 * L) == 0, "weight block must hold whole vector pairs");
  typename C::DV tot{};
  int64_t b = 0;
  for (; (b + 1) * B <= n; ++b) {
    const T* yb = y + 2 * b * B;
    V a0 = C::zero(), a1 = C::zero(), b0 = C::zero(), b1 = C::zero();
    for (int64_t j = 0; j < B; j += 2 * L) {
      const V y0 = C::load(yb + 2 * j), y1 = C::load(yb + 2 * (j + L));
      a0 += y0 * C::load(rr + 2 * j);
      b0 += y0 * C::load(ri + 2 * j);
      a1 += y1 * C::load(rr + 2 * (j + L));
      b1 += y1 * C::load(ri + 2 * (j + L));
    }
    tot += C::dcmul(C::dplus_i(C::widen(a0 + a1), C::widen(b0 + b1)), R[2 * b], R[2 * b + 1]);
  }
  const std::complex<double> sum = C::dsum(tot);
  double re = sum.real(), im = sum.imag();
  if (b * B < n) {
    double ir = 0, ii = 0;
    for (int64_t j = 0; b * B + j < n; ++j) {
      const double yr = y[2 * (b * B + j)], yi = y[2 * (b * B + j) + 1];
      ir += double(rr[2 * j]) * yr - double(ri[2 * j]) * yi;
      ii += double(rr[2 * j]) * yi + double(ri[2 * j]) * yr;
    }
    re += R[2 * b] * ir - R[2 * b + 1] * ii;
    im += R[2 * b] * ii + R[2 * b + 1] * ir;
  }
  return {re, im};
}

/** Input side of a complex check with weights v_j = 1 + i s c_j (c real):
 *  returns sum x_j in *sum and sum c_j x_j in *csum (c given duplicated,
 *  (c_j, c_j) pairs), and sum |x_j|^2 in *x2. One pass, no shuffles. */
template <class C, class S, class T>
void csum_impl(const T* cdup, const T* x, int64_t n, std::complex<double>* sum,
               std::complex<double>* csum, double* x2) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  constexpr int U = 2;
  typename C::DV ds{}, dc{}, dq{};
  int64_t k = 0;
  while (k + U * L <= n) {
    const int64_t end = std::min<int64_t>(n - (n - k) % (U * L), k + kDotBlock * L);
    V a[U], c[U], q[U];
    for (int u = 0; u < U; ++u) a[u] = c[u] = q[u] = C::zero();
    for (; k < end; k += U * L)
      for (int u = 0; u < U; ++u) {
        const int64_t o = 2 * (k + u * L);
        const V xv = C::load(x + o);
        a[u] += xv;
        c[u] += xv * C::load(cdup + o);
        q[u] += xv * xv;
      }
    ds += C::widen(a[0] + a[1]);
    dc += C::widen(c[0] + c[1]);
    dq += C::widen(q[0] + q[1]);
  }
  const std::complex<double> s0 = C::dsum(ds), c0 = C::dsum(dc), q0 = C::dsum(dq);
  double sr = s0.real(), si = s0.imag(), cr = c0.real(), ci = c0.imag(), sq = q0.real() + q0.imag();
  for (; k < n; ++k) {
    const double xr = x[2 * k], xi = x[2 * k + 1], cc = cdup[2 * k];
    sr += xr;
    si += xi;
    cr += cc * xr;
    ci += cc * xi;
    sq += xr * xr + xi * xi;
  }
  *sum = {sr, si};
  *csum = {cr, ci};
  *x2 = sq;
}

/** sum_j (wr_j + i wi_j) x_j over ns real scalars (and sum x_j^2 in *x2). */
template <class C, class S, class T>
std::complex<double> rdot_impl(const T* wr, const T* wi, const T* x, int64_t ns, double* x2) {
  using V = typename C::V;
  constexpr int W = C::width;
  constexpr int U = 2;
  double re = 0, im = 0, sq = 0;
  typename C::DV dr{}, di{}, dq{};
  int64_t j = 0;
  const bool want_sq = x2 != nullptr;
  while (j + U * W <= ns) {
    const int64_t end = std::min<int64_t>(ns - (ns - j) % (U * W), j + kDotBlock * W);
    V ar[U], ai[U], q[U];
    for (int u = 0; u < U; ++u) ar[u] = ai[u] = q[u] = C::zero();
    for (; j < end; j += U * W)
      for (int u = 0; u < U; ++u) {
        const V xv = C::load(x + j + u * W);
        ar[u] += xv * C::load(wr + j + u * W);
        ai[u] += xv * C::load(wi + j + u * W);
        if (want_sq) q[u] += xv * xv;
      }
    dr += C::widen(ar[0] + ar[1]);
    di += C::widen(ai[0] + ai[1]);
    if (want_sq) dq += C::widen(q[0] + q[1]);
  }
  for (int l = 0; l < W; ++l) {
    re += dr[l];
    im += di[l];
    sq += dq[l];
  }
  for (; j < ns; ++j) {
    re += double(wr[j]) * double(x[j]);
    im += double(wi[j]) * double(x[j]);
    sq += double(x[j]) * double(x[j]);
  }
  if (x2) *x2 = sq;
  return {re, im};
}

/** y_k = a_k * b_k over n complex elements (y may alias a). */
template <class C, class S, class T>
void cmul_impl(T* y, const T* a, const T* b, int64_t n) {
  constexpr int L = C::lanes;
  int64_t k = 0;
  for (; k + L <= n; k += L) C::store(y + 2 * k, C::cmul(C::load(a + 2 * k), C::load(b + 2 * k)));
  for (; k < n; ++k) S::store(y + 2 * k, S::cmul(S::load(a + 2 * k), S::load(b + 2 * k)));
}

/** Input side of the checks of nb signals interleaved element by element,
 *  fused with the copy that gathers them: row j (nb complex values at
 *  src + j * src_row, in complex elements) is copied to dst + j * nb and, per
 *  signal, sum x, sum c_j x and sum |x|^2 (over a sample of the rows) are
 *  formed on the way, vectorized across the signals; each lane sums at most
 *  32 rows in T, then double. */
template <class C, class S, class T, int NVC>
void gather_csum_batch_n(const T* src, int64_t src_row, T* dst, const T* cdup, int64_t n, int64_t nb_,
                         std::complex<double>* sum, std::complex<double>* csum, double* x2) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  constexpr int64_t R = 32;
  constexpr int NV = 8;  // vectors per row handled in registers (nb <= 8 L)
  // NVC > 0: nb is exactly NVC vectors, known here, so the accumulators stay in registers.
  const int64_t nb = NVC > 0 ? int64_t(NVC) * L : nb_;
  for (int64_t b = 0; b < nb; ++b) { sum[b] = csum[b] = 0; x2[b] = 0; }
  const int64_t nv = NVC > 0 ? NVC : std::min<int64_t>(nb / L, NV);
  const int64_t bv = nv * L;  // signals handled by vectors; the rest scalar
  // Independent accumulator sets for consecutive rows: with one or two vectors a row, one set
  // would make every row wait for the previous row's additions (a chain of adds per row).
  // The squares are summed on the rows of set 0 only: x2 is then a lower bound of each
  // signal's ||x||^2 (a sample of its rows; LinePlan::judge_sampled).
  constexpr int U = NVC == 1 ? 4 : NVC == 2 ? 2 : 1;
  // The second level in double, lane by lane as vectors (one signal per lane): the
  // per-signal scalars are formed once at the end, not after every R rows.
  typename C::DV ds[NV], dc[NV], dq[NV];
  for (int v = 0; v < NV; ++v) ds[v] = dc[v] = dq[v] = typename C::DV{};
  for (int64_t j0 = 0; j0 < n; j0 += R) {
    const int64_t j1 = std::min(n, j0 + R);
    V a[U][NV], c[U][NV], q[U][NV];
    for (int u = 0; u < U; ++u)
      for (int v = 0; v < NV; ++v) a[u][v] = c[u][v] = q[u][v] = C::zero();
    auto row = [&](int64_t j, int u) {
      const T* sr = src + 2 * j * src_row;
      T* dr = dst + 2 * j * nb;
      const V cj = C::splat(cdup[2 * j]);
      for (int64_t v = 0; v < nv; ++v) {
        const V xv = C::load(sr + 2 * v * L);
        C::store(dr + 2 * v * L, xv);
        a[u][v] += xv;
        c[u][v] += xv * cj;
        if (u == 0) q[u][v] += xv * xv;
      }
    };
    int64_t jv = j0;
    if constexpr (U > 1) {
      for (; jv + U <= j1; jv += U) {
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) row(jv + u, u);
      }
    }
    for (; jv < j1; ++jv) row(jv, 0);
    for (int64_t j = j0; j < j1 && bv < nb; ++j) {
      const T* sr = src + 2 * j * src_row;
      T* dr = dst + 2 * j * nb;
      for (int64_t b = bv; b < nb; ++b) {
        const T xr = sr[2 * b], xi = sr[2 * b + 1];
        dr[2 * b] = xr;
        dr[2 * b + 1] = xi;
        sum[b] += std::complex<double>(xr, xi);
        csum[b] += std::complex<double>(double(cdup[2 * j]) * xr, double(cdup[2 * j]) * xi);
        x2[b] += double(xr) * xr + double(xi) * xi;
      }
    }
    for (int u = 0; u < U; ++u)
      for (int64_t v = 0; v < nv; ++v) {
        ds[v] += C::widen(a[u][v]);
        dc[v] += C::widen(c[u][v]);
        dq[v] += C::widen(q[u][v]);
      }
  }
  for (int64_t v = 0; v < nv; ++v)
    for (int l = 0; l < L; ++l) {
      const int64_t b = v * L + l;
      sum[b] = {ds[v][2 * l], ds[v][2 * l + 1]};
      csum[b] = {dc[v][2 * l], dc[v][2 * l + 1]};
      x2[b] = dq[v][2 * l] + dq[v][2 * l + 1];
    }
}

/** Output side of the checks of nb interleaved signals (row k: nb complex values at
 *  src + k * nb), w_{bB+j} = R_b r_j as in cdot_sep_impl (r as (re, re) then (im, im)
 *  pairs). Not fused with the four-step's scatter of the block: with the strided stores in
 *  the same loop the float column pass took twice the plain copy's time (a separate pass
 *  over the L1-resident block costs less; docs/PERFORMANCE.md, issue 4). */
template <class C, class S, class T, int NVC>
void cdot_batch_n(const T* src, const T* rr, const T* ri, const double* Rb, int64_t n, int64_t nb_,
                  std::complex<double>* out) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  constexpr int64_t B = kWeightBlock;
  constexpr int NV = 8;
  const int64_t nb = NVC > 0 ? int64_t(NVC) * L : nb_;  // as in gather_csum_batch_n
  for (int64_t b = 0; b < nb; ++b) out[b] = 0;
  const int64_t nv = NVC > 0 ? NVC : std::min<int64_t>(nb / L, NV);
  const int64_t bv = nv * L;
  constexpr int U = NVC == 1 ? 4 : NVC == 2 ? 2 : 1;  // as in gather_csum_batch_n
  typename C::DV tot[NV];  // as in gather_csum_batch_n: per lane in double, as vectors
  for (int v = 0; v < NV; ++v) tot[v] = typename C::DV{};
  for (int64_t blk = 0; blk * B < n; ++blk) {
    const int64_t j1 = std::min<int64_t>(B, n - blk * B);
    V a[U][NV], c[U][NV];
    for (int u = 0; u < U; ++u)
      for (int v = 0; v < NV; ++v) a[u][v] = c[u][v] = C::zero();
    double tr[64], ti[64];
    for (int64_t b = bv; b < nb; ++b) tr[b] = ti[b] = 0;
    auto row = [&](int64_t j, int u) {
      const int64_t k = blk * B + j;
      const T* sr = src + 2 * k * nb;
      const V wr = C::splat(rr[2 * j]), wi = C::splat(ri[2 * j]);
      for (int64_t v = 0; v < nv; ++v) {
        const V yv = C::load(sr + 2 * v * L);
        a[u][v] += yv * wr;
        c[u][v] += yv * wi;
      }
    };
    int64_t jv = 0;
    if constexpr (U > 1) {
      for (; jv + U <= j1; jv += U) {
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) row(jv + u, u);
      }
    }
    for (; jv < j1; ++jv) row(jv, 0);
    for (int64_t j = 0; j < j1 && bv < nb; ++j) {
      const int64_t k = blk * B + j;
      const T* sr = src + 2 * k * nb;
      for (int64_t b = bv; b < nb; ++b) {
        const T yr = sr[2 * b], yi = sr[2 * b + 1];
        tr[b] += double(rr[2 * j]) * yr - double(ri[2 * j]) * yi;
        ti[b] += double(rr[2 * j]) * yi + double(ri[2 * j]) * yr;
      }
    }
    const double Rr = Rb[2 * blk], Ri = Rb[2 * blk + 1];
    for (int64_t v = 0; v < nv; ++v) {
      // inner = sum_u (a.re - c.im, a.im + c.re) in double, then times R_b
      typename C::DV inner{};
      for (int u = 0; u < U; ++u) inner += C::dplus_i(C::widen(a[u][v]), C::widen(c[u][v]));
      tot[v] += C::dcmul(inner, Rr, Ri);
    }
    for (int64_t b = bv; b < nb; ++b)
      out[b] += std::complex<double>(Rr * tr[b] - Ri * ti[b], Rr * ti[b] + Ri * tr[b]);
  }
  for (int64_t v = 0; v < nv; ++v)
    for (int l = 0; l < L; ++l) out[v * L + l] = {tot[v][2 * l], tot[v][2 * l + 1]};
}

/** f(integral_constant<int, NVC>) for nb signals: NVC = nb / L for the common widths (1, 2,
 *  4 vectors a row), compiled for their width; 0 (any width) otherwise. */
template <int L, class F>
inline void with_batch_width(int64_t nb, F&& f) {
  if (L > 1 && nb == L) return f(std::integral_constant<int, 1>{});
  if (L > 1 && nb == 2 * L) return f(std::integral_constant<int, 2>{});
  if (L > 1 && nb == 4 * L) return f(std::integral_constant<int, 4>{});
  f(std::integral_constant<int, 0>{});
}

template <class C, class S, class T>
void gather_csum_batch_impl(const T* src, int64_t src_row, T* dst, const T* cdup, int64_t n, int64_t nb,
                            std::complex<double>* sum, std::complex<double>* csum, double* x2) {
  with_batch_width<C::lanes>(nb, [&](auto w) {
    gather_csum_batch_n<C, S, T, decltype(w)::value>(src, src_row, dst, cdup, n, nb, sum, csum, x2);
  });
}
template <class C, class S, class T>
void cdot_batch_impl(const T* src, const T* rr, const T* ri, const double* Rb, int64_t n, int64_t nb,
                     std::complex<double>* out) {
  with_batch_width<C::lanes>(nb, [&](auto w) { cdot_batch_n<C, S, T, decltype(w)::value>(src, rr, ri, Rb, n, nb, out); });
}

/** cmul_tw2 (fft_kernels.hpp): per chunk of C elements one broadcast factor B_i, the chunk
 *  table A loaded as lane vectors in the split layout: two products of one shuffle each. */
template <class C, class S, class T>
void cmul_tw2_impl(T* y, const T* a, const T* A, const T* B, int64_t n) {
  constexpr int L = C::lanes;
  constexpr int64_t K = kTwiddleChunk;
  static_assert(K % L == 0, "a chunk holds whole vectors");
  const T* Ai = A + 2 * K;
  int64_t k = 0;
  for (int64_t i = 0; k < n; ++i) {
    const int64_t end = k + K < n ? k + K : n;
    const typename C::V br = C::splat(B[2 * i]), bi = C::altsign() * C::splat(B[2 * i + 1]);
    int64_t j = 0;
    for (; k + L <= end; k += L, j += L) {
      const auto v = C::cmul_b(C::load(a + 2 * k), C::load(A + 2 * j), C::load(Ai + 2 * j));
      C::store(y + 2 * k, C::cmul_b(v, br, bi));
    }
    const typename S::V sbr = S::splat(B[2 * i]), sbi = S::altsign() * S::splat(B[2 * i + 1]);
    for (; k < end; ++k, ++j) {
      const auto v = S::cmul_b(S::load(a + 2 * k), S::load(A + 2 * j), S::load(Ai + 2 * j));
      S::store(y + 2 * k, S::cmul_b(v, sbr, sbi));
    }
  }
}

/** word_sum (fft_kernels.hpp): eight wrapping 64-bit chains per 64 bytes, as vectors. */
template <class T>
uint64_t word_sum_impl(const T* p, int64_t scalars) {
  typedef uint64_t W8 __attribute__((vector_size(64)));
  const int64_t words = scalars * int64_t(sizeof(T)) / 8;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(p);
  W8 s0{}, s1{};
  int64_t i = 0;
  for (; i + 16 <= words; i += 16) {
    W8 w0, w1;
    std::memcpy(&w0, b + 8 * i, 64);
    std::memcpy(&w1, b + 8 * i + 64, 64);
    s0 += w0;
    s1 += w1;
  }
  s0 += s1;
  uint64_t t = 0;
  for (int l = 0; l < 8; ++l) t += s0[l];
  for (; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, b + 8 * i, 8);
    t += w;
  }
  return t;
}

/** a b without the library's NaN recovery (the check judges non-finite sums itself). */
inline std::complex<double> cmul_d(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

/** SplitCheck's sum inside the split step (fft_kernels.hpp). Per block of B bins (k - 1 =
 *  bB + j): A += y (r_re, r_re) and Bv += y (r_im, r_im) for the front vectors, the same for
 *  the back ones; at a block's end the lanes are widened to double, w y = A + i Bv and
 *  conj(w) y = A - i Bv are formed there and multiplied by R_b and conj R_b. A lane sums at
 *  most B / L products in T (fft_dot_coefficient), as in cdot_sep. */
template <class C, class T, bool Back>
struct SplitAcc {
  using V = typename C::V;
  using D = typename C::DV;
  static constexpr int64_t B = kWeightBlock;
  /** Bins between flushes to double: the block, or 32 per lane where one lane would take
   *  more (the scalar kernels), flushed into the block's double sums d*. */
  static constexpr int64_t F = 32 * C::lanes < B ? 32 * C::lanes : B;
  const SplitCheck<T>* chk;  ///< null: no check (nothing here is used)
  V fa = C::zero(), fb = C::zero(), ba = C::zero(), bb = C::zero();
  D da{}, db{}, dba{}, dbb{}, tf{}, tb{};
  int64_t j = 0, blk = 0;
  explicit SplitAcc(const SplitCheck<T>* c) : chk(c) {}
  /** The front vector (bins k' + 1 + l) and, with Back, the back one (bins h - 1 - k' - l),
   *  for the next k' (0, L, 2L, ...). */
  void add(V yf, V yb, const T* rr, const T* ri) {
    const V wr = C::load(rr + 2 * j), wi = C::load(ri + 2 * j);
    fa += yf * wr;
    fb += yf * wi;
    if constexpr (Back) {
      ba += yb * wr;
      bb += yb * wi;
    }
    j += C::lanes;
    if constexpr (F < B)
      if (j % F == 0 && j != B) flush();
    if (j == B) close();
  }
  void flush() {
    da += C::widen(fa);
    db += C::widen(fb);
    if constexpr (Back) {
      dba += C::widen(ba);
      dbb += C::widen(bb);
    }
    fa = fb = ba = bb = C::zero();
  }
  /** The block's sums times R_b (front) and conj R_b (back): w y = A + i Bv, conj(w) y =
   *  A - i Bv with A = sum y r_re, Bv = sum y r_im lane by lane. */
  void close() {
    const double Rr = chk->R[2 * blk], Ri = chk->R[2 * blk + 1];
    if constexpr (F < B) {
      flush();
      tf += C::dcmul(C::dplus_i(da, db), Rr, Ri);
      if constexpr (Back) tb += C::dcmul(C::dplus_i(dba, -dbb), Rr, -Ri);
      da = db = dba = dbb = D{};
    } else {
      tf += C::dcmul(C::dplus_i(C::widen(fa), C::widen(fb)), Rr, Ri);
      if constexpr (Back) tb += C::dcmul(C::dplus_i(C::widen(ba), -C::widen(bb)), Rr, -Ri);
      fa = fb = ba = bb = C::zero();
    }
    j = 0;
    ++blk;
  }
  /** The vector part's sum; the middle bins go through SplitMid. */
  std::complex<double> finish() {
    if (j != 0) close();
    return cmul_d(chk->e1, C::dsum(tf)) + cmul_d(chk->eh1, C::dsum(tb));
  }
};

/** SplitCheck's sum over the middle bins the vector loop leaves (fewer than L, so in at
 *  most two weight blocks), in double: per block sum r_j y_k, then times e1 R_b. */
template <class T>
struct SplitMid {
  const SplitCheck<T>* chk;
  int64_t b0 = -1;
  std::complex<double> acc[2] = {};
  bool used[2] = {false, false};
  void add(int64_t k, const T* y) {
    const int64_t b = (k - 1) / kWeightBlock, j = (k - 1) % kWeightBlock;
    if (b0 < 0) b0 = b;
    const double rr = chk->rr[2 * j], ri = chk->ri[2 * j], yr = y[0], yi = y[1];
    acc[b - b0] += std::complex<double>(rr * yr - ri * yi, rr * yi + ri * yr);
    used[b - b0] = true;
  }
  std::complex<double> finish() const {
    std::complex<double> t = 0;
    for (int i = 0; i < 2; ++i)
      if (used[i]) t += cmul_d(std::complex<double>(chk->R[2 * (b0 + i)], chk->R[2 * (b0 + i) + 1]), acc[i]);
    return cmul_d(chk->e1, t);
  }
};

/** One vector of bin pairs of the real transforms' split steps: a holds bins k + l of the
 *  input, bm bins h - k - l (lane l). With b = conj(bm), s = a + b, d = a - b and
 *  P = -i w_k d = dupim(w) d + dupre(w) (1, -1) swap(d), and w_{h-k} = -conj(w_k):
 *    R2C: y_k = (s + P) / 2,  y_{h-k} = conj(s - P) / 2;
 *    C2R: Z_k = s - P,        Z_{h-k} = conj(s + P);
 *  xa gets the front bins, xb the back ones (lane l: bin h - k - l). */
template <class D, class T, bool R2C>
inline void split_pair(typename D::V a, typename D::V bm, typename D::V w, typename D::V& xa, typename D::V& xb) {
  const auto cj = D::bcast(T(1), T(-1));
  const auto s = a + bm * cj, d = a - bm * cj;
  const auto P = D::dupim(w) * d + (D::dupre(w) * cj) * D::swap(d);
  if constexpr (R2C) {
    const auto half = D::splat(T(0.5));
    xa = (s + P) * half;
    xb = (s - P) * (half * cj);
  } else {
    xa = s - P;
    xb = (s + P) * cj;
  }
}

/** The split steps (r2c_twist, c2r_twist in fft_kernels.hpp) on the pairs (k, h - k): L bins
 *  from the front and their L mirrors from the back per step while at least L bins are
 *  left (the last such step's blocks may overlap), the fewer than L left one pair at a time.
 *  y may be Z (each step reads its bins before it writes them). With Chk, SplitCheck's sum
 *  of the R2C bins computed. */
template <class C, class S, class T, bool R2C, bool Chk>
void split_pairs_run(const T* Z, const T* w, T* y, int64_t h, SplitCheck<T>* chk) {
  constexpr int L = C::lanes;
  SplitAcc<C, T, true> acc(chk);
  const T* rr = Chk ? chk->rr : nullptr;  // read once: the stores below may alias *chk
  const T* ri = Chk ? chk->ri : nullptr;
  SplitMid<T> mid{chk};
  int64_t k = 1;
  for (int64_t c; (c = h - 2 * k + 1) >= L; k += L) {
    // c bins are left in the middle. When c < 2L this last step's two blocks overlap: a bin
    // in both gets the same value from either side (the twiddles satisfy w_{h-k} = -conj(w_k)
    // exactly, and split_pair's arithmetic is symmetric under it), so storing it twice is
    // harmless, and the check counts it once, from the back block (stored last), by dropping
    // the front lanes l >= c - L.
    const int64_t m = h - k - L + 1;  // the mirrored block [m, m + L) holds h-k-L+1 .. h-k
    typename C::V xa, xb;
    split_pair<C, T, R2C>(C::load(Z + 2 * k), C::rev(C::load(Z + 2 * m)), C::load(w + 2 * k), xa, xb);
    C::store(y + 2 * k, xa);
    C::store(y + 2 * m, C::rev(xb));
    if constexpr (Chk) {
      for (int64_t l = c - L; l < L; ++l) xa[2 * l] = xa[2 * l + 1] = T(0);
      acc.add(xa, xb, rr, ri);
    }
  }
  for (; k <= h - k; ++k) {
    typename S::V xa, xb;
    split_pair<S, T, R2C>(S::load(Z + 2 * k), S::load(Z + 2 * (h - k)), S::load(w + 2 * k), xa, xb);
    S::store(y + 2 * k, xa);
    if constexpr (Chk) mid.add(k, y + 2 * k);
    if (h - k != k) {
      S::store(y + 2 * (h - k), xb);
      if constexpr (Chk) mid.add(h - k, y + 2 * (h - k));
    }
  }
  if constexpr (Chk) chk->sum = acc.finish() + mid.finish();
}
template <class C, class S, class T>
void r2c_twist_impl(const T* Z, const T* w, T* y, int64_t h, SplitCheck<T>* chk) {
  if (chk) split_pairs_run<C, S, T, true, true>(Z, w, y, h, chk);
  else split_pairs_run<C, S, T, true, false>(Z, w, y, h, chk);
}
template <class C, class S, class T>
void c2r_twist_impl(const T* X, const T* w, T* Z, int64_t h) {
  split_pairs_run<C, S, T, false, false>(X, w, Z, h, nullptr);
}

/** transpose_rows (fft_kernels.hpp): dst[k ds + b] = src[b n + k], b < nb, k < n; L x L
 *  blocks in registers where nb is a multiple of the lanes, the rest one element at a time. */
template <class C, class S, class T>
void transpose_rows_impl(const T* src, int64_t n, int64_t nb, T* dst, int64_t ds) {
  using V = typename C::V;
  constexpr int L = C::lanes;
  int64_t k = 0;
  if (L > 1 && nb % L == 0)
    for (; k + L <= n; k += L)
      for (int64_t g = 0; g < nb; g += L) {
        V a[L];
        for (int l = 0; l < L; ++l) a[l] = C::load(src + 2 * ((g + l) * n + k));
        transpose_lanes<C>(a);
        for (int l = 0; l < L; ++l) C::store(dst + 2 * ((k + l) * ds + g), a[l]);
      }
  for (; k < n; ++k)
    for (int64_t b = 0; b < nb; ++b) {
      dst[2 * (k * ds + b)] = src[2 * (b * n + k)];
      dst[2 * (k * ds + b) + 1] = src[2 * (b * n + k) + 1];
    }
}

template <class C, class S, class T>
FftKernels<T> make_kernels(const char* isa) {
  FftKernels<T> k;
  k.stage = &stage_any<C, S, T>;
  k.cdot_sep = &cdot_sep_impl<C, S, T>;
  k.csum = &csum_impl<C, S, T>;
  k.stage_first_csum = &stage_first_csum_impl<C, S, T, false>;
  k.stage_first_csum_pairs = &stage_first_csum_impl<C, S, T, true>;
  k.first_foldable = &first_foldable_impl<C, T>;
  k.stage_last_cdot = &stage_last_cdot_impl<C, S, T>;
  k.rdot = &rdot_impl<C, S, T>;
  k.cmul = &cmul_impl<C, S, T>;
  k.cmul_tw2 = &cmul_tw2_impl<C, S, T>;
  k.word_sum = &word_sum_impl<T>;
  k.gather_csum_batch = &gather_csum_batch_impl<C, S, T>;
  k.cdot_batch = &cdot_batch_impl<C, S, T>;
  k.r2c_twist = &r2c_twist_impl<C, S, T>;
  k.c2r_twist = &c2r_twist_impl<C, S, T>;
  k.transpose_rows = &transpose_rows_impl<C, S, T>;
  k.lanes = C::lanes;
  k.isa = isa;
  return k;
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::fft
