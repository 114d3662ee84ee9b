/** \file level3_cblas.cpp
 *  \brief The CBLAS Level-3 entries (cblas_sgemm ... cblas_ztrsm).
 *
 *  Each entry checks what only CBLAS has — the layout (position 1) and its enums, in the
 *  reference CBLAS's order and positions — then calls the Fortran-style entry, which runs
 *  the routine's one argument check (errors reported as cblas_xerbla(position + 1)).
 *  A row-major call is the column-major call of the transposed problem:
 *
 *    GEMM   C^T = op(B)^T op(A)^T:      operands and m/n swapped, trans flags kept
 *    SYMM   C^T = B^T A^T:              side and uplo flipped, m/n swapped
 *    SYRK   C^T = op(A)^T op(A):        uplo flipped, trans flipped (N <-> T, or N <-> C for HERK)
 *    SYR2K  as SYRK; HER2K also conjugates alpha (C^T = conj(C) for Hermitian C)
 *    TRMM/TRSM  B^T = op(A)^T B^T:      side and uplo flipped, m/n swapped
 *
 *  so, as in the reference, a row-major error reports the position of the column-major
 *  call (the test programs' cblas_xerbla maps it back using RowMajorStrg, which CblasScope
 *  sets for the duration of the call).
 */
#include <string>

#include "abft/cblas.h"
#include "blas/common/blas_error.hpp"
#include "blas/level3/level3_entry.hpp"

namespace {

using abft::blas::blas_int;
using abft::blas::cdouble;
using abft::blas::cfloat;
using abft::blas::CblasScope;
using abft::blas::Routine;
namespace fb = abft::blas::fortran;

/** An error found by the CBLAS layer itself: `pos` is the CBLAS argument position. */
void cblas_error(Routine r, int pos) {
  const std::string name = std::string("cblas_") + abft::blas::routine_name(r);
  abft::blas::report_cblas(name.c_str(), pos);
}

bool valid_layout(CBLAS_LAYOUT l) { return l == CblasRowMajor || l == CblasColMajor; }

char trans_char(CBLAS_TRANSPOSE t) {
  switch (t) {
    case CblasNoTrans: return 'N';
    case CblasTrans: return 'T';
    case CblasConjTrans: return 'C';
    default: return 0;
  }
}
char uplo_char(CBLAS_UPLO u, bool flip) {
  if (u == CblasUpper) return flip ? 'L' : 'U';
  if (u == CblasLower) return flip ? 'U' : 'L';
  return 0;
}
char side_char(CBLAS_SIDE s, bool flip) {
  if (s == CblasLeft) return flip ? 'R' : 'L';
  if (s == CblasRight) return flip ? 'L' : 'R';
  return 0;
}
char diag_char(CBLAS_DIAG d) {
  if (d == CblasNonUnit) return 'N';
  if (d == CblasUnit) return 'U';
  return 0;
}

/** TRANS of a rank-k update for the column-major call. Row-major flips it; a value the
 *  routine does not accept (T for HERK, C for complex SYRK) is passed on unchanged so that
 *  the Fortran-style check rejects it, at the position the reference CBLAS reports. */
char rank_trans(CBLAS_TRANSPOSE t, bool row, bool cplx, bool herm) {
  const char c = trans_char(t);
  if (!row || !c) return c;
  if (c == 'N') return herm ? 'C' : 'T';
  if (cplx && (herm ? c == 'T' : c == 'C')) return c;
  return 'N';
}

template <class T> T load(const void* p) { return *static_cast<const T*>(p); }

template <class T>
void gemm(Routine r, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
          int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C,
          int ldc) {
  const bool row = layout == CblasRowMajor;
  CblasScope scope(row);
  if (!valid_layout(layout)) return cblas_error(r, 1);
  const char ta = trans_char(TransA), tb = trans_char(TransB);
  if (!ta) return cblas_error(r, 2);
  if (!tb) return cblas_error(r, 3);
  const fb::Caller who{r, true};
  if (row) fb::gemm<T>(who, tb, ta, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
  else fb::gemm<T>(who, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T>
void symm(Routine r, CBLAS_LAYOUT layout, CBLAS_SIDE Side, CBLAS_UPLO Uplo, int M, int N,
          T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  const bool row = layout == CblasRowMajor;
  CblasScope scope(row);
  if (!valid_layout(layout)) return cblas_error(r, 1);
  const char sd = side_char(Side, row), ul = uplo_char(Uplo, row);
  if (!sd) return cblas_error(r, 2);
  if (!ul) return cblas_error(r, 3);
  const fb::Caller who{r, true};
  if (row) fb::symm<T>(who, sd, ul, N, M, alpha, A, lda, B, ldb, beta, C, ldc);
  else fb::symm<T>(who, sd, ul, M, N, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T>
void syrk(Routine r, bool herm, CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE Trans,
          int N, int K, T alpha, const T* A, int lda, T beta, T* C, int ldc) {
  const bool row = layout == CblasRowMajor;
  CblasScope scope(row);
  if (!valid_layout(layout)) return cblas_error(r, 1);
  const char ul = uplo_char(Uplo, row);
  if (!ul) return cblas_error(r, 2);
  const char tr = rank_trans(Trans, row, abft::blas::is_complex_v<T>, herm);
  if (!tr) return cblas_error(r, 3);
  fb::syrk<T>({r, true}, ul, tr, N, K, alpha, A, lda, beta, C, ldc);
}

template <class T>
void syr2k(Routine r, bool herm, CBLAS_LAYOUT layout, CBLAS_UPLO Uplo, CBLAS_TRANSPOSE Trans,
           int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C,
           int ldc) {
  const bool row = layout == CblasRowMajor;
  CblasScope scope(row);
  if (!valid_layout(layout)) return cblas_error(r, 1);
  const char ul = uplo_char(Uplo, row);
  if (!ul) return cblas_error(r, 2);
  const char tr = rank_trans(Trans, row, abft::blas::is_complex_v<T>, herm);
  if (!tr) return cblas_error(r, 3);
  if (row && herm) alpha = abft::blas::conj_if(alpha);
  fb::syr2k<T>({r, true}, ul, tr, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T>
void tri(Routine r, bool solve, CBLAS_LAYOUT layout, CBLAS_SIDE Side, CBLAS_UPLO Uplo,
         CBLAS_TRANSPOSE TransA, CBLAS_DIAG Diag, int M, int N, T alpha, const T* A, int lda,
         T* B, int ldb) {
  const bool row = layout == CblasRowMajor;
  CblasScope scope(row);
  if (!valid_layout(layout)) return cblas_error(r, 1);
  const char sd = side_char(Side, row), ul = uplo_char(Uplo, row);
  const char ta = trans_char(TransA), dg = diag_char(Diag);
  if (!sd) return cblas_error(r, 2);
  if (!ul) return cblas_error(r, 3);
  if (!ta) return cblas_error(r, 4);
  if (!dg) return cblas_error(r, 5);
  const int m = row ? N : M, n = row ? M : N;
  if (solve) fb::trsm<T>({r, true}, sd, ul, ta, dg, m, n, alpha, A, lda, B, ldb);
  else fb::trmm<T>({r, true}, sd, ul, ta, dg, m, n, alpha, A, lda, B, ldb);
}

}  // namespace

extern "C" {

/* Real routines take scalars by value; complex ones by pointer (void*). */
#define ABFT_CBLAS_REAL_L3(p, T, P)                                                              \
  void cblas_##p##gemm(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,                  \
                       const CBLAS_TRANSPOSE TransB, const int M, const int N, const int K,      \
                       const T alpha, const T* A, const int lda, const T* B, const int ldb,      \
                       const T beta, T* C, const int ldc) {                                      \
    gemm<T>(Routine::P##GEMM, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C,   \
            ldc);                                                                                \
  }                                                                                              \
  void cblas_##p##symm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const int M, const int N, const T alpha, const T* A, const int lda,       \
                       const T* B, const int ldb, const T beta, T* C, const int ldc) {           \
    symm<T>(Routine::P##SYMM, layout, Side, Uplo, M, N, alpha, A, lda, B, ldb, beta, C, ldc);    \
  }                                                                                              \
  void cblas_##p##syrk(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                         \
                       const CBLAS_TRANSPOSE Trans, const int N, const int K, const T alpha,     \
                       const T* A, const int lda, const T beta, T* C, const int ldc) {           \
    syrk<T>(Routine::P##SYRK, false, layout, Uplo, Trans, N, K, alpha, A, lda, beta, C, ldc);    \
  }                                                                                              \
  void cblas_##p##syr2k(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                        \
                        const CBLAS_TRANSPOSE Trans, const int N, const int K, const T alpha,    \
                        const T* A, const int lda, const T* B, const int ldb, const T beta,      \
                        T* C, const int ldc) {                                                   \
    syr2k<T>(Routine::P##SYR2K, false, layout, Uplo, Trans, N, K, alpha, A, lda, B, ldb, beta,   \
             C, ldc);                                                                            \
  }                                                                                              \
  void cblas_##p##trmm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int M,         \
                       const int N, const T alpha, const T* A, const int lda, T* B,              \
                       const int ldb) {                                                          \
    tri<T>(Routine::P##TRMM, false, layout, Side, Uplo, TransA, Diag, M, N, alpha, A, lda, B,    \
           ldb);                                                                                 \
  }                                                                                              \
  void cblas_##p##trsm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int M,         \
                       const int N, const T alpha, const T* A, const int lda, T* B,              \
                       const int ldb) {                                                          \
    tri<T>(Routine::P##TRSM, true, layout, Side, Uplo, TransA, Diag, M, N, alpha, A, lda, B,     \
           ldb);                                                                                 \
  }

#define ABFT_CBLAS_CPLX_L3(p, T, R, P)                                                           \
  void cblas_##p##gemm(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,                  \
                       const CBLAS_TRANSPOSE TransB, const int M, const int N, const int K,      \
                       const void* alpha, const void* A, const int lda, const void* B,           \
                       const int ldb, const void* beta, void* C, const int ldc) {                \
    gemm<T>(Routine::P##GEMM, layout, TransA, TransB, M, N, K, load<T>(alpha),                   \
            static_cast<const T*>(A), lda, static_cast<const T*>(B), ldb, load<T>(beta),         \
            static_cast<T*>(C), ldc);                                                            \
  }                                                                                              \
  void cblas_##p##symm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const int M, const int N, const void* alpha, const void* A,               \
                       const int lda, const void* B, const int ldb, const void* beta, void* C,   \
                       const int ldc) {                                                          \
    symm<T>(Routine::P##SYMM, layout, Side, Uplo, M, N, load<T>(alpha), static_cast<const T*>(A), \
            lda, static_cast<const T*>(B), ldb, load<T>(beta), static_cast<T*>(C), ldc);         \
  }                                                                                              \
  void cblas_##p##hemm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const int M, const int N, const void* alpha, const void* A,               \
                       const int lda, const void* B, const int ldb, const void* beta, void* C,   \
                       const int ldc) {                                                          \
    symm<T>(Routine::P##HEMM, layout, Side, Uplo, M, N, load<T>(alpha), static_cast<const T*>(A), \
            lda, static_cast<const T*>(B), ldb, load<T>(beta), static_cast<T*>(C), ldc);         \
  }                                                                                              \
  void cblas_##p##syrk(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                         \
                       const CBLAS_TRANSPOSE Trans, const int N, const int K, const void* alpha, \
                       const void* A, const int lda, const void* beta, void* C, const int ldc) { \
    syrk<T>(Routine::P##SYRK, false, layout, Uplo, Trans, N, K, load<T>(alpha),                  \
            static_cast<const T*>(A), lda, load<T>(beta), static_cast<T*>(C), ldc);              \
  }                                                                                              \
  void cblas_##p##herk(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                         \
                       const CBLAS_TRANSPOSE Trans, const int N, const int K, const R alpha,     \
                       const void* A, const int lda, const R beta, void* C, const int ldc) {     \
    syrk<T>(Routine::P##HERK, true, layout, Uplo, Trans, N, K, T(alpha),                         \
            static_cast<const T*>(A), lda, T(beta), static_cast<T*>(C), ldc);                    \
  }                                                                                              \
  void cblas_##p##syr2k(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                        \
                        const CBLAS_TRANSPOSE Trans, const int N, const int K,                   \
                        const void* alpha, const void* A, const int lda, const void* B,          \
                        const int ldb, const void* beta, void* C, const int ldc) {               \
    syr2k<T>(Routine::P##SYR2K, false, layout, Uplo, Trans, N, K, load<T>(alpha),                \
             static_cast<const T*>(A), lda, static_cast<const T*>(B), ldb, load<T>(beta),        \
             static_cast<T*>(C), ldc);                                                           \
  }                                                                                              \
  void cblas_##p##her2k(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                        \
                        const CBLAS_TRANSPOSE Trans, const int N, const int K,                   \
                        const void* alpha, const void* A, const int lda, const void* B,          \
                        const int ldb, const R beta, void* C, const int ldc) {                   \
    syr2k<T>(Routine::P##HER2K, true, layout, Uplo, Trans, N, K, load<T>(alpha),                 \
             static_cast<const T*>(A), lda, static_cast<const T*>(B), ldb, T(beta),              \
             static_cast<T*>(C), ldc);                                                           \
  }                                                                                              \
  void cblas_##p##trmm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int M,         \
                       const int N, const void* alpha, const void* A, const int lda, void* B,    \
                       const int ldb) {                                                          \
    tri<T>(Routine::P##TRMM, false, layout, Side, Uplo, TransA, Diag, M, N, load<T>(alpha),      \
           static_cast<const T*>(A), lda, static_cast<T*>(B), ldb);                              \
  }                                                                                              \
  void cblas_##p##trsm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,  \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int M,         \
                       const int N, const void* alpha, const void* A, const int lda, void* B,    \
                       const int ldb) {                                                          \
    tri<T>(Routine::P##TRSM, true, layout, Side, Uplo, TransA, Diag, M, N, load<T>(alpha),       \
           static_cast<const T*>(A), lda, static_cast<T*>(B), ldb);                              \
  }

ABFT_CBLAS_REAL_L3(s, float, S)
ABFT_CBLAS_REAL_L3(d, double, D)
ABFT_CBLAS_CPLX_L3(c, cfloat, float, C)
ABFT_CBLAS_CPLX_L3(z, cdouble, double, Z)

#undef ABFT_CBLAS_REAL_L3
#undef ABFT_CBLAS_CPLX_L3

}  // extern "C"
