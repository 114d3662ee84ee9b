/** \file attention_backward_mma.cuh
 *  \brief Between the mma.sync backward's pre-pass (attention_backward_mma_sums.cu) and its two
 *  kernels (attention_backward_mma.cu; docs/ABFT.md §13.5): the widths of the checksum columns
 *  and records, what the pre-pass leaves for the kernels (BwdSums), and its launch.
 */
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "abft/abft_cuda.h"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "device_state.hpp"

namespace abft::cuda::attn::bwd_mma {

constexpr int kX = 8;          ///< dO's checksum columns a row: x_hi, x_lo, a, 1, 0, 0, 0, 0
/// Q's and K's a row (the other operand of dS, which is signed): x_hi, x_lo, 0, 1, 0, 0, 0, 0
/// for dS, then 0, 0, a, 0, 0, 0, 0, 0 for |dS|: both products add into one C fragment.
constexpr int kXS = 16;
constexpr int kRec = 4;        ///< a record: sums of x, |x|, y, |y| (DM floats each)

/** What the pre-pass leaves for one call (attn_work), nqb / nkb blocks of 64 queries / keys:
 *  - ld: per (batch, head, query < nqb 64) two floats {-lse log2 e, D}: -inf for lse = +-inf and
 *    past q_len (P = 0 there), NaN for a NaN lse; D = dO . O in double rounded once (0 past q_len);
 *  checking only:
 *  - qflag: per (batch, head, query block), nonzero when a row's lse is NaN or +inf or its D is
 *    not finite (data: the unit's checks are skipped);
 *  - qrec: per (batch, head, query block qb) kRec DM floats, the sums of Q, |Q|, dO, |dO| over
 *    the queries from qb to the end of its group of kGroup blocks (a suffix of the group);
 *  - krec: per (batch, KV head, key block kb) the sums of K, |K|, V, |V| over the keys from the
 *    start of kb's group to the end of kb (a prefix);
 *  - xq, xo, xk: per row (padded to whole blocks, zeros past the side's length) kXS, kX, kXS
 *    storage values, the checksum columns of Q, dO, K;
 *  - the coefficients of the tile checks (the same for every group). */
struct BwdSums {
  const float* ld = nullptr;
  const int* qflag = nullptr;
  const float* qrec = nullptr;
  const float* krec = nullptr;
  const void* xq = nullptr;
  const void* xo = nullptr;
  const void* xk = nullptr;
  int64_t nqb = 0, nkb = 0;
  double c_tile = 0, abs_tile = 0;
};

/** Run the pre-pass of one call on `stream` into st's attention workspace, for storage `dtype`
 *  (binary16 or bfloat16) and head-dim bucket `dm` (64 or 128): always D and -lse log2 e; when
 *  `check`, the flags, records and checksum columns and the tile checks' coefficients. Returns
 *  NOT_SUPPORTED, with nothing enqueued, when the workspace cannot be had (the caller then takes
 *  the SIMT kernels), INTERNAL_ERROR when a launch fails. */
abft_status pre_pass(abft_cuda_dtype dtype, int dm, const AttnArgs& a, const AttnBwdPtrs& g, State* st,
                     cudaStream_t stream, bool check, BwdSums* ms);

}  // namespace abft::cuda::attn::bwd_mma
