/** \file attn_reference.hpp
 *  \brief Naive double-precision reference of abft/attention.h: strided 4-D
 *  views, grouped-query heads, bottom-right causal alignment, additive masks
 *  with -inf entries; forward (O, lse) and backward (dQ, dK, dV), with the
 *  componentwise magnitudes the tests' tolerances are built from.
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

namespace attn_ref {

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

struct Forward {
  std::vector<double> O, lse;
  /** magO(i,c) = sum_j P_ij |V_jc|: the componentwise scale of O's round-off. */
  std::vector<double> magO;
  double qk_mag = 0.0;     ///< max |scale| sum_c |Q_ic K_jc| over admissible (i, j)
  double s_max_abs = 0.0;  ///< max |S_ij| over admissible (i, j)
  double lse_max_abs = 0.0;
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
Forward forward(const abft_attention_desc& d, const T* Q, const T* K, const T* V, const T* mask) {
  Forward r;
  const Views w = views(d);
  const size_t nO = size_t(std::max<int64_t>(0, d.batch * d.heads * d.q_len * d.head_dim));
  r.O.assign(nO, 0.0);
  r.magO.assign(nO, 0.0);
  r.lse.assign(size_t(std::max<int64_t>(0, d.batch * d.heads * d.q_len)),
               -std::numeric_limits<double>::infinity());
  if (d.kv_heads <= 0) return r;
  const int64_t group = d.heads / d.kv_heads;
  std::vector<double> s, p;
  std::vector<char> adm;
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t h = 0; h < d.heads; ++h) {
      const int64_t g = h / group;
      for (int64_t i = 0; i < d.q_len; ++i) {
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

}  // namespace attn_ref
