/** \file cuda_device.hpp
 *  \brief Shared by the GPU campaign adapters (kernel_cuda_gemm.cpp, kernel_cuda_fft.cpp,
 *  kernel_cuda_attention.cpp; built only with the CUDA engine): whether a device can be used,
 *  and if not, why, in the campaign's error message.
 */
#pragma once
#include <string>

#include "abft/abft_cuda.h"

namespace abft::campaign {

/** True when a CUDA device can be used; otherwise *error says so for `kernel`, with the reason
 *  abft_cuda_describe gives (no driver, no device). */
inline bool cuda_device_usable(const char* kernel, std::string* error) {
  if (abft_cuda_device_count() > 0) return true;
  char why[512];
  abft_cuda_describe(why, sizeof why);
  *error = std::string("kernel '") + kernel + "' needs a usable CUDA device: " + why;
  while (!error->empty() && error->back() == '\n') error->pop_back();
  return false;
}

}  // namespace abft::campaign
