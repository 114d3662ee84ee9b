/** \file fft_check.cuh
 *  \brief Device kernels of the GPU FFT's checksums (issue 10, first part): the input side
 *  (sum_j v_j x_j and ||x||^2, with the repair copy of the input when one is needed), the output
 *  side (sum_k w_k y_k), the verdict per signal with device-side counters, the repair of a
 *  failed signal (recomputed in double on the device) and its re-verification. Each kernel is a
 *  parallel loop around the shared ABFT_HD functions of abft/checksum/fft_library_check.hpp,
 *  which tests/checksum/fft_library_check_test.cpp runs on the host against the CPU FFT.
 *
 *  The weights come from per-dimension turn tables (ck::FftTableWeights, built with the plan):
 *  forming them per element with sincospi in double made these sums arithmetic-bound, several
 *  times slower than the transform itself on an H200.
 *  Layout: cuFFT's advanced layout. Element idx (multi-index over the side's dims) of signal b
 *  is at  b * dist + ((idx0 * embed1 + idx1) * embed2 + idx2) * stride  (complex sides count in
 *  complex elements, stored re, im). Sums are formed in double, a block per slice of a signal,
 *  then added into the signal's accumulators with atomics (any order: the bound's dot term
 *  allows every order).
 *  Included by the translation unit that launches the kernels (fft_protected.cu). Status:
 *  compiled for sm_90 + PTX in every CUDA build; run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12).
 */
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "abft/checksum/fft_library_check.hpp"
#include "device_state.hpp"

namespace abft::cuda {

namespace ck = abft::checksum;

/** One side (input or output) of a batch of signals in memory. */
struct SigLayout {
  int rank = 1;
  int64_t dims[3] = {1, 1, 1};   ///< elements per dimension on this side
  int64_t embed[3] = {1, 1, 1};  ///< storage sizes (embed[0] unused)
  int64_t stride = 1, dist = 0;
  bool complex = true;  ///< complex elements (two scalars) or real
  __host__ __device__ int64_t count() const { return dims[0] * (rank > 1 ? dims[1] : 1) * (rank > 2 ? dims[2] : 1); }
  /** R > 0: the rank known at compile time (see ck::fft_in_weight). */
  template <int R = 0>
  __host__ __device__ int64_t offset(int64_t sig, const int64_t* idx) const {
    int64_t o = idx[0];
    const int r = R > 0 ? R : rank;
    for (int d = 1; d < r; ++d) o = o * embed[d] + idx[d];
    return sig * dist + o * stride;
  }
  /** Elements of one signal from its first to its last, plus one. */
  __host__ __device__ int64_t span() const {
    int64_t last[3] = {0, 0, 0};
    for (int d = 0; d < rank; ++d) last[d] = dims[d] - 1;
    return offset(0, last) + 1;  // (signal 0: dist plays no part)
  }
};

/** Accumulators per signal (double): in.re, in.im, ||x||^2, out.re, out.im. */
constexpr int kAcc = 5;

/** Threads per block of the sum kernels, and the slices (blocks) a signal of cnt elements is
 *  cut into: about 8 elements per thread, at most 1024 slices. The bound's sum depth follows
 *  from the same figures (ck::fft_engine_sum_depth). */
constexpr int kSumThreads = int(ck::kFftSumThreads);
inline unsigned sum_slices(int64_t cnt) { return unsigned(ck::fft_sum_slices(cnt)); }

/** Sum over the block of three doubles per thread; the totals are valid in thread 0. */
__device__ __forceinline__ void block_sum3(double& a, double& b, double& c) {
  __shared__ double s[3][32];
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(0xffffffffu, a, o);
    b += __shfl_down_sync(0xffffffffu, b, o);
    c += __shfl_down_sync(0xffffffffu, c, o);
  }
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) s[0][wid] = a, s[1][wid] = b, s[2][wid] = c;
  __syncthreads();
  if (wid == 0) {
    a = lane < nw ? s[0][lane] : 0.0;
    b = lane < nw ? s[1][lane] : 0.0;
    c = lane < nw ? s[2][lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) {
      a += __shfl_down_sync(0xffffffffu, a, o);
      b += __shfl_down_sync(0xffffffffu, b, o);
      c += __shfl_down_sync(0xffffffffu, c, o);
    }
  }
  __syncthreads();
}

/** A load through the read-only cache (__ldg: data no thread of the launch writes), or with
 *  kFresh, of data other blocks of the same launch wrote (__ldcg: from L2, never a stale line of
 *  an SM's read-only cache; PTX allows ld.global.nc only on data read-only for the kernel). */
template <bool kFresh, class V>
__device__ __forceinline__ V load_global(const V* p) {
  if constexpr (kFresh) return __ldcg(p);
  else return __ldg(p);
}

/** Element `off` of a side; a complex one in one 8- or 16-byte load when the array is aligned
 *  to the pair (cuFFT's complex types are; a caller's pointer need not be: then two loads). */
template <class T, bool kFresh = false>
__device__ __forceinline__ ck::Cd load_elem(const T* p, const SigLayout& L, int64_t off) {
  using V = typename std::conditional<sizeof(T) == 4, float2, double2>::type;
  if (L.complex) {
    if ((reinterpret_cast<uintptr_t>(p) & (sizeof(V) - 1)) == 0) {
      const V v = load_global<kFresh>(reinterpret_cast<const V*>(p) + off);
      return {double(v.x), double(v.y)};
    }
    return {double(load_global<kFresh>(p + 2 * off)), double(load_global<kFresh>(p + 2 * off + 1))};
  }
  return {double(load_global<kFresh>(p + off)), 0.0};
}

/** Input element e of signal b: its term v_e x_e and |x_e|^2 (copied to `backup`, packed signal
 *  after signal, when given: the repair's source when the transform may overwrite its input).
 *  C2R forms its term from the per-dimension tables c2r (ck::fft_c2r_in_term). */
template <class T, int R>
__device__ __forceinline__ void in_term(const T* in, const SigLayout& L, const ck::FftLibraryShape& sh,
                                        const ck::FftTableWeights& tw, const ck::FftC2RWeights& c2r, int64_t b, int64_t e,
                                        int64_t cnt, T* backup, ck::Cd& t, double& x2) {
  int64_t idx[3] = {e, 0, 0};
  if (R != 1) ck::fft_unravel(e, L.rank, L.dims, idx);
  const int64_t off = L.offset<R>(b, idx);
  const ck::Cd x = load_elem(in, L, off);
  if (backup) {
    const int scal = L.complex ? 2 : 1;
    backup[(b * cnt + e) * scal] = in[scal * off];
    if (scal == 2) backup[(b * cnt + e) * 2 + 1] = in[2 * off + 1];
  }
  t = ck::fft_in_term_of<R>(x, sh, tw, c2r, idx);
  x2 = x.re * x.re + x.im * x.im;
}

/** Output element e of signal b: its term w_e y_e (plus R2C's mirror term); kFresh: the output
 *  was written earlier in the same launch (load_elem). */
template <class T, int R, bool kFresh = false>
__device__ __forceinline__ ck::Cd out_term(const T* out, const SigLayout& L, const ck::FftLibraryShape& sh,
                                           const ck::FftTableWeights& tw, const ck::FftC2RWeights& c2r, int64_t b,
                                           int64_t e) {
  int64_t idx[3] = {e, 0, 0};
  if (R != 1) ck::fft_unravel(e, L.rank, L.dims, idx);
  return ck::fft_out_term_of<R>(load_elem<T, kFresh>(out, L, L.offset<R>(b, idx)), sh, tw, c2r, idx);
}

/** Input side of every signal: acc[b].in += v_j x_j, acc[b].x2 += |x_j|^2 (in_term). grid:
 *  (slices, signals), grid-stride in both. */
template <class T, int R>
__global__ void fft_in_kernel(const T* in, SigLayout L, ck::FftLibraryShape sh, ck::FftTableWeights tw,
                              ck::FftC2RWeights c2r, int64_t batch, double* acc, T* backup) {
  const int64_t cnt = L.count();
  for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    double re = 0, im = 0, x2 = 0;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < cnt; e += int64_t(gridDim.x) * blockDim.x) {
      ck::Cd t;
      double q;
      in_term<T, R>(in, L, sh, tw, c2r, b, e, cnt, backup, t, q);
      re += t.re;
      im += t.im;
      x2 += q;
    }
    block_sum3(re, im, x2);
    if (threadIdx.x == 0) {
      atomicAdd(acc + kAcc * b + 0, re);
      atomicAdd(acc + kAcc * b + 1, im);
      atomicAdd(acc + kAcc * b + 2, x2);
    }
  }
}

/** sum_k w_k y_k of signal b's output, summed by the calling block (valid in thread 0). */
template <class T, int R, bool kFresh = false>
__device__ void out_sum(const T* out, const SigLayout& L, const ck::FftLibraryShape& sh, const ck::FftTableWeights& tw,
                        const ck::FftC2RWeights& c2r, int64_t b, int64_t e0, int64_t step, double& re, double& im) {
  re = 0, im = 0;
  const int64_t cnt = L.count();
  for (int64_t e = e0; e < cnt; e += step) {
    const ck::Cd t = out_term<T, R, kFresh>(out, L, sh, tw, c2r, b, e);
    re += t.re;
    im += t.im;
  }
  double z = 0;
  block_sum3(re, im, z);
}

/** Output side of every signal: acc[b].out += w_k y_k. grid: (slices, signals). */
template <class T, int R>
__global__ void fft_out_kernel(const T* out, SigLayout L, ck::FftLibraryShape sh, ck::FftTableWeights tw,
                               ck::FftC2RWeights c2r, int64_t batch, double* acc) {
  for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    double re, im;
    out_sum<T, R>(out, L, sh, tw, c2r, b, blockIdx.x * int64_t(blockDim.x) + threadIdx.x,
                  int64_t(gridDim.x) * blockDim.x, re, im);
    if (threadIdx.x == 0) {
      atomicAdd(acc + kAcc * b + 3, re);
      atomicAdd(acc + kAcc * b + 4, im);
    }
  }
}

/** Short signals (rank 1, at most ck::kFftWarpMaxCount elements a side): a warp per signal,
 *  grid-stride over the signals. A block per signal spent more on its two barriers, shared
 *  memory and atomics than on 256 elements, one per thread, with a single load in flight. Here a
 *  lane takes elements lane + 32 t in chunks of 8 (eight loads in flight), sums each chunk
 *  pairwise, the chunks in order, then the warp's tree; lane 0 stores the sums (the signal's
 *  only writer: no atomics). The longest addition chain, 3 + (chunks - 1) + 5 <= 11, stays under
 *  the block path's (ck::fft_engine_sum_depth), which the bound uses. kIn: the input side
 *  (acc slots 0..2, in_term), else the output side (slots 3, 4, out_term). */
template <class T, bool kIn>
__global__ void fft_warp_sums_kernel(const T* p, SigLayout L, ck::FftLibraryShape sh, ck::FftTableWeights tw,
                                     ck::FftC2RWeights c2r, int64_t batch, double* acc, T* backup) {
  constexpr int kChunk = 8;
  const int lane = threadIdx.x & 31;
  const int64_t cnt = L.count();
  const int64_t wpb = blockDim.x / 32, warps = int64_t(gridDim.x) * wpb;
  for (int64_t b = blockIdx.x * wpb + threadIdx.x / 32; b < batch; b += warps) {
    double re = 0, im = 0, x2 = 0;
    for (int64_t c0 = 0; c0 < cnt; c0 += 32 * kChunk) {
      double r[kChunk], i[kChunk], q[kChunk];
#pragma unroll
      for (int t = 0; t < kChunk; ++t) {
        const int64_t e = c0 + lane + 32 * t;
        r[t] = i[t] = q[t] = 0.0;
        if (e < cnt) {
          ck::Cd term;
          if constexpr (kIn) {
            in_term<T, 1>(p, L, sh, tw, c2r, b, e, cnt, backup, term, q[t]);
          } else {
            term = out_term<T, 1>(p, L, sh, tw, c2r, b, e);
          }
          r[t] = term.re, i[t] = term.im;
        }
      }
#pragma unroll
      for (int h = 1; h < kChunk; h *= 2)
#pragma unroll
        for (int t = 0; t + h < kChunk; t += 2 * h) r[t] += r[t + h], i[t] += i[t + h], q[t] += q[t + h];
      re += r[0], im += i[0], x2 += q[0];
    }
    for (int o = 16; o > 0; o >>= 1) {
      re += __shfl_down_sync(0xffffffffu, re, o);
      im += __shfl_down_sync(0xffffffffu, im, o);
      x2 += __shfl_down_sync(0xffffffffu, x2, o);
    }
    if (lane == 0) {
      double* a = acc + kAcc * b + (kIn ? 0 : 3);
      a[0] = re, a[1] = im;
      if (kIn) a[2] = x2;
    }
  }
}

/** Pieces of the verdict, fixed per plan. */
struct FftVerdictArgs {
  double coef, abs, Y, t_max;
};

/** The verdict of every signal (a thread per signal) and the counters; failed signals are
 *  listed in flags[1 + ...] (flags[0] their number) for the repair. The counters are summed per
 *  warp first: one atomic per signal on one address serialised at small lengths (2^17 signals
 *  of 256 points). blockDim.x is a multiple of 32 and every thread reaches the warp sums. */
/** Signal b's verdict from its sums a[0..kAcc), counted; a failed signal listed in flags. */
__device__ __forceinline__ void count_verdict(const double* a, int64_t b, const FftVerdictArgs& va, int* flags,
                                              unsigned long long& checks, unsigned long long& skipped,
                                              unsigned long long& failed) {
  const ck::LineVerdict v = ck::fft_library_verdict({a[0], a[1]}, {a[3], a[4]}, a[2], va.coef, va.abs, va.Y, va.t_max);
  ++checks;
  if (v == ck::LineVerdict::Skipped) ++skipped;
  if (v == ck::LineVerdict::Failed) {
    ++failed;
    const int slot = atomicAdd(flags, 1);
    flags[1 + slot] = int(b);
  }
}

__global__ void fft_verify_kernel(const double* acc, int64_t batch, FftVerdictArgs va, int* flags,
                                  DeviceCounters* dc) {
  unsigned long long checks = 0, skipped = 0, failed = 0;
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < batch; b += int64_t(gridDim.x) * blockDim.x)
    count_verdict(acc + kAcc * b, b, va, flags, checks, skipped, failed);
  for (int o = 16; o > 0; o >>= 1) {
    checks += __shfl_down_sync(0xffffffffu, checks, o);
    skipped += __shfl_down_sync(0xffffffffu, skipped, o);
    failed += __shfl_down_sync(0xffffffffu, failed, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (checks) atomicAdd(&dc->checks, checks);
    if (skipped) atomicAdd(&dc->skipped, skipped);
    if (failed) atomicAdd(&dc->failed, failed);
  }
}

/** CALLBACKS (cuda/fft_callbacks.cu): every signal's bucket sums added — a warp per signal,
 *  lanes over the buckets in order, then 5 levels (the depth ck::fft_callback_sum_depth counts)
 *  — and cleared for the next call; the totals written to acc (kAcc a signal, as the passes
 *  leave them: the re-check reads the input side there); the verdicts; the counters summed per
 *  block in shared memory, then one atomic per block and counter. bin: 3 doubles a (signal,
 *  bucket), nb_in buckets a signal; bout: 2 doubles, nb_out. blockDim.x a multiple of 32. */
__global__ void fft_bucket_verify_kernel(double* bin, double* bout, int64_t nb_in, int64_t nb_out, int64_t batch,
                                         double* acc, FftVerdictArgs va, int* flags, DeviceCounters* dc) {
  __shared__ unsigned long long cnt[3];
  if (threadIdx.x < 3) cnt[threadIdx.x] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const int64_t wpb = blockDim.x / 32, warps = int64_t(gridDim.x) * wpb;
  unsigned long long checks = 0, skipped = 0, failed = 0;
  for (int64_t b = blockIdx.x * wpb + threadIdx.x / 32; b < batch; b += warps) {  // warp-uniform
    double s[kAcc] = {0, 0, 0, 0, 0};
    double* pi = bin + 3 * b * nb_in;
    for (int64_t k = lane; k < nb_in; k += 32) {
      s[0] += pi[3 * k], s[1] += pi[3 * k + 1], s[2] += pi[3 * k + 2];
      pi[3 * k] = pi[3 * k + 1] = pi[3 * k + 2] = 0.0;
    }
    double* po = bout + 2 * b * nb_out;
    for (int64_t k = lane; k < nb_out; k += 32) {
      s[3] += po[2 * k], s[4] += po[2 * k + 1];
      po[2 * k] = po[2 * k + 1] = 0.0;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
#pragma unroll
      for (int i = 0; i < kAcc; ++i) s[i] += __shfl_xor_sync(0xffffffffu, s[i], o);
    if (lane == 0) {
      double* a = acc + kAcc * b;
#pragma unroll
      for (int i = 0; i < kAcc; ++i) a[i] = s[i];
      count_verdict(a, b, va, flags, checks, skipped, failed);
    }
  }
  if (lane == 0 && (checks | skipped | failed)) {
    atomicAdd(&cnt[0], checks);
    atomicAdd(&cnt[1], skipped);
    atomicAdd(&cnt[2], failed);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (cnt[0]) atomicAdd(&dc->checks, cnt[0]);
    if (cnt[1]) atomicAdd(&dc->skipped, cnt[1]);
    if (cnt[2]) atomicAdd(&dc->failed, cnt[2]);
  }
}

/** CALLBACKS: a protected call opens its plan's callbacks (the gate holds the call's sign, -1
 *  or +1) and clears its failed-signal count, in one launch — when the gate does not hold the
 *  call's sign already with the count cleared (fft_protected.cu: the plan remembers).
 *  gate[1] is the count (flags[0]). */
__global__ void fft_open_gate_kernel(int* gate, int sign) {
  gate[0] = sign;
  gate[1] = 0;
}

/** Exact phase of j.k / n as a fraction of a turn, reduced (integer arithmetic, then one division). */
__device__ __forceinline__ double turn_fraction(int64_t j, int64_t k, int64_t n) {
  return double((j % n) * (k % n) % n) / double(n);
}

/** How the repair recomputes a failed signal (fixed per plan): directly, O(N) per output, or in
 *  two levels. Two levels split the input index j into (jA, jB) and the output index k into
 *  (kA, kB) with the phase j.k / n = phA(jA, kA) + phX(jB, kA) + phB(jB, kB) (mod 1):
 *   - rank 1, n = p q: j = a q + b, k = c + p d (jA = a, jB = b, kA = c, kB = d):
 *     phA = a c / p, phX = b c / n, phB = b d / q (the four-step identity);
 *   - ranks 2, 3: jA = j0, kA = k0, jB and kB the other dimensions: phA = j0 k0 / n0, phX = 0,
 *     phB the sum over the others.
 *  A block task (kA, a chunk of kB) forms z[jB] = e(phX) sum_jA c_j x_j e(phA) for every jB in
 *  scratch, then its outputs y = sum_jB z[jB] e(phB): N (|A| + |B|) terms in all where the
 *  direct sum takes N^2 (a 2^22-point line or 2048 x 2048: about 1000 times fewer). At rank 3
 *  the second level is split again, u[j1, k2] = sum_j2 z[j1, j2] e(j2 k2 / n2), then
 *  y = sum_j1 u[j1, k2] e(j1 k1 / n1) (a second scratch of n1 x n2-outputs): N (n0 + n1 + n2)
 *  terms (256^3: about 20000 times fewer than direct). */
struct FftRepairSplit {
  bool direct = true;
  int64_t nA = 1;      ///< values of kA (and of jA): p, or n0
  int64_t p = 1, q = 1;  ///< rank 1: n = p q
  int64_t bin = 1, bout = 1;  ///< values of jB (z's length), of kB
  int64_t uin = 0;     ///< rank 3: u's length (n1 x the output side's last dimension), else 0
  int64_t chunk = 1, chunks = 1;  ///< outputs kB per block task, tasks per kA
  unsigned gx = 1, gy = 1;   ///< the launch's grid (block slots: gx gy, one z and u each)
  __host__ __device__ int64_t slot() const { return 2 * (bin + uin); }  ///< doubles of scratch a block slot
};

/** The plan's repair split (host): levels for signals of more than 2^16 points whose first
 *  level has at least 16 values (rank 1: the largest divisor p <= sqrt n), direct otherwise;
 *  scratch of at most `budget` bytes (8 slot() bytes a block slot). mode: 0 auto, 1 always
 *  levels where a split exists (p >= 2 or rank >= 2), 2 always direct. */
inline FftRepairSplit fft_repair_split(const ck::FftLibraryShape& sh, int64_t cin, int64_t cout, int64_t batch,
                                      int mode, size_t budget = size_t(16) << 20) {
  FftRepairSplit sp;
  const int64_t N = sh.total();
  if (sh.rank == 1) {
    int64_t p = 1;
    for (int64_t d = 1; d * d <= N; ++d)
      if (N % d == 0) p = d;
    sp.p = p, sp.q = N / p, sp.nA = p, sp.bin = sp.q, sp.bout = sp.q;
  } else {
    sp.nA = sh.n[0], sp.bin = cin / sh.n[0], sp.bout = cout / sh.n[0];
    if (sh.rank == 3) sp.uin = sh.n[1] * (cout / (sh.n[0] * sh.n[1]));
  }
  const bool can = sp.nA >= 2;
  sp.direct = mode == 2 || !can || (mode == 0 && (N <= 65536 || sp.nA < 16));
  if (sp.direct) return sp;
  // Rank 3 makes u whole for each task: one chunk (every kB of its kA) keeps that once per kA.
  sp.chunk = sh.rank == 3 || sp.bout < 4096 ? sp.bout : 4096;
  sp.chunks = (sp.bout + sp.chunk - 1) / sp.chunk;
  sp.gy = unsigned(batch < 4 ? batch : 4);
  int64_t slots = int64_t(budget / (8 * size_t(sp.slot())));
  slots = slots < 1 ? 1 : slots;
  int64_t gx = slots / sp.gy;
  if (gx < 1) gx = 1, sp.gy = 1;
  const int64_t tasks = sp.nA * sp.chunks;
  sp.gx = unsigned(gx < tasks ? (gx < 128 ? gx : 128) : (tasks < 128 ? tasks : 128));
  return sp;
}

/** Recompute every listed signal in double: y_k = sum_j x_j exp(s 2 pi i <j, k / n>) with
 *  compensated sums, from `src` (the caller's input, or the packed backup): directly, O(N) per
 *  output, or in the two levels of `sp` with a block slot's z in `scratch` (2 sp.bin doubles a
 *  slot). The rare path. C2R (any rank) sums over the stored half spectrum, each bin standing
 *  for itself and its mirror: y_j = sum_k c_k Re(X_k exp(i 2 pi <k, j / n>)), c_k = 1 on the
 *  self-conjugate planes (k_last = 0, or n/2 for even n: the Hermitian part of a bin pair there
 *  gives Re of each) and 2 elsewhere. grid: direct (slices, listed signals), two levels
 *  (sp.gx, sp.gy); grid-stride in both. */
template <class T>
__device__ void fft_repair_signals(const T* src, const SigLayout& Ls, T* out, const SigLayout& Lo,
                                   const ck::FftLibraryShape& sh, const FftRepairSplit& sp, double* scratch,
                                   const int* flags, int nflag) {
  const int64_t cnt_out = Lo.count(), cnt_in = Ls.count();
  const bool c2r = sh.kind == 2, r1 = sh.rank == 1;
  const int L = sh.rank - 1;
  const double sg = sh.sign < 0 ? -1.0 : 1.0;
  struct Kahan {
    double sr = 0, si = 0, cr = 0, ci = 0;
    __device__ void add(double tr, double ti) {
      const double yr = tr - cr, tr2 = sr + yr;
      cr = (tr2 - sr) - yr, sr = tr2;
      const double yi = ti - ci, ti2 = si + yi;
      ci = (ti2 - si) - yi, si = ti2;
    }
  };
  // exp(s 2 pi i fr) for a reduced fraction of a turn.
  auto turn = [&](double fr, double& c, double& s) {
    sincospi(2.0 * fr, &s, &c);
    s *= sg;
  };
  auto cweight = [&](const int64_t* jj) { return c2r && !(jj[L] == 0 || 2 * jj[L] == sh.n[L]) ? 2.0 : 1.0; };
  auto store = [&](int64_t b, const int64_t* kk, double re, double im) {
    const int64_t off = Lo.offset(b, kk);
    if (Lo.complex) {
      out[2 * off] = T(re);
      out[2 * off + 1] = T(im);
    } else {
      out[off] = T(re);  // C2R: the real part (the sums carry the mirror through c_k)
    }
  };
  if (sp.direct) {
    for (int f = blockIdx.y; f < nflag; f += gridDim.y) {
      const int64_t b = flags[1 + f];
      for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < cnt_out;
           e += int64_t(gridDim.x) * blockDim.x) {
        int64_t k[3] = {0, 0, 0};
        ck::fft_unravel(e, Lo.rank, Lo.dims, k);
        Kahan acc;
        for (int64_t j = 0; j < cnt_in; ++j) {
          int64_t jj[3] = {0, 0, 0};
          ck::fft_unravel(j, Ls.rank, Ls.dims, jj);
          double fr = 0;
          for (int d = 0; d < sh.rank; ++d) fr += turn_fraction(jj[d], k[d], sh.n[d]);
          double c, s;
          turn(fr - floor(fr), c, s);
          const ck::Cd x = load_elem(src, Ls, Ls.offset(b, jj));
          const double w = cweight(jj);
          acc.add(w * (x.re * c - x.im * s), w * (x.re * s + x.im * c));
        }
        store(b, k, acc.sr, acc.si);
      }
    }
    return;
  }
  double* z = scratch + sp.slot() * (int64_t(blockIdx.y) * gridDim.x + blockIdx.x);
  double* u = z + 2 * sp.bin;  // rank 3: u[j1 * n2out + k2]
  const int64_t n2in = sh.rank == 3 ? Ls.dims[2] : 1, n2out = sh.rank == 3 ? Lo.dims[2] : 1;
  const int64_t tasks = sp.nA * sp.chunks;
  // The dims of B on each side (rank >= 2: dimensions 1..), for its flat indices.
  int64_t bdim_in[3] = {1, 1, 1}, bdim_out[3] = {1, 1, 1};
  for (int d = 1; d < sh.rank; ++d) bdim_in[d - 1] = Ls.dims[d], bdim_out[d - 1] = Lo.dims[d];
  for (int f = blockIdx.y; f < nflag; f += gridDim.y) {
    const int64_t b = flags[1 + f];
    for (int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
      const int64_t kA = task / sp.chunks, ch = task % sp.chunks;
      // Level 1: z[jB] = e(phX(jB, kA)) sum_jA c_j x_j e(phA(jA, kA)).
      for (int64_t jB = threadIdx.x; jB < sp.bin; jB += blockDim.x) {
        int64_t jj[3] = {0, 0, 0};
        if (!r1) ck::fft_unravel(jB, L, bdim_in, jj + 1);
        Kahan acc;
        for (int64_t jA = 0; jA < sp.nA; ++jA) {
          if (r1) {
            jj[0] = jA * sp.q + jB;
            if (jj[0] >= cnt_in) continue;  // (C2R: past the stored half)
          } else {
            jj[0] = jA;
          }
          double c, s;
          turn(r1 ? double(jA * kA % sp.p) / double(sp.p) : turn_fraction(jA, kA, sh.n[0]), c, s);
          const ck::Cd x = load_elem(src, Ls, Ls.offset(b, jj));
          const double w = cweight(jj);
          acc.add(w * (x.re * c - x.im * s), w * (x.re * s + x.im * c));
        }
        double zr = acc.sr, zi = acc.si;
        if (r1) {  // the four-step twiddle e(b c / n)
          double c, s;
          turn(turn_fraction(jB, kA, sh.n[0]), c, s);
          const double t = zr * c - zi * s;
          zi = zr * s + zi * c, zr = t;
        }
        z[2 * jB] = zr, z[2 * jB + 1] = zi;
      }
      __syncthreads();
      if (sh.rank == 3) {  // Level 2a: u[j1, k2] = sum_j2 z[j1, j2] e(j2 k2 / n2).
        for (int64_t t = threadIdx.x; t < sp.uin; t += blockDim.x) {
          const int64_t j1 = t / n2out, k2 = t % n2out;
          Kahan acc;
          for (int64_t j2 = 0; j2 < n2in; ++j2) {
            double c, s;
            turn(turn_fraction(j2, k2, sh.n[2]), c, s);
            const double zr = z[2 * (j1 * n2in + j2)], zi = z[2 * (j1 * n2in + j2) + 1];
            acc.add(zr * c - zi * s, zr * s + zi * c);
          }
          u[2 * t] = acc.sr, u[2 * t + 1] = acc.si;
        }
        __syncthreads();
      }
      // Level 2: the chunk's outputs, y(kA, kB) = sum_jB z[jB] e(phB(jB, kB)) (rank 3: level 2b,
      // y(kA, k1, k2) = sum_j1 u[j1, k2] e(j1 k1 / n1)).
      const int64_t k_end = (ch + 1) * sp.chunk < sp.bout ? (ch + 1) * sp.chunk : sp.bout;
      for (int64_t kB = ch * sp.chunk + threadIdx.x; kB < k_end; kB += blockDim.x) {
        int64_t kk[3] = {0, 0, 0}, kb[3] = {0, 0, 0};
        if (r1) {
          kk[0] = kA + sp.p * kB;
          if (kk[0] >= cnt_out) continue;  // (R2C: past the stored half)
        } else {
          kk[0] = kA;
          ck::fft_unravel(kB, L, bdim_out, kb);
          for (int d = 1; d < sh.rank; ++d) kk[d] = kb[d - 1];
        }
        Kahan acc;
        if (sh.rank == 3) {
          for (int64_t j1 = 0; j1 < sh.n[1]; ++j1) {
            double c, s;
            turn(turn_fraction(j1, kk[1], sh.n[1]), c, s);
            const double ur = u[2 * (j1 * n2out + kk[2])], ui = u[2 * (j1 * n2out + kk[2]) + 1];
            acc.add(ur * c - ui * s, ur * s + ui * c);
          }
          store(b, kk, acc.sr, acc.si);
          continue;
        }
        for (int64_t jB = 0; jB < sp.bin; ++jB) {
          double fr;
          if (r1) {
            fr = turn_fraction(jB, kB, sp.q);
          } else {
            int64_t jb[3] = {0, 0, 0};
            ck::fft_unravel(jB, L, bdim_in, jb);
            fr = 0;
            for (int d = 1; d < sh.rank; ++d) fr += turn_fraction(jb[d - 1], kb[d - 1], sh.n[d]);
            fr -= floor(fr);
          }
          double c, s;
          turn(fr, c, s);
          const double zr = z[2 * jB], zi = z[2 * jB + 1];
          acc.add(zr * c - zi * s, zr * s + zi * c);
        }
        store(b, kk, acc.sr, acc.si);
      }
      __syncthreads();
    }
  }
}

/** C2R, before the sums and the transform: the self-conjugate planes of every signal (last
 *  index 0, and n/2 for even n; at rank 1 the bins 0 and n/2) made exactly Hermitian in place,
 *  each bin pair (k, -k) set to H_k = (X_k + conj X_-k) / 2 and its conjugate, a self-mirrored
 *  bin to its real part. The transform of the half spectrum is defined by the Hermitian
 *  spectrum it stands for; with any other content there, the result depends on the algorithm
 *  (which stored value of a pair it reads), the check's input side would not match it, and
 *  neither would the repair. A C2R may overwrite its input (cuFFT's rule); on Hermitian data
 *  nothing changes. One thread per pair (the lower outer index of the two), so no two threads
 *  touch one bin. grid-stride over (signal, plane, outer index). */
template <class T>
__global__ void fft_c2r_hermitian_kernel(T* in, SigLayout L, ck::FftLibraryShape sh, int64_t batch) {
  const int last = sh.rank - 1;
  const int64_t nl = sh.n[last], planes = (nl % 2 == 0 && nl > 1) ? 2 : 1;
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sh.n[d];
  const int64_t total = batch * planes * outer;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = t % outer, bp = t / outer, b = bp / planes;
    int64_t idx[3] = {0, 0, 0}, mir[3] = {0, 0, 0};
    const int64_t mo = ck::fft_mirror_flat(o, last, sh.n, idx, mir);
    if (mo < o) continue;  // the pair's other bin does it
    idx[last] = mir[last] = (bp % planes) * (nl / 2);
    T* x = in + 2 * L.offset(b, idx);
    if (mo == o) {
      x[1] = T(0);
      continue;
    }
    T* y = in + 2 * L.offset(b, mir);
    const T hr = T(0.5 * (double(x[0]) + double(y[0]))), hi = T(0.5 * (double(x[1]) - double(y[1])));
    x[0] = hr, x[1] = hi;
    y[0] = hr, y[1] = -hi;
  }
}

/** What the re-check of the repaired signals reads, and the launch's finish counter. */
struct FftRecheckArgs {
  ck::FftTableWeights tw;
  ck::FftC2RWeights c2r;
  const double* acc;  ///< the input side kept per signal
  FftVerdictArgs va;
  RepairCounters* rc;
  unsigned* done;  ///< blocks finished (zero at rest)
};

/** The repair of every listed signal (fft_repair_signals, on this launch's grid), then their
 *  re-verification by the launch's last block to finish (the output side again, against the
 *  input side kept in acc; counted as corrected or uncorrectable), which also clears the
 *  failed-signal count for the next call. One launch; on the fault-free path every block reads
 *  the count, finds 0 and returns. */
template <class T, int R>
__global__ void fft_repair_recheck_kernel(const T* src, SigLayout Ls, T* out, SigLayout Lo, ck::FftLibraryShape sh,
                                          FftRepairSplit sp, double* scratch, int* flags, FftRecheckArgs rk) {
  const int nflag = flags[0];
  if (nflag == 0) return;
  fft_repair_signals(src, Ls, out, Lo, sh, sp, scratch, flags, nflag);
  __shared__ bool last;
  __threadfence();  // this block's repaired elements visible device-wide before it is counted
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(rk.done, 1u) == gridDim.x * gridDim.y - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' elements, counted before, are read after
  for (int f = 0; f < nflag; ++f) {
    const int64_t b = flags[1 + f];
    double re, im;
    out_sum<T, R, true>(out, Lo, sh, rk.tw, rk.c2r, b, threadIdx.x, blockDim.x, re, im);  // (repaired here)
    if (threadIdx.x == 0) {
      const double* a = rk.acc + kAcc * b;
      const ck::LineVerdict v =
          ck::fft_library_verdict({a[0], a[1]}, {re, im}, a[2], rk.va.coef, rk.va.abs, rk.va.Y, rk.va.t_max);
      atomicAdd(v == ck::LineVerdict::Ok ? &rk.rc->corrected : &rk.rc->uncorrectable, 1ull);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    flags[0] = 0;    // no failed signal at the next call's start
    *rk.done = 0u;   // at rest for the next launch (stream order)
  }
}

/** One fault on scalar `scalar` of element `e` of signal b (value before / after into vals). */
template <class T>
__global__ void fft_fault_kernel(T* p, SigLayout L, int64_t b, int64_t e, int scalar, abft_fault_model model, int bit,
                                 double value, double* vals) {
  int64_t idx[3] = {0, 0, 0};
  ck::fft_unravel(e, L.rank, L.dims, idx);
  T& x = p[(L.complex ? 2 : 1) * L.offset(b, idx) + scalar];
  vals[0] = double(x);
  x = ck::apply_fault<T>(x, model, bit, value);
  vals[1] = double(x);
}

}  // namespace abft::cuda
