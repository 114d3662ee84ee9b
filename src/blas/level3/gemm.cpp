/** \file gemm.cpp
 *  \brief ?GEMM core: the reference quick return, then one protected gemm_core call.
 */
#include "blas/level3/gemm_core.hpp"
#include "blas/level3/level3.hpp"

namespace abft::blas::l3 {

template <class T>
void gemm(Routine r, Op ta, Op tb, blas_int m, blas_int n, blas_int k, T alpha, const T* A,
          blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  ProtectedCall pc(r);
  // Reference quick return: nothing to compute, C is not touched (not even scaled by 1).
  if (m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  // The engine implements the rest of the reference semantics: alpha == 0 or k == 0 scales
  // C by beta without reading A or B; beta == 0 never reads C.
  gemm_core<T>(pc, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

#define ABFT_L3_GEMM(T)                                                                      \
  template void gemm<T>(Routine, Op, Op, blas_int, blas_int, blas_int, T, const T*, blas_int, \
                        const T*, blas_int, T, T*, blas_int);
ABFT_L3_GEMM(float)
ABFT_L3_GEMM(double)
ABFT_L3_GEMM(cfloat)
ABFT_L3_GEMM(cdouble)
#undef ABFT_L3_GEMM

}  // namespace abft::blas::l3
