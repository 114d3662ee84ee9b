/** \file fft_callbacks.cu
 *  \brief The GPU FFT's checksums inside cuFFT's kernels (docs/ABFT.md §12.4): a load callback
 *  that adds every input element's term v_j x_j and |x_j|^2 to its signal's sums as cuFFT reads
 *  it, and a store callback that adds every output element's term w_k y_k as cuFFT writes it.
 *  The transform then moves the data once, as unprotected cuFFT does; the separate passes over
 *  the input and the output (cuda/fft_check.cuh) are gone from the fault-free path.
 *
 *  Not compiled into abft_cuda: this file becomes LTO-IR (nvcc -dlto, cuda/CMakeLists.txt), which
 *  is embedded in the library and handed to cufftXtSetJITCallback when a plan is made; cuFFT
 *  links it into its own kernels (nvJitLink) and inlines the callbacks there.
 *
 *  A callback sees one element and its offset; it decodes signal, multi-index and bucket from
 *  the offset (FftSideDecoder), forms the term with the same functions as the passes
 *  (fft_in_term_of, fft_out_term_of), and adds it to the (signal, bucket) sums: the lanes of a
 *  warp with the same bucket are combined first (cooperative groups: a labeled partition of the
 *  active lanes and a reduction over it, at most 5 levels), then one atomic addition per group
 *  and value. A bucket thus takes at most 2^shift additions in any order cuFFT's threads run in
 *  (fft_callback_sum_depth, the bound's depth).
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
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cufftXt.h>

#include <type_traits>

#include "abft/checksum/fault_models.hpp"
#include "fft_callback_args.hpp"

namespace {

namespace cg = cooperative_groups;
namespace ck = abft::checksum;
using abft::cuda::FftCallbackArgs;
using abft::cuda::FftCallbackFault;

/** Add this lane's N values to the sums of bucket `key`: the active lanes with the same key
 *  are summed first, one of them adds the group's sums. */
template <int N>
__device__ __forceinline__ void add_to_bucket(double* base, unsigned long long key, const double (&v)[N]) {
  const cg::coalesced_group g = cg::labeled_partition(cg::coalesced_threads(), key);
  double s[N];
#pragma unroll
  for (int i = 0; i < N; ++i) s[i] = cg::reduce(g, v[i], cg::plus<double>());
  if (g.thread_rank() == 0)
#pragma unroll
    for (int i = 0; i < N; ++i) atomicAdd(base + key * N + i, s[i]);
}

/** The input side of element x at offset off (its signal b and flat index e returned). */
template <int R>
__device__ __forceinline__ void input_terms(const FftCallbackArgs& a, unsigned long long off, ck::Cd x, int64_t& b,
                                            int64_t& e) {
  int64_t idx[3] = {0, 0, 0};
  a.in.decode<R>(off, b, idx, e);
  const ck::Cd t = ck::fft_in_term_of<R>(x, a.sh, a.tw, a.c2r_in, e, idx);
  const double v[3] = {t.re, t.im, x.re * x.re + x.im * x.im};
  add_to_bucket<3>(a.bucket_in, static_cast<unsigned long long>(b * a.in.buckets + (e >> a.in.shift)), v);
}

template <int R>
__device__ __forceinline__ void output_terms(const FftCallbackArgs& a, unsigned long long off, ck::Cd y) {
  int64_t idx[3] = {0, 0, 0}, b, e;
  a.out.decode<R>(off, b, idx, e);
  const ck::Cd t = ck::fft_out_term_of<R>(y, a.sh, a.tw, a.c2r_out, e, idx);
  const double v[2] = {t.re, t.im};
  add_to_bucket<2>(a.bucket_out, static_cast<unsigned long long>(b * a.out.buckets + (e >> a.out.shift)), v);
}

/** Scalar c of element p[0..S) faulted when off is the planned offset; before / after recorded. */
template <class T, int S>
__device__ __forceinline__ void maybe_fault(T* p, unsigned long long off, const FftCallbackFault& f, double* vals) {
  if (static_cast<long long>(off) != f.off) return;
  const int c = f.scalar < S ? f.scalar : 0;
  vals[0] = double(p[c]);
  p[c] = ck::apply_fault<T>(p[c], abft_fault_model(f.model), f.bit, f.value);
  vals[1] = double(p[c]);
}

/** A load: the element's terms, the repair copy, then an input fault on what cuFFT gets. S: 2
 *  scalars (complex) or 1 (real). */
template <class T, int S>
__device__ __forceinline__ void on_load(const FftCallbackArgs& a, unsigned long long off, T* x) {
  const ck::Cd xv{double(x[0]), S == 2 ? double(x[S - 1]) : 0.0};
  int64_t b, e;
  if (a.sh.rank == 1)
    input_terms<1>(a, off, xv, b, e);
  else
    input_terms<0>(a, off, xv, b, e);
  if (a.backup) {
    T* dst = static_cast<T*>(a.backup) + (b * a.in.count + e) * S;
#pragma unroll
    for (int c = 0; c < S; ++c) dst[c] = x[c];
  }
  if (a.fault_in.off >= 0) maybe_fault<T, S>(x, off, a.fault_in, a.fault_vals);
}

/** A store: an output fault first (the transform's last stage), then the element's terms. */
template <class T, int S>
__device__ __forceinline__ void on_store(const FftCallbackArgs& a, unsigned long long off, T* y) {
  if (a.fault_out.off >= 0) maybe_fault<T, S>(y, off, a.fault_out, a.fault_vals + 2);
  const ck::Cd yv{double(y[0]), S == 2 ? double(y[S - 1]) : 0.0};
  if (a.sh.rank == 1)
    output_terms<1>(a, off, yv);
  else
    output_terms<0>(a, off, yv);
}

__device__ __forceinline__ const FftCallbackArgs& args(void* info) { return *static_cast<const FftCallbackArgs*>(info); }

}  // namespace

// The callbacks, with cuFFT's LTO signatures (cufftXt.h: cufftJITCallbackLoadC ... StoreD).
extern "C" __device__ cufftComplex abft_fft_cb_load_c(void* in, unsigned long long off, void* info, void*) {
  cufftComplex x = static_cast<const cufftComplex*>(in)[off];
  on_load<float, 2>(args(info), off, &x.x);
  return x;
}
extern "C" __device__ cufftDoubleComplex abft_fft_cb_load_z(void* in, unsigned long long off, void* info, void*) {
  cufftDoubleComplex x = static_cast<const cufftDoubleComplex*>(in)[off];
  on_load<double, 2>(args(info), off, &x.x);
  return x;
}
extern "C" __device__ cufftReal abft_fft_cb_load_r(void* in, unsigned long long off, void* info, void*) {
  cufftReal x = static_cast<const cufftReal*>(in)[off];
  on_load<float, 1>(args(info), off, &x);
  return x;
}
extern "C" __device__ cufftDoubleReal abft_fft_cb_load_d(void* in, unsigned long long off, void* info, void*) {
  cufftDoubleReal x = static_cast<const cufftDoubleReal*>(in)[off];
  on_load<double, 1>(args(info), off, &x);
  return x;
}
extern "C" __device__ void abft_fft_cb_store_c(void* out, unsigned long long off, cufftComplex y, void* info, void*) {
  on_store<float, 2>(args(info), off, &y.x);
  static_cast<cufftComplex*>(out)[off] = y;
}
extern "C" __device__ void abft_fft_cb_store_z(void* out, unsigned long long off, cufftDoubleComplex y, void* info,
                                               void*) {
  on_store<double, 2>(args(info), off, &y.x);
  static_cast<cufftDoubleComplex*>(out)[off] = y;
}
extern "C" __device__ void abft_fft_cb_store_r(void* out, unsigned long long off, cufftReal y, void* info, void*) {
  on_store<float, 1>(args(info), off, &y);
  static_cast<cufftReal*>(out)[off] = y;
}
extern "C" __device__ void abft_fft_cb_store_d(void* out, unsigned long long off, cufftDoubleReal y, void* info,
                                               void*) {
  on_store<double, 1>(args(info), off, &y);
  static_cast<cufftDoubleReal*>(out)[off] = y;
}

// The signatures are cuFFT's own (cufftXtSetJITCallback links by name: a mismatch would not
// be seen there).
static_assert(std::is_same<decltype(&abft_fft_cb_load_c), cufftJITCallbackLoadC>::value, "load C");
static_assert(std::is_same<decltype(&abft_fft_cb_load_z), cufftJITCallbackLoadZ>::value, "load Z");
static_assert(std::is_same<decltype(&abft_fft_cb_load_r), cufftJITCallbackLoadR>::value, "load R");
static_assert(std::is_same<decltype(&abft_fft_cb_load_d), cufftJITCallbackLoadD>::value, "load D");
static_assert(std::is_same<decltype(&abft_fft_cb_store_c), cufftJITCallbackStoreC>::value, "store C");
static_assert(std::is_same<decltype(&abft_fft_cb_store_z), cufftJITCallbackStoreZ>::value, "store Z");
static_assert(std::is_same<decltype(&abft_fft_cb_store_r), cufftJITCallbackStoreR>::value, "store R");
static_assert(std::is_same<decltype(&abft_fft_cb_store_d), cufftJITCallbackStoreD>::value, "store D");
