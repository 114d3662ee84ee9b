/** \file attn_forward.cpp
 *  \brief Fused forward: per (batch*head, query block) an online-softmax sweep over key
 *  blocks, with the checksum chain of docs/ABFT.md ("Attention, forward"):
 *    1. S^T = K_t (scale Q)^T: query-side sums of the stored tile against (e^T K_t) (sQ)^T;
 *    2. softmax: a duplicate running maximum checked before each use, probabilities in
 *       [0, 1], the normalizer l against a re-sum l2 of the stored probabilities;
 *    3. O^T = V^T P^T with V's row sums (and |V|'s) as two more rows of V^T, carried
 *       through the same rescaling: the stored O row sums against accv / l;
 *    4. the packed (scale Q)^T, which both sides of check 1 read, by an exact fingerprint.
 *  A failing block is recomputed and re-verified (policy CORRECT).
 */
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/fingerprint.hpp"
#include "core/report.hpp"
#include "cpu/attention/attn_problem.hpp"

namespace abft::cpu::attention {
namespace {

namespace ck = abft::checksum;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct FwdBlock {
  Problem& P;
  const KvPack& kv;
  int64_t b, h, bh, i0, nq;
  // scratch
  float *qst = nullptr, *st = nullptr, *ot = nullptr, *maskT = nullptr, *m = nullptr, *m2 = nullptr,
        *l = nullptr, *l2 = nullptr, *corr = nullptr;
  double *obs = nullptr, *ref = nullptr, *X = nullptr;
  abft_report rep{};
  bool taint = false;

  /** Faults of `site` for this block and head, not yet landed. */
  template <class F>
  void each_fault(abft_site site, F&& fn) {
    for (AttnFault& a : P.faults)
      if (!a.f->applied && a.f->site == site && a.bh == bh && a.r >= i0 && a.r < i0 + nq) fn(a);
  }

  /** Lanes the block's tiles carry: its queries rounded up to the register tile width
   *  (a decode step, q_len = 1, runs 16 lanes rather than 64). */
  int64_t lanes() const {
    const int64_t nr = P.kern->nr;
    return std::min<int64_t>(kQueryBlock, (nq + nr - 1) / nr * nr);
  }

  /** One attempt over the whole block; true when every check passed (or was skipped). */
  bool run() {
    const int64_t Br = lanes(), D = P.D, Dp = P.Dp;
    const AttnKernels& K = *P.kern;
    bool ok = true;
    taint = false;
    // Pack (scale Q)^T: D rows x Br lanes, padded lanes zero.
    for (int64_t i = 0; i < Br; ++i) {
      if (i < nq) {
        const float* qr = P.q.row(b, h, i0 + i);
        for (int64_t c = 0; c < D; ++c) {
          const float x = P.scale * qr[c * P.q.s[3]];
          qst[c * Br + i] = x;
          if (!std::isfinite(x)) taint = true;
        }
      } else {
        for (int64_t c = 0; c < D; ++c) qst[c * Br + i] = 0.0f;
      }
    }
    // The packed copy is read by every key block's product and by its reference: a memory
    // fault in it would agree with both. An exact fingerprint, taken now and compared after
    // the last key block, catches it (GUIDE §4, packed operands; ABFT.md §4).
    checksum::Fingerprint fq;
    if (P.check) fq = checksum::fingerprint(qst, D * Br);
    if (!P.faults.empty())
      each_fault(ABFT_SITE_PACKED_A, [&](AttnFault& a) {
        float& x = qst[a.kpos * Br + (a.r - i0)];
        x = land(a, x);
      });
    std::fill(m, m + Br, -kInf);
    std::fill(m2, m2 + Br, -kInf);
    std::fill(l, l + Br, 0.0f);
    std::fill(l2, l2 + Br, 0.0f);
    std::fill(ot, ot + (D + 2) * Br, 0.0f);
    const int64_t jend = P.causal ? std::min(P.Lk, i0 + nq + P.off) : P.Lk;
    const int64_t nblocks = jend > 0 ? (jend + kKeyBlock - 1) / kKeyBlock : 0;
    const double tile_coef = ck::attn_tile_coefficient<float>(kKeyBlock, D, K.mr);
    SoftmaxState ss{m, m2, l, corr};
    const bool inj = !P.faults.empty();
    for (int64_t t = 0; t < nblocks; ++t) {
      const int64_t j0 = t * kKeyBlock, nk = std::min(kKeyBlock, P.Lk - j0);
      if (!kv.finite[size_t(t)]) taint = true;
      // 1. S^T = K_t (sQ)^T, with the observed query-side sums.
      ProdArgs pa;
      pa.M = nk;
      pa.N = Br;
      pa.K = D;
      pa.A = kv.kp.data() + j0 * Dp;
      pa.a_rs = Dp;
      pa.a_ps = 1;
      pa.B = qst;
      pa.ldb = Br;
      pa.C = st;
      pa.ldc = Br;
      pa.mode = ProdArgs::kStore;
      if (P.check) {
        std::fill(obs, obs + Br, 0.0);
        pa.colsum = obs;
      }
      K.prod(pa);
      if (inj)
        each_fault(ABFT_SITE_ATTN_SCORES, [&](AttnFault& a) {
          if (a.c < j0 || a.c >= j0 + nk) return;
          land_computed(a, st[(a.c - j0) * Br + (a.r - i0)], P.check ? obs + (a.r - i0) : nullptr);
        });
      if (P.check && !taint) {
        std::fill(ref, ref + Br, 0.0);
        std::fill(X, X + Br, 0.0);
        K.dotabs(D, Br, kv.ksum.data() + t * Dp, kv.kabs.data() + t * Dp, qst, Br, ref, X);
        const double coef = nk == kKeyBlock ? tile_coef : ck::attn_tile_coefficient<float>(nk, D, K.mr);
        const double abs_t = ck::attn_abs_term<float>(double(nk) * double(D), 0.0);
        for (int64_t i = 0; i < nq; ++i) {
          if (!ck::checkable<float>(X[i] * 4.0)) { taint = true; break; }
          const double bound = coef * X[i] + abs_t;
          if (!ck::residual_ok(obs[i], ref[i], bound)) ok = false;
          else rep.max_ratio = std::max(rep.max_ratio, std::fabs(obs[i] - ref[i]) / bound);
        }
        rep.checks += 1;
      }
      // 2. Mask tile (transposed), then the online softmax.
      TileGeom g;
      if (!score_tile(P, b, h, i0, nq, Br, j0, nk, maskT, g)) taint = true;
      const bool sm_ok = K.softmax_fwd(st, g, ss, P.check && !taint);
      if (P.check && !taint) {
        rep.checks += 1;
        if (!sm_ok) ok = false;
      }
      if (inj)
        each_fault(ABFT_SITE_ATTN_PROBS, [&](AttnFault& a) {
          if (a.c < j0 || a.c >= j0 + nk) return;
          float& p = st[(a.c - j0) * Br + (a.r - i0)];
          p = land(a, p);
        });
      // 3. O^T = corr * O^T + V_t^T P^T over head_dim + 2 rows: the last two are V's
      //    checksum columns (sum_c V_jc, sum_c |V_jc|), rescaled with the output. Then the
      //    re-sum of the stored probabilities.
      ProdArgs pv;
      pv.M = P.check ? D + 2 : D;
      pv.N = Br;
      pv.K = nk;
      pv.A = kv.vp.data() + j0 * P.Dv;
      pv.a_rs = 1;
      pv.a_ps = P.Dv;
      pv.B = st;
      pv.ldb = Br;
      pv.C = ot;
      pv.ldc = Br;
      pv.mode = ProdArgs::kRescale;
      pv.corr = corr;
      K.prod(pv);
      if (P.check) K.resum(st, nk, Br, corr, l2);
      if (inj) {
        const bool last = t + 1 == nblocks;
        auto here = [&](const AttnFault& a) {
          return (a.kpos >= j0 && a.kpos < j0 + nk) || (last && a.kpos >= j0 + nk);
        };
        each_fault(ABFT_SITE_ATTN_ACC, [&](AttnFault& a) {
          if (here(a)) ot[a.c * Br + (a.r - i0)] = land(a, ot[a.c * Br + (a.r - i0)]);
        });
        each_fault(ABFT_SITE_ATTN_ROWSTAT, [&](AttnFault& a) {
          if (!here(a)) return;
          float* v = a.c == 0 ? m : l;
          v[a.r - i0] = land(a, v[a.r - i0]);
        });
      }
    }
    if (P.check) {
      rep.checks += 1;
      if (checksum::fingerprint(qst, D * Br) != fq) ok = false;
    }
    return finish(nblocks) && ok;
  }

  /** O = O^T / l stored with the caller's strides, lse, and the row checks. */
  bool finish(int64_t nblocks) {
    const int64_t Br = lanes(), D = P.D;
    const bool chk = P.check && !taint;
    const double out_coef = ck::attn_output_coefficient<float>(kKeyBlock, nblocks, D);
    const double norm_coef = ck::attn_normalizer_coefficient<float>(kKeyBlock, nblocks);
    bool ok = true;
    for (int64_t i = 0; i < nq; ++i) {
      float* orow = P.o.row(b, h, i0 + i);
      const int64_t os = P.o.s[3];
      const bool empty = m[i] == -kInf;
      const float li = l[i];
      double obs_i = 0.0;
      for (int64_t c = 0; c < D; ++c) {
        const float x = empty ? 0.0f : ot[c * Br + i] / li;
        orow[c * os] = x;
        obs_i += x;
      }
      if (!P.faults.empty())
        each_fault(ABFT_SITE_OUTPUT, [&](AttnFault& a) {
          if (a.r != i0 + i) return;
          land_computed(a, orow[a.c * os], &obs_i);
        });
      if (P.lse) P.lse[bh * P.Lq + i0 + i] = empty ? -kInf : m[i] + std::log(li);
      if (!chk) continue;
      if (std::memcmp(&m[i], &m2[i], sizeof(float)) != 0) ok = false;
      if (empty) {
        // Nothing admissible: the stored row must be exactly zero.
        double mag = 0.0;
        for (int64_t c = 0; c < D; ++c) mag += std::fabs(double(orow[c * os]));
        if (!(l[i] == 0.0f && l2[i] == 0.0f && mag == 0.0)) ok = false;
        continue;
      }
      // The maximum's own term is exp(0) = 1 and later rescales of it are exact: l >= 1.
      if (!(li >= 1.0f) || !std::isfinite(li)) ok = false;
      if (!(std::fabs(double(li) - double(l2[i])) <= norm_coef * double(li))) ok = false;
      const double Xo = double(ot[(D + 1) * Br + i]) / double(li);
      if (!ck::checkable<float>(Xo * 4.0)) continue;
      const double bound =
          out_coef * Xo + ck::attn_abs_term<float>(double(P.Lk + D), 0.0) / double(li);
      const double refo = double(ot[D * Br + i]) / double(li);
      if (!ck::residual_ok(obs_i, refo, bound)) ok = false;
      else rep.max_ratio = std::max(rep.max_ratio, std::fabs(obs_i - refo) / bound);
    }
    if (chk) rep.checks += 1;
    if (P.check && taint) rep.skipped += 1;
    return ok;
  }
};

}  // namespace

abft_status run_forward(Problem& P, abft_report& rep) {
  const std::vector<KvPack> packs = pack_kv(P);
  const int64_t Br = kQueryBlock, nqb = P.nqb(), tasks = P.B * P.H * nqb;
  const size_t per = size_t((P.D + 1) * Br * 2 + kKeyBlock * Br * 2 + 16 * Br + 64 * 16);
  return run_units(P, tasks, per, rep, [&](int64_t t, Scratch& sc, abft_report& mine) {
    const int64_t bh = t / nqb, qb = t % nqb;
    const int64_t b = bh / P.H, h = bh % P.H;
    FwdBlock fb{P, packs[size_t(b * P.HK + h / P.G)], b, h, bh, qb * Br,
                std::min(Br, P.Lq - qb * Br)};
    size_t at = 0;
    fb.qst = sc.take(at, size_t(P.D * Br));
    fb.ot = sc.take(at, size_t((P.D + 2) * Br));
    fb.st = sc.take(at, size_t(kKeyBlock * Br));
    fb.maskT = sc.take(at, size_t(kKeyBlock * Br));
    for (float** p : {&fb.m, &fb.m2, &fb.l, &fb.l2, &fb.corr}) *p = sc.take(at, size_t(Br));
    fb.obs = reinterpret_cast<double*>(sc.take(at, size_t(2 * Br)));
    fb.ref = reinterpret_cast<double*>(sc.take(at, size_t(2 * Br)));
    fb.X = reinterpret_cast<double*>(sc.take(at, size_t(2 * Br)));
    const abft_status st = run_repaired(fb, P.correct);
    core::add_report(mine, fb.rep);
    return st;
  });
}

}  // namespace abft::cpu::attention
