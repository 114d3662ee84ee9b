/** \file fft_library_check_test.cpp
 *  \brief The GPU engine's FFT checksum algebra (abft/checksum/fft_library_check.hpp), run on
 *  the host: the same ABFT_HD functions the device kernels call (cuda/fft_check.cuh), on
 *  transforms that the library's own CPU FFT computes in place of cuFFT (checks off, so it is
 *  just "some FFT of the usual class").
 *
 *  The test plays the device's role: per element it forms the weight on the fly (multi-index
 *  by fft_unravel over the side's dimensions; fft_in_weight on the input, fft_out_term on the
 *  output: w_k y_k, plus for R2C the conjugate-mirror term at half weight), accumulates in = sum_j v_j x_j, out and ||x||^2 in double in the
 *  kernels' order (per-thread strided terms, warp and block trees, one addition per slice),
 *  and asks fft_library_verdict with the plan-time bound of fft_library_bound<T>, whose sum
 *  depth is computed as the engine computes it.
 *
 *  Checked:
 *   - the weights are each other's transform, v = F^T w: C2C in 1D for many lengths and both
 *     signs and in rank 2 / 3, against a direct DFT in long double; R2C for every input
 *     position of small shapes (rank 1..3): the output side (fft_out_term over the stored half
 *     spectrum of a real unit impulse, by a direct DFT in long double) equals fft_in_weight,
 *     separable: C2C weights on the leading dimensions, fft_r2c_mirror_in_weight on the last.
 *     This is the identity the whole check rests on;
 *   - every element is seen: |w_k| = 1 and |v_j| >= 1 for C2C, |v_j| >= 1/2 for R2C, including
 *     the R2C lengths where the stored half's own weights (fft_r2c_in_weight, not used by the
 *     check) vanish — those zeros are checked to be where the analysis puts them; with the
 *     mirror at full weight instead, an output fault of one phase would cancel against it;
 *   - no false positive on a few hundred clean signals (C2C both signs, R2C; rank 1..3; smooth,
 *     prime and Bluestein lengths; uniform, normal, wide dynamic range, impulse, constant), the
 *     sharpness max |out - in| / bound being printed per precision, kind and rank;
 *   - a fault of 4 bounds on one output element, or on one input element as the transform read
 *     it, fails the check, C2C and R2C alike;
 *   - non-finite input data is Skipped, a non-finite output from finite data Failed (or Skipped
 *     where the output may overflow legitimately);
 *   - the bound is precision-aware (float / double coefficient > 1e6) and grows with the length.
 *  C2R (kind 2): the CPU engine's rank-1 weights (fft_c2r_weights) — every bin seen at every
 *  phase (at least 0.2 of the error), every output weight of modulus >= 1, clean spectra pass —
 *  and the GPU engine's tables of every rank (fft_c2r_tables, the gain construction) — every
 *  bin's two coefficients a factor 2 apart, its smallest gain printed, faults of 4 bounds over it
 *  detected, clean and non-Hermitian spectra passing.
 *  No GPU is needed; this runs in every build (label "checksum").
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "abft/checksum/fft_c2r_weights.hpp"
#include "abft/checksum/fft_library_check.hpp"
#include "abft/fft.h"
#include "cpu/fft/c2r_tables.hpp"

namespace ck = abft::checksum;
using ck::Cd;
using ck::FftLibraryShape;
using ck::LineVerdict;

namespace {

using LD = long double;
using CLD = std::complex<LD>;
const LD kPiL = 3.141592653589793238462643383279502884L;

// ------------------------------------------------------------------ shapes and precisions
template <class T>
struct Prec;
template <>
struct Prec<float> {
  static constexpr abft_precision id = ABFT_PRECISION_FLOAT;
  static constexpr const char* name = "f32";
  static constexpr double wide_decades = 6;  ///< wide dynamic range: 10^[-6, 6]
};
template <>
struct Prec<double> {
  static constexpr abft_precision id = ABFT_PRECISION_DOUBLE;
  static constexpr const char* name = "f64";
  static constexpr double wide_decades = 15;  ///< wide dynamic range: 10^[-15, 15]
};

FftLibraryShape make_shape(std::vector<int64_t> n, int kind, int sign) {
  FftLibraryShape sh;
  sh.rank = int(n.size());
  for (int d = 0; d < sh.rank; ++d) sh.n[d] = n[size_t(d)];
  sh.kind = kind;
  sh.sign = kind == 1 ? -1 : sign;
  return sh;
}

std::string kind_name(const FftLibraryShape& sh) {
  return sh.kind == 1 ? "r2c" : (sh.sign < 0 ? "c2c-fwd" : "c2c-bwd");
}

std::string shape_name(const FftLibraryShape& sh) {
  std::string s = kind_name(sh) + " ";
  for (int d = 0; d < sh.rank; ++d) s += (d ? "x" : "") + std::to_string(sh.n[d]);
  return s;
}

double cabs(Cd z) { return std::hypot(z.re, z.im); }

/** Whether the R2C input weight of index j along a halved dimension of length n vanishes:
 *  v_j = (1 - q^(h+1)) / (1 - q) with q^(h+1) = exp(-i pi (2j+1)(h+1) / n) is zero exactly
 *  when 2n divides (2j+1)(h+1), h = n/2 (this happens for n = 3 mod 4 and n = 6 mod 8). */
bool r2c_weight_vanishes(int64_t j, int64_t n) { return ((2 * j + 1) * (n / 2 + 1)) % (2 * n) == 0; }

// ------------------------------------------------------------------ the device's role, on the host
/** The library's CPU FFT standing in for cuFFT: one plan per shape, checks off, one thread. */
template <class T>
class StandInFft {
 public:
  explicit StandInFft(const FftLibraryShape& sh) : sh_(sh) {
    const abft_status st = abft_fft_plan_dft(&plan_, nullptr, Prec<T>::id, abft_fft_kind(sh.kind), sh.rank, sh.n,
                                             sh.sign, 0);
    EXPECT_EQ(st, ABFT_STATUS_SUCCESS) << shape_name(sh);
    if (plan_) EXPECT_EQ(abft_fft_set_policy(plan_, ABFT_POLICY_OFF), ABFT_STATUS_SUCCESS);
    // One thread: the signals are small, and OpenMP's spinning barriers are slow on a busy machine.
    if (plan_) EXPECT_EQ(abft_fft_set_threads(plan_, 1), ABFT_STATUS_SUCCESS);
  }
  ~StandInFft() {
    if (plan_) abft_fft_destroy(plan_);
  }
  StandInFft(const StandInFft&) = delete;
  StandInFft& operator=(const StandInFft&) = delete;

  /** y = F x (unnormalised), x interleaved complex (C2C) or real (R2C), y interleaved complex. */
  std::vector<T> operator()(const std::vector<T>& x) const {
    std::vector<T> y(size_t(2 * sh_.out_count()), T(0));
    EXPECT_EQ(x.size(), size_t(sh_.in_count() * (sh_.kind == 0 ? 2 : 1)));
    if (plan_) EXPECT_EQ(abft_fft_execute(plan_, x.data(), y.data(), nullptr), ABFT_STATUS_SUCCESS);
    return y;
  }

 private:
  FftLibraryShape sh_;
  abft_fft_plan_t plan_ = nullptr;
};

/** Element e of an input array: complex for C2C, real for R2C. */
template <class T>
Cd input_element(const FftLibraryShape& sh, const std::vector<T>& x, int64_t e) {
  if (sh.kind == 0) return {double(x[size_t(2 * e)]), double(x[size_t(2 * e + 1)])};
  return {double(x[size_t(e)]), 0.0};
}

/** The engine's thread and slice figures (cuda/fft_check.cuh: kSumThreads, sum_slices): 256
 *  threads per block, about 8 elements per thread, 1..1024 slices (blocks) per signal. */
constexpr int64_t kSumThreads = 256;
int64_t sum_slices(int64_t count) {
  return std::clamp<int64_t>((count + kSumThreads * 8 - 1) / (kSumThreads * 8), 1, 1024);
}

/** The sum depth the engine passes to fft_library_bound: mirrors cuda/fft_check.cuh's sum_slices
 *  and cuda/fft_protected.cu — the longest addition chain over the input and the output sums,
 *  cut into their slices or into one block per signal (the re-check's). */
double engine_sum_depth(const FftLibraryShape& sh) {
  double depth = 0;
  for (int64_t count : {sh.in_count(), sh.out_count()}) {
    depth = std::max(depth, ck::fft_library_sum_depth(count, sum_slices(count), kSumThreads));
    depth = std::max(depth, ck::fft_library_sum_depth(count, 1, kSumThreads));
  }
  return depth;
}

/** Three double sums over e in [0, count) in the device kernels' order (cuda/fft_check.cuh):
 *  sum_slices(count) blocks of kSumThreads threads, each thread adding its grid-stride terms in
 *  order, then block_sum3 (a shfl_down tree in every warp, the warps' sums through shared memory,
 *  a shfl_down tree in warp 0), then one atomic addition per block (here in block order, one of
 *  the orders the device may take); or, for short rank-1 signals (warp_per_signal), the order of
 *  fft_warp_sums_kernel. term(e, t) writes element e's three terms into t. */
template <class Term>
void device_order_sum(int64_t count, Term term, double* sum, bool warp_per_signal = false) {
  const int64_t slices = sum_slices(count), stride = slices * kSumThreads;
  auto warp_tree = [](double* a) {  // a[0..32): lane values; shfl_down past the warp returns one's own
    for (int o = 16; o > 0; o >>= 1) {
      double b[32];
      for (int l = 0; l < 32; ++l) b[l] = a[l] + (l + o < 32 ? a[l + o] : a[l]);
      std::copy(b, b + 32, a);
    }
  };
  for (int c = 0; c < 3; ++c) sum[c] = 0;
  if (warp_per_signal) {  // fft_warp_sums_kernel: lane l takes e = c0 + l + 32 t, t < 8, per chunk
    for (int c = 0; c < 3; ++c) {
      double a[32];
      for (int l = 0; l < 32; ++l) {
        double acc = 0;
        for (int64_t c0 = 0; c0 < count; c0 += 256) {
          double r[8], tm[3];
          for (int t = 0; t < 8; ++t) {
            const int64_t e = c0 + l + 32 * t;
            r[t] = 0;
            if (e < count) term(e, tm), r[t] = tm[c];
          }
          for (int h = 1; h < 8; h *= 2)
            for (int t = 0; t + h < 8; t += 2 * h) r[t] += r[t + h];
          acc += r[0];
        }
        a[l] = acc;
      }
      warp_tree(a);
      sum[c] = a[0];
    }
    return;
  }
  std::vector<double> lane(size_t(3 * kSumThreads));
  for (int64_t blk = 0; blk < slices; ++blk) {
    for (int64_t t = 0; t < kSumThreads; ++t) {
      double acc[3] = {0, 0, 0}, tm[3];
      for (int64_t e = blk * kSumThreads + t; e < count; e += stride) {
        term(e, tm);
        for (int c = 0; c < 3; ++c) acc[c] += tm[c];
      }
      for (int c = 0; c < 3; ++c) lane[size_t(c * kSumThreads + t)] = acc[c];
    }
    constexpr int kWarps = int(kSumThreads / 32);
    for (int c = 0; c < 3; ++c) {
      double warp_sum[32] = {};
      for (int w = 0; w < kWarps; ++w) {
        double a[32];
        std::copy_n(lane.begin() + c * kSumThreads + 32 * w, 32, a);
        warp_tree(a);
        warp_sum[w] = a[0];
      }
      warp_tree(warp_sum);  // lanes >= kWarps hold 0
      sum[c] += warp_sum[0];
    }
  }
}

/** in = sum_j v_j x_j and ||x||^2, in double, as the device's input kernel forms them. */
template <class T>
Cd weighted_input(const FftLibraryShape& sh, const std::vector<T>& x, double* x2) {
  int64_t dims[3] = {1, 1, 1};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.in_dim(d);
  double s[3];
  const ck::FftHostTables tabs(sh);
  device_order_sum(
      sh.in_count(),
      [&](int64_t e, double* t) {
        int64_t idx[3] = {0, 0, 0};
        ck::fft_unravel(e, sh.rank, dims, idx);
        const Cd xe = input_element(sh, x, e);
        const Cd p = ck::cmul(xe, ck::fft_in_weight(sh, idx, tabs.w));
        t[0] = p.re, t[1] = p.im, t[2] = xe.re * xe.re + xe.im * xe.im;
      },
      s, sh.rank == 1 && sh.in_count() <= ck::kFftWarpMaxCount);
  *x2 = s[2];
  return {s[0], s[1]};
}

/** out = sum_k fft_out_term(k, y_k) (w_k y_k, plus R2C's mirror term) in double, as the device's
 *  output kernel forms it. */
template <class T>
Cd weighted_output(const FftLibraryShape& sh, const std::vector<T>& y) {
  int64_t dims[3] = {1, 1, 1};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.out_dim(d);
  double s[3];
  const ck::FftHostTables tabs(sh);
  device_order_sum(
      sh.out_count(),
      [&](int64_t e, double* t) {
        int64_t idx[3] = {0, 0, 0};
        ck::fft_unravel(e, sh.rank, dims, idx);
        const Cd p =
            ck::fft_out_term(sh, idx, Cd{double(y[size_t(2 * e)]), double(y[size_t(2 * e + 1)])}, tabs.w);
        t[0] = p.re, t[1] = p.im, t[2] = 0;
      },
      s, sh.rank == 1 && sh.out_count() <= ck::kFftWarpMaxCount);
  return {s[0], s[1]};
}

/** Input weight of the linear input position e (what the kernel computes for that element). */
Cd input_weight_at(const FftLibraryShape& sh, int64_t e) {
  int64_t dims[3] = {1, 1, 1}, idx[3] = {0, 0, 0};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.in_dim(d);
  ck::fft_unravel(e, sh.rank, dims, idx);
  return ck::fft_in_weight(sh, idx);
}

/** The plan-time pieces of one shape's check and the verdict the device would return. */
template <class T>
struct SignalCheck {
  explicit SignalCheck(const FftLibraryShape& s)
      : sh(s),
        b(ck::fft_library_bound<T>(s, ck::fft_library_w_norm(s), ck::fft_library_v_norm(s), engine_sum_depth(s))),
        coef(b.coefficient()) {}
  double bound(double x2) const { return coef * std::sqrt(x2) + b.abs; }
  LineVerdict verdict(Cd in, Cd out, double x2) const {
    return ck::fft_library_verdict(in, out, x2, coef, b.abs, b.Y, double(std::numeric_limits<T>::max()));
  }
  FftLibraryShape sh;
  ck::FftUnitBound b;
  double coef;
};

// ------------------------------------------------------------------ signals
enum class Dist { Uniform, Normal, Wide, Impulse, Constant };
const char* dist_name(Dist d) {
  switch (d) {
    case Dist::Uniform: return "uniform";
    case Dist::Normal: return "normal";
    case Dist::Wide: return "wide";
    case Dist::Impulse: return "impulse";
    default: return "constant";
  }
}

template <class T>
std::vector<T> make_signal(const FftLibraryShape& sh, Dist dist, std::mt19937_64& g) {
  const int per = sh.kind == 0 ? 2 : 1;
  const int64_t count = sh.in_count();
  std::vector<T> x(size_t(count * per), T(0));
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::normal_distribution<double> nrm(0.0, 1.0);
  std::uniform_real_distribution<double> dec(-Prec<T>::wide_decades, Prec<T>::wide_decades);
  switch (dist) {
    case Dist::Uniform:
      for (auto& v : x) v = T(uni(g));
      break;
    case Dist::Normal:
      for (auto& v : x) v = T(nrm(g));
      break;
    case Dist::Wide:
      for (auto& v : x) v = T((g() & 1 ? 1.0 : -1.0) * std::pow(10.0, dec(g)));
      break;
    case Dist::Impulse: {
      const int64_t e = int64_t(g() % uint64_t(count));
      x[size_t(e * per)] = T(1);
      if (per == 2) x[size_t(e * per + 1)] = T(-0.5);
      break;
    }
    case Dist::Constant: {
      const double re = uni(g), im = uni(g);
      for (int64_t e = 0; e < count; ++e) {
        x[size_t(e * per)] = T(re);
        if (per == 2) x[size_t(e * per + 1)] = T(im);
      }
      break;
    }
  }
  return x;
}

/** The shapes of the false-positive and detection tests (65536 is added once, separately). */
std::vector<FftLibraryShape> signal_shapes() {
  std::vector<std::vector<int64_t>> sizes = {{64},   {100},  {127},  {128},    {243},    {1000},
                                             {1024}, {4096}, {1009}, {32, 64}, {48, 50}, {8, 8, 16}};
  std::vector<FftLibraryShape> out;
  for (const auto& n : sizes) {
    out.push_back(make_shape(n, 0, -1));
    out.push_back(make_shape(n, 0, +1));
    out.push_back(make_shape(n, 1, -1));
  }
  return out;
}

// ------------------------------------------------------------------ 1. v = F^T w
/** exp(s 2 pi i <j, k / n>) in long double, from exactly reduced integer angles. */
CLD dft_phase(const FftLibraryShape& sh, const int64_t* j, const int64_t* k) {
  CLD t = 1;
  for (int d = 0; d < sh.rank; ++d) {
    const LD a = 2 * kPiL * LD((j[d] * k[d]) % sh.n[d]) / LD(sh.n[d]);
    t *= CLD(std::cos(a), LD(sh.sign) * std::sin(a));
  }
  return t;
}

/** C2C: v_j of the direct transform of the output weights, sum_k w_k exp(s 2 pi i <j, k / n>),
 *  in long double. */
CLD direct_input_weight(const FftLibraryShape& sh, const int64_t* j) {
  int64_t dims[3] = {1, 1, 1}, k[3] = {0, 0, 0};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.out_dim(d);
  CLD acc = 0;
  for (int64_t e = 0; e < sh.out_count(); ++e) {
    ck::fft_unravel(e, sh.rank, dims, k);
    const Cd w = ck::fft_out_weight_md(sh, k);
    acc += CLD(LD(w.re), LD(w.im)) * dft_phase(sh, j, k);
  }
  return acc;
}

/** C2C: compares every input weight of a shape with the direct transform of its output weights. */
void expect_weights_transform(const FftLibraryShape& sh) {
  ASSERT_EQ(sh.kind, 0);
  int64_t dims[3] = {1, 1, 1}, j[3] = {0, 0, 0};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.in_dim(d);
  const double tol = 1e-9 * double(sh.total());
  for (int64_t e = 0; e < sh.in_count(); ++e) {
    ck::fft_unravel(e, sh.rank, dims, j);
    const Cd v = ck::fft_in_weight(sh, j);
    const CLD ref = direct_input_weight(sh, j);
    ASSERT_NEAR(v.re, double(ref.real()), tol) << shape_name(sh) << " input element " << e;
    ASSERT_NEAR(v.im, double(ref.imag()), tol) << shape_name(sh) << " input element " << e;
    if (sh.rank == 1) {  // the per-dimension function itself, as the kernels may call it
      const Cd v1 = ck::fft_c2c_in_weight(j[0], sh.n[0], sh.sign);
      ASSERT_EQ(v1.re, v.re);
      ASSERT_EQ(v1.im, v.im);
    }
  }
}

/** R2C: the stored half spectrum (last index <= n/2) of a real input, by a direct DFT in long
 *  double, rounded to double as the device would read it. */
std::vector<Cd> direct_r2c(const FftLibraryShape& sh, const std::vector<LD>& x) {
  int64_t idims[3] = {1, 1, 1}, odims[3] = {1, 1, 1}, j[3] = {0, 0, 0}, k[3] = {0, 0, 0};
  for (int d = 0; d < sh.rank; ++d) idims[d] = sh.in_dim(d), odims[d] = sh.out_dim(d);
  std::vector<Cd> y(size_t(sh.out_count()));
  for (int64_t ek = 0; ek < sh.out_count(); ++ek) {
    ck::fft_unravel(ek, sh.rank, odims, k);
    CLD acc = 0;
    for (int64_t ej = 0; ej < sh.in_count(); ++ej) {
      if (x[size_t(ej)] == 0) continue;
      ck::fft_unravel(ej, sh.rank, idims, j);
      acc += x[size_t(ej)] * dft_phase(sh, j, k);
    }
    y[size_t(ek)] = {double(acc.real()), double(acc.imag())};
  }
  return y;
}

/** R2C: for every input position j, the output side of a real unit impulse at j — the sum of
 *  fft_out_term over its stored half spectrum — equals fft_in_weight(j), the C2C weight (by
 *  linearity, out = sum_j v_j x_j for every real input). */
void expect_r2c_identity(const FftLibraryShape& sh) {
  ASSERT_EQ(sh.kind, 1);
  int64_t idims[3] = {1, 1, 1}, odims[3] = {1, 1, 1}, j[3] = {0, 0, 0}, k[3] = {0, 0, 0};
  for (int d = 0; d < sh.rank; ++d) idims[d] = sh.in_dim(d), odims[d] = sh.out_dim(d);
  const double tol = 1e-9 * double(sh.total());
  for (int64_t ej = 0; ej < sh.in_count(); ++ej) {
    std::vector<LD> x(size_t(sh.in_count()), 0);
    x[size_t(ej)] = 1;
    const std::vector<Cd> y = direct_r2c(sh, x);
    CLD out = 0;
    for (int64_t ek = 0; ek < sh.out_count(); ++ek) {
      ck::fft_unravel(ek, sh.rank, odims, k);
      const Cd t = ck::fft_out_term(sh, k, y[size_t(ek)]);
      out += CLD(LD(t.re), LD(t.im));
    }
    ck::fft_unravel(ej, sh.rank, idims, j);
    const Cd v = ck::fft_in_weight(sh, j);
    ASSERT_NEAR(v.re, double(out.real()), tol) << shape_name(sh) << " input element " << ej;
    ASSERT_NEAR(v.im, double(out.imag()), tol) << shape_name(sh) << " input element " << ej;
    // Separable: the C2C weights on the leading dimensions, the half-weight mirror's on the last.
    Cd sep{1.0, 0.0};
    for (int d = 0; d < sh.rank - 1; ++d) sep = ck::cmul(sep, ck::fft_c2c_in_weight(j[d], sh.n[d], sh.sign));
    sep = ck::cmul(sep, ck::fft_r2c_mirror_in_weight(j[sh.rank - 1], sh.n[sh.rank - 1], sh.sign));
    ASSERT_EQ(v.re, sep.re) << shape_name(sh);
    ASSERT_EQ(v.im, sep.im) << shape_name(sh);
    ASSERT_GE(cabs(v), 0.5 - 1e-12) << shape_name(sh) << " input element " << ej;
  }
}

const std::vector<int64_t> kSmallLengths = {1, 2, 3, 5, 8, 12, 16, 17, 30, 64};
const std::vector<int64_t> kSmallR2CLengths = {1, 2, 3, 5, 6, 7, 8, 12, 16, 17, 30, 64};

TEST(FftLibraryWeights, InputWeightsAreTheTransformOfOutputWeights1D) {
  for (int64_t n : kSmallLengths) {
    expect_weights_transform(make_shape({n}, 0, -1));
    expect_weights_transform(make_shape({n}, 0, +1));
  }
  for (int64_t n : kSmallR2CLengths) expect_r2c_identity(make_shape({n}, 1, -1));
}

TEST(FftLibraryWeights, InputWeightsAreTheTransformOfOutputWeightsMultiDim) {
  for (int s : {-1, +1}) {
    expect_weights_transform(make_shape({4, 6}, 0, s));
    expect_weights_transform(make_shape({3, 4, 5}, 0, s));
    expect_weights_transform(make_shape({5, 1, 7}, 0, s));
  }
  expect_r2c_identity(make_shape({4, 6}, 1, -1));
  expect_r2c_identity(make_shape({3, 4, 5}, 1, -1));
  expect_r2c_identity(make_shape({2, 3, 8}, 1, -1));
  expect_r2c_identity(make_shape({6, 7}, 1, -1));
}

// ------------------------------------------------------------------ 2. every weight is seen
/** The device's weights (FftTableWeights: products of two short tables per dimension, cot from
 *  the doubled angle) against the exact values in long double, for every index of lengths up
 *  to 2^16 and a stride with the ends above, both signs: within 16 u_d of |weight| (the bound
 *  allows 64 u_d per side, fft_library_bound's dw, over up to three dimensions' products). */
TEST(FftLibraryWeights, TableWeightsMatchTheExactWeights) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const LD pi = 3.141592653589793238462643383279502884L;
  double worst[3] = {0, 0, 0};  // out, c2c_in, r2c_in, in units of u |w|
  auto lexp = [&](int64_t num, int64_t den, int s) {  // exp(s i pi num / den), folded to [0, pi/2]
    int64_t a = num % (2 * den);
    LD sgs = 1, sgc = 1;
    if (a >= den) a -= den, sgs = -1, sgc = -1;
    if (2 * a > den) a = den - a, sgc = -sgc;
    const LD t = pi * LD(a) / LD(den);
    return std::complex<LD>(sgc * std::cos(t), LD(s) * sgs * std::sin(t));
  };
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 100, 127, 128, 131, 255, 256, 1000, 1024, 4095, 4096, 65536,
                    100003, 1 << 20, 3 * 5 * 7 * 11 * 13 * 17, 1 << 22}) {
    const ck::FftTurnTableData data(n);
    ck::FftTableWeights tw;
    tw.t[0] = data.view();
    const int64_t step = n <= 65536 ? 1 : n / 4099;
    for (int s : {-1, +1})
      for (int64_t j = 0; j < n; j = (j + step < n || j == n - 1) ? j + step : n - 1) {
        // exact: w_j = exp(s i pi j / n); v_j = 1 + s i cot(pi (2j+1) / (2n)); the R2C weight
        // (1 + s i cot)(3 - q) / 4 with q = exp(s i pi (2j+1)(h+1) / n), h = n / 2.
        // (angles reduced in integers first: sin(pi - t) in long double would lose the digits
        // that the reduction keeps)
        const std::complex<LD> w = lexp(j, n, s);
        int64_t a = 2 * j + 1;
        LD sg = LD(s);
        if (a > n) a = 2 * n - a, sg = -sg;
        const LD th = pi * LD(a) / LD(2 * n);
        const std::complex<LD> v(1.0L, sg * std::cos(th) / std::sin(th));
        const std::complex<LD> q = lexp((2 * j + 1) * (n / 2 + 1), n, s);
        const std::complex<LD> r = v * (3.0L - q) / 4.0L;
        const Cd cw = tw.out(0, j, n, s), cv = tw.c2c_in(0, j, n, s), cr = tw.r2c_in(0, j, n, s);
        const double e[3] = {double(std::abs(std::complex<LD>(cw.re, cw.im) - w) / std::abs(w)),
                             double(std::abs(std::complex<LD>(cv.re, cv.im) - v) / std::abs(v)),
                             double(std::abs(std::complex<LD>(cr.re, cr.im) - r) / std::abs(r))};
        for (int k = 0; k < 3; ++k) {
          worst[k] = std::max(worst[k], e[k] / u);
          ASSERT_LE(e[k], 16 * u) << "n " << n << " j " << j << " sign " << s << " weight " << k;
        }
        if (j == n - 1) break;
      }
  }
  std::printf("table weights, worst error in u_d: out %.2f, c2c in %.2f, r2c in %.2f\n", worst[0], worst[1], worst[2]);
}

TEST(FftLibraryWeights, EveryC2CWeightIsSeen) {
  std::vector<int64_t> lengths = kSmallLengths;
  for (int64_t n : {100, 127, 243, 1000, 1009, 4096, 65536}) lengths.push_back(n);
  for (int64_t n : lengths)
    for (int s : {-1, +1}) {
      double wmin = 2, wmax = 0, vmin = 1e300, v2 = 0;
      for (int64_t k = 0; k < n; ++k) {
        const double a = cabs(ck::fft_out_weight(k, n, s));
        wmin = std::min(wmin, a), wmax = std::max(wmax, a);
        const Cd v = ck::fft_c2c_in_weight(k, n, s);
        vmin = std::min(vmin, cabs(v));
        v2 += v.re * v.re + v.im * v.im;
      }
      EXPECT_NEAR(wmin, 1.0, 1e-12) << "n=" << n << " s=" << s;
      EXPECT_NEAR(wmax, 1.0, 1e-12) << "n=" << n << " s=" << s;
      EXPECT_GE(vmin, 1.0 - 1e-12) << "n=" << n << " s=" << s;
      // ||v||_2 = ||F^T w||_2 = sqrt(n) ||w||_2 = n, and the plan-time norms agree.
      const FftLibraryShape sh = make_shape({n}, 0, s);
      EXPECT_NEAR(std::sqrt(v2), double(n), 1e-9 * double(n)) << "n=" << n;
      EXPECT_GE(ck::fft_library_v_norm(sh), std::sqrt(v2)) << "n=" << n;
      EXPECT_NEAR(ck::fft_library_v_norm(sh), std::sqrt(v2), 1e-9 * double(n)) << "n=" << n;
      EXPECT_DOUBLE_EQ(ck::fft_library_w_norm(sh), std::sqrt(double(n)));
    }
  // Multi-dimensional: the Kronecker products keep |w| = 1, |v| >= 1, ||v|| = N.
  for (auto n : std::vector<std::vector<int64_t>>{{4, 6}, {3, 4, 5}, {32, 64}, {8, 8, 16}}) {
    const FftLibraryShape sh = make_shape(n, 0, -1);
    double vmin = 1e300, v2 = 0;
    for (int64_t e = 0; e < sh.in_count(); ++e) {
      const Cd v = input_weight_at(sh, e);
      vmin = std::min(vmin, cabs(v));
      v2 += v.re * v.re + v.im * v.im;
    }
    EXPECT_GE(vmin, 1.0 - 1e-12) << shape_name(sh);
    EXPECT_NEAR(ck::fft_library_v_norm(sh), std::sqrt(v2), 1e-9 * double(sh.total())) << shape_name(sh);
    EXPECT_NEAR(std::sqrt(v2), double(sh.total()), 1e-9 * double(sh.total())) << shape_name(sh);
  }
}

/** The stored half's own weights, fft_r2c_in_weight (what weighting y_k, k_last <= n/2, alone
 *  would give): |v_j| = |sin(pi (2j+1)(h+1) / (2n))| / sin(pi (2j+1) / (2n)) vanishes exactly
 *  where 2n divides (2j+1)(h+1) (n = 3 mod 4: j = (n-1)/2; n = 6 mod 8: j = (n-2)/4, (3n-2)/4):
 *  inputs such a check could not see, which is why fft_out_term adds the mirrored half. */
TEST(FftLibraryWeights, R2CHalfSpectrumWeightsVanishWhereExpected) {
  std::vector<int64_t> lengths = kSmallR2CLengths;
  for (int64_t n : {50, 100, 127, 128, 243, 1000, 1009, 1024, 4096, 65536}) lengths.push_back(n);
  int lengths_with_zeros = 0;
  for (int64_t n : lengths) {
    double vmin = 1e300;
    bool any_zero = false;
    const FftLibraryShape sh = make_shape({n}, 1, -1);
    for (int64_t j = 0; j < n; ++j) {
      const Cd v = ck::fft_r2c_in_weight(j, n, -1);
      const double a = cabs(v);
      if (r2c_weight_vanishes(j, n)) {
        EXPECT_LT(a, 1e-12) << "n=" << n << " j=" << j;
        any_zero = true;
      } else {
        vmin = std::min(vmin, a);
      }
      if (n <= 64) {  // it is the transform of the stored half's weights alone (no mirror terms)
        std::vector<LD> x(size_t(n), 0);
        x[size_t(j)] = 1;
        const std::vector<Cd> y = direct_r2c(sh, x);
        CLD out = 0;
        for (int64_t k = 0; k < sh.out_count(); ++k) {
          const Cd t = ck::cmul(ck::fft_out_weight(k, n, -1), y[size_t(k)]);
          out += CLD(LD(t.re), LD(t.im));
        }
        EXPECT_NEAR(v.re, double(out.real()), 1e-9 * double(n)) << "n=" << n << " j=" << j;
        EXPECT_NEAR(v.im, double(out.imag()), 1e-9 * double(n)) << "n=" << n << " j=" << j;
      }
    }
    if (n > 1) EXPECT_GE(vmin, 0.999 * std::sin(3.14159265358979323846 / double(2 * n))) << "n=" << n;
    lengths_with_zeros += any_zero;
  }
  EXPECT_TRUE(r2c_weight_vanishes(1, 3));
  EXPECT_TRUE(r2c_weight_vanishes(3, 7));
  EXPECT_TRUE(r2c_weight_vanishes(7, 30) && r2c_weight_vanishes(22, 30));
  EXPECT_GE(lengths_with_zeros, 5);  // 3, 6, 7, 30, 127, 243, ...
}

/** With the mirror terms every R2C input element is seen: |v_j| >= 1 (the C2C weights), the
 *  lengths where the stored half's weights vanish included; the plan-time norms follow. */
TEST(FftLibraryWeights, EveryR2CInputElementIsSeen) {
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t n : kSmallR2CLengths) shapes.push_back({n});
  for (int64_t n : {50, 100, 127, 128, 243, 1000, 1009, 1024, 4096, 65536}) shapes.push_back({n});
  for (auto n : std::vector<std::vector<int64_t>>{{4, 6}, {6, 7}, {3, 4, 5}, {2, 3, 8}, {32, 64}, {48, 50}, {8, 8, 16}})
    shapes.push_back(n);
  for (const auto& n : shapes) {
    const FftLibraryShape sh = make_shape(n, 1, -1);
    double vmin = 1e300, v2 = 0;
    for (int64_t e = 0; e < sh.in_count(); ++e) {
      const Cd v = input_weight_at(sh, e);
      vmin = std::min(vmin, cabs(v));
      v2 += v.re * v.re + v.im * v.im;
    }
    EXPECT_GE(vmin, 0.5 - 1e-12) << shape_name(sh);  // the mirror at half weight: |v_j| >= 1/2
    EXPECT_GE(ck::fft_library_v_norm(sh), std::sqrt(v2)) << shape_name(sh);
    EXPECT_NEAR(ck::fft_library_v_norm(sh), std::sqrt(v2), 1e-9 * double(sh.total())) << shape_name(sh);
    // ||w||_2: the stored outputs at weight one, their mirrors (last index 1 .. n - n/2 - 1) at 1/2.
    const int64_t nl = n.back(), mirrored = (nl - nl / 2 - 1) * (sh.total() / nl);
    EXPECT_DOUBLE_EQ(ck::fft_library_w_norm(sh), std::sqrt(double(sh.out_count()) + 0.25 * double(mirrored)))
        << shape_name(sh);
  }
  // The former blind spots in particular: n = 3 (j = 1), 7 (j = 3), 30 (j = 7, 22), 127 (j = 63),
  // 243 (j = 121), and 4x6's whole hyperplane of last index 1 or 4.
  for (auto [n, j] : std::vector<std::pair<int64_t, int64_t>>{{3, 1}, {7, 3}, {30, 7}, {30, 22}, {127, 63}, {243, 121}}) {
    ASSERT_TRUE(r2c_weight_vanishes(j, n)) << "n=" << n << " j=" << j;
    EXPECT_GE(cabs(input_weight_at(make_shape({n}, 1, -1), j)), 0.5 - 1e-12) << "n=" << n << " j=" << j;
  }
  const FftLibraryShape sh = make_shape({4, 6}, 1, -1);
  for (int64_t e = 0; e < sh.in_count(); ++e)
    if (r2c_weight_vanishes(e % 6, 6)) EXPECT_GE(cabs(input_weight_at(sh, e)), 0.5 - 1e-12) << "4x6 element " << e;
}

// ------------------------------------------------------------------ 3. no false positives
/** Runs a clean signal through the stand-in and the check; returns |out - in| / bound. */
template <class T>
double clean_ratio(const SignalCheck<T>& chk, const StandInFft<T>& fft, const std::vector<T>& x, const char* what) {
  const std::vector<T> y = fft(x);
  double x2 = 0;
  const Cd in = weighted_input(chk.sh, x, &x2);
  const Cd out = weighted_output(chk.sh, y);
  const LineVerdict v = chk.verdict(in, out, x2);
  const double res = std::hypot(out.re - in.re, out.im - in.im);
  const double ratio = res / chk.bound(x2);
  EXPECT_EQ(v, LineVerdict::Ok) << Prec<T>::name << " " << shape_name(chk.sh) << " " << what << ": |out-in| = " << res
                                << ", bound = " << chk.bound(x2) << " (ratio " << ratio << ")";
  return ratio;
}

template <class T>
void no_false_positives() {
  std::mt19937_64 g(Prec<T>::id == ABFT_PRECISION_FLOAT ? 101 : 202);
  std::map<std::string, std::pair<double, std::string>> sharp;  // "kind rankR" -> max ratio, where
  auto track = [&](const std::string& key, double r, const std::string& where) {
    if (!sharp.count(key) || r > sharp[key].first) sharp[key] = {r, where};
  };
  int signals = 0;
  const std::vector<std::pair<Dist, int>> plan = {
      {Dist::Uniform, 2}, {Dist::Normal, 1}, {Dist::Wide, 2}, {Dist::Impulse, 1}, {Dist::Constant, 1}};
  for (const FftLibraryShape& sh : signal_shapes()) {
    const SignalCheck<T> chk(sh);
    const StandInFft<T> fft(sh);
    const std::string key = std::string(sh.kind == 1 ? "r2c" : "c2c") + " rank" + std::to_string(sh.rank);
    for (const auto& [dist, trials] : plan)
      for (int t = 0; t < trials; ++t) {
        const double r = clean_ratio(chk, fft, make_signal<T>(sh, dist, g), dist_name(dist));
        track(key, r, shape_name(sh) + ", " + dist_name(dist));
        ++signals;
      }
  }
  // The largest length, once (C2C forward: a four-step line on the CPU engine).
  {
    const FftLibraryShape sh = make_shape({65536}, 0, -1);
    const SignalCheck<T> chk(sh);
    const StandInFft<T> fft(sh);
    const double r = clean_ratio(chk, fft, make_signal<T>(sh, Dist::Uniform, g), "uniform");
    track("c2c rank1", r, shape_name(sh) + ", uniform");
    ++signals;
  }
  std::printf("%d clean %s signals, all Ok\n", signals, Prec<T>::name);
  for (const auto& [key, worst] : sharp) {
    std::printf("sharpness %s %s: %.4g (%s)\n", Prec<T>::name, key.c_str(), worst.first, worst.second.c_str());
    EXPECT_LT(worst.first, 1.0) << key;
  }
}

/** An impulse at every position of a non-power-of-two double line: the input weights near
 *  j = n - 1 are large (cot of an angle near pi) and must be formed from an exactly reduced
 *  angle; a weight off by n^2 u_d relative gave false positives on an impulse at n - 1
 *  (residual 1.8 bounds at n = 1000, found in review). */
TEST(FftLibraryCheck, NoFalsePositiveOnImpulsesAtEveryPosition) {
  for (int kind : {0, 1})
    for (int64_t n : {1000, 999, 3000}) {
      const FftLibraryShape sh = make_shape({n}, kind, -1);
      const SignalCheck<double> chk(sh);
      const StandInFft<double> fft(sh);
      double worst = 0;
      for (int64_t j = 0; j < n; j += (j < n - 64 ? 97 : 1)) {  // every position near the end
        std::vector<double> x(size_t(sh.in_count() * (kind == 0 ? 2 : 1)), 0.0);
        x[size_t(kind == 0 ? 2 * j : j)] = 1.0;
        worst = std::max(worst, clean_ratio(chk, fft, x, "impulse"));
      }
      std::printf("impulses f64 %s n=%lld: worst residual / bound %.3g\n", kind ? "r2c" : "c2c", (long long)n, worst);
    }
}

TEST(FftLibraryCheck, NoFalsePositivesFloat) { no_false_positives<float>(); }
TEST(FftLibraryCheck, NoFalsePositivesDouble) { no_false_positives<double>(); }

// ------------------------------------------------------------------ 4. detection
/** A random complex number of modulus m. */
Cd random_phase(double m, std::mt19937_64& g) {
  const double a = std::uniform_real_distribution<double>(0.0, 2.0 * 3.14159265358979323846)(g);
  return {m * std::cos(a), m * std::sin(a)};
}

/** One output element moved by 4 bounds (a fault after the transform, or in its last stage).
 *  out moves by fft_out_term(k, d): w_k d for C2C (modulus |d|); for an R2C element with a
 *  conjugate mirror w_k d + w_mirror conj(d), whose modulus depends on the phase of d (printed
 *  with every miss as "gain" = |fft_out_term(k, d)| / |d|). */
template <class T>
void detects_output_faults() {
  std::mt19937_64 g(Prec<T>::id == ABFT_PRECISION_FLOAT ? 303 : 404);
  int trials = 0, failed = 0;
  for (const FftLibraryShape& sh : signal_shapes()) {
    const SignalCheck<T> chk(sh);
    const StandInFft<T> fft(sh);
    int64_t odims[3] = {1, 1, 1}, kidx[3] = {0, 0, 0};
    for (int d = 0; d < sh.rank; ++d) odims[d] = sh.out_dim(d);
    for (int t = 0; t < 3; ++t) {
      const std::vector<T> x = make_signal<T>(sh, t == 2 ? Dist::Wide : Dist::Normal, g);
      std::vector<T> y = fft(x);
      double x2 = 0;
      const Cd in = weighted_input(sh, x, &x2);
      const double bound = chk.bound(x2);
      const int64_t k = int64_t(g() % uint64_t(sh.out_count()));
      const Cd d = random_phase(4.0 * bound, g);
      const Cd before{double(y[size_t(2 * k)]), double(y[size_t(2 * k + 1)])};
      y[size_t(2 * k)] = T(before.re + d.re);
      y[size_t(2 * k + 1)] = T(before.im + d.im);
      // The change actually stored (after rounding to T) is still more than 3 bounds.
      const Cd stored{double(y[size_t(2 * k)]) - before.re, double(y[size_t(2 * k + 1)]) - before.im};
      ASSERT_GT(cabs(stored), 3.0 * bound) << shape_name(sh);
      ck::fft_unravel(k, sh.rank, odims, kidx);
      const double gain = cabs(ck::fft_out_term(sh, kidx, stored)) / cabs(stored);
      const Cd out = weighted_output(sh, y);
      const LineVerdict v = chk.verdict(in, out, x2);
      EXPECT_EQ(v, LineVerdict::Failed) << Prec<T>::name << " " << shape_name(sh) << " output element " << k
                                        << ": |d| = " << cabs(stored) / bound << " bounds, gain " << gain
                                        << ", so out moved by " << gain * cabs(stored) / bound << " bounds";
      failed += v == LineVerdict::Failed;
      ++trials;
    }
  }
  std::printf("%s: %d output faults of 4 bounds, %d Failed\n", Prec<T>::name, trials, failed);
}

/** One input element changed as the transform read it (the reference sum saw the clean value):
 *  out - in moves by v_j delta with |v_j| >= 1 (C2C and R2C alike), always Failed. */
template <class T>
void detects_input_faults() {
  std::mt19937_64 g(Prec<T>::id == ABFT_PRECISION_FLOAT ? 505 : 606);
  int trials = 0, failed = 0;
  for (const FftLibraryShape& sh : signal_shapes()) {
    const SignalCheck<T> chk(sh);
    const StandInFft<T> fft(sh);
    for (int t = 0; t < 3; ++t) {
      const std::vector<T> x = make_signal<T>(sh, t == 1 ? Dist::Uniform : Dist::Normal, g);
      double x2 = 0;
      const Cd in = weighted_input(sh, x, &x2);
      const double bound = chk.bound(x2);
      const int64_t j = int64_t(g() % uint64_t(sh.in_count()));
      std::vector<T> xf = x;
      Cd stored;
      if (sh.kind == 0) {
        const Cd d = random_phase(4.0 * bound, g);
        xf[size_t(2 * j)] = T(double(x[size_t(2 * j)]) + d.re);
        xf[size_t(2 * j + 1)] = T(double(x[size_t(2 * j + 1)]) + d.im);
        stored = {double(xf[size_t(2 * j)]) - double(x[size_t(2 * j)]),
                  double(xf[size_t(2 * j + 1)]) - double(x[size_t(2 * j + 1)])};
      } else {
        const double d = (g() & 1 ? 4.0 : -4.0) * bound;
        xf[size_t(j)] = T(double(x[size_t(j)]) + d);
        stored = {double(xf[size_t(j)]) - double(x[size_t(j)]), 0.0};
      }
      ASSERT_GT(cabs(stored), 3.0 * bound) << shape_name(sh);
      ASSERT_GE(cabs(input_weight_at(sh, j)), sh.kind == 1 ? 0.5 - 1e-12 : 1.0 - 1e-12) << shape_name(sh);
      const Cd out = weighted_output(sh, fft(xf));
      const LineVerdict v = chk.verdict(in, out, x2);
      EXPECT_EQ(v, LineVerdict::Failed) << Prec<T>::name << " " << shape_name(sh) << " input element " << j;
      failed += v == LineVerdict::Failed;
      ++trials;
    }
  }
  std::printf("%s: %d input faults of 4 bounds, %d Failed\n", Prec<T>::name, trials, failed);
}

TEST(FftLibraryCheck, DetectsOutputFaultsFloat) { detects_output_faults<float>(); }
TEST(FftLibraryCheck, DetectsOutputFaultsDouble) { detects_output_faults<double>(); }
TEST(FftLibraryCheck, DetectsInputFaultsFloat) { detects_input_faults<float>(); }
TEST(FftLibraryCheck, DetectsInputFaultsDouble) { detects_input_faults<double>(); }

// ------------------------------------------------------------------ 5. non-finite values
template <class T>
void non_finite() {
  std::mt19937_64 g(Prec<T>::id == ABFT_PRECISION_FLOAT ? 707 : 808);
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (auto n : std::vector<std::vector<int64_t>>{{64}, {1009}, {32, 64}, {8, 8, 16}})
    for (int kind : {0, 1}) {
      const FftLibraryShape sh = make_shape(n, kind, -1);
      const SignalCheck<T> chk(sh);
      const StandInFft<T> fft(sh);
      // Non-finite input is data, not a fault: whatever the transform makes of it, Skipped.
      for (T bad : {nan, inf, -inf}) {
        std::vector<T> x = make_signal<T>(sh, Dist::Uniform, g);
        x[size_t(g() % x.size())] = bad;
        double x2 = 0;
        const Cd in = weighted_input(sh, x, &x2);
        const Cd out = weighted_output(sh, fft(x));
        EXPECT_EQ(chk.verdict(in, out, x2), LineVerdict::Skipped) << Prec<T>::name << " " << shape_name(sh) << " " << bad;
      }
      // A non-finite output from finite data that cannot overflow is a fault.
      const std::vector<T> x = make_signal<T>(sh, Dist::Normal, g);
      double x2 = 0;
      const Cd in = weighted_input(sh, x, &x2);
      const std::vector<T> y = fft(x);
      for (T bad : {nan, inf, -inf}) {
        std::vector<T> yf = y;
        yf[size_t(g() % yf.size())] = bad;
        EXPECT_EQ(chk.verdict(in, weighted_output(sh, yf), x2), LineVerdict::Failed)
            << Prec<T>::name << " " << shape_name(sh) << " output " << bad;
      }
      EXPECT_EQ(chk.verdict(in, weighted_output(sh, y), x2), LineVerdict::Ok) << shape_name(sh);
    }
  // A legitimate overflow: a constant of T's largest value / 8 over 64 points makes y_0 = 8 max.
  // (For double ||x||^2 itself overflows, Skipped as well; for float the Y ||x|| test decides.)
  for (int kind : {0, 1}) {
    const FftLibraryShape sh = make_shape({64}, kind, -1);
    const SignalCheck<T> chk(sh);
    const StandInFft<T> fft(sh);
    std::vector<T> x(size_t(sh.in_count() * (kind == 0 ? 2 : 1)), T(0));
    for (int64_t e = 0; e < sh.in_count(); ++e) x[size_t(kind == 0 ? 2 * e : e)] = std::numeric_limits<T>::max() / 8;
    double x2 = 0;
    const Cd in = weighted_input(sh, x, &x2);
    const std::vector<T> y = fft(x);
    EXPECT_FALSE(std::isfinite(double(y[0]))) << shape_name(sh);
    EXPECT_EQ(chk.verdict(in, weighted_output(sh, y), x2), LineVerdict::Skipped) << Prec<T>::name << " " << shape_name(sh);
  }
}

TEST(FftLibraryCheck, NonFiniteFloat) { non_finite<float>(); }
TEST(FftLibraryCheck, NonFiniteDouble) { non_finite<double>(); }

// ------------------------------------------------------------------ 6. the bound
/** The transform's error term scales with T's unit roundoff (2^29 between float and double),
 *  and so does the whole coefficient, by more than 1e6 at every size: the double sums' own term
 *  (sqrt 2 gamma_{depth+4}(u_double) with the engine's short addition chains, plus the weights'
 *  64 u_double) stays well below float's transform error. */
TEST(FftLibraryCheck, BoundIsPrecisionAwareAndGrowsWithLength) {
  auto coef_f = [](const FftLibraryShape& sh) { return SignalCheck<float>(sh).coef; };
  auto coef_d = [](const FftLibraryShape& sh) { return SignalCheck<double>(sh).coef; };
  for (auto n : std::vector<std::vector<int64_t>>{{64}, {1000}, {1009}, {4096}, {65536}, {32, 64}, {8, 8, 16}})
    for (int kind : {0, 1}) {
      const FftLibraryShape sh = make_shape(n, kind, -1);
      const double cf = coef_f(sh), cd = coef_d(sh);
      const double ef = SignalCheck<float>(sh).b.E, ed = SignalCheck<double>(sh).b.E;
      std::printf("coef %-14s depth %5.0f  f32 %.3e  f64 %.3e  ratio %.3e  (transform error term ratio %.3e)\n",
                  shape_name(sh).c_str(), engine_sum_depth(sh), cf, cd, cf / cd, ef / ed);
      EXPECT_GT(ef / ed, 1e8) << shape_name(sh);
      EXPECT_GT(cf / cd, 1e6) << shape_name(sh);
    }
  for (int kind : {0, 1}) {
    double prev_f = 0, prev_d = 0;
    for (int64_t n = 64; n <= 4096; n *= 4) {
      const FftLibraryShape sh = make_shape({n}, kind, -1);
      EXPECT_GT(coef_f(sh), prev_f) << shape_name(sh);
      EXPECT_GT(coef_d(sh), prev_d) << shape_name(sh);
      prev_f = coef_f(sh), prev_d = coef_d(sh);
    }
    EXPECT_GT(coef_f(make_shape({4096}, kind, -1)), coef_f(make_shape({64}, kind, -1)));
    EXPECT_GT(coef_d(make_shape({4096}, kind, -1)), coef_d(make_shape({64}, kind, -1)));
  }
}

/** C2R (rank 1): the CPU engine's weights, fft_c2r_weights (the GPU engine's, until 2026-12-07): the check's identity on transforms by the CPU C2R, an error of any
 *  phase in any stored bin moves the check by at least kC2RPush / (1 + kC2RPush) of its size
 *  (the pushed-apart ||W_k| - |W_-k||), every output weight has modulus >= 1, and clean
 *  Hermitian spectra pass. */
template <class T>
void c2r_tables(int64_t n) {
  abft_fft_plan_t pf = nullptr, pb = nullptr, pc = nullptr;
  ASSERT_EQ(abft_fft_plan_1d(&pf, nullptr, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, -1, 0), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_fft_plan_1d(&pb, nullptr, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, +1, 0), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_fft_plan_1d(&pc, nullptr, Prec<T>::id, ABFT_FFT_C2R, n, +1, 0), ABFT_STATUS_SUCCESS);
  for (abft_fft_plan_t p : {pf, pb, pc}) abft_fft_set_policy(p, ABFT_POLICY_OFF), abft_fft_set_threads(p, 1);
  auto dft = [&](const double* in, double* out, int sign) {
    return abft_fft_execute(sign < 0 ? pf : pb, in, out, nullptr) == ABFT_STATUS_SUCCESS;
  };
  std::vector<Cd> pairs, w;
  double w_norm = 0, v_norm = 0;
  ASSERT_TRUE(ck::fft_c2r_weights(n, dft, pairs, w, w_norm, v_norm));
  const int64_t h1 = n / 2 + 1;
  ASSERT_EQ(int64_t(pairs.size()), 2 * h1);
  ASSERT_EQ(int64_t(w.size()), n);
  double wmin = 1e300;
  for (const Cd& x : w) wmin = std::min(wmin, cabs(x));
  EXPECT_NEAR(wmin, 1.0, 1e-12) << "n=" << n;
  for (int64_t k = 0; k < h1; ++k) {
    const bool self = k == 0 || 2 * k == n;
    const Cd A = pairs[size_t(2 * k)], B = pairs[size_t(2 * k + 1)];
    // The check moves by Re d A + Im d B: its smallest gain over the phase of d is the smallest
    // singular value of the real 2 x 2 matrix [A B] (only Re d at the self-mirrored bins).
    double smin = cabs(A);
    if (!self) {
      const double fro = A.re * A.re + A.im * A.im + B.re * B.re + B.im * B.im;
      const double det = std::fabs(A.re * B.im - A.im * B.re);
      smin = std::sqrt(std::max(0.0, (fro - std::sqrt(std::max(0.0, fro * fro - 4 * det * det))) / 2));
    }
    EXPECT_GE(smin, ck::kC2RPush / (1 + ck::kC2RPush) - 1e-9) << "n=" << n << " bin " << k;
  }
  const FftLibraryShape sh = make_shape({n}, 2, +1);
  const ck::FftUnitBound b = ck::fft_library_bound<T>(sh, w_norm, v_norm, ck::fft_engine_sum_depth(h1, n));
  std::mt19937_64 g(uint64_t(n) + 5);
  std::uniform_real_distribution<double> u(-1, 1);
  double sharp = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<T> X(static_cast<size_t>(2 * h1)), y(static_cast<size_t>(n));
    for (T& v : X) v = T(u(g));
    X[1] = T(0);
    if (n % 2 == 0) X[static_cast<size_t>(2 * (n / 2) + 1)] = T(0);
    ASSERT_EQ(abft_fft_execute(pc, X.data(), y.data(), nullptr), ABFT_STATUS_SUCCESS);
    Cd in{}, out{};
    double x2 = 0;
    for (int64_t k = 0; k < h1; ++k) {
      const double xr = double(X[size_t(2 * k)]), xi = double(X[size_t(2 * k + 1)]);
      const Cd A = pairs[size_t(2 * k)], B = pairs[size_t(2 * k + 1)];
      in.re += xr * A.re + xi * B.re;
      in.im += xr * A.im + xi * B.im;
      x2 += xr * xr + xi * xi;
    }
    for (int64_t j = 0; j < n; ++j) out.re += double(y[size_t(j)]) * w[size_t(j)].re, out.im += double(y[size_t(j)]) * w[size_t(j)].im;
    const LineVerdict v = ck::fft_library_verdict(in, out, x2, b.coefficient(), b.abs, b.Y, double(std::numeric_limits<T>::max()));
    EXPECT_EQ(v, LineVerdict::Ok) << Prec<T>::name << " c2r n=" << n;
    sharp = std::max(sharp, std::hypot(out.re - in.re, out.im - in.im) / b.bound(std::sqrt(x2)));
  }
  std::printf("sharpness %s c2r n=%lld: %.4g\n", Prec<T>::name, (long long)n, sharp);
  for (abft_fft_plan_t p : {pf, pb, pc}) abft_fft_destroy(p);
}

TEST(FftLibraryC2R, TablesSeeEveryBinAndPassCleanSpectra) {
  for (int64_t n : {1, 2, 3, 8, 9, 64, 100, 999, 1000, 4096}) {
    c2r_tables<float>(n);
    c2r_tables<double>(n);
  }
}

/** The C2R input term's two columns at stored bin idx: the check moves by Re d A + Im d B. */
void c2r_columns(const FftLibraryShape& sh, const ck::FftC2RWeights& v, const int64_t* idx, Cd& A, Cd& B) {
  A = ck::fft_c2r_in_term(Cd{1, 0}, sh, v, idx);
  B = ck::fft_c2r_in_term(Cd{0, 1}, sh, v, idx);
}

/** Smallest singular value of the real 2 x 2 map (Re d, Im d) -> Re d A + Im d B. */
double smallest_gain(Cd A, Cd B) {
  const double fro = A.re * A.re + A.im * A.im + B.re * B.re + B.im * B.im;
  const double det = std::fabs(A.re * B.im - A.im * B.re);
  return std::sqrt(std::max(0.0, (fro - std::sqrt(std::max(0.0, fro * fro - 4 * det * det))) / 2));
}

/** The GPU engine's C2R tables, every rank (the gain construction, docs/ABFT.md §12.1), on
 *  transforms by the CPU C2R:
 *   - every output weight has modulus >= 1 (an output error moves the check by at least itself);
 *   - every stored bin is seen at every phase: at a bin whose mirror differs from it, the ratio
 *     of its two coefficients is at least 2, so the smallest gain over the error's phase,
 *     h ||W_k| - |W_-k||, is at least half the larger coefficient h max(|W_k|, |W_-k|) (and at
 *     least 1/2 on these shapes; its minimum is printed: 0.88 at 8 x 8, 13.5 at n = 999 where
 *     the CPU engine's pushed-apart rank-1 weights guarantee 0.2; fft_c2r_min_gain gives the
 *     same figure); a self-mirrored bin sees the real part, which is all the transform uses;
 *   - clean spectra pass, Hermitian or not (the CPU C2R transforms the Hermitian part, as the
 *     check's input side assumes), the sharpness printed;
 *   - an error of 4 bounds / (its bin's smallest gain) at a random phase in one stored bin, or
 *     of 4 bounds in one output, fails the check. */
template <class T>
void c2r_gpu_tables(std::vector<int64_t> n) {
  const FftLibraryShape sh = make_shape(n, 2, +1);
  const std::string name = std::string(Prec<T>::name) + " c2r " + shape_name(sh).substr(7);
  ck::FftC2RTables t;
  ASSERT_TRUE(abft::fft::detail::c2r_tables(sh, t)) << name;
  const ck::FftC2RWeights v = t.view();
  const int L = sh.rank - 1;
  int64_t in_dims[3] = {1, 1, 1}, out_dims[3] = {1, 1, 1};
  for (int d = 0; d < sh.rank; ++d) in_dims[d] = sh.in_dim(d), out_dims[d] = sh.out_dim(d);
  const int64_t cin = sh.in_count(), cout = sh.out_count();
  // Output weights.
  double wmin = 1e300;
  for (int64_t j = 0; j < cout; ++j) {
    int64_t idx[3] = {0, 0, 0};
    ck::fft_unravel(j, sh.rank, out_dims, idx);
    wmin = std::min(wmin, cabs(ck::fft_c2r_out_weight(sh, v, idx)));
  }
  EXPECT_GE(wmin, 1.0 - 1e-12) << name;
  // Stored bins.
  std::vector<double> gain(static_cast<size_t>(cin));
  double gmin = 1e300;
  for (int64_t e = 0; e < cin; ++e) {
    int64_t idx[3] = {0, 0, 0}, mir[3] = {0, 0, 0};
    ck::fft_unravel(e, sh.rank, in_dims, idx);
    Cd W = {1, 0}, Wm = {1, 0};
    bool self = true;
    for (int d = 0; d < sh.rank; ++d) {
      mir[d] = ck::fft_mirror_index(idx[d], sh.n[d]);
      self = self && (mir[d] == idx[d]);
      W = ck::cmul(W, v.W[d][idx[d]]);
      Wm = ck::cmul(Wm, v.W[d][mir[d]]);
    }
    const double h = (idx[L] == 0 || 2 * idx[L] == sh.n[L]) ? 0.5 : 1.0;
    Cd A, B;
    c2r_columns(sh, v, idx, A, B);
    const double g = self ? cabs(A) : smallest_gain(A, B);
    if (!self) {
      const double big = std::max(cabs(W), cabs(Wm)), small = std::min(cabs(W), cabs(Wm));
      EXPECT_GE(big, 2.0 * small * (1 - 1e-9)) << name << " bin " << e;
      EXPECT_NEAR(g, h * (big - small), 1e-9 * big) << name << " bin " << e;
    }
    EXPECT_GE(g, 0.5) << name << " bin " << e;
    gain[size_t(e)] = g;
    gmin = std::min(gmin, g);
  }
  EXPECT_NEAR(ck::fft_c2r_min_gain(sh, t), gmin, 1e-9 * gmin) << name;  // (the campaign's figure)
  // Clean spectra, then faults.
  abft_fft_plan_t pc = nullptr;
  ASSERT_EQ(abft_fft_plan_dft(&pc, nullptr, Prec<T>::id, ABFT_FFT_C2R, sh.rank, sh.n, +1, 0), ABFT_STATUS_SUCCESS);
  abft_fft_set_policy(pc, ABFT_POLICY_OFF);
  abft_fft_set_threads(pc, 1);
  const ck::FftUnitBound b = ck::fft_library_bound<T>(sh, t.w_norm, t.v_norm, ck::fft_engine_sum_depth(cin, cout));
  std::mt19937_64 g(uint64_t(cin) * 7 + 3);
  std::uniform_real_distribution<double> u(-1, 1);
  auto sums = [&](const std::vector<T>& X, const std::vector<T>& y, Cd& in, Cd& out, double& x2) {
    in = out = Cd{};
    x2 = 0;
    for (int64_t e = 0; e < cin; ++e) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(e, sh.rank, in_dims, idx);
      const Cd x{double(X[size_t(2 * e)]), double(X[size_t(2 * e + 1)])};
      const Cd tm = ck::fft_c2r_in_term(x, sh, v, idx);
      in.re += tm.re, in.im += tm.im;
      x2 += x.re * x.re + x.im * x.im;
    }
    for (int64_t j = 0; j < cout; ++j) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(j, sh.rank, out_dims, idx);
      const Cd z = ck::fft_c2r_out_weight(sh, v, idx);
      out.re += double(y[size_t(j)]) * z.re, out.im += double(y[size_t(j)]) * z.im;
    }
  };
  const double tmax = double(std::numeric_limits<T>::max());
  // The verdict on output y of input X (X as the input side saw it), with the residual over the
  // bound and the bound itself.
  auto verdict = [&](const std::vector<T>& X, const std::vector<T>& y, double* ratio, double* bound) {
    Cd in, out;
    double x2;
    sums(X, y, in, out, x2);
    *bound = b.bound(std::sqrt(x2));
    *ratio = std::hypot(out.re - in.re, out.im - in.im) / *bound;
    return ck::fft_library_verdict(in, out, x2, b.coefficient(), b.abs, b.Y, tmax);
  };
  double sharp = 0;
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<T> X(static_cast<size_t>(2 * cin)), y(static_cast<size_t>(cout));
    for (T& x : X) x = T(u(g));
    if (trial % 2 == 0) ck::fft_c2r_make_hermitian(X.data(), sh);  // (odd trials: as drawn)
    std::vector<T> Xc = X;  // the CPU C2R of rank >= 2 may use its input as scratch
    ASSERT_EQ(abft_fft_execute(pc, Xc.data(), y.data(), nullptr), ABFT_STATUS_SUCCESS);
    double ratio = 0, bound = 0, unused = 0;
    EXPECT_EQ(verdict(X, y, &ratio, &bound), LineVerdict::Ok) << name << " trial " << trial;
    sharp = std::max(sharp, ratio);
    // An input error as the transform read it (the input side keeps the clean value).
    const int64_t e = int64_t(g() % uint64_t(cin));
    const double ph = 2 * 3.141592653589793 * u(g), mag = 4 * bound / gain[size_t(e)];
    int64_t idx[3] = {0, 0, 0};
    ck::fft_unravel(e, sh.rank, in_dims, idx);
    const bool self = [&] {
      for (int d = 0; d < sh.rank; ++d)
        if (ck::fft_mirror_index(idx[d], sh.n[d]) != idx[d]) return false;
      return true;
    }();
    std::vector<T> Xf = X;  // a self-mirrored bin: a real error (the transform uses the real part)
    Xf[size_t(2 * e)] += T(self ? mag : mag * std::cos(ph));
    Xf[size_t(2 * e + 1)] += T(self ? 0.0 : mag * std::sin(ph));
    std::vector<T> yf(y.size());
    ASSERT_EQ(abft_fft_execute(pc, Xf.data(), yf.data(), nullptr), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(verdict(X, yf, &ratio, &unused), LineVerdict::Failed) << name << " input bin " << e;
    // An output error of 4 bounds.
    std::vector<T> yo = y;
    yo[size_t(int64_t(g() % uint64_t(cout)))] += T(4 * bound);
    EXPECT_EQ(verdict(X, yo, &ratio, &unused), LineVerdict::Failed) << name << " output";
  }
  std::printf("%s: min |w_j| %.3f, min gain %.3f (bins %lld), sharpness %.4g\n", name.c_str(), wmin, gmin,
              (long long)cin, sharp);
  abft_fft_destroy(pc);
}

TEST(FftLibraryC2R, GpuTablesSeeEveryBinAndPassCleanSpectra) {
  for (auto n : std::vector<std::vector<int64_t>>{{1}, {2}, {3}, {8}, {9}, {100}, {999}, {1000}, {4096}, {2, 2}, {3, 4}, {8, 8}, {12, 16}, {15, 14}, {64, 100}, {4, 6, 10},
                                                  {5, 6, 8}, {6, 10, 9}, {8, 8, 2}, {16, 12, 32}}) {
    c2r_gpu_tables<float>(n);
    c2r_gpu_tables<double>(n);
  }
}

}  // namespace
