/** \file gemm_core.hpp
 *  \brief The protected GEMM as the Level-3 routines of the shim use it.
 *
 *  Every Level-3 routine (GEMM, SYMM/HEMM, SYRK/HERK, SYR2K/HER2K, TRMM, TRSM) reaches the
 *  engine through gemm_core, so all of them share the engine's checksums, bounds,
 *  correction, policy, injection and statistics. Column-major, arguments already valid.
 */
#pragma once
#include "blas/common/blas_types.hpp"
#include "blas/common/shim.hpp"

namespace abft::blas {

/** C <- alpha*op(A)*op(B) + beta*C, column-major, protected; folds the engine's report into
 *  `pc`. ta/tb in {N, T, C} (C == T for real types). beta == 0 never reads C; alpha == 0
 *  or k == 0 never reads A or B. T in {float, double, cfloat, cdouble}. */
template <class T>
void gemm_core(ProtectedCall& pc, Op ta, Op tb, blas_int m, blas_int n, blas_int k, T alpha,
               const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

}  // namespace abft::blas
