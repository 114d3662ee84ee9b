/** \file cublaslt_entries.cpp
 *  \brief cublasLtMatmul in the preload library. PyTorch reaches cuBLASLt for bf16 / fp16 and for
 *  addmm with a bias epilogue. The plain product and the bias epilogue (no other epilogue, no fp8
 *  scaling, column order, alpha and beta on the host or the device, C = D or beta = 0, equal
 *  types, a bias of D's type shared by a batch's items) run protected (abft::cuda::protected_gemm,
 *  on the stream the call names), the product being the caller's own cuBLASLt call, the checks
 *  and repair the engine's; everything else goes to the real cuBLASLt untouched and is counted as
 *  unprotected. Passed through as well:
 *  a triangular output (CUBLASLT_MATMUL_DESC_FILL_MODE other than FULL) and pointer-array batches
 *  (CUBLASLT_MATRIX_LAYOUT_BATCH_MODE). A strided batch is one protected call; an engine refusal
 *  (before anything ran) forwards the whole call.
 */
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>

#include "gemm_protected.hpp"
#include "preload_runtime.hpp"
#include "real_symbols.hpp"
#include "reentry_guard.hpp"
#include "translate.hpp"

using namespace abft::preload;

namespace {

template <class T>
bool desc_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, T* v) {
  const auto get = ABFT_REAL(CublasLt, cublasLtMatmulDescGetAttribute);
  size_t written = 0;
  return get && get(d, a, v, sizeof(T), &written) == CUBLAS_STATUS_SUCCESS;
}

template <class T>
bool layout_attr(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, T* v) {
  const auto get = ABFT_REAL(CublasLt, cublasLtMatrixLayoutGetAttribute);
  size_t written = 0;
  return get && get(l, a, v, sizeof(T), &written) == CUBLAS_STATUS_SUCCESS;
}

LtLayout read_layout(cublasLtMatrixLayout_t l) {
  LtLayout x;
  uint32_t type = 0;
  x.read_ok = l && layout_attr(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &type) &&
              layout_attr(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &x.order) &&
              layout_attr(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &x.rows) &&
              layout_attr(l, CUBLASLT_MATRIX_LAYOUT_COLS, &x.cols) && layout_attr(l, CUBLASLT_MATRIX_LAYOUT_LD, &x.ld) &&
              layout_attr(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &x.batch) &&
              layout_attr(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &x.stride);
  // Newer than some cuBLASLt versions the program may bring: a library that does not know the
  // attribute cannot have it set, so a failed read is its default (strided batches).
  if (x.read_ok && !layout_attr(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &x.batch_mode)) x.batch_mode = 0;
  x.type = int32_t(type);
  return x;
}

LtCall read_call(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                 cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, const void* beta, const void* C, const void* D) {
  LtCall lt;
  void* pa = nullptr;
  void* pb = nullptr;
  void* pc = nullptr;
  void* pd = nullptr;
  void* amax = nullptr;
  lt.read_ok = desc && desc_attr(desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &lt.compute) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &lt.scale_type) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &lt.pointer_mode) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_TRANSA, &lt.transa) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_TRANSB, &lt.transb) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_TRANSC, &lt.transc) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_FILL_MODE, &lt.fill_mode) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &lt.epilogue) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &pa) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &pb) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, &pc) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &pd) &&
               desc_attr(desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amax);
  // The bias: its pointer, type and batch stride (the type is newer than some versions: unknown =
  // D's type, -1; the batch stride likewise 0).
  if (lt.read_ok) lt.read_ok = desc_attr(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &lt.bias);
  if (lt.read_ok && !desc_attr(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &lt.bias_type)) lt.bias_type = -1;
  if (lt.read_ok && !desc_attr(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &lt.bias_batch_stride))
    lt.bias_batch_stride = 0;
  // D_OUT_SCALE_POINTER (block-scaled outputs) is newer than some cuBLASLt versions: unknown = unset.
  void* pdo = nullptr;
  if (lt.read_ok && !desc_attr(desc, CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, &pdo)) pdo = nullptr;
  lt.scale_pointers = pa || pb || pc || pd || amax || pdo;
  lt.a = read_layout(a);
  lt.b = read_layout(b);
  lt.c = read_layout(c);
  lt.d = read_layout(d);
  lt.c_is_d = C == D;
  if (lt.read_ok && lt.pointer_mode == 0 && beta)
    lt.beta_known_zero = lt.scale_type == CUDA_R_64F ? *static_cast<const double*>(beta) == 0.0
                                                     : lt.scale_type == CUDA_R_32F && *static_cast<const float*>(beta) == 0.0f;
  return lt;
}

/** alpha and beta on the host (copied from the device in device pointer mode: waits for the stream). */
bool host_scalars(const LtCall& lt, const void* alpha, const void* beta, cudaStream_t s, unsigned char* a,
                  unsigned char* b) {
  const size_t sz = lt.scale_type == CUDA_R_64F ? 8 : 4;
  if (!alpha || !beta) return false;
  if (lt.pointer_mode == 1) {
    if (cudaMemcpyAsync(a, alpha, sz, cudaMemcpyDefault, s) != cudaSuccess ||
        cudaMemcpyAsync(b, beta, sz, cudaMemcpyDefault, s) != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
  } else {
    std::memcpy(a, alpha, sz);
    std::memcpy(b, beta, sz);
  }
  return true;
}

}  // namespace

extern "C" cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                         const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                                         cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                                         cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                                         const cublasLtMatmulAlgo_t* algo, void* workspace,
                                         size_t workspaceSizeInBytes, cudaStream_t stream) {
  const auto real = ABFT_REAL(CublasLt, cublasLtMatmul);
  auto forward = [&] {
    return real(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
                workspaceSizeInBytes, stream);
  };
  const Entry e = Entry::LtMatmul;
  // Nested: inside another intercepted call, or called by cuBLAS itself (its own entry points
  // the library does not intercept — cublasSgemv, the _64 GEMMs, ... — run their products
  // through cublasLtMatmul): those are cuBLAS's calls, not the program's.
  if (ReentryGuard::inside() || in_vendor_library(Vendor::Cublas, __builtin_return_address(0))) {
    note_nested();
    return real ? forward() : CUBLAS_STATUS_NOT_INITIALIZED;
  }
  note_call(e);
  if (!real) {
    note_unprotected(e, Reason::RealMissing);
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  ReentryGuard guard;
  if (policy_off()) {
    note_unprotected(e, Reason::PolicyOff);
    return forward();
  }
  const LtCall lt = read_call(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, beta, C, D);
  GemmCall g;
  const EngineGemm eg = translate_lt(lt, &g);
  Reason r = eg.reason;
  if (r == Reason::None && stream_capturing(stream)) r = Reason::GraphCapture;
  alignas(8) unsigned char a[8] = {}, b[8] = {};  // a float or a double, as the scale type says
  if (r == Reason::None && !host_scalars(lt, alpha, beta, stream, a, b)) r = Reason::EngineUnavailable;
  if (r != Reason::None) {
    note_unprotected(e, r);
    return forward();
  }
  // The product: the program's own cuBLASLt call — its descriptors, algorithm, workspace and
  // epilogue, so the result is the unprotected call's bit for bit — on the operands the engine
  // gives it (its copies under operand injection), when that algorithm rounds as the bound
  // allows (lt_algo_rounds_once: 16-bit outputs whose split-K partials are reduced in 16 bits do
  // not); otherwise the engine's own product (with the bias, when beta = 0).
  bool own = true;
  if (eg.type == CUDA_R_16F || eg.type == CUDA_R_16BF) {
    int32_t splitk = 1;
    uint32_t reduction = 0;
    size_t written = 0;
    const auto get = ABFT_REAL(CublasLt, cublasLtMatmulAlgoConfigGetAttribute);
    const bool read = algo && get &&
                      get(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &written) ==
                          CUBLAS_STATUS_SUCCESS &&
                      get(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction, sizeof reduction, &written) ==
                          CUBLAS_STATUS_SUCCESS;
    own = lt_algo_rounds_once(int32_t(eg.type), read, splitk, reduction);
  }
  // Without the program's product, the engine adds a bias itself — for beta = 0 only (C filled
  // with the bias, then the product with beta = 1: one rounding); otherwise the call passes.
  const bool bias = lt.epilogue == CUBLASLT_EPILOGUE_BIAS;
  double beta_d = 0.0;
  float beta_f = 0.0f;
  if (lt.scale_type == CUDA_R_64F) std::memcpy(&beta_d, b, sizeof beta_d);
  else std::memcpy(&beta_f, b, sizeof beta_f);
  const bool beta_zero = lt.scale_type == CUDA_R_64F ? beta_d == 0.0 : beta_f == 0.0f;
  if (!own && bias && !beta_zero) {
    note_unprotected(e, Reason::LtAttributes);
    return forward();
  }
  abft_handle_t h = engine_handle(Family::CublasLt);
  // A strided batch is one protected call (one strided-batched product, one launch per check);
  // the checks include the bias epilogue's bias.
  const int64_t esz = int64_t(eg.elem_bytes);
  const abft::cuda::GemmBatch batch{eg.items, eg.byte_offset_a / esz, eg.byte_offset_b / esz, eg.byte_offset_c / esz};
  abft::cuda::GemmExtras extras;
  cublasStatus_t own_status = CUBLAS_STATUS_SUCCESS;  // the program's own call, when it ran as the product
  if (own)
    extras.product = [&](const void* a_use, const void* b_use) {
      own_status = real(lightHandle, computeDesc, alpha, a_use, Adesc, b_use, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
                        workspace, workspaceSizeInBytes, stream);
      return own_status == CUBLAS_STATUS_SUCCESS;
    };
  if (bias) extras.bias = lt.bias;
  const abft_status st = abft::cuda::protected_gemm(h, stream, eg.math_mode, eg.type, ABFT_COL_MAJOR, eg.opa, eg.opb,
                                                    g.m, g.n, g.k, a, A, g.lda, B, g.ldb, b, D, g.ldc, batch,
                                                    own || bias ? &extras : nullptr);
  if (st != ABFT_STATUS_SUCCESS && st != ABFT_STATUS_FAULT_DETECTED && st != ABFT_STATUS_FAULT_UNCORRECTABLE) {
    if (st == ABFT_STATUS_INTERNAL_ERROR) {  // the engine started: its error is the call's
      note_failed(e);  // (the program's own call's status when it was the product and failed)
      return own_status != CUBLAS_STATUS_SUCCESS ? own_status : CUBLAS_STATUS_EXECUTION_FAILED;
    }
    // Nothing ran: NOT_SUPPORTED / ALLOC_FAILED mean no usable GPU or memory, anything else is
    // the engine refusing the translation (a bug of ours, reported); cuBLASLt runs the call.
    note_unprotected(e, (st == ABFT_STATUS_NOT_SUPPORTED || st == ABFT_STATUS_ALLOC_FAILED) ? Reason::EngineUnavailable
                                                                                            : Reason::EngineRejected);
    return forward();
  }
  note_protected(e);
  return CUBLAS_STATUS_SUCCESS;
}
