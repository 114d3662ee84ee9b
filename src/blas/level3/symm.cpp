/** \file symm.cpp
 *  \brief ?SYMM and ?HEMM: the stored triangle of A expanded into a full workspace, then
 *  protected gemm_core calls.
 *
 *  The full matrix is what the reference reads: a_ij from the `uplo` triangle, a_ji (its
 *  conjugate for HEMM) mirrored, and for HEMM the diagonal's real part only. Expansion is
 *  O(ka^2) copies against the product's O(ka^2 n) flops. When the full matrix would exceed
 *  kWorkspaceBytes, it is expanded and multiplied in panels of C's rows (side L) or columns
 *  (side R); each panel is one independent GEMM, so C is still read and written once.
 */
#include <algorithm>
#include <new>
#include <vector>

#include "blas/level3/gemm_core.hpp"
#include "blas/level3/level3.hpp"

namespace abft::blas::l3 {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t(64) << 20;

/** W(i, j) = full(i0 + i, j0 + j) for a rows x cols window (W column-major, ld = rows). */
template <class T>
void expand_full(bool herm, Uplo uplo, const T* A, blas_int lda, blas_int i0, blas_int j0,
                 blas_int rows, blas_int cols, T* W) {
  const bool upper = uplo == Uplo::U;
  for (blas_int j = 0; j < cols; ++j) {
    const blas_int q = j0 + j;
    T* w = W + std::size_t(j) * rows;
    for (blas_int i = 0; i < rows; ++i) {
      const blas_int p = i0 + i;
      if (p == q) {
        const T d = A[p + std::size_t(q) * lda];
        if constexpr (is_complex_v<T>) w[i] = herm ? T(d.real()) : d;
        else w[i] = d;
      } else if ((p < q) == upper) {  // (p, q) lies in the stored triangle
        w[i] = A[p + std::size_t(q) * lda];
      } else {
        const T t = A[q + std::size_t(p) * lda];
        w[i] = herm ? conj_if(t) : t;
      }
    }
  }
}

}  // namespace

template <class T>
void symm(Routine r, bool herm, Side side, Uplo uplo, blas_int m, blas_int n, T alpha,
          const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  ProtectedCall pc(r);
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  if (alpha == T(0)) {  // C <- beta C; A and B are not read
    gemm_core<T>(pc, Op::N, Op::N, m, n, 0, alpha, nullptr, max1(m), nullptr, 1, beta, C, ldc);
    return;
  }
  try {
    // A is ka x ka; C is cut into panels of pw rows (side L) or columns (side R) of A's
    // order, so one panel of the full matrix is ka x pw.
    const blas_int ka = side == Side::L ? m : n;
    const std::size_t fit = std::max<std::size_t>(1, kWorkspaceBytes / sizeof(T) / std::size_t(ka));
    const blas_int pw = blas_int(std::min<std::size_t>(std::size_t(ka), fit));
    std::vector<T> W(std::size_t(ka) * std::size_t(pw));
    if (side == Side::L) {
      // C[rows, :] = alpha A[rows, :] B + beta C[rows, :]
      for (blas_int i0 = 0; i0 < m; i0 += pw) {
        const blas_int rb = std::min(pw, m - i0);
        expand_full<T>(herm, uplo, A, lda, i0, 0, rb, m, W.data());
        gemm_core<T>(pc, Op::N, Op::N, rb, n, m, alpha, W.data(), rb, B, ldb, beta, C + i0, ldc);
      }
    } else {
      // C[:, cols] = alpha B A[:, cols] + beta C[:, cols]
      for (blas_int j0 = 0; j0 < n; j0 += pw) {
        const blas_int cb = std::min(pw, n - j0);
        expand_full<T>(herm, uplo, A, lda, 0, j0, n, cb, W.data());
        gemm_core<T>(pc, Op::N, Op::N, m, cb, n, alpha, B, ldb, W.data(), n, beta,
                     C + std::size_t(j0) * ldc, ldc);
      }
    }
  } catch (const std::bad_alloc&) {
    pc.absorb(abft_report{}, ABFT_STATUS_ALLOC_FAILED);
  }
}

#define ABFT_L3_SYMM(T)                                                                     \
  template void symm<T>(Routine, bool, Side, Uplo, blas_int, blas_int, T, const T*, blas_int, \
                        const T*, blas_int, T, T*, blas_int);
ABFT_L3_SYMM(float)
ABFT_L3_SYMM(double)
ABFT_L3_SYMM(cfloat)
ABFT_L3_SYMM(cdouble)
#undef ABFT_L3_SYMM

}  // namespace abft::blas::l3
