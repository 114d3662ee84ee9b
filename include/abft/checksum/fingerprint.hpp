/** \file fingerprint.hpp
 *  \brief Exact integer fingerprints of packed operands (memory-fault detection).
 *
 *  A packed copy of A or B lives in cache for the whole block computation; a
 *  flipped bit there corrupts a whole row (A) or column (B) of the output, and
 *  the floating-point checksums that reference the packed copy would agree with
 *  the corruption. We therefore keep, per packed buffer, two integer sums of
 *  its 32-bit words u_t (a double is two words), each zero-extended and summed
 *  in 64 bits, so no change of a word can wrap:
 *      S0 = sum_t u_t,   S1 = sum_t w_t u_t      (mod 2^64)
 *  with a weight w_t distinct for every word. A change d_t (|d_t| < 2^32) of
 *  one word changes S0 by d_t: any single change is detected. Two changes
 *  cancel only if d1 = -d2 and (w1 - w2) d1 = 0 mod 2^64, impossible for
 *  distinct weights below 2^31 (buffers below 2^27 words). Location is done by re-packing from the
 *  caller's operand and comparing (exact, any number of changes), on the rare
 *  path only. No rounding is involved, hence no threshold and no false alarm.
 *
 *  FingerprintLanes is the running state, eight words a step, so that a kernel that writes a
 *  buffer eight words at a time (packing) can fingerprint it on the way instead of in a pass of
 *  its own; fingerprint() is the same state run over a whole buffer. Translation units built
 *  for AVX2 that name their own ABFT_TARGET_NS (the ISA kernels) get explicit 256-bit
 *  zero-extensions (GCC's generic vector conversion splits them into 128-bit halves), and
 *  those built for AVX-512 sum pairs of steps split by word parity (no zero-extension at all,
 *  see the struct); every implementation gives the same sums.
 */
#pragma once
#include <cstdint>
#include <cstring>

#include "abft/checksum/float_bits.hpp"

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(ABFT_TARGET_NS_IS_GENERIC)
#define ABFT_FINGERPRINT_AVX512 1
#include <immintrin.h>
#elif defined(__AVX2__) && !defined(__CUDACC__) && !defined(ABFT_TARGET_NS_IS_GENERIC)
#define ABFT_FINGERPRINT_AVX2 1
#include <immintrin.h>
#endif

namespace abft::checksum {

struct Fingerprint {
  uint64_t s0 = 0, s1 = 0;
  ABFT_HD bool operator==(const Fingerprint& o) const { return s0 == o.s0 && s1 == o.s1; }
  ABFT_HD bool operator!=(const Fingerprint& o) const { return !(*this == o); }
};

inline namespace ABFT_TARGET_NS {

/** The running state of a fingerprint: eight 64-bit lanes (lane l takes word 8q + l of the
 *  stream) of sums a[l] and running sums b[l] (b += a after every step, so b weights a word
 *  by the number of steps from it to the end). step() takes the next eight words. */
struct FingerprintLanes {
#if defined(ABFT_FINGERPRINT_AVX512)
  // Pairs of steps (sixteen words, one 64-byte load) are summed without any shuffle: the low
  // and the high word of every 64-bit lane are split by a mask and a shift, so the pair sums
  // lo (lanes 0-3: words 0, 2, 4, 6 of the pair's first step; lanes 4-7: of its second) and
  // hi (the odd words) run on two chains with three operations a step. A segment of P pairs
  // folds into the eight lanes as a_l = A[i] + A[i+4] and b_l = 2 B[i] + 2 B[i+4] - A[i+4]
  // (l = 2i from lo, 2i + 1 from hi; A, B the segment's sums and running sums), and a segment
  // of s steps after a state (a, b) gives (a + a', b + s a + b'). Single steps go to the
  // folded lanes; the stream's words keep their definition, so every build gives the same sums.
  //
  // step4 (two pairs) runs the pairs on two independent sets of chains, e (the first pair of
  // each step4) and o (the second), because one set is bound by the latency of its adds
  // (b += a after a += x), not by their number: 1.6x the words per ns on a Zen 5. A run of R
  // step4s is merged into the pair sums before anything else touches them: for the 2R pairs
  // y_q, sum_q (2R - q) y_q = 2 B_e + 2 B_o - A_o and sum_q y_q = A_e + A_o.
  __m512i alo = _mm512_setzero_si512(), ahi = _mm512_setzero_si512();
  __m512i blo = _mm512_setzero_si512(), bhi = _mm512_setzero_si512();
  uint64_t pairs = 0;                                  // pairs in the split sums
  uint64_t fa[8] = {0, 0, 0, 0, 0, 0, 0, 0}, fb[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // folded lanes
  __m512i ealo = _mm512_setzero_si512(), eahi = _mm512_setzero_si512();
  __m512i eblo = _mm512_setzero_si512(), ebhi = _mm512_setzero_si512();
  __m512i oalo = _mm512_setzero_si512(), oahi = _mm512_setzero_si512();
  __m512i oblo = _mm512_setzero_si512(), obhi = _mm512_setzero_si512();
  uint64_t quads = 0;                                  // step4s not yet merged
  static void split_step(const __m512i x, __m512i& lo, __m512i& hi, __m512i& blo_, __m512i& bhi_) {
    lo = _mm512_add_epi64(lo, _mm512_and_si512(x, _mm512_set1_epi64(0xffffffffll)));
    hi = _mm512_add_epi64(hi, _mm512_srli_epi64(x, 32));
    blo_ = _mm512_add_epi64(blo_, lo);
    bhi_ = _mm512_add_epi64(bhi_, hi);
  }
  /** s a mod 2^64 for s < 2^32, lane by lane, in AVX-512F (32 x 32 -> 64-bit products). */
  static __m512i mul_small(__m512i a, __m512i s) {
    const __m512i lo = _mm512_mul_epu32(a, s), hi = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), s);
    return _mm512_add_epi64(lo, _mm512_slli_epi64(hi, 32));
  }
  /** The pair sums with the pending step4s merged in: a segment of s = 2R pairs after (A, B)
   *  gives (A + A_seg, B + s A + B_seg). Into locals, so the state can stay in registers. */
  void merged(__m512i& Alo, __m512i& Ahi, __m512i& Blo, __m512i& Bhi) const {
    const __m512i s = _mm512_set1_epi64(static_cast<long long>(2 * quads));
    const __m512i slo = _mm512_sub_epi64(_mm512_slli_epi64(_mm512_add_epi64(eblo, oblo), 1), oalo);
    const __m512i shi = _mm512_sub_epi64(_mm512_slli_epi64(_mm512_add_epi64(ebhi, obhi), 1), oahi);
    Blo = _mm512_add_epi64(_mm512_add_epi64(blo, mul_small(alo, s)), slo);
    Bhi = _mm512_add_epi64(_mm512_add_epi64(bhi, mul_small(ahi, s)), shi);
    Alo = _mm512_add_epi64(alo, _mm512_add_epi64(ealo, oalo));
    Ahi = _mm512_add_epi64(ahi, _mm512_add_epi64(eahi, oahi));
  }
  void merge() {
    if (!quads) return;
    merged(alo, ahi, blo, bhi);
    pairs += 2 * quads;
    ealo = eahi = eblo = ebhi = oalo = oahi = oblo = obhi = _mm512_setzero_si512();
    quads = 0;
  }
  void step2(const void* words) {
    merge();
    split_step(_mm512_loadu_si512(words), alo, ahi, blo, bhi);
    ++pairs;
  }
  /// A pair of steps held in a register (a kernel that has loaded the words for its own
  /// arithmetic: the GEMM tile that re-checks a packed B sliver as it reads it).
  void step2(__m512i x) {
    merge();
    split_step(x, alo, ahi, blo, bhi);
    ++pairs;
  }
  void step4(const void* words) {
    step4(_mm512_loadu_si512(words),
          _mm512_loadu_si512(static_cast<const unsigned char*>(words) + 64));
  }
  /// The 32 words held in two registers (a kernel that has just stored them: a reload of
  /// fresh stores can wait on store forwarding).
  void step4(__m512i x, __m512i y) {
    split_step(x, ealo, eahi, eblo, ebhi);
    split_step(y, oalo, oahi, oblo, obhi);
    ++quads;
  }
  void step(const void* words) {
    merge();
    spill(fa, fb);
    alo = ahi = blo = bhi = _mm512_setzero_si512();
    pairs = 0;
    const unsigned char* w = static_cast<const unsigned char*>(words);
    for (int l = 0; l < 8; ++l) {
      uint32_t x;
      std::memcpy(&x, w + 4 * l, sizeof x);
      fa[l] += x;
      fb[l] += fa[l];
    }
  }
  void spill(uint64_t la[8], uint64_t lb[8]) const {
    __m512i mlo = alo, mhi = ahi, mblo = blo, mbhi = bhi;
    if (quads) merged(mlo, mhi, mblo, mbhi);
    alignas(64) uint64_t Al[8], Ah[8], Bl[8], Bh[8];
    _mm512_store_si512(Al, mlo);
    _mm512_store_si512(Ah, mhi);
    _mm512_store_si512(Bl, mblo);
    _mm512_store_si512(Bh, mbhi);
    const uint64_t steps = 2 * (pairs + 2 * quads);
    for (int i = 0; i < 4; ++i) {
      const uint64_t a0 = Al[i] + Al[i + 4], b0 = 2 * Bl[i] + 2 * Bl[i + 4] - Al[i + 4];
      const uint64_t a1 = Ah[i] + Ah[i + 4], b1 = 2 * Bh[i] + 2 * Bh[i + 4] - Ah[i + 4];
      lb[2 * i] = fb[2 * i] + steps * fa[2 * i] + b0;
      lb[2 * i + 1] = fb[2 * i + 1] + steps * fa[2 * i + 1] + b1;
      la[2 * i] = fa[2 * i] + a0;
      la[2 * i + 1] = fa[2 * i + 1] + a1;
    }
  }
#elif defined(ABFT_FINGERPRINT_AVX2)
  __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
  __m256i b0 = _mm256_setzero_si256(), b1 = _mm256_setzero_si256();
  void step(const void* words) {
    const __m128i* w = static_cast<const __m128i*>(words);
    a0 = _mm256_add_epi64(a0, _mm256_cvtepu32_epi64(_mm_loadu_si128(w)));
    a1 = _mm256_add_epi64(a1, _mm256_cvtepu32_epi64(_mm_loadu_si128(w + 1)));
    b0 = _mm256_add_epi64(b0, a0);
    b1 = _mm256_add_epi64(b1, a1);
  }
  void spill(uint64_t a[8], uint64_t b[8]) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), a0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + 4), a1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), b0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 4), b1);
  }
#elif defined(__GNUC__) && !defined(__CUDACC__)
  typedef uint64_t V4 __attribute__((vector_size(32)));
  typedef uint32_t W4 __attribute__((vector_size(16)));
  V4 a0 = V4{}, a1 = V4{}, b0 = V4{}, b1 = V4{};
  void step(const void* words) {
    W4 x0, x1;
    std::memcpy(&x0, words, sizeof x0);
    std::memcpy(&x1, static_cast<const unsigned char*>(words) + 16, sizeof x1);
    a0 += __builtin_convertvector(x0, V4);
    a1 += __builtin_convertvector(x1, V4);
    b0 += a0;
    b1 += a1;
  }
  void spill(uint64_t a[8], uint64_t b[8]) const {
    for (int l = 0; l < 4; ++l) {
      a[l] = a0[l];
      a[l + 4] = a1[l];
      b[l] = b0[l];
      b[l + 4] = b1[l];
    }
  }
#else
  uint64_t la[8] = {0, 0, 0, 0, 0, 0, 0, 0}, lb[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  ABFT_HD void step(const void* words) {
    const unsigned char* w = static_cast<const unsigned char*>(words);
    for (int l = 0; l < 8; ++l) {
      uint32_t x;
      std::memcpy(&x, w + 4 * l, sizeof x);
      la[l] += x;
      lb[l] += la[l];
    }
  }
  ABFT_HD void spill(uint64_t a[8], uint64_t b[8]) const {
    for (int l = 0; l < 8; ++l) {
      a[l] = la[l];
      b[l] = lb[l];
    }
  }
#endif
#if !defined(ABFT_FINGERPRINT_AVX512)
  /// Two and four steps (16, 32 words); the AVX-512 build sums a pair in one register.
  ABFT_HD void step2(const void* words) {
    step(words);
    step(static_cast<const unsigned char*>(words) + 32);
  }
  ABFT_HD void step4(const void* words) {
    step2(words);
    step2(static_cast<const unsigned char*>(words) + 64);
  }
#endif

  /** The fingerprint of the stream so far followed by the nt (< 8) words at tail, which go to
   *  lanes 0.. as one more step each. b[l] weights a word of lane l by s, its steps to the end
   *  (s >= 1); the combined weight 8 s + l is distinct for every word. */
  ABFT_HD Fingerprint finish(const void* tail = nullptr, int64_t nt = 0) const {
    uint64_t a[8], b[8];
    spill(a, b);
    const unsigned char* w = static_cast<const unsigned char*>(tail);
    for (int l = 0; l < nt; ++l) {
      uint32_t x;
      std::memcpy(&x, w + 4 * l, sizeof x);
      a[l] += x;
      b[l] += a[l];
    }
    Fingerprint f;
    for (int l = 0; l < 8; ++l) {
      f.s0 += a[l];
      f.s1 += 8 * b[l] + static_cast<uint64_t>(l) * a[l];
    }
    return f;
  }
};

/** Fingerprint of buf[0..n): FingerprintLanes over its 32-bit words. */
template <class T>
ABFT_HD Fingerprint fingerprint(const T* buf, int64_t n) {
  static_assert(sizeof(T) % 4 == 0, "fingerprints work on 32-bit words");
  const unsigned char* w = reinterpret_cast<const unsigned char*>(buf);
  const int64_t nw = n * static_cast<int64_t>(sizeof(T) / 4);
  FingerprintLanes lanes;
  int64_t t = 0;
  for (; t + 32 <= nw; t += 32) lanes.step4(w + 4 * t);
  for (; t + 16 <= nw; t += 16) lanes.step2(w + 4 * t);
  for (; t + 8 <= nw; t += 8) lanes.step(w + 4 * t);
  return lanes.finish(w + 4 * t, nw - t);
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::checksum
