/** \file simd_avx512.hpp
 *  \brief AVX-512F/DQ SIMD traits (float x16, double x8); include only in TUs built with -mavx512f.
 */
#pragma once
#include <immintrin.h>

namespace abft::cpu::gemm {

struct Avx512F32 {
  using T = float;
  using V = __m512;
  static constexpr int W = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const T* p) { return _mm512_load_ps(p); }
  static V loadu(const T* p) { return _mm512_loadu_ps(p); }
  static void storeu(T* p, V v) { _mm512_storeu_ps(p, v); }
  static void stream(T* p, V v) { _mm512_stream_ps(p, v); }  // 64-byte aligned
  static V set1(T x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V abs(V a) { return _mm512_abs_ps(a); }
  static void acc_add(double* d, V v) {
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    const __m512d hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
    _mm512_storeu_pd(d, _mm512_add_pd(_mm512_loadu_pd(d), lo));
    _mm512_storeu_pd(d + 8, _mm512_add_pd(_mm512_loadu_pd(d + 8), hi));
  }
  static void prefetch(const T* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
};

struct Avx512F64 {
  using T = double;
  using V = __m512d;
  static constexpr int W = 8;
  static V zero() { return _mm512_setzero_pd(); }
  static V load(const T* p) { return _mm512_load_pd(p); }
  static V loadu(const T* p) { return _mm512_loadu_pd(p); }
  static void storeu(T* p, V v) { _mm512_storeu_pd(p, v); }
  static void stream(T* p, V v) { _mm512_stream_pd(p, v); }  // 64-byte aligned
  static V set1(T x) { return _mm512_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V abs(V a) { return _mm512_abs_pd(a); }
  static void acc_add(double* d, V v) { _mm512_storeu_pd(d, _mm512_add_pd(_mm512_loadu_pd(d), v)); }
  static void prefetch(const T* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
};

}  // namespace abft::cpu::gemm
