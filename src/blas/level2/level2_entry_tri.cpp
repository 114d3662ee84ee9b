/** \file level2_entry_tri.cpp
 *  \brief Checked entries of ?TRMV, ?TBMV, ?TPMV, ?TRSV, ?TBSV, ?TPSV.
 *
 *  The checks and their order are the reference BLAS's; the returned INFO is the position
 *  of the offending argument in the Fortran argument list.
 */
#include "blas/level2/level2_entry.hpp"
#include "blas/level2/triangular_core.hpp"

namespace abft::blas {

namespace {

/** The checks the three storages share: UPLO, TRANS, DIAG, N (positions 1-4). */
inline blas_int check_tri(const Arg<Uplo>& uplo, const Arg<Op>& trans, const Arg<Diag>& diag,
                          blas_int n) {
  if (!uplo) return 1;
  if (!trans) return 2;
  if (!diag) return 3;
  if (n < 0) return 4;
  return 0;
}

}  // namespace

template <class T>
blas_int xtrmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* A,
               blas_int lda, T* x, blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (lda < max1(n)) return 6;
  if (incx == 0) return 8;
  l2::trmv(l2::FullTri{*uplo == Uplo::U, n, lda}, *trans, *diag, n, A, x, incx);
  return 0;
}

template <class T>
blas_int xtbmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, blas_int k,
               const T* A, blas_int lda, T* x, blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (k < 0) return 5;
  if (lda < k + 1) return 7;
  if (incx == 0) return 9;
  l2::trmv(l2::BandTri{*uplo == Uplo::U, n, k, lda}, *trans, *diag, n, A, x, incx);
  return 0;
}

template <class T>
blas_int xtpmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* AP, T* x,
               blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (incx == 0) return 7;
  l2::trmv(l2::PackedTri{*uplo == Uplo::U, n}, *trans, *diag, n, AP, x, incx);
  return 0;
}

template <class T>
blas_int xtrsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* A,
               blas_int lda, T* x, blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (lda < max1(n)) return 6;
  if (incx == 0) return 8;
  l2::trsv(l2::FullTri{*uplo == Uplo::U, n, lda}, *trans, *diag, n, A, x, incx);
  return 0;
}

template <class T>
blas_int xtbsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, blas_int k,
               const T* A, blas_int lda, T* x, blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (k < 0) return 5;
  if (lda < k + 1) return 7;
  if (incx == 0) return 9;
  l2::trsv(l2::BandTri{*uplo == Uplo::U, n, k, lda}, *trans, *diag, n, A, x, incx);
  return 0;
}

template <class T>
blas_int xtpsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* AP, T* x,
               blas_int incx) {
  if (const blas_int info = check_tri(uplo, trans, diag, n)) return info;
  if (incx == 0) return 7;
  l2::trsv(l2::PackedTri{*uplo == Uplo::U, n}, *trans, *diag, n, AP, x, incx);
  return 0;
}

#define ABFT_L2_TRI(T)                                                                      \
  template blas_int xtrmv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, const T*, blas_int,   \
                             T*, blas_int);                                                 \
  template blas_int xtbmv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, blas_int, const T*,   \
                             blas_int, T*, blas_int);                                       \
  template blas_int xtpmv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, const T*, T*,         \
                             blas_int);                                                     \
  template blas_int xtrsv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, const T*, blas_int,   \
                             T*, blas_int);                                                 \
  template blas_int xtbsv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, blas_int, const T*,   \
                             blas_int, T*, blas_int);                                       \
  template blas_int xtpsv<T>(Arg<Uplo>, Arg<Op>, Arg<Diag>, blas_int, const T*, T*,         \
                             blas_int);
ABFT_L2_TRI(float)
ABFT_L2_TRI(double)
ABFT_L2_TRI(cfloat)
ABFT_L2_TRI(cdouble)
#undef ABFT_L2_TRI

}  // namespace abft::blas
