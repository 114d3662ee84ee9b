/** \file fingerprint.hpp
 *  \brief Exact integer fingerprints of packed operands (memory-fault detection and location).
 *
 *  A packed copy of A or B lives in cache for the whole block computation; a
 *  flipped bit there corrupts a whole row (A) or column (B) of the output, and
 *  the floating-point checksums that reference the packed copy would agree with
 *  the corruption. We therefore keep, per packed buffer, two integer sums of
 *  the raw bit patterns u_t (t = position in the buffer):
 *      S0 = sum_t u_t,   S1 = sum_t w_t u_t      (mod 2^64, w_t distinct per lane position)
 *  A change d = u'_t - u_t of one element changes S0 by d and S1 by w_t d,
 *  both exactly, with no rounding: any change of one element is detected
 *  (d != 0 and |d| < 2^64). Two changes cancel only if d1 + d2 = 0 and
 *  w_t1 d1 + w_t2 d2 = 0 mod 2^64 at once. Location is done by re-packing
 *  from the caller's operand and comparing (exact, any number of changes), on
 *  the rare path only. Cost: one pass over the packed block, cache resident,
 *  against O(n) flops per packed element.
 */
#pragma once
#include <cstdint>

#include "abft/checksum/float_bits.hpp"

namespace abft::checksum {
inline namespace ABFT_TARGET_NS {

struct Fingerprint {
  uint64_t s0 = 0, s1 = 0;
  ABFT_HD bool operator==(const Fingerprint& o) const { return s0 == o.s0 && s1 == o.s1; }
  ABFT_HD bool operator!=(const Fingerprint& o) const { return !(*this == o); }
};

/** Fingerprint of buf[0..n). Eight independent lanes (lane l takes
 *  t = 8q + l) with running sums, so the loop has no multiplies and
 *  vectorises: S1 weights u_t by the number of lane steps from t to the end,
 *  which differs for every position of a lane. */
template <class T>
ABFT_HD Fingerprint fingerprint(const T* buf, int64_t n) {
  // Read the bit patterns through a may_alias type: a per-element memcpy
  // defeats vectorised loads.
  typedef typename FloatBits<T>::U __attribute__((may_alias)) UA;
  const UA* ub = reinterpret_cast<const UA*>(buf);
  uint64_t a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t t = 0;
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  // Two groups of four 64-bit lanes in GCC/Clang vector types: plain vector
  // adds whatever the target ISA (SSE2 pairs, AVX2, AVX-512 halves).
  typedef uint64_t V4 __attribute__((vector_size(32)));
  typedef typename FloatBits<T>::U UV4 __attribute__((vector_size(4 * sizeof(typename FloatBits<T>::U))));
  V4 a0 = {0, 0, 0, 0}, a1 = a0, b0 = a0, b1 = a0;
  for (; t + 8 <= n; t += 8) {
    UV4 x0, x1;
    std::memcpy(&x0, ub + t, sizeof x0);
    std::memcpy(&x1, ub + t + 4, sizeof x1);
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
  for (; t + 8 <= n; t += 8)
    for (int l = 0; l < 8; ++l) {
      a[l] += static_cast<uint64_t>(ub[t + l]);
      b[l] += a[l];
    }
#endif
  for (int l = 0; t < n; ++t, ++l) {
    a[l] += static_cast<uint64_t>(ub[t]);
    b[l] += a[l];
  }
  Fingerprint f;
  for (int l = 0; l < 8; ++l) {
    f.s0 += a[l];
    f.s1 += b[l] * (2 * static_cast<uint64_t>(l) + 1);  // keep lanes apart
  }
  return f;
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::checksum
