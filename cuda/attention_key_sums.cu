/** \file attention_key_sums.cu
 *  \brief The pre-pass of the GPU attention's checks: the sums of each key block of K and V
 *  (KeySums, attention_device.cuh), formed once per call from the caller's tensors.
 *
 *  The forward and the backward's dQ kernel sweep every key block of a head once per query
 *  block, and their score (and dP) checks need the block's column sums e^T K_blk, e^T |K_blk|
 *  (and e^T V_blk, e^T |V_blk|), the forward also V's checksum columns v_j = sum_c V_jc,
 *  a_j = sum_c |V_jc|. Formed in the sweep, they cost every query block the same double sums
 *  over the same tiles — Lq / 32 times per head, G times more under GQA. Formed here, they cost
 *  one read of K and V; the forward's sweep reads a record of 2 DM + 2 kBC floats per key
 *  block, the backward's 4 DM floats.
 *
 *  Each value is summed in double in the order the kernels sum their tiles (keys in order for
 *  the column sums; for v_j, a lane's columns c = lane + 4a in order, then the four lanes'
 *  butterfly), from the same exactly widened inputs, with zeros past head_dim, and rounded as
 *  the kernels round it: the records hold the bits the kernels would form, so the bounds are
 *  unchanged. Since they come from the caller's tensors in
 *  global memory rather than from the kernels' shared-memory tiles, a fault in a tile after its
 *  load now differs from its reference and is seen (before, the reference was formed from the
 *  faulty tile).
 *  Status: compiled for sm_90 (2026-12-02); not yet run on a GPU
 *  (tests/cuda/attention_key_sums_test.cu compares its records with the host's sums).
 */
#include <cuda_runtime.h>

#include <cstdlib>

#include "abft/abft_cuda.h"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "device_state.hpp"

namespace abft::cuda::attn {
namespace {

/** One record per unit u = (b * HK + hk) * nkb + kb, 128 threads a block, grid-stride. */
template <class T, int DM, bool kRows>
__global__ void __launch_bounds__(kThreads) attn_key_sums_kernel(AttnArgs a, unsigned char* out, int64_t nkb) {
  constexpr int64_t bytes = key_sums_bytes(DM, kRows);
  const int tid = threadIdx.x;
  const int D = int(a.D);
  const int64_t units = a.B * a.HK * nkb;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t b = u / (a.HK * nkb), hk = (u / nkb) % a.HK, j0 = (u % nkb) * kBC;
    const int nk = block_keys(a.Lk, j0);
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1] + j0 * a.ks[2];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1] + j0 * a.vs[2];
    unsigned char* rec = out + u * bytes;
    float* recf = reinterpret_cast<float*>(rec);
    // Column sums, one thread per column, keys in order (tile_column_sums' order).
    for (int c = tid; c < DM; c += kThreads) {
      double s = 0.0, sa = 0.0, t = 0.0, ta = 0.0;
      for (int j = 0; j < nk; ++j) {
        const double x = c < D ? double(to_f(K[j * a.ks[2] + c * a.ks[3]])) : 0.0;
        s += x;
        sa += fabs(x);
        if (!kRows) {
          const double y = c < D ? double(to_f(V[j * a.vs[2] + c * a.vs[3]])) : 0.0;
          t += y;
          ta += fabs(y);
        }
      }
      recf[c] = float(s);
      recf[DM + c] = float(sa);
      if (!kRows) {
        recf[2 * DM + c] = float(t);
        recf[3 * DM + c] = float(ta);
      }
    }
    if (kRows) {  // v_j, a_j: four lanes a key (kThreads / kLanes == kBC), as the forward
      const int j = tid / kLanes, lane = tid % kLanes;
      double vs = 0.0, va = 0.0;
      for (int c = lane; c < DM; c += kLanes) {
        const double x = (j < nk && c < D) ? double(to_f(V[j * a.vs[2] + c * a.vs[3]])) : 0.0;
        vs += x;
        va += fabs(x);
      }
      vs = lane_sum(vs);
      va = lane_sum(va);
      if (lane == 0) {
        recf[2 * DM + 2 * j] = float(vs);
        recf[2 * DM + 2 * j + 1] = float(va);
      }
    }
  }
}

/** ABFT_CUDA_ATTN_KEY_SUMS=0 turns the pre-pass off (the kernels form their own sums). */
bool key_sums_disabled() {
  const char* e = std::getenv("ABFT_CUDA_ATTN_KEY_SUMS");
  return e && e[0] == '0' && e[1] == 0;
}

template <class T, int DM, bool kRows>
KeySums launch_dm(const AttnArgs& a, State* st, cudaStream_t stream) {
  KeySums ks;
  const int64_t nkb = (a.Lk + kBC - 1) / kBC;
  const int64_t units = a.B * a.HK * nkb;
  constexpr int64_t bytes = key_sums_bytes(DM, kRows);
  if (!grow_device_buffer(&st->attn_work, &st->attn_work_bytes, size_t(units * bytes))) return ks;
  const unsigned grid = unsigned(units < (1 << 20) ? units : (1 << 20));
  attn_key_sums_kernel<T, DM, kRows><<<grid, kThreads, 0, stream>>>(a, static_cast<unsigned char*>(st->attn_work),
                                                                     nkb);
  if (cudaGetLastError() != cudaSuccess) return ks;
  ks.p = st->attn_work;
  ks.nkb = nkb;
  ks.bytes = bytes;
  return ks;
}

template <bool kRows>
KeySums launch_rows(abft_cuda_dtype dtype, const AttnArgs& a, State* st, cudaStream_t stream) {
  return with_storage_type(dtype, KeySums{}, [&](auto t) {
    return with_head_dim_bucket(a.D, [&](auto dm) {
      return launch_dm<typename decltype(t)::type, decltype(dm)::value, kRows>(a, st, stream);
    });
  });
}

}  // namespace

KeySums key_sums_launch(abft_cuda_dtype dtype, const AttnArgs& a, State* st, cudaStream_t stream, bool rows) {
  // Each key block is read by nqb query blocks of each of the G query heads of its KV head
  // (fewer under causality); with one reader the kernel's own sums cost no more than a record.
  if (a.Lk <= 0 || a.nqb * a.G < 2 || key_sums_disabled()) return KeySums{};
  return rows ? launch_rows<true>(dtype, a, st, stream) : launch_rows<false>(dtype, a, st, stream);
}

}  // namespace abft::cuda::attn
