/** \file num_format.hpp
 *  \brief The number formats a product may read, accumulate in or store to (binary16,
 *  bfloat16, TF32, binary32, binary64): their unit roundoff, smallest normal and largest
 *  finite value, and rounding of a double into them. Host and device (ABFT_HD): the GPU
 *  engine's bounds use the first, and host tests emulate a library's rounding with the
 *  second, so a test runs the same checksum code the device path runs.
 */
#pragma once
#include <cmath>
#include <cstdint>

#include "abft/checksum/host_device.hpp"

namespace abft::checksum {

enum class NumFormat : int {
  F16 = 0,   ///< IEEE binary16: 11-bit significand, normal exponents -14..15
  BF16 = 1,  ///< bfloat16: 8-bit significand, float's exponent range
  TF32 = 2,  ///< TF32 (tensor cores reading float data): 11-bit significand, float's range
  F32 = 3,   ///< IEEE binary32
  F64 = 4    ///< IEEE binary64
};

/** Significand bits p (the implicit one included). */
ABFT_HD int format_digits(NumFormat f) {
  switch (f) {
    case NumFormat::F16: return 11;
    case NumFormat::BF16: return 8;
    case NumFormat::TF32: return 11;
    case NumFormat::F32: return 24;
    default: return 53;
  }
}

/** Exponent of the smallest normal number (2^emin). */
ABFT_HD int format_emin(NumFormat f) {
  switch (f) {
    case NumFormat::F16: return -14;
    case NumFormat::F64: return -1022;
    default: return -126;
  }
}

/** Exponent e of the largest finite number, (2 - 2^(1-p)) 2^e. */
ABFT_HD int format_emax(NumFormat f) {
  switch (f) {
    case NumFormat::F16: return 15;
    case NumFormat::F64: return 1023;
    default: return 127;
  }
}

/** Unit roundoff u = 2^-p (round to nearest). */
ABFT_HD double format_unit_roundoff(NumFormat f) { return std::ldexp(1.0, -format_digits(f)); }
/** Smallest positive normal number. */
ABFT_HD double format_min_normal(NumFormat f) { return std::ldexp(1.0, format_emin(f)); }
/** Largest finite number. */
ABFT_HD double format_max(NumFormat f) {
  return (2.0 - std::ldexp(1.0, 1 - format_digits(f))) * std::ldexp(1.0, format_emax(f));
}

/** x rounded to format f, to nearest with ties to even, subnormals kept (gradual underflow),
 *  overflow to +-inf. Exact for every format narrower than double; F64 returns x. */
ABFT_HD double round_to_format(double x, NumFormat f) {
  if (f == NumFormat::F64 || x == 0.0 || !std::isfinite(x)) return x;
  int e = 0;
  (void)std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const int p = format_digits(f);
  // The quantum at x: 2^(e - p) for a normal x, 2^(emin + 1 - p) below the normal range.
  const int q = (e - 1 < format_emin(f) ? format_emin(f) + 1 : e) - p;
  const double r = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
  const double mx = format_max(f);
  if (r > mx) return INFINITY;
  if (r < -mx) return -INFINITY;
  return r;
}

}  // namespace abft::checksum
