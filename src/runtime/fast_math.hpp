/** \file fast_math.hpp
 *  \brief exp, tanh and the logistic function for the pointwise ops, written so that the
 *  compiler vectorizes the loops that call them (no libm call, no branch): exp by range
 *  reduction to [-ln2/2, ln2/2] and a degree-6 Taylor polynomial, relative error below
 *  3e-7 over the clamped range [-87, 88]. NaN propagates (the invariant checks rely on it).
 *  Host and device (ABFT_HD): the CPU engine's loops and the GPU engine's resident kernels
 *  (cuda/runtime_ops.cu) evaluate the same formulas, GELU's and its derivative's included.
 */
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "abft/checksum/host_device.hpp"

namespace abft::transformer::fastm {

/** The float whose bits are e. */
ABFT_HD float float_of_bits(int32_t e) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(e);
#else
  float s;
  std::memcpy(&s, &e, sizeof s);
  return s;
#endif
}

ABFT_HD float exp(float x) {
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
  return p * float_of_bits((static_cast<int32_t>(n) + 127) << 23);
}

ABFT_HD float tanh(float y) { return 1.0f - 2.0f / (exp(2.0f * y) + 1.0f); }
ABFT_HD float sigmoid(float g) { return 1.0f / (1.0f + exp(-g)); }

// GELU (tanh form) and SiLU, and the lower bounds of their values the invariant checks use
// (minima -0.16997 and -0.27846, with slack for rounding).
constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluA = 0.044715f;
constexpr float kGeluMin = -0.1701f;
constexpr float kSiluMin = -0.2786f;

/** Rotate one head of hd = 2 h values in place by a position's cos and sin tables (HF
 *  rotate-half; sgn -1: back). Returns whether the rotation kept the head's norm within a few
 *  roundings per term (the rotary embedding's invariant check; NaN fails). */
ABFT_HD bool rotate_head(float* v, const float* c, const float* s, int64_t h, float sgn) {
  float before = 0.0f, after = 0.0f;
  for (int64_t i = 0; i < h; ++i) {
    const float a = v[i], b = v[i + h], sn = sgn * s[i];
    const float na = a * c[i] - b * sn, nb = b * c[i] + a * sn;
    before += a * a + b * b;
    after += na * na + nb * nb;
    v[i] = na;
    v[i + h] = nb;
  }
  const float tol = 8.0f * float(2 * h) * 0x1p-24f * before + 1e-30f;
  const float diff = after - before;
  return (diff < 0.0f ? -diff : diff) <= tol;
}

ABFT_HD float gelu(float u) { return 0.5f * u * (1.0f + tanh(kGeluC * (u + kGeluA * u * u * u))); }
/** d gelu(x) / dx. */
ABFT_HD float gelu_grad(float x) {
  const float t = tanh(kGeluC * (x + kGeluA * x * x * x));
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * x * x);
}

}  // namespace abft::transformer::fastm
