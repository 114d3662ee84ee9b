/** \file triangular_core.hpp
 *  \brief Core ?TRMV/?TBMV/?TPMV (x <- op(A)*x) and ?TRSV/?TBSV/?TPSV (x <- op(A)^-1 * x),
 *  A triangular in full, band or packed storage.
 *
 *  One algorithm per operation for the three storages (triangle_storage.hpp). op N and R
 *  (R = conj(A), the CBLAS layer's row-major ConjTrans) sweep columns as axpys; T and C
 *  sweep them as dots, each in the order that reads only entries of x not yet
 *  overwritten. For real T, C acts as T and R as N. No test for singularity or
 *  near-singularity is made, as in the reference BLAS.
 */
#pragma once
#include <algorithm>
#include <type_traits>

#include "blas/level2/level2_kernels.hpp"
#include "blas/level2/triangle_storage.hpp"

namespace abft::blas::l2 {

namespace detail {

/** Full and packed triangles are swept four columns at a time (the part of the four
 *  columns outside their diagonal block is one run of rows they share, done as one axpy4
 *  or dot4, so x is read once per four columns); band triangles one column at a time. */
template <class S>
inline constexpr bool kBlocked = !std::is_same_v<S, BandTri>;

/** One column of the triangular product (solve = false) or solve (solve = true) over the
 *  run of rows c describes: the reference algorithm's step for column j. cols: op is N
 *  or R (axpy form), else T or C (dot form, `extra` being the part of the dot already
 *  summed elsewhere). CJ: op is C or R. */
template <bool CJ, class T>
inline void tri_step(bool solve, bool cols, bool unit, blas_int j, const Column& c, const T* A,
                     T* x, T extra) {
  const T d = kern::cj<CJ>(A[c.diag]);
  if (cols) {
    if (!solve) {
      const T t = x[j];
      kern::axpy<CJ>(c.len(), t, A + c.off, x + c.lo);
      if (!unit) x[j] = kern::mul(t, d);
    } else {
      if (!unit) x[j] = x[j] / d;
      kern::axpy<CJ>(c.len(), -x[j], A + c.off, x + c.lo);
    }
  } else {
    const T dot = extra + kern::dot<CJ>(c.len(), A + c.off, x + c.lo);
    if (!solve) {
      x[j] = (unit ? x[j] : kern::mul(d, x[j])) + dot;
    } else {
      const T t = x[j] - dot;
      x[j] = unit ? t : t / d;
    }
  }
}

/** Columns j0..j0+3 of a full or packed triangle (see kBlocked), in the sweep order fwd. */
template <bool CJ, class T, class S>
void tri_block(const S& s, bool solve, bool cols, bool unit, bool fwd, blas_int j0, const T* A,
               T* x) {
  constexpr int B = 4;
  const blas_int j1 = j0 + B;
  Column c[B];
  for (int k = 0; k < B; ++k) c[k] = s.col(j0 + k);
  // The rows the four columns share outside the block: above it (upper) or below it.
  const blas_int lo = s.upper ? 0 : j1, hi = s.upper ? j0 : s.n;
  const T* p[B];
  for (int k = 0; k < B; ++k) p[k] = A + c[k].off + (lo - c[k].lo);
  T t[B], extra[B] = {};
  const auto outer_axpy = [&](bool negate) {
    for (int k = 0; k < B; ++k) t[k] = negate ? -x[j0 + k] : x[j0 + k];
    kern::axpy4<CJ>(hi - lo, t, p[0], p[1], p[2], p[3], x + lo);
  };
  if (cols && !solve) outer_axpy(false);  // uses x[j0..j1) before the block changes them
  if (!cols) kern::dot4<CJ>(hi - lo, p[0], p[1], p[2], p[3], x + lo, extra);
  for (int i = 0; i < B; ++i) {
    const int k = fwd ? i : B - 1 - i;
    Column in = c[k];  // the column's run clipped to the block's rows
    const blas_int a = std::max(in.lo, j0), b = std::min(in.hi, j1);
    in.off += a - in.lo;
    in.lo = a;
    in.hi = std::max(a, b);
    tri_step<CJ>(solve, cols, unit, j0 + k, in, A, x, extra[k]);
  }
  if (cols && solve) outer_axpy(true);  // uses the solved x[j0..j1)
}

/** x <- op(A) x or op(A)^-1 x, x contiguous. */
template <bool CJ, class T, class S>
void tri_run(const S& s, bool solve, bool cols, bool unit, blas_int n, const T* A, T* x) {
  // Columns in increasing order? (Each step must read only entries of x it may.)
  const bool fwd = solve ? cols != s.upper : cols == s.upper;
  const blas_int rest = kBlocked<S> ? n % 4 : n;  // columns [n - rest, n) go one by one
  const blas_int nb = n - rest;
  const auto singles = [&] {
    for (blas_int i = 0; i < rest; ++i) {
      const blas_int j = fwd ? nb + i : n - 1 - i;
      tri_step<CJ>(solve, cols, unit, j, s.col(j), A, x, T(0));
    }
  };
  if (!fwd) singles();
  if constexpr (kBlocked<S>) {
    for (blas_int i = 0; i < nb; i += 4)
      tri_block<CJ>(s, solve, cols, unit, fwd, fwd ? i : nb - 4 - i, A, x);
  }
  if (fwd) singles();
}

}  // namespace detail

/** x <- op(A)*x, A of order n in storage s (FullTri, BandTri or PackedTri). */
template <class T, class S>
void trmv(const S& s, Op op, Diag diag, blas_int n, const T* A, T* x, blas_int incx) {
  if (n == 0) return;
  kern::UnitVec<T> xv(x, n, incx);
  const bool cols = op == Op::N || op == Op::R, unit = diag == Diag::U;
  if (is_complex_v<T> && (op == Op::C || op == Op::R))
    detail::tri_run<true>(s, false, cols, unit, n, A, xv.data());
  else
    detail::tri_run<false>(s, false, cols, unit, n, A, xv.data());
  xv.store();
}

/** x <- op(A)^-1 * x, A of order n in storage s (FullTri, BandTri or PackedTri). */
template <class T, class S>
void trsv(const S& s, Op op, Diag diag, blas_int n, const T* A, T* x, blas_int incx) {
  if (n == 0) return;
  kern::UnitVec<T> xv(x, n, incx);
  const bool cols = op == Op::N || op == Op::R, unit = diag == Diag::U;
  if (is_complex_v<T> && (op == Op::C || op == Op::R))
    detail::tri_run<true>(s, true, cols, unit, n, A, xv.data());
  else
    detail::tri_run<false>(s, true, cols, unit, n, A, xv.data());
  xv.store();
}

}  // namespace abft::blas::l2
