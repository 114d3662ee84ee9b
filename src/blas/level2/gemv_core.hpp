/** \file gemv_core.hpp
 *  \brief Core ?GEMV and ?GBMV: y <- alpha*op(A)*x + beta*y, general and band, column-major.
 *
 *  op in {N, T, C, R}; R (conj(A), no transpose) is how the CBLAS layer expresses a
 *  row-major ConjTrans call. For real T, C acts as T and R as N. Arguments are valid
 *  (the Fortran-style entry has checked them). Reference semantics: m == 0, n == 0 or
 *  (alpha == 0 and beta == 1) return at once; beta == 0 sets y to zero without reading
 *  it; alpha == 0 never reads A or x.
 *  N and R run as axpys over columns (four at a time, one pass over y), T and C as dots
 *  (four columns at a time, one pass over x); strided vectors are packed first. Large
 *  products split y across OpenMP threads.
 */
#pragma once
#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "blas/level2/level2_kernels.hpp"

namespace abft::blas::l2 {

namespace detail {

/** Products at least this large (m*n, beyond the caches) use several threads. */
inline constexpr long long kGemvParallelWork = 1LL << 21;

inline int gemv_threads(blas_int m, blas_int n) {
#ifdef _OPENMP
  if ((long long)m * n < kGemvParallelWork || omp_in_parallel()) return 1;
  return omp_get_max_threads();
#else
  (void)m;
  (void)n;
  return 1;
#endif
}

/** y[r0..r1) += alpha * cj(A)[r0..r1, :] * x; x, y contiguous. */
template <bool CJ, class T>
void gemv_cols(blas_int r0, blas_int r1, blas_int n, T alpha, const T* A, blas_int lda,
               const T* x, T* y) {
  using kern::idx;
  const idx len = r1 - r0;
  if (len <= 0) return;
  const T* a = A + r0;
  T* yy = y + r0;
  blas_int j = 0;
  for (; j + 4 <= n; j += 4) {
    const T t[4] = {kern::mul(alpha, x[j]), kern::mul(alpha, x[j + 1]), kern::mul(alpha, x[j + 2]),
                    kern::mul(alpha, x[j + 3])};
    const T* c = a + idx(j) * lda;
    kern::axpy4<CJ>(len, t, c, c + lda, c + 2 * idx(lda), c + 3 * idx(lda), yy);
  }
  for (; j < n; ++j) kern::axpy<CJ>(len, kern::mul(alpha, x[j]), a + idx(j) * lda, yy);
}

/** y[j] += alpha * sum_i cj(A(i,j)) x[i] for j in [c0, c1); x, y contiguous. */
template <bool CJ, class T>
void gemv_dots(blas_int c0, blas_int c1, blas_int m, T alpha, const T* A, blas_int lda,
               const T* x, T* y) {
  using kern::idx;
  blas_int j = c0;
  for (; j + 4 <= c1; j += 4) {
    const T* a = A + idx(j) * lda;
    T s[4];
    kern::dot4<CJ>(m, a, a + lda, a + 2 * idx(lda), a + 3 * idx(lda), x, s);
    for (int k = 0; k < 4; ++k) y[j + k] += kern::mul(alpha, s[k]);
  }
  for (; j < c1; ++j) y[j] += kern::mul(alpha, kern::dot<CJ>(m, A + idx(j) * lda, x));
}

/** Even split of [0, len) into `parts` blocks, block b = [lo, hi). */
inline void split(blas_int len, int parts, int b, blas_int& lo, blas_int& hi) {
  const long long q = len / parts, r = len % parts;
  lo = blas_int(b * q + std::min<long long>(b, r));
  hi = blas_int(lo + q + (b < r ? 1 : 0));
}

template <bool CJ, class T>
void gemv_run(bool cols, blas_int m, blas_int n, T alpha, const T* A, blas_int lda,
              const T* x, T* y) {
  const int nt = gemv_threads(m, n);
  if (nt <= 1) {
    if (cols) gemv_cols<CJ>(0, m, n, alpha, A, lda, x, y);
    else gemv_dots<CJ>(0, n, m, alpha, A, lda, x, y);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    const int parts = omp_get_num_threads(), b = omp_get_thread_num();
#else
    const int parts = 1, b = 0;
#endif
    blas_int lo, hi;
    split(cols ? m : n, parts, b, lo, hi);
    if (cols) gemv_cols<CJ>(lo, hi, n, alpha, A, lda, x, y);
    else gemv_dots<CJ>(lo, hi, m, alpha, A, lda, x, y);
  }
}

}  // namespace detail

/** y <- alpha*op(A)*x + beta*y; A is m-by-n. */
template <class T>
void gemv(Op op, blas_int m, blas_int n, T alpha, const T* A, blas_int lda, const T* x,
          blas_int incx, T beta, T* y, blas_int incy) {
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  const bool cols = op == Op::N || op == Op::R;
  const blas_int leny = cols ? m : n, lenx = cols ? n : m;
  kern::scale(leny, beta, y, incy);
  if (alpha == T(0)) return;
  kern::UnitVec<const T> xv(x, lenx, incx);
  kern::UnitVec<T> yv(y, leny, incy);
  const bool conj = is_complex_v<T> && (op == Op::R || op == Op::C);
  if (conj) detail::gemv_run<true>(cols, m, n, alpha, A, lda, xv.data(), yv.data());
  else detail::gemv_run<false>(cols, m, n, alpha, A, lda, xv.data(), yv.data());
  yv.store();
}

namespace detail {

template <bool CJ, class T>
void gbmv_run(bool cols, blas_int m, blas_int n, blas_int kl, blas_int ku, T alpha,
              const T* A, blas_int lda, const T* x, T* y) {
  using kern::idx;
  for (blas_int j = 0; j < n; ++j) {
    const blas_int lo = std::max<blas_int>(0, j - ku), hi = std::min<blas_int>(m, j + kl + 1);
    if (hi <= lo) continue;
    const T* a = A + idx(j) * lda + (ku + lo - j);
    if (cols) kern::axpy<CJ>(hi - lo, kern::mul(alpha, x[j]), a, y + lo);
    else y[j] += kern::mul(alpha, kern::dot<CJ>(hi - lo, a, x + lo));
  }
}

}  // namespace detail

/** y <- alpha*op(A)*x + beta*y; A is m-by-n with kl sub- and ku super-diagonals, in band
 *  storage (A(i,j) at A[ku + i - j + j*lda]). */
template <class T>
void gbmv(Op op, blas_int m, blas_int n, blas_int kl, blas_int ku, T alpha, const T* A,
          blas_int lda, const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  const bool cols = op == Op::N || op == Op::R;
  const blas_int leny = cols ? m : n, lenx = cols ? n : m;
  kern::scale(leny, beta, y, incy);
  if (alpha == T(0)) return;
  kern::UnitVec<const T> xv(x, lenx, incx);
  kern::UnitVec<T> yv(y, leny, incy);
  const bool conj = is_complex_v<T> && (op == Op::R || op == Op::C);
  if (conj) detail::gbmv_run<true>(cols, m, n, kl, ku, alpha, A, lda, xv.data(), yv.data());
  else detail::gbmv_run<false>(cols, m, n, kl, ku, alpha, A, lda, xv.data(), yv.data());
  yv.store();
}

}  // namespace abft::blas::l2
