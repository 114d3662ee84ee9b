/** \file butterflies.hpp
 *  \brief DFT butterflies of radix 2, 3, 4, 5, 8 and any odd radix, on L
 *  complex lanes at once (CVec). b_u = sum_t a_t exp(sign 2 pi i t u / r).
 *  Every output is a sum of r products with constants in at most 2r+4
 *  sequential roundings (the assumption behind fft_stage_eta, fft_bounds.hpp).
 */
#pragma once
#include "cpu/fft/cvec.hpp"
#include "cpu/fft/fft_kernels.hpp"

namespace abft::cpu::fft {
inline namespace ABFT_TARGET_NS {

template <class C>
struct Bfly {
  using V = typename C::V;
  static inline void r2(V* a) {
    const V t = a[0] - a[1];
    a[0] = a[0] + a[1];
    a[1] = t;
  }
  // sp: sign pattern of sign * i * z (see CVec::muli)
  static inline void r4(V* a, V sp) {
    const V s02 = a[0] + a[2], d02 = a[0] - a[2];
    const V s13 = a[1] + a[3], d13 = C::muli(a[1] - a[3], sp);
    a[0] = s02 + s13;
    a[2] = s02 - s13;
    a[1] = d02 + d13;
    a[3] = d02 - d13;
  }
  template <class T>
  static inline void r8(V* a, V sp, T h) {
    V e[4] = {a[0], a[2], a[4], a[6]}, o[4] = {a[1], a[3], a[5], a[7]};
    r4(e, sp);
    r4(o, sp);
    const V hv = C::splat(h);
    o[1] = (o[1] + C::muli(o[1], sp)) * hv;
    o[2] = C::muli(o[2], sp);
    o[3] = (C::muli(o[3], sp) - o[3]) * hv;
    for (int u = 0; u < 4; ++u) {
      a[u] = e[u] + o[u];
      a[u + 4] = e[u] - o[u];
    }
  }
  template <class T>
  static inline void r3(V* a, V sp, const BflyConst<T>& k) {
    const V t1 = a[1] + a[2];
    const V t2 = a[0] + t1 * C::splat(k.c3);
    const V t3 = C::muli(a[1] - a[2], sp) * C::splat(k.s3);
    a[0] = a[0] + t1;
    a[1] = t2 + t3;
    a[2] = t2 - t3;
  }
  template <class T>
  static inline void r5(V* a, V sp, const BflyConst<T>& k) {
    const V t1 = a[1] + a[4], t2 = a[2] + a[3], t3 = a[1] - a[4], t4 = a[2] - a[3];
    const V c1 = C::splat(k.c51), c2 = C::splat(k.c52), s1 = C::splat(k.s51), s2 = C::splat(k.s52);
    const V p1 = a[0] + t1 * c1 + t2 * c2;
    const V p2 = a[0] + t1 * c2 + t2 * c1;
    const V q1 = C::muli(t3 * s1 + t4 * s2, sp);
    const V q2 = C::muli(t3 * s2 - t4 * s1, sp);
    a[0] = a[0] + t1 + t2;
    a[1] = p1 + q1;
    a[4] = p1 - q1;
    a[2] = p2 + q2;
    a[3] = p2 - q2;
  }
  /** Any odd r <= 31: pairs (t, r - t) share sums and differences. */
  template <class T>
  static inline void rgen(V* a, int r, V sp, const BflyConst<T>& k) {
    V sum[16], dif[16];
    const int h = (r - 1) / 2;
    V b0 = a[0];
    for (int t = 1; t <= h; ++t) {
      sum[t] = a[t] + a[r - t];
      dif[t] = a[t] - a[r - t];
      b0 = b0 + sum[t];
    }
    V out[32];
    for (int u = 1; u <= h; ++u) {
      V P = a[0], Q = C::zero();
      int tu = 0;
      for (int t = 1; t <= h; ++t) {
        tu += u;
        if (tu >= r) tu -= r;
        P = P + sum[t] * C::splat(k.gc[tu]);
        Q = Q + dif[t] * C::splat(k.gs[tu]);
      }
      Q = C::muli(Q, sp);
      out[u] = P + Q;
      out[r - u] = P - Q;
    }
    a[0] = b0;
    for (int u = 1; u < r; ++u) a[u] = out[u];
  }
};

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::fft
