/** \file fingerprint_isa_test.cpp
 *  \brief The shared checksum::fingerprint as built for AVX2 (explicit 256-bit zero-extensions;
 *  fingerprint_isa512_test.cpp builds this file for AVX-512, the eight lanes in one register)
 *  gives exactly the sums of its definition, written out here word by word, on every length,
 *  alignment and content; a fingerprint fed step by step (as packing feeds it) equals the one of
 *  the whole buffer; single and paired word changes always move it; and the GEMM's B packing,
 *  which fingerprints and sums a full panel in the copy's pass, gives the same panel, |B| chunk
 *  sums and fingerprint as the definitions (plain and complex-expanded B, partial panels).
 */
#if defined(ABFT_FP_TEST_AVX512)
#define ABFT_TARGET_NS avx512_test
#define ABFT_FP_TEST_CPU "avx512f"
#else
#define ABFT_TARGET_NS avx2_test
#define ABFT_FP_TEST_CPU "avx2"
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "abft/checksum/fingerprint.hpp"
#include "cpu/gemm/gemm_pack.hpp"

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
  if (!__builtin_cpu_supports(ABFT_FP_TEST_CPU)) GTEST_SKIP() << "CPU lacks " ABFT_FP_TEST_CPU;
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
      // Four and two steps at a time mixed with single steps (the AVX-512 build sums pairs
      // of steps in split registers and folds them on a single step): the same state again.
      abft::checksum::FingerprintLanes mixed;
      t = 0;
      for (int k = 0; t + 8 <= nw; ++k)
        if (k % 4 == 0 && t + 32 <= nw) {
          mixed.step4(w + 4 * t);
          t += 32;
        } else if (k % 4 != 3 && t + 16 <= nw) {
          mixed.step2(w + 4 * t);
          t += 16;
        } else {
          mixed.step(w + 4 * t);
          t += 8;
        }
      ASSERT_EQ(mixed.finish(w + 4 * t, nw - t), b) << "n " << n;
      // Runs of four-step calls (the AVX-512 build keeps them on chains of their own until
      // the next other call) broken at random by two and single steps, and the state read
      // mid-run: the same sums.
      abft::checksum::FingerprintLanes runs;
      std::mt19937_64 pick(uint64_t(n) * 31 + uint64_t(rep));
      t = 0;
      while (t + 8 <= nw) {
        const unsigned op = unsigned(pick() % 8);
        if (op < 5 && t + 32 <= nw) {
          runs.step4(w + 4 * t);
          t += 32;
        } else if (op < 7 && t + 16 <= nw) {
          runs.step2(w + 4 * t);
          t += 16;
        } else {
          runs.step(w + 4 * t);
          t += 8;
        }
        if (op == 0) {  // read mid-run (pending four-step calls merged into a copy, not the state)
          ASSERT_EQ(runs.finish(), by_definition(p, t)) << "n " << n << ", prefix " << t;
        }
      }
      ASSERT_EQ(runs.finish(w + 4 * t, nw - t), b) << "n " << n;
    }
}

TEST(FingerprintIsa, Avx2MatchesDefinition_f32) { same_sums<float>(); }
TEST(FingerprintIsa, Avx2MatchesDefinition_f64) { same_sums<double>(); }

TEST(FingerprintIsa, SingleAndPairedFlipsAlwaysMoveIt) {
  if (!__builtin_cpu_supports(ABFT_FP_TEST_CPU)) GTEST_SKIP() << "CPU lacks " ABFT_FP_TEST_CPU;
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

template <class T, int NR>
void packing_encodes(bool complex_b) {
  if (!__builtin_cpu_supports(ABFT_FP_TEST_CPU)) GTEST_SKIP() << "CPU lacks " ABFT_FP_TEST_CPU;
  namespace g = abft::cpu::gemm;
  const int64_t K = 75, N = 3 * NR + 5;  // a k step that is not whole chunks; a partial panel
  std::mt19937_64 rng(5);
  std::vector<T> b(size_t(K * N)), x(size_t(4 * K * N));  // X: ldx = K/2 + 1, K/2 columns
  for (T& v : b) v = T(double(int64_t(rng() % 2001) - 1000) / 7.0);
  for (T& v : x) v = T(double(int64_t(rng() % 2001) - 1000) / 3.0);
  g::Problem<T> P;
  P.K = K;
  P.N = N;
  P.B = b.data();
  P.rsb = N;
  P.csb = 1;
  if (complex_b) {  // B_int = the real expansion of a K/2 x N/2 complex X (column-major)
    P.xb.x = x.data();
    P.xb.ldx = K / 2 + 1;
  }
  const int64_t nb = complex_b ? (N / 2) * 2 : N, kb = complex_b ? (K / 2) * 2 : K;
  const int64_t nq = (nb + NR - 1) / NR, nchunk = (kb + g::kChunk - 1) / g::kChunk;
  std::vector<T> bp(size_t(nq * kb * NR)), babs(size_t(nchunk * nq * NR), T(-1));
  std::vector<Fingerprint> fp(static_cast<size_t>(nq));
  g::pack_b<T, NR>(P, NR, 0, nb, 0, kb, 0, nq, bp.data(), babs.data(), nq * NR, fp.data());
  for (int64_t q = 0; q < nq; ++q) {
    const T* panel = bp.data() + q * kb * NR;
    for (int64_t p = 0; p < kb; ++p)
      for (int64_t j = 0; j < NR; ++j) {
        const int64_t col = q * NR + j;
        const T want = col < nb ? P.b(p, col) : T(0);
        ASSERT_EQ(panel[p * NR + j], want) << "p " << p << " col " << col;
      }
    EXPECT_EQ(fp[size_t(q)], abft::checksum::fingerprint(panel, kb * NR)) << "panel " << q;
    for (int64_t c = 0; c < nchunk; ++c)
      for (int64_t j = 0; j < NR && q * NR + j < nb; ++j) {
        T s = T(0);  // the chunk's |b| summed in T from zero, in k order
        for (int64_t p = c * g::kChunk; p < std::min(kb, (c + 1) * g::kChunk); ++p)
          s += std::fabs(panel[p * NR + j]);
        EXPECT_EQ(babs[size_t(c * nq * NR + q * NR + j)], s) << "chunk " << c << " col " << q * NR + j;
      }
  }
}

TEST(PackingFingerprint, PlainB_f32) { packing_encodes<float, 16>(false); }
TEST(PackingFingerprint, PlainB_f64) { packing_encodes<double, 8>(false); }
TEST(PackingFingerprint, ComplexExpandedB_f32) { packing_encodes<float, 16>(true); }
TEST(PackingFingerprint, ComplexExpandedB_f64) { packing_encodes<double, 8>(true); }

}  // namespace
