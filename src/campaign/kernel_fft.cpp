/** \file kernel_fft.cpp
 *  \brief Campaign adapter of the protected CPU FFT (abft/fft.h): a batch of 1D transforms,
 *  complex forward or backward, real-to-complex or complex-to-real, in float or double.
 *
 *  One plan per adapter, made on the first run() with the handle the driver passes (the
 *  plan reads the handle's threads and injection planner by reference) and executed out of
 *  place on the trial's input for every run. Escape limits are the fault-matrix test's
 *  (tests/fft/fft_fault_matrix_test.cpp): every output scalar of a signal within
 *  abft::checksum::fft_escape_bound of the signal's input norm.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <sstream>

#include "abft/checksum/fft_bounds.hpp"
#include "abft/fft.h"
#include "campaign/input_gen.hpp"
#include "campaign/kernel.hpp"

namespace abft::campaign {
namespace {

/** What --variant and --sizes select. */
struct FftShape {
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = ABFT_FFT_FORWARD;
  const char* variant = "c2c";
  int64_t n = 1024;     ///< transform length (the real length for r2c / c2r)
  int64_t batch = 4;    ///< signals per call
  /** Elements (complex pairs or reals) of one signal's input and output. */
  int64_t in_elems() const { return kind == ABFT_FFT_C2R ? n / 2 + 1 : n; }
  int64_t out_elems() const { return kind == ABFT_FFT_R2C ? n / 2 + 1 : n; }
  int in_per() const { return kind == ABFT_FFT_R2C ? 1 : 2; }  ///< scalars per input element
  int out_per() const { return kind == ABFT_FFT_C2R ? 1 : 2; }
};

/** Largest number of scalars on one side of a call the adapter accepts (memory guard). */
constexpr int64_t kMaxScalars = int64_t(1) << 27;

template <class T>
class FftKernel final : public Kernel {
 public:
  explicit FftKernel(const FftShape& s)
      : s_(s),
        in_(size_t(s.batch * s.in_elems() * s.in_per())),
        out_(size_t(s.batch * s.out_elems() * s.out_per())),
        limits_(out_.size(), 0.0) {}
  ~FftKernel() override {
    if (plan_) abft_fft_destroy(plan_);
  }
  FftKernel(const FftKernel&) = delete;
  FftKernel& operator=(const FftKernel&) = delete;

  std::string describe() const override {
    std::ostringstream os;
    os << (sizeof(T) == 4 ? "sfft " : "dfft ") << s_.variant << " n=" << s_.n << " batch=" << s_.batch;
    if (plan_) os << " [" << abft_fft_describe(plan_) << "]";
    return os.str();
  }

  std::vector<abft_site> sites() const override {
    // Every site the FFT engine injects at (abft/fft.h).
    return {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE, ABFT_SITE_FFT_TWIDDLE};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng rng(seed);
    const InputDist dist = input_dist_of(trial);
    for (T& x : in_) x = static_cast<T>(rng.draw(dist));
    const int64_t ie = s_.in_elems(), ip = s_.in_per();
    if (s_.kind == ABFT_FFT_C2R) {
      // A Hermitian-consistent half spectrum (tests/fft make_hermitian, 1D): the bins that
      // are their own mirror (0, and n/2 for even n) are real, so every correct C2R
      // algorithm computes the same real signal.
      for (int64_t b = 0; b < s_.batch; ++b) {
        in_[size_t((b * ie) * 2 + 1)] = T(0);
        if (s_.n % 2 == 0) in_[size_t((b * ie + s_.n / 2) * 2 + 1)] = T(0);
      }
    }
    // Per signal: the escape bound of its input norm (a C2R half spectrum stands for a
    // Hermitian signal of up to sqrt(2) times its norm), the same for every output scalar.
    const size_t out_sig = size_t(s_.out_elems() * s_.out_per());
    for (int64_t b = 0; b < s_.batch; ++b) {
      long double ss = 0;
      const T* x = in_.data() + size_t(b * ie * ip);
      for (int64_t i = 0; i < ie * ip; ++i) ss += static_cast<long double>(x[i]) * x[i];
      long double norm = std::sqrt(ss);
      if (s_.kind == ABFT_FFT_C2R) norm *= std::sqrt(2.0L);
      const double bound = checksum::fft_escape_bound<T>(s_.n, double(norm));
      for (size_t k = 0; k < out_sig; ++k) limits_[size_t(b) * out_sig + k] = bound;
    }
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    try {
      if (!plan_ || h != plan_handle_) {
        if (plan_) abft_fft_destroy(plan_);
        plan_ = nullptr;
        const int64_t n = s_.n;
        r.status = abft_fft_plan_many(&plan_, h, sizeof(T) == 4 ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE,
                                      s_.kind, 1, &n, s_.batch, nullptr, 1, s_.in_elems(), nullptr, 1,
                                      s_.out_elems(), s_.sign, ABFT_FFT_PRESERVE_INPUT);
        if (r.status != ABFT_STATUS_SUCCESS) {
          plan_ = nullptr;
          return r;
        }
        plan_handle_ = h;
      }
      r.status = abft_fft_set_policy(plan_, policy);
      if (r.status != ABFT_STATUS_SUCCESS) return r;
      // An output the call fails to write shows as NaN, not as the previous run's value.
      std::fill(out_.begin(), out_.end(), std::numeric_limits<T>::quiet_NaN());
      r.status = abft_fft_execute(plan_, in_.data(), out_.data(), &r.report);
      r.calls = 1;
      r.out.assign(out_.begin(), out_.end());
    } catch (const std::bad_alloc&) {
      r.status = ABFT_STATUS_ALLOC_FAILED;
    } catch (...) {
      r.status = ABFT_STATUS_INTERNAL_ERROR;
    }
    return r;
  }

  const std::vector<double>& limits() const override { return limits_; }

 private:
  FftShape s_;
  std::vector<T> in_, out_;      ///< interleaved scalars, signal after signal
  std::vector<double> limits_;   ///< per output scalar
  abft_fft_plan_t plan_ = nullptr;
  abft_handle_t plan_handle_ = nullptr;  ///< the handle the plan was made with
};

}  // namespace

std::unique_ptr<Kernel> make_fft_kernel(const KernelOptions& o, std::string* error) {
  FftShape s;
  if (o.variant.empty() || o.variant == "c2c") {
    s.kind = ABFT_FFT_C2C, s.sign = ABFT_FFT_FORWARD, s.variant = "c2c";
  } else if (o.variant == "c2c-bwd") {
    s.kind = ABFT_FFT_C2C, s.sign = ABFT_FFT_BACKWARD, s.variant = "c2c-bwd";
  } else if (o.variant == "r2c") {
    s.kind = ABFT_FFT_R2C, s.sign = ABFT_FFT_FORWARD, s.variant = "r2c";
  } else if (o.variant == "c2r") {
    s.kind = ABFT_FFT_C2R, s.sign = ABFT_FFT_BACKWARD, s.variant = "c2r";
  } else {
    *error = "fft: --variant '" + o.variant + "' is not one of c2c (forward), c2c-bwd, r2c, c2r";
    return nullptr;
  }
  if (o.sizes.size() > 2) {
    *error = "fft: --sizes takes n[,batch] (a batch of 1D transforms of length n)";
    return nullptr;
  }
  if (!o.sizes.empty()) s.n = o.sizes[0];
  if (o.sizes.size() == 2) s.batch = o.sizes[1];
  if (s.n < 1 || s.batch < 1) {
    *error = "fft: --sizes n[,batch] needs n >= 1 and batch >= 1";
    return nullptr;
  }
  if (s.n > kMaxScalars / 2 || s.batch > kMaxScalars / (2 * s.n)) {
    *error = "fft: --sizes n[,batch] is too large (at most 2^27 scalars a side)";
    return nullptr;
  }
  try {
    switch (o.type) {
      case DataType::F32: return std::make_unique<FftKernel<float>>(s);
      case DataType::F64: return std::make_unique<FftKernel<double>>(s);
      default:
        *error = std::string("fft: --type ") + type_name(o.type) +
                 " is not available (f32 or f64: the precision; c2c data are complex)";
        return nullptr;
    }
  } catch (const std::bad_alloc&) {
    *error = "fft: cannot allocate the arrays of --sizes";
    return nullptr;
  }
}

}  // namespace abft::campaign
