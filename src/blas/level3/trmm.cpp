/** \file trmm.cpp
 *  \brief ?TRMM on the protected GEMM: B <- alpha op(A) B or alpha B op(A), in place.
 *
 *  Recursion on op(A)'s block structure. For effectively upper op(A) and side L,
 *
 *      [B1]            [E11 E12] [B1]        B1 <- alpha E11 B1 + alpha E12 B2   (B2 still old)
 *      [B2] <- alpha * [ 0  E22] [B2]        B2 <- alpha E22 B2
 *
 *  so the first half is done in place, then the off-diagonal product is one protected GEMM
 *  accumulated into it (beta = 1), then the second half; the other three cases order the
 *  halves so that every GEMM reads a part of B that is not yet overwritten. A leaf (at most
 *  kTrmmLeaf) is one protected GEMM of the dense diagonal block of op(A) (explicit zeros,
 *  ones on a unit diagonal; only A's triangle is read) with a copy of B's slice, written
 *  back with beta = 0. The copies are taken in chunks of columns (side L) or rows (side R).
 */
#include <algorithm>
#include <new>
#include <vector>

#include "blas/level3/gemm_core.hpp"
#include "blas/level3/level3.hpp"
#include "blas/level3/tri_op.hpp"

namespace abft::blas::l3 {
namespace {

constexpr std::size_t kChunkElems = std::size_t(1) << 20;  // workspace copy of B, per leaf

template <class T>
class Trmm {
 public:
  Trmm(ProtectedCall& pc, const TriOp<T>& E, bool left, blas_int m, blas_int n, T alpha, T* B,
       blas_int ldb)
      : pc_(pc), E_(E), left_(left), m_(m), n_(n), alpha_(alpha), B_(B), ldb_(ldb) {}

  /** Apply op(A)[i0 + (0..nb)]^2 to B's rows (side L) or columns (side R) i0 + (0..nb). */
  void run(blas_int i0, blas_int nb) {
    if (nb <= kTrmmLeaf) {
      leaf(i0, nb);
      return;
    }
    const blas_int n1 = split_point(nb, kTrmmLeaf), n2 = nb - n1;
    const blas_int i1 = i0 + n1;
    const Op g = E_.gop();
    if (left_) {
      if (E_.eff_upper()) {  // B1 <- alpha (E11 B1 + E12 B2); B2 <- alpha E22 B2
        run(i0, n1);
        gemm_core<T>(pc_, g, Op::N, n1, n_, n2, alpha_, E_.block(i0, i1), E_.lda, row(i1), ldb_,
                     T(1), row(i0), ldb_);
        run(i1, n2);
      } else {  // B2 <- alpha (E21 B1 + E22 B2); B1 <- alpha E11 B1
        run(i1, n2);
        gemm_core<T>(pc_, g, Op::N, n2, n_, n1, alpha_, E_.block(i1, i0), E_.lda, row(i0), ldb_,
                     T(1), row(i1), ldb_);
        run(i0, n1);
      }
    } else {
      if (E_.eff_upper()) {  // B2 <- alpha (B1 E12 + B2 E22); B1 <- alpha B1 E11
        run(i1, n2);
        gemm_core<T>(pc_, Op::N, g, m_, n2, n1, alpha_, col(i0), ldb_, E_.block(i0, i1), E_.lda,
                     T(1), col(i1), ldb_);
        run(i0, n1);
      } else {  // B1 <- alpha (B1 E11 + B2 E21); B2 <- alpha B2 E22
        run(i0, n1);
        gemm_core<T>(pc_, Op::N, g, m_, n1, n2, alpha_, col(i1), ldb_, E_.block(i1, i0), E_.lda,
                     T(1), col(i0), ldb_);
        run(i1, n2);
      }
    }
  }

 private:
  T* row(blas_int i) const { return B_ + i; }
  T* col(blas_int j) const { return B_ + std::size_t(j) * ldb_; }

  void leaf(blas_int i0, blas_int nb) {
    W_.resize(std::size_t(nb) * nb);
    E_.expand_diag(i0, nb, W_.data());
    const blas_int other = left_ ? n_ : m_;  // B's extent along the side not being cut
    const blas_int chunk = blas_int(std::max<std::size_t>(1, kChunkElems / std::size_t(nb)));
    for (blas_int c0 = 0; c0 < other; c0 += chunk) {
      const blas_int cw = std::min(chunk, other - c0);
      Bw_.resize(std::size_t(nb) * cw);
      if (left_) {  // Bw (nb x cw) = B[i0.., c0..]; B[i0.., c0..] = alpha W Bw
        for (blas_int j = 0; j < cw; ++j)
          std::copy_n(B_ + i0 + std::size_t(c0 + j) * ldb_, nb, Bw_.data() + std::size_t(j) * nb);
        gemm_core<T>(pc_, Op::N, Op::N, nb, cw, nb, alpha_, W_.data(), nb, Bw_.data(), nb, T(0),
                     B_ + i0 + std::size_t(c0) * ldb_, ldb_);
      } else {  // Bw (cw x nb) = B[c0.., i0..]; B[c0.., i0..] = alpha Bw W
        for (blas_int j = 0; j < nb; ++j)
          std::copy_n(B_ + c0 + std::size_t(i0 + j) * ldb_, cw, Bw_.data() + std::size_t(j) * cw);
        gemm_core<T>(pc_, Op::N, Op::N, cw, nb, nb, alpha_, Bw_.data(), cw, W_.data(), nb, T(0),
                     B_ + c0 + std::size_t(i0) * ldb_, ldb_);
      }
    }
  }

  ProtectedCall& pc_;
  TriOp<T> E_;
  bool left_;
  blas_int m_, n_;
  T alpha_;
  T* B_;
  blas_int ldb_;
  std::vector<T> W_, Bw_;
};

}  // namespace

template <class T>
void trmm(Routine r, Side side, Uplo uplo, Op transa, Diag diag, blas_int m, blas_int n,
          T alpha, const T* A, blas_int lda, T* B, blas_int ldb) {
  triangular_call<T>(r, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb,
                     [&](ProtectedCall& pc, const TriOp<T>& E, bool left) {
                       Trmm<T>(pc, E, left, m, n, alpha, B, ldb).run(0, left ? m : n);
                     });
}

#define ABFT_L3_TRMM(T)                                                                      \
  template void trmm<T>(Routine, Side, Uplo, Op, Diag, blas_int, blas_int, T, const T*,       \
                        blas_int, T*, blas_int);
ABFT_L3_TRMM(float)
ABFT_L3_TRMM(double)
ABFT_L3_TRMM(cfloat)
ABFT_L3_TRMM(cdouble)
#undef ABFT_L3_TRMM

}  // namespace abft::blas::l3
