/** \file attention_reference.hpp
 *  \brief Naive double-precision reference of abft/attention.h with the componentwise
 *  magnitudes that accuracy tolerances and escape limits are built from; the correctness
 *  tolerance; and the escape limits of the engine's checks (docs/RELIABILITY.md §9.2).
 *  One copy for the attention tests (tests/attention) and the campaign's attention adapter
 *  (src/campaign/kernel_attention.cpp), so both judge an undetected fault by one rule.
 *  Host only (std::vector): unlike the rest of abft/checksum, never compiled for a device.
 *
 *  Semantics (attention.h):
 *      S = scale * Q K^T + mask,  P = softmax_rows(S),  O = P V,  lse_i = log sum_j exp(S_ij);
 *      query head h reads kv head h / (heads / kv_heads);
 *      causal: query i may attend key j iff j <= i + kv_len - q_len;
 *      a row with no admissible key: O = 0, lse = -inf, zero gradients.
 *  Backward (FlashAttention-2 form), with O and lse given:
 *      P_ij = exp(S_ij - lse_i), dP = dO V^T, D_i = sum_c dO_ic O_ic,
 *      dS = P o (dP - D), dQ = scale dS K, dK = scale dS^T Q, dV = P^T dO,
 *  dK and dV summed over the query heads of a group.
 *
 *  Outputs are contiguous doubles: O, dQ [batch, heads, q_len, head_dim],
 *  dK, dV [batch, kv_heads, kv_len, head_dim], lse [batch, heads, q_len].
 */
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "abft/attention.h"
#include "abft/checksum/attention_bounds.hpp"

namespace abft::checksum::attn_ref {


/** Strides of a [d0, d1, d2, d3] view: the given ones, or contiguous when all four are zero. */
struct View4 {
  int64_t s[4] = {0, 0, 0, 0};
  int64_t at(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return a * s[0] + b * s[1] + c * s[2] + d * s[3];
  }
};
inline View4 resolve_strides(const int64_t given[4], int64_t d1, int64_t d2, int64_t d3) {
  View4 v;
  if (given[0] == 0 && given[1] == 0 && given[2] == 0 && given[3] == 0) {
    v.s[3] = 1;
    v.s[2] = d3;
    v.s[1] = d2 * d3;
    v.s[0] = d1 * d2 * d3;
  } else {
    for (int i = 0; i < 4; ++i) v.s[i] = given[i];
  }
  return v;
}
struct Views {
  View4 q, k, v, o, mask;
};
inline Views views(const abft_attention_desc& d) {
  Views w;
  w.q = resolve_strides(d.q_strides, d.heads, d.q_len, d.head_dim);
  w.k = resolve_strides(d.k_strides, d.kv_heads, d.kv_len, d.head_dim);
  w.v = resolve_strides(d.v_strides, d.kv_heads, d.kv_len, d.head_dim);
  w.o = resolve_strides(d.o_strides, d.heads, d.q_len, d.head_dim);
  w.mask = resolve_strides(d.mask_strides, d.heads, d.q_len, d.kv_len);
  return w;
}

inline bool causal_admits(const abft_attention_desc& d, int64_t i, int64_t j) {
  return !d.causal || j <= i + d.kv_len - d.q_len;
}

/** One row's scores in double; admissible[j] false where causal or a -inf
 *  mask entry removes key j. Reports max_j |scale| sum_c |q_c||k_jc| over the
 *  admissible keys (the magnitude of the dot products' round-off). */
template <class T>
void row_scores(const abft_attention_desc& d, const Views& w, const T* Q, const T* K,
                const T* mask, int64_t b, int64_t h, int64_t i, std::vector<double>& s,
                std::vector<char>& admissible, double* qk_mag) {
  const int64_t group = d.heads / d.kv_heads;
  const int64_t g = h / group;
  const double scale = double(d.scale);
  s.assign(size_t(d.kv_len), -std::numeric_limits<double>::infinity());
  admissible.assign(size_t(d.kv_len), 0);
  double mag = 0.0;
  for (int64_t j = 0; j < d.kv_len; ++j) {
    if (!causal_admits(d, i, j)) continue;
    double m = 0.0;
    if (mask) m = double(mask[w.mask.at(b, h, i, j)]);
    if (m == -std::numeric_limits<double>::infinity()) continue;
    double acc = 0.0, abs_acc = 0.0;
    for (int64_t c = 0; c < d.head_dim; ++c) {
      const double x = double(Q[w.q.at(b, h, i, c)]) * double(K[w.k.at(b, g, j, c)]);
      acc += x;
      abs_acc += std::fabs(x);
    }
    s[size_t(j)] = scale * acc + m;
    admissible[size_t(j)] = 1;
    mag = std::max(mag, std::fabs(scale) * abs_acc);
  }
  *qk_mag = std::max(*qk_mag, mag);
}

/** The engine's blocking (src/cpu/attention/attn_kernels.hpp kQueryBlock, kKeyBlock): queries
 *  per block and keys per tile, every ISA. The checks sum over these blocks. */
constexpr int64_t kEngineQueryBlock = 64;
constexpr int64_t kEngineKeyBlock = 96;

/** An engine's blocking as its forward checks see it: keys per score tile and the tile check's
 *  coefficient. The default is the CPU engine's (kEngineKeyBlock, register slices of 16 rows,
 *  attn_tile_coefficient); gpu() is the CUDA engine's (cuda/attention_device.cuh: key blocks of
 *  32, one sequential dot product per score, its tile check in float over the head_dim bucket it
 *  pads to: attn_float_tile_coefficient). */
struct Blocking {
  int64_t key_block = kEngineKeyBlock;
  int64_t query_block = kEngineQueryBlock;  ///< the backward's query tiles
  bool dot_tiles = false;
  static Blocking gpu() {
    Blocking b;
    b.key_block = 32;
    b.query_block = 32;
    b.dot_tiles = true;
    return b;
  }
  /** The output check's coefficient over `nkb` key blocks: each block's product is added into
   *  the accumulator once (the CPU engine; the GPU engine up to head_dim 128, kPartialMaxDim in
   *  cuda/attention_device.cuh), or every key's product straight into it (the GPU above 128). */
  double output_coefficient(int64_t nkb, int64_t head_dim) const {
    const bool direct = dot_tiles && head_dim > 128;
    return attn_output_coefficient<float>(direct ? key_block * nkb : key_block, nkb, head_dim);
  }
  double tile_coefficient(int64_t nk, int64_t head_dim) const {
    if (!dot_tiles) return attn_tile_coefficient<float>(nk, head_dim, 16);
    // The GPU forward's tile check in float, four lanes a row (SIMT products; ABFT.md §13.3).
    const int64_t dm = attn_head_dim_bucket(head_dim);
    return attn_float_tile_coefficient<float>(key_block, dm, dm, 4);
  }
  /** The tile check's absolute (underflow) term: on the GPU the SIMT path's float check (as
   *  tile_coefficient; the tensor-core path's counts 3 DM product terms, not modelled here),
   *  whose roundings over the bucket it pads to are more than the engine's nk * head_dim. */
  double tile_abs_term(int64_t nk, int64_t head_dim) const {
    if (!dot_tiles) return attn_abs_term<float>(double(nk) * double(head_dim), 0.0);
    const int64_t dm = attn_head_dim_bucket(head_dim);
    return attn_float_tile_abs_term<float>(key_block, dm, dm);
  }
};

struct Forward {
  std::vector<double> O, lse;
  /** magO(i,c) = sum_j P_ij |V_jc|: the componentwise scale of O's round-off. */
  std::vector<double> magO;
  double qk_mag = 0.0;     ///< max |scale| sum_c |Q_ic K_jc| over admissible (i, j)
  double s_max_abs = 0.0;  ///< max |S_ij| over admissible (i, j)
  double lse_max_abs = 0.0;
  /** Per query row: the largest bound of the engine's score checks over the row's key
   *  blocks (the Blocking's tile coefficient x |scale| sum_c |Q_ic| sum_{j in block} |K_jc|,
   *  blocks of its key_block keys). A score fault the check does not see moves lse by at most
   *  twice this (forward_escape_limits). */
  std::vector<double> score_bound;
  /** Per O element: score_bound_i x max_j |P_ij (V_jc - O_ic)| over admissible j, how far a
   *  score fault of one score bound moves O_ic through the softmax (dO_i/dS_ij =
   *  P_ij (V_j - O_i)); the check of P V cannot see it, the product being consistent with
   *  the probabilities it was given. */
  std::vector<double> o_score_bound;
};

inline size_t oidx(const abft_attention_desc& d, int64_t b, int64_t h, int64_t i, int64_t c) {
  return size_t(((b * d.heads + h) * d.q_len + i) * d.head_dim + c);
}
inline size_t kidx(const abft_attention_desc& d, int64_t b, int64_t g, int64_t j, int64_t c) {
  return size_t(((b * d.kv_heads + g) * d.kv_len + j) * d.head_dim + c);
}
inline size_t lidx(const abft_attention_desc& d, int64_t b, int64_t h, int64_t i) {
  return size_t((b * d.heads + h) * d.q_len + i);
}

/** Forward reference. T is float (the engine's inputs) or double (finite differences). */
template <class T>
Forward forward(const abft_attention_desc& d, const T* Q, const T* K, const T* V, const T* mask,
                const Blocking& blk = Blocking()) {
  Forward r;
  const Views w = views(d);
  const size_t nO = size_t(std::max<int64_t>(0, d.batch * d.heads * d.q_len * d.head_dim));
  r.O.assign(nO, 0.0);
  r.magO.assign(nO, 0.0);
  r.lse.assign(size_t(std::max<int64_t>(0, d.batch * d.heads * d.q_len)),
               -std::numeric_limits<double>::infinity());
  r.score_bound.assign(r.lse.size(), 0.0);
  r.o_score_bound.assign(nO, 0.0);
  if (d.kv_heads <= 0) return r;
  const int64_t group = d.heads / d.kv_heads;
  std::vector<double> s, p;
  std::vector<char> adm;
  const int64_t kb = blk.key_block, nkb = (d.kv_len + kb - 1) / kb;
  std::vector<double> kabs(size_t(std::max<int64_t>(0, nkb * d.head_dim)));
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t h = 0; h < d.heads; ++h) {
      const int64_t g = h / group;
      // Column sums of |K| per key block: the magnitude scale of the score checks.
      std::fill(kabs.begin(), kabs.end(), 0.0);
      for (int64_t j = 0; j < d.kv_len; ++j)
        for (int64_t c = 0; c < d.head_dim; ++c)
          kabs[size_t((j / kb) * d.head_dim + c)] += std::fabs(double(K[w.k.at(b, g, j, c)]));
      for (int64_t i = 0; i < d.q_len; ++i) {
        double sb = 0.0;
        for (int64_t t = 0; t < nkb; ++t) {
          const int64_t nk = std::min(kb, d.kv_len - t * kb);
          double X = 0.0;
          for (int64_t c = 0; c < d.head_dim; ++c)
            X += std::fabs(double(d.scale) * double(Q[w.q.at(b, h, i, c)])) * kabs[size_t(t * d.head_dim + c)];
          const double coef = blk.tile_coefficient(nk, d.head_dim);
          sb = std::max(sb, coef * X * (1.0 + 1e-9) + blk.tile_abs_term(nk, d.head_dim));
        }
        r.score_bound[lidx(d, b, h, i)] = sb;
        row_scores(d, w, Q, K, mask, b, h, i, s, adm, &r.qk_mag);
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < d.kv_len; ++j)
          if (adm[size_t(j)]) {
            m = std::max(m, s[size_t(j)]);
            r.s_max_abs = std::max(r.s_max_abs, std::fabs(s[size_t(j)]));
          }
        if (m == -std::numeric_limits<double>::infinity()) continue;  // no admissible key
        p.assign(size_t(d.kv_len), 0.0);
        double l = 0.0;
        for (int64_t j = 0; j < d.kv_len; ++j)
          if (adm[size_t(j)]) {
            p[size_t(j)] = std::exp(s[size_t(j)] - m);
            l += p[size_t(j)];
          }
        const double lse = m + std::log(l);
        r.lse[lidx(d, b, h, i)] = lse;
        r.lse_max_abs = std::max(r.lse_max_abs, std::fabs(lse));
        for (int64_t c = 0; c < d.head_dim; ++c) {
          double acc = 0.0, mag = 0.0;
          for (int64_t j = 0; j < d.kv_len; ++j) {
            if (!adm[size_t(j)]) continue;
            const double vv = double(V[w.v.at(b, g, j, c)]);
            acc += p[size_t(j)] * vv;
            mag += p[size_t(j)] * std::fabs(vv);
          }
          r.O[oidx(d, b, h, i, c)] = acc / l;
          r.magO[oidx(d, b, h, i, c)] = mag / l;
          double reach = 0.0;
          for (int64_t j = 0; j < d.kv_len; ++j)
            if (adm[size_t(j)])
              reach = std::max(reach, p[size_t(j)] / l * std::fabs(double(V[w.v.at(b, g, j, c)]) - acc / l));
          r.o_score_bound[oidx(d, b, h, i, c)] = r.score_bound[lidx(d, b, h, i)] * reach;
        }
      }
    }
  return r;
}

struct Backward {
  std::vector<double> dQ, dK, dV;
  /** Componentwise magnitudes: the same sums with every term made absolute
   *  (|dS| replaced by P (|dP|_mag + |D|_mag)). */
  std::vector<double> magdQ, magdK, magdV;
  double qk_mag = 0.0, s_max_abs = 0.0;
};

/** Backward reference. O and lse are contiguous doubles (the forward's, or the
 *  engine's float outputs widened: the engine's backward is a function of
 *  them); dO uses the layout of O (o_strides). */
template <class T>
Backward backward(const abft_attention_desc& d, const T* Q, const T* K, const T* V,
                  const T* mask, const double* O, const double* lse, const T* dO) {
  Backward r;
  const Views w = views(d);
  const size_t nq = size_t(std::max<int64_t>(0, d.batch * d.heads * d.q_len * d.head_dim));
  const size_t nk = size_t(std::max<int64_t>(0, d.batch * d.kv_heads * d.kv_len * d.head_dim));
  r.dQ.assign(nq, 0.0);
  r.magdQ.assign(nq, 0.0);
  r.dK.assign(nk, 0.0);
  r.dV.assign(nk, 0.0);
  r.magdK.assign(nk, 0.0);
  r.magdV.assign(nk, 0.0);
  if (d.kv_heads <= 0) return r;
  const int64_t group = d.heads / d.kv_heads;
  const double scale = double(d.scale), ascale = std::fabs(scale);
  const int64_t D = d.head_dim;
  std::vector<double> s, p, ds, mds, dov(static_cast<size_t>(D)), qv(static_cast<size_t>(D));
  std::vector<char> adm;
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t h = 0; h < d.heads; ++h) {
      const int64_t g = h / group;
      for (int64_t i = 0; i < d.q_len; ++i) {
        const double L = lse[lidx(d, b, h, i)];
        row_scores(d, w, Q, K, mask, b, h, i, s, adm, &r.qk_mag);
        if (L == -std::numeric_limits<double>::infinity()) continue;  // no admissible key
        double Di = 0.0, Dmag = 0.0;
        for (int64_t c = 0; c < D; ++c) {
          dov[size_t(c)] = double(dO[w.o.at(b, h, i, c)]);
          qv[size_t(c)] = double(Q[w.q.at(b, h, i, c)]);
          const double x = dov[size_t(c)] * O[oidx(d, b, h, i, c)];
          Di += x;
          Dmag += std::fabs(x);
        }
        p.assign(size_t(d.kv_len), 0.0);
        ds.assign(size_t(d.kv_len), 0.0);
        mds.assign(size_t(d.kv_len), 0.0);
        for (int64_t j = 0; j < d.kv_len; ++j) {
          if (!adm[size_t(j)]) continue;
          const double sj = s[size_t(j)];
          r.s_max_abs = std::max(r.s_max_abs, std::fabs(sj));
          const double pj = std::exp(sj - L);
          double dp = 0.0, dpmag = 0.0;
          for (int64_t c = 0; c < D; ++c) {
            const double x = dov[size_t(c)] * double(V[w.v.at(b, g, j, c)]);
            dp += x;
            dpmag += std::fabs(x);
          }
          p[size_t(j)] = pj;
          ds[size_t(j)] = pj * (dp - Di);
          mds[size_t(j)] = pj * (dpmag + Dmag);
        }
        for (int64_t j = 0; j < d.kv_len; ++j) {
          if (!adm[size_t(j)]) continue;
          const double pj = p[size_t(j)], dsj = ds[size_t(j)], mdsj = mds[size_t(j)];
          for (int64_t c = 0; c < D; ++c) {
            const double kv = double(K[w.k.at(b, g, j, c)]);
            r.dQ[oidx(d, b, h, i, c)] += scale * dsj * kv;
            r.magdQ[oidx(d, b, h, i, c)] += ascale * mdsj * std::fabs(kv);
            const size_t t = kidx(d, b, g, j, c);
            r.dK[t] += scale * dsj * qv[size_t(c)];
            r.magdK[t] += ascale * mdsj * std::fabs(qv[size_t(c)]);
            r.dV[t] += pj * dov[size_t(c)];
            r.magdV[t] += pj * std::fabs(dov[size_t(c)]);
          }
        }
      }
    }
  return r;
}

/** sum over the logical elements of O (layout of O) times G (contiguous):
 *  the loss whose gradient the backward computes with dO = G. */
inline double loss(const std::vector<double>& O, const std::vector<double>& G) {
  double s = 0.0;
  for (size_t t = 0; t < O.size(); ++t) s += O[t] * G[t];
  return s;
}

// ------------------------------------------------------------------ tolerances
inline double gamma_f(double n) {
  const double u = std::ldexp(1.0, -24);
  return n * u / (1.0 - n * u);
}
/** exp() of the engine: allowed error in units of float roundoff (a vectorised
 *  polynomial exp is typically within 2-4 ulp). */
constexpr double kExpUlps = 8.0;

/** Componentwise tolerance |got - ref| <= coef * mag + floor, from a
 *  first-order float error analysis valid for any summation order:
 *   - a score S_ij = scale q_i.k_j + mask carries |dS| <= gamma(d+2) |scale| sum|q||k|
 *     plus u|S|; shifting by the row max or lse and exp() add u(|S| + |lse|) and
 *     kExpUlps u: a relative error ds on each probability;
 *   - P V, P^T dO, dS K, dS^T Q sum n terms (n = kv_len, or q_len x group for
 *     dK/dV): gamma(n) relative to the sum of absolute terms (the reference's
 *     mag* arrays, which also carry |dP| + |D| for dS); dP and D add gamma(d);
 *   - the normalisation O = acc / l doubles the probability error (numerator and
 *     denominator), hence the factor 2.
 *  For O(1) random data this is ~1e-5 (d = 64, n ~ 100) to ~1e-4 (d = 256,
 *  n ~ 300) relative to the tensor's magnitude, the usual float attention
 *  accuracy (FlashAttention reports ~1e-4..1e-3 against fp64 for fp32 math with
 *  fp16 inputs). The floor covers exp() underflow / flushed denormals:
 *  n terms of at most FLT_MIN times the data. */
struct Tol {
  double coef = 0.0, floor = 0.0;
};
inline Tol tolerance(const abft_attention_desc& d, double qk_mag, double s_max_abs,
                     double lse_max_abs, double data_max) {
  const double u = std::ldexp(1.0, -24);
  const int64_t group = d.kv_heads > 0 ? d.heads / d.kv_heads : 1;
  const double n = double(std::max(d.kv_len, d.q_len * group));
  const double ds = gamma_f(double(d.head_dim) + 4.0) * qk_mag +
                    4.0 * u * (s_max_abs + lse_max_abs) + kExpUlps * u;
  Tol t;
  t.coef = 2.0 * (ds + gamma_f(n + double(d.head_dim) + 16.0));
  t.floor = 4.0 * (n + 8.0) * double(std::numeric_limits<float>::min()) * std::max(1.0, data_max);
  return t;
}

/** Largest |finite value| of v (0 when none). */
inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

// ------------------------------------------------------------------ escape limits

/** Escape limits: how far an undetected fault may move each output element from the clean
 *  run. An undetected fault may move an output element by at most `factor` (the fault
 *  matrix uses 2) times the bound of the engine's check that covers the element (GUIDE §4:
 *  an SDC from a fault larger than the bound is a bug; below it, the check cannot see it),
 *  and never by less than the round-off tolerance of the correctness tests. The bounds are
 *  the engine's own coefficients (attention_bounds.hpp) times magnitude sums from the
 *  reference over the block the check sums: forward O, a query row's sum over head_dim
 *  (attn_output_coefficient x sum_c magO); backward dV and dK, a key block's column sums
 *  (attn_accumulated_coefficient x sum over the block of magdV / magdK); dQ, a query
 *  block's column sums. The reference's dS magnitudes (P (|dP| + |D|)) are at least the
 *  engine's |dS|, so these limits are no tighter than the engine's. Sites upstream of the
 *  checked products (scores, dP, dS) reach the outputs through them and are held to the
 *  same limits.
 *  Contiguous logical order, as the reference's outputs. */
struct EscapeLimits {
  std::vector<std::vector<double>> t;  ///< forward: O, lse; backward: dQ, dK, dV
};

namespace detail {
/** Every element of a tensor: the tolerance over the tensor's largest magnitude. */
inline std::vector<double> tensor_floor(const Tol& t, const std::vector<double>& mag) {
  return std::vector<double>(mag.size(), t.coef * max_abs(mag) + t.floor);
}
/** Row checks (sum over head_dim of one row of D): raise to factor x coef x the row's sum. */
inline void raise_rows(std::vector<double>& out, const std::vector<double>& mag, int64_t D,
                       double coef, double factor) {
  const size_t d = size_t(D);
  for (size_t r = 0; r * d < mag.size(); ++r) {
    double x = 0;
    for (size_t c = 0; c < d; ++c) x += mag[r * d + c];
    for (size_t c = 0; c < d; ++c) out[r * d + c] = std::max(out[r * d + c], factor * coef * x);
  }
}
/** Column checks over blocks of `blk` rows of a [slabs, len, D] tensor: raise every element
 *  to factor x coef_of(rows of its block) x its column's sum over the block. */
template <class CoefOf>
void raise_cols(std::vector<double>& out, const std::vector<double>& mag, int64_t len, int64_t D,
                int64_t blk, double factor, CoefOf coef_of) {
  const size_t slab = size_t(len * D);
  for (size_t h = 0; slab > 0 && h * slab < mag.size(); ++h)
    for (int64_t r0 = 0; r0 < len; r0 += blk) {
      const int64_t n = std::min(blk, len - r0);
      const double coef = coef_of(n);
      for (int64_t c = 0; c < D; ++c) {
        double x = 0;
        for (int64_t r = r0; r < r0 + n; ++r) x += mag[h * slab + size_t(r * D + c)];
        for (int64_t r = r0; r < r0 + n; ++r) {
          double& o = out[h * slab + size_t(r * D + c)];
          o = std::max(o, factor * coef * x);
        }
      }
    }
}
}  // namespace detail

/** Forward limits {O, lse} from the reference forward of the call's inputs. */
inline EscapeLimits forward_escape_limits(const abft_attention_desc& d, const Forward& rf,
                                          double factor, const Blocking& blk = Blocking()) {
  const int64_t D = d.head_dim, nkb = (d.kv_len + blk.key_block - 1) / blk.key_block;
  const Tol t = tolerance(d, rf.qk_mag, rf.s_max_abs, rf.lse_max_abs, 1.0);
  EscapeLimits e;
  e.t.push_back(detail::tensor_floor(t, rf.magO));
  detail::raise_rows(e.t.back(), rf.magO, D, blk.output_coefficient(nkb, D), factor);
  // A score fault below its check's bound (|delta| <= 2 score_bound) moves O_ic by up to
  // |delta| max_j P_ij |V_jc - O_ic| to first order; 1.1 covers the second order for the
  // |delta| << 1 such bounds have. (Found by `abft campaign --kernel attn-fwd --site
  // attn_scores` on normal and wide data.)
  for (size_t k = 0; k < e.t.back().size() && k < rf.o_score_bound.size(); ++k)
    e.t.back()[k] = std::max(e.t.back()[k], factor * rf.o_score_bound[k] * 1.1);
  Tol lt = t;
  lt.floor += 2.0 * std::ldexp(1.0, -24) * rf.lse_max_abs;
  e.t.push_back(detail::tensor_floor(lt, std::vector<double>(rf.lse.size(), 1.0)));
  // lse is not checked itself: a score fault below its check's bound reaches lse through the
  // softmax, moving it by log(1 + P (e^delta - 1)), at most |delta| (to first order P |delta|),
  // and |delta| of an undetected fault is at most twice the check's bound. (Found by
  // `abft campaign --kernel attn-fwd --site attn_scores` on normal and wide data.)
  std::vector<double>& lim = e.t.back();
  for (size_t i = 0; i < lim.size() && i < rf.score_bound.size(); ++i)
    lim[i] = std::max(lim[i], factor * rf.score_bound[i] * 1.01);
  return e;
}

/** Backward limits {dQ, dK, dV} from the reference backward run on the engine's forward
 *  outputs (O and lse widened: the engine's backward is a function of them); lse_max_abs:
 *  max |lse| of those finite lse values. dQ: per (head, query block), the key blocks plus
 *  the partials' sum; dK, dV: per (kv head, key block) over every (query head of its group,
 *  query block) tile. blk: the CPU engine's blocks and coefficient, or (Blocking::gpu()) the
 *  GPU backward's 32 x 32 tiles and attn_bwd_accumulated_coefficient (cuda/attention_backward.cu,
 *  the SIMT kernels). */
inline EscapeLimits backward_escape_limits(const abft_attention_desc& d, const Backward& rb,
                                           double lse_max_abs, double factor, const Blocking& blk = Blocking()) {
  const int64_t D = d.head_dim, kQB = blk.query_block, kKB = blk.key_block;
  const int64_t nkb = (d.kv_len + kKB - 1) / kKB, nqb = (d.q_len + kQB - 1) / kQB;
  const int64_t group = d.kv_heads > 0 ? d.heads / d.kv_heads : 1;
  const Tol t = tolerance(d, rb.qk_mag, rb.s_max_abs, lse_max_abs, 1.0);
  EscapeLimits e;
  e.t = {detail::tensor_floor(t, rb.magdQ), detail::tensor_floor(t, rb.magdK),
         detail::tensor_floor(t, rb.magdV)};
  detail::raise_cols(e.t[0], rb.magdQ, d.q_len, D, kQB, factor, [&](int64_t n) {
    return blk.dot_tiles ? attn_bwd_accumulated_coefficient<float>(kKB, nkb, kQB, n)
                         : attn_accumulated_coefficient<float>(kKB, nkb + 4, kQB, n);
  });
  const int64_t chunks = group * nqb;
  for (int k = 1; k <= 2; ++k)
    detail::raise_cols(e.t[size_t(k)], k == 1 ? rb.magdK : rb.magdV, d.kv_len, D, kKB, factor, [&](int64_t n) {
      return blk.dot_tiles ? attn_bwd_accumulated_coefficient<float>(kQB, chunks, kKB, n)
                           : attn_accumulated_coefficient<float>(kQB, chunks, n, n);
    });
  return e;
}

}  // namespace abft::checksum::attn_ref
