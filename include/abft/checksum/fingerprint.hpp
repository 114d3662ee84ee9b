/** \file fingerprint.hpp
 *  \brief Exact integer fingerprints of packed operands (memory-fault detection and location).
 *
 *  A packed copy of A or B lives in cache for the whole block computation; a
 *  flipped bit there corrupts a whole row (A) or column (B) of the output, and
 *  the floating-point checksums that reference the packed copy would agree with
 *  the corruption. We therefore keep, per packed buffer, two integer sums of
 *  the raw bit patterns u_t (t = position in the buffer):
 *      S0 = sum_t u_t,   S1 = sum_t (t+1) u_t      (mod 2^64)
 *  A change d = u'_t - u_t of one element changes S0 by d and S1 by (t+1) d,
 *  both exactly, with no rounding: any change of one element is detected
 *  (d != 0 and |d| < 2^64). Two changes cancel only if d1 + d2 = 0 and
 *  (t1+1) d1 + (t2+1) d2 = 0 mod 2^64 at once. Location is done by re-packing
 *  from the caller's operand and comparing (exact, any number of changes), on
 *  the rare path only. Cost: one pass over the packed block, cache resident,
 *  against O(n) flops per packed element.
 */
#pragma once
#include <cstdint>

#include "abft/checksum/float_bits.hpp"

namespace abft::checksum {

struct Fingerprint {
  uint64_t s0 = 0, s1 = 0;
  ABFT_HD bool operator==(const Fingerprint& o) const { return s0 == o.s0 && s1 == o.s1; }
  ABFT_HD bool operator!=(const Fingerprint& o) const { return !(*this == o); }
};

/** Fingerprint of buf[0..n). */
template <class T>
ABFT_HD Fingerprint fingerprint(const T* buf, int64_t n) {
  Fingerprint f;
  // Four independent lanes so the compiler vectorises; weights stay distinct
  // per position: lane l holds t = 4q + l and S1 uses (q+1)*4 + l.
  uint64_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
  int64_t t = 0;
  for (uint64_t q = 1; t + 4 <= n; t += 4, ++q) {
    for (int l = 0; l < 4; ++l) {
      const uint64_t u = static_cast<uint64_t>(to_bits(buf[t + l]));
      a[l] += u;
      b[l] += (q * 4 + static_cast<uint64_t>(l)) * u;
    }
  }
  for (; t < n; ++t) {
    const uint64_t u = static_cast<uint64_t>(to_bits(buf[t]));
    a[0] += u;
    b[0] += static_cast<uint64_t>(t + 7) * u;
  }
  f.s0 = a[0] + a[1] + a[2] + a[3];
  f.s1 = b[0] + b[1] + b[2] + b[3];
  return f;
}

}  // namespace abft::checksum
