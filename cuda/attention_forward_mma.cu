/** \file attention_forward_mma.cu
 *  \brief The fast protected attention forward: FlashAttention-2's kernel shape on the tensor
 *  cores' warp-level `mma.sync` (m16n8k16, float accumulation; warp_mma.cuh), with the checksum
 *  chain of docs/ABFT.md §10 carried in registers (§13.4 derives it and its bounds).
 *
 *  A block of 4 warps owns 64 queries of one head, each warp 16 of them; key blocks of 64 keys
 *  pass through shared memory by cp.async (V loads while the scores and the softmax are formed,
 *  the next block's K while P V runs; two barriers a block). The copy of Q stays in shared memory for the sweep and
 *  is read as mma A fragments (ldmatrix) per key block; the scores stay in registers, and their
 *  probabilities, rounded to the storage type, are the A fragments of the P V product. Each key
 *  block's P V is formed from zero per 8 output columns and added once, o = fma(o, corr, t): the
 *  CPU engine's order, which keeps the output bound independent of the row's length.
 *
 *  The checks, on data already in registers but for the score reference:
 *  - scores: every 8 key blocks (512 keys, aligned to key 0) and at the end of the sweep, each
 *    row's sum of its raw scores (one add a score) against q . (e^T K_grp), magnitude
 *    |q| . (e^T |K_grp|), from a pre-pass's float records (the group's prefix up to the block,
 *    so a sweep may stop anywhere) and the Q fragments the products read
 *    (attn_float_tile_coefficient with 512 keys and tensor-core terms);
 *  - softmax: the duplicate running maximum, compared bit for bit every block;
 *  - output: V gains 8 checksum columns a key (v_hi, v_lo, a, 1, 0, 0, 0, 0: v = sum_c V_jc split
 *    into two storage values, a = sum_c |V_jc|, a column of ones), one more n-tile of the P V
 *    product on the same probabilities and through the same rescaling: the row sums of O against
 *    (v_hi + v_lo) / l with magnitude a / l, and the normalizer l (a sum of the float
 *    probabilities, as FlashAttention-2 keeps it) against the ones column's l' (the sum of what
 *    the product actually read, within u_st l of it);
 *  - the copy of Q carries an integer fingerprint over each lane's fragments, taken when it is
 *    loaded and compared at the end.
 *  A block that fails is recomputed by the same thread block (faults land on the first pass only),
 *  re-verified and counted, as the other kernels (ABFT.md §13). The unprotected instantiation
 *  (kCheck false, the benchmarks' baseline) is the same kernel without the pre-pass, the sums,
 *  the checksum n-tile and the verdicts; injection has an instantiation of its own (kInject).
 *
 *  Scope: binary16 and bfloat16 storage, head-dim buckets 64 and 128, no additive mask, a
 *  positive finite scale, unit stride along head_dim with 16-byte aligned rows. Anything else takes
 *  attention_forward.cu's kernels (forward_launch decides). Selected by ABFT_CUDA_ATTN_TC=mma.
 *  Status (2026-12-07): compiled for sm_90 by nvcc (registers: docs/PERFORMANCE.md), run only on
 *  the CUDA emulator (tests/emu), which follows the PTX ISA's fragment layouts; never on a GPU.
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_row_check.hpp"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "attention_mma.cuh"
#include "device_state.hpp"
#include "warp_mma.cuh"

namespace abft::cuda::attn {

namespace ck = abft::checksum;
using abft::cuda::mma::cp_async_16;
using abft::cuda::mma::cp_async_commit;
using abft::cuda::mma::cp_async_wait;
using abft::cuda::mma::hi_f;
using abft::cuda::mma::lo_f;

namespace {

constexpr int kMBR = mma_tile::kRows;         ///< queries per block (16 per warp)
constexpr int kMBC = mma_tile::kRows;         ///< keys per key block
constexpr int kMThreads = mma_tile::kThreads;  ///< 4 warps
constexpr int kGroupBlocks = mma_tile::kGroup; ///< key blocks per score check (512 keys, aligned to key 0)
constexpr int kXCols = 8;                      ///< V's checksum columns per key: v_hi, v_lo, a, 1, 0, 0, 0, 0
constexpr float kNegInf = -INFINITY;
using mma_tile::a_fragment;
using mma_tile::load_tile;

/** The pre-pass's output for one call: per (batch, KV head, key block kb) 2 DM floats, the sums
 *  e^T K and e^T |K| over the keys from the start of kb's group of kGroupBlocks blocks to the end
 *  of kb (a prefix of the group); per (batch, KV head, key j < nkb * kMBC) kXCols storage values,
 *  V's checksum columns (zeros past kv_len). */
struct MmaSums {
  const float* rec = nullptr;
  const void* vx = nullptr;
  int64_t nkb = 0;
  double c_tile = 0, abs_tile = 0;  ///< the score check's bound (the same for every group)
};

/** The workspace of the pre-pass for `a` at bucket DM, as byte offsets: the float records, V's
 *  checksum columns, then each key block's column sums in double (the first pass's output). */
struct MmaWorkspace {
  int64_t rec = 0, vx = 0, part = 0, bytes = 0;
  MmaWorkspace(const AttnArgs& a, int dm) {
    const int64_t blocks = a.B * a.HK * ((a.Lk + kMBC - 1) / kMBC);
    vx = (blocks * 2 * dm * int64_t(sizeof(float)) + 15) / 16 * 16;
    part = vx + blocks * kMBC * kXCols * 2;
    bytes = part + blocks * 2 * dm * int64_t(sizeof(double));
  }
};

/** The pre-pass, first kernel: a thread block per (batch, KV head, key block kb). The block's
 *  column sums of K and |K| in double, a thread per column, keys in order, into `part`; V's
 *  checksum columns of its keys, a warp per key (lanes over columns, then a butterfly), in
 *  double, rounded to float, scaled, and split into two storage values. */
template <class T, int DM>
__global__ void __launch_bounds__(kMThreads) attn_mma_block_sums_kernel(AttnArgs a, double* part, T* vx,
                                                                        int64_t nkb) {
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int D = int(a.D);
  const int64_t units = a.B * a.HK * nkb;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t bhk = u / nkb, kb = u % nkb, b = bhk / a.HK, hk = bhk % a.HK;
    const int64_t j0 = kb * kMBC, jend = j0 + kMBC < a.Lk ? j0 + kMBC : a.Lk;
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    for (int c = tid; c < DM; c += kMThreads) {
      double s = 0.0, sa = 0.0;
      if (c < D)
        for (int64_t j = j0; j < jend; ++j) {
          const double x = double(to_f(K[j * a.ks[2] + c * a.ks[3]]));
          s += x;
          sa += fabs(x);
        }
      part[u * 2 * DM + c] = s;
      part[u * 2 * DM + DM + c] = sa;
    }
    for (int64_t j = j0 + warp; j < j0 + kMBC; j += kMThreads / 32) {
      double vs, va;
      mma_tile::warp_row_sums(V + j * a.vs[2], a.vs[3], D, j < a.Lk, lane, vs, va);
      if (lane < kXCols)
        vx[(bhk * nkb * kMBC + j) * kXCols + lane] = mma_tile::checksum_column<T>(lane, 2, vs, va, j < a.Lk);
    }
  }
}

/** The pre-pass, second kernel: a thread per (batch, KV head, group of kGroupBlocks key blocks,
 *  column): the group's prefix sums block by block, in double, each rounded once to float. */
template <int DM>
__global__ void __launch_bounds__(kMThreads) attn_mma_prefix_kernel(const double* part, float* rec, int64_t bhks,
                                                                    int64_t nkb) {
  const int64_t ngroups = (nkb + kGroupBlocks - 1) / kGroupBlocks;
  const int64_t n = bhks * ngroups * DM;
  for (int64_t idx = int64_t(blockIdx.x) * kMThreads + threadIdx.x; idx < n; idx += int64_t(gridDim.x) * kMThreads) {
    const int c = int(idx % DM);
    const int64_t grp = (idx / DM) % ngroups, bhk = idx / (DM * ngroups);
    const int64_t kb1 = (grp + 1) * kGroupBlocks < nkb ? (grp + 1) * kGroupBlocks : nkb;
    double s = 0.0, sa = 0.0;
    for (int64_t kb = grp * kGroupBlocks; kb < kb1; ++kb) {
      const int64_t u = bhk * nkb + kb;
      s += part[u * 2 * DM + c];
      sa += part[u * 2 * DM + DM + c];
      rec[u * 2 * DM + c] = float(s);
      rec[u * 2 * DM + DM + c] = float(sa);
    }
  }
}

/** The wrapping sum of the bits of this lane's share of its warp's 16 rows of the copy of Q (the
 *  fragments the products read): taken when the copy is made, compared at the end. */
template <class T, int DM, int RS>
__device__ __forceinline__ unsigned q_fingerprint(const T* Qs, int warp, int lane) {
  unsigned fp = 0;
#pragma unroll
  for (int kc = 0; kc < DM / 16; ++kc) {
    uint32_t qf[4];
    a_fragment<RS>(qf, Qs, warp, lane, kc);
    fp += qf[0] + qf[1] + qf[2] + qf[3];
  }
  return fp;
}

/** The fused forward on mma.sync. kCheck false: the unprotected kernel (the benchmarks'
 *  baseline), the same arithmetic without a checksum; kInject: the instantiation that can land
 *  planned faults (the others have no injection code). One unit u = (bh, query block); causal
 *  calls take the longest query blocks first. */
template <class T, int DM, bool kCheck, bool kInject>
__global__ void __launch_bounds__(kMThreads, DM == 64 ? 3 : 2) attn_fwd_mma_kernel(AttnArgs a, MmaSums ms, DevFaultList fl,
                                                                 DeviceCounters* cnt, RepairCounters* rep,
                                                                 int correct) {
  constexpr int RS = DM + 8;       // shared-memory row stride (16 bytes more: no bank conflicts)
  constexpr int NKC = DM / 16;     // k-chunks of Q K^T
  constexpr int NT = kMBC / 8;     // score n-tiles a block
  constexpr int NPC = kMBC / 16;   // k-chunks of P V
  constexpr int NO = DM / 8;       // output n-tiles
  static_assert(DM == 64 || DM == 128, "head-dim buckets 64 and 128");
  extern __shared__ __align__(128) unsigned char smem[];
  T* Qs = reinterpret_cast<T*>(smem);
  T* Ks = Qs + kMBR * RS;
  T* Vs = Ks + kMBC * RS;
  T* Xs = Vs + kMBC * RS;  // [kMBC][kXCols]

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t4 = lane % 4;
  const int D = int(a.D);
  const float sl2 = a.scale * mma_tile::kLog2e;  // exp(x s) = exp2(x s log2 e)
  const float sigma_inv = 1.0f / mma_tile::checksum_scale<T>();
  const int64_t nqb = (a.Lq + kMBR - 1) / kMBR;
  const int64_t units = a.B * a.H * nqb;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    // Causal calls take the longest query blocks of every head first (u runs over heads fastest).
    const int64_t bh = a.causal ? u % (a.B * a.H) : u / nqb, b = bh / a.H, h = bh % a.H, hk = h / a.G;
    const int64_t qb = a.causal ? nqb - 1 - u / (a.B * a.H) : u % nqb;
    const int64_t i0 = qb * kMBR;
    const int64_t row[2] = {i0 + 16 * warp + g, i0 + 16 * warp + g + 8};
    const bool valid[2] = {row[0] < a.Lq, row[1] < a.Lq};
    const int64_t ilast = (a.Lq < i0 + kMBR ? a.Lq : i0 + kMBR) - 1;
    int64_t kend = a.Lk;
    if (a.causal) {
      kend = ilast + a.off + 1;
      kend = kend < 0 ? 0 : kend > a.Lk ? a.Lk : kend;
    }
    const int nkb = int((kend + kMBC - 1) / kMBC);
    const T* Q = static_cast<const T*>(a.q) + b * a.qs[0] + h * a.qs[1];
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    T* O = static_cast<T*>(a.o) + b * a.os[0] + h * a.os[1];
    const int64_t bhk = b * a.HK + hk;
    // (The records of (b, hk) are addressed where they are read: fewer live registers.)

    for (int pass = 0;; ++pass) {
      const bool inject = kInject && pass == 0 && fl.n > 0;
      cp_async_wait<0>();
      __syncthreads();  // the previous unit or pass is done with shared memory
      load_tile<T, DM, RS>(Qs, Q + i0 * a.qs[2], a.qs[2], a.Lq - i0, D, tid);
      if (nkb > 0) load_tile<T, DM, RS>(Ks, K, a.ks[2], a.Lk, D, tid);
      cp_async_commit();

      unsigned fp0 = 0;
      float o[NO][4];
#pragma unroll
      for (int n = 0; n < NO; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[n][e] = 0.0f;
      float ax[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the checksum n-tile of P V
      float m[2] = {kNegInf, kNegInf}, m2[2] = {kNegInf, kNegInf}, l[2] = {0.0f, 0.0f};
      float obs[2] = {0.0f, 0.0f};
      bool bad = false, skip = false;

      for (int kb = 0; kb < nkb; ++kb) {
        const int64_t j0 = int64_t(kb) * kMBC;
        const int64_t khi = kb + 1 == nkb ? INT64_MAX : j0 + kMBC;  // kpos range of faults landing here
        // Two barriers a block: each orders one tile's copy before its reads and the other
        // tile's last reads before its next copy.
        cp_async_wait<0>();  // this block's K (and Q in the first)
        __syncthreads();     // ... visible to every warp; every warp done with the last V and Xs
        // V and its checksum columns, in flight while the scores are formed.
        load_tile<T, DM, RS>(Vs, V + j0 * a.vs[2], a.vs[2], a.Lk - j0, D, tid);
        if (kCheck && tid < kMBC)
          cp_async_16(Xs + tid * kXCols, static_cast<const T*>(ms.vx) + ((bhk * ms.nkb + kb) * kMBC + tid) * kXCols,
                      true);
        cp_async_commit();
        if (kb == 0 && kCheck) {
          fp0 = q_fingerprint<T, DM, RS>(Qs, warp, lane);
          if (inject) {
            __syncthreads();  // every fingerprint taken before a fault lands in the copy
            if (tid == 0)     // a memory fault in the copy of Q: column kpos of row r
              for (int x = 0; x < fl.n; ++x) {
                const DevFault& f = fl.f[x];
                if (f.site != ABFT_SITE_PACKED_A || f.bh != bh || f.r < i0 || f.r >= i0 + kMBR || f.r >= a.Lq ||
                    f.kpos < 0 || f.kpos >= D)
                  continue;
                T* p = Qs + (f.r - i0) * RS + f.kpos;
                *p = land<T>(fl, x, *p);
              }
            __syncthreads();  // landed before any product reads the copy
          }
        }
        // Raw scores S = Q K^T, 16 rows x 64 keys a warp.
        float s[NT][4];
#pragma unroll
        for (int n = 0; n < NT; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e) s[n][e] = 0.0f;
#pragma unroll
        for (int kc = 0; kc < NKC; ++kc) {
          uint32_t qf[4];
          a_fragment<RS>(qf, Qs, warp, lane, kc);
#pragma unroll
          for (int np = 0; np < NT / 2; ++np) {
            uint32_t kf[4];
            abft::cuda::mma::ldmatrix_x4<false>(
                kf, Ks + (np * 16 + (lane / 16) * 8 + lane % 8) * RS + kc * 16 + ((lane / 8) % 2) * 8);
            const uint32_t b0[2] = {kf[0], kf[1]}, b1[2] = {kf[2], kf[3]};
            abft::cuda::mma::mma_16816<T>(s[2 * np], qf, b0, s[2 * np]);
            abft::cuda::mma::mma_16816<T>(s[2 * np + 1], qf, b1, s[2 * np + 1]);
          }
        }

        if (inject)  // a score as computed, before its sum
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (f.site != ABFT_SITE_ATTN_SCORES || f.bh != bh || f.c < j0 || f.c >= j0 + kMBC || f.c >= a.Lk) continue;
            const int jj = int(f.c - j0);
            if ((jj % 8) / 2 != t4) continue;
#pragma unroll
            for (int n = 0; n < NT; ++n)
#pragma unroll
              for (int e = 0; e < 4; ++e)
                if (n == jj / 8 && (e & 1) == (jj & 1) && f.r == row[e / 2] && valid[e / 2])
                  s[n][e] = land<float>(fl, x, s[n][e]);
          }
        if (kCheck) {
#pragma unroll
          for (int n = 0; n < NT; ++n) {
            obs[0] += s[n][0];
            obs[0] += s[n][1];
            obs[1] += s[n][2];
            obs[1] += s[n][3];
          }
        }
        // Keys past kv_len and, on the causal diagonal, after the row's own position.
        if (j0 + kMBC > a.Lk || (a.causal && j0 + kMBC - 1 > i0 + a.off)) {
#pragma unroll
          for (int n = 0; n < NT; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int64_t key = j0 + n * 8 + 2 * t4 + (e & 1);
              if (key >= a.Lk || (a.causal && key > row[e / 2] + a.off)) s[n][e] = kNegInf;
            }
        }
        // Online softmax: the running maximum and its duplicate; probabilities in base 2.
        float corr[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          float tmax = kNegInf;
#pragma unroll
          for (int n = 0; n < NT; ++n) tmax = fmaxf(tmax, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
          tmax = lane_max(tmax);
          if (kCheck && valid[r] && __float_as_uint(m[r]) != __float_as_uint(m2[r])) bad = true;
          const float mn = fmaxf(m[r], tmax);
          corr[r] = mn == kNegInf ? 1.0f : exp2f((m[r] - mn) * sl2);
          const float msc = mn == kNegInf ? 0.0f : mn * sl2;
#pragma unroll
          for (int n = 0; n < NT; ++n) {
            s[n][2 * r] = exp2f(fmaf(s[n][2 * r], sl2, -msc));
            s[n][2 * r + 1] = exp2f(fmaf(s[n][2 * r + 1], sl2, -msc));
          }
          m[r] = mn;
          m2[r] = fmaxf(m2[r], tmax);
        }
        // The normalizer's partial (this lane's keys) sums the float probabilities; the product
        // reads them rounded to the storage type, packed as the A fragments of P V (the
        // checksum columns' l' sums what it read: the two differ by at most u_st l).
        uint32_t pa[NPC][4];
        float ts[2] = {0.0f, 0.0f};
#pragma unroll
        for (int kc = 0; kc < NPC; ++kc)
#pragma unroll
          for (int y = 0; y < 4; ++y) {
            const int n = 2 * kc + y / 2, r = y % 2;
            ts[r] += s[n][2 * r];
            ts[r] += s[n][2 * r + 1];
            pa[kc][y] = abft::cuda::mma::pack2_rn<T>(s[n][2 * r], s[n][2 * r + 1]);
          }
        l[0] = fmaf(l[0], corr[0], ts[0]);
        l[1] = fmaf(l[1], corr[1], ts[1]);
        if (inject)
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (f.bh != bh) continue;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              if (f.r != row[r] || !valid[r]) continue;
              if (fault_at(f, ABFT_SITE_ATTN_ROWSTAT, bh, row[r], -1, j0, khi)) {
                // The maximum: every lane of the row holds it; the normalizer: lane 0's partial.
                if (f.c == 0) m[r] = land<float>(fl, x, m[r], t4 == 0);
                else if (f.c == 1 && t4 == 0) l[r] = land<float>(fl, x, l[r]);
              }
              if (f.site == ABFT_SITE_ATTN_PROBS && f.c >= j0 && f.c < j0 + kMBC && f.c < a.Lk) {
                // A probability after its sum, as the product will read it.
                const int jj = int(f.c - j0);
                if ((jj % 8) / 2 != t4) continue;
                const int n = jj / 8;
#pragma unroll
                for (int kc = 0; kc < NPC; ++kc)
#pragma unroll
                  for (int y = 0; y < 4; ++y) {
                    if (2 * kc + y / 2 != n || y % 2 != r) continue;
                    // (landed on its float value, then rounded as the product reads it)
                    float lo = lo_f<T>(pa[kc][y]), hi = hi_f<T>(pa[kc][y]);
                    if (jj & 1) hi = land<float>(fl, x, hi);
                    else lo = land<float>(fl, x, lo);
                    pa[kc][y] = abft::cuda::mma::pack2_rn<T>(lo, hi);
                  }
              }
            }
          }

        cp_async_wait<0>();  // this block's V
        __syncthreads();     // ... visible to every warp; every warp done with K
        // The next block's K, in flight while P V runs.
        if (kb + 1 < nkb) {
          load_tile<T, DM, RS>(Ks, K + (j0 + kMBC) * a.ks[2], a.ks[2], a.Lk - j0 - kMBC, D, tid);
          cp_async_commit();
        }
        // O <- corr O + P V, each 8 output columns' block product from zero, added once.
#pragma unroll
        for (int np = 0; np < NO / 2; ++np) {
          float t0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, t1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
          for (int kc = 0; kc < NPC; ++kc) {
            uint32_t vf[4];
            abft::cuda::mma::ldmatrix_x4<true>(vf, Vs + (kc * 16 + ((lane / 8) % 2) * 8 + lane % 8) * RS + np * 16 +
                                                       (lane / 16) * 8);
            const uint32_t b0[2] = {vf[0], vf[1]}, b1[2] = {vf[2], vf[3]};
            abft::cuda::mma::mma_16816<T>(t0, pa[kc], b0, t0);
            abft::cuda::mma::mma_16816<T>(t1, pa[kc], b1, t1);
          }
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            o[2 * np][e] = fmaf(o[2 * np][e], corr[e / 2], t0[e]);
            o[2 * np + 1][e] = fmaf(o[2 * np + 1][e], corr[e / 2], t1[e]);
          }
        }
        if (kCheck) {  // the checksum columns: one more n-tile on the same probabilities
          float tx[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
          for (int kc = 0; kc < NPC; ++kc) {
            uint32_t xf[2];
            abft::cuda::mma::ldmatrix_x2_trans(xf, Xs + (kc * 16 + lane % 16) * kXCols);
            abft::cuda::mma::mma_16816<T>(tx, pa[kc], xf, tx);
          }
#pragma unroll
          for (int e = 0; e < 4; ++e) ax[e] = fmaf(ax[e], corr[e / 2], tx[e]);
        }
        if (kCheck && (kb % kGroupBlocks == kGroupBlocks - 1 || kb + 1 == nkb)) {
          // The group's score check (here, where the scores' registers are free again).
          float ref[2], mag[2];
          mma_tile::tile_reference<T, DM, RS>(Qs, ms.rec + (bhk * ms.nkb + kb) * 2 * DM, warp, lane, ref, mag);
          mma_tile::tile_verdicts(obs, ref, mag, valid, ms.c_tile, ms.abs_tile, bad, skip);
        }
        if (inject)  // an output accumulator element after this key block
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (f.c < 0 || f.c >= D || (f.c % 8) / 2 != t4) continue;
#pragma unroll
            for (int n = 0; n < NO; ++n)
#pragma unroll
              for (int e = 0; e < 4; ++e)
                if (n == f.c / 8 && (e & 1) == (f.c & 1) && valid[e / 2] &&
                    fault_at(f, ABFT_SITE_ATTN_ACC, bh, row[e / 2], -1, j0, khi))
                  o[n][e] = land<float>(fl, x, o[n][e]);
          }
      }

      // The rows: normalizer, output, its sums, lse.
      float lt[2];
      bool live[2];
      double rowsum[2] = {0.0, 0.0}, stored[2] = {0.0, 0.0};
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        lt[r] = lane_sum(l[r]);
        live[r] = m[r] != kNegInf || (kCheck && m2[r] != kNegInf);
      }
#pragma unroll
      for (int n = 0; n < NO; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = e / 2, c = n * 8 + 2 * t4 + (e & 1);
          if (c >= D || !valid[r]) continue;
          const float ov = live[r] ? o[n][e] / lt[r] : 0.0f;
          rowsum[r] += double(ov);
          T st = from_f<T>(ov);
          if (inject)
            for (int y = 0; y < fl.n; ++y)
              if (fault_at(fl.f[y], ABFT_SITE_OUTPUT, bh, row[r], c, 1, 0)) st = land<T>(fl, y, st);
          O[row[r] * a.os[2] + c * a.os[3]] = st;
          stored[r] += double(to_f(st));
          if (kCheck && !live[r] && to_f(st) != 0.0f) bad = true;  // a row without keys is exactly zero
        }
#pragma unroll
      for (int r = 0; r < 2; ++r)
        if (t4 == 0 && valid[r] && a.lse) a.lse[bh * a.Lq + row[r]] = live[r] ? fmaf(m[r], a.scale, logf(lt[r])) : kNegInf;
      if (!kCheck) break;

      // The output's bounds (ABFT.md §13.4): each block's product on tensor cores from zero,
      // added once; the checksum columns' own representation (v split in two storage values:
      // 2^-16 of a for bfloat16, 2^-22 for binary16; a rounded to nearest: the magnitude read low
      // by u_st); binary16's scaled columns may be subnormal: 2^-25 of absolute rounding per
      // value, times 2^8 unscaled, over v_hi, v_lo and a: below 2^-15 of the row sum.
      const double storage_u = mma_tile::storage_u<T>();
      const double storage_abs = std::is_same<T, __half>::value ? double(DM) * 0x1p-25 : 0.0;
      // (+ 2^-24: v_hi + v_lo added in float once, below.)
      const double rep_u = (std::is_same<T, __half>::value ? 0x1p-22 : 0x1p-16) + 0x1p-24;
      const double c_out =
          (ck::attn_output_coefficient<float>(3 * int64_t(kMBC), nkb, DM) + rep_u) / (1.0 - storage_u);
      // l sums the float probabilities, l' (tensor cores) their rounded values: u_st l apart.
      // (binary16 rounds probabilities below 2^-14 with an absolute error up to 2^-25 each, bfloat16
      // below 2^-126 with 2^-134: l >= 1, so kend of those are a relative term too.)
      const double c_norm = ck::attn_normalizer_coefficient<float>(3 * int64_t(kMBC), nkb) * (1.0 + storage_u) +
                            storage_u + double(kend) * (std::is_same<T, __half>::value ? 0x1p-25 : 0x1p-134);
      const double abs_out =
          ck::attn_abs_term<float>(double(kend) + DM, 0.0) + (std::is_same<T, __half>::value ? 0x1p-15 : 0.0);
      // A memory fault in the copy of Q: not data, never skipped (no key block: nothing loaded).
      const bool hard = nkb > 0 && q_fingerprint<T, DM, RS>(Qs, warp, lane) != fp0;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        // The checksum columns: v_hi, v_lo, a and the ones column's l'.
        const mma_tile::ChecksumRow cx = mma_tile::checksum_row(ax, r, lane);
        const float vhi = cx.hi, vlo = cx.lo, acca = cx.a, l2 = cx.ones;
        const double rs = lane_sum(rowsum[r]), sd = lane_sum(stored[r]);
        if (!valid[r]) continue;
        if (!live[r]) {
          if (lt[r] != 0.0f || l2 != 0.0f) bad = true;
          continue;
        }
        ck::AttnRowState st;
        st.m = m[r], st.m2 = m2[r], st.l = lt[r], st.l2 = l2, st.rowsum = rs, st.stored = sd;
        st.accv = (vhi + vlo) * sigma_inv, st.acca = acca * sigma_inv;
        // The maximum's probability is exp2 of the rounding of m c (|.| <= u |m c|), within 2 ulp:
        // at least 1 - ln 2 u |m c| - 2u (ABFT.md §13.4).
        st.l_min = 1.0 - 0x1p-24 * (std::fabs(double(m[r]) * double(sl2)) + 4.0);
        const ck::AttnVerdict v = ck::attn_row_verdict(st, c_out, c_norm, abs_out, storage_u, storage_abs);
        bad |= v == ck::AttnVerdict::Fail;
        skip |= v == ck::AttnVerdict::Skip;
      }
      if (!finish_unit_pass(hard, skip, bad, false, pass, correct, cnt, rep)) break;
    }
  }
  // No copy in flight when the block exits: a unit without keys (causal, Lq > Lk) loads its Q
  // and never waits for it (PTX leaves a cp.async outstanding at exit unspecified).
  cp_async_wait<0>();
}

template <class T, int DM>
constexpr size_t mma_smem_bytes() {
  return size_t(kMBR + 2 * kMBC) * (DM + 8) * sizeof(T) + size_t(kMBC) * kXCols * sizeof(T);
}

/** Whether `a` is inside the kernel's scope for storage element size 2 (see the file comment). */
bool mma_eligible(const AttnArgs& a) {
  if (a.mask || !(a.scale > 0.0f) || !std::isfinite(a.scale)) return false;
  if (a.D <= 0 || a.D % 8 || a.D > 128) return false;
  const int64_t* st[3] = {a.qs, a.ks, a.vs};
  const void* p[3] = {a.q, a.k, a.v};
  for (int x = 0; x < 3; ++x) {
    if (st[x][3] != 1 || reinterpret_cast<uintptr_t>(p[x]) % 16) return false;
    for (int y = 0; y < 3; ++y)
      if (st[x][y] % 8) return false;  // every row starts 16-byte aligned
  }
  return true;
}

template <class T, int DM>
abft_status launch_mma_dm(const AttnArgs& a, const DevFaultList& fl, State* st, cudaStream_t stream, bool check,
                          bool correct) {
  // The kernel's shared memory first: a refusal (NOT_SUPPORTED: the caller takes the SIMT path)
  // before any work is queued.
  constexpr size_t smem = mma_smem_bytes<T, DM>();
  auto kern = !check ? attn_fwd_mma_kernel<T, DM, false, false>
              : fl.n > 0 ? attn_fwd_mma_kernel<T, DM, true, true>
                         : attn_fwd_mma_kernel<T, DM, true, false>;
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  MmaSums ms;
  if (check) {  // the pre-pass's records in the attention workspace
    ms.nkb = (a.Lk + kMBC - 1) / kMBC;
    // Scores on tensor cores: 3 DM terms (ABFT.md §13.2); up to 512 keys a check.
    ms.c_tile = ck::attn_float_tile_coefficient<float>(kGroupBlocks * kMBC, 3 * DM, DM, 4);
    ms.abs_tile = ck::attn_float_tile_abs_term<float>(kGroupBlocks * kMBC, 3 * DM, DM);
    const MmaWorkspace ws(a, DM);
    if (!grow_device_buffer(&st->attn_work, &st->attn_work_bytes, size_t(ws.bytes))) return ABFT_STATUS_NOT_SUPPORTED;
    unsigned char* w = static_cast<unsigned char*>(st->attn_work);
    float* rec = reinterpret_cast<float*>(w + ws.rec);
    T* vx = reinterpret_cast<T*>(w + ws.vx);
    double* part = reinterpret_cast<double*>(w + ws.part);
    ms.rec = rec;
    ms.vx = vx;
    const int64_t bhks = a.B * a.HK, blocks = bhks * ms.nkb;
    if (blocks > 0) {
      const unsigned g1 = unsigned(blocks < (1 << 20) ? blocks : (1 << 20));
      attn_mma_block_sums_kernel<T, DM><<<g1, kMThreads, 0, stream>>>(a, part, vx, ms.nkb);
      const int64_t threads = bhks * ((ms.nkb + kGroupBlocks - 1) / kGroupBlocks) * DM;
      const int64_t g2 = (threads + kMThreads - 1) / kMThreads;
      attn_mma_prefix_kernel<DM><<<unsigned(g2 < (1 << 20) ? g2 : (1 << 20)), kMThreads, 0, stream>>>(part, rec, bhks,
                                                                                                     ms.nkb);
      if (cudaGetLastError() != cudaSuccess) return ABFT_STATUS_INTERNAL_ERROR;
    }
  }
  const int64_t units = a.B * a.H * ((a.Lq + kMBR - 1) / kMBR);
  if (units == 0) return ABFT_STATUS_SUCCESS;
  const unsigned grid = unsigned(units < (1 << 20) ? units : (1 << 20));
  const int kid = ABFT_KERNEL_ATTN_FWD;
  kern<<<grid, kMThreads, smem, stream>>>(a, ms, fl, st->counters + kid, st->repair + kid, correct ? 1 : 0);
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

}  // namespace

abft_status forward_mma_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                               cudaStream_t stream, bool check, bool correct) {
  if ((dtype != ABFT_CUDA_HALF && dtype != ABFT_CUDA_BFLOAT16) || !mma_eligible(a)) return ABFT_STATUS_NOT_SUPPORTED;
  const int dm = int(attn_head_dim_bucket(a.D));
  if (dm != 64 && dm != 128) return ABFT_STATUS_NOT_SUPPORTED;
  if (dtype == ABFT_CUDA_HALF)
    return dm == 64 ? launch_mma_dm<__half, 64>(a, fl, st, stream, check, correct)
                    : launch_mma_dm<__half, 128>(a, fl, st, stream, check, correct);
  return dm == 64 ? launch_mma_dm<__nv_bfloat16, 64>(a, fl, st, stream, check, correct)
                  : launch_mma_dm<__nv_bfloat16, 128>(a, fl, st, stream, check, correct);
}

}  // namespace abft::cuda::attn
