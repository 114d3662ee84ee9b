/** \file attn_kernels_avx2.cpp
 *  \brief AVX2+FMA attention kernels: the GEMM's 6x16 float register tile (12 accumulators),
 *  8-lane softmax. AVX-512 CPUs run these too (no AVX-512 machine to validate one on).
 */
#define ABFT_TARGET_NS avx2
#include "cpu/gemm/simd_avx2.hpp"
#include "cpu/attention/attn_tile.hpp"

namespace abft::cpu::attention {

const AttnKernels* attn_kernels_avx2() {
  static const AttnKernels k =
      make_attn_kernels<gemm::Avx2F32, 6, 2>(ABFT_ISA_AVX2, "avx2 q-block 64 kv-block 96, tile 6x16");
  return &k;
}

}  // namespace abft::cpu::attention
