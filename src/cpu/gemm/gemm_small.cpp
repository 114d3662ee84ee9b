/** \file gemm_small.cpp
 *  \brief The small-M GEMM path: C (at most kSmallMaxRows rows) = alpha A B + beta C0 with B
 *  streamed as it lies, as decoding a few sequences through a model's weights needs (GEMV-like:
 *  memory bound, where packing B would cost more than the product).
 *
 *  Protection (docs/ABFT.md §1.1): the column sums of A (s = e^T A) ride along as one extra row
 *  of A, so the one pass over B also yields each column's reference r_j = s^T b_j. The bound
 *  needs the magnitude X_j = sum_p (sum_i |a_ip|) |b_pj|; a cheap lower bound of it (from the
 *  column's own outputs and reference) settles almost every column, and X_j is formed exactly
 *  (one more pass over that column of B) only for a column the cheap test does not pass — so
 *  the decisions are those of the exact bound at the cost of one extra row. A failing column is
 *  recomputed — with the same kernel, from the caller's A (the copy may be the corrupt thing),
 *  which gives the fault-free bits — and re-verified. The A copy carries an exact fingerprint,
 *  checked after the pass (a memory fault in it of any size recomputes every column). Injected
 *  faults: PACKED_A corrupts the A copy; ACCUMULATOR and OUTPUT as in the blocked engine;
 *  PACKED_B does not land (applied stays 0): this path makes no copy of B, and a fault in the
 *  caller's own B is input data to any checksum. Columns hit by a fault run through a scalar
 *  mirror of the kernel's arithmetic, so every other element keeps its clean bits.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <omp.h>

#include "abft/checksum/bounds.hpp"
#include "abft/checksum/fault_models.hpp"
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_small.hpp"

namespace abft::cpu::gemm {

namespace {

/** The per-call state. */
template <class T>
struct Small {
  Problem<T>& P;
  const KernelSet<T>& ks;
  bool trans;   ///< T orientation: B_int columns contiguous (rsb == 1)
  bool checks;  ///< row s present and columns verified
  int R;        ///< rows of the A copy: M (+ 1 with checks)
  int W;        ///< lanes of the N kernel
  std::vector<T> acopy;  ///< N: p-major [K][R]; T: row-major [R][K]
  std::vector<T> c0;     ///< C0 (M x N) when beta != 0 and checks

  Small(Problem<T>& p, const KernelSet<T>& k)
      : P(p), ks(k), trans(p.csb != 1), checks(p.policy != ABFT_POLICY_OFF),
        R(int(p.M) + (p.policy != ABFT_POLICY_OFF ? 1 : 0)), W(k.lanes) {}

  T& a_at(int r, int64_t p) { return trans ? acopy[size_t(r) * size_t(P.K) + size_t(p)] : acopy[size_t(p) * size_t(R) + size_t(r)]; }
  const T* bcol(int64_t j) const { return P.B + j * P.csb; }

  /** The A copy from the caller's A; s in double rounded once; t (for the magnitudes) kept in
   *  double. */
  std::vector<double> t;
  void build_copy() {
    acopy.assign(size_t(R) * size_t(P.K), T(0));
    if (checks) t.assign(size_t(P.K), 0.0);
    for (int64_t p = 0; p < P.K; ++p) {
      double s = 0.0, ta = 0.0;
      for (int64_t i = 0; i < P.M; ++i) {
        const T a = P.a(i, p);
        a_at(int(i), p) = a;
        s += static_cast<double>(a);
        ta += std::fabs(static_cast<double>(a));
      }
      if (checks) {
        a_at(int(P.M), p) = static_cast<T>(s);
        t[size_t(p)] = ta;
      }
    }
  }

  /** X_j = sum_p t_p |b_pj| in double (the exact magnitude, for a column the cheap test
   *  leaves open). */
  double magnitude(int64_t j) const {
    double x = 0.0;
    for (int64_t p = 0; p < P.K; ++p) x += t[size_t(p)] * std::fabs(static_cast<double>(P.B[p * P.rsb + j * P.csb]));
    return x;
  }

  /** Accumulators of column j (out[r], r < R) by the scalar mirror of the kernel, with the
   *  faults of this column (nullptr: none). */
  void mirror(int64_t j, const std::vector<const InternalFault*>* faults, T* out) const {
    const int64_t K = P.K;
    for (int r = 0; r < R; ++r) {
      auto av = [&](int64_t p) {
        return trans ? acopy[size_t(r) * size_t(K) + size_t(p)] : acopy[size_t(p) * size_t(R) + size_t(r)];
      };
      auto bv = [&](int64_t p) { return P.B[p * P.rsb + j * P.csb]; };
      auto acc_fault = [&](int64_t p, T& acc) {
        if (!faults || r >= P.M) return;
        for (const InternalFault* f : *faults)
          if (f->site == InternalFault::Acc && f->i == r && f->p == p) {
            const T before = acc;
            acc = checksum::apply_fault<T>(acc, f->f->model, f->f->bit, f->f->value);
            record_fault(*f, before, acc, P.alpha);
          }
      };
      if (!trans) {
        T acc = T(0);
        for (int64_t p = 0; p < K; ++p) {
          acc_fault(p, acc);
          acc = std::fma(av(p), bv(p), acc);
        }
        out[r] = acc;
        continue;
      }
      const int lanes = ks.lanes;
      const int64_t Kv = K - K % lanes;
      T lane[64] = {};  // lanes <= 16 (AVX-512 float): no allocation inside a parallel region
      for (int64_t p = 0; p < Kv; ++p) {
        acc_fault(p, lane[p % lanes]);
        lane[p % lanes] = std::fma(av(p), bv(p), lane[p % lanes]);
      }
      T s = lane[0];
      for (int l = 1; l < lanes; ++l) s = s + lane[l];
      for (int64_t p = Kv; p < K; ++p) {
        acc_fault(p, s);
        s = std::fma(av(p), bv(p), s);
      }
      out[r] = s;
    }
  }

  /** C(:, j) from the accumulators: alpha * acc (+ beta * C0 by one FMA), then OUTPUT faults. */
  void store(int64_t j, const T* acc, int64_t stride, const std::vector<const InternalFault*>* faults) {
    for (int64_t i = 0; i < P.M; ++i) {
      T& c = P.C[i * P.ldc + j];
      T out = P.alpha * acc[i * stride];
      if (P.beta != T(0)) out = std::fma(P.beta, c0.empty() ? c : c0[size_t(i * P.N + j)], out);
      if (faults)
        for (const InternalFault* f : *faults)
          if (f->site == InternalFault::Out && f->i == i) {
            const T before = out;
            out = checksum::apply_fault<T>(out, f->f->model, f->f->bit, f->f->value);
            record_fault(*f, before, out);
          }
      c = out;
    }
  }
};

}  // namespace

template <class T>
bool small_gemm_applies(const Problem<T>& P, const KernelSet<T>& ks) {
  return P.M >= 1 && P.M <= kSmallMaxRows && !P.xb.x && ks.small_n && ks.small_t &&
         (P.csb == 1 || P.rsb == 1) && P.K >= 1 && P.N >= 1;
}

template <class T>
abft_status run_small_gemm(Problem<T>& P, const KernelSet<T>& ks, abft_report& rep) {
  Small<T> S(P, ks);
  const int64_t M = P.M, N = P.N, K = P.K;
  const bool beta_nz = P.beta != T(0);
  S.build_copy();
  // The copy's exact fingerprint, checked again after the pass: a memory fault in it (which
  // the checksum row, formed from the caller's A, would see only above the bound) is caught
  // whatever its size, and every column is then recomputed.
  const checksum::Fingerprint fp0 =
      S.checks ? ks.fingerprint(S.acopy.data(), int64_t(S.acopy.size())) : checksum::Fingerprint{};
  // PACKED_A: the copy (s was formed from the caller's A before).
  std::vector<char> faulty(size_t(N), 0);
  for (const InternalFault& f : P.faults) {
    if (f.site == InternalFault::PackA) {
      if (f.i < 0 || f.i >= M || f.p < 0 || f.p >= K) continue;
      T& x = S.a_at(int(f.i), f.p);
      const T before = x;
      x = checksum::apply_fault<T>(x, f.f->model, f.f->bit, f.f->value);
      record_fault(f, before, x);
    } else if (f.site != InternalFault::PackB && f.j >= 0 && f.j < N) {
      faulty[size_t(f.j)] = 1;  // PACKED_B: this path makes no copy of B, so it does not land
    }
  }
  if (S.checks && beta_nz) {
    S.c0.resize(size_t(M * N));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) S.c0[size_t(i * N + j)] = P.C[i * P.ldc + j];
  }
  // The faults of each targeted column, gathered before the parallel region (no allocation,
  // hence no exception, may happen inside it).
  std::vector<std::pair<int64_t, const InternalFault*>> targeted;
  for (const InternalFault& f : P.faults)
    if ((f.site == InternalFault::Acc || f.site == InternalFault::Out) && f.j >= 0 && f.j < N)
      targeted.push_back({f.j, &f});
  auto faults_of = [&](int64_t j, std::vector<const InternalFault*>& v) {
    v.clear();
    for (const auto& t : targeted)
      if (t.first == j) v.push_back(t.second);
  };

  // Column blocks of 64 (a multiple of every lane count) across the threads. Block b's
  // columns [j0, j1): the N kernel takes its whole chunks of W, the mirror the rest and every
  // column a fault targets; the T kernel takes the columns one by one in pairs.
  const int64_t jb = 64, nblk = (N + jb - 1) / jb;
  std::vector<double> ref(S.checks ? size_t(N) : 0);
  int nt = std::max(1, P.threads);
  if (double(M) * double(N) * double(K) < 32768.0) nt = 1;
  const int R = S.R, W = S.W;
  // One column's accumulators (a pointer to row 0, rows `stride` apart) into C and ref.
  auto take = [&](int64_t j, const T* acc, int64_t stride, const std::vector<const InternalFault*>* fl) {
    S.store(j, acc, stride, fl);
    if (S.checks) ref[size_t(j)] = static_cast<double>(acc[M * stride]);
  };
  std::vector<std::vector<T>> outs(size_t(nt), std::vector<T>(size_t(R) * size_t(jb)));
  std::vector<std::vector<const InternalFault*>> fls(static_cast<size_t>(nt));
  for (auto& v : fls) v.reserve(targeted.size());
#pragma omp parallel num_threads(nt)
  {
    std::vector<T>& out = outs[size_t(omp_get_thread_num())];
    std::vector<const InternalFault*>& fl = fls[size_t(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nblk; ++b) {
      const int64_t j0 = b * jb, j1 = std::min(N, j0 + jb);
      int64_t jdone = j1;  // columns from here on go to the mirror
      if (!S.trans) {
        const int nch = int((j1 - j0) / W);
        if (nch > 0) ks.small_n(R, K, nch, S.acopy.data(), P.B + j0, P.rsb, out.data());
        for (int c = 0; c < nch; ++c)
          for (int l = 0; l < W; ++l) {
            const int64_t jj = j0 + int64_t(c) * W + l;
            if (!faulty[size_t(jj)]) take(jj, out.data() + size_t(c) * size_t(R) * size_t(W) + size_t(l), W, nullptr);
          }
        jdone = j0 + int64_t(nch) * W;
      } else {
        ks.small_t(R, K, int(j1 - j0), S.acopy.data(), K, S.bcol(j0), P.csb, out.data());
        for (int64_t jj = j0; jj < j1; ++jj)
          if (!faulty[size_t(jj)]) take(jj, out.data() + size_t(jj - j0) * size_t(R), 1, nullptr);
      }
      for (int64_t jj = j0; jj < j1; ++jj) {
        if (jj < jdone && !faulty[size_t(jj)]) continue;
        if (faulty[size_t(jj)]) faults_of(jj, fl);
        else fl.clear();
        S.mirror(jj, fl.empty() ? nullptr : &fl, out.data());
        take(jj, out.data(), 1, fl.empty() ? nullptr : &fl);
      }
    }
  }
  if (!S.checks) return ABFT_STATUS_SUCCESS;

  // Verification, column by column: |obs - (alpha r + beta sum C0)| against the bound, first
  // with a lower bound of the magnitude the column gives for free, then (only if that leaves
  // it open) with the magnitude itself.
  const double aa = std::fabs(static_cast<double>(P.alpha)), ab = std::fabs(static_cast<double>(P.beta));
  const int lanes = S.trans ? W : 1;
  const double coef = checksum::gemm_small_coefficient<T>(K, M, lanes);
  const double abs_t = checksum::gemm_small_abs_term<T>(K, M, lanes, aa);
  const double u = checksum::unit_roundoff<T>();
  // The outputs and the reference each stay within (1 + slack) of the magnitude they bound.
  const double slack = 4.0 * checksum::gamma(double(K) + 2.0 * lanes + 4.0, u);
  enum Verdict { Pass, Fail, Skip };
  auto verdict = [&](int64_t j, double& ratio) {
    double obs = 0.0, oabs = 0.0, c0s = 0.0, c0a = 0.0;
    for (int64_t i = 0; i < M; ++i) {
      const double c = static_cast<double>(P.C[i * P.ldc + j]);
      obs += c;
      oabs += std::fabs(c);
      if (beta_nz) {
        const double c0 = static_cast<double>(S.c0[size_t(i * N + j)]);
        c0s += c0;
        c0a += std::fabs(c0);
      }
    }
    const double r = ref[size_t(j)];
    const double expect = static_cast<double>(P.alpha) * r + static_cast<double>(P.beta) * c0s;
    const double c0term = 3.0 * u * ab * c0a * (1.0 + coef);
    if (std::isfinite(obs) && std::isfinite(expect) && checksum::checkable<T>(oabs) &&
        checksum::checkable<T>(ab * c0a)) {
      // A lower bound of |alpha| X_j: the outputs (less beta C0) and the reference.
      const double lower = std::max(std::max(0.0, oabs - ab * c0a * (1.0 + slack)), aa * std::fabs(r)) /
                           (1.0 + slack);
      const double bound = coef * lower + c0term + abs_t;
      if (checksum::residual_ok(obs, expect, bound)) {
        ratio = std::fabs(obs - expect) / std::max(bound, std::numeric_limits<double>::min());
        return Pass;
      }
    }
    // Xu also bounds every unscaled sum the kernel formed in T: with |alpha| < 1 those may
    // overflow although the scaled result would not.
    const double Xu = S.magnitude(j), X = aa * Xu;
    if (!checksum::checkable<T>(Xu) || !checksum::checkable<T>(X) || !checksum::checkable<T>(ab * c0a) ||
        !std::isfinite(c0s))
      return Skip;  // non-finite input, or an output that may overflow legitimately
    const double bound = coef * X + c0term + abs_t;
    ratio = bound > 0.0 ? std::fabs(obs - expect) / bound : 0.0;
    return checksum::residual_ok(obs, expect, bound) ? Pass : Fail;
  };
  std::vector<int64_t> bad;
  bool any_skipped = false;
  double max_ratio = 0.0;
  const bool copy_changed = ks.fingerprint(S.acopy.data(), int64_t(S.acopy.size())) != fp0;
  rep.checks += uint64_t(nblk) + 1;
  for (int64_t j = 0; j < N; ++j) {
    double ratio = 0.0;
    const Verdict v = verdict(j, ratio);
    if (v == Fail || copy_changed) bad.push_back(j);
    if (v == Pass) max_ratio = std::max(max_ratio, ratio);
    else if (v == Skip) any_skipped = true;
  }
  if (any_skipped) rep.skipped += 1;
  rep.max_ratio = std::max(rep.max_ratio, max_ratio);
  if (bad.empty()) return ABFT_STATUS_SUCCESS;
  rep.detected += copy_changed ? 1 : bad.size();
  if (P.policy != ABFT_POLICY_CORRECT) return ABFT_STATUS_FAULT_DETECTED;

  // Repair: a fresh copy of A; each failing column recomputed with its reference by the
  // kernel that computed it in the clean case (the mirror for a column past the last whole
  // chunk of its block), then verified again.
  P.faults.clear();
  S.build_copy();
  std::vector<T> out(size_t(R) * size_t(std::max(W, 2)));
  std::vector<T> before(static_cast<size_t>(M));
  bool left = false;
  for (int64_t j : bad) {
    for (int64_t i = 0; i < M; ++i) before[size_t(i)] = P.C[i * P.ldc + j];
    const int64_t blk0 = (j / jb) * jb, blk1 = std::min(N, blk0 + jb);
    const int64_t jc = blk0 + ((j - blk0) / W) * W;
    if (S.trans) {
      ks.small_t(R, K, 1, S.acopy.data(), K, S.bcol(j), P.csb, out.data());
      take(j, out.data(), 1, nullptr);
    } else if (jc + W <= blk1) {
      ks.small_n(R, K, 1, S.acopy.data(), P.B + jc, P.rsb, out.data());
      take(j, out.data() + (j - jc), W, nullptr);
    } else {
      S.mirror(j, nullptr, out.data());
      take(j, out.data(), 1, nullptr);
    }
    if (!copy_changed) rep.recomputed += 1;  // one column (a corrupt copy: one product, below)
    for (int64_t i = 0; i < M; ++i) {
      const T now = P.C[i * P.ldc + j];
      if (std::memcmp(&now, &before[size_t(i)], sizeof(T)) != 0) rep.corrected += 1;
    }
    double ratio = 0.0;
    if (verdict(j, ratio) == Fail) {
      rep.uncorrectable += 1;
      left = true;
    }
  }
  if (copy_changed) rep.recomputed += 1;
  return left ? ABFT_STATUS_FAULT_UNCORRECTABLE : ABFT_STATUS_SUCCESS;
}

template bool small_gemm_applies<float>(const Problem<float>&, const KernelSet<float>&);
template bool small_gemm_applies<double>(const Problem<double>&, const KernelSet<double>&);
template abft_status run_small_gemm<float>(Problem<float>&, const KernelSet<float>&, abft_report&);
template abft_status run_small_gemm<double>(Problem<double>&, const KernelSet<double>&, abft_report&);

}  // namespace abft::cpu::gemm
