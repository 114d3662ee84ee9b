/** \file cuda_test_util.hpp
 *  \brief Shared by the CUDA engine's tests: skipping cleanly without a device (GTEST_SKIP with
 *  the reason abft_cuda_describe gives), a device copy of a host vector, and the engine's
 *  environment variables set for a scope.
 */
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "abft/abft_cuda.h"
#include "scoped_env.hpp"

namespace abft_test {

inline bool have_device(std::string* why) {
  if (abft_cuda_device_count() > 0) return true;
  char buf[512];
  abft_cuda_describe(buf, sizeof buf);
  *why = buf;
  return false;
}

/** A device copy of a host vector, freed with the object. */
template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(const std::vector<T>& h) {
    if (cudaMalloc(&p, h.size() * sizeof(T)) == cudaSuccess)
      cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::vector<T> get(size_t n) const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

/** The GPU attention's key-block sums for a scope: from the pre-pass (the default, unset) or
 *  formed by each query block from its tiles (ABFT_CUDA_ATTN_KEY_SUMS=0). */
struct KeySumRecords : ScopedEnv {
  explicit KeySumRecords(bool on) : ScopedEnv("ABFT_CUDA_ATTN_KEY_SUMS", on ? nullptr : "0") {}
};

}  // namespace abft_test

/** Skip the test (with the reason) when no CUDA device can be used. */
#define REQUIRE_DEVICE()                                                                   \
  do {                                                                                     \
    std::string why_;                                                                      \
    if (!abft_test::have_device(&why_)) GTEST_SKIP() << "no usable CUDA device: " << why_; \
  } while (0)
