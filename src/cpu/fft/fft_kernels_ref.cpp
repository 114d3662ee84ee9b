/** \file fft_kernels_ref.cpp
 *  \brief The FFT kernel table compiled for ref (1 float / 1 double complex lanes).
 */
#define ABFT_TARGET_NS fft_ref
#include "cpu/fft/stockham.hpp"

namespace abft::cpu::fft {

const FftKernels<float>& fft_kernels_ref_f() {
  static const FftKernels<float> k =
      make_kernels<CVec<float, 1>, CVec<float, 1>, float>("reference");
  return k;
}
const FftKernels<double>& fft_kernels_ref_d() {
  static const FftKernels<double> k =
      make_kernels<CVec<double, 1>, CVec<double, 1>, double>("reference");
  return k;
}

}  // namespace abft::cpu::fft
