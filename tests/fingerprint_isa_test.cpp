/** \file fingerprint_isa_test.cpp
 *  \brief The shared checksum::fingerprint as built for AVX2 (explicit 256-bit zero-extensions)
 *  gives exactly the sums of its definition, written out here word by word, on every length,
 *  alignment and content; a fingerprint fed step by step (as packing feeds it) equals the one of
 *  the whole buffer; and single and paired word changes always move it.
 */
#define ABFT_TARGET_NS avx2_test
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "abft/checksum/fingerprint.hpp"

namespace {

using abft::checksum::Fingerprint;

/** The definition: word t of nw goes to lane l = t mod 8 as step q = t div 8 of that lane;
 *  S0 = sum of all words, S1 = sum of (8 s + l) u_t with s the lane's steps from q to its end. */
Fingerprint by_definition(const void* buf, int64_t nw) {
  Fingerprint f;
  const unsigned char* w = static_cast<const unsigned char*>(buf);
  for (int64_t t = 0; t < nw; ++t) {
    uint32_t x;
    std::memcpy(&x, w + 4 * t, sizeof x);
    const int64_t l = t % 8, q = t / 8;
    const int64_t steps = (nw - l + 7) / 8;  // words of lane l
    const uint64_t s = uint64_t(steps - q);
    f.s0 += x;
    f.s1 += (8 * s + uint64_t(l)) * uint64_t(x);
  }
  return f;
}

template <class T>
void same_sums() {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "CPU lacks AVX2";
  std::mt19937_64 g(7);
  for (int n = 0; n < 300; ++n)
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<T> v(size_t(n) + 1);
      for (T& x : v) x = T(double(int64_t(g() % 2000001) - 1000000) * 1e-3);
      const T* p = v.data() + (rep & 1);  // unaligned starts too
      const Fingerprint a = by_definition(p, n * int64_t(sizeof(T) / 4));
      const Fingerprint b = abft::checksum::fingerprint(p, n);
      ASSERT_EQ(a.s0, b.s0) << "n " << n;
      ASSERT_EQ(a.s1, b.s1) << "n " << n;
      // Fed eight words at a time, then the tail: the same state.
      abft::checksum::FingerprintLanes lanes;
      const int64_t nw = n * int64_t(sizeof(T) / 4);
      const unsigned char* w = reinterpret_cast<const unsigned char*>(p);
      int64_t t = 0;
      for (; t + 8 <= nw; t += 8) lanes.step(w + 4 * t);
      ASSERT_EQ(lanes.finish(w + 4 * t, nw - t), b) << "n " << n;
    }
}

TEST(FingerprintIsa, Avx2MatchesDefinition_f32) { same_sums<float>(); }
TEST(FingerprintIsa, Avx2MatchesDefinition_f64) { same_sums<double>(); }

TEST(FingerprintIsa, SingleAndPairedFlipsAlwaysMoveIt) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "CPU lacks AVX2";
  std::vector<uint32_t> v(67);
  std::mt19937_64 g(11);
  for (uint32_t& x : v) x = uint32_t(g());
  const Fingerprint clean = abft::checksum::fingerprint(reinterpret_cast<const float*>(v.data()), 67);
  for (size_t i = 0; i < v.size(); ++i)
    for (int bit = 0; bit < 32; bit += 3) {
      v[i] ^= 1u << bit;
      EXPECT_NE(abft::checksum::fingerprint(reinterpret_cast<const float*>(v.data()), 67), clean);
      // The same bit flipped the other way in another word: S0 cancels, S1 must not.
      const size_t j = (i + 8 * (1 + i % 5)) % v.size();
      if (j != i && ((v[j] >> bit) & 1u) != ((v[i] >> bit) & 1u)) {
        v[j] ^= 1u << bit;
        EXPECT_NE(abft::checksum::fingerprint(reinterpret_cast<const float*>(v.data()), 67), clean)
            << "words " << i << ", " << j << ", bit " << bit;
        v[j] ^= 1u << bit;
      }
      v[i] ^= 1u << bit;
    }
}

}  // namespace
