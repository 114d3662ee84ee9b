/** \file attn_simd.hpp
 *  \brief The few vector operations attention needs beyond the GEMM traits (max, min, select,
 *  exp), as overloads on the traits' vector type: float (the reference kernel) and __m256
 *  (AVX2+FMA). Include only in a TU built for the ISA it uses.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace abft::cpu::attention {
inline namespace ABFT_TARGET_NS {

// ---------------------------------------------------------------- one lane (reference)
inline float vmax(float a, float b) { return a > b ? a : b; }
inline float vmin(float a, float b) { return a < b ? a : b; }
/** a <= b ? x : y (false when a or b is NaN). */
inline float vsel_le(float a, float b, float x, float y) { return a <= b ? x : y; }
/** a == b ? x : y */
inline float vsel_eq(float a, float b, float x, float y) { return a == b ? x : y; }
/** True when any lane of a is not <= b (NaN included). */
inline bool vany_gt(float a, float b) { return !(a <= b); }
inline bool vany_ne(float a, float b) { return a != b; }
/** True when a and b differ in any bit of any lane (NaN == NaN when the bits agree). */
inline bool vany_bits_ne(float a, float b) { return std::memcmp(&a, &b, sizeof a) != 0; }
/** Horizontal sum. */
inline float vhsum(float a) { return a; }
/** Lane-wise max of the bit patterns read as unsigned integers. For a value x >= +0
 *  the pattern grows with x; every negative value (sign bit) and every NaN lies above
 *  +inf's. One max per vector then bounds a whole tile: x in [0, lim] for every lane
 *  iff the max pattern is <= lim's. */
inline float vbits_umax(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  x = x > y ? x : y;
  std::memcpy(&a, &x, 4);
  return a;
}
/** True when some lane's bit pattern (unsigned) exceeds that of lim (lim >= 0). */
inline bool vbits_any_above(float a, float lim) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &lim, 4);
  return x > y;
}

/** exp for the softmax: x <= 0 in use (larger x is clamped at 88.3). Cody-Waite reduction
 *  x = n ln2 + r, |r| <= ln2/2, and Cephes' degree-6 polynomial in Horner form: under 2 ulp
 *  for normal results. exp(0) == 1 exactly; results below FLT_MIN (x < -87.33) flush to 0,
 *  so exp(-inf) == 0; NaN propagates. The vector versions compute the same thing. */
inline float vexp(float x) {
  if (x != x) return x;
  if (x < -87.33f) return 0.0f;
  if (x > 88.3f) x = 88.3f;
  const float n = std::nearbyint(x * 1.44269504088896341f);
  float r = std::fma(n, -0.693359375f, x);
  r = std::fma(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  return std::ldexp(p, static_cast<int>(n));
}

#if defined(__AVX2__) && defined(__FMA__)
// ---------------------------------------------------------------- AVX2: 8 floats
inline __m256 vmax(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
inline __m256 vmin(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
inline __m256 vsel_le(__m256 a, __m256 b, __m256 x, __m256 y) {
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, b, _CMP_LE_OQ));
}
inline __m256 vsel_eq(__m256 a, __m256 b, __m256 x, __m256 y) {
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
}
inline bool vany_gt(__m256 a, __m256 b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_NLE_UQ)) != 0; }
inline bool vany_ne(__m256 a, __m256 b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ)) != 0; }
inline bool vany_bits_ne(__m256 a, __m256 b) {
  const __m256i e = _mm256_cmpeq_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b));
  return _mm256_movemask_epi8(e) != -1;
}
inline __m256 vbits_umax(__m256 a, __m256 b) {
  return _mm256_castsi256_ps(_mm256_max_epu32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
}
inline bool vbits_any_above(__m256 a, float lim) {
  const __m256i l = _mm256_castps_si256(_mm256_set1_ps(lim));
  const __m256i e = _mm256_cmpeq_epi32(_mm256_max_epu32(_mm256_castps_si256(a), l), l);
  return _mm256_movemask_epi8(e) != -1;
}
inline float vhsum(__m256 a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline __m256 vexp(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.33f);
  const __m256 under = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);  // false for NaN
  // min/max return their second operand when either is NaN: NaN flows through.
  x = _mm256_max_ps(lo, _mm256_min_ps(_mm256_set1_ps(88.3f), x));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693359375f), x);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  // 2^n for n in [-126, 127].
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(under, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}
#endif

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::attention
