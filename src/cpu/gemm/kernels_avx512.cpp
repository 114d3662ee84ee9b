/** \file kernels_avx512.cpp
 *  \brief AVX-512 kernels: 12x32 float and 12x16 double tiles (24 accumulators of 32 zmm).
*/
// Instantiations here are compiled with ISA flags: keep them in their own namespace.
#define ABFT_TARGET_NS avx512
#include "cpu/gemm/microkernel.hpp"
#include "cpu/gemm/simd_avx512.hpp"

namespace abft::cpu::gemm {

const KernelSet<float>* kernels_avx512_f32() {
  static const auto ks = make_kernel_set<Avx512F32, 12, 2>(ABFT_ISA_AVX512, 144, 256, 4096,
                                                          "avx512 12x32 mc=144 kc=256 nc=4096");
  return &ks;
}
const KernelSet<double>* kernels_avx512_f64() {
  static const auto ks = make_kernel_set<Avx512F64, 12, 2>(ABFT_ISA_AVX512, 72, 256, 2048,
                                                          "avx512 12x16 mc=72 kc=256 nc=2048");
  return &ks;
}

}  // namespace abft::cpu::gemm
