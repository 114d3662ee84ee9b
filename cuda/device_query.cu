/** \file device_query.cu
 *  \brief CUDA device discovery for `abft info`: count and describe devices, or say why there are none.
 *
 *  Every CUDA runtime call here can fail on a machine without a GPU or driver;
 *  each failure is turned into text, and the runtime's per-thread error state is
 *  cleared afterwards so that a later caller does not inherit it.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "abft/abft_cuda.h"

namespace {

/** CUDA encodes versions as 1000*major + 10*minor ("13.0"). */
std::string version_text(int v) {
  char b[32];
  std::snprintf(b, sizeof b, "%d.%d", v / 1000, (v % 1000) / 10);
  return b;
}

/** Why there is no usable device, given cudaGetDeviceCount's error. */
std::string no_device_reason(cudaError_t err, int driver_version) {
  if (driver_version == 0) return "no CUDA driver";
  if (err == cudaErrorNoDevice) return "no CUDA-capable device";
  if (err == cudaErrorInsufficientDriver)
    return "CUDA driver " + version_text(driver_version) + " is older than the runtime";
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

std::string describe() {
  int driver = 0, runtime = 0;
  // cudaDriverGetVersion succeeds with 0 when no driver is installed.
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  std::string out = "CUDA runtime " + version_text(runtime) + ", driver " +
                    (driver ? version_text(driver) : std::string("none")) + "\n";

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count <= 0) {
    cudaGetLastError();  // clear the error so later runtime calls start clean
    return out + "CUDA devices: none (" + no_device_reason(err, driver) + ")\n";
  }
  char line[512];
  std::snprintf(line, sizeof line, "CUDA devices: %d\n", count);
  out += line;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p;
    std::memset(&p, 0, sizeof p);
    const cudaError_t e = cudaGetDeviceProperties(&p, d);
    if (e != cudaSuccess) {
      cudaGetLastError();
      std::snprintf(line, sizeof line, "  [%d] unavailable (%s)\n", d, cudaGetErrorString(e));
    } else {
      std::snprintf(line, sizeof line, "  [%d] %s, compute capability %d.%d, %.1f GiB, %d SMs\n",
                    d, p.name, p.major, p.minor,
                    static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                    p.multiProcessorCount);
    }
    out += line;
  }
  return out;
}

}  // namespace

extern "C" int abft_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count > 0 ? count : 0;
}

extern "C" abft_status abft_cuda_describe(char* buf, size_t cap) {
  if (!buf || cap == 0) return ABFT_STATUS_NULL_POINTER;
  std::string s;
  const char* text = nullptr;
  try {
    s = describe();
    text = s.c_str();
  } catch (...) {  // std::bad_alloc: never let an exception cross the C boundary
    text = "CUDA: description unavailable (out of memory)\n";
  }
  const size_t len = std::strlen(text);
  const size_t n = len < cap - 1 ? len : cap - 1;
  std::memcpy(buf, text, n);
  buf[n] = '\0';
  return ABFT_STATUS_SUCCESS;
}
