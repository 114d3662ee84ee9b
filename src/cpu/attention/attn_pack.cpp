/** \file attn_pack.cpp
 *  \brief Packing K and V per KV head with the checksum summaries the checks reference.
 */
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/attention/attn_problem.hpp"

namespace abft::cpu::attention {

std::vector<KvPack> pack_kv(const Problem& P) {
  std::vector<KvPack> packs(size_t(P.B * P.HK));
  const int64_t nkb = P.nkb(), Dp = P.Dp, Dv = P.Dv, D = P.D;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(P.threads) if (P.B * P.HK > 1)
  for (int64_t t = 0; t < P.B * P.HK; ++t) guarded(failed, [&] {
    const int64_t b = t / P.HK, hk = t % P.HK;
    KvPack& kv = packs[size_t(t)];
    kv.kp.assign(size_t(P.Lk * Dp), 0.0f);
    kv.vp.assign(size_t(P.Lk * Dv), 0.0f);
    kv.ksum.assign(size_t(nkb * Dp), 0.0f);
    kv.kabs = kv.vsumb = kv.vabsb = kv.ksum;
    kv.finite.assign(size_t(nkb), 1);
    std::vector<double> ks(size_t(2 * D)), vs(size_t(2 * D));
    for (int64_t blk = 0; blk < nkb; ++blk) {
      const int64_t j0 = blk * kKeyBlock, j1 = std::min(P.Lk, j0 + kKeyBlock);
      std::fill(ks.begin(), ks.end(), 0.0);
      std::fill(vs.begin(), vs.end(), 0.0);
      bool fin = true;
      for (int64_t j = j0; j < j1; ++j) {
        const float* kr = P.k.row(b, hk, j);
        const float* vr = P.v.row(b, hk, j);
        float* kd = kv.kp.data() + j * Dp;
        float* vd = kv.vp.data() + j * Dv;
        double rs = 0.0, ra = 0.0;
        for (int64_t c = 0; c < D; ++c) {
          const float x = kr[c * P.k.s[3]], y = vr[c * P.v.s[3]];
          kd[c] = x;
          vd[c] = y;
          ks[size_t(c)] += x;
          ks[size_t(D + c)] += std::fabs(x);
          vs[size_t(c)] += y;
          vs[size_t(D + c)] += std::fabs(y);
          rs += y;
          ra += std::fabs(y);
          fin = fin && std::isfinite(x) && std::isfinite(y);
        }
        vd[D] = float(rs);
        vd[D + 1] = float(ra);
      }
      for (int64_t c = 0; c < D; ++c) {
        kv.ksum[size_t(blk * Dp + c)] = float(ks[size_t(c)]);
        kv.kabs[size_t(blk * Dp + c)] = float(ks[size_t(D + c)]);
        kv.vsumb[size_t(blk * Dp + c)] = float(vs[size_t(c)]);
        kv.vabsb[size_t(blk * Dp + c)] = float(vs[size_t(D + c)]);
      }
      kv.finite[size_t(blk)] = fin ? 1 : 0;
    }
  });
  if (failed) throw std::bad_alloc();
  return packs;
}

bool score_tile(const Problem& P, int64_t b, int64_t h, int64_t i0, int64_t nq, int64_t br,
                int64_t j0, int64_t nk, float* maskT, TileGeom& g) {
  g = TileGeom{};
  g.nk = nk;
  g.br = br;
  g.j0 = j0;
  g.i0 = i0;
  g.off = P.off;
  g.causal = P.causal && j0 + nk - 1 > i0 + P.off;  // only tiles crossing the diagonal
  if (!P.has_mask) return true;
  bool finite = true;
  for (int64_t i = 0; i < br; ++i) {
    if (i >= nq) {
      for (int64_t j = 0; j < nk; ++j) maskT[j * br + i] = 0.0f;
      continue;
    }
    const float* mr = P.mask.row(b, h, i0 + i);
    for (int64_t j = 0; j < nk; ++j) {
      const float x = mr[(j0 + j) * P.mask.s[3]];
      maskT[j * br + i] = x;
      if (!(x < std::numeric_limits<float>::infinity())) finite = false;
    }
  }
  g.maskT = maskT;
  return finite;
}

}  // namespace abft::cpu::attention
