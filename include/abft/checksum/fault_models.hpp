/** \file fault_models.hpp
 *  \brief The shared fault models (GUIDE §4): how one value is corrupted.
 *  Used by every engine's injection hook so that CPU and GPU campaigns agree.
 */
#pragma once
#include <limits>

#include "abft/abft.h"
#include "abft/checksum/float_bits.hpp"

namespace abft::checksum {

/** Corrupt v according to model. bit is clamped into the type's width;
 *  BITFLIP2 flips bit and bit+1 (bit+1 wraps to bit-1 at the top bit). */
template <class T>
ABFT_HD T apply_fault(T v, abft_fault_model model, int bit, double random_value) {
  using U = typename FloatBits<T>::U;
  constexpr int nb = FloatBits<T>::kBits;
  if (bit < 0) bit = 0;
  if (bit >= nb) bit = nb - 1;
  switch (model) {
    case ABFT_FAULT_BITFLIP:
      return from_bits<T>(to_bits(v) ^ (U(1) << bit));
    case ABFT_FAULT_BITFLIP2: {
      const int b2 = (bit + 1 < nb) ? bit + 1 : bit - 1;
      return from_bits<T>(to_bits(v) ^ (U(1) << bit) ^ (U(1) << b2));
    }
    case ABFT_FAULT_RANDOM: return static_cast<T>(random_value);
    case ABFT_FAULT_ZERO: return T(0);
    case ABFT_FAULT_NAN: return std::numeric_limits<T>::quiet_NaN();
    case ABFT_FAULT_POS_INF: return std::numeric_limits<T>::infinity();
    case ABFT_FAULT_NEG_INF: return -std::numeric_limits<T>::infinity();
    default: return v;
  }
}

}  // namespace abft::checksum
