/** \file level3.hpp
 *  \brief Core of the Level-3 BLAS routines: column-major, arguments already checked.
 *
 *  Every routine is assembled from gemm_core calls (the protected engine), so it inherits
 *  the engine's checksums, bounds, correction, policy, injection and statistics; the only
 *  arithmetic outside the engine is TRSM's diagonal-block substitution, which carries a
 *  checksum check of its own (trsm_leaf.hpp, docs/ABFT.md §8). Each call opens one
 *  ProtectedCall for its Routine row and passes it to every kernel it runs.
 *
 *  T is float, double, cfloat or cdouble. `herm` selects the Hermitian variant (HEMM,
 *  HERK, HER2K: complex T only). For HERK, alpha and beta are real (their imaginary parts
 *  are ignored); for HER2K, beta is real.
 */
#pragma once
#include "blas/common/blas_types.hpp"
#include "blas/common/shim.hpp"

namespace abft::blas::l3 {

/** Leaf sizes of the recursive algorithms (docs/ABFT.md §8). A SYRK/SYR2K/TRMM leaf is one
 *  dense GEMM of the diagonal block, half of whose flops are spent on the structural
 *  zeros, so the extra work is leaf/(2n); a TRSM leaf is a checked substitution. */
constexpr blas_int kSyrkLeaf = 128;
constexpr blas_int kTrmmLeaf = 128;
constexpr blas_int kTrsmLeaf = 32;

/** Split point of a recursion over n > leaf columns: about n/2, on a multiple of leaf. */
inline blas_int split_point(blas_int n, blas_int leaf) {
  const blas_int h = (n / 2 / leaf) * leaf;
  return h > 0 ? h : leaf;
}

/** C <- alpha op(A) op(B) + beta C. */
template <class T>
void gemm(Routine r, Op ta, Op tb, blas_int m, blas_int n, blas_int k, T alpha, const T* A,
          blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

/** C <- alpha A B + beta C (side L) or alpha B A + beta C (side R), A symmetric
 *  (Hermitian when herm) and stored in its `uplo` triangle. */
template <class T>
void symm(Routine r, bool herm, Side side, Uplo uplo, blas_int m, blas_int n, T alpha,
          const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

/** uplo triangle of C <- alpha op(A) op(A)^T + beta C (herm: op(A) op(A)^H, alpha and beta
 *  real). trans N: op(A) = A (n x k); T or C: op(A) = A^T / A^H (A is k x n). */
template <class T>
void syrk(Routine r, bool herm, Uplo uplo, Op trans, blas_int n, blas_int k, T alpha,
          const T* A, blas_int lda, T beta, T* C, blas_int ldc);

/** uplo triangle of C <- alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C
 *  (herm: alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H, beta real). */
template <class T>
void syr2k(Routine r, bool herm, Uplo uplo, Op trans, blas_int n, blas_int k, T alpha,
           const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc);

/** B <- alpha op(A) B (side L) or alpha B op(A) (side R), A triangular (m x m or n x n). */
template <class T>
void trmm(Routine r, Side side, Uplo uplo, Op transa, Diag diag, blas_int m, blas_int n,
          T alpha, const T* A, blas_int lda, T* B, blas_int ldb);

/** B <- X with op(A) X = alpha B (side L) or X op(A) = alpha B (side R). */
template <class T>
void trsm(Routine r, Side side, Uplo uplo, Op transa, Diag diag, blas_int m, blas_int n,
          T alpha, const T* A, blas_int lda, T* B, blas_int ldb);

}  // namespace abft::blas::l3
