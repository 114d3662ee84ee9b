/** \file rank_core.hpp
 *  \brief Core rank-1 and rank-2 updates: ?GER/?GERU/?GERC, ?SYR/?HER, ?SPR/?HPR,
 *  ?SYR2/?HER2, ?SPR2/?HPR2.
 *
 *  Each runs as one axpy (two for rank 2) per stored column. The Hermitian updates
 *  write the diagonal as real(A(j,j)) + real(update): its imaginary part is set to zero,
 *  as the reference BLAS does. The `conj` flags conjugate input vectors on the fly: the
 *  CBLAS layer maps a row-major call onto the column-major view of the transposed
 *  matrix, which for complex data needs conj(x) where the reference copies conjugated
 *  vectors.
 */
#pragma once
#include "blas/level2/level2_kernels.hpp"
#include "blas/level2/triangle_storage.hpp"

namespace abft::blas::l2 {

/** Which vector of a general rank-1 update enters conjugated. */
enum class GerConj { None, X, Y };

namespace detail {

template <bool CX, bool CY, class T>
void ger_run(blas_int m, blas_int n, T alpha, const T* x, const T* y, T* A, blas_int lda) {
  for (blas_int j = 0; j < n; ++j)
    kern::axpy<CX>(m, kern::mul(alpha, kern::cj<CY>(y[j])), x, A + kern::idx(j) * lda);
}

/** A += alpha * u*u^H with u = cj<CJ>(x), on the stored triangle. */
template <bool CJ, class T, class S>
void her_run(const S& s, blas_int n, real_t<T> alpha, const T* x, T* A) {
  for (blas_int j = 0; j < n; ++j) {
    const Column c = s.col(j);
    const T uj = kern::cj<CJ>(x[j]);
    const T t = kern::mul(T(alpha), conj_if(uj));
    kern::axpy<CJ>(c.len(), t, x + c.lo, A + c.off);
    A[c.diag] = kern::re(A[c.diag]) + kern::re(kern::mul(uj, t));
  }
}

/** A += alpha*u*v^H + conj(alpha)*v*u^H with u = cj<CJ>(x), v = cj<CJ>(y). */
template <bool CJ, class T, class S>
void her2_run(const S& s, blas_int n, T alpha, const T* x, const T* y, T* A) {
  for (blas_int j = 0; j < n; ++j) {
    const Column c = s.col(j);
    const T uj = kern::cj<CJ>(x[j]), vj = kern::cj<CJ>(y[j]);
    const T t1 = kern::mul(alpha, conj_if(vj)), t2 = conj_if(kern::mul(alpha, uj));
    kern::axpy2<CJ>(c.len(), t1, x + c.lo, t2, y + c.lo, A + c.off);
    A[c.diag] = kern::re(A[c.diag]) + kern::re(kern::mul(uj, t1) + kern::mul(vj, t2));
  }
}

}  // namespace detail

/** A <- alpha * x' * y'^T + A, A m-by-n; x' = conj(x) if which == X, y' = conj(y) if
 *  which == Y (GERC), else the vectors as given (GER, GERU). */
template <class T>
void ger(blas_int m, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
         blas_int incy, T* A, blas_int lda, GerConj which) {
  if (m == 0 || n == 0 || alpha == T(0)) return;
  kern::UnitVec<const T> xv(x, m, incx), yv(y, n, incy);
  if (is_complex_v<T> && which == GerConj::X)
    detail::ger_run<true, false>(m, n, alpha, xv.data(), yv.data(), A, lda);
  else if (is_complex_v<T> && which == GerConj::Y)
    detail::ger_run<false, true>(m, n, alpha, xv.data(), yv.data(), A, lda);
  else
    detail::ger_run<false, false>(m, n, alpha, xv.data(), yv.data(), A, lda);
}

/** A <- alpha*u*u^H + A (u = conj(x) if conj, else x) on the triangle of storage s;
 *  alpha is real (?SYR, ?SPR, ?HER, ?HPR). */
template <class T, class S>
void her(const S& s, blas_int n, real_t<T> alpha, const T* x, blas_int incx, T* A, bool conj) {
  if (n == 0 || alpha == real_t<T>(0)) return;
  kern::UnitVec<const T> xv(x, n, incx);
  if (is_complex_v<T> && conj) detail::her_run<true>(s, n, alpha, xv.data(), A);
  else detail::her_run<false>(s, n, alpha, xv.data(), A);
}

/** A <- alpha*u*v^H + conj(alpha)*v*u^H + A (u, v = conj(x), conj(y) if conj) on the
 *  triangle of storage s (?SYR2, ?SPR2, ?HER2, ?HPR2). */
template <class T, class S>
void her2(const S& s, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
          blas_int incy, T* A, bool conj) {
  if (n == 0 || alpha == T(0)) return;
  kern::UnitVec<const T> xv(x, n, incx), yv(y, n, incy);
  if (is_complex_v<T> && conj) detail::her2_run<true>(s, n, alpha, xv.data(), yv.data(), A);
  else detail::her2_run<false>(s, n, alpha, xv.data(), yv.data(), A);
}

}  // namespace abft::blas::l2
