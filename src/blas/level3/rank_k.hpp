/** \file rank_k.hpp
 *  \brief The shared recursion of ?SYRK/?HERK and ?SYR2K/?HER2K over the `uplo` triangle.
 *
 *  The triangle of C is split recursively at about n/2: the off-diagonal rectangle is one
 *  protected GEMM straight into C (two for the rank-2k update, the second with beta = 1);
 *  a diagonal block of at most kSyrkLeaf columns is copied (its triangle only; the other
 *  triangle of C is never read or written) into a square workspace, updated there by the
 *  same GEMMs with the caller's beta, and its triangle copied back. So every flop runs in
 *  the protected engine, beta == 0 never reads C, and the work on the diagonal blocks'
 *  unused halves is kSyrkLeaf / (2n) of the total.
 *
 *  Hermitian variants: alpha (HERK) and beta are real, the second term of HER2K uses
 *  conj(alpha), and the diagonal's imaginary parts are set to zero, as the reference does.
 */
#pragma once
#include <algorithm>
#include <vector>

#include "blas/level3/gemm_core.hpp"
#include "blas/level3/level3.hpp"

namespace abft::blas::l3 {

/** One rank-k (B == nullptr) or rank-2k update; arguments valid, no quick return left. */
template <class T>
class RankK {
 public:
  RankK(ProtectedCall& pc, bool herm, Uplo uplo, Op trans, blas_int k, T alpha, const T* A,
        blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc)
      : pc_(pc), herm_(herm), upper_(uplo == Uplo::U), notrans_(trans == Op::N), k_(k),
        alpha_(alpha), A_(A), lda_(lda), B_(B), ldb_(ldb), beta_(beta), C_(C), ldc_(ldc) {}

  /** Update the triangle of C's columns (and rows) [j0, j0 + n). */
  void run(blas_int j0, blas_int n) {
    if (n <= kSyrkLeaf) {
      leaf(j0, n);
      return;
    }
    const blas_int n1 = split_point(n, kSyrkLeaf);
    run(j0, n1);
    if (upper_) block(j0, j0 + n1, n1, n - n1, beta_, C_ + j0 + std::size_t(j0 + n1) * ldc_, ldc_);
    else block(j0 + n1, j0, n - n1, n1, beta_, C_ + (j0 + n1) + std::size_t(j0) * ldc_, ldc_);
    run(j0 + n1, n - n1);
  }

 private:
  /** op(X) rows [i0, i0 + ni) as a gemm_core operand: pointer and op (the first factor). */
  const T* rows_ptr(const T* X, blas_int ldx, blas_int i0) const {
    return notrans_ ? X + i0 : X + std::size_t(i0) * ldx;
  }
  Op first_op() const { return notrans_ ? Op::N : (herm_ ? Op::C : Op::T); }
  Op second_op() const { return notrans_ ? (herm_ ? Op::C : Op::T) : Op::N; }

  /** D (ni x nj) <- alpha op(A)[I,:] op(B)[J,:]^T (+ alpha' op(B)[I,:] op(A)[J,:]^T) + beta D. */
  void block(blas_int i0, blas_int j0, blas_int ni, blas_int nj, T beta, T* D, blas_int ldd) {
    const T* B = B_ ? B_ : A_;
    const blas_int ldb = B_ ? ldb_ : lda_;
    gemm_core<T>(pc_, first_op(), second_op(), ni, nj, k_, alpha_, rows_ptr(A_, lda_, i0), lda_,
                 rows_ptr(B, ldb, j0), ldb, beta, D, ldd);
    if (B_ && alpha_ != T(0) && k_ > 0) {
      const T alpha2 = herm_ ? conj_if(alpha_) : alpha_;
      gemm_core<T>(pc_, first_op(), second_op(), ni, nj, k_, alpha2, rows_ptr(B_, ldb_, i0),
                   ldb_, rows_ptr(A_, lda_, j0), lda_, T(1), D, ldd);
    }
  }

  bool in_triangle(blas_int i, blas_int j) const { return upper_ ? i <= j : i >= j; }

  /** Diagonal block [j0, j0 + n)^2 through a square workspace. */
  void leaf(blas_int j0, blas_int n) {
    W_.assign(std::size_t(n) * n, T(0));
    T* c = C_ + j0 + std::size_t(j0) * ldc_;
    if (beta_ != T(0)) {
      for (blas_int j = 0; j < n; ++j)
        for (blas_int i = 0; i < n; ++i)
          if (in_triangle(i, j)) W_[i + std::size_t(j) * n] = c[i + std::size_t(j) * ldc_];
      if (herm_) zero_diag_imag(W_.data(), n);
    }
    block(j0, j0, n, n, beta_, W_.data(), n);
    if (herm_) zero_diag_imag(W_.data(), n);
    for (blas_int j = 0; j < n; ++j)
      for (blas_int i = 0; i < n; ++i)
        if (in_triangle(i, j)) c[i + std::size_t(j) * ldc_] = W_[i + std::size_t(j) * n];
  }

  static void zero_diag_imag(T* W, blas_int n) {
    if constexpr (is_complex_v<T>)
      for (blas_int i = 0; i < n; ++i) W[i + std::size_t(i) * n].imag(0);
    else (void)W, (void)n;
  }

  ProtectedCall& pc_;
  bool herm_, upper_, notrans_;
  blas_int k_;
  T alpha_;
  const T* A_;
  blas_int lda_;
  const T* B_;
  blas_int ldb_;
  T beta_;
  T* C_;
  blas_int ldc_;
  std::vector<T> W_;
};

}  // namespace abft::blas::l3
