/** \file kernels_avx512.cpp
 *  \brief AVX-512 kernels: 12x32 float and 12x16 double tiles (24 accumulators of 32 zmm).
 *  Deep kc: the C tile is loaded and stored once per kc pass, and on a Zen 5 with 1 MB of L2
 *  (2026-12-01) kc = 256 lost 10 % of the one-thread sgemm to those passes; a 768-deep sliver
 *  of B (96 KB for float) streams from L2 at the kernel's rate. Double takes mc = 144 rows at
 *  kc = 512 (a 576 KB A block): half as many row blocks, so half the column-reference and
 *  magnitude work per product, at the same throughput (docs/PERFORMANCE.md).
*/
// Instantiations here are compiled with ISA flags: keep them in their own namespace.
#define ABFT_TARGET_NS avx512
// GCC 12 reports the deliberately undefined upper halves inside its own AVX-512 intrinsics
// (_mm512_cvtps_pd, _mm512_extractf64x4_pd) as uninitialised; they are not ours to fix.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "cpu/gemm/microkernel.hpp"
#include "cpu/gemm/simd_avx512.hpp"

namespace abft::cpu::gemm {

const KernelSet<float>* kernels_avx512_f32() {
  static const auto ks = make_kernel_set<Avx512F32, 12, 2, true>(ABFT_ISA_AVX512, 144, 768, 4096,
                                                          "avx512 12x32 mc=144 kc=768 nc=4096");
  return &ks;
}
const KernelSet<double>* kernels_avx512_f64() {
  static const auto ks = make_kernel_set<Avx512F64, 12, 2, true>(ABFT_ISA_AVX512, 144, 512, 2048,
                                                          "avx512 12x16 mc=144 kc=512 nc=2048");
  return &ks;
}

}  // namespace abft::cpu::gemm
