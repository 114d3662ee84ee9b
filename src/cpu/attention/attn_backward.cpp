/** \file attn_backward.cpp
 *  \brief Fused backward (FlashAttention-2 order: key blocks outside, query blocks inside,
 *  scores and probabilities recomputed tile by tile), every product checked
 *  (docs/ABFT.md, "Attention, backward"):
 *    S^T = K_t (sQ)^T and dP^T = V_t dO^T  by their query-side sums, tile by tile;
 *    P = exp(S - lse) and dS = P o (dP - D)  by range / finiteness;
 *    dV += P^T dO, dK += dS^T Q            by column sums of the finished key block against
 *                                            sum over tiles of (e^T P^T) dO, (e^T dS^T) Q;
 *    dQ += dS K                             by column sums of each query block against
 *                                            sum over key blocks of (e^T dS) K.
 *  The unit of repair is a task (one KV head's key-block range with every query head of
 *  its group): a failing task is recomputed from its inputs and re-verified.
 */
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/fingerprint.hpp"
#include "core/report.hpp"
#include "cpu/attention/attn_problem.hpp"

namespace abft::cpu::attention {
namespace {

namespace ck = abft::checksum;
constexpr float kInf = std::numeric_limits<float>::infinity();

/** Per query head: (sQ)^T and dO^T per query block (D x Br), Q and dO rows padded to Dp,
 *  D_i = dO_i . O_i, lse over padded lanes (-inf: no contribution), and whether every
 *  input of the head was finite. */
struct QPack {
  std::vector<float> qst, dot, qp, dop, dv, lse;
  bool finite = true;
  /// Exact fingerprint of the four packed operands (qst, dot, qp, dop) as packed: every
  /// product of a tile and its reference read the same copy, so only this sees a memory
  /// fault in one. Tasks compare it when they finish.
  checksum::Fingerprint fp;
  checksum::Fingerprint fingerprint() const {
    checksum::Fingerprint f;
    for (const std::vector<float>* v : {&qst, &dot, &qp, &dop}) {
      const checksum::Fingerprint g = checksum::fingerprint(v->data(), int64_t(v->size()));
      f.s0 = f.s0 * 0x9E3779B97F4A7C15ull + g.s0;
      f.s1 = f.s1 * 0x9E3779B97F4A7C15ull + g.s1;
    }
    return f;
  }
};

QPack pack_q(const Problem& P, int64_t b, int64_t h) {
  const int64_t Br = kQueryBlock, nqb = P.nqb(), Lp = nqb * Br, D = P.D, Dp = P.Dp;
  QPack q;
  q.qst.assign(size_t(nqb * D * Br), 0.0f);
  q.dot.assign(size_t(nqb * D * Br), 0.0f);
  q.qp.assign(size_t(Lp * Dp), 0.0f);
  q.dop.assign(size_t(Lp * Dp), 0.0f);
  q.dv.assign(size_t(Lp), 0.0f);
  q.lse.assign(size_t(Lp), -kInf);
  const int64_t bh = b * P.H + h;
  for (int64_t i = 0; i < P.Lq; ++i) {
    const float* qr = P.q.row(b, h, i);
    const float* dr = P.dO.row(b, h, i);
    const float* orow = P.o_in.row(b, h, i);
    const int64_t blk = i / Br, lane = i % Br;
    float* qt = q.qst.data() + blk * D * Br + lane;
    float* dt = q.dot.data() + blk * D * Br + lane;
    double acc = 0.0;
    for (int64_t c = 0; c < D; ++c) {
      const float x = qr[c * P.q.s[3]], y = dr[c * P.dO.s[3]], z = orow[c * P.o_in.s[3]];
      q.qp[size_t(i * Dp + c)] = x;
      q.dop[size_t(i * Dp + c)] = y;
      qt[c * Br] = P.scale * x;
      dt[c * Br] = y;
      acc += double(y) * double(z);
      if (!std::isfinite(P.scale * x) || !std::isfinite(y) || !std::isfinite(z)) q.finite = false;
    }
    q.dv[size_t(i)] = float(acc);
    const float l = P.lse_in[bh * P.Lq + i];
    q.lse[size_t(i)] = l;
    if (l != l || l == kInf) q.finite = false;
  }
  if (P.check) q.fp = q.fingerprint();
  return q;
}

struct Task {
  Problem& P;
  const KvPack& kv;
  const std::vector<QPack>* qpacks;  // every head's packs, shared by the tasks
  std::vector<QPack> own;            // this task's re-packed heads (b, hk*G .. hk*G+G-1)
  bool packs_bad = false;            // a fingerprint disagreed: re-pack before the next run
  int64_t b, hk, kb0, kb1;
  float* dqpart;   // G x Lp x Dp
  double* dqref;   // G x nqb x Dp (ref) then G x nqb x Dp (X)
  // scratch
  float *st = nullptr, *dpt = nullptr, *psum = nullptr, *psum2 = nullptr, *qsum = nullptr, *qabs = nullptr,
        *ksum = nullptr, *kabs = nullptr, *dvacc = nullptr, *dkacc = nullptr;
  double *obs = nullptr, *ref = nullptr, *X = nullptr, *vref = nullptr, *vX = nullptr,
         *kref = nullptr, *kX = nullptr;
  abft_report rep{};
  bool taint = false;
  bool failed = false;  ///< a check of this attempt failed

  template <class F>
  void each_fault(abft_site site, int64_t bh, F&& fn) {
    for (AttnFault& a : P.faults)
      if (!a.f->applied && a.f->site == site && a.bh == bh) fn(a);
  }

  /** A check of this attempt failed. */
  bool fail() {
    failed = true;
    return false;
  }

  /** A magnitude sum X that float cannot bound (overflow risk, or non-finite). From
   *  finite inputs this is legitimate scale only while nothing has failed yet: the
   *  first check a fault reaches has an X made of inputs alone (S, dP tiles) or of sums
   *  taken before the fault's site, so a non-finite X after a failure is the fault's
   *  echo, not data, and must not turn the attempt's checks off or count as skipped. */
  bool unscalable() {
    if (!failed) taint = true;
    return true;
  }

  /** A product tile's query-side check. */
  bool tile_check(const float* bsum, const float* babs, const float* bt, int64_t nk, int64_t nq) {
    if (!P.check || taint) return true;
    const int64_t Br = kQueryBlock;
    std::fill(ref, ref + Br, 0.0);
    std::fill(X, X + Br, 0.0);
    P.kern->dotabs(P.D, Br, bsum, babs, bt, Br, ref, X);
    const double coef = ck::attn_tile_coefficient<float>(nk, P.D, P.kern->mr);
    const double abs_t = ck::attn_abs_term<float>(double(nk) * double(P.D), 0.0);
    rep.checks += 1;
    bool ok = true;
    for (int64_t i = 0; i < nq; ++i) {
      if (!ck::checkable<float>(X[i] * 4.0)) return unscalable();
      const double bound = coef * X[i] + abs_t;
      if (!ck::residual_ok(obs[i], ref[i], bound)) ok = false;
      else rep.max_ratio = std::max(rep.max_ratio, std::fabs(obs[i] - ref[i]) / bound);
    }
    return ok;
  }

  /** Column check of a finished accumulation; scale multiplies the stored values. */
  bool acc_check(const double* o, const double* r, const double* x, int64_t n, double coef,
                 double abs_t, double scale) {
    if (!P.check || taint) return true;
    rep.checks += 1;
    bool ok = true;
    for (int64_t c = 0; c < n; ++c) {
      const double X = std::fabs(scale) * x[c];
      if (!ck::checkable<float>(X * 4.0)) return unscalable();
      const double bound = coef * X + abs_t;
      if (!ck::residual_ok(o[c], scale * r[c], bound)) ok = false;
      else rep.max_ratio = std::max(rep.max_ratio, std::fabs(o[c] - scale * r[c]) / bound);
    }
    return ok;
  }

  const QPack& qpack(int64_t g) const {
    return own.empty() ? (*qpacks)[size_t(b * P.H + hk * P.G + g)] : own[size_t(g)];
  }

  bool run() {
    if (packs_bad) {  // a memory fault in the shared packs: this task re-packs its own
      own.clear();
      for (int64_t g = 0; g < P.G; ++g) own.push_back(pack_q(P, b, hk * P.G + g));
      packs_bad = false;
    }
    const int64_t Br = kQueryBlock, Bc = kKeyBlock, D = P.D, Dp = P.Dp, G = P.G;
    const int64_t nqb = P.nqb(), Lp = nqb * Br;
    const AttnKernels& K = *P.kern;
    const bool inj = !P.faults.empty();
    bool ok = true;
    taint = false;
    failed = false;
    for (int64_t g = 0; g < G; ++g)
      if (!qpack(g).finite) taint = true;
    std::fill(dqpart, dqpart + G * Lp * Dp, 0.0f);
    std::fill(dqref, dqref + 2 * G * nqb * Dp, 0.0);
    for (int64_t t = kb0; t < kb1; ++t) {
      const int64_t j0 = t * Bc, nk = std::min(Bc, P.Lk - j0);
      if (!kv.finite[size_t(t)]) taint = true;
      const float* kp = kv.kp.data() + j0 * Dp;
      const float* vp = kv.vp.data() + j0 * P.Dv;
      std::fill(dvacc, dvacc + nk * Dp, 0.0f);
      std::fill(dkacc, dkacc + nk * Dp, 0.0f);
      for (double* p : {vref, vX, kref, kX}) std::fill(p, p + Dp, 0.0);
      int64_t chunks = 0;
      for (int64_t g = 0; g < G; ++g) {
        const int64_t h = hk * G + g, bh = b * P.H + h;
        const QPack& qp = qpack(g);
        for (int64_t qb = 0; qb < nqb; ++qb) {
          const int64_t i0 = qb * Br, nq = std::min(Br, P.Lq - i0);
          if (P.causal && i0 + nq - 1 + P.off < j0) continue;  // no query here sees this block
          ++chunks;
          const float* qst = qp.qst.data() + qb * D * Br;
          const float* dot = qp.dot.data() + qb * D * Br;
          auto in_tile = [&](const AttnFault& a) {
            return a.r >= i0 && a.r < i0 + nq && a.c >= j0 && a.c < j0 + nk;
          };
          // S^T = K_t (sQ)^T
          ProdArgs pa;
          pa.M = nk; pa.N = Br; pa.K = D;
          pa.A = kp; pa.a_rs = Dp; pa.a_ps = 1;
          pa.B = qst; pa.ldb = Br;
          pa.C = st; pa.ldc = Br;
          pa.mode = ProdArgs::kStore;
          if (P.check) { std::fill(obs, obs + Br, 0.0); pa.colsum = obs; }
          K.prod(pa);
          if (inj)
            each_fault(ABFT_SITE_ATTN_SCORES, bh, [&](AttnFault& a) {
              if (!in_tile(a)) return;
              land_computed(a, st[(a.c - j0) * Br + (a.r - i0)], P.check ? obs + (a.r - i0) : nullptr);
            });
          if (!tile_check(kv.ksum.data() + t * Dp, kv.kabs.data() + t * Dp, qst, nk, nq)) ok = fail();
          // P^T = exp(S^T + mask - lse)
          TileGeom gm;  // the mask tile goes to dpt: consumed before dP overwrites it
          if (!score_tile(P, b, h, i0, nq, Br, j0, nk, dpt, gm)) taint = true;
          const bool p_ok = K.probs_bwd(st, gm, qp.lse.data() + i0, psum, P.check && !taint);
          if (P.check && !taint) {
            rep.checks += 1;
            if (!p_ok) ok = fail();
          }
          if (inj)
            each_fault(ABFT_SITE_ATTN_PROBS, bh, [&](AttnFault& a) {
              if (in_tile(a)) st[(a.c - j0) * Br + (a.r - i0)] = land(a, st[(a.c - j0) * Br + (a.r - i0)]);
            });
          // dP^T = V_t dO^T
          pa.A = vp; pa.a_rs = P.Dv; pa.B = dot; pa.C = dpt;
          if (P.check) std::fill(obs, obs + Br, 0.0);
          K.prod(pa);
          if (inj)
            each_fault(ABFT_SITE_ATTN_DP, bh, [&](AttnFault& a) {
              if (!in_tile(a)) return;
              land_computed(a, dpt[(a.c - j0) * Br + (a.r - i0)], P.check ? obs + (a.r - i0) : nullptr);
            });
          if (!tile_check(kv.vsumb.data() + t * Dp, kv.vabsb.data() + t * Dp, dot, nk, nq)) ok = fail();
          // dS^T = P^T o (dP^T - D)
          const bool s_ok = K.dscore(st, dpt, nk, Br, qp.dv.data() + i0, qsum, qabs, ksum, kabs,
                                     P.check && !taint);
          if (P.check && !taint) {
            rep.checks += 1;
            if (!s_ok) ok = fail();
          }
          if (inj)
            each_fault(ABFT_SITE_ATTN_DS, bh, [&](AttnFault& a) {
              if (in_tile(a)) dpt[(a.c - j0) * Br + (a.r - i0)] = land(a, dpt[(a.c - j0) * Br + (a.r - i0)]);
            });
          // dV += P^T dO, dK += dS^T Q (unscaled; the scale is applied on store)
          ProdArgs pv;
          pv.M = nk; pv.N = Dp; pv.K = nq;
          pv.A = st; pv.a_rs = Br; pv.a_ps = 1;
          pv.B = qp.dop.data() + i0 * Dp; pv.ldb = Dp;
          pv.C = dvacc; pv.ldc = Dp;
          pv.mode = ProdArgs::kAdd;
          K.prod(pv);
          pv.A = dpt; pv.B = qp.qp.data() + i0 * Dp; pv.C = dkacc;
          K.prod(pv);
          if (P.check) {
            K.dotabs(nq, Dp, psum, psum, qp.dop.data() + i0 * Dp, Dp, vref, vX);
            K.dotabs(nq, Dp, qsum, qabs, qp.qp.data() + i0 * Dp, Dp, kref, kX);
          }
          // dQ_i += dS K_t
          float* dq = dqpart + (g * Lp + i0) * Dp;
          ProdArgs pq;
          pq.M = nq; pq.N = Dp; pq.K = nk;
          pq.A = dpt; pq.a_rs = 1; pq.a_ps = Br;
          pq.B = kp; pq.ldb = Dp;
          pq.C = dq; pq.ldc = Dp;
          pq.mode = ProdArgs::kAdd;
          K.prod(pq);
          if (P.check) {
            double* r = dqref + (g * nqb + qb) * Dp;
            K.dotabs(nk, Dp, ksum, kabs, kp, Dp, r, r + G * nqb * Dp);
            // The stored probabilities, now consumed by dS and dV, re-summed in the order
            // probs_bwd summed them: equal bit for bit unless one changed in between.
            if (!taint) {
              K.resum(st, nk, Br, nullptr, psum2);
              for (int64_t i = 0; i < nq; ++i)
                if (!(psum2[i] == psum[i])) ok = fail();
              rep.checks += 1;
            }
          }
          if (inj) {
            const bool last_q = qb + 1 == nqb || (i0 + Br >= P.Lq);
            auto lands_here = [&](const AttnFault& a) {
              return a.r >= j0 && a.r < j0 + nk &&
                     ((a.kpos >= i0 && a.kpos < i0 + nq) || (last_q && a.kpos >= i0 + nq));
            };
            each_fault(ABFT_SITE_ATTN_DV, bh, [&](AttnFault& a) {
              if (lands_here(a)) dvacc[(a.r - j0) * Dp + a.c] = land(a, dvacc[(a.r - j0) * Dp + a.c]);
            });
            each_fault(ABFT_SITE_ATTN_DK, bh, [&](AttnFault& a) {
              if (lands_here(a)) dkacc[(a.r - j0) * Dp + a.c] = land(a, dkacc[(a.r - j0) * Dp + a.c]);
            });
            const bool last_k = t + 1 == P.nkb();
            each_fault(ABFT_SITE_ATTN_DQ, bh, [&](AttnFault& a) {
              if (a.r >= i0 && a.r < i0 + nq &&
                  ((a.kpos >= j0 && a.kpos < j0 + nk) || (last_k && a.kpos >= j0 + nk)))
                dq[(a.r - i0) * Dp + a.c] = land(a, dq[(a.r - i0) * Dp + a.c]);
            });
          }
        }
      }
      // Store this key block's dV and dK (scaled), summing what is stored.
      double* ov = obs;  // both hold max(Br, Dp) doubles
      double* okk = ref;
      std::fill(ov, ov + Dp, 0.0);
      std::fill(okk, okk + Dp, 0.0);
      for (int64_t j = 0; j < nk; ++j) {
        float* dvr = P.dv.row(b, hk, j0 + j);
        float* dkr = P.dk.row(b, hk, j0 + j);
        for (int64_t c = 0; c < D; ++c) {
          const float x = dvacc[j * Dp + c], y = P.scale * dkacc[j * Dp + c];
          dvr[c * P.dv.s[3]] = x;
          dkr[c * P.dk.s[3]] = y;
          ov[c] += x;
          okk[c] += y;
        }
      }
      const double coef = ck::attn_accumulated_coefficient<float>(Br, chunks, nk, nk);
      const double abs_t = ck::attn_abs_term<float>(double(chunks) * double(Br) + double(nk), 1.0);
      if (!acc_check(ov, vref, vX, D, coef, abs_t, 1.0)) ok = fail();
      if (!acc_check(okk, kref, kX, D, coef, abs_t * (std::fabs(P.scale) + 1.0), P.scale)) ok = fail();
    }
    // dQ partials of this task, per (head, query block).
    if (P.check && !taint) {
      const int64_t blocks = kb1 - kb0;
      for (int64_t g = 0; g < G; ++g)
        for (int64_t qb = 0; qb < nqb; ++qb) {
          const int64_t i0 = qb * Br, nq = std::min(Br, P.Lq - i0);
          std::fill(obs, obs + Dp, 0.0);
          const float* dq = dqpart + (g * Lp + i0) * Dp;
          for (int64_t i = 0; i < nq; ++i)
            for (int64_t c = 0; c < D; ++c) obs[c] += dq[i * Dp + c];
          const double* r = dqref + (g * nqb + qb) * Dp;
          const double coef = ck::attn_accumulated_coefficient<float>(Bc, blocks, Br, nq);
          const double abs_t = ck::attn_abs_term<float>(double(blocks) * double(Bc) + double(Br), 1.0);
          if (!acc_check(obs, r, r + G * nqb * Dp, D, coef, abs_t, 1.0)) ok = fail();
        }
    }
    if (P.check) {
      rep.checks += 1;
      for (int64_t g = 0; g < G; ++g)
        if (qpack(g).fingerprint() != qpack(g).fp) {
          packs_bad = true;
          ok = fail();
        }
    }
    if (P.check && taint) rep.skipped += 1;
    return ok;
  }
};

}  // namespace

abft_status run_backward(Problem& P, abft_report& rep) {
  const int64_t Br = kQueryBlock, Bc = kKeyBlock, nqb = P.nqb(), nkb = P.nkb();
  const int64_t Lp = nqb * Br, Dp = P.Dp, G = P.G, heads = P.B * P.H;
  const std::vector<KvPack> packs = pack_kv(P);
  std::vector<QPack> qpacks(static_cast<size_t>(heads));
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(P.threads) if (heads > 1)
  for (int64_t bh = 0; bh < heads; ++bh)
    guarded(failed, [&] { qpacks[size_t(bh)] = pack_q(P, bh / P.H, bh % P.H); });
  if (failed) throw std::bad_alloc();
  // A memory fault in a packed (scale Q)^T (injection): it lands after the fingerprint.
  for (AttnFault& a : P.faults)
    if (!a.f->applied && a.f->site == ABFT_SITE_PACKED_A) {
      float& x = qpacks[size_t(a.bh)].qst[size_t((a.r / Br) * P.D * Br + a.kpos * Br + a.r % Br)];
      x = land(a, x);
    }

  // Tasks: (batch, kv head, key-block chunk); more than one chunk per head only when the
  // heads alone cannot keep the threads busy. Each task owns its dQ partial.
  const int64_t groups = P.B * P.HK;
  int64_t nch = 1;
  if (groups < P.threads && nkb > 1)
    nch = std::min<int64_t>(nkb, (2 * P.threads + groups - 1) / groups);
  const int64_t tasks = groups * nch;
  std::vector<float> dqpart(size_t(tasks * G * Lp * Dp));
  std::vector<double> dqref(size_t(tasks * 2 * G * nqb * Dp));
  std::vector<unsigned char> tainted(size_t(tasks), 0);  // a task saw non-finite inputs
  // Scratch per thread: the 17 takes below (st, dpt; psum, psum2, qsum, qabs; ksum, kabs;
  // dvacc, dkacc; obs, ref, X; vref, vX, kref, kX), each rounded up to 16 floats.
  const size_t dn = size_t(std::max<int64_t>(Br, Dp)) * 2;
  const size_t per = size_t(2 * Bc * Br + 4 * Br + 2 * Bc + 2 * Bc * Dp) + 3 * dn +
                     size_t(4 * 2 * Dp) + 20 * 16;
  abft_status status = run_units(P, tasks, per, rep, [&](int64_t t, Scratch& sc, abft_report& mine) {
    const int64_t grp = t / nch, ch = t % nch;
    const int64_t b = grp / P.HK, hk = grp % P.HK;
    const int64_t kb0 = nkb * ch / nch, kb1 = nkb * (ch + 1) / nch;
    Task tk{P, packs[size_t(grp)], &qpacks, {}, false, b, hk, kb0, kb1,
            dqpart.data() + t * G * Lp * Dp, dqref.data() + t * 2 * G * nqb * Dp};
    size_t at = 0;
    tk.st = sc.take(at, size_t(Bc * Br));
    tk.dpt = sc.take(at, size_t(Bc * Br));
    tk.psum = sc.take(at, size_t(Br));
    tk.psum2 = sc.take(at, size_t(Br));
    tk.qsum = sc.take(at, size_t(Br));
    tk.qabs = sc.take(at, size_t(Br));
    tk.ksum = sc.take(at, size_t(Bc));
    tk.kabs = sc.take(at, size_t(Bc));
    tk.dvacc = sc.take(at, size_t(Bc * Dp));
    tk.dkacc = sc.take(at, size_t(Bc * Dp));
    tk.obs = reinterpret_cast<double*>(sc.take(at, dn));
    tk.ref = reinterpret_cast<double*>(sc.take(at, dn));
    tk.X = reinterpret_cast<double*>(sc.take(at, dn));
    tk.vref = reinterpret_cast<double*>(sc.take(at, size_t(2 * Dp)));
    tk.vX = reinterpret_cast<double*>(sc.take(at, size_t(2 * Dp)));
    tk.kref = reinterpret_cast<double*>(sc.take(at, size_t(2 * Dp)));
    tk.kX = reinterpret_cast<double*>(sc.take(at, size_t(2 * Dp)));
    const abft_status st = run_repaired(tk, P.correct);
    tainted[size_t(t)] = tk.taint ? 1 : 0;
    core::add_report(mine, tk.rep);
    return st;
  });

  // dQ = scale * (sum of the task partials), stored with the caller's strides; its column
  // sums per query block re-checked against the sum of the tasks' references.
#pragma omp parallel num_threads(P.threads) if (heads * nqb > 1)
  {
    const size_t nd = static_cast<size_t>(Dp);
    std::vector<double> o, r, x;
    guarded(failed, [&] { o.assign(nd, 0.0), r.assign(nd, 0.0), x.assign(nd, 0.0); });
    abft_report mine{};
    abft_status st_mine = ABFT_STATUS_SUCCESS;
#pragma omp for schedule(dynamic, 4)
    for (int64_t w = 0; w < heads * nqb; ++w) {
      if (failed) continue;  // this thread's sums could not be allocated
      const int64_t bh = w / nqb, qb = w % nqb;
      const int64_t b = bh / P.H, h = bh % P.H, hk = h / G, g = h % G;
      const int64_t i0 = qb * Br, nq = std::min(Br, P.Lq - i0);
      const int64_t grp = b * P.HK + hk;
      for (int attempt = 0; attempt < 2; ++attempt) {
        std::fill(o.begin(), o.end(), 0.0);
        std::fill(r.begin(), r.end(), 0.0);
        std::fill(x.begin(), x.end(), 0.0);
        for (int64_t i = 0; i < nq; ++i) {
          float* out = P.dq.row(b, h, i0 + i);
          for (int64_t c = 0; c < P.D; ++c) {
            float s = 0.0f;
            for (int64_t ch = 0; ch < nch; ++ch)
              s += dqpart[size_t(((grp * nch + ch) * G + g) * Lp * Dp + (i0 + i) * Dp + c)];
            const float y = P.scale * s;
            out[c * P.dq.s[3]] = y;
            o[size_t(c)] += y;
          }
        }
        bool skip = !P.check;
        for (int64_t ch = 0; ch < nch; ++ch) skip = skip || tainted[size_t(grp * nch + ch)];
        if (skip) break;
        bool bad = false;
        for (int64_t ch = 0; ch < nch; ++ch) {
          const double* rr = dqref.data() + size_t((grp * nch + ch) * 2 * G * nqb * Dp) + size_t((g * nqb + qb) * Dp);
          for (int64_t c = 0; c < P.D; ++c) {
            r[size_t(c)] += rr[c];
            x[size_t(c)] += rr[G * nqb * Dp + c];
          }
        }
        const double coef = ck::attn_accumulated_coefficient<float>(Bc, nkb + nch, Br, nq);
        const double abs_t = ck::attn_abs_term<float>(double(nkb) * double(Bc) + double(Br), 1.0);
        for (int64_t c = 0; c < P.D; ++c) {
          const double X = std::fabs(double(P.scale)) * x[size_t(c)];
          if (!ck::checkable<float>(X * 4.0)) break;
          if (!ck::residual_ok(o[size_t(c)], double(P.scale) * r[size_t(c)], coef * X + abs_t)) bad = true;
        }
        mine.checks += 1;
        if (!bad) {
          if (attempt) mine.corrected += 1;
          break;
        }
        mine.detected += 1;
        if (!P.correct) {
          st_mine = core::worse_status(st_mine, ABFT_STATUS_FAULT_DETECTED);
          break;
        }
        if (attempt) {
          mine.uncorrectable += 1;
          st_mine = core::worse_status(st_mine, ABFT_STATUS_FAULT_UNCORRECTABLE);
        } else {
          mine.recomputed += 1;
        }
      }
    }
#pragma omp critical(abft_attention_backward_dq)
    {
      core::add_report(rep, mine);
      status = core::worse_status(status, st_mine);
    }
  }
  if (failed) throw std::bad_alloc();
  return status;
}

}  // namespace abft::cpu::attention
