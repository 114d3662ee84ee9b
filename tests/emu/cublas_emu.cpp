/** \file cublas_emu.cpp
 *  \brief The cuBLAS calls the GPU GEMM makes, on the CUDA emulator's host memory: handles that
 *  keep a stream, math and pointer mode, and the products (cublasSgemm, cublasDgemm, cublasGemmEx
 *  with float, double, binary16 and bfloat16 storage, and their strided-batched forms: the items
 *  one after another) as a plain column-major loop in the compute
 *  type, fused multiply-adds in k order, 16-bit results rounded to nearest. Math modes are kept
 *  but change nothing (no TF32, no reduced-precision inputs): the emulator checks the engine's
 *  checks, verdicts and repairs, which must hold for any correct product, not cuBLAS's speed.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <new>

namespace {

struct Handle {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointers = CUBLAS_POINTER_MODE_HOST;
};
Handle* of(cublasHandle_t h) { return reinterpret_cast<Handle*>(h); }
/** A handle's setting (stream, math or pointer mode), set or read as cuBLAS's setters and
 *  getters do: NOT_INITIALIZED for a null handle; a null `out` is not written. */
template <class V>
cublasStatus_t set(cublasHandle_t h, V Handle::*field, V v) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  of(h)->*field = v;
  return CUBLAS_STATUS_SUCCESS;
}
template <class V>
cublasStatus_t get(cublasHandle_t h, V Handle::*field, V* out) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (out) *out = of(h)->*field;
  return CUBLAS_STATUS_SUCCESS;
}

float widen(float x) { return x; }
double widen(double x) { return x; }
float widen(__half x) { return __half2float(x); }
float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T, class A>
T narrow(A x) {
  if constexpr (std::is_same<T, __half>::value) return __float2half_rn(float(x));
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) return __float2bfloat16_rn(float(x));
  else return T(x);
}

/** C = alpha op(A) op(B) + beta C in the compute type Acc (beta = 0: C is not read), on the
 *  handle's stream (abft_emu::enqueue: queued with the emulator's asynchrony). alpha and beta are
 *  read at the call in host pointer mode, when the product runs in device pointer mode (either is
 *  host memory here). */
template <class T, class Acc>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const Acc* alpha_p, const T* A, int lda, const T* B, int ldb, const Acc* beta_p, T* C, int ldc,
                    bool item = false) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!item) abft_emu::ledger_library_call(false);  // (a batch's items: one call, counted by batched)
  if (m < 0 || n < 0 || k < 0 || ldc < (m > 1 ? m : 1) || lda < 1 || ldb < 1) return CUBLAS_STATUS_INVALID_VALUE;
  const bool at = ta != CUBLAS_OP_N, bt = tb != CUBLAS_OP_N;
  const bool host_scalars = of(h)->pointers == CUBLAS_POINTER_MODE_HOST;
  const Acc alpha_v = host_scalars ? *alpha_p : Acc(0), beta_v = host_scalars ? *beta_p : Acc(0);
  abft_emu::enqueue(of(h)->stream, [=] {
    const Acc alpha = host_scalars ? alpha_v : *alpha_p, beta = host_scalars ? beta_v : *beta_p;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        Acc s = 0;
        for (int p = 0; p < k; ++p) {
          const Acc a = Acc(widen(at ? A[p + size_t(i) * lda] : A[i + size_t(p) * lda]));
          const Acc b = Acc(widen(bt ? B[j + size_t(p) * ldb] : B[p + size_t(j) * ldb]));
          s = std::fma(a, b, s);
        }
        T& c = C[i + size_t(j) * ldc];
        c = narrow<T>(beta == Acc(0) ? alpha * s : std::fma(beta, Acc(widen(c)), alpha * s));
      }
  });
  return CUBLAS_STATUS_SUCCESS;
}

/** A strided batch: the items one after another. */
template <class T, class Acc>
cublasStatus_t batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                       const Acc* alpha, const T* A, int lda, long long sa, const T* B, int ldb, long long sb,
                       const Acc* beta, T* C, int ldc, long long sc, int batch) {
  if (!alpha || !beta || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  abft_emu::ledger_library_call(false);
  for (int i = 0; i < batch; ++i)
    if (const cublasStatus_t s = gemm<T, Acc>(h, ta, tb, m, n, k, alpha, A + i * sa, lda, B + i * sb, ldb, beta,
                                              C + i * sc, ldc, true))
      return s;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* h) {
  if (!h) return CUBLAS_STATUS_INVALID_VALUE;
  *h = reinterpret_cast<cublasHandle_t>(new (std::nothrow) Handle());
  return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t h) {
  delete of(h);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s) { return set(h, &Handle::stream, s); }
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t* s) { return get(h, &Handle::stream, s); }
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) { return set(h, &Handle::math, m); }
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* m) { return get(h, &Handle::math, m); }
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t p) { return set(h, &Handle::pointers, p); }
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t* p) { return get(h, &Handle::pointers, p); }

// alpha and beta: host or "device" memory (the handle's pointer mode), host memory here either way.
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                              float* C, int ldc) {
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  return gemm<float, float>(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const double* alpha, const double* A, int lda, const double* B, int ldb,
                              const double* beta, double* C, int ldc) {
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  return gemm<double, double>(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float* alpha, const float* A, int lda, long long sa,
                                         const float* B, int ldb, long long sb, const float* beta, float* C, int ldc,
                                         long long sc, int batch) {
  return batched<float, float>(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const double* alpha, const double* A, int lda, long long sa,
                                         const double* B, int ldb, long long sb, const double* beta, double* C,
                                         int ldc, long long sc, int batch) {
  return batched<double, double>(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                                          long long sa, const void* B, cudaDataType Btype, int ldb, long long sb,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc, long long sc,
                                          int batch, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  if (batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const int64_t e = Atype == CUDA_R_64F ? 8 : Atype == CUDA_R_32F ? 4 : 2;  // (signed: a stride may be negative)
  for (int i = 0; i < batch; ++i)
    if (const cublasStatus_t s = cublasGemmEx(h, ta, tb, m, n, k, alpha, static_cast<const char*>(A) + i * sa * e,
                                              Atype, lda, static_cast<const char*>(B) + i * sb * e, Btype, ldb, beta,
                                              static_cast<char*>(C) + i * sc * e, Ctype, ldc, compute, algo))
      return s;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t) {
  if (!alpha || !beta || Atype != Btype || Atype != Ctype) return CUBLAS_STATUS_NOT_SUPPORTED;
  const bool c32 = compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
                   compute == CUBLAS_COMPUTE_32F_FAST_TF32 || compute == CUBLAS_COMPUTE_32F_FAST_16F ||
                   compute == CUBLAS_COMPUTE_32F_FAST_16BF;
  const bool c64 = compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC;
  // The storage type's product in the compute type its accumulation needs (alpha, beta in it).
  auto as = [&](auto storage, auto acc, bool compute_ok) {
    using T = decltype(storage);
    using Acc = decltype(acc);
    if (!compute_ok) return CUBLAS_STATUS_NOT_SUPPORTED;
    return gemm<T, Acc>(h, ta, tb, m, n, k, static_cast<const Acc*>(alpha), static_cast<const T*>(A), lda,
                        static_cast<const T*>(B), ldb, static_cast<const Acc*>(beta), static_cast<T*>(C), ldc);
  };
  switch (Atype) {
    case CUDA_R_32F: return as(float{}, float{}, c32);
    case CUDA_R_64F: return as(double{}, double{}, c64);
    case CUDA_R_16F: return as(__half{}, float{}, c32);
    case CUDA_R_16BF: return as(__nv_bfloat16{}, float{}, c32);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

}  // extern "C"
