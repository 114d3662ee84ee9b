/** \file gemm_repair.cpp
 *  \brief Verification of a finished row block, location of faults (column checksums from the
 *  epilogue, lazy row checksums from the caller's operands), recomputation to full precision,
 *  and re-verification (GUIDE §3 rules 4 and 5).
 *
 *  Only the column check runs on the fault-free path. Everything else here
 *  runs after a mismatch, so it favours simplicity over speed: it reads the
 *  caller's A and B (never the packed copies, which may be the corrupt thing)
 *  and the saved C0.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "abft/checksum/bounds.hpp"
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {
namespace {

using checksum::checkable;
using checksum::residual_ok;

template <class T>
struct BlockCtx {
  const PanelView<T>& pv;
  const Problem<T>& P;
  int64_t i0, mb;
  checksum::GemmShape shape;
  double aa, ab;

  T& c(int64_t i, int64_t j) const { return P.C[i * P.ldc + pv.jc + j]; }
  double c0(int64_t i, int64_t j) const {
    return pv.beta_nonzero ? static_cast<double>(pv.backup[i * pv.ldbk + j]) : 0.0;
  }

  /** Recompute C(i, jc+j) for rows x cols from the caller's operands with the kernel's own
   *  arithmetic, so that a repaired element equals the fault-free result bit for bit: per
   *  k-chunk of kc terms an FMA chain from zero in k order (the micro-kernel's accumulator),
   *  then alpha * acc, added to beta * C0 by one FMA after the first chunk and to the running
   *  value after each later one (the epilogue). Every ISA's kernel performs exactly these
   *  roundings (fused multiply-adds throughout), and std::fma rounds once as they do. */
  void recompute(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols) const {
    const int64_t K = P.K, kc = pv.kc;
    std::vector<T> acc(cols.size()), out(cols.size());
    for (int64_t i : rows) {
      for (int64_t pc = 0; pc < K; pc += kc) {
        const int64_t kb = std::min(kc, K - pc);
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t p = pc; p < pc + kb; ++p) {
          const T a = P.a(i, p);
          for (size_t q = 0; q < cols.size(); ++q) acc[q] = std::fma(a, P.b(p, pv.jc + cols[q]), acc[q]);
        }
        for (size_t q = 0; q < cols.size(); ++q) {
          const T t = P.alpha * acc[q];
          if (pc > 0) out[q] = std::fma(T(1), out[q], t);
          else out[q] = pv.beta_nonzero ? std::fma(P.beta, static_cast<T>(c0(i, cols[q])), t) : t;
        }
      }
      for (size_t q = 0; q < cols.size(); ++q) c(i, cols[q]) = out[q];
    }
  }

  std::vector<int64_t> all_rows() const {
    std::vector<int64_t> r(static_cast<size_t>(mb));
    for (int64_t t = 0; t < mb; ++t) r[size_t(t)] = i0 + t;
    return r;
  }
  std::vector<int64_t> all_cols() const {
    std::vector<int64_t> r(static_cast<size_t>(pv.nb));
    for (int64_t t = 0; t < pv.nb; ++t) r[size_t(t)] = t;
    return r;
  }

  /** Reference and magnitudes of column j recomputed from the caller's data:
   *  X (with alpha, beta), Xu (unscaled |A||B| part) and the flush-to-zero scale U. */
  void fresh_col_ref(int64_t j, const std::vector<double>& vs, const std::vector<double>& va,
                     double& ref, double& X, double& Xu, double& U) const {
    double r = 0.0, x = 0.0, bs = 0.0, as = 0.0;
    for (int64_t p = 0; p < P.K; ++p) {
      const double b = static_cast<double>(P.b(p, pv.jc + j));
      r += vs[size_t(p)] * b;
      x += va[size_t(p)] * std::fabs(b);
      bs += std::fabs(b);
      as += va[size_t(p)];
    }
    Xu = x * (1.0 + 4.0 * checksum::gamma(double(P.K + mb) + 8.0, checksum::unit_roundoff<double>()));
    U = double(mb + 2) * bs + as;
    double s0 = 0.0, a0 = 0.0;
    for (int64_t i = i0; i < i0 + mb; ++i) {
      s0 += c0(i, j);
      a0 += std::fabs(c0(i, j));
    }
    ref = static_cast<double>(P.alpha) * r + static_cast<double>(P.beta) * s0;
    X = aa * Xu + ab * a0;
  }

  double col_obs(int64_t j) const {
    double s = 0.0;
    for (int64_t i = i0; i < i0 + mb; ++i) s += static_cast<double>(c(i, j));
    return s;
  }

  /** Rows of the block whose row checksum fails (the location step). */
  std::vector<int64_t> failing_rows() const {
    std::vector<double> w(static_cast<size_t>(P.K)), wa(static_cast<size_t>(P.K));
    for (int64_t p = 0; p < P.K; ++p) {
      double s = 0.0, sa = 0.0;
      for (int64_t j = 0; j < pv.nb; ++j) {
        const double b = static_cast<double>(P.b(p, pv.jc + j));
        s += b;
        sa += std::fabs(b);
      }
      w[size_t(p)] = s;
      wa[size_t(p)] = sa;
    }
    checksum::GemmShape rs = shape;
    rs.mb = pv.nb;
    const double coef = checksum::gemm_fresh_coefficient<T>(shape, pv.nb);
    const double abs_t = checksum::gemm_column_abs_term<T>(rs, aa, ab);
    std::vector<int64_t> bad;
    for (int64_t i = i0; i < i0 + mb; ++i) {
      double r = 0.0, x = 0.0;
      for (int64_t p = 0; p < P.K; ++p) {
        const double a = static_cast<double>(P.a(i, p));
        r += a * w[size_t(p)];
        x += std::fabs(a) * wa[size_t(p)];
      }
      double obs = 0.0, s0 = 0.0, a0 = 0.0;
      for (int64_t j = 0; j < pv.nb; ++j) {
        obs += static_cast<double>(c(i, j));
        s0 += c0(i, j);
        a0 += std::fabs(c0(i, j));
      }
      const double ref = static_cast<double>(P.alpha) * r + static_cast<double>(P.beta) * s0;
      const double X = aa * x + ab * a0;
      if (!checkable<T>(X) || !std::isfinite(ref)) continue;
      if (!residual_ok(obs, ref, coef * X + abs_t)) bad.push_back(i);
    }
    return bad;
  }
};

}  // namespace

template <class T>
bool verify_block(const PanelView<T>& pv, int64_t i0, int64_t mb, const BlockSums& s,
                  const std::vector<int64_t>& forced_rows, const std::vector<int64_t>& forced_cols,
                  abft_report& rep) {
  const Problem<T>& P = *pv.P;
  BlockCtx<T> b{pv, P, i0, mb, {}, std::fabs(double(P.alpha)), std::fabs(double(P.beta))};
  b.shape.mb = mb;
  b.shape.k = P.K;
  b.shape.kc = pv.kc;
  b.shape.mr = pv.ks->mr;
  b.shape.beta_nonzero = pv.beta_nonzero;
  const double coef = checksum::gemm_column_coefficient<T>(b.shape);
  const double fcoef = checksum::gemm_fresh_coefficient<T>(b.shape, mb);
  const double abs_t = checksum::gemm_column_abs_term<T>(b.shape, b.aa, b.ab);
  // Flush-to-zero: a subnormal operand or checksum quantity may be lost whole
  // (at most realmin each); U_j scales how many such losses a column sees.
  const double ftz = 2.0 * b.aa * static_cast<double>(std::numeric_limits<T>::min());
  bool repaired = false;
  const bool correct = P.policy == ABFT_POLICY_CORRECT;
  const int64_t nb = pv.nb;

  rep.checks += 1;
  bool detected = false, skipped = false;
  std::vector<char> fresh_ref(static_cast<size_t>(nb), 0);
  std::vector<double> vs, va;  // block column sums of A, for fresh references
  auto need_block_sums = [&] {
    if (!vs.empty()) return;
    vs.assign(size_t(P.K), 0.0);
    va.assign(size_t(P.K), 0.0);
    for (int64_t i = i0; i < i0 + mb; ++i)
      for (int64_t p = 0; p < P.K; ++p) {
        const double a = static_cast<double>(P.a(i, p));
        vs[size_t(p)] += a;
        va[size_t(p)] += std::fabs(a);
      }
  };

  // Column j's reference, magnitudes and bound from the sums the kernel gathered.
  auto kernel_col = [&](int64_t j, double& ref, double& Xu, double& X, double& bound) {
    ref = s.ref[j] + static_cast<double>(P.beta) * s.c0sum[j];
    Xu = s.X[j];
    X = b.aa * Xu + b.ab * s.c0abs[j];
    bound = coef * X + abs_t + ftz * s.U[j];
  };
  // Columns failing the check; with fresh_obs the observed sums are re-read from C.
  auto failing_cols = [&](bool fresh_obs) {
    std::vector<int64_t> bad;
    for (int64_t j = 0; j < nb; ++j) {
      double ref, X, Xu, bound;
      if (fresh_ref[size_t(j)]) {
        need_block_sums();
        double U;
        b.fresh_col_ref(j, vs, va, ref, X, Xu, U);
        bound = fcoef * X + abs_t + ftz * U;
      } else {
        kernel_col(j, ref, Xu, X, bound);
      }
      // Xu bounds every unscaled partial sum the kernel formed in T: with
      // |alpha| < 1 those may overflow although the scaled result would not.
      if (!checkable<T>(X) || !checkable<T>(Xu) || !std::isfinite(ref)) {
        skipped = true;  // non-finite input, or an output that may overflow legitimately
        continue;
      }
      const double obs = fresh_obs ? b.col_obs(j) : s.obs[j];
      if (residual_ok(obs, ref, bound)) {
        if (bound > 0 && !repaired)  // sharpness: clean first-pass checks only
          rep.max_ratio = std::max(rep.max_ratio, std::fabs(obs - ref) / bound);
      } else {
        bad.push_back(j);
      }
    }
    return bad;
  };

  // 1. Memory faults in packed copies, located exactly by their fingerprints:
  //    the affected rows (packed A) / columns (packed B) are recomputed.
  bool fresh_obs = false;
  if (!forced_rows.empty() || !forced_cols.empty()) {
    std::vector<int64_t> rows;
    for (int64_t r : forced_rows)
      if (r >= i0 && r < i0 + mb) rows.push_back(r);
    if (!rows.empty() || !forced_cols.empty()) {
      detected = true;
      rep.detected += 1;
      if (!correct) return false;
      if (!rows.empty()) b.recompute(rows, b.all_cols());
      if (!forced_cols.empty()) b.recompute(b.all_rows(), forced_cols);
      rep.recomputed += rows.size() + forced_cols.size();
      repaired = true;
      for (int64_t j : forced_cols) fresh_ref[size_t(j)] = 1;  // their reference used the bad copy
      fresh_obs = true;
    }
  }

  // 2. Column checks (the fault-free path ends here). First the common case in one pass
  //    without branches: every column checkable and within its bound. Anything else takes
  //    failing_cols, which decides column by column; this pass has no effect then.
  if (!fresh_obs) {
    const double big = std::numeric_limits<double>::max();
    unsigned all_ok = 1;
    double worst = 0.0;
    for (int64_t j = 0; j < nb; ++j) {
      double ref, Xu, X, bound;
      kernel_col(j, ref, Xu, X, bound);
      const double d = std::fabs(s.obs[j] - ref);
      all_ok &= unsigned(checkable<T>(X)) & unsigned(checkable<T>(Xu)) &
                unsigned(std::fabs(ref) <= big) & unsigned(d <= bound);
      const double ratio = bound > 0.0 ? d / bound : 0.0;
      worst = ratio > worst ? ratio : worst;
    }
    if (all_ok) {
      rep.max_ratio = std::max(rep.max_ratio, worst);
      return true;
    }
  }
  std::vector<int64_t> F = failing_cols(fresh_obs);
  if (skipped) rep.skipped += 1;
  if (F.empty()) return true;
  if (!detected) rep.detected += 1;
  if (!correct) return false;

  // 3. Locate rows, then repair the cheapest consistent pattern.
  std::vector<int64_t> R = b.failing_rows();
  repaired = true;
  const size_t fr = R.size(), fc = F.size();
  if (fr && fr * fc <= size_t(4 * (mb + nb))) {
    b.recompute(R, F);  // isolated elements (also a full row/column pattern of few lines)
    rep.corrected += fr * fc;
  } else if (fr && fr <= size_t(mb / 4)) {
    b.recompute(R, b.all_cols());
    rep.recomputed += fr;
  } else if (fc <= size_t(nb / 4)) {
    b.recompute(b.all_rows(), F);
    rep.recomputed += fc;
  } else {
    b.recompute(b.all_rows(), b.all_cols());
    rep.recomputed += 1;
  }
  if (failing_cols(true).empty()) return true;

  // 4. Escalate: whole failing rows and columns, then the whole block.
  if (fr) b.recompute(R, b.all_cols());
  b.recompute(b.all_rows(), F);
  rep.recomputed += fr + fc;
  if (failing_cols(true).empty()) return true;
  b.recompute(b.all_rows(), b.all_cols());
  rep.recomputed += 1;
  F = failing_cols(true);
  if (F.empty()) return true;
  // 5. The block now holds values recomputed from the caller's data; if only
  //    the kernel-side reference disagrees, the fault was in the checksum
  //    itself: check the failing columns against references from the caller.
  for (int64_t j : F) fresh_ref[size_t(j)] = 1;
  if (failing_cols(true).empty()) return true;
  rep.uncorrectable += 1;
  return false;
}

template bool verify_block<float>(const PanelView<float>&, int64_t, int64_t, const BlockSums&,
                                  const std::vector<int64_t>&, const std::vector<int64_t>&,
                                  abft_report&);
template bool verify_block<double>(const PanelView<double>&, int64_t, int64_t, const BlockSums&,
                                   const std::vector<int64_t>&, const std::vector<int64_t>&,
                                   abft_report&);

}  // namespace abft::cpu::gemm
