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
 *  through: the engine's bound is for float accumulation. The ILP64 entry points (…_64, cuBLAS
 *  12+) take the same paths wherever their sizes fit 32 bits, the engine's doors' int.
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

using GemmEx64Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t,
                                      const void*, const void*, cudaDataType, int64_t, const void*, cudaDataType,
                                      int64_t, const void*, void*, cudaDataType, int64_t, cublasComputeType_t,
                                      cublasGemmAlgo_t);
using GemmStridedBatchedEx64Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                                    int64_t, int64_t, const void*, const void*, cudaDataType, int64_t,
                                                    long long, const void*, cudaDataType, int64_t, long long,
                                                    const void*, void*, cudaDataType, int64_t, long long, int64_t,
                                                    cublasComputeType_t, cublasGemmAlgo_t);
using GemmBatchedEx64Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                             int64_t, const void*, const void* const[], cudaDataType, int64_t,
                                             const void* const[], cudaDataType, int64_t, const void*, void* const[],
                                             cudaDataType, int64_t, int64_t, cublasComputeType_t, cublasGemmAlgo_t);

struct Ptrs {
  const void* a;
  const void* b;
  void* c;
};


GemmCall make_call(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, cudaDataType_t at_,
                   cudaDataType_t bt, cudaDataType_t ct, cublasComputeType_t compute, int64_t lda, int64_t ldb,
                   int64_t ldc, long long sa = 0, long long sb = 0, long long sc = 0, int64_t batch = 1) {
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

/** A pointer-array batch (cublasGemmBatchedEx and its _64 twin): the arrays copied to the host
 *  (on the caller's stream, then waited for: this entry point's protection synchronizes), one
 *  engine call per item; forward(i) runs items [i, batch) on the real cuBLAS. */
template <class Forward>
cublasStatus_t batched_entry(Entry e, cublasHandle_t handle, const GemmCall& c, const void* alpha,
                             const void* const Aarray[], const void* const Barray[], const void* beta,
                             void* const Carray[], cublasGemmAlgo_t algo, Forward forward) {
  note_call(e);
  EngineGemm eg;
  const Reason r = precheck(c, handle, &eg);
  if (r != Reason::None) {
    note_unprotected(e, r);
    return forward(0);
  }
  const size_t count = size_t(c.batch);
  std::vector<const void*> ha(count), hb(count);
  std::vector<void*> hc(count);
  cudaStream_t s = nullptr;
  ABFT_REAL(Cublas, cublasGetStream_v2)(handle, &s);
  const size_t bytes = count * sizeof(void*);
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

// Every entry point twice: with int sizes, and the ILP64 twin (..._64, cuBLAS 12+) with int64_t
// ones, which takes the same paths wherever every size fits 32 bits (the engine's doors take
// int; a larger one passes through, counted under `arguments` by translate_gemm). I: the
// integer type of the sizes.

/** The typed GEMMs (S, D, H: fixed types and compute type). */
#define ABFT_TYPED_GEMM(name, entry, I, T, dt, ct)                                                                    \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m,   \
                                 I n, I k, const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta,     \
                                 T* C, I ldc) {                                                                      \
    const auto real = ABFT_REAL(Cublas, name);                                                                       \
    ABFT_NESTED_OR_MISSING(entry, real, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);      \
    const GemmCall c = make_call(transa, transb, m, n, k, dt, dt, dt, ct, lda, ldb, ldc);                          \
    return strided_entry(entry, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT,                                \
                         [&](const void* a, const void* b) {                                                          \
                           return real(handle, transa, transb, m, n, k, alpha, static_cast<const T*>(a), lda,        \
                                       static_cast<const T*>(b), ldb, beta, C, ldc);                                 \
                         });                                                                                          \
  }
/** Their strided batches. */
#define ABFT_TYPED_GEMM_STRIDED(name, entry, I, T, dt, ct)                                                            \
  extern "C" cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m,   \
                                 I n, I k, const T* alpha, const T* A, I lda, long long strideA, const T* B, I ldb, \
                                 long long strideB, const T* beta, T* C, I ldc, long long strideC, I batchCount) {  \
    const auto real = ABFT_REAL(Cublas, name);                                                                       \
    ABFT_NESTED_OR_MISSING(entry, real, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,   \
                           beta, C, ldc, strideC, batchCount);                                                        \
    const GemmCall c =                                                                                               \
        make_call(transa, transb, m, n, k, dt, dt, dt, ct, lda, ldb, ldc, strideA, strideB, strideC, batchCount);   \
    return strided_entry(entry, handle, c, alpha, A, B, beta, C, CUBLAS_GEMM_DEFAULT,                                \
                         [&](const void* a, const void* b) {                                                          \
                           return real(handle, transa, transb, m, n, k, alpha, static_cast<const T*>(a), lda,        \
                                       strideA, static_cast<const T*>(b), ldb, strideB, beta, C, ldc, strideC,       \
                                       batchCount);                                                                   \
                         });                                                                                          \
  }

ABFT_TYPED_GEMM(cublasSgemm_v2, Entry::Sgemm, int, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
ABFT_TYPED_GEMM(cublasDgemm_v2, Entry::Dgemm, int, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
ABFT_TYPED_GEMM(cublasHgemm, Entry::Hgemm, int, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
ABFT_TYPED_GEMM_STRIDED(cublasSgemmStridedBatched, Entry::SgemmStridedBatched, int, float, CUDA_R_32F,
                        CUBLAS_COMPUTE_32F)
ABFT_TYPED_GEMM_STRIDED(cublasDgemmStridedBatched, Entry::DgemmStridedBatched, int, double, CUDA_R_64F,
                        CUBLAS_COMPUTE_64F)
ABFT_TYPED_GEMM(cublasSgemm_v2_64, Entry::Sgemm64, int64_t, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
ABFT_TYPED_GEMM(cublasDgemm_v2_64, Entry::Dgemm64, int64_t, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
ABFT_TYPED_GEMM(cublasHgemm_64, Entry::Hgemm64, int64_t, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
ABFT_TYPED_GEMM_STRIDED(cublasSgemmStridedBatched_64, Entry::SgemmStridedBatched64, int64_t, float, CUDA_R_32F,
                        CUBLAS_COMPUTE_32F)
ABFT_TYPED_GEMM_STRIDED(cublasDgemmStridedBatched_64, Entry::DgemmStridedBatched64, int64_t, double, CUDA_R_64F,
                        CUBLAS_COMPUTE_64F)

namespace {

/** cublasGemmEx and its _64 twin. */
template <class I, class Fn>
cublasStatus_t gemm_ex(Entry e, Fn real, cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                       I m, I n, I k, const void* alpha, const void* A, cudaDataType Atype, I lda, const void* B,
                       cudaDataType Btype, I ldb, const void* beta, void* C, cudaDataType Ctype, I ldc,
                       cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  ABFT_NESTED_OR_MISSING(e, real, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
                         ldc, computeType, algo);
  const GemmCall c = make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc);
  return strided_entry(e, handle, c, alpha, A, B, beta, C, algo, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, a, Atype, lda, b, Btype, ldb, beta, C, Ctype, ldc, computeType,
                algo);
  });
}

/** cublasGemmStridedBatchedEx and its _64 twin. */
template <class I, class Fn>
cublasStatus_t gemm_strided_batched_ex(Entry e, Fn real, cublasHandle_t handle, cublasOperation_t transa,
                                       cublasOperation_t transb, I m, I n, I k, const void* alpha, const void* A,
                                       cudaDataType Atype, I lda, long long strideA, const void* B, cudaDataType Btype,
                                       I ldb, long long strideB, const void* beta, void* C, cudaDataType Ctype, I ldc,
                                       long long strideC, I batchCount, cublasComputeType_t computeType,
                                       cublasGemmAlgo_t algo) {
  ABFT_NESTED_OR_MISSING(e, real, handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                         strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo);
  const GemmCall c = make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc, strideA,
                               strideB, strideC, batchCount);
  return strided_entry(e, handle, c, alpha, A, B, beta, C, algo, [&](const void* a, const void* b) {
    return real(handle, transa, transb, m, n, k, alpha, a, Atype, lda, strideA, b, Btype, ldb, strideB, beta, C, Ctype,
                ldc, strideC, batchCount, computeType, algo);
  });
}

/** cublasGemmBatchedEx and its _64 twin (the pointer arrays are the caller's device arrays: the
 *  forwarded rest offsets them). */
template <class I, class Fn>
cublasStatus_t gemm_batched_ex(Entry e, Fn real, cublasHandle_t handle, cublasOperation_t transa,
                               cublasOperation_t transb, I m, I n, I k, const void* alpha, const void* const Aarray[],
                               cudaDataType Atype, I lda, const void* const Barray[], cudaDataType Btype, I ldb,
                               const void* beta, void* const Carray[], cudaDataType Ctype, I ldc, I batchCount,
                               cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  ABFT_NESTED_OR_MISSING(e, real, handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta,
                         Carray, Ctype, ldc, batchCount, computeType, algo);
  auto forward = [&](int64_t i) {
    return real(handle, transa, transb, m, n, k, alpha, Aarray + i, Atype, lda, Barray + i, Btype, ldb, beta,
                Carray + i, Ctype, ldc, I(batchCount - i), computeType, algo);
  };
  const GemmCall c = make_call(transa, transb, m, n, k, Atype, Btype, Ctype, computeType, lda, ldb, ldc, 0, 0, 0,
                               batchCount);
  return batched_entry(e, handle, c, alpha, Aarray, Barray, beta, Carray, algo, forward);
}

}  // namespace

extern "C" cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                       int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                                       const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,
                                       cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                       cublasGemmAlgo_t algo) {
  return gemm_ex(Entry::GemmEx, ABFT_REAL_AS(GemmExFn, Cublas, cublasGemmEx), handle, transa, transb, m, n, k, alpha,
                 A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
}
extern "C" cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int64_t m, int64_t n, int64_t k, const void* alpha, const void* A,
                                          cudaDataType Atype, int64_t lda, const void* B, cudaDataType Btype,
                                          int64_t ldb, const void* beta, void* C, cudaDataType Ctype, int64_t ldc,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return gemm_ex(Entry::GemmEx64, ABFT_REAL_AS(GemmEx64Fn, Cublas, cublasGemmEx_64), handle, transa, transb, m, n, k,
                 alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
}

extern "C" cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                     cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                                     const void* A, cudaDataType Atype, int lda, long long strideA,
                                                     const void* B, cudaDataType Btype, int ldb, long long strideB,
                                                     const void* beta, void* C, cudaDataType Ctype, int ldc,
                                                     long long strideC, int batchCount,
                                                     cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return gemm_strided_batched_ex(Entry::GemmStridedBatchedEx,
                                 ABFT_REAL_AS(GemmStridedBatchedExFn, Cublas, cublasGemmStridedBatchedEx), handle,
                                 transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta,
                                 C, Ctype, ldc, strideC, batchCount, computeType, algo);
}
extern "C" cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                                        cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                                        const void* alpha, const void* A, cudaDataType Atype,
                                                        int64_t lda, long long strideA, const void* B,
                                                        cudaDataType Btype, int64_t ldb, long long strideB,
                                                        const void* beta, void* C, cudaDataType Ctype, int64_t ldc,
                                                        long long strideC, int64_t batchCount,
                                                        cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return gemm_strided_batched_ex(Entry::GemmStridedBatchedEx64,
                                 ABFT_REAL_AS(GemmStridedBatchedEx64Fn, Cublas, cublasGemmStridedBatchedEx_64), handle,
                                 transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta,
                                 C, Ctype, ldc, strideC, batchCount, computeType, algo);
}

extern "C" cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                              const void* const Aarray[], cudaDataType Atype, int lda,
                                              const void* const Barray[], cudaDataType Btype, int ldb,
                                              const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
                                              int batchCount, cublasComputeType_t computeType,
                                              cublasGemmAlgo_t algo) {
  return gemm_batched_ex(Entry::GemmBatchedEx, ABFT_REAL_AS(GemmBatchedExFn, Cublas, cublasGemmBatchedEx), handle,
                         transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype,
                         ldc, batchCount, computeType, algo);
}
extern "C" cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                                 const void* alpha, const void* const Aarray[], cudaDataType Atype,
                                                 int64_t lda, const void* const Barray[], cudaDataType Btype,
                                                 int64_t ldb, const void* beta, void* const Carray[],
                                                 cudaDataType Ctype, int64_t ldc, int64_t batchCount,
                                                 cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return gemm_batched_ex(Entry::GemmBatchedEx64, ABFT_REAL_AS(GemmBatchedEx64Fn, Cublas, cublasGemmBatchedEx_64),
                         handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray,
                         Ctype, ldc, batchCount, computeType, algo);
}
