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
 */
#pragma once
#include <cstdint>
#include <cstring>

#include "abft/checksum/float_bits.hpp"

namespace abft::checksum {

struct Fingerprint {
  uint64_t s0 = 0, s1 = 0;
  ABFT_HD bool operator==(const Fingerprint& o) const { return s0 == o.s0 && s1 == o.s1; }
  ABFT_HD bool operator!=(const Fingerprint& o) const { return !(*this == o); }
};

inline namespace ABFT_TARGET_NS {

/** Shared tail of every fingerprint implementation: the words t..nw-1 left
 *  over by the vector loop go to lanes 0.., then the eight lanes (a: sums,
 *  b: running sums) are combined. b[l] weights a word of lane l by s, its
 *  steps to the end (s >= 1); the weight 8 s + l is distinct for every word. */
ABFT_HD Fingerprint fingerprint_finish(uint64_t a[8], uint64_t b[8], const void* words, int64_t t,
                                       int64_t nw) {
  const unsigned char* w = static_cast<const unsigned char*>(words);
  for (int l = 0; l < 8 && t < nw; ++t, ++l) {
    uint32_t x;
    std::memcpy(&x, w + 4 * t, sizeof x);
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

/** Fingerprint of buf[0..n). Eight 64-bit lanes over the 32-bit words (lane l
 *  takes word 8q + l); S1 is a running sum of S0, so it weights a word by the
 *  number of lane steps from it to the end. The loop is two zero-extensions and
 *  four 64-bit adds per 32 bytes. */
template <class T>
ABFT_HD Fingerprint fingerprint(const T* buf, int64_t n) {
  static_assert(sizeof(T) % 4 == 0, "fingerprints work on 32-bit words");
  typedef uint32_t __attribute__((may_alias)) WA;  // read words without per-element memcpy
  const WA* w = reinterpret_cast<const WA*>(buf);
  const int64_t nw = n * static_cast<int64_t>(sizeof(T) / 4);
  uint64_t a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t t = 0;
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  typedef uint64_t V4 __attribute__((vector_size(32)));
  typedef uint32_t W4 __attribute__((vector_size(16)));
  V4 a0 = V4{}, a1 = V4{}, b0 = V4{}, b1 = V4{};
  for (; t + 8 <= nw; t += 8) {
    W4 x0, x1;
    std::memcpy(&x0, w + t, sizeof x0);
    std::memcpy(&x1, w + t + 4, sizeof x1);
    a0 += __builtin_convertvector(x0, V4);
    a1 += __builtin_convertvector(x1, V4);
    b0 += a0;
    b1 += a1;
  }
  for (int l = 0; l < 4; ++l) {
    a[l] = a0[l];
    a[l + 4] = a1[l];
    b[l] = b0[l];
    b[l + 4] = b1[l];
  }
#else
  for (; t + 8 <= nw; t += 8)
    for (int l = 0; l < 8; ++l) {
      a[l] += static_cast<uint64_t>(w[t + l]);
      b[l] += a[l];
    }
#endif
  return fingerprint_finish(a, b, buf, t, nw);
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::checksum
