/** \file abft_cublas.h
 *  \brief Protected GEMMs with cuBLAS's own signatures: a cuBLAS user swaps a call by renaming
 *  it (cublasSgemm -> abft_cublasSgemm). Includes <cublas_v2.h>; built with the CUDA engine.
 *
 *  The caller's handle gives the stream and the math mode (TF32 enters the bound); alpha and
 *  beta may be host or device pointers (CUBLAS_POINTER_MODE_DEVICE: the two scalars are copied
 *  to the host, which waits for the stream). Protection runs on a process-wide abft handle
 *  (policy from ABFT_POLICY, default correct); abft_cublas_handle() returns it, to attach an
 *  injector or read the device counters with abft_cuda_sync. Returns CUBLAS_STATUS_SUCCESS,
 *  CUBLAS_STATUS_INVALID_VALUE for bad arguments, CUBLAS_STATUS_NOT_SUPPORTED for a type or
 *  compute type the engine does not protect (such calls are not run), CUBLAS_STATUS_ALLOC_FAILED,
 *  or CUBLAS_STATUS_EXECUTION_FAILED. Status: run on an H200 (tests/cuda/gemm_cuda_test.cpp).
 */
#pragma once
#include <cublas_v2.h>

#include "abft/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The process-wide handle the cuBLAS-signature entry points protect their calls with. */
ABFT_API abft_handle_t abft_cublas_handle(void);

ABFT_API cublasStatus_t abft_cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         const float* B, int ldb, const float* beta, float* C, int ldc);
ABFT_API cublasStatus_t abft_cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const double* alpha, const double* A, int lda,
                                         const double* B, int ldb, const double* beta, double* C, int ldc);
ABFT_API cublasStatus_t abft_cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                       cublasOperation_t transb, int m, int n, int k,
                                                       const float* alpha, const float* A, int lda,
                                                       long long strideA, const float* B, int ldb,
                                                       long long strideB, const float* beta, float* C, int ldc,
                                                       long long strideC, int batchCount);
ABFT_API cublasStatus_t abft_cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                       cublasOperation_t transb, int m, int n, int k,
                                                       const double* alpha, const double* A, int lda,
                                                       long long strideA, const double* B, int ldb,
                                                       long long strideB, const double* beta, double* C, int ldc,
                                                       long long strideC, int batchCount);
/** Atype = Btype = Ctype in {CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF}; computeType
 *  CUBLAS_COMPUTE_32F* for the float and 16-bit types (alpha, beta float), CUBLAS_COMPUTE_64F*
 *  for double. */
ABFT_API cublasStatus_t abft_cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void* alpha, const void* A,
                                          cudaDataType_t Atype, int lda, const void* B, cudaDataType_t Btype,
                                          int ldb, const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo);
/** A strided batch, as cublasGemmStridedBatchedEx: the types and compute types of
 *  abft_cublasGemmEx. Every strided-batched entry point runs the batch as one protected call
 *  (one strided-batched product, one launch per check; abft_cuda_sgemm_strided_batched). */
ABFT_API cublasStatus_t abft_cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void* alpha,
    const void* A, cudaDataType_t Atype, int lda, long long strideA, const void* B, cudaDataType_t Btype, int ldb,
    long long strideB, const void* beta, void* C, cudaDataType_t Ctype, int ldc, long long strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo);

#ifdef __cplusplus
}
#endif
