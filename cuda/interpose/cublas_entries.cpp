/** \file cublas_entries.cpp
 *  \brief The cuBLAS GEMM entry points the preload library defines: each call is translated
 *  (translate.hpp) and run by the engine's cuBLAS-signature door (which honors the caller's
 *  handle: stream, math mode, pointer mode) — a strided batch as one call, with the program's
 *  own cuBLAS call as the product where it rounds as the engine's bound assumes
 *  (abft::cuda::cublas_gemm_ex: the protected result is then the unprotected one bit for bit);
 *  pointer-array batches one engine call per item — or forwarded to the real cuBLAS untouched,
 *  and counted.
 *
 *  A call the engine refuses before running anything is forwarded too, from the first item the
 *  engine did not run, counted as engine_unavailable (no usable GPU, no memory) or
 *  engine_rejected (any other refusal: a translation bug); an engine failure after it started is
 *  returned as CUBLAS_STATUS_EXECUTION_FAILED. cublasHgemm (half accumulation) always passes
 *  through: the engine's bound is for float accumulation.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "abft/abft_cublas.h"
#include "gemm_cublas_api.hpp"
#include "preload_runtime.hpp"
#include "real_symbols.hpp"
#include "reentry_guard.hpp"
#include "translate.hpp"

using namespace abft::preload;

namespace {

// cublas_api.h overloads these three in C++ (a cudaDataType compute type); the C symbol is this one.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                  const void*, const void*, cudaDataType, int, long long, const void*,
                                                  cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                           const void*, const void* const[], cudaDataType, int, const void* const[],
                                           cudaDataType, int, const void*, void* const[], cudaDataType, int, int,
                                           cublasComputeType_t, cublasGemmAlgo_t);

struct Ptrs {
  const void* a;
  const void* b;
  void* c;
};


GemmCall make_call(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, cudaDataType_t at_,
                   cudaDataType_t bt, cudaDataType_t ct, cublasComputeType_t compute, int lda, int ldb, int ldc,
                   long long sa = 0, long long sb = 0, long long sc = 0, int batch = 1) {
  GemmCall c;
  c.transa = ta, c.transb = tb, c.m = m, c.n = n, c.k = k;
  c.atype = at_, c.btype = bt, c.ctype = ct, c.compute = compute;
  c.lda = lda, c.ldb = ldb, c.ldc = ldc;
  c.stride_a = sa, c.stride_b = sb, c.stride_c = sc, c.batch = batch;
  return c;
}

/** Why the call cannot reach the engine now (policy, translation, stream capture), or None. */
Reason precheck(const GemmCall& c, cublasHandle_t h, EngineGemm* eg) {
  if (policy_off()) return Reason::PolicyOff;
  *eg = translate_gemm(c);
  if (eg->reason != Reason::None) return eg->reason;
  auto get_stream = ABFT_REAL(Cublas, cublasGetStream_v2);
  cudaStream_t s = nullptr;
  if (!get_stream || get_stream(h, &s) != CUBLAS_STATUS_SUCCESS) return Reason::Arguments;  // cuBLAS's own error
  return stream_capturing(s) ? Reason::GraphCapture : Reason::None;
}

/** Units [0, units) through the engine, unit u by engine(u) (a cuBLAS status); on a refusal,
 *  forward(first(u)) runs the items from unit u's first on the real cuBLAS. `own`: the status of
 *  the program's own call when the engine ran it as the product and it failed (the program gets
 *  that status, as without the library), else success. */
template <class Engine, class First, class Forward>
cublasStatus_t protect_units(Entry e, int64_t units, Engine engine, First first, Forward forward,
                             const cublasStatus_t* own = nullptr) {
  engine_handle(Family::Cublas);
  for (int64_t u = 0; u < units; ++u) {
    const cublasStatus_t s = engine(u);
    if (s == CUBLAS_STATUS_SUCCESS) continue;
    if (s == CUBLAS_STATUS_EXECUTION_FAILED) {  // the engine started: its error is the call's
      note_failed(e);
      return own && *own != CUBLAS_STATUS_SUCCESS ? *own : s;
    }
    // Nothing of unit u ran: the real cuBLAS runs the items from its first on. NOT_SUPPORTED /
    // ALLOC_FAILED mean no usable GPU or memory; anything else is the engine refusing what the
    // translation gave it (a bug of ours): forwarded too, so the program keeps working, but
    // reported.
    note_unprotected(e, (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ALLOC_FAILED)
                            ? Reason::EngineUnavailable
                            : Reason::EngineRejected);
    return forward(first(u));
  }
  note_protected(e);
  return CUBLAS_STATUS_SUCCESS;
}

/** Items [0, items) through the engine one product at a time (item(i): its pointers); forward(i)
 *  runs items [i, batch) on the real cuBLAS. */
template <class ItemFn, class Forward>
cublasStatus_t protect_items(Entry e, cublasHandle_t h, const GemmCall& c, const EngineGemm& eg, const void* alpha,
                             const void* beta, cublasGemmAlgo_t algo, ItemFn item, Forward forward) {
  auto engine = [&](int64_t i) {
    const Ptrs p = item(i);
    return abft_cublasGemmEx(h, c.transa, c.transb, int(c.m), int(c.n), int(c.k), alpha, p.a, eg.type, int(c.lda), p.b,
                             eg.type, int(c.ldb), beta, p.c, eg.type, int(c.ldc), eg.compute, algo);
  };
  return protect_units(e, eg.items, engine, [](int64_t i) { return i; }, forward);
}

/** Strided operands: one product, or a strided batch as one protected call (one strided-batched
 *  product, one launch per check). call(a, b) is the program's call with operands a and b in
 *  place of its A and B: forwarded as call(A, B), and the protected product where it rounds as
 *  the engine's bound assumes (abft::cuda::cublas_gemm_ex: then the protected result is the
 *  unprotected one bit for bit). */
template <class Call>
cublasStatus_t strided_entry(Entry e, cublasHandle_t h, const GemmCall& c, const void* alpha, const void* A,
                             const void* B, const void* beta, void* C, cublasGemmAlgo_t algo, Call call) {
  note_call(e);
  EngineGemm eg;
  const Reason r = strided_outputs_overlap(c) ? Reason::Arguments : precheck(c, h, &eg);
  auto forward = [&](int64_t) { return call(A, B); };
  if (r != Reason::None) {
    note_unprotected(e, r);
    return forward(0);
  }
  cublasStatus_t own = CUBLAS_STATUS_SUCCESS;  // the program's own call, when it ran as the product
  const abft::cuda::CallerProduct product = [&](const void* a, const void* b) {
    own = call(a, b);
    return own == CUBLAS_STATUS_SUCCESS;
  };
  auto engine = [&](int64_t) {
    return abft::cuda::cublas_gemm_ex(h, c.transa, c.transb, int(c.m), int(c.n), int(c.k), alpha, A, eg.type,
                                      int(c.lda), c.stride_a, B, eg.type, int(c.ldb), c.stride_b, beta, C, eg.type,
                                      int(c.ldc), c.stride_c, int(eg.items), eg.compute, algo, &product);
  };
  return protect_units(e, 1, engine, [](int64_t) { return int64_t(0); }, forward, &own);
}

}  // namespace

#define ABFT_NESTED_OR_MISSING(entry, real, ...)                     \
  if (ReentryGuard::inside()) {                                      \
    note_nested();                                                   \
    return real ? real(__VA_ARGS__) : CUBLAS_STATUS_NOT_INITIALIZED; \
  }                                                                  \
  if (!real) {                                                       \
    note_call(entry);                                                \
    note_unprotected(entry, Reason::RealMissing);                    \
    return CUBLAS_STATUS_NOT_INITIALIZED;                            \
  }                                                                  \
  ReentryGuard guard_

extern "C" cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         const float* B, int ldb, const float* beta, float* C, int ldc) {
  const auto real = ABFT_REAL(Cublas, cublasSgemm_v2);
  ABFT_NESTED_OR_MISSING(Entry::Sgemm, real, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  const GemmCall c = make_call(transa, transb, m, n, k, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, lda,
                               ldb, ldc);
  return strided_entry(Entry::Sgemm, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, static_cast<const float*>(a), lda, static_cast<const float*>(b),
                ldb, beta, C, ldc);
  });
}

extern "C" cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const double* alpha, const double* A, int lda,
                                         const double* B, int ldb, const double* beta, double* C, int ldc) {
  const auto real = ABFT_REAL(Cublas, cublasDgemm_v2);
  ABFT_NESTED_OR_MISSING(Entry::Dgemm, real, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  const GemmCall c = make_call(transa, transb, m, n, k, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, lda,
                               ldb, ldc);
  return strided_entry(Entry::Dgemm, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, static_cast<const double*>(a), lda,
                static_cast<const double*>(b), ldb, beta, C, ldc);
  });
}

extern "C" cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                      int n, int k, const __half* alpha, const __half* A, int lda, const __half* B,
                                      int ldb, const __half* beta, __half* C, int ldc) {
  const auto real = ABFT_REAL(Cublas, cublasHgemm);
  ABFT_NESTED_OR_MISSING(Entry::Hgemm, real, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  const GemmCall c = make_call(transa, transb, m, n, k, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, lda,
                               ldb, ldc);
  return strided_entry(Entry::Hgemm, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, static_cast<const __half*>(a), lda,
                static_cast<const __half*>(b), ldb, beta, C, ldc);
  });
}

extern "C" cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                       int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                                       const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,
                                       cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                       cublasGemmAlgo_t algo) {
  const auto real = ABFT_REAL_AS(GemmExFn, Cublas, cublasGemmEx);
  ABFT_NESTED_OR_MISSING(Entry::GemmEx, real, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
                         beta, C, Ctype, ldc, computeType, algo);
  const GemmCall c = make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc);
  return strided_entry(Entry::GemmEx, handle, c, alpha, A, B, beta, C, algo, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, a, Atype, lda, b, Btype, ldb, beta, C, Ctype, ldc, computeType,
                algo);
  });
}

extern "C" cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                    cublasOperation_t transb, int m, int n, int k, const float* alpha,
                                                    const float* A, int lda, long long strideA, const float* B,
                                                    int ldb, long long strideB, const float* beta, float* C, int ldc,
                                                    long long strideC, int batchCount) {
  const auto real = ABFT_REAL(Cublas, cublasSgemmStridedBatched);
  ABFT_NESTED_OR_MISSING(Entry::SgemmStridedBatched, real, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,
                         ldb, strideB, beta, C, ldc, strideC, batchCount);
  const GemmCall c = make_call(transa, transb, m, n, k, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, lda,
                               ldb, ldc, strideA, strideB, strideC, batchCount);
  return strided_entry(Entry::SgemmStridedBatched, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, static_cast<const float*>(a), lda, strideA,
                static_cast<const float*>(b), ldb, strideB, beta, C, ldc, strideC, batchCount);
  });
}

extern "C" cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                    cublasOperation_t transb, int m, int n, int k, const double* alpha,
                                                    const double* A, int lda, long long strideA, const double* B,
                                                    int ldb, long long strideB, const double* beta, double* C, int ldc,
                                                    long long strideC, int batchCount) {
  const auto real = ABFT_REAL(Cublas, cublasDgemmStridedBatched);
  ABFT_NESTED_OR_MISSING(Entry::DgemmStridedBatched, real, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,
                         ldb, strideB, beta, C, ldc, strideC, batchCount);
  const GemmCall c = make_call(transa, transb, m, n, k, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, lda,
                               ldb, ldc, strideA, strideB, strideC, batchCount);
  return strided_entry(Entry::DgemmStridedBatched, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, static_cast<const double*>(a), lda, strideA,
                static_cast<const double*>(b), ldb, strideB, beta, C, ldc, strideC, batchCount);
  });
}

extern "C" cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                     cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                                     const void* A, cudaDataType Atype, int lda, long long strideA,
                                                     const void* B, cudaDataType Btype, int ldb, long long strideB,
                                                     const void* beta, void* C, cudaDataType Ctype, int ldc,
                                                     long long strideC, int batchCount,
                                                     cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  const auto real = ABFT_REAL_AS(GemmStridedBatchedExFn, Cublas, cublasGemmStridedBatchedEx);
  ABFT_NESTED_OR_MISSING(Entry::GemmStridedBatchedEx, real, handle, transa, transb, m, n, k, alpha, A, Atype, lda,
                         strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo);
  const GemmCall c =
      make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc, strideA, strideB, strideC,
                batchCount);
  return strided_entry(Entry::GemmStridedBatchedEx, handle, c, alpha, A, B, beta, C, algo, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, a, Atype, lda, strideA, b, Btype, ldb, strideB, beta, C, Ctype,
                ldc, strideC, batchCount, computeType, algo);
  });
}

extern "C" cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                              const void* const Aarray[], cudaDataType Atype, int lda,
                                              const void* const Barray[], cudaDataType Btype, int ldb,
                                              const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
                                              int batchCount, cublasComputeType_t computeType,
                                              cublasGemmAlgo_t algo) {
  const auto real = ABFT_REAL_AS(GemmBatchedExFn, Cublas, cublasGemmBatchedEx);
  ABFT_NESTED_OR_MISSING(Entry::GemmBatchedEx, real, handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda,
                         Barray, Btype, ldb, beta, Carray, Ctype, ldc, batchCount, computeType, algo);
  const Entry e = Entry::GemmBatchedEx;
  auto forward = [&](int64_t i) {  // the pointer arrays are the caller's device arrays: offset them
    return real(handle, transa, transb, m, n, k, alpha, Aarray + i, Atype, lda, Barray + i, Btype, ldb, beta,
                Carray + i, Ctype, ldc, int(batchCount - i), computeType, algo);
  };
  note_call(e);
  const GemmCall c = make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc, 0, 0, 0,
                               batchCount);
  EngineGemm eg;
  const Reason r = precheck(c, handle, &eg);
  if (r != Reason::None) {
    note_unprotected(e, r);
    return forward(0);
  }
  // The engine needs each item's pointers on the host: copy the three arrays (on the caller's
  // stream, then wait for it — this entry point's protection synchronizes).
  std::vector<const void*> ha(static_cast<size_t>(batchCount)), hb(static_cast<size_t>(batchCount));
  std::vector<void*> hc(static_cast<size_t>(batchCount));
  cudaStream_t s = nullptr;
  ABFT_REAL(Cublas, cublasGetStream_v2)(handle, &s);
  const size_t bytes = size_t(batchCount) * sizeof(void*);
  if (cudaMemcpyAsync(ha.data(), Aarray, bytes, cudaMemcpyDefault, s) != cudaSuccess ||
      cudaMemcpyAsync(hb.data(), Barray, bytes, cudaMemcpyDefault, s) != cudaSuccess ||
      cudaMemcpyAsync(hc.data(), Carray, bytes, cudaMemcpyDefault, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess) {
    cudaGetLastError();
    note_unprotected(e, Reason::EngineUnavailable);
    return forward(0);
  }
  auto item = [&](int64_t i) { return Ptrs{ha[size_t(i)], hb[size_t(i)], hc[size_t(i)]}; };
  return protect_items(e, handle, c, eg, alpha, beta, algo, item, forward);
}
