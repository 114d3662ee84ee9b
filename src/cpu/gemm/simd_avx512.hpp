/** \file simd_avx512.hpp
 *  \brief AVX-512F/DQ SIMD traits (float x16, double x8); include only in TUs built with -mavx512f.
 */
#pragma once
#include <immintrin.h>

#include <cstdint>

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
  static __m512i bits(V a) { return _mm512_castps_si512(a); }
  static void acc_add(double* d, V v) {
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    const __m512d hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
    _mm512_storeu_pd(d, _mm512_add_pd(_mm512_loadu_pd(d), lo));
    _mm512_storeu_pd(d + 8, _mm512_add_pd(_mm512_loadu_pd(d + 8), hi));
  }
  /// Rows of the packed A panel that pack_a_group handles (the kernel's MR).
  static constexpr int kPackRows = 12;
  /** One W-step of a full A panel whose rows are contiguous in k: rows r < 12 at src + r rs
   *  (16 values each) go to dst[p 12 + r] (a 12 x 16 transpose: three shuffle stages and a
   *  masked store per p). With vs, vs[p] += sum_r a_rp and va[p] += sum_r |a_rp| in double. */
  static void pack_a_group(const T* src, int64_t rs, T* dst, double* vs, double* va) {
    __m512 x[12];
    for (int r = 0; r < 12; ++r) x[r] = _mm512_loadu_ps(src + r * rs);
    if (vs) {
      // Rows in groups of four summed as a tree, then the groups into the running sums: three
      // dependent adds a step instead of twelve (double sums in any order, ABFT.md §2 (c)).
      // With the chain of twelve the sums took about 12 points of a +17 % overhead on a call
      // whose internal C has 256 columns (column-major 256 x 3072 x 768); as a tree, 3-4.
      __m512d s0 = _mm512_loadu_pd(vs), s1 = _mm512_loadu_pd(vs + 8);
      __m512d a0 = _mm512_loadu_pd(va), a1 = _mm512_loadu_pd(va + 8);
      for (int g = 0; g < 12; g += 4) {
        __m512d lo[4], hi[4];
        for (int r = 0; r < 4; ++r) {
          lo[r] = _mm512_cvtps_pd(_mm512_castps512_ps256(x[g + r]));
          hi[r] = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x[g + r], 1));
        }
        s0 = _mm512_add_pd(s0, _mm512_add_pd(_mm512_add_pd(lo[0], lo[1]), _mm512_add_pd(lo[2], lo[3])));
        s1 = _mm512_add_pd(s1, _mm512_add_pd(_mm512_add_pd(hi[0], hi[1]), _mm512_add_pd(hi[2], hi[3])));
        a0 = _mm512_add_pd(a0, _mm512_add_pd(_mm512_add_pd(_mm512_abs_pd(lo[0]), _mm512_abs_pd(lo[1])),
                                             _mm512_add_pd(_mm512_abs_pd(lo[2]), _mm512_abs_pd(lo[3]))));
        a1 = _mm512_add_pd(a1, _mm512_add_pd(_mm512_add_pd(_mm512_abs_pd(hi[0]), _mm512_abs_pd(hi[1])),
                                             _mm512_add_pd(_mm512_abs_pd(hi[2]), _mm512_abs_pd(hi[3]))));
      }
      _mm512_storeu_pd(vs, s0);
      _mm512_storeu_pd(vs + 8, s1);
      _mm512_storeu_pd(va, a0);
      _mm512_storeu_pd(va + 8, a1);
    }
    // t[2i] (t[2i+1]): rows 2i, 2i+1 interleaved at p = 4k, 4k+1 (4k+2, 4k+3) of 128-bit lane k.
    __m512 t[12];
    for (int i = 0; i < 6; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
    }
    // u[4i + e]: rows 4i..4i+3 at p = 4k + e in lane k.
    __m512 u[12];
    for (int i = 0; i < 3; ++i) {
      const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
      const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
      u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
      u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
      u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
      u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    // p = 4k + e takes lane k of u[e], u[4 + e], u[8 + e].
    const __mmask16 m12 = 0x0fff;
    for (int e = 0; e < 4; ++e) {
      const __m512 v0 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0x44);  // u_e.0 u_e.1 u_4e.0 u_4e.1
      const __m512 v1 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0xee);  // u_e.2 u_e.3 u_4e.2 u_4e.3
      _mm512_mask_storeu_ps(dst + (0 + e) * 12, m12, _mm512_shuffle_f32x4(v0, u[8 + e], 0x08));
      _mm512_mask_storeu_ps(dst + (4 + e) * 12, m12, _mm512_shuffle_f32x4(v0, u[8 + e], 0x5d));
      _mm512_mask_storeu_ps(dst + (8 + e) * 12, m12, _mm512_shuffle_f32x4(v1, u[8 + e], 0xa8));
      _mm512_mask_storeu_ps(dst + (12 + e) * 12, m12, _mm512_shuffle_f32x4(v1, u[8 + e], 0xfd));
    }
  }
  static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
  static void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
  /// (-x1, x0, -x3, x2, ...): a row of the complex expansion's odd rows from its even row
  /// (ComplexB): each (re, im) pair swapped, the sign of the first flipped.
  static V swap_neg(V x) {
    const __m512i sign = _mm512_set1_epi64(int64_t(0x80000000u));  // even lanes' sign bits
    return _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(_mm512_permute_ps(x, 0xb1)), sign));
  }
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
  static __m512i bits(V a) { return _mm512_castpd_si512(a); }
  static void acc_add(double* d, V v) { _mm512_storeu_pd(d, _mm512_add_pd(_mm512_loadu_pd(d), v)); }
  /// Rows of the packed A panel that pack_a_group handles (the kernel's MR).
  static constexpr int kPackRows = 12;
  /** One W-step of a full A panel whose rows are contiguous in k: rows r < 12 at src + r rs
   *  (8 values each) go to dst[p 12 + r] (rows 0-7 by an 8 x 8 transpose, rows 8-11 by two
   *  two-source permutes per pair of p). With vs, vs[p] += sum_r a_rp, va[p] += sum_r |a_rp|. */
  static void pack_a_group(const T* src, int64_t rs, T* dst, double* vs, double* va) {
    __m512d x[12];
    for (int r = 0; r < 12; ++r) x[r] = _mm512_loadu_pd(src + r * rs);
    if (vs) {
      // A tree per group of four rows, as in the float kernel's pack_a_group.
      __m512d s = _mm512_loadu_pd(vs), a = _mm512_loadu_pd(va);
      for (int g = 0; g < 12; g += 4) {
        s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(x[g], x[g + 1]), _mm512_add_pd(x[g + 2], x[g + 3])));
        a = _mm512_add_pd(a, _mm512_add_pd(_mm512_add_pd(_mm512_abs_pd(x[g]), _mm512_abs_pd(x[g + 1])),
                                           _mm512_add_pd(_mm512_abs_pd(x[g + 2]), _mm512_abs_pd(x[g + 3]))));
      }
      _mm512_storeu_pd(vs, s);
      _mm512_storeu_pd(va, a);
    }
    // t[2i + e]: rows 2i, 2i+1 at p = 2k + e in 128-bit lane k.
    __m512d t[12];
    for (int i = 0; i < 6; ++i) {
      t[2 * i] = _mm512_unpacklo_pd(x[2 * i], x[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_pd(x[2 * i], x[2 * i + 1]);
    }
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    for (int e = 0; e < 2; ++e) {
      const __m512d v0 = _mm512_shuffle_f64x2(t[e], t[2 + e], 0x44);
      const __m512d v1 = _mm512_shuffle_f64x2(t[e], t[2 + e], 0xee);
      const __m512d v2 = _mm512_shuffle_f64x2(t[4 + e], t[6 + e], 0x44);
      const __m512d v3 = _mm512_shuffle_f64x2(t[4 + e], t[6 + e], 0xee);
      _mm512_storeu_pd(dst + (0 + e) * 12, _mm512_shuffle_f64x2(v0, v2, 0x88));
      _mm512_storeu_pd(dst + (2 + e) * 12, _mm512_shuffle_f64x2(v0, v2, 0xdd));
      _mm512_storeu_pd(dst + (4 + e) * 12, _mm512_shuffle_f64x2(v1, v3, 0x88));
      _mm512_storeu_pd(dst + (6 + e) * 12, _mm512_shuffle_f64x2(v1, v3, 0xdd));
      // Rows 8-11: [t8e.k, t10e.k] for k = 0, 1 (lo) and 2, 3 (hi).
      const __m512d w01 = _mm512_permutex2var_pd(t[8 + e], lo, t[10 + e]);
      const __m512d w23 = _mm512_permutex2var_pd(t[8 + e], hi, t[10 + e]);
      _mm256_storeu_pd(dst + (0 + e) * 12 + 8, _mm512_castpd512_pd256(w01));
      _mm256_storeu_pd(dst + (2 + e) * 12 + 8, _mm512_extractf64x4_pd(w01, 1));
      _mm256_storeu_pd(dst + (4 + e) * 12 + 8, _mm512_castpd512_pd256(w23));
      _mm256_storeu_pd(dst + (6 + e) * 12 + 8, _mm512_extractf64x4_pd(w23, 1));
    }
  }
  static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
  static void prefetch_l2(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1); }
  /// (-x1, x0, -x3, x2, ...), as Avx512F32::swap_neg.
  static V swap_neg(V x) {
    const __m512i sign = _mm512_set_epi64(0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN);
    return _mm512_castsi512_pd(
        _mm512_xor_si512(_mm512_castpd_si512(_mm512_permute_pd(x, 0x55)), sign));
  }
};

}  // namespace abft::cpu::gemm
