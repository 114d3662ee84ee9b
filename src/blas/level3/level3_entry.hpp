/** \file level3_entry.hpp
 *  \brief The Fortran-style Level-3 entries: the one argument check of each routine, then
 *  the core (level3.hpp).
 *
 *  Both public faces call these: the Fortran-77 symbols (level3_f77.cpp) directly, and the
 *  CBLAS entries (level3_cblas.cpp) after checking the layout and their enums and mapping a
 *  row-major call onto its column-major equivalent. The check follows the reference BLAS
 *  (3.11) routine by routine: the same tests in the same order, so the INFO position is the
 *  reference's. On an error it is reported through the Caller (xerbla_ with the routine's
 *  name, or cblas_xerbla with position + 1) and nothing is read or written.
 *
 *  Character arguments are the first character of the Fortran CHARACTER (case-insensitive).
 *  For ?HERK, alpha and beta are real (passed as T with zero imaginary part); for ?HER2K,
 *  beta is.
 */
#pragma once
#include "blas/common/blas_types.hpp"
#include "blas/common/shim.hpp"

namespace abft::blas::fortran {

/** Who is calling, i.e. how an argument error is reported. */
struct Caller {
  Routine routine;
  bool cblas;  ///< report as cblas_xerbla("cblas_<name>", info + 1) instead of xerbla_
};

/** Report argument error `info` (the Fortran position) as the caller's interface does. */
void report(const Caller& who, blas_int info);

template <class T>
void gemm(const Caller& who, char transa, char transb, blas_int m, blas_int n, blas_int k,
          T alpha, const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C,
          blas_int ldc);

/** ?SYMM, or ?HEMM when who.routine is CHEMM/ZHEMM. */
template <class T>
void symm(const Caller& who, char side, char uplo, blas_int m, blas_int n, T alpha, const T* A,
          blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

/** ?SYRK, or ?HERK when who.routine is CHERK/ZHERK. */
template <class T>
void syrk(const Caller& who, char uplo, char trans, blas_int n, blas_int k, T alpha,
          const T* A, blas_int lda, T beta, T* C, blas_int ldc);

/** ?SYR2K, or ?HER2K when who.routine is CHER2K/ZHER2K. */
template <class T>
void syr2k(const Caller& who, char uplo, char trans, blas_int n, blas_int k, T alpha,
           const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

template <class T>
void trmm(const Caller& who, char side, char uplo, char transa, char diag, blas_int m,
          blas_int n, T alpha, const T* A, blas_int lda, T* B, blas_int ldb);

template <class T>
void trsm(const Caller& who, char side, char uplo, char transa, char diag, blas_int m,
          blas_int n, T alpha, const T* A, blas_int lda, T* B, blas_int ldb);

}  // namespace abft::blas::fortran
