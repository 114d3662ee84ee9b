/** \file stub_cublaslt.cpp
 *  \brief A stand-in for libcublasLt in the host-side tests of the preload library: descriptors
 *  keep their attributes in their opaque words (word i = attribute i, defaults as cuBLASLt's:
 *  epilogue DEFAULT, column order, batch 1), and cublasLtMatmul records its call (stub_log.hpp).
 */
#include <cublasLt.h>

#include <cstring>

#include "stub_log.hpp"

#ifndef STUB_IDENTITY
#define STUB_IDENTITY "main"
#endif

STUB_DEFINE_LOG(stub_cublaslt)

namespace {
template <class Opaque>
cublasStatus_t set_word(Opaque* o, int attr, const void* buf, size_t size) {
  constexpr int words = int(sizeof(o->data) / sizeof(o->data[0]));
  if (!o || !buf || attr < 0 || attr >= words || size > 8) return CUBLAS_STATUS_INVALID_VALUE;
  o->data[attr] = 0;
  std::memcpy(&o->data[attr], buf, size);
  return CUBLAS_STATUS_SUCCESS;
}
template <class Opaque>
cublasStatus_t get_word(const Opaque* o, int attr, void* buf, size_t size, size_t* written) {
  constexpr int words = int(sizeof(o->data) / sizeof(o->data[0]));
  if (!o || !buf || attr < 0 || attr >= words || size > 8) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, &o->data[attr], size);
  if (written) *written = size;
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace

extern "C" cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t computeType,
                                                   cudaDataType_t scaleType) {
  auto* d = new cublasLtMatmulDescOpaque_t{};
  d->data[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = uint64_t(computeType);
  d->data[CUBLASLT_MATMUL_DESC_SCALE_TYPE] = uint64_t(scaleType);
  d->data[CUBLASLT_MATMUL_DESC_EPILOGUE] = CUBLASLT_EPILOGUE_DEFAULT;
  *desc = d;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                         const void* buf, size_t size) {
  return set_word(desc, int(attr), buf, size);
}
extern "C" cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                         void* buf, size_t size, size_t* written) {
  return get_word(desc, int(attr), buf, size, written);
}
extern "C" cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type, uint64_t rows,
                                                     uint64_t cols, int64_t ld) {
  auto* l = new cublasLtMatrixLayoutOpaque_t{};
  l->data[CUBLASLT_MATRIX_LAYOUT_TYPE] = uint64_t(type);
  l->data[CUBLASLT_MATRIX_LAYOUT_ROWS] = rows;
  l->data[CUBLASLT_MATRIX_LAYOUT_COLS] = cols;
  l->data[CUBLASLT_MATRIX_LAYOUT_LD] = uint64_t(ld);
  l->data[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 1;
  *layout = l;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                           cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                           size_t size) {
  return set_word(layout, int(attr), buf, size);
}
extern "C" cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                           cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                           size_t size, size_t* written) {
  return get_word(layout, int(attr), buf, size, written);
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
