/** \file hemv_core.hpp
 *  \brief Core ?SYMV/?HEMV, ?SBMV/?HBMV, ?SPMV/?HPMV: y <- alpha*H*x + beta*y with H
 *  Hermitian (symmetric for real T), one triangle stored in full, band or packed form.
 *
 *  One algorithm for the three storages (triangle_storage.hpp): for each column j of the
 *  stored triangle, one fused pass updates y over the column's off-diagonal run
 *  (y += alpha*x[j]*A(:,j)) and accumulates the mirrored row's contribution to y[j]
 *  (conj(A(:,j)) . x). The imaginary part of the diagonal is not referenced, as in the
 *  reference BLAS. conj_a multiplies by conj(H) instead (= H^T): how the CBLAS layer runs a
 *  row-major call on the column-major view of the other triangle without copying vectors.
 */
#pragma once
#include <algorithm>
#include <type_traits>

#include "blas/level2/level2_kernels.hpp"
#include "blas/level2/triangle_storage.hpp"

namespace abft::blas::l2 {

namespace detail {

/** Column j (its stored run c): y[run] += t*A(run,j), and y[j] gets the diagonal term and
 *  the mirrored row's dot (plus `extra`, the part of that dot summed elsewhere). */
template <bool CA, class T>
inline void hemv_step(blas_int j, const Column& c, T alpha, const T* A, const T* x, T* y,
                      T extra) {
  const T t = kern::mul(alpha, x[j]);
  const T dot = extra + kern::axpy_dot<CA, !CA>(c.len(), t, A + c.off, y + c.lo, x + c.lo);
  y[j] += kern::mul(t, kern::re(A[c.diag])) + kern::mul(alpha, dot);
}

template <bool CA, class T, class S>
void hemv_run(const S& s, blas_int n, T alpha, const T* A, const T* x, T* y) {
  blas_int j = 0;
  // Full and packed storage: four columns at a time over the rows they share outside
  // their diagonal block (one pass over x and y for four columns).
  if constexpr (!std::is_same_v<S, BandTri>) {
    for (; j + 4 <= n; j += 4) {
      const blas_int j1 = j + 4, lo = s.upper ? 0 : j1, hi = s.upper ? j : n;
      Column c[4];
      const T* p[4];
      T t[4], extra[4];
      for (int k = 0; k < 4; ++k) {
        c[k] = s.col(j + k);
        p[k] = A + c[k].off + (lo - c[k].lo);
        t[k] = kern::mul(alpha, x[j + k]);
      }
      kern::axpy4_dot4<CA, !CA>(hi - lo, t, p[0], p[1], p[2], p[3], y + lo, x + lo, extra);
      for (int k = 0; k < 4; ++k) {
        Column in = c[k];  // the run clipped to the block's rows
        const blas_int a = std::max(in.lo, j), b = std::min(in.hi, j1);
        in.off += a - in.lo;
        in.lo = a;
        in.hi = std::max(a, b);
        hemv_step<CA>(j + k, in, alpha, A, x, y, extra[k]);
      }
    }
  }
  for (; j < n; ++j) hemv_step<CA>(j, s.col(j), alpha, A, x, y, T(0));
}

}  // namespace detail

/** y <- alpha*H*x + beta*y (or conj(H) if conj_a) for H of order n in storage s (FullTri,
 *  BandTri or PackedTri). n == 0 or (alpha == 0 and beta == 1) return at once. */
template <class T, class S>
void hemv(const S& s, blas_int n, T alpha, const T* A, const T* x, blas_int incx, T beta,
          T* y, blas_int incy, bool conj_a) {
  if (n == 0 || (alpha == T(0) && beta == T(1))) return;
  kern::scale(n, beta, y, incy);
  if (alpha == T(0)) return;
  kern::UnitVec<const T> xv(x, n, incx);
  kern::UnitVec<T> yv(y, n, incy);
  if (is_complex_v<T> && conj_a) detail::hemv_run<true>(s, n, alpha, A, xv.data(), yv.data());
  else detail::hemv_run<false>(s, n, alpha, A, xv.data(), yv.data());
  yv.store();
}

}  // namespace abft::blas::l2
