/** \file syr2k.cpp
 *  \brief ?SYR2K and ?HER2K on the protected GEMM (recursion in rank_k.hpp).
 */
#include <new>

#include "blas/level3/rank_k.hpp"

namespace abft::blas::l3 {

template <class T>
void syr2k(Routine r, bool herm, Uplo uplo, Op trans, blas_int n, blas_int k, T alpha,
           const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  ProtectedCall pc(r);
  if (herm) beta = T(real_t<T>(std::real(beta)));  // HER2K: beta is real
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  try {
    RankK<T>(pc, herm, uplo, trans, k, alpha, A, lda, B, ldb, beta, C, ldc).run(0, n);
  } catch (const std::bad_alloc&) {
    pc.absorb(abft_report{}, ABFT_STATUS_ALLOC_FAILED);
  }
}

#define ABFT_L3_SYR2K(T)                                                                      \
  template void syr2k<T>(Routine, bool, Uplo, Op, blas_int, blas_int, T, const T*, blas_int,  \
                         const T*, blas_int, T, T*, blas_int);
ABFT_L3_SYR2K(float)
ABFT_L3_SYR2K(double)
ABFT_L3_SYR2K(cfloat)
ABFT_L3_SYR2K(cdouble)
#undef ABFT_L3_SYR2K

}  // namespace abft::blas::l3
