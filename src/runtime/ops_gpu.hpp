/** \file ops_gpu.hpp
 *  \brief The runtime's GPU engine (ModelOptions::engine = Engine::Gpu): what the resident pass
 *  (ops_resident.hpp) needs from the CUDA engine — device memory, one device copy of the weights
 *  while a Model call, a generation loop or a training step holds them, and the protected
 *  products and attention on device arrays. Built with the CUDA
 *  engine only; otherwise the model refuses the engine (gpu_engine_available) and the rest
 *  returns NOT_SUPPORTED or nothing.
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

/** Hold h's weights on the device (nested holds count): until the matching unhold, the resident
 *  passes read the copy made at the first of them (gpu_resident_weights); the caller promises
 *  the weights do not change meanwhile. The last unhold frees the copy. */
void gpu_hold_weights(abft_handle_t h);
void gpu_unhold_weights(abft_handle_t h);
/** The weights changed (Model::weights(), mutable): free h's copy; the next pass makes it again.
 *  Nothing when none is held. */
void gpu_drop_held_weights(abft_handle_t h);
/** Device bytes of the weights h holds now (tests). */
size_t gpu_held_weight_bytes(abft_handle_t h);

// Every pointer below is device memory.

/** Device memory (nullptr when there is none, or no CUDA engine); gpu_free(nullptr) is a no-op. */
void* gpu_malloc(size_t bytes);
void gpu_free(void* p);
/** Page-locked host memory (cudaMallocHost: copies from and to it run without a wait), nullptr
 *  when there is none; gpu_host_free(nullptr) is a no-op. */
void* gpu_host_malloc(size_t bytes);
void gpu_host_free(void* p);

/** The device copy of a model's n weights (one array, the host's layout), made at the first
 *  resident pass of a hold and kept while h holds its weights (gpu_hold_weights); made again
 *  from the host after kRefreshUses passes, when the weights changed (gpu_drop_held_weights) or
 *  when `host` or n is another model's — unless the copy was written on the device since
 *  (gpu_weights_written), when it is returned as it is. nullptr without device memory. Counted in
 *  gpu_held_weight_bytes; freed with the other held weights. */
float* gpu_resident_weights(abft_handle_t h, const float* host, size_t n);
/** The copy was written on the device (an optimizer's step on it): from now on it is the
 *  weights — no refresh from the host — and goes back to the host array it was made from
 *  before it is freed (the last unhold, a drop, a release) or at gpu_weights_to_host. */
void gpu_weights_written(abft_handle_t h);
/** The device's newer weights back to the host (the copy kept, no longer the newer); true when
 *  the host's are current (also when nothing was held). */
bool gpu_weights_to_host(abft_handle_t h);

/** A number that changes whenever h's held copy of the weights does (made, made again, written
 *  by an optimizer on the device, dropped): what was computed from the copy is current while it
 *  stays the same. 0 when h holds nothing yet. */
uint64_t gpu_weights_version(abft_handle_t h);

/** The protected sgemm (row-major, alpha 1) and attention forward and backward (float) on the
 *  caller's device arrays, no copies, on the default stream; the launch's status (the counters
 *  stay on the device: the resident pass reads them). `encoded`: the checks' encoding of B (the
 *  operand a row-major call encodes) made by gpu_sgemm_encode for this shape, or null (the call
 *  forms it). */
abft_status gpu_sgemm_device(abft_handle_t h, abft_policy policy, abft_op ta, abft_op tb, int64_t m, int64_t n,
                             int64_t k, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                             float* C, int64_t ldc, const double* encoded = nullptr);
/** The encoding of B (2k doubles into device memory `out`) that gpu_sgemm_device's checks form for
 *  this shape, made once for a B that does not change between calls (a weight). */
abft_status gpu_sgemm_encode(abft_handle_t h, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, const float* A,
                             int64_t lda, const float* B, int64_t ldb, double* out);
abft_status gpu_attention_forward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                         const float* q, const float* k, const float* v, float* o, float* lse);
abft_status gpu_attention_backward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                          const float* q, const float* k, const float* v, const float* o,
                                          const float* dO, const float* lse, float* dq, float* dk, float* dv);

}  // namespace abft::transformer::ops
