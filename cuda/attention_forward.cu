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
 *  Compute is float for every storage type (float, binary16, bfloat16): SIMT fused
 *  multiply-adds, not tensor cores (the tensor-core kernel is future work, docs/PERFORMANCE.md).
 *  Status: compiled for sm_90; not yet run on a GPU.
 */
#include <cuda_runtime.h>

#include <cmath>
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

/** Shared-memory bytes of the forward kernel for head-dim bucket DM. */
constexpr size_t fwd_smem_bytes(int dm) {
  return size_t(2 * dm) * sizeof(double) +
         size_t(kBR * (dm + 1) + kBC * (dm + 3) + kBR * (kBC + 1)) * sizeof(float);
}

/** Whether fault f is at `site` on row (bh, row), column `col` (any when col < 0), with kpos in
 *  [lo, hi) (any when lo > hi). Every matching fault lands (several may share a row). */
__device__ __forceinline__ bool at(const DevFault& f, int site, int64_t bh, int64_t row, int64_t col, int64_t lo,
                                   int64_t hi) {
  if (f.site != site || f.bh != bh || f.r != row) return false;
  if (col >= 0 && f.c != col) return false;
  return lo > hi || (f.kpos >= lo && f.kpos < hi);
}

/** The fused forward. kCheck false is the unprotected kernel (the benchmarks' baseline): the
 *  same arithmetic without a checksum. Grid-stride over units u = bh * nqb + query block. */
template <class T, int DM, bool kCheck>
__global__ void __launch_bounds__(kThreads) attn_fwd_kernel(AttnArgs a, DevFaultList fl, DeviceCounters* cnt,
                                                             RepairCounters* rep, int correct) {
  constexpr int QS = DM + 1;  // row strides in shared memory (odd: no bank conflicts)
  constexpr int KS = DM + 3;  // K or V tile; V's checksum columns at DM, DM + 1
  constexpr int PS = kBC + 1;
  constexpr int NA = DM / kLanes;
  constexpr bool kPartial = DM <= kPartialMaxDim;  // per-block partial products (see the P V step)
  extern __shared__ __align__(16) unsigned char smem[];
  double* ksum = reinterpret_cast<double*>(smem);
  double* kabs = ksum + DM;
  float* Qs = reinterpret_cast<float*>(kabs + DM);
  float* KV = Qs + kBR * QS;
  float* Ps = KV + kBC * KS;

  const int tid = threadIdx.x, qi = tid / kLanes, lane = tid % kLanes;
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
      c_tile = ck::attn_dot_tile_coefficient<float>(kBC, DM);
      abs_tile = ck::attn_abs_term<float>(double(kBC) * DM, 0.0);
      // Per-block partials: kBC fused multiply-adds a block and one rescaling add (the CPU
      // engine's count); direct accumulation: kBC * nkb of them.
      c_out = ck::attn_output_coefficient<float>(kPartial ? int64_t(kBC) : int64_t(kBC) * nkb, nkb, DM);
      c_norm = ck::attn_normalizer_coefficient<float>(kBC, nkb);
      abs_out = ck::attn_abs_term<float>(double(kend) + DM, 0.0);
    }

    for (int pass = 0;; ++pass) {
      const bool inject = kCheck && pass == 0 && fl.n > 0;
      __syncthreads();  // the previous unit or pass is done with shared memory
      for (int idx = tid; idx < kBR * DM; idx += kThreads) {
        const int r = idx / DM, c = idx % DM;
        float x = 0.0f;
        if (c < D && i0 + r < a.Lq) x = a.scale * to_f(Q[(i0 + r) * a.qs[2] + c * a.qs[3]]);
        Qs[r * QS + c] = x;
      }
      __syncthreads();
      unsigned fp0 = 0;  // exact fingerprint of this lane's share of the row's scaled copy
      if (kCheck)
        for (int c = lane; c < DM; c += kLanes) fp0 += __float_as_uint(Qs[qi * QS + c]);
      if (inject) {
        __syncthreads();  // every fingerprint taken before a fault lands in the copy
        if (tid == 0)     // memory faults in the scaled copy of Q (also for a block with no keys)
          for (int x = 0; x < fl.n; ++x) {
            const DevFault& f = fl.f[x];
            if (f.site != ABFT_SITE_PACKED_A || f.bh != bh || f.r < i0 || f.r >= i0 + kBR || f.r >= a.Lq ||
                f.kpos < 0 || f.kpos >= D)
              continue;
            float* p = &Qs[(f.r - i0) * QS + f.kpos];
            *p = land<float>(fl, x, *p);
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
        const int nk = int(kend - j0 < kBC ? kend - j0 : kBC);
        // kpos range of the faults that land after this block (past the last key: in the last).
        const int64_t khi = kb + 1 == nkb ? INT64_MAX : j0 + nk;
        // K tile (zeros past the block's keys and past head_dim).
        for (int idx = tid; idx < kBC * DM; idx += kThreads) {
          const int j = idx / DM, c = idx % DM;
          KV[j * KS + c] = (j < nk && c < D) ? to_f(K[(j0 + j) * a.ks[2] + c * a.ks[3]]) : 0.0f;
        }
        __syncthreads();
        if (kCheck) {
          for (int c = tid; c < DM; c += kThreads) {
            double s = 0.0, sa = 0.0;
            for (int j = 0; j < nk; ++j) {
              const double x = KV[j * KS + c];
              s += x;
              sa += fabs(x);
            }
            ksum[c] = s;
            kabs[c] = sa;
          }
          __syncthreads();
        }
        // Scores: keys j = lane + 4t, each one dot product of DM terms in order.
        float s[kKeysPerLane];
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) s[t] = 0.0f;
        for (int d = 0; d < DM; ++d) {
          const float q = Qs[qi * QS + d];
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) s[t] = fmaf(q, KV[(lane + kLanes * t) * KS + d], s[t]);
        }
        if (kCheck) {
          double obs = 0.0;
#pragma unroll
          for (int t = 0; t < kKeysPerLane; ++t) {
            const int j = lane + kLanes * t;
            if (j >= nk) continue;
            if (inject && qvalid)
              for (int x = 0; x < fl.n; ++x)
                if (at(fl.f[x], ABFT_SITE_ATTN_SCORES, bh, i, j0 + j, 1, 0)) s[t] = land<float>(fl, x, s[t]);
            obs += double(s[t]);
          }
          double ref = 0.0, mag = 0.0;
          for (int c = lane; c < DM; c += kLanes) {
            const double q = Qs[qi * QS + c];
            ref += q * ksum[c];
            mag += fabs(q) * kabs[c];
          }
          obs = lane_sum(obs);
          ref = lane_sum(ref);
          mag = lane_sum(mag);
          if (qvalid) {
            const ck::AttnVerdict v = ck::attn_tile_verdict(obs, ref, mag, c_tile, abs_tile);
            bad |= v == ck::AttnVerdict::Fail;
            skip |= v == ck::AttnVerdict::Skip;
          }
        }
        // Mask, causality, padding.
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) {
          const int j = lane + kLanes * t;
          const int64_t jj = j0 + j;
          float x = s[t];
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
          const float p = mnew == kNegInf ? 0.0f : expf(s[t] - mnew);
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
            if (!at(fl.f[x], ABFT_SITE_ATTN_ROWSTAT, bh, i, -1, j0, khi)) continue;
            if (fl.f[x].c == 0) m = land<float>(fl, x, m, lane == 0);
            else if (fl.f[x].c == 1) l = land<float>(fl, x, l, lane == 0);
          }
#pragma unroll
        for (int t = 0; t < kKeysPerLane; ++t) {
          const int j = lane + kLanes * t;
          float p = s[t];
          if (inject && qvalid && j < nk)  // a probability corrupted after it was summed
            for (int x = 0; x < fl.n; ++x)
              if (at(fl.f[x], ABFT_SITE_ATTN_PROBS, bh, i, j0 + j, 1, 0)) p = land<float>(fl, x, p);
          Ps[qi * PS + j] = p;
        }
        __syncthreads();  // scores done with K; probabilities visible
        // V tile and its checksum columns v_j = sum_c V_jc, a_j = sum_c |V_jc| (double, rounded once).
        for (int idx = tid; idx < kBC * DM; idx += kThreads) {
          const int j = idx / DM, c = idx % DM;
          KV[j * KS + c] = (j < nk && c < D) ? to_f(V[(j0 + j) * a.vs[2] + c * a.vs[3]]) : 0.0f;
        }
        __syncthreads();
        if (kCheck) {
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
        if constexpr (kPartial) {
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
            if (!at(f, ABFT_SITE_ATTN_ACC, bh, i, -1, j0, khi) || f.c < 0 || f.c >= D || f.c % kLanes != lane)
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
            if (at(fl.f[y], ABFT_SITE_OUTPUT, bh, i, c, 1, 0)) st = land<T>(fl, y, st);
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
      for (int c = lane; c < DM; c += kLanes) fp1 += __float_as_uint(Qs[qi * QS + c]);
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
      const int any_hard = __syncthreads_or(hard);
      const int any_bad = __syncthreads_or(bad);
      const int any_skip = __syncthreads_or(skip);
      const bool failed = any_hard || (any_bad && !any_skip);
      if (pass == 0) {
        if (tid == 0) {
          if (any_skip && !any_hard) atomicAdd(&cnt->skipped, 1ull);
          else atomicAdd(&cnt->checks, 1ull);
          if (failed) atomicAdd(&cnt->failed, 1ull);
        }
        if (!failed || !correct) break;
      } else {
        if (tid == 0) atomicAdd(failed ? &rep->uncorrectable : &rep->corrected, 1ull);
        break;
      }
    }
  }
}

template <class T, int DM>
abft_status launch_dm(const AttnArgs& a, const DevFaultList& fl, State* st, cudaStream_t stream, bool check,
                      bool correct) {
  const size_t smem = fwd_smem_bytes(DM);
  auto kern = check ? attn_fwd_kernel<T, DM, true> : attn_fwd_kernel<T, DM, false>;
  // (Per device and cheap: set before every launch rather than cached per process.)
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  const int64_t units = a.B * a.H * a.nqb;
  const unsigned grid = unsigned(units < (1 << 20) ? units : (1 << 20));
  const int kid = ABFT_KERNEL_ATTN_FWD;
  kern<<<grid, kThreads, smem, stream>>>(a, fl, st->counters + kid, st->repair + kid, correct ? 1 : 0);
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

template <class T>
abft_status launch_forward(const AttnArgs& a, const DevFaultList& fl, State* st, cudaStream_t stream, bool check,
                           bool correct) {
  switch (head_dim_bucket(a.D)) {
    case 32: return launch_dm<T, 32>(a, fl, st, stream, check, correct);
    case 64: return launch_dm<T, 64>(a, fl, st, stream, check, correct);
    case 128: return launch_dm<T, 128>(a, fl, st, stream, check, correct);
    default: return launch_dm<T, 256>(a, fl, st, stream, check, correct);
  }
}

}  // namespace

abft_status forward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                           cudaStream_t stream, bool check, bool correct) {
  switch (dtype) {
    case ABFT_CUDA_FLOAT: return launch_forward<float>(a, fl, st, stream, check, correct);
    case ABFT_CUDA_HALF: return launch_forward<__half>(a, fl, st, stream, check, correct);
    case ABFT_CUDA_BFLOAT16: return launch_forward<__nv_bfloat16>(a, fl, st, stream, check, correct);
    default: return ABFT_STATUS_INVALID_VALUE;
  }
}

}  // namespace abft::cuda::attn
