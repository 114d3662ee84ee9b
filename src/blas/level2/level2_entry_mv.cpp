/** \file level2_entry_mv.cpp
 *  \brief Checked entries of ?GEMV, ?GBMV, ?SYMV/?HEMV, ?SBMV/?HBMV, ?SPMV/?HPMV.
 *
 *  The checks and their order are the reference BLAS's; the returned INFO is the position
 *  of the offending argument in the Fortran argument list.
 */
#include "blas/level2/gemv_core.hpp"
#include "blas/level2/hemv_core.hpp"
#include "blas/level2/level2_entry.hpp"

namespace abft::blas {

template <class T>
blas_int xgemv(Arg<Op> trans, blas_int m, blas_int n, T alpha, const T* A, blas_int lda,
               const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  if (!trans) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < max1(m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  l2::gemv(*trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
  return 0;
}

template <class T>
blas_int xgbmv(Arg<Op> trans, blas_int m, blas_int n, blas_int kl, blas_int ku, T alpha,
               const T* A, blas_int lda, const T* x, blas_int incx, T beta, T* y,
               blas_int incy) {
  if (!trans) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (kl < 0) return 4;
  if (ku < 0) return 5;
  if (lda < kl + ku + 1) return 8;
  if (incx == 0) return 10;
  if (incy == 0) return 13;
  l2::gbmv(*trans, m, n, kl, ku, alpha, A, lda, x, incx, beta, y, incy);
  return 0;
}

template <class T>
blas_int xhemv(Arg<Uplo> uplo, blas_int n, T alpha, const T* A, blas_int lda, const T* x,
               blas_int incx, T beta, T* y, blas_int incy, bool conj_a) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (lda < max1(n)) return 5;
  if (incx == 0) return 7;
  if (incy == 0) return 10;
  l2::hemv(l2::FullTri{*uplo == Uplo::U, n, lda}, n, alpha, A, x, incx, beta, y, incy, conj_a);
  return 0;
}

template <class T>
blas_int xhbmv(Arg<Uplo> uplo, blas_int n, blas_int k, T alpha, const T* A, blas_int lda,
               const T* x, blas_int incx, T beta, T* y, blas_int incy, bool conj_a) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (k < 0) return 3;
  if (lda < k + 1) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  l2::hemv(l2::BandTri{*uplo == Uplo::U, n, k, lda}, n, alpha, A, x, incx, beta, y, incy,
           conj_a);
  return 0;
}

template <class T>
blas_int xhpmv(Arg<Uplo> uplo, blas_int n, T alpha, const T* AP, const T* x, blas_int incx,
               T beta, T* y, blas_int incy, bool conj_a) {
  if (!uplo) return 1;
  if (n < 0) return 2;
  if (incx == 0) return 6;
  if (incy == 0) return 9;
  l2::hemv(l2::PackedTri{*uplo == Uplo::U, n}, n, alpha, AP, x, incx, beta, y, incy, conj_a);
  return 0;
}

#define ABFT_L2_MV(T)                                                                       \
  template blas_int xgemv<T>(Arg<Op>, blas_int, blas_int, T, const T*, blas_int, const T*,  \
                             blas_int, T, T*, blas_int);                                    \
  template blas_int xgbmv<T>(Arg<Op>, blas_int, blas_int, blas_int, blas_int, T, const T*,  \
                             blas_int, const T*, blas_int, T, T*, blas_int);                \
  template blas_int xhemv<T>(Arg<Uplo>, blas_int, T, const T*, blas_int, const T*,          \
                             blas_int, T, T*, blas_int, bool);                              \
  template blas_int xhbmv<T>(Arg<Uplo>, blas_int, blas_int, T, const T*, blas_int,          \
                             const T*, blas_int, T, T*, blas_int, bool);                    \
  template blas_int xhpmv<T>(Arg<Uplo>, blas_int, T, const T*, const T*, blas_int, T, T*,   \
                             blas_int, bool);
ABFT_L2_MV(float)
ABFT_L2_MV(double)
ABFT_L2_MV(cfloat)
ABFT_L2_MV(cdouble)
#undef ABFT_L2_MV

}  // namespace abft::blas
