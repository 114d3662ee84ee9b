/** \file cmd_demo_attention.cpp
 *  \brief The attention part of `abft demo`: protected forward and backward calls with faults
 *  injected through the handle's built-in injector at every attention site, each run compared
 *  bit for bit with a clean run of the same call.
 *
 *  Every case (grouped-query heads, causal and not, a decode step q_len = 1 against a KV
 *  cache, an additive key-padding mask) is first run with policy off and no faults: the
 *  forward gives O and lse, the backward (on that O and lse and a random dO) gives dQ, dK,
 *  dV. Each scenario then repeats one call under policy correct with the scenario's faults:
 *  forward at SCORES, PROBS, ROWSTAT, the output accumulator and the stored output; backward
 *  at SCORES, PROBS, dP, dS and the dQ, dK, dV accumulators (docs/ABFT.md §10.5), with high
 *  exponent and mid-mantissa bit flips, NaN, +-Inf and random values.
 *
 *  OK: every output equals the clean run bit for bit. A repair recomputes the query block
 *  (forward) or the task (backward) with the same arithmetic, so this is what a detected
 *  fault must give, and what a run without faults must give.
 *
 *  MASKED: a fault whose effect stays below the check that guards it goes undetected by
 *  design (GUIDE §4). Such a run is accepted when the call succeeded, fewer units were
 *  flagged than faults landed (at least one fault escaped; with one fault: nothing was
 *  flagged) and every output element lies within its tolerance: twice the bound of the check
 *  that guards the element (the residual of the clean data may use up the other half), plus,
 *  for each landed fault at a site upstream of that check, the most an escape there can move
 *  the element. The bounds are those of include/abft/checksum/attention_bounds.hpp with the
 *  magnitudes X formed exactly (double) from the clean data, for the blocking the engine
 *  reports (abft_attention_kernel_info: B_r queries, B_c keys, MR-row tiles) and the largest
 *  block count and chunk count it may use:
 *    O_ic     2 (c_out X_i + abs),  X_i = sum_j P_ij sum_c |V_jc| <= max_j sum_c |V_jc|,
 *             c_out = attn_output_coefficient(B_c, ceil(kv_len/B_c), D): the output check,
 *             which guards the output accumulator and the stored output. A normaliser
 *             escape of the l' check moves O_i by at most 2 c_norm |O_ic| (c_norm <= c_out,
 *             |O_ic| <= X_i); a probability escape, at most 2 c_norm |V_jc| (added for its
 *             row, as X_i need not reach |V_jc|);
 *    lse_i    2 (c_norm + 2u (|lse_i| + 1)), c_norm = attn_normalizer_coefficient;
 *    dV_jc    2 (c_acc X^V_tc + abs), X^V_tc = sum over the group's heads and queries of
 *             (sum_{j' in block t} P_ij') |dO_ic|, c_acc = attn_accumulated_coefficient(B_r,
 *             G ceil(q_len/B_r), B_c, B_c);
 *    dK_jc    2 (c_acc |s| X^K_tc + abs (|s|+1)), X^K_tc = sum (sum_{j' in t} |dS_ij'|) |Q_ic|;
 *    dQ_ic    2 |s| (c_dq X^Q_bc + abs), X^Q_bc = sum_j (sum_{i' in query block b} |dS_i'j|)
 *             |K_jc|, c_dq = attn_accumulated_coefficient(B_c, 2 ceil(kv_len/B_c), B_r, B_r).
 *  Faults upstream of these checks, at the fault's (query i, key j), P, dP, D from clean data:
 *    SCORES   an escape of the tile check moves S_ij by |d| <= 2 (c_tile X + abs), X =
 *             (e^T|K_t|) |sQ_i| (attn_tile_coefficient); P_ij changes by at most
 *             e = P_ij expm1(|d|): forward O_i by e (|V_jc| + |O_ic|) and lse_i by e;
 *             backward dV_j by e |dO_ic|, dK_j by |s| e |dP_ij - D_i| |Q_ic|, dQ_i by
 *             |s| e |dP_ij - D_i| |K_jc|;
 *    PROBS    (backward) only the dV check sees it: |dP| <= min_c tol(dV_jc) / |dO_ic|, and it
 *             moves dK_j and dQ_i as above with e = that |dP|;
 *    dP       the dP tile check (X = (e^T|V_t|) |dO_i|) bounds |d|; dS_ij moves by P_ij |d|,
 *             dK_j by |s| P_ij |d| |Q_ic|, dQ_i by |s| P_ij |d| |K_jc|.
 *  dS, dQ, dK, dV, OUTPUT, the output accumulator and ROWSTAT faults are guarded by the
 *  elements' own checks (the running maximum exactly, by its duplicate). Anything else is a
 *  MISMATCH (as is a failed call, or an element the call did not write), and a detection in
 *  a run without faults is a FALSE-ALARM.
 *
 *  Fault coordinates are the injector's random draws, except in causal cases, where the demo
 *  draws them inside the causal band (aim()): drawn over the whole range, about half of them
 *  would target work that causality skips, and would not land.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "abft/attention.h"
#include "abft/checksum/attention_bounds.hpp"
#include "commands.hpp"
#include "demo_table.hpp"

namespace abft::cli {
namespace {

namespace ck = abft::checksum;
constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();

/** One attention call shape of the demo. */
struct AttnCase {
  int64_t batch, heads, kv_heads, q_len, kv_len, head_dim;
  bool causal, mask;
};

std::vector<AttnCase> attn_cases(bool quick) {
  if (quick)
    return {{1, 4, 2, 128, 128, 64, false, false},
            {2, 4, 2, 256, 256, 128, true, false},
            {1, 8, 2, 1, 512, 128, true, false},  // decode: one query against a KV cache
            {2, 4, 4, 160, 200, 64, false, true}};
  return {{1, 8, 2, 512, 512, 64, false, false},
          {2, 8, 2, 1024, 1024, 128, true, false},
          {1, 4, 2, 1024, 1024, 128, false, false},
          {1, 8, 2, 300, 700, 64, true, false},  // chunked prefill: partial blocks, offset
          {2, 8, 2, 1, 512, 128, true, false},   // decode
          {2, 4, 4, 512, 512, 64, false, true},
          {1, 4, 1, 384, 384, 128, true, true}};  // multi-query, causal and a mask
}

std::string case_text(const AttnCase& c) {
  std::string s;
  if (c.batch > 1) s += "b" + std::to_string(c.batch) + " ";
  s += "h" + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " ";
  if (c.q_len == c.kv_len)
    s += "s" + std::to_string(c.q_len);
  else
    s += "q" + std::to_string(c.q_len) + " k" + std::to_string(c.kv_len);
  s += " d" + std::to_string(c.head_dim);
  if (c.causal) s += " causal";
  if (c.mask) s += " mask";
  return s;
}

/** Float top exponent bit, a low exponent bit (x 2^+-16) and a mid-mantissa bit (2^-8). */
constexpr int kHi = 30, kExp = 27, kMid = 15;

/** The full sets: one scenario per model at site s (high, exponent and mid bit flips, NaN,
 *  +Inf, a random value). */
void add_site_models(std::vector<std::vector<abft_fault>>& sets, abft_site s) {
  for (const abft_fault& f :
       {fault_spec(s, ABFT_FAULT_BITFLIP, kHi), fault_spec(s, ABFT_FAULT_BITFLIP, kExp),
        fault_spec(s, ABFT_FAULT_BITFLIP, kMid), fault_spec(s, ABFT_FAULT_NAN, -1),
        fault_spec(s, ABFT_FAULT_POS_INF, -1), fault_spec(s, ABFT_FAULT_RANDOM, -1)})
    sets.push_back({f});
}

std::vector<Scenario> forward_scenarios(bool quick) {
  auto spec = [](abft_site s, abft_fault_model m, int bit = -1) { return fault_spec(s, m, bit); };
  if (quick)
    return label_scenarios({
        {},
        {spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_BITFLIP, kMid)},
        {spec(ABFT_SITE_ATTN_PROBS, ABFT_FAULT_NAN)},
        {spec(ABFT_SITE_ATTN_PROBS, ABFT_FAULT_BITFLIP, kExp)},
        {spec(ABFT_SITE_ATTN_ROWSTAT, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_ATTN_ROWSTAT, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_ATTN_ACC, ABFT_FAULT_POS_INF)},
        {spec(ABFT_SITE_ATTN_ACC, ABFT_FAULT_BITFLIP, kMid)},
        {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF), spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_NAN)},
    });
  std::vector<std::vector<abft_fault>> sets{{}};
  for (abft_site s : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_ROWSTAT,
                      ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT})
    add_site_models(sets, s);
  sets.push_back(
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF), spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_NAN)});
  sets.push_back({spec(ABFT_SITE_ATTN_ACC, ABFT_FAULT_BITFLIP, kMid),
                  spec(ABFT_SITE_ATTN_PROBS, ABFT_FAULT_BITFLIP, kHi)});
  return label_scenarios(sets);
}

std::vector<Scenario> backward_scenarios(bool quick) {
  auto spec = [](abft_site s, abft_fault_model m, int bit = -1) { return fault_spec(s, m, bit); };
  if (quick)
    return label_scenarios({
        {},
        {spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_ATTN_PROBS, ABFT_FAULT_BITFLIP, kMid)},
        {spec(ABFT_SITE_ATTN_PROBS, ABFT_FAULT_NAN)},
        {spec(ABFT_SITE_ATTN_DP, ABFT_FAULT_BITFLIP, kExp)},
        {spec(ABFT_SITE_ATTN_DP, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_ATTN_DS, ABFT_FAULT_POS_INF)},
        {spec(ABFT_SITE_ATTN_DS, ABFT_FAULT_BITFLIP, kMid)},
        {spec(ABFT_SITE_ATTN_DQ, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_ATTN_DQ, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_ATTN_DK, ABFT_FAULT_NAN)},
        {spec(ABFT_SITE_ATTN_DK, ABFT_FAULT_BITFLIP, kMid)},
        {spec(ABFT_SITE_ATTN_DV, ABFT_FAULT_BITFLIP, kHi)},
        {spec(ABFT_SITE_ATTN_DV, ABFT_FAULT_RANDOM)},
        {spec(ABFT_SITE_ATTN_DV, ABFT_FAULT_NEG_INF),
         spec(ABFT_SITE_ATTN_DS, ABFT_FAULT_BITFLIP, kHi)},
    });
  std::vector<std::vector<abft_fault>> sets{{}};
  for (abft_site s : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DP,
                      ABFT_SITE_ATTN_DS, ABFT_SITE_ATTN_DQ, ABFT_SITE_ATTN_DK, ABFT_SITE_ATTN_DV})
    add_site_models(sets, s);
  sets.push_back({spec(ABFT_SITE_ATTN_DV, ABFT_FAULT_NEG_INF),
                  spec(ABFT_SITE_ATTN_DS, ABFT_FAULT_BITFLIP, kHi)});
  sets.push_back({spec(ABFT_SITE_ATTN_DQ, ABFT_FAULT_BITFLIP, kMid),
                  spec(ABFT_SITE_ATTN_SCORES, ABFT_FAULT_BITFLIP, kMid)});
  return label_scenarios(sets);
}

/** The engine's blocking, from abft_attention_kernel_info() ("... q-block 64 kv-block 96,
 *  tile 6x16"). Without it: one block spanning each sequence and MR = 16, no smaller than
 *  any blocking (every coefficient and every X grows with the block). */
struct Blocking {
  int64_t br = 0, bc = 0, mr = 16;
};

Blocking engine_blocking(const AttnCase& c) {
  Blocking k;
  const std::string info = abft_attention_kernel_info();
  auto number_after = [&](const char* key) -> int64_t {
    const size_t at = info.find(key);
    return at == std::string::npos ? 0 : std::atoll(info.c_str() + at + std::strlen(key));
  };
  k.br = number_after("q-block ");
  k.bc = number_after("kv-block ");
  k.mr = number_after("tile ");
  if (k.br <= 0 || k.bc <= 0 || k.mr <= 0) {
    k.br = std::max<int64_t>(c.q_len, 1);
    k.bc = std::max<int64_t>(c.kv_len, 1);
    k.mr = 16;
  }
  return k;
}

/** A case's data, contiguous [batch, heads, seq, head_dim], and its clean outputs. */
struct AttnData {
  AttnCase c;
  abft_attention_desc d;
  int64_t G;
  std::vector<float> q, k, v, mask, dout;  // inputs; mask [batch, q_len, kv_len], for every head
  std::vector<float> o, lse, dq, dk, dv;   // clean outputs

  size_t qat(int64_t b, int64_t h, int64_t i) const {
    return size_t(((b * c.heads + h) * c.q_len + i) * c.head_dim);
  }
  size_t kat(int64_t b, int64_t hk, int64_t j) const {
    return size_t(((b * c.kv_heads + hk) * c.kv_len + j) * c.head_dim);
  }
  const float* qrow(int64_t b, int64_t h, int64_t i) const { return &q[qat(b, h, i)]; }
  const float* orow(int64_t b, int64_t h, int64_t i) const { return &o[qat(b, h, i)]; }
  const float* dorow(int64_t b, int64_t h, int64_t i) const { return &dout[qat(b, h, i)]; }
  const float* krow(int64_t b, int64_t hk, int64_t j) const { return &k[kat(b, hk, j)]; }
  const float* vrow(int64_t b, int64_t hk, int64_t j) const { return &v[kat(b, hk, j)]; }
  /** The additive mask and the causal rule together: -inf for a key query i may not see. */
  double bias(int64_t b, int64_t i, int64_t j) const {
    if (c.causal && j > i + c.kv_len - c.q_len) return -kInfD;
    return mask.empty() ? 0.0 : double(mask[size_t((b * c.q_len + i) * c.kv_len + j)]);
  }
};

double dot(const float* a, const float* b, int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += double(a[i]) * double(b[i]);
    s1 += double(a[i + 1]) * double(b[i + 1]);
    s2 += double(a[i + 2]) * double(b[i + 2]);
    s3 += double(a[i + 3]) * double(b[i + 3]);
  }
  for (; i < n; ++i) s0 += double(a[i]) * double(b[i]);
  return (s0 + s1) + (s2 + s3);
}

/** The tolerances of a case (file comment): base tolerance per element group, and what the
 *  fault terms need (lse in double). */
struct Tolerances {
  std::vector<double> o_row, lse_row;  // [B*H*Lq]
  std::vector<double> dv, dk;          // [B*HK*nkb*D] per (kv head, key block, column)
  std::vector<double> dq;              // [B*H*nqb*D] per (head, query block, column)
  std::vector<double> lse_d;           // [B*H*Lq] exact log-sum-exp
};

/** One pass over every (query, key) pair in double: P, dP, dS and the magnitudes of the
 *  engine's checks, for the clean data. */
Tolerances make_tolerances(const AttnData& A, const Blocking& k) {
  const AttnCase& c = A.c;
  const int64_t D = c.head_dim, Lq = c.q_len, Lk = c.kv_len, H = c.heads, HK = c.kv_heads;
  const int64_t nkb = (Lk + k.bc - 1) / k.bc, nqb = (Lq + k.br - 1) / k.br;
  const double s = double(A.d.scale), sabs = std::fabs(s), u = ck::unit_roundoff<float>();
  Tolerances T;
  T.o_row.assign(size_t(c.batch * H * Lq), 0.0);
  T.lse_row.assign(T.o_row.size(), 0.0);
  T.lse_d.assign(T.o_row.size(), -kInfD);
  T.dv.assign(size_t(c.batch * HK * nkb * D), 0.0);
  T.dk.assign(T.dv.size(), 0.0);
  T.dq.assign(size_t(c.batch * H * nqb * D), 0.0);

  const double c_out = ck::attn_output_coefficient<float>(k.bc, nkb, D);
  const double abs_out = ck::attn_abs_term<float>(double(Lk + D), 0.0);
  const double c_norm = ck::attn_normalizer_coefficient<float>(k.bc, nkb);
  const int64_t chunks = A.G * nqb;
  const double c_acc = ck::attn_accumulated_coefficient<float>(k.br, chunks, k.bc, k.bc);
  const double abs_acc = ck::attn_abs_term<float>(double(chunks * k.br + k.bc), 1.0);
  const double c_dq = ck::attn_accumulated_coefficient<float>(k.bc, 2 * nkb, k.br, k.br);
  const double abs_dq = ck::attn_abs_term<float>(double(nkb * k.bc + k.br), 1.0);

  const size_t nkeys = static_cast<size_t>(Lk), nblk = static_cast<size_t>(nkb);
  std::vector<double> sc(nkeys), kabs(nkeys), vabs(nkeys), psum(nblk), qabs(nblk);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t hk = 0; hk < HK; ++hk) {
      for (int64_t j = 0; j < Lk; ++j) {
        double a = 0;
        for (int64_t x = 0; x < D; ++x) a += std::fabs(double(A.vrow(b, hk, j)[x]));
        vabs[size_t(j)] = a;
      }
      double* XV = &T.dv[size_t((b * HK + hk) * nkb * D)];
      double* XK = &T.dk[size_t((b * HK + hk) * nkb * D)];
      for (int64_t g = 0; g < A.G; ++g) {
        const int64_t h = hk * A.G + g, bh = b * H + h;
        std::fill(kabs.begin(), kabs.end(), 0.0);
        for (int64_t i = 0; i < Lq; ++i) {
          const float* qi = A.qrow(b, h, i);
          const float* di = A.dorow(b, h, i);
          double mx = -kInfD;
          for (int64_t j = 0; j < Lk; ++j) {
            const double bias = A.bias(b, i, j);
            sc[size_t(j)] = bias == -kInfD ? -kInfD : s * dot(qi, A.krow(b, hk, j), D) + bias;
            mx = std::max(mx, sc[size_t(j)]);
          }
          const size_t row = size_t(bh * Lq + i);
          std::fill(psum.begin(), psum.end(), 0.0);
          std::fill(qabs.begin(), qabs.end(), 0.0);
          if (mx > -kInfD) {
            double sum = 0;
            for (int64_t j = 0; j < Lk; ++j) sum += std::exp(sc[size_t(j)] - mx);
            const double lse = mx + std::log(sum);
            T.lse_d[row] = lse;
            const double Di = dot(di, A.orow(b, h, i), D);
            double xo = 0;
            for (int64_t j = 0; j < Lk; ++j) {
              const double pj = std::exp(sc[size_t(j)] - lse);
              xo += pj * vabs[size_t(j)];
              const double dsj = pj > 0 ? std::fabs(pj * (dot(di, A.vrow(b, hk, j), D) - Di)) : 0.0;
              psum[size_t(j / k.bc)] += pj;
              qabs[size_t(j / k.bc)] += dsj;
              kabs[size_t(j)] += dsj;
            }
            T.o_row[row] = 2.0 * (c_out * xo + abs_out);
            T.lse_row[row] = 2.0 * (c_norm + 2.0 * u * (std::fabs(lse) + 1.0));
          }
          for (int64_t t = 0; t < nkb; ++t)
            for (int64_t x = 0; x < D; ++x) {
              XV[t * D + x] += psum[size_t(t)] * std::fabs(double(di[x]));
              XK[t * D + x] += qabs[size_t(t)] * std::fabs(double(qi[x]));
            }
          // The end of a query block: its dQ magnitudes sum_j kabs_j |K_jc|.
          if ((i + 1) % k.br == 0 || i + 1 == Lq) {
            double* XQ = &T.dq[size_t((bh * nqb + i / k.br) * D)];
            for (int64_t j = 0; j < Lk; ++j) {
              if (kabs[size_t(j)] == 0.0) continue;
              const float* kj = A.krow(b, hk, j);
              for (int64_t x = 0; x < D; ++x) XQ[x] += kabs[size_t(j)] * std::fabs(double(kj[x]));
            }
            for (int64_t x = 0; x < D; ++x) XQ[x] = 2.0 * sabs * (c_dq * XQ[x] + abs_dq);
            std::fill(kabs.begin(), kabs.end(), 0.0);
          }
        }
      }
      for (int64_t x = 0; x < nkb * D; ++x) {
        XV[x] = 2.0 * (c_acc * XV[x] + abs_acc);
        XK[x] = 2.0 * (c_acc * sabs * XK[x] + abs_acc * (sabs + 1.0));
      }
    }
  return T;
}

/** A fault's (b, h, kv head, query i, key j) for the sites indexed by query and key. */
struct Coord {
  int64_t b, h, hk, i, j;
};

Coord query_key(const AttnData& A, const abft_fault& f) {
  const int64_t bh = f.row / A.c.q_len;
  Coord x;
  x.b = bh / A.c.heads;
  x.h = bh % A.c.heads;
  x.hk = x.h / A.G;
  x.i = f.row % A.c.q_len;
  x.j = f.col;
  return x;
}

/** Clean P_ij from the exact lse. */
double prob(const AttnData& A, const Tolerances& T, const Coord& x) {
  const double bias = A.bias(x.b, x.i, x.j);
  const double lse = T.lse_d[size_t((x.b * A.c.heads + x.h) * A.c.q_len + x.i)];
  if (bias == -kInfD || lse == -kInfD) return 0.0;
  const double s =
      double(A.d.scale) * dot(A.qrow(x.b, x.h, x.i), A.krow(x.b, x.hk, x.j), A.c.head_dim);
  return std::exp(s + bias - lse);
}

/** 2 x the tile-check bound of row i of the key block holding j, for S (K and sQ) or for dP
 *  (V and dO): the largest change an escape of that check leaves in one element. */
double tile_escape(const AttnData& A, const Blocking& k, const Coord& x, bool dp) {
  const int64_t D = A.c.head_dim, j0 = x.j / k.bc * k.bc, nk = std::min(k.bc, A.c.kv_len - j0);
  const float* lane = dp ? A.dorow(x.b, x.h, x.i) : A.qrow(x.b, x.h, x.i);
  const double s = dp ? 1.0 : std::fabs(double(A.d.scale));
  double X = 0;
  for (int64_t c = 0; c < D; ++c) {
    double col = 0;
    for (int64_t j = j0; j < j0 + nk; ++j)
      col += std::fabs(double((dp ? A.vrow(x.b, x.hk, j) : A.krow(x.b, x.hk, j))[c]));
    X += col * s * std::fabs(double(lane[c]));
  }
  return 2.0 * (ck::attn_tile_coefficient<float>(nk, D, k.mr) * X +
                ck::attn_abs_term<float>(double(nk * D), 0.0));
}

/** Extra tolerance per output row (head_dim values) from landed upstream faults. */
struct Extra {
  std::map<int64_t, std::vector<double>> o, dq, dk, dv;
  std::map<int64_t, double> lse;
};

void add_row(std::map<int64_t, std::vector<double>>& m, int64_t row, int64_t D,
             const std::vector<double>& add) {
  std::vector<double>& r = m[row];
  if (r.empty()) r.assign(size_t(D), 0.0);
  for (int64_t c = 0; c < D; ++c) r[size_t(c)] += add[size_t(c)];
}

Extra fault_terms(const AttnData& A, const Tolerances& T, const Blocking& k,
                  const InjectedFaults& inj, bool backward) {
  Extra e;
  const int64_t D = A.c.head_dim, Lq = A.c.q_len, Lk = A.c.kv_len;
  const double s = std::fabs(double(A.d.scale));
  std::vector<double> add(static_cast<size_t>(D));
  for (int n = 0; n < inj.count; ++n) {
    const abft_fault& f = inj.got[n];
    if (!f.applied) continue;
    const bool sc = f.site == ABFT_SITE_ATTN_SCORES, pr = f.site == ABFT_SITE_ATTN_PROBS,
               dp = f.site == ABFT_SITE_ATTN_DP;
    if (!sc && !pr && !(dp && backward)) continue;
    const Coord x = query_key(A, f);
    const double P = prob(A, T, x);
    const int64_t qrow_i = (x.b * A.c.heads + x.h) * Lq + x.i;
    const int64_t krow_j = (x.b * A.c.kv_heads + x.hk) * Lk + x.j;
    const float* vj = A.vrow(x.b, x.hk, x.j);
    const float* kj = A.krow(x.b, x.hk, x.j);
    if (!backward) {
      if (sc) {
        const double d = P * std::expm1(tile_escape(A, k, x, false));
        const float* oi = A.orow(x.b, x.h, x.i);
        for (int64_t c = 0; c < D; ++c)
          add[size_t(c)] = d * (std::fabs(double(vj[c])) + std::fabs(double(oi[c])));
        add_row(e.o, qrow_i, D, add);
        e.lse[qrow_i] += d;
      } else {
        const int64_t nkb = (Lk + k.bc - 1) / k.bc;
        const double cn = 2.0 * ck::attn_normalizer_coefficient<float>(k.bc, nkb);
        for (int64_t c = 0; c < D; ++c) add[size_t(c)] = cn * std::fabs(double(vj[c]));
        add_row(e.o, qrow_i, D, add);
      }
      continue;
    }
    const float* di = A.dorow(x.b, x.h, x.i);
    const float* qi = A.qrow(x.b, x.h, x.i);
    const double dP = dot(di, vj, D), Di = dot(di, A.orow(x.b, x.h, x.i), D);
    // Largest undetected change of dS_ij.
    double dds = 0;
    if (sc) {
      const double dprob = P * std::expm1(tile_escape(A, k, x, false));
      for (int64_t c = 0; c < D; ++c) add[size_t(c)] = dprob * std::fabs(double(di[c]));
      add_row(e.dv, krow_j, D, add);
      dds = dprob * std::fabs(dP - Di);
    } else if (pr) {
      const int64_t nkb = (Lk + k.bc - 1) / k.bc;
      const double* tv = &T.dv[size_t(((x.b * A.c.kv_heads + x.hk) * nkb + x.j / k.bc) * D)];
      double dprob = kInfD;
      for (int64_t c = 0; c < D; ++c)
        if (di[c] != 0.0f) dprob = std::min(dprob, tv[c] / std::fabs(double(di[c])));
      dds = dprob * std::fabs(dP - Di);
    } else {
      dds = P * tile_escape(A, k, x, true);
    }
    for (int64_t c = 0; c < D; ++c) add[size_t(c)] = s * dds * std::fabs(double(qi[c]));
    add_row(e.dk, krow_j, D, add);
    for (int64_t c = 0; c < D; ++c) add[size_t(c)] = s * dds * std::fabs(double(kj[c]));
    add_row(e.dq, qrow_i, D, add);
  }
  return e;
}

/** Comparison of one output tensor with its clean run. */
struct Cmp {
  bool bitwise = true;
  bool in_bound = true;
  double max_rel = 0;
};

/** `tol(row, c)` is the tolerance of element c of a row of `width` values. */
template <class Tol>
void compare(const std::vector<float>& y, const std::vector<float>& ref, int64_t width, Tol&& tol,
             Cmp& out) {
  if (std::memcmp(y.data(), ref.data(), y.size() * sizeof(float)) == 0) return;
  out.bitwise = false;
  double max_ref = 0, max_diff = 0;
  for (size_t n = 0; n < y.size(); ++n) {
    const double r = ref[n], g = y[n];
    if (std::isfinite(r)) max_ref = std::max(max_ref, std::fabs(r));
    double d;
    if (!std::isfinite(r))
      d = std::memcmp(&y[n], &ref[n], sizeof(float)) == 0 ? 0.0 : kInfD;
    else
      d = std::isfinite(g) ? std::fabs(g - r) : kInfD;
    max_diff = std::max(max_diff, d);
    if (!(d <= tol(int64_t(n) / width, int64_t(n) % width))) out.in_bound = false;
  }
  out.max_rel = std::max(out.max_rel, max_ref > 0 ? max_diff / max_ref : max_diff);
}

double extra_at(const std::map<int64_t, std::vector<double>>& m, int64_t row, int64_t c) {
  const auto it = m.find(row);
  return it == m.end() ? 0.0 : it->second[size_t(c)];
}

void fill_uniform(std::vector<float>& v, size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  v.resize(n);
  for (float& x : v) x = float(d(rng));
}

/** Data and clean outputs of a case; the status of the first clean run that fails. */
Status prepare(const AttnCase& c, Handle& prot, Injector& inj, std::mt19937_64& rng, AttnData& A) {
  A.c = c;
  A.G = c.heads / c.kv_heads;
  abft_attention_desc_init(&A.d, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim);
  A.d.causal = c.causal ? 1 : 0;
  const size_t nq = size_t(c.batch * c.heads * c.q_len * c.head_dim);
  const size_t nk = size_t(c.batch * c.kv_heads * c.kv_len * c.head_dim);
  fill_uniform(A.q, nq, rng);
  fill_uniform(A.k, nk, rng);
  fill_uniform(A.v, nk, rng);
  fill_uniform(A.dout, nq, rng);
  if (c.mask) {
    // Per batch: a random additive bias in [-2, 0] and the last (b+1)/8 of the keys padded
    // out (-inf); one [q_len, kv_len] matrix per batch, broadcast over the heads.
    std::uniform_real_distribution<double> bias(-2.0, 0.0);
    A.mask.resize(size_t(c.batch * c.q_len * c.kv_len));
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t pad = (b + 1) * c.kv_len / 8;
      for (int64_t i = 0; i < c.q_len; ++i)
        for (int64_t j = 0; j < c.kv_len; ++j)
          A.mask[size_t((b * c.q_len + i) * c.kv_len + j)] =
              j >= c.kv_len - pad ? -kInfF : float(bias(rng));
    }
    const int64_t ms[4] = {c.q_len * c.kv_len, 0, c.kv_len, 1};
    std::memcpy(A.d.mask_strides, ms, sizeof ms);
  }
  // The clean runs: policy off, no faults; outputs start at zero so that an element the
  // protected run leaves unwritten (NaN there) cannot pass.
  inj.clear();
  A.o.assign(nq, 0.0f);
  A.lse.assign(size_t(c.batch * c.heads * c.q_len), 0.0f);
  const float* mask = A.mask.empty() ? nullptr : A.mask.data();
  const Status st = abft_attention_forward(prot.get(), ABFT_POLICY_OFF, &A.d, A.q.data(),
                                           A.k.data(), A.v.data(), mask, A.o.data(), A.lse.data(),
                                           nullptr);
  if (st != ABFT_STATUS_SUCCESS) return st;
  A.dq.assign(nq, 0.0f);
  A.dk.assign(nk, 0.0f);
  A.dv.assign(nk, 0.0f);
  return abft_attention_backward(prot.get(), ABFT_POLICY_OFF, &A.d, A.q.data(), A.k.data(),
                                 A.v.data(), mask, A.o.data(), A.dout.data(), A.lse.data(),
                                 A.dq.data(), A.dk.data(), A.dv.data(), nullptr);
}

/** A fault spec aimed inside the causal band: a key the query sees, an accumulation step the
 *  engine runs (for dK/dV a query block that reaches the key). Drawn from the whole range, as
 *  the injector does, half the faults of a causal case would target work that causality
 *  skips and never land. Other cases keep the injector's draws. */
abft_fault aim(abft_fault f, const AttnCase& c, std::mt19937_64& rng) {
  if (!c.causal) return f;
  auto draw = [&](int64_t lo, int64_t hi) {  // uniform in [lo, hi]
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const int64_t off = c.kv_len - c.q_len, D = c.head_dim;
  const int64_t bh = draw(0, c.batch * c.heads - 1);
  if (f.site == ABFT_SITE_ATTN_DK || f.site == ABFT_SITE_ATTN_DV) {
    const int64_t j = draw(0, c.kv_len - 1);
    f.row = bh * c.kv_len + j;
    f.col = draw(0, D - 1);
    f.kpos = draw(std::max<int64_t>(0, j - off), c.q_len - 1);  // a query that sees key j
    return f;
  }
  const int64_t i = draw(std::max<int64_t>(0, -off), c.q_len - 1), last = i + off;
  f.row = bh * c.q_len + i;
  switch (f.site) {
    case ABFT_SITE_ATTN_SCORES:
    case ABFT_SITE_ATTN_PROBS:
    case ABFT_SITE_ATTN_DP:
    case ABFT_SITE_ATTN_DS: f.col = draw(0, last); break;
    case ABFT_SITE_ATTN_ROWSTAT: f.col = draw(0, 1); f.kpos = draw(0, last); break;
    case ABFT_SITE_ATTN_ACC:
    case ABFT_SITE_ATTN_DQ: f.col = draw(0, D - 1); f.kpos = draw(0, last); break;
    default: f.col = draw(0, D - 1); break;
  }
  return f;
}

/** Every scenario of one direction of a case; one table row per protected call. */
void run_direction(const AttnData& A, const Tolerances& T, const Blocking& k, bool backward,
                   const DemoOptions& opt, Handle& prot, Injector& inj, std::mt19937_64& rng,
                   DemoTally& tally) {
  const AttnCase& c = A.c;
  const char* kname = abft_kernel_name(backward ? ABFT_KERNEL_ATTN_BWD : ABFT_KERNEL_ATTN_FWD);
  const std::string text = case_text(c);
  const int64_t D = c.head_dim;
  const int64_t nkb = (c.kv_len + k.bc - 1) / k.bc, nqb = (c.q_len + k.br - 1) / k.br;
  const float* mask = A.mask.empty() ? nullptr : A.mask.data();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> o, lse, dq, dk, dv;
  const std::vector<Scenario> scenarios =
      backward ? backward_scenarios(opt.quick) : forward_scenarios(opt.quick);
  for (const Scenario& sc : scenarios) {
    inj.clear();
    for (const abft_fault& f : sc.faults) inj.add(aim(f, c, rng));
    abft_report rep;
    std::memset(&rep, 0, sizeof rep);
    Status st;
    if (!backward) {
      o.assign(A.o.size(), nan);
      lse.assign(A.lse.size(), nan);
      st = abft_attention_forward(prot.get(), ABFT_POLICY_DEFAULT, &A.d, A.q.data(), A.k.data(),
                                  A.v.data(), mask, o.data(), lse.data(), &rep);
    } else {
      dq.assign(A.dq.size(), nan);
      dk.assign(A.dk.size(), nan);
      dv.assign(A.dv.size(), nan);
      st = abft_attention_backward(prot.get(), ABFT_POLICY_DEFAULT, &A.d, A.q.data(), A.k.data(),
                                   A.v.data(), mask, A.o.data(), A.dout.data(), A.lse.data(),
                                   dq.data(), dk.data(), dv.data(), &rep);
    }
    const InjectedFaults injected = last_faults(inj);
    const Extra ex = fault_terms(A, T, k, injected, backward);

    Cmp v;
    if (!backward) {
      compare(o, A.o, D,
              [&](int64_t r, int64_t x) { return T.o_row[size_t(r)] + extra_at(ex.o, r, x); }, v);
      compare(lse, A.lse, 1, [&](int64_t r, int64_t) {
        const auto it = ex.lse.find(r);
        return T.lse_row[size_t(r)] + (it == ex.lse.end() ? 0.0 : it->second);
      }, v);
    } else {
      // Rows of dQ: (b*heads + h)*q_len + i; of dK, dV: (b*kv_heads + hk)*kv_len + j.
      compare(dq, A.dq, D, [&](int64_t r, int64_t x) {
        const int64_t bh = r / c.q_len, qb = (r % c.q_len) / k.br;
        return T.dq[size_t((bh * nqb + qb) * D + x)] + extra_at(ex.dq, r, x);
      }, v);
      auto kv_tol = [&](const std::vector<double>& base,
                        const std::map<int64_t, std::vector<double>>& m, int64_t r, int64_t x) {
        const int64_t g = r / c.kv_len, t = (r % c.kv_len) / k.bc;
        return base[size_t((g * nkb + t) * D + x)] + extra_at(m, r, x);
      };
      compare(dk, A.dk, D, [&](int64_t r, int64_t x) { return kv_tol(T.dk, ex.dk, r, x); }, v);
      compare(dv, A.dv, D, [&](int64_t r, int64_t x) { return kv_tol(T.dv, ex.dv, r, x); }, v);
    }
    // A repaired unit is recomputed: bitwise. Otherwise a fault must have escaped.
    const bool escaped = rep.detected < uint64_t(injected.applied);
    const bool ok = st == ABFT_STATUS_SUCCESS && (v.bitwise || (v.in_bound && escaped));
    static const char* const coords[3] = {"row", "col", "kpos"};
    report_run({kname, text, &sc, injected, st, rep, ok, !v.bitwise, v.max_rel}, opt, coords,
               tally);
  }
}

}  // namespace

void demo_attention(const DemoOptions& opt, Handle& prot, DemoTally& tally) {
  // Its own injector and data stream: the attention draws do not depend on the other parts.
  Injector inj(opt.seed ^ 0xA77Eu);
  prot.set_injector(&inj);
  std::mt19937_64 rng(opt.seed + 0xA77E17105ull);

  std::printf("attention: kernels %s; forward checked per query block, backward per task\n",
              abft_attention_kernel_info());
  std::printf(
      "OK: O and lse (forward), dQ, dK and dV (backward) equal the clean run bit for bit (a\n"
      "    repair recomputes the block or task with the same arithmetic). MASKED: a fault the\n"
      "    checks cannot tell from round-off went undetected and moved each element by less\n"
      "    than its tolerance (2x the bound of its check, plus what an escape upstream can\n"
      "    add). MISMATCH: anything else.\n\n");
  print_table_header("attn", "case");
  for (const AttnCase& c : attn_cases(opt.quick)) {
    AttnData A;
    const Blocking k = engine_blocking(c);
    const Status cs = prepare(c, prot, inj, rng, A);
    if (cs != ABFT_STATUS_SUCCESS) {
      const size_t n = forward_scenarios(opt.quick).size() + backward_scenarios(opt.quick).size();
      report_clean_failure("attn", case_text(c), cs, n, tally);
      continue;
    }
    const Tolerances T = make_tolerances(A, k);
    run_direction(A, T, k, false, opt, prot, inj, rng, tally);
    run_direction(A, T, k, true, opt, prot, inj, rng, tally);
  }
  inj.clear();
  prot.set_injector(nullptr);
}

}  // namespace abft::cli
