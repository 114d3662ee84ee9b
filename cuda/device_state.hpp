/** \file device_state.hpp
 *  \brief The device state the CUDA engine keeps per abft handle, shared by its kernel families
 *  (GEMM, FFT): the device-side counters every check and repair adds to (one set per kernel
 *  id), a workspace, and the cuBLAS handle of the GEMM. A launch counts its call in the handle's
 *  statistics at once (host side); abft_cuda_sync() reads and resets the device counters and
 *  adds them to the same statistics (abft_stats_get, the exit report); abft_cuda_release() frees
 *  the state. Counters live on the device so that the fault-free path never waits for it.
 */
#pragma once
#include <cublas_v2.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "abft/abft.h"

namespace abft::cuda {

/** Verification counters (device memory): one check per line (GEMM column, FFT signal). */
struct DeviceCounters {
  unsigned long long checks, failed, skipped;
};

/** Repair counters (device memory): lines recomputed that verified again, and those that did not. */
struct RepairCounters {
  unsigned long long corrected, uncorrectable;
};

/** Words (unsigned long long) of a counter snapshot: every kernel's DeviceCounters, then every
 *  kernel's RepairCounters (abft_cuda_counters_bytes()). */
constexpr int kDeviceCounterWords = ABFT_KERNEL_COUNT_ * 3, kCounterWords = ABFT_KERNEL_COUNT_ * 5;

/** Tile counters of the GEMM's strided sums (gemm_check.cuh, a split grid's last block per
 *  tile): zero at rest, each launch sets back to zero what it counted. */
constexpr int kGemmTileCounters = 512;

/** One handle's state on one device. `mu` is held by a call from its cuBLAS configuration to its
 *  last launch (threads sharing a handle enqueue one call at a time); `done`, recorded on the
 *  call's stream after its last launch, is waited for by the next call when it comes on another
 *  stream (the workspace is reused in stream order, never by two streams at once). */
struct State {
  int device = 0;
  std::mutex mu;
  cudaEvent_t done = nullptr;
  cudaStream_t last = nullptr;
  bool used = false;
  cublasHandle_t blas = nullptr;  ///< created on first use by the GEMM (blas_of)
  bool tf32 = false;              ///< ABFT_CUDA_TF32=1 at creation
  /// ABFT_CUDA_GEMM_OVERLAP=1 at creation (an experiment, off by default): the GEMM's encoding
  /// and its reference's dot products with op(B) run on `side`, concurrently with the product,
  /// joined before the check (fork / join), which then reads C alone.
  bool overlap = false;
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  /// The handle's own counters, one device allocation in a snapshot's layout: DeviceCounters
  /// for every kernel id, then RepairCounters for every kernel id (kCounterWords words).
  unsigned long long* own = nullptr;
  /// Where calls count now, arrays of ABFT_KERNEL_COUNT_ entries (counters + kernel): `own`, or
  /// a snapshot of the caller's (abft_cuda_count_into). Set under `mu`.
  DeviceCounters* counters = nullptr;
  RepairCounters* repair = nullptr;
  unsigned* tile_done = nullptr;  ///< kGemmTileCounters, zeroed at creation
  void* work = nullptr;  ///< the GEMM's workspace (grown on demand)
  size_t work_bytes = 0;
  void* attn_work = nullptr;  ///< the attention's key-block sums (attention_key_sums.cu)
  size_t attn_work_bytes = 0;
  /// abft_cuda_sync's snapshot of the counters (abft_cuda_counters_bytes()), made with the state,
  /// and its page-locked host copy (a copy to pageable memory would wait by itself).
  unsigned long long* snap = nullptr;
  unsigned long long* snap_host = nullptr;
  ~State();
};

/** The state of h on the current device, created on first use (counters allocated and zeroed).
 *  NOT_SUPPORTED when no device can be used (no driver, no GPU, no memory), ALLOC_FAILED without
 *  host memory. */
abft_status state_of(abft_handle_t h, State** out);

/** Order a call on `stream` after the previous user of st's workspace (call with st->mu held),
 *  and mark the call's end (after its last launch). */
void begin_call(State* st, cudaStream_t stream);
void end_call(State* st, cudaStream_t stream);

/** Grow a device buffer to at least `need` bytes (contents not kept); false when cudaMalloc
 *  fails (the buffer is then empty, the CUDA error cleared). The GEMM's workspace and the FFT's
 *  repair copy. */
inline bool grow_device_buffer(void** buf, size_t* have, size_t need) {
  if (need <= *have) return true;
  cudaFree(*buf);
  *buf = nullptr;
  *have = 0;
  if (cudaMalloc(buf, need) != cudaSuccess) {
    *buf = nullptr;
    cudaGetLastError();
    return false;
  }
  *have = need;
  return true;
}

/** The state's cuBLAS handle, created on first use; nullptr when cuBLAS cannot start. */
cublasHandle_t blas_of(State* s);
/** The side stream and its two events (State::overlap), created on first use; false when they
 *  cannot be. */
bool side_of(State* s);

/** Forget and free h's states on every device (abft_cuda_release). */
void release_state(abft_handle_t h);

}  // namespace abft::cuda
