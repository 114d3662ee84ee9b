/** \file level1_norms.hpp
 *  \brief Core nrm2 (Blue's safe scaling, as reference BLAS 3.10+) and i?amax.
 *
 *  Included by level1.hpp (which defines the traversal helpers used here).
 *
 *  nrm2 follows Blue's algorithm as presented by Anderson, "Algorithm 978: Safe Scaling in
 *  the Level 1 BLAS", ACM TOMS 44(1), 2017. Every |x_i| falls in one of three ranges:
 *    small  |x| < tsml : accumulate (|x|*ssml)^2   (scaled up, so squares cannot underflow)
 *    medium            : accumulate |x|^2          (squares neither underflow nor overflow)
 *    big    |x| > tbig : accumulate (|x|*sbig)^2   (scaled down, so sums cannot overflow)
 *  with powers of the radix chosen from the format (t = digits, emin/emax = exponent range):
 *    tsml = 2^ceil((emin-1)/2)     tbig = 2^floor((emax-t+1)/2)
 *    ssml = 2^-floor((emin-t)/2)   sbig = 2^-ceil((emax+t-1)/2)
 *  The three sums are then combined: if any big value was seen, the medium sum is folded
 *  into the big one (small values are negligible); else if small values were seen, the
 *  small and medium parts are combined as ymax*sqrt(1 + (ymin/ymax)^2); else the medium sum
 *  alone. A NaN lands in the medium sum (it fails both range tests) and so propagates.
 *  Complex vectors are measured over their real and imaginary parts. At unit stride the
 *  plain sum of squares is tried first (nrm2_unit) and Blue's sums are formed only when
 *  that sum shows overflow, damaging underflow, Inf or NaN.
 */
#pragma once

namespace abft::blas::level1 {

constexpr int floor_half(int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }
constexpr int ceil_half(int v) { return -floor_half(-v); }
template <class R> constexpr R pow2(int e) {
  R r = 1;
  for (; e > 0; --e) r *= R(2);
  for (; e < 0; ++e) r /= R(2);
  return r;
}

/** Blue's thresholds and scale factors for the real format R. */
template <class R> struct Blue {
  static_assert(std::numeric_limits<R>::radix == 2, "binary formats only");
  static constexpr int t = std::numeric_limits<R>::digits;
  static constexpr int emin = std::numeric_limits<R>::min_exponent;
  static constexpr int emax = std::numeric_limits<R>::max_exponent;
  static constexpr R tsml = pow2<R>(ceil_half(emin - 1));
  static constexpr R tbig = pow2<R>(floor_half(emax - t + 1));
  static constexpr R ssml = pow2<R>(-floor_half(emin - t));
  static constexpr R sbig = pow2<R>(-ceil_half(emax + t - 1));
};

/** The three accumulators of Blue's algorithm. */
template <class R> struct BlueSums {
  R sml = 0, med = 0, big = 0;
};

/** Adds the contribution of one real value to Blue's sums. A NaN fails both range tests
 *  and so lands in the medium sum. */
template <class R> inline void blue_add(R v, R& sml, R& med, R& big) {
  using B = Blue<R>;
  const R a = std::abs(v);
  const R ts = (a < B::tsml ? a : R(0)) * B::ssml;
  const R tb = (a > B::tbig ? a : R(0)) * B::sbig;
  const R t0 = a < B::tsml ? R(0) : a;
  const R tm = t0 > B::tbig ? R(0) : t0;
  sml += ts * ts;
  big += tb * tb;
  med += tm * tm;
}

/** Blue's sums over m contiguous real values, exact classification, one value at a time. */
template <class R> inline BlueSums<R> blue_scalar(const R* c, idx m) {
  BlueSums<R> s;
  for (idx i = 0; i < m; ++i) blue_add(c[i], s.sml, s.med, s.big);
  return s;
}

/** sqrt of the accumulated sum of squares, combined as the reference does. */
template <class R> inline R blue_finish(BlueSums<R> s) {
  using B = Blue<R>;
  const bool med_counts = s.med > R(0) || s.med != s.med;  // positive, Inf or NaN
  if (s.big > R(0)) {
    if (med_counts) s.big += (s.med * B::sbig) * B::sbig;
    return (R(1) / B::sbig) * std::sqrt(s.big);
  }
  if (s.sml > R(0)) {
    if (!med_counts) return (R(1) / B::ssml) * std::sqrt(s.sml);
    const R ymed = std::sqrt(s.med), ysml = std::sqrt(s.sml) / B::ssml;
    const R ymin = ysml > ymed ? ymed : ysml, ymax = ysml > ymed ? ysml : ymed;
    const R q = ymin / ymax;
    return std::sqrt(ymax * ymax * (R(1) + q * q));
  }
  return std::sqrt(s.med);
}

/** Unit-stride nrm2 over m real values: the plain sum of squares in vector lanes, kept
 *  when it is finite and at least m * min/eps. Then no square overflowed (partial sums of
 *  non-negative terms never exceed the total) and the squares that underflowed, each off
 *  by less than min, weigh less than one rounding of the sum: the result is as accurate as
 *  Blue's, and is the same sum Blue forms when every value is in its medium range. Other
 *  vectors (huge, tiny, Inf, NaN, all zero) take Blue's scaled algorithm. */
template <class R> inline R nrm2_unit(const R* c, idx m) {
  using L = std::numeric_limits<R>;
  const R s = lane_sum<R>(m, R(0), [c](idx i) { return c[i] * c[i]; });
  if (s <= L::max() && s >= R(m) * (L::min() / L::epsilon())) return std::sqrt(s);
  return blue_finish(blue_scalar(c, m));
}

/** Euclidean norm without destructive overflow or underflow. Any increment is accepted
 *  (reference 3.10+: negative walks backwards, zero repeats x[0]). */
template <class T> real_t<T> nrm2(blas_int n, const T* x, blas_int incx) {
  using R = real_t<T>;
  if (n <= 0) return R(0);
  if (incx == 1) return nrm2_unit(comps(x), ncomps<T>(n));
  BlueSums<R> s;
  each(n, x, incx, [&s](const T& v) {
    if constexpr (is_complex_v<T>) {
      blue_add(v.real(), s.sml, s.med, s.big);
      blue_add(v.imag(), s.sml, s.med, s.big);
    } else {
      blue_add(v, s.sml, s.med, s.big);
    }
  });
  return blue_finish(s);
}

// ---------------------------------------------------------------------------------------
// i?amax

/** Whether some |x_i| (|re| + |im| for complex), i < m, exceeds best; NaN never does.
 *  The flag is a select of the element type, the form GCC vectorises for every T. */
template <class T> inline bool any_above(const T* x, idx m, real_t<T> best) {
  using R = real_t<T>;
  R hit = 0;
  for (idx i = 0; i < m; ++i) hit = mag(x[i]) > best ? R(1) : hit;
  return hit != R(0);
}

/** Unit-stride i?amax: a vectorised test per block of whether it holds anything larger
 *  than the running maximum; only such blocks are scanned element by element. Same result
 *  as the reference's running "if (|x_i| > max)" scan, so the first maximum wins and a NaN
 *  never does (unless it is x_1, which nothing can then exceed). */
template <class T> inline blas_int iamax_unit(blas_int n, const T* x) {
  using R = real_t<T>;
  constexpr idx B = 128;
  R best = mag(x[0]);
  idx k = 0;
  for (idx b = 1; b < n; b += B) {
    const idx e = (n - b < B) ? n : b + B;
    if (!any_above(x + b, e - b, best)) continue;
    for (idx i = b; i < e; ++i) {
      const R a = mag(x[i]);
      if (a > best) {
        best = a;
        k = i;
      }
    }
  }
  return blas_int(k + 1);
}

/** 1-based index of the first element of largest |x_i| (|re| + |im| for complex); 0 when
 *  n < 1 or incx <= 0. */
template <class T> blas_int iamax(blas_int n, const T* x, blas_int incx) {
  using R = real_t<T>;
  if (n < 1 || incx <= 0) return 0;
  if (n == 1) return 1;
  if (incx == 1) return iamax_unit(n, x);
  blas_int k = 1;
  R best = mag(x[0]);
  idx ix = incx;
  for (blas_int i = 2; i <= n; ++i, ix += incx) {
    const R a = mag(x[ix]);
    if (a > best) {
      best = a;
      k = i;
    }
  }
  return k;
}

}  // namespace abft::blas::level1
