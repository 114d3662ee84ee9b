/** \file attention_backward_mma_sums.cu
 *  \brief The mma.sync backward's pre-pass (docs/ABFT.md §13.5): per query row D = dO . O (double,
 *  rounded once) and -lse log2 e, which the unprotected kernels read too; when checking, the
 *  query blocks' data flags, the checksum columns of Q, dO and K per row in the storage type, and
 *  the group records of the tile checks (suffixes of Q's and dO's column sums for the dK/dV
 *  kernel, prefixes of K's and V's for dQ), from each block's sums in double. What it leaves is
 *  BwdSums (attention_backward_mma.cuh).
 *  Status: compiled for sm_90, run only on the CUDA emulator (tests/emu); never on a GPU.
 */
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_bounds.hpp"
#include "attention_backward_mma.cuh"
#include "attention_device.cuh"
#include "attention_mma.cuh"
#include "device_state.hpp"

namespace abft::cuda::attn {

namespace ck = abft::checksum;

namespace {

using bwd_mma::BwdSums;
using bwd_mma::kRec;
using bwd_mma::kX;
using bwd_mma::kXS;
constexpr int kB = mma_tile::kRows;
constexpr int kT = mma_tile::kThreads;
constexpr int kGroup = mma_tile::kGroup;
constexpr float kNegInf = -INFINITY;
using mma_tile::kLog2e;

/** The workspace's layout as byte offsets (each 16-byte aligned), and the pre-pass's double
 *  partials per block (kRec DM doubles a block) after the records. */
struct BwdWorkspace {
  int64_t ld = 0, qflag = 0, qrec = 0, krec = 0, xq = 0, xo = 0, xk = 0, qpart = 0, kpart = 0, bytes = 0;
  BwdWorkspace(const AttnArgs& a, int dm, bool check) {
    const int64_t nqb = (a.Lq + kB - 1) / kB, nkb = (a.Lk + kB - 1) / kB;
    const int64_t qb = a.B * a.H * nqb, kb = a.B * a.HK * nkb;
    int64_t o = 0;
    auto take = [&o](int64_t n) {
      const int64_t at = o;
      o += (n + 15) / 16 * 16;
      return at;
    };
    ld = take(qb * kB * 2 * int64_t(sizeof(float)));
    if (check) {
      qflag = take(qb * int64_t(sizeof(int)));
      qrec = take(qb * kRec * dm * int64_t(sizeof(float)));
      krec = take(kb * kRec * dm * int64_t(sizeof(float)));
      xq = take(qb * kB * kXS * 2);
      xo = take(qb * kB * kX * 2);
      xk = take(kb * kB * kXS * 2);
      qpart = take(qb * kRec * dm * int64_t(sizeof(double)));
      kpart = take(kb * kRec * dm * int64_t(sizeof(double)));
    }
    bytes = o;
  }
};
/** Pre-pass, rows: a warp per row (lanes over columns, double, a butterfly). Query rows
 *  (batch, head, i < nqb 64): D_i and -lse_i log2 e, and when checking Q's and dO's checksum
 *  columns and the block's data flag; key rows (checking only): K's checksum columns. */
template <class T, bool kCheck>
__global__ void __launch_bounds__(kT) attn_bwd_mma_rows_kernel(AttnArgs a, AttnBwdPtrs g, float* ld, int* qflag,
                                                               T* xq, T* xo, T* xk, int64_t nqb, int64_t nkb) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int D = int(a.D);
  const int64_t qrows = a.B * a.H * nqb * kB, krows = kCheck ? a.B * a.HK * nkb * kB : 0;
  for (int64_t r = int64_t(blockIdx.x) * (kT / 32) + warp; r < qrows + krows; r += int64_t(gridDim.x) * (kT / 32)) {
    if (r < qrows) {
      const int64_t bh = r / (nqb * kB), i = r % (nqb * kB), b = bh / a.H, h = bh % a.H;
      const bool live = i < a.Lq;
      double dd = 0.0, sq = 0.0, aq = 0.0, so = 0.0, ao = 0.0;
      if (live) {
        const T* Q = static_cast<const T*>(a.q) + b * a.qs[0] + h * a.qs[1] + i * a.qs[2];
        const T* dO = static_cast<const T*>(g.dO) + b * a.os[0] + h * a.os[1] + i * a.os[2];
        const T* O = static_cast<const T*>(a.o) + b * a.os[0] + h * a.os[1] + i * a.os[2];
        for (int c = lane; c < D; c += 32) {
          const double d = double(to_f(dO[c * a.os[3]]));
          dd += d * double(to_f(O[c * a.os[3]]));
          if (kCheck) {
            const double q = double(to_f(Q[c * a.qs[3]]));
            sq += q;
            aq += fabs(q);
            so += d;
            ao += fabs(d);
          }
        }
      }
      for (int o = 16; o > 0; o /= 2) {
        dd += __shfl_xor_sync(0xffffffffu, dd, o);
        if (kCheck) {
          sq += __shfl_xor_sync(0xffffffffu, sq, o);
          aq += __shfl_xor_sync(0xffffffffu, aq, o);
          so += __shfl_xor_sync(0xffffffffu, so, o);
          ao += __shfl_xor_sync(0xffffffffu, ao, o);
        }
      }
      if (lane == 0) {
        float nl = kNegInf, dv = 0.0f;
        if (live) {
          const float lse = a.lse[bh * a.Lq + i];
          nl = (lse == INFINITY || lse == kNegInf) ? kNegInf : -lse * kLog2e;
          dv = float(dd);
          if (kCheck && (lse != lse || lse == INFINITY || !(fabsf(dv) <= FLT_MAX)))
            atomicMax(&qflag[bh * nqb + i / kB], 1);
        }
        ld[2 * r] = nl;
        ld[2 * r + 1] = dv;
      }
      if (kCheck && lane < kXS) xq[r * kXS + lane] = mma_tile::checksum_column<T>(lane, 10, sq, aq, live);
      if (kCheck && lane >= kXS && lane < kXS + kX) xo[r * kX + lane - kXS] = mma_tile::checksum_column<T>(lane - kXS, 2, so, ao, live);
    } else {
      const int64_t rk = r - qrows, bhk = rk / (nkb * kB), j = rk % (nkb * kB), b = bhk / a.HK, hk = bhk % a.HK;
      const bool live = j < a.Lk;
      double sk, ak;
      mma_tile::warp_row_sums(static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1] + j * a.ks[2], a.ks[3], D, live,
                              lane, sk, ak);
      if (lane < kXS) xk[rk * kXS + lane] = mma_tile::checksum_column<T>(lane, 10, sk, ak, live);
    }
  }
}

/** Pre-pass, block sums (checking only): a thread block per query block (Q and dO) or key
 *  block (K and V), a thread per (tensor, column), rows in order, in double, into `part`. */
template <class T, int DM>
__global__ void __launch_bounds__(kT) attn_bwd_mma_block_sums_kernel(AttnArgs a, AttnBwdPtrs g, double* qpart,
                                                                     double* kpart, int64_t nqb, int64_t nkb) {
  const int D = int(a.D);
  const int64_t qunits = a.B * a.H * nqb, units = qunits + a.B * a.HK * nkb;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const bool qside = u < qunits;
    const int64_t v = qside ? u : u - qunits, nb = qside ? nqb : nkb, heads = qside ? a.H : a.HK;
    const int64_t bx = v / nb, blk = v % nb, b = bx / heads, h = bx % heads;
    const int64_t r0 = blk * kB, len = qside ? a.Lq : a.Lk, r1 = r0 + kB < len ? r0 + kB : len;
    double* out = (qside ? qpart : kpart) + v * kRec * DM;
    for (int idx = threadIdx.x; idx < 2 * DM; idx += kT) {
      const int which = idx / DM, c = idx % DM;
      const T* p;
      const int64_t* st;
      if (qside) {
        p = static_cast<const T*>(which == 0 ? a.q : g.dO);
        st = which == 0 ? a.qs : a.os;
      } else {
        p = static_cast<const T*>(which == 0 ? a.k : a.v);
        st = which == 0 ? a.ks : a.vs;
      }
      p += b * st[0] + h * st[1];
      double s = 0.0, sa = 0.0;
      if (c < D)
        for (int64_t r = r0; r < r1; ++r) {
          const double x = double(to_f(p[r * st[2] + c * st[3]]));
          s += x;
          sa += fabs(x);
        }
      out[which * 2 * DM + c] = s;
      out[which * 2 * DM + DM + c] = sa;
    }
  }
}

/** Pre-pass, records (checking only): a thread per (side, batch x head, group, record column):
 *  the query side's suffixes of each group block by block (from the group's end down), the key
 *  side's prefixes, in double, each rounded once to float. */
template <int DM>
__global__ void __launch_bounds__(kT) attn_bwd_mma_records_kernel(const double* qpart, const double* kpart,
                                                                  float* qrec, float* krec, int64_t bhq, int64_t nqb,
                                                                  int64_t bhk, int64_t nkb) {
  constexpr int RW = kRec * DM;
  const int64_t nqg = (nqb + kGroup - 1) / kGroup, nkg = (nkb + kGroup - 1) / kGroup;
  const int64_t nq = bhq * nqg * RW, n = nq + bhk * nkg * RW;
  for (int64_t idx = int64_t(blockIdx.x) * kT + threadIdx.x; idx < n; idx += int64_t(gridDim.x) * kT) {
    const bool qside = idx < nq;
    const int64_t v = qside ? idx : idx - nq, ng = qside ? nqg : nkg, nb = qside ? nqb : nkb;
    const int c = int(v % RW);
    const int64_t grp = (v / RW) % ng, bx = v / (RW * ng);
    const int64_t b0 = grp * kGroup, b1 = b0 + kGroup < nb ? b0 + kGroup : nb;
    double s = 0.0;
    if (qside)
      for (int64_t blk = b1 - 1; blk >= b0; --blk) {
        const int64_t at = (bx * nb + blk) * RW + c;
        s += qpart[at];
        qrec[at] = float(s);
      }
    else
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t at = (bx * nb + blk) * RW + c;
        s += kpart[at];
        krec[at] = float(s);
      }
  }
}

template <class T, int DM>
abft_status pre_pass_dm(const AttnArgs& a, const AttnBwdPtrs& g, State* st, cudaStream_t stream, bool check,
                        BwdSums* ms) {
  ms->nqb = (a.Lq + kB - 1) / kB;
  ms->nkb = (a.Lk + kB - 1) / kB;
  const BwdWorkspace ws(a, DM, check);
  if (!grow_device_buffer(&st->attn_work, &st->attn_work_bytes, size_t(ws.bytes))) return ABFT_STATUS_NOT_SUPPORTED;
  unsigned char* w = static_cast<unsigned char*>(st->attn_work);
  float* ld = reinterpret_cast<float*>(w + ws.ld);
  ms->ld = ld;
  auto grid_of = [](int64_t n) { return unsigned(n < 1 ? 1 : n < (1 << 20) ? n : (1 << 20)); };
  const int64_t qrows = a.B * a.H * ms->nqb * kB, krows = a.B * a.HK * ms->nkb * kB;
  if (!check) {
    attn_bwd_mma_rows_kernel<T, false><<<grid_of((qrows + 3) / 4), kT, 0, stream>>>(
        a, g, ld, nullptr, nullptr, nullptr, nullptr, ms->nqb, ms->nkb);
  } else {
    int* qflag = reinterpret_cast<int*>(w + ws.qflag);
    float* qrec = reinterpret_cast<float*>(w + ws.qrec);
    float* krec = reinterpret_cast<float*>(w + ws.krec);
    T* xq = reinterpret_cast<T*>(w + ws.xq);
    T* xo = reinterpret_cast<T*>(w + ws.xo);
    T* xk = reinterpret_cast<T*>(w + ws.xk);
    double* qpart = reinterpret_cast<double*>(w + ws.qpart);
    double* kpart = reinterpret_cast<double*>(w + ws.kpart);
    ms->qflag = qflag, ms->qrec = qrec, ms->krec = krec, ms->xq = xq, ms->xo = xo, ms->xk = xk;
    // S and dP tiles on tensor cores: 3 DM terms (ABFT.md §13.2); up to 512 rows a check.
    ms->c_tile = ck::attn_float_tile_coefficient<float>(kGroup * kB, 3 * DM, DM, 4);
    ms->abs_tile = ck::attn_float_tile_abs_term<float>(kGroup * kB, 3 * DM, DM);
    const int64_t bhq = a.B * a.H, bhk = a.B * a.HK;
    cudaMemsetAsync(qflag, 0, size_t(bhq * ms->nqb) * sizeof(int), stream);
    attn_bwd_mma_rows_kernel<T, true><<<grid_of((qrows + krows + 3) / 4), kT, 0, stream>>>(
        a, g, ld, qflag, xq, xo, xk, ms->nqb, ms->nkb);
    attn_bwd_mma_block_sums_kernel<T, DM><<<grid_of(bhq * ms->nqb + bhk * ms->nkb), kT, 0, stream>>>(
        a, g, qpart, kpart, ms->nqb, ms->nkb);
    const int64_t rthreads =
        (bhq * ((ms->nqb + kGroup - 1) / kGroup) + bhk * ((ms->nkb + kGroup - 1) / kGroup)) * kRec * DM;
    attn_bwd_mma_records_kernel<DM><<<grid_of((rthreads + kT - 1) / kT), kT, 0, stream>>>(
        qpart, kpart, qrec, krec, bhq, ms->nqb, bhk, ms->nkb);
  }
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

}  // namespace

namespace bwd_mma {

abft_status pre_pass(abft_cuda_dtype dtype, int dm, const AttnArgs& a, const AttnBwdPtrs& g, State* st,
                     cudaStream_t stream, bool check, BwdSums* ms) {
  if (dtype == ABFT_CUDA_HALF)
    return dm == 64 ? pre_pass_dm<__half, 64>(a, g, st, stream, check, ms)
                    : pre_pass_dm<__half, 128>(a, g, st, stream, check, ms);
  return dm == 64 ? pre_pass_dm<__nv_bfloat16, 64>(a, g, st, stream, check, ms)
                  : pre_pass_dm<__nv_bfloat16, 128>(a, g, st, stream, check, ms);
}

}  // namespace bwd_mma

}  // namespace abft::cuda::attn
