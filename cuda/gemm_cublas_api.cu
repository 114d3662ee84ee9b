/** \file gemm_cublas_api.cu
 *  \brief Protected GEMMs with cuBLAS's signatures (abft/abft_cublas.h) over the engine's
 *  protected_gemm: the caller's stream, math mode and pointer mode are honored. Not yet run on
 *  a GPU.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>

#include "abft/abft_cublas.h"
#include "gemm_cublas_api.hpp"
#include "gemm_protected.hpp"

namespace {

abft_op to_op(cublasOperation_t t) { return t == CUBLAS_OP_N ? ABFT_NO_TRANS : t == CUBLAS_OP_T ? ABFT_TRANS : ABFT_CONJ_TRANS; }

cublasStatus_t to_cublas_status(abft_status s) {
  switch (s) {
    case ABFT_STATUS_SUCCESS:
    case ABFT_STATUS_FAULT_DETECTED:        // counted on the device; read with abft_cuda_sync
    case ABFT_STATUS_FAULT_UNCORRECTABLE:
      return CUBLAS_STATUS_SUCCESS;
    case ABFT_STATUS_ALLOC_FAILED: return CUBLAS_STATUS_ALLOC_FAILED;
    case ABFT_STATUS_NOT_SUPPORTED: return CUBLAS_STATUS_NOT_SUPPORTED;
    case ABFT_STATUS_INTERNAL_ERROR: return CUBLAS_STATUS_EXECUTION_FAILED;
    default: return CUBLAS_STATUS_INVALID_VALUE;
  }
}

/** The caller's stream, math mode, and alpha / beta on the host (copied when they live on the
 *  device). */
struct CallerState {
  cudaStream_t stream = nullptr;
  int math = -1;
  bool ok = false;
};

template <class S>
CallerState caller_state(cublasHandle_t handle, const void* alpha, const void* beta, S* a, S* b) {
  CallerState c;
  if (!handle || !alpha || !beta) return c;
  cublasPointerMode_t pm = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t mm = CUBLAS_DEFAULT_MATH;
  if (cublasGetStream(handle, &c.stream) != CUBLAS_STATUS_SUCCESS ||
      cublasGetPointerMode(handle, &pm) != CUBLAS_STATUS_SUCCESS ||
      cublasGetMathMode(handle, &mm) != CUBLAS_STATUS_SUCCESS)
    return c;
  c.math = int(mm);
  if (pm == CUBLAS_POINTER_MODE_DEVICE) {
    if (cudaMemcpyAsync(a, alpha, sizeof(S), cudaMemcpyDeviceToHost, c.stream) != cudaSuccess ||
        cudaMemcpyAsync(b, beta, sizeof(S), cudaMemcpyDeviceToHost, c.stream) != cudaSuccess ||
        cudaStreamSynchronize(c.stream) != cudaSuccess) {
      cudaGetLastError();
      return c;
    }
  } else {
    *a = *static_cast<const S*>(alpha);
    *b = *static_cast<const S*>(beta);
  }
  c.ok = true;
  return c;
}

/** The protected call: a strided batch is one (one strided-batched product, one launch per
 *  check); `math` overrides the handle's math mode when >= 0 (FAST_TF32 compute); the caller's
 *  product when it rounds as the bound assumes. */
template <class S>
cublasStatus_t gemm(cublasHandle_t handle, cudaDataType_t type, cublasOperation_t ta, cublasOperation_t tb, int m,
                    int n, int k, const void* alpha, const void* A, int lda, long long sa, const void* B, int ldb,
                    long long sb, const void* beta, void* C, int ldc, long long sc, int batch,
                    const abft::cuda::CallerProduct* product = nullptr, int math = -1,
                    cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT) {
  S a{}, b{};
  const CallerState cs = caller_state<S>(handle, alpha, beta, &a, &b);
  if (!cs.ok) return handle ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;
  if (batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const int mode = math >= 0 ? math : cs.math;
  abft::cuda::GemmExtras ex;
  const bool own = product && *product && abft::cuda::caller_product_rounds_as_bound(type, cs.math, int(algo));
  if (own) ex.product = *product;
  return to_cublas_status(abft::cuda::protected_gemm(abft_cublas_handle(), cs.stream, mode, type, ABFT_COL_MAJOR,
                                                     to_op(ta), to_op(tb), m, n, k, &a, A, lda, B, ldb, &b, C, ldc,
                                                     abft::cuda::GemmBatch{batch, sa, sb, sc}, own ? &ex : nullptr));
}

}  // namespace

extern "C" abft_handle_t abft_cublas_handle(void) {
  static abft_handle_t h = [] {
    abft_handle_t x = nullptr;
    abft_handle_create(&x);
    return x;
  }();
  return h;
}

extern "C" cublasStatus_t abft_cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                           int m, int n, int k, const float* alpha, const float* A, int lda,
                                           const float* B, int ldb, const float* beta, float* C, int ldc) {
  return gemm<float>(handle, CUDA_R_32F, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

extern "C" cublasStatus_t abft_cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                           int m, int n, int k, const double* alpha, const double* A, int lda,
                                           const double* B, int ldb, const double* beta, double* C, int ldc) {
  return gemm<double>(handle, CUDA_R_64F, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

extern "C" cublasStatus_t abft_cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                         cublasOperation_t transb, int m, int n, int k,
                                                         const float* alpha, const float* A, int lda,
                                                         long long strideA, const float* B, int ldb,
                                                         long long strideB, const float* beta, float* C, int ldc,
                                                         long long strideC, int batchCount) {
  return gemm<float>(handle, CUDA_R_32F, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                     ldc, strideC, batchCount);
}

extern "C" cublasStatus_t abft_cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                         cublasOperation_t transb, int m, int n, int k,
                                                         const double* alpha, const double* A, int lda,
                                                         long long strideA, const double* B, int ldb,
                                                         long long strideB, const double* beta, double* C, int ldc,
                                                         long long strideC, int batchCount) {
  return gemm<double>(handle, CUDA_R_64F, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta,
                      C, ldc, strideC, batchCount);
}

namespace {

}  // namespace

namespace abft::cuda {

bool caller_product_rounds_as_bound(cudaDataType_t type, int math, int algo) {
  const int base = math & 0xF;
  if (base != CUBLAS_DEFAULT_MATH && base != CUBLAS_PEDANTIC_MATH && base != CUBLAS_TF32_TENSOR_OP_MATH) return false;
  if (type == CUDA_R_32F && algo >= int(CUBLAS_GEMM_DEFAULT_TENSOR_OP) && algo <= int(CUBLAS_GEMM_ALGO15_TENSOR_OP))
    return false;
  if (type == CUDA_R_16F || type == CUDA_R_16BF) return (math & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) != 0;
  return true;
}

cublasStatus_t cublas_gemm_ex(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const void* alpha, const void* A, cudaDataType_t Atype, int lda, long long sa,
                              const void* B, cudaDataType_t Btype, int ldb, long long sb, const void* beta, void* C,
                              cudaDataType_t Ctype, int ldc, long long sc, int batch, cublasComputeType_t computeType,
                              cublasGemmAlgo_t algo, const CallerProduct* product) {
  if (Atype != Btype || Atype != Ctype) return CUBLAS_STATUS_NOT_SUPPORTED;
  const bool c64 = computeType == CUBLAS_COMPUTE_64F || computeType == CUBLAS_COMPUTE_64F_PEDANTIC;
  const bool c32 = computeType == CUBLAS_COMPUTE_32F || computeType == CUBLAS_COMPUTE_32F_PEDANTIC ||
                   computeType == CUBLAS_COMPUTE_32F_FAST_TF32;
  if (Atype == CUDA_R_64F && c64)
    return gemm<double>(handle, Atype, transa, transb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch,
                        product, -1, algo);
  if ((Atype == CUDA_R_32F || Atype == CUDA_R_16F || Atype == CUDA_R_16BF) && c32) {
    // FAST_TF32 on float data: the bound must know (the handle's math mode may not say it).
    const bool tf32 = computeType == CUBLAS_COMPUTE_32F_FAST_TF32 && Atype == CUDA_R_32F;
    return gemm<float>(handle, Atype, transa, transb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch,
                       product, tf32 ? int(CUBLAS_TF32_TENSOR_OP_MATH) : -1, algo);
  }
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

}  // namespace abft::cuda

extern "C" cublasStatus_t abft_cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                            int m, int n, int k, const void* alpha, const void* A,
                                            cudaDataType_t Atype, int lda, const void* B, cudaDataType_t Btype,
                                            int ldb, const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return abft::cuda::cublas_gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C,
                                    Ctype, ldc, 0, 1, computeType, algo, nullptr);
}

extern "C" cublasStatus_t abft_cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void* alpha,
    const void* A, cudaDataType_t Atype, int lda, long long strideA, const void* B, cudaDataType_t Btype, int ldb,
    long long strideB, const void* beta, void* C, cudaDataType_t Ctype, int ldc, long long strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return abft::cuda::cublas_gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                                    strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo, nullptr);
}
