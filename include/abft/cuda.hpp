/** \file cuda.hpp
 *  \brief C++ API of the CUDA engine (abft/abft_cuda.h), the CPU's C++ API on device memory:
 *  the Handle, Policy, Layout, Op and MatrixView of abft/abft.hpp; gemm::run (pointer and view
 *  forms) and gemm::run_strided_batched for float, double, __half and __nv_bfloat16 (alpha and
 *  beta in float for the 16-bit types); a move-only fft::Plan<In, Out> over
 *  abft_cuda_fft_plan_t, its kind and precision from the element types as in abft/fft.hpp;
 *  attention::forward / backward over the 4-D views of abft/attention.hpp, their storage type
 *  from the element type. Pointers are device pointers; `stream` is a cudaStream_t (nullptr:
 *  the default stream). As on the CPU, products and attention return their status (negative:
 *  nothing written) and the plans throw abft::Error; the device counters of a handle's calls
 *  arrive with sync(). For programs linked with the CUDA engine (libabft_cuda); it needs the
 *  CUDA toolkit's headers (cuda_fp16.h, cuda_bf16.h).
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "abft/abft.hpp"
#include "abft/abft_cuda.h"
#include "abft/attention.hpp"
#include "abft/fft.hpp"

namespace abft::cuda {

/** CUDA devices this process can use (0 without one). */
inline int device_count() { return abft_cuda_device_count(); }
/** The devices, or why there are none (abft_cuda_describe). */
inline std::string describe() {
  char buf[2048];
  abft_cuda_describe(buf, sizeof buf);
  return buf;
}
/** Waits for `stream` and returns the counts of h's GPU calls since the last sync (they are
 *  also added to h's statistics). Throws Error on failure. */
inline Report sync(Handle& h, void* stream = nullptr) {
  Report r{};
  check(abft_cuda_sync(h.get(), stream, &r));
  return r;
}
/** Frees the device state h holds (before the handle is destroyed, on the device it used). */
inline void release(Handle& h) { check(abft_cuda_release(h.get())); }

namespace detail {

/** alpha and beta: float for float and the 16-bit types, double for double. */
template <class T>
struct scalar {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value || std::is_same<T, __half>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "abft::cuda: the element type must be float, double, __half or __nv_bfloat16");
  using type = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
};

inline Status gemm_c(abft_handle_t h, void* s, abft_policy p, abft_layout l, abft_op ta, abft_op tb, int64_t m,
                     int64_t n, int64_t k, float al, const float* A, int64_t lda, int64_t sa, const float* B,
                     int64_t ldb, int64_t sb, float be, float* C, int64_t ldc, int64_t sc, int64_t count) {
  return abft_cuda_sgemm_strided_batched(h, s, p, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, count);
}
inline Status gemm_c(abft_handle_t h, void* s, abft_policy p, abft_layout l, abft_op ta, abft_op tb, int64_t m,
                     int64_t n, int64_t k, double al, const double* A, int64_t lda, int64_t sa, const double* B,
                     int64_t ldb, int64_t sb, double be, double* C, int64_t ldc, int64_t sc, int64_t count) {
  return abft_cuda_dgemm_strided_batched(h, s, p, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, count);
}
inline Status gemm_c(abft_handle_t h, void* s, abft_policy p, abft_layout l, abft_op ta, abft_op tb, int64_t m,
                     int64_t n, int64_t k, float al, const __half* A, int64_t lda, int64_t sa, const __half* B,
                     int64_t ldb, int64_t sb, float be, __half* C, int64_t ldc, int64_t sc, int64_t count) {
  return abft_cuda_hgemm_strided_batched(h, s, p, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, count);
}
inline Status gemm_c(abft_handle_t h, void* s, abft_policy p, abft_layout l, abft_op ta, abft_op tb, int64_t m,
                     int64_t n, int64_t k, float al, const __nv_bfloat16* A, int64_t lda, int64_t sa,
                     const __nv_bfloat16* B, int64_t ldb, int64_t sb, float be, __nv_bfloat16* C, int64_t ldc,
                     int64_t sc, int64_t count) {
  return abft_cuda_bf16gemm_strided_batched(h, s, p, l, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc,
                                            count);
}

}  // namespace detail

namespace gemm {

/** The type of alpha and beta for element type T. */
template <class T>
using Scalar = typename detail::scalar<T>::type;

/** A strided batch of `count` products C_i = alpha op(A_i) op(B_i) + beta C_i on device memory,
 *  item i at A + i strideA, B + i strideB, C + i strideC (abft_cuda_*gemm_strided_batched:
 *  one product and one launch per check for all items). Returns the status. */
template <class T>
Status run_strided_batched(Handle* h, void* stream, Layout layout, Op ta, Op tb, int64_t m, int64_t n, int64_t k,
                           Scalar<T> alpha, const T* A, int64_t lda, int64_t strideA, const T* B, int64_t ldb,
                           int64_t strideB, Scalar<T> beta, T* C, int64_t ldc, int64_t strideC, int64_t count,
                           Policy policy = Policy::Default) {
  return detail::gemm_c(h ? h->get() : nullptr, stream, static_cast<abft_policy>(policy),
                        static_cast<abft_layout>(layout), static_cast<abft_op>(ta), static_cast<abft_op>(tb), m, n, k,
                        alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, count);
}

/** C = alpha op(A) op(B) + beta C on device memory, BLAS argument order. Returns the status (the
 *  counts arrive with sync()). */
template <class T>
Status run(Handle* h, void* stream, Layout layout, Op ta, Op tb, int64_t m, int64_t n, int64_t k, Scalar<T> alpha,
           const T* A, int64_t lda, const T* B, int64_t ldb, Scalar<T> beta, T* C, int64_t ldc,
           Policy policy = Policy::Default) {
  return run_strided_batched<T>(h, stream, layout, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                                policy);
}

/** View form: the shapes come from the views (device memory), which must share a layout. */
template <class T>
Status run(Handle* h, void* stream, Op ta, MatrixView<const T> A, Op tb, MatrixView<const T> B, MatrixView<T> C,
           Scalar<T> alpha = Scalar<T>(1), Scalar<T> beta = Scalar<T>(0), Policy policy = Policy::Default) {
  int64_t m = 0, n = 0, k = 0;
  const Status s = abft::detail::view_shape(ta, A, tb, B, C, &m, &n, &k);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return run<T>(h, stream, C.layout, ta, tb, m, n, k, alpha, A.data, A.ld, B.data, B.ld, beta, C.data, C.ld, policy);
}

}  // namespace gemm

namespace fft {

using abft::fft::Dims;
using abft::fft::Direction;
using abft::fft::Side;

/** How a plan forms its checksums (abft_cuda_fft_sums). */
enum class Sums : int { Passes = ABFT_CUDA_FFT_SUMS_PASSES, Callbacks = ABFT_CUDA_FFT_SUMS_CALLBACKS };

/** A protected cuFFT plan on device memory (RAII over abft_cuda_fft_plan_t, move-only). `In` and
 *  `Out` are the element types of the input and output arrays: std::complex<float|double> for
 *  a complex side, float|double for a real one (abft/fft.hpp's rules). */
template <class In, class Out>
class Plan : public abft::detail::Owner<abft_cuda_fft_plan_t, abft_cuda_fft_destroy> {
 public:
  using input_type = In;
  using output_type = Out;
  using real_type = abft::fft::detail::real_t<In>;
  static constexpr abft_fft_kind kind = abft::fft::detail::kind_of<In, Out>();
  static constexpr abft_precision precision = abft::fft::detail::precision_of<real_type>();

  /** An empty plan (every call on it throws Error(ABFT_STATUS_NULL_POINTER)); or one made
   *  through the C API with this kind and precision, owned from here on (get, release, reset
   *  and the moves: abft::detail::Owner). */
  using Owner::Owner;

  /** Executes on device arrays, stream-ordered (in == out: in place, cuFFT's rules). The status
   *  is the arguments' and the launch's: the counts arrive with sync() on the plan's handle. */
  Status execute(void* stream, const In* in, Out* out) const {
    const Status s = abft_cuda_fft_execute(p_, stream, in, out);
    check(s);
    return s;
  }
  /** Policy of this plan's executions (Default: the handle's, then ABFT_POLICY, then correct). */
  void set_policy(Policy policy) { check(abft_cuda_fft_set_policy(p_, static_cast<abft_policy>(policy))); }
  /** How this plan forms its checksums. */
  Sums sums() const {
    abft_cuda_fft_sums s = ABFT_CUDA_FFT_SUMS_PASSES;
    check(abft_cuda_fft_get_sums(p_, &s));
    return static_cast<Sums>(s);
  }
  /** Why a plan asked for callbacks forms its sums in passes: the cuFFT call that refused them
   *  and its cufftResult ("" and 0 when it did not). */
  std::pair<std::string, int> callback_refusal() const {
    const char* where = nullptr;
    int result = 0;
    check(abft_cuda_fft_get_callback_refusal(p_, &where, &result));
    return {where ? where : "", result};
  }
};

template <class T>
using C2CPlan = Plan<std::complex<abft::fft::detail::real_t<T>>, std::complex<abft::fft::detail::real_t<T>>>;
template <class T>
using R2CPlan = Plan<abft::fft::detail::real_t<T>, std::complex<abft::fft::detail::real_t<T>>>;
template <class T>
using C2RPlan = Plan<std::complex<abft::fft::detail::real_t<T>>, abft::fft::detail::real_t<T>>;

namespace detail {
/** `howmany` transforms of shape n laid out as the Sides say (abft_cuda_fft_plan_many). */
template <class P>
P make_many(const Dims& n, int64_t howmany, const Side& in, const Side& out, int sign, Handle* h) {
  const int rank = static_cast<int>(n.size());
  if (rank < 1) throw Error(ABFT_STATUS_INVALID_SIZE);
  for (const Side* s : {&in, &out})
    if (!s->embed.empty() && s->embed.size() != n.size()) throw Error(ABFT_STATUS_INVALID_VALUE);
  const bool in_complex = P::kind != ABFT_FFT_R2C, out_complex = P::kind != ABFT_FFT_C2R;
  abft_cuda_fft_plan_t p = nullptr;
  check(abft_cuda_fft_plan_many(&p, h ? h->get() : nullptr, P::precision, P::kind, rank, n.data(), sign, howmany,
                                in.embed.empty() ? nullptr : in.embed.data(), in.stride,
                                abft::fft::detail::side_dist(P::kind, n, in, in_complex),
                                out.embed.empty() ? nullptr : out.embed.data(), out.stride,
                                abft::fft::detail::side_dist(P::kind, n, out, out_complex)));
  return P(p);
}
}  // namespace detail

/** `batch` contiguous complex transforms of shape n (rank 1..3). A null h: the process handle
 *  abft_cufft_handle(). T: float, double or std::complex of either. */
template <class T>
C2CPlan<T> c2c(const Dims& n, int64_t batch, Direction dir, Handle* h = nullptr) {
  return detail::make_many<C2CPlan<T>>(n, batch, Side{}, Side{}, static_cast<int>(dir), h);
}
/** `batch` contiguous real-to-complex forward transforms of real shape n. */
template <class T>
R2CPlan<T> r2c(const Dims& n, int64_t batch, Handle* h = nullptr) {
  return detail::make_many<R2CPlan<T>>(n, batch, Side{}, Side{}, ABFT_FFT_FORWARD, h);
}
/** `batch` contiguous complex-to-real backward transforms of real length n (rank 1). */
template <class T>
C2RPlan<T> c2r(const Dims& n, int64_t batch, Handle* h = nullptr) {
  return detail::make_many<C2RPlan<T>>(n, batch, Side{}, Side{}, ABFT_FFT_BACKWARD, h);
}
/** The general batched plan, its kind from the element types (cuFFT's advanced layout). `dir`
 *  applies to C2C only; R2C is forward and C2R backward. */
template <class In, class Out>
Plan<In, Out> many(const Dims& n, int64_t howmany, const Side& in, const Side& out,
                   Direction dir = Direction::Forward, Handle* h = nullptr) {
  constexpr abft_fft_kind k = Plan<In, Out>::kind;
  const int sign = k == ABFT_FFT_C2C ? static_cast<int>(dir) : k == ABFT_FFT_R2C ? ABFT_FFT_FORWARD : ABFT_FFT_BACKWARD;
  return detail::make_many<Plan<In, Out>>(n, howmany, in, out, sign, h);
}

}  // namespace fft

namespace attention {

using abft::attention::Options;
using abft::attention::Tensor4;

namespace detail {
template <class T>
constexpr abft_cuda_dtype dtype_of() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, __half>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "abft::cuda::attention: the element type must be float, __half or __nv_bfloat16");
  return std::is_same<T, float>::value ? ABFT_CUDA_FLOAT : std::is_same<T, __half>::value ? ABFT_CUDA_HALF
                                                                                         : ABFT_CUDA_BFLOAT16;
}
}  // namespace detail

/** O (and lse, float [batch, heads, q_len] contiguous, when given) from Q, K, V and an optional
 *  additive mask, all on the device in T (float, __half, __nv_bfloat16). Returns the status
 *  (negative: nothing written); the counts arrive with sync(). */
template <class T>
Status forward(Handle* h, void* stream, Tensor4<const T> Q, Tensor4<const T> K, Tensor4<const T> V, Tensor4<T> O,
               float* lse = nullptr, const Tensor4<const T>* mask = nullptr, const Options& opt = {}) {
  abft_attention_desc d;
  const Status s = abft::attention::detail::describe(Q, K, V, O, mask, opt, d);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return abft_cuda_attention_forward(h ? h->get() : nullptr, stream, static_cast<abft_policy>(opt.policy), &d,
                                     detail::dtype_of<T>(), Q.data, K.data, V.data, mask ? mask->data : nullptr,
                                     O.data, lse);
}

/** dQ, dK, dV (the shapes and strides of Q, K, V) from the forward's inputs, O, lse and dO (the
 *  layout of O), on the device in T. */
template <class T>
Status backward(Handle* h, void* stream, Tensor4<const T> Q, Tensor4<const T> K, Tensor4<const T> V,
                Tensor4<const T> O, Tensor4<const T> dO, const float* lse, Tensor4<T> dQ, Tensor4<T> dK, Tensor4<T> dV,
                const Tensor4<const T>* mask = nullptr, const Options& opt = {}) {
  abft_attention_desc d;
  Status s = abft::attention::detail::describe(Q, K, V, O, mask, opt, d);
  if (s == ABFT_STATUS_SUCCESS) s = abft::attention::detail::same_layouts(O, dO, Q, dQ, K, dK, V, dV);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return abft_cuda_attention_backward(h ? h->get() : nullptr, stream, static_cast<abft_policy>(opt.policy), &d,
                                      detail::dtype_of<T>(), Q.data, K.data, V.data, mask ? mask->data : nullptr,
                                      O.data, dO.data, lse, dQ.data, dK.data, dV.data);
}

}  // namespace attention

}  // namespace abft::cuda
