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

#include "abft/checksum/attention_row_check.hpp"
#include "attention_device.cuh"
#include "warp_mma.cuh"

namespace abft::cuda::attn::mma_tile {

constexpr int kRows = 64;       ///< rows of a block and of a tile
constexpr int kThreads = 128;   ///< 4 warps of 16 rows
constexpr int kGroup = 8;       ///< tiles of the swept side per score / dP check (512 rows, aligned to 0)
constexpr float kLog2e = 1.44269504088896340736f;  ///< exp(x) = exp2(x log2 e)

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

/** Column k of a row's checksum columns in the storage type, for the row's sum x and magnitude ax
 *  (double sums): x rounded to float and scaled (checksum_scale) split into two storage values
 *  (column 0, then the float remainder in column 1), the scaled magnitude in column `ka`, ones in
 *  column 3, zeros elsewhere and for a row past the side's length (`live` false). */
template <class T>
__device__ __forceinline__ T checksum_column(int k, int ka, double x, double ax, bool live) {
  const float v = float(x) * checksum_scale<T>(), av = float(ax) * checksum_scale<T>();
  float y = 0.0f;
  if (k == 0) y = v;
  else if (k == 1) y = v - to_f(from_f<T>(v));
  else if (k == ka) y = av;
  else if (k == 3) y = 1.0f;
  return from_f<T>(live ? y : 0.0f);
}

/** A row's sum and magnitude (sum of |x|) of its D storage values (column stride cs; zeros when
 *  `live` is false), by a warp: lanes over the columns in double, then a butterfly, so every lane
 *  holds the totals. All 32 lanes call it. */
template <class T>
__device__ __forceinline__ void warp_row_sums(const T* row, int64_t cs, int D, bool live, int lane, double& s,
                                              double& sa) {
  s = 0.0, sa = 0.0;
  if (live)
    for (int c = lane; c < D; c += 32) {
      const double x = double(to_f(row[c * cs]));
      s += x;
      sa += fabs(x);
    }
  for (int o = 16; o > 0; o /= 2) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    sa += __shfl_xor_sync(0xffffffffu, sa, o);
  }
}

/** The reference and magnitude of a tile check for the warp's two rows per lane (r = 0: row g,
 *  1: g + 8) against a group record: row . rec[0, DM) and |row| . rec[DM, 2 DM), the row's values
 *  from its A fragments (rows of `tile`), this lane's columns in order by fused multiply-adds (the
 *  chain attn_float_tile_coefficient counts; the butterfly is tile_verdicts'). */
template <class T, int DM, int RS>
__device__ __forceinline__ void tile_reference(const T* tile, const float* rec, int warp, int lane, float (&ref)[2],
                                               float (&mag)[2]) {
  const int t4 = lane % 4;
  ref[0] = ref[1] = mag[0] = mag[1] = 0.0f;
#pragma unroll 1  // (once per group: no registers for loads ahead)
  for (int kc = 0; kc < DM / 16; ++kc) {
    uint32_t af[4];
    a_fragment<RS>(af, tile, warp, lane, kc);
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      const int c = kc * 16 + hf * 8 + 2 * t4;
      const float2 xs = *reinterpret_cast<const float2*>(rec + c);
      const float2 xa = *reinterpret_cast<const float2*>(rec + DM + c);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const uint32_t q = af[2 * hf + r];
        const float q0 = abft::cuda::mma::lo_f<T>(q), q1 = abft::cuda::mma::hi_f<T>(q);
        ref[r] = fmaf(q0, xs.x, ref[r]);
        ref[r] = fmaf(q1, xs.y, ref[r]);
        mag[r] = fmaf(fabsf(q0), xa.x, mag[r]);
        mag[r] = fmaf(fabsf(q1), xa.y, mag[r]);
      }
    }
  }
}

/** A tile check's verdicts for the warp's two rows: this lane's observed sums (reset here), its
 *  reference and magnitude, each summed over the row's four lanes, against the check's bound
 *  (attn_tile_verdict) for the rows that exist; a failure sets `bad`, data `skip`. All 32 lanes
 *  call it. */
__device__ __forceinline__ void tile_verdicts(float (&obs)[2], const float (&ref)[2], const float (&mag)[2],
                                              const bool (&valid)[2], double coef, double abs, bool& bad,
                                              bool& skip) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float ob = lane_sum(obs[r]), rf = lane_sum(ref[r]), mg = lane_sum(mag[r]);
    obs[r] = 0.0f;
    if (!valid[r]) continue;
    const abft::checksum::AttnVerdict v = abft::checksum::attn_tile_verdict(double(ob), double(rf), double(mg), coef, abs);
    bad |= v == abft::checksum::AttnVerdict::Fail;
    skip |= v == abft::checksum::AttnVerdict::Skip;
  }
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
