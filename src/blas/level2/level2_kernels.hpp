/** \file level2_kernels.hpp
 *  \brief Unit-stride building blocks of the Level-2 cores: Fortran-rule complex products,
 *  axpy / dot loops that vectorise, and contiguous views of strided vectors.
 *
 *  Portable C++ the compiler vectorises (no ISA intrinsics): `omp simd` loops, and
 *  reductions kept in several independent partial sums (kLanes) so they pipeline. Complex
 *  loops run on the interleaved (re, im) reals; their products use the textbook formula,
 *  as a Fortran COMPLEX product does (std::complex's operator* calls a NaN-recovering
 *  library routine that defeats vectorisation). `CJ` template flags conjugate the
 *  operand they name; they are no-ops for real types. Sums are reassociated, as in any
 *  blocked BLAS: results agree with the reference to rounding, not bit for bit.
 */
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

#include "blas/common/blas_types.hpp"

namespace abft::blas::l2::kern {

using idx = std::ptrdiff_t;

/** a * b, textbook formula for complex. */
template <class T>
inline T mul(const T& a, const T& b) {
  if constexpr (is_complex_v<T>)
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  else
    return a * b;
}
/** conj(a) if CJ (and T complex), else a. */
template <bool CJ, class T>
inline T cj(const T& a) {
  if constexpr (CJ && is_complex_v<T>) return std::conj(a);
  else return a;
}
/** Real part (the value itself for real types), as T. */
template <class T>
inline T re(const T& a) {
  if constexpr (is_complex_v<T>) return T(a.real());
  else return a;
}

/** y[0..n) += a * cj(x[0..n)). */
template <bool CJ, class T>
inline void axpy(idx n, T a, const T* x, T* y) {
  if constexpr (!is_complex_v<T>) {
#pragma omp simd
    for (idx i = 0; i < n; ++i) y[i] += a * x[i];
  } else {
    using R = real_t<T>;
    const R* xr = reinterpret_cast<const R*>(x);
    R* yr = reinterpret_cast<R*>(y);
    const R ar = a.real(), ai = a.imag();
#pragma omp simd
    for (idx i = 0; i < n; ++i) {
      const R u = xr[2 * i], v = CJ ? -xr[2 * i + 1] : xr[2 * i + 1];
      yr[2 * i] += ar * u - ai * v;
      yr[2 * i + 1] += ar * v + ai * u;
    }
  }
}

/** y[0..n) += a0*cj(x0) + a1*cj(x1) + a2*cj(x2) + a3*cj(x3): four columns, one pass over y. */
template <bool CJ, class T>
inline void axpy4(idx n, const T* a, const T* x0, const T* x1, const T* x2, const T* x3, T* y) {
  if constexpr (!is_complex_v<T>) {
    const T a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
#pragma omp simd
    for (idx i = 0; i < n; ++i) y[i] += a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + a3 * x3[i];
  } else {
    using R = real_t<T>;
    const R* p0 = reinterpret_cast<const R*>(x0);
    const R* p1 = reinterpret_cast<const R*>(x1);
    const R* p2 = reinterpret_cast<const R*>(x2);
    const R* p3 = reinterpret_cast<const R*>(x3);
    R* yr = reinterpret_cast<R*>(y);
    const R s = CJ ? R(-1) : R(1);
    const R r0 = a[0].real(), i0 = a[0].imag(), r1 = a[1].real(), i1 = a[1].imag();
    const R r2 = a[2].real(), i2 = a[2].imag(), r3 = a[3].real(), i3 = a[3].imag();
#pragma omp simd
    for (idx i = 0; i < n; ++i) {
      const R u0 = p0[2 * i], v0 = s * p0[2 * i + 1], u1 = p1[2 * i], v1 = s * p1[2 * i + 1];
      const R u2 = p2[2 * i], v2 = s * p2[2 * i + 1], u3 = p3[2 * i], v3 = s * p3[2 * i + 1];
      yr[2 * i] += (r0 * u0 - i0 * v0) + (r1 * u1 - i1 * v1) + (r2 * u2 - i2 * v2) + (r3 * u3 - i3 * v3);
      yr[2 * i + 1] += (r0 * v0 + i0 * u0) + (r1 * v1 + i1 * u1) + (r2 * v2 + i2 * u2) + (r3 * v3 + i3 * u3);
    }
  }
}

/** y[0..n) += a*cj(x) + b*cj(z) (the rank-2 column update). */
template <bool CJ, class T>
inline void axpy2(idx n, T a, const T* x, T b, const T* z, T* y) {
  if constexpr (!is_complex_v<T>) {
#pragma omp simd
    for (idx i = 0; i < n; ++i) y[i] += x[i] * a + z[i] * b;
  } else {
    using R = real_t<T>;
    const R* xr = reinterpret_cast<const R*>(x);
    const R* zr = reinterpret_cast<const R*>(z);
    R* yr = reinterpret_cast<R*>(y);
    const R s = CJ ? R(-1) : R(1);
    const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
#pragma omp simd
    for (idx i = 0; i < n; ++i) {
      const R xu = xr[2 * i], xv = s * xr[2 * i + 1], zu = zr[2 * i], zv = s * zr[2 * i + 1];
      yr[2 * i] += (xu * ar - xv * ai) + (zu * br - zv * bi);
      yr[2 * i + 1] += (xu * ai + xv * ar) + (zu * bi + zv * br);
    }
  }
}

/** Partial sums a reduction keeps: independent chains, so the adds pipeline instead of
 *  waiting on one accumulator, and groups the compiler turns into vector operations
 *  (the sum is reassociated, as any blocked BLAS does). */
inline constexpr int kLanes = 8;

/** Complex dot products run on the interleaved reals: p[k] += a[k]*x[k] collects
 *  re*re (even k) and im*im (odd k), q[k] += a[k]*x[k^1] collects re*im and im*re; the
 *  real and imaginary parts are their even/odd sums with the signs that cj selects. */
template <bool CJ, class R>
inline std::complex<R> finish_complex_dot(const R* p, const R* q, int lanes) {
  R pe = 0, po = 0, qe = 0, qo = 0;
  for (int k = 0; k < lanes; k += 2) {
    pe += p[k];
    po += p[k + 1];
    qe += q[k];
    qo += q[k + 1];
  }
  // a*x: (ar xr - ai xi, ar xi + ai xr); conj(a)*x: (ar xr + ai xi, ar xi - ai xr).
  return CJ ? std::complex<R>(pe + po, qe - qo) : std::complex<R>(pe - po, qe + qo);
}

/** sum over i of cj(a[i]) * x[i]. */
template <bool CJ, class T>
inline T dot(idx n, const T* a, const T* x) {
  if constexpr (!is_complex_v<T>) {
    T s[kLanes] = {};
    idx i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) s[k] += a[i + k] * x[i + k];
    T r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; i < n; ++i) r += a[i] * x[i];
    return r;
  } else {
    using R = real_t<T>;
    const R* ar = reinterpret_cast<const R*>(a);
    const R* xr = reinterpret_cast<const R*>(x);
    R p[kLanes] = {}, q[kLanes] = {};
    const idx nr = 2 * n;
    idx i = 0;
    for (; i + kLanes <= nr; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        p[k] += ar[i + k] * xr[i + k];
        q[k] += ar[i + k] * xr[i + (k ^ 1)];
      }
    for (; i < nr; i += 2) {
      p[0] += ar[i] * xr[i];
      p[1] += ar[i + 1] * xr[i + 1];
      q[0] += ar[i] * xr[i + 1];
      q[1] += ar[i + 1] * xr[i];
    }
    return finish_complex_dot<CJ>(p, q, kLanes);
  }
}

/** s[c] = sum over i of cj(a_c[i]) * x[i] for four columns a_0..a_3: one pass over x. */
template <bool CJ, class T>
inline void dot4(idx n, const T* a0, const T* a1, const T* a2, const T* a3, const T* x, T* s) {
  if constexpr (!is_complex_v<T>) {
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (idx i = 0; i < n; ++i) {
      const T v = x[i];
      s0 += a0[i] * v;
      s1 += a1[i] * v;
      s2 += a2[i] * v;
      s3 += a3[i] * v;
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
  } else {
    using R = real_t<T>;
    const R* c[4] = {reinterpret_cast<const R*>(a0), reinterpret_cast<const R*>(a1),
                     reinterpret_cast<const R*>(a2), reinterpret_cast<const R*>(a3)};
    const R* xr = reinterpret_cast<const R*>(x);
    R p[4][2] = {}, q[4][2] = {};
    for (idx i = 0; i < 2 * n; i += 2) {
      const R xe = xr[i], xo = xr[i + 1];
      for (int k = 0; k < 4; ++k) {
        p[k][0] += c[k][i] * xe;
        p[k][1] += c[k][i + 1] * xo;
        q[k][0] += c[k][i] * xo;
        q[k][1] += c[k][i + 1] * xe;
      }
    }
    for (int k = 0; k < 4; ++k) s[k] = finish_complex_dot<CJ>(p[k], q[k], 2);
  }
}

/** The fused pass of the Hermitian (symmetric) products over one stored column segment:
 *  y[i] += t * cj<CA>(a[i]) and returns sum of cj<CD>(a[i]) * x[i]. */
template <bool CA, bool CD, class T>
inline T axpy_dot(idx n, T t, const T* __restrict a, T* __restrict y, const T* __restrict x) {
  if constexpr (!is_complex_v<T>) {
    T s[kLanes] = {};
    idx i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        y[i + k] += t * a[i + k];
        s[k] += a[i + k] * x[i + k];
      }
    T r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; i < n; ++i) {
      y[i] += t * a[i];
      r += a[i] * x[i];
    }
    return r;
  } else {
    using R = real_t<T>;
    const R* ar = reinterpret_cast<const R*>(a);
    const R* xr = reinterpret_cast<const R*>(x);
    R* yr = reinterpret_cast<R*>(y);
    // y += t*cj(a) on the interleaved reals: y[k] += c0[k&1]*a[k] + c1[k&1]*a[k^1].
    const R tr = t.real(), ti = t.imag();
    const R c0[2] = {tr, CA ? -tr : tr}, c1[2] = {CA ? ti : -ti, ti};
    R p[kLanes] = {}, q[kLanes] = {};
    const idx nr = 2 * n;
    idx i = 0;
    for (; i + kLanes <= nr; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const R u = ar[i + k], w = ar[i + (k ^ 1)];
        yr[i + k] += c0[k & 1] * u + c1[k & 1] * w;
        p[k] += u * xr[i + k];
        q[k] += u * xr[i + (k ^ 1)];
      }
    for (; i < nr; i += 2) {
      const R u = ar[i], v = ar[i + 1];
      yr[i] += c0[0] * u + c1[0] * v;
      yr[i + 1] += c0[1] * v + c1[1] * u;
      p[0] += u * xr[i];
      p[1] += v * xr[i + 1];
      q[0] += u * xr[i + 1];
      q[1] += v * xr[i];
    }
    return finish_complex_dot<CD>(p, q, kLanes);
  }
}

/** Four columns of the Hermitian (symmetric) products in one pass over x and y:
 *  y[i] += sum_k t[k] * cj<CA>(a_k[i]) and s[k] = sum_i cj<CD>(a_k[i]) * x[i]. */
template <bool CA, bool CD, class T>
inline void axpy4_dot4(idx n, const T* t, const T* a0, const T* a1, const T* a2, const T* a3,
                       T* __restrict y, const T* __restrict x, T* s) {
  if constexpr (!is_complex_v<T>) {
    const T t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (idx i = 0; i < n; ++i) {
      const T v = x[i];
      y[i] += t0 * a0[i] + t1 * a1[i] + t2 * a2[i] + t3 * a3[i];
      s0 += a0[i] * v;
      s1 += a1[i] * v;
      s2 += a2[i] * v;
      s3 += a3[i] * v;
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
  } else {
    using R = real_t<T>;
    const R* c[4] = {reinterpret_cast<const R*>(a0), reinterpret_cast<const R*>(a1),
                     reinterpret_cast<const R*>(a2), reinterpret_cast<const R*>(a3)};
    const R* xr = reinterpret_cast<const R*>(x);
    R* yr = reinterpret_cast<R*>(y);
    const R sa = CA ? R(-1) : R(1);
    R tr[4], ti[4], p[4][2] = {}, q[4][2] = {};
    for (int k = 0; k < 4; ++k) tr[k] = t[k].real(), ti[k] = t[k].imag();
    for (idx i = 0; i < 2 * n; i += 2) {
      const R xe = xr[i], xo = xr[i + 1];
      R ye = yr[i], yo = yr[i + 1];
      for (int k = 0; k < 4; ++k) {
        const R u = c[k][i], v = c[k][i + 1], va = sa * v;
        ye += tr[k] * u - ti[k] * va;
        yo += tr[k] * va + ti[k] * u;
        p[k][0] += u * xe;
        p[k][1] += v * xo;
        q[k][0] += u * xo;
        q[k][1] += v * xe;
      }
      yr[i] = ye;
      yr[i + 1] = yo;
    }
    for (int k = 0; k < 4; ++k) s[k] = finish_complex_dot<CD>(p[k], q[k], 2);
  }
}

/** Offset of logical element 0 of a vector of n elements with stride inc (BLAS's KX). */
inline idx first(blas_int n, blas_int inc) { return inc > 0 ? 0 : -idx(n - 1) * inc; }

/** y <- beta*y over a strided vector, the reference way: beta == 0 stores zeros (never
 *  reads y), beta == 1 touches nothing. */
template <class T>
inline void scale(blas_int n, T beta, T* y, blas_int inc) {
  if (beta == T(1) || n <= 0) return;
  T* p = y + first(n, inc);
  if (beta == T(0)) {
    for (idx i = 0; i < n; ++i) p[i * inc] = T(0);
  } else {
    for (idx i = 0; i < n; ++i) p[i * inc] = mul(beta, p[i * inc]);
  }
}

/** A strided vector seen contiguously: the caller's memory itself when inc == 1, else a
 *  packed copy (loaded at construction, written back by store()). P is T or const T. */
template <class P>
class UnitVec {
  using T = std::remove_const_t<P>;

 public:
  UnitVec(P* base, blas_int n, blas_int inc) : base_(base), n_(n), inc_(inc) {
    if (inc == 1 || n <= 0) {
      data_ = base;
      return;
    }
    buf_.resize(size_t(n));
    const P* p = base + first(n, inc);
    for (idx i = 0; i < n; ++i) buf_[size_t(i)] = p[i * inc];
    data_ = buf_.data();
  }
  P* data() const { return data_; }
  /** Copy the packed values back into the strided vector (no-op when not packed). */
  void store() {
    if constexpr (!std::is_const_v<P>) {
      if (buf_.empty()) return;
      T* p = base_ + first(n_, inc_);
      for (idx i = 0; i < n_; ++i) p[i * inc_] = buf_[size_t(i)];
    }
  }

 private:
  P* base_;
  blas_int n_, inc_;
  P* data_ = nullptr;
  std::vector<T> buf_;
};

}  // namespace abft::blas::l2::kern
