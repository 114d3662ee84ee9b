/** \file rng.hpp
 *  \brief The runtime's seeded random stream (splitmix64): sampling and the data loader.
 *  Internal to the runtime.
 */
#pragma once
#include <cstdint>

namespace abft::transformer {

/** The next value of the splitmix64 stream whose state is x. */
inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace abft::transformer
