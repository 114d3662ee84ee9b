/** \file translate.hpp
 *  \brief Pure argument translation of the preload library (no CUDA call, unit-tested on the
 *  host): a cuBLAS / cuBLASLt GEMM call or a cuFFT plan, as the program made it, to the protected
 *  engine's call — or the reason it passes through to the real library untouched.
 *
 *  cuBLAS is column-major: C(m x n) = alpha op(A)(m x k) op(B)(k x n) + beta C, op(A) stored
 *  k x m when transposed. The engine's cuBLAS-signature doors (abft_cublasGemmEx,
 *  abft::cuda::protected_gemm) take exactly that, one product at a time; a batch becomes one
 *  engine call per item, item i's operands at base + i * stride elements.
 */
#pragma once
#include <cublas_api.h>
#include <cufft.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>

#include "abft/abft.h"

namespace abft::preload {

/** Why a call passes through unprotected (the report's reasons). */
enum class Reason : int {
  None = 0,          ///< protectable
  PolicyOff,         ///< ABFT_POLICY=off: every call forwarded
  DataTypes,         ///< types the engine does not protect (mixed, complex, integer, fp8)
  ComputeType,       ///< compute type / accumulation the engine has no bound for (16-bit, fast modes)
  Arguments,         ///< sizes the real library handles itself (empty, negative, ld too small, > 32 bit)
  LtAttributes,      ///< cuBLASLt: an epilogue, scaling, ordering or pointer mode the engine cannot reproduce
  GraphCapture,      ///< the stream is being captured into a CUDA graph
  EngineUnavailable, ///< the engine refused before running anything: no usable GPU, no memory (NOT_SUPPORTED, ALLOC_FAILED)
  EngineRejected,    ///< the engine refused the translated call's arguments (INVALID_*: a translation bug, forwarded)
  FftPlanUnknown,    ///< a cuFFT plan the library did not see made
  FftShape,          ///< a cuFFT plan the engine does not protect (half precision, > 32 bit)
  FftCallbacks,      ///< a cuFFT plan carrying the program's own load/store callbacks
  RealMissing,       ///< the real function could not be found (the call fails)
  Count
};
const char* reason_text(Reason r);
/** Short key of a reason ("engine_unavailable", ...): abft_preload_reason_count's argument. */
const char* reason_key(Reason r);

/** One GEMM as the caller made it (cuBLAS semantics, element strides between batch items). */
struct GemmCall {
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0;
  cudaDataType_t atype = CUDA_R_32F, btype = CUDA_R_32F, ctype = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int64_t batch = 1;
};

/** The engine's calls for one GemmCall: `items` products on storage type `type`. */
struct EngineGemm {
  Reason reason = Reason::None;  ///< None: protect; otherwise pass through
  cudaDataType_t type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;  ///< for abft_cublasGemmEx (32F* or 64F*)
  abft_op opa = ABFT_NO_TRANS, opb = ABFT_NO_TRANS;
  bool tf32 = false;        ///< the compute type asks for TF32 (float data)
  int math_mode = 0;        ///< cublasMath_t the compute type implies (for protected_gemm)
  size_t elem_bytes = 4;
  int64_t items = 0;
  int64_t byte_offset_a = 0, byte_offset_b = 0, byte_offset_c = 0;  ///< between items
};

/** Translate a cuBLAS GEMM (typed entry points give their fixed types and compute type:
 *  Sgemm 32F/COMPUTE_32F, Dgemm 64F/COMPUTE_64F, Hgemm 16F/COMPUTE_16F). */
EngineGemm translate_gemm(const GemmCall& c);

/** A strided batch (batch > 1, c.stride_c between items) whose outputs may overlap (the engine's
 *  abft::cuda::outputs_disjoint does not hold): cuBLAS leaves overlap undefined, the engine
 *  refuses it (ABFT_STATUS_INVALID_VALUE), the preload passes it through (Reason::Arguments).
 *  Pointer-array batches have no strides: not for them. */
bool strided_outputs_overlap(const GemmCall& c);

/** Byte offset of operand X of item i: i * stride (elements) * element size. */
inline int64_t item_offset(int64_t i, int64_t per_item_bytes) { return i * per_item_bytes; }

/** One cuBLASLt matrix layout, as read with cublasLtMatrixLayoutGetAttribute. */
struct LtLayout {
  int32_t type = -1;  ///< cudaDataType
  int32_t order = 0;  ///< cublasLtOrder_t (0 = CUBLASLT_ORDER_COL)
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  int64_t stride = 0;  ///< CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET (elements)
  uint32_t batch_mode = 0;  ///< CUBLASLT_MATRIX_LAYOUT_BATCH_MODE (0 = strided; 1 = pointer arrays)
  bool read_ok = true;
};

/** A cuBLASLt matmul descriptor's attributes that decide whether the call is a plain GEMM. */
struct LtCall {
  int32_t compute = -1;     ///< cublasComputeType_t
  int32_t scale_type = -1;  ///< cudaDataType
  int32_t pointer_mode = 0;
  int32_t transa = 0, transb = 0, transc = 0;
  int32_t fill_mode = 2;  ///< CUBLASLT_MATMUL_DESC_FILL_MODE (CUBLAS_FILL_MODE_FULL)
  uint32_t epilogue = 1;  ///< CUBLASLT_EPILOGUE_DEFAULT
  const void* bias = nullptr;      ///< CUBLASLT_MATMUL_DESC_BIAS_POINTER
  int32_t bias_type = -1;          ///< CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE (-1: D's type)
  int64_t bias_batch_stride = 0;   ///< CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE
  bool scale_pointers = false;  ///< any of the A/B/C/D scale or amax pointers set (fp8 scaling)
  bool read_ok = true;          ///< every attribute could be read
  LtLayout a, b, c, d;
  bool c_is_d = true;       ///< C and D are the same array
  bool beta_known_zero = false;  ///< host pointer mode and *beta == 0
};

/** The engine's calls for a cuBLASLt matmul (D = alpha op(A) op(B) + beta C, + bias 1^T with
 *  the bias epilogue), or the reason it passes through. `gemm` receives the call as a GemmCall
 *  for the report and the executor. The bias epilogue is the engine's when the bias is of D's
 *  type and every item of a strided batch adds the same one (batch stride 0). */
EngineGemm translate_lt(const LtCall& lt, GemmCall* gemm);

/** Whether the program's own cuBLASLt algorithm can be the protected product (GemmExtras): its
 *  result must be rounded as the engine's bound allows, one output rounding of a sum formed in
 *  the compute precision. Float and double outputs: always (split-K partials kept in the output
 *  type are then in the compute precision: another summation order, which the bound covers).
 *  16-bit outputs: only an algorithm the program named (`algo_given`) that does not split k
 *  (`splitk` <= 1) or reduces its partials in the compute type
 *  (CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE) — in-place and output-type reductions round every
 *  partial to 16 bits, and a null algorithm lets cuBLASLt pick either. */
bool lt_algo_rounds_once(int32_t d_type, bool algo_given, int32_t splitk, uint32_t reduction);

/** A cuFFT plan as the program made it. */
struct FftShape {
  int rank = 1;
  int64_t n[3] = {1, 1, 1};
  bool basic = true;  ///< NULL inembed or onembed: cuFFT's basic layout (strides ignored)
  int64_t inembed[3] = {1, 1, 1}, onembed[3] = {1, 1, 1};
  int64_t istride = 1, idist = 0, ostride = 1, odist = 0;
  cufftType type = CUFFT_C2C;
  bool type_known = true;  ///< false: an Xt plan of types the engine has no cufftType for
  int64_t batch = 1;
};

/** cufftXtMakePlanMany's (input, output, execution) types as a cufftType; false for types the
 *  engine does not protect (half, bfloat16). */
bool xt_cufft_type(cudaDataType in, cudaDataType out, cudaDataType exec, cufftType* t);

/** None when the engine can protect executions of the plan, else FftShape. */
Reason fft_reason(const FftShape& s);

/** The plan's arguments narrowed to abft_cufftPlanMany's int parameters (fft_reason == None). */
struct FftIntArgs {
  int rank;
  int n[3], inembed[3], onembed[3];
  int istride, idist, ostride, odist, batch;
  bool basic;
};
FftIntArgs fft_int_args(const FftShape& s);

}  // namespace abft::preload
