/** \file attention_backward.cu
 *  \brief The protected attention backward on the GPU: two fused SIMT kernels, each recomputing
 *  the scores S = scale Q K^T + mask and P = exp(S - lse) tile by tile (nothing seq x seq is
 *  stored), so that every output has one owner and no atomics are needed:
 *    - dK/dV: a block per (batch, KV head, key block of kBC keys), sweeping the query blocks of
 *      every query head of the group (FlashAttention-2 order);
 *    - dQ: a block per (batch, head, query block of kBR queries), sweeping its key blocks.
 *  The checksum chain is the CPU engine's (docs/ABFT.md §10.3) on the forward's layout (§13):
 *    S^T and dP^T = V dO^T  by their query-side sums against (e^T K_blk) sq_i, (e^T V_blk) dO_i
 *                           in float (attn_float_tile_coefficient, attn_tile_verdict, as the
 *                           forward; the key block's sums from the pre-pass, attention_key_sums.cu);
 *    P and dS = P o (dP - D) finite, P >= 0 (elementwise: no linear checksum passes them);
 *    dV += P^T dO, dK += dS^T Q  per key block: column sums of the finished rows against
 *                           sum over tiles of p^T dO and d^T Q, p_i = sum_j P_ij, d_i = sum_j dS_ij
 *                           taken from the values the products read (attn_bwd_accumulated_coefficient);
 *    dQ += dS K             per query block: column sums against sum over key blocks of w^T K,
 *                           w_j = sum_i dS_ij.
 *  The gradients are checked as computed (float) and, stored in binary16 / bfloat16, once more as
 *  stored (attn_grad_verdict). D_i = dO_i . O_i is formed in double from the caller's O and dO and
 *  rounded to float (not checked, as on the CPU). A unit that fails is recomputed from the
 *  caller's inputs by the same block (faults land on the first pass only) and re-verified; the
 *  counts go to the handle's device counters under ABFT_KERNEL_ATTN_BWD (abft_cuda_sync).
 *  Non-finite data (Q, K, V, O, dO not finite or overflowing a tile's sums, lse NaN or +inf, a
 *  +inf / NaN mask entry or a finite one that overflows a score) skips the unit's checks (counted
 *  skipped; the gradients are what the unprotected arithmetic gives); a Skip from a gradient
 *  verdict after a failed check is the failure's echo and does not hide it (attn_unit_outcome).
 *
 *  Injection (attention.h coordinates): ATTN_SCORES and ATTN_DP before their sums and ATTN_DS after
 *  them, in both kernels (each recomputes those values); ATTN_PROBS in the dK/dV kernel, on the
 *  probability the P^T dO product reads (after its sum; the dQ kernel only forms dS from P);
 *  ATTN_DK / ATTN_DV on a key's accumulator after head h's query block holding kpos; ATTN_DQ on a
 *  query's accumulator after the key block holding kpos. PACKED_A does not land here.
 *
 *  Thread layout (attention_device.cuh): 128 threads; in the tile phase four lanes share a query
 *  row qi = tid / 4 and lane r holds keys j = r + 4t; in the dK/dV accumulation the same four
 *  lanes share a key row j = tid / 4 and lane r holds head_dim columns c = r + 4a; sums of whole
 *  columns (references, observed sums) are owned by one thread per column (c = tid, tid + 128).
 *  Status: compiled for sm_90; run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12).
 *  The pre-pass's records and the tile checks in float (2026-12-02, ABFT.md §13.3): not yet run.
 */
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_bwd_check.hpp"
#include "abft/checksum/attention_row_check.hpp"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "device_state.hpp"

namespace abft::cuda::attn {

namespace ck = abft::checksum;

namespace {

static_assert(kBR == kBC, "the tile phase and the dK/dV accumulation share the row mapping tid / kLanes");
constexpr float kNegInf = -INFINITY;
constexpr int kPS = kBC + 1;  ///< row stride of the P and dS tiles in shared memory

/** Shared memory of either kernel for head-dim bucket DM: 8 DM + 3 kBR doubles, four kBR x (DM + 1)
 *  float tiles (Q, dO, K, V) and two kBR x (kBC + 1) tiles (P, dS). */
constexpr size_t bwd_smem_bytes(int dm) {
  return size_t(8 * dm + 3 * kBR) * sizeof(double) +
         size_t(4 * kBR * (dm + 1) + 2 * kBR * kPS) * sizeof(float);
}

template <class T>
__device__ __forceinline__ ck::NumFormat storage_format() {
  return std::is_same<T, __half>::value ? ck::NumFormat::F16
         : std::is_same<T, __nv_bfloat16>::value ? ck::NumFormat::BF16
                                                   : ck::NumFormat::F32;
}

/** x with every fault of `site` at (bh, row, col) landed on it (several may share a value). */
__device__ __forceinline__ float land_all(const DevFaultList& fl, int site, int64_t bh, int64_t row, int64_t col,
                                          float x) {
  for (int f = 0; f < fl.n; ++f) {
    const DevFault& ft = fl.f[f];
    if (ft.site == site && ft.bh == bh && ft.r == row && ft.c == col) x = land<float>(fl, f, x);
  }
  return x;
}

/** Pointers and strides of one query head (b, h): Q, dO, O, the mask, and the head's dQ. */
template <class T>
struct HeadView {
  const T* q;
  const T* dO;
  const T* o;
  const T* m;
};
template <class T>
__device__ __forceinline__ HeadView<T> head_view(const AttnArgs& a, const AttnBwdPtrs& g, int64_t b, int64_t h) {
  HeadView<T> v;
  v.q = static_cast<const T*>(a.q) + b * a.qs[0] + h * a.qs[1];
  v.dO = static_cast<const T*>(g.dO) + b * a.os[0] + h * a.os[1];
  v.o = static_cast<const T*>(a.o) + b * a.os[0] + h * a.os[1];
  v.m = a.mask ? static_cast<const T*>(a.mask) + b * a.ms[0] + h * a.ms[1] : nullptr;
  return v;
}

/** Load rows r0 .. r0 + 31 of a [len, D] view (row stride rs, column stride cs) into a kBR x RS
 *  float tile, zeros past `len` rows and past D columns. */
template <class T, int DM>
__device__ __forceinline__ void load_tile(float* dst, const T* src, int64_t r0, int64_t len, int D, int64_t rs,
                                          int64_t cs) {
  constexpr int RS = DM + 1;
  for (int idx = threadIdx.x; idx < kBR * DM; idx += kThreads) {
    const int r = idx / DM, c = idx % DM;
    dst[r * RS + c] = (c < D && r0 + r < len) ? to_f(src[(r0 + r) * rs + c * cs]) : 0.0f;
  }
}

/** Column sums of the K and V tiles (their first nk rows) in double, rounded to float once: the
 *  references and magnitudes of the score and dP tile checks (in float, docs/ABFT.md §13.3). */
template <int DM>
__device__ __forceinline__ void kv_sums(const float* Ks, const float* Vs, int nk, float* ksum, float* kabs,
                                        float* vsum, float* vabs) {
  tile_column_sums(Ks, DM + 1, nk, DM, ksum, kabs);
  tile_column_sums(Vs, DM + 1, nk, DM, vsum, vabs);
}

/** The same sums from the pre-pass's record of the key block (KeySums, `!rows` layout): the
 *  bits kv_sums would form over the block's keys. */
template <int DM>
__device__ __forceinline__ void kv_sums_of(const float* rec, float* ksum, float* kabs, float* vsum, float* vabs) {
  for (int c = threadIdx.x; c < DM; c += kThreads) {
    ksum[c] = rec[c];
    kabs[c] = rec[DM + c];
    vsum[c] = rec[2 * DM + c];
    vabs[c] = rec[3 * DM + c];
  }
}

/** lse_i and D_i = dO_i . O_i (double, rounded to float once) of the thread's query row; every
 *  lane of the row ends with the same values. `skip` when they are data that no check can
 *  trust: lse NaN or +inf, D not finite (O or dO not finite, or the dot product overflows).
 *  All 32 threads of a warp call it. */
template <class T, int DM>
__device__ __forceinline__ void row_stats(const AttnArgs& a, const HeadView<T>& hv, const float* dOs, int qi, int lane,
                                          int64_t bh, int64_t i, bool qvalid, float& lse, float& Drow, bool& skip) {
  constexpr int RS = DM + 1;
  const int D = int(a.D);
  double acc = 0.0;
  if (qvalid)
    for (int c = lane; c < D; c += kLanes) acc += double(dOs[qi * RS + c]) * double(to_f(hv.o[i * a.os[2] + c * a.os[3]]));
  acc = lane_sum(acc);
  Drow = float(acc);
  lse = qvalid ? a.lse[bh * a.Lq + i] : kNegInf;
  if (qvalid && (!(fabsf(Drow) <= FLT_MAX) || lse != lse || lse == INFINITY)) skip = true;
}

/** One (query block, key block) tile for the thread's query row i (qi, lane) and keys
 *  j0 + lane + 4t: scores and dP as dot products of DM terms in order (FMA), their query-side
 *  checks, then P = exp(S + mask - lse) and dS = P (dP - D) with their elementwise checks.
 *  Keys past nk, padding rows and rows without an admissible key (lse = -inf) give P = dS = 0.
 *  SCORES and DP faults land before the observed sums. All 32 threads of a warp call it. */
template <class T, int DM, bool kCheck>
__device__ __forceinline__ void tile_probs(const AttnArgs& a, const HeadView<T>& hv, const float* Qs,
                                           const float* dOs, const float* Ks, const float* Vs, const float* ksum,
                                           const float* kabs, const float* vsum, const float* vabs, int qi,
                                           int lane, int64_t bh, int64_t i, bool qvalid, int64_t j0, int nk,
                                           float lse, float Drow, bool inject, const DevFaultList& fl,
                                           bool& bad, bool& skip, float (&p)[kKeysPerLane],
                                           float (&ds)[kKeysPerLane]) {
  constexpr int RS = DM + 1;
  float s[kKeysPerLane], dp[kKeysPerLane];
#pragma unroll
  for (int t = 0; t < kKeysPerLane; ++t) s[t] = dp[t] = 0.0f;
  for (int d = 0; d < DM; ++d) {
    const float q = a.scale * Qs[qi * RS + d], o = dOs[qi * RS + d];
#pragma unroll
    for (int t = 0; t < kKeysPerLane; ++t) {
      const int j = lane + kLanes * t;
      s[t] = fmaf(q, Ks[j * RS + d], s[t]);
      dp[t] = fmaf(o, Vs[j * RS + d], dp[t]);
    }
  }
  if (kCheck) {  // in float, as the forward's (ABFT.md §13.3): no double operation per tile
    float os = 0.0f, od = 0.0f;
#pragma unroll
    for (int t = 0; t < kKeysPerLane; ++t) {
      const int j = lane + kLanes * t;
      if (j >= nk) continue;
      if (inject && qvalid) {
        s[t] = land_all(fl, ABFT_SITE_ATTN_SCORES, bh, i, j0 + j, s[t]);
        dp[t] = land_all(fl, ABFT_SITE_ATTN_DP, bh, i, j0 + j, dp[t]);
      }
      os += s[t];
      od += dp[t];
    }
    float rs = 0.0f, ms = 0.0f, rd = 0.0f, md = 0.0f;
    for (int c = lane; c < DM; c += kLanes) {
      const float q = a.scale * Qs[qi * RS + c], o = dOs[qi * RS + c];
      rs = fmaf(q, ksum[c], rs);
      ms = fmaf(fabsf(q), kabs[c], ms);
      rd = fmaf(o, vsum[c], rd);
      md = fmaf(fabsf(o), vabs[c], md);
    }
    os = lane_sum(os);
    od = lane_sum(od);
    rs = lane_sum(rs);
    ms = lane_sum(ms);
    rd = lane_sum(rd);
    md = lane_sum(md);
    if (qvalid) {
      const double c_tile = ck::attn_float_tile_coefficient<float>(kBC, DM, DM, kLanes);
      const double abs_tile = ck::attn_float_tile_abs_term<float>(kBC, DM, DM);
      const ck::AttnVerdict v1 = ck::attn_tile_verdict(os, rs, ms, c_tile, abs_tile);
      const ck::AttnVerdict v2 = ck::attn_tile_verdict(od, rd, md, c_tile, abs_tile);
      bad |= v1 == ck::AttnVerdict::Fail || v2 == ck::AttnVerdict::Fail;
      skip |= v1 == ck::AttnVerdict::Skip || v2 == ck::AttnVerdict::Skip;
    }
  }
#pragma unroll
  for (int t = 0; t < kKeysPerLane; ++t) {
    const int j = lane + kLanes * t;
    const int64_t jj = j0 + j;
    float pp = 0.0f, dd = 0.0f;
    if (j < nk && qvalid && lse != kNegInf) {
      float x = s[t];
      if (hv.m) {
        const float mv = to_f(hv.m[i * a.ms[2] + jj * a.ms[3]]);
        if (mv != mv || mv == INFINITY) skip = true;
        x += mv;
        if (x == INFINITY) skip = true;  // a finite mask that overflows the score: data
      }
      if (a.causal && jj > i + a.off) x = kNegInf;
      pp = expf(x - lse);
      dd = pp * (dp[t] - Drow);
      if (kCheck && (!(pp >= 0.0f && pp <= FLT_MAX) || !(fabsf(dd) <= FLT_MAX))) bad = true;
    }
    p[t] = pp;
    ds[t] = dd;
  }
}

/** dK and dV of one key block per unit u = (b * kv_heads + hk) * nkb + kb. */
template <class T, int DM, bool kCheck>
__global__ void __launch_bounds__(kThreads) attn_bwd_dkdv_kernel(AttnArgs a, AttnBwdPtrs g, KeySums ks,
                                                                  DevFaultList fl, DeviceCounters* cnt,
                                                                  RepairCounters* rep, int correct) {
  constexpr int RS = DM + 1;
  constexpr int NA = DM / kLanes;
  extern __shared__ __align__(16) unsigned char smem[];
  // The key block's column sums (float, in the first 4 DM double slots; their upper half unused).
  float* ksum = reinterpret_cast<float*>(smem);
  float* kabs = ksum + DM;
  float* vsum = kabs + DM;
  float* vabs = vsum + DM;
  double* refV = reinterpret_cast<double*>(smem) + 4 * DM;  // sum over tiles of p^T dO, and its magnitude
  double* magV = refV + DM;
  double* refK = magV + DM;  // sum over tiles of d^T Q (unscaled), and its magnitude
  double* magK = refK + DM;
  double* rowp = magK + DM;  // per query row of the tile: p_i, d_i, sum_j |dS_ij|
  double* rowd = rowp + kBR;
  double* rowa = rowd + kBR;
  float* Ks = reinterpret_cast<float*>(rowa + kBR);
  float* Vs = Ks + kBC * RS;
  float* Qs = Vs + kBC * RS;
  float* dOs = Qs + kBR * RS;
  float* Ps = dOs + kBR * RS;
  float* dSs = Ps + kBR * kPS;

  const int tid = threadIdx.x, row = tid / kLanes, lane = tid % kLanes;  // row: qi in the tile phase, kj after
  const int D = int(a.D);
  const int64_t nkb = (a.Lk + kBC - 1) / kBC, units = a.B * a.HK * nkb;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t b = u / (a.HK * nkb), hk = (u / nkb) % a.HK, j0 = (u % nkb) * kBC;
    const int nk = block_keys(a.Lk, j0);
    const bool kvalid = row < nk;
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    T* dK = static_cast<T*>(g.dk) + b * a.ks[0] + hk * a.ks[1];
    T* dV = static_cast<T*>(g.dv) + b * a.vs[0] + hk * a.vs[1];

    for (int pass = 0;; ++pass) {
      const bool inject = kCheck && pass == 0 && fl.n > 0;
      __syncthreads();  // the previous unit or pass is done with shared memory
      load_tile<T, DM>(Ks, K, j0, a.Lk, D, a.ks[2], a.ks[3]);
      load_tile<T, DM>(Vs, V, j0, a.Lk, D, a.vs[2], a.vs[3]);
      if (kCheck)
        for (int c = tid; c < DM; c += kThreads) refV[c] = magV[c] = refK[c] = magK[c] = 0.0;
      __syncthreads();
      // Read after the next barrier. The pre-pass's record on the first pass (where the tile's
      // keys are the record's, as every reader asks: KeySums::covers); a repair forms its own.
      if (kCheck && pass == 0 && ks.p && KeySums::covers(a.Lk, j0, nk)) kv_sums_of<DM>(ks.at<float>(b, hk, a.HK, u % nkb), ksum, kabs, vsum, vabs);
      else if (kCheck) kv_sums<DM>(Ks, Vs, nk, ksum, kabs, vsum, vabs);

      float dv[NA], dk[NA], tp[NA];
#pragma unroll
      for (int x = 0; x < NA; ++x) dv[x] = dk[x] = 0.0f;
      bool bad = false, skip_in = false, skip_out = false;
      int chunks = 0;
      for (int64_t gi = 0; gi < a.G; ++gi) {
        const int64_t h = hk * a.G + gi, bh = b * a.H + h;
        const HeadView<T> hv = head_view<T>(a, g, b, h);
        for (int64_t qb = 0; qb < a.nqb; ++qb) {
          const int64_t i0 = qb * kBR;
          const int nq = int(a.Lq - i0 < kBR ? a.Lq - i0 : kBR);
          if (a.causal && i0 + nq - 1 + a.off < j0) continue;  // no query of the block sees these keys
          ++chunks;
          __syncthreads();  // the previous tile is done with Q, dO, P, dS and the row sums
          load_tile<T, DM>(Qs, hv.q, i0, a.Lq, D, a.qs[2], a.qs[3]);
          load_tile<T, DM>(dOs, hv.dO, i0, a.Lq, D, a.os[2], a.os[3]);
          __syncthreads();
          // Tile phase: query row `row` of the block, keys lane + 4t.
          const int64_t i = i0 + row;
          const bool qvalid = row < nq;
          float lse, Drow;
          row_stats<T, DM>(a, hv, dOs, row, lane, bh, i, qvalid, lse, Drow, skip_in);
          float p[kKeysPerLane], ds[kKeysPerLane];
          tile_probs<T, DM, kCheck>(a, hv, Qs, dOs, Ks, Vs, ksum, kabs, vsum, vabs, row, lane, bh, i, qvalid, j0, nk,
                                    lse, Drow, inject, fl, bad, skip_in, p, ds);
          if (kCheck) {  // the row's sums over the block's keys, from the values the products read
            double sp = 0.0, sd = 0.0, sa = 0.0;
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
              sp += double(p[t]);
              sd += double(ds[t]);
              sa += fabs(double(ds[t]));
            }
            sp = lane_sum(sp);
            sd = lane_sum(sd);
            sa = lane_sum(sa);
            if (lane == 0) {
              rowp[row] = sp;
              rowd[row] = sd;
              rowa[row] = sa;
            }
          }
          if (inject && qvalid) {  // a probability or dS corrupted after it was summed
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) {
              const int j = lane + kLanes * t;
              if (j >= nk) continue;
              p[t] = land_all(fl, ABFT_SITE_ATTN_PROBS, bh, i, j0 + j, p[t]);
              ds[t] = land_all(fl, ABFT_SITE_ATTN_DS, bh, i, j0 + j, ds[t]);
            }
          }
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) {
            Ps[row * kPS + lane + kLanes * t] = p[t];
            dSs[row * kPS + lane + kLanes * t] = ds[t];
          }
          __syncthreads();
          // Accumulation: key row `row`, columns lane + 4x; each tile's partial from zero, then
          // one add into the running sum (attn_bwd_accumulated_coefficient).
#pragma unroll
          for (int x = 0; x < NA; ++x) tp[x] = 0.0f;
          for (int r = 0; r < kBR; ++r) {
            const float pv = Ps[r * kPS + row];
#pragma unroll
            for (int x = 0; x < NA; ++x) tp[x] = fmaf(pv, dOs[r * RS + lane + kLanes * x], tp[x]);
          }
#pragma unroll
          for (int x = 0; x < NA; ++x) {
            dv[x] += tp[x];
            tp[x] = 0.0f;
          }
          for (int r = 0; r < kBR; ++r) {
            const float sv = dSs[r * kPS + row];
#pragma unroll
            for (int x = 0; x < NA; ++x) tp[x] = fmaf(sv, Qs[r * RS + lane + kLanes * x], tp[x]);
          }
#pragma unroll
          for (int x = 0; x < NA; ++x) dk[x] += tp[x];
          if (inject && kvalid) {  // a key's accumulator after head h's query block holding kpos
            const bool last = qb + 1 == a.nqb;
            for (int f = 0; f < fl.n; ++f) {
              const DevFault& ft = fl.f[f];
              if ((ft.site != ABFT_SITE_ATTN_DK && ft.site != ABFT_SITE_ATTN_DV) || ft.bh != bh ||
                  ft.r != j0 + row || ft.c < 0 || ft.c >= D || ft.c % kLanes != lane)
                continue;
              if (!((ft.kpos >= i0 && ft.kpos < i0 + nq) || (last && ft.kpos >= i0 + nq))) continue;
              const int want = int(ft.c / kLanes);
#pragma unroll
              for (int x = 0; x < NA; ++x)
                if (x == want) {
                  if (ft.site == ABFT_SITE_ATTN_DV) dv[x] = land<float>(fl, f, dv[x]);
                  else dk[x] = land<float>(fl, f, dk[x]);
                }
            }
          }
          if (kCheck)  // the references: one thread per column, over the tile's query rows
            for (int c = tid; c < DM; c += kThreads) {
              double rv = refV[c], mv = magV[c], rk = refK[c], mk = magK[c];
              for (int r = 0; r < kBR; ++r) {
                const double o = dOs[r * RS + c], q = Qs[r * RS + c];
                rv += rowp[r] * o;
                mv += rowp[r] * fabs(o);
                rk += rowd[r] * q;
                mk += rowa[r] * fabs(q);
              }
              refV[c] = rv;
              magV[c] = mv;
              refK[c] = rk;
              magK[c] = mk;
            }
        }
      }

      // Store the key block's rows; stage what was computed and what was stored for the sums.
      __syncthreads();  // every tile is done with Q, dO, K, V
      float* cV = Qs;  // computed dV, computed dK (scaled), stored dV, stored dK: [kBC][RS] each
      float* cK = dOs;
      float* sV = Ks;
      float* sK = Vs;
#pragma unroll
      for (int x = 0; x < NA; ++x) {
        const int c = lane + kLanes * x;
        const float yv = dv[x], yk = a.scale * dk[x];
        const T tv = from_f<T>(yv), tk = from_f<T>(yk);
        const bool live = kvalid && c < D;
        if (live) {
          dV[(j0 + row) * a.vs[2] + c * a.vs[3]] = tv;
          dK[(j0 + row) * a.ks[2] + c * a.ks[3]] = tk;
        }
        if (kCheck) {
          cV[row * RS + c] = live ? yv : 0.0f;
          cK[row * RS + c] = live ? yk : 0.0f;
          sV[row * RS + c] = live ? to_f(tv) : 0.0f;
          sK[row * RS + c] = live ? to_f(tk) : 0.0f;
        }
      }
      if (!kCheck) break;
      __syncthreads();
      {
        const double coef = ck::attn_bwd_accumulated_coefficient<float>(kBR, chunks, kBC, nk);
        const double sabs = fabs(double(a.scale));
        const double absV = ck::attn_bwd_abs_term<float>(kBR, chunks, nk, 1.0);
        const double absK = ck::attn_bwd_abs_term<float>(kBR, chunks, nk, sabs);
        const ck::AttnGradStorage sto = ck::attn_grad_storage(storage_format<T>());
        for (int c = tid; c < D; c += kThreads) {
          ck::AttnGradColumn gv, gk;
          for (int j = 0; j < nk; ++j) {
            gv.obs += double(cV[j * RS + c]);
            gk.obs += double(cK[j * RS + c]);
            gv.stored += double(sV[j * RS + c]);
            gk.stored += double(sK[j * RS + c]);
          }
          gv.ref = refV[c];
          gv.mag = gv.peak = magV[c];
          gk.ref = double(a.scale) * refK[c];
          gk.mag = sabs * magK[c];
          gk.peak = gk.mag > magK[c] ? gk.mag : magK[c];
          const ck::AttnVerdict v1 = ck::attn_grad_verdict(gv, coef, absV, nk, sto);
          const ck::AttnVerdict v2 = ck::attn_grad_verdict(gk, coef, absK, nk, sto);
          bad |= v1 == ck::AttnVerdict::Fail || v2 == ck::AttnVerdict::Fail;
          skip_out |= v1 == ck::AttnVerdict::Skip || v2 == ck::AttnVerdict::Skip;
        }
      }
      if (!finish_unit_pass(false, skip_in, bad, skip_out, pass, correct, cnt, rep)) break;
    }
  }
}

/** dQ of one query block per unit u = (b * heads + h) * nqb + qb. */
template <class T, int DM, bool kCheck>
__global__ void __launch_bounds__(kThreads) attn_bwd_dq_kernel(AttnArgs a, AttnBwdPtrs g, KeySums ks,
                                                                DevFaultList fl, DeviceCounters* cnt,
                                                                RepairCounters* rep, int correct) {
  constexpr int RS = DM + 1;
  constexpr int NA = DM / kLanes;
  extern __shared__ __align__(16) unsigned char smem[];
  // The key block's column sums (float, in the first 4 DM double slots; their upper half unused).
  float* ksum = reinterpret_cast<float*>(smem);
  float* kabs = ksum + DM;
  float* vsum = kabs + DM;
  float* vabs = vsum + DM;
  double* refQ = reinterpret_cast<double*>(smem) + 4 * DM;  // sum over key blocks of w^T K (unscaled), and its magnitude
  double* magQ = refQ + DM;
  double* wsum = reinterpret_cast<double*>(smem) + 8 * DM;  // per key of the tile: sum_i dS_ij, sum_i |dS_ij|
  double* wabs = wsum + kBC;
  float* Ks = reinterpret_cast<float*>(wsum + 3 * kBR);  // the dK/dV kernel's layout
  float* Vs = Ks + kBC * RS;
  float* Qs = Vs + kBC * RS;
  float* dOs = Qs + kBR * RS;
  float* dSs = dOs + kBR * RS + kBR * kPS;

  const int tid = threadIdx.x, qi = tid / kLanes, lane = tid % kLanes;
  const int D = int(a.D);
  const int64_t units = a.B * a.H * a.nqb;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t bh = u / a.nqb, b = bh / a.H, h = bh % a.H, hk = h / a.G;
    const int64_t i0 = (u % a.nqb) * kBR, i = i0 + qi;
    const int nq = int(a.Lq - i0 < kBR ? a.Lq - i0 : kBR);
    const bool qvalid = qi < nq;
    int64_t kend = a.Lk;
    if (a.causal) {
      kend = i0 + nq - 1 + a.off + 1;
      kend = kend < 0 ? 0 : kend > a.Lk ? a.Lk : kend;
    }
    const int nkb = int((kend + kBC - 1) / kBC);
    const HeadView<T> hv = head_view<T>(a, g, b, h);
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    T* dQ = static_cast<T*>(g.dq) + b * a.qs[0] + h * a.qs[1];

    for (int pass = 0;; ++pass) {
      const bool inject = kCheck && pass == 0 && fl.n > 0;
      __syncthreads();  // the previous unit or pass is done with shared memory
      load_tile<T, DM>(Qs, hv.q, i0, a.Lq, D, a.qs[2], a.qs[3]);
      load_tile<T, DM>(dOs, hv.dO, i0, a.Lq, D, a.os[2], a.os[3]);
      if (kCheck)
        for (int c = tid; c < DM; c += kThreads) refQ[c] = magQ[c] = 0.0;
      __syncthreads();
      bool bad = false, skip_in = false, skip_out = false;
      float lse, Drow;
      row_stats<T, DM>(a, hv, dOs, qi, lane, bh, i, qvalid, lse, Drow, skip_in);

      float dq[NA], tp[NA];
#pragma unroll
      for (int x = 0; x < NA; ++x) dq[x] = 0.0f;
      for (int kb = 0; kb < nkb; ++kb) {
        const int64_t j0 = int64_t(kb) * kBC;
        const int nk = block_keys(kend, j0);
        __syncthreads();  // the previous key block is done with K, V, dS and the key sums
        load_tile<T, DM>(Ks, K, j0, kend, D, a.ks[2], a.ks[3]);
        load_tile<T, DM>(Vs, V, j0, kend, D, a.vs[2], a.vs[3]);
        // The pre-pass's record on the first pass, when the tile holds all of the record's keys
        // (a causal sweep that stops inside the block, and a repair, form their own).
        const bool kcols = kCheck && pass == 0 && ks.p && KeySums::covers(a.Lk, j0, nk);
        if (kcols) kv_sums_of<DM>(ks.at<float>(b, hk, a.HK, kb), ksum, kabs, vsum, vabs);
        __syncthreads();
        if (kCheck && !kcols) {
          kv_sums<DM>(Ks, Vs, nk, ksum, kabs, vsum, vabs);
          __syncthreads();
        }
        float p[kKeysPerLane], ds[kKeysPerLane];
        tile_probs<T, DM, kCheck>(a, hv, Qs, dOs, Ks, Vs, ksum, kabs, vsum, vabs, qi, lane, bh, i, qvalid, j0, nk, lse,
                                  Drow, inject, fl, bad, skip_in, p, ds);
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) dSs[qi * kPS + lane + kLanes * t] = ds[t];
        __syncthreads();
        // Per key: sums over the block's queries, before any fault lands.
        if (kCheck) tile_column_sums(dSs, kPS, kBR, kBC, wsum, wabs);
        if (inject) {  // a dS corrupted after it was summed, as the dS K product reads it
          __syncthreads();
          if (tid == 0)
            for (int f = 0; f < fl.n; ++f) {
              const DevFault& ft = fl.f[f];
              if (ft.site != ABFT_SITE_ATTN_DS || ft.bh != bh || ft.r < i0 || ft.r >= i0 + nq || ft.c < j0 ||
                  ft.c >= j0 + nk)
                continue;
              float* v = &dSs[(ft.r - i0) * kPS + (ft.c - j0)];
              *v = land<float>(fl, f, *v);
            }
        }
        __syncthreads();
        // dQ row qi, columns lane + 4x: the tile's partial from zero, then one add.
#pragma unroll
        for (int x = 0; x < NA; ++x) tp[x] = 0.0f;
        for (int j = 0; j < kBC; ++j) {
          const float sv = dSs[qi * kPS + j];
#pragma unroll
          for (int x = 0; x < NA; ++x) tp[x] = fmaf(sv, Ks[j * RS + lane + kLanes * x], tp[x]);
        }
#pragma unroll
        for (int x = 0; x < NA; ++x) dq[x] += tp[x];
        if (inject && qvalid)  // the accumulator after the key block holding kpos (past the last: after it)
          for (int f = 0; f < fl.n; ++f) {
            const DevFault& ft = fl.f[f];
            if (ft.site != ABFT_SITE_ATTN_DQ || ft.bh != bh || ft.r != i || ft.c < 0 || ft.c >= D ||
                ft.c % kLanes != lane)
              continue;
            if (!((ft.kpos >= j0 && ft.kpos < j0 + nk) || (kb + 1 == nkb && ft.kpos >= j0 + nk))) continue;
            const int want = int(ft.c / kLanes);  // select, land once, put back (as for dK / dV)
            float v = 0.0f;
#pragma unroll
            for (int y = 0; y < NA; ++y)
              if (y == want) v = dq[y];
            v = land<float>(fl, f, v);
#pragma unroll
            for (int y = 0; y < NA; ++y)
              if (y == want) dq[y] = v;
          }
        if (kCheck)
          for (int c = tid; c < DM; c += kThreads) {
            double r = refQ[c], m = magQ[c];
            for (int j = 0; j < kBC; ++j) {
              const double k = Ks[j * RS + c];
              r += wsum[j] * k;
              m += wabs[j] * fabs(k);
            }
            refQ[c] = r;
            magQ[c] = m;
          }
      }

      // Store the block's rows; stage what was computed and what was stored for the sums.
      __syncthreads();  // every tile is done with Q, dO, K, V
      float* cQ = Qs;
      float* sQ = dOs;
#pragma unroll
      for (int x = 0; x < NA; ++x) {
        const int c = lane + kLanes * x;
        const float y = a.scale * dq[x];
        const T ty = from_f<T>(y);
        const bool live = qvalid && c < D;
        if (live) dQ[i * a.qs[2] + c * a.qs[3]] = ty;
        if (kCheck) {
          cQ[qi * RS + c] = live ? y : 0.0f;
          sQ[qi * RS + c] = live ? to_f(ty) : 0.0f;
        }
      }
      if (!kCheck) break;
      __syncthreads();
      {
        const double coef = ck::attn_bwd_accumulated_coefficient<float>(kBC, nkb, kBR, nq);
        const double sabs = fabs(double(a.scale));
        const double absQ = ck::attn_bwd_abs_term<float>(kBC, nkb, nq, sabs);
        const ck::AttnGradStorage sto = ck::attn_grad_storage(storage_format<T>());
        for (int c = tid; c < D; c += kThreads) {
          ck::AttnGradColumn gq;
          for (int r = 0; r < nq; ++r) {
            gq.obs += double(cQ[r * RS + c]);
            gq.stored += double(sQ[r * RS + c]);
          }
          gq.ref = double(a.scale) * refQ[c];
          gq.mag = sabs * magQ[c];
          gq.peak = gq.mag > magQ[c] ? gq.mag : magQ[c];
          const ck::AttnVerdict v = ck::attn_grad_verdict(gq, coef, absQ, nq, sto);
          bad |= v == ck::AttnVerdict::Fail;
          skip_out |= v == ck::AttnVerdict::Skip;
        }
      }
      if (!finish_unit_pass(false, skip_in, bad, skip_out, pass, correct, cnt, rep)) break;
    }
  }
}

template <class Kern>
abft_status launch_one(Kern kern, int64_t units, size_t smem, const AttnArgs& a, const AttnBwdPtrs& g,
                       const KeySums& ks, const DevFaultList& fl, State* st, cudaStream_t stream, bool correct) {
  if (units <= 0) return ABFT_STATUS_SUCCESS;
  // (Per device and cheap: set before every launch rather than cached per process.)
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  const unsigned grid = unsigned(units < (1 << 20) ? units : (1 << 20));
  const int kid = ABFT_KERNEL_ATTN_BWD;
  kern<<<grid, kThreads, smem, stream>>>(a, g, ks, fl, st->counters + kid, st->repair + kid, correct ? 1 : 0);
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

template <class T, int DM>
abft_status launch_dm(const AttnArgs& a, const AttnBwdPtrs& g, const KeySums& ks, const DevFaultList& fl, State* st,
                      cudaStream_t stream, bool check, bool correct) {
  const size_t smem = bwd_smem_bytes(DM);
  const int64_t kv_units = a.B * a.HK * ((a.Lk + kBC - 1) / kBC);
  const int64_t q_units = a.B * a.H * a.nqb;
  abft_status s = launch_one(check ? attn_bwd_dkdv_kernel<T, DM, true> : attn_bwd_dkdv_kernel<T, DM, false>,
                             kv_units, smem, a, g, ks, fl, st, stream, correct);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return launch_one(check ? attn_bwd_dq_kernel<T, DM, true> : attn_bwd_dq_kernel<T, DM, false>, q_units, smem, a,
                    g, ks, fl, st, stream, correct);
}

template <class T>
abft_status launch_backward(const AttnArgs& a, const AttnBwdPtrs& g, const KeySums& ks, const DevFaultList& fl,
                            State* st, cudaStream_t stream, bool check, bool correct) {
  return with_head_dim_bucket(a.D, [&](auto dm) {
    return launch_dm<T, decltype(dm)::value>(a, g, ks, fl, st, stream, check, correct);
  });
}

}  // namespace

abft_status backward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const AttnBwdPtrs& g, const DevFaultList& fl,
                            State* st, cudaStream_t stream, bool check, bool correct) {
  // ABFT_CUDA_ATTN_TC=mma (read at every call): the mma.sync kernels in their scope, else these.
  const char* engine = std::getenv("ABFT_CUDA_ATTN_TC");
  if (engine && std::strcmp(engine, "mma") == 0) {
    const abft_status s = backward_mma_launch(dtype, a, g, fl, st, stream, check, correct);
    if (s != ABFT_STATUS_NOT_SUPPORTED) return s;
  }
  // (Both kernels read the records: dK/dV once per key block, dQ once per query block and key block.)
  const KeySums ks = check && a.Lq > 0 ? key_sums_launch(dtype, a, st, stream, false) : KeySums{};
  return with_storage_type(dtype, ABFT_STATUS_INVALID_VALUE, [&](auto t) {
    return launch_backward<typename decltype(t)::type>(a, g, ks, fl, st, stream, check, correct);
  });
}

}  // namespace abft::cuda::attn
