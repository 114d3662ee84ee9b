/** \file stub_cublaslt.cpp
 *  \brief A stand-in for libcublasLt in the host-side tests of the preload library: descriptors
 *  and layouts keep their attributes one word each (word i = attribute i, defaults as cuBLASLt's:
 *  epilogue DEFAULT, fill mode FULL, column order, batch 1, strided batches), *GetAttribute and
 *  *SetAttribute require exactly the attribute's size as cuBLASLt does, and cublasLtMatmul
 *  records its call (stub_log.hpp).
 */
#include <cublasLt.h>

#include <cstring>

#include "stub_log.hpp"

#ifndef STUB_IDENTITY
#define STUB_IDENTITY "main"
#endif

STUB_DEFINE_LOG(stub_cublaslt)

namespace {
// The stub's own objects behind cuBLASLt's opaque pointers: one word per attribute (more words
// than cuBLASLt's opaque structs have: CUDA 13's attributes go past them).
struct Desc {
  uint64_t data[64];
};
struct Layout {
  uint64_t data[16];
};
Desc* of(cublasLtMatmulDesc_t d) { return reinterpret_cast<Desc*>(d); }
Layout* of(cublasLtMatrixLayout_t l) { return reinterpret_cast<Layout*>(l); }

/** The size in bytes of each attribute's value, as cuBLASLt stores it (cublasLt.h); 0: unknown. */
size_t desc_attr_size(int a) {
  switch (a) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: case CUBLASLT_MATMUL_DESC_TRANSA: case CUBLASLT_MATMUL_DESC_TRANSB:
    case CUBLASLT_MATMUL_DESC_TRANSC: case CUBLASLT_MATMUL_DESC_FILL_MODE: case CUBLASLT_MATMUL_DESC_EPILOGUE:
    case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE:
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: case CUBLASLT_MATMUL_DESC_A_SCALE_MODE:
    case CUBLASLT_MATMUL_DESC_B_SCALE_MODE: case CUBLASLT_MATMUL_DESC_C_SCALE_MODE:
    case CUBLASLT_MATMUL_DESC_D_SCALE_MODE: case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE:
    case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE:
      return 4;  // int32_t / uint32_t
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE:
    case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER: case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER: case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER:
      return 8;  // pointers, int64_t
    case CUBLASLT_MATMUL_DESC_FAST_ACCUM: return 1;  // int8_t
    default: return 0;
  }
}
size_t layout_attr_size(int a) {
  switch (a) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: case CUBLASLT_MATRIX_LAYOUT_ORDER: case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE:
      return 4;
    case CUBLASLT_MATRIX_LAYOUT_ROWS: case CUBLASLT_MATRIX_LAYOUT_COLS: case CUBLASLT_MATRIX_LAYOUT_LD:
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET:
      return 8;
    default: return 0;
  }
}

// As cuBLASLt: the size must be exactly the attribute's; a query with size 0 and a non-null
// sizeWritten returns the size only.
template <class Obj>
cublasStatus_t set_word(Obj* o, size_t need, int attr, const void* buf, size_t size) {
  if (!o || !buf || need == 0 || size != need) return CUBLAS_STATUS_INVALID_VALUE;
  o->data[attr] = 0;
  std::memcpy(&o->data[attr], buf, size);
  return CUBLAS_STATUS_SUCCESS;
}
template <class Obj>
cublasStatus_t get_word(const Obj* o, size_t need, int attr, void* buf, size_t size, size_t* written) {
  if (!o || need == 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (size == 0 && written) {
    *written = need;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!buf || size != need) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, &o->data[attr], size);
  if (written) *written = size;
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace

extern "C" cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t computeType,
                                                   cudaDataType_t scaleType) {
  auto* d = new Desc{};
  d->data[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = uint64_t(computeType);
  d->data[CUBLASLT_MATMUL_DESC_SCALE_TYPE] = uint64_t(scaleType);
  d->data[CUBLASLT_MATMUL_DESC_EPILOGUE] = CUBLASLT_EPILOGUE_DEFAULT;
  d->data[CUBLASLT_MATMUL_DESC_FILL_MODE] = CUBLAS_FILL_MODE_FULL;
  d->data[CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = uint32_t(-1);  // (-1: D's type)
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete of(desc);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                         const void* buf, size_t size) {
  return set_word(of(desc), desc_attr_size(int(attr)), int(attr), buf, size);
}
extern "C" cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                         void* buf, size_t size, size_t* written) {
  return get_word(of(desc), desc_attr_size(int(attr)), int(attr), buf, size, written);
}
// An algorithm's configuration: word i of its data is attribute i (4 bytes read: SPLITK_NUM,
// REDUCTION_SCHEME, ...), as the tests fill it.
extern "C" cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                              cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                                                              size_t size, size_t* written) {
  if (!algo || int(attr) < 0 || int(attr) >= 8 || size != 4 || !buf) return CUBLAS_STATUS_INVALID_VALUE;
  const uint32_t w = uint32_t(algo->data[int(attr)]);
  std::memcpy(buf, &w, 4);
  if (written) *written = 4;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type, uint64_t rows,
                                                     uint64_t cols, int64_t ld) {
  auto* l = new Layout{};
  l->data[CUBLASLT_MATRIX_LAYOUT_TYPE] = uint64_t(type);
  l->data[CUBLASLT_MATRIX_LAYOUT_ROWS] = rows;
  l->data[CUBLASLT_MATRIX_LAYOUT_COLS] = cols;
  l->data[CUBLASLT_MATRIX_LAYOUT_LD] = uint64_t(ld);
  l->data[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 1;
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete of(layout);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                           cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                           size_t size) {
  return set_word(of(layout), layout_attr_size(int(attr)), int(attr), buf, size);
}
extern "C" cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                           cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                           size_t size, size_t* written) {
  return get_word(of(layout), layout_attr_size(int(attr)), int(attr), buf, size, written);
}
extern "C" cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                         const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                                         cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                                         cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                                         const cublasLtMatmulAlgo_t* algo, void* workspace,
                                         size_t workspaceSizeInBytes, cudaStream_t stream) {
  stub_cublaslt_log().add(stub::describe("cublasLtMatmul", lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta,
                                         C, Cdesc, D, Ddesc, algo, workspace, workspaceSizeInBytes, stream));
  return CUBLAS_STATUS_SUCCESS;
}
