/** \file gemm_driver.cpp
 *  \brief The BLIS-style loop nest (jc -> pc -> pack B -> ic -> pack A -> jr -> ir) with the
 *  ABFT encoding inline: checksum vectors while packing, observed column sums in the tile
 *  epilogue, the reference product per B sliver while it is in L1, integer fingerprints of
 *  the packed copies, and verification per row block once a panel is complete.
 */
#include "cpu/gemm/gemm_driver.hpp"
#include "cpu/gemm/gemm_small.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "abft/checksum/bounds.hpp"
#include "abft/checksum/fault_models.hpp"
#include "abft/checksum/fingerprint.hpp"
#include "core/report.hpp"
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_pack.hpp"

namespace abft::cpu::gemm {
namespace {

using checksum::Fingerprint;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

/** Grow-only, 64-byte aligned scratch owned by the calling thread: large
 *  buffers are not re-faulted in on every call. */
class Arena {
 public:
  ~Arena() {
    for (auto& s : slots_) std::free(s.first);
  }
  void* get(size_t slot, size_t bytes) {
    if (slots_.size() <= slot) slots_.resize(slot + 1, {nullptr, 0});
    auto& s = slots_[slot];
    if (s.second < bytes) {
      std::free(s.first);
      s.first = nullptr;
      s.second = 0;
      const size_t sz = round_up(static_cast<int64_t>(bytes ? bytes : 64), 64);
      s.first = std::aligned_alloc(64, sz);
      if (!s.first) throw std::bad_alloc();
      s.second = sz;
    }
    return s.first;
  }

 private:
  std::vector<std::pair<void*, size_t>> slots_;
};
thread_local Arena t_arena;

template <class T>
T* arena_get(size_t slot, size_t count) {
  return static_cast<T*>(t_arena.get(slot, count * sizeof(T)));
}

/** Element (p, q) of the expansion a packed B sliver stands for: the sliver itself, or for a
 *  half sliver (ComplexB::half) row p / 2 as it lies (even p) or pair-swapped with the first
 *  value negated (odd p), as the half tiles form it. */
template <class T>
T sliver_value(const T* b, int64_t nr, bool half, int64_t p, int64_t q) {
  if (!half) return b[p * nr + q];
  const T* row = b + (p / 2) * nr;
  if ((p & 1) == 0) return row[q];
  return (q & 1) ? row[q - 1] : -row[q + 1];
}

/** A tile that is not a full register tile, or that a fault targets: the
 *  product goes through a local buffer and a scalar epilogue with the same
 *  arithmetic (T-precision alpha*acc, then fma with beta*C0) and the same
 *  checksum side effects as the vector epilogue. half: b is a half sliver (ks holds the half tiles). */
template <class T>
void generic_tile(const KernelSet<T>& ks, bool half, int64_t kb, const T* a, const T* b, T* c, int64_t ldc,
                  int64_t mr_e, int64_t nr_e, const Epi<T>& e, int64_t pc, int64_t ti, int64_t tj,
                  const std::vector<const InternalFault*>& acc_f,
                  const std::vector<const InternalFault*>& out_f) {
  const int mr = ks.mr, nr = ks.nr;
  alignas(64) T buf[16 * 64];
  std::fill(buf, buf + mr * nr, T(0));
  // The accumulators as they are (1 * acc, a -0 kept): the epilogue below then rounds
  // exactly as the micro-kernel's own does.
  Epi<T> raw;
  raw.alpha = T(1);
  raw.beta = T(0);
  raw.flags = 0;
  if (acc_f.empty()) {
    raw.fp = e.fp;  // the fingerprinting tile where the driver asks for it (a partial last tile)
    if (e.fp) ks.ukr_fp(kb, a, b, buf, nr, raw);
    else ks.ukr(kb, a, b, buf, nr, raw);
  } else {
    // Accumulator faults: the micro-kernel's arithmetic per element (one FMA chain from zero
    // in k order), written out so that the chain continues through the fault. Splitting the
    // chain at the fault instead would round every element of the tile differently from a
    // clean run, and those neighbours would then differ from it below any checksum bound.
    for (int64_t r = 0; r < mr_e; ++r)
      for (int64_t q = 0; q < nr_e; ++q) {
        T acc = T(0);
        size_t next = 0;  // acc_f is sorted by p
        for (int64_t p = 0; p <= kb; ++p) {
          for (; next < acc_f.size() && acc_f[next]->p - pc <= p; ++next) {
            const InternalFault* f = acc_f[next];
            if (f->i != ti + r || f->j != tj + q || f->p - pc != p) continue;
            const T before = acc;
            acc = checksum::apply_fault<T>(acc, f->f->model, f->f->bit, f->f->value);
            record_fault(*f, before, acc, e.alpha);
          }
          if (p < kb) acc = std::fma(a[p * mr + r], sliver_value(b, nr, half, p, q), acc);
        }
        buf[r * nr + q] = acc;
      }
  }

  double s_out[64], s_c0[64], s_a0[64];
  for (int64_t q = 0; q < nr_e; ++q) s_out[q] = s_c0[q] = s_a0[q] = 0.0;
  for (int64_t r = 0; r < mr_e; ++r) {
    for (int64_t q = 0; q < nr_e; ++q) {
      T out = e.alpha * buf[r * nr + q];
      if (e.flags & kLoadC) {
        const T c0 = c[r * ldc + q];
        if (e.flags & kSaveC0) e.c0[r * e.ldc0 + q] = c0;
        if (e.flags & kSumC0) {
          s_c0[q] += static_cast<double>(c0);
          s_a0[q] += std::fabs(static_cast<double>(c0));
        }
        out = std::fma(e.beta, c0, out);
      }
      for (const InternalFault* f : out_f)
        if (f->i == ti + r && f->j == tj + q) {
          const T before = out;
          out = checksum::apply_fault<T>(out, f->f->model, f->f->bit, f->f->value);
          record_fault(*f, before, out);
        }
      c[r * ldc + q] = out;
      s_out[q] += static_cast<double>(out);
    }
  }
  for (int64_t q = 0; q < nr_e; ++q) {
    if (e.flags & kSumOut) e.obs[q] += s_out[q];
    if (e.flags & kSumC0) {
      e.c0sum[q] += s_c0[q];
      e.c0abs[q] += s_a0[q];
    }
  }
}

/** Positions where a fresh re-pack differs from the packed copy (exact). */
template <class T>
void diff_positions(const T* a, const T* b, int64_t n, std::vector<int64_t>& out) {
  for (int64_t t = 0; t < n; ++t)
    if (std::memcmp(a + t, b + t, sizeof(T)) != 0) out.push_back(t);
}

struct Block {
  int64_t i0, mb;
};

/** A positive block size from the environment, or 0 (use the kernel's). */
int64_t env_block(const char* name) {
  const char* e = std::getenv(name);
  if (!e || !*e) return 0;
  const long v = std::strtol(e, nullptr, 10);
  return v > 0 && v <= (1 << 20) ? v : 0;
}

}  // namespace

template <class T>
abft_status run_gemm(Problem<T>& P, const KernelSet<T>& ks0, abft_report& rep) {
  rep = abft_report{};
  const int64_t M = P.M, N = P.N, K = P.K;
  if (M == 0 || N == 0) return ABFT_STATUS_SUCCESS;
  if (P.alpha == T(0) || K == 0) {  // BLAS: C = beta*C; A and B are not read
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T& c = P.C[i * P.ldc + j];
        c = (P.beta == T(0)) ? T(0) : P.beta * c;
      }
    return ABFT_STATUS_SUCCESS;
  }
  if (small_gemm_applies(P, ks0)) return run_small_gemm(P, ks0, rep);
  const bool checks = P.policy != ABFT_POLICY_OFF;
  const bool beta_nz = P.beta != T(0);
  const int mr = ks0.mr, nr = ks0.nr;
  // Blocking: the kernel set's, or the tuning overrides ABFT_GEMM_MC/KC/NC.
  static const int64_t env_mc = env_block("ABFT_GEMM_MC");
  static const int64_t env_kc = env_block("ABFT_GEMM_KC");
  static const int64_t env_nc = env_block("ABFT_GEMM_NC");
  // kc is balanced over the passes K needs: K = 1100 at kc = 1024 runs two passes of 560
  // rather than 1024 + 76 (the C tile is loaded and stored once per pass either way).
  const int64_t kc_max = env_kc ? env_kc : ks0.kc;
  const int64_t kc = std::min({K, kc_max, round_up(ceil_div(K, ceil_div(K, kc_max)), 16)});
  const int64_t mcx = env_mc ? env_mc : ks0.mc;
  const int64_t nc = std::min<int64_t>(round_up(env_nc ? env_nc : ks0.nc, nr), round_up(N, nr));
  // A complex expansion packs half slivers where the kernel set has the tiles for them
  // (ComplexB::half): half the packed B to write and to stream, the same arithmetic. Every
  // pass then starts on an even row of the expansion (even kc; K = 2k is even).
  const bool half = P.xb.x && ks0.ukr_half && kc % 2 == 0;
  P.xb.half = half;
  KernelSet<T> ks = ks0;
  if (half) {
    ks.ukr = ks0.ukr_half;
    ks.ukr_ref = ks0.ukr_half_ref;
    ks.ukr_fp = ks0.ukr_half_fp;
    ks.colref = ks0.colref_half;
  }
  const int64_t nchunk_max = ceil_div(kc, kChunk);
  const double babs_inflate = 1.0 + 2.0 * checksum::gamma(double(kChunk), checksum::unit_roundoff<T>());

  // Threads: split M into nt contiguous ranges of whole micro-panels, then
  // block each range by <= mc rows (balanced), so no thread idles on a tail.
  int nt = std::max(1, P.threads);
  const double work = double(M) * double(N) * double(K);
  if (work < 64.0 * 64.0 * 64.0) nt = 1;
  nt = static_cast<int>(std::min<int64_t>(nt, std::max<int64_t>(1, M / (2 * mr))));
  std::vector<Block> blocks;
  std::vector<int64_t> tblock(nt + 1, 0);
  {
    const int64_t panels = ceil_div(M, mr);
    int64_t r = 0;
    for (int t = 0; t < nt; ++t) {
      const int64_t pt = panels * (t + 1) / nt - panels * t / nt;
      const int64_t rows = std::min<int64_t>(pt * mr, M - r);
      const int64_t nbk = std::max<int64_t>(1, ceil_div(rows, mcx));
      const int64_t mcb = round_up(ceil_div(rows, nbk), mr);
      for (int64_t x = 0; x < rows; x += mcb) blocks.push_back({r + x, std::min(mcb, rows - x)});
      r += rows;
      tblock[t + 1] = static_cast<int64_t>(blocks.size());
    }
  }
  const int64_t nblocks = static_cast<int64_t>(blocks.size());
  // Partition of a block (verification follows the same thread as compute,
  // which wrote the block's C0 backup with non-temporal stores).
  auto tblock_owner = [&](int64_t bi) {
    int t = 0;
    while (tblock[t + 1] <= bi) ++t;
    return t;
  };
  int64_t mc_max = 0;
  for (const Block& b : blocks) mc_max = std::max(mc_max, round_up(b.mb, mr));

  // Faults sorted by k position so accumulator splits are applied in order.
  std::vector<const InternalFault*> faults;
  for (const InternalFault& f : P.faults) faults.push_back(&f);
  std::sort(faults.begin(), faults.end(),
            [](const InternalFault* x, const InternalFault* y) { return x->p < y->p; });

  T *bp, *ap_all, *v_all, *backup = nullptr;
  double *vs_all, *va_all, *mx_all, *sums;
  T* babs;
  const int64_t ap_size = mc_max * kc;
  const int64_t nq_max = ceil_div(nc, nr);
  try {
    bp = arena_get<T>(0, size_t(kc * nq_max * nr));
    ap_all = arena_get<T>(1, size_t(ap_size * nt));
    v_all = arena_get<T>(2, size_t(kc * nt));
    vs_all = arena_get<double>(3, size_t(kc * nt));
    va_all = arena_get<double>(4, size_t(kc * nt));
    mx_all = arena_get<double>(5, size_t(nchunk_max * nt));
    sums = arena_get<double>(6, size_t(kSumArrays * nblocks * nc));
    babs = arena_get<T>(7, size_t(nchunk_max * nc));
    if (checks && beta_nz) backup = arena_get<T>(8, size_t(M * nc));
  } catch (const std::bad_alloc&) {
    return ABFT_STATUS_ALLOC_FAILED;
  }
  std::vector<Fingerprint> fp_b(static_cast<size_t>(nq_max));
  std::vector<std::vector<int64_t>> forced_rows(static_cast<size_t>(nblocks));
  // Columns whose packed B changed, per panel. Two buffers, by panel parity: the one a panel
  // clears was last read in the verification two panels back, which every thread finished
  // before it passed the previous panel's packing barrier (so no barrier of its own).
  std::vector<char> colflag(size_t(2 * nc), 0);
  bool alloc_failed = false;
  abft_report total{};
  // Per-column arrays of each row block (see BlockSums).
  auto block_sums = [&](int64_t bi) {
    double* b = sums + kSumArrays * bi * nc;
    return BlockSums{b, b + nc, b + 2 * nc, b + 3 * nc, b + 4 * nc, b + 5 * nc};
  };

#pragma omp parallel num_threads(nt)
  {
    // OpenMP may give a smaller team than asked (nested regions, OMP_DYNAMIC,
    // thread limits): each thread then takes partitions tid, tid + team, ...
    const int tid = omp_get_thread_num(), team = omp_get_num_threads();
    abft_report my{};
    std::vector<T> scratch;  // re-pack for fingerprint location (rare path)
    std::vector<const InternalFault*> acc_f, out_f, tile_acc, tile_out;
    std::vector<int64_t> forced_cols;  // this thread's copy of the panel's colflag list
    try {
      forced_cols.reserve(size_t(nc));
      acc_f.reserve(faults.size());
      out_f.reserve(faults.size());
      tile_acc.reserve(faults.size());
      tile_out.reserve(faults.size());
    } catch (const std::bad_alloc&) {
#pragma omp atomic write
      alloc_failed = true;
    }
    int64_t cur_jc = 0, cur_nb = 0, cur_pc = 0, cur_kb = 0;  // for locate_b_fault
    char* flags = colflag.data();                             // this panel's colflag buffer
    auto locate_b_fault = [&](int64_t q) {
      try {
        // Re-pack panel q alone (as panel 0 of the shifted column range) and compare.
        const int64_t rows = half ? cur_kb / 2 : cur_kb;  // the sliver's stored rows
        scratch.resize(size_t(rows * nr));
        ks.pack_b(P, nr, cur_jc + q * nr, std::min<int64_t>(nr, cur_nb - q * nr), cur_pc, cur_kb,
                  0, 1, scratch.data(), nullptr, 0, nullptr);
        std::vector<int64_t> pos;
        diff_positions(bp + q * rows * nr, scratch.data(), rows * nr, pos);
        for (int64_t t : pos) {
          // A half sliver's element feeds its column in the even row and its pair partner's
          // in the odd one (ComplexB::half): both columns read the change.
          for (int64_t j : {t % nr, half ? (t % nr) ^ 1 : t % nr}) {
            char& flag = flags[q * nr + j];
#pragma omp atomic write
            flag = 1;
          }
        }
      } catch (const std::bad_alloc&) {
#pragma omp atomic write
        alloc_failed = true;
      }
    };

    for (int64_t jc = 0; jc < N; jc += nc) {
      const int64_t nb = std::min(nc, N - jc);
      const int64_t nq = ceil_div(nb, nr);
      flags = colflag.data() + ((jc / nc) % 2) * nc;
      // No barrier: the flags are first written after the packing barrier below (which the
      // thread that clears them reaches after clearing), and each block's sums are cleared by
      // the thread that owns the block, before its first tile (see the row-block loop).
      if (checks) {
#pragma omp single nowait
        std::fill(flags, flags + nc, 0);
      }
      for (int64_t pc = 0; pc < K; pc += kc) {
        const int64_t kb = std::min(kc, K - pc);
        const int64_t kbs = half ? kb / 2 : kb;  // rows of a packed B sliver
        const bool first = pc == 0, last = pc + kb == K;
        const int64_t nchunk = ceil_div(kb, kChunk);
        cur_jc = jc, cur_nb = nb, cur_pc = pc, cur_kb = kb;

        // ---- pack B (parallel over NR panels), |B| chunk sums, fingerprints (one pass)
#pragma omp for schedule(static)
        for (int64_t q = 0; q < nq; ++q) {
          ks.pack_b(P, nr, jc, nb, pc, kb, q, q + 1, bp, checks ? babs : nullptr, nc,
                    checks ? fp_b.data() : nullptr);
        }
        if (!faults.empty()) {
#pragma omp single
          for (const InternalFault* f : faults)
            if (f->site == InternalFault::PackB && f->p >= pc && f->p < pc + kb && f->j >= jc &&
                f->j < jc + nb) {
              const int64_t jj = f->j - jc;
              // A half sliver holds the even rows only: a fault aimed at an odd row lands on the
              // element that row is formed from (the pair partner of the row above).
              const int64_t pr = f->p - pc;
              T& x = half ? bp[(jj / nr) * kbs * nr + (pr / 2) * nr + ((pr & 1) ? (jj % nr) ^ 1 : jj % nr)]
                          : bp[(jj / nr) * kb * nr + pr * nr + jj % nr];
              const T before = x;
              x = checksum::apply_fault<T>(x, f->f->model, f->f->bit, f->f->value);
              record_fault(*f, before, x);
            }
        }

        // ---- row blocks of this thread's partitions
        for (int part = tid; part < nt; part += team) {
        T* ap = ap_all + part * ap_size;
        T* v = v_all + part * kc;
        double* vs = vs_all + part * kc;
        double* va = va_all + part * kc;
        double* mx = mx_all + part * nchunk_max;
        for (int64_t bi = tblock[part]; bi < tblock[part + 1]; ++bi) {
          const int64_t i0 = blocks[size_t(bi)].i0, mb = blocks[size_t(bi)].mb;
          const BlockSums s = block_sums(bi);
          if (checks && first) {  // a new panel: this block's sums start from zero
            for (int a = 0; a < kSumArrays; ++a)  // the panel's nb columns of each array
              std::fill_n(sums + (kSumArrays * bi + a) * nc, nb, 0.0);
            forced_rows[size_t(bi)].clear();
          }
          ks.pack_a(P, mr, i0, mb, pc, kb, ap, checks ? v : nullptr, vs, va);
          const int64_t ap_n = round_up(mb, mr) * kb;
          Fingerprint fp_a;
          if (checks) {
            fp_a = ks.fingerprint(ap, ap_n);
            for (int64_t c = 0; c < nchunk; ++c) {
              double m = 0.0;
              for (int64_t p = c * kChunk; p < std::min(kb, (c + 1) * kChunk); ++p) m = std::max(m, va[p]);
              mx[c] = m;
            }
          }
          acc_f.clear();
          out_f.clear();
          for (const InternalFault* f : faults) {
            const bool in_c = f->i >= i0 && f->i < i0 + mb && f->j >= jc && f->j < jc + nb;
            if (f->site == InternalFault::Acc && in_c && f->p >= pc && f->p < pc + kb) acc_f.push_back(f);
            if (f->site == InternalFault::Out && in_c && last) out_f.push_back(f);
            if (f->site == InternalFault::PackA && jc == 0 && f->i >= i0 && f->i < i0 + mb &&
                f->p >= pc && f->p < pc + kb) {
              const int64_t ii = f->i - i0;
              T& x = ap[(ii / mr) * mr * kb + (f->p - pc) * mr + ii % mr];
              const T before = x;
              x = checksum::apply_fault<T>(x, f->f->model, f->f->bit, f->f->value);
              record_fault(*f, before, x);
            }
          }

          Epi<T> e;
          e.alpha = P.alpha;
          e.beta = first ? P.beta : T(1);
          e.flags = (!first || beta_nz) ? unsigned(kLoadC) : 0u;
          if (checks && first && beta_nz) e.flags |= kSaveC0 | kSumC0;
          if (checks && last) e.flags |= kSumOut;
          e.ldc0 = nc;
          // The block's last tile of a sliver: the fingerprinting tile's place.
          const int64_t r_last = ((mb - 1) / mr) * mr;
          Fingerprint fp_now;
          for (int64_t j0 = 0; j0 < nb; j0 += nr) {
            const int64_t nr_e = std::min<int64_t>(nr, nb - j0);
            const T* bsl = bp + (j0 / nr) * kbs * nr;
            // The sliver's column reference rides in its first plain tile where the kernel
            // set can (ukr_ref); otherwise colref reads the sliver once more below. Its
            // fingerprint (the re-check of the packed copy) rides in the block's last tile of
            // the sliver (ukr_fp, also for a partial tile), the block's last read of it, when
            // that is not the reference's tile and no accumulator fault runs there; otherwise
            // a pass after the tiles.
            bool ref_pending = checks, fp_pending = checks;
            for (int64_t r0 = 0; r0 < mb; r0 += mr) {
              const int64_t mr_e = std::min<int64_t>(mr, mb - r0);
              const T* asl = ap + (r0 / mr) * kb * mr;
              T* c = P.C + (i0 + r0) * P.ldc + jc + j0;
              if (checks) {
                e.c0 = backup ? backup + (i0 + r0) * nc + j0 : nullptr;
                e.c0sum = s.c0sum + j0;
                e.c0abs = s.c0abs + j0;
                e.obs = s.obs + j0;
              }
              // The last tile of a sliver brings the next one this thread uses into L2: the
              // panel's next sliver, or after the last one the first, for the next row block.
              e.b_next = r0 + mr >= mb ? bp + ((j0 + nr < nb ? j0 + nr : 0) / nr) * kbs * nr : nullptr;
              bool special = mr_e != mr || nr_e != nr;
              if (!acc_f.empty() || !out_f.empty()) {
                tile_acc.clear();
                tile_out.clear();
                const int64_t ti = i0 + r0, tj = jc + j0;
                for (const InternalFault* f : acc_f)
                  if (f->i >= ti && f->i < ti + mr_e && f->j >= tj && f->j < tj + nr_e) tile_acc.push_back(f);
                for (const InternalFault* f : out_f)
                  if (f->i >= ti && f->i < ti + mr_e && f->j >= tj && f->j < tj + nr_e) tile_out.push_back(f);
                special = special || !tile_acc.empty() || !tile_out.empty();
              } else {
                tile_acc.clear();
                tile_out.clear();
              }
              const bool fp_here =
                  fp_pending && !ref_pending && ks.ukr_fp && r0 == r_last && tile_acc.empty();
              e.fp = fp_here ? &fp_now : nullptr;
              if (!special && ref_pending && ks.ukr_ref && nr_e == nr) {
                e.v = v;
                e.ref = s.ref + j0;
                ks.ukr_ref(kb, asl, bsl, c, P.ldc, e);
                ref_pending = false;
              } else if (!special) {
                if (fp_here) ks.ukr_fp(kb, asl, bsl, c, P.ldc, e);
                else ks.ukr(kb, asl, bsl, c, P.ldc, e);
              } else {
                generic_tile(ks, half, kb, asl, bsl, c, P.ldc, mr_e, nr_e, e, pc, i0 + r0, jc + j0,
                             tile_acc, tile_out);
              }
              if (fp_here) fp_pending = false;
            }
            if (checks) {
              if (ref_pending) ks.colref(kb, nr_e, v, bsl, static_cast<double>(P.alpha), s.ref + j0);
              // Memory faults in the packed B copy. This block's reference agrees with its
              // outputs about any change made before its reference read the sliver, so the
              // column check cannot see those. A fault persists: the block's last read of the
              // sliver (its last tile, or a pass here) shows every change that any of its tiles
              // could have read, exactly. A change is located by re-packing.
              if (fp_pending) fp_now = ks.fingerprint(bsl, kbs * nr);
              if (fp_now != fp_b[size_t(j0 / nr)]) locate_b_fault(j0 / nr);
            }
          }

          if (checks) {
            // Magnitude, without alpha: X_j += sum_chunks max_p(sum_i |a_ip|) *
            // sum_{p in chunk} |b_pj| (the |B| chunk sums are formed in T: see
            // pack_b for the inflation). U_j collects what flush-to-zero can
            // lose: (mb + 2) sum_p |b_pj| + sum_p sum_i |a_ip| (docs/ABFT.md).
            double asum = 0.0;
            for (int64_t c = 0; c < nchunk; ++c) asum += double(kChunk) * mx[c];
            ks.magnitudes(babs, nc, nchunk, mx, babs_inflate, babs_inflate * double(mb + 2), asum,
                          nb, s.X, s.U);
            // Memory faults in the packed A copy: exact fingerprint, exact location.
            if (ks.fingerprint(ap, ap_n) != fp_a) {
              try {
                scratch.resize(size_t(ap_n));
                ks.pack_a(P, mr, i0, mb, pc, kb, scratch.data(), nullptr, nullptr, nullptr);
                std::vector<int64_t> pos;
                diff_positions(ap, scratch.data(), ap_n, pos);
                auto& fr = forced_rows[size_t(bi)];
                for (int64_t t : pos) {
                  const int64_t row = i0 + (t / (mr * kb)) * mr + t % mr;
                  if (row < i0 + mb && std::find(fr.begin(), fr.end(), row) == fr.end()) fr.push_back(row);
                }
                // The caller's A changed under us (not a packed-copy fault): recompute the block.
                if (pos.empty())
                  for (int64_t row = i0; row < i0 + mb; ++row) fr.push_back(row);
              } catch (const std::bad_alloc&) {
#pragma omp atomic write
                alloc_failed = true;
              }
            }
          }
        }
        }  // partitions
        // The C0 backup was written with non-temporal stores: order them
        // before any thread may read the backup in the repair path.
        if (checks && first && beta_nz) std::atomic_thread_fence(std::memory_order_seq_cst);
#pragma omp barrier
      }  // pc

      // ---- verification of the finished panel, block by block
      // No barrier after it: a thread that finishes early goes on to the next panel, whose
      // buffers are either its own blocks' (sums, backup, forced rows), the other colflag
      // buffer, or the packed B, which the verification does not read.
      if (checks) {
        forced_cols.clear();
        for (int64_t j = 0; j < nb; ++j)
          if (flags[j]) forced_cols.push_back(j);
        PanelView<T> pv{&P, &ks, jc, nb, kc, backup, nc, beta_nz};
        for (int64_t bi = 0; bi < nblocks; ++bi) {
          if (tblock_owner(bi) % team != tid) continue;
          const int64_t i0 = blocks[size_t(bi)].i0, mb = blocks[size_t(bi)].mb;
          const BlockSums s = block_sums(bi);
          try {
            verify_block(pv, i0, mb, s, forced_rows[size_t(bi)], forced_cols, my);
          } catch (const std::bad_alloc&) {
#pragma omp atomic write
            alloc_failed = true;
          }
        }
      }
    }  // jc

#pragma omp critical(abft_gemm_report)
    core::add_report(total, my);
  }
  rep = total;
  if (alloc_failed) {
    rep.uncorrectable += 1;
    return ABFT_STATUS_FAULT_UNCORRECTABLE;
  }
  if (rep.uncorrectable) return ABFT_STATUS_FAULT_UNCORRECTABLE;
  if (rep.detected && P.policy == ABFT_POLICY_DETECT) return ABFT_STATUS_FAULT_DETECTED;
  return ABFT_STATUS_SUCCESS;
}

template abft_status run_gemm<float>(Problem<float>&, const KernelSet<float>&, abft_report&);
template abft_status run_gemm<double>(Problem<double>&, const KernelSet<double>&, abft_report&);

}  // namespace abft::cpu::gemm
