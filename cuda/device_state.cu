/** \file device_state.cu
 *  \brief Per-handle device state of the CUDA engine (device_state.hpp), the counters' read-out
 *  (abft_cuda_sync) and release (abft_cuda_release). Compiled for sm_90 + PTX in every CUDA
 *  build; run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12) before the per-tile
 *  counters (tile_done) and the overlap's side stream, not yet run on a GPU.
 */
#include "device_state.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <map>
#include <utility>
#include <vector>

#include "abft/abft_cuda.h"
#include "core/internal.hpp"

namespace abft::cuda {
namespace {

std::mutex g_mu;
using Key = std::pair<abft_handle_t, int>;  // (handle, device)
std::map<Key, State*>& states() {
  static auto* m = new std::map<Key, State*>();
  return *m;
}

/** A kernel that moves the counters into a snapshot and zeroes them in one atomic step each, so
 *  that a count added concurrently from another stream lands in this read or the next one. */
__global__ void take_counters_kernel(unsigned long long* c, unsigned long long* snap, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) snap[i] = atomicExch(c + i, 0ull);
}

}  // namespace

State::~State() {
  int cur = 0;
  cudaGetDevice(&cur);
  cudaSetDevice(device);  // the handle and buffers belong to the device they were made on
  if (blas) cublasDestroy(blas);
  if (done) cudaEventDestroy(done);
  if (fork) cudaEventDestroy(fork);
  if (join) cudaEventDestroy(join);
  if (side) cudaStreamDestroy(side);
  cudaFree(own);
  cudaFree(tile_done);
  cudaFree(work);
  cudaFree(attn_work);
  cudaFree(snap);
  cudaFreeHost(snap_host);
  cudaSetDevice(cur);
}

void begin_call(State* st, cudaStream_t stream) {
  if (st->used && st->last != stream) cudaStreamWaitEvent(stream, st->done, 0);
}
void end_call(State* st, cudaStream_t stream) {
  cudaEventRecord(st->done, stream);
  st->last = stream;
  st->used = true;
}

abft_status state_of(abft_handle_t h, State** out) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  std::lock_guard<std::mutex> g(g_mu);
  auto it = states().find(Key(h, dev));
  if (it != states().end()) {
    *out = it->second;
    return ABFT_STATUS_SUCCESS;
  }
  State* s = new (std::nothrow) State();
  if (!s) return ABFT_STATUS_ALLOC_FAILED;
  s->device = dev;
  if (cudaMalloc(&s->own, kCounterWords * sizeof(unsigned long long)) != cudaSuccess ||
      cudaMemset(s->own, 0, kCounterWords * sizeof(unsigned long long)) != cudaSuccess ||
      cudaMalloc(&s->tile_done, kGemmTileCounters * sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&s->snap, abft_cuda_counters_bytes()) != cudaSuccess ||
      cudaMallocHost(reinterpret_cast<void**>(&s->snap_host), abft_cuda_counters_bytes()) != cudaSuccess ||
      cudaMemset(s->tile_done, 0, kGemmTileCounters * sizeof(unsigned)) != cudaSuccess ||
      // (cudaMemset is asynchronous for device memory: done before a call's stream, which may
      // not synchronize with the default one, adds to the counters.)
      cudaStreamSynchronize(nullptr) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError();
    delete s;
    return ABFT_STATUS_NOT_SUPPORTED;  // no device, no driver, or no memory on it
  }
  s->counters = reinterpret_cast<DeviceCounters*>(s->own);
  s->repair = reinterpret_cast<RepairCounters*>(s->own + kDeviceCounterWords);
  const char* env = std::getenv("ABFT_CUDA_TF32");
  s->tf32 = env && env[0] == '1';
  const char* ov = std::getenv("ABFT_CUDA_GEMM_OVERLAP");
  s->overlap = ov && ov[0] == '1';
  states()[Key(h, dev)] = s;
  *out = s;
  return ABFT_STATUS_SUCCESS;
}

bool side_of(State* s) {
  std::lock_guard<std::mutex> g(g_mu);
  if (s->side) return true;
  if (cudaStreamCreateWithFlags(&s->side, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&s->join, cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError();
    if (s->fork) cudaEventDestroy(s->fork);
    if (s->side) cudaStreamDestroy(s->side);
    s->fork = nullptr, s->side = nullptr;
    return false;
  }
  return true;
}

cublasHandle_t blas_of(State* s) {
  std::lock_guard<std::mutex> g(g_mu);
  if (!s->blas && cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) s->blas = nullptr;
  return s->blas;
}

void release_state(abft_handle_t h) {
  std::vector<State*> gone;
  {
    std::lock_guard<std::mutex> g(g_mu);
    for (auto it = states().begin(); it != states().end();)
      if (it->first.first == h) gone.push_back(it->second), it = states().erase(it);
      else ++it;
  }
  for (State* s : gone) delete s;
}

}  // namespace abft::cuda

namespace abft::cuda {
namespace {

static_assert(sizeof(DeviceCounters) == 3 * sizeof(unsigned long long), "counter layout");
static_assert(sizeof(RepairCounters) == 2 * sizeof(unsigned long long), "counter layout");

/** Take st's own counters into `snap` on stream s (each moved and zeroed at once), one launch. */
bool take(State* st, cudaStream_t s, unsigned long long* snap) {
  take_counters_kernel<<<1, 128, 0, s>>>(st->own, snap, kCounterWords);
  return cudaGetLastError() == cudaSuccess;
}

}  // namespace
}  // namespace abft::cuda

extern "C" size_t abft_cuda_counters_bytes(void) {
  return size_t(abft::cuda::kCounterWords) * sizeof(unsigned long long);
}

extern "C" abft_status abft_cuda_take_counters(abft_handle_t h, void* stream, void* snapshot) {
  if (!h || !snapshot) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::State* st = nullptr;
  const abft_status ss = abft::cuda::state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  return abft::cuda::take(st, static_cast<cudaStream_t>(stream), static_cast<unsigned long long*>(snapshot))
             ? ABFT_STATUS_SUCCESS
             : ABFT_STATUS_INTERNAL_ERROR;
}

extern "C" abft_status abft_cuda_counters_report(abft_handle_t h, const void* snapshot, abft_report* out) {
  if (!h || !snapshot) return ABFT_STATUS_NULL_POINTER;
  constexpr int nk = ABFT_KERNEL_COUNT_;
  abft::cuda::DeviceCounters dc[nk];
  abft::cuda::RepairCounters rc[nk];
  std::memcpy(dc, snapshot, sizeof dc);
  std::memcpy(rc, static_cast<const unsigned char*>(snapshot) + sizeof dc, sizeof rc);
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

extern "C" abft_status abft_cuda_sync(abft_handle_t h, void* stream, abft_report* out) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::State* st = nullptr;
  const abft_status ss = abft::cuda::state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // Take the counters (each moved to the state's snapshot and zeroed at once) after everything
  // on the stream, then read: one wait. The snapshot is the state's: calls on one handle are
  // serialized by the caller for syncs too.
  const bool ok = abft::cuda::take(st, s, st->snap) &&
                  cudaMemcpyAsync(st->snap_host, st->snap, abft_cuda_counters_bytes(), cudaMemcpyDeviceToHost, s) ==
                      cudaSuccess &&
                  cudaStreamSynchronize(s) == cudaSuccess;
  if (!ok) {
    cudaGetLastError();
    return ABFT_STATUS_INTERNAL_ERROR;
  }
  return abft_cuda_counters_report(h, st->snap_host, out);
}

extern "C" abft_status abft_cuda_count_into(abft_handle_t h, void* snapshot) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::State* st = nullptr;
  const abft_status ss = abft::cuda::state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  unsigned long long* to = snapshot ? static_cast<unsigned long long*>(snapshot) : st->own;
  std::lock_guard<std::mutex> g(st->mu);
  st->counters = reinterpret_cast<abft::cuda::DeviceCounters*>(to);
  st->repair = reinterpret_cast<abft::cuda::RepairCounters*>(to + abft::cuda::kDeviceCounterWords);
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_cuda_release(abft_handle_t h) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  abft::cuda::release_state(h);
  return ABFT_STATUS_SUCCESS;
}
