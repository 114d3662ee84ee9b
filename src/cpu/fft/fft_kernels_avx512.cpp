/** \file fft_kernels_avx512.cpp
 *  \brief The FFT kernel table compiled for avx512 (8 float / 4 double complex lanes).
 */
#define ABFT_TARGET_NS fft_avx512
#include "cpu/fft/stockham.hpp"

namespace abft::cpu::fft {

const FftKernels<float>& fft_kernels_avx512_f() {
  static const FftKernels<float> k =
      make_kernels<CVec<float, 8>, CVec<float, 1>, float>("avx512");
  return k;
}
const FftKernels<double>& fft_kernels_avx512_d() {
  static const FftKernels<double> k =
      make_kernels<CVec<double, 4>, CVec<double, 1>, double>("avx512");
  return k;
}

}  // namespace abft::cpu::fft
