/** \file translate_test.cpp
 *  \brief The preload library's argument translation, unit-tested on the host
 *  (cuda/interpose/translate.hpp): cuBLAS column-major operations, leading dimensions and batch
 *  strides to the engine's calls; which types, compute types and cuBLASLt descriptors pass
 *  through, and why; cuFFT plans (Xt types, shapes) the engine can and cannot protect.
 */
#include <gtest/gtest.h>

#include <cublasLt.h>

#include "translate.hpp"

using namespace abft::preload;

namespace {

GemmCall call(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
              int64_t ldc, cudaDataType_t t = CUDA_R_32F, cublasComputeType_t c = CUBLAS_COMPUTE_32F) {
  GemmCall g;
  g.transa = ta, g.transb = tb, g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.atype = g.btype = g.ctype = t;
  g.compute = c;
  return g;
}

LtLayout layout(cudaDataType_t t, uint64_t rows, uint64_t cols, int64_t ld, int32_t batch = 1, int64_t stride = 0) {
  LtLayout l;
  l.type = t, l.rows = rows, l.cols = cols, l.ld = ld, l.batch = batch, l.stride = stride;
  return l;
}

/** A plain bf16 cuBLASLt matmul D(m x n) = A(m x k) B(k x n), C = D. */
LtCall plain_lt(int64_t m, int64_t n, int64_t k) {
  LtCall lt;
  lt.compute = CUBLAS_COMPUTE_32F;
  lt.scale_type = CUDA_R_32F;
  lt.a = layout(CUDA_R_16BF, m, k, m);
  lt.b = layout(CUDA_R_16BF, k, n, k);
  lt.c = lt.d = layout(CUDA_R_16BF, m, n, m);
  return lt;
}

}  // namespace

TEST(PreloadTranslate, Sgemm_TN_ColumnMajorOpsAndLeadingDimensions) {
  // C(3x4) = A^T B with A stored k x m = 5 x 3 (lda 7), B stored 5 x 4 (ldb 5), C ldc 3.
  const EngineGemm e = translate_gemm(call(CUBLAS_OP_T, CUBLAS_OP_N, 3, 4, 5, 7, 5, 3));
  EXPECT_EQ(e.reason, Reason::None);
  EXPECT_EQ(e.type, CUDA_R_32F);
  EXPECT_EQ(e.opa, ABFT_TRANS);
  EXPECT_EQ(e.opb, ABFT_NO_TRANS);
  EXPECT_EQ(e.items, 1);
  EXPECT_EQ(e.elem_bytes, 4u);
  EXPECT_EQ(e.byte_offset_a, 0);
  EXPECT_FALSE(e.tf32);
  EXPECT_EQ(e.math_mode, int(CUBLAS_DEFAULT_MATH));
}

TEST(PreloadTranslate, ConjugateTransposeOfRealDataIsTranspose) {
  const EngineGemm e = translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_C, 4, 2, 3, 4, 2, 4, CUDA_R_64F, CUBLAS_COMPUTE_64F));
  ASSERT_EQ(e.reason, Reason::None);
  EXPECT_EQ(e.opb, ABFT_TRANS);
  EXPECT_EQ(e.elem_bytes, 8u);
}

TEST(PreloadTranslate, LeadingDimensionsFollowTheStoredShapes) {
  // op(A) = A^T: A is stored k x m, so lda >= k (not m).
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_T, CUBLAS_OP_N, 8, 2, 3, 3, 3, 8)).reason, Reason::None);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_T, CUBLAS_OP_N, 8, 2, 3, 2, 3, 8)).reason, Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 8, 2, 3, 7, 3, 8)).reason, Reason::Arguments);
  // op(B) = B^T: B stored n x k, ldb >= n.
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_T, 8, 6, 3, 8, 5, 8)).reason, Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_T, 8, 6, 3, 8, 6, 8)).reason, Reason::None);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 8, 6, 3, 8, 3, 7)).reason, Reason::Arguments);
}

TEST(PreloadTranslate, EmptyNegativeAndHugeSizesAreLeftToCublas) {
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 0, 4, 4, 1, 4, 1)).reason, Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, -1, 4, 4, 4, 4)).reason, Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, -2, 4, 1, 4)).reason, Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, int64_t(1) << 32, 4, 4)).reason,
            Reason::Arguments);
  EXPECT_EQ(translate_gemm(call(cublasOperation_t(7), CUBLAS_OP_N, 4, 4, 4, 4, 4, 4)).reason, Reason::Arguments);
  // A batch count past 32 bits (the _64 entry points): the engine's doors take int.
  GemmCall many = call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4);
  many.stride_a = many.stride_b = 16, many.stride_c = 16, many.batch = int64_t(1) << 31;
  EXPECT_EQ(translate_gemm(many).reason, Reason::Arguments);
  // k = 0 is a product (C = beta C): the engine runs it.
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 0, 4, 1, 4)).reason, Reason::None);
}

TEST(PreloadTranslate, StridedBatchOffsetsAreElementStridesTimesElementSize) {
  GemmCall g = call(CUBLAS_OP_N, CUBLAS_OP_T, 64, 32, 16, 64, 32, 64, CUDA_R_16BF, CUBLAS_COMPUTE_32F);
  g.stride_a = 64 * 16, g.stride_b = 0, g.stride_c = 64 * 32 + 5, g.batch = 12;
  const EngineGemm e = translate_gemm(g);
  ASSERT_EQ(e.reason, Reason::None);
  EXPECT_EQ(e.items, 12);
  EXPECT_EQ(e.elem_bytes, 2u);
  EXPECT_EQ(e.byte_offset_a, 64 * 16 * 2);
  EXPECT_EQ(e.byte_offset_b, 0);  // a broadcast operand
  EXPECT_EQ(e.byte_offset_c, (64 * 32 + 5) * 2);
  EXPECT_EQ(item_offset(3, e.byte_offset_c), 3 * (64 * 32 + 5) * 2);
  EXPECT_EQ(e.opb, ABFT_TRANS);
}

TEST(PreloadTranslate, StridedBatchesWithOverlappingOutputsAreNotTheEngines) {
  GemmCall g = call(CUBLAS_OP_N, CUBLAS_OP_N, 64, 32, 16, 64, 16, 70);
  g.batch = 3;
  g.stride_c = 70 * 31 + 64;  // one C's extent: the items touch, do not overlap
  EXPECT_FALSE(strided_outputs_overlap(g));
  g.stride_c = -(70 * 31 + 64);
  EXPECT_FALSE(strided_outputs_overlap(g));
  for (int64_t sc : {int64_t(70 * 31 + 63), int64_t(0), int64_t(-1)}) {
    g.stride_c = sc;
    EXPECT_TRUE(strided_outputs_overlap(g)) << sc;
  }
  g.stride_c = 3;  // row blocks of 64 three apart: they overlap
  EXPECT_TRUE(strided_outputs_overlap(g));
  GemmCall blocks = call(CUBLAS_OP_N, CUBLAS_OP_N, 20, 32, 16, 20, 16, 70);
  blocks.batch = 3;
  blocks.stride_c = 22;  // rows 0-19, 22-41, 44-63 of a 70-row matrix: disjoint
  EXPECT_FALSE(strided_outputs_overlap(blocks));
  blocks.stride_c = 26;  // the third block would end at row 71 > 70
  EXPECT_TRUE(strided_outputs_overlap(blocks));
  g.batch = 1;  // one product: no items to overlap
  EXPECT_FALSE(strided_outputs_overlap(g));
}

TEST(PreloadTranslate, TypesTheEngineDoesNotProtectPassThrough) {
  GemmCall mixed = call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_16BF);
  mixed.ctype = CUDA_R_32F;  // bf16 inputs, float output
  EXPECT_EQ(translate_gemm(mixed).reason, Reason::DataTypes);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_C_32F)).reason, Reason::DataTypes);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_8I, CUBLAS_COMPUTE_32I)).reason,
            Reason::DataTypes);
}

TEST(PreloadTranslate, ComputeTypesWithoutAnEngineBoundPassThrough) {
  // cublasHgemm: half accumulation.
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_16F, CUBLAS_COMPUTE_16F)).reason,
            Reason::ComputeType);
  EXPECT_EQ(
      translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16F)).reason,
      Reason::ComputeType);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_64F, CUBLAS_COMPUTE_32F)).reason,
            Reason::ComputeType);
  EXPECT_EQ(translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_32F, CUBLAS_COMPUTE_64F)).reason,
            Reason::ComputeType);
}

TEST(PreloadTranslate, Tf32AndPedanticComputeTypesSetTheMathMode) {
  const EngineGemm t =
      translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32));
  ASSERT_EQ(t.reason, Reason::None);
  EXPECT_TRUE(t.tf32);
  EXPECT_EQ(t.math_mode, int(CUBLAS_TF32_TENSOR_OP_MATH));
  const EngineGemm p =
      translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_64F, CUBLAS_COMPUTE_64F_PEDANTIC));
  ASSERT_EQ(p.reason, Reason::None);
  EXPECT_EQ(p.math_mode, int(CUBLAS_PEDANTIC_MATH));
  // TF32 has no meaning for 16-bit data: float accumulation, no TF32 in the bound.
  EXPECT_FALSE(
      translate_gemm(call(CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, 4, 4, 4, CUDA_R_16F, CUBLAS_COMPUTE_32F_FAST_TF32)).tf32);
}

TEST(PreloadTranslate, LtPlainMatmulBecomesOneEngineGemm) {
  GemmCall g;
  const EngineGemm e = translate_lt(plain_lt(96, 40, 24), &g);
  ASSERT_EQ(e.reason, Reason::None);
  EXPECT_EQ(g.m, 96);
  EXPECT_EQ(g.n, 40);
  EXPECT_EQ(g.k, 24);
  EXPECT_EQ(g.lda, 96);
  EXPECT_EQ(g.ldb, 24);
  EXPECT_EQ(g.ldc, 96);
  EXPECT_EQ(e.type, CUDA_R_16BF);
  EXPECT_EQ(e.items, 1);
}

TEST(PreloadTranslate, LtTransposedOperandsGiveKFromTheStoredShape) {
  // PyTorch's Linear: D(out x tokens) = W^T(out x in) X(in x tokens) with W stored in x out.
  LtCall lt = plain_lt(32, 10, 48);
  lt.transa = CUBLAS_OP_T;
  lt.a = layout(CUDA_R_16BF, 48, 32, 48);
  GemmCall g;
  const EngineGemm e = translate_lt(lt, &g);
  ASSERT_EQ(e.reason, Reason::None);
  EXPECT_EQ(g.k, 48);
  EXPECT_EQ(e.opa, ABFT_TRANS);
  // Shapes that do not fit together are cuBLASLt's to report.
  lt.a = layout(CUDA_R_16BF, 48, 31, 48);
  EXPECT_EQ(translate_lt(lt, &g).reason, Reason::Arguments);
}

TEST(PreloadTranslate, LtBatchedStridesBecomeByteOffsets) {
  LtCall lt = plain_lt(16, 16, 8);
  lt.a.batch = lt.b.batch = lt.c.batch = lt.d.batch = 6;
  lt.a.stride = 128, lt.b.stride = 128, lt.c.stride = lt.d.stride = 256;
  GemmCall g;
  const EngineGemm e = translate_lt(lt, &g);
  ASSERT_EQ(e.reason, Reason::None);
  EXPECT_EQ(e.items, 6);
  EXPECT_EQ(e.byte_offset_a, 256);
  EXPECT_EQ(e.byte_offset_c, 512);
  lt.b.batch = 1;  // mismatched batch counts
  EXPECT_EQ(translate_lt(lt, &g).reason, Reason::Arguments);
}

TEST(PreloadTranslate, LtBiasEpilogueIsTheEnginesWithABiasOfTheOutputsType) {
  GemmCall g;
  LtCall bias = plain_lt(8, 8, 8);
  bias.epilogue = CUBLASLT_EPILOGUE_BIAS;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::LtAttributes);  // no bias pointer
  int dummy = 0;
  bias.bias = &dummy;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::None);  // type -1: D's
  bias.bias_type = bias.d.type;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::None);
  bias.bias_type = CUDA_R_32F == bias.d.type ? CUDA_R_16BF : CUDA_R_32F;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::LtAttributes);
  bias.bias_type = -1;
  // A strided batch: one bias for every item, not one per item.
  bias.a.batch = bias.b.batch = bias.c.batch = bias.d.batch = 3;
  bias.a.stride = bias.b.stride = 64, bias.c.stride = bias.d.stride = 64;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::None);
  bias.bias_batch_stride = 8;
  EXPECT_EQ(translate_lt(bias, &g).reason, Reason::LtAttributes);
  // Other epilogues (activations, gradients) pass through.
  for (uint32_t e : {uint32_t(CUBLASLT_EPILOGUE_RELU_BIAS), uint32_t(CUBLASLT_EPILOGUE_GELU_BIAS),
                     uint32_t(CUBLASLT_EPILOGUE_BGRADB), uint32_t(CUBLASLT_EPILOGUE_RELU)}) {
    LtCall x = plain_lt(8, 8, 8);
    x.epilogue = e;
    x.bias = &dummy;
    EXPECT_EQ(translate_lt(x, &g).reason, Reason::LtAttributes) << e;
  }
}

TEST(PreloadTranslate, OnlyAnAlgorithmThatRoundsA16BitOutputOnceIsTheProduct) {
  // Float and double outputs: any algorithm (split-K partials are then in the compute precision).
  EXPECT_TRUE(lt_algo_rounds_once(CUDA_R_32F, false, 8, CUBLASLT_REDUCTION_SCHEME_INPLACE));
  EXPECT_TRUE(lt_algo_rounds_once(CUDA_R_64F, true, 4, CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE));
  for (int32_t t : {int32_t(CUDA_R_16BF), int32_t(CUDA_R_16F)}) {
    EXPECT_FALSE(lt_algo_rounds_once(t, false, 1, CUBLASLT_REDUCTION_SCHEME_NONE)) << "no algorithm named";
    EXPECT_TRUE(lt_algo_rounds_once(t, true, 1, CUBLASLT_REDUCTION_SCHEME_NONE));
    EXPECT_TRUE(lt_algo_rounds_once(t, true, 0, CUBLASLT_REDUCTION_SCHEME_INPLACE));
    EXPECT_TRUE(lt_algo_rounds_once(t, true, 4, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE));
    EXPECT_FALSE(lt_algo_rounds_once(t, true, 4, CUBLASLT_REDUCTION_SCHEME_INPLACE));
    EXPECT_FALSE(lt_algo_rounds_once(t, true, 2, CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE));
  }
}

TEST(PreloadTranslate, LtEpiloguesScalingOrderAndPointerVectorsPassThrough) {
  GemmCall g;
  LtCall scaled = plain_lt(8, 8, 8);
  scaled.scale_pointers = true;
  EXPECT_EQ(translate_lt(scaled, &g).reason, Reason::LtAttributes);
  LtCall rows = plain_lt(8, 8, 8);
  rows.b.order = CUBLASLT_ORDER_ROW;
  EXPECT_EQ(translate_lt(rows, &g).reason, Reason::LtAttributes);
  LtCall vec = plain_lt(8, 8, 8);
  vec.pointer_mode = CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
  EXPECT_EQ(translate_lt(vec, &g).reason, Reason::LtAttributes);
  LtCall unread = plain_lt(8, 8, 8);
  unread.read_ok = false;
  EXPECT_EQ(translate_lt(unread, &g).reason, Reason::LtAttributes);
  LtCall dev = plain_lt(8, 8, 8);
  dev.pointer_mode = CUBLASLT_POINTER_MODE_DEVICE;
  EXPECT_EQ(translate_lt(dev, &g).reason, Reason::None);
}

TEST(PreloadTranslate, LtTriangularOutputsAndPointerArrayBatchesPassThrough) {
  GemmCall g;
  LtCall lower = plain_lt(8, 8, 8);
  lower.fill_mode = CUBLAS_FILL_MODE_LOWER;
  EXPECT_EQ(translate_lt(lower, &g).reason, Reason::LtAttributes);
  LtCall upper = plain_lt(8, 8, 8);
  upper.fill_mode = CUBLAS_FILL_MODE_UPPER;
  EXPECT_EQ(translate_lt(upper, &g).reason, Reason::LtAttributes);
  LtCall full = plain_lt(8, 8, 8);
  full.fill_mode = CUBLAS_FILL_MODE_FULL;
  EXPECT_EQ(translate_lt(full, &g).reason, Reason::None);
  for (LtLayout LtCall::*which : {&LtCall::a, &LtCall::b, &LtCall::c, &LtCall::d}) {
    LtCall arrays = plain_lt(8, 8, 8);
    (arrays.*which).batch_mode = 1;  // CUBLASLT_BATCH_MODE_POINTER_ARRAY
    EXPECT_EQ(translate_lt(arrays, &g).reason, Reason::LtAttributes);
  }
}

TEST(PreloadTranslate, LtSeparateCIsProtectedOnlyWhenBetaIsZero) {
  GemmCall g;
  LtCall lt = plain_lt(8, 8, 8);
  lt.c_is_d = false;
  EXPECT_EQ(translate_lt(lt, &g).reason, Reason::LtAttributes);
  lt.beta_known_zero = true;
  EXPECT_EQ(translate_lt(lt, &g).reason, Reason::None);
  LtCall other_ld = plain_lt(8, 8, 8);
  other_ld.c.ld = 16;  // C = D but described differently
  EXPECT_EQ(translate_lt(other_ld, &g).reason, Reason::LtAttributes);
}

TEST(PreloadTranslate, LtScaleTypeMustMatchTheData) {
  GemmCall g;
  LtCall lt = plain_lt(8, 8, 8);
  lt.scale_type = CUDA_R_16BF;
  EXPECT_EQ(translate_lt(lt, &g).reason, Reason::ComputeType);
  LtCall mixed = plain_lt(8, 8, 8);
  mixed.d.type = mixed.c.type = CUDA_R_32F;
  EXPECT_EQ(translate_lt(mixed, &g).reason, Reason::DataTypes);
}

TEST(PreloadTranslate, XtTypesMapToCufftTypes) {
  cufftType t = CUFFT_C2C;
  EXPECT_TRUE(xt_cufft_type(CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, &t));
  EXPECT_EQ(t, CUFFT_R2C);
  EXPECT_TRUE(xt_cufft_type(CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, &t));
  EXPECT_EQ(t, CUFFT_Z2D);
  EXPECT_TRUE(xt_cufft_type(CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, &t));
  EXPECT_EQ(t, CUFFT_C2C);
  EXPECT_FALSE(xt_cufft_type(CUDA_C_16F, CUDA_C_16F, CUDA_C_16F, &t));
  EXPECT_FALSE(xt_cufft_type(CUDA_R_16BF, CUDA_C_16BF, CUDA_C_16BF, &t));
}

TEST(PreloadTranslate, FftShapesTheEngineProtects) {
  FftShape s;
  s.rank = 1, s.n[0] = 1000, s.type = CUFFT_R2C, s.batch = 7;
  EXPECT_EQ(fft_reason(s), Reason::None);
  FftShape c2r2 = s;  // multi-dimensional C2R: protected (docs/ABFT.md §12.1)
  c2r2.rank = 2, c2r2.n[1] = 16, c2r2.type = CUFFT_C2R;
  EXPECT_EQ(fft_reason(c2r2), Reason::None);
  c2r2.rank = 3, c2r2.n[2] = 9, c2r2.type = CUFFT_Z2D;
  EXPECT_EQ(fft_reason(c2r2), Reason::None);
  FftShape big = s;
  big.n[0] = int64_t(1) << 33;
  EXPECT_EQ(fft_reason(big), Reason::FftShape);
  FftShape half = s;
  half.type_known = false;
  EXPECT_EQ(fft_reason(half), Reason::FftShape);
  FftShape advanced = s;
  advanced.basic = false, advanced.inembed[0] = 1000, advanced.onembed[0] = 501, advanced.istride = 3,
  advanced.idist = 3001, advanced.ostride = 1, advanced.odist = 501;
  ASSERT_EQ(fft_reason(advanced), Reason::None);
  const FftIntArgs a = fft_int_args(advanced);
  EXPECT_FALSE(a.basic);
  EXPECT_EQ(a.n[0], 1000);
  EXPECT_EQ(a.onembed[0], 501);
  EXPECT_EQ(a.istride, 3);
  EXPECT_EQ(a.idist, 3001);
  EXPECT_EQ(a.batch, 7);
  FftShape rank4 = s;
  rank4.rank = 4;
  EXPECT_EQ(fft_reason(rank4), Reason::FftShape);
}

TEST(PreloadTranslate, EveryReasonHasAKeyAndAText) {
  for (int r = 0; r < int(Reason::Count); ++r) {
    EXPECT_STRNE(reason_key(Reason(r)), "?");
    EXPECT_STRNE(reason_text(Reason(r)), "?");
  }
}
