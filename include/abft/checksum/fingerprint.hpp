/** \file fingerprint.hpp
 *  \brief Exact integer fingerprints of packed operands (memory-fault detection and location).
 *
 *  A packed copy of A or B lives in cache for the whole block computation; a
 *  flipped bit there corrupts a whole row (A) or column (B) of the output, and
 *  the floating-point checksums that reference the packed copy would agree with
 *  the corruption. We therefore keep, per packed buffer, two integer sums of
 *  the raw bit patterns u_t (t = position in the buffer):
 *      S0 = sum_t u_t,   S1 = sum_t w_t u_t      (mod 2^bits of the element, w_t distinct per lane position)
 *  A change d = u'_t - u_t of one element changes S0 by d and S1 by w_t d,
 *  both exactly, with no rounding: any change of one element is detected
 *  (d != 0 and |d| < 2^bits). Two changes cancel only if d1 + d2 = 0 and
 *  w_t1 d1 + w_t2 d2 = 0 mod 2^bits at once (two opposite flips of one bit
 *  in one lane whose weights agree in their low bits). Location is done by re-packing
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

/** Fingerprint of buf[0..n). The sums run in the element's own integer
 *  width U (mod 2^32 for float, 2^64 for double) over 2L independent lanes
 *  (L = 32 bytes / sizeof(U)); lane l takes t = 2Lq + l. S1 is a running sum
 *  of S0, so it weights u_t by the number of lane steps from t to the end,
 *  distinct for every position of a lane, and the loop is three vector
 *  instructions per 32 bytes. A single changed element changes S0 (d != 0 and
 *  |d| < 2^bits). */
template <class T>
ABFT_HD Fingerprint fingerprint(const T* buf, int64_t n) {
  using U = typename FloatBits<T>::U;
  constexpr int L = 32 / static_cast<int>(sizeof(U));
  // Read the bit patterns through a may_alias type: a per-element memcpy
  // defeats vectorised loads.
  typedef U __attribute__((may_alias)) UA;
  const UA* ub = reinterpret_cast<const UA*>(buf);
  U a[2 * L], b[2 * L];
  for (int l = 0; l < 2 * L; ++l) a[l] = b[l] = 0;
  int64_t t = 0;
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  typedef U VU __attribute__((vector_size(32)));
  VU a0 = VU{} , a1 = VU{}, b0 = VU{}, b1 = VU{};
  for (; t + 2 * L <= n; t += 2 * L) {
    VU x0, x1;
    std::memcpy(&x0, ub + t, sizeof x0);
    std::memcpy(&x1, ub + t + L, sizeof x1);
    a0 += x0;
    a1 += x1;
    b0 += a0;
    b1 += a1;
  }
  for (int l = 0; l < L; ++l) {
    a[l] = a0[l];
    a[l + L] = a1[l];
    b[l] = b0[l];
    b[l + L] = b1[l];
  }
#else
  for (; t + 2 * L <= n; t += 2 * L)
    for (int l = 0; l < 2 * L; ++l) {
      a[l] += static_cast<U>(ub[t + l]);
      b[l] += a[l];
    }
#endif
  for (int l = 0; t < n; ++t, ++l) {
    a[l] += static_cast<U>(ub[t]);
    b[l] += a[l];
  }
  U s0 = 0, s1 = 0;
  for (int l = 0; l < 2 * L; ++l) {
    s0 += a[l];
    s1 += b[l] * static_cast<U>(2 * l + 1);  // keep lanes apart
  }
  Fingerprint f;
  f.s0 = s0;
  f.s1 = s1;
  return f;
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::checksum
