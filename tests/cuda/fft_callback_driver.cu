/** \file fft_callback_driver.cu
 *  \brief A kernel that calls each of the FFT's cuFFT callbacks (cuda/fft_callbacks.cu) the way
 *  cuFFT's kernels do, compiled to LTO-IR like them: tests/cuda/fft_callback_link_test.cpp
 *  links the two with nvJitLink for sm_90 on the host, which resolves every callback by the
 *  name the plan hands cuFFT (kFftCallbackSymbols) and compiles them to machine code, with no
 *  GPU needed. Not run.
 */
#include <cufftXt.h>

// The callbacks, declared as cuFFT's own wrapper declares them (C++ linkage).
__device__ cufftComplex abft_fft_cb_load_c(void*, unsigned long long, void*, void*);
__device__ cufftDoubleComplex abft_fft_cb_load_z(void*, unsigned long long, void*, void*);
__device__ cufftReal abft_fft_cb_load_r(void*, unsigned long long, void*, void*);
__device__ cufftDoubleReal abft_fft_cb_load_d(void*, unsigned long long, void*, void*);
__device__ void abft_fft_cb_store_c(void*, unsigned long long, cufftComplex, void*, void*);
__device__ void abft_fft_cb_store_z(void*, unsigned long long, cufftDoubleComplex, void*, void*);
__device__ void abft_fft_cb_store_r(void*, unsigned long long, cufftReal, void*, void*);
__device__ void abft_fft_cb_store_d(void*, unsigned long long, cufftDoubleReal, void*, void*);

extern "C" {

/** Element i of in through a load callback and out through a store callback, per type pair. */
__global__ void abft_drive_c2c(cufftComplex* in, cufftComplex* out, void* info, unsigned long long n) {
  const unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  if (i < n) abft_fft_cb_store_c(out, i, abft_fft_cb_load_c(in, i, info, nullptr), info, nullptr);
}
__global__ void abft_drive_z2z(cufftDoubleComplex* in, cufftDoubleComplex* out, void* info, unsigned long long n) {
  const unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  if (i < n) abft_fft_cb_store_z(out, i, abft_fft_cb_load_z(in, i, info, nullptr), info, nullptr);
}
__global__ void abft_drive_real(cufftReal* rf, cufftDoubleReal* rd, void* info, unsigned long long n) {
  const unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  if (i < n) {
    abft_fft_cb_store_r(rf, i, abft_fft_cb_load_r(rf, i, info, nullptr), info, nullptr);
    abft_fft_cb_store_d(rd, i, abft_fft_cb_load_d(rd, i, info, nullptr), info, nullptr);
  }
}
}
