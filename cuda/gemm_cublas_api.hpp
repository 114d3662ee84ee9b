/** \file gemm_cublas_api.hpp
 *  \brief The engine's cuBLAS-signature door with the caller's own product, for the preload
 *  library (cuda/interpose/cublas_entries.cpp): abft_cublasGemmStridedBatchedEx's arguments and
 *  the program's cuBLAS call as the product, so that a protected result is the unprotected one
 *  bit for bit.
 */
#pragma once
#include <cublas_v2.h>

#include <functional>

namespace abft::cuda {

/** The program's own call on the operands it is given (the caller's, or the engine's copies
 *  under operand injection); false when it failed. */
using CallerProduct = std::function<bool(const void* A, const void* B)>;

/** As abft_cublasGemmStridedBatchedEx (batch 1: one product), with `product` as the product
 *  when it rounds as the engine's bound assumes under the handle's math mode and the program's
 *  algorithm (caller_product_rounds_as_bound); otherwise, or with a null product, the engine's
 *  own. */
cublasStatus_t cublas_gemm_ex(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const void* alpha, const void* A, cudaDataType_t Atype, int lda, long long sa,
                              const void* B, cudaDataType_t Btype, int ldb, long long sb, const void* beta, void* C,
                              cudaDataType_t Ctype, int ldc, long long sc, int batch, cublasComputeType_t computeType,
                              cublasGemmAlgo_t algo, const CallerProduct* product);

/** Whether a caller's cuBLAS product under math mode `math` with algorithm `algo` rounds as the
 *  bound assumes: a base mode the bound knows (default, pedantic, TF32); for 16-bit data,
 *  reduced-precision reductions forbidden (cuBLAS may otherwise reduce split-k partials in 16
 *  bits); for float data, not one of the deprecated *_TENSOR_OP algorithms (99-115), which may
 *  round float inputs to 16 bits. */
bool caller_product_rounds_as_bound(cudaDataType_t type, int math, int algo = CUBLAS_GEMM_DEFAULT);

}  // namespace abft::cuda
