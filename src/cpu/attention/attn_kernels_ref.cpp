/** \file attn_kernels_ref.cpp
 *  \brief Portable attention kernels (one lane, 4x4 tile): any CPU, and the cross-check of the
 *  vector ones.
 */
#define ABFT_TARGET_NS ref
#include "cpu/gemm/simd_scalar.hpp"
#include "cpu/attention/attn_tile.hpp"

namespace abft::cpu::attention {

const AttnKernels* attn_kernels_ref() {
  static const AttnKernels k = make_attn_kernels<gemm::SimdScalar<float>, 4, 4>(
      ABFT_ISA_REFERENCE, "reference q-block 64 kv-block 96, tile 4x4");
  return &k;
}

}  // namespace abft::cpu::attention
