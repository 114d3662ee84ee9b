/** \file fft.hpp
 *  \brief C++ API of the protected FFT: typed RAII plans over abft/fft.h (c2c / r2c / c2r,
 *         rank 1..3, FFTW "many" batches), execution on pointers or sized arrays.
 *
 *  The element types of a plan say its kind and precision at compile time:
 *      Plan<std::complex<T>, std::complex<T>>   complex -> complex (C2C)
 *      Plan<T, std::complex<T>>                 real -> half complex (R2C, forward)
 *      Plan<std::complex<T>, T>                 half complex -> real (C2R, backward)
 *  with T float or double. The factories (c2c, r2c, c2r and their _many forms)
 *  take T as float/double or as std::complex<float/double>; they throw abft::Error
 *  when the C API rejects the arguments. Plan::execute throws on a negative status
 *  (argument error, nothing written) and returns the status otherwise: SUCCESS
 *  (possibly after repairs, see the Report), FAULT_DETECTED (policy detect) or
 *  FAULT_UNCORRECTABLE.
 *
 *  A plan made with a Handle refers to it (policy, threads, injector, statistics)
 *  and must not outlive it. Transforms are unnormalized, as FFTW's.
 */
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "abft/abft.hpp"
#include "abft/fft.h"

namespace abft::fft {

enum class Direction : int { Forward = ABFT_FFT_FORWARD, Backward = ABFT_FFT_BACKWARD };

/** Plan flags (bit set, see abft/fft.h). */
enum Flags : unsigned {
  NoFlags = 0,
  PreserveInput = ABFT_FFT_PRESERVE_INPUT,
  DestroyInput = ABFT_FFT_DESTROY_INPUT,
  Unaligned = ABFT_FFT_UNALIGNED
};

/** Transform lengths, slowest-varying first (row-major), e.g. {64} or {16, 12}. */
using Dims = std::vector<int64_t>;

/** Layout of one side of a batched ("many") plan, FFTW's plan_many semantics:
 *  element j of transform b lies at b*dist + stride*(index of j in the embed shape). */
struct Side {
  int64_t stride = 1;
  /** Unset: the transforms lie one after another, dist = stride * (elements of
   *  the embed shape, or of the side's logical shape when embed is empty). */
  std::optional<int64_t> dist;
  /** Empty: the side's logical shape (for R2C/C2R the complex side has n/2+1
   *  along the last dimension). Otherwise one entry per transform dimension. */
  Dims embed;
};

namespace detail {

template <class T> struct real_of { using type = T; };
template <class T> struct real_of<std::complex<T>> { using type = T; };
template <class T> using real_t = typename real_of<T>::type;

template <class T> struct is_complex : std::false_type {};
template <class T> struct is_complex<std::complex<T>> : std::true_type {};

template <class R>
constexpr abft_precision precision_of() {
  static_assert(std::is_same_v<R, float> || std::is_same_v<R, double>,
                "abft::fft: the element type must be float, double or std::complex of either");
  return std::is_same_v<R, float> ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE;
}

/** The kind a pair of element types stands for (complex -> complex, real -> complex,
 *  complex -> real); rejects other pairs at compile time. */
template <class In, class Out>
constexpr abft_fft_kind kind_of() {
  static_assert(std::is_same_v<real_t<In>, real_t<Out>>,
                "abft::fft: input and output must have the same precision");
  static_assert(is_complex<In>::value || is_complex<Out>::value,
                "abft::fft: a real -> real transform is not supported");
  static_assert(sizeof(std::complex<real_t<In>>) == 2 * sizeof(real_t<In>),
                "std::complex must be an interleaved (re, im) pair");
  (void)precision_of<real_t<In>>();
  return !is_complex<In>::value ? ABFT_FFT_R2C
         : !is_complex<Out>::value ? ABFT_FFT_C2R
                                   : ABFT_FFT_C2C;
}

/** Scalars (float/double) per element of T. */
template <class T>
constexpr int64_t scalars_per() { return is_complex<T>::value ? 2 : 1; }

}  // namespace detail

/** A protected FFT plan (RAII over abft_fft_plan_t, move-only). `In` and `Out`
 *  are the element types of the input and output arrays (see the file comment). */
template <class In, class Out>
class Plan : public abft::detail::Owner<abft_fft_plan_t, abft_fft_destroy> {
 public:
  using input_type = In;
  using output_type = Out;
  using real_type = detail::real_t<In>;
  static constexpr abft_fft_kind kind = detail::kind_of<In, Out>();
  static constexpr abft_precision precision = detail::precision_of<real_type>();

  /** An empty plan (every call on it throws Error(ABFT_STATUS_NULL_POINTER)); or one made
   *  through the C API with this kind and precision, owned from here on (get, release, reset
   *  and the moves: abft::detail::Owner). */
  using Owner::Owner;

  /** Executes on the given arrays (in == out: in place, with FFTW's layout rules).
   *  The sizes are the caller's to get right: see in_size()/out_size(). */
  Status execute(const In* in, Out* out, Report* report = nullptr) const {
    const Status s = abft_fft_execute(p_, in, out, report);
    check(s);
    return s;
  }
  /** Same, with the arrays' lengths in elements of In / Out checked against the
   *  span the plan addresses (Error(ABFT_STATUS_INVALID_SIZE) when too short,
   *  nothing written). Only the span above the pointer is checked: plans with
   *  negative strides also address memory below it. */
  Status execute(const In* in, size_t in_count, Out* out, size_t out_count,
                 Report* report = nullptr) const {
    if (p_ && (int64_t(in_count) < in_size() || int64_t(out_count) < out_size()))
      throw Error(ABFT_STATUS_INVALID_SIZE);
    return execute(in, out, report);
  }
  /** Vector form of the checked execution; passing one vector twice (C2C) is in place. */
  Status execute(const std::vector<In>& in, std::vector<Out>& out, Report* report = nullptr) const {
    return execute(in.data(), in.size(), out.data(), out.size(), report);
  }

  /** Policy of this plan's executions (Default: the handle's, then ABFT_POLICY, then correct). */
  void set_policy(Policy policy) { check(abft_fft_set_policy(p_, static_cast<abft_policy>(policy))); }
  /** Threads of this plan's executions (0: the handle's, else OpenMP's default). */
  void set_threads(int nthreads) { check(abft_fft_set_threads(p_, nthreads)); }

  /** Kind, sizes, decomposition of each dimension and ISA, e.g.
   *  "c2c double n=[1009] batch=1 line0(1009): bluestein ... isa=avx2". */
  std::string describe() const {
    if (!p_) throw Error(ABFT_STATUS_NULL_POINTER);
    return abft_fft_describe(p_);
  }
  /** Real floating-point operations of one execution (FFTW's count: 5 n log2 n per complex line). */
  double flops() const {
    double f = 0;
    check(abft_fft_flops(p_, &f, nullptr));
    return f;
  }
  /** Checked units one execution verifies (lines, or four-step sub-transforms). */
  int64_t units() const {
    int64_t u = 0;
    check(abft_fft_flops(p_, nullptr, &u));
    return u;
  }
  /** Elements of In the input array must span from the pointer passed. */
  int64_t in_size() const { return elements<In>(true); }
  /** Elements of Out the output array must span from the pointer passed. */
  int64_t out_size() const { return elements<Out>(false); }

 private:
  template <class E>
  int64_t elements(bool input) const {
    int64_t in = 0, out = 0;
    check(abft_fft_array_sizes(p_, &in, &out));
    const int64_t s = input ? in : out;
    return (s + detail::scalars_per<E>() - 1) / detail::scalars_per<E>();
  }
};

template <class T> using C2CPlan = Plan<std::complex<detail::real_t<T>>, std::complex<detail::real_t<T>>>;
template <class T> using R2CPlan = Plan<detail::real_t<T>, std::complex<detail::real_t<T>>>;
template <class T> using C2RPlan = Plan<std::complex<detail::real_t<T>>, detail::real_t<T>>;

namespace detail {

inline int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

/** Contiguous transform of shape n (abft_fft_plan_dft). */
template <class P>
P make_dft(const Dims& n, int sign, Handle* h, unsigned flags) {
  abft_fft_plan_t p = nullptr;
  check(abft_fft_plan_dft(&p, h ? h->get() : nullptr, P::precision, P::kind,
                          static_cast<int>(n.size()), n.data(), sign, flags));
  return P(p);
}

/** A Side's distance between signals: its own, or the packed one — stride times the side's
 *  logical shape (the embed, else n; the complex side of a real transform has n/2+1 along the
 *  last dimension). Shared with the CUDA engine's plans (abft/cuda.hpp). */
inline int64_t side_dist(abft_fft_kind kind, const Dims& n, const Side& s, bool complex_side) {
  if (s.dist) return *s.dist;
  Dims shape = s.embed.empty() ? n : s.embed;
  if (s.embed.empty() && kind != ABFT_FFT_C2C && complex_side && !shape.empty() && shape.back() > 0)
    shape.back() = shape.back() / 2 + 1;
  return s.stride * product(shape);
}

/** Batched transform (abft_fft_plan_many) with the Sides' strides, distances and embeds. */
template <class P>
P make_many(const Dims& n, int64_t howmany, const Side& in, const Side& out, int sign,
            Handle* h, unsigned flags) {
  const int rank = static_cast<int>(n.size());
  if (rank < 1) throw Error(ABFT_STATUS_INVALID_SIZE);
  for (const Side* s : {&in, &out})
    if (!s->embed.empty() && s->embed.size() != n.size()) throw Error(ABFT_STATUS_INVALID_VALUE);
  const bool in_complex = P::kind != ABFT_FFT_R2C, out_complex = P::kind != ABFT_FFT_C2R;
  abft_fft_plan_t p = nullptr;
  check(abft_fft_plan_many(&p, h ? h->get() : nullptr, P::precision, P::kind, rank, n.data(),
                           howmany, in.embed.empty() ? nullptr : in.embed.data(), in.stride,
                           side_dist(P::kind, n, in, in_complex),
                           out.embed.empty() ? nullptr : out.embed.data(), out.stride,
                           side_dist(P::kind, n, out, out_complex), sign, flags));
  return P(p);
}

}  // namespace detail

/** Complex transform of shape n (rank 1..3, row-major, contiguous), one signal.
 *  T: float, double or std::complex of either. */
template <class T>
C2CPlan<T> c2c(const Dims& n, Direction dir, Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_dft<C2CPlan<T>>(n, static_cast<int>(dir), h, flags);
}
template <class T>
C2CPlan<T> c2c(int64_t n, Direction dir, Handle* h = nullptr, unsigned flags = NoFlags) {
  return c2c<T>(Dims{n}, dir, h, flags);
}

/** Real-to-complex forward transform of real shape n (output n/2+1 along the last dimension). */
template <class T>
R2CPlan<T> r2c(const Dims& n, Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_dft<R2CPlan<T>>(n, ABFT_FFT_FORWARD, h, flags);
}
template <class T>
R2CPlan<T> r2c(int64_t n, Handle* h = nullptr, unsigned flags = NoFlags) {
  return r2c<T>(Dims{n}, h, flags);
}

/** Complex-to-real backward transform of real shape n (input n/2+1 along the last
 *  dimension). Out of place, the input is never written (PreserveInput is always honoured). */
template <class T>
C2RPlan<T> c2r(const Dims& n, Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_dft<C2RPlan<T>>(n, ABFT_FFT_BACKWARD, h, flags);
}
template <class T>
C2RPlan<T> c2r(int64_t n, Handle* h = nullptr, unsigned flags = NoFlags) {
  return c2r<T>(Dims{n}, h, flags);
}

/** The general batched plan, its kind from the element types: `howmany` transforms
 *  of shape n (the real shape for R2C/C2R) laid out as the Sides say (FFTW
 *  plan_many). `dir` applies to C2C only; R2C is forward and C2R backward. */
template <class In, class Out>
Plan<In, Out> many(const Dims& n, int64_t howmany, const Side& in, const Side& out,
                   Direction dir = Direction::Forward, Handle* h = nullptr, unsigned flags = NoFlags) {
  const int sign = Plan<In, Out>::kind == ABFT_FFT_C2C ? static_cast<int>(dir) : 0;
  return detail::make_many<Plan<In, Out>>(n, howmany, in, out, sign, h, flags);
}

/** `howmany` complex transforms of shape n laid out as the Sides say (FFTW plan_many). */
template <class T>
C2CPlan<T> c2c_many(const Dims& n, int64_t howmany, const Side& in, const Side& out,
                    Direction dir, Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_many<C2CPlan<T>>(n, howmany, in, out, static_cast<int>(dir), h, flags);
}
/** `howmany` real-to-complex transforms (real shape n). */
template <class T>
R2CPlan<T> r2c_many(const Dims& n, int64_t howmany, const Side& in, const Side& out,
                    Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_many<R2CPlan<T>>(n, howmany, in, out, ABFT_FFT_FORWARD, h, flags);
}
/** `howmany` complex-to-real transforms (real shape n). */
template <class T>
C2RPlan<T> c2r_many(const Dims& n, int64_t howmany, const Side& in, const Side& out,
                    Handle* h = nullptr, unsigned flags = NoFlags) {
  return detail::make_many<C2RPlan<T>>(n, howmany, in, out, ABFT_FFT_BACKWARD, h, flags);
}

}  // namespace abft::fft
