/** \file cuda_emu.hpp
 *  \brief The CUDA emulator's device side: what a kernel of the engine calls, for a host build
 *  of its sources (g++, this header force-included first). Every thread of a block is a fiber
 *  on one host thread, blocks run one after another: `__syncthreads` and the warp collectives
 *  (`__shfl_*_sync`, `__ballot_sync`, ...) are rendezvous in the scheduler (cuda_emu_runtime.cpp),
 *  which also reports what hardware would hang or leave undefined (a barrier some threads of the
 *  block never reach, lanes of a warp at different collectives). Shared memory is one buffer per
 *  block (`extern __shared__`, rewritten by emu_transform.cmake) or a static (`__shared__`
 *  arrays: the block's fibers share it, blocks run one at a time); atomics are plain operations
 *  (one host thread). WMMA fragments hold their whole 16 x 16 tile in every lane; the warp's
 *  first lane to ask computes a product and the others copy it (MmaEntry); stores agree. The
 *  tensor-core PTX of cuda/warp_mma.cuh is emulated too: `mma.sync.m16n8k16` (f16 and bf16 in,
 *  f32 accumulation) and `ldmatrix` (.x1/.x2/.x4, .trans) are one warp rendezvous each
 *  (WarpOp::Matrix: the scheduler gathers every lane's fragment registers or row address with
 *  the PTX fragment layouts, computes once and scatters each lane's share; all 32 lanes must be
 *  there, row addresses 16-byte aligned). `cp.async` (16-byte aligned addresses, or the launch
 *  fails) lands as late as the PTX allows: its
 *  destination holds 0xFF bytes (NaN in every float format) from the issue until the issuing
 *  thread's `cp.async.wait_group` releases the copy's group — a barrier does not — so a read too
 *  early, a wait that leaves the group in flight, or a copy over data other threads still read
 *  changes the results.
 *
 *  What it is for: running the engine's own kernels (the GEMM's and FFT's checks, the FFT's
 *  cuFFT callbacks, the attention, the device counters) and their GPU tests in every CI build,
 *  where no GPU is: their results, verdicts, repairs and counters, not their speed. cuBLAS and
 *  cuFFT are host stand-ins (cublas_emu.cpp, cufft_emu.cpp). Not emulated: inline PTX other
 *  than warp_mma.cuh's (code under ABFT_CUDA_EMULATED takes another way), memory ordering
 *  between blocks (blocks run to completion one at a time, the strongest order there is).
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// The CUDA qualifiers, as a host compiler takes them.
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#undef __shared__
#undef __align__
#undef __restrict__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__  // (also inside the standard library's __attribute__((__noinline__)))
#define __launch_bounds__(...)
#define __shared__ static  // one copy for the block's fibers (blocks run one at a time)
#define __align__(n) alignas(n)
#define __restrict__ __restrict

namespace abft_emu {

/** The running thread's coordinates (the scheduler's current fiber) and its launch's shape. */
uint3 thread_idx();
uint3 block_idx();
dim3 block_dim();
dim3 grid_dim();
/** The block's dynamic shared memory (`extern __shared__` in a kernel, rewritten to this). */
unsigned char* dynamic_smem();

/** Block-wide rendezvous: every live thread of the block arrives, each with `pred`; the result
 *  by `op` (0: none, 1: or, 2: and, 3: count). */
int block_barrier(int op, int pred);
/** Warp collective over `mask`: each lane gives `value` and an operand; the result by `op`.
 *  Matrix (the tensor-core instructions below): `value` is the address of the lane's request
 *  (its registers in and out), `operand` the instruction, which every lane must share. */
enum class WarpOp { ShflIdx, ShflXor, ShflDown, ShflUp, Ballot, Any, All, MatchAny, Sync, Matrix };
uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int operand, int width);

/** cuda/warp_mma.cuh's instructions, warp collectives of all 32 lanes (cuda_emu_runtime.cpp):
 *  mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.f32 (d = a b + c, this lane's fragment
 *  registers) and ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (`row`: this lane's row
 *  address; r: its `matrices` registers). */
void warp_mma_16816(bool bf16, float* d, const uint32_t* a, const uint32_t* b, const float* c);
void warp_ldmatrix(int matrices, bool trans, uint32_t* r, const void* row);

/** A launch: grid, block, dynamic shared bytes and the kernel call for one thread; where it was
 *  launched from (the `<<<` of a CUDA source, by the `#line` of its host build), for the ledger. */
struct Config {
  dim3 grid, block;
  size_t smem = 0;
  cudaStream_t stream = nullptr;
  const char* file = "";
  int line = 0;
};
inline Config cfg(dim3 g, dim3 b, size_t smem = 0, cudaStream_t s = nullptr, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  return {g, b, smem, s, file, line};
}
/** Runs body once per thread of every block (cudaErrorLaunchFailure and a message on stderr
 *  when a block's threads do not meet at a barrier or collective). */
void launch(const Config& c, const std::function<void()>& body);
/** Whether a launch of this shape may start (else the error, as cudaGetLastError gives it after
 *  the `<<<`, and no launch). */
bool launch_config_ok(const Config& c);

/** The emulator's asynchrony (ABFT_EMU_ASYNC=1, read once; default off: every call is done when
 *  it returns). With it, work queued on a stream — launches, asynchronous copies and memsets,
 *  cuBLAS products and cuFFT transforms — runs only when something waits for it (a stream, event
 *  or device synchronisation, a synchronous copy or memset, cudaFree, an asynchronous copy to
 *  pageable memory), and then the streams' queues are taken newest work first across streams,
 *  each stream in its order, a cudaStreamWaitEvent holding its stream until the event's work has
 *  run, the legacy default stream ordered with the blocking streams as CUDA orders it. Host data
 *  an asynchronous copy reads from or writes to page-locked memory is read or written when the
 *  copy runs (a pageable source is taken at the call, as CUDA stages it). So a missing wait —
 *  the host reusing a staging buffer a copy has not read yet, reading a result before its copy
 *  ran, a stream reading what another writes without an event between them — changes the
 *  results, as on hardware it may. */
bool async_mode();
/** The emulator's self-tests: asynchrony on or off from here (what is queued runs first). */
void set_async_mode(bool on);
/** `op` on stream s: at once, or with async_mode() queued as the hardware would queue it. */
void enqueue(cudaStream_t s, std::function<void()> op);

/** The ledger: what the code under test asked of the emulated device between ledger_begin() and
 *  ledger_end() — the cost structure of a call, read on a machine without a GPU. Launches (where
 *  from, their shape), host waits (a stream, event or device synchronisation, a synchronous copy),
 *  copies by direction and bytes, allocations and frees (cudaFree waits for the device on
 *  hardware), memsets, cuBLAS products and cuFFT executions. With `pages`, each launch also
 *  records the device memory it touched, in 4 KiB pages (every allocation is protected when a
 *  launch starts; the first read and the first write of a page fault once each and are counted):
 *  a kernel's distinct footprint, the DRAM traffic it costs when its data is not already in cache.
 *  One ledger at a time, for the whole process. */
struct LaunchRecord {
  const char* file;  ///< the launching source (a path), "" for the emulator's own
  int line;
  unsigned long long blocks;
  unsigned threads;
  size_t pages_read;     ///< pages whose first access in the launch was a read
  size_t pages_written;  ///< pages written in the launch
};
struct Ledger {
  std::vector<LaunchRecord> launches;
  int host_waits = 0;
  int allocations = 0, frees = 0, memsets = 0, copies = 0;
  size_t bytes_h2d = 0, bytes_d2h = 0, bytes_d2d = 0;
  int blas_calls = 0, fft_calls = 0;
  /** Launches from files whose path contains `part` (all for ""). */
  int launches_from(const char* part) const;
  size_t pages_read(const char* part = "") const;
  size_t pages_written(const char* part = "") const;
};
void ledger_begin(bool pages);
Ledger ledger_end();
/** The 4 KiB pages [p, p + bytes) spans. */
size_t pages_spanned(const void* p, size_t bytes);
/** Called by the emulated libraries (cublas_emu.cpp, cufft_emu.cpp) for each product or transform. */
void ledger_library_call(bool fft);

template <class... P>
struct Bound {
  void (*f)(P...);
  Config c;
};
template <class... A>
struct Args {
  std::tuple<std::decay_t<A>...> t;
};
template <class... A>
Args<A...> args(A&&... a) {
  return {std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)};
}
/** `kernel<<<cfg>>>(args)` is rewritten to `kernel % abft_emu::cfg(cfg) % abft_emu::args(args)`. */
template <class... P>
Bound<P...> operator%(void (*f)(P...), const Config& c) {
  return {f, c};
}
template <class... P, class... A>
void operator%(const Bound<P...>& b, const Args<A...>& a) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
  const std::tuple<P...> params(std::apply([](const auto&... x) { return std::tuple<P...>(P(x)...); }, a.t));
  if (!launch_config_ok(b.c)) return;
  enqueue(b.c.stream, [f = b.f, c = b.c, params] { launch(c, [&] { std::apply(f, params); }); });
}

template <class T>
uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8, "a warp collective moves at most 8 bytes");
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T>
T from_bits(uint64_t u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

}  // namespace abft_emu

#define threadIdx (::abft_emu::thread_idx())
#define blockIdx (::abft_emu::block_idx())
#define blockDim (::abft_emu::block_dim())
#define gridDim (::abft_emu::grid_dim())

/** The runtime's templated entry point (cuda_runtime.h declares it for nvcc only). */
template <class T>
cudaError_t cudaFuncSetAttribute(T* f, cudaFuncAttribute a, int v) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(f), a, v);
}

inline void __syncthreads() { abft_emu::block_barrier(0, 0); }
inline int __syncthreads_or(int p) { return abft_emu::block_barrier(1, p); }
inline int __syncthreads_and(int p) { return abft_emu::block_barrier(2, p); }
inline int __syncthreads_count(int p) { return abft_emu::block_barrier(3, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  abft_emu::warp_collective(abft_emu::WarpOp::Sync, mask, 0, 0, 32);
}
template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  return abft_emu::from_bits<T>(abft_emu::warp_collective(abft_emu::WarpOp::ShflIdx, mask, abft_emu::to_bits(v), src, width));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  return abft_emu::from_bits<T>(
      abft_emu::warp_collective(abft_emu::WarpOp::ShflXor, mask, abft_emu::to_bits(v), lane_mask, width));
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  return abft_emu::from_bits<T>(
      abft_emu::warp_collective(abft_emu::WarpOp::ShflDown, mask, abft_emu::to_bits(v), int(delta), width));
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  return abft_emu::from_bits<T>(
      abft_emu::warp_collective(abft_emu::WarpOp::ShflUp, mask, abft_emu::to_bits(v), int(delta), width));
}
/** The lanes of the warp that are still running (the emulator keeps no record of divergent
 *  branches: code that asks must then be where all of them are, as the engine's callbacks are). */
inline unsigned __activemask() {
  return unsigned(abft_emu::warp_collective(abft_emu::WarpOp::Ballot, 0xffffffffu, 1, 0, 32));
}
inline unsigned __ballot_sync(unsigned mask, int p) {
  return unsigned(abft_emu::warp_collective(abft_emu::WarpOp::Ballot, mask, p != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int p) {
  return int(abft_emu::warp_collective(abft_emu::WarpOp::Any, mask, p != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int p) {
  return int(abft_emu::warp_collective(abft_emu::WarpOp::All, mask, p != 0, 0, 32));
}
template <class T>
unsigned __match_any_sync(unsigned mask, T v) {
  return unsigned(abft_emu::warp_collective(abft_emu::WarpOp::MatchAny, mask, abft_emu::to_bits(v), 0, 32));
}
inline void __threadfence() {}
inline void __threadfence_block() {}

// Atomics: one host thread runs every fiber, so a read-modify-write is atomic as it stands.
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <class T>
T atomicExch(T* p, T v) {
  const T old = *p;
  *p = v;
  return old;
}
template <class T>
T atomicMax(T* p, T v) {
  const T old = *p;
  if (v > old) *p = v;
  return old;
}
template <class T>
T atomicMin(T* p, T v) {
  const T old = *p;
  if (v < old) *p = v;
  return old;
}
template <class T>
T atomicOr(T* p, T v) {
  const T old = *p;
  *p = old | v;
  return old;
}
template <class T>
T atomicCAS(T* p, T cmp, T v) {
  const T old = *p;
  if (old == cmp) *p = v;
  return old;
}

inline unsigned __float_as_uint(float x) { return abft_emu::from_bits<unsigned>(abft_emu::to_bits(x)); }
inline float __uint_as_float(unsigned x) { return abft_emu::from_bits<float>(abft_emu::to_bits(x)); }
inline int __float_as_int(float x) { return abft_emu::from_bits<int>(abft_emu::to_bits(x)); }
inline float __int_as_float(int x) { return abft_emu::from_bits<float>(abft_emu::to_bits(x)); }
inline long long __double_as_longlong(double x) { return abft_emu::from_bits<long long>(abft_emu::to_bits(x)); }
inline double __longlong_as_double(long long x) { return abft_emu::from_bits<double>(abft_emu::to_bits(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
/** CUDA's sincospi (sin and cos of pi x), reduced exactly to [-1, 1]: within a few units of
 *  2^-53 of the exact values, as CUDA's is. */
inline void sincospi(double x, double* s, double* c) {
  const double r = x - 2.0 * std::nearbyint(x / 2.0);  // exact: |r| <= 1
  const double a = 3.141592653589793 * r;
  *s = std::sin(a);
  *c = std::cos(a);
  if (r == 0.0 || r == 1.0 || r == -1.0) *s = std::copysign(0.0, r == 0.0 ? x : -r);
  if (r == 0.5 || r == -0.5) *c = 0.0;
}
inline void sincospif(float x, float* s, float* c) {
  double ds, dc;
  sincospi(double(x), &ds, &dc);
  *s = float(ds), *c = float(dc);
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T __ldcg(const T* p) {
  return *p;
}

/** WMMA (nvcuda::wmma) for the fragments the engine uses: 16 x 16 x 16, 16-bit inputs, float
 *  accumulation; every lane holds the whole tile. */
namespace nvcuda::wmma {
struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static constexpr int rows = std::is_same<Use, matrix_b>::value ? K : M;
  static constexpr int cols = std::is_same<Use, matrix_a>::value ? K : N;
  float v[rows * cols];  ///< the tile, row-major, as float (16-bit inputs widened exactly)
};
template <class Use, int M, int N, int K, class T, class L>
void fill_fragment(fragment<Use, M, N, K, T, L>& f, float x) {
  for (float& e : f.v) e = x;
}
inline float widen(float x) { return x; }
inline float widen(__half x) {
#if defined(__F16C__)
  return _cvtsh_ss(__half_raw(x).x);
#else
  return __half2float(x);
#endif
}
inline float widen(__nv_bfloat16 x) {  // exact: bfloat16 is float's upper half
  const uint32_t u = uint32_t(__nv_bfloat16_raw(x).x) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace nvcuda::wmma
namespace abft_emu {
/** A warp's products in a block, in the order its lanes ask for them: every lane of a warp
 *  multiplies the same tiles, so the first lane to reach its n-th product computes it and the
 *  others, finding their inputs equal, copy it (cuda_emu_runtime.cpp keeps them per block). */
struct MmaEntry {
  float a[256], b[256], c[256], d[256];
};
/** The running thread's next product: its warp's entry n (n = how many it asked for before in
 *  this block), or null when its warp has fewer (this thread computes entry n). */
MmaEntry* mma_entry(unsigned& n);
void mma_keep(unsigned n, const MmaEntry& e);
}  // namespace abft_emu
namespace nvcuda::wmma {
template <class Use, int M, int N, int K, class T, class L, class P>
void load_matrix_sync(fragment<Use, M, N, K, T, L>& f, const P* p, unsigned ld) {
  using F = fragment<Use, M, N, K, T, L>;
  constexpr bool col = std::is_same<L, col_major>::value;
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c) f.v[r * F::cols + c] = widen(col ? p[c * ld + r] : p[r * ld + c]);
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class LC>
void mma_sync(fragment<accumulator, M, N, K, float, LC>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
              const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, float, LC>& c) {
  static_assert(M * K <= 256 && K * N <= 256 && M * N <= 256, "tiles of at most 16 x 16");
  unsigned n = 0;
  const abft_emu::MmaEntry* m = abft_emu::mma_entry(n);
  if (m && !std::memcmp(m->a, a.v, sizeof a.v) && !std::memcmp(m->b, b.v, sizeof b.v) &&
      !std::memcmp(m->c, c.v, sizeof c.v)) {
    std::memcpy(d.v, m->d, sizeof d.v);
    return;
  }
  float out[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = c.v[i * N + j];
      for (int k = 0; k < K; ++k) s = std::fma(a.v[i * K + k], b.v[k * N + j], s);
      out[i * N + j] = s;
    }
  if (!m) {  // the first lane here: kept for the others
    abft_emu::MmaEntry e;
    std::memcpy(e.a, a.v, sizeof a.v);
    std::memcpy(e.b, b.v, sizeof b.v);
    std::memcpy(e.c, c.v, sizeof c.v);
    std::memcpy(e.d, out, sizeof out);
    abft_emu::mma_keep(n, e);
  }
  std::memcpy(d.v, out, sizeof out);
}
template <int M, int N, int K, class L>
void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float, L>& f, unsigned ld, layout_t lay) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) (lay == mem_row_major ? p[r * ld + c] : p[c * ld + r]) = f.v[r * N + c];
}
}  // namespace nvcuda::wmma
