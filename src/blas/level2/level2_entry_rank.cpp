/** \file level2_entry_rank.cpp
 *  \brief Checked entries of ?GER/?GERU/?GERC, ?SYR/?HER, ?SPR/?HPR, ?SYR2/?HER2,
 *  ?SPR2/?HPR2.
 *
 *  The checks and their order are the reference BLAS's; the returned INFO is the position
 *  of the offending argument in the Fortran argument list.
 */
#include "blas/level2/level2_entry.hpp"
#include "blas/level2/rank_core.hpp"

namespace abft::blas {

template <class T>
blas_int xger(blas_int m, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
              blas_int incy, T* A, blas_int lda, l2::GerConj which) {
  if (m < 0) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 5;
  if (incy == 0) return 7;
  if (lda < max1(m)) return 9;
  l2::ger(m, n, alpha, x, incx, y, incy, A, lda, which);
  return 0;
}

template <class T>
blas_int xher(Arg<Uplo> uplo, blas_int n, real_t<T> alpha, const T* x, blas_int incx, T* A,
              blas_int lda, bool conj) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 5;
  if (lda < max1(n)) return 7;
  l2::her(l2::FullTri{*uplo == Uplo::U, n, lda}, n, alpha, x, incx, A, conj);
  return 0;
}

template <class T>
blas_int xhpr(Arg<Uplo> uplo, blas_int n, real_t<T> alpha, const T* x, blas_int incx, T* AP,
              bool conj) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 5;
  l2::her(l2::PackedTri{*uplo == Uplo::U, n}, n, alpha, x, incx, AP, conj);
  return 0;
}

template <class T>
blas_int xher2(Arg<Uplo> uplo, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
               blas_int incy, T* A, blas_int lda, bool conj) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 5;
  if (incy == 0) return 7;
  if (lda < max1(n)) return 9;
  l2::her2(l2::FullTri{*uplo == Uplo::U, n, lda}, n, alpha, x, incx, y, incy, A, conj);
  return 0;
}

template <class T>
blas_int xhpr2(Arg<Uplo> uplo, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
               blas_int incy, T* AP, bool conj) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 5;
  if (incy == 0) return 7;
  l2::her2(l2::PackedTri{*uplo == Uplo::U, n}, n, alpha, x, incx, y, incy, AP, conj);
  return 0;
}

#define ABFT_L2_RANK(T)                                                                     \
  template blas_int xger<T>(blas_int, blas_int, T, const T*, blas_int, const T*, blas_int,  \
                            T*, blas_int, l2::GerConj);                                     \
  template blas_int xher<T>(Arg<Uplo>, blas_int, real_t<T>, const T*, blas_int, T*,         \
                            blas_int, bool);                                                \
  template blas_int xhpr<T>(Arg<Uplo>, blas_int, real_t<T>, const T*, blas_int, T*, bool);  \
  template blas_int xher2<T>(Arg<Uplo>, blas_int, T, const T*, blas_int, const T*,          \
                             blas_int, T*, blas_int, bool);                                 \
  template blas_int xhpr2<T>(Arg<Uplo>, blas_int, T, const T*, blas_int, const T*,          \
                             blas_int, T*, bool);
ABFT_L2_RANK(float)
ABFT_L2_RANK(double)
ABFT_L2_RANK(cfloat)
ABFT_L2_RANK(cdouble)
#undef ABFT_L2_RANK

}  // namespace abft::blas
