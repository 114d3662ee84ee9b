/** \file syrk.cpp
 *  \brief ?SYRK and ?HERK on the protected GEMM (recursion in rank_k.hpp).
 */
#include <new>

#include "blas/level3/rank_k.hpp"

namespace abft::blas::l3 {

template <class T>
void syrk(Routine r, bool herm, Uplo uplo, Op trans, blas_int n, blas_int k, T alpha,
          const T* A, blas_int lda, T beta, T* C, blas_int ldc) {
  ProtectedCall pc(r);
  if (herm) {  // HERK: alpha and beta are real
    alpha = T(real_t<T>(std::real(alpha)));
    beta = T(real_t<T>(std::real(beta)));
  }
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  try {
    RankK<T>(pc, herm, uplo, trans, k, alpha, A, lda, nullptr, 0, beta, C, ldc).run(0, n);
  } catch (const std::bad_alloc&) {
    pc.absorb(abft_report{}, ABFT_STATUS_ALLOC_FAILED);
  }
}

#define ABFT_L3_SYRK(T)                                                                     \
  template void syrk<T>(Routine, bool, Uplo, Op, blas_int, blas_int, T, const T*, blas_int, T, \
                        T*, blas_int);
ABFT_L3_SYRK(float)
ABFT_L3_SYRK(double)
ABFT_L3_SYRK(cfloat)
ABFT_L3_SYRK(cdouble)
#undef ABFT_L3_SYRK

}  // namespace abft::blas::l3
