/** \file fft_kernels_avx2.cpp
 *  \brief The FFT kernel table compiled for avx2 (4 float / 2 double complex lanes).
 */
#define ABFT_TARGET_NS fft_avx2
#include "cpu/fft/stockham.hpp"

namespace abft::cpu::fft {

const FftKernels<float>& fft_kernels_avx2_f() {
  static const FftKernels<float> k =
      make_kernels<CVec<float, 4>, CVec<float, 1>, float>("avx2");
  return k;
}
const FftKernels<double>& fft_kernels_avx2_d() {
  static const FftKernels<double> k =
      make_kernels<CVec<double, 2>, CVec<double, 1>, double>("avx2");
  return k;
}

}  // namespace abft::cpu::fft
