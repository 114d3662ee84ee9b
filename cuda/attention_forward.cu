/** \file attention_forward.cu
 *  \brief The protected attention forward on the GPU: one fused kernel per call (tiled, online
 *  softmax, FlashAttention-2 order) carrying the CPU engine's checksum chain (docs/ABFT.md §10,
 *  §13): per key block the score tile's query-side sums against (e^T K_blk) q, the duplicate
 *  running maximum, the probability range, the normalizer against its re-sum from the stored
 *  probabilities, and the checksum columns of V through the output's rescaling; the copy of
 *  scale*Q in shared memory carries an integer fingerprint. A query block that fails is
 *  recomputed from the caller's inputs by the same block (faults land on the first pass only)
 *  and re-verified; the counts go to the device counters of the handle (abft_cuda_sync).
 *
 *  Compute is float for every storage type (float, binary16, bfloat16). Two product engines in
 *  one kernel: SIMT fused multiply-adds (every type and head dim), or, for 16-bit storage at
 *  head_dim buckets 64 and 128 when ABFT_CUDA_ATTN_TC=1, tensor cores (WMMA 16x16x16, float
 *  accumulation) for Q K^T and P V, the probabilities rounded to the storage type before both
 *  the normalizer and the product read them; the checks are the same (ABFT.md §13.2).
 *  Status: run on an H200 (2026-11-30): the tests pass on both product engines, the error
 *  equals PyTorch SDPA's on the SIMT path; the tensor-core path stays opt-in until its SDPA
 *  comparison (scripts/gpu-check.sh) has run too. The pre-pass's records and the tile check in
 *  float (2026-12-02, ABFT.md §13.3): not yet run on a GPU.
 */
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_row_check.hpp"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "device_state.hpp"

namespace abft::cuda::attn {

namespace ck = abft::checksum;

namespace {

constexpr float kNegInf = -INFINITY;

namespace wmma = nvcuda::wmma;

constexpr size_t round128(size_t x) { return (x + 127) / 128 * 128; }

/** The forward's shared memory for head-dim bucket DM, as byte offsets from a 128-byte aligned
 *  base: the SIMT tiles, then the tensor-core path's 16-bit tiles and float staging (WMMA wants
 *  16-bit strides that are multiples of 8 and float strides multiples of 4; with 128-byte
 *  aligned tiles every 16-row fragment starts 32-byte aligned). Offsets, not pointer
 *  arithmetic on addresses, keep the accesses in the shared address space. */
template <int DM>
struct FwdSmem {
  static constexpr int QH = DM + 8;   ///< Q and K / V tiles, storage type
  static constexpr int PH = kBC + 8;  ///< probabilities, storage type
  static constexpr int SS = kBC + 4;  ///< scores, float
  static constexpr int TS = DM + 4;   ///< a key block's P V product, float
  static constexpr size_t simt =
      size_t(2 * DM + kBR * (DM + 1) + kBC * (DM + 3) + kBR * (kBC + 1)) * sizeof(float);
  static constexpr size_t qh = round128(simt);
  static constexpr size_t kvh = qh + round128(size_t(kBR) * QH * 2);
  static constexpr size_t ph = kvh + round128(size_t(kBC) * QH * 2);
  static constexpr size_t st = ph + round128(size_t(kBR) * PH * 2);
  static constexpr size_t tt = st + round128(size_t(kBR) * SS * 4);
  static constexpr size_t tc_end = tt + round128(size_t(kBR) * TS * 4);
  static constexpr size_t bytes(bool tc) { return tc ? tc_end : simt; }
};

/** The bits of a 16-bit storage value (the fingerprint of the tensor-core path's Q copy). */
template <class T>
__device__ __forceinline__ unsigned bits_of(T x) {
  uint16_t b;
  memcpy(&b, &x, 2);
  return b;
}

/** The fused forward. kCheck false is the unprotected kernel (the benchmarks' baseline): the
 *  same arithmetic without a checksum. Grid-stride over units u = bh * nqb + query block. */
template <class T, int DM, bool kCheck, bool kTC>
__global__ void __launch_bounds__(kThreads) attn_fwd_kernel(AttnArgs a, KeySums ks, DevFaultList fl,
                                                             DeviceCounters* cnt, RepairCounters* rep, int correct) {
  constexpr int QS = DM + 1;  // row strides in shared memory (odd: no bank conflicts)
  constexpr int KS = DM + 3;  // K or V tile; V's checksum columns at DM, DM + 1
  constexpr int PS = kBC + 1;
  constexpr int NA = DM / kLanes;
  constexpr bool kPartial = DM <= kPartialMaxDim;  // per-block partial products (see the P V step)
  extern __shared__ __align__(128) unsigned char smem[];
  float* ksum = reinterpret_cast<float*>(smem);  // the key block's e^T K_blk, e^T |K_blk| (float, §13.3)
  float* kabs = ksum + DM;
  float* Qs = kabs + DM;
  float* KV = Qs + kBR * QS;
  float* Ps = KV + kBC * KS;
  // The tensor-core path's tiles (unused by the SIMT path).
  static_assert(!kTC || (sizeof(T) == 2 && DM % 16 == 0 && DM <= kPartialMaxDim), "tensor cores: 16-bit, DM <= 128");
  using TS_ = FwdSmem<DM>;
  T* Qh = reinterpret_cast<T*>(smem + TS_::qh);
  T* KVh = reinterpret_cast<T*>(smem + TS_::kvh);
  T* Ph = reinterpret_cast<T*>(smem + TS_::ph);
  float* St = reinterpret_cast<float*>(smem + TS_::st);
  float* Tt = reinterpret_cast<float*>(smem + TS_::tt);

  const int tid = threadIdx.x, qi = tid / kLanes, lane = tid % kLanes;
  const int warp = tid / 32;
  const int D = int(a.D);
  const float plim = 1.0f + 8.0f * FLT_EPSILON / 2.0f;
  const int64_t units = a.B * a.H * a.nqb;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t bh = u / a.nqb, b = bh / a.H, h = bh % a.H, hk = h / a.G;
    const int64_t i0 = (u % a.nqb) * kBR, i = i0 + qi;
    const bool qvalid = i < a.Lq;
    const int64_t ilast = (a.Lq < i0 + kBR ? a.Lq : i0 + kBR) - 1;
    int64_t kend = a.Lk;
    if (a.causal) {
      kend = ilast + a.off + 1;
      kend = kend < 0 ? 0 : kend > a.Lk ? a.Lk : kend;
    }
    const int nkb = int((kend + kBC - 1) / kBC);
    const T* Q = static_cast<const T*>(a.q) + b * a.qs[0] + h * a.qs[1];
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    const T* M = a.mask ? static_cast<const T*>(a.mask) + b * a.ms[0] + h * a.ms[1] : nullptr;
    T* O = static_cast<T*>(a.o) + b * a.os[0] + h * a.os[1];

    double c_tile = 0, abs_tile = 0, c_out = 0, c_norm = 0, abs_out = 0;
    // Unit roundoff of the storage format when narrower than float (0 for float).
    const double storage_u = sizeof(T) == 2 ? (std::is_same<T, __half>::value ? 0x1p-11 : 0x1p-8) : 0.0;
    // binary16 rounds below 2^-14 with an absolute error up to 2^-25 per element (subnormals);
    // bfloat16's range is float's (the abs term covers it).
    const double storage_abs = std::is_same<T, __half>::value ? double(DM) * 0x1p-25 : 0.0;
    if (kCheck) {
      // Tensor cores sum in an order of their own, aligning blocks of products to the largest
      // exponent and possibly truncating: three times the terms (3u per addition, ABFT.md §13.2).
      // The tile check in float (ABFT.md §13.3): the scores' own error, their sums in float, the
      // reference and magnitude by float fused multiply-adds from sums rounded to float once.
      c_tile = ck::attn_float_tile_coefficient<float>(kBC, kTC ? 3 * DM : DM, DM, kLanes);
      abs_tile = ck::attn_float_tile_abs_term<float>(kBC, kTC ? 3 * DM : DM, DM);
      // Per-block partials: kBC fused multiply-adds a block and one rescaling add (the CPU
      // engine's count); direct accumulation: kBC * nkb of them.
      c_out = ck::attn_output_coefficient<float>(
          kTC ? 3 * int64_t(kBC) : kPartial ? int64_t(kBC) : int64_t(kBC) * nkb, nkb, DM);
      c_norm = ck::attn_normalizer_coefficient<float>(kBC, nkb);
      abs_out = ck::attn_abs_term<float>(double(kend) + DM, 0.0);
    }

    for (int pass = 0;; ++pass) {
      const bool inject = kCheck && pass == 0 && fl.n > 0;
      // The key blocks' sums from the pre-pass, on the first pass (a repair forms its own).
      const bool records = kCheck && pass == 0 && ks.p != nullptr;
      __syncthreads();  // the previous unit or pass is done with shared memory
      for (int idx = tid; idx < kBR * DM; idx += kThreads) {
        const int r = idx / DM, c = idx % DM;
        if constexpr (kTC) {  // the raw 16-bit values: the scale is applied to the scores
          Qh[r * TS_::QH + c] = (c < D && i0 + r < a.Lq) ? Q[(i0 + r) * a.qs[2] + c * a.qs[3]] : from_f<T>(0.0f);
        } else {
          float x = 0.0f;
          if (c < D && i0 + r < a.Lq) x = a.scale * to_f(Q[(i0 + r) * a.qs[2] + c * a.qs[3]]);
          Qs[r * QS + c] = x;
        }
      }
      __syncthreads();
      unsigned fp0 = 0;  // exact fingerprint of this lane's share of the row's copy of Q
      if (kCheck)
        for (int c = lane; c < DM; c += kLanes)
          fp0 += kTC ? bits_of(Qh[qi * TS_::QH + c]) : __float_as_uint(Qs[qi * QS + c]);
      if (inject) {
        __syncthreads();  // every fingerprint taken before a fault lands in the copy
        if (tid == 0)     // memory faults in the scaled copy of Q (also for a block with no keys)
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (f.site != ABFT_SITE_PACKED_A || f.bh != bh || f.r < i0 || f.r >= i0 + kBR || f.r >= a.Lq ||
                f.kpos < 0 || f.kpos >= D)
              continue;
            if constexpr (kTC) {
              T* p = &Qh[(f.r - i0) * TS_::QH + f.kpos];
              *p = land<T>(fl, x, *p);
            } else {
              float* p = &Qs[(f.r - i0) * QS + f.kpos];
              *p = land<float>(fl, x, *p);
            }
          }
        __syncthreads();  // landed before any score or fingerprint reads the copy
      }

      float m = kNegInf, m2 = kNegInf, l = 0.0f, l2 = 0.0f;
      float acc[NA];
#pragma unroll
      for (int x = 0; x < NA; ++x) acc[x] = 0.0f;
      float accx = 0.0f;  // lane 0: sum_j P_ij v_j; lane 1: sum_j P_ij a_j (lanes 2, 3: copies)
      bool bad = false, skip = false;

      for (int kb = 0; kb < nkb; ++kb) {
        const int64_t j0 = int64_t(kb) * kBC;
        const int nk = block_keys(kend, j0);
        // kpos range of the faults that land after this block (past the last key: in the last).
        const int64_t khi = kb + 1 == nkb ? INT64_MAX : j0 + nk;
        const float* rec = records ? ks.at<float>(b, hk, a.HK, kb) : nullptr;
        // The record's column sums cover the whole block: not a sweep that stops inside it.
        const bool kcols = rec && KeySums::covers(a.Lk, j0, nk);
        // K tile (zeros past the block's keys and past head_dim). The tensor-core path's
        // products read the 16-bit copy; its float copy serves only the sums a kernel forms.
        const bool kfloat = !kTC || (kCheck && !kcols);
        for (int idx = tid; idx < kBC * DM; idx += kThreads) {
          const int j = idx / DM, c = idx % DM;
          const T x = (j < nk && c < D) ? K[(j0 + j) * a.ks[2] + c * a.ks[3]] : from_f<T>(0.0f);
          if (kfloat) KV[j * KS + c] = to_f(x);
          if constexpr (kTC) KVh[j * TS_::QH + c] = x;
        }
        if (kcols)
          for (int c = tid; c < DM; c += kThreads) ksum[c] = rec[c], kabs[c] = rec[DM + c];
        __syncthreads();
        if (kCheck && !kcols) {
          tile_column_sums(KV, KS, nk, DM, ksum, kabs);
          __syncthreads();
        }
        // Scores: keys j = lane + 4t, each one dot product of DM terms in order.
        float s[kKeysPerLane];
        if constexpr (kTC) {  // raw Q K^T on tensor cores: one 16 x 16 fragment of the 32 x 32 tile a warp
          const int rb = warp / 2, cb = warp % 2;
          wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
          wmma::fill_fragment(fc, 0.0f);
          for (int kk = 0; kk < DM; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
            wmma::load_matrix_sync(fa, Qh + rb * 16 * TS_::QH + kk, TS_::QH);
            wmma::load_matrix_sync(fb, KVh + cb * 16 * TS_::QH + kk, TS_::QH);
            wmma::mma_sync(fc, fa, fb, fc);
          }
          wmma::store_matrix_sync(St + rb * 16 * TS_::SS + cb * 16, fc, TS_::SS, wmma::mem_row_major);
          __syncthreads();
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) s[t] = St[qi * TS_::SS + lane + kLanes * t];
        } else {
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) s[t] = 0.0f;
          for (int d = 0; d < DM; ++d) {
            const float q = Qs[qi * QS + d];
#pragma unroll
            for (int t = 0; t < kKeysPerLane; ++t) s[t] = fmaf(q, KV[(lane + kLanes * t) * KS + d], s[t]);
          }
        }
        if (kCheck) {  // in float (ABFT.md §13.3): no double operation or conversion per block
          float obs = 0.0f;
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) {
            const int j = lane + kLanes * t;
            if (j >= nk) continue;
            if (inject && qvalid)
              for (int x = 0; x < fl.n; ++x)
                if (fault_at(fl.f[x], ABFT_SITE_ATTN_SCORES, bh, i, j0 + j, 1, 0)) s[t] = land<float>(fl, x, s[t]);
            obs += s[t];
          }
          float ref = 0.0f, mag = 0.0f;
          for (int c = lane; c < DM; c += kLanes) {
            const float q = kTC ? to_f(Qh[qi * TS_::QH + c]) : Qs[qi * QS + c];
            ref = fmaf(q, ksum[c], ref);
            mag = fmaf(fabsf(q), kabs[c], mag);
          }
          obs = lane_sum(obs);
          ref = lane_sum(ref);
          mag = lane_sum(mag);
          if (qvalid) {
            const ck::AttnVerdict v = ck::attn_tile_verdict(double(obs), double(ref), double(mag), c_tile, abs_tile);
            bad |= v == ck::AttnVerdict::Fail;
            skip |= v == ck::AttnVerdict::Skip;
          }
        }
        // Mask, causality, padding (the tensor-core path scales its raw scores here).
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) {
          const int j = lane + kLanes * t;
          const int64_t jj = j0 + j;
          float x = kTC ? s[t] * a.scale : s[t];
          if (j >= nk || !qvalid) {
            x = kNegInf;
          } else {
            if (M) {
              const float mv = to_f(M[i * a.ms[2] + jj * a.ms[3]]);
              if (mv != mv || mv == INFINITY) skip = true;
              x += mv;
              if (x == INFINITY) skip = true;  // a finite mask that overflows the score: data
            }
            if (a.causal && jj > i + a.off) x = kNegInf;
          }
          s[t] = x;
        }
        // Online softmax with the duplicate maximum and the probability range.
        float tmax = kNegInf;
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) tmax = fmaxf(tmax, s[t]);
        tmax = lane_max(tmax);
        if (kCheck && qvalid && __float_as_uint(m) != __float_as_uint(m2)) bad = true;
        const float mnew = fmaxf(m, tmax), m2new = fmaxf(m2, tmax);
        const float corr = mnew == kNegInf ? 1.0f : expf(m - mnew);
        float ts = 0.0f;
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) {
          float p = mnew == kNegInf ? 0.0f : expf(s[t] - mnew);
          // Tensor cores read P in the storage type: round it first, so that the normalizer,
          // the checksum columns and the product all see the same probabilities.
          if constexpr (kTC) p = to_f(from_f<T>(p));
          if (kCheck && qvalid && !(p >= 0.0f && p <= plim)) bad = true;
          s[t] = p;
          ts += p;
        }
        ts = lane_sum(ts);
        l = l * corr + ts;
        m = mnew;
        m2 = m2new;
        if (inject && qvalid)  // every lane holds the row's copy: the same corrupted value in each
          for (int x = 0; x < fl.n; ++x) {
            if (!fault_at(fl.f[x], ABFT_SITE_ATTN_ROWSTAT, bh, i, -1, j0, khi)) continue;
            if (fl.f[x].c == 0) m = land<float>(fl, x, m, lane == 0);
            else if (fl.f[x].c == 1) l = land<float>(fl, x, l, lane == 0);
          }
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) {
          const int j = lane + kLanes * t;
          float p = s[t];
          if (inject && qvalid && j < nk)  // a probability corrupted after it was summed
            for (int x = 0; x < fl.n; ++x)
              if (fault_at(fl.f[x], ABFT_SITE_ATTN_PROBS, bh, i, j0 + j, 1, 0)) p = land<float>(fl, x, p);
          Ps[qi * PS + j] = p;
          if constexpr (kTC) Ph[qi * TS_::PH + j] = from_f<T>(p);
        }
        __syncthreads();  // scores done with K; probabilities visible
        // V tile and its checksum columns v_j = sum_c V_jc, a_j = sum_c |V_jc| (double, rounded once).
        const bool vfloat = !kTC || (kCheck && !rec);
        for (int idx = tid; idx < kBC * DM; idx += kThreads) {
          const int j = idx / DM, c = idx % DM;
          const T x = (j < nk && c < D) ? V[(j0 + j) * a.vs[2] + c * a.vs[3]] : from_f<T>(0.0f);
          if (vfloat) KV[j * KS + c] = to_f(x);
          if constexpr (kTC) KVh[j * TS_::QH + c] = x;
        }
        if (rec && tid < 2 * kBC) {  // per key: valid for any nk (keys past it are zeros, as the tile's)
          const int j = tid / 2;
          KV[j * KS + DM + (tid & 1)] = j < nk ? rec[2 * DM + tid] : 0.0f;
        }
        __syncthreads();
        if (kCheck && !rec) {
          const int j = tid / kLanes;  // kThreads / kLanes == kBC: one key per lane group
          double vs = 0.0, va = 0.0;
          for (int c = lane; c < DM; c += kLanes) {
            const double x = KV[j * KS + c];
            vs += x;
            va += fabs(x);
          }
          vs = lane_sum(vs);
          va = lane_sum(va);
          if (lane == 0) {
            KV[j * KS + DM] = float(vs);
            KV[j * KS + DM + 1] = float(va);
          }
          __syncthreads();
        }
        // O^T (and the checksum columns) <- corr * O^T + V^T P^T. Head dims up to 128 form the
        // block's product from zero and add it once (the CPU engine's order: kBC + 2 roundings a
        // block, a tight output bound however long the row); 256 accumulates every key directly
        // (registers), with the bound of kBC * nkb roundings.
        if constexpr (kTC) {  // the block's P V on tensor cores, staged in shared memory
          constexpr int frags = 2 * (DM / 16);  // 16 x 16 fragments of the 32 x DM product
          for (int f = warp; f < frags; f += kThreads / 32) {
            const int rb = f % 2, cb = f / 2;
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
            wmma::fill_fragment(fc, 0.0f);
            for (int kk = 0; kk < kBC; kk += 16) {
              wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
              wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
              wmma::load_matrix_sync(fa, Ph + rb * 16 * TS_::PH + kk, TS_::PH);
              wmma::load_matrix_sync(fb, KVh + kk * TS_::QH + cb * 16, TS_::QH);
              wmma::mma_sync(fc, fa, fb, fc);
            }
            wmma::store_matrix_sync(Tt + rb * 16 * TS_::TS + cb * 16, fc, TS_::TS, wmma::mem_row_major);
          }
          __syncthreads();
          float tx = 0.0f;  // the checksum columns stay in float, on the same (rounded) P
          if (kCheck)
            for (int j = 0; j < kBC; ++j) tx = fmaf(Ps[qi * PS + j], KV[j * KS + DM + (lane & 1)], tx);
#pragma unroll
          for (int x = 0; x < NA; ++x) acc[x] = fmaf(acc[x], corr, Tt[qi * TS_::TS + lane + kLanes * x]);
          accx = fmaf(accx, corr, tx);
        } else if constexpr (kPartial) {
          float t[NA];
#pragma unroll
          for (int x = 0; x < NA; ++x) t[x] = 0.0f;
          float tx = 0.0f;
          for (int j = 0; j < kBC; ++j) {
            const float p = Ps[qi * PS + j];
#pragma unroll
            for (int x = 0; x < NA; ++x) t[x] = fmaf(p, KV[j * KS + lane + kLanes * x], t[x]);
            if (kCheck) tx = fmaf(p, KV[j * KS + DM + (lane & 1)], tx);
          }
#pragma unroll
          for (int x = 0; x < NA; ++x) acc[x] = fmaf(acc[x], corr, t[x]);
          accx = fmaf(accx, corr, tx);
        } else {
#pragma unroll
          for (int x = 0; x < NA; ++x) acc[x] *= corr;
          accx *= corr;
          for (int j = 0; j < kBC; ++j) {
            const float p = Ps[qi * PS + j];
#pragma unroll
            for (int x = 0; x < NA; ++x) acc[x] = fmaf(p, KV[j * KS + lane + kLanes * x], acc[x]);
            if (kCheck) accx = fmaf(p, KV[j * KS + DM + (lane & 1)], accx);
          }
        }
        if (kCheck) {  // the normalizer again, from the probabilities the product consumed
          float ts2 = 0.0f;
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) ts2 += Ps[qi * PS + lane + kLanes * t];
          ts2 = lane_sum(ts2);
          l2 = l2 * corr + ts2;
        }
        if (inject && qvalid)
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (!fault_at(f, ABFT_SITE_ATTN_ACC, bh, i, -1, j0, khi) || f.c < 0 || f.c >= D || f.c % kLanes != lane)
              continue;
            const int want = int(f.c / kLanes);
#pragma unroll
            for (int y = 0; y < NA; ++y)
              if (y == want) acc[y] = land<float>(fl, x, acc[y]);
          }
        __syncthreads();  // the product is done with V and P before the next tile
      }

      // Store the output row (zeros for a row that attended no key) and check it.
      const bool live = m != kNegInf || (kCheck && m2 != kNegInf);
      double rowsum = 0.0, stored = 0.0;
#pragma unroll
      for (int x = 0; x < NA; ++x) {
        const int c = lane + kLanes * x;
        if (c >= D || !qvalid) continue;
        const float o = live ? acc[x] / l : 0.0f;
        rowsum += double(o);
        T st = from_f<T>(o);
        if (inject)
          for (int y = 0; y < fl.n; ++y)
            if (fault_at(fl.f[y], ABFT_SITE_OUTPUT, bh, i, c, 1, 0)) st = land<T>(fl, y, st);
        O[i * a.os[2] + c * a.os[3]] = st;
        stored += double(to_f(st));
        // A row that attended no key must be exactly zero (as the CPU engine requires).
        if (kCheck && !live && to_f(st) != 0.0f) bad = true;
      }
      if (lane == 0 && qvalid && a.lse) a.lse[bh * a.Lq + i] = live ? m + logf(l) : kNegInf;
      if (!kCheck) break;

      rowsum = lane_sum(rowsum);
      stored = lane_sum(stored);
      const float accv = __shfl_sync(0xffffffffu, accx, 0, kLanes);
      const float acca = __shfl_sync(0xffffffffu, accx, 1, kLanes);
      unsigned fp1 = 0;
      for (int c = lane; c < DM; c += kLanes)
        fp1 += kTC ? bits_of(Qh[qi * TS_::QH + c]) : __float_as_uint(Qs[qi * QS + c]);
      const bool hard = fp1 != fp0;  // a memory fault in the copy: not data, never skipped
      if (qvalid && !live && (l != 0.0f || l2 != 0.0f)) bad = true;
      if (qvalid && live) {
        ck::AttnRowState rs;
        rs.m = m, rs.m2 = m2, rs.l = l, rs.l2 = l2, rs.rowsum = rowsum, rs.stored = stored;
        rs.accv = accv, rs.acca = acca;
        const ck::AttnVerdict v = ck::attn_row_verdict(rs, c_out, c_norm, abs_out, storage_u, storage_abs);
        bad |= v == ck::AttnVerdict::Fail;
        skip |= v == ck::AttnVerdict::Skip;
      }
      if (!finish_unit_pass(hard, skip, bad, false, pass, correct, cnt, rep)) break;
    }
  }
}

template <class T, int DM, bool kTC>
abft_status launch_dm(const AttnArgs& a, const KeySums& ks, const DevFaultList& fl, State* st, cudaStream_t stream,
                      bool check, bool correct) {
  const size_t smem = FwdSmem<DM>::bytes(kTC);
  auto kern = check ? attn_fwd_kernel<T, DM, true, kTC> : attn_fwd_kernel<T, DM, false, kTC>;
  // (Per device and cheap: set before every launch rather than cached per process.)
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  const int64_t units = a.B * a.H * a.nqb;
  const unsigned grid = unsigned(units < (1 << 20) ? units : (1 << 20));
  const int kid = ABFT_KERNEL_ATTN_FWD;
  kern<<<grid, kThreads, smem, stream>>>(a, ks, fl, st->counters + kid, st->repair + kid, correct ? 1 : 0);
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

/** The product engine ABFT_CUDA_ATTN_TC asks for (read at every call): "1" the WMMA path of
 *  this file, "mma" the mma.sync kernel (attention_forward_mma.cu), anything else SIMT. */
enum class Engine { Simt, Wmma, Mma };
Engine requested_engine() {
  const char* e = std::getenv("ABFT_CUDA_ATTN_TC");
  if (!e) return Engine::Simt;
  if (e[0] == '1' && e[1] == 0) return Engine::Wmma;
  return std::strcmp(e, "mma") == 0 ? Engine::Mma : Engine::Simt;
}

template <class T>
abft_status launch_forward(const AttnArgs& a, const KeySums& ks, const DevFaultList& fl, State* st,
                           cudaStream_t stream, bool check, bool correct) {
  constexpr bool k16 = sizeof(T) == 2;
  const bool tc = k16 && requested_engine() == Engine::Wmma;
  return with_head_dim_bucket(a.D, [&](auto dm) {
    constexpr int DM = decltype(dm)::value;
    // Tensor cores: 16-bit storage at buckets 64 and 128.
    if constexpr (k16 && (DM == 64 || DM == 128))
      if (tc) return launch_dm<T, DM, true>(a, ks, fl, st, stream, check, correct);
    return launch_dm<T, DM, false>(a, ks, fl, st, stream, check, correct);
  });
}

}  // namespace

abft_status forward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                           cudaStream_t stream, bool check, bool correct) {
  if (requested_engine() == Engine::Mma) {  // its scope, else the kernels here
    const abft_status s = forward_mma_launch(dtype, a, fl, st, stream, check, correct);
    if (s != ABFT_STATUS_NOT_SUPPORTED) return s;
  }
  const KeySums ks = check ? key_sums_launch(dtype, a, st, stream, true) : KeySums{};
  return with_storage_type(dtype, ABFT_STATUS_INVALID_VALUE, [&](auto t) {
    return launch_forward<typename decltype(t)::type>(a, ks, fl, st, stream, check, correct);
  });
}

}  // namespace abft::cuda::attn
