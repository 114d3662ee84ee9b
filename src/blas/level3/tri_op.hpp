/** \file tri_op.hpp
 *  \brief op(A) of a triangular A as TRMM and TRSM see it: its block structure, its blocks
 *  as gemm_core operands, and dense copies of its diagonal blocks.
 *
 *  op(A) is upper triangular ("effectively upper") when A is upper and op = N, or A is lower
 *  and op = T/C. Indices below are those of op(A).
 */
#pragma once
#include <cstddef>

#include "blas/common/blas_types.hpp"

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

}  // namespace abft::blas::l3
