/** \file float_bits.hpp
 *  \brief Bit-level access to IEEE-754 values (shared by fault models and fingerprints).
 */
#pragma once
#include <cstdint>
#include <cstring>

#include "abft/checksum/host_device.hpp"

namespace abft::checksum {
inline namespace ABFT_TARGET_NS {

template <class T> struct FloatBits;
template <> struct FloatBits<float> {
  using U = uint32_t;
  static constexpr int kBits = 32, kMantissa = 23;
};
template <> struct FloatBits<double> {
  using U = uint64_t;
  static constexpr int kBits = 64, kMantissa = 52;
};

template <class T>
ABFT_HD typename FloatBits<T>::U to_bits(T v) {
  typename FloatBits<T>::U u;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T>
ABFT_HD T from_bits(typename FloatBits<T>::U u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::checksum
