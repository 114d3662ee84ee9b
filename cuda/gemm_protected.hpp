/** \file gemm_protected.hpp
 *  \brief The CUDA engine's internal door to the protected GEMM (gemm_protected.cu), for the
 *  entry points with cuBLAS's own signatures (gemm_cublas_api.cu).
 */
#pragma once
#include <library_types.h>

#include <cstdint>
#include <functional>

#include "abft/abft.h"
#include "gemm_batch.hpp"

namespace abft::cuda {


/** What a caller may add to a protected GEMM (`product` and `bias`: column-major calls only):
 *  - `product`: its own product in place of the engine's cuBLAS call — the preload's cuBLASLt
 *    call with the caller's descriptors, algorithm and workspace, so that the result is the
 *    unprotected call's bit for bit. It reads the operands at the pointers it is given (the
 *    caller's, or the engine's copies under operand injection), in the caller's layouts, and
 *    writes C; false when it failed.
 *  - `bias`: a column vector of m elements of the storage type the product adds to every
 *    column, C = alpha op(A) op(B) + beta C0 + bias 1^T rounded once (cuBLASLt's bias
 *    epilogue); the checks' references and the repair include it. Without `product`, the
 *    engine adds it (beta = 0 only: C filled with the bias, then the product with beta = 1). */
struct GemmExtras {
  std::function<bool(const void* A, const void* B)> product;
  const void* bias = nullptr;
  /** `encoded`: the encoding the checks form of the operand they sum over the product's rows
   *  (k pairs of doubles on the device, gemm_encode), made once by a caller whose operand does
   *  not change between calls — a model's weights — and given back at each call, which then
   *  neither launches nor reads that operand for it. A single product (no strided batch) of the
   *  shape, layout and transposes it was made for, from the same operand; either layout. */
  const double* encoded = nullptr;
};

/** The encoding a protected GEMM of this shape (layout, transposes, m, n, k) forms of its
 *  encoded operand — A for a column-major call, B for a row-major one (the operand whose
 *  columns' sums over the product's rows the checks read: docs/ABFT.md §11) — into `out`
 *  (device memory, 2k doubles), stream-ordered on `stream`, for GemmExtras::encoded. The other
 *  operand is not read (may be null). INVALID_VALUE / INVALID_SIZE / INVALID_LD / NULL_POINTER
 *  as the product's arguments would give; NOT_SUPPORTED without a device or for another type. */
abft_status gemm_encode(abft_handle_t h, void* stream, cudaDataType_t type, abft_layout layout, abft_op transa,
                        abft_op transb, int64_t m, int64_t n, int64_t k, const void* A, int64_t lda, const void* B,
                        int64_t ldb, double* out);

/** abft_cuda_sgemm with `encoded` (GemmExtras::encoded; null: the call forms it). */
abft_status sgemm_encoded(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout, abft_op transa,
                          abft_op transb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                          const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const double* encoded);

/** One protected column-major-or-row-major GEMM of storage type `type` (CUDA_R_32F, _64F, _16F,
 *  _16BF); alpha and beta point to host scalars (double for CUDA_R_64F, float otherwise);
 *  math_mode: the caller's cuBLAS math mode (cublasMath_t), or -1 for the handle's own.
 *  NOT_SUPPORTED for another type. With `batch`, a strided batch in one set of launches (one
 *  cuBLAS strided-batched product, one launch per check); with `extras`, the caller's product
 *  and bias (a strided batch: one product call for all items, one bias for every item;
 *  INVALID_VALUE on a row-major call). */
abft_status protected_gemm(abft_handle_t h, void* stream, int math_mode, cudaDataType_t type, abft_layout layout,
                           abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
                           const void* A, int64_t lda, const void* B, int64_t ldb, const void* beta, void* C,
                           int64_t ldc, const GemmBatch& batch = GemmBatch{}, const GemmExtras* extras = nullptr);

}  // namespace abft::cuda
