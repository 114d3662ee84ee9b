/** \file gemm_check.cuh
 *  \brief Device kernels of the GPU GEMM's checksums (issue 9, first part): encoding of op(A)
 *  and of C0, the column references and magnitudes, the observed sums and the verdicts, with
 *  device-side counters (no host synchronization on the fault-free path). Each kernel is a
 *  parallel loop around the shared ABFT_HD functions of abft/checksum/gemm_library_check.hpp,
 *  which tests/checksum/library_check_test.cpp runs on the host on emulated library products.
 *
 *  Each kernel gives a block to a line (a column of op(A), C0, op(B) or C; contiguous in memory
 *  when not transposed, so the reads coalesce) and reduces in double; the bound, the reference
 *  combination and the verdict are the shared functions.
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
#include "device_state.hpp"

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

/** Sum over the block of two doubles per thread (blockDim.x a multiple of 32, at most 1024);
 *  the totals are valid in thread 0. The order of the double sums is the reduction tree's: the
 *  bound's gamma_len(u_d) holds for any order (docs/ABFT.md §11). */
__device__ __forceinline__ void block_sum2(double& a, double& b) {
  __shared__ double sa[32], sb[32];
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(0xffffffffu, a, o);
    b += __shfl_down_sync(0xffffffffu, b, o);
  }
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) sa[wid] = a, sb[wid] = b;
  __syncthreads();
  if (wid == 0) {
    a = lane < nw ? sa[lane] : 0.0;
    b = lane < nw ? sb[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) {
      a += __shfl_down_sync(0xffffffffu, a, o);
      b += __shfl_down_sync(0xffffffffu, b, o);
    }
  }
  __syncthreads();  // the shared arrays are reused by the next line
}

/** One block per line (a column of a column-major view is contiguous: coalesced reads):
 *  sum_i x(i) and sum_i |x(i)| of line `line` into sum[line], abs_sum[line]. */
template <class T>
__device__ void block_line_sums(const OpView<T>& M, int64_t len, int64_t line, bool column, double* sum,
                                double* abs_sum) {
  double s = 0.0, sa = 0.0;
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
    const double x = column ? M(i, line) : M(line, i);
    s += x;
    sa += fabs(x);
  }
  block_sum2(s, sa);
  if (threadIdx.x == 0) {
    sum[line] = s;
    if (abs_sum) abs_sum[line] = sa;
  }
}

/** v_p = sum_i op(A)_ip, w_p = sum_i |op(A)_ip| for every p < k (a block per p). */
template <class T>
__global__ void encode_a_kernel(OpView<T> A, int64_t m, int64_t k, double* v, double* w) {
  for (int64_t p = blockIdx.x; p < k; p += gridDim.x) block_line_sums(A, m, p, true, v, w);
}

/** Column sums of C0 and |C0| (before the product overwrites C), a block per column. */
template <class T>
__global__ void column_sums_kernel(OpView<T> C, int64_t m, int64_t n, double* sum, double* abs_sum) {
  for (int64_t j = blockIdx.x; j < n; j += gridDim.x) block_line_sums(C, m, j, true, sum, abs_sum);
}

/** ref_j and X_j of every column from the encoded vectors (a block per column): the sums
 *  sum_p v_p op(B)_pj and sum_p w_p |op(B)_pj| in parallel, then the shared combination
 *  (library_line_reference over the two partial results). */
template <class T>
__global__ void column_reference_kernel(OpView<T> B, int64_t k, int64_t n, const double* v, const double* w,
                                        double alpha, double beta, const double* c0_sum, const double* c0_abs,
                                        double* ref, double* X) {
  for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
    double r = 0.0, x = 0.0;
    for (int64_t p = threadIdx.x; p < k; p += blockDim.x) {
      const double b = B(p, j);
      r += v[p] * b;
      x += w[p] * fabs(b);
    }
    block_sum2(r, x);
    if (threadIdx.x == 0) {
      // The reduced dot products as a one-term line: ref = alpha r + beta c0s, X = |alpha| x + |beta| c0a.
      const double one = 1.0;
      const double rx[1] = {r};
      const double xx[1] = {x};
      ck::library_line_reference(1, rx, xx, [one](int64_t) { return one; }, alpha, beta,
                                 beta != 0.0 ? c0_sum[j] : 0.0, beta != 0.0 ? c0_abs[j] : 0.0, ref + j, X + j);
    }
  }
}

/** The observed sum of every column of the stored C (a block per column), its verdict into
 *  `verdict[j]` (the shared library_line_verdict), and the counters. */
template <class T>
__global__ void column_verify_kernel(OpView<T> C, int64_t m, int64_t n, const double* ref, const double* X,
                                     double coef, double abs, ck::NumFormat output, int* verdict,
                                     DeviceCounters* counters, double* obs_scratch) {
  for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
    block_line_sums(C, m, j, true, obs_scratch, nullptr);
    if (threadIdx.x == 0) {
      const ck::LineVerdict vd = ck::library_line_verdict(obs_scratch[j], ref[j], X[j], coef, abs, output);
      verdict[j] = int(vd);
      atomicAdd(&counters->checks, 1ull);
      if (vd == ck::LineVerdict::Failed) atomicAdd(&counters->failed, 1ull);
      if (vd == ck::LineVerdict::Skipped) atomicAdd(&counters->skipped, 1ull);
    }
  }
}

}  // namespace abft::cuda
