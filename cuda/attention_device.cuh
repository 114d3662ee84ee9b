/** \file attention_device.cuh
 *  \brief What the GPU attention kernels share (forward now, backward next): the problem as the
 *  device sees it (AttnArgs), the planned faults in engine coordinates (DevFaultList, landed on
 *  the first pass only), storage loads and stores for float / binary16 / bfloat16, and the
 *  reductions over the four lanes that hold one query row.
 *
 *  Layout of the work (docs/ABFT.md §13): a block of 128 threads owns kBR = 32 queries of one
 *  head; four consecutive threads ("lanes") share a query row, lane r holding the head_dim
 *  columns c = r + 4a and the keys j = r + 4t of each key block of kBC = 32 keys.
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "abft/attention.h"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_bwd_check.hpp"
#include "device_faults.cuh"
#include "device_state.hpp"

namespace abft::cuda::attn {

constexpr int kBR = 32;                  ///< queries per block
constexpr int kBC = 32;                  ///< keys per key block
constexpr int kLanes = 4;                ///< threads per query row
constexpr int kThreads = kBR * kLanes;   ///< threads per block
constexpr int kKeysPerLane = kBC / kLanes;
constexpr int kMaxDevFaults = 8;         ///< faults one call can land (more are not applied)
/** Largest head-dim bucket whose P V step forms each key block's product apart and adds it
 *  once (larger buckets accumulate every key directly: registers). */
constexpr int kPartialMaxDim = 128;
static_assert(kThreads / kLanes == kBC, "the V checksum columns give one key to each lane group");

/** Storage loads / stores: compute is float whatever the storage. */
__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/** The problem in element strides (batch, heads, seq, head_dim) of each tensor. */
struct AttnArgs {
  int64_t B = 0, H = 0, HK = 0, G = 1, Lq = 0, Lk = 0, D = 0;
  int64_t off = 0;  ///< Lk - Lq: query i may attend key j <= i + off when causal
  float scale = 1.0f;
  int causal = 0;
  int64_t qs[4] = {}, ks[4] = {}, vs[4] = {}, os[4] = {}, ms[4] = {};
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* mask = nullptr;  ///< same storage type as Q; may be null
  void* o = nullptr;
  float* lse = nullptr;  ///< [B, H, Lq] contiguous; may be null
  int64_t nqb = 0;       ///< query blocks per head
};

/** A planned fault in engine coordinates (as the CPU engine maps them, attention.h): head
 *  instance bh = b*heads + h, query row r, column c (key or head_dim column), kpos. */
struct DevFault {
  int site = 0, model = 0, bit = 0;
  int64_t bh = 0, r = 0, c = 0, kpos = 0;
  double value = 0;
};

/** The faults of one call; `landed` (device, 3 doubles per fault: applied, before, after) is
 *  written by the thread that lands each. */
struct DevFaultList {
  int n = 0;
  DevFault f[kMaxDevFaults];
  double* landed = nullptr;
};

/** Land fault `idx` on a value of any storage type, recording it unless `record` is false
 *  (a value every lane of a row holds a copy of: one lane records). */
template <class T>
__device__ __forceinline__ T land(const DevFaultList& fl, int idx, T x, bool record = true) {
  const DevFault& f = fl.f[idx];
  const T y = apply_fault_any<T>(x, abft_fault_model(f.model), f.bit, f.value);
  if (record && fl.landed) {
    fl.landed[3 * idx] = 1.0;
    fl.landed[3 * idx + 1] = double(to_f(x));
    fl.landed[3 * idx + 2] = double(to_f(y));
  }
  return y;
}

/** Whether fault f is at `site` on row (bh, row), column `col` (any when col < 0), with kpos in
 *  [lo, hi) (any when lo > hi). Every matching fault lands (several may share a row). */
__device__ __forceinline__ bool fault_at(const DevFault& f, int site, int64_t bh, int64_t row, int64_t col, int64_t lo,
                                         int64_t hi) {
  if (f.site != site || f.bh != bh || f.r != row) return false;
  if (col >= 0 && f.c != col) return false;
  return lo > hi || (f.kpos >= lo && f.kpos < hi);
}

/** Sum / max over the four lanes of a query row: a butterfly, so every lane ends with the
 *  same value (bit for bit: each lane adds the same pairs). All 32 threads of the warp call it. */
template <class V>
__device__ __forceinline__ V lane_sum(V x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1, kLanes);
  x += __shfl_xor_sync(0xffffffffu, x, 2, kLanes);
  return x;
}
__device__ __forceinline__ float lane_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1, kLanes));
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2, kLanes));
  return x;
}
/** Column sums of the first `rows` rows of a shared-memory tile (row stride `stride`) in
 *  double, and of their magnitudes, one thread per column c < cols, stored as S (double, or
 *  float: rounded once): the references and magnitudes of the tile checks (e^T K_blk,
 *  e^T |K_blk|, ...). */
template <class S>
__device__ __forceinline__ void tile_column_sums(const float* tile, int stride, int rows, int cols, S* sum,
                                                 S* abs_sum) {
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    double s = 0.0, sa = 0.0;
    for (int j = 0; j < rows; ++j) {
      const double x = tile[j * stride + c];
      s += x;
      sa += fabs(x);
    }
    sum[c] = S(s);
    abs_sum[c] = S(sa);
  }
}

/** The end of one pass over a unit (a thread block's rows), every thread of the block calling it:
 *  the threads' flags combined (attn_unit_outcome: `hard` an exact check, `skip_in` data,
 *  `bad` a failed check, `skip_out` a downstream Skip), the unit counted in the kernel's device
 *  counters (a first pass: checked or skipped, and failed; a repair: corrected or
 *  uncorrectable), and whether to run the pass again (a first pass that failed, under CORRECT). */
__device__ __forceinline__ bool finish_unit_pass(bool hard, bool skip_in, bool bad, bool skip_out, int pass,
                                                 int correct, DeviceCounters* cnt, RepairCounters* rep) {
  const int any_hard = __syncthreads_or(hard);
  const int any_skip_in = __syncthreads_or(skip_in);
  const int any_bad = __syncthreads_or(bad);
  const int any_skip_out = __syncthreads_or(skip_out);
  const abft::checksum::AttnUnitOutcome o =
      abft::checksum::attn_unit_outcome(any_skip_in != 0, any_bad != 0, any_skip_out != 0, any_hard != 0);
  if (pass == 0) {
    if (threadIdx.x == 0) {
      atomicAdd(o.skipped ? &cnt->skipped : &cnt->checks, 1ull);
      if (o.failed) atomicAdd(&cnt->failed, 1ull);
    }
    return o.failed && correct;
  }
  if (threadIdx.x == 0) atomicAdd(o.failed ? &rep->uncorrectable : &rep->corrected, 1ull);
  return false;
}

/** Keys of the key block that starts at j0 among the first `len` keys: min(kBC, len - j0). */
__device__ __forceinline__ int block_keys(int64_t len, int64_t j0) { return int(len - j0 < kBC ? len - j0 : kBC); }

/** The key blocks' sums, formed once per call by a pre-pass (cuda/attention_key_sums.cu) from
 *  the caller's K and V, for the kernels that sweep every key block of a head once per query
 *  block (the forward, the backward's dQ; the backward's dK/dV kernel reads them too): without
 *  it each query block would form them again from its shared-memory tiles. One record per
 *  (batch, KV head, key block of kBC keys, the last one partial), `bytes` each, for head-dim
 *  bucket DM, floats, each summed in double and rounded once (the tile checks are in float,
 *  docs/ABFT.md §13.3):
 *    [0, DM) e^T K_blk,  [DM, 2 DM) e^T |K_blk|,  then
 *    the forward (`rows`): kBC pairs (v_j, a_j) of V's checksum columns v_j = sum_c V_jc,
 *      a_j = sum_c |V_jc|;
 *    the backward (`!rows`): [2 DM, 3 DM) e^T V_blk,  [3 DM, 4 DM) e^T |V_blk|.
 *  Each value has the bits the kernel's own sums of its tile have (the same order, the same
 *  exactly widened inputs, the same rounding), so a record stands in for them: the bounds do
 *  not change. A kernel uses a block's column sums only when its tile holds the record's keys,
 *  all of the block's `min(kBC, Lk - j0)` (a causal sweep that stops inside a block sums its
 *  own), and only on the first pass: a repair forms them again from its tiles, so a fault in a
 *  record costs a recomputation (or, one that makes a magnitude non-finite, a skipped check),
 *  never a wrong result passed as checked. `p == nullptr`: no records (each
 *  kernel forms its own sums). */
struct KeySums {
  const void* p = nullptr;
  int64_t nkb = 0;    ///< key blocks per (batch, KV head): ceil(Lk / kBC)
  int64_t bytes = 0;  ///< per record
  /// Whether a tile of nk keys from j0 holds all of its record's keys (block_keys(Lk, j0)): the
  /// condition for using the record's column sums.
  static __device__ __forceinline__ bool covers(int64_t Lk, int64_t j0, int nk) { return nk == block_keys(Lk, j0); }
  /// The record of key block kb of (batch b, KV head hk), HK KV heads, as S values.
  template <class S>
  __device__ __forceinline__ const S* at(int64_t b, int64_t hk, int64_t HK, int64_t kb) const {
    return reinterpret_cast<const S*>(static_cast<const unsigned char*>(p) + ((b * HK + hk) * nkb + kb) * bytes);
  }
};

/** Bytes of a KeySums record for bucket DM (rows: the forward's layout). */
constexpr int64_t key_sums_bytes(int dm, bool rows) {
  return int64_t(rows ? 2 * dm + 2 * kBC : 4 * dm) * int64_t(sizeof(float));
}

/** Head-dim bucket a kernel is compiled for: columns padded with zeros to DM (the rule the
 *  host's bounds use too). */
using abft::checksum::attn_head_dim_bucket;

/** f(Storage<T>{}) for the storage type T of dtype (float, __half, __nv_bfloat16), else
 *  `otherwise`: the launchers' one switch over the data types. */
template <class T>
struct Storage {
  using type = T;
};
template <class R, class F>
R with_storage_type(abft_cuda_dtype dtype, R otherwise, F&& f) {
  switch (dtype) {
    case ABFT_CUDA_FLOAT: return f(Storage<float>{});
    case ABFT_CUDA_HALF: return f(Storage<__half>{});
    case ABFT_CUDA_BFLOAT16: return f(Storage<__nv_bfloat16>{});
    default: return otherwise;
  }
}

/** f(std::integral_constant<int, DM>{}) for the head-dim bucket DM of head_dim d: the launchers'
 *  one switch over the buckets. */
template <class F>
decltype(auto) with_head_dim_bucket(int64_t d, F&& f) {
  switch (attn_head_dim_bucket(d)) {
    case 32: return f(std::integral_constant<int, 32>{});
    case 64: return f(std::integral_constant<int, 64>{});
    case 128: return f(std::integral_constant<int, 128>{});
    default: return f(std::integral_constant<int, 256>{});
  }
}

}  // namespace abft::cuda::attn
