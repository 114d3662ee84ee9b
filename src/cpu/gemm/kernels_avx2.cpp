/** \file kernels_avx2.cpp
 *  \brief AVX2+FMA kernels: 6x16 float and 6x8 double tiles (12 accumulators of 16 ymm),
 *  blocking for Zen-class caches (32 KiB L1d, 512 KiB L2 per core).
*/
// Instantiations here are compiled with ISA flags: keep them in their own namespace.
#define ABFT_TARGET_NS avx2
#include "cpu/gemm/microkernel.hpp"
#include "cpu/gemm/simd_avx2.hpp"

namespace abft::cpu::gemm {

const KernelSet<float>* kernels_avx2_f32() {
  static const auto ks = make_kernel_set<Avx2F32, 6, 2>(ABFT_ISA_AVX2, 144, 256, 4080,
                                                        "avx2 6x16 mc=144 kc=256 nc=4080");
  return &ks;
}
const KernelSet<double>* kernels_avx2_f64() {
  static const auto ks = make_kernel_set<Avx2F64, 6, 2>(ABFT_ISA_AVX2, 144, 256, 2040,
                                                        "avx2 6x8 mc=144 kc=256 nc=2040");
  return &ks;
}

}  // namespace abft::cpu::gemm
