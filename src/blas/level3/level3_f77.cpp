/** \file level3_f77.cpp
 *  \brief The Fortran-77 Level-3 symbols (sgemm_ ... ztrsm_): gfortran convention, lower
 *  case with a trailing underscore, every argument by reference, LP64 INTEGER, one hidden
 *  CHARACTER length per character argument appended at the end (read but unused: only
 *  the first character counts, as in LSAME).
 */
#include "blas/level3/level3_entry.hpp"

using abft::blas::blas_int;
using abft::blas::cdouble;
using abft::blas::cfloat;
using abft::blas::flen;
using abft::blas::Routine;
namespace fb = abft::blas::fortran;

#define ABFT_F77_GEMM(name, T, R)                                                               \
  void name(const char* ta, const char* tb, const blas_int* m, const blas_int* n,               \
            const blas_int* k, const T* alpha, const T* A, const blas_int* lda, const T* B,     \
            const blas_int* ldb, const T* beta, T* C, const blas_int* ldc, flen, flen) {        \
    fb::gemm<T>({R, false}, *ta, *tb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);    \
  }
#define ABFT_F77_SYMM(name, T, R)                                                               \
  void name(const char* side, const char* uplo, const blas_int* m, const blas_int* n,           \
            const T* alpha, const T* A, const blas_int* lda, const T* B, const blas_int* ldb,   \
            const T* beta, T* C, const blas_int* ldc, flen, flen) {                             \
    fb::symm<T>({R, false}, *side, *uplo, *m, *n, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);    \
  }
/* S = type of alpha and beta (T, or the real type for ?HERK) */
#define ABFT_F77_SYRK(name, T, S, R)                                                            \
  void name(const char* uplo, const char* trans, const blas_int* n, const blas_int* k,          \
            const S* alpha, const T* A, const blas_int* lda, const S* beta, T* C,               \
            const blas_int* ldc, flen, flen) {                                                  \
    fb::syrk<T>({R, false}, *uplo, *trans, *n, *k, T(*alpha), A, *lda, T(*beta), C, *ldc);      \
  }
/* SB = type of beta (T, or the real type for ?HER2K) */
#define ABFT_F77_SYR2K(name, T, SB, R)                                                          \
  void name(const char* uplo, const char* trans, const blas_int* n, const blas_int* k,          \
            const T* alpha, const T* A, const blas_int* lda, const T* B, const blas_int* ldb,   \
            const SB* beta, T* C, const blas_int* ldc, flen, flen) {                            \
    fb::syr2k<T>({R, false}, *uplo, *trans, *n, *k, *alpha, A, *lda, B, *ldb, T(*beta), C,      \
                 *ldc);                                                                         \
  }
#define ABFT_F77_TRI(name, fn, T, R)                                                            \
  void name(const char* side, const char* uplo, const char* ta, const char* diag,               \
            const blas_int* m, const blas_int* n, const T* alpha, const T* A,                   \
            const blas_int* lda, T* B, const blas_int* ldb, flen, flen, flen, flen) {           \
    fb::fn<T>({R, false}, *side, *uplo, *ta, *diag, *m, *n, *alpha, A, *lda, B, *ldb);          \
  }

extern "C" {

ABFT_F77_GEMM(sgemm_, float, Routine::SGEMM)
ABFT_F77_GEMM(dgemm_, double, Routine::DGEMM)
ABFT_F77_GEMM(cgemm_, cfloat, Routine::CGEMM)
ABFT_F77_GEMM(zgemm_, cdouble, Routine::ZGEMM)

ABFT_F77_SYMM(ssymm_, float, Routine::SSYMM)
ABFT_F77_SYMM(dsymm_, double, Routine::DSYMM)
ABFT_F77_SYMM(csymm_, cfloat, Routine::CSYMM)
ABFT_F77_SYMM(zsymm_, cdouble, Routine::ZSYMM)
ABFT_F77_SYMM(chemm_, cfloat, Routine::CHEMM)
ABFT_F77_SYMM(zhemm_, cdouble, Routine::ZHEMM)

ABFT_F77_SYRK(ssyrk_, float, float, Routine::SSYRK)
ABFT_F77_SYRK(dsyrk_, double, double, Routine::DSYRK)
ABFT_F77_SYRK(csyrk_, cfloat, cfloat, Routine::CSYRK)
ABFT_F77_SYRK(zsyrk_, cdouble, cdouble, Routine::ZSYRK)
ABFT_F77_SYRK(cherk_, cfloat, float, Routine::CHERK)
ABFT_F77_SYRK(zherk_, cdouble, double, Routine::ZHERK)

ABFT_F77_SYR2K(ssyr2k_, float, float, Routine::SSYR2K)
ABFT_F77_SYR2K(dsyr2k_, double, double, Routine::DSYR2K)
ABFT_F77_SYR2K(csyr2k_, cfloat, cfloat, Routine::CSYR2K)
ABFT_F77_SYR2K(zsyr2k_, cdouble, cdouble, Routine::ZSYR2K)
ABFT_F77_SYR2K(cher2k_, cfloat, float, Routine::CHER2K)
ABFT_F77_SYR2K(zher2k_, cdouble, double, Routine::ZHER2K)

ABFT_F77_TRI(strmm_, trmm, float, Routine::STRMM)
ABFT_F77_TRI(dtrmm_, trmm, double, Routine::DTRMM)
ABFT_F77_TRI(ctrmm_, trmm, cfloat, Routine::CTRMM)
ABFT_F77_TRI(ztrmm_, trmm, cdouble, Routine::ZTRMM)
ABFT_F77_TRI(strsm_, trsm, float, Routine::STRSM)
ABFT_F77_TRI(dtrsm_, trsm, double, Routine::DTRSM)
ABFT_F77_TRI(ctrsm_, trsm, cfloat, Routine::CTRSM)
ABFT_F77_TRI(ztrsm_, trsm, cdouble, Routine::ZTRSM)

}  // extern "C"
