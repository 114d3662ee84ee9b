/** \file cvec.hpp
 *  \brief L interleaved complex numbers in one SIMD register (GCC vector
 *  extensions): the same source serves the portable (L = 1), AVX2 and AVX-512
 *  builds of the FFT kernels, each translation unit compiled with its ISA flags.
 */
#pragma once
#include <complex>
#include <cstddef>
#include <cstring>
#include <utility>

#include "abft/checksum/host_device.hpp"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

// The widened lanes (DV) of an AVX2 float vector are 512 bits: GCC notes that returning
// them would change the ABI without AVX-512. These functions are inline in one translation
// unit per ISA and never cross an ABI boundary. (GCC emits the note when it instantiates
// them, at the end of that unit: the setting holds for the whole unit, no pop.)
#pragma GCC diagnostic ignored "-Wpsabi"

namespace abft::cpu::fft {
inline namespace ABFT_TARGET_NS {

template <class T, int L>
struct CVec {
  typedef T V __attribute__((vector_size(sizeof(T) * 2 * L)));
  /** The same register as 64-bit units (one complex float per unit). */
  typedef long long Q __attribute__((vector_size(sizeof(T) * 2 * L)));
  /** The lanes widened to double (the second level of the checks' sums). */
  typedef double DV __attribute__((vector_size(sizeof(double) * 2 * L)));
  static constexpr int lanes = L;
  /** Two-register permutation of 64-bit units (indices >= units pick from b). GCC lowers
   *  __builtin_shufflevector of two 512-bit registers to extract/insert chains; AVX-512
   *  has the one instruction (vpermt2q). */
  template <int... I>
  static Q perm2(Q a, Q b) {
#if defined(__AVX512F__)
    if constexpr (sizeof(Q) == 64) {
      alignas(64) static constexpr long long ix[8] = {I...};
      const __m512i idx = _mm512_load_si512(ix);
      return (Q)_mm512_permutex2var_epi64((__m512i)a, idx, (__m512i)b);
    } else
#endif
      return __builtin_shufflevector(a, b, I...);
  }
  static constexpr int width = 2 * L;  // scalars

  static V load(const T* p) {
    V v{};
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T* p, V v) { std::memcpy(p, &v, sizeof v); }
  /** L scalars at p, each in both parts of its lane: (p0, p0, p1, p1, ...). */
  static V dup_load(const T* p) { return dup_(p, std::make_index_sequence<2 * L>()); }
  template <std::size_t... I>
  static V dup_(const T* p, std::index_sequence<I...>) {
    typedef T H __attribute__((vector_size(sizeof(T) * L)));
    H h;
    std::memcpy(&h, p, sizeof h);
    return __builtin_shufflevector(h, h, (I / 2)...);
  }
  static V zero() { return V{}; }
  /** The complex number at p (two T) in every lane: one broadcast load (GCC's lowering of
   *  the equivalent shuffle goes through the stack). */
  static V bcast2(const T* p) {
#if defined(__AVX512F__)
    if constexpr (sizeof(V) == 64 && sizeof(T) == 8) {
      return (V)_mm512_maskz_broadcast_f64x2(0xFF, _mm_loadu_pd(reinterpret_cast<const double*>(p)));
    } else if constexpr (sizeof(V) == 64 && sizeof(T) == 4) {
      double d;
      std::memcpy(&d, p, 8);
      return (V)_mm512_set1_pd(d);
    } else
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(V) == 32 && sizeof(T) == 8) {
      return (V)_mm256_broadcast_pd(reinterpret_cast<const __m128d*>(p));
    } else if constexpr (sizeof(V) == 32 && sizeof(T) == 4) {
      return (V)_mm256_broadcast_sd(reinterpret_cast<const double*>(p));
    } else
#endif
    {
      V v;
      for (int i = 0; i < L; ++i) { v[2 * i] = p[0]; v[2 * i + 1] = p[1]; }
      return v;
    }
  }
  static V bcast(T re, T im) {
    V v{};
    for (int i = 0; i < L; ++i) { v[2 * i] = re; v[2 * i + 1] = im; }
    return v;
  }
  /** x in every scalar (GCC widens a scalar operand: one broadcast). */
  /** x in every scalar: one broadcast (V{} + x would add +0.0 first; an element loop
   *  becomes masked partial broadcasts). */
  static V splat(T x) {
#if defined(__AVX512F__)
    if constexpr (sizeof(V) == 64 && sizeof(T) == 8) return (V)_mm512_set1_pd(x);
    else if constexpr (sizeof(V) == 64 && sizeof(T) == 4) return (V)_mm512_set1_ps(x);
    else
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(V) == 32 && sizeof(T) == 8) return (V)_mm256_set1_pd(x);
    else if constexpr (sizeof(V) == 32 && sizeof(T) == 4) return (V)_mm256_set1_ps(x);
    else
#endif
      return V{} + x;
  }

  template <std::size_t... I>
  static V swap_(V v, std::index_sequence<I...>) { return __builtin_shufflevector(v, v, (I ^ 1)...); }
  template <std::size_t... I>
  static V dupre_(V v, std::index_sequence<I...>) { return __builtin_shufflevector(v, v, (I & ~std::size_t(1))...); }
  template <std::size_t... I>
  static V dupim_(V v, std::index_sequence<I...>) { return __builtin_shufflevector(v, v, (I | 1)...); }
  template <std::size_t... I>
  static V rev_(V v, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, (2 * (std::size_t(L) - 1 - I / 2) + (I & 1))...);
  }
  /** The complex lanes in reverse order. */
  static V rev(V v) { return rev_(v, std::make_index_sequence<2 * L>()); }
  /** (re, im) -> (im, re) in every lane. */
  static V swap(V v) { return swap_(v, std::make_index_sequence<2 * L>()); }
  static V dupre(V v) { return dupre_(v, std::make_index_sequence<2 * L>()); }
  static V dupim(V v) { return dupim_(v, std::make_index_sequence<2 * L>()); }
  /** (-1, +1, -1, +1, ...): the sign pattern of i * z = (-im, re). */
  static V altsign() {
    V v{};
    for (int i = 0; i < L; ++i) { v[2 * i] = T(-1); v[2 * i + 1] = T(1); }
    return v;
  }
  /** sign * i * v  (sign = +-1). */
  static V muli(V v, V sgn_pat) { return swap(v) * sgn_pat; }
  /** v * (wr + i wi), scalar twiddle broadcast: v wr + swap(v) (-wi, wi). */
  static V cmul_b(V v, V wr, V wi_pat) { return v * wr + swap(v) * wi_pat; }
  /** Lane-wise complex product with per-lane twiddles w. */
  static V cmul(V v, V w) { return v * dupre(w) + swap(v) * (dupim(w) * altsign()); }

  // ---- the lanes widened to double: the second level of the checks' sums
  static DV widen(V v) { return __builtin_convertvector(v, DV); }
  template <std::size_t... I>
  static DV dswap_(DV v, std::index_sequence<I...>) { return __builtin_shufflevector(v, v, (I ^ 1)...); }
  /** (re, im) -> (im, re) in every lane. */
  static DV dswap(DV v) { return dswap_(v, std::make_index_sequence<2 * L>()); }
  /** a + i b, lane by lane. */
  static DV dplus_i(DV a, DV b) { return a + dswap(b) * widen(altsign()); }
  /** v * (re + i im), lane by lane. */
  static DV dcmul(DV v, double re, double im) { return v * re + dswap(v) * (widen(altsign()) * im); }
  /** The sum over the lanes. */
  static std::complex<double> dsum(DV v) {
    double d[2 * L];
    std::memcpy(d, &v, sizeof d);
    double re = 0, im = 0;
    for (int i = 0; i < L; ++i) { re += d[2 * i]; im += d[2 * i + 1]; }
    return {re, im};
  }
};

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::fft
