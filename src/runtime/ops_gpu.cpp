/** \file ops_gpu.cpp
 *  \brief The runtime's GPU engine (ops_gpu.hpp): device memory, the weights' device copy of a
 *  hold (and, after an optimizer's step on it, its way back to the host), and the protected
 *  products and attention on device arrays, for the resident pass (ops_resident.hpp).
 *  History: until 2026-12-07 the engine offloaded each product and attention call from host
 *  arrays (copies in and out per call); run so on an H200 (2026-11-30), GPT-2 small trained 1.5x
 *  faster than the CPU engine on 16 cores but decoded 5.6x slower (docs/PERFORMANCE.md). The
 *  resident pass is not yet run on a GPU.
 */
#include "ops_gpu.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include "abft/abft_cuda.h"
#include "gemm_protected.hpp"  // (cuda/: the engine's internal door, a given encoding)
#endif

namespace abft::transformer::ops {

#ifdef ABFT_HAVE_CUDA
namespace {

/** What the engine keeps on the device for one handle: while held, the weights' copy. */
/** Versions of the held weights' device copies, process-wide (a new number at each change). */
std::atomic<uint64_t> g_weights_version{0};

struct HandleDevice {
  int device = -1;  // the device the copy lives on (dropped when the caller's changes)
  uint64_t version = 0;  ///< gpu_weights_version: a new number whenever the copy changes
  int holds = 0;
  /** The resident pass's copy of all the weights (gpu_resident_weights). */
  float* flat = nullptr;
  const float* flat_src = nullptr;
  size_t flat_n = 0;
  int flat_uses = 0;
  bool flat_newer = false;  ///< written on the device (an optimizer's step): the host's are stale
  /** The device's newer weights back into the host array the copy was made from. */
  bool to_host() {
    if (!flat || !flat_newer) return true;
    if (cudaMemcpy(const_cast<float*>(flat_src), flat, flat_n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    flat_newer = false;
    return true;
  }
  void free_weights() {
    to_host();  // (a failed copy back loses the device's updates: nothing else to do here)
    cudaFree(flat);
    flat = nullptr, flat_src = nullptr, flat_n = 0, flat_uses = 0, flat_newer = false;
    version = ++g_weights_version;
  }
  /** The copy for the caller's current device: dropped when it changed. */
  bool on_current_device() {
    int d = -1;
    if (cudaGetDevice(&d) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    if (d != device) {
      if (device >= 0) free_weights();
      device = d;
    }
    return true;
  }
};

/** Passes that read a held copy of the weights before it is made again from the host: the copy
 *  is the checks' input as well as the products', so a fault in it (device memory) would be seen
 *  by none of them; refreshing bounds how long one can last, at 1/kRefreshUses of the copies a
 *  hold saves. */
constexpr int kRefreshUses = 64;

std::mutex g_dev_mu;
std::unordered_map<abft_handle_t, HandleDevice>& devices() {
  static auto* m = new std::unordered_map<abft_handle_t, HandleDevice>();
  return *m;
}

}  // namespace

bool gpu_engine_available(const char** why) {
  if (abft_cuda_device_count() > 0) return true;
  static char buf[256];
  abft_cuda_describe(buf, sizeof buf);
  for (char* c = buf; *c; ++c)
    if (*c == '\n') *c = ' ';
  *why = buf;
  return false;
}

void gpu_release(abft_handle_t h) {
  {
    std::lock_guard<std::mutex> g(g_dev_mu);
    auto it = devices().find(h);
    if (it != devices().end()) {
      it->second.free_weights();
      devices().erase(it);
    }
  }
  abft_cuda_release(h);
}

void gpu_hold_weights(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  ++devices()[h].holds;
}

void gpu_unhold_weights(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  if (it == devices().end() || it->second.holds == 0) return;
  if (--it->second.holds == 0) it->second.free_weights();
}

void gpu_drop_held_weights(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  if (it != devices().end()) it->second.free_weights();
}

size_t gpu_held_weight_bytes(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  return it == devices().end() ? 0 : it->second.flat_n * sizeof(float);
}

void gpu_weights_written(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  if (it != devices().end() && it->second.flat) {
    it->second.flat_newer = true;
    it->second.version = ++g_weights_version;
  }
}

bool gpu_weights_to_host(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  return it == devices().end() || it->second.to_host();
}

namespace {
/** p, or nullptr (the error cleared) when the allocation that made it failed. */
void* allocated(cudaError_t e, void* p) {
  if (e == cudaSuccess) return p;
  cudaGetLastError();
  return nullptr;
}
}  // namespace

void* gpu_malloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  return allocated(e, p);
}

void gpu_free(void* p) {
  if (p) cudaFree(p);
}

void* gpu_host_malloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 1);
  return allocated(e, p);
}

void gpu_host_free(void* p) {
  if (p) cudaFreeHost(p);
}

float* gpu_resident_weights(abft_handle_t h, const float* host, size_t n) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  HandleDevice& hd = devices()[h];
  if (!hd.on_current_device()) return nullptr;
  const bool same = hd.flat && hd.flat_src == host && hd.flat_n == n;
  // The device's own updates are the weights (no refresh from the host's stale ones).
  if (same && hd.flat_newer) return hd.flat;
  if (same && ++hd.flat_uses <= kRefreshUses) return hd.flat;
  if (!hd.to_host()) return nullptr;
  if (!hd.flat || hd.flat_n != n) {
    cudaFree(hd.flat);
    hd.flat = nullptr, hd.flat_n = 0;
    if (cudaMalloc(&hd.flat, std::max<size_t>(n, 1) * sizeof(float)) != cudaSuccess) {
      hd.flat = nullptr;
      cudaGetLastError();
      return nullptr;
    }
    hd.flat_n = n;
  }
  if (n && cudaMemcpy(hd.flat, host, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaGetLastError();
    hd.free_weights();
    return nullptr;
  }
  hd.flat_src = host;
  hd.flat_uses = 1;
  hd.version = ++g_weights_version;
  return hd.flat;
}

uint64_t gpu_weights_version(abft_handle_t h) {
  std::lock_guard<std::mutex> g(g_dev_mu);
  auto it = devices().find(h);
  return it == devices().end() ? 0 : it->second.version;
}

abft_status gpu_sgemm_device(abft_handle_t h, abft_policy policy, abft_op ta, abft_op tb, int64_t m, int64_t n,
                             int64_t k, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                             float* C, int64_t ldc, const double* encoded) {
  return abft::cuda::sgemm_encoded(h, nullptr, policy, ABFT_ROW_MAJOR, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, beta,
                                   C, ldc, encoded);
}

abft_status gpu_sgemm_encode(abft_handle_t h, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, const float* A,
                             int64_t lda, const float* B, int64_t ldb, double* out) {
  return abft::cuda::gemm_encode(h, nullptr, CUDA_R_32F, ABFT_ROW_MAJOR, ta, tb, m, n, k, A, lda, B, ldb, out);
}

abft_status gpu_attention_forward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                         const float* q, const float* k, const float* v, float* o, float* lse) {
  return abft_cuda_attention_forward(h, nullptr, policy, &d, ABFT_CUDA_FLOAT, q, k, v, nullptr, o, lse);
}

abft_status gpu_attention_backward_device(abft_handle_t h, abft_policy policy, const abft_attention_desc& d,
                                          const float* q, const float* k, const float* v, const float* o,
                                          const float* dO, const float* lse, float* dq, float* dk, float* dv) {
  return abft_cuda_attention_backward(h, nullptr, policy, &d, ABFT_CUDA_FLOAT, q, k, v, nullptr, o, dO, lse, dq, dk,
                                      dv);
}

#else  // no CUDA engine in this build

bool gpu_engine_available(const char** why) {
  *why = "this build has no CUDA engine (no nvcc at configure time)";
  return false;
}
void gpu_release(abft_handle_t) {}
void gpu_hold_weights(abft_handle_t) {}
void gpu_unhold_weights(abft_handle_t) {}
void gpu_drop_held_weights(abft_handle_t) {}
size_t gpu_held_weight_bytes(abft_handle_t) { return 0; }
void* gpu_malloc(size_t) { return nullptr; }
void gpu_free(void*) {}
void* gpu_host_malloc(size_t) { return nullptr; }
void gpu_host_free(void*) {}
float* gpu_resident_weights(abft_handle_t, const float*, size_t) { return nullptr; }
void gpu_weights_written(abft_handle_t) {}
bool gpu_weights_to_host(abft_handle_t) { return true; }
abft_status gpu_sgemm_device(abft_handle_t, abft_policy, abft_op, abft_op, int64_t, int64_t, int64_t, const float*,
                             int64_t, const float*, int64_t, float, float*, int64_t, const double*) {
  return ABFT_STATUS_NOT_SUPPORTED;
}
abft_status gpu_sgemm_encode(abft_handle_t, abft_op, abft_op, int64_t, int64_t, int64_t, const float*, int64_t,
                             const float*, int64_t, double*) {
  return ABFT_STATUS_NOT_SUPPORTED;
}
uint64_t gpu_weights_version(abft_handle_t) { return 0; }
abft_status gpu_attention_forward_device(abft_handle_t, abft_policy, const abft_attention_desc&, const float*,
                                         const float*, const float*, float*, float*) {
  return ABFT_STATUS_NOT_SUPPORTED;
}
abft_status gpu_attention_backward_device(abft_handle_t, abft_policy, const abft_attention_desc&, const float*,
                                          const float*, const float*, const float*, const float*, const float*,
                                          float*, float*, float*) {
  return ABFT_STATUS_NOT_SUPPORTED;
}

#endif

}  // namespace abft::transformer::ops
