/** \file translate.cpp
 *  \brief cuBLAS / cuBLASLt / cuFFT arguments to the engine's calls (translate.hpp).
 */
#include "translate.hpp"

#include "../gemm_batch.hpp"  // (the engine's test of a batch's outputs)

#include <cstdint>

namespace abft::preload {
namespace {

bool fits_int(int64_t v) { return v >= 0 && v <= INT32_MAX; }

bool op_known(cublasOperation_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; }

abft_op to_op(cublasOperation_t t) { return t == CUBLAS_OP_N ? ABFT_NO_TRANS : ABFT_TRANS; }  // real data: C = T

size_t elem_bytes(cudaDataType_t t) { return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2; }

}  // namespace

const char* reason_text(Reason r) {
  switch (r) {
    case Reason::None: return "protected";
    case Reason::PolicyOff: return "policy off (ABFT_POLICY=off)";
    case Reason::DataTypes: return "data types the engine does not protect";
    case Reason::ComputeType: return "compute type without an engine bound";
    case Reason::Arguments: return "sizes left to the real library (empty, invalid, > 32 bit)";
    case Reason::LtAttributes: return "cuBLASLt epilogue / scaling / order / pointer mode";
    case Reason::GraphCapture: return "stream under CUDA graph capture";
    case Reason::EngineUnavailable: return "engine unavailable (no usable GPU or memory)";
    case Reason::EngineRejected: return "engine rejected the translated arguments (a bug: please report)";
    case Reason::FftPlanUnknown: return "cuFFT plan not seen made";
    case Reason::FftShape: return "cuFFT plan the engine does not protect";
    case Reason::FftCallbacks: return "cuFFT plan with the program's own callbacks";
    case Reason::RealMissing: return "real function not found";
    default: return "?";
  }
}

const char* reason_key(Reason r) {
  static const char* const keys[] = {"protected",     "policy_off",         "data_types",       "compute_type",
                                     "arguments",     "lt_attributes",      "graph_capture",    "engine_unavailable",
                                     "engine_rejected", "fft_plan_unknown", "fft_shape",       "fft_callbacks",
                                     "real_missing"};
  static_assert(sizeof keys / sizeof keys[0] == size_t(Reason::Count), "one key per reason");
  const int i = int(r);
  return i >= 0 && i < int(Reason::Count) ? keys[i] : "?";
}

EngineGemm translate_gemm(const GemmCall& c) {
  EngineGemm e;
  auto pass = [&e](Reason r) {
    e.reason = r;
    return e;
  };
  if (!op_known(c.transa) || !op_known(c.transb)) return pass(Reason::Arguments);
  // Empty or invalid sizes: cuBLAS answers them itself (nothing to check, or its own error).
  if (c.m <= 0 || c.n <= 0 || c.k < 0 || c.batch <= 0) return pass(Reason::Arguments);
  if (c.atype != c.btype || c.atype != c.ctype) return pass(Reason::DataTypes);
  const cudaDataType_t t = c.atype;
  if (t != CUDA_R_32F && t != CUDA_R_64F && t != CUDA_R_16F && t != CUDA_R_16BF) return pass(Reason::DataTypes);
  // The compute types the engine's bound covers (abft_cublasGemmEx): double for double data,
  // float accumulation (optionally TF32 inputs) for float and the 16-bit types.
  const bool c64 = c.compute == CUBLAS_COMPUTE_64F || c.compute == CUBLAS_COMPUTE_64F_PEDANTIC;
  const bool c32 = c.compute == CUBLAS_COMPUTE_32F || c.compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
                   c.compute == CUBLAS_COMPUTE_32F_FAST_TF32;
  if (t == CUDA_R_64F ? !c64 : !c32) return pass(Reason::ComputeType);
  const bool ta = c.transa != CUBLAS_OP_N, tb = c.transb != CUBLAS_OP_N;
  const int64_t arows = ta ? c.k : c.m, brows = tb ? c.n : c.k;
  if (c.lda < (arows > 1 ? arows : 1) || c.ldb < (brows > 1 ? brows : 1) || c.ldc < c.m)
    return pass(Reason::Arguments);
  for (int64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc, c.batch})
    if (!fits_int(v)) return pass(Reason::Arguments);
  e.type = t;
  e.compute = c.compute;
  e.opa = to_op(c.transa);
  e.opb = to_op(c.transb);
  e.tf32 = t == CUDA_R_32F && c.compute == CUBLAS_COMPUTE_32F_FAST_TF32;
  e.math_mode = e.tf32 ? int(CUBLAS_TF32_TENSOR_OP_MATH)
                : (c.compute == CUBLAS_COMPUTE_32F_PEDANTIC || c.compute == CUBLAS_COMPUTE_64F_PEDANTIC)
                    ? int(CUBLAS_PEDANTIC_MATH)
                    : int(CUBLAS_DEFAULT_MATH);
  e.elem_bytes = elem_bytes(t);
  e.items = c.batch;
  if (c.batch > 1) {
    const int64_t b = int64_t(e.elem_bytes);
    e.byte_offset_a = c.stride_a * b;
    e.byte_offset_b = c.stride_b * b;
    e.byte_offset_c = c.stride_c * b;
  }
  return e;
}

bool strided_outputs_overlap(const GemmCall& c) {
  return !abft::cuda::outputs_disjoint(c.batch, c.stride_c, c.m, c.n, c.ldc);
}

bool lt_algo_rounds_once(int32_t d_type, bool algo_given, int32_t splitk, uint32_t reduction) {
  if (d_type == CUDA_R_32F || d_type == CUDA_R_64F) return true;
  if (!algo_given) return false;
  return splitk <= 1 || reduction == 2u /* CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE */;
}

EngineGemm translate_lt(const LtCall& lt, GemmCall* g) {
  EngineGemm e;
  auto pass = [&e](Reason r) {
    e.reason = r;
    return e;
  };
  const LtLayout* lay[4] = {&lt.a, &lt.b, &lt.c, &lt.d};
  if (!lt.read_ok) return pass(Reason::LtAttributes);
  // Column order, strided batches (pointer-array batches: CUBLASLT_BATCH_MODE_POINTER_ARRAY).
  for (const LtLayout* l : lay)
    if (!l->read_ok || l->order != 0 /* CUBLASLT_ORDER_COL */ || l->batch_mode != 0 /* STRIDED */)
      return pass(Reason::LtAttributes);
  // Only the plain product: no epilogue (bias, activation, aux outputs), no fp8 scaling, C not
  // transposed, the full output (not a triangle), scalars on the host or the device (not per-row
  // vectors).
  // The bias epilogue (BIAS: D = alpha op(A) op(B) + beta C + bias 1^T, rounded once) is the
  // engine's too: its checks and repair include the bias (GemmExtras), when the bias is of D's
  // type and the same for every item of a batch.
  const bool bias = lt.epilogue == 4u /* CUBLASLT_EPILOGUE_BIAS */;
  if ((lt.epilogue != 1u /* CUBLASLT_EPILOGUE_DEFAULT */ && !bias) || lt.scale_pointers ||
      lt.transc != CUBLAS_OP_N || lt.fill_mode != CUBLAS_FILL_MODE_FULL ||
      (lt.pointer_mode != 0 && lt.pointer_mode != 1))
    return pass(Reason::LtAttributes);
  if (bias && (!lt.bias || (lt.bias_type != -1 && lt.bias_type != lt.d.type) ||
               (lt.d.batch > 1 && lt.bias_batch_stride != 0)))
    return pass(Reason::LtAttributes);
  // D is written in place by the engine: C must be D (same layout), or unread (beta = 0).
  if (lt.c_is_d) {
    if (lt.c.type != lt.d.type || lt.c.rows != lt.d.rows || lt.c.cols != lt.d.cols || lt.c.ld != lt.d.ld ||
        lt.c.batch != lt.d.batch || (lt.d.batch > 1 && lt.c.stride != lt.d.stride))
      return pass(Reason::LtAttributes);
  } else if (!lt.beta_known_zero) {
    return pass(Reason::LtAttributes);
  }
  if (lt.a.type != lt.b.type || lt.a.type != lt.c.type || lt.a.type != lt.d.type) return pass(Reason::DataTypes);
  const bool dbl = lt.d.type == CUDA_R_64F;
  if (lt.scale_type != (dbl ? CUDA_R_64F : CUDA_R_32F)) return pass(Reason::ComputeType);
  const auto ta = cublasOperation_t(lt.transa), tb = cublasOperation_t(lt.transb);
  if (!op_known(ta) || !op_known(tb)) return pass(Reason::Arguments);
  const int64_t m = int64_t(lt.d.rows), n = int64_t(lt.d.cols);
  const int64_t k = int64_t(ta == CUBLAS_OP_N ? lt.a.cols : lt.a.rows);
  const int64_t am = int64_t(ta == CUBLAS_OP_N ? lt.a.rows : lt.a.cols);
  const int64_t bk = int64_t(tb == CUBLAS_OP_N ? lt.b.rows : lt.b.cols);
  const int64_t bn = int64_t(tb == CUBLAS_OP_N ? lt.b.cols : lt.b.rows);
  if (am != m || bk != k || bn != n) return pass(Reason::Arguments);
  if (lt.a.batch != lt.d.batch || lt.b.batch != lt.d.batch) return pass(Reason::Arguments);
  GemmCall c;
  c.transa = ta;
  c.transb = tb;
  c.m = m, c.n = n, c.k = k;
  c.atype = c.btype = c.ctype = cudaDataType_t(lt.d.type);
  c.compute = cublasComputeType_t(lt.compute);
  c.lda = lt.a.ld, c.ldb = lt.b.ld, c.ldc = lt.d.ld;
  c.stride_a = lt.a.stride, c.stride_b = lt.b.stride, c.stride_c = lt.d.stride;
  c.batch = lt.d.batch;
  if (g) *g = c;
  if (strided_outputs_overlap(c)) return pass(Reason::Arguments);
  return translate_gemm(c);
}

bool xt_cufft_type(cudaDataType in, cudaDataType out, cudaDataType exec, cufftType* t) {
  struct Row {
    cudaDataType in, out, exec;
    cufftType type;
  };
  static const Row rows[] = {
      {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_C2C}, {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_R2C},
      {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, CUFFT_C2R}, {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_Z2Z},
      {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_D2Z}, {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, CUFFT_Z2D}};
  for (const Row& r : rows)
    if (r.in == in && r.out == out && r.exec == exec) {
      if (t) *t = r.type;
      return true;
    }
  return false;
}

Reason fft_reason(const FftShape& s) {
  if (!s.type_known) return Reason::FftShape;
  if (s.type != CUFFT_C2C && s.type != CUFFT_Z2Z && s.type != CUFFT_R2C && s.type != CUFFT_D2Z &&
      s.type != CUFFT_C2R && s.type != CUFFT_Z2D)
    return Reason::FftShape;
  if (s.rank < 1 || s.rank > 3 || !fits_int(s.batch) || s.batch < 1) return Reason::FftShape;
  for (int d = 0; d < s.rank; ++d) {
    if (s.n[d] < 1 || !fits_int(s.n[d])) return Reason::FftShape;
    if (!s.basic && (!fits_int(s.inembed[d]) || !fits_int(s.onembed[d]))) return Reason::FftShape;
  }
  if (!s.basic)
    for (int64_t v : {s.istride, s.idist, s.ostride, s.odist})
      if (!fits_int(v)) return Reason::FftShape;
  return Reason::None;
}

FftIntArgs fft_int_args(const FftShape& s) {
  FftIntArgs a{};
  a.rank = s.rank;
  a.basic = s.basic;
  for (int d = 0; d < 3; ++d) {
    a.n[d] = int(d < s.rank ? s.n[d] : 1);
    a.inembed[d] = int(d < s.rank ? s.inembed[d] : 1);
    a.onembed[d] = int(d < s.rank ? s.onembed[d] : 1);
  }
  a.istride = int(s.istride), a.idist = int(s.idist), a.ostride = int(s.ostride), a.odist = int(s.odist);
  a.batch = int(s.batch);
  return a;
}

}  // namespace abft::preload
