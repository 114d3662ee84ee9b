/** \file gemm_check.cuh
 *  \brief Device kernels of the GPU GEMM's checksums (issue 9, first part): encoding of op(A)
 *  and of C0, the column references and magnitudes, the observed sums and the verdicts, with
 *  device-side counters (no host synchronization on the fault-free path). Each kernel is a
 *  parallel loop around the shared ABFT_HD functions of abft/checksum/gemm_library_check.hpp,
 *  which tests/checksum/library_check_test.cpp runs on the host on emulated library products.
 *
 *  Matrices are column-major with leading dimensions (the cuBLAS convention); op(A) is m x k,
 *  op(B) k x n, C m x n. Element types: float, double, __half, __nv_bfloat16 (read as double).
 *  Included by the translation unit that launches them (gemm_protected.cu): a __global__
 *  template must be instantiated where it is launched. Status: compiled for sm_90 + PTX in
 *  every CUDA build; not yet run on a GPU (no device was lent to this work).
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "abft/checksum/gemm_library_check.hpp"

namespace abft::cuda {

namespace ck = abft::checksum;

__device__ __forceinline__ double to_double(float x) { return double(x); }
__device__ __forceinline__ double to_double(double x) { return x; }
__device__ __forceinline__ double to_double(__half x) { return double(__half2float(x)); }
__device__ __forceinline__ double to_double(__nv_bfloat16 x) { return double(__bfloat162float(x)); }

/** Element (r, c) of op(M) for a column-major M with leading dimension ld. */
template <class T>
struct OpView {
  const T* p;
  int64_t ld;
  bool trans;
  __device__ double operator()(int64_t r, int64_t c) const {
    return to_double(trans ? p[c + r * ld] : p[r + c * ld]);
  }
};

/** Line accessors for the shared functions: a column (fixed c) or a row (fixed r) of a view. */
template <class T>
struct ColumnOf {
  OpView<T> v;
  int64_t c;
  __device__ double operator()(int64_t r) const { return v(r, c); }
};
template <class T>
struct RowOf {
  OpView<T> v;
  int64_t r;
  __device__ double operator()(int64_t c) const { return v(r, c); }
};

/** v_p = sum_i op(A)_ip, w_p = sum_i |op(A)_ip| for every p < k. */
template <class T>
__global__ void encode_a_kernel(OpView<T> A, int64_t m, int64_t k, double* v, double* w) {
  for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < k; p += int64_t(gridDim.x) * blockDim.x)
    ck::library_line_sum(m, ColumnOf<T>{A, p}, v + p, w + p);
}

/** Column sums of C0 and |C0| (before the product overwrites C). */
template <class T>
__global__ void column_sums_kernel(OpView<T> C, int64_t m, int64_t n, double* sum, double* abs_sum) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x)
    ck::library_line_sum(m, ColumnOf<T>{C, j}, sum + j, abs_sum + j);
}

/** ref_j and X_j of every column from the encoded vectors. */
template <class T>
__global__ void column_reference_kernel(OpView<T> B, int64_t k, int64_t n, const double* v, const double* w,
                                        double alpha, double beta, const double* c0_sum, const double* c0_abs,
                                        double* ref, double* X) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x)
    ck::library_line_reference(k, v, w, ColumnOf<T>{B, j}, alpha, beta, beta != 0.0 ? c0_sum[j] : 0.0,
                               beta != 0.0 ? c0_abs[j] : 0.0, ref + j, X + j);
}

/** Device-side counters of one handle: read by the host only when statistics are asked for. */
struct DeviceCounters {
  unsigned long long checks, failed, skipped;
};

/** The observed sum of every column of the stored C, its verdict into `verdict[j]`, and the
 *  counters. */
template <class T>
__global__ void column_verify_kernel(OpView<T> C, int64_t m, int64_t n, const double* ref, const double* X,
                                     double coef, double abs, ck::NumFormat output, int* verdict,
                                     DeviceCounters* counters) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n; j += int64_t(gridDim.x) * blockDim.x) {
    double obs = 0.0;
    ck::library_line_sum(m, ColumnOf<T>{C, j}, &obs, nullptr);
    const ck::LineVerdict vd = ck::library_line_verdict(obs, ref[j], X[j], coef, abs, output);
    verdict[j] = int(vd);
    atomicAdd(&counters->checks, 1ull);
    if (vd == ck::LineVerdict::Failed) atomicAdd(&counters->failed, 1ull);
    if (vd == ck::LineVerdict::Skipped) atomicAdd(&counters->skipped, 1ull);
  }
}

}  // namespace abft::cuda
