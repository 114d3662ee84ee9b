/** \file trsm.cpp
 *  \brief ?TRSM: blocked substitution whose updates are protected GEMMs and whose diagonal
 *  blocks are checked solves (trsm_leaf.hpp).
 *
 *  Recursion on op(A)'s block structure. For effectively lower op(A) and side L,
 *
 *      [E11  0 ] [X1]           [B1]       X1 = solve(E11, alpha B1)
 *      [E21 E22] [X2] = alpha * [B2]       B2 <- alpha B2 - E21 X1   (one GEMM, beta = alpha)
 *                                          X2 = solve(E22, B2)
 *
 *  and symmetrically for the other three cases, so alpha is applied exactly once to every
 *  element of B (by the first leaf, or as the beta of the GEMM that updates it). A leaf has
 *  at most kTrsmLeaf rows (side L) or columns (side R).
 */
#include <new>

#include "blas/level3/gemm_core.hpp"
#include "blas/level3/level3.hpp"
#include "blas/level3/tri_op.hpp"
#include "blas/level3/trsm_leaf.hpp"

namespace abft::blas::l3 {
namespace {

template <class T>
class Trsm {
 public:
  Trsm(ProtectedCall& pc, const TriOp<T>& E, bool left, blas_int m, blas_int n, T* B,
       blas_int ldb)
      : pc_(pc), E_(E), left_(left), m_(m), n_(n), B_(B), ldb_(ldb) {}

  /** Solve for B's rows (side L) or columns (side R) i0 + (0..nb), right-hand side scaled by a. */
  void run(blas_int i0, blas_int nb, T a) {
    if (nb <= kTrsmLeaf) {
      trsm_leaf<T>(pc_, E_, left_, i0, nb, a, B_, ldb_, left_ ? n_ : m_);
      return;
    }
    const blas_int n1 = split_point(nb, kTrsmLeaf), n2 = nb - n1;
    const blas_int i1 = i0 + n1;
    const Op g = E_.gop();
    const T minus1 = T(-1);
    if (left_) {
      if (!E_.eff_upper()) {  // X1 first; B2 <- a B2 - E21 X1
        run(i0, n1, a);
        gemm_core<T>(pc_, g, Op::N, n2, n_, n1, minus1, E_.block(i1, i0), E_.lda, row(i0), ldb_, a,
                     row(i1), ldb_);
        run(i1, n2, T(1));
      } else {  // X2 first; B1 <- a B1 - E12 X2
        run(i1, n2, a);
        gemm_core<T>(pc_, g, Op::N, n1, n_, n2, minus1, E_.block(i0, i1), E_.lda, row(i1), ldb_, a,
                     row(i0), ldb_);
        run(i0, n1, T(1));
      }
    } else {
      if (E_.eff_upper()) {  // X1 E11 = a B1 first; B2 <- a B2 - X1 E12
        run(i0, n1, a);
        gemm_core<T>(pc_, Op::N, g, m_, n2, n1, minus1, col(i0), ldb_, E_.block(i0, i1), E_.lda, a,
                     col(i1), ldb_);
        run(i1, n2, T(1));
      } else {  // X2 E22 = a B2 first; B1 <- a B1 - X2 E21
        run(i1, n2, a);
        gemm_core<T>(pc_, Op::N, g, m_, n1, n2, minus1, col(i1), ldb_, E_.block(i1, i0), E_.lda, a,
                     col(i0), ldb_);
        run(i0, n1, T(1));
      }
    }
  }

 private:
  T* row(blas_int i) const { return B_ + i; }
  T* col(blas_int j) const { return B_ + std::size_t(j) * ldb_; }

  ProtectedCall& pc_;
  TriOp<T> E_;
  bool left_;
  blas_int m_, n_;
  T* B_;
  blas_int ldb_;
};

}  // namespace

template <class T>
void trsm(Routine r, Side side, Uplo uplo, Op transa, Diag diag, blas_int m, blas_int n,
          T alpha, const T* A, blas_int lda, T* B, blas_int ldb) {
  triangular_call<T>(r, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb,
                     [&](ProtectedCall& pc, const TriOp<T>& E, bool left) {
                       Trsm<T>(pc, E, left, m, n, B, ldb).run(0, left ? m : n, alpha);
                     });
}

#define ABFT_L3_TRSM(T)                                                                      \
  template void trsm<T>(Routine, Side, Uplo, Op, Diag, blas_int, blas_int, T, const T*,       \
                        blas_int, T*, blas_int);
ABFT_L3_TRSM(float)
ABFT_L3_TRSM(double)
ABFT_L3_TRSM(cfloat)
ABFT_L3_TRSM(cdouble)
#undef ABFT_L3_TRSM

}  // namespace abft::blas::l3
