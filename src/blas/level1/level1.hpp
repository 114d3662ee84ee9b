/** \file level1.hpp
 *  \brief Core of the BLAS Level 1: vector kernels over T in {float, double, cfloat, cdouble}.
 *
 *  Layer "core" of the shim (blas_types.hpp): arguments are valid (Level 1 has no argument
 *  errors, so the Fortran and CBLAS entries call these directly). Semantics are those of the
 *  reference BLAS 3.11:
 *    - n <= 0 is a quick return (0 for functions);
 *    - a negative increment walks the vector backwards: the first element visited is
 *      x[(1-n)*inc], as the reference does; inc == 0 revisits x[0];
 *    - asum, scal and iamax return at once (0) for incx <= 0; nrm2 and the two-vector
 *      routines accept any increment;
 *    - complex products are formed as Fortran does (no C99 Annex G rescue of NaN results),
 *      and complex iamax/asum measure |re| + |im|.
 *  Unit-stride paths are separate loops the compiler vectorises; reductions keep several
 *  partial sums (lanes) so that they vectorise without -ffast-math, which changes only the
 *  rounding of sums: element-wise routines give the reference's results bit for bit, and
 *  real dot/asum with n below the lane count too (same left-to-right order). Complex dot
 *  products are formed as four real sums (cdot_unit).
 *  nrm2 and iamax are in level1_norms.hpp, the rotation constructors (rotg, rotmg) in
 *  level1_rotg.hpp; both are included at the end.
 */
#pragma once
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

#include "blas/common/blas_types.hpp"

namespace abft::blas::level1 {

using idx = std::ptrdiff_t;

/** Offset of the first element a reference loop visits: (1-n)*inc for inc < 0, else 0. */
inline idx origin(blas_int n, blas_int inc) { return inc < 0 ? idx(1 - n) * idx(inc) : 0; }

/** The real components of an array (complex numbers are interleaved (re, im) pairs, a layout
 *  the C++ standard guarantees for std::complex). */
template <class T> inline real_t<T>* comps(T* p) { return reinterpret_cast<real_t<T>*>(p); }
template <class T> inline const real_t<T>* comps(const T* p) {
  return reinterpret_cast<const real_t<T>*>(p);
}
/** Number of real components in n elements of T. */
template <class T> constexpr idx ncomps(idx n) { return is_complex_v<T> ? 2 * n : n; }

/** Product as Fortran forms it: the textbook formula for complex operands. */
template <class R> inline R mul(R a, R b) { return a * b; }
template <class R> inline std::complex<R> mul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
/** |x| for real, |re| + |im| for complex (the reference's CABS1), branch-free. */
template <class R> inline R mag(R x) { return std::abs(x); }
template <class R> inline R mag(std::complex<R> x) {
  return std::abs(x.real()) + std::abs(x.imag());
}
/** Real scalar times real or complex element (componentwise for complex). */
template <class R> inline R scale(R a, R x) { return a * x; }
template <class R> inline std::complex<R> scale(R a, std::complex<R> x) {
  return {a * x.real(), a * x.imag()};
}

// ---------------------------------------------------------------------------------------
// Traversal helpers

/** f(x_i) for the n elements of a strided vector, in reference order. */
template <class X, class F> inline void each(blas_int n, X* x, blas_int incx, F f) {
  if (incx == 1) {
    for (idx i = 0; i < n; ++i) f(x[i]);
    return;
  }
  idx ix = origin(n, incx);
  for (blas_int i = 0; i < n; ++i, ix += incx) f(x[ix]);
}

/** f(x_i, y_i) for the n element pairs of two strided vectors, in reference order. */
template <class X, class Y, class F>
inline void zip(blas_int n, X* x, blas_int incx, Y* y, blas_int incy, F f) {
  if (incx == 1 && incy == 1) {
    for (idx i = 0; i < n; ++i) f(x[i], y[i]);
    return;
  }
  idx ix = origin(n, incx), iy = origin(n, incy);
  for (blas_int i = 0; i < n; ++i, ix += incx, iy += incy) f(x[ix], y[iy]);
}

/** Partial sums kept apart in a unit-stride reduction (two or four SIMD registers). */
template <class A> constexpr int lane_count() { return sizeof(A) == 4 ? 16 : 8; }

/** init + sum of term(i), i = 0..m-1, with lane_count() partial sums. When m is below the
 *  lane count the sum is formed left to right from init, exactly as a plain loop. */
template <class A, class F> inline A lane_sum(idx m, A init, F term) {
  constexpr int L = lane_count<A>();
  if (m < L) {
    for (idx i = 0; i < m; ++i) init += term(i);
    return init;
  }
  A acc[L] = {};
  const idx full = m - m % L;
  for (idx i = 0; i < full; i += L)
    for (int j = 0; j < L; ++j) acc[j] += term(i + j);
  for (int w = L / 2; w > 0; w /= 2)  // pairwise fold of the lanes
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  for (idx i = full; i < m; ++i) acc[0] += term(i);
  init += acc[0];
  return init;
}

// ---------------------------------------------------------------------------------------
// Vector updates

/** x <-> y. */
template <class T> void swap(blas_int n, T* x, blas_int incx, T* y, blas_int incy) {
  if (n <= 0) return;
  zip(n, x, incx, y, incy, [](T& a, T& b) {
    const T t = a;
    a = b;
    b = t;
  });
}

/** y <- x. */
template <class T> void copy(blas_int n, const T* x, blas_int incx, T* y, blas_int incy) {
  if (n <= 0) return;
  zip(n, x, incx, y, incy, [](const T& a, T& b) { b = a; });
}

/** y <- alpha*x + y; nothing is read when alpha == 0. */
template <class T>
void axpy(blas_int n, T alpha, const T* x, blas_int incx, T* y, blas_int incy) {
  if (n <= 0 || mag(alpha) == real_t<T>(0)) return;
  zip(n, x, incx, y, incy, [alpha](const T& a, T& b) { b = b + mul(alpha, a); });
}

/** x <- alpha*x, S = T or (for csscal/zdscal) real_t<T>. alpha == 0 multiplies (NaN and
 *  Inf give NaN, as the reference); alpha == 1 returns at once, as reference 3.11 does. */
template <class T, class S> void scal(blas_int n, S alpha, T* x, blas_int incx) {
  if (n <= 0 || incx <= 0 || alpha == S(1)) return;
  if constexpr (is_complex_v<T> && !is_complex_v<S>) {
    if (incx == 1) {  // a real scale of interleaved components
      real_t<T>* c = comps(x);
      for (idx i = 0, m = ncomps<T>(n); i < m; ++i) c[i] = alpha * c[i];
      return;
    }
    each(n, x, incx, [alpha](T& v) { v = scale(alpha, v); });
  } else {
    each(n, x, incx, [alpha](T& v) { v = mul(alpha, v); });
  }
}

/** Plane rotation with real c, s: (x, y) <- (c*x + s*y, c*y - s*x); for complex vectors
 *  (csrot, zdrot) it acts on real and imaginary parts alike. */
template <class T, class R = real_t<T>>
void rot(blas_int n, T* x, blas_int incx, T* y, blas_int incy, R c, R s) {
  if (n <= 0) return;
  if constexpr (is_complex_v<T>) {
    if (incx == 1 && incy == 1) {
      rot(blas_int(2 * idx(n)), comps(x), 1, comps(y), 1, c, s);
      return;
    }
  }
  zip(n, x, incx, y, incy, [c, s](T& a, T& b) {
    const T t = scale(c, a) + scale(s, b);
    b = scale(c, b) - scale(s, a);
    a = t;
  });
}

/** Modified rotation (x, y) <- H (x, y) with H encoded in param = {flag, h11, h21, h12, h22}:
 *  flag -1 full H, 0 unit diagonal, 1 h12 = 1 and h21 = -1, -2 identity (nothing to do). */
template <class R>
void rotm(blas_int n, R* x, blas_int incx, R* y, blas_int incy, const R* param) {
  const R flag = param[0];
  if (n <= 0 || flag + R(2) == R(0)) return;
  const R h11 = param[1], h21 = param[2], h12 = param[3], h22 = param[4];
  if (flag < R(0)) {
    zip(n, x, incx, y, incy, [=](R& a, R& b) {
      const R w = a, z = b;
      a = w * h11 + z * h12;
      b = w * h21 + z * h22;
    });
  } else if (flag == R(0)) {
    zip(n, x, incx, y, incy, [=](R& a, R& b) {
      const R w = a, z = b;
      a = w + z * h12;
      b = w * h21 + z;
    });
  } else {
    zip(n, x, incx, y, incy, [=](R& a, R& b) {
      const R w = a, z = b;
      a = w * h11 + z;
      b = -w + h22 * z;
    });
  }
}

// ---------------------------------------------------------------------------------------
// Reductions

/** init + sum over i of term(x_i, y_i), accumulated in A (lanes for unit strides). */
template <class A, class X, class Y, class F>
inline A dot_reduce(blas_int n, const X* x, blas_int incx, const Y* y, blas_int incy, A init,
                    F term) {
  if (n <= 0) return init;
  if (incx == 1 && incy == 1) return lane_sum<A>(n, init, [&](idx i) { return term(x[i], y[i]); });
  zip(n, x, incx, y, incy, [&](const X& a, const Y& b) { init += term(a, b); });
  return init;
}

/** Unit-stride complex dot product over the interleaved components a = (xr, xi, ...) and
 *  b = (yr, yi, ...). Four real sums, kept in lanes over the component index k:
 *    p_k = a_k b_k      (even k: xr yr, odd k: xi yi)
 *    q_k = a_k b_(k^1)  (even k: xr yi, odd k: xi yr)
 *  x^T y = (sum xr yr - sum xi yi, sum xr yi + sum xi yr); conj(x)^T y flips both signs.
 *  Contiguous in k, so it vectorises with only an in-register swap of pairs. */
template <class R>
inline std::complex<R> cdot_unit(idx n, const R* a, const R* b, bool conjugate) {
  constexpr int L = lane_count<R>();  // even: lanes keep the real/imaginary parity of k
  R p[L] = {}, q[L] = {};
  const idx m = 2 * n, full = m - m % L;
  for (idx k = 0; k < full; k += L)
    for (int j = 0; j < L; ++j) {
      p[j] += a[k + j] * b[k + j];
      q[j] += a[k + j] * b[k + (j ^ 1)];
    }
  for (idx k = full; k < m; ++k) {
    p[k - full] += a[k] * b[k];
    q[k - full] += a[k] * b[k ^ 1];
  }
  R rr = 0, ii = 0, ri = 0, ir = 0;  // sums of xr yr, xi yi, xr yi, xi yr
  for (int j = 0; j < L; j += 2) {
    rr += p[j];
    ii += p[j + 1];
    ri += q[j];
    ir += q[j + 1];
  }
  return conjugate ? std::complex<R>(rr + ii, ri - ir) : std::complex<R>(rr - ii, ri + ir);
}

/** x^T y (real) or x^T y unconjugated (complex: dotu). */
template <class T> T dotu(blas_int n, const T* x, blas_int incx, const T* y, blas_int incy) {
  if constexpr (is_complex_v<T>) {
    if (n > 0 && incx == 1 && incy == 1) return cdot_unit(n, comps(x), comps(y), false);
  }
  return dot_reduce<T>(n, x, incx, y, incy, T(0),
                       [](const T& a, const T& b) { return mul(a, b); });
}

/** x^H y (conj(x) . y); for real T the same as dotu. */
template <class T> T dotc(blas_int n, const T* x, blas_int incx, const T* y, blas_int incy) {
  if constexpr (is_complex_v<T>) {
    if (n > 0 && incx == 1 && incy == 1) return cdot_unit(n, comps(x), comps(y), true);
  }
  return dot_reduce<T>(n, x, incx, y, incy, T(0),
                       [](const T& a, const T& b) { return mul(conj_if(a), b); });
}

/** init + x^T y for float vectors, products and sum in double (sdsdot / dsdot). */
inline double dot_double(blas_int n, double init, const float* x, blas_int incx, const float* y,
                         blas_int incy) {
  return dot_reduce<double>(n, x, incx, y, incy, init,
                            [](float a, float b) { return double(a) * double(b); });
}

/** sum |x_i| (real) or sum |re| + |im| (complex); 0 when incx <= 0. */
template <class T> real_t<T> asum(blas_int n, const T* x, blas_int incx) {
  using R = real_t<T>;
  if (n <= 0 || incx <= 0) return R(0);
  if (incx == 1) {
    const R* c = comps(x);
    return lane_sum<R>(ncomps<T>(n), R(0), [c](idx i) { return std::abs(c[i]); });
  }
  R s = 0;
  each(n, x, incx, [&s](const T& v) {
    if constexpr (is_complex_v<T>) {
      s += std::abs(v.real());
      s += std::abs(v.imag());
    } else {
      s += std::abs(v);
    }
  });
  return s;
}

}  // namespace abft::blas::level1

#include "blas/level1/level1_norms.hpp"
#include "blas/level1/level1_rotg.hpp"
