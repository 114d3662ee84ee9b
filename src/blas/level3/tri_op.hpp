/** \file tri_op.hpp
 *  \brief op(A) of a triangular A as TRMM and TRSM see it: its block structure, its blocks
 *  as gemm_core operands, and dense copies of its diagonal blocks.
 *
 *  op(A) is upper triangular ("effectively upper") when A is upper and op = N, or A is lower
 *  and op = T/C. Indices below are those of op(A).
 */
#pragma once
#include <cstddef>
#include <new>

#include "blas/common/blas_types.hpp"
#include "blas/level3/gemm_core.hpp"

namespace abft::blas::l3 {

template <class T>
struct TriOp {
  const T* A;
  blas_int lda;
  Op op;        ///< N, T or C (C == T for real types)
  bool upper;   ///< A's stored triangle
  bool unit;    ///< unit diagonal (A's diagonal is not read)

  bool eff_upper() const { return upper == (op == Op::N); }

  /** The block of op(A) starting at (i0, j0) as a gemm_core operand: pointer, with gop(). */
  const T* block(blas_int i0, blas_int j0) const {
    return op == Op::N ? A + i0 + std::size_t(j0) * lda : A + j0 + std::size_t(i0) * lda;
  }
  Op gop() const { return op; }

  /** op(A)(p, q) for (p, q) inside the triangle, off the unit diagonal. */
  T at(blas_int p, blas_int q) const {
    if (op == Op::N) return A[p + std::size_t(q) * lda];
    const T a = A[q + std::size_t(p) * lda];
    return op == Op::C ? conj_if(a) : a;
  }

  /** E (nb x nb, column-major, ld nb) <- op(A)[i0 + (0..nb), i0 + (0..nb)] with explicit
   *  zeros outside the triangle and ones on a unit diagonal. Reads only the triangle. */
  void expand_diag(blas_int i0, blas_int nb, T* E) const {
    const bool up = eff_upper();
    for (blas_int j = 0; j < nb; ++j)
      for (blas_int i = 0; i < nb; ++i) {
        T v(0);
        if (i == j) v = unit ? T(1) : at(i0 + i, i0 + j);
        else if ((i < j) == up) v = at(i0 + i, i0 + j);
        E[i + std::size_t(j) * nb] = v;
      }
  }
};

/** What TRMM and TRSM do around their blocked algorithms: one protected call, the quick
 *  return, alpha == 0 as B <- 0 without reading A or B (a GEMM with k = 0, beta = 0), op(A)
 *  as a TriOp, and an allocation failure reported through the call. `run(pc, E, left)`
 *  does the rest. */
template <class T, class Run>
void triangular_call(Routine r, Side side, Uplo uplo, Op transa, Diag diag, blas_int m, blas_int n,
                     T alpha, const T* A, blas_int lda, T* B, blas_int ldb, Run run) {
  ProtectedCall pc(r);
  if (m == 0 || n == 0) return;
  if (alpha == T(0)) {
    gemm_core<T>(pc, Op::N, Op::N, m, n, 0, T(0), nullptr, max1(m), nullptr, 1, T(0), B, ldb);
    return;
  }
  const TriOp<T> E{A, lda, transa, uplo == Uplo::U, diag == Diag::U};
  try {
    run(pc, E, side == Side::L);
  } catch (const std::bad_alloc&) {
    pc.absorb(abft_report{}, ABFT_STATUS_ALLOC_FAILED);
  }
}

}  // namespace abft::blas::l3
