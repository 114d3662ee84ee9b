/** \file fft_line.hpp
 *  \brief A checked unit: one 1D transform (complex, real-to-complex or
 *  complex-to-real) on contiguous data, with its checksum weights and its
 *  round-off bound (include/abft/checksum/fft_bounds.hpp, docs/ABFT.md §9).
 */
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abft/checksum/fft_bounds.hpp"
#include "abft/fft.h"
#include "cpu/fft/fft_kernel1d.hpp"

namespace abft::cpu::fft {

template <class T>
class LinePlan {
 public:
  /** kind: C2C (sign +-1), R2C (sign -1) or C2R (sign +1); n the logical length. */
  LinePlan(abft_fft_kind kind, int64_t n, int sign, const FftKernels<T>& K, int threads);

  abft_fft_kind kind() const { return kind_; }
  int64_t n() const { return n_; }
  int sign() const { return sign_; }
  int64_t kernel_n() const { return kernel_->n(); }
  /** Elements of the input / output line (complex elements for complex sides). */
  int64_t in_elems() const { return kind_ == ABFT_FFT_C2R ? h1_ : n_; }
  int64_t out_elems() const { return kind_ == ABFT_FFT_R2C ? h1_ : n_; }
  /** Scalars of the input / output line. */
  int64_t in_scalars() const { return kind_ == ABFT_FFT_R2C ? n_ : 2 * in_elems(); }
  int64_t out_scalars() const { return kind_ == ABFT_FFT_C2R ? n_ : 2 * out_elems(); }
  int64_t work_scalars() const;
  int stages() const { return kernel_->stages(); }
  /** Threads a large (four-step) kernel may use inside one line. */
  void set_threads(int nt) { kernel_->set_threads(nt); }

  /** out = transform(in); in is only read, out must not overlap it. */
  void compute(const T* in, T* out, T* work, StageHook<T>* hook) const;

  /** Input side of the check: sum_j v_j x_j, and ||x||_2^2 in *x2. */
  std::complex<double> check_in(const T* in, double* x2) const;
  /** Output side of the check: sum_k w_k y_k. */
  std::complex<double> check_out(const T* out) const;
  /** The bound for an input of 2-norm x_norm. */
  double bound(double x_norm) const { return bound_.bound(x_norm) + abs_; }
  /** ||y||_2 <= Y ||x||_2 (decides when the output could overflow legitimately). */
  double growth() const { return bound_.Y; }
  const checksum::FftUnitBound& bound_pieces() const { return bound_; }

  /** Refresh every table (twiddles, chirps, weights) whose fingerprint no
   *  longer matches: the first step of a repair. */
  void refresh_tables();
  /** Only the tables the transform reads (injection targets). */
  void kernel_tables(std::vector<Table<T>*>& out) { kernel_->tables(out); }
  std::string describe() const;

 private:
  void build_weights_c2c();
  void build_weights_r2c();
  void build_weights_c2r();

  abft_fft_kind kind_;
  int64_t n_, h1_;  // h1 = n/2 + 1
  int sign_;
  bool half_;  // real line through a complex kernel of length n/2
  const FftKernels<T>& K_;
  std::unique_ptr<Kernel1d<T>> kernel_;
  Table<T> twist_;     // real lines of even length: exp(sign 2 pi i k / n), k < n/2
  // Weights. Complex lines: w_ holds the block table r_j (j < kWeightBlock) as
  // (re, re) then (im, im) pairs and Rb_ the block factors R_b (double), so
  // w_{bB+j} = R_b r_j; v_ holds (c_j, c_j) pairs, v_j = 1 + i c_j. Real
  // sides: real and imaginary parts of the weights as two blocks.
  Table<T> w_, v_;
  Table<double> Rb_;
  checksum::FftUnitBound bound_;
  double abs_ = 0;
};

}  // namespace abft::cpu::fft
