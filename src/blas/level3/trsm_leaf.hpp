/** \file trsm_leaf.hpp
 *  \brief TRSM's diagonal-block solve, protected by a checksum identity of its own.
 *
 *  The one piece of Level-3 arithmetic that does not run in the protected GEMM: solving a
 *  triangular system M x = b for every right-hand side of one diagonal block, where
 *  M = op(A_kk) (side L) or op(A_kk)^T (side R, one system per row of B). After the solve,
 *  each right-hand side is verified through the column sums of M:
 *
 *      w^T x = e^T b     and     w2^T x = c^T b,     w = M^T e,  w2 = M^T c,  c_i = i + 1
 *
 *  against a rounding bound derived from the backward error of substitution
 *  (|b - M x| <= gamma_n |M| |x|, Higham Thm 8.5) plus the rounding of the checksums
 *  (docs/ABFT.md §8.1). A failing right-hand side is solved again from the saved b with M
 *  re-read from the caller's A, and verified again. Policy (shim_policy()): OFF solves
 *  only; DETECT counts; CORRECT recomputes. Faults from the shim's injector are applied to
 *  the solve (sites as in docs/ABFT.md §6, mapped in §8.1).
 */
#pragma once
#include "blas/common/shim.hpp"
#include "blas/level3/tri_op.hpp"

namespace abft::blas::l3 {

/** Solve op(E)[i0..i0+nb)^2 X = alpha B_k (side L: B_k = rows i0.. of B, nrhs columns) or
 *  X op(E)[..]^2 = alpha B_k (side R: B_k = columns i0.. of B, nrhs rows), in place,
 *  checked; the outcome is folded into pc. */
template <class T>
void trsm_leaf(ProtectedCall& pc, const TriOp<T>& E, bool left, blas_int i0, blas_int nb,
               T alpha, T* B, blas_int ldb, blas_int nrhs);

}  // namespace abft::blas::l3
