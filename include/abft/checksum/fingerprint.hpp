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
  for (; t + 8 <= n; t += 8)
    for (int l = 0; l < 8; ++l) {
      a[l] += static_cast<uint64_t>(ub[t + l]);
      b[l] += a[l];
    }
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
