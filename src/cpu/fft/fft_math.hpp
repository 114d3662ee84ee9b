/** \file fft_math.hpp
 *  \brief Plan-time arithmetic of the FFT engine: accurate roots of unity,
 *  factorization into radices, smooth lengths for Bluestein.
 */
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <vector>

namespace abft::cpu::fft {

/** exp(sign * 2 pi i * num / den) in long double, reduced exactly: num is taken
 *  mod den in integers and folded into the first octant before sinl/cosl, so
 *  the result is accurate to a few ulps of long double for any size. */
inline std::complex<long double> root_ld(int64_t num, int64_t den, int sign) {
  int64_t k = num % den;
  if (k < 0) k += den;
  // angle = 2 pi k / den in [0, 2 pi); use symmetry to keep the argument small.
  // 8 k vs den decides the octant.
  const long double pi = 3.141592653589793238462643383279502884L;
  long double c, s;
  const int64_t k8 = 8 * k;  // k < den <= 2^59 in practice
  if (k8 <= den) {  // [0, pi/4]
    const long double a = 2.0L * pi * (long double)k / (long double)den;
    c = cosl(a); s = sinl(a);
  } else if (k8 <= 3 * den) {  // (pi/4, 3pi/4]: angle = pi/2 + b
    const long double b = 2.0L * pi * (long double)(4 * k - den) / (4.0L * (long double)den);
    c = -sinl(b); s = cosl(b);
  } else if (k8 <= 5 * den) {  // (3pi/4, 5pi/4]: angle = pi + b
    const long double b = 2.0L * pi * (long double)(2 * k - den) / (2.0L * (long double)den);
    c = -cosl(b); s = -sinl(b);
  } else if (k8 <= 7 * den) {  // (5pi/4, 7pi/4]: angle = 3pi/2 + b
    const long double b = 2.0L * pi * (long double)(4 * k - 3 * den) / (4.0L * (long double)den);
    c = sinl(b); s = -cosl(b);
  } else {  // (7pi/4, 2pi): angle = 2pi - b
    const long double b = 2.0L * pi * (long double)(den - k) / (long double)den;
    c = cosl(b); s = -sinl(b);
  }
  return {c, sign < 0 ? -s : s};
}

template <class T>
std::complex<T> root(int64_t num, int64_t den, int sign) {
  const std::complex<long double> z = root_ld(num, den, sign);
  return {static_cast<T>(z.real()), static_cast<T>(z.imag())};
}

/** c_j = sign cot(pi (2j + 1) / (2n)), the factor of the input weights v_j = 1 + i c_j of a
 *  length-n line's check (docs/ABFT.md section 9), rounded once to T. */
template <class T>
T input_cot(int64_t j, int64_t n, int sign) {
  const auto z = root_ld(2 * j + 1, 4 * n, +1);
  return T((long double)sign * z.real() / z.imag());
}

/** Largest prime factor handled by a butterfly; longer primes go to Bluestein. */
constexpr int kMaxRadixPrime = 31;

/** Radices for a Stockham pipeline of length n (product = n), or empty when n
 *  has a prime factor above kMaxRadixPrime. Powers of two as 8s and 4s (a
 *  final 2 when needed), then 3s, 5s and the other primes. The first radix is
 *  the largest (the first stage vectorizes across butterflies). */
inline std::vector<int> factor_radices(int64_t n) {
  std::vector<int> out;
  if (n <= 1) return out;
  int64_t m = n;
  int twos = 0;
  while (m % 2 == 0) { m /= 2; ++twos; }
  std::vector<int> odd;
  for (int p = 3; p <= kMaxRadixPrime && m > 1; p += 2)
    while (m % p == 0) { m /= p; odd.push_back(p); }
  if (m > 1) return {};  // a large prime factor
  std::vector<int> pw;
  while (twos >= 3) { pw.push_back(8); twos -= 3; }
  if (twos == 2) pw.push_back(4);
  if (twos == 1) {
    // 8*2 -> 4*4 reads better than a lone radix 2
    if (!pw.empty()) { pw.back() = 4; pw.push_back(4); } else pw.push_back(2);
  }
  out = pw;
  out.insert(out.end(), odd.begin(), odd.end());
  return out;
}

/** The power-of-two radices of factor_radices reordered for a kernel with `lanes` complex
 *  lanes: the first radix is the smallest one >= lanes (the second stage's stride is the
 *  first radix, and a stride below the lanes would run that stage one element at a time),
 *  the other powers follow in ascending order, the odd radices last as before. Measured on
 *  AVX-512 (docs/PERFORMANCE.md, issue 4): 4x4x8x8 runs double transforms of 1024 ... 16384
 *  and their folded checks faster than 8x8x4x4; eight float lanes need the 8 first. */
inline std::vector<int> order_radices(std::vector<int> rad, int lanes) {
  auto odd = std::stable_partition(rad.begin(), rad.end(), [](int r) { return (r & (r - 1)) == 0; });
  std::sort(rad.begin(), odd);
  auto first = std::find_if(rad.begin(), odd, [lanes](int r) { return r >= lanes; });
  if (first != odd) std::rotate(rad.begin(), first, first + 1);
  return rad;
}

/** Smallest 2^a 3^b 5^c >= n (a transform of this length has only fast radices). */
inline int64_t next_smooth(int64_t n) {
  int64_t best = 1;
  while (best < n) best *= 2;
  for (int64_t p5 = 1; p5 < 2 * n; p5 *= 5)
    for (int64_t p35 = p5; p35 < 2 * n; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      if (v < best) best = v;
    }
  return best;
}

inline double log2d(double x) { return std::log2(x); }

}  // namespace abft::cpu::fft
