/** \file ops_gpu.hpp
 *  \brief The runtime's GPU engine (ModelOptions::engine = Engine::Gpu): the products and the
 *  attention of a pass run on the CUDA engine's protected kernels (abft_cuda.h), the pointwise
 *  ops stay on the host. An offload engine: each call copies the host views it reads to the
 *  device and what it writes back, then reads the call's device counters with abft_cuda_sync,
 *  so every call's report reaches the per-layer statistics as on the CPU. While the weights are
 *  held (gpu_hold_weights: a Model call, a generation loop), a product's weight operand is
 *  copied once and kept on the device; the scratch of the other operands is kept per handle.
 *  Built with the CUDA engine only; otherwise every function returns NOT_SUPPORTED (the
 *  model's Error says so).
 */
#pragma once
#include <cstddef>
#include <cstdint>

#include "abft/abft.h"
#include "abft/attention.h"

namespace abft::transformer::ops {

/** Whether this build has the GPU engine and a usable device; *why says why not. */
bool gpu_engine_available(const char** why);
/** Free the device state the engine kept for h (before the handle is destroyed). */
void gpu_release(abft_handle_t h);

/** Hold h's weights on the device (nested holds count): until the matching unhold, a product
 *  whose B is a weight (gpu_sgemm's b_is_weight) reads the copy made at its first use; the
 *  caller promises the weights do not change meanwhile. The last unhold frees the copies. */
void gpu_hold_weights(abft_handle_t h);
void gpu_unhold_weights(abft_handle_t h);
/** The weights changed (Model::weights(), mutable): free h's held copies; a product made while
 *  still held copies its weight again at its first use. Nothing when none are held. */
void gpu_drop_held_weights(abft_handle_t h);
/** Device bytes of the weights h holds now (tests). */
size_t gpu_held_weight_bytes(abft_handle_t h);

/** C = op(A) op(B) + beta C, row-major host arrays, on the device (alpha 1). b_is_weight: B is
 *  a model weight (kept on the device while held). */
abft_status gpu_sgemm(abft_handle_t h, abft_policy policy, abft_op ta, abft_op tb, int64_t m, int64_t n,
                      int64_t k, const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                      int64_t ldc, abft_report* r, bool b_is_weight = false);

/** Attention forward / backward of host views (nonnegative strides) on the device. */
abft_status gpu_attention_forward(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                  const float* q, const float* k, const float* v, float* o, float* lse,
                                  abft_report* r);
abft_status gpu_attention_backward(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                   const float* q, const float* k, const float* v, const float* o,
                                   const float* dO, const float* lse, float* dq, float* dk, float* dv,
                                   abft_report* r);

// ---- The resident pass (ops_resident.hpp): every pointer below is device memory.

/** Device memory (nullptr when there is none, or no CUDA engine); gpu_free(nullptr) is a no-op. */
void* gpu_malloc(size_t bytes);
void gpu_free(void* p);

/** The device copy of a model's n weights (one array, the host's layout), made at the first
 *  resident pass of a hold and kept while h holds its weights (gpu_hold_weights); made again
 *  from the host after kRefreshUses passes, when the weights changed (gpu_drop_held_weights) or
 *  when `host` or n is another model's. nullptr without device memory. Counted in
 *  gpu_held_weight_bytes; freed with the other held weights. */
const float* gpu_resident_weights(abft_handle_t h, const float* host, size_t n);

/** gpu_sgemm, gpu_attention_forward, gpu_attention_backward on device arrays: the protected
 *  kernels on the caller's pointers, no copies; the call's counters read by abft_cuda_sync. */
abft_status gpu_sgemm_device(abft_handle_t h, abft_policy policy, abft_op ta, abft_op tb, int64_t m, int64_t n,
                             int64_t k, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                             float* C, int64_t ldc, abft_report* r);
abft_status gpu_attention_forward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                         const float* q, const float* k, const float* v, float* o, float* lse,
                                         abft_report* r);
abft_status gpu_attention_backward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                          const float* q, const float* k, const float* v, const float* o,
                                          const float* dO, const float* lse, float* dq, float* dk, float* dv,
                                          abft_report* r);

}  // namespace abft::transformer::ops
