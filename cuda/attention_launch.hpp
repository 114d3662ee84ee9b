/** \file attention_launch.hpp
 *  \brief Between the GPU attention's C entry points (attention_api.cu: argument checks,
 *  injection planning, statistics) and its kernels (attention_forward.cu).
 */
#pragma once
#include <cuda_runtime.h>

#include "abft/abft_cuda.h"
#include "attention_device.cuh"
#include "device_state.hpp"

namespace abft::cuda::attn {

/** Form the key blocks' sums (KeySums, attention_device.cuh) of `a` on `stream` into st's
 *  attention workspace, for the forward (`rows`: V's checksum columns per key) or the backward's
 *  kernels (V's column sums; dK/dV and dQ read them). Returns an empty KeySums, so that the kernels form their own,
 *  when the records would not pay (every key block is visited by one query block only),
 *  when ABFT_CUDA_ATTN_KEY_SUMS=0 (read at every call), or when the workspace cannot be had. */
KeySums key_sums_launch(abft_cuda_dtype dtype, const AttnArgs& a, State* st, cudaStream_t stream, bool rows);

/** Launch the fused forward for `dtype` on `stream` (the counters of st, kernel ATTN_FWD).
 *  check false: the unprotected kernel. Returns the launch status. */
abft_status forward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                           cudaStream_t stream, bool check, bool correct);

/** Launch the mma.sync forward (attention_forward_mma.cu) and, when checking, its pre-pass, for
 *  `dtype` on `stream`: NOT_SUPPORTED, with nothing enqueued, for a call outside its scope
 *  (storage other than binary16 / bfloat16, a head-dim bucket other than 64 / 128, a mask, a
 *  scale not positive and finite, head_dim not a multiple of 8 or not of unit stride, rows not
 *  16-byte aligned) or when its workspace cannot be had; the caller then takes forward_launch's
 *  kernels. */
abft_status forward_mma_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                               cudaStream_t stream, bool check, bool correct);

}  // namespace abft::cuda::attn

namespace abft::cuda::attn {

/** The backward's tensors beyond AttnArgs (which carries Q, K, V, the mask, the forward's O in
 *  `o` and its lse, both read): dO in O's layout, each gradient in its primal's layout. */
struct AttnBwdPtrs {
  const void* dO = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
};

/** Launch the fused backward (cuda/attention_backward.cu: the dK/dV kernel, then the dQ kernel)
 *  for `dtype` on `stream`, counting into st's ATTN_BWD counters. check false: the unprotected
 *  kernels. Returns the launch status. */
abft_status backward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const AttnBwdPtrs& g, const DevFaultList& fl,
                            State* st, cudaStream_t stream, bool check, bool correct);

/** Launch the mma.sync backward (attention_backward_mma.cu: its pre-pass, the dK/dV kernel, then
 *  the dQ kernel) for `dtype` on `stream`, counting into st's ATTN_BWD counters: NOT_SUPPORTED,
 *  with nothing enqueued, for a call outside its scope (storage other than binary16 / bfloat16,
 *  a head-dim bucket other than 64 / 128, head_dim not a multiple of 8, a mask, a scale not
 *  positive and finite, Q, K, V, O or dO not of unit stride along head_dim or with rows not
 *  16-byte aligned, an empty side) or when its workspace cannot be had; the caller then takes
 *  backward_launch's SIMT kernels. */
abft_status backward_mma_launch(abft_cuda_dtype dtype, const AttnArgs& a, const AttnBwdPtrs& g,
                                const DevFaultList& fl, State* st, cudaStream_t stream, bool check, bool correct);

}  // namespace abft::cuda::attn
