/** \file device_state.cu
 *  \brief Per-handle device state of the CUDA engine (device_state.hpp), the counters' read-out
 *  (abft_cuda_sync) and release (abft_cuda_release). Compiled for sm_90 + PTX in every CUDA
 *  build; not yet run on a GPU (no device was lent to this work).
 */
#include "device_state.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>

#include "abft/abft_cuda.h"
#include "core/internal.hpp"

namespace abft::cuda {
namespace {

std::mutex g_mu;
std::unordered_map<abft_handle_t, State*>& states() {
  static auto* m = new std::unordered_map<abft_handle_t, State*>();
  return *m;
}

}  // namespace

State::~State() {
  if (blas) cublasDestroy(blas);
  cudaFree(counters);
  cudaFree(repair);
  cudaFree(work);
}

abft_status state_of(abft_handle_t h, State** out) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = states().find(h);
  if (it != states().end()) {
    *out = it->second;
    return ABFT_STATUS_SUCCESS;
  }
  State* s = new (std::nothrow) State();
  if (!s) return ABFT_STATUS_ALLOC_FAILED;
  const size_t nk = ABFT_KERNEL_COUNT_;
  if (cudaMalloc(&s->counters, nk * sizeof(DeviceCounters)) != cudaSuccess ||
      cudaMalloc(&s->repair, nk * sizeof(RepairCounters)) != cudaSuccess ||
      cudaMemset(s->counters, 0, nk * sizeof(DeviceCounters)) != cudaSuccess ||
      cudaMemset(s->repair, 0, nk * sizeof(RepairCounters)) != cudaSuccess) {
    cudaGetLastError();
    delete s;
    return ABFT_STATUS_NOT_SUPPORTED;  // no device, no driver, or no memory on it
  }
  const char* env = std::getenv("ABFT_CUDA_TF32");
  s->tf32 = env && env[0] == '1';
  states()[h] = s;
  *out = s;
  return ABFT_STATUS_SUCCESS;
}

cublasHandle_t blas_of(State* s) {
  std::lock_guard<std::mutex> g(g_mu);
  if (!s->blas && cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) s->blas = nullptr;
  return s->blas;
}

void release_state(abft_handle_t h) {
  State* s = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = states().find(h);
    if (it == states().end()) return;
    s = it->second;
    states().erase(it);
  }
  delete s;
}

}  // namespace abft::cuda

extern "C" abft_status abft_cuda_sync(abft_handle_t h, void* stream, abft_report* out) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::State* st = nullptr;
  const abft_status ss = abft::cuda::state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  if (cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_INTERNAL_ERROR;
  }
  constexpr int nk = ABFT_KERNEL_COUNT_;
  abft::cuda::DeviceCounters dc[nk] = {};
  abft::cuda::RepairCounters rc[nk] = {};
  if (cudaMemcpy(dc, st->counters, sizeof dc, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(rc, st->repair, sizeof rc, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemset(st->counters, 0, sizeof dc) != cudaSuccess || cudaMemset(st->repair, 0, sizeof rc) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_INTERNAL_ERROR;
  }
  abft_report r{};
  for (int k = 0; k < nk; ++k) {
    abft_report x{};
    x.checks = dc[k].checks;
    x.detected = dc[k].failed;
    x.skipped = dc[k].skipped;
    x.recomputed = rc[k].corrected + rc[k].uncorrectable;  // whole lines (columns, signals) recomputed
    x.corrected = rc[k].corrected;
    x.uncorrectable = rc[k].uncorrectable;
    // Into the handle's (and the process's) statistics; the calls were counted at launch.
    if (x.checks || x.detected || x.skipped || x.recomputed) abft::core::record_call(h, abft_kernel(k), x, 0);
    r.checks += x.checks, r.detected += x.detected, r.skipped += x.skipped;
    r.recomputed += x.recomputed, r.corrected += x.corrected, r.uncorrectable += x.uncorrectable;
  }
  if (out) *out = r;
  if (r.uncorrectable) return ABFT_STATUS_FAULT_UNCORRECTABLE;
  // Detections that no repair answered: the calls ran under DETECT.
  return r.detected > r.corrected + r.uncorrectable ? ABFT_STATUS_FAULT_DETECTED : ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_cuda_release(abft_handle_t h) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::release_state(h);
  return ABFT_STATUS_SUCCESS;
}
