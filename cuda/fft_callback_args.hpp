/** \file fft_callback_args.hpp
 *  \brief What the GPU FFT's cuFFT callbacks read (cuda/fft_callbacks.cu, linked into cuFFT's
 *  kernels at plan time) and the plan writes (cuda/fft_protected.cu): one struct in device
 *  memory, the callbacks' caller_info. The plan rewrites it, stream-ordered, only when a call
 *  needs other values than the previous one (the direction of a C2C plan, the repair's input
 *  copy, an injected fault). Both translation units include this one definition.
 */
#pragma once
#include <cstdint>

#include "abft/checksum/fft_callback_sums.hpp"
#include "abft/checksum/fft_library_check.hpp"

namespace abft::cuda {

/** One injected fault at a callback (injection only): the element's offset on its side (-1:
 *  none), the scalar (0 re, 1 im) and the shared fault model's parameters. */
struct FftCallbackFault {
  long long off = -1;
  int scalar = 0, model = 0, bit = 0;
  double value = 0;
};

struct FftCallbackArgs {
  abft::checksum::FftLibraryShape sh;  ///< sign: this call's
  abft::checksum::FftTableWeights tw;  ///< device tables (C2C, R2C)
  const abft::checksum::Cd* c2r_in = nullptr;
  const abft::checksum::Cd* c2r_out = nullptr;
  abft::checksum::FftSideDecoder in, out;
  double* bucket_in = nullptr;   ///< 3 doubles a (signal, bucket): re, im of sum v x, and sum |x|^2
  double* bucket_out = nullptr;  ///< 2 doubles a (signal, bucket): re, im of sum w y
  void* backup = nullptr;        ///< the repair's packed input copy (written by the load), or null
  FftCallbackFault fault_in;     ///< corrupts what cuFFT gets, after the input side summed it
  FftCallbackFault fault_out;    ///< corrupts the output before the output side sums and stores it
  double* fault_vals = nullptr;  ///< device: input before / after, output before / after
};

/** The callbacks' symbol names (extern "C" in cuda/fft_callbacks.cu), by cuFFT callback type
 *  order: load C, Z, R, D, then store C, Z, R, D. */
constexpr const char* kFftCallbackSymbols[8] = {
    "abft_fft_cb_load_c",  "abft_fft_cb_load_z",  "abft_fft_cb_load_r",  "abft_fft_cb_load_d",
    "abft_fft_cb_store_c", "abft_fft_cb_store_z", "abft_fft_cb_store_r", "abft_fft_cb_store_d"};

}  // namespace abft::cuda
