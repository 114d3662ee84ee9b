/** \file level2_f77.cpp
 *  \brief The Fortran-77 Level-2 BLAS symbols (sgemv_ ... zhpr2_).
 *
 *  gfortran convention: lower case with a trailing underscore, every argument by
 *  reference, INTEGER is 32-bit, each CHARACTER argument adds a hidden length after the
 *  others (unused: only the first character counts). Each symbol calls its checked entry
 *  (level2_entry.hpp); on an invalid argument it reports through xerbla_ with the
 *  reference INFO and returns, having written nothing.
 */
#include "blas/common/blas_error.hpp"
#include "blas/level2/level2_entry.hpp"

using abft::blas::blas_int;
using abft::blas::cdouble;
using abft::blas::cfloat;
using abft::blas::flen;
namespace ab = abft::blas;

namespace {
inline void done(const char* name, blas_int info) {
  if (info) ab::report_f77(name, info);
}
}  // namespace

// Each macro defines one routine for one type: P is the symbol's prefix letter, NAME the
// upper-case routine name for xerbla_, T the element type, R its real type.

#define ABFT_F77_GEMV(P, NAME, T)                                                           \
  void P##gemv_(const char* trans, const blas_int* m, const blas_int* n, const T* alpha,    \
                const T* A, const blas_int* lda, const T* x, const blas_int* incx,          \
                const T* beta, T* y, const blas_int* incy, flen) {                          \
    done(NAME, ab::xgemv<T>(ab::op_arg(*trans), *m, *n, *alpha, A, *lda, x, *incx, *beta, y, \
                            *incy));                                                        \
  }
#define ABFT_F77_GBMV(P, NAME, T)                                                           \
  void P##gbmv_(const char* trans, const blas_int* m, const blas_int* n, const blas_int* kl, \
                const blas_int* ku, const T* alpha, const T* A, const blas_int* lda,        \
                const T* x, const blas_int* incx, const T* beta, T* y, const blas_int* incy, \
                flen) {                                                                     \
    done(NAME, ab::xgbmv<T>(ab::op_arg(*trans), *m, *n, *kl, *ku, *alpha, A, *lda, x, *incx, \
                            *beta, y, *incy));                                              \
  }
#define ABFT_F77_HEMV(FN, NAME, T)                                                          \
  void FN(const char* uplo, const blas_int* n, const T* alpha, const T* A,                  \
          const blas_int* lda, const T* x, const blas_int* incx, const T* beta, T* y,       \
          const blas_int* incy, flen) {                                                     \
    done(NAME, ab::xhemv<T>(ab::uplo_arg(*uplo), *n, *alpha, A, *lda, x, *incx, *beta, y,   \
                            *incy));                                                        \
  }
#define ABFT_F77_HBMV(FN, NAME, T)                                                          \
  void FN(const char* uplo, const blas_int* n, const blas_int* k, const T* alpha,           \
          const T* A, const blas_int* lda, const T* x, const blas_int* incx, const T* beta, \
          T* y, const blas_int* incy, flen) {                                               \
    done(NAME, ab::xhbmv<T>(ab::uplo_arg(*uplo), *n, *k, *alpha, A, *lda, x, *incx, *beta,  \
                            y, *incy));                                                     \
  }
#define ABFT_F77_HPMV(FN, NAME, T)                                                          \
  void FN(const char* uplo, const blas_int* n, const T* alpha, const T* AP, const T* x,     \
          const blas_int* incx, const T* beta, T* y, const blas_int* incy, flen) {          \
    done(NAME,                                                                              \
         ab::xhpmv<T>(ab::uplo_arg(*uplo), *n, *alpha, AP, x, *incx, *beta, y, *incy));     \
  }
// Triangular: OP is trmv / trsv, tbmv / tbsv, tpmv / tpsv.
#define ABFT_F77_TR(P, OP, NAME, T)                                                         \
  void P##OP##_(const char* uplo, const char* trans, const char* diag, const blas_int* n,   \
                const T* A, const blas_int* lda, T* x, const blas_int* incx, flen, flen,    \
                flen) {                                                                     \
    done(NAME, ab::x##OP<T>(ab::uplo_arg(*uplo), ab::op_arg(*trans), ab::diag_arg(*diag),   \
                            *n, A, *lda, x, *incx));                                        \
  }
#define ABFT_F77_TB(P, OP, NAME, T)                                                         \
  void P##OP##_(const char* uplo, const char* trans, const char* diag, const blas_int* n,   \
                const blas_int* k, const T* A, const blas_int* lda, T* x,                   \
                const blas_int* incx, flen, flen, flen) {                                   \
    done(NAME, ab::x##OP<T>(ab::uplo_arg(*uplo), ab::op_arg(*trans), ab::diag_arg(*diag),   \
                            *n, *k, A, *lda, x, *incx));                                    \
  }
#define ABFT_F77_TP(P, OP, NAME, T)                                                         \
  void P##OP##_(const char* uplo, const char* trans, const char* diag, const blas_int* n,   \
                const T* AP, T* x, const blas_int* incx, flen, flen, flen) {                \
    done(NAME, ab::x##OP<T>(ab::uplo_arg(*uplo), ab::op_arg(*trans), ab::diag_arg(*diag),   \
                            *n, AP, x, *incx));                                             \
  }
#define ABFT_F77_GER(FN, NAME, T, WHICH)                                                    \
  void FN(const blas_int* m, const blas_int* n, const T* alpha, const T* x,                 \
          const blas_int* incx, const T* y, const blas_int* incy, T* A, const blas_int* lda) { \
    done(NAME, ab::xger<T>(*m, *n, *alpha, x, *incx, y, *incy, A, *lda,                     \
                           ab::l2::GerConj::WHICH));                                        \
  }
#define ABFT_F77_HER(FN, NAME, T, R)                                                        \
  void FN(const char* uplo, const blas_int* n, const R* alpha, const T* x,                  \
          const blas_int* incx, T* A, const blas_int* lda, flen) {                          \
    done(NAME, ab::xher<T>(ab::uplo_arg(*uplo), *n, *alpha, x, *incx, A, *lda));            \
  }
#define ABFT_F77_HPR(FN, NAME, T, R)                                                        \
  void FN(const char* uplo, const blas_int* n, const R* alpha, const T* x,                  \
          const blas_int* incx, T* AP, flen) {                                              \
    done(NAME, ab::xhpr<T>(ab::uplo_arg(*uplo), *n, *alpha, x, *incx, AP));                 \
  }
#define ABFT_F77_HER2(FN, NAME, T)                                                          \
  void FN(const char* uplo, const blas_int* n, const T* alpha, const T* x,                  \
          const blas_int* incx, const T* y, const blas_int* incy, T* A,                     \
          const blas_int* lda, flen) {                                                      \
    done(NAME, ab::xher2<T>(ab::uplo_arg(*uplo), *n, *alpha, x, *incx, y, *incy, A, *lda)); \
  }
#define ABFT_F77_HPR2(FN, NAME, T)                                                          \
  void FN(const char* uplo, const blas_int* n, const T* alpha, const T* x,                  \
          const blas_int* incx, const T* y, const blas_int* incy, T* AP, flen) {            \
    done(NAME, ab::xhpr2<T>(ab::uplo_arg(*uplo), *n, *alpha, x, *incx, y, *incy, AP));      \
  }

/** The six triangular routines of one type. */
#define ABFT_F77_TRIANGULAR(P, U, T)   \
  ABFT_F77_TR(P, trmv, #U "TRMV", T)   \
  ABFT_F77_TB(P, tbmv, #U "TBMV", T)   \
  ABFT_F77_TP(P, tpmv, #U "TPMV", T)   \
  ABFT_F77_TR(P, trsv, #U "TRSV", T)   \
  ABFT_F77_TB(P, tbsv, #U "TBSV", T)   \
  ABFT_F77_TP(P, tpsv, #U "TPSV", T)

extern "C" {

ABFT_F77_GEMV(s, "SGEMV", float)
ABFT_F77_GEMV(d, "DGEMV", double)
ABFT_F77_GEMV(c, "CGEMV", cfloat)
ABFT_F77_GEMV(z, "ZGEMV", cdouble)
ABFT_F77_GBMV(s, "SGBMV", float)
ABFT_F77_GBMV(d, "DGBMV", double)
ABFT_F77_GBMV(c, "CGBMV", cfloat)
ABFT_F77_GBMV(z, "ZGBMV", cdouble)

ABFT_F77_HEMV(ssymv_, "SSYMV", float)
ABFT_F77_HEMV(dsymv_, "DSYMV", double)
ABFT_F77_HEMV(chemv_, "CHEMV", cfloat)
ABFT_F77_HEMV(zhemv_, "ZHEMV", cdouble)
ABFT_F77_HBMV(ssbmv_, "SSBMV", float)
ABFT_F77_HBMV(dsbmv_, "DSBMV", double)
ABFT_F77_HBMV(chbmv_, "CHBMV", cfloat)
ABFT_F77_HBMV(zhbmv_, "ZHBMV", cdouble)
ABFT_F77_HPMV(sspmv_, "SSPMV", float)
ABFT_F77_HPMV(dspmv_, "DSPMV", double)
ABFT_F77_HPMV(chpmv_, "CHPMV", cfloat)
ABFT_F77_HPMV(zhpmv_, "ZHPMV", cdouble)

ABFT_F77_TRIANGULAR(s, S, float)
ABFT_F77_TRIANGULAR(d, D, double)
ABFT_F77_TRIANGULAR(c, C, cfloat)
ABFT_F77_TRIANGULAR(z, Z, cdouble)

ABFT_F77_GER(sger_, "SGER", float, None)
ABFT_F77_GER(dger_, "DGER", double, None)
ABFT_F77_GER(cgeru_, "CGERU", cfloat, None)
ABFT_F77_GER(zgeru_, "ZGERU", cdouble, None)
ABFT_F77_GER(cgerc_, "CGERC", cfloat, Y)
ABFT_F77_GER(zgerc_, "ZGERC", cdouble, Y)

ABFT_F77_HER(ssyr_, "SSYR", float, float)
ABFT_F77_HER(dsyr_, "DSYR", double, double)
ABFT_F77_HER(cher_, "CHER", cfloat, float)
ABFT_F77_HER(zher_, "ZHER", cdouble, double)
ABFT_F77_HPR(sspr_, "SSPR", float, float)
ABFT_F77_HPR(dspr_, "DSPR", double, double)
ABFT_F77_HPR(chpr_, "CHPR", cfloat, float)
ABFT_F77_HPR(zhpr_, "ZHPR", cdouble, double)
ABFT_F77_HER2(ssyr2_, "SSYR2", float)
ABFT_F77_HER2(dsyr2_, "DSYR2", double)
ABFT_F77_HER2(cher2_, "CHER2", cfloat)
ABFT_F77_HER2(zher2_, "ZHER2", cdouble)
ABFT_F77_HPR2(sspr2_, "SSPR2", float)
ABFT_F77_HPR2(dspr2_, "DSPR2", double)
ABFT_F77_HPR2(chpr2_, "CHPR2", cfloat)
ABFT_F77_HPR2(zhpr2_, "ZHPR2", cdouble)

}  // extern "C"
