/** \file simd_avx2.hpp
 *  \brief AVX2+FMA SIMD traits (float x8, double x4); include only in TUs built with -mavx2 -mfma.
 */
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace abft::cpu::gemm {

struct Avx2F32 {
  using T = float;
  using V = __m256;
  static constexpr int W = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const T* p) { return _mm256_load_ps(p); }
  static V loadu(const T* p) { return _mm256_loadu_ps(p); }
  static void storeu(T* p, V v) { _mm256_storeu_ps(p, v); }
  static void stream(T* p, V v) { _mm256_stream_ps(p, v); }  // 32-byte aligned
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static void acc_add(double* d, V v) {
    const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
    const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    _mm256_storeu_pd(d, _mm256_add_pd(_mm256_loadu_pd(d), lo));
    _mm256_storeu_pd(d + 4, _mm256_add_pd(_mm256_loadu_pd(d + 4), hi));
  }
  /// Rows of the packed A panel that pack_a_group handles (the kernel's MR).
  static constexpr int kPackRows = 6;
  /** One W-step of a full A panel whose rows are contiguous in k: rows r < 6 at src + r rs
   *  (8 values each) go to dst[p 6 + r] (rows 0-3 by a 4 x 4 transpose per 128-bit lane, rows
   *  4-5 as 64-bit pairs). With vs, vs[p] += sum_r a_rp and va[p] += sum_r |a_rp| in double. */
  static void pack_a_group(const T* src, int64_t rs, T* dst, double* vs, double* va) {
    __m256 x[6];
    for (int r = 0; r < 6; ++r) x[r] = _mm256_loadu_ps(src + r * rs);
    if (vs) {
      const __m256d sign = _mm256_set1_pd(-0.0);
      __m256d s0 = _mm256_loadu_pd(vs), s1 = _mm256_loadu_pd(vs + 4);
      __m256d a0 = _mm256_loadu_pd(va), a1 = _mm256_loadu_pd(va + 4);
      for (int r = 0; r < 6; ++r) {
        const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x[r]));
        const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x[r], 1));
        s0 = _mm256_add_pd(s0, lo);
        s1 = _mm256_add_pd(s1, hi);
        a0 = _mm256_add_pd(a0, _mm256_andnot_pd(sign, lo));
        a1 = _mm256_add_pd(a1, _mm256_andnot_pd(sign, hi));
      }
      _mm256_storeu_pd(vs, s0);
      _mm256_storeu_pd(vs + 4, s1);
      _mm256_storeu_pd(va, a0);
      _mm256_storeu_pd(va + 4, a1);
    }
    // t[2i] (t[2i+1]): rows 2i, 2i+1 as pairs at p = 4k, 4k+1 (4k+2, 4k+3) of 128-bit lane k.
    __m256 t[6];
    for (int i = 0; i < 3; ++i) {
      t[2 * i] = _mm256_unpacklo_ps(x[2 * i], x[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(x[2 * i], x[2 * i + 1]);
    }
    // u[e]: rows 0-3 at p = 4k + e in lane k.
    const __m256d a = _mm256_castps_pd(t[0]), b = _mm256_castps_pd(t[1]);
    const __m256d c = _mm256_castps_pd(t[2]), d = _mm256_castps_pd(t[3]);
    const __m256 u[4] = {_mm256_castpd_ps(_mm256_unpacklo_pd(a, c)), _mm256_castpd_ps(_mm256_unpackhi_pd(a, c)),
                         _mm256_castpd_ps(_mm256_unpacklo_pd(b, d)), _mm256_castpd_ps(_mm256_unpackhi_pd(b, d))};
    const __m128 r45[4] = {_mm256_castps256_ps128(t[4]), _mm256_castps256_ps128(t[5]),
                           _mm256_extractf128_ps(t[4], 1), _mm256_extractf128_ps(t[5], 1)};
    for (int e = 0; e < 4; ++e) {
      T* d0 = dst + e * 6;  // p = e (lane 0)
      T* d1 = dst + (4 + e) * 6;  // p = 4 + e (lane 1)
      _mm_storeu_ps(d0, _mm256_castps256_ps128(u[e]));
      _mm_storeu_ps(d1, _mm256_extractf128_ps(u[e], 1));
      const __m128 q0 = r45[e >> 1], q1 = r45[2 + (e >> 1)];
      if (e & 1) {
        _mm_storeh_pi(reinterpret_cast<__m64*>(d0 + 4), q0);
        _mm_storeh_pi(reinterpret_cast<__m64*>(d1 + 4), q1);
      } else {
        _mm_storel_pi(reinterpret_cast<__m64*>(d0 + 4), q0);
        _mm_storel_pi(reinterpret_cast<__m64*>(d1 + 4), q1);
      }
    }
  }
  static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
  static void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
};

struct Avx2F64 {
  using T = double;
  using V = __m256d;
  static constexpr int W = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const T* p) { return _mm256_load_pd(p); }
  static V loadu(const T* p) { return _mm256_loadu_pd(p); }
  static void storeu(T* p, V v) { _mm256_storeu_pd(p, v); }
  static void stream(T* p, V v) { _mm256_stream_pd(p, v); }  // 32-byte aligned
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
  static void acc_add(double* d, V v) { _mm256_storeu_pd(d, _mm256_add_pd(_mm256_loadu_pd(d), v)); }
  /// Rows of the packed A panel that pack_a_group handles (the kernel's MR).
  static constexpr int kPackRows = 6;
  /** One W-step of a full A panel whose rows are contiguous in k: rows r < 6 at src + r rs
   *  (4 values each) go to dst[p 6 + r] (pairs of rows interleaved, then joined by 128-bit
   *  lanes). With vs, vs[p] += sum_r a_rp and va[p] += sum_r |a_rp|. */
  static void pack_a_group(const T* src, int64_t rs, T* dst, double* vs, double* va) {
    __m256d x[6];
    for (int r = 0; r < 6; ++r) x[r] = _mm256_loadu_pd(src + r * rs);
    if (vs) {
      const __m256d sign = _mm256_set1_pd(-0.0);
      __m256d s = _mm256_loadu_pd(vs), a = _mm256_loadu_pd(va);
      for (int r = 0; r < 6; ++r) {
        s = _mm256_add_pd(s, x[r]);
        a = _mm256_add_pd(a, _mm256_andnot_pd(sign, x[r]));
      }
      _mm256_storeu_pd(vs, s);
      _mm256_storeu_pd(va, a);
    }
    // t[2i + e]: rows 2i, 2i+1 at p = 2k + e in 128-bit lane k.
    __m256d t[6];
    for (int i = 0; i < 3; ++i) {
      t[2 * i] = _mm256_unpacklo_pd(x[2 * i], x[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_pd(x[2 * i], x[2 * i + 1]);
    }
    for (int e = 0; e < 2; ++e) {
      _mm256_storeu_pd(dst + e * 6, _mm256_permute2f128_pd(t[e], t[2 + e], 0x20));
      _mm256_storeu_pd(dst + (2 + e) * 6, _mm256_permute2f128_pd(t[e], t[2 + e], 0x31));
      _mm_storeu_pd(dst + e * 6 + 4, _mm256_castpd256_pd128(t[4 + e]));
      _mm_storeu_pd(dst + (2 + e) * 6 + 4, _mm256_extractf128_pd(t[4 + e], 1));
    }
  }
  static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
  static void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
};

}  // namespace abft::cpu::gemm
