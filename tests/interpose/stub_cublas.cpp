/** \file stub_cublas.cpp
 *  \brief A stand-in for libcublas in the host-side tests of the preload library: the functions
 *  the interposer intercepts or forwards, each recording its call (stub_log.hpp) and returning
 *  CUBLAS_STATUS_SUCCESS. Handles are small host structs holding a stream, math mode and pointer
 *  mode. With stub_cublas_set_nested(1), cublasSgemm_v2 calls the process's cublasGemmEx (found
 *  with dlsym(RTLD_DEFAULT), i.e. the interposer's when it is preloaded), as a vendor library
 *  calling its own exported entry point does: the interposer's recursion guard must send it back
 *  here unprotected and uncounted.
 */
#include <cublas_v2.h>
#include <dlfcn.h>

#include "stub_log.hpp"

#ifndef STUB_IDENTITY
#define STUB_IDENTITY "main"
#endif

STUB_DEFINE_LOG(stub_cublas)

namespace {
struct StubHandle {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
};
int g_nested = 0;
StubHandle* of(cublasHandle_t h) { return reinterpret_cast<StubHandle*>(h); }
}  // namespace

#define LOG(...) stub_cublas_log().add(stub::describe(__VA_ARGS__))

extern "C" __attribute__((visibility("default"))) void stub_cublas_set_nested(int on) { g_nested = on; }

/** As cuBLAS does inside entry points the interposer does not intercept: a call to the process's
 *  cublasLtMatmul (the interposer's when it is preloaded) from code inside this library. The
 *  call is not a tail call (the log after it), so the callee sees a return address in here. */
extern "C" __attribute__((visibility("default"))) int stub_cublas_call_lt(void) {
  using LtMatmulFn = int (*)(void*, void*, const void*, const void*, void*, const void*, void*, const void*,
                             const void*, void*, void*, void*, const void*, void*, size_t, void*);
  auto lt = reinterpret_cast<LtMatmulFn>(dlsym(RTLD_DEFAULT, "cublasLtMatmul"));
  const int r = lt ? lt(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                        nullptr, nullptr, nullptr, nullptr, 0, nullptr)
                   : -1;
  stub_cublas_log().add(stub::describe("stub_cublas_call_lt", r));
  return r;
}

extern "C" cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  LOG("cublasCreate_v2", handle);
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasHandle_t>(new StubHandle());
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  LOG("cublasDestroy_v2", handle);
  delete of(handle);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t s) {
  LOG("cublasSetStream_v2", handle, s);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  of(handle)->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* s) {
  LOG("cublasGetStream_v2", handle);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  *s = of(handle)->stream;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  LOG("cublasSetMathMode", handle, mode);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  of(handle)->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  LOG("cublasGetMathMode", handle);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = of(handle)->math;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  LOG("cublasSetPointerMode_v2", handle, mode);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  of(handle)->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode) {
  LOG("cublasGetPointerMode_v2", handle);
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = of(handle)->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}

using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

extern "C" cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         const float* B, int ldb, const float* beta, float* C, int ldc) {
  LOG("cublasSgemm_v2", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (g_nested) {
    auto ex = reinterpret_cast<GemmExFn>(dlsym(RTLD_DEFAULT, "cublasGemmEx"));
    if (ex)
      return ex(handle, transa, transb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C, CUDA_R_32F,
                ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  return CUBLAS_STATUS_SUCCESS;
}

// The GEMMs with int sizes and their ILP64 twins (..._64, cuBLAS 12+), logged alike (I: the
// integer type of the sizes; cublasSgemm_v2, above, also plays the nested call).
#define STUB_TYPED(name, I, T)                                                                                   \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                 I n, I k, const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta,   \
                                 T* C, I ldc) {                                                                    \
    LOG(#name, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                             \
    return CUBLAS_STATUS_SUCCESS;                                                                                 \
  }
#define STUB_STRIDED(name, I, T)                                                                                 \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                 I n, I k, const T* alpha, const T* A, I lda, long long strideA, const T* B,      \
                                 I ldb, long long strideB, const T* beta, T* C, I ldc, long long strideC,         \
                                 I batchCount) {                                                                   \
    LOG(#name, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC,   \
        batchCount);                                                                                               \
    return CUBLAS_STATUS_SUCCESS;                                                                                 \
  }
#define STUB_EX(name, I)                                                                                         \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                 I n, I k, const void* alpha, const void* A, cudaDataType Atype, I lda,           \
                                 const void* B, cudaDataType Btype, I ldb, const void* beta, void* C,             \
                                 cudaDataType Ctype, I ldc, cublasComputeType_t computeType,                       \
                                 cublasGemmAlgo_t algo) {                                                          \
    LOG(#name, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,         \
        computeType, algo);                                                                                        \
    return CUBLAS_STATUS_SUCCESS;                                                                                 \
  }
#define STUB_STRIDED_EX(name, I)                                                                                 \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                 I n, I k, const void* alpha, const void* A, cudaDataType Atype, I lda,           \
                                 long long strideA, const void* B, cudaDataType Btype, I ldb, long long strideB,  \
                                 const void* beta, void* C, cudaDataType Ctype, I ldc, long long strideC,         \
                                 I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {           \
    LOG(#name, handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,   \
        Ctype, ldc, strideC, batchCount, computeType, algo);                                                       \
    return CUBLAS_STATUS_SUCCESS;                                                                                 \
  }
#define STUB_BATCHED_EX(name, I)                                                                                 \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                 I n, I k, const void* alpha, const void* const Aarray[], cudaDataType Atype,     \
                                 I lda, const void* const Barray[], cudaDataType Btype, I ldb, const void* beta,  \
                                 void* const Carray[], cudaDataType Ctype, I ldc, I batchCount,                    \
                                 cublasComputeType_t computeType, cublasGemmAlgo_t algo) {                         \
    LOG(#name, handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray,      \
        Ctype, ldc, batchCount, computeType, algo);                                                                \
    return CUBLAS_STATUS_SUCCESS;                                                                                 \
  }
STUB_TYPED(cublasDgemm_v2, int, double)
STUB_TYPED(cublasHgemm, int, __half)
STUB_STRIDED(cublasSgemmStridedBatched, int, float)
STUB_STRIDED(cublasDgemmStridedBatched, int, double)
STUB_EX(cublasGemmEx, int)
STUB_STRIDED_EX(cublasGemmStridedBatchedEx, int)
STUB_BATCHED_EX(cublasGemmBatchedEx, int)
STUB_TYPED(cublasSgemm_v2_64, int64_t, float)
STUB_TYPED(cublasDgemm_v2_64, int64_t, double)
STUB_TYPED(cublasHgemm_64, int64_t, __half)
STUB_STRIDED(cublasSgemmStridedBatched_64, int64_t, float)
STUB_STRIDED(cublasDgemmStridedBatched_64, int64_t, double)
STUB_EX(cublasGemmEx_64, int64_t)
STUB_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)
STUB_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)
