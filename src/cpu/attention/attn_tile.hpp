/** \file attn_tile.hpp
 *  \brief ISA-generic attention kernels, instantiated per ISA with the GEMM's SIMD traits
 *  (cpu/gemm/simd_*.hpp) and the overloads of attn_simd.hpp.
 *
 *  prod is the GEMM micro-kernel's register tile (MR rows x NV vectors, one broadcast of A
 *  per row and p, FMA into MR*NV accumulators) with general strides on A, so the same tile
 *  multiplies K by the packed Q^T, V^T by P^T, P^T by dO and dS by K without copies. Its
 *  kStore epilogue adds the column sums of the stored tile to a double array from the
 *  registers it stores (the observed checksum, GUIDE rule 6).
 */
#pragma once
#include <cstdint>
#include <limits>

#include "cpu/attention/attn_kernels.hpp"
#include "cpu/attention/attn_simd.hpp"

namespace abft::cpu::attention {
inline namespace ABFT_TARGET_NS {

/** One MR x (NV*W) tile. AT: A is addressed a[i + p*a_ps] (a_rs == 1), else a[i*a_rs + p]. */
template <class S, int MR, int NV, int MODE, bool SUM, bool AT>
void prod_tile(int64_t K, const float* __restrict a, int64_t a_rs, int64_t a_ps,
               const float* __restrict b, int64_t ldb, float* __restrict c, int64_t ldc,
               const float* __restrict corr, double* __restrict colsum) {
  using V = typename S::V;
  constexpr int W = S::W;
  V acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = S::zero();
  const float* ar[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) ar[i] = AT ? a + i : a + i * a_rs;
#pragma GCC unroll 4
  for (int64_t p = 0; p < K; ++p) {
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = S::loadu(b + p * ldb + v * W);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const V ai = S::set1(AT ? ar[i][p * a_ps] : ar[i][p]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = S::fma(ai, bv[v], acc[i][v]);
    }
  }
  V cs[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) cs[v] = S::zero();
  V cr[NV];
  if (MODE == ProdArgs::kRescale)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) cr[v] = S::loadu(corr + v * W);
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float* cp = c + i * ldc + v * W;
      V out = acc[i][v];
      if (MODE == ProdArgs::kAdd) out = S::add(S::loadu(cp), out);
      if (MODE == ProdArgs::kRescale) out = S::fma(cr[v], S::loadu(cp), out);
      S::storeu(cp, out);
      if (SUM) cs[v] = S::add(cs[v], out);
    }
  if (SUM)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) S::acc_add(colsum + v * W, cs[v]);
}

template <class S, int MR, int NV, int MODE, bool SUM, bool AT>
void prod_rows(const ProdArgs& x, int64_t i0) {
  constexpr int NR = NV * S::W;
  const float* a = x.A + (AT ? i0 : i0 * x.a_rs);
  for (int64_t j = 0; j < x.N; j += NR)
    prod_tile<S, MR, NV, MODE, SUM, AT>(x.K, a, x.a_rs, x.a_ps, x.B + j, x.ldb,
                                        x.C + i0 * x.ldc + j, x.ldc, x.corr ? x.corr + j : nullptr,
                                        x.colsum ? x.colsum + j : nullptr);
}

/** Rows in MR-row tiles, the last (M % MR rows) with a smaller instantiation. Column
 *  panels outside, so one panel of B stays in L1 across the row tiles. */
template <class S, int MR, int NV, int MODE, bool SUM, bool AT>
void prod_mode(const ProdArgs& x) {
  constexpr int NR = NV * S::W;
  for (int64_t j = 0; j < x.N; j += NR) {
    ProdArgs y = x;
    y.N = NR;
    y.B = x.B + j;
    y.C = x.C + j;
    if (x.corr) y.corr = x.corr + j;
    if (x.colsum) y.colsum = x.colsum + j;
    int64_t i = 0;
    for (; i + MR <= x.M; i += MR) prod_rows<S, MR, NV, MODE, SUM, AT>(y, i);
    switch (x.M - i) {
      case 1: prod_rows<S, 1, NV, MODE, SUM, AT>(y, i); break;
      case 2: if constexpr (MR > 2) prod_rows<S, 2, NV, MODE, SUM, AT>(y, i); break;
      case 3: if constexpr (MR > 3) prod_rows<S, 3, NV, MODE, SUM, AT>(y, i); break;
      case 4: if constexpr (MR > 4) prod_rows<S, 4, NV, MODE, SUM, AT>(y, i); break;
      case 5: if constexpr (MR > 5) prod_rows<S, 5, NV, MODE, SUM, AT>(y, i); break;
      default: break;
    }
  }
}

template <class S, int MR, int NV>
void prod(const ProdArgs& x) {
  if (x.M <= 0 || x.N <= 0) return;
  if (x.K <= 0 && x.mode != ProdArgs::kStore) {
    if (x.mode == ProdArgs::kRescale)
      for (int64_t i = 0; i < x.M; ++i)
        for (int64_t j = 0; j < x.N; ++j) x.C[i * x.ldc + j] *= x.corr[j];
    return;
  }
  const bool at = x.a_rs == 1 && x.a_ps != 1;
  if (x.mode == ProdArgs::kStore) {
    if (x.colsum) {
      if (at) prod_mode<S, MR, NV, ProdArgs::kStore, true, true>(x);
      else prod_mode<S, MR, NV, ProdArgs::kStore, true, false>(x);
    } else {
      if (at) prod_mode<S, MR, NV, ProdArgs::kStore, false, true>(x);
      else prod_mode<S, MR, NV, ProdArgs::kStore, false, false>(x);
    }
  } else if (x.mode == ProdArgs::kAdd) {
    if (at) prod_mode<S, MR, NV, ProdArgs::kAdd, false, true>(x);
    else prod_mode<S, MR, NV, ProdArgs::kAdd, false, false>(x);
  } else {
    if (at) prod_mode<S, MR, NV, ProdArgs::kRescale, false, true>(x);
    else prod_mode<S, MR, NV, ProdArgs::kRescale, false, false>(x);
  }
}

/** Reference sums for a check: four column vectors at a time, two FMAs per load. */
template <class S>
void dotabs(int64_t K, int64_t N, const float* __restrict v, const float* __restrict w,
            const float* __restrict B, int64_t ldb, double* __restrict ref, double* __restrict X) {
  using V = typename S::V;
  constexpr int W = S::W;
  int64_t j = 0;
  for (; j + 4 * W <= N; j += 4 * W) {
    V r[4], x[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) r[q] = x[q] = S::zero();
    for (int64_t p = 0; p < K; ++p) {
      const V vp = S::set1(v[p]), wp = S::set1(w[p]);
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        const V b = S::loadu(B + p * ldb + j + q * W);
        r[q] = S::fma(vp, b, r[q]);
        x[q] = S::fma(wp, S::abs(b), x[q]);
      }
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      S::acc_add(ref + j + q * W, r[q]);
      S::acc_add(X + j + q * W, x[q]);
    }
  }
  for (; j < N; j += W) {
    V r = S::zero(), x = S::zero();
    for (int64_t p = 0; p < K; ++p) {
      const V b = S::loadu(B + p * ldb + j);
      r = S::fma(S::set1(v[p]), b, r);
      x = S::fma(S::set1(w[p]), S::abs(b), x);
    }
    S::acc_add(ref + j, r);
    S::acc_add(X + j, x);
  }
}

/** Lane indices 0..W-1 as floats. */
template <class S>
typename S::V lane_iota() {
  alignas(64) float t[64];
  for (int i = 0; i < S::W; ++i) t[i] = float(i);
  return S::loadu(t);
}

/** Causal mask and additive mask applied to one row (key) of an S^T tile; returns the row. */
template <class S>
typename S::V masked_score(typename S::V s, const TileGeom& g, int64_t j, int64_t c,
                           typename S::V iota) {
  using V = typename S::V;
  if (g.causal) {
    // key j0+j is visible to query i0+c+lane when j0 + j <= i0 + c + lane + off
    const V lim = S::add(iota, S::set1(float(g.i0 + c + g.off)));
    s = vsel_le(S::set1(float(g.j0 + j)), lim, s, S::set1(-std::numeric_limits<float>::infinity()));
  }
  if (g.maskT) s = S::add(s, S::loadu(g.maskT + j * g.br + c));
  return s;
}

template <class S>
bool softmax_fwd(float* __restrict st, const TileGeom& g, SoftmaxState& s, bool check) {
  using V = typename S::V;
  constexpr int W = S::W;
  const float inf = std::numeric_limits<float>::infinity();
  const V iota = lane_iota<S>();
  const bool masked = g.causal || g.maskT;
  bool ok = true;
  for (int64_t c = 0; c < g.br; c += W) {
    V mt = S::set1(-inf);
    for (int64_t j = 0; j < g.nk; ++j) {
      V x = S::loadu(st + j * g.br + c);
      if (masked) {
        x = masked_score<S>(x, g, j, c, iota);
        S::storeu(st + j * g.br + c, x);
      }
      mt = vmax(mt, x);
    }
    const V m_old = S::loadu(s.m + c);
    if (check) {
      const V m2_old = S::loadu(s.m2 + c);
      if (vany_bits_ne(m_old, m2_old)) ok = false;
      S::storeu(s.m2 + c, vmax(m2_old, mt));
    }
    const V m_new = vmax(m_old, mt);
    S::storeu(s.m + c, m_new);
    // A row with nothing admissible so far keeps m = -inf: exponentiate against 0 instead
    // (every P is then exp(-inf) = 0, and so is the rescale of the empty accumulators).
    const V m_use = vsel_eq(m_new, S::set1(-inf), S::zero(), m_new);
    const V neg = S::mul(m_use, S::set1(-1.0f));
    const V corr = vexp(S::add(m_old, neg));
    S::storeu(s.corr + c, corr);
    V rs = S::zero();
    if (check) {
      V pbits = S::zero();
      for (int64_t j = 0; j < g.nk; ++j) {
        const V p = vexp(S::add(S::loadu(st + j * g.br + c), neg));
        S::storeu(st + j * g.br + c, p);
        rs = S::add(rs, p);
        pbits = vbits_umax(pbits, p);
      }
      // Every P in [0, 1 + 8u]: exp of a value <= 0 is at most 1 (exp(0) == 1 exactly in
      // vexp). A negative or NaN P has a larger unsigned pattern than any in range.
      if (vbits_any_above(pbits, 1.0f + 4.8e-7f)) ok = false;
    } else {
      for (int64_t j = 0; j < g.nk; ++j) {
        const V p = vexp(S::add(S::loadu(st + j * g.br + c), neg));
        S::storeu(st + j * g.br + c, p);
        rs = S::add(rs, p);
      }
    }
    S::storeu(s.l + c, S::fma(S::loadu(s.l + c), corr, rs));
  }
  return ok;
}

template <class S>
void resum(const float* __restrict pt, int64_t nk, int64_t br, const float* __restrict corr,
           float* __restrict l2) {
  using V = typename S::V;
  constexpr int W = S::W;
  for (int64_t c = 0; c < br; c += W) {
    V rs = S::zero();
    for (int64_t j = 0; j < nk; ++j) rs = S::add(rs, S::loadu(pt + j * br + c));
    S::storeu(l2 + c, corr ? S::fma(S::loadu(l2 + c), S::loadu(corr + c), rs) : rs);
  }
}

template <class S>
bool probs_bwd(float* __restrict st, const TileGeom& g, const float* __restrict lse,
               float* __restrict psum, bool check) {
  using V = typename S::V;
  constexpr int W = S::W;
  const float inf = std::numeric_limits<float>::infinity();
  const V iota = lane_iota<S>();
  const bool masked = g.causal || g.maskT;
  bool ok = true;
  for (int64_t c = 0; c < g.br; c += W) {
    const V l = S::loadu(lse + c);
    // lse = -inf (no admissible key): subtract +inf so that every P is 0.
    const V neg = S::mul(vsel_eq(l, S::set1(-inf), S::set1(inf), l), S::set1(-1.0f));
    V rs = S::zero(), pbits = S::zero();
    for (int64_t j = 0; j < g.nk; ++j) {
      V x = S::loadu(st + j * g.br + c);
      if (masked) x = masked_score<S>(x, g, j, c, iota);
      const V p = vexp(S::add(x, neg));
      S::storeu(st + j * g.br + c, p);
      rs = S::add(rs, p);
      if (check) pbits = vbits_umax(pbits, p);
    }
    S::storeu(psum + c, rs);
    // Every P finite and >= 0 (patterns above FLT_MAX's: negative, Inf, NaN).
    if (check && vbits_any_above(pbits, std::numeric_limits<float>::max())) ok = false;
  }
  return ok;
}

template <class S>
bool dscore(const float* __restrict pt, float* __restrict dpt, int64_t nk, int64_t br,
            const float* __restrict D, float* __restrict qsum, float* __restrict qabs,
            float* __restrict ksum, float* __restrict kabs, bool check) {
  using V = typename S::V;
  constexpr int W = S::W;
  if (check)
    for (int64_t c = 0; c < br; ++c) qsum[c] = qabs[c] = 0.0f;
  V bad = S::zero();
  for (int64_t j = 0; j < nk; ++j) {
    V ka = S::zero(), kb = S::zero();
    for (int64_t c = 0; c < br; c += W) {
      const V ds = S::mul(S::loadu(pt + j * br + c),
                          S::add(S::loadu(dpt + j * br + c), S::mul(S::loadu(D + c), S::set1(-1.0f))));
      S::storeu(dpt + j * br + c, ds);
      if (check) {
        const V a = S::abs(ds);
        S::storeu(qsum + c, S::add(S::loadu(qsum + c), ds));
        S::storeu(qabs + c, S::add(S::loadu(qabs + c), a));
        ka = S::add(ka, ds);
        kb = S::add(kb, a);
      }
    }
    if (check) {
      ksum[j] = vhsum(ka);
      kabs[j] = vhsum(kb);
      bad = S::add(bad, S::mul(kb, S::zero()));  // NaN or Inf anywhere -> NaN
    }
  }
  return !check || !vany_ne(bad, S::zero());
}

template <class S, int MR, int NV>
AttnKernels make_attn_kernels(abft_isa isa, const char* desc) {
  return AttnKernels{isa,           MR,           NV * S::W,        &prod<S, MR, NV>,
                     &dotabs<S>,    &softmax_fwd<S>, &resum<S>,     &probs_bwd<S>,
                     &dscore<S>,    desc};
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::attention
