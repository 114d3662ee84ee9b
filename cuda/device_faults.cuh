/** \file device_faults.cuh
 *  \brief The shared fault models (abft/checksum/fault_models.hpp) on every storage type the
 *  CUDA engine reads: float and double through the shared functions, binary16 and bfloat16 on
 *  their own bits here. Used by the GEMM's and the attention's injection.
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "abft/abft.h"
#include "abft/checksum/fault_models.hpp"

namespace abft::cuda {

/** A fault on a 16-bit value, on its bits (bit 0 = the significand's LSB), as
 *  fault_models.hpp does for float and double: bfloat16 when bf16, else binary16. */
inline __device__ uint16_t fault16(uint16_t v, bool bf16, abft_fault_model model, int bit, double value) {
  if (bit < 0) bit = 0;
  if (bit > 15) bit = 15;
  switch (model) {
    case ABFT_FAULT_BITFLIP: return uint16_t(v ^ (1u << bit));
    case ABFT_FAULT_BITFLIP2: {
      const int b2 = bit + 1 < 16 ? bit + 1 : bit - 1;
      return uint16_t(v ^ (1u << bit) ^ (1u << b2));
    }
    case ABFT_FAULT_RANDOM: {
      if (bf16) {
        const __nv_bfloat16 r = __double2bfloat16(value);
        return *reinterpret_cast<const uint16_t*>(&r);
      }
      const __half r = __double2half(value);
      return *reinterpret_cast<const uint16_t*>(&r);
    }
    case ABFT_FAULT_ZERO: return 0;
    case ABFT_FAULT_NAN: return bf16 ? 0x7FC0 : 0x7E00;
    case ABFT_FAULT_POS_INF: return bf16 ? 0x7F80 : 0x7C00;
    case ABFT_FAULT_NEG_INF: return bf16 ? 0xFF80 : 0xFC00;
    default: return v;
  }
}

/** The fault model applied to a value of any storage type the engine reads. */
template <class T>
inline __device__ T apply_fault_any(T x, abft_fault_model model, int bit, double value) {
  if constexpr (sizeof(T) == 2) {
    uint16_t b = *reinterpret_cast<const uint16_t*>(&x);
    b = fault16(b, std::is_same<T, __nv_bfloat16>::value, model, bit, value);
    return *reinterpret_cast<const T*>(&b);
  } else {
    return abft::checksum::apply_fault<T>(x, model, bit, value);
  }
}

}  // namespace abft::cuda
