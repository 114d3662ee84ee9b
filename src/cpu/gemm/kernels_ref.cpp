/** \file kernels_ref.cpp
 *  \brief Portable reference kernels (scalar, 4x4 tile) and the run-time kernel dispatch.
 */
#include "abft/abft.h"
#include "core/cpu_features.hpp"
#include "cpu/gemm/microkernel.hpp"
#include "cpu/gemm/simd_scalar.hpp"

namespace abft::cpu::gemm {

const KernelSet<float>* kernels_ref_f32() {
  static const auto ks = make_kernel_set<SimdScalar<float>, 4, 4>(
      ABFT_ISA_REFERENCE, 64, 128, 1024, "reference 4x4 mc=64 kc=128 nc=1024");
  return &ks;
}
const KernelSet<double>* kernels_ref_f64() {
  static const auto ks = make_kernel_set<SimdScalar<double>, 4, 4>(
      ABFT_ISA_REFERENCE, 64, 128, 1024, "reference 4x4 mc=64 kc=128 nc=1024");
  return &ks;
}

template <>
const KernelSet<float>& active_kernels<float>() {
  switch (active_isa()) {
    case ABFT_ISA_AVX512: return *kernels_avx512_f32();
    case ABFT_ISA_AVX2: return *kernels_avx2_f32();
    default: return *kernels_ref_f32();
  }
}
template <>
const KernelSet<double>& active_kernels<double>() {
  switch (active_isa()) {
    case ABFT_ISA_AVX512: return *kernels_avx512_f64();
    case ABFT_ISA_AVX2: return *kernels_avx2_f64();
    default: return *kernels_ref_f64();
  }
}

}  // namespace abft::cpu::gemm

extern "C" const char* abft_gemm_kernel_info(abft_kernel k) {
  using namespace abft::cpu::gemm;
  if (k == ABFT_KERNEL_SGEMM) return active_kernels<float>().desc;
  if (k == ABFT_KERNEL_DGEMM) return active_kernels<double>().desc;
  return "unknown kernel";
}
