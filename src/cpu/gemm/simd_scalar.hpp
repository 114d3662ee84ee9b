/** \file simd_scalar.hpp
 *  \brief Portable one-lane SIMD traits: the reference kernel for any CPU and for correctness checks.
 */
#pragma once
#include <cmath>
#include <cstdint>

namespace abft::cpu::gemm {

template <class TT>
struct SimdScalar {
  using T = TT;
  using V = TT;
  static constexpr int W = 1;
  static V zero() { return T(0); }
  static V load(const T* p) { return *p; }
  static V loadu(const T* p) { return *p; }
  static void storeu(T* p, V v) { *p = v; }
  static void stream(T* p, V v) { *p = v; }
  static V set1(T x) { return x; }
  static V fma(V a, V b, V c) { return std::fma(a, b, c); }
  static V mul(V a, V b) { return a * b; }
  static V add(V a, V b) { return a + b; }
  static V abs(V a) { return std::fabs(a); }
  static void acc_add(double* d, V v) { *d += static_cast<double>(v); }
  static void prefetch(const void*) {}
  static void prefetch_l2(const void*) {}
  /// No vector packing step: pack_a takes its generic loops (kPackRows = 0).
  static constexpr int kPackRows = 0;
  static void pack_a_group(const T*, int64_t, T*, double*, double*) {}
};

}  // namespace abft::cpu::gemm
