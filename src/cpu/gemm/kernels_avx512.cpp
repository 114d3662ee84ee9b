/** \file kernels_avx512.cpp
 *  \brief AVX-512 kernels: 12x32 float and 12x16 double tiles (24 accumulators of 32 zmm).
 *  Deep kc: the C tile is loaded and stored once per kc pass, and on a Zen 5 with 1 MB of L2
 *  (2026-12-01) kc = 256 lost 10 % of the one-thread sgemm to those passes; a 768-deep sliver
 *  of B (96 KB for float) streams from L2 at the kernel's rate. kc = 1024 for both types
 *  (2026-12-02): K = 1024 then runs in one pass instead of two of 512, 4-7 % faster
 *  unprotected (float) and 3 % (double; its 1.15 MB A block is past L2, and still faster than
 *  kc = 512 or 768), 1.5-3 % at K = 2048 and 4096, the same at K = 3072 (float), interleaved
 *  per call on two threads (docs/PERFORMANCE.md). Double's mc = 144 rows: half as many row
 *  blocks as 72, so half the column-reference and magnitude work per product.
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
  static const auto ks = make_kernel_set<Avx512F32, 12, 2, true>(ABFT_ISA_AVX512, 144, 1024, 4096,
                                                          "avx512 12x32 mc=144 kc=1024 nc=4096");
  return &ks;
}
const KernelSet<double>* kernels_avx512_f64() {
  static const auto ks = make_kernel_set<Avx512F64, 12, 2, true>(ABFT_ISA_AVX512, 144, 1024, 2048,
                                                          "avx512 12x16 mc=144 kc=1024 nc=2048");
  return &ks;
}

}  // namespace abft::cpu::gemm
