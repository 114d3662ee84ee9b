/** \file fingerprint_isa_test.cpp
 *  \brief The AVX2 fingerprint (src/cpu/gemm/simd_avx2.hpp) gives exactly the sums of the shared
 *  checksum::fingerprint on every length and content: one definition, two implementations.
 */
#define ABFT_TARGET_NS avx2_test
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cpu/gemm/simd_avx2.hpp"

namespace {

template <class T>
void same_sums() {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "CPU lacks AVX2";
  std::mt19937_64 g(7);
  for (int n = 0; n < 300; ++n)
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<T> v(size_t(n) + 1);
      for (T& x : v) x = T(double(int64_t(g() % 2000001) - 1000000) * 1e-3);
      const T* p = v.data() + (rep & 1);  // unaligned starts too
      const auto a = abft::checksum::fingerprint(p, n);
      const auto b = abft::cpu::gemm::fingerprint_avx2(p, n);
      ASSERT_EQ(a.s0, b.s0) << "n " << n;
      ASSERT_EQ(a.s1, b.s1) << "n " << n;
    }
}

TEST(FingerprintIsa, Avx2MatchesShared_f32) { same_sums<float>(); }
TEST(FingerprintIsa, Avx2MatchesShared_f64) { same_sums<double>(); }

}  // namespace
