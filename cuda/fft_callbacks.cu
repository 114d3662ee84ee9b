/** \file fft_callbacks.cu
 *  \brief The GPU FFT's checksums inside cuFFT's kernels (docs/ABFT.md §12.4): a load callback
 *  that adds every input element's term v_j x_j and |x_j|^2 to its signal's sums as cuFFT reads
 *  it, and a store callback that adds every output element's term w_k y_k as cuFFT writes it.
 *  The transform then moves the data once, as unprotected cuFFT does; the separate passes over
 *  the input and the output (cuda/fft_check.cuh) are gone from the fault-free path.
 *
 *  Not compiled into abft_cuda: this file becomes two LTO-IR images (code=lto_XX,
 *  cuda/CMakeLists.txt), the loads and the stores, embedded in the library and handed to
 *  cufftXtSetJITCallback when a plan is made; cuFFT links them into its own kernels (nvJitLink)
 *  and inlines the callbacks there.
 *
 *  A callback sees one element and its offset; it decodes signal, multi-index and bucket from
 *  the offset (FftSideDecoder), forms the term with the same functions as the passes
 *  (fft_in_term_of, fft_out_term_of), and adds it to the (signal, bucket) sums: a whole warp
 *  on one bucket is summed first (a butterfly, 5 levels) and adds once per value; otherwise each
 *  lane adds its own. A bucket thus takes at most 2^shift additions in any order cuFFT's
 *  threads run in (fft_callback_sum_depth, the bound's depth).
 *
 *  Injection (FftCallbackArgs::fault_in / fault_out, injection-only calls): the load returns a
 *  corrupted element after the input side summed the clean one (a fault in what the transform
 *  reads); the store corrupts the element before the output side sums and stores it (a fault
 *  in the transform's last stage). The load also writes the repair's packed input copy when the
 *  transform may overwrite its input (in place, C2R).
 *
 *  Status: compiled to LTO-IR for sm_90 in every CUDA build, linked by nvJitLink for sm_90 on
 *  the host in CI (tests/cuda/fft_callback_link_test.cpp); NOT yet run on a GPU.
 */
#include <cufftXt.h>

#include <type_traits>

#include "abft/checksum/fault_models.hpp"
#include "fft_callback_args.hpp"

#if !defined(ABFT_FFT_CB_LOADS) && !defined(ABFT_FFT_CB_STORES)
#error "build with ABFT_FFT_CB_LOADS or ABFT_FFT_CB_STORES (cuda/CMakeLists.txt)"
#endif

namespace {

namespace ck = abft::checksum;
using abft::cuda::FftCallbackArgs;
using abft::cuda::FftCallbackFault;

/** The lane's index in its warp (%laneid: cuFFT's blocks need not be one-dimensional, so
 *  threadIdx.x & 31 is not it). */
__device__ __forceinline__ unsigned lane_id() {
#if defined(ABFT_CUDA_EMULATED)  // tests/emu: the emulator's blocks are one-dimensional
  return threadIdx.x % 32;
#else
  unsigned l;
  asm("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
#endif
}

/** Add this lane's N values to the sums of bucket `key`. The active lanes with the same key
 *  (__match_any_sync) are summed first when every such group is a contiguous run of lanes (cuFFT's
 *  loads and stores of consecutive elements by consecutive lanes, short signals several to a
 *  warp): a segmented tree of 5 levels, each lane adding its neighbour o lanes on while that
 *  stays in its run, and the run's first lane adds once a value. Otherwise one atomic a lane
 *  and value. (Cooperative groups' general grouping made the callbacks larger for the link to
 *  inline.) */
template <int N>
__device__ __forceinline__ void add_to_bucket(double* base, unsigned long long key, const double (&v)[N]) {
  const unsigned act = __activemask();
  const unsigned peers = __match_any_sync(act, key);
  const int lane = int(lane_id()), head = __ffs(peers) - 1, last = 31 - __clz(peers);
  const unsigned run = peers >> head;  // contiguous: a block of ones from bit 0
  double* at = base + key * N;
  if (__all_sync(act, (run & (run + 1)) == 0)) {
    double s[N];
#pragma unroll
    for (int i = 0; i < N; ++i) s[i] = v[i];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1)
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const double t = __shfl_down_sync(act, s[i], o);  // lanes past the run: not added
        if (lane + o <= last) s[i] += t;
      }
    if (lane == head)
#pragma unroll
      for (int i = 0; i < N; ++i) atomicAdd(at + i, s[i]);
    return;
  }
#pragma unroll
  for (int i = 0; i < N; ++i) atomicAdd(at + i, v[i]);
}

/** The input side of element x at offset off (its signal b and flat index e returned; b = -1
 *  for an offset outside the batch, which adds nothing: FftSideDecoder::holds). */
template <int R>
__device__ __forceinline__ void input_terms(const FftCallbackArgs& a, int sign, unsigned long long off, ck::Cd x,
                                            int64_t& b, int64_t& e) {
  int64_t idx[3] = {0, 0, 0};
  a.in.decode<R>(off, b, idx, e);
  if (!a.in.holds<R>(b, idx)) {
    b = -1;
    return;
  }
  ck::FftLibraryShape sh = a.sh;
  sh.sign = sign;
  const ck::Cd t = ck::fft_in_term_of<R>(x, sh, a.tw, a.c2r, idx);
  const double v[3] = {t.re, t.im, x.re * x.re + x.im * x.im};
  add_to_bucket<3>(a.bucket_in, static_cast<unsigned long long>(b * a.in.buckets + (e >> a.in.shift)), v);
}

template <int R>
__device__ __forceinline__ void output_terms(const FftCallbackArgs& a, int sign, unsigned long long off, ck::Cd y) {
  int64_t idx[3] = {0, 0, 0}, b, e;
  a.out.decode<R>(off, b, idx, e);
  if (!a.out.holds<R>(b, idx)) return;  // outside the batch: nothing to add
  ck::FftLibraryShape sh = a.sh;
  sh.sign = sign;
  const ck::Cd t = ck::fft_out_term_of<R>(y, sh, a.tw, a.c2r, idx);
  const double v[2] = {t.re, t.im};
  add_to_bucket<2>(a.bucket_out, static_cast<unsigned long long>(b * a.out.buckets + (e >> a.out.shift)), v);
}

/** Ranks 2 and 3, out of line: the rank-1 code (the common case) stays small enough for the
 *  link to inline every callback into cuFFT's kernels (with the multi-dimensional weights
 *  inline too, the double store was kept as a call with 116 bytes of spills). */
#if defined(ABFT_FFT_CB_LOADS)
__device__ __noinline__ void input_terms_md(const FftCallbackArgs& a, int sign, unsigned long long off, ck::Cd x,
                                            int64_t& b, int64_t& e) {
  input_terms<0>(a, sign, off, x, b, e);
}
#else
__device__ __noinline__ void output_terms_md(const FftCallbackArgs& a, int sign, unsigned long long off, ck::Cd y) {
  output_terms<0>(a, sign, off, y);
}
#endif

/** An element as cuFFT hands it over (cufftComplex = float2, cufftDoubleComplex = double2,
 *  or a real): its scalar type, count and components, by value (no address of a local is
 *  taken: that would put every element through the stack). */
template <class V>
struct Elem {  // complex
  using T = decltype(V{}.x);
  static constexpr int S = 2;
  __device__ static ck::Cd cd(const V& v) { return {double(v.x), double(v.y)}; }
  __device__ static T get(const V& v, int c) { return c ? v.y : v.x; }
  __device__ static void set(V& v, int c, T t) { (c ? v.y : v.x) = t; }
};
template <>
struct Elem<float> {
  using T = float;
  static constexpr int S = 1;
  __device__ static ck::Cd cd(float v) { return {double(v), 0.0}; }
  __device__ static T get(float v, int) { return v; }
  __device__ static void set(float& v, int, T t) { v = t; }
};
template <>
struct Elem<double> {
  using T = double;
  static constexpr int S = 1;
  __device__ static ck::Cd cd(double v) { return {v, 0.0}; }
  __device__ static T get(double v, int) { return v; }
  __device__ static void set(double& v, int, T t) { v = t; }
};

/** The planned faults f[0..n) at element v (offset off): scalar c corrupted where the offset
 *  is a fault's, before / after recorded in vals (2 a fault). Out of line: injection calls
 *  only, and the callbacks stay small enough for the link to inline them into cuFFT's kernels. */
template <class V>
__device__ __noinline__ V apply_faults(V v, unsigned long long off, const FftCallbackFault* f, int n, double* vals) {
  using E = Elem<V>;
  for (int i = 0; i < n; ++i) {
    if (static_cast<long long>(off) != f[i].off) continue;
    const int c = f[i].scalar < E::S ? f[i].scalar : 0;
    vals[2 * i] = double(E::get(v, c));
    E::set(v, c, ck::apply_fault<typename E::T>(E::get(v, c), abft_fault_model(f[i].model), f[i].bit, f[i].value));
    vals[2 * i + 1] = double(E::get(v, c));
  }
  return v;
}

#if defined(ABFT_FFT_CB_LOADS)
/** A load: the element's terms, the repair copy, then an input fault on what cuFFT gets.
 *  Nothing outside a protected call (the gate, which also holds the call's sign). */
template <class V>
__device__ __forceinline__ V on_load(const FftCallbackArgs& a, unsigned long long off, V x) {
  const int sign = *a.gate;
  if (!sign) return x;
  const ck::Cd xv = Elem<V>::cd(x);
  int64_t b, e;
  if (a.sh.rank == 1)
    input_terms<1>(a, sign, off, xv, b, e);
  else
    input_terms_md(a, sign, off, xv, b, e);
  if (a.backup && b >= 0) static_cast<V*>(a.backup)[b * a.in.count + e] = x;  // packed, signal after signal
  // C2R of rank 1: the imaginary parts of the self-conjugate bins 0 and n/2 are no part of the
  // Hermitian spectrum the input stands for; cuFFT gets 0 there, whatever the array holds.
  if constexpr (Elem<V>::S == 2)
    if (a.sh.kind == 2 && a.sh.rank == 1 && b >= 0 && (e == 0 || 2 * e == a.sh.n[0])) x.y = 0;
  if (a.n_in) x = apply_faults(x, off, a.fault_in, a.n_in, a.fault_vals);
  return x;
}

#else
/** A store: an output fault first (the transform's last stage), then the element's terms; the
 *  element to store returned. */
template <class V>
__device__ __forceinline__ V on_store(const FftCallbackArgs& a, unsigned long long off, V y) {
  const int sign = *a.gate;
  if (!sign) return y;
  if (a.n_out) y = apply_faults(y, off, a.fault_out, a.n_out, a.fault_vals + 2 * abft::cuda::kFftCallbackFaults);
  if (a.sh.rank == 1)
    output_terms<1>(a, sign, off, Elem<V>::cd(y));
  else
    output_terms_md(a, sign, off, Elem<V>::cd(y));
  return y;
}

#endif

__device__ __forceinline__ const FftCallbackArgs& args(void* info) { return *static_cast<const FftCallbackArgs*>(info); }

}  // namespace

// The callbacks, with cuFFT's LTO signatures (cufftXt.h: cufftJITCallbackLoadC ... StoreD): the
// loads in the image built with ABFT_FFT_CB_LOADS, the stores in the one with ABFT_FFT_CB_STORES
// (fft_callback_args.hpp: one image a callback cuFFT links). C++ linkage, not extern "C": at
// planning cuFFT compiles (NVRTC, as C++) a wrapper that declares the named symbol with the
// callback's signature and calls it, so it references the C++ name of that declaration — an
// extern "C" definition leaves it unresolved and nvJitLink fails the plan
// (tests/cuda/fft_callback_link_test.cpp links every callback into that wrapper, no GPU needed).
#if defined(ABFT_FFT_CB_LOADS)
__device__ cufftComplex abft_fft_cb_load_c(void* in, unsigned long long off, void* info, void*) {
  return on_load(args(info), off, static_cast<const cufftComplex*>(in)[off]);
}
__device__ cufftDoubleComplex abft_fft_cb_load_z(void* in, unsigned long long off, void* info, void*) {
  return on_load(args(info), off, static_cast<const cufftDoubleComplex*>(in)[off]);
}
__device__ cufftReal abft_fft_cb_load_r(void* in, unsigned long long off, void* info, void*) {
  return on_load(args(info), off, static_cast<const cufftReal*>(in)[off]);
}
__device__ cufftDoubleReal abft_fft_cb_load_d(void* in, unsigned long long off, void* info, void*) {
  return on_load(args(info), off, static_cast<const cufftDoubleReal*>(in)[off]);
}
// The signatures are cuFFT's own (cufftXtSetJITCallback links by name: a mismatch would not
// be seen there).
static_assert(std::is_same<decltype(&abft_fft_cb_load_c), cufftJITCallbackLoadC>::value, "load C");
static_assert(std::is_same<decltype(&abft_fft_cb_load_z), cufftJITCallbackLoadZ>::value, "load Z");
static_assert(std::is_same<decltype(&abft_fft_cb_load_r), cufftJITCallbackLoadR>::value, "load R");
static_assert(std::is_same<decltype(&abft_fft_cb_load_d), cufftJITCallbackLoadD>::value, "load D");
#endif

#if defined(ABFT_FFT_CB_STORES)
__device__ void abft_fft_cb_store_c(void* out, unsigned long long off, cufftComplex y, void* info, void*) {
  static_cast<cufftComplex*>(out)[off] = on_store(args(info), off, y);
}
__device__ void abft_fft_cb_store_z(void* out, unsigned long long off, cufftDoubleComplex y, void* info, void*) {
  static_cast<cufftDoubleComplex*>(out)[off] = on_store(args(info), off, y);
}
__device__ void abft_fft_cb_store_r(void* out, unsigned long long off, cufftReal y, void* info, void*) {
  static_cast<cufftReal*>(out)[off] = on_store(args(info), off, y);
}
__device__ void abft_fft_cb_store_d(void* out, unsigned long long off, cufftDoubleReal y, void* info, void*) {
  static_cast<cufftDoubleReal*>(out)[off] = on_store(args(info), off, y);
}

static_assert(std::is_same<decltype(&abft_fft_cb_store_c), cufftJITCallbackStoreC>::value, "store C");
static_assert(std::is_same<decltype(&abft_fft_cb_store_z), cufftJITCallbackStoreZ>::value, "store Z");
static_assert(std::is_same<decltype(&abft_fft_cb_store_r), cufftJITCallbackStoreR>::value, "store R");
static_assert(std::is_same<decltype(&abft_fft_cb_store_d), cufftJITCallbackStoreD>::value, "store D");
#endif
