/** \file abft_cuda.h
 *  \brief C API of the CUDA engine (built only when nvcc is found): device discovery, the
 *  protected GEMM (issue 9) and the protected FFT (issue 10) on device pointers — first parts,
 *  argument-tested in every build, run on an H200 (docs/RELIABILITY.md §12).
 *
 *  Like the rest of the C API these functions never exit or abort: a machine
 *  without a GPU, without a driver, or with a driver older than the runtime is
 *  an ordinary answer ("no device"), not an error that stops the process.
 */
#pragma once
#include <stddef.h>

#include "abft/abft.h"
#include "abft/attention.h"
#include "abft/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of usable CUDA devices; 0 when there is no device or no (usable) driver. */
ABFT_API int abft_cuda_device_count(void);

/** Write a human-readable, NUL-terminated description of the CUDA devices into
 *  buf (truncated to cap): one line per device with name, compute capability,
 *  memory and multiprocessors, preceded by the runtime/driver versions — or one
 *  line saying why there is none (e.g. "no CUDA driver", "no CUDA-capable device").
 *  Returns NULL_POINTER when buf is NULL or cap is 0, SUCCESS otherwise (also
 *  when no device exists: that is information, not a failure). */
ABFT_API abft_status abft_cuda_describe(char* buf, size_t cap);

/* ------------------------------------------------------------- protected GEMM (device) */
/** C <- alpha op(A) op(B) + beta C on device pointers, BLAS semantics (beta == 0 never reads
 *  C), row- or column-major, any transposes (CONJ_TRANS = TRANS for real types), leading
 *  dimensions as on the CPU. The product is cuBLAS's; the checks are the library's (docs/ABFT.md
 *  §11). Stream-ordered on `stream` (a cudaStream_t; NULL: the default stream) and on the
 *  handle h, which gives the policy and the injection planner as on the CPU.
 *  The return value is the argument / launch status only: the fault-free path never waits for
 *  the device. Detections, repairs (failed columns recomputed in double on the device, then
 *  re-verified) and failures are counted on the device; abft_cuda_sync reads them.
 *  Returns ABFT_STATUS_NOT_SUPPORTED when no device (or no cuBLAS) can be used, or a dimension
 *  exceeds cuBLAS's 32-bit range. Environment ABFT_CUDA_TF32=1 lets cuBLAS use TF32 tensor
 *  cores for float (the bound then accounts for TF32 rounding). */
ABFT_API abft_status abft_cuda_sgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                     abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                     float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                                     float beta, float* C, int64_t ldc);
ABFT_API abft_status abft_cuda_dgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                     abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                     double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                                     double beta, double* C, int64_t ldc);
/** binary16 / bfloat16 storage (A, B, C: __half / __nv_bfloat16 on the device), products
 *  accumulated in float, alpha and beta in float; the bound accounts for the 16-bit output
 *  rounding (docs/ABFT.md §11). */
ABFT_API abft_status abft_cuda_hgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                     abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                     float alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                     float beta, void* C, int64_t ldc);
ABFT_API abft_status abft_cuda_bf16gemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                        abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                        float alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                        float beta, void* C, int64_t ldc);
/** Strided batches: `count` products in one call, item i reading op(A) at A + i strideA and op(B)
 *  at B + i strideB and writing C + i strideC (strides in elements; A's and B's of any sign, 0 for
 *  an operand all items share; C's items must be disjoint — |strideC| at least one C's extent, or
 *  row blocks of one taller matrix (|strideC| >= m and (count - 1) |strideC| + m <= ldc in the
 *  column-major view) — else INVALID_VALUE). One cuBLAS strided-batched product and one launch per check for the
 *  whole batch; the verdicts, repairs and counters are per column of each item, as for single
 *  products. Injected faults address the stacked items: an output or op(A) fault's row is
 *  item * m + row, an op(B) fault's column item * n + col (abft_call_info.batch = count).
 *  count 0 does nothing; count 1 is the single product (the strides unused). */
ABFT_API abft_status abft_cuda_sgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                     abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                     int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                                                     int64_t strideA, const float* B, int64_t ldb, int64_t strideB,
                                                     float beta, float* C, int64_t ldc, int64_t strideC,
                                                     int64_t count);
ABFT_API abft_status abft_cuda_dgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                     abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                     int64_t n, int64_t k, double alpha, const double* A, int64_t lda,
                                                     int64_t strideA, const double* B, int64_t ldb, int64_t strideB,
                                                     double beta, double* C, int64_t ldc, int64_t strideC,
                                                     int64_t count);
ABFT_API abft_status abft_cuda_hgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                     abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                     int64_t n, int64_t k, float alpha, const void* A, int64_t lda,
                                                     int64_t strideA, const void* B, int64_t ldb, int64_t strideB,
                                                     float beta, void* C, int64_t ldc, int64_t strideC,
                                                     int64_t count);
ABFT_API abft_status abft_cuda_bf16gemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                        abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                        int64_t n, int64_t k, float alpha, const void* A,
                                                        int64_t lda, int64_t strideA, const void* B, int64_t ldb,
                                                        int64_t strideB, float beta, void* C, int64_t ldc,
                                                        int64_t strideC, int64_t count);

/* -------------------------------------------------------------- protected FFT (device) */

/** A protected cuFFT plan (opaque). */
typedef struct abft_cuda_fft_plan_s* abft_cuda_fft_plan_t;

/** The process-wide handle of the cuFFT-signature entry points (<abft/abft_cufft.h>), and of
 *  FFT plans made with a NULL handle. */
ABFT_API abft_handle_t abft_cufft_handle(void);

/** Plan a batch of `batch` transforms of rank 1..3 (sizes n[0..rank), row-major, the last
 *  dimension fastest) on device memory, with cuFFT's advanced layout: element idx of signal b is
 *  at b * dist + ((idx0 * embed[1] + idx1) * embed[2] + idx2) * stride, counted in elements of
 *  the side (complex for complex sides; NULL embed: tight). Kinds and signs as on the CPU
 *  (abft/fft.h): C2C sign -1 or +1, R2C -1, C2R +1; unnormalised. A C2R may overwrite its input
 *  (cuFFT's rule); a checked multi-dimensional C2R first makes the self-conjugate planes of its
 *  input (last index 0, and n/2 for even n) exactly Hermitian in place, so the result is the
 *  transform of the spectrum's Hermitian part (docs/ABFT.md §12.1). The transform is cuFFT's; every signal is checked (docs/ABFT.md §12), a failed
 *  one is recomputed in double on the device and re-verified. h gives the policy and the
 *  injection planner, as on the CPU; the counters are read by abft_cuda_sync(h, ...). A NULL h
 *  means the process handle abft_cufft_handle() (<abft/abft_cufft.h>). A plan holds its own
 *  workspace: one execution at a time (as for a cuFFT plan).
 *  Statuses: NULL_POINTER, INVALID_VALUE (precision, kind, rank, sign), INVALID_SIZE (n < 1,
 *  batch < 1), INVALID_LD (stride < 1, dist < 0, embed smaller than the side's size,
 *  overlapping signals), checked before any CUDA call; NOT_SUPPORTED without a usable device or
 *  when cuFFT refuses the plan. */
ABFT_API abft_status abft_cuda_fft_plan_many(abft_cuda_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                             abft_fft_kind kind, int rank, const int64_t* n, int sign,
                                             int64_t batch, const int64_t* inembed, int64_t istride, int64_t idist,
                                             const int64_t* onembed, int64_t ostride, int64_t odist);
/** A contiguous batch of 1D transforms of length n (distances n, or n/2 + 1 on a half side). */
ABFT_API abft_status abft_cuda_fft_plan_1d(abft_cuda_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                           abft_fft_kind kind, int64_t n, int sign, int64_t batch);
/** Policy for this plan's executions (DEFAULT: the handle's, then ABFT_POLICY, then CORRECT). */
ABFT_API abft_status abft_cuda_fft_set_policy(abft_cuda_fft_plan_t p, abft_policy policy);
/** Execute on device arrays, stream-ordered on `stream` (a cudaStream_t; NULL: the default
 *  stream). in == out is in place (cuFFT's rules for in-place layouts). Returns the argument /
 *  launch status only: the fault-free path never waits for the device. */
ABFT_API abft_status abft_cuda_fft_execute(abft_cuda_fft_plan_t p, void* stream, const void* in, void* out);
ABFT_API abft_status abft_cuda_fft_destroy(abft_cuda_fft_plan_t p);

/** How a plan forms its checksums (docs/ABFT.md §12.4), fixed when it is made:
 *  CALLBACKS — inside cuFFT's own kernels: load and store callbacks (LTO-IR the library embeds,
 *  linked by cuFFT through nvJitLink at plan time, which makes planning slower) sum every
 *  element as the transform reads and writes it; the default. PASSES — separate passes over the
 *  input and the output around cuFFT: when the environment says ABFT_CUDA_FFT_SUMS=passes at
 *  planning, or when cuFFT refuses the callbacks. Both give the same verdicts and statistics. */
typedef enum abft_cuda_fft_sums {
  ABFT_CUDA_FFT_SUMS_PASSES = 0,
  ABFT_CUDA_FFT_SUMS_CALLBACKS = 1
} abft_cuda_fft_sums;
/** The plan's way of forming its sums (NULL_POINTER for a NULL plan or out). */
ABFT_API abft_status abft_cuda_fft_get_sums(abft_cuda_fft_plan_t p, abft_cuda_fft_sums* out);
/** Why a plan asked for CALLBACKS forms its sums in PASSES: the cuFFT call that refused the
 *  callbacks (a static string, e.g. "cufftXtSetJITCallback (load)", "cufftMakePlanMany64
 *  (callbacks)") and the cufftResult it returned (CUFFT_NVJITLINK_FAILURE: the link; an
 *  internal error at planning: often the callbacks' resources in cuFFT's kernel). *where = NULL
 *  and *result = 0 when the plan took the callbacks or was not asked for them. */
ABFT_API abft_status abft_cuda_fft_get_callback_refusal(abft_cuda_fft_plan_t p, const char** where, int* result);

/* -------------------------------------------------------- protected attention (device) */

/** Storage type of a GPU attention call's tensors (Q, K, V, the mask, O and the gradients);
 *  compute and accumulation are float for every one, lse is float. */
typedef enum abft_cuda_dtype {
  ABFT_CUDA_FLOAT = 0,    /**< float */
  ABFT_CUDA_HALF = 1,     /**< binary16 (__half) */
  ABFT_CUDA_BFLOAT16 = 2  /**< bfloat16 (__nv_bfloat16) */
} abft_cuda_dtype;

/** Attention forward on device memory: the semantics, layouts, strides, GQA, causality
 *  (bottom-right aligned: q_len != kv_len decodes against a KV cache), mask and fault
 *  coordinates of abft_attention_forward (abft/attention.h), with every tensor in `dtype` on the
 *  device and lse (may be NULL) float [batch, heads, q_len] contiguous. One fused kernel carries
 *  the checksum chain of docs/ABFT.md §13; a failed query block is recomputed and re-verified on
 *  the device. Stream-ordered on `stream` (a cudaStream_t; NULL: the default stream) and on h
 *  (policy, injection planner; NULL h: not allowed). The return value is the argument / launch
 *  status only (the fault-free path never waits for the device): the counts arrive with
 *  abft_cuda_sync(h, ...) under kernel ABFT_KERNEL_ATTN_FWD. Statuses as abft_attention_forward
 *  (argument checks first, nothing written on a rejected call), INVALID_VALUE for an unknown
 *  dtype, NOT_SUPPORTED without a usable device. Policy OFF runs the same kernel without its
 *  checksums (the benchmarks' unprotected baseline). Status: run on an H200. */
ABFT_API abft_status abft_cuda_attention_forward(abft_handle_t h, void* stream, abft_policy policy,
                                                 const abft_attention_desc* d, abft_cuda_dtype dtype,
                                                 const void* Q, const void* K, const void* V, const void* mask,
                                                 void* O, float* lse);

/** Attention backward on device memory: dQ, dK, dV (overwritten) from Q, K, V, the optional
 *  mask, the forward's O and lse (required: float [batch, heads, q_len] contiguous) and dO, with
 *  the semantics, layouts (each gradient in its primal's, dO in O's), argument errors and fault
 *  coordinates of abft_attention_backward (abft/attention.h); every tensor but lse in `dtype`.
 *  Two fused kernels recompute the scores and probabilities tile by tile and carry the checksum
 *  chain of docs/ABFT.md §10.3 (dK/dV per key block, dQ per query block); a failed block is
 *  recomputed and re-verified on the device. Stream-ordered as the forward; counts arrive with
 *  abft_cuda_sync(h, ...) under ABFT_KERNEL_ATTN_BWD. Statuses as abft_attention_backward
 *  (argument checks before any CUDA call, nothing written on a rejected call), INVALID_VALUE
 *  for an unknown dtype, NOT_SUPPORTED without a usable device. Policy OFF runs the same
 *  kernels without their checksums. Status: run on an H200. */
ABFT_API abft_status abft_cuda_attention_backward(abft_handle_t h, void* stream, abft_policy policy,
                                                  const abft_attention_desc* d, abft_cuda_dtype dtype,
                                                  const void* Q, const void* K, const void* V, const void* mask,
                                                  const void* O, const void* dO, const float* lse, void* dQ,
                                                  void* dK, void* dV);

/** Wait for `stream` (only that stream: calls of h still running on another stream are not
 *  waited for, and their counts may arrive at a later sync), then read and reset the device-side counters of h's GPU calls since the
 *  last sync into *out (may be NULL): checks, detected, corrected / recomputed (GEMM columns, FFT
 *  signals), uncorrectable, skipped — and add them, per kernel, to h's statistics and the
 *  process's (abft_stats_get, ABFT_REPORT at exit), where each launch already counted its call.
 *  Returns FAULT_UNCORRECTABLE when a repaired line still failed, FAULT_DETECTED when detections
 *  were not repaired (policy DETECT), SUCCESS otherwise. */
ABFT_API abft_status abft_cuda_sync(abft_handle_t h, void* stream, abft_report* out);

/** The same counts without waiting, for a caller that wants each call's report but not a wait
 *  after each call (the transformer runtime's resident pass): after a call, take its counts
 *  into a snapshot in device memory (stream-ordered, nothing waits); later, with the snapshots
 *  copied to the host in one transfer, turn each into its report. abft_cuda_sync is these two
 *  with a wait between. */
/** Bytes of one snapshot. */
ABFT_API size_t abft_cuda_counters_bytes(void);
/** Enqueue on `stream` the move of h's device counters (every call counted since the last sync
 *  or take) into `snapshot`, device memory of abft_cuda_counters_bytes() bytes, zeroing them.
 *  NULL_POINTER for a NULL h or snapshot; INTERNAL_ERROR when the launch fails. */
ABFT_API abft_status abft_cuda_take_counters(abft_handle_t h, void* stream, void* snapshot);
/** A snapshot's report (host copy of abft_cuda_counters_bytes() bytes) into *out (may be NULL),
 *  added per kernel to h's statistics and the process's as abft_cuda_sync adds them; the same
 *  return values as abft_cuda_sync. */
ABFT_API abft_status abft_cuda_counters_report(abft_handle_t h, const void* snapshot, abft_report* out);
/** Count h's later GPU calls into `snapshot` (device memory of abft_cuda_counters_bytes()
 *  bytes, zeroed by the caller before those calls in stream order) instead of h's own counters,
 *  until the next abft_cuda_count_into on h; NULL returns them to h's own counters, which
 *  abft_cuda_sync and abft_cuda_take_counters read (counts sent elsewhere never reach them).
 *  A host-side setting: no launch, no wait. For a caller that wants each call's report without
 *  a launch per call: point each call at a snapshot of its own, read them all in one transfer,
 *  decode each with abft_cuda_counters_report (the transformer runtime's resident pass).
 *  NULL_POINTER for a NULL h; NOT_SUPPORTED without a usable device. */
ABFT_API abft_status abft_cuda_count_into(abft_handle_t h, void* snapshot);
/** Free the device state (workspace, counters, cuBLAS handle) kept for h; call before
 *  abft_handle_destroy(h). Harmless when h never ran on the GPU. */
ABFT_API abft_status abft_cuda_release(abft_handle_t h);

#ifdef __cplusplus
}
#endif
