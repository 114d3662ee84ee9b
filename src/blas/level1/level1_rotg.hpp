/** \file level1_rotg.hpp
 *  \brief Core constructors of plane rotations: rotg (real and complex Givens, safe
 *  scaling as reference BLAS 3.10+) and rotmg (modified Givens).
 *
 *  Included by level1.hpp. rotg follows Anderson, "Algorithm 978: Safe Scaling in the
 *  Level 1 BLAS", ACM TOMS 44(1), 2017: with f = a, g = b it finds c (real), s and r with
 *      [  c        s ] [f]   [r]
 *      [ -conj(s)  c ] [g] = [0],   c^2 + |s|^2 = 1,
 *  c = |f| / sqrt(|f|^2 + |g|^2) and r = sign(f) sqrt(|f|^2 + |g|^2), where sign(f) = f/|f|
 *  for complex f and, for real a and b, the sign of whichever of a, b is larger in
 *  magnitude (the convention of the original SROTG, kept by the reference). The squares
 *  are formed unscaled when every magnitude is within [sqrt(safmin), sqrt(safmax/4)], else
 *  after scaling by a power-free factor u = clamp(max(|f|,|g|), safmin, safmax).
 */
#pragma once

namespace abft::blas::level1 {

/** Smallest normal number and its reciprocal (the reference's safmin/safmax: the radix to
 *  max(emin-1, 1-emax), which for IEEE binary formats is numeric_limits::min()). */
template <class R> struct Safe {
  static constexpr R min = std::numeric_limits<R>::min();
  static constexpr R max = R(1) / std::numeric_limits<R>::min();
};

template <class R> inline R clamp_safe(R v) {
  return v < Safe<R>::min ? Safe<R>::min : (v > Safe<R>::max ? Safe<R>::max : v);
}

/** Real Givens rotation. On return a = r, b = z (the reference's compact encoding of the
 *  rotation: z = s if |a| > |b|, else 1/c if c != 0, else 1), c and s set. */
template <class R> void rotg(R& a, R& b, R& c, R& s) {
  const R anorm = std::abs(a), bnorm = std::abs(b);
  if (bnorm == R(0)) {
    c = 1;
    s = 0;
    b = 0;
    return;
  }
  if (anorm == R(0)) {
    c = 0;
    s = 1;
    a = b;
    b = 1;
    return;
  }
  const R scl = clamp_safe(anorm > bnorm ? anorm : bnorm);
  const R as = a / scl, bs = b / scl;
  const R sigma = std::copysign(R(1), anorm > bnorm ? a : b);
  const R r = sigma * (scl * std::sqrt(as * as + bs * bs));
  c = a / r;
  s = b / r;
  const R z = anorm > bnorm ? s : (c != R(0) ? R(1) / c : R(1));
  a = r;
  b = z;
}

template <class R> inline R abssq(std::complex<R> z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <class R> inline std::complex<R> cdiv(std::complex<R> z, R d) {
  return {z.real() / d, z.imag() / d};
}
template <class R> inline R max_part(std::complex<R> z) {
  const R x = std::abs(z.real()), y = std::abs(z.imag());
  return x > y ? x : y;
}

/** Complex rotation when f == 0: c = 0, r = |g| (real), s = conj(g)/|g|. */
template <class R> inline void rotg_f_zero(std::complex<R> g, std::complex<R>& r, R& c,
                                           std::complex<R>& s) {
  const R rtmin = std::sqrt(Safe<R>::min), rtmax = std::sqrt(Safe<R>::max / 2);
  c = 0;
  const R g1 = max_part(g);
  if (g1 > rtmin && g1 < rtmax) {
    const R d = std::sqrt(abssq(g));
    s = cdiv(std::conj(g), d);
    r = d;
    return;
  }
  const R u = clamp_safe(g1);
  const std::complex<R> gs = cdiv(g, u);
  const R d = std::sqrt(abssq(gs));
  s = cdiv(std::conj(gs), d);
  r = d * u;
}

/** The rotation from f, g already scaled so that f2 = |f|^2 and h2 = f2 + w^2 |g|^2 cannot
 *  overflow (w folded into h2 by the caller): c = sqrt(f2/h2), r = f/c,
 *  s = conj(g) f / sqrt(f2 h2). When f2/h2 would underflow, c = f2/sqrt(f2 h2) instead. */
template <class R>
inline void rotg_core(std::complex<R> f, std::complex<R> g, R f2, R h2, std::complex<R>& r,
                      R& c, std::complex<R>& s) {
  const R rtmin = std::sqrt(Safe<R>::min), rtmax = std::sqrt(Safe<R>::max);
  if (f2 >= h2 * Safe<R>::min) {
    c = std::sqrt(f2 / h2);  // in [safmin, 1]; h2/f2 finite
    r = cdiv(f, c);
    if (f2 > rtmin && h2 < rtmax)  // f2*h2 neither underflows nor overflows
      s = mul(std::conj(g), cdiv(f, std::sqrt(f2 * h2)));
    else
      s = mul(std::conj(g), cdiv(r, h2));
    return;
  }
  const R d = std::sqrt(f2 * h2);
  c = f2 / d;
  r = c >= Safe<R>::min ? cdiv(f, c) : f * (h2 / d);
  s = mul(std::conj(g), cdiv(f, d));
}

/** Complex Givens rotation. On return a = r; b is not changed. */
template <class R>
void rotg(std::complex<R>& a, const std::complex<R>& b, R& c, std::complex<R>& s) {
  using C = std::complex<R>;
  const C f = a, g = b;
  if (g == C(0)) {
    c = 1;
    s = 0;
    return;  // r = f
  }
  if (f == C(0)) {
    rotg_f_zero(g, a, c, s);
    return;
  }
  const R rtmin = std::sqrt(Safe<R>::min), rtmax = std::sqrt(Safe<R>::max / 4);
  const R f1 = max_part(f), g1 = max_part(g);
  if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
    const R f2 = abssq(f);
    rotg_core(f, g, f2, f2 + abssq(g), a, c, s);
    return;
  }
  // Scale both by u; when f is tiny beside g, scale f by its own v and carry w = v/u.
  const R u = clamp_safe(f1 > g1 ? f1 : g1);
  const C gs = cdiv(g, u);
  const R g2 = abssq(gs);
  R w = 1, f2, h2;
  C fs;
  if (f1 / u < rtmin) {
    const R v = clamp_safe(f1);
    w = v / u;
    fs = cdiv(f, v);
    f2 = abssq(fs);
    h2 = f2 * w * w + g2;
  } else {
    fs = cdiv(f, u);
    f2 = abssq(fs);
    h2 = f2 + g2;
  }
  C r;
  rotg_core(fs, gs, f2, h2, r, c, s);
  c *= w;
  a = r * u;
}

/** Modified Givens rotation (Hanson & Lawson). Finds H with H (sqrt(d1) x1, sqrt(d2) y1)^T
 *  having a zero second component, returned as param = {flag, h11, h21, h12, h22} in the
 *  encoding rotm reads; d1, d2 and x1 are updated. d1 and d2 are kept inside
 *  [gam^-2, gam^2] (gam = 4096) by rescaling, which turns H into a full matrix (flag -1).
 *
 *  Deliberate difference from reference 3.11 (its loop re-stores the implied unit elements
 *  at every rescaling pass, destroying earlier scaling; Reference-LAPACK issue #244): the
 *  implied elements are made explicit once, when the flag first becomes -1, as the original
 *  1979 code, the fixed upstream and OpenBLAS do. Results agree with 3.11 whenever at most
 *  one rescaling step is needed. An infinite d1 or d2 ends the rescaling instead of looping
 *  forever. */
template <class R> void rotmg(R& d1, R& d2, R& x1, R y1, R* param) {
  const R gam = 4096, gamsq = gam * gam, rgamsq = R(5.9604645e-8);
  R flag, h11 = 0, h12 = 0, h21 = 0, h22 = 0;
  if (d1 < R(0)) {
    flag = -1;
    d1 = d2 = x1 = 0;
  } else {
    const R p2 = d2 * y1;
    if (p2 == R(0)) {
      param[0] = -2;
      return;
    }
    const R p1 = d1 * x1, q2 = p2 * y1, q1 = p1 * x1;
    if (std::abs(q1) > std::abs(q2)) {
      h21 = -y1 / x1;
      h12 = p2 / p1;
      const R u = R(1) - h12 * h21;
      if (u > R(0)) {
        flag = 0;
        d1 /= u;
        d2 /= u;
        x1 *= u;
      } else {  // only by rounding in edge cases
        flag = -1;
        h21 = h12 = 0;
        d1 = d2 = x1 = 0;
      }
    } else if (q2 < R(0)) {
      flag = -1;
      d1 = d2 = x1 = 0;
    } else {
      flag = 1;
      h11 = p1 / p2;
      h22 = x1 / y1;
      const R u = R(1) + h11 * h22, t = d2 / u;
      d2 = d1 / u;
      d1 = t;
      x1 = y1 * u;
    }
    // Make the implied elements explicit once, before the first rescaling step.
    auto make_full = [&] {
      if (flag == R(0)) {
        h11 = h22 = 1;
      } else if (flag == R(1)) {
        h21 = -1;
        h12 = 1;
      }
      flag = -1;
    };
    if (d1 != R(0)) {
      while ((d1 <= rgamsq || d1 >= gamsq) && std::isfinite(d1)) {
        make_full();
        if (d1 <= rgamsq) {
          d1 *= gamsq;
          x1 /= gam;
          h11 /= gam;
          h12 /= gam;
        } else {
          d1 /= gamsq;
          x1 *= gam;
          h11 *= gam;
          h12 *= gam;
        }
      }
    }
    if (d2 != R(0)) {
      while ((std::abs(d2) <= rgamsq || std::abs(d2) >= gamsq) && std::isfinite(d2)) {
        make_full();
        if (std::abs(d2) <= rgamsq) {
          d2 *= gamsq;
          h21 /= gam;
          h22 /= gam;
        } else {
          d2 /= gamsq;
          h21 *= gam;
          h22 *= gam;
        }
      }
    }
  }
  if (flag < R(0)) {
    param[1] = h11;
    param[2] = h21;
    param[3] = h12;
    param[4] = h22;
  } else if (flag == R(0)) {
    param[2] = h21;
    param[3] = h12;
  } else {
    param[1] = h11;
    param[4] = h22;
  }
  param[0] = flag;
}

}  // namespace abft::blas::level1
