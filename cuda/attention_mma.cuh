/** \file attention_mma.cuh
 *  \brief What the mma.sync attention kernels share (attention_forward_mma.cu,
 *  attention_backward_mma.cu; docs/ABFT.md §13.4, §13.5): their tile shape, the scale and
 *  rounding of checksum columns carried in the storage type, a tile's cp.async copy, and the A
 *  fragments of a warp's rows.
 *
 *  A block of 4 warps owns 64 rows (queries, or keys in the backward's dK/dV kernel), a warp 16
 *  of them; the swept side passes through shared memory in tiles of 64 rows, row stride DM + 8
 *  storage elements (16 bytes more than a row: ldmatrix's eight rows fall in distinct banks).
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "warp_mma.cuh"

namespace abft::cuda::attn::mma_tile {

constexpr int kRows = 64;       ///< rows of a block and of a tile
constexpr int kThreads = 128;   ///< 4 warps of 16 rows
constexpr int kGroup = 8;       ///< tiles of the swept side per score / dP check (512 rows, aligned to 0)

/** The power of two the checksum columns are scaled by in the storage type: binary16's range is
 *  too short for a row's sum_c |x_c| (up to 128 x 65504); bfloat16 has float's. */
template <class T>
constexpr float checksum_scale() {
  return std::is_same<T, __half>::value ? 0x1p-8f : 1.0f;
}
/** Unit roundoff of the storage type. */
template <class T>
constexpr double storage_u() {
  return std::is_same<T, __half>::value ? 0x1p-11 : 0x1p-8;
}
/** Half the subnormal quantum of the storage type (the absolute error of a rounding there). */
template <class T>
constexpr double storage_tiny() {
  return std::is_same<T, __half>::value ? 0x1p-25 : 0x1p-134;
}
/** Largest finite value of the storage type. */
template <class T>
constexpr double storage_max() {
  return std::is_same<T, __half>::value ? 65504.0 : 0x1.fep+127;  // bfloat16: (2 - 2^-7) 2^127
}

/** Issue the cp.async copies of rows [0, 64) of a tile (row stride `rs` elements, head_dim D,
 *  zeros past `nrows` rows and past D) into shared memory rows of RS elements: each thread one
 *  16-byte column chunk of every (128 / (DM / 8))-th row, so its addresses step by a constant. */
template <class T, int DM, int RS>
__device__ __forceinline__ void load_tile(T* dst, const T* src, int64_t rs, int64_t nrows, int D, int tid) {
  constexpr int CH = DM / 8, RPI = kThreads / CH;  // chunks a row, rows an iteration
  const int c = (tid % CH) * 8, r0 = tid / CH;
  const bool cok = c < D;
  const T* p = src + r0 * rs + c;
  T* q = dst + r0 * RS + c;
#pragma unroll
  for (int it = 0; it < kRows / RPI; ++it) {
    const bool ok = cok && r0 + it * RPI < nrows;
    abft::cuda::mma::cp_async_16(q + it * RPI * RS, ok ? p + it * RPI * rs : src, ok);
  }
}

/** The A fragment of k-chunk kc (16 columns) of the warp's rows [16 w, 16 w + 16) of a tile in
 *  shared memory (row stride RS). */
template <int RS, class T>
__device__ __forceinline__ void a_fragment(uint32_t (&f)[4], const T* tile, int warp, int lane, int kc) {
  abft::cuda::mma::ldmatrix_x4<false>(f, tile + (16 * warp + lane % 16) * RS + kc * 16 + (lane / 16) * 8);
}

/** A checksum n-tile's four leading columns for row r of the warp's (0: row g, 1: g + 8), as every
 *  lane of the row's four sees them: the C fragment puts columns 0, 1 (hi, lo) in the row's lane
 *  0 and columns 2, 3 (the magnitude a, the ones column) in its lane 1. All 32 lanes call it. */
struct ChecksumRow {
  float hi, lo, a, ones;
};
__device__ __forceinline__ ChecksumRow checksum_row(const float (&x)[4], int r, int lane) {
  const int q0 = lane & ~3;
  ChecksumRow c;
  c.hi = __shfl_sync(0xffffffffu, x[2 * r], q0);
  c.lo = __shfl_sync(0xffffffffu, x[2 * r + 1], q0);
  c.a = __shfl_sync(0xffffffffu, x[2 * r], q0 + 1);
  c.ones = __shfl_sync(0xffffffffu, x[2 * r + 1], q0 + 1);
  return c;
}

}  // namespace abft::cuda::attn::mma_tile
