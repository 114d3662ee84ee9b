/** \file fast_math.hpp
 *  \brief exp, tanh and the logistic function for the pointwise ops, written so that the
 *  compiler vectorizes the loops that call them (no libm call, no branch): exp by range
 *  reduction to [-ln2/2, ln2/2] and a degree-6 Taylor polynomial, relative error below
 *  3e-7 over the clamped range [-87, 88]. NaN propagates (the invariant checks rely on it).
 */
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace abft::transformer::fastm {

inline float exp(float x) {
  // Clamp keeping NaN (std::max / std::min return their first argument when a comparison
  // with NaN is false); both are min/max instructions, so the loop stays branch-free.
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float t = x * 1.44269504088896341f;
  // Round to nearest by the 1.5 * 2^23 trick (vectorizes, unlike nearbyint without SSE4.1).
  const float n = (t + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t e = (static_cast<int32_t>(n) + 127) << 23;
  float s;
  std::memcpy(&s, &e, sizeof s);
  return p * s;
}

inline float tanh(float y) { return 1.0f - 2.0f / (exp(2.0f * y) + 1.0f); }
inline float sigmoid(float g) { return 1.0f / (1.0f + exp(-g)); }

}  // namespace abft::transformer::fastm
