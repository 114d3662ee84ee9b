/** \file attn_pack.cpp
 *  \brief Packing K and V per KV head with the checksum summaries the checks reference.
 */
#include <cmath>

#include "cpu/attention/attn_problem.hpp"

namespace abft::cpu::attention {

std::vector<KvPack> pack_kv(const Problem& P) {
  std::vector<KvPack> packs(size_t(P.B * P.HK));
  const int64_t nkb = P.nkb(), Dp = P.Dp, Dv = P.Dv, D = P.D;
#pragma omp parallel for schedule(dynamic, 1) num_threads(P.threads) if (P.B * P.HK > 1)
  for (int64_t t = 0; t < P.B * P.HK; ++t) {
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
  }
  return packs;
}

}  // namespace abft::cpu::attention
