/** \file fft_callback_args.hpp
 *  \brief What the GPU FFT's cuFFT callbacks read (cuda/fft_callbacks.cu, linked into cuFFT's
 *  kernels at plan time) and the plan writes (cuda/fft_protected.cu): one struct in device
 *  memory, the callbacks' caller_info. The plan rewrites it, stream-ordered, only when a call
 *  needs other values than the previous one (the direction of a C2C plan, the repair's input
 *  copy, an injected fault). Both translation units include this one definition.
 */
#pragma once
#include <cstddef>
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

/** Injected faults a side the callbacks apply in one call (more are left unapplied). */
constexpr int kFftCallbackFaults = 4;

struct FftCallbackArgs {
  abft::checksum::FftLibraryShape sh;  ///< the plan's (the call's sign is the gate's)
  abft::checksum::FftTableWeights tw;  ///< device tables (C2C, R2C)
  abft::checksum::FftC2RWeights c2r;  ///< device tables (C2R)
  abft::checksum::FftSideDecoder in, out;
  double* bucket_in = nullptr;   ///< 3 doubles a (signal, bucket): re, im of sum v x, and sum |x|^2
  double* bucket_out = nullptr;  ///< 2 doubles a (signal, bucket): re, im of sum w y
  void* backup = nullptr;        ///< the repair's packed input copy (written by the load), or null
  /** The sign (-1 or +1) of the protected calls the plan runs, set with the call's cleared
   *  flags by fft_open_gate_kernel when it changes (a C2C plan run both ways) or after a call
   *  that left its flags (DETECT) or stopped early; 0 before the first call and after one that
   *  stopped early: then the callbacks only move the data. The plan's cuFFT handle runs the
   *  library's protected calls alone (policy OFF has a plan without callbacks), so the gate
   *  stays open between them and a run of same-sign calls opens it once. Carrying the sign here
   *  keeps a C2C plan's two directions from rewriting the arguments at every call. */
  const int* gate = nullptr;
  int n_in = 0, n_out = 0;                       ///< injected faults this call
  FftCallbackFault fault_in[kFftCallbackFaults];   ///< corrupt what cuFFT gets, after the input side summed it
  FftCallbackFault fault_out[kFftCallbackFaults];  ///< corrupt the output before the output side sums and stores it
  double* fault_vals = nullptr;  ///< device: before / after of each, inputs then outputs (4 kFftCallbackFaults)
};

/** The callbacks' symbol names (extern "C" in cuda/fft_callbacks.cu), by cuFFT callback type
 *  order: load C, Z, R, D, then store C, Z, R, D. The loads and the stores are two LTO-IR
 *  images (fft_callbacks.cu compiled with ABFT_FFT_CB_LOADS, then ABFT_FFT_CB_STORES): cuFFT
 *  links the image of each callback it is given, and one image holding both would define every
 *  symbol twice in that link. */
constexpr const char* kFftCallbackSymbols[8] = {
    "abft_fft_cb_load_c",  "abft_fft_cb_load_z",  "abft_fft_cb_load_r",  "abft_fft_cb_load_d",
    "abft_fft_cb_store_c", "abft_fft_cb_store_z", "abft_fft_cb_store_r", "abft_fft_cb_store_d"};

/** The two images (generated from the LTO-IR by cmake/embed_binary.cmake, in abft_cuda). */
extern const unsigned char kFftLoadsImage[];
extern const size_t kFftLoadsImage_size;
extern const unsigned char kFftStoresImage[];
extern const size_t kFftStoresImage_size;

}  // namespace abft::cuda
