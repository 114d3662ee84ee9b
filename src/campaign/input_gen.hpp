/** \file input_gen.hpp
 *  \brief Seeded input values for campaign adapters: a splitmix64 stream and the value
 *  distributions trials cycle through, so false-positive trials see varied data.
 *
 *  Deterministic from the seed alone (no std:: distributions, whose output differs between
 *  standard libraries): a trial replays to the same inputs anywhere.
 */
#pragma once
#include <cmath>
#include <cstdint>

namespace abft::campaign {

/** Value distributions of trial inputs. */
enum class InputDist {
  Uniform,  ///< uniform in [-1, 1)
  Normal,   ///< standard normal (Box-Muller)
  Wide,     ///< random sign, magnitude 10^U(lo, hi): a wide dynamic range in one call
};
constexpr int kInputDists = 3;

inline const char* input_dist_name(InputDist d) {
  switch (d) {
    case InputDist::Uniform: return "uniform";
    case InputDist::Normal: return "normal";
    case InputDist::Wide: return "wide";
  }
  return "?";
}

/** A splitmix64 stream with the draws the adapters need. */
class InputRng {
 public:
  explicit InputRng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /** Uniform in [0, 1), 53 random bits. */
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
  /** Uniform in [-1, 1). */
  double symmetric() { return 2.0 * unit() - 1.0; }
  /** Standard normal (Box-Muller; one value per call, the pair's second discarded). */
  double normal() {
    const double u1 = 1.0 - unit();  // (0, 1]: log is finite
    const double u2 = unit();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  /** Random sign times 10^U(lo_exp, hi_exp). */
  double wide(double lo_exp, double hi_exp) {
    const double mag = std::pow(10.0, lo_exp + (hi_exp - lo_exp) * unit());
    return (next() & 1) ? -mag : mag;
  }
  /** One value of distribution d (Wide: magnitudes 10^U(lo_exp, hi_exp)). */
  double draw(InputDist d, double lo_exp = -6.0, double hi_exp = 6.0) {
    switch (d) {
      case InputDist::Uniform: return symmetric();
      case InputDist::Normal: return normal();
      case InputDist::Wide: return wide(lo_exp, hi_exp);
    }
    return 0.0;
  }

 private:
  uint64_t s_;
};

/** The distribution of trial `trial`: a hash of the id, so every pattern of trial ids the
 *  driver uses (interleaved clean trials, a replayed id) sees every distribution. */
inline InputDist input_dist_of(uint64_t trial) {
  InputRng r(trial ^ 0xD1B54A32D192ED03ull);
  return InputDist(r.next() % uint64_t(kInputDists));
}

}  // namespace abft::campaign
