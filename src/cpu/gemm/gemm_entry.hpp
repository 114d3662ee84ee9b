/** \file gemm_entry.hpp
 *  \brief The protected real GEMM as other engines inside the library call it: the same
 *  argument check, layout mapping, policy, injection and statistics as abft_sgemm/abft_dgemm,
 *  but recorded under a caller-chosen kernel id (the complex GEMM and the BLAS shim run
 *  their real sub-problems through it).
 */
#pragma once
#include <cstdint>

#include "abft/abft.h"
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {

/** The GEMM argument rules shared by every entry (enums, sizes, leading dimensions, then
 *  pointers). alpha only decides whether A and B are read (alpha != 0). Instantiated for
 *  float; callers with other element types pass alpha != 0 as 1.f and cast the pointers. */
template <class T>
abft_status check_args(abft_policy policy, abft_layout layout, abft_op ta, abft_op tb, int64_t m,
                       int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
                       int64_t ldb, T beta, const T* C, int64_t ldc);

/** C <- alpha*op(A)*op(B) + beta*C on the real engine; statistics go to kernel `kid`
 *  (one call), unless `record` is false: then the caller records its own call once (a
 *  complex GEMM made of several real runs). With `xb`, the internal B operand is that
 *  complex expansion instead of B (row-major, NoTrans/NoTrans calls only; B must still be
 *  a non-null pointer and ldb >= n). Instantiated for float and double. */
template <class T>
abft_status gemm_entry(abft_kernel kid, abft_handle_t h, abft_policy policy, abft_layout layout,
                       abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, T alpha,
                       const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
                       int64_t ldc, abft_report* report, bool record = true,
                       const ComplexB<T>* xb = nullptr);

}  // namespace abft::cpu::gemm

#include <complex>

namespace abft::cpu::gemm {

/** Complex GEMM on the real engine (gemm_complex.cpp): one real GEMM of twice the depth and
 *  twice the width, whose checksums protect the complex product. R = float or double;
 *  statistics go to `kid`. Same argument contract as gemm_entry. */
template <class R>
abft_status complex_gemm_entry(abft_kernel kid, abft_handle_t h, abft_policy policy,
                               abft_layout layout, abft_op ta, abft_op tb, int64_t m, int64_t n,
                               int64_t k, std::complex<R> alpha, const std::complex<R>* A,
                               int64_t lda, const std::complex<R>* B, int64_t ldb,
                               std::complex<R> beta, std::complex<R>* C, int64_t ldc,
                               abft_report* report);

}  // namespace abft::cpu::gemm
